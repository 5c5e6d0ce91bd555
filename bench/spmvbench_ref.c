/* bench/spmvbench_ref.c: spmvbench's check: x and the CPU reference every row is compared to */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/spmvbench_ref.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/rng.h"

/* Rows of a wrong result printed. */
#define SHOW_WRONG 5

void spmv_reference_free(reference *R)
{
    mpcgi_host_free(R->x);
    mpcgi_host_free(R->ref);
    mpcgi_host_free(R->tol);
    memset(R, 0, sizeof *R);
}

/* x uniform in [-1, 1) from seed; the reference computed from the values the backend sees (A's
 * values and x rounded to fp32 for fp32). */
mpcg_status spmv_reference_make(mpcg_context *ctx, const mpcgi_csr *A, mpcg_precision prec,
                                uint64_t seed, reference *R)
{
    int64_t n = A->n;
    int fp32 = prec == MPCG_PRECISION_FP32;
    double eps = fp32 ? FLT_EPSILON : DBL_EPSILON, tiny = fp32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    mpcgi_rng g;
    R->prec = prec;
    MPCG_CHECK(
        ctx, mpcgi_host_alloc_array(ctx, (size_t)n, fp32 ? sizeof(float) : sizeof(double), &R->x));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof(double), &R->ref));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof(double), &R->tol));
    mpcgi_rng_seed(&g, seed);
    for (int64_t i = 0; i < n; i++) {
        double v = 2.0 * mpcgi_rng_uniform(&g) - 1.0;
        if (fp32)
            ((float *)R->x)[i] = (float)v;
        else
            ((double *)R->x)[i] = v;
    }
    const float *x32 = R->x;
    const double *x64 = R->x;
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t i = 0; i < n; i++) {
        long double s = 0.0L, abs_sum = 0.0L;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            long double t = fp32 ? (long double)(float)A->val[k] * (long double)x32[j]
                                 : (long double)A->val[k] * (long double)x64[j];
            s += t;
            abs_sum += fabsl(t);
        }
        double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
        R->ref[i] = fp32 ? (double)(float)s : (double)s;
        R->tol[i] = (len + 2.0) * eps * (double)abs_sum + (len + 1.0) * tiny;
    }
    return MPCG_SUCCESS;
}

/* Compare y (host, the precision's type) with the reference; prints the first wrong rows. */
int64_t spmv_reference_compare(const char *what, const reference *R, const void *y, int64_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double v =
            R->prec == MPCG_PRECISION_FP32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
        /* a reference that overflowed (fp32 values past FLT_MAX) must be matched exactly */
        int ok = isfinite(R->ref[i]) ? fabs(v - R->ref[i]) <= R->tol[i] : v == R->ref[i];
        if (ok) continue;
        if (bad++ < SHOW_WRONG)
            fprintf(stderr,
                    "spmvbench: %s: row %lld: y = %.17g, reference %.17g, |diff| %.3g > "
                    "tolerance %.3g\n",
                    what, (long long)i, v, R->ref[i], fabs(v - R->ref[i]), R->tol[i]);
    }
    return bad;
}
