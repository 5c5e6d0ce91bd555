/* spmv/adaptive.cu: CSR-vector kernels with NT threads per row (seed 003), row binning on the GPU
 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <climits>
#include <cuda_runtime.h>
#include <type_traits>

#include "core/launch.cuh"
#include "spmv/adaptive_device.cuh"
#include "spmv/adaptive_kernels.h"

#define WARPS_MAX (MPCGI_ADAPTIVE_MAX_BLOCK / 32)
#define SETUP_THREADS MPCGI_ADAPTIVE_SETUP_THREADS
#define SETUP_WARPS (SETUP_THREADS / 32)
#define DOT_THREADS 1024
#define DOT_CHUNK MPCGI_ADAPTIVE_DOT_CHUNK
/* Blocks of MPCGI_ADAPTIVE_MAX_BLOCK threads an SM must hold: 2, i.e. at most 32 registers, the
 * full 2048 threads per SM. Without it the fused dot (R = 2) took 48 registers, 10 blocks of 128
 * per SM instead of 16, and ran 1.15 - 1.25 times slower than the SpMV alone; R = 4 keeps its
 * registers (32 would spill). */
#define MIN_BLOCKS (2048 / MPCGI_ADAPTIVE_MAX_BLOCK)

/* Virtual block v < long_blocks: one chunk of a long row. part: the chunk partials (ws);
 * dlong: the long rows' terms x_r y_r of the dot. */
template <bool STREAM, bool DOT, bool C16, typename T, typename S>
static __device__ void long_chunk(const mpcgi_adaptive_launch &L, int64_t v,
                                  const T *__restrict__ val, const S &src, T *__restrict__ y,
                                  T *part, double *dlong, T *sh)
{
    int lo = 0, hi = L.n_long; /* long_start[lo] <= v < long_start[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (L.long_start[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    const int first = L.long_start[lo], nblk = L.long_start[lo + 1] - first;
    const int r = L.rows[lo]; /* the long rows open the row list */
    const int64_t row_end = L.row_ptr[r + 1];
    const int64_t start = L.row_ptr[r] + (v - first) * (int64_t)L.chunk;
    const int end = (int)(start + L.chunk < row_end ? start + L.chunk : row_end);
    const mpcgi_cols<C16> cols{L.col_idx, L.col16};
    T acc = 0;
#pragma unroll 4
    for (int k = (int)start + (int)threadIdx.x; k < end; k += (int)blockDim.x)
        acc = fmadd(load_matrix<STREAM>(val + k), src(cols.template col<STREAM>(k, r)), acc);
    T p = block_sum(acc, sh);
    if (threadIdx.x == 0) {
        bool finish = nblk == 1;
        if (!finish) {
            part[v] = p;
            __threadfence();
            finish = atomicAdd(&L.counters[lo], 1) == nblk - 1; /* the last chunk done */
            if (finish) {
                __threadfence();
                p = __ldcg(part + first);
                for (int c = 1; c < nblk; c++)
                    p += __ldcg(part + first + c);
                L.counters[lo] = 0; /* ready for the next SpMV */
            }
        }
        if (finish) {
            y[r] = p;
            if constexpr (DOT) {
                const T xr = src(r);
                src.keep(r, xr);
                dlong[lo] = (double)xr * (double)p;
            }
        }
    }
}

/* The dot's first level: each warp's partial (its lanes' terms in butterfly order) goes to ws,
 * dot_reduce_kernel, launched after, adds them. Per warp, not per block: a block-wide sum at the
 * end of every virtual block (two barriers) made the fused SpMV + dot 1.2 times slower than the
 * SpMV alone on poisson3d:256 (virtual blocks of 128 threads live a few microseconds), and the
 * last block finishing the sum (a fence and an atomic counter per block) up to 1.6 times. */
static __device__ void warp_partial(const mpcgi_adaptive_launch &L, double *ws, double dacc)
{
    dacc = warp_sum(dacc);
    if ((threadIdx.x & 31) == 0)
        ws[L.long_blocks + L.n_long + ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32] = dacc;
}

/* The dot: the `parts` warp partials, then the long rows' terms, in a fixed order. Block b of
 * the grid adds partials [b DOT_CHUNK, (b + 1) DOT_CHUNK), one per thread, by block_sum<true>;
 * with one block that is the dot, else each block stores its sum and the block that finishes
 * last (an integer counter, after a fence) adds the block sums (a few per thread, in order) and
 * the long rows' terms the same way. The split depends on `parts` alone, so the order is
 * fixed. One partial per thread and tree sums because the reduction is latency-bound: 8192
 * partials per block and a serial sum of the warp sums took 8 - 10 us on poisson3d:128 and
 * poisson3d27:96 (ncu, H100), 6 - 8 % of the CG iteration. */
static __device__ double dot_sum(const double *part, int64_t lo, int64_t hi, const double *more,
                                 int n_more, double *sh)
{
    double t = 0;
#pragma unroll 4
    for (int64_t b = lo + threadIdx.x; b < hi; b += DOT_THREADS)
        t += __ldcg(part + b);
    for (int j = threadIdx.x; j < n_more; j += DOT_THREADS)
        t += more[j];
    return block_sum<true>(t, sh);
}

static __global__ void __launch_bounds__(DOT_THREADS)
    dot_reduce_kernel(const __grid_constant__ mpcgi_adaptive_launch L, double *ws, int parts,
                      double *dot, const int *skip)
{
    __shared__ double sh[DOT_THREADS / 32];
    __shared__ bool last;
    mpcgi_pdl_start();
    if (skip && *skip) return;
    double *dlong = ws + L.long_blocks, *part = dlong + L.n_long,
           *stage = part + (int64_t)L.dot_grid * (L.block / 32);
    const int64_t lo = (int64_t)blockIdx.x * DOT_CHUNK;
    const int64_t hi = lo + DOT_CHUNK < parts ? lo + DOT_CHUNK : parts;
    if (gridDim.x == 1) {
        const double t = dot_sum(part, lo, hi, dlong, L.n_long, sh);
        if (threadIdx.x == 0) *dot = t;
        return;
    }
    const double t = dot_sum(part, lo, hi, nullptr, 0, sh);
    int *arrived = L.counters + L.n_long;
    if (threadIdx.x == 0) {
        stage[blockIdx.x] = t;
        __threadfence(); /* the block sum is visible before the count says so */
        last = atomicAdd(arrived, 1) == (int)gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence(); /* the other blocks' sums are read after their counts */
    const double total = dot_sum(stage, 0, gridDim.x, dlong, L.n_long, sh);
    if (threadIdx.x == 0) {
        *dot = total;
        *arrived = 0; /* ready for the next dot */
    }
}

/* Virtual block v of the binned path: its bin (uniform per block, so the switch does not
 * diverge), then bin B's rows with NT = 64 >> B lanes each. */
template <int B, int R, bool STREAM, bool DOT, bool C16, typename T, typename S>
static __device__ __forceinline__ void bin_vblock(const mpcgi_adaptive_launch &L, int64_t v,
                                                  const T *__restrict__ val, const S &src,
                                                  T *__restrict__ y, double &dacc)
{
    constexpr int NT = 64 >> B;
    const int64_t per = (int64_t)R * (blockDim.x / NT);
    vblock_rows<NT, R, STREAM, DOT, true, C16>(L, (v - L.vb_start[B - 1]) * per, L.row_count[B],
                                          L.rows + L.row_start[B], val, src, y, dacc);
}

template <int R, bool STREAM, bool DOT, bool C16, typename T, typename S>
static __device__ __forceinline__ void binned_vblock(const mpcgi_adaptive_launch &L, int64_t v,
                                                     const T *__restrict__ val, const S &src,
                                                     T *__restrict__ y, double &dacc)
{
    int b = 1 + (v >= L.vb_start[1]) + (v >= L.vb_start[2]) + (v >= L.vb_start[3]) +
            (v >= L.vb_start[4]) + (v >= L.vb_start[5]);
    switch (b) {
    case 1: bin_vblock<1, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    case 2: bin_vblock<2, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    case 3: bin_vblock<3, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    case 4: bin_vblock<4, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    case 5: bin_vblock<5, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    default: bin_vblock<6, R, STREAM, DOT, C16>(L, v, val, src, y, dacc); break;
    }
}

/* The one SpMV kernel. Virtual blocks [0, long_blocks) are long-row chunks; the others hold
 * rows: with NT > 0 consecutive rows, NT lanes each (the seed's kernel: the uniform and split
 * paths), with NT = 0 the bins of the row list (binned path). Blocks stride over the virtual
 * blocks. x comes from src (a vector, or the CG direction formed on the fly). */
template <int NT, int R, bool STREAM, bool DOT, bool C16, typename T, typename S>
static __global__ void __launch_bounds__(MPCGI_ADAPTIVE_MAX_BLOCK, R < 4 ? MIN_BLOCKS : 1)
    spmv_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const T *__restrict__ val, S src,
                T *__restrict__ y, double *ws, const int *skip)
{
    __shared__ T sh[WARPS_MAX];
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    src.start();
    double dacc = 0;
    for (int64_t v = blockIdx.x; v < L.vblocks; v += gridDim.x) {
        if (v < L.long_blocks) {
            long_chunk<STREAM, DOT, C16>(L, v, val, src, y, (T *)ws, ws + L.long_blocks, sh);
        } else if constexpr (NT > 0) {
            const int64_t per = (int64_t)R * (blockDim.x / NT);
            vblock_rows<NT, R, STREAM, DOT, false, C16>(L, (v - L.long_blocks) * per, L.n, nullptr,
                                                        val, src, y, dacc);
        } else {
            binned_vblock<R, STREAM, DOT, C16>(L, v, val, src, y, dacc);
        }
    }
    if constexpr (DOT) warp_partial(L, ws, dacc);
}

/* ---------------------------------------------------------------- launchers of the SpMV */

/* Every SpMV kernel of value type T and source S has this signature. */
template <typename T, typename S>
using kernel_fn = void (*)(const mpcgi_adaptive_launch, const T *, S, T *, double *, const int *);

template <int R, bool STREAM, bool DOT, bool C16, typename T, typename S>
static kernel_fn<T, S> pick_path(const mpcgi_adaptive_launch *L)
{
    if (L->path == MPCGI_ADAPTIVE_BINNED) return spmv_kernel<0, R, STREAM, DOT, C16, T, S>;
    switch (L->nt) {
    case 1: return spmv_kernel<1, R, STREAM, DOT, C16, T, S>;
    case 2: return spmv_kernel<2, R, STREAM, DOT, C16, T, S>;
    case 4: return spmv_kernel<4, R, STREAM, DOT, C16, T, S>;
    case 8: return spmv_kernel<8, R, STREAM, DOT, C16, T, S>;
    case 16: return spmv_kernel<16, R, STREAM, DOT, C16, T, S>;
    default: return spmv_kernel<32, R, STREAM, DOT, C16, T, S>;
    }
}

template <bool STREAM, bool DOT, bool C16, typename T, typename S>
static kernel_fn<T, S> pick_rows(const mpcgi_adaptive_launch *L)
{
    switch (L->rows_per_group) {
    case 1: return pick_path<1, STREAM, DOT, C16, T, S>(L);
    case 2: return pick_path<2, STREAM, DOT, C16, T, S>(L);
    default: return pick_path<4, STREAM, DOT, C16, T, S>(L);
    }
}

template <bool DOT, bool C16, typename T, typename S>
static kernel_fn<T, S> pick_index(const mpcgi_adaptive_launch *L)
{
    return L->stream_loads ? pick_rows<true, DOT, C16, T, S>(L)
                           : pick_rows<false, DOT, C16, T, S>(L);
}

/* The kernel of a plan. */
template <bool DOT, typename T, typename S>
static kernel_fn<T, S> pick(const mpcgi_adaptive_launch *L)
{
    return L->col16 ? pick_index<DOT, true, T, S>(L) : pick_index<DOT, false, T, S>(L);
}

template <bool DOT, typename T>
static int tiles_spmv(void *stream, const mpcgi_adaptive_launch *L, const T *val, const T *x, T *y,
                      double *ws, double *dot, const int *skip);

/* Blocks of one launch: apply one per virtual block (or L->grid, striding), apply_dot the
 * plan's fixed dot grid (at most one per virtual block; its partials are summed in a fixed
 * order). The tiles path takes x itself (its direction is formed before: see the caller). */
template <bool DOT, typename T, typename S>
static int spmv(void *stream, const mpcgi_adaptive_launch *L, const T *val, S src, T *y, double *ws,
                double *dot, const int *skip)
{
    if constexpr (std::is_same_v<S, mpcgi_src_x<T>>)
        if (L->path == MPCGI_ADAPTIVE_TILES)
            return tiles_spmv<DOT>(stream, L, val, src.x, y, ws, dot, skip);
    int64_t grid = DOT ? L->dot_grid : L->grid > 0 ? L->grid : L->vblocks;
    if (grid > L->vblocks) grid = L->vblocks;
    if (grid > INT_MAX) grid = INT_MAX;
    if (grid < 1) {
        if (!DOT) return (int)cudaSuccess; /* no rows */
        grid = 1;                          /* still writes dot = 0 */
    }
    cudaError_t e = mpcgi_launch(pick<DOT, T, S>(L), (unsigned)grid, (unsigned)L->block, stream,
                                 *L, val, src, y, ws, skip);
    if constexpr (DOT) {
        const int parts = (int)grid * (L->block / 32);
        if (e == cudaSuccess)
            e = mpcgi_launch(dot_reduce_kernel, (unsigned)mpcgi_adaptive_dot_stages(parts),
                             DOT_THREADS, stream, *L, ws, parts, dot, skip);
    }
    return (int)e;
}

/* ---------------------------------------------------------------- the tiles path */

#define TILE_BS MPCGI_ADAPTIVE_TILE_BLOCK
#define TILE_D MPCGI_ADAPTIVE_TILE_BATCH

/*
 * One block per tile of rows (spmv/adaptive.c, "tiles"), y of the tile in shared memory (ys):
 *   - its long rows first: one longer than TILE_BLOCK_ROW by the whole block (thread t strides
 *     by the block, block_sum), each other one by a warp (lanes stride by 32, warp_sum); the sum
 *     is stored in ys;
 *   - then its rounds, TILE_BATCH at a time: every thread loads its slot of each round (row in
 *     tile, value, column) and gathers x for it, then the rounds are applied in order, a barrier
 *     after each: ys[row] = fma(value, x, ys[row]). No row occurs twice in a round, so the
 *     additions need no atomics and a row's entries are added in round order;
 *   - ys goes to y (with DOT, x_i y_i to the warp partials of the dot).
 * x is gathered through L2 only (ld.global.cg): the L1 is small next to the tile's y, and the
 * slots of a warp, in column order, share cache lines within the one load.
 */
template <bool DOT, typename T>
static __global__ void __launch_bounds__(TILE_BS, 1)
    tile_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const T *__restrict__ tval,
                const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, double *ws,
                const int *skip)
{
    extern __shared__ __align__(16) unsigned char tile_shared[];
    T *ys = (T *)tile_shared;
    __shared__ T sh[TILE_BS / 32];
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    const int t = blockIdx.x, r0 = L.tile_row[t], nrows = L.tile_row[t + 1] - r0;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < nrows; i += TILE_BS)
        ys[i] = 0;
    __syncthreads();
    const int j0 = L.tile_long[t], j1 = L.tile_long[t + 1];
    /* the rows for the whole block, found TILE_BS long rows at a time (their order does not
     * matter: each sum is its own) */
    __shared__ int big[TILE_BS], n_big;
    for (int base = j0; base < j1; base += TILE_BS) {
        if (threadIdx.x == 0) n_big = 0;
        __syncthreads();
        const int j = base + (int)threadIdx.x;
        if (j < j1) {
            const int r = L.rows[j];
            if (L.row_ptr[r + 1] - L.row_ptr[r] > MPCGI_ADAPTIVE_TILE_BLOCK_ROW)
                big[atomicAdd(&n_big, 1)] = r;
        }
        __syncthreads();
        for (int i = 0; i < n_big; i++) { /* every thread: block_sum holds barriers */
            const int r = big[i], b = L.row_ptr[r], e = L.row_ptr[r + 1];
            T acc = 0;
            for (int k = b + (int)threadIdx.x; k < e; k += TILE_BS)
                acc = fmadd(__ldcs(val + k), __ldg(x + __ldcs(L.col_idx + k)), acc);
            const T sum = block_sum(acc, sh);
            if (threadIdx.x == 0) ys[r - r0] = sum;
        }
    }
    for (int j = j0 + warp; j < j1; j += TILE_BS / 32) {
        const int r = L.rows[j], b = L.row_ptr[r], e = L.row_ptr[r + 1];
        if (e - b > MPCGI_ADAPTIVE_TILE_BLOCK_ROW) continue;
        T acc = 0;
        for (int k = b + lane; k < e; k += 32)
            acc = fmadd(__ldcs(val + k), __ldg(x + __ldcs(L.col_idx + k)), acc);
        acc = warp_sum(acc);
        if (lane == 0) ys[r - r0] = acc;
    }
    __syncthreads();
    const int64_t first = L.tile_off[t] + threadIdx.x;
    const int rounds = (int)((L.tile_off[t + 1] - L.tile_off[t]) / TILE_BS);
    for (int q = 0; q < rounds; q += TILE_D) {
        T v[TILE_D], xv[TILE_D];
        int l[TILE_D];
#pragma unroll
        for (int u = 0; u < TILE_D; u++) {
            const int64_t s = first + (int64_t)(q + u) * TILE_BS;
            l[u] = __ldcs(L.slot_row + s);
            v[u] = 0, xv[u] = 0;
            if (l[u] != MPCGI_ADAPTIVE_TILE_EMPTY) {
                v[u] = __ldcs(tval + s);
                xv[u] = __ldcg(x + __ldcs(L.slot_col + s));
            }
        }
#pragma unroll
        for (int u = 0; u < TILE_D; u++) {
            if (l[u] != MPCGI_ADAPTIVE_TILE_EMPTY) ys[l[u]] = fmadd(v[u], xv[u], ys[l[u]]);
            __syncthreads();
        }
    }
    double dacc = 0;
    for (int i = threadIdx.x; i < nrows; i += TILE_BS) {
        const T yi = ys[i];
        y[r0 + i] = yi;
        if constexpr (DOT) dacc = fma((double)__ldg(x + r0 + i), (double)yi, dacc);
    }
    if constexpr (DOT) warp_partial(L, ws, dacc);
}

/* p_out = fma(beta, p, r): the CG direction of the tiles path, formed before its SpMV. */
static __global__ void direction_kernel(int64_t n, const double *__restrict__ r,
                                        const double *__restrict__ p, const double *beta_dev,
                                        double *__restrict__ p_out, const int *skip)
{
    mpcgi_pdl_start();
    if (skip && *skip) return;
    const double beta = *beta_dev;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p_out[i] = fma(beta, p[i], r[i]);
}

/* The slots' values of precision T. */
static const double *slot_values(const mpcgi_adaptive_launch *L, double)
{
    return L->tval64;
}
static const float *slot_values(const mpcgi_adaptive_launch *L, float)
{
    return L->tval32;
}

template <bool DOT, typename T>
static int tiles_spmv(void *stream, const mpcgi_adaptive_launch *L, const T *val, const T *x, T *y,
                      double *ws, double *dot, const int *skip)
{
    const T *tval = slot_values(L, T(0));
    /* y of the largest tile; the limit is raised on every call (the static arrays count
     * against the default 48 KiB too) */
    const size_t smem = (size_t)L->tile_max_rows * sizeof(T);
    cudaError_t e = cudaFuncSetAttribute(tile_kernel<DOT, T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess)
        e = mpcgi_launch_smem(tile_kernel<DOT, T>, (unsigned)L->tiles, TILE_BS, smem, stream, *L,
                              tval, val, x, y, ws, skip);
    if constexpr (DOT) {
        const int parts = L->tiles * (TILE_BS / 32);
        if (e == cudaSuccess)
            e = mpcgi_launch(dot_reduce_kernel, (unsigned)mpcgi_adaptive_dot_stages(parts),
                             DOT_THREADS, stream, *L, ws, parts, dot, skip);
    }
    return (int)e;
}

/* ---------------------------------------------------------------- setup: binning on the GPU */

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

int mpcgi_adaptive_spmv_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                            const double *x, double *y, double *ws)
{
    return spmv<false>(stream, L, val, mpcgi_src_x<double>{x}, y, ws, (double *)nullptr,
                       (const int *)nullptr);
}

int mpcgi_adaptive_spmv_f32(void *stream, const mpcgi_adaptive_launch *L, const float *val,
                            const float *x, float *y, double *ws)
{
    return spmv<false>(stream, L, val, mpcgi_src_x<float>{x}, y, ws, (double *)nullptr,
                       (const int *)nullptr);
}

int mpcgi_adaptive_spmv_dot_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                                const double *x, double *y, double *ws, double *dot,
                                const int *skip)
{
    return spmv<true>(stream, L, val, mpcgi_src_x<double>{x}, y, ws, dot, skip);
}

int mpcgi_adaptive_spmv_direction_dot_f64(void *stream, const mpcgi_adaptive_launch *L,
                                          const double *val, const double *r, const double *p,
                                          const double *beta_dev, double *p_out, double *y,
                                          double *ws, double *dot, const int *skip)
{
    if (L->path == MPCGI_ADAPTIVE_TILES) {
        cudaError_t e = mpcgi_launch(direction_kernel, mpcgi_blocks_for(L->n, 256), 256, stream,
                                     L->n, r, p, beta_dev, p_out, skip);
        if (e != cudaSuccess) return (int)e;
        return spmv<true>(stream, L, val, mpcgi_src_x<double>{p_out}, y, ws, dot, skip);
    }
    return spmv<true>(stream, L, val, mpcgi_src_direction<false>{r, p, p_out, beta_dev, 0.0}, y,
                      ws, dot, skip);
}

} /* extern "C" */
