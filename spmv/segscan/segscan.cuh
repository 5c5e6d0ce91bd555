/* spmv/segscan/segscan.cuh: the segscan backend's SpMV kernel (the segmented-scan SpMV): segments
 * of L nonzeros, one block each, V nonzeros a thread, a segmented reduction in the block, then the
 * carries of rows that cross segments; included by spmv/segscan/spmv_f64.cu, _f32.cu, _mixed.cu
 * and _dot_f64.cu, one instance set each */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_SEGSCAN_CUH
#define MPCG_SPMV_SEGSCAN_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "core/cuda_reduce.cuh"
#include "core/launch.cuh"
#include "spmv/segscan/kernels.h"

/*
 * Segment s holds nonzeros [s L, s L + L) of the CSR arrays as they are. hb[s]
 * (segscan_heads_kernel) is the first row whose head row_ptr[r] is >= s L; rows [hb[s],
 * hb[s + 1]) have their heads in segment s (the last segment also owns the trailing empty
 * rows). A run is one row's stretch inside one segment; it starts at a row head or at the
 * segment's start.
 *
 * Block s has NT = L / V threads. The products are loaded striped (thread t: positions j NT + t,
 * so a warp's load covers 32 consecutive nonzeros: coalesced, and x gathered for neighbouring
 * rows together) into shared memory, then read blocked: thread t takes positions t V .. t V +
 * V - 1 (the slots are padded so that both patterns are free of bank conflicts).
 *
 * The scan reduction (INDEX = false): the heads are bits in shared memory (set from the
 * segment's rows, with the end of the nonzeros and the segment's end: every run ends before a
 * set bit). Then
 *   1. t's tail: the sum of its last run's part in its chunk, left to right, and whether the
 *      chunk holds a head;
 *   2. a segmented exclusive scan of the tails over the block: Hillis-Steele with shuffles in
 *      each warp, the same over the warps' totals in warp 0; t's carry-in is the open run's sum
 *      from the threads before it (no artificial zero is ever added);
 *   3. t walks its chunk again from the carry-in and stores each run's sum at the run's last
 *      position (the position before a head, or the segment's last).
 * The paper's index tree (INDEX = true, V = 1, L threads): idx[k] is k's offset in its run; for
 * c = L/2 .. 1 every element with c <= idx < 2c adds itself to the element c before it (a
 * binomial tree: no element sends and receives in one step); a run's sum lands at its first
 * position.
 *
 * Then each row with its head here writes y[r] (0 for an empty row; its head segment's part for
 * a row that goes on), and the run that continues a row from an earlier segment writes the
 * segment's carry; fixup_kernel adds each crossing row's carries to y[r], in segment order.
 * (Finishing those rows in the kernel itself, by the block that counts last after a fence, is
 * slower: the fence and the count lengthen every block; docs/backends/segscan.md, "The
 * method".) Every sum has a fixed order, so the bits do not vary from run to run; products use
 * __dmul_rn / __fmul_rn so that no multiply is contracted into an add, and the CPU emulation
 * (spmv/segscan/emulate.c) repeats the same operations.
 */

namespace segscan {

constexpr unsigned FULL = 0xffffffffu;

static __device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
static __device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }

/* A stored value in the arithmetic type: fp64, fp32, or hi + lo of the mixed storage. */
template <typename T, typename S, bool LO>
static __device__ __forceinline__ T value(S hi, float lo)
{
    if constexpr (LO) return __dadd_rn((double)hi, (double)lo);
    else return (T)hi;
}

/* Shared-memory slot of segment position i: one pad entry per 128 bytes, so that the striped
 * stores (thread t, position j NT + t) and the blocked reads (position t V + j) both hit 32
 * distinct banks. */
template <typename T>
static __device__ __forceinline__ int slot(int i)
{
    return i + i / (128 / (int)sizeof(T));
}

/* The products of the segment's nonzeros base + j NT + t (j < V; 0 past nnz), striped so that
 * each load of a warp covers 32 consecutive nonzeros (coalesced values and columns, and x
 * gathered for neighbouring rows together), to sh at their slots. */
template <typename T, typename S, bool LO, int NT, int V>
static __device__ __forceinline__ void products(const mpcgi_segscan_args &a, const S *val,
                                                const float *lo, const T *x, int64_t base,
                                                T *sh)
{
    const int t = threadIdx.x;
    T p[V];
    if (base + NT * V <= a.nnz) {
        int32_t c[V];
        S v[V];
        float l[V];
#pragma unroll
        for (int j = 0; j < V; j++) {
            c[j] = __ldcs(a.col + base + j * NT + t);
            v[j] = __ldcs(val + base + j * NT + t);
            if constexpr (LO) l[j] = __ldcs(lo + base + j * NT + t);
        }
#pragma unroll
        for (int j = 0; j < V; j++)
            p[j] = mul_rn(value<T, S, LO>(v[j], LO ? l[j] : 0.0f), __ldg(x + c[j]));
    } else {
#pragma unroll
        for (int j = 0; j < V; j++) {
            const int64_t k = base + j * NT + t;
            p[j] = k < a.nnz ? mul_rn(value<T, S, LO>(__ldcs(val + k), LO ? __ldcs(lo + k) : 0.0f),
                                      __ldg(x + __ldcs(a.col + k)))
                             : T(0);
        }
    }
#pragma unroll
    for (int j = 0; j < V; j++) sh[slot<T>(j * NT + t)] = p[j];
}

/* The end (exclusive, segment-relative) of the first run when it continues a row from an earlier
 * segment, else 0. r0 = hb[s]. */
static __device__ __forceinline__ int continued_end(const mpcgi_segscan_args &a, int64_t base,
                                                    int64_t r0)
{
    const int64_t next = r0 < a.n ? a.row_ptr[r0] : a.nnz; /* the first head at or after base */
    if (base == 0 || next == base) return 0;
    int64_t e = next - base;
    if (e > a.L) e = a.L;
    if (e > a.nnz - base) e = a.nnz - base;
    return (int)e;
}

/* Inclusive segmented scan over a warp (Hillis-Steele on the old values): v = up + v where no
 * head (f) lies between. */
template <typename T>
static __device__ __forceinline__ void warp_segscan(T &v, int &f, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const T up = __shfl_up_sync(FULL, v, d);
        const int fu = __shfl_up_sync(FULL, f, d);
        if (lane >= d) {
            if (!f) v = up + v;
            f |= fu;
        }
    }
}

/* Steps 1 - 3 of the scan reduction for thread t (module comment): its products p (positions
 * t V .. t V + V - 1), hb its head bits (bit j: position t V + j starts a run; bit V: the next
 * chunk's first position, or the segment's end); run sums to sh at their last positions' slots. */
template <typename T, int NT, int V>
static __device__ __forceinline__ void scan_reduce(const T (&p)[V], unsigned hb, T *sh, T *wv,
                                                   int *wf)
{
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    T tail = p[0];
#pragma unroll
    for (int j = 1; j < V; j++) tail = (hb >> j & 1) ? p[j] : tail + p[j];
    T v = tail;
    int f = (hb & ((1u << V) - 1)) != 0;
    warp_segscan(v, f, lane);
    const T ev = __shfl_up_sync(FULL, v, 1); /* the exclusive scan in the warp (lane >= 1) */
    const int ef = __shfl_up_sync(FULL, f, 1);
    if (lane == 31) wv[w] = v, wf[w] = f;
    __syncthreads();
    if (w == 0) { /* the warps' totals: an exclusive segmented scan, wv[w] for w >= 1 */
        T u = lane < NT / 32 ? wv[lane] : T(0);
        int g = lane < NT / 32 ? wf[lane] : 0;
        warp_segscan(u, g, lane);
        const T eu = __shfl_up_sync(FULL, u, 1);
        if (lane >= 1 && lane < NT / 32) wv[lane] = eu;
    }
    __syncthreads();
    /* the open run's sum from the threads before t (unused by thread 0: nothing before it) */
    const T cin = lane == 0 ? wv[w] : ef || w == 0 ? ev : wv[w] + ev;
    T run = (hb & 1) || t == 0 ? p[0] : cin + p[0];
    if (hb >> 1 & 1) sh[slot<T>(t * V)] = run;
#pragma unroll
    for (int j = 1; j < V; j++) {
        run = (hb >> j & 1) ? p[j] : run + p[j];
        if (hb >> (j + 1) & 1) sh[slot<T>(t * V + j)] = run;
    }
}

/* The paper's index tree over sh (V = 1, L threads, products in place): a run's sum at its
 * first position. */
template <typename T, int L>
static __device__ __forceinline__ void index_reduce(const mpcgi_segscan_args &a, int64_t k, T *sh)
{
    const int t = threadIdx.x;
    const int i = k < a.nnz ? a.idx[k] : L; /* padding takes part in no step */
    __syncthreads();
#pragma unroll
    for (int c = L / 2; c >= 1; c /= 2) {
        if (i >= c && i < 2 * c) sh[slot<T>(t - c)] = sh[slot<T>(t - c)] + sh[slot<T>(t)];
        __syncthreads();
    }
}

/* One block per segment: y for the rows with their heads here, the segment's carry, and with
 * DOT the segment's part of x^T y (rows that end here; fixup_kernel adds the crossing ones) in
 * part[s]. */
template <typename T, typename S, bool LO, int NT, int V, bool INDEX, bool DOT>
static __global__ void __launch_bounds__(NT)
    scan_kernel(const __grid_constant__ mpcgi_segscan_args a, const S *__restrict__ val,
                const float *__restrict__ lo, const T *__restrict__ x, T *__restrict__ y,
                T *__restrict__ carry, double *__restrict__ part, const int *skip)
{
    constexpr int L = NT * V;
    static_assert(!INDEX || V == 1, "the index tree takes one nonzero a thread");
    __shared__ T sh[L + L / (128 / sizeof(T))];
    __shared__ unsigned hm[L / 32 + 1]; /* head bits; bit L (the segment's end) always set */
    __shared__ T wv[NT / 32];
    __shared__ int wf[NT / 32];
    __shared__ double dsum[NT / 32];
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    const int t = threadIdx.x;
    const int64_t s = blockIdx.x, base = s * L;
    const int64_t r0 = a.hb[s], r1 = a.hb[s + 1];
    if constexpr (!INDEX)
        for (int i = t; i <= L / 32; i += NT) hm[i] = i == L / 32;
    products<T, S, LO, NT, V>(a, val, lo, x, base, sh);
    if constexpr (INDEX) {
        index_reduce<T, L>(a, base + t, sh);
    } else {
        __syncthreads();
        for (int64_t r = r0 + t; r <= r1; r += NT) { /* row_ptr[n] = nnz ends the last run */
            const int64_t b = a.row_ptr[r] - base; /* empty rows share their successor's bit */
            if (b < L) atomicOr(&hm[b >> 5], 1u << (b & 31));
        }
        __syncthreads();
        const int q = t * V; /* bits q .. q + V: in hm[q / 32] and the word after */
        const unsigned long long two =
            hm[q >> 5] | (unsigned long long)hm[(q >> 5) + 1] << 32;
        const unsigned hb = (unsigned)(two >> (q & 31)) & ((2u << V) - 1);
        T p[V];
#pragma unroll
        for (int j = 0; j < V; j++) p[j] = sh[slot<T>(q + j)];
        scan_reduce<T, NT, V>(p, hb, sh, wv, wf);
        __syncthreads();
    }
    double dacc = 0;
    for (int64_t r = r0 + t; r < r1; r += NT) {
        const int64_t b = a.row_ptr[r] - base, e0 = a.row_ptr[r + 1] - base;
        const int64_t e = e0 < L ? e0 : L;
        const T yr = e > b ? sh[slot<T>(INDEX ? b : e - 1)] : T(0);
        y[r] = yr; /* a row that goes on: its head's part, fixup_kernel adds the rest */
        if (DOT && e0 <= L) dacc = fma((double)x[r], (double)yr, dacc);
    }
    if (t == 0) {
        const int e = continued_end(a, base, r0);
        carry[s] = e > 0 ? sh[slot<T>(INDEX ? 0 : e - 1)] : T(0);
    }
    if constexpr (DOT) { /* the block's rows in a fixed order: butterflies, then warp 0 */
#pragma unroll
        for (int o = 16; o >= 1; o /= 2) dacc += __shfl_xor_sync(FULL, dacc, o);
        if ((t & 31) == 0) dsum[t >> 5] = dacc;
        __syncthreads();
        if (t < 32) {
            double u = t < NT / 32 ? dsum[t] : 0.0;
#pragma unroll
            for (int o = 16; o >= 1; o /= 2) u += __shfl_xor_sync(FULL, u, o);
            if (t == 0) part[s] = u;
        }
    }
}

/* For each segment s >= 1 whose first run continues a row r whose head lies in segment s - 1
 * (the row's leader): y[r] += the carries of segments s .. (the last one r reaches), one warp,
 * lane l summing carries s + l, s + l + 32, ... in order, then a fixed shuffle tree. With DOT,
 * x_r y_r joins part[s - 1], and the block that finishes last adds part[0 .. nseg) into *dot
 * (MPCGI_THREADS threads, a fixed order). */
template <typename T, bool DOT>
static __global__ void __launch_bounds__(MPCGI_THREADS)
    fixup_kernel(const __grid_constant__ mpcgi_segscan_args a, const T *__restrict__ carry,
                 const T *__restrict__ x, T *__restrict__ y, double *part, double *dot,
                 const int *skip)
{
    __shared__ double sums[MPCGI_THREADS];
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    const int lane = threadIdx.x & 31;
    const int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32, L = a.L;
    bool lead = s >= 1 && s < a.nseg;
    int64_t r = 0;
    if (lead) {
        const int64_t base = s * L, r0 = a.hb[s];
        r = r0 - 1; /* the continued row */
        lead = continued_end(a, base, r0) > 0 && a.row_ptr[r] >= base - L; /* else another leads */
    }
    if (lead) {
        const int64_t end = (a.row_ptr[r + 1] + L - 1) / L; /* segments s .. end - 1 hold r */
        T acc = T(0);
        for (int64_t j = s + lane; j < end; j += 32) acc = acc + carry[j];
#pragma unroll
        for (int off = 16; off >= 1; off /= 2) acc = acc + __shfl_down_sync(FULL, acc, off);
        if (lane == 0) {
            const T yr = y[r] + acc;
            y[r] = yr;
            if constexpr (DOT) {
                part[s - 1] = fma((double)x[r], (double)yr, part[s - 1]);
                __threadfence(); /* visible before this block is counted */
            }
        }
    }
    if constexpr (DOT) mpcgi_last_block_sum(part, a.nseg, a.arrived, dot, sums);
}

template <typename T, typename S, bool LO, int NT, int V, bool INDEX, bool DOT>
static cudaError_t launch_shape(const mpcgi_segscan_args *a, const S *val, const float *lo,
                                const T *x, T *y, T *carry, double *part, const int *skip)
{
    return mpcgi_launch(scan_kernel<T, S, LO, NT, V, INDEX, DOT>, (unsigned)a->nseg, NT,
                        a->stream, *a, val, lo, x, y, carry, part, skip);
}

/* The kernel of (L, V, index) (mpcgi_segscan_shape_ok), then the fixup. */
template <typename T, typename S, bool LO, bool DOT>
static int launch(const mpcgi_segscan_args *a, const S *val, const float *lo, const T *x, T *y,
                  T *carry, double *part, double *dot, const int *skip)
{
    cudaError_t e = cudaErrorInvalidValue;
    const int NT = a->L / a->V;
#define SEGSCAN_SHAPE(nt, v)                                                                    \
    else if (!a->index && NT == nt && a->V == v) e =                                             \
        launch_shape<T, S, LO, nt, v, false, DOT>(a, val, lo, x, y, carry, part, skip);
    if (a->index) {
        switch (a->L) {
        case 128: e = launch_shape<T, S, LO, 128, 1, true, DOT>(a, val, lo, x, y, carry, part, skip); break;
        case 256: e = launch_shape<T, S, LO, 256, 1, true, DOT>(a, val, lo, x, y, carry, part, skip); break;
        case 512: e = launch_shape<T, S, LO, 512, 1, true, DOT>(a, val, lo, x, y, carry, part, skip); break;
        case 1024: e = launch_shape<T, S, LO, 1024, 1, true, DOT>(a, val, lo, x, y, carry, part, skip); break;
        }
    }
    SEGSCAN_SHAPE(128, 1) SEGSCAN_SHAPE(128, 2) SEGSCAN_SHAPE(128, 4) SEGSCAN_SHAPE(128, 8)
    SEGSCAN_SHAPE(256, 1) SEGSCAN_SHAPE(256, 2) SEGSCAN_SHAPE(256, 4) SEGSCAN_SHAPE(256, 8)
    SEGSCAN_SHAPE(512, 1) SEGSCAN_SHAPE(512, 2) SEGSCAN_SHAPE(512, 4) SEGSCAN_SHAPE(512, 8)
#undef SEGSCAN_SHAPE
    if (e != cudaSuccess) return (int)e;
    const unsigned blocks = (unsigned)((a->nseg + MPCGI_THREADS / 32 - 1) / (MPCGI_THREADS / 32));
    return (int)mpcgi_launch(fixup_kernel<T, DOT>, blocks, MPCGI_THREADS,
                             a->stream, *a, (const T *)carry, x, y, part, dot, skip);
}

} /* namespace segscan */

#endif /* MPCG_SPMV_SEGSCAN_CUH */
