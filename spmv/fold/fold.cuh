/* spmv/fold/fold.cuh: the fold backend's SpMV kernels (the Fold method): one thread per (sub-)row
 * of the folded, slot-major ELL layout, then the pieces of folded rows added on the GPU; included
 * by spmv/fold/spmv_f64.cu, _f32.cu, _mixed.cu and _dot_f64.cu, one instance set each */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_FOLD_CUH
#define MPCG_SPMV_FOLD_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "core/cuda_reduce.cuh"
#include "core/launch.cuh"
#include "spmv/fold/kernels.h"

/*
 * Thread p < np sums its F slots, acc = fma(value, x[col], acc) for k = 0 .. F - 1, the loads
 * of slot k of consecutive threads consecutive (slot-major: k np + p), no branch in the loop
 * (padding slots hold 0 and a column the thread reads anyway). Thread p < n writes y[p] (the
 * whole row, or a folded row's first piece); threads n .. n + pieces - 1 write their piece's
 * sum to the workspace, and fold_fixup_kernel adds each folded row's pieces to y, one warp a
 * row: lane l sums pieces l, l + 32, ... in order, then a fixed shuffle tree. Every sum has a
 * fixed order (the same bits from run to run); the CPU emulation (spmv/fold/layout.c) repeats
 * the operations with C's fma.
 *
 * apply_dot: each block of the SpMV sums x_p y_p of its rows that are not folded (fixed order:
 * butterflies, then warp 0) into part[block]; the fixup adds x_i y_i of each folded row to
 * fpart[j], and its last block sums part and fpart (mpcgi_last_block_sum); where no row is
 * folded, fold_dot_finish_kernel's one block of MPCGI_FOLD_FINISH_THREADS sums part alone.
 */

namespace fold {

constexpr unsigned FULL = 0xffffffffu;

/* A stored value in the arithmetic type: fp64, fp32, or hi + lo of the mixed storage. */
template <typename T, typename S, bool LO>
static __device__ __forceinline__ T value(const S *val, const float *lo, int64_t i)
{
    if constexpr (LO) return __dadd_rn((double)__ldcs(val + i), (double)__ldcs(lo + i));
    else return (T)__ldcs(val + i);
}

static __device__ __forceinline__ double fma_rn(double a, double b, double c)
{
    return __fma_rn(a, b, c);
}
static __device__ __forceinline__ float fma_rn(float a, float b, float c)
{
    return __fmaf_rn(a, b, c);
}

/* apply_dot's partial sum of a block of MPCGI_FOLD_THREADS threads (thread p, its row sum acc):
 * x_p acc over its rows that are not folded, butterflies, then warp 0, into part[b]. Every
 * thread of the block calls it. */
template <typename T>
static __device__ __forceinline__ void block_part(const mpcgi_fold_args &a, int64_t p,
                                                  const T *x, T acc, double *part, int64_t b)
{
    __shared__ double dsum[MPCGI_FOLD_THREADS / 32];
    const int t = threadIdx.x;
    double d = 0;
    if (p < a.n && !(a.fbits[p >> 5] >> (p & 31) & 1)) d = (double)x[p] * (double)acc;
#pragma unroll
    for (int o = 16; o >= 1; o /= 2) d += __shfl_xor_sync(FULL, d, o);
    if ((t & 31) == 0) dsum[t >> 5] = d;
    __syncthreads();
    if (t < 32) {
        double u = t < MPCGI_FOLD_THREADS / 32 ? dsum[t] : 0.0;
#pragma unroll
        for (int o = 16; o >= 1; o /= 2) u += __shfl_xor_sync(FULL, u, o);
        if (t == 0) part[b] = u;
    }
}

/* XG (the gather backend's direct kernel): x[col] comes pre-gathered in slot order, xg. */
template <typename T, typename S, bool LO, bool DOT, bool XG>
static __global__ void __launch_bounds__(MPCGI_FOLD_THREADS)
    fold_kernel(const __grid_constant__ mpcgi_fold_args a, const S *__restrict__ val,
                const float *__restrict__ lo, const T *__restrict__ x,
                const T *__restrict__ xg, T *__restrict__ y, T *__restrict__ piece,
                double *__restrict__ part, const int *skip)
{
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    const int64_t p = (int64_t)blockIdx.x * MPCGI_FOLD_THREADS + threadIdx.x, np = a.np;
    T acc = T(0);
    if (p < np) {
#pragma unroll 4
        for (int k = 0; k < a.F; k++) {
            const int64_t i = (int64_t)k * np + p;
            const T xv = XG ? __ldcs(xg + i) : __ldg(x + __ldcs(a.col + i));
            acc = fma_rn(value<T, S, LO>(val, lo, i), xv, acc);
        }
        if (p < a.n) y[p] = acc;
        else if (p < a.n + a.pieces) piece[p - a.n] = acc;
    }
    if constexpr (DOT) block_part(a, p, x, acc, part, blockIdx.x);
}

/* Folded row j (one warp): y[i] += its pieces' sums; with DOT x_i y_i to fpart[j], and the last
 * block sums part[0 .. blocks) and fpart[0 .. m) (contiguous) into *dot. */
template <typename T, bool DOT>
static __global__ void __launch_bounds__(MPCGI_THREADS)
    fold_fixup_kernel(const __grid_constant__ mpcgi_fold_args a, const T *__restrict__ piece,
                      const T *__restrict__ x, T *__restrict__ y, double *part, int64_t blocks,
                      double *dot, const int *skip)
{
    __shared__ double sums[MPCGI_THREADS];
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    const int lane = threadIdx.x & 31;
    const int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (j < a.folded) {
        const int64_t i = a.fold_row[j], b = a.fold_ptr[j], e = a.fold_ptr[j + 1];
        T acc = T(0);
        for (int64_t q = b + lane; q < e; q += 32) acc = acc + piece[q];
#pragma unroll
        for (int off = 16; off >= 1; off /= 2) acc = acc + __shfl_down_sync(FULL, acc, off);
        if (lane == 0) {
            const T yi = y[i] + acc;
            y[i] = yi;
            if constexpr (DOT) {
                part[blocks + j] = (double)x[i] * (double)yi;
                __threadfence(); /* visible before this block is counted */
            }
        }
    }
    if constexpr (DOT) mpcgi_last_block_sum(part, blocks + a.folded, a.arrived, dot, sums);
}

/* apply_dot's second level where no row is folded: one block sums the SpMV blocks' partials
 * into *dot (mpcgi_one_block_sum). */
static __global__ void __launch_bounds__(MPCGI_FOLD_FINISH_THREADS)
    fold_dot_finish_kernel(const double *part, int64_t blocks, double *dot, const int *skip)
{
    mpcgi_pdl_start();
    if (skip && *skip) return;
    mpcgi_one_block_sum<MPCGI_FOLD_FINISH_THREADS>(part, blocks, dot);
}

/* The gather backend's accelerator: xg[i] = x[col[i]] for every slot i < F np. */
template <typename T>
static __global__ void gather_kernel(const __grid_constant__ mpcgi_fold_args a,
                                     const T *__restrict__ x, T *__restrict__ xg)
{
    mpcgi_pdl_start();
    const int64_t slots = (int64_t)a.F * a.np;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < slots;
         i += (int64_t)gridDim.x * blockDim.x)
        xg[i] = __ldg(x + __ldcs(a.col + i));
}

template <typename T>
static int gather(const mpcgi_fold_args *a, const T *x, T *xg)
{
    const int64_t slots = (int64_t)a->F * a->np;
    return (int)mpcgi_launch(gather_kernel<T>, mpcgi_blocks_for(slots, 256), 256, a->stream, *a,
                             x, xg);
}

/* The SpMV (with xg: the direct kernel on pre-gathered x), then (folded rows, or a dot to
 * finish) the fixup. ws: pieces values of T, then the partial dots (8-byte aligned: the pieces'
 * region is rounded up). */
/* The fixup alone (after fold_kernel or the out-of-core chunks): with DOT, or where rows are
 * folded. part: the blocks' partial dots, then the folded rows'. */
template <typename T, bool DOT>
static int fixup(const mpcgi_fold_args *a, const T *piece, const T *x, T *y, double *part,
                 double *dot, const int *skip)
{
    if (!DOT && a->folded == 0) return (int)cudaSuccess;
    if (DOT && a->folded == 0) /* the partials' sum alone: one block of more threads */
        return (int)mpcgi_launch(fold_dot_finish_kernel, 1, MPCGI_FOLD_FINISH_THREADS, a->stream,
                                 (const double *)part, mpcgi_fold_blocks(a->np), dot, skip);
    const int64_t warps = a->folded > 0 ? a->folded : 1;
    const unsigned fb = (unsigned)((warps + MPCGI_THREADS / 32 - 1) / (MPCGI_THREADS / 32));
    return (int)mpcgi_launch(fold_fixup_kernel<T, DOT>, fb, MPCGI_THREADS, a->stream, *a, piece,
                             x, y, part, mpcgi_fold_blocks(a->np), dot, skip);
}

/* The workspace: the pieces' sums (T), then the partial dots (8-byte aligned). */
template <typename T>
static double *parts_of(const mpcgi_fold_args *a, void *ws)
{
    return (double *)ws + (a->pieces * (int64_t)sizeof(T) + 7) / 8;
}

template <typename T, typename S, bool LO, bool DOT, bool XG = false>
static int launch(const mpcgi_fold_args *a, const S *val, const float *lo, const T *x, T *y,
                  void *ws, double *dot, const int *skip, const T *xg = nullptr)
{
    T *piece = (T *)ws;
    double *part = parts_of<T>(a, ws);
    cudaError_t e = mpcgi_launch(fold_kernel<T, S, LO, DOT, XG>,
                                 (unsigned)mpcgi_fold_blocks(a->np), MPCGI_FOLD_THREADS,
                                 a->stream, *a, val, lo, x, xg, y, piece, part, skip);
    if (e != cudaSuccess) return (int)e;
    return fixup<T, DOT>(a, piece, x, y, part, dot, skip);
}

} /* namespace fold */

#endif /* MPCG_SPMV_FOLD_CUH */
