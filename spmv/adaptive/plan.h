/* spmv/adaptive/plan.h: the adaptive backend's plan and the functions its host files share */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_PLAN_H
#define MPCG_SPMV_ADAPTIVE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"
#include "core/options.h"
#include "mpcg.h"
#include "spmv/adaptive/kernels.h"

/*
 * The adaptive CRS method of Mukunoki and Takahashi: a group of NT lanes per row, NT the power
 * of two >= the mean row length capped at 32, the lanes striding over the row and reduced by a
 * __shfl_xor_sync butterfly. Beyond the paper, a group sums R rows at once (more loads in
 * flight), and rows of very different lengths are binned. Long rows (> long_min nonzeros) are
 * cut into chunks of `chunk` nonzeros, one block each, the chunk sums added in order by the
 * block that finishes last. Four paths, one launch each (rules.c decides):
 *   - uniform (the paper's kernel, no indirection): one NT for every row; taken when the longest
 *     row is at most max_ratio times the mean and at most long_min; staged (L.staged_rows > 0)
 *     where adaptive.mode=staged or the tuned rule asks (rules.c, want_staged): tiles of rows
 *     copied to shared memory by the block, then NT = 1 from there;
 *   - split: the long rows' chunks, then every other row in row order with one NT;
 *   - binned: the long rows' chunks, then bins of short rows with NT = 32, 16, ..., 1 (the
 *     smallest NT with NT * passes >= the row length), through a row list;
 *   - tiles: row tiles walked in column order, for gather-bound (wide) matrices
 *     (tiles_setup.c).
 * The row list (rows grouped by bin, ascending within a bin; split and tiles: the long rows) and
 * the long rows' chunk offsets are built on the GPU at upload (binning.c: count per tile, scan,
 * scatter); a CPU plan builds the same arrays on the host, and apply_host emulates the kernels'
 * arithmetic operation by operation (emulate.c). Tuning knobs are the adaptive.* option keys
 * read at analyze (docs/backends/adaptive.md, "Options (`adaptive.*` keys, read at analyze)").
 */

typedef enum { RULE_TUNED, RULE_SEED } adaptive_rule;

typedef enum {
    MODE_AUTO, MODE_UNIFORM, MODE_SPLIT, MODE_BINNED, MODE_TILES, MODE_STAGED
} adaptive_mode;

/* The tiles path's defaults and limits (rules.c, tiles_setup.c): rows per tile at most (y of a
 * tile in shared memory, 160 KiB in fp64; the L1 keeps the rest of the SM's 256 KiB for the
 * loads in flight), the long rows' threshold, and the tiles in multiples of the SMs (CPU plans:
 * of DEFAULT_TILE_WAVE, the H100's and H200's 132). */
#define DEFAULT_TILE_ROWS 20480
#define MAX_TILE_ROWS 28672
#define TILE_LONG_MIN 16
#define TILE_LONG_MAX 254 /* levels are counted in 8 bits */
#define DEFAULT_TILE_WAVE 132

/* Below this many rows a device plan allocates room for its row list (every row and a chunk
 * offset per long row: at most 2 n + 1 entries, 4 MiB) with the row pointers, used or not: the
 * binning then allocates nothing between the count and the scatter (a cudaMalloc costs more
 * than one SpMV of such a matrix: docs/backends/adaptive.md, "Setup on the GPU"). */
#define ROWS_RESERVE ((int64_t)1 << 19)

/* A device plan of fewer than ROWS_RESERVE rows and at most this many nonzeros is one allocation
 * (adaptive_dev.block): its row pointers with the row list's room, the counters' room (a long
 * row at most per row), the 32-bit columns, the 16-bit columns' room and the values, used or
 * not (at most 4 bytes a nonzero and 4 a row more than the plan's arrays). A cudaMalloc or a
 * cudaFree costs several SpMVs of such a matrix, and one allocation per array would be most of
 * the plan's setup (docs/backends/adaptive.md, "Setup on the GPU"). */
#define BLOCK_NNZ ((int64_t)1 << 22)

/* The most blocks of the dot (adaptive.dot_grid, and its default). */
#define DOT_GRID_MAX (1 << 20)

/* The knobs, from the adaptive.* options (0 where the rule decides: nt, rows, grid, dot_grid,
 * tile_long, tile_wave). */
typedef struct adaptive_params {
    adaptive_mode mode;
    adaptive_rule rule; /* how NT and R follow from the matrix when not set */
    int nt;             /* 0: from the rule */
    int rows;           /* R; 0: from the rule */
    int block;
    double max_ratio;
    int split_pct;
    mpcgi_adaptive_binning bin;
    int stream_loads;
    int grid, dot_grid; /* 0: the defaults */
    int index32;        /* adaptive.index=32: never the 16-bit column offsets */
    int tile_rows, tile_long, tile_wave; /* tiles path; 0: tile_long from the tiles
                                            (tiling_start), tile_wave the SMs (CPU: 132) */
} adaptive_params;

/* What the binning found. */
typedef struct adaptive_stats {
    int wide; /* gathers span far: some |col - row| exceeds both INT16_MAX and n / 4 */
    int64_t bin_rows[MPCGI_ADAPTIVE_BINS], max_len, long_nnz;
} adaptive_stats;

/* The row list and chunk offsets of a CPU plan, and its emulation's chunk partials. */
typedef struct adaptive_host {
    int32_t *rows, *long_start;
    double *part; /* long_blocks partials (float in the fp32 emulation) */
} adaptive_host;

/* The arrays of a device plan (row_ptr is set once uploaded). */
typedef struct adaptive_dev {
    void *block; /* a small plan's one allocation (BLOCK_NNZ), or NULL: each array its own */
    int32_t *row_ptr, *col_idx, *rows, *long_start; /* long_start: in rows' block */
    size_t rows_reserved; /* room for the row list after the row pointers (ROWS_RESERVE): rows
                             is then in row_ptr's block, else its own */
    int16_t *col16, *col16_room; /* col16_room: in the block, where there is one */
    int *counters, *counters_room;
    double *val64;
    float *val32; /* fp32 values: hi with the mixed storage */
    float *lo32;  /* the mixed storage's low halves, or NULL */
    /* the block product's CSR (spmv/adaptive/block.c): int64 row pointers, and int32 columns
     * where col16 replaced col_idx (else NULL: col_idx serves) */
    int64_t *row_ptr64;
    int32_t *col_block;
} adaptive_dev;

/* The tiles path: the tiles (host arrays in both plans), the slots (host arrays in a CPU plan;
 * slot_perm: the entry of each slot, -1 if empty) and, on the device, the same with the values
 * in slot order. */
typedef struct adaptive_tiles {
    int64_t n_slots;
    int32_t *tile_row, *tile_long;
    int64_t *tile_off;
    int32_t *slot_col, *slot_perm;
    uint16_t *slot_row;
    int32_t *d_tile_row, *d_tile_long, *d_slot_col, *d_slot_perm; /* in d_tile_off's and
                                                                    d_slots' blocks */
    int64_t *d_tile_off;
    void *d_slots; /* d_tval64, d_tval32, d_slot_col, d_slot_perm, d_slot_row */
    uint16_t *d_slot_row;
    double *d_tval64;
    float *d_tval32;
} adaptive_tiles;

/* Device plans: the binning (CUDA events); the tiles' layout; the 16-bit columns (host clock). */
typedef struct adaptive_times {
    double setup_ms, tiles_ms, columns_ms;
} adaptive_times;

typedef struct adaptive_plan {
    const mpcgi_csr *A;
    adaptive_params par;
    int use64, use32;
    int mixed; /* mixed storage: val32 holds hi, lo32 lo (use32 is set too) */
    adaptive_stats st;
    mpcgi_adaptive_launch L; /* the layout; its pointers are device arrays once uploaded */
    adaptive_host h;
    adaptive_dev d;
    adaptive_tiles t;
    adaptive_times ms;
} adaptive_plan;

/* rules.c (and mpcgi_adaptive_options, spmv/adaptive/adaptive.h) */
/* The knobs from opts (NULL: defaults); the chunk-and-block check fails here, naming both keys. */
mpcg_status mpcgi_adaptive_params(const mpcg_context *ctx, const mpcgi_options *opts,
                                  int64_t nnz, adaptive_params *par);
/* 1 if the plan takes the tiles path (adaptive.mode=tiles, or auto's rule; never for a mixed
 * plan under auto: the tiles path has no mixed apply). p->st.wide must be known. */
int mpcgi_adaptive_want_tiles(const adaptive_plan *p, int64_t max_len);
/* The path, then the virtual blocks of one SpMV. counts: MPCGI_ADAPTIVE_QUANTITIES totals.
 * MPCG_ERR_NOT_SUPPORTED where adaptive.mode=staged meets a row longer than a staged tile. */
mpcg_status mpcgi_adaptive_plan_layout(mpcg_context *ctx, adaptive_plan *p, const int64_t *counts,
                                       int64_t max_len);
void mpcgi_adaptive_fp32_launch(const adaptive_plan *p, mpcgi_adaptive_launch *out);
int64_t mpcgi_adaptive_list_length(const mpcgi_adaptive_launch *L);
size_t mpcgi_adaptive_bytes_matrix(const adaptive_plan *p);
/* The same of its fp32 SpMV (the fp32 values, hi); 0 without them. */
size_t mpcgi_adaptive_bytes_matrix32(const adaptive_plan *p);

/* binning.c */
mpcg_status mpcgi_adaptive_host_binning(mpcg_context *ctx, adaptive_plan *p);
size_t mpcgi_adaptive_binning_bytes(int64_t n);
mpcg_status mpcgi_adaptive_device_binning(mpcg_context *ctx, adaptive_plan *p, void *scratch);

/* tiles_setup.c */
mpcg_status mpcgi_adaptive_tiling_start(mpcg_context *ctx, adaptive_plan *p, int sms);
mpcg_status mpcgi_adaptive_tiling_host(mpcg_context *ctx, adaptive_plan *p);
mpcg_status mpcgi_adaptive_tiling_device(mpcg_context *ctx, adaptive_plan *p);

/* MPCG_ERR_NOT_SUPPORTED naming the path where the plan cannot serve a mixed apply (the tiles
 * path has no mixed instances). */
mpcg_status mpcgi_adaptive_mixed_supported(mpcg_context *ctx, const adaptive_plan *p);

/* block.c: the block product (SpMM, spmv/spmm/spmm.h) on the plan's CSR */
/* Y = A X; the first call adds the int64 row pointers and, where the SpMV reads 16-bit offsets,
 * int32 columns. */
mpcg_status mpcgi_adaptive_apply_block(mpcg_context *ctx, void *impl, mpcg_precision prec, int s,
                                       const void *X, void *Y, void *ws);
mpcg_status mpcgi_adaptive_apply_block_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                            int s, const void *X, void *Y);

/* emulate.c: y = A x as the kernels compute it (host vectors of precision prec). */
mpcg_status mpcgi_adaptive_emulate(mpcg_context *ctx, const adaptive_plan *p, mpcg_precision prec,
                                   const void *x, void *y);

#endif /* MPCG_SPMV_ADAPTIVE_PLAN_H */
