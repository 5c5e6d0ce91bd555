/* core/cuda_reduce.cuh: grid sizing and the fixed-order block sum of the deterministic kernels */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CUDA_REDUCE_CUH
#define MPCG_CORE_CUDA_REDUCE_CUH

#include <stdint.h>

/* Threads per block of the vector kernels (core/vec_cuda.cu, core/cg_kernels.cu); the block
 * sum assumes a power of two. */
#define MPCGI_THREADS 256
static_assert((MPCGI_THREADS & (MPCGI_THREADS - 1)) == 0, "MPCGI_THREADS: a power of two");

/* Blocks to cover n entries, at least 1 and at most `most`: a function of n alone, so a
 * reduction over that grid adds in the same order on every run. */
static inline unsigned mpcgi_grid_for(int64_t n, int64_t most)
{
    int64_t b = (n + MPCGI_THREADS - 1) / MPCGI_THREADS;
    return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

/* s[0] = s[0] + ... + s[MPCGI_THREADS - 1], always in the same tree order; valid in thread 0. */
static __device__ inline void mpcgi_block_sum(double *s)
{
    for (int w = MPCGI_THREADS / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    }
}

/* v summed over the block's threads (blockDim.x = B, a multiple of 32, at most 1024) in a fixed
 * order: butterflies in each warp, then warp 0 the warps' sums by butterflies; valid in thread
 * 0. One barrier where mpcgi_block_sum has one a level (docs/roofline.md: what it cost the fused
 * CG). ws: B / 32 doubles of shared memory, not in use by a previous call unless a barrier came
 * between. The dots of core/vec_cuda.cu and the fused CG's grid sums both use it, so the host
 * loop's dots and the fused kernels' agree bit for bit. */
template <int B> static __device__ __forceinline__ double mpcgi_block_sum_shfl(double v, double *ws)
{
    static_assert(B % 32 == 0 && B <= 1024, "mpcgi_block_sum_shfl: whole warps, at most 1024");
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < B / 32 ? ws[threadIdx.x] : 0.0;
#pragma unroll
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

/* part[0 .. count) summed by one block of B threads into *out (thread t adds j = t, t + B, ... in
 * order, its loads U at a time ahead of the adds; then mpcgi_block_sum_shfl): a dot's second
 * level in a kernel of its own. */
template <int B, int U = 8>
static __device__ __forceinline__ void mpcgi_one_block_sum(const double *part, int64_t count,
                                                           double *out)
{
    __shared__ double ws[B / 32];
    double acc = 0.0;
    int64_t j = threadIdx.x;
    for (; j + (int64_t)(U - 1) * B < count; j += (int64_t)U * B) {
        double v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = __ldcg(part + j + (int64_t)u * B);
#pragma unroll
        for (int u = 0; u < U; u++) acc += v[u];
    }
    for (; j < count; j += B) acc += __ldcg(part + j);
    acc = mpcgi_block_sum_shfl<B>(acc, ws);
    if (threadIdx.x == 0) *out = acc;
}

/* The block of the grid that counts last sums part[0 .. count) into *out, each thread its
 * entries j = t, t + MPCGI_THREADS, ... in order, then mpcgi_block_sum; it resets *arrived (0
 * between launches) for the next one. Every thread of every block (MPCGI_THREADS threads) calls
 * it after its block's writes to part, each writer having fenced its own (__threadfence); sh:
 * MPCGI_THREADS doubles of shared memory. */
static __device__ inline void mpcgi_last_block_sum(const double *part, int64_t count,
                                                   int *arrived, double *out, double *sh)
{
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(arrived, 1) == (int)gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence(); /* the other blocks' parts are read after their counts */
    double acc = 0;
    for (int64_t j = threadIdx.x; j < count; j += MPCGI_THREADS) acc += __ldcg(part + j);
    sh[threadIdx.x] = acc;
    mpcgi_block_sum(sh);
    if (threadIdx.x == 0) {
        *out = sh[0];
        *arrived = 0; /* ready for the next launch */
    }
}

#endif /* MPCG_CORE_CUDA_REDUCE_CUH */
