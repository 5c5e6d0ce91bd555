/* spmv/auto/auto.h: "auto": the SpMV backend chosen at setup by timing candidate plans, and its
 * cache */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_AUTO_H
#define MPCG_SPMV_AUTO_H

#include <stdint.h>

#include "core/csr.h"
#include "core/csr_view.h"
#include "core/options.h"
#include "mpcg.h"
#include "spmv/spmv.h"

/*
 * auto is a policy of the registry, not a backend (docs/backends/auto.md). On a CPU context it
 * is the cpu backend. On a GPU it builds the plan of each candidate the solve allows (in the
 * order of mpcgi_spmv_auto_rank), times a few SpMVs of each in the precision the solve iterates
 * in, keeps the candidate with the smallest setup + expected SpMVs x SpMV time
 * (mpcgi_auto_decide) and frees the others as soon as they lose. The decision is cached per
 * matrix fingerprint in the context's cache directory (spmv/auto/cache.c), so the next setup on
 * the same pattern builds only the chosen plan.
 */

/* The auto.* option keys, in the order of mpcgi_auto_options.keys. */
enum {
    MPCGI_OPT_AUTO_CACHE,       /* word: on, off */
    MPCGI_OPT_AUTO_ITERATIONS,  /* SpMVs a plan's setup is weighed against; auto: the rule */
    MPCGI_OPT_AUTO_BUDGET,      /* the trial's cost cap in SpMV-equivalents; auto: none */
    MPCGI_OPT_AUTO_SPMVS,       /* timed SpMVs per candidate (after one warm-up) */
    MPCGI_OPT_AUTO_FINGERPRINT, /* word: sampled, full (the pattern hash) */
    MPCGI_OPT_AUTO_CLOSE,       /* % within which two SpMVs are a close call, timed again */
    MPCGI_OPT_AUTO_COUNT
};
enum { MPCGI_AUTO_CACHE_ON, MPCGI_AUTO_CACHE_OFF };
enum { MPCGI_AUTO_SAMPLED, MPCGI_AUTO_FULL };

extern const mpcgi_option_table mpcgi_auto_options;

/* What the solve needs of its plan. */
typedef struct mpcgi_auto_request {
    mpcg_precision precision;  /* of the solve (the fingerprint) */
    unsigned precisions;       /* value precisions of the plan (mpcgi_spmv_plan_create) */
    mpcg_precision apply;      /* the precision of the iteration's products: what is timed */
    const mpcgi_options *opts; /* the solver's options: the backends' keys and auto.* */
    int64_t maxit;             /* the solve's iteration limit */
    int need_block;            /* 1: only backends with a block product (block CG) */
    int need_rows;             /* 1: only backends that export rows (spmv/rows.h): the solve
                                  runs a persistent loop over them (mpcgi_cg_variant_needs_rows) */
    int fused_dot;             /* 1: the iteration forms y = A x and x.y in one pass where the
                                  plan can (apply_dot; fp64 on a GPU, mpcgi_cg_variant_fuses_dot):
                                  that product is what is timed, on plans that have it */
} mpcgi_auto_request;

/*
 * The plan for the backend `name`, and how it was chosen (every field of *choice): a registered
 * name ("fixed"); "auto" on a CPU context ("cpu": the cpu backend); "auto" on a GPU: the cached
 * decision for A's fingerprint ("cache") where the context has a cache directory and auto.cache
 * is on, else the trial ("trial"), whose decision is then written to the cache. A cache that
 * cannot be read or written never fails the call (choice->note and the log say why).
 */
mpcg_status mpcgi_spmv_choose(mpcg_context *ctx, const char *name, mpcgi_csr *A,
                              const mpcgi_auto_request *req, mpcgi_spmv_plan **out,
                              mpcg_backend_choice *choice);

/*
 * The trial alone, on any context: on a GPU the SpMVs are timed with CUDA events, on a CPU
 * context (the tests) the CPU plans and emulations with the wall clock. Fills choice->chosen,
 * candidates, expected_spmvs, trial_h2d_s, copy_s (the other cost fields are the caller's, who
 * knows what else it spent) and, where own_s is not NULL, the kept plan's own setup: what the
 * backend named would have spent (its candidate's setup_s; with the device copy, see
 * mpcgi_auto_copy_keep). MPCG_ERR_NOT_SUPPORTED when no candidate could be built and timed.
 */
mpcg_status mpcgi_spmv_auto_trial(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_request *req,
                                  mpcgi_spmv_plan **out, mpcg_backend_choice *choice,
                                  double *own_s);

/* The rule (pure): the candidate with the smallest setup_s + expected_spmvs x spmv_s among those
 * not skipped, the earlier one on a tie; -1 if every one was skipped. Writes each score_s. */
int mpcgi_auto_decide(mpcg_backend_candidate *c, int count, double expected_spmvs);

/* The SpMVs a setup is weighed against (pure): auto.iterations where set, else
 * min(maxit, max(100, sqrt(n))): CG's iteration count grows like sqrt(condition number), which
 * for the discretised operators mpcg is asked to solve grows like n^(2/d): sqrt(n) is the 2D
 * count and an upper guess in 3D. */
double mpcgi_auto_expected_spmvs(const mpcgi_options *opts, int64_t n, int64_t maxit);

/* The budget rule (pure): 1 if the trial may build one more candidate, whose setup is predicted
 * at predicted_s, when it has spent spent_s beyond the plan it keeps so far, the best SpMV is
 * t_best seconds and each candidate runs `calls` SpMVs (warm-up and timed): spent_s +
 * predicted_s + calls t_best <= budget x t_best. budget < 0: no cap. */
int mpcgi_auto_fits(double budget, double spent_s, double predicted_s, double t_best, int calls);

/* ----------------------------------------------- the trial's device copy (spmv/auto/copy.c) */

/* One device copy of a host matrix that the trial's candidates are built from, instead of an
 * upload per candidate. While attached, A->dev is the copy's view and A->mirror is FULL (A's
 * host arrays are all there, nothing is copied back): backends that build on the device
 * (MPCGI_VIEW_DEVICE) copy or convert what they need from it, DIRECT ones read it in place. */
typedef struct mpcgi_auto_copy {
    mpcgi_csr_view view;
    int64_t *row_ptr; /* device: n + 1 */
    int32_t *col_idx; /* device: nnz */
    double *val;      /* device: nnz */
    double seconds;   /* the copy's wall time (waited for) */
    double h2d_s;     /* of it, the host-to-device copies */
    int saved_mirror; /* A->mirror before the attach (attached: A->dev is &view) */
} mpcgi_auto_copy;

/* 1 if the trial builds its candidates from one device copy of A: ctx on a GPU, A host CSR with
 * nnz > 0, two or more candidates, and the copy (8 (n + 1) + 12 nnz bytes) at most a quarter of
 * the device memory left (mpcgi_device_bytes_left), so that the plans still fit beside it. */
int mpcgi_auto_copy_wanted(const mpcg_context *ctx, const mpcgi_csr *A, int candidates);
/* Make the copy (waited for) and attach it to A. On failure nothing is left allocated, A is as
 * it was, and the context's error says why (the trial then goes on without a copy). */
mpcg_status mpcgi_auto_copy_attach(mpcg_context *ctx, mpcgi_csr *A, mpcgi_auto_copy *c);
/* A as before the attach, and the copy freed (what its view derived too). Accepts a copy that
 * was never attached, and one already detached. */
void mpcgi_auto_copy_detach(mpcg_context *ctx, mpcgi_csr *A, mpcgi_auto_copy *c);
/* The winner *plan, built on the copy in build_s seconds, made a plan of A (the copy detached):
 * a DEVICE plan stays (mpcgi_spmv_plan_rehome), and its own setup (*own_s, what a named
 * backend would have spent) is the copy, the build and A's host fp32 copies; any other is built
 * again on A, and *own_s is that build. */
mpcg_status mpcgi_auto_copy_keep(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_copy *c,
                                 const mpcgi_auto_request *req, mpcgi_spmv_plan **plan,
                                 double build_s, double *own_s);

/* ------------------------------------------------------- the cache (spmv/auto/cache.c) */

/* 1 if auto uses the cache: the context has a directory (mpcg_context_set_cache_dir) and
 * auto.cache is on. */
int mpcgi_auto_cache_enabled(const mpcg_context *ctx, const mpcgi_options *opts);

/* The identity of a decision: the fingerprint as text (the first lines of its cache file) and
 * the file's name, auto-<16 hex digits of the text's hash>.txt. */
typedef struct mpcgi_auto_key {
    char text[768];
    char file[40];
} mpcgi_auto_key;

/* The fingerprint of A for req on ctx: mpcg version, GPU model, n, nnz, the pattern hash
 * (auto.fingerprint: sampled or full, mpcgi_csr_pattern_hash), the solve's precision, whether a
 * block product is needed, and a hash of the options set (auto.cache aside). A device view's
 * sample is read on the device (a few kB to the host), its full hash from the view's host copy
 * (made once: the whole pattern and values to the host). */
mpcg_status mpcgi_auto_key_make(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_request *req,
                                mpcgi_auto_key *key);

/* The decision stored for key in dir: 1 and choice's chosen, expected_spmvs and candidates (as
 * the trial measured them); 0 when there is none or the file is ignored (choice->note says why:
 * unreadable, not a record, another fingerprint, a malformed line, an unknown backend). Never an
 * error of the context. */
int mpcgi_auto_cache_load(const char *dir, const mpcgi_auto_key *key, mpcg_backend_choice *choice);

/* Write the decision in choice for key into dir (atomically, core/cache.h). The text of a record
 * is the key's text and then "chosen NAME", "expected_spmvs E" and one "candidate" line per
 * candidate; mpcgi_auto_record_format writes it, mpcgi_auto_record_parse reads it back. */
mpcg_status mpcgi_auto_cache_store(mpcg_context *ctx, const char *dir, const mpcgi_auto_key *key,
                                   const mpcg_backend_choice *choice);
void mpcgi_auto_record_format(const mpcgi_auto_key *key, const mpcg_backend_choice *choice,
                              char *buf, size_t size);
/* 1 if text is a record of key: choice's fields read from it; else 0 and why. */
int mpcgi_auto_record_parse(const char *text, const mpcgi_auto_key *key,
                            mpcg_backend_choice *choice, char *why, size_t why_size);

#endif /* MPCG_SPMV_AUTO_H */
