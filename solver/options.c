/* solver/options.c: the solver's option keys, the lookup over every module's keys, the public
 * option calls and the one read of MPCG_OPTIONS */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "solver/options.h"
#include "precond/precond.h"
#include "solver/solver.h"
#include "spmv/auto/auto.h"
#include "spmv/spmv.h"

static const char *const variant_words[] = {
    "auto", "host", "launched", "graph", "persistent-single", "persistent-two-barrier", NULL};

static const char *const strategy_words[] = {"reliable", "refinement", NULL};

static const char *const block_apply_words[] = {"inverse", "cholesky", NULL};

static const char *const block_method_words[] = {"block", "independent", NULL};

static const mpcgi_option_key cg_keys[MPCGI_OPT_CG_COUNT] = {
    [MPCGI_OPT_CG_VARIANT] = {"cg.variant", MPCGI_OPTION_WORD, 0, 0, 0, 0, 0, variant_words,
                              "how the CG iterations run (docs/solver.md); auto chooses from n "
                              "and the backend, host on a CPU context"},
    [MPCGI_OPT_CG_CHECK_INTERVAL] = {"cg.check_interval", MPCGI_OPTION_INT, 0, 0, 1L << 30, 0, 0,
                                     NULL,
                                     "GPU: iterations queued between reads of the residual; 0: "
                                     "adaptive (mpcg_solver_set_check_interval)"},
    [MPCGI_OPT_CG_SMALL_N] = {"cg.small_n", MPCGI_OPTION_INT, 200000, 0, 1L << 30, 0, 0, NULL,
                              "GPU, cg.variant=auto: systems up to this n run a persistent loop "
                              "or a CUDA graph, larger ones launched kernels"},
    [MPCGI_OPT_CG_PERSISTENT_BLOCKS] = {"cg.persistent_blocks", MPCGI_OPTION_INT, 1, 1, 32, 0, 0,
                                        NULL,
                                        "GPU, persistent-two-barrier: blocks per SM of its "
                                        "cooperative launch (at most what fits)"},
    [MPCGI_OPT_MIXED_STRATEGY] = {"mixed.strategy", MPCGI_OPTION_WORD, MPCGI_MIXED_RELIABLE, 0,
                                  0, 0, 0, strategy_words,
                                  "precision mixed: reliable updates (one fp32 CG, r replaced by "
                                  "the fp64 true residual as it falls) or iterative refinement "
                                  "(fp32 CG solves for fp64 corrections); docs/precision.md"},
    [MPCGI_OPT_MIXED_RELIABLE_DROP] = {"mixed.reliable_drop", MPCGI_OPTION_INT, 100, 2, 1000000,
                                       0, 0, NULL,
                                       "mixed.strategy=reliable: the fp64 true residual replaces "
                                       "r each time r has dropped by this factor"},
    [MPCGI_OPT_MIXED_FP64_HEAD] = {"mixed.fp64_head", MPCGI_OPTION_INT, 8, 0, 16, 0, 0, NULL,
                                   "precision mixed: the first iterations run in fp64 until the "
                                   "residual is below tol * 10^D ||b||, so fp32's rounding lies "
                                   "below tol; systems under 2048 rows run all of it in fp64 "
                                   "(0: no head, fp32 from the start at every size; "
                                   "docs/precision.md)"},
    [MPCGI_OPT_MIXED_STALL_WINDOW] = {"mixed.stall_window", MPCGI_OPTION_INT, 32, 0, 1L << 30,
                                      0, 0, NULL,
                                      "precision mixed: an fp32 segment stalls when W iterations "
                                      "do not halve its best recurrence residual or fall at a "
                                      "quarter of its fastest rate: the fp64 true residual "
                                      "replaces r and CG restarts; a second stall in a row, or "
                                      "a true residual that did not halve, finishes in fp64 "
                                      "(default 32; 0: never; docs/precision.md)"},
    [MPCGI_OPT_PRECOND_BLOCK_SIZE] = {"precond.block_size", MPCGI_OPTION_INT, 48, 0, 64, 0, 0,
                                      NULL,
                                      "precond bjacobi: rows per diagonal block (larger "
                                      "blocks: fewer iterations, more to invert and apply); 0: "
                                      "node blocks detected from the pattern "
                                      "(docs/preconditioners.md)"},
    [MPCGI_OPT_PRECOND_DEGREE] = {"precond.degree", MPCGI_OPTION_INT, 3, 1, 32, 0, 0, NULL,
                                  "precond chebyshev: degree of the polynomial in D^-1 A (degree "
                                  "- 1 SpMVs an apply)"},
    [MPCGI_OPT_PRECOND_LMIN_DIVISOR] = {"precond.lmin_divisor", MPCGI_OPTION_INT, 30, 2, 1000000,
                                        0, 0, NULL,
                                        "precond chebyshev: lambda_min = lambda_max / this "
                                        "(lambda_max estimated at setup)"},
    [MPCGI_OPT_PRECOND_BLOCK_APPLY] = {"precond.block_apply", MPCGI_OPTION_WORD,
                                       MPCGI_BLOCK_APPLY_INVERSE, 0, 0, 0, 0, block_apply_words,
                                       "precond bjacobi: apply the blocks' explicit inverses (one "
                                       "dense product a block) or their Cholesky factors (two "
                                       "triangular solves); docs/preconditioners.md"},
    [MPCGI_OPT_BLOCK_METHOD] = {"block.method", MPCGI_OPTION_WORD, 0, 0, 0, 0, 0,
                                block_method_words,
                                "mpcg_solve_block: block CG (O'Leary's, the directions "
                                "orthonormalised, dependent ones dropped) or independent CGs "
                                "sharing the SpMM (docs/block.md)"},
    [MPCGI_OPT_BLOCK_RANK_DIGITS] = {"block.rank_digits", MPCGI_OPTION_INT, 6, 1, 15, 0, 0, NULL,
                                     "block CG: a direction whose part independent of the others "
                                     "is below 10^-D of its norm is dropped"},
};

const mpcgi_option_table mpcgi_cg_options = {cg_keys, MPCGI_OPT_CG_COUNT};

/* Table t of the build: the solver's, auto's, then each backend's (NULL past the last). */
static const mpcgi_option_table *table(int t)
{
    if (t == 0) return &mpcgi_cg_options;
    if (t == 1) return &mpcgi_auto_options;
    for (int i = 0, seen = 2; i < mpcgi_spmv_count(); i++) {
        const mpcgi_option_table *b = mpcgi_spmv_get(i)->options;
        if (b && b->count > 0 && seen++ == t) return b;
    }
    return NULL;
}

const mpcgi_option_key *mpcgi_option_find(const char *key)
{
    const mpcgi_option_table *t;
    for (int i = 0; key && (t = table(i)) != NULL; i++) {
        const mpcgi_option_key *k = mpcgi_option_table_find(t, key);
        if (k) return k;
    }
    return NULL;
}

int mpcg_option_count(void)
{
    int c = 0;
    const mpcgi_option_table *t;
    for (int i = 0; (t = table(i)) != NULL; i++)
        c += t->count;
    return c;
}

/* Key i of the build in listing order, or NULL. */
static const mpcgi_option_key *key_at(int i)
{
    const mpcgi_option_table *t;
    for (int j = 0; i >= 0 && (t = table(j)) != NULL; j++) {
        if (i < t->count) return &t->keys[i];
        i -= t->count;
    }
    return NULL;
}

mpcg_status mpcg_option_get(int i, mpcg_option_info *info)
{
    const mpcgi_option_key *k = key_at(i);
    MPCG_ENSURE(NULL, info, MPCG_ERR_INVALID_ARG, "info must not be NULL");
    MPCG_ENSURE(NULL, k, MPCG_ERR_INVALID_ARG, "option index %d out of range [0, %d)", i,
                mpcg_option_count());
    memset(info, 0, sizeof *info);
    info->key = k->key;
    info->description = k->help;
    mpcgi_option_default_text(k, info->default_value, sizeof info->default_value);
    mpcgi_option_range_text(k, info->range, sizeof info->range);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_options_set_text(const mpcg_context *ctx, mpcgi_options *o, const char *key,
                                   const char *value)
{
    MPCG_ENSURE(ctx, key && value, MPCG_ERR_INVALID_ARG, "option key and value must not be NULL");
    const mpcgi_option_key *k = mpcgi_option_find(key);
    if (!k) {
        char list[1024];
        size_t len = 0;
        list[0] = '\0';
        for (int i = 0; i < mpcg_option_count() && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    key_at(i)->key);
        MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "unknown option '%s'; the options are: %s", key,
                  list);
    }
    long v;
    MPCG_CHECK(ctx, mpcgi_option_parse(ctx, k, value, &v));
    MPCG_CHECK(ctx, mpcgi_options_put(ctx, o, k, v));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_options_set_list(const mpcg_context *ctx, mpcgi_options *o, const char *list,
                                   const char *origin)
{
    char item[256];
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && (*p == ' ' || *p == '\t')) p++, len--;
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        if (len > 0) {
            MPCG_ENSURE(ctx, len < sizeof item, MPCG_ERR_INVALID_ARG,
                        "%s: item '%.40s...' is too long", origin, p);
            memcpy(item, p, len);
            item[len] = '\0';
            char *eq = strchr(item, '=');
            MPCG_ENSURE(ctx, eq, MPCG_ERR_INVALID_ARG, "%s: '%s' is not key=value", origin,
                        item);
            *eq = '\0';
            MPCG_CHECK(ctx, mpcgi_options_set_text(ctx, o, item, eq + 1));
        }
        p = end ? end + 1 : NULL;
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_options_from_env(const mpcg_context *ctx, mpcgi_options *o)
{
    const char *env = getenv("MPCG_OPTIONS");
    if (env) MPCG_CHECK(ctx, mpcgi_options_set_list(ctx, o, env, "MPCG_OPTIONS"));
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_option(mpcg_solver *s, const char *key, const char *value)
{
    MPCG_ENSURE(NULL, s && s->magic == MPCGI_SOLVER_MAGIC, MPCG_ERR_INVALID_ARG,
                "invalid solver (NULL or destroyed)");
    MPCG_CHECK(s->ctx, mpcgi_options_set_text(s->ctx, &s->opts, key, value));
    s->setup_done = 0;
    return MPCG_SUCCESS;
}
