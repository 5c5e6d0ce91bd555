/* spmv/adaptive_tiles.cu: the setup of the adaptive backend's tiles path on the GPU (sort each
 * tile's entries by column, deal them into rounds, lay out the slots) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "spmv/adaptive_kernels.h"

/*
 * spmv/adaptive.c describes the layout and builds the same one on the host for CPU plans:
 *   1. keys: entry k of a short row i of tile t gets (t, col k), one of a long row the key past
 *      every tile; a stable radix sort orders each tile's short entries by column, ties in entry
 *      (row) order;
 *   2. levels (one block per tile): the sorted list is read in rounds of TILE_BLOCK entries; in
 *      each round the first entry of each row keeps its place, any later one of the same row
 *      moves, in order, to the list of the next level; the next level is read the same way, until
 *      a level is empty. An entry's place is (level, position in the level's list);
 *   3. slots (after the host has counted each tile's rounds, every level starting a round and a
 *      tile's rounds padded to whole batches): entry (level v, position j) of tile t goes to slot
 *      tile_off[t] + (level_round[t][v] + j / TILE_BLOCK) TILE_BLOCK + j % TILE_BLOCK.
 */

#define BS MPCGI_ADAPTIVE_TILE_BLOCK
#define KEY_THREADS 256

/* Scratch layout (nnz entries each, 8-byte aligned). */
struct scratch_view {
    uint64_t *key[2];
    int32_t *ent[2];
    int32_t *place; /* by sorted position: position in its level's list */
    int32_t *list;  /* a level's list of sorted positions (per tile, at its first position) */
    int32_t *list2;
    uint16_t *lrow;  /* by entry: row in its tile */
    uint16_t *slrow; /* the same by sorted position */
    uint8_t *level;  /* by sorted position */
    int32_t *seg; /* tiles + 1: first sorted position of each tile */
    void *cub;
    size_t cub_bytes;
};

static size_t align8(size_t b)
{
    return (b + 7) / 8 * 8;
}

static size_t cub_bytes_for(int64_t nnz)
{
    size_t b32 = 0, b64 = 0;
    cub::DoubleBuffer<uint32_t> k32(nullptr, nullptr);
    cub::DoubleBuffer<uint64_t> k64(nullptr, nullptr);
    cub::DoubleBuffer<int32_t> v(nullptr, nullptr);
    (void)cub::DeviceRadixSort::SortPairs(nullptr, b32, k32, v, (int)nnz, 0, 32);
    (void)cub::DeviceRadixSort::SortPairs(nullptr, b64, k64, v, (int)nnz, 0, 64);
    return align8(b32 > b64 ? b32 : b64);
}

static scratch_view view_of(void *base, int64_t nnz, int tiles)
{
    scratch_view s;
    char *p = (char *)base;
    const size_t m = (size_t)(nnz > 0 ? nnz : 1);
    for (int i = 0; i < 2; i++)
        s.key[i] = (uint64_t *)p, p += align8(m * 8);
    for (int i = 0; i < 2; i++)
        s.ent[i] = (int32_t *)p, p += align8(m * 4);
    s.place = (int32_t *)p, p += align8(m * 4);
    s.list = (int32_t *)p, p += align8(m * 4);
    s.list2 = (int32_t *)p, p += align8(m * 4);
    s.lrow = (uint16_t *)p, p += align8(m * 2);
    s.slrow = (uint16_t *)p, p += align8(m * 2);
    s.level = (uint8_t *)p, p += align8(m);
    s.seg = (int32_t *)p, p += align8(((size_t)tiles + 1) * 4);
    s.cub = p;
    s.cub_bytes = cub_bytes_for(nnz);
    return s;
}

/* Bits of a column (at least 1). */
static int bits_of(int64_t v)
{
    int b = 1;
    while (b < 63 && (v >> b) != 0)
        b++;
    return b;
}

/* Keys (K: 32 bits where the tile and column bits fit, else 64) and rows in tile, a warp per
 * row; block t holds tile t. */
template <typename K>
static __global__ void __launch_bounds__(KEY_THREADS)
    keys_kernel(int tiles, const int32_t *__restrict__ tile_row, const int32_t *__restrict__ rp,
                const int32_t *__restrict__ col, int long_min, int cbits, K *__restrict__ key,
                int32_t *__restrict__ ent, uint16_t *__restrict__ lrow)
{
    const int t = blockIdx.x, lane = threadIdx.x & 31;
    const int r0 = tile_row[t], r1 = tile_row[t + 1];
    const K past = (K)tiles << cbits;
    for (int r = r0 + (int)threadIdx.x / 32; r < r1; r += KEY_THREADS / 32) {
        const int b = rp[r], e = rp[r + 1];
        const bool is_long = e - b > long_min;
        for (int k = b + lane; k < e; k += 32) {
            key[k] = is_long ? past : ((K)t << cbits) | (K)col[k];
            ent[k] = k;
            lrow[k] = (uint16_t)(r - r0);
        }
    }
}

/* seg[t] = the first sorted position of tile t (t = 0 ... tiles: the long entries' start);
 * tile_long[t] = the first long row at or after tile t's first row. */
template <typename K>
static __global__ void bounds_kernel(int tiles, int64_t nnz, const K *__restrict__ key, int cbits,
                                     const int32_t *__restrict__ tile_row,
                                     const int32_t *__restrict__ rows, int n_long,
                                     int32_t *__restrict__ seg, int32_t *__restrict__ tile_long)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const K want = (K)t << cbits;
    int64_t lo = 0, hi = nnz;
    while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (key[mid] >= want) hi = mid;
        else lo = mid + 1;
    }
    seg[t] = (int32_t)lo;
    const int first = tile_row[t];
    int a = 0, b = n_long;
    while (a < b) {
        const int mid = (a + b) / 2;
        if (rows[mid] >= first) b = mid;
        else a = mid + 1;
    }
    tile_long[t] = a;
}

/* slrow[q] = lrow[sorted[q]]: the rows in sorted order, read in order (a tile's entries at a
 * time, so the gathers stay within its part of lrow, in L2), for the levels kernel's blocks, which
 * would otherwise each gather from all of lrow at once. */
static __global__ void sorted_rows_kernel(int64_t n_short, const int32_t *__restrict__ sorted,
                                          const uint16_t *__restrict__ lrow,
                                          uint16_t *__restrict__ slrow)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < n_short; q += stride)
        slrow[q] = lrow[sorted[q]];
}

/* Exclusive prefix of flag over the block and the block's total (warp ballots, then the warp
 * counts in warp order). */
static __device__ int block_rank(bool flag, int *warp_n, int *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned m = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_n[warp] = __popc(m);
    __syncthreads();
    int before = 0, all = 0;
    for (int w = 0; w < BS / 32; w++) {
        before += w < warp ? warp_n[w] : 0;
        all += warp_n[w];
    }
    __syncthreads();
    *total = all;
    return before + __popc(m & ((1u << lane) - 1));
}

/* Step 2 of the top comment, one block per tile: owner[row] is the thread of the round holding
 * that row (the smallest index: atomicMin on integers, order-free). */
static __global__ void __launch_bounds__(BS)
    levels_kernel(const int32_t *__restrict__ seg, const uint16_t *__restrict__ slrow,
                  int max_rows, int max_levels, int32_t *list, int32_t *list2,
                  int32_t *__restrict__ place, uint8_t *__restrict__ level,
                  int32_t *__restrict__ level_len, int *failed)
{
    extern __shared__ int owner[];
    __shared__ int warp_n[BS / 32];
    const int t = blockIdx.x, s0 = seg[t];
    int m = seg[t + 1] - s0;
    for (int i = threadIdx.x; i < max_rows; i += BS)
        owner[i] = INT_MAX;
    __syncthreads();
    int32_t *lev_len = level_len + (int64_t)t * max_levels;
    const int32_t *in = nullptr; /* level 0: the sorted positions themselves */
    int32_t *out = list + s0, *spare = list2 + s0;
    for (int v = 0; v < max_levels; v++)
        if (threadIdx.x == 0) lev_len[v] = 0;
    for (int v = 0; m > 0; v++) {
        if (v == max_levels) {
            if (threadIdx.x == 0) *failed = 1;
            return;
        }
        if (threadIdx.x == 0) lev_len[v] = m;
        int moved = 0;
        for (int base = 0; base < m; base += BS) {
            const int j = base + (int)threadIdx.x;
            const int k = j >= m ? -1 : in ? in[j] : s0 + j; /* a sorted position */
            const int l = k >= 0 ? slrow[k] : 0;
            if (k >= 0) atomicMin(&owner[l], (int)threadIdx.x);
            __syncthreads();
            const bool keep = k >= 0 && owner[l] == (int)threadIdx.x;
            __syncthreads();
            if (keep) {
                owner[l] = INT_MAX; /* only the owner resets it */
                place[k] = j;
                level[k] = (uint8_t)v;
            }
            int total;
            const int r = block_rank(k >= 0 && !keep, warp_n, &total);
            if (k >= 0 && !keep) out[moved + r] = k;
            moved += total;
        }
        __syncthreads(); /* this level's list is read before it is overwritten */
        in = out;
        int32_t *w = spare;
        spare = out;
        out = w;
        m = moved;
    }
}

/* Step 3: every short entry to its slot. */
static __global__ void slots_kernel(int64_t n_short, int tiles, const int32_t *__restrict__ seg,
                                    const int32_t *__restrict__ sorted,
                                    const int32_t *__restrict__ col,
                                    const uint16_t *__restrict__ slrow,
                                    const int32_t *__restrict__ place,
                                    const uint8_t *__restrict__ level, int max_levels,
                                    const int64_t *__restrict__ tile_off,
                                    const int32_t *__restrict__ level_round,
                                    int32_t *__restrict__ slot_col, uint16_t *__restrict__ slot_row,
                                    int32_t *__restrict__ slot_perm)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < n_short; q += stride) {
        int lo = 0, hi = tiles - 1; /* the tile: the last t with seg[t] <= q */
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (seg[mid] <= q) lo = mid;
            else hi = mid - 1;
        }
        const int t = lo, k = sorted[q], j = place[q];
        const int64_t round = level_round[(int64_t)t * max_levels + level[q]] + j / BS;
        const int64_t s = tile_off[t] + round * BS + j % BS;
        slot_col[s] = col[k];
        slot_row[s] = slrow[q];
        slot_perm[s] = k;
    }
}

template <typename T>
static __global__ void values_kernel(int64_t slots, const int32_t *__restrict__ perm,
                                     const double *__restrict__ val, T *__restrict__ tval)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < slots; s += stride) {
        const int32_t k = perm[s];
        tval[s] = k >= 0 ? (T)val[k] : T(0);
    }
}

static unsigned grid_for(int64_t items, int threads)
{
    int64_t b = (items + threads - 1) / threads;
    return (unsigned)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

/* The sort's key bits: the tile index above the column's. */
static int key_bits(const mpcgi_adaptive_tile_setup *s, int *cbits)
{
    *cbits = bits_of(s->n > 1 ? s->n - 1 : 1);
    return *cbits + bits_of(s->tiles);
}

/* Keys, the sort (the sorted entries end in ent[0]) and the tiles' bounds, with keys of K. */
template <typename K>
static cudaError_t sort_tiles(cudaStream_t st, const mpcgi_adaptive_tile_setup *s,
                              const scratch_view &v, int cbits, int bits)
{
    K *key0 = (K *)v.key[0], *key1 = (K *)v.key[1];
    if (s->nnz > 0) {
        keys_kernel<K><<<(unsigned)s->tiles, KEY_THREADS, 0, st>>>(
            s->tiles, s->tile_row, s->row_ptr, s->col, s->long_min, cbits, key0, v.ent[0],
            v.lrow);
        cub::DoubleBuffer<K> k(key0, key1);
        cub::DoubleBuffer<int32_t> e(v.ent[0], v.ent[1]);
        size_t bytes = v.cub_bytes;
        cudaError_t err =
            cub::DeviceRadixSort::SortPairs(v.cub, bytes, k, e, (int)s->nnz, 0, bits, st);
        if (err != cudaSuccess) return err;
        key0 = k.Current();
        if (e.Current() != v.ent[0]) {
            err = cudaMemcpyAsync(v.ent[0], e.Current(), (size_t)s->nnz * 4,
                                  cudaMemcpyDeviceToDevice, st);
            if (err != cudaSuccess) return err;
        }
    }
    bounds_kernel<K><<<(unsigned)((s->tiles + 1 + 255) / 256), 256, 0, st>>>(
        s->tiles, s->nnz, key0, cbits, s->tile_row, s->rows, s->tile_n_long, v.seg, s->tile_long);
    return cudaGetLastError();
}

extern "C" {

size_t mpcgi_adaptive_tiles_scratch(int64_t nnz, int tiles)
{
    const size_t m = (size_t)(nnz > 0 ? nnz : 1);
    return 2 * align8(m * 8) + 5 * align8(m * 4) + 2 * align8(m * 2) + align8(m) +
           align8(((size_t)tiles + 1) * 4) + cub_bytes_for(nnz);
}

int mpcgi_adaptive_tiles_step1(void *stream, const mpcgi_adaptive_tile_setup *s)
{
    cudaStream_t st = (cudaStream_t)stream;
    scratch_view v = view_of(s->scratch, s->nnz, s->tiles);
    int cbits, bits = key_bits(s, &cbits);
    cudaError_t err = bits <= 32 ? sort_tiles<uint32_t>(st, s, v, cbits, bits)
                                 : sort_tiles<uint64_t>(st, s, v, cbits, bits);
    if (err != cudaSuccess) return (int)err;
    const size_t smem = (size_t)(s->max_rows > 0 ? s->max_rows : 1) * sizeof(int);
    err = cudaFuncSetAttribute(levels_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess) return (int)err;
    if (s->n_short > 0)
        sorted_rows_kernel<<<grid_for(s->n_short, 256), 256, 0, st>>>(s->n_short, v.ent[0], v.lrow,
                                                                     v.slrow);
    levels_kernel<<<(unsigned)s->tiles, BS, smem, st>>>(v.seg, v.slrow, s->max_rows,
                                                        s->max_levels,
                                                        v.list, v.list2, v.place, v.level,
                                                        s->level_len, s->failed);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_step2(void *stream, const mpcgi_adaptive_tile_setup *s,
                               const int64_t *tile_off, const int32_t *level_round,
                               int32_t *slot_col, uint16_t *slot_row, int32_t *slot_perm)
{
    cudaStream_t st = (cudaStream_t)stream;
    scratch_view v = view_of(s->scratch, s->nnz, s->tiles);
    if (s->n_short == 0) return (int)cudaSuccess;
    slots_kernel<<<grid_for(s->n_short, 256), 256, 0, st>>>(
        s->n_short, s->tiles, v.seg, v.ent[0], s->col, v.slrow, v.place, v.level, s->max_levels,
        tile_off, level_round, slot_col, slot_row, slot_perm);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_values_f64(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, double *tval)
{
    if (slots < 1) return (int)cudaSuccess;
    values_kernel<<<grid_for(slots, 256), 256, 0, (cudaStream_t)stream>>>(slots, perm, val, tval);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_values_f32(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, float *tval)
{
    if (slots < 1) return (int)cudaSuccess;
    values_kernel<<<grid_for(slots, 256), 256, 0, (cudaStream_t)stream>>>(slots, perm, val, tval);
    return (int)cudaGetLastError();
}

} /* extern "C" */
