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

#endif /* MPCG_CORE_CUDA_REDUCE_CUH */
