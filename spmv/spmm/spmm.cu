/* spmv/spmm/spmm.cu: the CSR SpMM kernel, one sub-warp per row (the SWA-CSR mapping of the
 * batched sparse-matrix paper), fp64 and fp32 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/launch.cuh"
#include "spmv/spmm/spmm.h"

/* Mapping, order and bytes: spmv/spmm/spmm.h. */

#define SPMM_BLOCK 256 /* threads per block: whole warps, so a sub-warp never spans two */

/* a x + b rounded once (the emulation's fma and fmaf) */
static __device__ __forceinline__ double fma_rn(double a, double x, double b)
{
    return __fma_rn(a, x, b);
}
static __device__ __forceinline__ float fma_rn(float a, float x, float b)
{
    return __fmaf_rn(a, x, b);
}

/* Lane t's value of the sub-warp (width SUB, t < SUB) to every lane of it. */
template <int SUB, typename V>
static __device__ __forceinline__ V from_lane(unsigned mask, V v, int t)
{
    if constexpr (SUB == 1)
        return v;
    else
        return __shfl_sync(mask, v, t, SUB);
}

/* C = columns per lane (ceil(s / SUB)); rows in a grid-stride loop, a sub-warp per row. Every
 * lane of a sub-warp runs the same trip counts (the row is the sub-warp's), so the shuffles see
 * their whole sub-warp; lanes with j >= s take part but do not accumulate. */
template <typename T, int SUB, int C>
static __global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                const int32_t *__restrict__ col_idx, const T *__restrict__ val, int s,
                const T *__restrict__ X, T *__restrict__ Y)
{
    mpcgi_pdl_start();
    const int lane = (int)(threadIdx.x & (SUB - 1));
    const int wl = (int)(threadIdx.x & 31);
    const unsigned mask =
        SUB == 32 ? 0xffffffffu : ((1u << (SUB & 31)) - 1u) << (wl & ~(SUB - 1));
    const int64_t rows_per_grid = (int64_t)gridDim.x * (SPMM_BLOCK / SUB);
    for (int64_t i = ((int64_t)blockIdx.x * SPMM_BLOCK + threadIdx.x) / SUB; i < n;
         i += rows_per_grid) {
        const int64_t start = row_ptr[i], end = row_ptr[i + 1];
        T acc[C];
#pragma unroll
        for (int c = 0; c < C; c++) acc[c] = T(0);
        for (int64_t base = start; base < end; base += SUB) {
            const int64_t k = base + lane;
            int32_t my_col = 0;
            T my_val = T(0);
            if (k < end) {
                my_col = col_idx[k];
                my_val = val[k];
            }
            const int cnt = end - base < SUB ? (int)(end - base) : SUB;
            for (int t = 0; t < cnt; t++) {
                const int32_t col = from_lane<SUB>(mask, my_col, t);
                const T a = from_lane<SUB>(mask, my_val, t);
                const T *x = X + (size_t)col * (size_t)s;
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const int j = lane + c * SUB;
                    if (j < s) acc[c] = fma_rn(a, x[j], acc[c]);
                }
            }
        }
        T *y = Y + (size_t)i * (size_t)s;
#pragma unroll
        for (int c = 0; c < C; c++) {
            const int j = lane + c * SUB;
            if (j < s) y[j] = acc[c];
        }
    }
}

template <typename T, int SUB, int C>
static cudaError_t launch(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                          const T *val, int s, const T *X, T *Y)
{
    const unsigned grid = mpcgi_blocks_for(n, SPMM_BLOCK / SUB);
    return mpcgi_launch(spmm_kernel<T, SUB, C>, grid, SPMM_BLOCK, stream, n, row_ptr, col_idx,
                        val, s, X, Y);
}

/* The instance for s: SUB = mpcgi_spmm_sub(s), C = 1, or 2 past 32 vectors. */
template <typename T>
static int spmm(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                const T *val, int s, const T *X, T *Y)
{
    if (n <= 0) return (int)cudaSuccess;
    cudaError_t e = cudaErrorInvalidValue;
    switch (mpcgi_spmm_sub(s)) {
    case 1: e = launch<T, 1, 1>(stream, n, row_ptr, col_idx, val, s, X, Y); break;
    case 2: e = launch<T, 2, 1>(stream, n, row_ptr, col_idx, val, s, X, Y); break;
    case 4: e = launch<T, 4, 1>(stream, n, row_ptr, col_idx, val, s, X, Y); break;
    case 8: e = launch<T, 8, 1>(stream, n, row_ptr, col_idx, val, s, X, Y); break;
    case 16: e = launch<T, 16, 1>(stream, n, row_ptr, col_idx, val, s, X, Y); break;
    default:
        if (s <= 32) e = launch<T, 32, 1>(stream, n, row_ptr, col_idx, val, s, X, Y);
        else if (s <= 64) e = launch<T, 32, 2>(stream, n, row_ptr, col_idx, val, s, X, Y);
        break;
    }
    const cudaError_t last = cudaGetLastError(); /* read, so the slot is clear */
    return (int)(e != cudaSuccess ? e : last);
}

extern "C" {

int mpcgi_spmm_csr_f64(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                       const double *val, int s, const double *X, double *Y)
{
    return spmm<double>(stream, n, row_ptr, col_idx, val, s, X, Y);
}

int mpcgi_spmm_csr_f32(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                       const float *val, int s, const float *X, float *Y)
{
    return spmm<float>(stream, n, row_ptr, col_idx, val, s, X, Y);
}

} /* extern "C" */
