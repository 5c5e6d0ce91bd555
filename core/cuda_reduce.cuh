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
