/* solver/options.h: the solver's option keys and the lookup of every key of the build */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_OPTIONS_H
#define MPCG_SOLVER_OPTIONS_H

#include "core/options.h"
#include "mpcg.h"

/* The solver's keys, in the order of mpcgi_cg_options.keys. */
enum {
    MPCGI_OPT_CG_VARIANT,        /* word: auto, host, launched, graph, persistent-single,
                                    persistent-two-barrier */
    MPCGI_OPT_CG_CHECK_INTERVAL, /* iterations between host checks on the GPU; 0: adaptive */
    MPCGI_OPT_CG_SMALL_N,        /* largest n of the latency-bound variants under auto */
    MPCGI_OPT_CG_PERSISTENT_BLOCKS, /* blocks per SM of the two-barrier persistent loop */
    MPCGI_OPT_MIXED_STRATEGY,    /* word: reliable, refinement (solver/cg_mixed.c) */
    MPCGI_OPT_MIXED_RELIABLE_DROP, /* reliable: residual drop between true residuals */
    MPCGI_OPT_MIXED_FP64_HEAD,   /* digits D: fp64 until ||r|| <= tol 10^D ||b|| (0: none) */
    MPCGI_OPT_MIXED_STALL_WINDOW, /* W: an fp32 segment stalls when W iterations do not halve r */
    MPCGI_OPT_PRECOND_BLOCK_SIZE, /* bjacobi: rows per block (0: node blocks detected) */
    MPCGI_OPT_PRECOND_DEGREE,    /* chebyshev: the polynomial's degree */
    MPCGI_OPT_PRECOND_LMIN_DIVISOR, /* chebyshev: lambda_min = lambda_max / this */
    MPCGI_OPT_PRECOND_BLOCK_APPLY, /* word: inverse, cholesky (bjacobi's apply) */
    MPCGI_OPT_BLOCK_METHOD,      /* word: block, independent (mpcg_solve_block) */
    MPCGI_OPT_BLOCK_RANK_DIGITS, /* block CG drops a direction below 10^-D of its norm */
    MPCGI_OPT_CG_COUNT
};

/* The words of cg.variant, in order (index 0: auto). */
enum {
    MPCGI_VARIANT_AUTO,
    MPCGI_VARIANT_HOST,
    MPCGI_VARIANT_LAUNCHED,
    MPCGI_VARIANT_GRAPH,
    MPCGI_VARIANT_PERSISTENT_SINGLE,
    MPCGI_VARIANT_PERSISTENT_TWO_BARRIER
};

/* The words of mixed.strategy, in order. */
enum { MPCGI_MIXED_RELIABLE, MPCGI_MIXED_REFINEMENT };

extern const mpcgi_option_table mpcgi_cg_options;

/* The key named `key` among the solver's and every compiled backend's keys, or NULL. */
const mpcgi_option_key *mpcgi_option_find(const char *key);

/* Set key=value in o after checking both (unknown key: the message lists the valid ones). */
mpcg_status mpcgi_options_set_text(const mpcg_context *ctx, mpcgi_options *o, const char *key,
                                   const char *value);

/* Apply a list "key=value,key=value" (spaces around items allowed; empty items skipped), as
 * MPCG_OPTIONS holds it; `origin` names the list in messages ("MPCG_OPTIONS"). */
mpcg_status mpcgi_options_set_list(const mpcg_context *ctx, mpcgi_options *o, const char *list,
                                   const char *origin);

/* The one read of the environment: MPCG_OPTIONS applied to o (nothing when unset). */
mpcg_status mpcgi_options_from_env(const mpcg_context *ctx, mpcgi_options *o);

#endif /* MPCG_SOLVER_OPTIONS_H */
