/* spmv/adaptive_cg.cu: the adaptive backend's persistent CG loop (small systems, one launch for
 * a window of iterations) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "core/cg_device.cuh"
#include "spmv/adaptive_device.cuh"
#include "spmv/adaptive_kernels.h"

/*
 * One cooperative launch runs up to `iters` CG iterations (core/cg_kernels.h, mpcgi_cg_loop);
 * every block keeps its own copy of the scalars, and all blocks compute the same bits:
 *
 *   phase 1: for the rows of the plan's uniform path (NT lanes, R rows per group, in virtual
 *            blocks of R blockDim / NT rows strided over the grid): d_i = r_i + beta p_i written
 *            to the other p buffer, q_i = sum_j a_ij d_j with the d_j formed on the fly, and the
 *            terms d_i q_i; one partial per block                          A + 32 B per row
 *   barrier; every block adds the partials in the same order: p.q, the curvature test, alpha
 *   phase 2: x += alpha d, r -= alpha q, the terms r_i r_i; one partial per block    48 B
 *   barrier; every block adds the partials: r.r, then solver/cg.c's stop tests and beta
 *
 * A + 80 bytes per row and two grid-wide barriers per iteration, against A + 88 and four kernel
 * launches of the three-kernel iteration (solver/cg_fused.c). Each row sum is the backend's (the
 * same NT lanes, order and butterfly as apply), so q is A d to the bit; the dot partials are per
 * block of this fixed grid, so the scalars differ in the last bits from the launched kernels'
 * but are the same on every run. Vectors written during the launch are read through L2
 * (__ldcg), never through L1 or the read-only path, which are not kept coherent across blocks.
 */

#define LOOP_THREADS 512
/* At most 64 registers: two blocks of LOOP_THREADS fit an SM. */
#define LOOP_MIN_BLOCKS 2

namespace cg = cooperative_groups;

/* The sum of part[0 .. count) in a fixed order, the same in every block; every thread gets it. */
static __device__ double partials_sum(const double *part, int count, double *sh, double *bcast)
{
    double t = 0;
    for (int j = threadIdx.x; j < count; j += blockDim.x)
        t += __ldcg(part + j);
    t = block_sum<true>(t, sh);
    if (threadIdx.x == 0) *bcast = t;
    __syncthreads();
    t = *bcast;
    __syncthreads(); /* bcast is free again */
    return t;
}

template <int NT, int R, bool C16>
static __global__ void __launch_bounds__(LOOP_THREADS, LOOP_MIN_BLOCKS)
    cg_loop_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const double *__restrict__ val,
                   const __grid_constant__ mpcgi_cg_loop c)
{
    __shared__ double sh[LOOP_THREADS / 32];
    __shared__ double bcast;
    __shared__ mpcgi_cg_state s; /* this block's copy of the state */
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) s = *c.st;
    __syncthreads();
    if (s.stop) return; /* the same decision in every block */
    double *part_pq = c.partial, *part_rr = c.partial + gridDim.x;
    double *x = s.x;
    const int64_t per = (int64_t)R * (blockDim.x / NT);
    const int64_t vblocks = (L.n + per - 1) / per;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t it = 0; it < c.iters; it++) {
        double *pout = c.p[s.par ^ 1];
        /* the direction through L2, beta from this block's state (no start()) */
        const mpcgi_src_direction<true> d{c.r, c.p[s.par], pout, nullptr, s.beta};
        double dacc = 0;
        for (int64_t v = blockIdx.x; v < vblocks; v += gridDim.x)
            vblock_rows<NT, R, false, true, false, C16>(L, v * per, L.n, nullptr, val, d, c.q,
                                                        dacc);
        dacc = block_sum<true>(dacc, sh);
        if (threadIdx.x == 0) part_pq[blockIdx.x] = dacc;
        grid.sync();
        const double pq = partials_sum(part_pq, gridDim.x, sh, &bcast);
        if (threadIdx.x == 0) {
            s.pq = pq;
            s.stop = mpcgi_cg_curvature_stop(pq);
        }
        __syncthreads();
        if (s.stop) break; /* x untouched, as in solver/cg.c */
        const double alpha = s.rr / pq;
        double acc = 0;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < L.n; i += stride) {
            x[i] += alpha * __ldcg(pout + i);
            const double ri = __ldcg(c.r + i) - alpha * __ldcg(c.q + i);
            c.r[i] = ri;
            acc += ri * ri;
        }
        acc = block_sum<true>(acc, sh);
        if (threadIdx.x == 0) part_rr[blockIdx.x] = acc;
        grid.sync();
        const double rr_new = partials_sum(part_rr, gridDim.x, sh, &bcast);
        if (threadIdx.x == 0) {
            mpcgi_cg_finish_update(&s, rr_new);
            s.par ^= 1;
        }
        __syncthreads();
        if (s.stop) break;
    }
    /* every block has read the state before the first barrier; no block reads it again */
    if (blockIdx.x == 0 && threadIdx.x == 0) *c.st = s;
}

/* ---------------------------------------------------------------- launchers */

typedef void (*loop_fn)(const mpcgi_adaptive_launch, const double *, const mpcgi_cg_loop);

template <int R, bool C16> static loop_fn pick_nt(int nt)
{
    switch (nt) {
    case 1: return cg_loop_kernel<1, R, C16>;
    case 2: return cg_loop_kernel<2, R, C16>;
    case 4: return cg_loop_kernel<4, R, C16>;
    case 8: return cg_loop_kernel<8, R, C16>;
    case 16: return cg_loop_kernel<16, R, C16>;
    default: return cg_loop_kernel<32, R, C16>;
    }
}

template <bool C16> static loop_fn pick_rows(const mpcgi_adaptive_launch *L)
{
    switch (L->rows_per_group) {
    case 1: return pick_nt<1, C16>(L->nt);
    case 2: return pick_nt<2, C16>(L->nt);
    default: return pick_nt<4, C16>(L->nt);
    }
}

static loop_fn pick(const mpcgi_adaptive_launch *L)
{
    return L->col16 ? pick_rows<true>(L) : pick_rows<false>(L);
}

extern "C" {

int mpcgi_adaptive_cg_grid(const mpcgi_adaptive_launch *L, int device, int blocks_per_sm,
                           int most)
{
    int coop = 0, sms = 0, fit = 0;
    if (L->path != MPCGI_ADAPTIVE_UNIFORM) return 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, pick(L), LOOP_THREADS, 0) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (!coop || fit < 1) return 0;
    int per_sm = blocks_per_sm < fit ? blocks_per_sm : fit;
    int64_t grid = (int64_t)per_sm * sms;
    return (int)(grid < most ? grid : most);
}

int mpcgi_adaptive_cg_loop(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                           int grid, const mpcgi_cg_loop *c)
{
    mpcgi_adaptive_launch l = *L;
    mpcgi_cg_loop cc = *c;
    void *args[] = {&l, &val, &cc};
    return (int)cudaLaunchCooperativeKernel((const void *)pick(L), grid, LOOP_THREADS, args, 0,
                                            (cudaStream_t)stream);
}

} /* extern "C" */
