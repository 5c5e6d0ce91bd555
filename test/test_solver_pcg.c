/* test/test_solver_pcg.c: preconditioned CG: every preconditioner reaches tol on the bundled SPD
 * matrices with an honest true residual, Jacobi PCG against an independent PCG written here,
 * the rejection of a diagonal <= 0, fp32 and mixed PCG, new values refreshing M, and the GPU's
 * counts against the CPU's; the caller's preconditioner and iterate callbacks */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

static const mpcg_precond kinds[] = {MPCG_PRECOND_NONE, MPCG_PRECOND_JACOBI,
                                     MPCG_PRECOND_BJACOBI, MPCG_PRECOND_CHEBYSHEV};

/* One solve of A x = b in precision prec to tol, x poisoned first; *st: the solve's status
 * (bjacobi without LAPACKE). */
static mpcg_info solve_in(mpcg_context *ctx, mpcg_matrix *A, mpcg_precond pc,
                          mpcg_precision prec, double tol, const char *opt, const double *b,
                          double *x, mpcg_status *st)
{
    mpcg_solver *S = NULL;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++) x[i] = NAN;
    *st = MPCG_ERR_INVALID_STATE;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S) return info;
    /* the GPU checks of this test were measured with cusparse; auto's trial may take another
     * backend from run to run (test_spmv_auto_gpu tests auto) */
    if (mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA)
        CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, pc));
    CHECK_OK(ctx, mpcg_solver_set_tol(S, tol));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, prec));
    if (opt) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s", opt);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        CHECK_OK(ctx, mpcg_solver_set_option(S, kv, eq + 1));
    }
    *st = mpcg_solve(S, b, x, &info);
    mpcg_solver_destroy(S);
    return info;
}

/* An fp64 solve to 1e-8. */
static mpcg_info solve(mpcg_context *ctx, mpcg_matrix *A, mpcg_precond pc, const char *opt,
                       const double *b, double *x, mpcg_status *st)
{
    return solve_in(ctx, A, pc, MPCG_PRECISION_FP64, 1e-8, opt, b, x, st);
}

/*
 * fp32 (to 1e-4: random b, kappa up to 1e6) and mixed (to 1e-8) PCG with Jacobi and Chebyshev:
 * converged with the true residual the solve reports (mixed: <= 1e-8 in fp64); on the GPU a
 * fused variant (the preconditioner inside the iteration, never the host loop under auto), and
 * the CPU's count within the fp32 summation-order tolerance (20%, at least 2).
 */
static void check_low_precision(const char *name, mpcg_matrix *A, mpcg_matrix *G,
                                const double *b, double *x)
{
    static const mpcg_precond pcs[] = {MPCG_PRECOND_JACOBI, MPCG_PRECOND_CHEBYSHEV};
    static const mpcg_precision precs[] = {MPCG_PRECISION_FP32, MPCG_PRECISION_MIXED};
    double scale;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double tol = precs[j] == MPCG_PRECISION_FP32 ? 1e-4 : 1e-8;
            mpcg_status st;
            mpcg_info in = solve_in(cpu, A, pcs[i], precs[j], tol, NULL, b, x, &st);
            double rel = test_relres(&A->csr, b, x, &scale);
            printf("  %s %s %s: %s, %lld iterations, true residual %.3e (%s)\n", name,
                   mpcg_precision_name(precs[j]), mpcg_precond_name(pcs[i]),
                   mpcg_reason_string(in.reason), (long long)in.iterations, in.true_relres,
                   in.variant);
            CHECK(st == MPCG_SUCCESS && in.converged && rel <= tol * (1 + 1e-6));
            CHECK(fabs(rel - in.true_relres) <= 1e-6 * rel + 16 * DBL_EPSILON * scale);
            if (!G) continue;
            mpcg_info gi = solve_in(gpu, G, pcs[i], precs[j], tol, NULL, b, x, &st);
            printf("  %s %s %s GPU (%s): %lld iterations\n", name, mpcg_precision_name(precs[j]),
                   mpcg_precond_name(pcs[i]), gi.variant, (long long)gi.iterations);
            CHECK(st == MPCG_SUCCESS && gi.converged && test_residual_ok(&A->csr, b, x, tol));
            CHECK(strcmp(gi.variant, "host") != 0);
            CHECK(test_iterations_close_order(gi.iterations, in.iterations));
        }
}

/* An independent Jacobi PCG on the CSR (plain loops, sequential sums): its iteration count. */
static int64_t reference_jacobi(const mpcgi_csr *A, const double *b, double tol)
{
    int64_t n = A->n, k = 0;
    double *v = calloc((size_t)(5 * n), sizeof *v);
    double *x = v, *r = v + n, *z = v + 2 * n, *p = v + 3 * n, *q = v + 4 * n;
    double rz = 0.0, rr = 0.0, bb = 0.0;
    if (!v) return -1;
    for (int64_t i = 0; i < n; i++) {
        double d = 0.0;
        for (int64_t j = A->row_ptr[i]; j < A->row_ptr[i + 1]; j++)
            if (A->col_idx[j] == i) d = A->val[j];
        r[i] = b[i], z[i] = r[i] / d, p[i] = z[i];
        rz += r[i] * z[i], rr += r[i] * r[i], bb += b[i] * b[i];
    }
    while (sqrt(rr) > tol * sqrt(bb) && k < 10 * n) {
        double pq = 0.0, rz_new = 0.0;
        for (int64_t i = 0; i < n; i++) {
            q[i] = 0.0;
            for (int64_t j = A->row_ptr[i]; j < A->row_ptr[i + 1]; j++)
                q[i] += A->val[j] * p[A->col_idx[j]];
            pq += p[i] * q[i];
        }
        double alpha = rz / pq;
        rr = 0.0;
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i], r[i] -= alpha * q[i];
            double d = 0.0;
            for (int64_t j = A->row_ptr[i]; j < A->row_ptr[i + 1]; j++)
                if (A->col_idx[j] == i) d = A->val[j];
            z[i] = r[i] / d;
            rz_new += r[i] * z[i], rr += r[i] * r[i];
        }
        for (int64_t i = 0; i < n; i++) p[i] = z[i] + rz_new / rz * p[i];
        rz = rz_new;
        k++;
    }
    free(v);
    return k;
}

/* Every preconditioner on one matrix with b random: converged, true residual <= tol; Jacobi's
 * count against the reference; the GPU's counts within 1% (at least 1) of the CPU's. */
static void check_file(const char *name, const char *path, void *user)
{
    (void)user;
    mpcg_matrix *A = NULL, *G = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, path, &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x), scale;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)n);
    for (int64_t i = 0; b && i < n; i++) b[i] = 2.0 * mpcgi_rng_uniform(&g) - 1.0;
    if (gpu) CHECK_OK(gpu, mpcg_matrix_create_csr(gpu, n, A->csr.row_ptr, A->csr.col_idx,
                                                  A->csr.val, &G));
    for (int k = 0; b && x && k < 4; k++) {
        mpcg_status st;
        mpcg_info in = solve(cpu, A, kinds[k], NULL, b, x, &st);
        if (st == MPCG_ERR_NOT_SUPPORTED && kinds[k] == MPCG_PRECOND_BJACOBI) {
            printf("  %s bjacobi: %s\n", name, mpcg_last_error(cpu));
            mpcg_clear_error(cpu);
            continue; /* a build without LAPACKE says so */
        }
        double rel = test_relres(&A->csr, b, x, &scale);
        printf("  %s %s: %s, %lld iterations, %lld spmvs (%lld in the applies), true residual "
               "%.3e; %s\n", name, mpcg_precond_name(kinds[k]), mpcg_reason_string(in.reason),
               (long long)in.iterations, (long long)in.spmvs, (long long)in.precond_spmvs,
               in.true_relres, in.precond_describe);
        CHECK(st == MPCG_SUCCESS && in.converged && test_residual_ok(&A->csr, b, x, 1e-8));
        CHECK(fabs(rel - in.true_relres) <= 1e-6 * rel + 16 * DBL_EPSILON * scale);
        CHECK(strcmp(in.precond, mpcg_precond_name(kinds[k])) == 0);
        CHECK((kinds[k] == MPCG_PRECOND_NONE) == (in.precond_describe[0] == 0));
        CHECK(kinds[k] == MPCG_PRECOND_CHEBYSHEV ? in.precond_spmvs > 0 : in.precond_spmvs == 0);
        if (kinds[k] == MPCG_PRECOND_JACOBI) {
            int64_t ref = reference_jacobi(&A->csr, b, 1e-8);
            printf("    reference Jacobi PCG: %lld iterations\n", (long long)ref);
            CHECK(test_iterations_close_order(in.iterations, ref));
        }
        if (!G) continue;
        mpcg_info gi = solve(gpu, G, kinds[k], NULL, b, x, &st);
        printf("  %s %s GPU (%s): %lld iterations\n", name, mpcg_precond_name(kinds[k]),
               gi.variant, (long long)gi.iterations);
        CHECK(st == MPCG_SUCCESS && gi.converged && test_residual_ok(&A->csr, b, x, 1e-8));
        int64_t d = llabs(gi.iterations - in.iterations);
        CHECK(d <= 1 + in.iterations / 100 || test_iterations_close(name, gi.iterations,
                                                                       in.iterations));
    }
    if (b && x) check_low_precision(name, A, G, b, x);
    mpcg_matrix_destroy(G);
    free(b), free(x);
    mpcg_matrix_destroy(A);
}

/* A diagonal entry <= 0 fails the setup naming the row; fp32 runs; new values rebuild M (2 A:
 * x halves, the same count). */
static void test_rejections_and_refresh(void)
{
    static const int64_t rp[] = {0, 2, 4, 5};
    static const int32_t ci[] = {0, 1, 0, 1, 2};
    double val[] = {4.0, 1.0, 1.0, -3.0, 2.0}, b[3] = {1, 2, 3}, x[3], x2[3];
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_info in, in2;
    CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, 3, rp, ci, val, &A));
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (!S) return;
    CHECK_STATUS(cpu, mpcg_solver_set_precond(S, (mpcg_precond)7), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_JACOBI));
    CHECK_STATUS(cpu, mpcg_solve(S, b, x, &in), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(cpu), "row 2") != NULL);
    printf("  negative diagonal: %s\n", mpcg_last_error(cpu));
    mpcg_clear_error(cpu);
    val[3] = 3.0;
    CHECK_OK(cpu, mpcg_matrix_update_values(A, val));
    CHECK_OK(cpu, mpcg_solver_set_precision(S, MPCG_PRECISION_FP32));
    CHECK_OK(cpu, mpcg_solver_set_tol(S, 1e-5));
    CHECK_OK(cpu, mpcg_solve(S, b, x, &in));
    CHECK(in.converged && in.iterations <= 3);
    CHECK_OK(cpu, mpcg_solver_set_tol(S, 1e-8));
    CHECK_OK(cpu, mpcg_solver_set_precision(S, MPCG_PRECISION_FP64));
    CHECK_OK(cpu, mpcg_solve(S, b, x, &in));
    for (int i = 0; i < 5; i++) val[i] *= 2.0;
    CHECK_OK(cpu, mpcg_matrix_update_values(A, val));
    CHECK_OK(cpu, mpcg_solve(S, b, x2, &in2));
    CHECK(in.converged && in2.converged && in.iterations == in2.iterations);
    for (int i = 0; i < 3; i++) CHECK(fabs(x2[i] - 0.5 * x[i]) <= 1e-12 * fabs(x[i]));
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* One solve of M x = ones on solver S; x poisoned first. */
static mpcg_info solve_on(mpcg_solver *S, int64_t n, double *x, mpcg_status *st)
{
    double *b = NULL;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    *st = MPCG_ERR_HOST_ALLOC;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    if (!b) return info;
    for (int64_t i = 0; i < n; i++) b[i] = 1.0, x[i] = NAN;
    *st = mpcg_solve(S, b, x, &info);
    mpcgi_host_free(b);
    return info;
}

/* A solver for a new matrix of A's pattern with values val, for kind pc in precision prec. */
static mpcg_solver *refresh_solver(const mpcgi_csr *A, const double *val, mpcg_precond pc,
                                   mpcg_precision prec, mpcg_matrix **M)
{
    mpcg_solver *S = NULL;
    CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, A->n, A->row_ptr, A->col_idx, val, M));
    if (*M) CHECK_OK(cpu, mpcg_solver_create(cpu, *M, &S));
    if (!S) return NULL;
    CHECK_OK(cpu, mpcg_solver_set_precond(S, pc));
    CHECK_OK(cpu, mpcg_solver_set_precision(S, prec));
    CHECK_OK(cpu, mpcg_solver_set_tol(S, prec == MPCG_PRECISION_FP32 ? 1e-5 : 1e-8));
    return S;
}

/* New values on the same pattern rebuild every preconditioner kind: a solver set up and used
 * on bcsstk05, then given new values (the diagonal raised by random amounts, so M changes and not
 * only by a scale), solves as a solver made fresh on the new values does: the same reason and
 * iterations and the same x bit for bit (the CPU path is deterministic), unlike the first x, in
 * fp64, fp32 and mixed. */
static void test_refresh_kinds(mpcgi_rng *g)
{
    static const mpcg_precond all[] = {MPCG_PRECOND_JACOBI, MPCG_PRECOND_BJACOBI,
                                       MPCG_PRECOND_CHEBYSHEV, MPCG_PRECOND_AUTO};
    static const mpcg_precision precs[] = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32,
                                           MPCG_PRECISION_MIXED};
    mpcg_matrix *A = NULL;
    double *val = NULL, *x1 = NULL, *x2 = NULL, *x3 = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, test_data("bcsstk05.mtx"), &A));
    if (!A) return;
    const mpcgi_csr *C = &A->csr;
    const size_t n = (size_t)C->n, bytes = n * sizeof(double);
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)C->nnz, sizeof *val, &val));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &x1));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &x2));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &x3));
    for (int64_t i = 0; val && i < C->n; i++)
        for (int64_t k = C->row_ptr[i]; k < C->row_ptr[i + 1]; k++)
            val[k] = C->val[k] * (C->col_idx[k] == i ? 1.0 + mpcgi_rng_uniform(g) : 1.0);
    for (size_t p = 0; val && x1 && x2 && x3 && p < sizeof all / sizeof all[0]; p++) {
        for (size_t q = 0; q < sizeof precs / sizeof precs[0]; q++) {
            mpcg_matrix *M = NULL, *F = NULL;
            mpcg_status s1, s2, s3;
            mpcg_solver *S = refresh_solver(C, C->val, all[p], precs[q], &M);
            mpcg_solver *T = refresh_solver(C, val, all[p], precs[q], &F);
            if (S && T) {
                mpcg_info i1 = solve_on(S, C->n, x1, &s1);
                if (s1 == MPCG_ERR_NOT_SUPPORTED) { /* bjacobi without LAPACKE */
                    mpcg_clear_error(cpu);
                } else {
                    CHECK_OK(cpu, mpcg_matrix_update_values(M, val));
                    mpcg_info i2 = solve_on(S, C->n, x2, &s2);
                    mpcg_info i3 = solve_on(T, C->n, x3, &s3);
                    printf("  refresh %s %s: %lld iterations before, %lld after, %lld fresh\n",
                           mpcg_precond_name(all[p]), mpcg_precision_name(precs[q]),
                           (long long)i1.iterations, (long long)i2.iterations,
                           (long long)i3.iterations);
                    CHECK(s1 == MPCG_SUCCESS && s2 == MPCG_SUCCESS && s3 == MPCG_SUCCESS);
                    CHECK(i2.reason == i3.reason && i2.iterations == i3.iterations);
                    CHECK(memcmp(x2, x3, bytes) == 0 && memcmp(x1, x2, bytes) != 0);
                    CHECK(strcmp(i2.precond, i3.precond) == 0);
                }
            }
            mpcg_solver_destroy(S), mpcg_solver_destroy(T);
            mpcg_matrix_destroy(M), mpcg_matrix_destroy(F);
        }
    }
    mpcgi_host_free(val), mpcgi_host_free(x1), mpcgi_host_free(x2), mpcgi_host_free(x3);
    mpcg_matrix_destroy(A);
}

/* The caller's callbacks (mpcg_solver_set_precond_callback, _iterate_callback). */
typedef struct cb_state {
    const double *dinv; /* z = dinv .* r: Jacobi by hand */
    int64_t n, calls, last_k;
    double *x_last; /* the iterate of the last call */
    int fail_at;    /* return 1 at this call (0: never) */
} cb_state;

static int jacobi_cb(const double *r, double *z, void *user)
{
    cb_state *c = user;
    for (int64_t i = 0; i < c->n; i++)
        z[i] = c->dinv[i] * r[i];
    return ++c->calls == c->fail_at;
}

static int iterate_cb(int64_t k, const double *x, void *user)
{
    cb_state *c = user;
    CHECK(k == c->last_k + 1);
    c->last_k = k;
    memcpy(c->x_last, x, (size_t)c->n * sizeof *x);
    return 0;
}

/* One solve of bcsstk05 x = ones on ctx with the Jacobi callback and the iterate callback. */
static mpcg_info solve_cb(mpcg_context *ctx, mpcg_matrix *A, cb_state *c, double *x,
                          mpcg_status *st)
{
    mpcg_solver *S = NULL;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    *st = MPCG_ERR_INVALID_STATE;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S) return info;
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_CHEBYSHEV)); /* the callback wins */
    CHECK_OK(ctx, mpcg_solver_set_precond_callback(S, jacobi_cb, c));
    CHECK_OK(ctx, mpcg_solver_set_iterate_callback(S, iterate_cb, c));
    c->calls = 0, c->last_k = 0;
    info = solve_on(S, c->n, x, st);
    mpcg_solver_destroy(S);
    return info;
}

/* Jacobi as a callback gives the library's Jacobi bit for bit on the CPU, in the host variant;
 * the iterate callback sees every iteration and the final x; a callback's failure stops the
 * solve; fp32, another variant and block CG refuse them. */
static void test_callbacks(void)
{
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_status st;
    mpcg_info ref, in, infos[2];
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, test_data("bcsstk05.mtx"), &A));
    if (!A) return;
    const mpcgi_csr *C = &A->csr;
    const int64_t n = C->n;
    const size_t bytes = (size_t)n * sizeof(double);
    double *dinv = calloc((size_t)n, sizeof *dinv), *x = malloc(bytes), *y = malloc(bytes);
    double *xl = malloc(bytes), B[2 * 153], X[2 * 153]; /* n = 153 */
    cb_state c = {.dinv = dinv, .n = n, .x_last = xl};
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = C->row_ptr[i]; j < C->row_ptr[i + 1]; j++)
            if (C->col_idx[j] == i) dinv[i] = 1.0 / C->val[j];
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_JACOBI));
    ref = solve_on(S, n, y, &st);
    CHECK(st == MPCG_SUCCESS && ref.converged);
    in = solve_cb(cpu, A, &c, x, &st);
    CHECK(st == MPCG_SUCCESS && in.converged && in.iterations == ref.iterations);
    CHECK(memcmp(x, y, bytes) == 0 && memcmp(x, xl, bytes) == 0);
    CHECK(c.last_k == in.iterations && c.calls >= in.iterations);
    CHECK(strcmp(in.precond, "callback") == 0 && strcmp(in.variant, "host") == 0);
    printf("  callbacks: %lld iterations as jacobi's %lld, %lld applies; %s\n",
           (long long)in.iterations, (long long)ref.iterations, (long long)c.calls,
           in.variant_reason);
    if (gpu) { /* through the host copies: the CPU's count within 1% */
        mpcg_matrix *G = NULL;
        CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data("bcsstk05.mtx"), &G));
        in = solve_cb(gpu, G, &c, x, &st);
        CHECK(st == MPCG_SUCCESS && in.converged && strcmp(in.variant, "host") == 0);
        CHECK(test_iterations_close("bcsstk05 callback", in.iterations, ref.iterations));
        CHECK(memcmp(x, xl, bytes) == 0);
        mpcg_matrix_destroy(G);
    }
    c.fail_at = 5; /* a failing callback stops the solve with its status */
    in = solve_cb(cpu, A, &c, x, &st);
    CHECK(st == MPCG_ERR_INVALID_ARG && c.calls == 5);
    CHECK(strstr(mpcg_last_error(cpu), "callback returned 1") != NULL);
    mpcg_clear_error(cpu);
    c.fail_at = 0;
    CHECK_OK(cpu, mpcg_solver_set_precond_callback(S, jacobi_cb, &c));
    CHECK_OK(cpu, mpcg_solver_set_option(S, "cg.variant", "launched"));
    CHECK_STATUS(cpu, mpcg_solver_setup(S), MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(cpu), "host loop") != NULL);
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcg_solver_set_option(S, "cg.variant", "auto"));
    CHECK_OK(cpu, mpcg_solver_set_precision(S, MPCG_PRECISION_FP32));
    CHECK_STATUS(cpu, mpcg_solver_setup(S), MPCG_ERR_NOT_SUPPORTED);
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcg_solver_set_precision(S, MPCG_PRECISION_FP64));
    for (int i = 0; i < 2 * 153; i++)
        B[i] = 1.0;
    CHECK_STATUS(cpu, mpcg_solve_block(S, 2, B, X, infos), MPCG_ERR_NOT_SUPPORTED);
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcg_solver_set_precond_callback(S, NULL, NULL)); /* jacobi again */
    in = solve_on(S, n, x, &st);
    CHECK(st == MPCG_SUCCESS && in.iterations == ref.iterations && memcmp(x, y, bytes) == 0);
    CHECK(strcmp(in.precond, "jacobi") == 0);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    free(dinv), free(x), free(y), free(xl);
}

int main(void)
{
    test_init_seed("test_solver_pcg");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_solver_pcg");
    if (mpcgi_device_count() > 0) CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else printf("test_solver_pcg: no usable GPU, the GPU comparisons are skipped\n");
    test_rejections_and_refresh();
    test_callbacks();
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    test_refresh_kinds(&g);
    CHECK(test_each_mtx(check_file, NULL) == 0);
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return test_finish("test_solver_pcg");
}
