/* spmv/adaptive/device.cuh: the row sums of the adaptive backend and the rows of a virtual
 * block, shared by its SpMV kernels (spmv/adaptive/spmv.cuh) and the solver's persistent CG loops
 * (spmv/adaptive/rows.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_DEVICE_CUH
#define MPCG_SPMV_ADAPTIVE_DEVICE_CUH

#include <stdint.h>

#include "spmv/adaptive/kernels.h"

/*
 * Every row sum is formed the same way wherever it runs (spmv/adaptive/emulate.c emulates it):
 *   - a short row is summed by a group of NT lanes of one warp (NT = 1 ... 32): lane l adds
 *     entries start + l, start + l + NT, ... with fused multiply-adds from 0, then a butterfly
 *     a_l <- a_l + a_(l xor s), s = NT/2 ... 1, leaves the sum in every lane;
 *   - a long row is cut into chunks of `chunk` nonzeros, one virtual block each: thread t adds
 *     entries t, t + blockDim, ... of its chunk, a 32-lane butterfly per warp, thread 0 adds the
 *     warp sums in warp order, and the chunk sums are added in chunk order by the block that
 *     finishes last (an integer counter says which; no floating-point atomics anywhere).
 * Bytes per fp64 SpMV: 12 per nonzero (value + column; 10 with 16-bit column offsets,
 * mpcgi_cols), 4 per row pointer, 8 per row for y, x gathered through the read-only path; the
 * binned kernel adds 4 per row for the row list.
 */

#define FULL_MASK 0xffffffffu

/*
 * Where the x of an SpMV comes from. The row sums read x_j as src(j); the fused dot reads x_i of
 * its own row once the row is summed and hands it back with src.keep(i, x_i); src.start() runs
 * once per kernel, before any of it. Both sources read through the read-only path: nothing they
 * read is written while the kernel runs. (Prefetching x_i into L1 before the row sum makes the
 * fused dot slower: docs/backends/adaptive.md, "`apply_dot` (fused SpMV + dot, fp64)".)
 */

template <typename T> struct mpcgi_src_x { /* x itself */
    const T *__restrict__ x;
    __device__ __forceinline__ void start() {}
    __device__ __forceinline__ T operator()(int j) const { return __ldg(x + j); }
    __device__ __forceinline__ void keep(int, T) const {}
};

/* The CG direction formed on the fly: x_j = r_j + beta p_j (one fused multiply-add, as the
 * separate p update of core/cg_kernels.cu); keep stores the row's x_i in p_out, so p_out holds
 * the direction after the SpMV. In a kernel of its own (L2 = false) r and p come through the
 * read-only path and start() reads beta from the device; in the persistent loop, where r and p
 * are written by other blocks during the launch, through L2 (L2 = true), with beta set by the
 * loop. */
template <bool L2> struct mpcgi_src_direction {
    const double *__restrict__ r, *__restrict__ p;
    double *__restrict__ p_out;
    const double *beta_dev;
    double beta;
    __device__ __forceinline__ void start() { beta = *beta_dev; }
    __device__ __forceinline__ double operator()(int j) const
    {
        if (L2) return fma(beta, __ldcg(p + j), __ldcg(r + j));
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

/* The values of the mixed storage (MPCGI_PREC_MIXED_STORE): hi and lo as two fp32 arrays, used
 * where the kernels take a value pointer (val + k, load_matrix); the value is formed in fp64 as
 * (double)hi + (double)lo (exactly a where the split is exact): 8 bytes per nonzero. */
struct mpcgi_split_vals {
    const float *__restrict__ hi;
    const float *__restrict__ lo;
    __device__ __forceinline__ mpcgi_split_vals operator+(int64_t k) const
    {
        return mpcgi_split_vals{hi + k, lo + k};
    }
};
template <bool STREAM> static __device__ __forceinline__ double load_matrix(mpcgi_split_vals p)
{
    return (double)load_matrix<STREAM>(p.hi) + (double)load_matrix<STREAM>(p.lo);
}

/* Where the column of entry k of row `row` comes from: the CSR's 32-bit columns, or (C16) 16-bit
 * offsets col - row, which spmv/adaptive/binning.c stores instead where every offset of the matrix
 * fits: 10 bytes per fp64 nonzero instead of 12. */
template <bool C16> struct mpcgi_cols {
    const int32_t *__restrict__ c32;
    const int16_t *__restrict__ c16;
    template <bool STREAM> __device__ __forceinline__ int col(int k, int row) const
    {
        if constexpr (C16) return row + (int)load_matrix<STREAM>(c16 + k);
        else return load_matrix<STREAM>(c32 + k);
    }
};

/* R rows at once by a group of NT lanes (see the top comment; val: a value pointer, or
 * mpcgi_split_vals): lane l adds the entries l,
 * l + NT, ... of each row in order, two strides per round with every load of the round issued
 * before its multiply-adds (R x 2 independent loads in flight per lane); a butterfly per row
 * then leaves the sums in every lane. All 32 lanes of the warp call it; a group without a row
 * passes len = 0; x(j) gives x_j (a source above, or a loader that forms x_j). An entry past a
 * row's end is skipped, not added as 0 (that keeps -0 sums). */
template <int NT, int R, bool STREAM, typename T, typename X, typename C, typename V>
static __device__ __forceinline__ void
rows_sum(const int (&row)[R], const int (&start)[R], const int (&len)[R], int lane, const C &cols,
         V val, const X &x, T (&acc)[R])
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
                    b[r][u] = x(cols.template col<STREAM>(start[r] + k, row[r]));
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

/* The rows of one virtual block (R x blockDim / NT of them): group g takes row(g + r groups),
 * r < R, where row(i) is i itself (uniform) or rows[i] (binned), i < count; rows longer than
 * skip_len are left to the long-row chunks. C16: the plan's columns are 16-bit offsets. */
template <int NT, int R, bool STREAM, bool DOT, bool LIST, bool C16, typename T, typename S,
          typename V>
static __device__ __forceinline__ void
vblock_rows(const mpcgi_adaptive_launch &L, int64_t first, int64_t count, const int32_t *list,
            V val, const S &src, T *__restrict__ y, double &dacc)
{
    const int groups = blockDim.x / NT, lane = threadIdx.x & (NT - 1);
    int row[R], start[R], len[R];
    T sum[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t i = first + r * groups + threadIdx.x / NT;
        row[r] = -1, start[r] = 0, len[r] = 0;
        if (i < count) {
            const int q = LIST ? __ldg(list + i) : (int)i;
            const int b = __ldg(L.row_ptr + q), e = __ldg(L.row_ptr + q + 1);
            if (LIST || e - b <= L.skip_len) row[r] = q, start[r] = b, len[r] = e - b;
        }
    }
    /* Streaming loads only for groups of 8 lanes or more: narrower groups read each row's
     * entries over several loads, and the lines must stay in L1 in between (one lane per row
     * streamed runs at a fraction of the cached rate: docs/backends/adaptive.md, "Paths") */
    rows_sum<NT, R, STREAM && NT >= 8>(row, start, len, lane,
                                       mpcgi_cols<C16>{L.col_idx, L.col16}, val, src, sum);
    if (lane == 0)
#pragma unroll
        for (int r = 0; r < R; r++)
            if (row[r] >= 0) {
                y[row[r]] = sum[r];
                if constexpr (DOT) {
                    const T xi = src(row[r]);
                    src.keep(row[r], xi);
                    dacc = fma((double)xi, (double)sum[r], dacc);
                }
            }
}

/* v summed over a warp by a butterfly (xor 16 ... 1): the sum in every lane. */
template <typename T> static __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, s);
    return v;
}

/* v summed over the block, valid in thread 0; every thread of the block calls it. Each warp's
 * sum goes to sh[warp] (warp_sum); then, without TREE, thread 0 adds them in warp order (the
 * row sums' order, which the CPU emulation repeats), with TREE warp 0 adds them by a butterfly,
 * zeros past the last warp (no serial loop: for the dots, whose order is fixed but not
 * emulated). */
template <bool TREE = false, typename T> static __device__ T block_sum(T v, T *sh)
{
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    T p = 0;
    if (TREE && threadIdx.x < 32) {
        p = warp_sum(threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : T(0));
    } else if (!TREE && threadIdx.x == 0) {
        p = sh[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); w++)
            p += sh[w];
    }
    __syncthreads();
    return p;
}

#endif /* MPCG_SPMV_ADAPTIVE_DEVICE_CUH */
