/* spmv/adaptive/tiles_setup.c: the adaptive backend's tiles path: the tiles, levels and slots */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "spmv/adaptive/plan.h"

/*
 * Tiles, for gather-bound matrices (random columns, x far larger than the L1): a CSR kernel issues
 * one L2 request per nonzero for x, and that request rate, not DRAM, limits it (Nsight Compute:
 * docs/backends/adaptive.md, "Gather-bound matrices: the L2 limit"). The tiles path cuts the rows
 * into tiles of at most tile_rows rows (balanced on entries + rows, in multiples of the SM count)
 * and walks each tile's entries in column order, so that the 32 gathers of a warp fall into few
 * 128-byte lines (one request each); y of the tile stays in shared memory. Each tile's short
 * entries (rows of at most tile_long) are dealt into rounds of TILE_BLOCK slots with a row at most
 * once per round (mpcgi_adaptive_tile_setup, spmv/adaptive/tiles.cu: an entry that meets its row
 * again in a round moves to a later level); a round's additions need no atomics, and a row's
 * entries are added in round order: deterministic, and emulated (emulate.c). Long rows are summed
 * whole by a warp (by the block beyond TILE_BLOCK_ROW). Device memory: the slots (value, column,
 * row in tile: 14 bytes per fp64 entry, plus the padding of the rounds) and their entries (4 bytes)
 * beside the CSR arrays, which the long rows, value updates and the emulation read.
 */

/* Tile t holds rows [cut, next cut): the first row i with row_ptr[i] + i >= t (nnz + n) / T
 * (entries and rows balanced together). */
static int64_t tile_cut(const int64_t *row_ptr, int64_t n, int64_t t, int64_t T)
{
    const double w = (double)(row_ptr[n] + n) * (double)t / (double)T;
    int64_t lo = 0, hi = n; /* the first i in [0, n] with row_ptr[i] + i >= w */
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if ((double)(row_ptr[mid] + mid) >= w) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Tiles in multiples of wave, as few as keep each within tile_rows rows: p->t.tile_row,
 * L->tiles, L->tile_max_rows. */
static mpcg_status tiles_cut(mpcg_context *ctx, adaptive_plan *p, int wave)
{
    const mpcgi_csr *A = p->A;
    const int64_t n = A->n, limit = p->par.tile_rows;
    for (int64_t k = 1;;) {
        const int64_t T = k * wave;
        MPCG_ENSURE(ctx, T < (1 << 24), MPCG_ERR_NOT_SUPPORTED,
                    "backend adaptive: %lld tiles for n = %lld exceed its limit", (long long)T,
                    (long long)n);
        mpcgi_host_free(p->t.tile_row);
        p->t.tile_row = NULL;
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->t.tile_row,
                                               &p->t.tile_row));
        int32_t *tr = p->t.tile_row;
        int64_t most = 0;
        for (int64_t t = 0; t <= T; t++)
            tr[t] = (int32_t)(t == T ? n : tile_cut(A->row_ptr, n, t, T));
        for (int64_t t = 0; t < T; t++)
            if (tr[t + 1] - tr[t] > most) most = tr[t + 1] - tr[t];
        if (most <= limit) {
            p->L.tiles = (int)T;
            p->L.tile_max_rows = (int)most;
            return MPCG_SUCCESS;
        }
        int64_t next = k * most / limit;
        k = next > k ? next : k + 1;
    }
}

/* Before the binning's totals are final: the tiles (wave: the SMs, or on the host 132, unless
 * set) and the long rows' threshold, then the binning counts again with it. Unless set, rows of
 * more than a quarter of a tile's rounds (nnz / (T TILE_BLOCK), clamped to [16, 254]) are long:
 * a row with an entry in most rounds meets itself often and spreads over many mostly empty
 * levels, and the warp that sums it alone is quick at that length (docs/backends/adaptive.md,
 * "The tiles path"). */
mpcg_status mpcgi_adaptive_tiling_start(mpcg_context *ctx, adaptive_plan *p, int sms)
{
    MPCG_CHECK(ctx, tiles_cut(ctx, p, p->par.tile_wave ? p->par.tile_wave : sms));
    int64_t t = p->par.tile_long;
    if (!t) {
        t = p->A->nnz / ((int64_t)p->L.tiles * MPCGI_ADAPTIVE_TILE_BLOCK * 4);
        t = t < TILE_LONG_MIN ? TILE_LONG_MIN : t > TILE_LONG_MAX ? TILE_LONG_MAX : t;
    }
    p->par.bin.long_min = (int)t;
    return MPCG_SUCCESS;
}

/* The rounds of each tile from its level lengths (every level starts a round; a tile's rounds
 * padded to whole batches): level_round[t * ml + v], p->t.tile_off, p->t.n_slots. */
static mpcg_status tiles_rounds(mpcg_context *ctx, adaptive_plan *p, const int32_t *level_len,
                                int ml, int32_t *level_round)
{
    const int T = p->L.tiles, bs = MPCGI_ADAPTIVE_TILE_BLOCK, d = MPCGI_ADAPTIVE_TILE_BATCH;
    MPCG_CHECK(ctx,
               mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->t.tile_off, &p->t.tile_off));
    int64_t off = 0;
    for (int t = 0; t < T; t++) {
        int64_t r = 0;
        for (int v = 0; v < ml; v++) {
            level_round[(int64_t)t * ml + v] = (int32_t)r;
            r += (level_len[(int64_t)t * ml + v] + bs - 1) / bs;
        }
        r = (r + d - 1) / d * d;
        p->t.tile_off[t] = off;
        off += r * bs;
    }
    p->t.tile_off[T] = off;
    p->t.n_slots = off;
    return MPCG_SUCCESS;
}

/* The long rows of each tile: p->t.tile_long[t] = the first long row at or after tile t's first
 * row (in p->h.rows, ascending). */
static mpcg_status tiles_long_host(mpcg_context *ctx, adaptive_plan *p)
{
    const int T = p->L.tiles;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->t.tile_long,
                                           &p->t.tile_long));
    int j = 0;
    for (int t = 0; t <= T; t++) {
        while (j < p->L.tile_n_long && p->h.rows[j] < p->t.tile_row[t])
            j++;
        p->t.tile_long[t] = j;
    }
    return MPCG_SUCCESS;
}

/* The launch of a tiles layout: one block of TILE_BLOCK per tile, the dot's partials per warp;
 * the long rows are the tiles' own (n_long and long_blocks 0 for the other kernels' use). */
static void tiles_finish(adaptive_plan *p)
{
    mpcgi_adaptive_launch *L = &p->L;
    L->n_long = L->long_blocks = 0;
    L->block = MPCGI_ADAPTIVE_TILE_BLOCK;
    L->vblocks = L->grid = L->tiles;
}

/* ---------------------------------------------------------------- CPU plan */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The host's scratch for the levels of the tiles (as step 1 of spmv/adaptive/tiles.cu). */
typedef struct tiles_scratch {
    int32_t *level_len, *level_round, *place, *list, *next;
    uint8_t *level;
    uint64_t *key;
    int64_t *mark;
} tiles_scratch;

/* The sorted short entries of tile t into k->list (by column bucket, then entry); their count. */
static int64_t tile_sorted(const adaptive_plan *p, int t, int shift, tiles_scratch *k)
{
    const mpcgi_csr *A = p->A;
    const int64_t r0 = p->t.tile_row[t], r1 = p->t.tile_row[t + 1];
    int64_t cnt = 0;
    for (int64_t r = r0; r < r1; r++)
        if (A->row_ptr[r + 1] - A->row_ptr[r] <= p->par.bin.long_min)
            for (int64_t e = A->row_ptr[r]; e < A->row_ptr[r + 1]; e++)
                k->key[cnt++] = (uint64_t)((uint32_t)A->col_idx[e] >> shift) << 32 | (uint64_t)e;
    qsort(k->key, (size_t)cnt, sizeof *k->key, cmp_u64);
    for (int64_t i = 0; i < cnt; i++)
        k->list[i] = (int32_t)(k->key[i] & 0xffffffffu);
    return cnt;
}

/* The levels of tile t: each entry's level and place in it, and the levels' lengths. */
static mpcg_status tile_levels(mpcg_context *ctx, const adaptive_plan *p, int t, int shift,
                               tiles_scratch *k)
{
    const mpcgi_csr *A = p->A;
    const int ml = p->par.bin.long_min + 1, bs = MPCGI_ADAPTIVE_TILE_BLOCK;
    const int64_t r0 = p->t.tile_row[t], r1 = p->t.tile_row[t + 1];
    int64_t cnt = tile_sorted(p, t, shift, k), stamp = 0;
    for (int64_t i = 0; i < r1 - r0; i++)
        k->mark[i] = -1;
    for (int v = 0; cnt > 0; v++) {
        MPCG_ENSURE(ctx, v < ml, MPCG_ERR_INTERNAL,
                    "backend adaptive: tile %d needs more than %d levels", t, ml);
        k->level_len[(int64_t)t * ml + v] = (int32_t)cnt;
        int64_t moved = 0;
        for (int64_t base = 0; base < cnt; base += bs, stamp++)
            for (int64_t j = base; j < cnt && j < base + bs; j++) {
                const int32_t e = k->list[j];
                int64_t lo = r0, hi = r1 - 1; /* the row of entry e */
                while (lo < hi) {
                    int64_t mid = (lo + hi + 1) / 2;
                    if (A->row_ptr[mid] <= e) lo = mid;
                    else hi = mid - 1;
                }
                if (k->mark[lo - r0] == stamp) {
                    k->next[moved++] = e;
                } else {
                    k->mark[lo - r0] = stamp;
                    k->place[e] = (int32_t)j;
                    k->level[e] = (uint8_t)v;
                }
            }
        int32_t *w = k->list;
        k->list = k->next;
        k->next = w;
        cnt = moved;
    }
    return MPCG_SUCCESS;
}

/* Every short entry to its slot (columns, rows in tile, entries; the others empty). */
static mpcg_status tiles_slots_host(mpcg_context *ctx, adaptive_plan *p, const tiles_scratch *k)
{
    const mpcgi_csr *A = p->A;
    const int ml = p->par.bin.long_min + 1, bs = MPCGI_ADAPTIVE_TILE_BLOCK;
    adaptive_tiles *tl = &p->t;
    const size_t slots = (size_t)(tl->n_slots > 0 ? tl->n_slots : 1);
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *tl->slot_col, &tl->slot_col));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *tl->slot_row, &tl->slot_row));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *tl->slot_perm, &tl->slot_perm));
    memset(tl->slot_col, 0, slots * sizeof *tl->slot_col);
    memset(tl->slot_row, 0xff, slots * sizeof *tl->slot_row);
    memset(tl->slot_perm, 0xff, slots * sizeof *tl->slot_perm);
    for (int t = 0; t < p->L.tiles; t++)
        for (int64_t r = tl->tile_row[t]; r < tl->tile_row[t + 1]; r++) {
            if (A->row_ptr[r + 1] - A->row_ptr[r] > p->par.bin.long_min) continue;
            for (int64_t e = A->row_ptr[r]; e < A->row_ptr[r + 1]; e++) {
                const int64_t round = k->level_round[(int64_t)t * ml + k->level[e]] + k->place[e] / bs;
                const int64_t sl = tl->tile_off[t] + round * bs + k->place[e] % bs;
                tl->slot_col[sl] = A->col_idx[e];
                tl->slot_row[sl] = (uint16_t)(r - tl->tile_row[t]);
                tl->slot_perm[sl] = (int32_t)e;
            }
        }
    return MPCG_SUCCESS;
}

/* The tiles of a CPU plan, as spmv/adaptive/tiles.cu builds them on the device. */
mpcg_status mpcgi_adaptive_tiling_host(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_csr *A = p->A;
    const int ml = p->par.bin.long_min + 1;
    tiles_scratch k = {0};
    MPCG_TRY(ctx, st, tiles_long_host(ctx, p));
    const int T = p->L.tiles;
    const size_t m = (size_t)(A->nnz > 0 ? A->nnz : 1);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, (size_t)T * ml, sizeof *k.level_len, &k.level_len));
    MPCG_TRY(ctx, st,
             mpcgi_host_alloc_array(ctx, (size_t)T * ml, sizeof *k.level_round, &k.level_round));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *k.place, &k.place));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *k.level, &k.level));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *k.key, &k.key));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *k.list, &k.list));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *k.next, &k.next));
    MPCG_TRY(ctx, st,
             mpcgi_host_alloc_array(ctx, (size_t)p->L.tile_max_rows + 1, sizeof *k.mark, &k.mark));
    int cbits;
    const int shift = mpcgi_adaptive_tile_shift(A->n, T, &cbits);
    for (int t = 0; t < T; t++)
        MPCG_TRY(ctx, st, tile_levels(ctx, p, t, shift, &k));
    MPCG_TRY(ctx, st, tiles_rounds(ctx, p, k.level_len, ml, k.level_round));
    MPCG_TRY(ctx, st, tiles_slots_host(ctx, p, &k));
    tiles_finish(p);
done:
    mpcgi_host_free(k.level_len), mpcgi_host_free(k.level_round), mpcgi_host_free(k.place);
    mpcgi_host_free(k.level), mpcgi_host_free(k.key), mpcgi_host_free(k.mark);
    mpcgi_host_free(k.list), mpcgi_host_free(k.next);
    return st;
}

/* ---------------------------------------------------------------- device plan */

/* The tiles' arrays on the device (first slots, first rows, first long rows: one block, kept)
 * and the setup's description. */
static mpcg_status tiles_device_arrays(mpcg_context *ctx, adaptive_plan *p,
                                       mpcgi_adaptive_tile_setup *su)
{
    const int T = p->L.tiles, ml = p->par.bin.long_min + 1;
    const size_t tb = ((size_t)T + 1) * sizeof(int32_t), ob = ((size_t)T + 1) * sizeof(int64_t);
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ob + 2 * tb, &p->t.d_tile_off));
    p->t.d_tile_row = (int32_t *)(p->t.d_tile_off + T + 1);
    p->t.d_tile_long = p->t.d_tile_row + T + 1;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->t.d_tile_row, p->t.tile_row, tb, MPCGI_H2D));
    /* the values' buffers are written after the tiles (upload_values): until then the fp64 one
     * holds the keys and what is sorted with them as the keys kernel writes them, the fp32 one
     * the sort's second keys, and the scratch is smaller (5 bytes per nonzero instead of 17 where
     * both are there; its release costs time per GB); with the fp64 one the keys kernel runs
     * while the scratch is allocated */
    *su = (mpcgi_adaptive_tile_setup){
        .n = p->A->n,
        .nnz = p->A->nnz,
        .n_short = p->A->nnz - p->st.long_nnz,
        .tiles = T,
        .long_min = p->par.bin.long_min,
        .max_levels = ml,
        .max_rows = p->L.tile_max_rows,
        .row_ptr = p->d.row_ptr,
        .col = p->d.col_idx,
        .tile_row = p->t.d_tile_row,
        .rows = p->d.rows,
        .tile_n_long = p->L.tile_n_long,
        .lend8 = p->d.val64,
        .lend4 = p->d.val32,
        .tile_long = p->t.d_tile_long,
    };
    return MPCG_SUCCESS;
}

/* The slots on the device (values fp64, fp32, columns, entries, rows in tile: one block, kept),
 * filled by step 2, and the launch's pointers to the tiles' arrays. */
static mpcg_status tiles_device_slots(mpcg_context *ctx, adaptive_plan *p,
                                      const mpcgi_adaptive_tile_setup *su,
                                      const int32_t *d_level_round)
{
    mpcg_status st = MPCG_SUCCESS;
    adaptive_tiles *tl = &p->t;
    const size_t slots = (size_t)(tl->n_slots > 0 ? tl->n_slots : 1);
    const size_t b64 = p->use64 ? slots * sizeof(double) : 0, b32 = p->use32 ? slots * 4 : 0;
    char *blk = NULL;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, b64 + b32 + slots * (4 + 4 + 2), &blk));
    tl->d_slots = blk;
    tl->d_tval64 = b64 ? (double *)blk : NULL;
    tl->d_tval32 = b32 ? (float *)(blk + b64) : NULL;
    tl->d_slot_col = (int32_t *)(blk + b64 + b32);
    tl->d_slot_perm = tl->d_slot_col + slots;
    tl->d_slot_row = (uint16_t *)(tl->d_slot_perm + slots);
    /* the slots without an entry: entry -1 and row TILE_EMPTY (0xffff); their column is never
     * read */
    MPCG_CUDA(ctx, cudaMemsetAsync(tl->d_slot_perm, 0xff, slots * (4 + 2),
                                   mpcgi_gpu_of(ctx)->stream));
    MPCG_CUDA(ctx, (cudaError_t)mpcgi_adaptive_tiles_step2(mpcgi_device_stream(ctx), su,
                                                           tl->d_tile_off, d_level_round,
                                                           tl->d_slot_col, tl->d_slot_row,
                                                           tl->d_slot_perm));
    tiles_finish(p);
    mpcgi_adaptive_launch *L = &p->L;
    L->tile_row = tl->d_tile_row;
    L->tile_off = tl->d_tile_off;
    L->tile_long = tl->d_tile_long;
    L->slot_col = tl->d_slot_col;
    L->slot_row = tl->d_slot_row;
    L->tval64 = tl->d_tval64; /* filled by upload_values */
    L->tval32 = tl->d_tval32;
    return st;
}

/* The level lengths of step 1 to the host (with the failure flag, one copy), the rounds there,
 * and back: the levels' first rounds and the tiles' first slots. */
static mpcg_status tiles_device_rounds(mpcg_context *ctx, adaptive_plan *p,
                                       const int32_t *d_level_len, int32_t *d_level_round)
{
    mpcg_status st = MPCG_SUCCESS;
    const int T = p->L.tiles, ml = p->par.bin.long_min + 1;
    const size_t lb = (size_t)T * ml * sizeof(int32_t);
    int32_t *level_len = NULL, *level_round;
    int failed = 0;
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, 2 * lb + sizeof(int), &level_len));
    level_round = (int32_t *)((int *)(level_len + (size_t)T * ml) + 1);
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, level_len, d_level_len, lb + sizeof(int), MPCGI_D2H));
    memcpy(&failed, level_len + (size_t)T * ml, sizeof failed);
    MPCG_ENSURE_GOTO(ctx, st, !failed, MPCG_ERR_INTERNAL,
                     "backend adaptive: a tile needs more than %d levels", ml);
    MPCG_TRY(ctx, st, tiles_rounds(ctx, p, level_len, ml, level_round));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, d_level_round, level_round, lb, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, p->t.d_tile_off, p->t.tile_off,
                                        ((size_t)T + 1) * sizeof(int64_t), MPCGI_H2D));
done:
    mpcgi_host_free(level_len);
    return st;
}

/* The tiles of a device plan (spmv/adaptive/tiles.cu; mpcgi_adaptive_tiling_host builds the same
 * on the host): the cut and the rounds on the host, the sort, the levels and the slots on the
 * device. Three allocations (a cudaMalloc costs the same whatever its size, a cudaFree in
 * proportion to it): the tiles' arrays (kept), the scratch with the level tables (freed here),
 * the slots with their values (kept). */
mpcg_status mpcgi_adaptive_tiling_device(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    void *s = mpcgi_device_stream(ctx);
    const int T = p->L.tiles, ml = p->par.bin.long_min + 1;
    const size_t lb = (size_t)T * ml * sizeof(int32_t);
    char *scratch = NULL;
    mpcgi_adaptive_tile_setup su;
    MPCG_TRY(ctx, st, tiles_device_arrays(ctx, p, &su));
    if (su.lend8) MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_keys(s, &su));
    /* the scratch: the sort's, then the level lengths, the failure flag, the levels' first
     * rounds (the same on the host) */
    const size_t sb =
        mpcgi_adaptive_tiles_scratch(p->A->nnz, T, su.lend8 != NULL, su.lend4 != NULL);
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, sb + 2 * lb + sizeof(int), &scratch));
    int32_t *d_level_len = (int32_t *)(scratch + sb);
    int *d_failed = (int *)(d_level_len + (size_t)T * ml);
    int32_t *d_level_round = (int32_t *)(d_failed + 1);
    su.scratch = scratch;
    su.level_len = d_level_len;
    su.failed = d_failed;
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(d_failed, 0, sizeof(int), mpcgi_gpu_of(ctx)->stream));
    if (!su.lend8) MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_keys(s, &su));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_step1(s, &su));
    MPCG_TRY(ctx, st, tiles_device_rounds(ctx, p, d_level_len, d_level_round));
    MPCG_TRY(ctx, st, tiles_device_slots(ctx, p, &su, d_level_round));
    /* the scratch goes once the slots are written */
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
done:
    mpcgi_device_free(ctx, scratch);
    return st;
}
