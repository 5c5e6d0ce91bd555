/* core/ts_device.cuh: device pieces shared by the tall-skinny kernels (core/tsgemm.cu,
 * core/block_pass.cu): staging rows into shared memory asynchronously, and the deterministic
 * cross-block sum of the thread blocks' partial products */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_TS_DEVICE_CUH
#define MPCG_CORE_TS_DEVICE_CUH

#include <cuda_pipeline.h>

#include "core/block_kernels.h"

/* count values src[0 .. count) to shared dst[0 .. count), asynchronously (cp.async; the caller
 * commits and waits): 16-byte pieces where VEC (src and dst 16-byte aligned), single values
 * otherwise; the tail of a VEC copy that is not a whole piece is loaded directly. */
template <typename T, bool VEC>
static __device__ __forceinline__ void ts_stage_copy(T *dst, const T *src, int count)
{
    if (VEC) {
        constexpr int W = 16 / sizeof(T);
        const int nv = count / W;
        for (int v = threadIdx.x; v < nv; v += blockDim.x)
            __pipeline_memcpy_async(dst + v * W, src + v * W, 16);
        for (int e = nv * W + threadIdx.x; e < count; e += blockDim.x)
            dst[e] = src[e];
    } else {
        for (int e = threadIdx.x; e < count; e += blockDim.x)
            __pipeline_memcpy_async(dst + e, src + e, sizeof(T));
    }
}

/* A thread's E x E accumulators, zeroed. */
template <int E> static __device__ __forceinline__ void ts_zero_tile(double (&acc)[E][E])
{
#pragma unroll
    for (int i = 0; i < E; i++)
#pragma unroll
        for (int k = 0; k < E; k++)
            acc[i][k] = 0.0;
}

/* Whether this thread block counts last of `count` on *ticket (all threads get the answer);
 * every thread fenced its writes before. */
static __device__ __forceinline__ bool ts_counts_last(int *ticket, int count)
{
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1) == count - 1;
    __syncthreads();
    if (last) __threadfence(); /* the others' writes are read after their counts */
    return last;
}

/* out[o] = sum of in[k st + o], k = 0 .. count - 1 in order, for o < st. */
static __device__ __forceinline__ void ts_sum_in_order(const double *in, int count, int st,
                                                       double *out)
{
    for (int o = threadIdx.x; o < st; o += blockDim.x) {
        double acc = 0.0;
        for (int k = 0; k < count; k++)
            acc += __ldcg(in + (size_t)k * st + o);
        out[o] = acc;
    }
}

/* This block's partial (st doubles) is in part[blockIdx.x st ..]: the last block of each group
 * of MPCGI_TS_GROUP consecutive blocks adds the group's partials in block order into
 * gpart[group]; the last group to finish adds the groups' sums in group order into C. tickets:
 * groups + 1 counters, zero at the launch. */
static __device__ void ts_deterministic_sum(const double *part, double *gpart, int *ticket,
                                            int blocks, int st, double *C)
{
    const int groups = (blocks + MPCGI_TS_GROUP - 1) / MPCGI_TS_GROUP;
    const int grp = blockIdx.x / MPCGI_TS_GROUP, first = grp * MPCGI_TS_GROUP;
    const int members = blocks - first < MPCGI_TS_GROUP ? blocks - first : MPCGI_TS_GROUP;
    __threadfence();
    if (!ts_counts_last(ticket + grp, members)) return;
    ts_sum_in_order(part + (size_t)first * st, members, st, gpart + (size_t)grp * st);
    __threadfence();
    if (!ts_counts_last(ticket + groups, groups)) return;
    ts_sum_in_order(gpart, groups, st, C);
}

#endif /* MPCG_CORE_TS_DEVICE_CUH */
