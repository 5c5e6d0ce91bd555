/* test/test_solver_cg_fused.c: the GPU CG variants against the CPU: exact counts, reproducible
 * bits, reasons, the chooser (the fused kernels alone: test/test_cg_kernels.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/cg_kernels.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "solver/cg_variants.h"
#include "solver/solver.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;
static const double tol = 1e-8; /* the solver's default */
/* The cg.variant every GPU solver of the running test asks for, and the adaptive layout
 * (adaptive.mode; NULL: its default) and column width (adaptive.index; NULL: its default). */
static const char *variant = "auto", *layout, *index32;

/* The check intervals every GPU comparison runs: every iteration, odd (a window that overshoots
 * the stopping iteration), adaptive. */
static const int64_t intervals[] = {1, 3, 0};
#define N_INTERVALS 3

/* ---------------------------------------------------------------- helpers */

/* A diagonal matrix diag(d[0], ..., d[n-1]), n <= 4. */
static mpcg_matrix *diag(mpcg_context *ctx, int n, const double *d)
{
    int64_t rp[5] = {0, 1, 2, 3, 4};
    int32_t col[4] = {0, 1, 2, 3};
    mpcg_matrix *A = NULL;
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, n, rp, col, d, &A));
    return A;
}

static double *vec(int64_t n)
{
    double *v = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *v, &v));
    return v;
}

/* One solve with the check interval K (NaN in x first: the zero guess must not read it). */
static mpcg_info solve_k(mpcg_solver *S, int64_t K, const double *b, double *x, int64_t n)
{
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    memset(x, 0xff, (size_t)n * sizeof *x);
    CHECK_OK(gpu, mpcg_solver_set_check_interval(S, K));
    CHECK_OK(gpu, mpcg_solve(S, b, x, &info));
    return info;
}

/* 1 if the named backend claims bit-identical output for the same input. */
static int deterministic(const char *spmv)
{
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info bi;
        if (mpcg_backend_get(i, &bi) == MPCG_SUCCESS && strcmp(bi.name, spmv) == 0)
            return (bi.caps & MPCG_CAP_DETERMINISTIC) != 0;
    }
    return 0;
}

/*
 * x1 and x2 must be the same bits: the vector kernels reduce in a fixed order, so only the SpMV
 * can make two runs differ. With a backend that does not claim MPCG_CAP_DETERMINISTIC (cuSPARSE
 * ALG1, docs/gpu.md) a difference is reported, and the two must still agree to 1e-10.
 */
static void same_bits(const char *spmv, const char *what, const double *x1, const double *x2,
                      int64_t n)
{
    if (memcmp(x1, x2, (size_t)n * sizeof *x1) == 0) return;
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs(x1[i] - x2[i]));
        m = fmax(m, fabs(x1[i]));
    }
    printf("  note: %s with %s: not bit-identical (max difference %.3g of %.3g)\n", what, spmv,
           d, m);
    CHECK(!deterministic(spmv) && d <= 1e-10 * m);
}

/* The variant a set-up solver runs. */
static const char *variant_of(const mpcg_solver *S) { return S->variant ? S->variant->name : ""; }

/* A GPU solver of A with backend spmv and the running variant. */
static int set_adaptive(mpcg_solver *S, const char *key, const char *value);
static mpcg_solver *gpu_solver(mpcg_matrix *A, const char *spmv)
{
    mpcg_solver *S = NULL;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, spmv));
    CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", variant));
    if (strcmp(spmv, "adaptive") == 0 && layout) set_adaptive(S, "adaptive.mode", layout);
    if (strcmp(spmv, "adaptive") == 0 && index32) set_adaptive(S, "adaptive.index", index32);
    return S;
}

/*
 * The adaptive backend's layout keys (spmv/adaptive/adaptive.c's option table: adaptive.mode =
 * auto|uniform|split|binned|tiles, adaptive.index = auto|32), all set here so a renamed key
 * fails in one place. 0 (with a note) where this build has no such key.
 */
static int set_adaptive(mpcg_solver *S, const char *key, const char *value)
{
    if (mpcg_solver_set_option(S, key, value) == MPCG_SUCCESS) return 1;
    printf("  note: option %s=%s is not in this build (%s)\n", key, value, mpcg_last_error(gpu));
    mpcg_clear_error(gpu);
    CHECK(!"the adaptive option keys adaptive.mode and adaptive.index");
    return 0;
}

/* ---------------------------------------------------------------- CPU checks */

/* The option: K >= 0; on the CPU it changes nothing (same bits). */
static void test_check_interval_option(void)
{
    mpcg_matrix *A = test_random_spd(cpu, 597, test_seed);
    double *b = vec(597), *x1 = vec(597), *x2 = vec(597);
    mpcg_solver *S;
    mpcg_info i1, i2;
    for (int i = 0; i < 597; i++) b[i] = cos(i + 0.5);
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */

    CHECK_OK(cpu, mpcg_solve(S, b, x1, &i1));
    CHECK_OK(cpu, mpcg_solver_set_check_interval(S, 3));
    CHECK_OK(cpu, mpcg_solve(S, b, x2, &i2));

    CHECK(i1.converged && i2.iterations == i1.iterations);
    CHECK(memcmp(x1, x2, 597 * sizeof *x1) == 0);
    CHECK_STATUS(cpu, mpcg_solver_set_check_interval(S, -1), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(cpu), "check interval K = -1"));
    mpcg_clear_error(cpu);
    CHECK_STATUS(NULL, mpcg_solver_set_check_interval(NULL, 4), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(NULL);
    CHECK_OK(cpu, mpcg_solver_set_check_interval(S, 0));
    CHECK(mpcgi_cg_fused_graph_iters(S) == 0); /* no fused loop on the CPU */
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcgi_host_free(b), mpcgi_host_free(x1), mpcgi_host_free(x2);
}

/* ---------------------------------------------------------------- GPU: one system */

/*
 * (a), (b) and (c) on one system and backend: against the CPU CG for K = 1, 3 and adaptive
 * (reason, iterations, true residual, the same bits for every K: the device stops at the same
 * iteration whatever K is), a second solve with the same bits, and maxit = 5 exactly.
 */
static void compare(const char *name, mpcg_matrix *Ac, mpcg_matrix *Ag, const char *spmv)
{
    int64_t n = mpcg_matrix_n(Ac);
    double *b = vec(n), *xc = vec(n), *xk[N_INTERVALS], *x = vec(n);
    mpcgi_rng g;
    mpcg_solver *Sc, *S;
    mpcg_info ic, ik[N_INTERVALS], i2;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)n);
    for (int64_t i = 0; i < n; i++) b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK_OK(cpu, mpcg_solver_create(cpu, Ac, &Sc));
    CHECK_OK(cpu, mpcg_solver_set_precond(Sc, MPCG_PRECOND_NONE)); /* plain CG */
    S = gpu_solver(Ag, spmv);
    CHECK_OK(cpu, mpcg_solve(Sc, b, xc, &ic));

    for (int j = 0; j < N_INTERVALS; j++) ik[j] = solve_k(S, intervals[j], b, xk[j] = vec(n), n);
    i2 = solve_k(S, 0, b, x, n);

    printf("  %-16s %-9s n = %6lld: cpu %4lld iterations, gpu %4lld %4lld %4lld (K = 1, 3, "
           "adaptive), true relres %.2e, %s %lld\n",
           name, spmv, (long long)n, (long long)ic.iterations, (long long)ik[0].iterations,
           (long long)ik[1].iterations, (long long)ik[2].iterations, ik[2].true_relres,
           variant_of(S), (long long)mpcgi_cg_fused_graph_iters(S));
    for (int j = 0; j < N_INTERVALS; j++) {
        CHECK(ik[j].reason == MPCG_CONVERGED_RTOL && ik[j].true_relres <= tol);
        CHECK(strcmp(ik[j].backend, spmv) == 0 && strcmp(ik[j].variant, variant_of(S)) == 0);
        CHECK(strcmp(variant, "auto") == 0 || strcmp(ik[j].variant, variant) == 0);
        CHECK(ik[j].variant_reason[0] != '\0');
        CHECK(test_iterations_close(name, ik[j].iterations, ic.iterations));
        CHECK(test_residual_ok(&Ag->csr, b, xk[j], tol));
        CHECK(ik[j].iterations == ik[2].iterations || !deterministic(spmv));
        same_bits(spmv, "K = 1, 3 against adaptive", xk[j], xk[2], n);
    }
    CHECK(i2.iterations == ik[2].iterations || !deterministic(spmv));
    same_bits(spmv, "a second solve", x, xk[2], n);

    /* (c) maxit = 5: 5 updates of x whatever K (3 overshoots, a graph window runs 8): the
     * CPU's 5th iterate up to rounding, and the bits of K = 1 */
    CHECK_OK(gpu, mpcg_solver_set_maxit(S, 5));
    CHECK_OK(cpu, mpcg_solver_set_maxit(Sc, 5));
    CHECK_OK(cpu, mpcg_solve(Sc, b, xc, &ic));
    for (int j = 0; j < N_INTERVALS; j++) {
        double scale;
        ik[j] = solve_k(S, intervals[j], b, xk[j], n);
        CHECK(ik[j].iterations == 5 && ik[j].reason == MPCG_DIVERGED_MAX_ITER);
        CHECK(test_close(ik[j].true_relres, test_relres(&Ag->csr, b, xk[j], &scale), 1e-6, 0));
        if (!test_close(ik[j].true_relres, ic.true_relres, 1e-6, 0))
            printf("  %s %s, %s, K = %lld: 5th iterate's true relres %.17g, cpu %.17g\n",
                   name, spmv, variant_of(S), (long long)intervals[j],
                   ik[j].true_relres, ic.true_relres);
        CHECK(test_close(ik[j].true_relres, ic.true_relres, 1e-6, 0));
        same_bits(spmv, "the 5th iterate, K = 3 or adaptive against 1", xk[j], xk[0], n);
    }
    mpcg_solver_destroy(S), mpcg_solver_destroy(Sc);
    for (int j = 0; j < N_INTERVALS; j++) mpcgi_host_free(xk[j]);
    mpcgi_host_free(b), mpcgi_host_free(xc), mpcgi_host_free(x);
}

static void compare_generated(const char *spec, const char *spmv)
{
    mpcg_matrix *Ac = NULL, *Ag = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, spec, &Ac));
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, spec, &Ag));
    if (Ac && Ag) compare(spec, Ac, Ag, spmv);
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

/* A .mtx file of test/data (all bundled ones are SPD); user: the backend name. */
static void compare_file(const char *name, const char *path, void *user)
{
    mpcg_matrix *Ac = NULL, *Ag = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, path, &Ac));
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, path, &Ag));
    if (Ac && Ag) compare(name, Ac, Ag, user);
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

/* ---------------------------------------------------------------- GPU: reasons */

/* (d) A solve of a 2 x 2 diagonal system on the GPU, for every K: its reason and count. */
static void check_reason(const char *spmv, const double *d, const double *b, mpcg_reason want,
                         int64_t want_it)
{
    mpcg_matrix *A = diag(gpu, 2, d);
    mpcg_solver *S;
    double x[2];
    S = gpu_solver(A, spmv);
    for (int j = 0; j < N_INTERVALS; j++) {
        mpcg_info info = solve_k(S, intervals[j], b, x, 2);
        CHECK(info.reason == want && info.iterations == want_it);
        CHECK(info.converged == (want > 0));
        if (want_it == 0) CHECK(x[0] == 0 && x[1] == 0); /* x was never updated */
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

static void test_reasons(const char *spmv)
{
    const double one[] = {1, 1}, zero[] = {0, -0.0}, huge[] = {1e300, 1e300};
    const double indef[] = {1, -2}, sing[] = {1, -1}, spd[] = {2, 3}, big[] = {1e300, 1e300};
    const double moderate[] = {1e10, 1e10};
    check_reason(spmv, indef, one, MPCG_DIVERGED_INDEFINITE_MATRIX, 0); /* p.q = 1 - 2 */
    check_reason(spmv, sing, one, MPCG_DIVERGED_BREAKDOWN, 0);          /* p.q = 1 - 1 */
    check_reason(spmv, spd, huge, MPCG_DIVERGED_NAN, 0);                /* ||b||^2 = Inf */
    check_reason(spmv, big, moderate, MPCG_DIVERGED_NAN, 0); /* p.q = Inf, found on the device */
    check_reason(spmv, spd, zero, MPCG_CONVERGED_ZERO_RHS, 0);
    check_reason(spmv, spd, one, MPCG_CONVERGED_RTOL, 2); /* 2 eigenvalues: 2 steps */
}

/* ---------------------------------------------------------------- GPU: graph, allocation */

static int64_t monitor_calls, monitor_last;
static void monitor(int64_t it, double relres, void *user)
{
    CHECK(user == &monitor_calls && it % 3 == 0 && it >= monitor_last && relres >= 0);
    monitor_calls++;
    monitor_last = it;
}

/*
 * (e) under launched and graph: the graph gives the bits of the one-by-one launches; under the
 * persistent variants: that variant runs; (f) no device allocation in a solve, with a monitor
 * (called at every 3rd iteration) and through mpcg_solve_device; then a solve after new values
 * (a graph is captured again).
 */
static void test_graph_and_allocation(const char *spec, const char *spmv)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, spec, &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    double *b = vec(n), *x0 = vec(n), *x1 = vec(n), *val = vec(nnz), *db = NULL, *dx = NULL;
    mpcg_solver *S = gpu_solver(A, spmv);
    mpcg_info i0, i1;
    int graph = strcmp(variant, "graph") == 0;
    for (int64_t i = 0; i < n; i++) b[i] = sin(i + 1.0);

    CHECK_OK(gpu, mpcg_solver_setup(S));
    CHECK(strcmp(variant_of(S), variant) == 0);
    CHECK((mpcgi_cg_fused_graph_iters(S) > 0) == graph);
    if (strcmp(variant, "launched") == 0 || graph) {
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", graph ? "launched" : "graph"));
        i0 = solve_k(S, 0, b, x0, n);
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", variant));
        i1 = solve_k(S, 0, b, x1, n);
        CHECK(i0.converged && (i1.iterations == i0.iterations || !deterministic(spmv)));
        same_bits(spmv, "graph against one-by-one launches", x0, x1, n);
    }

    int64_t attempts = mpcgi_alloc_device_attempts();
    CHECK_OK(gpu, mpcg_solver_set_monitor(S, 3, monitor, &monitor_calls));
    monitor_calls = 0, monitor_last = 0;
    CHECK_OK(gpu, mpcg_solve(S, b, x1, &i1));
    CHECK(monitor_calls == i1.iterations / 3 + 1 && monitor_last == i1.iterations / 3 * 3);
    CHECK_OK(gpu, mpcg_solver_set_monitor(S, 0, NULL, NULL));
    CHECK(cudaMalloc((void **)&db, (size_t)n * sizeof *db) == cudaSuccess); /* not counted */
    CHECK(cudaMalloc((void **)&dx, (size_t)n * sizeof *dx) == cudaSuccess);
    CHECK(cudaMemcpy(db, b, (size_t)n * sizeof *b, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(dx, 0xff, (size_t)n * sizeof *dx) == cudaSuccess); /* NaN: zero guess */
    CHECK_OK(gpu, mpcg_solve_device(S, db, dx, &i0));
    CHECK(cudaMemcpy(x0, dx, (size_t)n * sizeof *x0, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(i0.iterations == i1.iterations || !deterministic(spmv));
    same_bits(spmv, "mpcg_solve_device against mpcg_solve", x0, x1, n);
    CHECK(mpcgi_alloc_device_attempts() == attempts);

    /* new values, same pattern (a graph is captured again): 2 A x = b */
    const double *v;
    CHECK_OK(gpu, mpcg_matrix_csr(A, NULL, NULL, &v));
    for (int64_t k = 0; k < nnz; k++) val[k] = 2 * v[k];
    CHECK_OK(gpu, mpcg_matrix_update_values(A, val));
    CHECK_OK(gpu, mpcg_solve(S, b, x1, &i1));
    CHECK(i1.converged && test_residual_ok(&A->csr, b, x1, tol));
    CHECK(strcmp(i1.variant, variant) == 0 && (mpcgi_cg_fused_graph_iters(S) > 0) == graph);

    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    cudaFree(db), cudaFree(dx);
    mpcgi_host_free(b), mpcgi_host_free(x0), mpcgi_host_free(x1), mpcgi_host_free(val);
}

/* Below what fp64 can reach: the device stops on the recurrence, the host replaces r by
 * b - A x and restarts the device, until the true residual stops improving. */
static void test_replacement(const char *spmv)
{
    mpcg_matrix *A = test_random_spd(gpu, 200, test_seed + 1);
    double b[200], x[200];
    mpcg_solver *S;
    for (int i = 0; i < 200; i++) b[i] = sin(i + 1.0);
    CHECK(A != NULL);
    if (!A) return;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, spmv));
    CHECK_OK(gpu, mpcg_solver_set_tol(S, 1e-19));
    for (int j = 0; j < N_INTERVALS; j++) {
        mpcg_info info = solve_k(S, intervals[j], b, x, 200);
        CHECK(info.reason == MPCG_DIVERGED_STAGNATION && info.residual_replacements >= 1);
        CHECK(info.true_relres > 1e-19 && test_residual_ok(&A->csr, b, x, 1e-12));
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* ---------------------------------------------------------------- main */

/* The setup of S fails with MPCG_ERR_NOT_SUPPORTED and a message holding `why`. */
static void refused(mpcg_solver *S, const char *why)
{
    CHECK_STATUS(gpu, mpcg_solver_setup(S), MPCG_ERR_NOT_SUPPORTED);
    if (!strstr(mpcg_last_error(gpu), why)) printf("  message: %s\n", mpcg_last_error(gpu));
    CHECK(strstr(mpcg_last_error(gpu), why) != NULL);
    mpcg_clear_error(gpu);
}

/*
 * The chooser on poisson3d:60 (n = 216000 > cg.small_n): auto launches kernels and says why; the
 * persistent loops asked for by name run there, checked against the CPU (the single-reduction
 * loop: 1637 rows of 7 entries per SM on 132 SMs fit); cusparse and adaptive (its uniform path,
 * then binned: single-reduction only, two-barrier refused with the reason).
 */
static void test_loop_choice(void)
{
    mpcg_matrix *A = NULL, *Ac = NULL;
    mpcg_solver *S = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:60", &A));
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson3d:60", &Ac));
    if (!A || !Ac) return;
    variant = "auto";
    S = gpu_solver(A, "adaptive");
    CHECK_OK(gpu, mpcg_solver_setup(S));
    CHECK(strcmp(variant_of(S), "launched") == 0 && strstr(S->variant_reason, "> cg.small_n"));
    CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.small_n", "300000")); /* n <= small_n now */
    CHECK_OK(gpu, mpcg_solver_setup(S));
    CHECK(strcmp(variant_of(S), "launched") != 0);
    printf("  poisson3d:60 adaptive, cg.small_n = 300000: %s (%s)\n", variant_of(S),
           S->variant_reason);
    if (set_adaptive(S, "adaptive.mode", "binned")) {
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", "persistent-two-barrier"));
        refused(S, "not on its uniform path");
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", "persistent-single"));
        CHECK_OK(gpu, mpcg_solver_setup(S));
        CHECK(strcmp(variant_of(S), "persistent-single") == 0);
    }
    mpcg_solver_destroy(S);
    const char *const loops[] = {"persistent-single", "persistent-two-barrier"};
    for (int l = 0; l < 2; l++) {
        variant = loops[l];
        compare("poisson3d:60", Ac, A, "cusparse");
        compare("poisson3d:60", Ac, A, "adaptive");
    }
    variant = "persistent-single";
    layout = "binned";
    compare("poisson3d:60 binned", Ac, A, "adaptive");
    layout = NULL;
    variant = "auto";
    mpcg_matrix_destroy(A), mpcg_matrix_destroy(Ac);
}

/*
 * An arrow matrix (one row as long as the matrix: 3000 entries of every SM's rows would not fit
 * in shared memory) has no single-reduction loop; whatever the plan runs instead agrees with the
 * CPU. Its off-diagonals are 1/N, so its eigenvalues lie in [2, 4.1]: with 0.5 and a_00 = N (an
 * eigenvalue near N beside the rest in [2, 3]) the 5th iterate's residual moved by up to 40 %
 * with the summation order alone (numpy, fsum against np.dot), past what compare() allows.
 */
static void test_loop_too_wide(void)
{
    enum { N = 3000 };
    int64_t *rp = NULL;
    int32_t *col = NULL;
    double *val = NULL;
    mpcg_matrix *A = NULL, *Ac = NULL;
    mpcg_solver *S = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, N + 1, sizeof *rp, &rp));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, 3 * N, sizeof *col, &col));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, 3 * N, sizeof *val, &val));
    int64_t k = 0;
    for (int i = 0; i < N; i++) { /* a_00 = 4, a_ii = 2 + i / N, a_0j = a_j0 = 1 / N */
        rp[i] = k;
        if (i == 0) {
            for (int j = 0; j < N; j++) col[k] = j, val[k++] = j == 0 ? 4.0 : 1.0 / N;
        } else {
            col[k] = 0, val[k++] = 1.0 / N;
            col[k] = i, val[k++] = 2.0 + (double)i / N;
        }
    }
    rp[N] = k;
    CHECK_OK(gpu, mpcg_matrix_create_csr(gpu, N, rp, col, val, &A));
    CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, N, rp, col, val, &Ac));
    for (int b = 0; A && Ac && b < 2; b++) { /* cusparse, adaptive */
        const char *spmv = b ? "adaptive" : "cusparse";
        variant = "auto";
        S = gpu_solver(A, spmv);
        CHECK_OK(gpu, mpcg_solver_setup(S));
        printf("  arrow n = %d, %s: %s (%s)\n", N, spmv, variant_of(S), S->variant_reason);
        CHECK(strcmp(variant_of(S), "persistent-single") != 0);
        CHECK(strstr(S->variant_reason, "not single-reduction") != NULL);
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", "persistent-single"));
        refused(S, "cg.variant=persistent-single cannot run here: the rows of a block do not fit");
        mpcg_solver_destroy(S);
        compare("arrow", Ac, A, spmv);
    }
    mpcg_matrix_destroy(A), mpcg_matrix_destroy(Ac);
    mpcgi_host_free(rp), mpcgi_host_free(col), mpcgi_host_free(val);
}

/* The absolute tolerance and the history in the running variant: atol, the looser
 * bound, decides and the true residual meets it; the history starts at iteration 0 with the
 * initial residual, its iterations strictly increasing to the solve's last and its times
 * monotone, and it ends with the solve's own residuals. */
static void test_atol_history(const char *spmv)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:20", &A));
    if (!A) return;
    const int64_t n = mpcg_matrix_n(A);
    double *b = vec(n), *x = vec(n);
    for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    const double bnorm = sqrt((double)n), atol = 1e-3 * bnorm;
    mpcg_solver *S = gpu_solver(A, spmv);
    CHECK_OK(gpu, mpcg_solver_set_atol(S, atol));
    CHECK_OK(gpu, mpcg_solver_set_history(S, 1));
    mpcg_info info = solve_k(S, 0, b, x, n);
    int64_t count = 0;
    const int64_t *it = NULL;
    const double *rel = NULL, *tru = NULL, *t = NULL;
    CHECK_OK(gpu, mpcg_solver_get_history(S, &count, &it, &rel, &tru, &t));
    printf("  atol: %s, %s: %s after %lld iterations, %lld history entries\n", spmv,
           variant_of(S), mpcg_reason_name(info.reason), (long long)info.iterations,
           (long long)count);
    CHECK(info.reason == MPCG_CONVERGED_ATOL && info.true_relres * bnorm <= atol);
    CHECK(count >= 2 && it && it[0] == 0 && test_close(rel[0], 1.0, 1e-12, 0) &&
          test_close(tru[0], 1.0, 1e-12, 0)); /* ||b|| on the device against the host's */
    int ordered = 1;
    for (int64_t k = 1; k < count; k++) ordered &= it[k] > it[k - 1] && t[k] >= t[k - 1];
    CHECK(ordered && count >= 2 && it[count - 1] == info.iterations);
    /* the end's true residual joins the last read of the recurrence, or is an entry of its own
     * (recurrence NaN) where the last window read an earlier iteration */
    CHECK(count >= 2 && tru[count - 1] == info.true_relres &&
          (rel[count - 1] == info.recurrence_relres || isnan(rel[count - 1])));
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcgi_host_free(b), mpcgi_host_free(x);
}

/* Everything above with one backend and one cg.variant (the global `variant`); "adaptive"
 * only where this build registers it. */
static void test_backend(const char *spmv, const char *v)
{
    mpcg_matrix *A = diag(gpu, 2, (const double[]){1, 2});
    mpcg_solver *S = NULL;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    mpcg_status st = mpcg_solver_set_spmv(S, spmv);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    if (st != MPCG_SUCCESS) {
        printf("  backend %s is not in this build: skipped\n", spmv);
        mpcg_clear_error(gpu);
        return;
    }
    variant = v;
    printf(" backend %s (%sdeterministic), cg.variant=%s\n", spmv,
           deterministic(spmv) ? "" : "not ", v);
    compare_generated("poisson3d:24", spmv);
    if (strcmp(spmv, "adaptive") == 0) { /* 32-bit columns too (16-bit ones where they fit) */
        index32 = "32";
        compare_generated("poisson3d:24", spmv);
        index32 = NULL;
    }
    CHECK(test_each_mtx(compare_file, (void *)spmv) == 0);
    test_reasons(spmv);
    test_graph_and_allocation("poisson3d:20", spmv);
    test_replacement(spmv);
    test_atol_history(spmv);
    variant = "auto";
}

/* Under auto on a small system: the single-reduction loop with either backend, and why; with
 * cg.small_n = 0 the launched kernels, and why. */
static void test_auto_reason(void)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:20", &A));
    for (int b = 0; A && b < 2; b++) {
        mpcg_solver *S = gpu_solver(A, b ? "adaptive" : "cusparse");
        CHECK_OK(gpu, mpcg_solver_setup(S));
        CHECK(strcmp(variant_of(S), "persistent-single") == 0);
        CHECK(strcmp(S->variant_reason, "auto: n = 8000 <= cg.small_n and the rows fit the "
                                        "single-reduction loop") == 0);
        CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.small_n", "0"));
        CHECK_OK(gpu, mpcg_solver_setup(S));
        CHECK(strcmp(variant_of(S), "launched") == 0);
        CHECK(strcmp(S->variant_reason, "auto: n = 8000 > cg.small_n = 0: launched kernels") == 0);
        mpcg_solver_destroy(S);
    }
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_solver_cg_fused");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_solver_cg_fused");
    test_check_interval_option();
    if (mpcgi_device_count() == 0) {
        printf("test_solver_cg_fused: no usable GPU, the GPU checks are skipped\n");
        mpcg_context_destroy(cpu);
        return test_failures ? test_finish("test_solver_cg_fused") : TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_solver_cg_fused");
    printf("test_solver_cg_fused: %s\n", mpcg_context_device_name(gpu));
    static const char *const variants[] = {"launched", "graph", "persistent-single",
                                           "persistent-two-barrier", "host"};
    for (int v = 0; v < 5; v++) {
        test_backend("cusparse", variants[v]);
        test_backend("adaptive", variants[v]);
    }
    test_auto_reason();
    test_loop_choice();
    test_loop_too_wide();
    mpcg_context_destroy(cpu);
    mpcg_context_destroy(gpu);
    return test_finish("test_solver_cg_fused");
}
