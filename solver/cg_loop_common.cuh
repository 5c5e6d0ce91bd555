/* solver/cg_loop_common.cuh: what the persistent CG loops share (solver/cg_persistent.cu,
 * solver/cg_loop2.cu): the block sums in a fixed order, the cooperative launch's SM count */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CG_LOOP_COMMON_CUH
#define MPCG_SOLVER_CG_LOOP_COMMON_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "core/cg_device.cuh"
#include "solver/cg_persistent.h"
#include "solver/cg_rows_dispatch.cuh"

namespace cg = cooperative_groups;

/*
 * Every block keeps its own copy of the scalars and all blocks compute the same bits: each adds
 * the per-block partials in the same fixed order and takes the same decisions. Vectors written
 * during a launch are read through L2 (__ldcg) or by plain loads after a grid barrier, never
 * through L1's non-coherent or the read-only path.
 *
 * T is the type of the vectors and the matrix values (the functor's value_type), X the
 * iterate's (solver/cg_persistent.h: double, double in fp64; float, float in fp32; float,
 * double in a mixed solve). Scalars and sums are double; alpha and beta are rounded to T where
 * they multiply a T vector and alpha to X for x, as core/cg_kernels.cu's kernels do.
 */

/* ---------------------------------------------------------------- sums in a fixed order */

static __device__ __forceinline__ double lsum_warp(double v)
{
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, s);
    return v;
}

/* v over the block, valid in warp 0: a butterfly per warp, then warp 0 adds the warp sums by a
 * butterfly (zeros past the last warp). Every thread calls it. */
static __device__ double lsum_block(double v, double *sh)
{
    v = lsum_warp(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    double p = 0;
    if (threadIdx.x < 32) p = lsum_warp(threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0);
    __syncthreads();
    return p;
}

/* The sum of part[0 .. count) in a fixed order, the same in every block; every thread gets it. */
static __device__ double partials_sum(const double *part, int count, double *sh, double *bcast)
{
    double t = 0;
    for (int j = threadIdx.x; j < count; j += blockDim.x)
        t += __ldcg(part + j);
    t = lsum_block(t, sh);
    if (threadIdx.x == 0) *bcast = t;
    __syncthreads();
    t = *bcast;
    __syncthreads(); /* bcast is free again */
    return t;
}

static int coop_sms(int device)
{
    int coop = 0, sms = 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return coop ? sms : 0;
}

/* Dynamic shared memory of the single-reduction loop in precision prec: rb rows of x, four
 * vectors, a length and `width` entries (loop1_carve). fp32 records are half the fp64 ones. */
#endif /* MPCG_SOLVER_CG_LOOP_COMMON_CUH */
