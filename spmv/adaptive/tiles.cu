/* spmv/adaptive/tiles.cu: the setup of the adaptive backend's tiles path on the GPU (sort each
 * tile's entries by column, deal them into rounds, lay out the slots) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "core/launch.cuh"
#include "spmv/adaptive/kernels.h"

/*
 * spmv/adaptive/tiles_setup.c describes the layout and builds the same one on the host for CPU
 * plans:
 *   1. keys: entry k of a short row i of tile t gets (t, col k >> shift)
 *      (mpcgi_adaptive_tile_shift), one of a long row the key past every tile; a stable radix
 *      sort orders each tile's short entries by column, ties in entry (row) order. What is sorted
 *      beside the keys is the entry's row in its tile and its place in the row (lrow << 8 | pos:
 *      short rows have at most 254 entries), which give back the entry (row_ptr[row] + pos);
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

/* Scratch layout (nnz entries each, 256-byte aligned): the keys and what is sorted with them as
 * the keys kernel writes them (key[0], ent[0]) in the memory the caller lends for 8 bytes per
 * nonzero (s->lend8), the sort's second keys (key[1]) in that it lends for 4 (s->lend4), where
 * it does; the rest in the scratch. The sort's second buffers and the keys serve the levels once
 * the sort and the tiles' bounds are done. */
struct scratch_view {
    uint32_t *key[2];
    uint32_t *ent[2]; /* lrow << 8 | pos; sorted: in ent[sorted] */
    int sorted;
    int32_t *place;   /* by sorted position: position in its level's list (key[0]) */
    int32_t *list;    /* a level's list of sorted positions (per tile, at its first position;
                         key[1]) */
    int32_t *list2;   /* ent[!sorted] */
    uint8_t *level;   /* by sorted position */
    int32_t *seg; /* tiles + 1: first sorted position of each tile */
    void *cub;
    size_t cub_bytes;
};

static size_t align256(size_t b)
{
    return (b + 255) / 256 * 256;
}

static size_t cub_bytes_for(int64_t nnz)
{
    size_t b = 0;
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr);
    cub::DoubleBuffer<uint32_t> v(nullptr, nullptr);
    (void)cub::DeviceRadixSort::SortPairs(nullptr, b, k, v, (int)nnz, 0,
                                          MPCGI_ADAPTIVE_TILE_KEY_BITS);
    return align256(b);
}

static size_t entries_bytes(int64_t nnz)
{
    return align256((size_t)(nnz > 0 ? nnz : 1) * 4);
}

/* Bytes of the scratch (view_of's walk). */
static size_t scratch_bytes(int64_t nnz, int tiles, bool lend8, bool lend4)
{
    const size_t b = entries_bytes(nnz);
    return (lend8 ? 0 : 2 * b) + (lend4 ? 0 : b) + b + align256(b / 4) +
           align256(((size_t)tiles + 1) * 4) + cub_bytes_for(nnz);
}

static scratch_view view_of(void *base, int64_t nnz, int tiles, int sorted, void *lend8,
                            void *lend4)
{
    scratch_view s;
    char *p = (char *)base;
    const size_t b = entries_bytes(nnz);
    char *k = lend8 ? (char *)lend8 : p;
    s.key[0] = (uint32_t *)k;
    s.ent[0] = (uint32_t *)(k + b);
    if (!lend8) p += 2 * b;
    s.key[1] = (uint32_t *)(lend4 ? (char *)lend4 : p);
    if (!lend4) p += b;
    s.ent[1] = (uint32_t *)p, p += b;
    s.place = (int32_t *)s.key[0];
    s.list = (int32_t *)s.key[1];
    s.sorted = sorted;
    s.list2 = (int32_t *)s.ent[!sorted];
    s.level = (uint8_t *)p, p += align256(b / 4);
    s.seg = (int32_t *)p, p += align256(((size_t)tiles + 1) * 4);
    s.cub = p;
    s.cub_bytes = cub_bytes_for(nnz);
    return s;
}

/* Keys and what is sorted with them, KEY_THREADS rows of a block at a time: a thread per row
 * finds its tile (bisection of tile_row, ascending) and leaves the row's key and row in tile in
 * shared memory, then a thread per entry of those rows finds its row by bisection of the row
 * pointers there: the stores are coalesced whatever the rows' lengths. */
static __global__ void __launch_bounds__(KEY_THREADS)
    keys_kernel(int64_t n, int tiles, const int32_t *__restrict__ tile_row,
                const int32_t *__restrict__ rp, const int32_t *__restrict__ col, int long_min,
                int shift, int cbits, uint32_t *__restrict__ key, uint32_t *__restrict__ ent)
{
    __shared__ int32_t srp[KEY_THREADS + 1];
    __shared__ uint32_t skey[KEY_THREADS], srow[KEY_THREADS];
    const uint32_t past = (uint32_t)tiles << cbits;
    for (int64_t r0 = (int64_t)blockIdx.x * KEY_THREADS; r0 < n;
         r0 += (int64_t)gridDim.x * KEY_THREADS) {
        const int rows = n - r0 < KEY_THREADS ? (int)(n - r0) : KEY_THREADS;
        const int i = threadIdx.x;
        if (i < rows) {
            const int64_t r = r0 + i;
            int lo = 0, hi = tiles - 1; /* the last tile t with tile_row[t] <= r */
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (tile_row[mid] <= r) lo = mid;
                else hi = mid - 1;
            }
            srp[i] = rp[r];
            skey[i] = rp[r + 1] - rp[r] > long_min ? past : (uint32_t)lo << cbits;
            srow[i] = (uint32_t)(r - tile_row[lo]) << 8;
        }
        if (i == 0) srp[rows] = rp[r0 + rows];
        __syncthreads();
        const int e0 = srp[0], e1 = srp[rows];
        for (int k = e0 + i; k < e1; k += KEY_THREADS) {
            int lo = 0, hi = rows - 1; /* the last row j with srp[j] <= k */
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (srp[mid] <= k) lo = mid;
                else hi = mid - 1;
            }
            const uint32_t kb = skey[lo];
            key[k] = kb == past ? past : kb | (uint32_t)col[k] >> shift;
            ent[k] = srow[lo] | (uint32_t)((k - srp[lo]) & 0xff);
        }
        __syncthreads();
    }
}

/* seg[t] = the first sorted position of tile t (t = 0 ... tiles: the long entries' start);
 * tile_long[t] = the first long row at or after tile t's first row. */
static __global__ void bounds_kernel(int tiles, int64_t nnz, const uint32_t *__restrict__ key,
                                     int cbits,
                                     const int32_t *__restrict__ tile_row,
                                     const int32_t *__restrict__ rows, int n_long,
                                     int32_t *__restrict__ seg, int32_t *__restrict__ tile_long)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const uint32_t want = (uint32_t)t << cbits;
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

/* Exclusive prefix of flag over the block and the block's total: warp ballots, the warp counts
 * in warp_n (of this round's parity, so that the next round writes the other half without a
 * barrier), then every warp scans the 32 warp counts itself with shuffles. One barrier. */
static __device__ int block_rank(bool flag, int (*warp_n)[BS / 32], int parity, int *total)
{
    static_assert(BS / 32 == 32, "a warp scans the warp counts");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned m = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_n[parity][warp] = __popc(m);
    __syncthreads();
    const int c = warp_n[parity][lane];
    int incl = c;
    for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += u;
    }
    *total = __shfl_sync(0xffffffffu, incl, 31);
    const int before = __shfl_sync(0xffffffffu, incl - c, warp);
    return before + __popc(m & ((1u << lane) - 1));
}

/* Owner keys of the levels kernel: a round's threads bid (ROUNDS - round) << 10 | thread with
 * atomicMin, so the smallest thread of a row wins and a later round outbids every earlier one
 * without the owners being reset (after ROUNDS rounds they are). */
#define ROUNDS ((1 << 21) - 1)
static_assert(BS <= 1024, "a thread index takes 10 bits of an owner key");

/* Step 2 of the top comment, one block per tile: owner[row] holds the key of the thread of the
 * round holding that row (the smallest: integer atomicMin, order-free). The next round's entry is
 * loaded while this one is dealt. Two barriers per round. */
static __global__ void __launch_bounds__(BS)
    levels_kernel(const int32_t *__restrict__ seg, const uint32_t *__restrict__ sorted,
                  int max_rows, int max_levels, int32_t *list, int32_t *list2,
                  int32_t *__restrict__ place, uint8_t *__restrict__ level,
                  int32_t *__restrict__ level_len, int *failed)
{
    extern __shared__ int owner[];
    __shared__ int warp_n[2][BS / 32];
    const int t = blockIdx.x, s0 = seg[t], tid = (int)threadIdx.x;
    int m = seg[t + 1] - s0;
    int32_t *lev_len = level_len + (int64_t)t * max_levels;
    const int32_t *in = nullptr; /* level 0: the sorted positions themselves */
    int32_t *out = list + s0, *spare = list2 + s0;
    for (int v = tid; v < max_levels; v += BS)
        lev_len[v] = 0;
    int round = ROUNDS; /* the owners are set at the first round */
    for (int v = 0; m > 0; v++) {
        if (v == max_levels) {
            if (tid == 0) *failed = 1;
            return;
        }
        if (tid == 0) lev_len[v] = m;
        int moved = 0;
        int kn = tid < m ? (in ? in[tid] : s0 + tid) : -1; /* the next round's entry */
        uint32_t en = kn >= 0 ? sorted[kn] : 0;
        for (int base = 0; base < m; base += BS, round++) {
            if (round == ROUNDS) {
                for (int i = tid; i < max_rows; i += BS)
                    owner[i] = INT_MAX;
                round = 0;
                __syncthreads();
            }
            const int j = base + tid, k = kn, l = (int)(en >> 8);
            const int key = (ROUNDS - round) << 10 | tid;
            kn = j + BS < m ? (in ? in[j + BS] : s0 + j + BS) : -1;
            if (k >= 0) atomicMin(&owner[l], key);
            __syncthreads(); /* every bid is in; the next round's bids wait for the rank's
                                barrier, which comes after every read of owner below */
            const bool keep = k >= 0 && owner[l] == key;
            en = kn >= 0 ? sorted[kn] : 0;
            if (keep) {
                place[k] = j;
                level[k] = (uint8_t)v;
            }
            int total;
            const int r = block_rank(k >= 0 && !keep, warp_n, round & 1, &total);
            if (k >= 0 && !keep) out[moved + r] = k;
            moved += total;
        }
        __syncthreads(); /* this level's list is written before it is read */
        in = out;
        int32_t *w = spare;
        spare = out;
        out = w;
        m = moved;
    }
}

/* Step 3: every short entry to its slot, in sorted order over the grid (the blocks at work at a
 * time gather from one or two tiles' rows and columns, which stay in L2: by tile, with the
 * tiles side by side, it is much slower: docs/backends/adaptive.md, "The tiles path"). */
static __global__ void slots_kernel(int64_t n_short, int tiles, const int32_t *__restrict__ seg,
                                    const uint32_t *__restrict__ sorted,
                                    const int32_t *__restrict__ tile_row,
                                    const int32_t *__restrict__ rp,
                                    const int32_t *__restrict__ col,
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
        const int t = lo, j = place[q];
        const uint32_t e = sorted[q];
        const int k = rp[tile_row[t] + (int)(e >> 8)] + (int)(e & 0xff);
        const int64_t round = level_round[(int64_t)t * max_levels + level[q]] + j / BS;
        const int64_t s = tile_off[t] + round * BS + j % BS;
        slot_col[s] = col[k];
        slot_row[s] = (uint16_t)(e >> 8);
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

/* The sort (what is sorted ends in ent[*sorted]) and the tiles' bounds, after the keys. */
static cudaError_t sort_tiles(cudaStream_t st, const mpcgi_adaptive_tile_setup *s,
                              const scratch_view &v, int *sorted)
{
    int cbits;
    (void)mpcgi_adaptive_tile_shift(s->n, s->tiles, &cbits);
    uint32_t *key0 = v.key[0];
    if (s->nnz > 0) {
        cub::DoubleBuffer<uint32_t> k(key0, v.key[1]);
        cub::DoubleBuffer<uint32_t> e(v.ent[0], v.ent[1]);
        size_t bytes = v.cub_bytes;
        cudaError_t err = cub::DeviceRadixSort::SortPairs(v.cub, bytes, k, e, (int)s->nnz, 0,
                                                          cbits + mpcgi_adaptive_bits(s->tiles),
                                                          st);
        if (err != cudaSuccess) return err;
        key0 = k.Current();
        *sorted = e.selector;
    }
    bounds_kernel<<<(unsigned)((s->tiles + 1 + 255) / 256), 256, 0, st>>>(
        s->tiles, s->nnz, key0, cbits, s->tile_row, s->rows, s->tile_n_long, v.seg, s->tile_long);
    return cudaGetLastError();
}

extern "C" {

size_t mpcgi_adaptive_tiles_scratch(int64_t nnz, int tiles, int lend8, int lend4)
{
    return scratch_bytes(nnz, tiles, lend8 != 0, lend4 != 0);
}

int mpcgi_adaptive_tiles_keys(void *stream, const mpcgi_adaptive_tile_setup *s)
{
    if (s->nnz < 1) return (int)cudaSuccess;
    const scratch_view v = view_of(s->scratch, s->nnz, s->tiles, 0, s->lend8, s->lend4);
    int cbits;
    const int shift = mpcgi_adaptive_tile_shift(s->n, s->tiles, &cbits);
    keys_kernel<<<mpcgi_blocks_for(s->n, KEY_THREADS), KEY_THREADS, 0, (cudaStream_t)stream>>>(
        s->n, s->tiles, s->tile_row, s->row_ptr, s->col, s->long_min, shift, cbits, v.key[0],
        v.ent[0]);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_step1(void *stream, mpcgi_adaptive_tile_setup *s)
{
    cudaStream_t st = (cudaStream_t)stream;
    scratch_view v = view_of(s->scratch, s->nnz, s->tiles, 0, s->lend8, s->lend4);
    s->sorted = 0;
    cudaError_t err = sort_tiles(st, s, v, &s->sorted);
    if (err != cudaSuccess) return (int)err;
    v = view_of(s->scratch, s->nnz, s->tiles, s->sorted, s->lend8, s->lend4);
    const size_t smem = (size_t)(s->max_rows > 0 ? s->max_rows : 1) * sizeof(int);
    err = cudaFuncSetAttribute(levels_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess) return (int)err;
    levels_kernel<<<(unsigned)s->tiles, BS, smem, st>>>(v.seg, v.ent[v.sorted], s->max_rows,
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
    scratch_view v = view_of(s->scratch, s->nnz, s->tiles, s->sorted, s->lend8, s->lend4);
    if (s->n_short > 0)
        slots_kernel<<<mpcgi_blocks_for(s->n_short, 256), 256, 0, st>>>(
            s->n_short, s->tiles, v.seg, v.ent[v.sorted], s->tile_row, s->row_ptr, s->col, v.place,
            v.level, s->max_levels, tile_off, level_round, slot_col, slot_row, slot_perm);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_values_f64(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, double *tval)
{
    if (slots < 1) return (int)cudaSuccess;
    values_kernel<<<mpcgi_blocks_for(slots, 256), 256, 0, (cudaStream_t)stream>>>(slots, perm, val,
                                                                                tval);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_tiles_values_f32(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, float *tval)
{
    if (slots < 1) return (int)cudaSuccess;
    values_kernel<<<mpcgi_blocks_for(slots, 256), 256, 0, (cudaStream_t)stream>>>(slots, perm, val,
                                                                                tval);
    return (int)cudaGetLastError();
}

} /* extern "C" */
