/* spmv/adaptive/setup.cu: the adaptive backend's setup kernels: row binning on the GPU, 16-bit
 * columns, fp32 values */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/launch.cuh"
#include "spmv/adaptive/device.cuh"
#include "spmv/adaptive/kernels.h"

#define SETUP_THREADS MPCGI_ADAPTIVE_SETUP_THREADS
#define SETUP_WARPS (SETUP_THREADS / 32)

/* The last block of setup_count_kernel, once every tile's counts are written: each quantity's
 * tile counts become exclusive prefixes, totals[q] their sums, then the longest row and the
 * span. Thread t owns a contiguous run of tiles; all quantities at once, by warp shuffles and
 * one barrier (not two barriers per step of each quantity's scan in shared memory: the scan is
 * on the critical path of every plan's setup). The other blocks' writes are read through L2. */
static __device__ void setup_scan(int64_t ntiles, int32_t *__restrict__ counts,
                                  const int32_t *__restrict__ tile_max,
                                  int32_t *__restrict__ totals)
{
    constexpr int Q = MPCGI_ADAPTIVE_QUANTITIES;
    __shared__ int wsum[SETUP_WARPS][Q + 2];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t per = (ntiles + SETUP_THREADS - 1) / SETUP_THREADS;
    const int64_t lo = threadIdx.x * per < ntiles ? threadIdx.x * per : ntiles;
    const int64_t hi = lo + per < ntiles ? lo + per : ntiles;
    int own[Q + 2], incl[Q + 2]; /* this thread's sums (maxima for the last two), the warp's
                                    inclusive prefixes */
    for (int q = 0; q < Q + 2; q++)
        own[q] = 0;
    for (int64_t t = lo; t < hi; t++) {
        for (int q = 0; q < Q; q++)
            own[q] += __ldcg(counts + q * ntiles + t);
        for (int k = 0; k < 2; k++)
            own[Q + k] = max(own[Q + k], __ldcg(tile_max + k * ntiles + t));
    }
    for (int q = 0; q < Q + 2; q++) {
        int v = own[q];
        for (int o = 1; o < 32; o <<= 1) {
            const int u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v = q < Q ? v + u : max(v, u);
        }
        incl[q] = v;
    }
    if (lane == 31)
        for (int q = 0; q < Q + 2; q++)
            wsum[warp][q] = incl[q];
    __syncthreads();
    for (int q = 0; q < Q; q++) {
        int run = incl[q] - own[q], all = 0;
        for (int w = 0; w < SETUP_WARPS; w++) {
            run += w < warp ? wsum[w][q] : 0;
            all += wsum[w][q];
        }
        for (int64_t t = lo; t < hi; t++) {
            const int c = __ldcg(counts + q * ntiles + t);
            counts[q * ntiles + t] = run;
            run += c;
        }
        if (threadIdx.x == 0) totals[q] = all;
    }
    if (threadIdx.x == 0)
        for (int k = Q; k < Q + 2; k++) {
            int m = 0;
            for (int w = 0; w < SETUP_WARPS; w++)
                m = max(m, wsum[w][k]);
            totals[k] = m;
        }
}

/* Warp maximum of v (every lane gets it). */
static __device__ __forceinline__ int warp_max(int v)
{
    for (int s = 16; s > 0; s >>= 1)
        v = max(v, __shfl_xor_sync(FULL_MASK, v, s));
    return v;
}

/* Per tile of `tile` rows (mpcgi_adaptive_setup_tile: a multiple of SETUP_THREADS, a row per
 * thread on small matrices): narrow the row pointers, count the rows of each bin and the chunks
 * and nonzeros of the long rows, find the longest row and the largest |col - row| above
 * INT16_MAX (the columns of a row are sorted: its first and last are the extremes). Integer
 * sums and maxima, so order-free; aggregated per warp (the rows of a bin by __match_any_sync)
 * before the shared atomics, which all 256 threads of a block would otherwise queue on one
 * address. The last block to finish (by a ticket in totals, which it sets back to 0) scans: one
 * launch for the whole count. */
static __global__ void __launch_bounds__(SETUP_THREADS)
    setup_count_kernel(int64_t n, int64_t ntiles, int tile, const int64_t *__restrict__ rp64,
                       int32_t *__restrict__ rp32, const int32_t *__restrict__ col,
                       const mpcgi_adaptive_binning bin, int32_t *__restrict__ counts,
                       int32_t *__restrict__ tile_max, int32_t *__restrict__ totals)
{
    __shared__ int c[MPCGI_ADAPTIVE_QUANTITIES];
    __shared__ int longest, far;
    __shared__ bool last;
    const int lane = threadIdx.x & 31;
    if (threadIdx.x < MPCGI_ADAPTIVE_QUANTITIES) c[threadIdx.x] = 0;
    if (threadIdx.x == 0) longest = far = 0;
    __syncthreads();
    const int64_t base = (int64_t)blockIdx.x * tile;
    for (int i = threadIdx.x; i < tile; i += SETUP_THREADS) { /* every lane of a warp */
        const int64_t r = base + i;
        int64_t len = 0, off = 0;
        int b = MPCGI_ADAPTIVE_BINS; /* none: past the last row */
        if (r <= n) {
            const int64_t a = rp64[r];
            rp32[r] = (int32_t)a; /* a <= nnz < 2^31, checked by analyze */
            if (r < n) {
                len = rp64[r + 1] - a;
                b = mpcgi_adaptive_bin_of(len, bin);
                if (len > 0) off = mpcgi_adaptive_row_span(r, col[a], col[a + len - 1]);
            }
        }
        const unsigned same = __match_any_sync(FULL_MASK, b);
        if (b < MPCGI_ADAPTIVE_BINS && lane == __ffs(same) - 1) atomicAdd(&c[b], __popc(same));
        const bool lng = b == MPCGI_ADAPTIVE_LONG;
        if (__any_sync(FULL_MASK, lng)) {
            const int ch = warp_sum(lng ? (int)mpcgi_adaptive_chunks(len, bin) : 0);
            const int ln = warp_sum(lng ? (int)len : 0);
            if (lane == 0) {
                atomicAdd(&c[MPCGI_ADAPTIVE_CHUNKS], ch);
                atomicAdd(&c[MPCGI_ADAPTIVE_LONG_NNZ], ln);
            }
        }
        const int m = warp_max((int)len), fa = warp_max(off > INT16_MAX ? (int)off : 0);
        if (lane == 0) {
            atomicMax(&longest, m);
            if (fa) atomicMax(&far, fa);
        }
    }
    __syncthreads();
    if (threadIdx.x < MPCGI_ADAPTIVE_QUANTITIES)
        counts[threadIdx.x * ntiles + blockIdx.x] = c[threadIdx.x];
    if (threadIdx.x == 0) {
        tile_max[blockIdx.x] = longest;
        tile_max[ntiles + blockIdx.x] = far;
    }
    __threadfence(); /* this tile's counts before its ticket */
    __syncthreads();
    int32_t *ticket = totals + MPCGI_ADAPTIVE_QUANTITIES + 2;
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1) == (int)(ntiles - 1);
    __syncthreads();
    if (!last) return;
    __threadfence();
    setup_scan(ntiles, counts, tile_max, totals);
    if (threadIdx.x == 0) *ticket = 0; /* ready for the next count */
}

/* Where each bin's rows start in the row list (passed by value). */
struct regions {
    int64_t start[MPCGI_ADAPTIVE_BINS];
};

/* Per tile, in rounds of SETUP_THREADS rows: each row's place in its bin (stable: ranks by
 * ballot within the warp, warp counts added in warp order, tiles in tile order), and for a long
 * row the index of its first chunk; long_start[n_long] = the chunks of all (from totals). */
static __global__ void __launch_bounds__(SETUP_THREADS)
    setup_scatter_kernel(int64_t n, int64_t ntiles, int tile, const int32_t *__restrict__ rp32,
                         const mpcgi_adaptive_binning bin, const int32_t *__restrict__ counts,
                         const int32_t *__restrict__ totals, const __grid_constant__ regions reg,
                         int long_only, int32_t *__restrict__ rows,
                         int32_t *__restrict__ long_start)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        long_start[totals[MPCGI_ADAPTIVE_LONG]] = totals[MPCGI_ADAPTIVE_CHUNKS];
    __shared__ int wcount[SETUP_WARPS][MPCGI_ADAPTIVE_BINS]; /* rows per bin of each warp */
    __shared__ int wchunks[SETUP_WARPS];                     /* long-row chunks of each warp */
    __shared__ int64_t base[MPCGI_ADAPTIVE_BINS];            /* next place of each bin */
    __shared__ int chunk_base;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x < MPCGI_ADAPTIVE_BINS)
        base[threadIdx.x] = reg.start[threadIdx.x] + counts[threadIdx.x * ntiles + blockIdx.x];
    if (threadIdx.x == 0) chunk_base = counts[MPCGI_ADAPTIVE_CHUNKS * ntiles + blockIdx.x];
    for (int round = 0; round < tile / SETUP_THREADS; round++) {
        const int64_t r = (int64_t)blockIdx.x * tile + round * SETUP_THREADS + threadIdx.x;
        const bool ok = r < n;
        const int64_t len = ok ? (int64_t)rp32[r + 1] - rp32[r] : 0;
        const int b = ok ? mpcgi_adaptive_bin_of(len, bin) : MPCGI_ADAPTIVE_BINS;
        const int ch = b == MPCGI_ADAPTIVE_LONG ? (int)mpcgi_adaptive_chunks(len, bin) : 0;
        const unsigned same = __match_any_sync(FULL_MASK, b);
        const int rank = __popc(same & ((1u << lane) - 1));
        int incl = ch; /* chunks of this warp's long rows up to this lane */
        for (int o = 1; o < 32; o <<= 1) {
            int u = __shfl_up_sync(FULL_MASK, incl, o);
            if (lane >= o) incl += u;
        }
        if (threadIdx.x < SETUP_WARPS * MPCGI_ADAPTIVE_BINS) (&wcount[0][0])[threadIdx.x] = 0;
        __syncthreads();
        if (ok && rank == 0) wcount[warp][b] = __popc(same);
        if (lane == 31) wchunks[warp] = incl;
        __syncthreads();
        if (ok && (b == MPCGI_ADAPTIVE_LONG || !long_only)) {
            int64_t pos = base[b] + rank;
            for (int w = 0; w < warp; w++)
                pos += wcount[w][b];
            rows[pos] = (int32_t)r;
            if (b == MPCGI_ADAPTIVE_LONG) { /* the long region starts at 0 */
                int c = chunk_base + incl - ch;
                for (int w = 0; w < warp; w++)
                    c += wchunks[w];
                long_start[pos] = c;
            }
        }
        __syncthreads();
        if (threadIdx.x < MPCGI_ADAPTIVE_BINS)
            for (int w = 0; w < SETUP_WARPS; w++)
                base[threadIdx.x] += wcount[w][threadIdx.x];
        if (threadIdx.x == 0)
            for (int w = 0; w < SETUP_WARPS; w++)
                chunk_base += wchunks[w];
        __syncthreads();
    }
}

/* The 16-bit column offsets, a warp per row (rows strided over the grid). */
static __global__ void __launch_bounds__(SETUP_THREADS)
    col16_kernel(int64_t n, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                 int16_t *__restrict__ col16)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * SETUP_WARPS;
    for (int64_t r = ((int64_t)blockIdx.x * SETUP_THREADS + threadIdx.x) / 32; r < n; r += warps)
        for (int k = rp[r] + lane; k < rp[r + 1]; k += 32)
            col16[k] = (int16_t)(col[k] - r);
}

static __global__ void to_f32_kernel(int64_t nnz, const double *__restrict__ v64,
                                     float *__restrict__ v32)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
        v32[k] = (float)v64[k];
}

extern "C" {

int mpcgi_adaptive_setup_count(void *stream, int64_t n, const int64_t *row_ptr64,
                               int32_t *row_ptr32, const int32_t *col,
                               const mpcgi_adaptive_binning *bin, int32_t *counts,
                               int32_t *tile_max, int32_t *totals)
{
    const int tile = mpcgi_adaptive_setup_tile(n);
    const int64_t ntiles = mpcgi_adaptive_setup_tiles(n);
    setup_count_kernel<<<(unsigned)ntiles, SETUP_THREADS, 0, (cudaStream_t)stream>>>(
        n, ntiles, tile, row_ptr64, row_ptr32, col, *bin, counts, tile_max, totals);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_setup_scatter(void *stream, int64_t n, const int32_t *row_ptr32,
                                 const mpcgi_adaptive_binning *bin, const int32_t *counts,
                                 const int32_t *totals, const int64_t *region, int long_only,
                                 int32_t *rows, int32_t *long_start)
{
    regions reg;
    for (int q = 0; q < MPCGI_ADAPTIVE_BINS; q++)
        reg.start[q] = region[q];
    const int tile = mpcgi_adaptive_setup_tile(n);
    const int64_t ntiles = mpcgi_adaptive_setup_tiles(n);
    setup_scatter_kernel<<<(unsigned)ntiles, SETUP_THREADS, 0, (cudaStream_t)stream>>>(
        n, ntiles, tile, row_ptr32, *bin, counts, totals, reg, long_only, rows, long_start);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_setup_col16(void *stream, int64_t n, const int32_t *row_ptr32,
                               const int32_t *col, int16_t *col16)
{
    if (n < 1) return (int)cudaSuccess;
    col16_kernel<<<mpcgi_blocks_for(n, SETUP_WARPS), SETUP_THREADS, 0, (cudaStream_t)stream>>>(
        n, row_ptr32, col, col16);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_to_f32(void *stream, int64_t nnz, const double *v64, float *v32)
{
    if (nnz < 1) return (int)cudaSuccess;
    to_f32_kernel<<<mpcgi_blocks_for(nnz, 256), 256, 0, (cudaStream_t)stream>>>(nnz, v64, v32);
    return (int)cudaGetLastError();
}

} /* extern "C" */
