/* spmv/segscan.cu: the segscan backend's kernels: nonzero segments of L entries, one block each,
 * a segmented reduction in the block, the carries of rows that cross segments (seed 001) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>
#include <stdint.h>

#include "spmv/segscan_kernels.h"

/*
 * Segment s holds nonzeros [s L, s L + L) of the CSR arrays as they are; block s has L threads,
 * thread t nonzero k = s L + t. hb[s] (spmv/segscan.c) is the first row whose head row_ptr[r]
 * is >= s L; rows [hb[s], hb[s + 1]) have their heads in segment s (the last segment also owns
 * the trailing empty rows). A run is one row's stretch inside one segment; it starts at a row
 * head or at the segment's start.
 *
 * Two in-block reductions, both deterministic (fixed order, no atomics):
 *   shuffle  a segmented inclusive scan: Hillis-Steele in each warp with shuffles, then the warps'
 *            totals combined in order by thread 0; a run's sum lands at its last element;
 *   index    the seed's index-based tree: idx[k] (built by segscan_index_kernel) is k's offset
 *            in its run; for c = L/2 .. 1, every element with c <= idx < 2c adds itself to the
 *            element c before it (a binomial tree: no element sends and receives in one step);
 *            a run's sum lands at its first element.
 * Then each row with its head here writes y[r] (0 for an empty row), and the run that continues
 * a row from an earlier segment writes the segment's carry; segscan_fixup_kernel adds each
 * crossing row's carries to y[r], in segment order, after the kernel.
 *
 * Products use __dmul_rn / __fmul_rn so that no multiply is contracted into an add: the CPU
 * emulation (spmv/segscan.c) repeats the same operations and gets the same bits.
 */

#define WARP 32

static __device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
static __device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }

/* The row range [r0, r1) whose heads lie in this segment, and the continuation end: the end
 * (exclusive, segment-relative) of the first run when it continues a row, else 0. */
static __device__ __forceinline__ int continued_end(const int64_t *row_ptr, int64_t n,
                                                    int64_t nnz, int64_t base, int64_t r0,
                                                    int L)
{
    const int64_t next = r0 < n ? row_ptr[r0] : nnz; /* the first head at or after base */
    if (base == 0 || next == base) return 0;
    int64_t e = next - base;
    if (e > L) e = L;
    if (e > nnz - base) e = (int)(nnz - base);
    return (int)e;
}

/* Segmented inclusive scan of v (flag: a run starts here) over the block, in shared memory sh
 * (L values) and wtot/wflag (L / 32 each); on return sh[t] holds t's sum from its run's start. */
template <typename T, int L>
static __device__ __forceinline__ void block_segscan(T v, int flag, T *sh, T *wtot, int *wflag)
{
    const int t = threadIdx.x, lane = t & (WARP - 1), w = t / WARP;
    for (int d = 1; d < WARP; d *= 2) {
        const T up = __shfl_up_sync(0xffffffffu, v, d);
        const int fup = __shfl_up_sync(0xffffffffu, flag, d);
        if (lane >= d && !flag) v = up + v;
        if (lane >= d) flag |= fup;
    }
    if (lane == WARP - 1) wtot[w] = v, wflag[w] = flag;
    __syncthreads();
    if (t == 0) { /* exclusive segmented scan of the warps' totals, in order, in place */
        T run = wtot[0];
        int f = 1;
        for (int k = 1; k < L / WARP; k++) {
            const T tot = wtot[k];
            const int fk = wflag[k];
            wtot[k] = run;
            wflag[k] = f;
            run = fk ? tot : run + tot;
        }
        wflag[0] = 0; /* warp 0 has no carry-in */
    }
    __syncthreads();
    if (w > 0 && !flag) v = wtot[w] + v;
    sh[t] = v;
    __syncthreads();
}

template <typename T, int L, bool INDEX>
static __global__ void __launch_bounds__(L)
    segscan_kernel(int64_t n, int64_t nnz, const int64_t *__restrict__ row_ptr,
                   const int32_t *__restrict__ col, const T *__restrict__ val,
                   const uint16_t *__restrict__ idx, const int64_t *__restrict__ hb,
                   const T *__restrict__ x, T *__restrict__ y, T *__restrict__ carry)
{
    __shared__ T sh[L];
    __shared__ T wtot[L / WARP];
    __shared__ int wflag[L / WARP];
    __shared__ int head[L];
    const int t = threadIdx.x;
    const int64_t s = blockIdx.x, base = s * L, k = base + t;
    const int64_t r0 = hb[s], r1 = hb[s + 1];
    const T p = k < nnz ? mul_rn(val[k], x[col[k]]) : T(0);
    if (INDEX) {
        const int i = k < nnz ? idx[k] : L; /* padding takes part in no step */
        sh[t] = p;
        __syncthreads();
        for (int c = L / 2; c >= 1; c /= 2) {
            if (i >= c && i < 2 * c) sh[t - c] = sh[t - c] + sh[t];
            __syncthreads();
        }
    } else {
        head[t] = t == 0;
        __syncthreads();
        for (int64_t r = r0 + t; r < r1; r += L)
            if (row_ptr[r] - base < L) atomicOr(&head[row_ptr[r] - base], 1); /* empty rows share */
        __syncthreads();
        block_segscan<T, L>(p, head[t], sh, wtot, wflag);
    }
    for (int64_t r = r0 + t; r < r1; r += L) {
        const int64_t b = row_ptr[r] - base;
        int64_t e = row_ptr[r + 1] - base;
        if (e > L) e = L;
        y[r] = e > b ? sh[INDEX ? b : e - 1] : T(0);
    }
    if (t == 0) {
        const int e = continued_end(row_ptr, n, nnz, base, r0, L);
        carry[s] = e > 0 ? sh[INDEX ? 0 : e - 1] : T(0);
    }
}

/* For each segment s >= 1 whose first run continues a row r whose head lies in segment s - 1:
 * y[r] += the carries of segments s .. (the last one r reaches), one warp, lane l summing
 * carries s + l, s + l + 32, ... in order, then a fixed shuffle tree. */
template <typename T, int L>
static __global__ void segscan_fixup_kernel(int64_t n, int64_t nnz, int64_t nseg,
                                            const int64_t *__restrict__ row_ptr,
                                            const int64_t *__restrict__ hb,
                                            const T *__restrict__ carry, T *__restrict__ y)
{
    const int lane = threadIdx.x & (WARP - 1);
    const int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    if (s < 1 || s >= nseg) return;
    const int64_t base = s * L, r0 = hb[s];
    if (continued_end(row_ptr, n, nnz, base, r0, L) == 0) return;
    const int64_t r = r0 - 1; /* the continued row */
    if (row_ptr[r] < base - L) return; /* its head is further back: another warp leads */
    const int64_t end = (row_ptr[r + 1] + L - 1) / L; /* segments s .. end - 1 hold r */
    T acc = T(0);
    for (int64_t j = s + lane; j < end; j += WARP) acc = acc + carry[j];
    for (int off = WARP / 2; off >= 1; off /= 2) acc = acc + __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) y[r] = y[r] + acc;
}

/* idx[k] = k's offset in its run (0 at a row head or at the segment's start). */
template <int L>
static __global__ void __launch_bounds__(L)
    segscan_index_kernel(int64_t n, int64_t nnz, const int64_t *__restrict__ row_ptr,
                         const int64_t *__restrict__ hb, uint16_t *__restrict__ idx)
{
    __shared__ int start[L];
    const int t = threadIdx.x;
    const int64_t s = blockIdx.x, base = s * L, k = base + t;
    start[t] = 0;
    __syncthreads();
    for (int64_t r = hb[s] + t; r < hb[s + 1]; r += L)
        if (row_ptr[r] - base < L) atomicMax(&start[row_ptr[r] - base], (int)(row_ptr[r] - base));
    __syncthreads();
    for (int d = 1; d < L; d *= 2) { /* inclusive max-scan: the last run start at or before t */
        const int v = t >= d ? start[t - d] : 0;
        __syncthreads();
        if (v > start[t]) start[t] = v;
        __syncthreads();
    }
    (void)n;
    if (k < nnz) idx[k] = (uint16_t)(t - start[t]);
}

/* hb[s] = the first row r in [0, n) with row_ptr[r] >= s L (n if none), s = 0 .. nseg - 1;
 * hb[nseg] = n. */
template <int L>
static __global__ void segscan_heads_kernel(int64_t n, int64_t nseg,
                                            const int64_t *__restrict__ row_ptr,
                                            int64_t *__restrict__ hb)
{
    const int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s > nseg) return;
    if (s == nseg) {
        hb[s] = n;
        return;
    }
    const int64_t want = s * L;
    int64_t lo = 0, hi = n; /* the first r in [0, n) with row_ptr[r] >= want, or n */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (row_ptr[mid] < want) lo = mid + 1;
        else hi = mid;
    }
    hb[s] = lo;
}

template <typename T, int L>
static int launch(const mpcgi_segscan_args *a, const void *x, void *y, void *carry)
{
    cudaStream_t st = (cudaStream_t)a->stream;
    if (a->nseg == 0) return (int)cudaGetLastError();
    if (a->index)
        segscan_kernel<T, L, true><<<(unsigned)a->nseg, L, 0, st>>>(
            a->n, a->nnz, a->row_ptr, a->col, (const T *)a->val, a->idx, a->hb, (const T *)x,
            (T *)y, (T *)carry);
    else
        segscan_kernel<T, L, false><<<(unsigned)a->nseg, L, 0, st>>>(
            a->n, a->nnz, a->row_ptr, a->col, (const T *)a->val, a->idx, a->hb, (const T *)x,
            (T *)y, (T *)carry);
    const int64_t threads = a->nseg * WARP;
    segscan_fixup_kernel<T, L><<<(unsigned)((threads + 255) / 256), 256, 0, st>>>(
        a->n, a->nnz, a->nseg, a->row_ptr, a->hb, (const T *)carry, (T *)y);
    return (int)cudaGetLastError();
}

template <int L>
static int setup(const mpcgi_segscan_args *a, int64_t *hb, uint16_t *idx)
{
    cudaStream_t st = (cudaStream_t)a->stream;
    segscan_heads_kernel<L><<<(unsigned)((a->nseg + 1 + 255) / 256), 256, 0, st>>>(
        a->n, a->nseg, a->row_ptr, hb);
    if (idx && a->nseg > 0)
        segscan_index_kernel<L><<<(unsigned)a->nseg, L, 0, st>>>(a->n, a->nnz, a->row_ptr, hb,
                                                                   idx);
    return (int)cudaGetLastError();
}

extern "C" {

int mpcgi_segscan_apply(const mpcgi_segscan_args *a, int fp32, const void *x, void *y,
                        void *carry)
{
    switch (a->L) {
    case 128: return fp32 ? launch<float, 128>(a, x, y, carry) : launch<double, 128>(a, x, y, carry);
    case 256: return fp32 ? launch<float, 256>(a, x, y, carry) : launch<double, 256>(a, x, y, carry);
    case 512: return fp32 ? launch<float, 512>(a, x, y, carry) : launch<double, 512>(a, x, y, carry);
    case 1024:
        return fp32 ? launch<float, 1024>(a, x, y, carry) : launch<double, 1024>(a, x, y, carry);
    }
    return (int)cudaErrorInvalidValue;
}

int mpcgi_segscan_setup(const mpcgi_segscan_args *a, int64_t *hb, uint16_t *idx)
{
    switch (a->L) {
    case 128: return setup<128>(a, hb, idx);
    case 256: return setup<256>(a, hb, idx);
    case 512: return setup<512>(a, hb, idx);
    case 1024: return setup<1024>(a, hb, idx);
    }
    return (int)cudaErrorInvalidValue;
}

} /* extern "C" */
