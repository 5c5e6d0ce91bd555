/* test/test_spmv_cpu.c: the cpu backend and the dispatcher against independent references */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/matrix.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *ctx;

static void test_hand_checked(void)
{
    /* [[2, 0, 1], [0, 0, 0], [1, 3, 4]] x [1, 2, 3] = [5, 0, 19] */
    const int64_t rp[] = {0, 2, 2, 5};
    const int32_t col[] = {0, 2, 0, 1, 2};
    const double val[] = {2, 1, 1, 3, 4};
    const float val32[] = {2, 1, 1, 3, 4};
    mpcgi_csr A = {.n = 3, .nnz = 5, .row_ptr = (int64_t *)rp, .col_idx = (int32_t *)col,
                   .val = (double *)val, .val32 = (float *)val32};
    const double x[] = {1, 2, 3};
    const float xf[] = {1, 2, 3};
    double y[3] = {NAN, NAN, NAN};
    float yf[3] = {NAN, NAN, NAN};
    mpcgi_spmv_plan *plan;
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_cpu, &A, MPCG_CAP_FP64 | MPCG_CAP_FP32,
                                         NULL, &plan));

    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP64, x, y));
    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP32, xf, yf));

    CHECK(y[0] == 5 && y[1] == 0 && y[2] == 19);
    CHECK(yf[0] == 5 && yf[1] == 0 && yf[2] == 19);
    CHECK(plan->sizes.bytes_matrix == 5 * 12 + 4 * 8 && plan->sizes.padding_ratio == 1.0);
    CHECK_STATUS(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_MIXED, x, y),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK_STATUS(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP64, NULL, y),
                 MPCG_ERR_INVALID_ARG);
    mpcgi_spmv_plan_destroy(ctx, plan);
    mpcg_clear_error(ctx);

    /* a plan made for fp64 only refuses fp32 */
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_cpu, &A, MPCG_CAP_FP64, NULL, &plan));
    CHECK_STATUS(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP32, xf, yf),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(ctx), "backend cpu was not set up for precision fp32"));
    mpcg_clear_error(ctx);
    mpcgi_spmv_plan_destroy(ctx, plan);
}

/* y = A x from the triplets in reverse order, in long double: an independent reference. */
static void reference(const mpcgi_csr *A, const double *x, long double *y, long double *absy)
{
    for (int64_t i = 0; i < A->n; i++) y[i] = absy[i] = 0;
    for (int64_t i = A->n - 1; i >= 0; i--)
        for (int64_t k = A->row_ptr[i + 1] - 1; k >= A->row_ptr[i]; k--) {
            y[i] += (long double)A->val[k] * x[A->col_idx[k]];
            absy[i] += fabsl((long double)A->val[k] * x[A->col_idx[k]]);
        }
}

static void check_random(int64_t n, int per_row)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + (uint64_t)n);
    mpcgi_csr A;
    double *x, *y;
    float *xf, *yf;
    long double *ref, *absref;
    CHECK(test_random_csr(&g, n, per_row, 1, &A) == 0);
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *x, &x));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *y, &y));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *xf, &xf));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *yf, &yf));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *ref, &ref));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *absref, &absref));
    for (int64_t i = 0; i < n; i++) {
        x[i] = 2 * mpcgi_rng_uniform(&g) - 1;
        xf[i] = (float)x[i];
        y[i] = NAN;
        yf[i] = NAN;
    }
    reference(&A, x, ref, absref);
    CHECK_OK(ctx, mpcgi_csr_fill_val32(ctx, &A));
    mpcgi_spmv_plan *plan;
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_cpu, &A, MPCG_CAP_FP64 | MPCG_CAP_FP32,
                                         NULL, &plan));

    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP64, x, y));
    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP32, xf, yf));

    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = A.row_ptr[i + 1] - A.row_ptr[i];
        double tol64 = 4.0 * (double)(len + 1) * DBL_EPSILON * (double)absref[i];
        double tol32 = 4.0 * (double)(len + 1) * FLT_EPSILON * (double)absref[i] + 1e-30;
        if (!(fabs(y[i] - (double)ref[i]) <= tol64) || !(fabs(yf[i] - (double)ref[i]) <= tol32))
            bad++;
    }
    if (bad) fprintf(stderr, "n = %lld: %d rows differ from the reference\n", (long long)n, bad);
    CHECK(bad == 0);

    /* symmetry property (HPCG): |x'Ay - y'Ax| <= eps ||A|| ||x|| ||y|| with y random */
    double *z, *Az;
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *z, &z));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *Az, &Az));
    for (int64_t i = 0; i < n; i++) z[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP64, z, Az));
    double xAz = 0, zAx = 0, nx = 0, nz = 0, nA = 0;
    for (int64_t i = 0; i < n; i++) xAz += x[i] * Az[i], zAx += z[i] * y[i];
    for (int64_t i = 0; i < n; i++) nx += x[i] * x[i], nz += z[i] * z[i];
    for (int64_t k = 0; k < A.nnz; k++) nA += A.val[k] * A.val[k];
    /* (n + 2): each side rounds twice even at n = 1 (a 1 x 1 A: x (a z) against z (a x)) */
    CHECK(fabs(xAz - zAx) <= (double)(n + 2) * DBL_EPSILON * sqrt(nA) * sqrt(nx) * sqrt(nz));

    mpcgi_spmv_plan_destroy(ctx, plan);
    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(xf), mpcgi_host_free(yf);
    mpcgi_host_free(ref), mpcgi_host_free(absref), mpcgi_host_free(z), mpcgi_host_free(Az);
    mpcgi_csr_free(&A);
}

static void test_update_values(void)
{
    const int64_t rp[] = {0, 1, 2};
    const int32_t col[] = {0, 1};
    double val[] = {2, 3};
    float val32[] = {2, 3};
    mpcgi_csr A = {.n = 2, .nnz = 2, .row_ptr = (int64_t *)rp, .col_idx = (int32_t *)col,
                   .val = val, .val32 = val32};
    const float x[] = {1, 1};
    float y[2];
    mpcgi_spmv_plan *plan;
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_cpu, &A, MPCG_CAP_FP32, NULL, &plan));
    val[0] = 5;
    val32[0] = 5; /* the matrix refreshes its fp32 copy with new values (mpcgi_csr_fill_val32) */

    CHECK_OK(ctx, mpcgi_spmv_plan_update_values(ctx, plan, &A));
    CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_FP32, x, y));

    CHECK(y[0] == 5 && y[1] == 3); /* the fp32 copy follows the new values */
    mpcgi_spmv_plan_destroy(ctx, plan);
}

/* y = A x in order (the cpu backend's fp64 sum) */
static void csr_times(const mpcgi_csr *A, const double *x, double *y)
{
    for (int64_t i = 0; i < A->n; i++) {
        y[i] = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            y[i] += A->val[k] * x[A->col_idx[k]];
    }
}

/* The mixed storage through the matrix object: made by the plan, refreshed by
 * mpcg_matrix_update_values (hi and lo), the fp64 fallback once new values do not split. */
static void test_mixed_matrix(void)
{
    const int64_t rp[] = {0, 2, 5, 7};
    const int32_t col[] = {0, 1, 0, 1, 2, 1, 2};
    double val[] = {4, -1 + 0x1p-30, -1 + 0x1p-30, 4, -0.5, -0.5, 4}; /* exact splits */
    const double x[] = {1, -2, 0.25};
    double y[3], want[3];
    mpcg_matrix *M = NULL;
    mpcgi_spmv_plan *plan = NULL;
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, 3, rp, col, val, &M));
    if (!M) return;
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_cpu, &M->csr, MPCGI_PREC_MIXED_STORE,
                                         NULL, &plan));
    CHECK(plan && !mpcgi_spmv_mixed_fallback(plan) && M->csr.lo32 && M->csr.val32);
    CHECK(M->csr.lo32[1] == 0x1p-30f && M->csr.val32[1] == -1.0f);
    for (int pass = 0; pass < 3 && plan; pass++) {
        y[0] = y[1] = y[2] = NAN;
        CHECK_OK(ctx, mpcgi_spmv_apply(ctx, plan, MPCG_PRECISION_MIXED, x, y));
        csr_times(&M->csr, x, want);
        CHECK(memcmp(y, want, sizeof y) == 0); /* exact split or fallback: a itself */
        CHECK((mpcgi_spmv_mixed_fallback(plan) != NULL) == (pass == 2));
        for (int k = 0; k < 7; k++) val[k] *= 3;
        if (pass == 1) val[2] = 1e-39; /* below fp32's normal range: the fallback */
        CHECK_OK(ctx, mpcg_matrix_update_values(M, val));
        CHECK(M->csr.lo32[1] == (float)(val[1] - (double)(float)val[1]));
        CHECK_OK(ctx, mpcgi_spmv_plan_update_values(ctx, plan, &M->csr));
    }
    CHECK(plan && strstr(mpcgi_spmv_mixed_fallback(plan), "below fp32's normal range"));
    mpcgi_spmv_plan_destroy(ctx, plan);
    mpcg_matrix_destroy(M);
}

static void test_lookup(void)
{
    const struct mpcgi_spmv_ops *ops;

    CHECK_OK(ctx, mpcgi_spmv_lookup(ctx, "auto", &ops));
    CHECK(ops == &mpcgi_spmv_cpu);
    CHECK_STATUS(ctx, mpcgi_spmv_lookup(ctx, "nosuch", &ops), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "unknown SpMV backend \"nosuch\" (known in this build: "
                                       "auto, cpu"));
    mpcg_clear_error(ctx);
}

int main(void)
{
    test_init_seed("test_spmv_cpu");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    test_hand_checked();
    const int64_t sizes[] = {1, 2, 31, 33, 597, 10007};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_random(sizes[i], 9);
    check_random(1000, 0); /* diagonal only */
    test_update_values();
    test_mixed_matrix();
    test_lookup();
    mpcg_context_destroy(ctx);
    return test_finish("test_spmv_cpu");
}
