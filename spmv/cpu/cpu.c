/* spmv/cpu/cpu.c: the cpu backend: OpenMP CSR SpMV, the reference every GPU result is compared to
 * */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/alloc.h"
#include "core/block.h"
#include "core/error.h"
#include "spmv/spmv.h"

/*
 * Bytes per SpMV: 12 per nonzero (8 value + 4 column) + 8 per row pointer + x gathered + 8 per
 * row for y (fp64); 8 per nonzero with fp32 values (the matrix's own fp32 copy, A->val32). With
 * the mixed storage (the matrix's A->val32 = hi and A->lo32 = lo) the fp32 apply reads hi only
 * (8 per nonzero) and the mixed apply hi and lo (12 per nonzero, as fp64), each value formed as
 * (double)hi + (double)lo. Each row is summed sequentially in column order, so the result does
 * not depend on the thread count. The plan is the matrix itself.
 */

static mpcg_status cpu_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                               const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    (void)ctx, (void)opts;
    size_t vsize = precisions & (MPCG_CAP_FP64 | MPCGI_PREC_MIXED_STORE) ? sizeof(double)
                                                                         : sizeof(float);
    sizes->bytes_matrix = (size_t)A->nnz * (vsize + 4) + ((size_t)A->n + 1) * 8;
    sizes->bytes_matrix32 = precisions & (MPCG_CAP_FP32 | MPCGI_PREC_MIXED_STORE)
                                ? (size_t)A->nnz * (sizeof(float) + 4) + ((size_t)A->n + 1) * 8
                                : 0;
    sizes->bytes_workspace = 0;
    sizes->padding_ratio = 1.0;
    *impl = (void *)A;
    return MPCG_SUCCESS;
}

static mpcg_status cpu_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    (void)ctx, (void)impl, (void)A; /* the plan reads A's values in place */
    return MPCG_SUCCESS;
}

static mpcg_status cpu_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                  const void *xv, void *yv)
{
    (void)ctx;
    const mpcgi_csr *A = impl;
    if (prec == MPCG_PRECISION_FP64) {
        const double *x = xv;
        double *y = yv;
#pragma omp parallel for schedule(static) if (A->nnz > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            double s = 0.0;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                s += A->val[k] * x[A->col_idx[k]];
            y[i] = s;
        }
    } else if (prec == MPCG_PRECISION_MIXED) {
        const double *x = xv;
        double *y = yv;
#pragma omp parallel for schedule(static) if (A->nnz > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            double s = 0.0;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                s += ((double)A->val32[k] + (double)A->lo32[k]) * x[A->col_idx[k]];
            y[i] = s;
        }
    } else {
        const float *x = xv;
        float *y = yv;
#pragma omp parallel for schedule(static) if (A->nnz > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            float s = 0.0f;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                s += A->val32[k] * x[A->col_idx[k]];
            y[i] = s;
        }
    }
    return MPCG_SUCCESS;
}

/* Y = A X for s vectors (row-major n x s): each row's s sums in column order, as apply_host's. */
static mpcg_status cpu_apply_block_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                        int s, const void *Xv, void *Yv)
{
    (void)ctx;
    const mpcgi_csr *A = impl;
    if (prec == MPCG_PRECISION_FP64) {
        const double *X = Xv;
        double *Y = Yv;
#pragma omp parallel for schedule(static) if (A->nnz * s > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            double acc[MPCGI_BLOCK_MAX] = {0};
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                const double v = A->val[k], *x = X + (size_t)A->col_idx[k] * (size_t)s;
                for (int j = 0; j < s; j++) acc[j] += v * x[j];
            }
            for (int j = 0; j < s; j++) Y[(size_t)i * (size_t)s + (size_t)j] = acc[j];
        }
    } else {
        const float *X = Xv;
        float *Y = Yv;
#pragma omp parallel for schedule(static) if (A->nnz * s > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            float acc[MPCGI_BLOCK_MAX] = {0};
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                const float v = A->val32[k], *x = X + (size_t)A->col_idx[k] * (size_t)s;
                for (int j = 0; j < s; j++) acc[j] += v * x[j];
            }
            for (int j = 0; j < s; j++) Y[(size_t)i * (size_t)s + (size_t)j] = acc[j];
        }
    }
    return MPCG_SUCCESS;
}

static void cpu_destroy(mpcg_context *ctx, void *impl) { (void)ctx, (void)impl; }

static void cpu_describe(const void *impl, char *buf, size_t size)
{
    (void)impl;
    snprintf(buf, size, "CSR: int64 row pointers, int32 column indices, fp64 values");
}

const struct mpcgi_spmv_ops mpcgi_spmv_cpu = {
    .name = "cpu",
    .description = "OpenMP CSR on the host (the reference)",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_DETERMINISTIC,
    .analyze = cpu_analyze,
    .update_values = cpu_update_values,
    .apply_host = cpu_apply_host,
    .destroy = cpu_destroy,
    .describe = cpu_describe,
    .apply_block_host = cpu_apply_block_host,
};
