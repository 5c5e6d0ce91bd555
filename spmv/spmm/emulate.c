/* spmv/spmm/emulate.c: the CPU emulation of the SpMM kernel's sums (spmv/spmm/spmm.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stddef.h>

#include "core/block.h"
#include "spmv/spmm/spmm.h"

/*
 * Each Y[i s + j] from 0 by acc = fma(a_ik, X[k s + j], acc) over row i's nonzeros in storage
 * order, as every lane of the kernel sums its columns: the same bits. The rows are independent,
 * so the thread count does not change them.
 */

void mpcgi_spmm_emulate_f64(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                            const double *val, int s, const double *X, double *Y)
{
    const size_t w = (size_t)s;
#pragma omp parallel for schedule(static) if (row_ptr[n] * s > 65536)
    for (int64_t i = 0; i < n; i++) {
        double acc[MPCGI_BLOCK_MAX] = {0};
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            const double a = val[k], *x = X + (size_t)col_idx[k] * w;
            for (int j = 0; j < s; j++) acc[j] = fma(a, x[j], acc[j]);
        }
        for (int j = 0; j < s; j++) Y[(size_t)i * w + (size_t)j] = acc[j];
    }
}

void mpcgi_spmm_emulate_f32(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                            const float *val, int s, const float *X, float *Y)
{
    const size_t w = (size_t)s;
#pragma omp parallel for schedule(static) if (row_ptr[n] * s > 65536)
    for (int64_t i = 0; i < n; i++) {
        float acc[MPCGI_BLOCK_MAX] = {0};
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            const float a = val[k], *x = X + (size_t)col_idx[k] * w;
            for (int j = 0; j < s; j++) acc[j] = fmaf(a, x[j], acc[j]);
        }
        for (int j = 0; j < s; j++) Y[(size_t)i * w + (size_t)j] = acc[j];
    }
}
