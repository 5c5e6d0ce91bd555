/* test/test_solver_atol.c: the absolute tolerance (mpcg_solver_set_atol) on the CPU: it stops
 * where max(tol ||b||, atol) says in every precision, with a preconditioner and per column of a
 * block solve; atol = 0 is the relative test alone, bit for bit */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/matrix.h"
#include "test/testutil.h"

#define N 597

static mpcg_context *ctx;
static mpcg_matrix *A;
static double b[2 * N], x[2 * N], x2[2 * N];

/* ||v|| in the order the library sums ||b|| (solver/solver.c, host_norm) */
static double norm(const double *v, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* One solve with tol and atol (precision, preconditioner as given); x starts at zero. */
static mpcg_info solve(mpcg_precision p, mpcg_precond pc, double tol, double atol, double *out)
{
    mpcg_solver *S = NULL;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, p));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, pc));
    CHECK_OK(ctx, mpcg_solver_set_tol(S, tol));
    if (atol >= 0) CHECK_OK(ctx, mpcg_solver_set_atol(S, atol));
    CHECK_OK(ctx, mpcg_solve(S, b, out, &info));
    mpcg_solver_destroy(S);
    return info;
}

/* fp64: atol = 1e-4 ||b|| with tol 1e-12 is tol = 1e-4: the same threshold, so the same
 * iterates bit for bit, reason ATOL instead of RTOL; and atol = 0 (or one below tol ||b||)
 * changes nothing at all. */
static void test_atol_decides(void)
{
    const double bn = norm(b, N);

    mpcg_info rel = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-4, -1, x);
    mpcg_info abs = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-12, 1e-4 * bn, x2);
    mpcg_info tight = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-12, -1, x2 + N);

    CHECK(rel.reason == MPCG_CONVERGED_RTOL && abs.reason == MPCG_CONVERGED_ATOL);
    CHECK(abs.converged == 1 && abs.iterations == rel.iterations);
    CHECK(memcmp(x, x2, N * sizeof *x) == 0);
    CHECK(test_residual_ok(&A->csr, b, x2, 1e-4));
    CHECK(abs.true_relres * bn <= 1e-4 * bn && abs.true_relres > 1e-12);
    CHECK(tight.reason == MPCG_CONVERGED_RTOL && tight.iterations > abs.iterations);
    printf("  atol = 1e-4 ||b||, tol 1e-12: %lld iterations (tol 1e-4: %lld; tol 1e-12: %lld)\n",
           (long long)abs.iterations, (long long)rel.iterations, (long long)tight.iterations);

    /* atol = 0 and an atol below tol ||b||: the relative test alone, bit for bit */
    mpcg_info zero = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-8, 0.0, x);
    mpcg_info none = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-8, -1, x2);
    mpcg_info tiny = solve(MPCG_PRECISION_FP64, MPCG_PRECOND_NONE, 1e-8, 1e-300, x2 + N);
    CHECK(zero.reason == MPCG_CONVERGED_RTOL && tiny.reason == MPCG_CONVERGED_RTOL);
    CHECK(zero.iterations == none.iterations && tiny.iterations == none.iterations);
    CHECK(zero.true_relres == none.true_relres && zero.spmvs == none.spmvs);
    CHECK(memcmp(x, x2, N * sizeof *x) == 0 && memcmp(x, x2 + N, N * sizeof *x) == 0);
}

/* Every precision (mixed: both strategies) and a preconditioner stop at atol: reason ATOL, the
 * fp64 true residual at or below atol, fewer iterations than tol alone asks for. */
static void test_atol_everywhere(void)
{
    const double bn = norm(b, N), atol = 1e-3 * bn;
    const struct {
        mpcg_precision p;
        mpcg_precond pc;
        const char *strategy, *what;
    } cases[] = {{MPCG_PRECISION_FP64, MPCG_PRECOND_JACOBI, NULL, "fp64 jacobi"},
                 {MPCG_PRECISION_FP32, MPCG_PRECOND_NONE, NULL, "fp32"},
                 {MPCG_PRECISION_MIXED, MPCG_PRECOND_NONE, "reliable", "mixed reliable"},
                 {MPCG_PRECISION_MIXED, MPCG_PRECOND_NONE, "refinement", "mixed refinement"},
                 {MPCG_PRECISION_MIXED, MPCG_PRECOND_JACOBI, "reliable", "mixed jacobi"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mpcg_solver *S = NULL;
        mpcg_info info, ref;
        CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
        CHECK_OK(ctx, mpcg_solver_set_precision(S, cases[i].p));
        CHECK_OK(ctx, mpcg_solver_set_precond(S, cases[i].pc));
        if (cases[i].strategy)
            CHECK_OK(ctx, mpcg_solver_set_option(S, "mixed.strategy", cases[i].strategy));
        /* the reference: tol alone, 1e-5 (fp32 reaches it on this diagonally dominant A) */
        CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-5));
        CHECK_OK(ctx, mpcg_solve(S, b, x2, &ref));
        CHECK_OK(ctx, mpcg_solver_set_atol(S, atol));
        CHECK_OK(ctx, mpcg_solve(S, b, x, &info));

        CHECK(ref.reason == MPCG_CONVERGED_RTOL);
        CHECK(info.reason == MPCG_CONVERGED_ATOL && info.converged);
        CHECK(info.true_relres <= 1e-3 && test_residual_ok(&A->csr, b, x, 1e-3));
        CHECK(info.iterations < ref.iterations);
        printf("  %-16s atol = 1e-3 ||b||: %lld iterations, true relres %.2e (tol 1e-5: %lld)\n",
               cases[i].what, (long long)info.iterations, info.true_relres,
               (long long)ref.iterations);
        mpcg_solver_destroy(S);
    }
}

/* b = 0 ends at once whatever atol is; ||b|| <= atol ends after the initial residual; block CG
 * decides per column: atol for the small column, tol for the large one. */
static void test_atol_edges_and_block(void)
{
    mpcg_solver *S = NULL;
    mpcg_info info, infos[2];
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_atol(S, 1.0));
    double zero[N] = {0};
    for (int i = 0; i < N; i++) x[i] = NAN;
    CHECK_OK(ctx, mpcg_solve(S, zero, x, &info));
    CHECK(info.reason == MPCG_CONVERGED_ZERO_RHS && info.iterations == 0 && x[7] == 0);

    CHECK_OK(ctx, mpcg_solver_set_atol(S, 2.0 * norm(b, N)));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_CONVERGED_ATOL && info.iterations == 0 && x[7] == 0);
    CHECK(test_close(info.true_relres, 1.0, 1e-15, 0));

    /* block: column 1 about 1000 column 0 in size; tol 1e-6, atol 1e-4 ||b0||: column 0 stops
     * at atol (ATOL), column 1 at tol ||b1|| > 1e-3 ||b0|| > atol (RTOL) */
    for (int i = 0; i < N; i++) b[N + i] = 1000.0 * (1.0 + (i % 7));
    CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-6));
    CHECK_OK(ctx, mpcg_solver_set_atol(S, 1e-4 * norm(b, N)));
    CHECK_OK(ctx, mpcg_solve_block(S, 2, b, x, infos));
    CHECK(infos[0].reason == MPCG_CONVERGED_ATOL && infos[1].reason == MPCG_CONVERGED_RTOL);
    CHECK(test_residual_ok(&A->csr, b, x, 1e-4) && test_residual_ok(&A->csr, b + N, x + N, 1e-6));
    CHECK(infos[0].true_relres > 1e-6);

    /* invalid values */
    CHECK_STATUS(ctx, mpcg_solver_set_atol(S, -1e-3), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "atol = -0.001 out of range [0, inf)"));
    CHECK_STATUS(ctx, mpcg_solver_set_atol(S, NAN), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_atol(S, INFINITY), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_atol(NULL, 1.0), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    mpcg_solver_destroy(S);
}

int main(void)
{
    test_init_seed("test_solver_atol");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    A = test_random_spd(ctx, N, test_seed);
    CHECK(A != NULL);
    for (int i = 0; i < N; i++) b[i] = 1.0 + (i % 5) - 0.25 * (i % 3);
    test_atol_decides();
    test_atol_everywhere();
    test_atol_edges_and_block();
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return test_finish("test_solver_atol");
}
