/* test/test_solver_cg.c: the CG solver on the CPU: hand-checked cases, every reason, options */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/csr.h"
#include "solver/solver.h"
#include "test/testutil.h"

static mpcg_context *ctx;

/* A matrix from dense lower-triangle-free row-major data (n <= 8), zeros dropped. */
static mpcg_matrix *dense(int n, const double *a)
{
    int64_t rp[9] = {0};
    int32_t col[64];
    double val[64];
    int m = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (a[i * n + j] != 0) col[m] = j, val[m++] = a[i * n + j];
        rp[i + 1] = m;
    }
    mpcg_matrix *A = NULL;
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, n, rp, col, val, &A));
    return A;
}

static mpcg_matrix *random_spd(int64_t n, uint64_t seed)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, seed);
    mpcgi_csr C;
    CHECK(test_random_csr(&g, n, 8, 0, &C) == 0);
    mpcg_matrix *A = NULL;
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, n, C.row_ptr, C.col_idx, C.val, &A));
    mpcgi_csr_free(&C);
    return A;
}

static mpcg_info solve(mpcg_matrix *A, const double *b, double *x, mpcg_status want)
{
    mpcg_solver *S;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG (default: auto) */
    CHECK_STATUS(ctx, mpcg_solve(S, b, x, &info), want);
    mpcg_solver_destroy(S);
    return info;
}

static void test_two_by_two(void)
{
    /* [[4, 1], [1, 3]] x = [1, 2]: x = [1/11, 7/11]; CG is exact after 2 steps */
    const double a[] = {4, 1, 1, 3}, b[] = {1, 2};
    double x[2] = {NAN, NAN};
    mpcg_matrix *A = dense(2, a);

    mpcg_info info = solve(A, b, x, MPCG_SUCCESS);

    CHECK(info.reason == MPCG_CONVERGED_RTOL && info.converged == 1);
    CHECK(info.iterations == 2);
    CHECK(test_close(x[0], 1.0 / 11, 1e-14, 0) && test_close(x[1], 7.0 / 11, 1e-14, 0));
    CHECK(info.true_relres <= 1e-8 && info.recurrence_relres <= 1e-8);
    CHECK(strcmp(info.backend, "cpu") == 0 && info.precision == MPCG_PRECISION_FP64);
    CHECK(info.residual_replacements == 0);
    CHECK(info.bytes_per_iteration == 4 * 12 + 3 * 8 + 112 * 2);
    mpcg_matrix_destroy(A);
}

static void test_diagonal_iterations(void)
{
    /* CG on a diagonal matrix with 3 distinct eigenvalues converges in 3 iterations */
    const double a[] = {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 5, 0, 0, 0, 0, 2};
    const double b[] = {1, -2, 3, 0.5};
    double x[4];
    mpcg_matrix *A = dense(4, a);

    mpcg_info info = solve(A, b, x, MPCG_SUCCESS);

    CHECK(info.reason == MPCG_CONVERGED_RTOL && info.iterations == 3);
    CHECK(test_close(x[2], 0.6, 1e-14, 0) && test_close(x[3], 0.25, 1e-14, 0));
    mpcg_matrix_destroy(A);
}

static void test_reasons(void)
{
    double x[2];
    const double one[] = {1, 1};
    /* p^T A p = 1 - 2 < 0 at the first step */
    const double indef[] = {1, 0, 0, -2};
    mpcg_matrix *A = dense(2, indef);
    mpcg_info info = solve(A, one, x, MPCG_SUCCESS);
    CHECK(info.reason == MPCG_DIVERGED_INDEFINITE_MATRIX && info.iterations == 0 &&
          !info.converged);
    CHECK(isfinite(info.true_relres));
    mpcg_matrix_destroy(A);

    /* p^T A p = 1 - 1 = 0 with p = b != 0 */
    const double sing[] = {1, 0, 0, -1};
    A = dense(2, sing);
    info = solve(A, one, x, MPCG_SUCCESS);
    CHECK(info.reason == MPCG_DIVERGED_BREAKDOWN && info.iterations == 0);
    mpcg_matrix_destroy(A);

    /* ||b||^2 overflows: NaN/Inf in the iteration */
    const double spd[] = {2, 0, 0, 3}, huge[] = {1e300, 1e300};
    A = dense(2, spd);
    info = solve(A, huge, x, MPCG_SUCCESS);
    CHECK(info.reason == MPCG_DIVERGED_NAN);

    /* zero right-hand side: x = 0 at once, whatever x held */
    const double zero[] = {0, -0.0};
    x[0] = x[1] = NAN;
    info = solve(A, zero, x, MPCG_SUCCESS);
    CHECK(info.reason == MPCG_CONVERGED_ZERO_RHS && info.converged && info.iterations == 0);
    CHECK(x[0] == 0 && x[1] == 0 && info.true_relres == 0);

    /* NaN/Inf in b: rejected before the solve */
    const double nanb[] = {1, NAN};
    info = solve(A, nanb, x, MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "b[1] = nan is not finite"));
    mpcg_clear_error(ctx);
    mpcg_matrix_destroy(A);
}

static void test_max_iter_and_options(void)
{
    mpcg_matrix *A = random_spd(597, test_seed);
    double *b, *x;
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, 597, sizeof *b, &b));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, 597, sizeof *x, &x));
    for (int i = 0; i < 597; i++) b[i] = 1.0 + (i % 5);
    mpcg_solver *S;
    mpcg_info info;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));

    CHECK_OK(ctx, mpcg_solver_set_maxit(S, 2));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_DIVERGED_MAX_ITER && info.iterations == 2 && !info.converged);
    CHECK(info.true_relres > 1e-8 && test_close(info.true_relres, info.recurrence_relres, 1e-6, 0));

    CHECK_OK(ctx, mpcg_solver_set_error_if_not_converged(S, 1));
    CHECK_STATUS(ctx, mpcg_solve(S, b, x, &info), MPCG_ERR_NOT_CONVERGED);
    CHECK(strstr(mpcg_last_error(ctx), "did not converge"));
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_set_error_if_not_converged(S, 0));

    /* a second solve after a failed one, with the default maxit: converges, diagonally dominant
     * so few iterations (the HPCG-style bound of the tests: 50) */
    CHECK_OK(ctx, mpcg_solver_set_maxit(S, 1000));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_CONVERGED_RTOL && info.iterations > 2 && info.iterations < 50);
    CHECK(info.true_relres <= 1e-8);

    /* the same solve twice gives bit-identical x (deterministic reductions) */
    double *x2;
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, 597, sizeof *x2, &x2));
    mpcg_info info2;
    CHECK_OK(ctx, mpcg_solve(S, b, x2, &info2));
    CHECK(memcmp(x, x2, 597 * sizeof *x) == 0 && info2.iterations == info.iterations);

    /* provided initial guess = the solution: converged without iterating */
    CHECK_OK(ctx, mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED));
    CHECK_OK(ctx, mpcg_solve(S, b, x2, &info2));
    CHECK(info2.reason == MPCG_CONVERGED_RTOL && info2.iterations == 0);
    x2[0] = INFINITY;
    CHECK_STATUS(ctx, mpcg_solve(S, b, x2, &info2), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_set_initial_guess(S, MPCG_GUESS_ZERO));

    /* tighter tol: more iterations, and the true residual meets it */
    CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-12));
    CHECK_OK(ctx, mpcg_solve(S, b, x2, &info2));
    CHECK(info2.converged && info2.iterations > info.iterations && info2.true_relres <= 1e-12);

    /* invalid options */
    CHECK_STATUS(ctx, mpcg_solver_set_tol(S, 0), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_tol(S, 1), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_tol(S, NAN), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_maxit(S, -1), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_spmv(S, "nosuch"), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_precision(S, (mpcg_precision)7), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_initial_guess(S, (mpcg_guess)3), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solve(S, NULL, x, &info), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solve(NULL, b, x, &info), MPCG_ERR_INVALID_ARG);
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cpu"));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_FP64));
    CHECK_OK(ctx, mpcg_solve(S, b, x, NULL));
    mpcg_clear_error(ctx);

    mpcg_solver_destroy(S);
    mpcg_solver_destroy(NULL);
    mpcgi_host_free(b), mpcgi_host_free(x), mpcgi_host_free(x2);
    mpcg_matrix_destroy(A);
}

static int64_t monitor_calls, monitor_last;
static void monitor(int64_t it, double relres, void *user)
{
    CHECK(user == &monitor_calls && it % 3 == 0 && relres >= 0);
    monitor_calls++;
    monitor_last = it;
}

static void test_monitor_update_values_stagnation(void)
{
    mpcg_matrix *A = random_spd(200, test_seed + 1);
    double b[200], x[200], x1[200];
    for (int i = 0; i < 200; i++) b[i] = sin(i + 1.0);
    mpcg_solver *S;
    mpcg_info info;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_monitor(S, 3, monitor, &monitor_calls));

    CHECK_OK(ctx, mpcg_solve(S, b, x1, &info));

    CHECK(monitor_calls == info.iterations / 3 + 1 && monitor_last == info.iterations / 3 * 3);

    /* new values, same pattern: 2 A has solution x1 / 2 */
    const double *val;
    double scaled[4096];
    CHECK(mpcg_matrix_nnz(A) <= 4096);
    CHECK_OK(ctx, mpcg_matrix_csr(A, NULL, NULL, &val));
    for (int64_t k = 0; k < mpcg_matrix_nnz(A); k++) scaled[k] = 2 * val[k];
    CHECK_OK(ctx, mpcg_matrix_update_values(A, scaled));
    CHECK_OK(ctx, mpcg_solver_set_monitor(S, 0, NULL, NULL));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    int ok = 1;
    for (int i = 0; i < 200; i++) ok &= test_close(x[i], x1[i] / 2, 1e-6, 1e-12);
    CHECK(ok && info.converged);

    /* tol below what fp64 can reach: the recurrence says converged, the true residual does not
     * follow; r is replaced by b - A x, and when that stops helping, the solve is stagnant */
    CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-19));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_DIVERGED_STAGNATION && !info.converged);
    CHECK(info.residual_replacements >= 1 && info.true_relres > 1e-19);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* A tol no fp64 solve can reach ends as stagnant, whatever the tol: before the recurrence's
 * floor (max(tol, eps) ||b||), nos4 ran on to p.q = 0 at 1e-200 ("breakdown", 843 iterations)
 * and bcsstk05 to maxit at 1e-100. */
static void check_stagnant(const char *name, const char *path, void *user)
{
    static const double tols[] = {1e-18, 1e-100, 1e-200, 1e-300};
    mpcg_matrix *A = NULL;
    (void)user;
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, path, &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL;
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *b, &b));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *x, &x));
    for (int64_t i = 0; i < n; i++) b[i] = cos(0.3 * (double)i) + 1.5;
    mpcg_solver *S;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    for (int t = 0; t < 4; t++) {
        mpcg_info info;
        CHECK_OK(ctx, mpcg_solver_set_tol(S, tols[t]));

        CHECK_OK(ctx, mpcg_solve(S, b, x, &info));

        if (info.reason != MPCG_DIVERGED_STAGNATION)
            printf("  %s tol %g: %s after %lld iterations\n", name, tols[t],
                   mpcg_reason_string(info.reason), (long long)info.iterations);
        CHECK(info.reason == MPCG_DIVERGED_STAGNATION && info.true_relres < 1e-9);
        CHECK(info.iterations < 10 * n && info.residual_replacements <= 8);
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcgi_host_free(b), mpcgi_host_free(x);
}

static void test_stagnation_below_fp64(void) { CHECK(test_each_mtx(check_stagnant, NULL) == 0); }

/* fp32 and mixed set up (test/test_solver_fp32.c and test/test_solver_mixed.c have their
 * solves); an invalid enum is refused when set. */
static void test_precision(void)
{
    mpcg_matrix *A = random_spd(50, test_seed + 3);
    mpcg_solver *S;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_FP32));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_MIXED));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    CHECK_STATUS(ctx, mpcg_solver_set_precision(S, (mpcg_precision)-1), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_FP64));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* On the CPU: auto takes the host loop and says why; cg.variant=host too; a GPU variant is
 * refused at setup, naming the variant and why; the check interval is the cg.check_interval
 * key (one value). */
static void test_variants(void)
{
    static const char *const gpu_only[] = {"launched", "graph", "persistent-single",
                                           "persistent-two-barrier"};
    mpcg_matrix *A = random_spd(97, test_seed + 4);
    double b[97], x[97];
    mpcg_solver *S;
    mpcg_info info;
    for (int i = 0; i < 97; i++) b[i] = 1.0 / (i + 1);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));

    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(strcmp(info.variant, "host") == 0 && strstr(info.variant_reason, "auto: context cpu"));
    CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", "host"));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(strcmp(info.variant, "host") == 0 && strstr(info.variant_reason, "cg.variant=host"));

    for (int i = 0; i < 4; i++) {
        char want[64];
        snprintf(want, sizeof want, "cg.variant=%s cannot run here", gpu_only[i]);
        CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", gpu_only[i]));
        CHECK_STATUS(ctx, mpcg_solver_setup(S), MPCG_ERR_NOT_SUPPORTED);
        CHECK(strstr(mpcg_last_error(ctx), want));
        mpcg_clear_error(ctx);
    }
    CHECK_STATUS(ctx, mpcg_solver_set_option(S, "cg.variant", "folded"), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", "auto"));
    CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.check_interval", "5"));
    CHECK(mpcgi_solver_check_interval(S) == 5);
    CHECK_OK(ctx, mpcg_solver_set_check_interval(S, 7));
    CHECK(mpcgi_solver_check_interval(S) == 7);
    CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.persistent_blocks", "2"));
    CHECK_STATUS(ctx, mpcg_solver_set_option(S, "cg.persistent_blocks", "0"),
                 MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && strcmp(info.variant, "host") == 0);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

static void test_alloc_sweep(void)
{
    mpcg_matrix *A = random_spd(100, test_seed + 2);
    double b[100], x[100];
    for (int i = 0; i < 100; i++) b[i] = 1;
    int64_t live = mpcgi_alloc_live();
    int ok = 0;
    for (int64_t n = 0; n < 100 && !ok; n++) {
        mpcg_solver *S = NULL;
        mpcg_info info;
        mpcgi_alloc_fail_at(n);

        mpcg_status st = mpcg_solver_create(ctx, A, &S);
        if (st == MPCG_SUCCESS) st = mpcg_solve(S, b, x, &info);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) {
            ok = info.converged;
        } else {
            CHECK(st == MPCG_ERR_HOST_ALLOC);
            /* the same solver solves once memory is back */
            if (S) CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
        }
        mpcg_solver_destroy(S);
        mpcg_clear_error(ctx);
        CHECK(mpcgi_alloc_live() == live);
    }
    CHECK(ok);
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_solver_cg");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    test_two_by_two();
    test_diagonal_iterations();
    test_reasons();
    test_max_iter_and_options();
    test_monitor_update_values_stagnation();
    test_stagnation_below_fp64();
    test_precision();
    test_variants();
    test_alloc_sweep();
    mpcg_context_destroy(ctx);
    return test_finish("test_solver_cg");
}
