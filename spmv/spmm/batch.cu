/* spmv/spmm/batch.cu: Y_i = A_i X_i for every system of a batch in one launch (the batched SpMM
 * of the batched sparse-matrix paper: a thread block a system, a sub-warp a row, its lanes over
 * the s columns) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "spmv/spmm/batch.h"

#define THREADS 256

/*
 * Block i takes system i. The sub-warp width w is the power of two >= s, at most 32; a
 * sub-warp takes a row, lane l the columns l, l + w, ... < s; the row's entries are summed in
 * order with one fma each, so a column's value is the host's (spmv/spmm/batch.c) bit for bit.
 * The blocks of X and Y are row-major (a row's s values contiguous): the lanes of a sub-warp
 * read and write consecutive values.
 */
static __global__ void __launch_bounds__(THREADS)
    batch_spmm_kernel(const int64_t *off, const int64_t *ptr, const int32_t *col, const double *val,
                      int s, int w, const double *X, double *Y)
{
    const int64_t o = off[blockIdx.x], n = off[blockIdx.x + 1] - o;
    const int lane = threadIdx.x % w, rows_at_once = THREADS / w;
    const double *Xi = X + o * s;
    for (int64_t r = threadIdx.x / w; r < n; r += rows_at_once) {
        const int64_t e0 = ptr[o + r], e1 = ptr[o + r + 1];
        for (int c = lane; c < s; c += w) {
            double acc = 0.0;
            for (int64_t e = e0; e < e1; e++)
                acc = __fma_rn(__ldg(val + e), Xi[(int64_t)__ldg(col + e) * s + c], acc);
            Y[(o + r) * s + c] = acc;
        }
    }
}

extern "C" int mpcgi_batch_spmm_launch(void *stream, int64_t k, const int64_t *off,
                                       const int64_t *ptr, const int32_t *col, const double *val,
                                       int s, const double *X, double *Y)
{
    if (k <= 0) return (int)cudaSuccess;
    int w = 1;
    while (w < s && w < 32)
        w *= 2;
    batch_spmm_kernel<<<(unsigned)k, THREADS, 0, (cudaStream_t)stream>>>(off, ptr, col, val, s, w,
                                                                         X, Y);
    return (int)cudaGetLastError();
}
