/* spmv/adaptive_device.cuh: the row sums of the adaptive backend, shared by its SpMV kernels
 * (spmv/adaptive.cu) and its persistent CG loop (spmv/adaptive_cg.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_DEVICE_CUH
#define MPCG_SPMV_ADAPTIVE_DEVICE_CUH

#include <stdint.h>

/*
 * Every row sum is formed the same way wherever it runs (spmv/adaptive.c emulates it):
 *   - a short row is summed by a group of NT lanes of one warp (NT = 1 ... 32): lane l adds
 *     entries start + l, start + l + NT, ... with fused multiply-adds from 0, then a butterfly
 *     a_l <- a_l + a_(l xor s), s = NT/2 ... 1, leaves the sum in every lane;
 *   - a long row is cut into chunks of `chunk` nonzeros, one virtual block each: thread t adds
 *     entries t, t + blockDim, ... of its chunk, a 32-lane butterfly per warp, thread 0 adds the
 *     warp sums in warp order, and the chunk sums are added in chunk order by the block that
 *     finishes last (an integer counter says which; no floating-point atomics anywhere).
 * Bytes per fp64 SpMV: 12 per nonzero (value + column), 4 per row pointer, 8 per row for y, x
 * gathered through the read-only path; the binned kernel adds 4 per row for the row list.
 */

#define FULL_MASK 0xffffffffu

/*
 * Where the x of an SpMV comes from. The row sums read x_j as src(j); the fused dot reads x_i of
 * its own row once the row is summed and hands it back with src.keep(i, x_i); src.start() runs
 * once per kernel, before any of it. Both sources read through the read-only path: nothing they
 * read is written while the kernel runs. (Prefetching x_i into L1 before the row sum made the
 * fused dot 5 % slower on poisson3d:256 and changed nothing on poisson3d:128 and 27:96.)
 */

template <typename T> struct mpcgi_src_x { /* x itself */
    const T *__restrict__ x;
    __device__ __forceinline__ void start() {}
    __device__ __forceinline__ T operator()(int j) const { return __ldg(x + j); }
    __device__ __forceinline__ void keep(int, T) const {}
};

/* The CG direction formed on the fly: x_j = r_j + beta p_j (one fused multiply-add, as the
 * separate p update of core/cg_kernels.cu), beta read from the device at start; keep stores the
 * row's x_i in p_out, so p_out holds the direction after the SpMV. */
struct mpcgi_src_direction {
    const double *__restrict__ r, *__restrict__ p;
    double *__restrict__ p_out;
    const double *beta_dev;
    double beta;
    __device__ __forceinline__ void start() { beta = *beta_dev; }
    __device__ __forceinline__ double operator()(int j) const
    {
        return fma(beta, __ldg(p + j), __ldg(r + j));
    }
    __device__ __forceinline__ void keep(int i, double d) const { p_out[i] = d; }
};

static __device__ __forceinline__ double fmadd(double a, double b, double c)
{
    return fma(a, b, c);
}
static __device__ __forceinline__ float fmadd(float a, float b, float c)
{
    return fmaf(a, b, c);
}

/* Matrix data is read once per SpMV: evict-first (streaming) loads keep x in the caches. */
template <bool STREAM, typename T> static __device__ __forceinline__ T load_matrix(const T *p)
{
    if (STREAM) return __ldcs(p);
    return __ldg(p);
}

/* R rows at once by a group of NT lanes (see the top comment): lane l adds the entries l,
 * l + NT, ... of each row in order, two strides per round with every load of the round issued
 * before its multiply-adds (R x 2 independent loads in flight per lane); a butterfly per row
 * then leaves the sums in every lane. All 32 lanes of the warp call it; a group without a row
 * passes len = 0; x(j) gives x_j (a source above, or a loader that forms x_j). An entry past a
 * row's end is skipped, not added as 0 (that keeps -0 sums). */
template <int NT, int R, bool STREAM, typename T, typename X>
static __device__ __forceinline__ void
rows_sum(const int (&start)[R], const int (&len)[R], int lane, const int32_t *__restrict__ col,
         const T *__restrict__ val, const X &x, T (&acc)[R])
{
    int most = 0;
#pragma unroll
    for (int r = 0; r < R; r++)
        acc[r] = 0, most = len[r] > most ? len[r] : most;
    for (int o = lane; o < most; o += 2 * NT) {
        T a[R][2], b[R][2];
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int k = o + u * NT;
                a[r][u] = 0, b[r][u] = 0;
                if (k < len[r]) {
                    a[r][u] = load_matrix<STREAM>(val + start[r] + k);
                    b[r][u] = x(load_matrix<STREAM>(col + start[r] + k));
                }
            }
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++)
                if (o + u * NT < len[r]) acc[r] = fmadd(a[r][u], b[r][u], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int s = NT / 2; s > 0; s >>= 1)
            acc[r] += __shfl_xor_sync(FULL_MASK, acc[r], s, NT);
}

/* v summed over the block: a butterfly in each warp, then thread 0 adds the warp sums in warp
 * order. The result is valid in thread 0. Every thread of the block calls it. */
template <typename T> static __device__ T block_sum(T v, T *sh)
{
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, s);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    T p = 0;
    if (threadIdx.x == 0) {
        p = sh[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); w++)
            p += sh[w];
    }
    __syncthreads();
    return p;
}

#endif /* MPCG_SPMV_ADAPTIVE_DEVICE_CUH */
