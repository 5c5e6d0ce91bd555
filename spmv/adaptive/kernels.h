/* spmv/adaptive/kernels.h: launchers of the adaptive backend's kernels (plain C, no CUDA types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_KERNELS_H
#define MPCG_SPMV_ADAPTIVE_KERNELS_H

#include <stdint.h>


#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kernels of spmv/adaptive/spmv.cuh (SpMV), spmv/adaptive/setup.cu (binning) and
 * spmv/adaptive/tiles.cu (the tiles' setup). `stream` is the context's cudaStream_t; every launcher
 * queues its kernels, never synchronises and returns cudaGetLastError() (callers wrap it in
 * MPCG_LAUNCH). The layout and the row-to-thread mapping are described in spmv/adaptive/plan.h; the
 * CPU emulation (spmv/adaptive/emulate.c) reproduces the arithmetic of these kernels operation by
 * operation.
 */

/* Bins in the order of the row list and of the virtual blocks: long rows first, then the short
 * bins with NT = 32, 16, 8, 4, 2, 1 threads per row. */
#define MPCGI_ADAPTIVE_LONG 0
#define MPCGI_ADAPTIVE_SHORT_BINS 6
#define MPCGI_ADAPTIVE_BINS (1 + MPCGI_ADAPTIVE_SHORT_BINS)
/* Per-tile quantities counted at setup: the rows of each bin, then the long rows' chunks, then
 * their nonzeros. */
#define MPCGI_ADAPTIVE_CHUNKS MPCGI_ADAPTIVE_BINS
#define MPCGI_ADAPTIVE_LONG_NNZ (MPCGI_ADAPTIVE_BINS + 1)
#define MPCGI_ADAPTIVE_QUANTITIES (MPCGI_ADAPTIVE_BINS + 2)
/* Threads of a block of the setup kernels (count, scatter), each of which takes a tile of rows. */
#define MPCGI_ADAPTIVE_SETUP_THREADS 256
/* Largest block of the SpMV kernels. */
#define MPCGI_ADAPTIVE_MAX_BLOCK 1024

/* Shared by the host plan and the setup kernels, so both bin a row the same way. */
#ifdef __CUDACC__
#define MPCGI_ADAPTIVE_HD __host__ __device__
#else
#define MPCGI_ADAPTIVE_HD
#endif

/* How rows are binned (a function of the row length alone). */
typedef struct mpcgi_adaptive_binning {
    int passes;   /* a short row gets the smallest NT with NT * passes >= length (NT <= 32) */
    int long_min; /* rows longer than this are long rows */
    int chunk;    /* nonzeros per virtual block of a long row (a multiple of the block size) */
} mpcgi_adaptive_binning;

/* NT of short bin b (1..6): 64 >> b. */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_bin_nt(int b)
{
    return 64 >> b;
}

/* The bin of a row of `len` nonzeros: MPCGI_ADAPTIVE_LONG, or the short bin of the smallest NT
 * with NT * passes >= len (an empty row: NT = 1). */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_bin_of(int64_t len, mpcgi_adaptive_binning b)
{
    if (len > b.long_min) return MPCGI_ADAPTIVE_LONG;
    int bin = MPCGI_ADAPTIVE_SHORT_BINS;
    for (int64_t nt = 1; bin > 1 && nt * b.passes < len; nt <<= 1)
        bin--;
    return bin;
}

/* Rows per setup tile: a row per thread below 2^19 rows (where a plan's setup is a few
 * microseconds: rows in turn on fewer threads are a chain of dependent loads), else 4 per
 * thread (the last block scans every tile's counts: at most 2^18 / 256 + 1 tiles' of them). */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_setup_tile(int64_t n)
{
    return n < ((int64_t)1 << 19) ? MPCGI_ADAPTIVE_SETUP_THREADS : 4 * MPCGI_ADAPTIVE_SETUP_THREADS;
}

/* Setup tiles of a matrix of n rows (rows 0 ... n: the last row pointer too). */
static inline MPCGI_ADAPTIVE_HD int64_t mpcgi_adaptive_setup_tiles(int64_t n)
{
    return n / mpcgi_adaptive_setup_tile(n) + 1;
}

/* Virtual blocks (chunks) of a long row of `len` nonzeros. */
static inline MPCGI_ADAPTIVE_HD int64_t mpcgi_adaptive_chunks(int64_t len, mpcgi_adaptive_binning b)
{
    return (len + b.chunk - 1) / b.chunk;
}

/* The paths of a plan (spmv/adaptive/rules.c says which is taken). */
#define MPCGI_ADAPTIVE_UNIFORM 0 /* one NT for every row (Mukunoki and Takahashi's kernel) */
#define MPCGI_ADAPTIVE_SPLIT 1   /* long rows in chunks, every other row with one NT */
#define MPCGI_ADAPTIVE_BINNED 2  /* long rows in chunks, the others binned by length */
#define MPCGI_ADAPTIVE_TILES 3   /* row tiles walked in column order (gather-bound matrices) */

/* The uniform path staged (staged_rows > 0): a block of STAGED_BLOCK threads copies the values
 * and columns of a tile of rows to shared memory, STAGED_PER_THREAD entries per thread, then
 * sums each row from there with one thread (NT = 1). The block is a compile-time constant: with
 * blockDim.x the eight loads' addresses take registers of their own (docs/backends/adaptive.md,
 * "The staged uniform path"). */
#define MPCGI_ADAPTIVE_STAGED_BLOCK 128
#define MPCGI_ADAPTIVE_STAGED_PER_THREAD 8
#define MPCGI_ADAPTIVE_STAGED_CAP (MPCGI_ADAPTIVE_STAGED_PER_THREAD * MPCGI_ADAPTIVE_STAGED_BLOCK)

/* The tiles path (spmv/adaptive/tiles.cu): a block of TILE_BLOCK threads per tile of rows, y of
 * the tile in shared memory; the tile's entries in rounds of TILE_BLOCK slots, a row at most once
 * per round, read TILE_BATCH rounds at a time; long rows (> the plan's long_min) by a warp each,
 * those longer than TILE_BLOCK_ROW by the whole block. */
#define MPCGI_ADAPTIVE_TILE_BLOCK 1024
#define MPCGI_ADAPTIVE_TILE_BATCH 8
#define MPCGI_ADAPTIVE_TILE_BLOCK_ROW 4096
#define MPCGI_ADAPTIVE_TILE_EMPTY 0xffff /* slot_row of a slot without an entry */
#define MPCGI_ADAPTIVE_TILE_KEY_BITS 24  /* a tile's entries are sorted on keys of this many bits */

/* Bits of v (at least 1). */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_bits(int64_t v)
{
    int b = 1;
    while (b < 63 && (v >> b) != 0)
        b++;
    return b;
}

/* The largest |col - row| of row `row`, whose columns are sorted: at its first or its last. */
static inline MPCGI_ADAPTIVE_HD int64_t mpcgi_adaptive_row_span(int64_t row, int32_t first,
                                                                int32_t last)
{
    const int64_t below = row - first, above = last - row;
    return below > above ? below : above;
}

/* The tiles' sort key of a short entry in tile t, column c: (t, c >> shift), where shift drops
 * the column's low bits that do not fit beside the tile's in TILE_KEY_BITS (three passes of an
 * 8-bit radix sort instead of four). Entries of a tile with the same key keep their CSR order. A
 * tile has of the order of nnz / 2^24 entries with one key: while that is under a warp's 32, a
 * warp walks whole buckets and gathers the same 128-byte lines of x as in column order. The long
 * rows' entries get the key of tile T (after all). cbits: the key's column bits. */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_tile_shift(int64_t n, int64_t tiles, int *cbits)
{
    const int c = mpcgi_adaptive_bits(n > 1 ? n - 1 : 1), t = mpcgi_adaptive_bits(tiles);
    const int over = c + t - MPCGI_ADAPTIVE_TILE_KEY_BITS, shift = over > 0 ? over : 0;
    *cbits = c - shift;
    return shift;
}

/* The device layout of one plan, passed by value to the SpMV kernels. */
typedef struct mpcgi_adaptive_launch {
    int64_t n;
    int path;           /* MPCGI_ADAPTIVE_UNIFORM, _SPLIT, _BINNED or _TILES */
    int nt;             /* uniform and split: threads per row */
    int rows_per_group; /* R: rows a group of NT lanes sums at once (1, 2, 4) */
    int64_t skip_len;   /* split: rows longer than this are long (left to the chunks) */
    int block;          /* threads per block */
    int chunk;          /* binned: nonzeros per long-row virtual block */
    int grid;           /* blocks of apply (0: one per virtual block) */
    int dot_grid;       /* blocks of apply_dot (the dot partials), fixed per plan */
    int stream_loads;   /* values and columns read with evict-first (streaming) loads */
    int staged_rows;    /* uniform path, NT = 1, block = STAGED_BLOCK: rows per staged tile
                           (one virtual block), at most the block, their entries at most
                           STAGED_CAP; 0: the rows are not staged */
    int64_t vblocks;    /* virtual blocks of one SpMV */
    /* split and binned: virtual blocks [0, long_blocks) are long-row chunks; split: the rest
     * hold R block / nt consecutive rows each; binned: short bin b (1..6) owns
     * [vb_start[b - 1], vb_start[b]) with vb_start[0] = long_blocks, R block / NT_b rows each,
     * rows[row_start[b] .. row_start[b] + row_count[b]) */
    int n_long, long_blocks;
    int64_t vb_start[MPCGI_ADAPTIVE_SHORT_BINS + 1];
    int64_t row_start[MPCGI_ADAPTIVE_BINS], row_count[MPCGI_ADAPTIVE_BINS];
    const int32_t *row_ptr;    /* n + 1 */
    const int32_t *col_idx;    /* nnz, or NULL where col16 is used */
    const int16_t *col16;      /* nnz offsets col - row where all fit in 16 bits, else NULL */
    const int32_t *rows;       /* the row list, bin by bin, ascending within a bin (split: the
                                  long rows only) */
    const int32_t *long_start; /* binned: n_long + 1 prefix of the long rows' chunk counts */
    int *counters;             /* n_long + 1 zeroed integers (the long rows', then the dot's),
                                  reset by the kernels after use */
    /* tiles (n_long and long_blocks are 0 there: the long rows are the tiles' own) */
    int tiles;                 /* T, one block each */
    int tile_max_rows;         /* rows of the largest tile (its y in shared memory) */
    int tile_n_long;           /* long rows, rows[0 .. tile_n_long) ascending */
    const int32_t *tile_row;   /* T + 1: first row of each tile */
    const int64_t *tile_off;   /* T + 1: first slot of each tile (TILE_BLOCK TILE_BATCH apart) */
    const int32_t *tile_long;  /* T + 1: first long row of each tile (an index into rows) */
    const int32_t *slot_col;   /* per slot: the column (empty slots: 0 in CPU plans, never
                                  written or read on the device) */
    const uint16_t *slot_row;  /* per slot: the row in its tile, TILE_EMPTY if empty */
    const double *tval64;      /* per slot: the value (the precisions in use), 0 if empty */
    const float *tval32;
} mpcgi_adaptive_launch;

/* Dot partials one block of the dot's reduction adds (the first of its two levels): one per
 * thread of its 1024. */
#define MPCGI_ADAPTIVE_DOT_CHUNK 1024

/* Blocks of the dot's reduction for `parts` partials: the sums of its first level. */
static inline int64_t mpcgi_adaptive_dot_stages(int64_t parts)
{
    return parts < 1 ? 1 : (parts + MPCGI_ADAPTIVE_DOT_CHUNK - 1) / MPCGI_ADAPTIVE_DOT_CHUNK;
}

/* Dot partials a block of apply_dot writes: one a warp; on the staged path one a warp that can
 * hold rows of its tile (the others' would be zeros for the reduction to read). */
static inline MPCGI_ADAPTIVE_HD int mpcgi_adaptive_dot_warps(const mpcgi_adaptive_launch *L)
{
    return L->staged_rows > 0 ? (L->staged_rows + 31) / 32 : L->block / 32;
}

/* Workspace of one plan on the device, in doubles: the long-row chunk partials, the long rows'
 * dot terms, the per-warp dot partials, then the block sums of the dot's reduction. */
static inline int64_t mpcgi_adaptive_ws_doubles(const mpcgi_adaptive_launch *L)
{
    const int64_t parts = (int64_t)L->dot_grid * mpcgi_adaptive_dot_warps(L);
    return (int64_t)L->long_blocks + L->n_long + parts + mpcgi_adaptive_dot_stages(parts);
}

/* ---------------------------------------------------------------- setup (binning on the GPU) */

/* The totals of the count: the quantities, the longest row, the span, then the count's ticket
 * (0 before a count, and again after one). */
#define MPCGI_ADAPTIVE_TOTALS (MPCGI_ADAPTIVE_QUANTITIES + 3)

/* One launch. row_ptr32 = row_ptr64 narrowed; counts[q * ntiles + t] = the exclusive prefix over
 * the tiles before t of quantity q (rows per bin, then the long rows' chunks and nonzeros);
 * totals[q] = its sum, totals[MPCGI_ADAPTIVE_QUANTITIES] = the longest row,
 * totals[MPCGI_ADAPTIVE_QUANTITIES + 1] = the largest |col - row| where that exceeds INT16_MAX,
 * else 0. tile_max: 2 ntiles ints of scratch. */
int mpcgi_adaptive_setup_count(void *stream, int64_t n, const int64_t *row_ptr64,
                               int32_t *row_ptr32, const int32_t *col,
                               const mpcgi_adaptive_binning *bin, int32_t *counts,
                               int32_t *tile_max, int32_t *totals);
/* rows[region[q] + position] = each row (only the long rows if long_only), stable within its
 * bin; long_start[j] = the first chunk of long row j, long_start[n_long] = all the chunks. */
int mpcgi_adaptive_setup_scatter(void *stream, int64_t n, const int32_t *row_ptr32,
                                 const mpcgi_adaptive_binning *bin, const int32_t *counts,
                                 const int32_t *totals, const int64_t *region, int long_only,
                                 int32_t *rows, int32_t *long_start);
/* col16[k] = col[k] - row of entry k, for every row (each must fit). */
int mpcgi_adaptive_setup_col16(void *stream, int64_t n, const int32_t *row_ptr32,
                               const int32_t *col, int16_t *col16);
/* v32[k] = (float)v64[k] */
int mpcgi_adaptive_to_f32(void *stream, int64_t nnz, const double *v64, float *v32);

/* ---------------------------------------------------------------- SpMV */

/* y = A x. ws: mpcgi_adaptive_ws_doubles doubles (used by long rows). val: the values in CSR
 * order; on the tiles path they serve its long rows, the slots' are L->tval64 / tval32. */
int mpcgi_adaptive_spmv_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                            const double *x, double *y, double *ws);
int mpcgi_adaptive_spmv_f32(void *stream, const mpcgi_adaptive_launch *L, const float *val,
                            const float *x, float *y, double *ws);
/* y = (hi + lo) x in fp64 (the mixed storage), each value (double)hi[k] + (double)lo[k], in the
 * fp64 kernel's order and layout (L: the plan's, as for fp64); not on the tiles path
 * (cudaErrorNotSupported). */
int mpcgi_adaptive_spmv_mixed(void *stream, const mpcgi_adaptive_launch *L, const float *hi,
                              const float *lo, const double *x, double *y, double *ws);
/* y = A x and *dot = x^T y, both deterministic; nothing is written when skip && *skip. */
int mpcgi_adaptive_spmv_dot_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                                const double *x, double *y, double *ws, double *dot,
                                const int *skip);
/* ---------------------------------------------------------------- the tiles path */

/* Device setup of a tiles layout (spmv/adaptive/tiles.cu), in scratch device memory the caller
 * allocates and frees. The keys, then step 1 sorts each tile's short entries by column (by the
 * key of mpcgi_adaptive_tile_shift) and deals them into levels of rounds (a row at most once per
 * round; an entry that meets its row again in a round moves to the next level, in order);
 * level_len[t * max_levels + v] is the length of level v of tile t (0 after the last). *failed
 * becomes 1 where a tile needs more than max_levels levels. Step 2 (after the host laid out the
 * slots: tile_off and level_round[t * max_levels + v], the first round of each level in its
 * tile) fills slot_col, slot_row and slot_perm (the entry of each slot) where an entry goes; the
 * caller sets the others' row to MPCGI_ADAPTIVE_TILE_EMPTY and entry to -1 (their column is never
 * read): a level's rounds have holes where entries moved on to the next level, not only a tail. */
typedef struct mpcgi_adaptive_tile_setup {
    int64_t n, nnz, n_short; /* n_short: entries of rows not long */
    int tiles, long_min, max_levels, max_rows;
    const int32_t *row_ptr, *col, *tile_row, *rows; /* rows: the long rows, ascending */
    int tile_n_long;
    /* mpcgi_adaptive_tiles_scratch bytes: per nonzero sort keys and what is sorted with them
     * (2 + 2, 4 bytes each; then the levels' places and lists) and levels (1 byte). Memory the
     * caller lends until step 2 returns takes some of it where not NULL: lend8, 8 nnz + 256
     * bytes (the keys and what is sorted with them as the keys kernel writes them: the keys need
     * no scratch then); lend4, 4 nnz bytes (the sort's second keys). */
    void *scratch, *lend8, *lend4;
    int sorted; /* set by step 1 for step 2: which of the sort's buffers holds the result */
    int32_t *level_len; /* tiles * max_levels */
    int32_t *tile_long; /* tiles + 1 */
    int *failed;
} mpcgi_adaptive_tile_setup;

/* Bytes of scratch mpcgi_adaptive_tiles_step1 needs, with or without lend8 and lend4. */
size_t mpcgi_adaptive_tiles_scratch(int64_t nnz, int tiles, int lend8, int lend4);
/* The sort keys (before step 1; with lend8 it does not touch the scratch, which may come after). */
int mpcgi_adaptive_tiles_keys(void *stream, const mpcgi_adaptive_tile_setup *s);
int mpcgi_adaptive_tiles_step1(void *stream, mpcgi_adaptive_tile_setup *s);
int mpcgi_adaptive_tiles_step2(void *stream, const mpcgi_adaptive_tile_setup *s,
                               const int64_t *tile_off, const int32_t *level_round,
                               int32_t *slot_col, uint16_t *slot_row, int32_t *slot_perm);
/* tval[s] = val[perm[s]], 0 where perm[s] < 0 (the values in slot order) */
int mpcgi_adaptive_tiles_values_f64(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, double *tval);
int mpcgi_adaptive_tiles_values_f32(void *stream, int64_t slots, const int32_t *perm,
                                    const double *val, float *tval);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_ADAPTIVE_KERNELS_H */
