/* spmv/cusparse/mixed.cu: the cusparse backend's mixed apply, y = (hi + lo) x in fp64 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <climits>
#include <cuda_runtime.h>

#include "core/launch.cuh"
#include "spmv/cusparse/mixed.h"

/*
 * Why a kernel of our own: cuSPARSE's SpMV takes one value type for the matrix and the vectors
 * (or fp32 values with an fp32 compute type); two fp32 SpMVs (hi x and lo x) with conversions
 * would round x to fp32 and read the columns twice. This kernel reads 8 bytes of values (hi and
 * lo, two coalesced streams) and 4 of column per nonzero, as an fp64 CSR SpMV does, and is the
 * plain CSR-vector kernel (spmv/csr_rows.cuh's order). It serves the fp64 residuals of the
 * mixed solvers (a few SpMVs per solve), not the inner iterations (cuSPARSE's fp32 SpMV on hi).
 * Bytes per SpMV: 12 per nonzero + 4 per row pointer + 8 per row for y, x gathered.
 */
#define MIXED_BLOCK 256

template <int NT>
static __global__ void __launch_bounds__(MIXED_BLOCK)
    mixed_kernel(int64_t n, const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col,
                 const float *__restrict__ hi, const float *__restrict__ lo,
                 const double *__restrict__ x, double *__restrict__ y)
{
    mpcgi_pdl_start();
    const int lane = threadIdx.x & (NT - 1);
    const int64_t i = ((int64_t)blockIdx.x * MIXED_BLOCK + threadIdx.x) / NT;
    int b = 0, e = 0;
    if (i < n) b = __ldg(row_ptr + i), e = __ldg(row_ptr + i + 1);
    double acc = 0;
    for (int k = b + lane; k < e; k += NT) {
        const double a = (double)__ldcs(hi + k) + (double)__ldcs(lo + k);
        acc = fma(a, __ldg(x + __ldcs(col + k)), acc);
    }
#pragma unroll
    for (int s = NT / 2; s > 0; s >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, s, NT);
    if (lane == 0 && i < n) y[i] = acc;
}

template <int NT>
static cudaError_t launch(void *stream, int64_t n, const int32_t *row_ptr, const int32_t *col,
                          const float *hi, const float *lo, const double *x, double *y)
{
    const int64_t grid = (n * NT + MIXED_BLOCK - 1) / MIXED_BLOCK;
    if (grid < 1) return cudaSuccess; /* no rows */
    if (grid > INT_MAX) return cudaErrorInvalidValue;
    return mpcgi_launch(mixed_kernel<NT>, (unsigned)grid, MIXED_BLOCK, stream, n, row_ptr, col,
                        hi, lo, x, y);
}

extern "C" int mpcgi_cusparse_mixed_spmv(void *stream, int64_t n, int nt, const int32_t *row_ptr,
                                         const int32_t *col, const float *hi, const float *lo,
                                         const double *x, double *y)
{
    switch (nt) {
    case 1: return (int)launch<1>(stream, n, row_ptr, col, hi, lo, x, y);
    case 2: return (int)launch<2>(stream, n, row_ptr, col, hi, lo, x, y);
    case 4: return (int)launch<4>(stream, n, row_ptr, col, hi, lo, x, y);
    case 8: return (int)launch<8>(stream, n, row_ptr, col, hi, lo, x, y);
    case 16: return (int)launch<16>(stream, n, row_ptr, col, hi, lo, x, y);
    default: return (int)launch<32>(stream, n, row_ptr, col, hi, lo, x, y);
    }
}
