/* spmv/adaptive/spmv.cuh: the adaptive backend's SpMV kernels, CSR-vector with NT threads per row
 * (Mukunoki and Takahashi's adaptive CRS), and the tiles path's SpMV; instantiated by one file
 * per launcher */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_SPMV_CUH
#define MPCG_SPMV_ADAPTIVE_SPMV_CUH

/*
 * spmv<DOT, T> below picks one of the plan's template instances (NT, R, loads, column width,
 * path). Each launcher instantiates it in a file of its own (spmv_f64.cu, spmv_f32.cu,
 * spmv_dot_f64.cu, spmv_mixed.cu), so each is a module of its own: CUDA loads a module at the
 * first launch of one of its kernels, and an fp64 solve never loads the fp32 instances
 * (docs/backends/adaptive.md, "The first plan of a process").
 */
#include <climits>
#include <type_traits>
#include <cuda_runtime.h>

#include "core/launch.cuh"
#include "spmv/adaptive/device.cuh"
#include "spmv/adaptive/kernels.h"

#define WARPS_MAX (MPCGI_ADAPTIVE_MAX_BLOCK / 32)
#define DOT_THREADS 1024
#define DOT_CHUNK MPCGI_ADAPTIVE_DOT_CHUNK
/* Blocks of MPCGI_ADAPTIVE_MAX_BLOCK threads an SM must hold: 2, i.e. at most 32 registers, the
 * full 2048 threads per SM. Without it the fused dot (R = 2) takes more registers, fewer blocks
 * per SM, and runs slower than the SpMV alone (docs/backends/adaptive.md, "`apply_dot` (fused
 * SpMV + dot, fp64)"); R = 4 keeps its registers (32 would spill). */
#define MIN_BLOCKS (2048 / MPCGI_ADAPTIVE_MAX_BLOCK)

/* Virtual block v < long_blocks: one chunk of a long row. part: the chunk partials (ws);
 * dlong: the long rows' terms x_r y_r of the dot. */
template <bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static __device__ void long_chunk(const mpcgi_adaptive_launch &L, int64_t v, V val,
                                  const S &src, T *__restrict__ y,
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
 * end of every virtual block (two barriers; virtual blocks of 128 threads live a few
 * microseconds), or the last block finishing the sum (a fence and an atomic counter per block),
 * makes the fused SpMV + dot markedly slower than the SpMV alone (docs/backends/adaptive.md,
 * "`apply_dot` (fused SpMV + dot, fp64)"). */
static __device__ void warp_partial(const mpcgi_adaptive_launch &L, double *ws, double dacc)
{
    const int warps = mpcgi_adaptive_dot_warps(&L), w = (int)threadIdx.x / 32;
    if (w >= warps) return; /* the staged path: a warp past its tile's rows (whole warps) */
    dacc = warp_sum(dacc);
    if ((threadIdx.x & 31) == 0)
        ws[L.long_blocks + L.n_long + (int64_t)blockIdx.x * warps + w] = dacc;
}

/* The dot: the `parts` warp partials, then the long rows' terms, in a fixed order. Block b of
 * the grid adds partials [b DOT_CHUNK, (b + 1) DOT_CHUNK), one per thread, by block_sum<true>;
 * with one block that is the dot, else each block stores its sum and the block that finishes
 * last (an integer counter, after a fence) adds the block sums (a few per thread, in order) and
 * the long rows' terms the same way. The split depends on `parts` alone, so the order is
 * fixed. One partial per thread and tree sums because the reduction is latency-bound: many
 * partials per block and a serial sum of the warp sums take a visible share of the CG iteration
 * (docs/backends/adaptive.md, "`apply_dot` (fused SpMV + dot, fp64)"). */
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
           *stage = part + (int64_t)L.dot_grid * mpcgi_adaptive_dot_warps(&L);
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
template <int B, int R, bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static __device__ __forceinline__ void bin_vblock(const mpcgi_adaptive_launch &L, int64_t v,
                                                  V val, const S &src,
                                                  T *__restrict__ y, double &dacc)
{
    constexpr int NT = 64 >> B;
    const int64_t per = (int64_t)R * (blockDim.x / NT);
    vblock_rows<NT, R, STREAM, DOT, true, C16>(L, (v - L.vb_start[B - 1]) * per, L.row_count[B],
                                          L.rows + L.row_start[B], val, src, y, dacc);
}

template <int R, bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static __device__ __forceinline__ void binned_vblock(const mpcgi_adaptive_launch &L, int64_t v,
                                                     V val, const S &src,
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
 * rows: with NT > 0 consecutive rows, NT lanes each (the paper's kernel: the uniform and split
 * paths), with NT = 0 the bins of the row list (binned path). Blocks stride over the virtual
 * blocks. x comes from src (spmv/adaptive/device.cuh). */
template <int NT, int R, bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static __global__ void __launch_bounds__(MPCGI_ADAPTIVE_MAX_BLOCK, R < 4 ? MIN_BLOCKS : 1)
    spmv_kernel(const __grid_constant__ mpcgi_adaptive_launch L, V val, S src,
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

/*
 * The staged uniform path (L.staged_rows > 0). Block v sums the tile of rows
 * [v staged_rows, (v + 1) staged_rows), whose entries fit in STAGED_PER_THREAD per thread. The
 * block stages the tile's row pointers and copies its values and columns to shared memory
 * (thread t loads entries t, t + STAGED_BLOCK, ...: every load of the tile issued before the
 * first store), then thread t sums row t of the tile from there: fma from 0 in entry order, the
 * uniform path's sum with NT = 1 (what the emulation computes for it). The copy puts a whole
 * tile's loads in flight at once, where a group of NT lanes a row has two strides of one row's
 * entries in flight. One tile per block, straight code: the same work inside a loop over
 * tiles, even a loop of one trip, runs markedly slower (docs/backends/adaptive.md, "The staged
 * uniform path"), so apply and apply_dot launch a block per tile (vblocks) and the path takes no
 * adaptive.grid or adaptive.dot_grid. At most 40 registers with or without the dot: 12 blocks an
 * SM. The dot writes a partial for each warp that can hold rows of a tile
 * (mpcgi_adaptive_dot_warps), not one for every warp of the block.
 */
template <bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static __global__ void __launch_bounds__(MPCGI_ADAPTIVE_STAGED_BLOCK, 12)
    staged_kernel(const __grid_constant__ mpcgi_adaptive_launch L, V val, S src,
                  T *__restrict__ y, double *ws, const int *skip)
{
    using C = typename std::conditional<C16, int16_t, int32_t>::type;
    constexpr int BLOCK = MPCGI_ADAPTIVE_STAGED_BLOCK, PER = MPCGI_ADAPTIVE_STAGED_PER_THREAD;
    __shared__ T sv[MPCGI_ADAPTIVE_STAGED_CAP];
    __shared__ C sc[MPCGI_ADAPTIVE_STAGED_CAP];
    __shared__ int sp[BLOCK + 1];
    const C *col;
    if constexpr (C16) col = L.col16;
    else col = L.col_idx;
    mpcgi_pdl_start();
    if (DOT && skip && *skip) return;
    src.start();
    const int t = (int)threadIdx.x, r0 = (int)blockIdx.x * L.staged_rows;
    const int rows = (int)L.n - r0 < L.staged_rows ? (int)L.n - r0 : L.staged_rows;
    for (int i = t; i <= rows; i += BLOCK)
        sp[i] = __ldg(L.row_ptr + r0 + i);
    const int k0 = __ldg(L.row_ptr + r0), cnt = __ldg(L.row_ptr + r0 + rows) - k0;
    T a[PER];
    C c[PER];
#pragma unroll
    for (int u = 0; u < PER; u++)
        if (t + u * BLOCK < cnt) {
            a[u] = load_matrix<STREAM>(val + k0 + t + u * BLOCK);
            c[u] = load_matrix<STREAM>(col + k0 + t + u * BLOCK);
        }
#pragma unroll
    for (int u = 0; u < PER; u++)
        if (t + u * BLOCK < cnt) sv[t + u * BLOCK] = a[u], sc[t + u * BLOCK] = c[u];
    __syncthreads();
    double dacc = 0;
    if (t < rows) {
        const int i = r0 + t, e = sp[t + 1] - k0;
        T acc = 0;
        for (int k = sp[t] - k0; k < e; k++)
            acc = fmadd(sv[k], src(C16 ? i + (int)sc[k] : (int)sc[k]), acc);
        y[i] = acc;
        if constexpr (DOT) {
            const T xi = src(i);
            src.keep(i, xi);
            dacc = (double)xi * (double)acc;
        }
    }
    if constexpr (DOT) warp_partial(L, ws, dacc); /* a partial for each warp that can hold rows */
}

/* ---------------------------------------------------------------- launchers of the SpMV */

/* Every SpMV kernel of compute type T, source S and values V (a pointer to T, or
 * mpcgi_split_vals) has this signature. */
template <typename T, typename S, typename V>
using kernel_fn = void (*)(const mpcgi_adaptive_launch, V, S, T *, double *, const int *);

template <int R, bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static kernel_fn<T, S, V> pick_path(const mpcgi_adaptive_launch *L)
{
    if (L->path == MPCGI_ADAPTIVE_BINNED) return spmv_kernel<0, R, STREAM, DOT, C16, T, S, V>;
    switch (L->nt) {
    case 1: return spmv_kernel<1, R, STREAM, DOT, C16, T, S, V>;
    case 2: return spmv_kernel<2, R, STREAM, DOT, C16, T, S, V>;
    case 4: return spmv_kernel<4, R, STREAM, DOT, C16, T, S, V>;
    case 8: return spmv_kernel<8, R, STREAM, DOT, C16, T, S, V>;
    case 16: return spmv_kernel<16, R, STREAM, DOT, C16, T, S, V>;
    default: return spmv_kernel<32, R, STREAM, DOT, C16, T, S, V>;
    }
}

template <bool STREAM, bool DOT, bool C16, typename T, typename S, typename V>
static kernel_fn<T, S, V> pick_rows(const mpcgi_adaptive_launch *L)
{
    switch (L->rows_per_group) {
    case 1: return pick_path<1, STREAM, DOT, C16, T, S, V>(L);
    case 2: return pick_path<2, STREAM, DOT, C16, T, S, V>(L);
    default: return pick_path<4, STREAM, DOT, C16, T, S, V>(L);
    }
}

template <bool DOT, bool C16, typename T, typename S, typename V>
static kernel_fn<T, S, V> pick_index(const mpcgi_adaptive_launch *L)
{
    return L->stream_loads ? pick_rows<true, DOT, C16, T, S, V>(L)
                           : pick_rows<false, DOT, C16, T, S, V>(L);
}

template <bool DOT, bool C16, typename T, typename S, typename V>
static kernel_fn<T, S, V> pick_staged(const mpcgi_adaptive_launch *L)
{
    return L->stream_loads ? staged_kernel<true, DOT, C16, T, S, V>
                           : staged_kernel<false, DOT, C16, T, S, V>;
}

/* The kernel of a plan. */
template <bool DOT, typename T, typename S, typename V>
static kernel_fn<T, S, V> pick(const mpcgi_adaptive_launch *L)
{
    if (L->staged_rows > 0)
        return L->col16 ? pick_staged<DOT, true, T, S, V>(L) : pick_staged<DOT, false, T, S, V>(L);
    return L->col16 ? pick_index<DOT, true, T, S, V>(L) : pick_index<DOT, false, T, S, V>(L);
}

template <bool DOT, typename T>
static int tiles_spmv(void *stream, const mpcgi_adaptive_launch *L, const T *val, const T *x, T *y,
                      double *ws, double *dot, const int *skip);

/* Blocks of one launch: apply one per virtual block (or L->grid, striding), apply_dot the
 * plan's fixed dot grid (at most one per virtual block; its partials are summed in a fixed
 * order); the staged path one per tile in both. val: a pointer to T, or the mixed storage's
 * mpcgi_split_vals (not on the tiles path: its caller refuses it there). */
template <bool DOT, typename T, typename V>
static int spmv(void *stream, const mpcgi_adaptive_launch *L, V val, const T *x, T *y,
                double *ws, double *dot, const int *skip)
{
    using S = mpcgi_src_x<T>;
    if (L->path == MPCGI_ADAPTIVE_TILES) {
        if constexpr (std::is_same<V, const T *>::value)
            return tiles_spmv<DOT>(stream, L, val, x, y, ws, dot, skip);
        else
            return (int)cudaErrorNotSupported;
    }
    int64_t grid = L->staged_rows > 0 ? L->vblocks /* a block per tile, no loop */
                   : DOT                ? L->dot_grid
                   : L->grid > 0        ? L->grid
                                        : L->vblocks;
    if (grid > L->vblocks) grid = L->vblocks;
    if (grid > INT_MAX) grid = INT_MAX;
    if (grid < 1) {
        if (!DOT) return (int)cudaSuccess; /* no rows */
        grid = 1;                          /* still writes dot = 0 */
    }
    cudaError_t e = mpcgi_launch(pick<DOT, T, S, V>(L), (unsigned)grid, (unsigned)L->block, stream,
                                 *L, val, S{x}, y, ws, skip);
    if constexpr (DOT) {
        const int parts = (int)grid * mpcgi_adaptive_dot_warps(L);
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
 * One block per tile of rows (spmv/adaptive/tiles_setup.c), y of the tile in shared memory (ys):
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

/* The slots' values of precision T. */
static inline const double *slot_values(const mpcgi_adaptive_launch *L, double)
{
    return L->tval64;
}
static inline const float *slot_values(const mpcgi_adaptive_launch *L, float)
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

#endif /* MPCG_SPMV_ADAPTIVE_SPMV_CUH */
