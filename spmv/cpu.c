/* spmv/cpu.c: the cpu backend: OpenMP CSR SpMV, the reference every GPU result is compared to */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/error.h"
#include "spmv/spmv.h"

/*
 * Bytes per SpMV: 12 per nonzero (8 value + 4 column) + 8 per row pointer + x gathered + 8 per
 * row for y (fp64); 8 per nonzero with fp32 values. Each row is summed sequentially in column
 * order, so the result does not depend on the thread count.
 */
typedef struct cpu_plan {
    const mpcgi_csr *A;
    float *val32; /* fp32 copy of the values, if fp32 was asked for */
} cpu_plan;

static void fill_val32(cpu_plan *p)
{
    for (int64_t k = 0; k < p->A->nnz; k++) p->val32[k] = (float)p->A->val[k];
}

static mpcg_status cpu_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                               void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    cpu_plan *p = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    if (precisions & MPCG_CAP_FP32) {
        MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)A->nnz, sizeof *p->val32, &p->val32));
        fill_val32(p);
    }
    sizes->bytes_matrix = (size_t)A->nnz * 12 + ((size_t)A->n + 1) * 8;
    sizes->bytes_workspace = 0;
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) {
        mpcgi_host_free(p->val32);
        mpcgi_host_free(p);
    }
    return st;
}

static mpcg_status cpu_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    (void)ctx;
    cpu_plan *p = impl;
    p->A = A;
    if (p->val32) fill_val32(p);
    return MPCG_SUCCESS;
}

static mpcg_status cpu_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                  const void *xv, void *yv)
{
    (void)ctx;
    const cpu_plan *p = impl;
    const mpcgi_csr *A = p->A;
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
    } else {
        const float *x = xv;
        float *y = yv;
#pragma omp parallel for schedule(static) if (A->nnz > 65536)
        for (int64_t i = 0; i < A->n; i++) {
            float s = 0.0f;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                s += p->val32[k] * x[A->col_idx[k]];
            y[i] = s;
        }
    }
    return MPCG_SUCCESS;
}

static void cpu_destroy(mpcg_context *ctx, void *impl)
{
    (void)ctx;
    cpu_plan *p = impl;
    mpcgi_host_free(p->val32);
    mpcgi_host_free(p);
}

const struct mpcgi_spmv_ops mpcgi_spmv_cpu = {
    .name = "cpu",
    .description = "OpenMP CSR on the host (the reference)",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_DETERMINISTIC,
    .analyze = cpu_analyze,
    .update_values = cpu_update_values,
    .apply_host = cpu_apply_host,
    .destroy = cpu_destroy,
};
