/* test/test_solver_mixed.c: precision mixed: fp64 answers (true residual <= tol) from fp32
 * iterations with both strategies on the bundled and generated matrices, the product counts,
 * the fp64 finish where fp32 stops improving, the fp64 storage fallback, the options, the
 * monitor, and every GPU variant against the CPU mixed solve */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "config.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/matrix.h"
#include "solver/solver.h"
#include "test/testutil.h"

#ifndef MPCG_HAVE_ZLIB
#define MPCG_HAVE_ZLIB 0
#endif

static mpcg_context *cpu, *gpu;

static const char *const strategies[] = {"reliable", "refinement"};

/* One solve's settings: precision, mixed.strategy (NULL: default), cg.variant (NULL: auto),
 * mixed.reliable_drop (0: default), tol, maxit (0: default), the monitor (NULL: none). */
typedef struct {
    mpcg_precision prec;
    const char *strategy, *variant;
    long drop;
    double tol;
    int64_t maxit;
    mpcg_monitor_fn monitor;
    void *user;
} run_opts;

/* One solve of A x = b on ctx, x poisoned with NaN and info with 0xff bytes first. */
static mpcg_info solve(mpcg_context *ctx, mpcg_matrix *A, const run_opts *o, const double *b,
                       double *x)
{
    mpcg_solver *S = NULL;
    mpcg_info info;
    char v[32];
    memset(&info, 0xff, sizeof info);
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++) x[i] = NAN;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S) return info;
    /* the GPU checks of this test were measured with cusparse; auto's trial may take another
     * backend from run to run (test_spmv_auto_gpu tests auto) */
    if (mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA)
        CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(ctx, mpcg_solver_set_precision(S, o->prec));
    CHECK_OK(ctx, mpcg_solver_set_tol(S, o->tol));
    if (o->maxit) CHECK_OK(ctx, mpcg_solver_set_maxit(S, o->maxit));
    if (o->strategy) CHECK_OK(ctx, mpcg_solver_set_option(S, "mixed.strategy", o->strategy));
    if (o->variant) CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", o->variant));
    snprintf(v, sizeof v, "%ld", o->drop);
    if (o->drop) CHECK_OK(ctx, mpcg_solver_set_option(S, "mixed.reliable_drop", v));
    if (o->monitor) CHECK_OK(ctx, mpcg_solver_set_monitor(S, 1, o->monitor, o->user));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    mpcg_solver_destroy(S);
    return info;
}

static void report(const char *name, const char *what, const mpcg_info *in, double rel)
{
    printf("  %s %s %s: %s, %lld iterations, %lld spmvs (%lld fp64), true residual %.3e "
           "(recomputed %.3e)%s\n",
           name, mpcg_precision_name(in->precision), what, mpcg_reason_string(in->reason),
           (long long)in->iterations, (long long)in->spmvs, (long long)in->spmvs_fp64,
           in->true_relres, rel, in->precision_fallback ? ", fp64 finish" : "");
    if (in->precision_fallback)
        printf("    fp64 finish from iteration %lld\n", (long long)in->fallback_iteration);
    if (in->storage_fallback[0]) printf("    storage fallback: %s\n", in->storage_fallback);
}

/* The counts and words every mixed solve reports; fell back or not, consistently. */
static void check_mixed_info(const mpcg_info *in, const char *strategy)
{
    CHECK(in->precision == MPCG_PRECISION_MIXED);
    CHECK(strcmp(in->mixed_strategy, strategy) == 0);
    CHECK(in->spmvs >= in->iterations + 1);
    CHECK(in->spmvs_fp64 > 0 && in->spmvs_fp64 <= in->spmvs);
    CHECK(in->mixed_head_iterations >= 0 && in->mixed_head_iterations <= in->iterations);
    CHECK(in->spmvs_fp64 >= in->mixed_head_iterations + 1);
    if (in->precision_fallback == 0)
        CHECK((in->iterations == in->mixed_head_iterations || in->spmvs_fp64 < in->spmvs) &&
              in->fallback_iteration == -1);
    else
        CHECK(in->precision_fallback == 1 && in->fallback_iteration >= 0 &&
              in->fallback_iteration <= in->iterations &&
              in->spmvs_fp64 >= in->iterations - in->fallback_iteration);
    /* honest: converged means the true residual meets tol (checked by the callers' tol) */
    CHECK(in->reason != MPCG_CONVERGED_RTOL || in->converged);
}

/* b: ones (kind 0) or uniform in [-1, 1) from the test seed (kind 1). */
static void fill_b(double *b, int64_t n, int kind, uint64_t salt)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + salt);
    for (int64_t i = 0; i < n; i++) b[i] = kind ? 2 * mpcgi_rng_uniform(&g) - 1 : 1.0;
}

/* fp64 reference: every product on the fp64 values, no mixed words. Returns converged. */
static int check_fp64(const char *name, mpcg_matrix *A, const double *b, double *x, double tol)
{
    run_opts o = {.prec = MPCG_PRECISION_FP64, .tol = tol};
    double scale;
    mpcg_info in = solve(cpu, A, &o, b, x);
    double rel = test_relres(&A->csr, b, x, &scale);
    report(name, "reference", &in, rel);
    CHECK(in.precision == MPCG_PRECISION_FP64 && in.spmvs_fp64 == in.spmvs);
    CHECK(in.spmvs >= in.iterations + 1 && in.mixed_strategy[0] == 0);
    CHECK(in.precision_fallback == 0 && in.fallback_iteration == -1);
    CHECK(in.storage_fallback[0] == 0);
    return in.converged && in.true_relres <= tol;
}

/* Mixed with both strategies to tol where fp64 converged: converged, the reported and an
 * independently recomputed residual (long double, on the fp64 values) both <= tol. The
 * recomputation may differ from the solver's by the rounding of computing a residual, 16 eps
 * times || |A| |x| || / ||b|| (test_residual_ok); nothing more is allowed. */
static void check_mixed(const char *name, mpcg_matrix *A, const double *b, double *x,
                        double tol, mpcg_info out[2])
{
    char what[64];
    double scale;
    for (int s = 0; s < 2; s++) {
        run_opts o = {.prec = MPCG_PRECISION_MIXED, .strategy = strategies[s], .tol = tol};
        mpcg_info in = solve(cpu, A, &o, b, x);
        double rel = test_relres(&A->csr, b, x, &scale);
        snprintf(what, sizeof what, "%s tol %g", strategies[s], tol);
        report(name, what, &in, rel);
        check_mixed_info(&in, strategies[s]);
        CHECK(in.converged && in.reason == MPCG_CONVERGED_RTOL && in.true_relres <= tol);
        CHECK(test_residual_ok(&A->csr, b, x, tol));
        CHECK(fabs(rel - in.true_relres) <= 1e-6 * rel + 16 * DBL_EPSILON * scale);
        if (out) out[s] = in;
    }
}

static void compare_gpu(const char *name, mpcg_matrix *A, const double *b, double tol,
                        const mpcg_info ci[2]);

/* fp64 first; where it reaches tol, mixed must too, for b = ones and a random b; then the
 * GPU variants against the CPU mixed solves. */
static void check_problem(const char *name, mpcg_matrix *A, double tol, uint64_t salt)
{
    int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL;
    mpcg_info ci[2];
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    for (int kind = 0; b && x && kind < 2; kind++) {
        fill_b(b, n, kind, salt);
        printf("  %s, b = %s:\n", name, kind ? "random" : "ones");
        if (!check_fp64(name, A, b, x, tol)) {
            printf("  %s: fp64 does not reach %g, mixed not required\n", name, tol);
            continue;
        }
        check_mixed(name, A, b, x, tol, ci);
        if (gpu) compare_gpu(name, A, b, tol, ci);
    }
    mpcgi_host_free(b), mpcgi_host_free(x);
}

static void check_file(const char *name, const char *path, void *user)
{
    mpcg_matrix *A = NULL;
    (void)user;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, path, &A));
    if (!A) return;
    check_problem(name, A, 1e-10, 101);
    mpcg_matrix_destroy(A);
}

/* The generated stencils at 1e-10; the two poisson ones also at 1e-12 (well conditioned, so
 * the fp64 true residual can get there); their values split exactly: no storage fallback. */
static void test_generated(void)
{
    static const char *const specs[] = {"poisson2d:30", "poisson3d:12", "poisson3d27:10"};
    for (int i = 0; i < 3; i++) {
        mpcg_matrix *A = NULL;
        CHECK_OK(cpu, mpcg_matrix_generate(cpu, specs[i], &A));
        if (!A) continue;
        check_problem(specs[i], A, 1e-10, 202 + (uint64_t)i);
        if (i < 2) check_problem(specs[i], A, 1e-12, 303 + (uint64_t)i);
        mpcg_matrix_destroy(A);
    }
}

/* A ring (periodic 1D Laplacian) of order n whose fp32 values hi = (float)a are a different
 * matrix where it matters: row 0's diagonal is 2 + 1.15e-7, which rounds to 2 in fp32, and the
 * wrap-around link is -(1 - 8.5e-8), which rounds to -(1 - 2^-24). A is SPD with its smallest
 * eigenvalue near the constant vector, ones' A ones / n = (1.15e-7 + 2 * 8.5e-8) / n
 * (1.4e-10 for n = 1000, kappa about 1.4e10 against 4); hi's is 2 * 2^-24 / n, 2.4 times
 * smaller. So fp32's corrections along that vector overshoot by a factor 2.4 (kappa eps32 >> 1):
 * every refinement or reliable update multiplies that part of the residual by about 1.4, and
 * the true residual stops falling: the solve must go on in fp64. A diagonal spread alone
 * would not do (fp32 rounds each eigenvalue relatively there). */
static mpcg_matrix *ring_matrix(int64_t n)
{
    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    mpcg_matrix *A = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *rp, &rp));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *ci, &ci));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *v, &v));
    for (int64_t i = 0, k = 0; rp && ci && v && i < n; i++) {
        int64_t c[3] = {i - 1, i, i + 1};
        if (i == 0) c[0] = 0, c[1] = 1, c[2] = n - 1;
        if (i == n - 1) c[0] = 0, c[1] = n - 2, c[2] = n - 1;
        rp[i] = k;
        for (int j = 0; j < 3; j++, k++) {
            ci[k] = (int32_t)c[j];
            v[k] = c[j] == i ? 2.0 : -1.0;
            if (c[j] == i && i == 0) v[k] = 2.0 + 1.15e-7;
            if ((i == 0 && c[j] == n - 1) || (i == n - 1 && c[j] == 0)) v[k] = -(1.0 - 8.5e-8);
        }
        rp[i + 1] = k;
    }
    if (rp && ci && v) CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, n, rp, ci, v, &A));
    mpcgi_host_free(rp), mpcgi_host_free(ci), mpcgi_host_free(v);
    return A;
}

/* The iterations the monitor saw: each call must be the one after the last. */
typedef struct {
    int64_t next, calls, out_of_order;
} seen;

static void monitor(int64_t it, double relres, void *user)
{
    seen *m = user;
    if (it != m->next || !(relres >= 0)) {
        if (m->out_of_order++ < 3) printf("    monitor: iteration %lld after %lld\n",
                                           (long long)it, (long long)m->next - 1);
    }
    m->next = it + 1, m->calls++;
}

/* A mixed solve of A x = b with the monitor at every iteration: 0, 1, 2, ... to the end. */
static mpcg_info monitored(const char *name, mpcg_matrix *A, const char *strategy,
                           const double *b, double *x)
{
    seen m = {0, 0, 0};
    double scale;
    run_opts o = {.prec = MPCG_PRECISION_MIXED, .strategy = strategy, .tol = 1e-10,
                  .monitor = monitor, .user = &m};
    mpcg_info in = solve(cpu, A, &o, b, x);
    double rel = test_relres(&A->csr, b, x, &scale);
    report(name, strategy, &in, rel);
    printf("    monitor: %lld calls, last iteration %lld\n", (long long)m.calls,
           (long long)m.next - 1);
    CHECK(m.next == in.iterations + 1);
    /* one call an iteration and at 0, across the segments: a later segment (the fp32 one after
     * the head, the fp64 finish) does not report its first iteration again */
    CHECK(m.out_of_order == 0 && m.calls == in.iterations + 1);
    check_mixed_info(&in, strategy);
    /* honest: converged only with a true residual <= tol, also recomputed */
    CHECK(in.reason != MPCG_CONVERGED_RTOL || (in.true_relres <= 1e-10 &&
                                               test_residual_ok(&A->csr, b, x, 1e-10)));
    CHECK(in.converged || in.true_relres > 1e-10);
    CHECK(fabs(rel - in.true_relres) <= 1e-6 * rel + 16 * DBL_EPSILON * scale);
    return in;
}

/* kappa about 1.4e10 (ring_matrix): with b = ones the fp32 iteration stops improving on every
 * seed and strategy (the run is deterministic), so the fp64 finish is required; a random b
 * must end honestly, fp64 finish or not. The monitor runs through all of it. */
static void test_ill_conditioned(void)
{
    enum { N = 1000 };
    mpcg_matrix *A = ring_matrix(N);
    double *b = NULL, *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, N, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, N, sizeof *x, &x));
    for (int kind = 0; A && b && x && kind < 2; kind++) {
        fill_b(b, N, kind, 404);
        for (int s = 0; s < 2; s++) {
            mpcg_info in = monitored(kind ? "ring:1000 b random" : "ring:1000 b ones", A,
                                     strategies[s], b, x);
            if (kind == 0) CHECK(in.precision_fallback == 1 && in.fallback_iteration >= 0);
        }
    }
    /* a well-conditioned solve without fallback: the monitor too */
    mpcg_matrix *P = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson2d:30", &P));
    if (P && b && x) {
        fill_b(b, mpcg_matrix_n(P), 0, 0);
        mpcg_info in = monitored("poisson2d:30", P, "reliable", b, x);
        CHECK(in.converged && in.precision_fallback == 0);
    }
    mpcg_matrix_destroy(P);
    mpcg_matrix_destroy(A);
    mpcgi_host_free(b), mpcgi_host_free(x);
}

/* tridiag(-1, 4, -1) * scale of order n, row 0's diagonal d0 * scale (SPD for d0 >= 2). */
static mpcg_matrix *tridiag(int64_t n, double scale, double d0)
{
    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    mpcg_matrix *A = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *rp, &rp));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *ci, &ci));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *v, &v));
    for (int64_t i = 0, k = 0; rp && ci && v && i < n; i++) {
        rp[i] = k;
        for (int64_t j = i - 1; j <= i + 1; j++) {
            if (j < 0 || j >= n) continue;
            ci[k] = (int32_t)j;
            v[k++] = (j == i ? (i == 0 ? d0 : 4.0) : -1.0) * scale;
        }
        rp[i + 1] = k;
    }
    if (rp && ci && v) CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, n, rp, ci, v, &A));
    mpcgi_host_free(rp), mpcgi_host_free(ci), mpcgi_host_free(v);
    return A;
}

/* Values the hi/lo split cannot hold (beyond fp32's range: 1e300 everywhere, or one 1e39):
 * the plan keeps fp64 values and says why, and the solve still meets 1e-10 honestly. An
 * exactly split matrix (poisson) has no fallback. */
static void test_storage_fallback(void)
{
    enum { N = 200 };
    static const double scales[] = {1e300, 1.0, 1.0}, d0s[] = {4.0, 1e39, 4.0};
    static const char *const names[] = {"tridiag*1e300", "tridiag a11=1e39", "tridiag"};
    double b[N], x[N], scale;
    for (int t = 0; t < 3; t++) {
        mpcg_matrix *A = tridiag(N, scales[t], d0s[t]);
        if (!A) continue;
        fill_b(b, N, 1, 505 + (uint64_t)t);
        for (int s = 0; s < 2; s++) {
            run_opts o = {.prec = MPCG_PRECISION_MIXED, .strategy = strategies[s], .tol = 1e-10};
            mpcg_info in = solve(cpu, A, &o, b, x);
            double rel = test_relres(&A->csr, b, x, &scale);
            report(names[t], strategies[s], &in, rel);
            check_mixed_info(&in, strategies[s]);
            CHECK(t == 2 ? in.storage_fallback[0] == 0
                         : strlen(in.storage_fallback) > 0 &&
                               strstr(in.storage_fallback, "range") != NULL);
            /* fp64 storage: the whole solve runs in fp64 (fallback from iteration 0) */
            CHECK(in.converged && in.true_relres <= 1e-10 &&
                  test_residual_ok(&A->csr, b, x, 1e-10));
            CHECK(t == 2 ? !in.precision_fallback
                         : in.precision_fallback && in.fallback_iteration == 0);
        }
        mpcg_matrix_destroy(A);
    }
    mpcg_matrix *P = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson3d:12", &P));
    if (P) {
        double *bp = NULL, *xp = NULL;
        int64_t n = mpcg_matrix_n(P);
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *bp, &bp));
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *xp, &xp));
        run_opts o = {.prec = MPCG_PRECISION_MIXED, .tol = 1e-10};
        if (bp && xp) fill_b(bp, n, 0, 0);
        mpcg_info in = bp && xp ? solve(cpu, P, &o, bp, xp) : (mpcg_info){.converged = 0};
        CHECK(in.converged && in.storage_fallback[0] == 0 && strcmp(in.mixed_strategy, "reliable") == 0);
        mpcgi_host_free(bp), mpcgi_host_free(xp);
    }
    mpcg_matrix_destroy(P);
}

/* fp32 alone at 1e-10 on poisson3d:12: stagnation with the residual it reached, above tol. */
static void test_fp32_stagnates(void)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson3d:12", &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL, scale;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    if (b && x) {
        fill_b(b, n, 1, 606);
        run_opts o = {.prec = MPCG_PRECISION_FP32, .tol = 1e-10};
        mpcg_info in = solve(cpu, A, &o, b, x);
        double rel = test_relres(&A->csr, b, x, &scale);
        report("poisson3d:12", "tol 1e-10", &in, rel);
        CHECK(in.precision == MPCG_PRECISION_FP32 && in.mixed_strategy[0] == 0);
        CHECK(!in.converged && in.reason == MPCG_DIVERGED_STAGNATION);
        CHECK(in.true_relres > 1e-10 && test_close(in.true_relres, rel, 1e-6, 1e-14));
        CHECK(in.precision_fallback == 0 && in.spmvs_fp64 < in.spmvs);
    }
    mpcgi_host_free(b), mpcgi_host_free(x);
    mpcg_matrix_destroy(A);
}

/* mixed.strategy takes reliable or refinement, mixed.reliable_drop 2 .. 1000000: others are
 * refused with the key in the message; a solve with a drop of 1000 still meets tol. */
static void test_options(void)
{
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson2d:30", &A));
    if (A) CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (!S) {
        mpcg_matrix_destroy(A);
        return;
    }
    static const char *const bad[][2] = {{"mixed.strategy", "fast"},
                                         {"mixed.reliable_drop", "1"},
                                         {"mixed.reliable_drop", "1000001"}};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(cpu, mpcg_solver_set_option(S, bad[i][0], bad[i][1]), MPCG_ERR_INVALID_ARG);
        CHECK(strstr(mpcg_last_error(cpu), bad[i][0]) != NULL);
        printf("  %s=%s refused: %s\n", bad[i][0], bad[i][1], mpcg_last_error(cpu));
        mpcg_clear_error(cpu);
    }
    mpcg_solver_destroy(S);
    int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL, scale;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    for (int d = 0; b && x && d < 2; d++) {
        run_opts o = {.prec = MPCG_PRECISION_MIXED, .drop = d ? 1000 : 2, .tol = 1e-10};
        fill_b(b, n, 1, 707);
        mpcg_info in = solve(cpu, A, &o, b, x);
        double rel = test_relres(&A->csr, b, x, &scale);
        report("poisson2d:30", d ? "reliable_drop 1000" : "reliable_drop 2", &in, rel);
        check_mixed_info(&in, "reliable");
        CHECK(in.converged && in.true_relres <= 1e-10 && test_residual_ok(&A->csr, b, x, 1e-10));
    }
    mpcgi_host_free(b), mpcgi_host_free(x);
    mpcg_matrix_destroy(A);
}

static const char *const gpu_head_variants[] = {"graph", "persistent-single",
                                                 "persistent-two-barrier"};

/* test_fp64_head on the GPU in `variant` (A on the CPU, G on the GPU, m the CPU's mixed solve):
 * a limit inside the head (its launched kernels), then the same solver to 1e-10 with the fp32
 * iterations in the variant's graph or loop; close to the CPU's count (the loops add in their
 * own order: test_iterations_close_loop). */
static void gpu_head(mpcg_matrix *A, mpcg_matrix *G, const double *b, double *x2,
                     const mpcg_info *m, const char *variant)
{
    mpcg_solver *S = NULL;
    mpcg_info cut, again;
    double rel, scale;
    char what[64];
    CHECK_OK(gpu, mpcg_solver_create(gpu, G, &S));
    if (!S) return;
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, "cusparse")); /* as solve()'s GPU solves */
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG, as solve() */
    CHECK_OK(gpu, mpcg_solver_set_precision(S, MPCG_PRECISION_MIXED));
    CHECK_OK(gpu, mpcg_solver_set_tol(S, 1e-10));
    CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", variant));
    CHECK_OK(gpu, mpcg_solver_set_maxit(S, 3));
    CHECK_OK(gpu, mpcg_solve(S, b, x2, &cut));
    CHECK(cut.reason == MPCG_DIVERGED_MAX_ITER && cut.mixed_head_iterations == 3);
    CHECK_OK(gpu, mpcg_solver_set_maxit(S, 10 * mpcg_matrix_n(A)));
    CHECK_OK(gpu, mpcg_solve(S, b, x2, &again));
    rel = test_relres(&A->csr, b, x2, &scale);
    snprintf(what, sizeof what, "GPU %s head", variant);
    report("poisson3d:24", what, &again, rel);
    check_mixed_info(&again, "reliable");
    CHECK(again.converged && rel <= 1e-10 && strcmp(again.variant, variant) == 0);
    CHECK(llabs(again.mixed_head_iterations - m->mixed_head_iterations) <= 1);
    CHECK(strcmp(variant, "graph") == 0
              ? test_iterations_close_order(again.iterations, m->iterations)
              : test_iterations_close_loop(variant, again.iterations, m->iterations));
    mpcg_solver_destroy(S);
}

/* The fp64 head (mixed.fp64_head): on poisson3d with b = ones it keeps mixed at fp64's
 * iteration count (without it fp32's rounding noise costs about 40% more: docs/precision.md);
 * a solve that ends inside the head reports it and leaves the solver ready for the next one. */
static void test_fp64_head(void)
{
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson3d:24", &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL, *x2 = NULL, scale;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x2, &x2));
    for (int64_t i = 0; b && i < n; i++) b[i] = 1.0;
    run_opts o64 = {.prec = MPCG_PRECISION_FP64, .tol = 1e-10};
    run_opts om = {.prec = MPCG_PRECISION_MIXED, .tol = 1e-10};
    mpcg_info f = solve(cpu, A, &o64, b, x);
    mpcg_info m = solve(cpu, A, &om, b, x);
    double rel = test_relres(&A->csr, b, x, &scale);
    report("poisson3d:24", "head", &m, rel);
    check_mixed_info(&m, "reliable");
    CHECK(f.converged && m.converged && rel <= 1e-10);
    printf("    fp64 %lld iterations; mixed %lld, the first %lld in fp64\n",
           (long long)f.iterations, (long long)m.iterations, (long long)m.mixed_head_iterations);
    CHECK(m.mixed_head_iterations > 0 && m.mixed_head_iterations < m.iterations / 2 + 1);
    CHECK(m.iterations <= f.iterations + f.iterations / 20);
    CHECK(m.spmvs_fp64 < m.spmvs && m.spmvs - m.spmvs_fp64 ==
                                        m.iterations - m.mixed_head_iterations);
    /* no head: all iterations fp32, and more of them */
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (S) {
        mpcg_info h0, cut, again;
        CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG, as solve() */
        CHECK_OK(cpu, mpcg_solver_set_precision(S, MPCG_PRECISION_MIXED));
        CHECK_OK(cpu, mpcg_solver_set_tol(S, 1e-10));
        CHECK_OK(cpu, mpcg_solver_set_option(S, "mixed.fp64_head", "0"));
        CHECK_OK(cpu, mpcg_solve(S, b, x2, &h0));
        CHECK(h0.converged && h0.mixed_head_iterations == 0 &&
              h0.spmvs - h0.spmvs_fp64 == h0.iterations && h0.iterations > m.iterations);
        printf("    mixed without the head: %lld iterations\n", (long long)h0.iterations);
        /* a limit inside the head, then the same solver without it: m's solve exactly */
        CHECK_OK(cpu, mpcg_solver_set_option(S, "mixed.fp64_head", "8"));
        CHECK_OK(cpu, mpcg_solver_set_maxit(S, 3));
        CHECK_OK(cpu, mpcg_solve(S, b, x2, &cut));
        CHECK(cut.reason == MPCG_DIVERGED_MAX_ITER && cut.iterations == 3 &&
              cut.mixed_head_iterations == 3 && cut.spmvs_fp64 == cut.spmvs);
        CHECK_OK(cpu, mpcg_solver_set_maxit(S, 10 * n));
        CHECK_OK(cpu, mpcg_solve(S, b, x2, &again));
        CHECK(again.iterations == m.iterations &&
              again.mixed_head_iterations == m.mixed_head_iterations &&
              memcmp(x, x2, (size_t)n * sizeof *x) == 0);
        mpcg_solver_destroy(S);
    }
    /* the GPU: the head launched before the fp32 iterations of the graph or a persistent loop,
     * cut inside it and again */
    mpcg_matrix *G = NULL;
    if (gpu) CHECK_OK(gpu, mpcg_matrix_create_csr(gpu, n, A->csr.row_ptr, A->csr.col_idx,
                                                  A->csr.val, &G));
    for (int v = 0; G && v < 3; v++) gpu_head(A, G, b, x2, &m, gpu_head_variants[v]);
    mpcg_matrix_destroy(G);
    mpcgi_host_free(b), mpcgi_host_free(x), mpcgi_host_free(x2);
    mpcg_matrix_destroy(A);
}

/* A GPU variant's count against the GPU host loop's (host_it) under strategy s: launched and
 * graph the same; the persistent loops add in their own order (test_iterations_close_loop),
 * and under refinement, whose restarts are discrete decisions, within 20% (as the GPU against
 * the CPU below), the single-reduction loop up to twice. */
static int gpu_count_ok(const mpcg_info *gi, int s, int64_t host_it)
{
    const int64_t it = gi->iterations;
    if (strncmp(gi->variant, "persistent", 10) != 0) return it == host_it;
    if (s == 0) return test_iterations_close_loop(gi->variant, it, host_it);
    const int64_t most =
        strcmp(gi->variant, "persistent-single") == 0 ? 2 * host_it : host_it + host_it / 5;
    return it >= host_it - host_it / 5 && it <= most;
}

/* Every GPU variant in mixed against the CPU's mixed solve of each strategy: the same reason,
 * close iteration counts, an honest true residual that the host recomputes; every variant but
 * the host loop twice gives bit-identical x. The persistent loops run the fp64 head in the
 * launched kernels and take over at its end (the direction kept under reliable updates). */
static void compare_gpu(const char *name, mpcg_matrix *A, const double *b, double tol,
                        const mpcg_info ci[2])
{
    static const char *const variants[] = {"host", "launched", "graph", "persistent-single",
                                           "persistent-two-barrier", NULL};
    enum { NV = sizeof variants / sizeof variants[0] };
    int64_t n = mpcg_matrix_n(A);
    double *x = NULL, *x2 = NULL, scale;
    int64_t host_it = -1, host_head = -1, launched_head = -1;
    mpcg_matrix *G = NULL;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x, &x));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x2, &x2));
    CHECK_OK(gpu, mpcg_matrix_create_csr(gpu, n, A->csr.row_ptr, A->csr.col_idx, A->csr.val, &G));
    for (int s = 0; x && x2 && G && s < 2; s++) {
        for (int v = 0; v < NV; v++) {
            run_opts o = {.prec = MPCG_PRECISION_MIXED, .strategy = strategies[s],
                          .variant = variants[v], .tol = tol};
            mpcg_info gi = solve(gpu, G, &o, b, x);
            double rel = test_relres(&A->csr, b, x, &scale);
            const int loop = strncmp(gi.variant, "persistent", 10) == 0; /* auto's too */
            char what[64];
            snprintf(what, sizeof what, "GPU %s %s", variants[v] ? variants[v] : "auto",
                     strategies[s]);
            report(name, what, &gi, rel);
            check_mixed_info(&gi, strategies[s]);
            CHECK(gi.reason == ci[s].reason);
            if (v == 0) host_it = gi.iterations, host_head = gi.mixed_head_iterations;
            if (v == 1) launched_head = gi.mixed_head_iterations;
            /* the head: the host loop's fp64 dots, or the launched kernels in every other
             * variant (the graph and the loops launch them too), the same iterations */
            CHECK(llabs(gi.mixed_head_iterations - host_head) <= 1);
            CHECK(v < 2 || gi.mixed_head_iterations == launched_head);
            /* refinement's restarts are discrete decisions: where fp32 barely reaches (bcsstk05,
             * kappa eps32 about 1) another summation order can take another outer step (H200:
             * 565 GPU against 649 CPU iterations); the GPU variants agree among themselves */
            CHECK(gpu_count_ok(&gi, s, host_it));
            /* the GPU's fp32 dots add in another order than the CPU's: the reliable count
             * moves with the rounding noise (H200: nos4 97 and 118 against 99 and 115) */
            CHECK(loop || (s == 1 ? llabs(gi.iterations - ci[s].iterations) <= ci[s].iterations / 5
                                  : test_iterations_close_order(gi.iterations, ci[s].iterations)));
            CHECK(gi.reason != MPCG_CONVERGED_RTOL || gi.true_relres <= tol);
            /* hi + lo hold about 48 bits: the rounding bound of check_mixed */
            CHECK(fabs(rel - gi.true_relres) <= 1e-6 * rel + 16 * DBL_EPSILON * scale);
            if (v == 0 || !variants[v]) continue;
            mpcg_info g2 = solve(gpu, G, &o, b, x2);
            CHECK(g2.iterations == gi.iterations && memcmp(x, x2, (size_t)n * sizeof *x) == 0);
        }
    }
    mpcg_matrix_destroy(G);
    mpcgi_host_free(x), mpcgi_host_free(x2);
}

/* One Jacobi PCG solve of A x = ones to tol on the CPU: fp64, or mixed with the stall window
 * `window` and the head `head` (NULL: the defaults) and at most maxit iterations. */
static mpcg_info stall_solve(mpcg_matrix *A, mpcg_precision prec, const char *window,
                             const char *head, double tol, int64_t maxit, double *b, double *x)
{
    mpcg_solver *S = NULL;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++) b[i] = 1.0, x[i] = NAN;
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (!S) return info;
    CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_JACOBI));
    CHECK_OK(cpu, mpcg_solver_set_precision(S, prec));
    CHECK_OK(cpu, mpcg_solver_set_tol(S, tol));
    if (maxit) CHECK_OK(cpu, mpcg_solver_set_maxit(S, maxit));
    if (window) CHECK_OK(cpu, mpcg_solver_set_option(S, "mixed.stall_window", window));
    if (head) CHECK_OK(cpu, mpcg_solver_set_option(S, "mixed.fp64_head", head));
    CHECK_OK(cpu, mpcg_solve(S, b, x, &info));
    mpcg_solver_destroy(S);
    return info;
}

/* The stall rule on A (name): fp64 converges to tol; mixed with `head` (NULL: the default) and
 * the rule off (mixed.stall_window=0) is still far from tol after twice fp64's iterations; with
 * the default rule the solve finds the stall, finishes in fp64 and converges within 1.3 times
 * fp64's iterations, its true residual recomputed here. */
static void stall_case(const char *name, mpcg_matrix *A, const char *head, double tol)
{
    const int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL, scale;
    char what[64];
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    if (b && x) {
        mpcg_info f = stall_solve(A, MPCG_PRECISION_FP64, NULL, NULL, tol, 0, b, x);
        report(name, "jacobi", &f, test_relres(&A->csr, b, x, &scale));
        CHECK(f.converged);
        mpcg_info off = stall_solve(A, MPCG_PRECISION_MIXED, "0", head, tol, 2 * f.iterations, b, x);
        report(name, "jacobi, no stall rule", &off, test_relres(&A->csr, b, x, &scale));
        CHECK(!off.converged && off.reason == MPCG_DIVERGED_MAX_ITER && !off.precision_fallback);
        CHECK(off.true_relres > 100 * tol);
        mpcg_info on = stall_solve(A, MPCG_PRECISION_MIXED, NULL, head, tol, 0, b, x);
        double rel = test_relres(&A->csr, b, x, &scale);
        snprintf(what, sizeof what, "jacobi, the default stall rule, tol %g", tol);
        report(name, what, &on, rel);
        printf("    mixed/fp64 iterations %.3f\n", (double)on.iterations / (double)f.iterations);
        CHECK(on.converged && on.true_relres <= tol && rel <= tol * (1 + 1e-6));
        CHECK(on.precision_fallback && on.fallback_iteration > 0);
        CHECK(10 * on.iterations <= 13 * f.iterations);
        CHECK(on.spmvs_fp64 < on.spmvs); /* fp32 iterations ran before the fp64 finish */
    }
    mpcgi_host_free(b), mpcgi_host_free(x);
}

/* 1D diffusion -(k u')' = f with Dirichlet ends on n cells whose coefficient falls
 * geometrically over `decades` decades: k_{i+1/2} = 10^(-decades i / n); tridiagonal, SPD,
 * kappa about 10^decades (a11 + ... ~ 2, the last diagonal ~ 2 10^-decades), and Jacobi does not
 * undo it (the spread is in the couplings, not only the diagonal). fp64 CG converges in about n
 * iterations (a tridiagonal Krylov space); fp32's matrix is another one at kappa eps32 >> 1. */
static mpcg_matrix *graded_diffusion(int64_t n, double decades)
{
    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    mpcg_matrix *A = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *rp, &rp));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *ci, &ci));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(3 * n), sizeof *v, &v));
    for (int64_t i = 0, k = 0; rp && ci && v && i < n; i++) {
        double kl = pow(10.0, -decades * (double)i / (double)n);
        double kr = pow(10.0, -decades * (double)(i + 1) / (double)n);
        rp[i] = k;
        if (i > 0) ci[k] = (int32_t)(i - 1), v[k++] = -kl;
        ci[k] = (int32_t)i, v[k++] = kl + kr;
        if (i + 1 < n) ci[k] = (int32_t)(i + 1), v[k++] = -kr;
        rp[i + 1] = k;
    }
    if (rp && ci && v) CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, n, rp, ci, v, &A));
    mpcgi_host_free(rp), mpcgi_host_free(ci), mpcgi_host_free(v);
    return A;
}

/* The stall rule (mixed.stall_window, on by default; solver/cg_mixed.c) where the fp32
 * recurrence keeps falling slowly long after fp64 CG has converged (test/data/stall): nos1 and
 * 1138_bus (small: the default runs them all in fp64, so mixed.fp64_head=0 makes them iterate
 * in fp32), msc04515 (4515 rows, the defaults; gzipped, skipped without zlib) and a constructed
 * kappa ~ 1e15 matrix (graded_diffusion, 300 rows, fp64_head=0). */
static void test_stall(void)
{
    static const char *const names[] = {"stall/nos1.mtx", "stall/1138_bus.mtx",
                                        "stall/msc04515.mtx.gz"};
    for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
        mpcg_matrix *A = NULL;
        const int gz = strstr(names[m], ".gz") != NULL;
        if (gz && !MPCG_HAVE_ZLIB) {
            printf("  %s: no zlib, skipped\n", names[m]);
            continue;
        }
        CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, test_data(names[m]), &A));
        if (!A) continue;
        stall_case(names[m], A, gz ? NULL : "0", 1e-8);
        mpcg_matrix_destroy(A);
    }
    mpcg_matrix *G = graded_diffusion(300, 15.0);
    if (G) stall_case("graded_diffusion:300:1e15", G, "0", 1e-8);
    mpcg_matrix_destroy(G);
}

/* Recurrence residuals of a model solve at iteration j: falling a decade every 20 iterations
 * to iteration `until`, then flat (a stall) but still creeping down by 1% a window of 32. */
static double model_residual(int64_t j, int64_t until)
{
    if (j <= until) return pow(10.0, -(double)j / 20.0);
    return pow(10.0, -(double)until / 20.0) * pow(0.99, (double)(j - until) / 32.0);
}

/* mpcgi_mixed_stalled sampled every K = 1 .. 64 iterations, as the GPU variants call it once
 * a window of K iterations with the latest residual (the host loop: every iteration): a steady
 * fall is never a stall; a stall from iteration 200 is found within the stall window plus one
 * sample after it begins (the rule measures the span since its reference, whatever K). */
static void test_stall_sampling(void)
{
    static const int64_t every[] = {1, 2, 3, 7, 16, 32, 48, 64};
    const int64_t window = 32, until = 200;
    mpcgi_cg_args a;
    memset(&a, 0, sizeof a);
    a.seg.kind = MPCGI_SEG_MIXED; /* the fp32 segment of a mixed solve */
    a.seg.work = MPCG_PRECISION_FP32;
    for (size_t e = 0; e < sizeof every / sizeof every[0]; e++) {
        const int64_t K = every[e];
        for (int stall = 0; stall < 2; stall++) {
            mpcgi_cg_track tr;
            memset(&tr, 0, sizeof tr);
            tr.stall_window = window;
            tr.stall_r = tr.stall_best = 1.0; /* segment_begin at iteration 0 */
            int64_t found = -1;
            for (int64_t k = K; k <= 2000 && found < 0; k += K)
                if (mpcgi_mixed_stalled(&a, &tr, k, model_residual(k, stall ? until : 100000)))
                    found = k;
            printf("  stall rule sampled every %lld: %s, found at %lld\n", (long long)K,
                   stall ? "stall from 200" : "steady fall", (long long)found);
            if (!stall) CHECK(found == -1);
            else CHECK(found > until && found <= until + 2 * window + 2 * K);
        }
    }
}

int main(void)
{
    test_init_seed("test_solver_mixed");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_solver_mixed");
    if (mpcgi_device_count() > 0) CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else printf("test_solver_mixed: no usable GPU, the GPU comparisons are skipped\n");
    test_options();
    test_fp32_stagnates();
    test_storage_fallback();
    test_ill_conditioned();
    test_generated();
    test_fp64_head();
    test_stall();
    test_stall_sampling();
    CHECK(test_each_mtx(check_file, NULL) == 0);
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return test_finish("test_solver_mixed");
}
