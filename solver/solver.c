/* solver/solver.c: the solver object: options, setup (all allocation but block CG's work arrays,
 * made at the first block solve: solver/block_cg.c) and solve */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "precond/precond.h"
#include "solver/block_cg.h"
#include "solver/cg_variants.h"
#include "solver/options.h"
#include "solver/solver.h"
#include "spmv/auto/auto.h"

static int valid(const mpcg_solver *s)
{
    return s && s->magic == MPCGI_SOLVER_MAGIC;
}

#define SOLVER_ENSURE(s)                                                                           \
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)")

mpcg_status mpcg_solver_create(mpcg_context *ctx, mpcg_matrix *A, mpcg_solver **out)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    MPCG_ENSURE(ctx, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_ENSURE(ctx, A->ctx == ctx, MPCG_ERR_INVALID_STATE,
                "the matrix belongs to another context");
    mpcg_solver *s;
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *s, &s));
    s->magic = MPCGI_SOLVER_MAGIC;
    s->ctx = ctx;
    s->A = A;
    snprintf(s->spmv_name, sizeof s->spmv_name, "auto");
    s->precision = MPCG_PRECISION_FP64;
    s->precond = MPCG_PRECOND_AUTO; /* the one default of every interface (docs/options.md) */
    s->tol = 1e-8;
    s->maxit = -1;
    s->guess = MPCG_GUESS_ZERO;
    mpcg_status st = mpcgi_options_from_env(ctx, &s->opts); /* the one getenv of the library */
    if (st != MPCG_SUCCESS) {
        s->magic = 0;
        mpcgi_host_free(s);
        return st;
    }
    *out = s;
    return MPCG_SUCCESS;
}

/* Release the setup state (plan and work vectors); options stay. */
static void teardown(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    mpcgi_cg_variant_teardown(s);
    mpcgi_block_ws_free(s); /* its arrays live where this setup computes */
    mpcgi_callbacks_teardown(s);
    mpcgi_precond_destroy(ctx, s->pc);
    s->pc = NULL;
    mpcgi_spmv_plan_destroy(ctx, s->plan);
    s->plan = NULL;
    void *vecs[] = {&s->r,     &s->p,  &s->q, &s->t,       &s->b_dev,
                    &s->x_dev, &s->xw, &s->z, &s->pc_work, &s->zw};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        void **v = vecs[i];
        if (s->on_device)
            mpcgi_device_free(ctx, *v);
        else
            mpcgi_host_free(*v);
        *v = NULL;
    }
    if (s->on_device)
        mpcgi_device_free(ctx, s->dot_ws);
    else
        mpcgi_host_free(s->dot_ws);
    s->dot_ws = NULL;
    s->setup_done = 0;
}

void mpcg_solver_destroy(mpcg_solver *s)
{
    if (!valid(s)) return;
    teardown(s);
    mpcgi_history_free(&s->hist);
    mpcgi_history_block_free(s);
    s->magic = 0;
    mpcgi_host_free(s);
}

mpcg_status mpcg_solver_set_spmv(mpcg_solver *s, const char *name)
{
    SOLVER_ENSURE(s);
    const struct mpcgi_spmv_ops *ops;
    MPCG_CHECK(s->ctx, mpcgi_spmv_lookup(s->ctx, name, &ops));
    snprintf(s->spmv_name, sizeof s->spmv_name, "%s", name);
    s->setup_done = 0;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_precision(mpcg_solver *s, mpcg_precision precision)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx,
                precision == MPCG_PRECISION_FP64 || precision == MPCG_PRECISION_FP32 ||
                    precision == MPCG_PRECISION_MIXED,
                MPCG_ERR_INVALID_ARG, "precision %d is not fp64 (0), fp32 (1) or mixed (2)",
                (int)precision);
    s->precision = precision;
    s->setup_done = 0;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_precond(mpcg_solver *s, mpcg_precond precond)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, (unsigned)precond <= (unsigned)MPCG_PRECOND_AUTO, MPCG_ERR_INVALID_ARG,
                "precond %d is not none (0), jacobi (1), bjacobi (2), chebyshev (3) or auto (4)",
                (int)precond);
    s->precond = precond;
    s->setup_done = 0;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_precond_spec(mpcg_solver *s, const char *spec)
{
    mpcg_precond type;
    int64_t param;
    char value[24];
    SOLVER_ENSURE(s);
    MPCG_CHECK(s->ctx, mpcgi_precond_parse(s->ctx, spec, &type, &param));
    if (param >= 0) {
        snprintf(value, sizeof value, "%lld", (long long)param);
        MPCG_CHECK(s->ctx, mpcg_solver_set_option(s, mpcgi_precond_param_key(type), value));
    }
    return mpcg_solver_set_precond(s, type);
}

mpcg_status mpcg_solver_set_tol(mpcg_solver *s, double tol)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, tol > 0.0 && tol < 1.0, MPCG_ERR_INVALID_ARG,
                "tol = %g out of range (0, 1)", tol);
    s->tol = tol;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_atol(mpcg_solver *s, double atol)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, atol >= 0.0 && isfinite(atol), MPCG_ERR_INVALID_ARG,
                "atol = %g out of range [0, inf)", atol);
    s->atol = atol;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_maxit(mpcg_solver *s, int64_t maxit)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, maxit >= 0, MPCG_ERR_INVALID_ARG, "maxit = %lld must be >= 0",
                (long long)maxit);
    s->maxit = maxit;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_initial_guess(mpcg_solver *s, mpcg_guess guess)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, guess == MPCG_GUESS_ZERO || guess == MPCG_GUESS_PROVIDED,
                MPCG_ERR_INVALID_ARG, "initial guess %d is not zero (0) or provided (1)",
                (int)guess);
    s->guess = guess;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_monitor(mpcg_solver *s, int64_t every, mpcg_monitor_fn fn, void *user)
{
    SOLVER_ENSURE(s);
    s->monitor_every = fn ? every : 0;
    s->monitor = every > 0 ? fn : NULL;
    s->monitor_user = user;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_error_if_not_converged(mpcg_solver *s, int on)
{
    SOLVER_ENSURE(s);
    s->error_if_not_converged = on != 0;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_check_interval(mpcg_solver *s, int64_t K)
{
    SOLVER_ENSURE(s);
    const mpcgi_option_key *key = &mpcgi_cg_options.keys[MPCGI_OPT_CG_CHECK_INTERVAL];
    MPCG_ENSURE(s->ctx, K >= 0 && K <= key->hi, MPCG_ERR_INVALID_ARG,
                "check interval K = %lld must be in [1, %ld] (fixed) or 0 (adaptive)", (long long)K,
                key->hi);
    /* a captured graph holds K iterations; the CPU loop ignores K (no new setup) */
    if (K != mpcgi_solver_check_interval(s) && s->on_device) s->setup_done = 0;
    MPCG_CHECK(s->ctx, mpcgi_options_put(s->ctx, &s->opts, key, (long)K));
    return MPCG_SUCCESS;
}

int64_t mpcgi_solver_check_interval(const mpcg_solver *s)
{
    return mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_CHECK_INTERVAL]);
}

/* The value precisions the plan prepares for a solve in precision p: fp32 iterates on the fp32
 * values and checks the true residual with the fp64 ones; mixed iterates on hi and checks with
 * hi + lo (the mixed storage, or fp64 values where it falls back; docs/precision.md). */
static unsigned plan_precisions(mpcg_precision p)
{
    switch (p) {
    case MPCG_PRECISION_FP32: return MPCG_CAP_FP64 | MPCG_CAP_FP32;
    case MPCG_PRECISION_MIXED: return MPCG_CAP_FP32 | MPCGI_PREC_MIXED_STORE;
    default: return MPCG_CAP_FP64;
    }
}

static mpcg_status alloc_vec(mpcg_solver *s, size_t bytes, void *pptr)
{
    if (s->on_device)
        MPCG_CHECK(s->ctx, mpcgi_device_alloc(s->ctx, bytes, pptr));
    else
        MPCG_CHECK(s->ctx, mpcgi_host_alloc(s->ctx, bytes, pptr));
    return MPCG_SUCCESS;
}

/* r, p, q of V's type (mixed: of fp64, for the fp64 finish); t of fp64; fp32: the working
 * iterate; the dot workspace of either table. */
static mpcg_status alloc_work(mpcg_solver *s)
{
    int64_t n = s->A->csr.n;
    size_t bytes = (size_t)n * sizeof(double), fbytes = (size_t)n * sizeof(float);
    size_t wbytes = s->precision == MPCG_PRECISION_FP32 ? fbytes : bytes;
    size_t ws = s->V->dot_workspace(n), ws64 = s->V64->dot_workspace(n);
    MPCG_CHECK(s->ctx, alloc_vec(s, wbytes, &s->r));
    MPCG_CHECK(s->ctx, alloc_vec(s, wbytes, &s->p));
    MPCG_CHECK(s->ctx, alloc_vec(s, wbytes, &s->q));
    MPCG_CHECK(s->ctx, alloc_vec(s, bytes, &s->t));
    if (s->precision == MPCG_PRECISION_FP32) MPCG_CHECK(s->ctx, alloc_vec(s, fbytes, &s->xw));
    MPCG_CHECK(s->ctx, alloc_vec(s, ws > ws64 ? ws : ws64, &s->dot_ws));
    if (s->on_device) {
        MPCG_CHECK(s->ctx, alloc_vec(s, bytes, &s->b_dev));
        MPCG_CHECK(s->ctx, alloc_vec(s, bytes, &s->x_dev));
    }
    return MPCG_SUCCESS;
}

/* The preconditioner's parameters from the precond.* options. */
static mpcgi_precond_params precond_params(const mpcg_solver *s)
{
    const mpcgi_option_key *k = mpcgi_cg_options.keys;
    return (mpcgi_precond_params){
        .type = s->pc_type,
        .block_size = (int)mpcgi_options_get(&s->opts, &k[MPCGI_OPT_PRECOND_BLOCK_SIZE]),
        .degree = (int)mpcgi_options_get(&s->opts, &k[MPCGI_OPT_PRECOND_DEGREE]),
        .lmin_ratio = 1.0 / (double)mpcgi_options_get(&s->opts, &k[MPCGI_OPT_PRECOND_LMIN_DIVISOR]),
        .block_apply = (int)mpcgi_options_get(&s->opts, &k[MPCGI_OPT_PRECOND_BLOCK_APPLY]),
        .fp32 = s->precision == MPCG_PRECISION_FP32 || s->precision == MPCG_PRECISION_MIXED};
}

/* The matrix a preconditioner of `type` is built from: A's host CSR; for a device view
 * (docs/embedding.md) the host CSR of its diagonal, which is all that AUTO, jacobi and chebyshev
 * read (9 n bytes to the host at each setup or value update), or for bjacobi, which reads the
 * blocks, the view's host copy (made once, its values refreshed with every update). */
static mpcg_status precond_matrix(mpcg_solver *s, mpcg_precond type, const mpcgi_csr **out)
{
    *out = &s->A->csr;
    if (!s->A->csr.dev || type == MPCG_PRECOND_NONE) return MPCG_SUCCESS;
    if (type == MPCG_PRECOND_BJACOBI)
        MPCG_CHECK(s->ctx, mpcgi_matrix_mirror(s->A, MPCGI_MIRROR_FULL));
    else
        MPCG_CHECK(s->ctx, mpcgi_matrix_diag(s->A, out));
    return MPCG_SUCCESS;
}

/* The iteration limit: the one set, else the default max(100, 10 n). */
static int64_t maxit_of(const mpcg_solver *s)
{
    const int64_t n = s->A->csr.n;
    return s->maxit >= 0 ? s->maxit : (10 * n > 100 ? 10 * n : 100);
}

/* The preconditioner's type (auto resolved from A's diagonal): before the plan, whose choice
 * depends on it (mpcgi_cg_variant_needs_rows). */
static mpcg_status precond_resolve(mpcg_solver *s)
{
    const mpcgi_csr *M = NULL;
    if (s->pc_fn) { /* the caller's M (solver/callback.c) in place of the library's */
        s->pc_type = MPCG_PRECOND_NONE;
        s->pc_why[0] = '\0';
        return MPCG_SUCCESS;
    }
    MPCG_CHECK(s->ctx, precond_matrix(s, s->precond, &M));
    s->pc_type = mpcgi_precond_resolve(M, s->precond, s->pc_why, sizeof s->pc_why);
    return MPCG_SUCCESS;
}

/* M of the resolved type from A's values (with its fp32 arrays in fp32 and mixed solves), z and
 * the apply's workspace; fp32 and mixed solves apply M in fp32 between their fp32 iteration's r
 * and zw (solver/pcg.c, solver/cg_fused.c), and in fp64 into z in a mixed solve's fp64 head and
 * finish. */
static mpcg_status precond_setup(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    int64_t n = s->A->csr.n;
    const mpcgi_csr *M = NULL;
    if (s->pc_type == MPCG_PRECOND_NONE && !s->pc_fn) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, alloc_vec(s, (size_t)n * sizeof(double), (void **)&s->z));
    if (s->pc_fn) return MPCG_SUCCESS; /* the caller's M writes z (fp64 only) */
    MPCG_CHECK(ctx, precond_matrix(s, s->pc_type, &M));
    if (s->precision != MPCG_PRECISION_FP64) {
        MPCG_CHECK(ctx, alloc_vec(s, (size_t)n * sizeof(double), &s->zw));
    }
    MPCG_CHECK(ctx, alloc_vec(s, 2 * (size_t)n * sizeof(double), (void **)&s->pc_work));
    mpcgi_precond_params p = precond_params(s);
    s->pc_spmvs = 0;
    return mpcgi_precond_create(ctx, M, &p, mpcgi_pcg_spmv, s, &s->pc);
}

mpcg_status mpcg_solver_setup(mpcg_solver *s)
{
    SOLVER_ENSURE(s);
    mpcg_context *ctx = s->ctx;
    mpcg_status st = MPCG_SUCCESS;
    double t0 = mpcgi_wtime();
    teardown(s);
    s->on_device = ctx->kind == MPCG_DEVICE_CUDA;
    s->work = s->precision == MPCG_PRECISION_FP64 ? MPCG_PRECISION_FP64 : MPCG_PRECISION_FP32;
    s->exact = s->precision == MPCG_PRECISION_MIXED ? MPCG_PRECISION_MIXED : MPCG_PRECISION_FP64;
    s->V = mpcgi_vec_ops_for(ctx->kind, s->work);
    s->V64 = mpcgi_vec_ops_for(ctx->kind, MPCG_PRECISION_FP64);
    MPCG_ENSURE(ctx, s->V && s->V64, MPCG_ERR_NOT_SUPPORTED,
                "precision %s: no vector kernels for this context", mpcg_precision_name(s->work));
    MPCG_TRY(ctx, st, precond_resolve(s));
    const mpcgi_auto_request req = {.precision = s->precision,
                                    .precisions = plan_precisions(s->precision),
                                    .apply = s->work,
                                    .opts = &s->opts,
                                    .maxit = maxit_of(s),
                                    .need_block = s->need_block,
                                    .need_rows = mpcgi_cg_variant_needs_rows(s),
                                    .fused_dot = mpcgi_cg_variant_fuses_dot(s)};
    MPCG_TRY(ctx, st, mpcgi_spmv_choose(ctx, s->spmv_name, &s->A->csr, &req, &s->plan, &s->choice));
    MPCG_TRY(ctx, st, alloc_work(s));
    MPCG_TRY(ctx, st, precond_setup(s));
    MPCG_TRY(ctx, st, mpcgi_callbacks_setup(s));
    MPCG_TRY(ctx, st, mpcgi_cg_variant_setup(s)); /* choose, then its device state, graph... */
    s->values_version = s->A->values_version;
    s->setup_done = 1;
    s->setup_time_s = mpcgi_wtime() - t0;
done:
    if (st != MPCG_SUCCESS) teardown(s);
    return st;
}

mpcg_status mpcg_solver_backend_choice(const mpcg_solver *s, mpcg_backend_choice *out)
{
    SOLVER_ENSURE(s);
    MPCG_ENSURE(s->ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    MPCG_ENSURE(s->ctx, s->plan, MPCG_ERR_INVALID_STATE,
                "no setup yet: the backend is chosen by mpcg_solver_setup (or the first solve)");
    *out = s->choice;
    return MPCG_SUCCESS;
}

/* Norm of a host vector, and whether all its entries are finite. */
static double host_norm(const double *v, int64_t n, int64_t *first_bad)
{
    double s = 0.0;
    *first_bad = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) && *first_bad < 0) *first_bad = i;
        s += v[i] * v[i];
    }
    return sqrt(s);
}

void mpcgi_solver_info_init(const mpcg_solver *s, mpcg_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->backend, sizeof info->backend, "%s", s->plan->ops->name);
    info->precision = s->precision;
    info->setup_time_s = s->setup_time_s;
    snprintf(info->variant, sizeof info->variant, "%s", s->variant->name);
    snprintf(info->variant_reason, sizeof info->variant_reason, "%s", s->variant_reason);
    info->fallback_iteration = -1;
    snprintf(info->precond, sizeof info->precond, "%s",
             s->pc_fn ? "callback" : mpcg_precond_name(s->pc_type));
    char *d = info->precond_describe;
    const size_t size = sizeof info->precond_describe;
    size_t len = s->pc ? (size_t)snprintf(d, size, "%s", s->pc->describe) : 0;
    if (s->pc_why[0] && len + 2 < size) /* AUTO: what it chose and why */
        snprintf(d + len, size - len, "%s%s", len ? "; " : "", s->pc_why);
    if (s->pc) {
        info->precond_setup_time_s = s->pc->setup_time_s;
    }
    if (s->precision == MPCG_PRECISION_MIXED) {
        long w = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_MIXED_STRATEGY]);
        const char *why = mpcgi_spmv_mixed_fallback(s->plan);
        snprintf(info->mixed_strategy, sizeof info->mixed_strategy, "%s",
                 mpcgi_cg_options.keys[MPCGI_OPT_MIXED_STRATEGY].words[w]);
        snprintf(info->storage_fallback, sizeof info->storage_fallback, "%s", why ? why : "");
    }
    /* matrix bytes (of the fp32 values where the iteration runs in fp32) + the variant's vector
     * bytes per row (112 n in solver/cg.c) */
    double vec = s->variant->vector_bytes(s);
    size_t mat = s->work == MPCG_PRECISION_FP32 ? s->plan->sizes.bytes_matrix32
                                                : s->plan->sizes.bytes_matrix;
    info->bytes_per_iteration = (double)mat + vec * (double)s->A->csr.n;
}

/* Set up if needed; re-run the numeric setup after new matrix values. */
mpcg_status mpcgi_solver_prepare(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    if (!s->setup_done) MPCG_CHECK(ctx, mpcg_solver_setup(s));
    const mpcgi_csr *M = NULL;
    if (s->values_version != s->A->values_version && s->precond == MPCG_PRECOND_AUTO && !s->pc_fn) {
        char why[sizeof s->pc_why];
        MPCG_CHECK(ctx, precond_matrix(s, s->precond, &M));
        /* the new values change AUTO's choice: set up again */
        if (mpcgi_precond_resolve(M, s->precond, why, sizeof why) != s->pc_type)
            MPCG_CHECK(ctx, mpcg_solver_setup(s));
    }
    if (s->values_version != s->A->values_version) {
        MPCG_CHECK(ctx, mpcgi_spmv_plan_update_values(ctx, s->plan, &s->A->csr));
        if (s->pc) /* M from the new values, blocks kept */
            MPCG_CHECK(ctx, precond_matrix(s, s->pc_type, &M));
        if (s->pc) MPCG_CHECK(ctx, mpcgi_precond_refresh(ctx, s->pc, M, mpcgi_pcg_spmv, s));
        if (s->variant->refresh) MPCG_CHECK(ctx, s->variant->refresh(s)); /* e.g. the graph */
        s->values_version = s->A->values_version;
    }
    return MPCG_SUCCESS;
}

/* CG on b and x where s->V computes (host arrays on the CPU, device arrays on a GPU); b and the
 * guess are validated, bnorm = ||b||. */
static mpcg_status run(mpcg_solver *s, const double *b, double *x, double bnorm, mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    int64_t n = s->A->csr.n;
    if (bnorm == 0.0) {
        /* b = 0: x = 0 is the exact solution, whatever the guess */
        MPCG_CHECK(ctx, s->V64->zero(ctx, n, x));
        info->reason = MPCG_CONVERGED_ZERO_RHS;
        return MPCG_SUCCESS;
    }
    mpcgi_cg_seg_end end = {0};
    mpcgi_cg_args a = {.b = b,
                       .x = x,
                       .xw = s->xw ? s->xw : x,
                       .bnorm = bnorm,
                       .x_is_zero = s->guess == MPCG_GUESS_ZERO,
                       .maxit = maxit_of(s),
                       .seg = mpcgi_cg_seg_plain(s, s->work),
                       .end = &end};
    s->true_residuals = 0;
    s->pc_spmvs = 0; /* the applies' products in this solve (the setup's: pc->setup_spmvs) */
    if (a.x_is_zero) MPCG_CHECK(ctx, s->V64->zero(ctx, n, x));
    if (a.x_is_zero && s->xw) MPCG_CHECK(ctx, s->V->zero(ctx, n, s->xw));
    if (s->precision == MPCG_PRECISION_MIXED)
        MPCG_CHECK(ctx, mpcgi_mixed_run(s, &a, info, s->variant->run)); /* its segments */
    else
        MPCG_CHECK(ctx, s->variant->run(s, &a, info)); /* one segment */
    /* the products: one an iteration, and the true residuals (all fp64 in an fp64 solve; in
     * fp32 and mixed the iterations before an fp64 finish read the fp32 values) */
    int64_t fp32_its = s->precision == MPCG_PRECISION_FP64 ? 0
                       : info->precision_fallback          ? info->fallback_iteration
                                                           : info->iterations;
    fp32_its -= info->mixed_head_iterations;
    info->precond_spmvs = s->pc_spmvs;
    info->spmvs = info->iterations + s->true_residuals + info->precond_spmvs;
    info->spmvs_fp64 = info->spmvs - fp32_its;
    mpcgi_spmv_describe(s->plan, info->spmv_describe, sizeof info->spmv_describe);
    return MPCG_SUCCESS;
}

/* run() on the device copies of host b and x (allocated at setup): b and a provided guess go
 * in, x comes out. */
static mpcg_status run_staged(mpcg_solver *s, const double *b, double *x, double bnorm,
                              mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    size_t bytes = (size_t)s->A->csr.n * sizeof *x;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, s->b_dev, b, bytes, MPCGI_H2D));
    if (s->guess == MPCG_GUESS_PROVIDED)
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, s->x_dev, x, bytes, MPCGI_H2D));
    MPCG_CHECK(ctx, run(s, s->b_dev, s->x_dev, bnorm, info));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, x, s->x_dev, bytes, MPCGI_D2H));
    return MPCG_SUCCESS;
}

/* The end of every solve: converged flag, time, the caller's copy, error_if_not_converged. */
static mpcg_status finish(const mpcg_solver *s, mpcg_info *info, double t0, mpcg_info *info_out)
{
    info->converged = info->reason > 0;
    info->solve_time_s = mpcgi_wtime() - t0;
    if (info_out) *info_out = *info;
    MPCG_ENSURE(s->ctx, info->converged || !s->error_if_not_converged, MPCG_ERR_NOT_CONVERGED,
                "CG did not converge: %s after %lld iterations (true relative residual %.3e, "
                "tol %.3e, atol %.3e)",
                mpcg_reason_string(info->reason), (long long)info->iterations, info->true_relres,
                s->tol, s->atol);
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solve(mpcg_solver *s, const double *b, double *x, mpcg_info *info_out)
{
    SOLVER_ENSURE(s);
    mpcg_context *ctx = s->ctx;
    mpcg_info info;
    int64_t n = s->A->csr.n, bad;
    MPCG_ENSURE(ctx, b && x, MPCG_ERR_INVALID_ARG, "b and x must not be NULL");
    MPCG_CHECK(ctx, mpcgi_solver_prepare(s));
    double bnorm = host_norm(b, n, &bad);
    MPCG_ENSURE(ctx, bad < 0, MPCG_ERR_INVALID_ARG, "b[%lld] = %g is not finite", (long long)bad,
                b[bad < 0 ? 0 : bad]);
    if (s->guess == MPCG_GUESS_PROVIDED) {
        host_norm(x, n, &bad);
        MPCG_ENSURE(ctx, bad < 0, MPCG_ERR_INVALID_ARG, "initial guess x[%lld] = %g is not finite",
                    (long long)bad, x[bad < 0 ? 0 : bad]);
    }
    mpcgi_solver_info_init(s, &info);
    double t0 = mpcgi_wtime();
    mpcgi_history_begin(s, t0);
    if (s->on_device)
        MPCG_CHECK(ctx, run_staged(s, b, x, bnorm, &info));
    else
        MPCG_CHECK(ctx, run(s, b, x, bnorm, &info));
    return finish(s, &info, t0, info_out);
}

mpcg_status mpcg_solve_device(mpcg_solver *s, const double *b_dev, double *x_dev,
                              mpcg_info *info_out)
{
    SOLVER_ENSURE(s);
    mpcg_context *ctx = s->ctx;
    mpcg_info info;
    int64_t n = s->A->csr.n;
    double bb, xx;
    MPCG_ENSURE(ctx, b_dev && x_dev, MPCG_ERR_INVALID_ARG, "b_dev and x_dev must not be NULL");
    MPCG_ENSURE(ctx, ctx->kind == MPCG_DEVICE_CUDA, MPCG_ERR_INVALID_STATE,
                "mpcg_solve_device needs a GPU context, and context %s runs on the CPU (use "
                "mpcg_solve)",
                ctx->device_name);
    MPCG_CHECK(ctx, mpcgi_solver_prepare(s));
    /* the data stays on the device: NaN shows in the norm (an Inf makes CG stop on NaN/Inf) */
    MPCG_CHECK(ctx, s->V64->dot(ctx, s->dot_ws, n, b_dev, b_dev, &bb)); /* bb = b.b */
    MPCG_ENSURE(ctx, !isnan(bb), MPCG_ERR_INVALID_ARG, "b_dev holds a NaN (b.b = %g)", bb);
    if (s->guess == MPCG_GUESS_PROVIDED) {
        MPCG_CHECK(ctx, s->V64->dot(ctx, s->dot_ws, n, x_dev, x_dev, &xx)); /* xx = x.x */
        MPCG_ENSURE(ctx, !isnan(xx), MPCG_ERR_INVALID_ARG,
                    "initial guess x_dev holds a NaN (x.x = %g)", xx);
    }
    mpcgi_solver_info_init(s, &info);
    double t0 = mpcgi_wtime();
    mpcgi_history_begin(s, t0);
    MPCG_CHECK(ctx, run(s, b_dev, x_dev, sqrt(bb), &info));
    return finish(s, &info, t0, info_out);
}
