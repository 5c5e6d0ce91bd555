/* spmv/adaptive.c: the adaptive backend: CSR-vector with NT threads per row and row binning */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/timer.h"
#include "spmv/adaptive.h"
#include "spmv/adaptive_kernels.h"
#include "spmv/spmv.h"

/*
 * Seed 003 (Mukunoki & Takahashi): a group of NT lanes per row, NT the power of two >= the mean
 * row length capped at 32, the lanes striding over the row and reduced by a __shfl_xor_sync
 * butterfly. Beyond the seed, a group sums R rows at once (more loads in flight), and rows of
 * very different lengths are binned. Long rows (> long_min nonzeros) are cut into chunks of
 * `chunk` nonzeros, one block each, the chunk sums added in order by the block that finishes
 * last. Three paths, one launch each:
 *   - uniform (the seed's kernel, no indirection): one NT for every row; taken when the longest
 *     row is at most max_ratio times the mean and at most long_min;
 *   - split: the long rows' chunks, then every other row in row order with one NT (the seed's
 *     rule on the mean of the short rows); taken for skewed matrices whose short rows mostly
 *     (split_pct %) want an NT within a factor 2 of that one;
 *   - binned: the long rows' chunks, then bins of short rows with NT = 32, 16, ..., 1 (the
 *     smallest NT with NT * passes >= the row length), through a row list; the other skewed
 *     matrices.
 * The row list (rows grouped by bin, ascending within a bin; split: the long rows) and the long
 * rows' chunk offsets are built on the GPU at upload (count per tile, scan, scatter); a CPU plan
 * builds the same arrays on the host, and apply_host emulates the kernels' arithmetic operation
 * by operation. Tuning knobs are environment variables read at analyze (docs/backends.md).
 */

#define DEFAULT_BLOCK 128
#define DEFAULT_MAX_RATIO 4.0
#define DEFAULT_LONG_MIN 1024
#define DEFAULT_CHUNK 2048
/* The tuned rule's long rows of a small matrix (fewer than SMALL_NNZ nonzeros): there one warp
 * on a row of a few hundred entries, or one block on 2048, outlasts the rest of the SpMV. */
#define SMALL_NNZ (1 << 22)
#define SMALL_LONG_MIN 256
#define SMALL_CHUNK 512
#define DEFAULT_SPLIT_PCT 90
#define DOT_GRID_MAX (1 << 20)
#define DEFAULT_LOOP_BLOCKS 1
/* the tuned rule's split-or-binned test (choose_path): a round of a group's loop (loads, then
 * dependent gathers) and the device's streaming rate, both rough H100 figures */
#define TAIL_NS_PER_ROUND 500.0
#define TAIL_BYTES_PER_NS 3000.0
/* The tiles path (tiles_cut, tiles_start): rows per tile at most (y of a tile in shared memory,
 * 160 KiB in fp64; the L1 keeps the rest of the SM's 256 KiB for the loads in flight), tiles in
 * multiples of the SMs (CPU plans: of DEFAULT_TILE_WAVE, the H100's and H200's 132), and when
 * the tuned rule takes it: wide plans of at least TILE_MIN_NNZ nonzeros whose longest row is at
 * most TILE_MAX_LEN. H100, adaptive_sweep, fp64 against cuSPARSE, at most 15360 and 20480 rows:
 * powerlaw:4000000:16 1.35 x (396 tiles) and 1.50 x (264), the permuted bcsstk25 replica 1.24 x
 * and 1.40 x; 24576 and 28672 gave the tiles of 20480 on all three wide matrices. */
#define DEFAULT_TILE_ROWS 20480
#define MAX_TILE_ROWS 28672
#define TILE_LONG_MIN 16
#define TILE_LONG_MAX 254 /* levels are counted in 8 bits */
#define DEFAULT_TILE_WAVE 132
#define TILE_MIN_NNZ (1 << 22)
#define TILE_MAX_LEN (1 << 17)

typedef enum { RULE_TUNED, RULE_SEED } adaptive_rule;

typedef enum { MODE_AUTO, MODE_UNIFORM, MODE_SPLIT, MODE_BINNED, MODE_TILES } adaptive_mode;

/* Below this many rows a device plan allocates room for its row list (every row and a chunk
 * offset per long row: at most 2 n + 1 entries, 4 MiB) with the row pointers, used or not: the
 * binning then allocates nothing between the count and the scatter (H100: a cudaMalloc of
 * 0.3 MB took 35 - 60 us, against 5 - 9 us for one SpMV of such a matrix). */
#define ROWS_RESERVE ((int64_t)1 << 19)

/* The persistent CG loop a plan runs (spmv/adaptive_cg.cu): the single-reduction loop where
 * its rows fit in shared memory, else the two-barrier loop on the uniform path (auto); or only
 * one of them. */
typedef enum { LOOP_AUTO, LOOP_TWO_BARRIER, LOOP_SINGLE } adaptive_loop;

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
    int loop_blocks;    /* blocks per SM of the two-barrier persistent CG loop */
    adaptive_loop loop; /* which persistent CG loop (MPCG_ADAPTIVE_LOOP) */
    int index32;        /* MPCG_ADAPTIVE_INDEX=32: never the 16-bit column offsets */
    int tile_rows, tile_long, tile_wave; /* tiles path; 0: tile_long from the tiles (tiles_start),
                                            tile_wave the SMs (CPU: 132) */
} adaptive_params;

typedef struct adaptive_plan {
    const mpcgi_csr *A;
    adaptive_params par;
    int use64, use32;
    int wide; /* gathers span far: some |col - row| exceeds both INT16_MAX and n / 4 */
    int64_t bin_rows[MPCGI_ADAPTIVE_BINS], max_len;
    mpcgi_adaptive_launch L; /* the layout; its pointers are device arrays once uploaded */
    /* CPU plan */
    int32_t *rows, *long_start;
    float *val32;
    double *part; /* chunk partials of the emulation (long_blocks) */
    /* device plan (d_row_ptr is set once uploaded) */
    int32_t *d_row_ptr, *d_col_idx, *d_rows, *d_long_start; /* d_long_start: in d_rows' block */
    size_t rows_reserved; /* room for the row list after the row pointers (ROWS_RESERVE): d_rows
                             is then in d_row_ptr's block, else its own */
    int16_t *d_col16;
    int *d_counters;
    double *d_val64;
    float *d_val32;
    int loop_grid; /* blocks of the two-barrier CG loop; 0: the plan cannot run it */
    int loop1_grid, loop1_rb, loop1_width; /* the single-reduction loop's blocks (0: cannot
                                              run it), rows per block, entries per row */
    double setup_ms, tiles_ms, columns_ms; /* device plans: the binning; the tiles' layout; the
                                              16-bit columns */
    /* tiles path: the tiles (host arrays in both plans), the slots (host arrays in a CPU plan;
     * slot_perm: the entry of each slot, -1 if empty) and the values in slot order (device) */
    int64_t n_slots, long_nnz;
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
} adaptive_plan;

/* ---------------------------------------------------------------- parameters */

/* Integer knob `name` in [lo, hi] (a power of two if pow2); def when unset. */
static mpcg_status env_int(const mpcg_context *ctx, const char *name, long lo, long hi, int pow2,
                           int def, int *out)
{
    const char *s = getenv(name);
    *out = def;
    if (!s || !*s) return MPCG_SUCCESS;
    char *end;
    long v = strtol(s, &end, 10);
    MPCG_ENSURE(ctx, *end == '\0' && v >= lo && v <= hi && (!pow2 || (v & (v - 1)) == 0),
                MPCG_ERR_INVALID_ARG, "%s=%s: expected %s in [%ld, %ld]", name, s,
                pow2 ? "a power of two" : "an integer", lo, hi);
    *out = (int)v;
    return MPCG_SUCCESS;
}

/* One of the words of `choices` (NULL-terminated) for knob `name`: its index; 0 when unset. */
static mpcg_status env_word(const mpcg_context *ctx, const char *name, const char *const *choices,
                            int *out)
{
    const char *s = getenv(name);
    *out = 0;
    if (!s || !*s) return MPCG_SUCCESS;
    for (int i = 0; choices[i]; i++)
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return MPCG_SUCCESS;
        }
    char list[128] = "";
    for (int i = 0; choices[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 choices[i]);
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "%s=%s: expected one of %s", name, s, list);
}

static mpcg_status read_params(const mpcg_context *ctx, int64_t nnz, adaptive_params *par)
{
    static const char *const modes[] = {"auto", "uniform", "split", "binned", "tiles", NULL};
    static const char *const loads[] = {"stream", "cached", NULL};
    static const char *const rules[] = {"tuned", "seed", NULL};
    static const char *const indices[] = {"auto", "32", NULL};
    static const char *const loops[] = {"auto", "two-barrier", "single", NULL};
    int mode, load, rule, ratio10, index, loop;
    MPCG_CHECK(ctx, env_word(ctx, "MPCG_ADAPTIVE_MODE", modes, &mode));
    MPCG_CHECK(ctx, env_word(ctx, "MPCG_ADAPTIVE_RULE", rules, &rule));
    par->rule = (adaptive_rule)rule;
    MPCG_CHECK(ctx, env_word(ctx, "MPCG_ADAPTIVE_LOAD", loads, &load));
    MPCG_CHECK(ctx, env_word(ctx, "MPCG_ADAPTIVE_INDEX", indices, &index));
    par->index32 = index == 1;
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_NT", 0, 32, 0, 0, &par->nt));
    MPCG_ENSURE(ctx, (par->nt & (par->nt - 1)) == 0, MPCG_ERR_INVALID_ARG,
                "MPCG_ADAPTIVE_NT=%d: expected 0 (from the rule) or 1, 2, 4, 8, 16, 32", par->nt);
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_ROWS", 0, 4, 0, 0, &par->rows));
    MPCG_ENSURE(ctx, par->rows != 3, MPCG_ERR_INVALID_ARG,
                "MPCG_ADAPTIVE_ROWS=3: expected 0 (from the rule) or 1, 2, 4");
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_SPLIT_PCT", 0, 101, 0, DEFAULT_SPLIT_PCT,
                            &par->split_pct));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_BLOCK", 64, MPCGI_ADAPTIVE_MAX_BLOCK, 1,
                            DEFAULT_BLOCK, &par->block));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_MAX_RATIO10", 10, 100000, 0,
                            (int)(10 * DEFAULT_MAX_RATIO), &ratio10));
    /* binned short rows follow the rule too: two entries per lane (tuned) or one (seed) */
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_PASSES", 1, 32, 1, par->rule == RULE_SEED ? 1 : 2,
                            &par->bin.passes));
    /* small matrices (tuned rule): shorter long rows, cut finer (a multiple of the block) */
    const int small = par->rule == RULE_TUNED && nnz < SMALL_NNZ;
    const int chunk = small ? (par->block > SMALL_CHUNK ? par->block : SMALL_CHUNK) : DEFAULT_CHUNK;
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_LONG_MIN", 32, 1 << 30, 0,
                            small ? SMALL_LONG_MIN : DEFAULT_LONG_MIN, &par->bin.long_min));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_CHUNK", 64, 1 << 24, 0, chunk, &par->bin.chunk));
    MPCG_ENSURE(ctx, par->bin.chunk % par->block == 0, MPCG_ERR_INVALID_ARG,
                "MPCG_ADAPTIVE_CHUNK=%d must be a multiple of the block size %d", par->bin.chunk,
                par->block);
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_GRID", 0, 1 << 30, 0, 0, &par->grid));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_DOT_GRID", 0, 1 << 20, 0, 0, &par->dot_grid));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_LOOP_BLOCKS", 1, 32, 0, DEFAULT_LOOP_BLOCKS,
                            &par->loop_blocks));
    MPCG_CHECK(ctx, env_word(ctx, "MPCG_ADAPTIVE_LOOP", loops, &loop));
    par->loop = (adaptive_loop)loop;
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_TILE_ROWS", 16, MAX_TILE_ROWS, 0, DEFAULT_TILE_ROWS,
                            &par->tile_rows));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_TILE_LONG", 0, TILE_LONG_MAX, 0, 0,
                            &par->tile_long));
    MPCG_CHECK(ctx, env_int(ctx, "MPCG_ADAPTIVE_TILE_WAVE", 0, 1 << 16, 0, 0, &par->tile_wave));
    par->mode = (adaptive_mode)mode;
    par->stream_loads = load == 0;
    par->max_ratio = ratio10 / 10.0;
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- the plan's layout */

/* NT for rows of nnz / n nonzeros on average. The seed's rule: the smallest power of two
 * NT >= the mean, at most 32. The tuned rule (the default; the H100 sweeps of docs/backends.md):
 * the smallest power of two NT >= mean / 2, at most 32 (about two entries per lane and row). */
static int rule_nt(const adaptive_params *par, int64_t n, int64_t nnz)
{
    if (par->nt) return par->nt;
    int per_lane = par->rule == RULE_TUNED ? 2 : 1;
    int nt = 1;
    while (nt < 32 && (int64_t)nt * n * per_lane < nnz)
        nt <<= 1;
    return nt;
}

/* R, rows a group sums at once. Seed rule: 1. Tuned rule: 2 for groups of 2 ... 32 lanes on
 * matrices of 2^16 rows or more that are not wide (more loads in flight per lane), else 1. Small
 * matrices need the blocks more than the loads in flight. Wide plans (some |col - row| above
 * both INT16_MAX and n / 4: permuted or random matrices, not stencils, whose longest offset N^2
 * is far below n / 4) are limited by L2, and fewer rows per group ran faster there. H100,
 * adaptive_sweep, fp64 against cuSPARSE, R = 1 and R = 2: replicate bcsstk16 x 150 (NT = 32)
 * 0.90 x and 1.11 x; its permuted replica 0.95 x and 0.90 x; the permuted bcsstk25 replica
 * (NT = 16) 0.93 x and 0.89 x; powerlaw:4000000:16 (split, NT = 16) 0.94 x and 0.87 x; and
 * poisson3d:256 (offsets up to 65536: 32-bit columns, not wide) 0.91 and 1.00 of the copy
 * bandwidth. */
static int rows_per_group(const adaptive_params *par, int64_t n, int nt, int wide)
{
    if (par->rows) return par->rows;
    if (par->rule == RULE_SEED) return 1;
    return nt > 1 && n >= (1 << 16) && !wide ? 2 : 1;
}

/* Whether a plan takes the tiles path: asked for, or by the tuned rule on wide plans (random
 * gathers) of TILE_MIN_NNZ nonzeros or more whose longest row is at most TILE_MAX_LEN. H100,
 * adaptive_sweep, fp64 against cuSPARSE, tiles and split: powerlaw:4000000:16 1.50 x and 0.94 x,
 * the permuted replicas of bcsstk16 (x 150) 1.26 x and 0.95 x, of bcsstk25 (x 170) 1.40 x and
 * 0.93 x. */
static int want_tiles(const adaptive_params *par, int wide, int64_t nnz, int64_t max_len)
{
    if (par->mode == MODE_TILES) return 1;
    return par->mode == MODE_AUTO && par->rule == RULE_TUNED && wide && nnz >= TILE_MIN_NNZ &&
           max_len <= TILE_MAX_LEN;
}

/* The path (the rule of docs/backends.md). counts: MPCGI_ADAPTIVE_QUANTITIES totals. */
static int choose_path(const adaptive_params *par, int64_t n, int64_t nnz, const int64_t *counts,
                       int64_t max_len, int *nt)
{
    int64_t n_short = n - counts[MPCGI_ADAPTIVE_LONG];
    *nt = rule_nt(par, n_short, nnz - counts[MPCGI_ADAPTIVE_LONG_NNZ]);
    int skewed = n > 0 && (max_len > par->bin.long_min ||
                           (double)max_len > par->max_ratio * ((double)nnz / (double)n));
    if (par->mode == MODE_UNIFORM || (par->mode == MODE_AUTO && !skewed)) {
        *nt = rule_nt(par, n, nnz);
        return MPCGI_ADAPTIVE_UNIFORM;
    }
    if (par->mode != MODE_AUTO)
        return par->mode == MODE_SPLIT ? MPCGI_ADAPTIVE_SPLIT : MPCGI_ADAPTIVE_BINNED;
    /* tuned: split unless its tail is long for the SpMV's size. The longest short row takes
     * len / (2 NT) rounds of one group (about TAIL_NS_PER_ROUND each; the first of them every
     * group takes) while the whole SpMV
     * takes about its bytes / TAIL_BYTES_PER_NS; split while the tail is at most a quarter of
     * that. On the H100 split ran powerlaw:4000000:16 at 0.85 x cuSPARSE (binned 0.41 x), but
     * vsp_model1_crew1_cr42_south31 (n = 45101, short rows up to 1024 with NT = 4) at 0.18 x:
     * one group of 4 lanes on a 1000-entry row outlasts the rest of that small SpMV. */
    if (par->rule == RULE_TUNED) {
        int64_t longest_short = 0;
        for (int b = 1; b < MPCGI_ADAPTIVE_BINS && !longest_short; b++)
            if (counts[b])
                longest_short = b == 1 ? (max_len < par->bin.long_min ? max_len : par->bin.long_min)
                                       : (int64_t)mpcgi_adaptive_bin_nt(b) * par->bin.passes;
        double rounds = (double)longest_short / (2.0 * *nt); /* one is every group's */
        double tail_ns = (rounds > 1.0 ? rounds - 1.0 : 0.0) * TAIL_NS_PER_ROUND;
        double spmv_ns = (12.0 * (double)nnz + 20.0 * (double)n) / TAIL_BYTES_PER_NS;
        return tail_ns <= 0.25 * spmv_ns ? MPCGI_ADAPTIVE_SPLIT : MPCGI_ADAPTIVE_BINNED;
    }
    int64_t near = 0; /* short rows whose own NT is within a factor 2 of nt */
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS; b++) {
        int nt_b = mpcgi_adaptive_bin_nt(b);
        if (2 * nt_b >= *nt && nt_b <= 2 * *nt) near += counts[b];
    }
    return 100 * near >= (int64_t)par->split_pct * n_short ? MPCGI_ADAPTIVE_SPLIT
                                                           : MPCGI_ADAPTIVE_BINNED;
}

/* Virtual blocks of `rows` rows for groups of nt lanes, R rows each. */
static int64_t group_vblocks(const mpcgi_adaptive_launch *L, int64_t rows, int nt)
{
    const int64_t per = (int64_t)L->rows_per_group * (L->block / nt);
    return (rows + per - 1) / per;
}

/*
 * The fp32 SpMV's layout, derived from L: the same, but on the uniform path of the tuned rule,
 * where the plan is not wide and NT is not set by the knob, half the lanes per row (NT / 2): with
 * half the bytes per entry, fp32 needs more entries per lane to keep as many bytes in flight.
 * H100, adaptive_sweep, fp32 against cuSPARSE, NT / 2 and NT: poisson3d:128 1.31 x and 1.27 x,
 * poisson3d27:96 1.28 x and 1.09 x, poisson3d:256 1.18 x and 1.15 x, replicate bcsstk16 x 150
 * 1.24 x and 0.98 x, replicate bcsstk25 x 170 0.93 x and 0.72 x; on the permuted (wide) replicas
 * NT / 2 was slower (0.91 x and 0.95 x, 0.88 x and 0.90 x).
 */
static void fp32_launch(const adaptive_plan *p, mpcgi_adaptive_launch *out)
{
    *out = p->L;
    if (out->path != MPCGI_ADAPTIVE_UNIFORM || p->par.rule != RULE_TUNED || p->par.nt || p->wide ||
        out->nt < 2)
        return;
    out->nt /= 2;
    out->vblocks = group_vblocks(out, out->n, out->nt);
}

/* The path, then the virtual blocks of one SpMV. counts: MPCGI_ADAPTIVE_QUANTITIES totals. */
static void plan_layout(adaptive_plan *p, const int64_t *counts, int64_t max_len)
{
    const adaptive_params *par = &p->par;
    mpcgi_adaptive_launch *L = &p->L;
    int64_t n = p->A->n;
    memcpy(p->bin_rows, counts, sizeof p->bin_rows);
    p->max_len = max_len;
    p->long_nnz = counts[MPCGI_ADAPTIVE_LONG_NNZ];
    L->n = n;
    L->block = par->block;
    L->chunk = par->bin.chunk;
    L->grid = par->grid;
    L->stream_loads = par->stream_loads;
    L->path = want_tiles(par, p->wide, p->A->nnz, max_len)
                  ? MPCGI_ADAPTIVE_TILES
                  : choose_path(par, n, p->A->nnz, counts, max_len, &L->nt);
    if (L->path == MPCGI_ADAPTIVE_TILES) L->nt = 0;
    L->rows_per_group = rows_per_group(par, n, L->nt, p->wide);
    L->skip_len = INT64_MAX;
    L->n_long = L->long_blocks = 0;
    if (L->path != MPCGI_ADAPTIVE_UNIFORM) {
        L->n_long = (int)counts[MPCGI_ADAPTIVE_LONG];
        L->long_blocks = (int)counts[MPCGI_ADAPTIVE_CHUNKS];
    }
    L->row_start[0] = 0;
    L->row_count[0] = L->n_long;
    L->vb_start[0] = L->long_blocks;
    if (L->path == MPCGI_ADAPTIVE_TILES) { /* the rest: tiles_layout */
        L->tile_n_long = L->n_long;
        L->vblocks = 0;
        return;
    }
    if (L->path != MPCGI_ADAPTIVE_BINNED) {
        if (L->path == MPCGI_ADAPTIVE_SPLIT) L->skip_len = par->bin.long_min;
        L->vblocks = L->long_blocks + group_vblocks(L, n, L->nt);
        return;
    }
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS; b++) {
        L->row_start[b] = L->row_start[b - 1] + L->row_count[b - 1];
        L->row_count[b] = counts[b];
        L->vb_start[b] = L->vb_start[b - 1] + group_vblocks(L, counts[b], mpcgi_adaptive_bin_nt(b));
    }
    L->vblocks = L->vb_start[MPCGI_ADAPTIVE_SHORT_BINS];
}

/* Entries of the row list: every row (binned), the long rows (split, tiles), none (uniform). */
static int64_t list_length(const mpcgi_adaptive_launch *L)
{
    return L->path == MPCGI_ADAPTIVE_BINNED  ? L->n
           : L->path == MPCGI_ADAPTIVE_TILES ? L->tile_n_long
                                             : L->n_long;
}

/* Bytes one SpMV reads of the matrix: values and columns, row pointers, and off the uniform
 * path the row list and the long rows' chunk offsets. */
static size_t bytes_matrix(const adaptive_plan *p)
{
    size_t n = (size_t)p->A->n, vsize = p->use64 ? sizeof(double) : sizeof(float);
    size_t isize = p->d_col16 ? sizeof(int16_t) : sizeof(int32_t);
    if (p->L.path == MPCGI_ADAPTIVE_TILES) /* slots (value, column, row), long rows, tiles */
        return (size_t)p->n_slots * (vsize + 6) + (size_t)p->long_nnz * (vsize + 4) +
               (size_t)p->L.tile_n_long * 12 + ((size_t)p->L.tiles + 1) * 16;
    size_t b = (size_t)p->A->nnz * (vsize + isize) + (n + 1) * 4;
    if (p->L.path != MPCGI_ADAPTIVE_UNIFORM)
        b += (size_t)list_length(&p->L) * 4 + ((size_t)p->L.n_long + 1) * 4;
    return b;
}

/* ---------------------------------------------------------------- the tiles path */

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

/*
 * Tiles, for gather-bound matrices (random columns, x far larger than the L1): a CSR kernel
 * issues one L2 request per nonzero for x, and that request rate, not DRAM, limits it (Nsight
 * Compute on the H100, docs/backends.md). The tiles path cuts the rows into tiles of at most
 * tile_rows rows (balanced on entries + rows, in multiples of the SM count) and walks each
 * tile's entries in column order, so that the 32 gathers of a warp fall into few 128-byte lines
 * (one request each); y of the tile stays in shared memory. Each tile's short entries (rows of
 * at most tile_long) are dealt into rounds of TILE_BLOCK slots with a row at most once per round
 * (mpcgi_adaptive_tile_setup, spmv/adaptive_tiles.cu: an entry that meets its row again in a
 * round moves to a later level); a round's additions need no atomics, and a row's entries are
 * added in round order: deterministic, and emulated here. Long rows are summed whole by a warp
 * (by the block beyond TILE_BLOCK_ROW). Device memory: the slots (value, column, row in tile:
 * 14 bytes per fp64 entry, plus the padding of the rounds) and their entries (4 bytes) beside
 * the CSR arrays, which the long rows, value updates and the emulation read.
 */

/* Tiles in multiples of wave, as few as keep each within tile_rows rows: p->tile_row, L->tiles,
 * L->tile_max_rows. */
static mpcg_status tiles_cut(mpcg_context *ctx, adaptive_plan *p, int wave)
{
    const mpcgi_csr *A = p->A;
    const int64_t n = A->n, limit = p->par.tile_rows;
    for (int64_t k = 1;;) {
        const int64_t T = k * wave;
        MPCG_ENSURE(ctx, T < (1 << 24), MPCG_ERR_NOT_SUPPORTED,
                    "backend adaptive: %lld tiles for n = %lld exceed its limit", (long long)T,
                    (long long)n);
        mpcgi_host_free(p->tile_row);
        p->tile_row = NULL;
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->tile_row,
                                               &p->tile_row));
        int64_t most = 0;
        for (int64_t t = 0; t <= T; t++)
            p->tile_row[t] = (int32_t)(t == T ? n : tile_cut(A->row_ptr, n, t, T));
        for (int64_t t = 0; t < T; t++)
            if (p->tile_row[t + 1] - p->tile_row[t] > most) most = p->tile_row[t + 1] - p->tile_row[t];
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
 * levels, and the warp that sums it alone is quick at that length. H100: powerlaw:4000000:16
 * (264 tiles: 59); the permuted bcsstk16 replica (59 entries per row, 132 tiles: 80) ran at
 * 1.26 x cuSPARSE, with 64 at 1.13 x. */
static mpcg_status tiles_start(mpcg_context *ctx, adaptive_plan *p, int sms)
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
 * padded to whole batches): level_round[t * ml + v], p->tile_off, p->n_slots. */
static mpcg_status tiles_rounds(mpcg_context *ctx, adaptive_plan *p, const int32_t *level_len,
                                int ml, int32_t *level_round)
{
    const int T = p->L.tiles, bs = MPCGI_ADAPTIVE_TILE_BLOCK, d = MPCGI_ADAPTIVE_TILE_BATCH;
    MPCG_CHECK(ctx,
               mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->tile_off, &p->tile_off));
    int64_t off = 0;
    for (int t = 0; t < T; t++) {
        int64_t r = 0;
        for (int v = 0; v < ml; v++) {
            level_round[(int64_t)t * ml + v] = (int32_t)r;
            r += (level_len[(int64_t)t * ml + v] + bs - 1) / bs;
        }
        r = (r + d - 1) / d * d;
        p->tile_off[t] = off;
        off += r * bs;
    }
    p->tile_off[T] = off;
    p->n_slots = off;
    return MPCG_SUCCESS;
}

/* The long rows of each tile: p->tile_long[t] = the first long row at or after tile t's first
 * row (in p->rows, ascending). */
static mpcg_status tiles_long_host(mpcg_context *ctx, adaptive_plan *p)
{
    const int T = p->L.tiles;
    MPCG_CHECK(ctx,
               mpcgi_host_alloc_array(ctx, (size_t)T + 1, sizeof *p->tile_long, &p->tile_long));
    int j = 0;
    for (int t = 0; t <= T; t++) {
        while (j < p->L.tile_n_long && p->rows[j] < p->tile_row[t])
            j++;
        p->tile_long[t] = j;
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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The tiles of a CPU plan, as spmv/adaptive_tiles.cu builds them on the device. */
static mpcg_status tiles_host(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_csr *A = p->A;
    const int ml = p->par.bin.long_min + 1, bs = MPCGI_ADAPTIVE_TILE_BLOCK;
    int32_t *level_len = NULL, *level_round = NULL, *place = NULL, *list = NULL, *next = NULL;
    uint8_t *level = NULL;
    uint64_t *key = NULL;
    int64_t *mark = NULL;
    MPCG_TRY(ctx, st, tiles_long_host(ctx, p));
    const int T = p->L.tiles;
    const size_t m = (size_t)(A->nnz > 0 ? A->nnz : 1);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, (size_t)T * ml, sizeof *level_len, &level_len));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)T * ml, sizeof *level_round,
                                             &level_round));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *place, &place));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *level, &level));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *key, &key));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *list, &list));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, m, sizeof *next, &next));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->L.tile_max_rows + 1, sizeof *mark, &mark));
    int cbits;
    const int shift = mpcgi_adaptive_tile_shift(A->n, T, &cbits);
    for (int t = 0; t < T; t++) {
        const int64_t r0 = p->tile_row[t], r1 = p->tile_row[t + 1];
        int64_t cnt = 0;
        for (int64_t r = r0; r < r1; r++) /* the short entries, (column bucket, entry) */
            if (A->row_ptr[r + 1] - A->row_ptr[r] <= p->par.bin.long_min)
                for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
                    key[cnt++] = (uint64_t)((uint32_t)A->col_idx[k] >> shift) << 32 | (uint64_t)k;
        qsort(key, (size_t)cnt, sizeof *key, cmp_u64);
        for (int64_t i = 0; i < cnt; i++)
            list[i] = (int32_t)(key[i] & 0xffffffffu);
        for (int64_t i = 0; i < r1 - r0; i++)
            mark[i] = -1;
        int64_t stamp = 0;
        for (int v = 0; cnt > 0; v++) {
            MPCG_ENSURE_GOTO(ctx, st, v < ml, MPCG_ERR_INTERNAL,
                             "backend adaptive: tile %d needs more than %d levels", t, ml);
            level_len[(int64_t)t * ml + v] = (int32_t)cnt;
            int64_t moved = 0;
            for (int64_t base = 0; base < cnt; base += bs, stamp++)
                for (int64_t j = base; j < cnt && j < base + bs; j++) {
                    const int32_t k = list[j];
                    int64_t lo = r0, hi = r1 - 1; /* the row of entry k */
                    while (lo < hi) {
                        int64_t mid = (lo + hi + 1) / 2;
                        if (A->row_ptr[mid] <= k) lo = mid;
                        else hi = mid - 1;
                    }
                    const int64_t l = lo - r0;
                    if (mark[l] == stamp) {
                        next[moved++] = k;
                    } else {
                        mark[l] = stamp;
                        place[k] = (int32_t)j;
                        level[k] = (uint8_t)v;
                    }
                }
            int32_t *w = list;
            list = next;
            next = w;
            cnt = moved;
        }
    }
    MPCG_TRY(ctx, st, tiles_rounds(ctx, p, level_len, ml, level_round));
    const size_t slots = (size_t)(p->n_slots > 0 ? p->n_slots : 1);
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, slots, sizeof *p->slot_col, &p->slot_col));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, slots, sizeof *p->slot_row, &p->slot_row));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, slots, sizeof *p->slot_perm, &p->slot_perm));
    memset(p->slot_col, 0, slots * sizeof *p->slot_col);
    memset(p->slot_row, 0xff, slots * sizeof *p->slot_row);
    memset(p->slot_perm, 0xff, slots * sizeof *p->slot_perm);
    for (int t = 0; t < T; t++)
        for (int64_t r = p->tile_row[t]; r < p->tile_row[t + 1]; r++) {
            if (A->row_ptr[r + 1] - A->row_ptr[r] > p->par.bin.long_min) continue;
            for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
                const int64_t round = level_round[(int64_t)t * ml + level[k]] + place[k] / bs;
                const int64_t sl = p->tile_off[t] + round * bs + place[k] % bs;
                p->slot_col[sl] = A->col_idx[k];
                p->slot_row[sl] = (uint16_t)(r - p->tile_row[t]);
                p->slot_perm[sl] = (int32_t)k;
            }
        }
    tiles_finish(p);
done:
    mpcgi_host_free(level_len), mpcgi_host_free(level_round), mpcgi_host_free(place);
    mpcgi_host_free(level), mpcgi_host_free(key), mpcgi_host_free(mark);
    mpcgi_host_free(list), mpcgi_host_free(next);
    return st;
}

/* The binning's totals on the host (those of setup_count_kernel). */
static void host_counts(const mpcgi_csr *A, mpcgi_adaptive_binning bin, int64_t *counts,
                        int64_t *max_len)
{
    memset(counts, 0, MPCGI_ADAPTIVE_QUANTITIES * sizeof *counts);
    *max_len = 0;
    for (int64_t r = 0; r < A->n; r++) {
        int64_t len = A->row_ptr[r + 1] - A->row_ptr[r];
        int b = mpcgi_adaptive_bin_of(len, bin);
        counts[b]++;
        if (b == MPCGI_ADAPTIVE_LONG) {
            counts[MPCGI_ADAPTIVE_CHUNKS] += mpcgi_adaptive_chunks(len, bin);
            counts[MPCGI_ADAPTIVE_LONG_NNZ] += len;
        }
        if (len > *max_len) *max_len = len;
    }
}

static mpcg_status tiles_host(mpcg_context *ctx, adaptive_plan *p);
static mpcg_status tiles_device(mpcg_context *ctx, adaptive_plan *p);

/* The CPU plan: statistics, layout, row list and chunk offsets on the host. */
static mpcg_status host_binning(mpcg_context *ctx, adaptive_plan *p)
{
    const mpcgi_csr *A = p->A;
    int64_t counts[MPCGI_ADAPTIVE_QUANTITIES], max_len, span = 0;
    host_counts(A, p->par.bin, counts, &max_len);
    for (int64_t r = 0; r < A->n; r++)
        if (A->row_ptr[r + 1] > A->row_ptr[r]) {
            int64_t off = mpcgi_adaptive_row_span(r, A->col_idx[A->row_ptr[r]],
                                                  A->col_idx[A->row_ptr[r + 1] - 1]);
            if (off > span) span = off;
        }
    p->wide = span > INT16_MAX && span > A->n / 4;
    if (want_tiles(&p->par, p->wide, A->nnz, max_len)) { /* the tiles' long rows */
        MPCG_CHECK(ctx, tiles_start(ctx, p, DEFAULT_TILE_WAVE));
        host_counts(A, p->par.bin, counts, &max_len);
    }
    plan_layout(p, counts, max_len);
    const mpcgi_adaptive_launch *L = &p->L;
    if (L->path == MPCGI_ADAPTIVE_UNIFORM) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)list_length(L), sizeof *p->rows, &p->rows));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)L->n_long + 1, sizeof *p->long_start,
                                           &p->long_start));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)L->long_blocks, sizeof *p->part, &p->part));
    int64_t next[MPCGI_ADAPTIVE_BINS];
    int32_t chunks = 0;
    for (int b = 0; b < MPCGI_ADAPTIVE_BINS; b++)
        next[b] = L->row_start[b];
    for (int64_t r = 0; r < A->n; r++) {
        int64_t len = A->row_ptr[r + 1] - A->row_ptr[r];
        int b = mpcgi_adaptive_bin_of(len, p->par.bin);
        if (b == MPCGI_ADAPTIVE_LONG) {
            p->long_start[next[b]] = chunks;
            chunks += (int32_t)mpcgi_adaptive_chunks(len, p->par.bin);
        } else if (L->path != MPCGI_ADAPTIVE_BINNED) {
            continue; /* the list holds the long rows only */
        }
        p->rows[next[b]++] = (int32_t)r;
    }
    p->long_start[L->n_long] = chunks;
    if (L->path == MPCGI_ADAPTIVE_TILES) MPCG_CHECK(ctx, tiles_host(ctx, p));
    return MPCG_SUCCESS;
}

static void fill_val32(adaptive_plan *p)
{
    for (int64_t k = 0; k < p->A->nnz; k++)
        p->val32[k] = (float)p->A->val[k];
}

static void adaptive_destroy(mpcg_context *ctx, void *impl)
{
    adaptive_plan *p = impl;
    mpcgi_host_free(p->rows);
    mpcgi_host_free(p->long_start);
    mpcgi_host_free(p->val32);
    mpcgi_host_free(p->part);
    mpcgi_device_free(ctx, p->d_row_ptr);
    mpcgi_device_free(ctx, p->d_col_idx);
    mpcgi_device_free(ctx, p->d_col16);
    if (!p->d_row_ptr || p->d_rows != p->d_row_ptr + p->A->n + 1) /* not in its block */
        mpcgi_device_free(ctx, p->d_rows);
    mpcgi_device_free(ctx, p->d_counters);
    mpcgi_device_free(ctx, p->d_val64);
    mpcgi_device_free(ctx, p->d_val32);
    mpcgi_host_free(p->tile_row), mpcgi_host_free(p->tile_long), mpcgi_host_free(p->tile_off);
    mpcgi_host_free(p->slot_col), mpcgi_host_free(p->slot_row), mpcgi_host_free(p->slot_perm);
    mpcgi_device_free(ctx, p->d_tile_off); /* with d_tile_row and d_tile_long */
    mpcgi_device_free(ctx, p->d_slots);
    mpcgi_host_free(p);
}

/* On a GPU context the statistics and the row list are built at upload, on the device; the
 * sizes reported here are the uniform path's and are corrected there. */
static mpcg_status adaptive_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                    const mpcgi_options *opts,
                                    void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    adaptive_plan *p = NULL;
    MPCG_ENSURE(ctx, A->nnz <= (int64_t)INT32_MAX - MPCGI_ADAPTIVE_MAX_BLOCK,
                MPCG_ERR_NOT_SUPPORTED,
                "backend adaptive: %lld nonzeros exceed its 32-bit indices (at most %d)",
                (long long)A->nnz, INT32_MAX - MPCGI_ADAPTIVE_MAX_BLOCK);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->use64 = (precisions & MPCG_CAP_FP64) != 0;
    p->use32 = (precisions & MPCG_CAP_FP32) != 0;
    (void)opts; /* TEMPORARY (issue 17): the knobs become adaptive.* option keys */
    MPCG_TRY(ctx, st, read_params(ctx, A->nnz, &p->par));
    if (ctx->kind == MPCG_DEVICE_CUDA) {
        int64_t counts[MPCGI_ADAPTIVE_QUANTITIES] = {0};
        plan_layout(p, counts, 0); /* provisional: no statistics yet */
    } else {
        MPCG_TRY(ctx, st, host_binning(ctx, p));
        if (p->use32) {
            MPCG_TRY(ctx, st,
                     mpcgi_host_alloc_array(ctx, (size_t)A->nnz, sizeof *p->val32, &p->val32));
            fill_val32(p);
        }
    }
    sizes->bytes_matrix = bytes_matrix(p);
    sizes->bytes_workspace = 0; /* device plans: set at upload */
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) adaptive_destroy(ctx, p);
    return st;
}

/* ---------------------------------------------------------------- device plan */

/* Device values of the precisions in use; fp32 converted on the device from the fp64 upload. */
static mpcg_status upload_values(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    size_t nnz = (size_t)p->A->nnz;
    double *v64 = p->d_val64;
    if (!p->use64) MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, nnz * sizeof(double), &v64));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, v64, p->A->val, nnz * sizeof(double), MPCGI_H2D));
    if (p->use32)
        MPCG_CUDA_GOTO(ctx, st,
                       (cudaError_t)mpcgi_adaptive_to_f32(mpcgi_device_stream(ctx), (int64_t)nnz,
                                                          v64, p->d_val32));
    if (p->d_tval64) /* the tiles path: the values in slot order too */
        MPCG_CUDA_GOTO(ctx, st,
                       (cudaError_t)mpcgi_adaptive_tiles_values_f64(
                           mpcgi_device_stream(ctx), p->n_slots, p->d_slot_perm, v64, p->d_tval64));
    if (p->d_tval32)
        MPCG_CUDA_GOTO(ctx, st,
                       (cudaError_t)mpcgi_adaptive_tiles_values_f32(
                           mpcgi_device_stream(ctx), p->n_slots, p->d_slot_perm, v64, p->d_tval32));
done:
    if (v64 != p->d_val64) {
        /* the conversion must finish before the temporary goes */
        if (st == MPCG_SUCCESS) st = mpcgi_device_sync(ctx);
        mpcgi_device_free(ctx, v64);
    }
    return st;
}

/* The 16-bit column offsets col - row where all of them fit (span 0, from the count): they
 * replace the 32-bit columns on the device, 2 bytes less per nonzero that every SpMV reads (10
 * instead of 12 per fp64 nonzero), unless MPCG_ADAPTIVE_INDEX=32 or the tiles path (which reads
 * 32-bit columns) was taken. The allocation of the offsets, their kernel and the release of the
 * 32-bit columns, timed on the host into p->columns_ms (0 where nothing is narrowed). */
static mpcg_status columns16(mpcg_context *ctx, adaptive_plan *p, int32_t span)
{
    mpcg_status st = MPCG_SUCCESS;
    if (p->A->nnz == 0 || span || p->par.index32 || p->L.path == MPCGI_ADAPTIVE_TILES)
        return MPCG_SUCCESS;
    double t0 = mpcgi_wtime();
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, (size_t)p->A->nnz * sizeof(int16_t), &p->d_col16));
    MPCG_CUDA_GOTO(ctx, st,
                   (cudaError_t)mpcgi_adaptive_setup_col16(mpcgi_device_stream(ctx), p->A->n,
                                                           p->d_row_ptr, p->d_col_idx,
                                                           p->d_col16));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx)); /* the offsets are written: the columns go */
    mpcgi_device_free(ctx, p->d_col_idx);
    p->d_col_idx = NULL;
    p->columns_ms = (mpcgi_wtime() - t0) * 1e3;
done:
    if (st != MPCG_SUCCESS) {
        mpcgi_device_free(ctx, p->d_col16);
        p->d_col16 = NULL;
    }
    return st;
}

/* The binning on the GPU: one launch counts, finds the longest row and the span of the columns
 * (whether the plan is wide) and scans; one copy of the totals to the host, the decision there,
 * then the scatter into the row list, which also writes the list's last chunk offset. Timed with
 * events from the count to the end, the copies, the decision and the row list's allocation
 * (small plans: none, ROWS_RESERVE) included; the scratch is allocated before. After it, each
 * timed apart: the tiles' layout on the tiles path (tiles_device), the 16-bit columns
 * (columns16). */
static mpcg_status device_binning(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    void *s = mpcgi_device_stream(ctx);
    const int64_t n = p->A->n, ntiles = mpcgi_adaptive_setup_tiles(n);
    const int Q = MPCGI_ADAPTIVE_QUANTITIES;
    char *tmp = NULL; /* one allocation: the 64-bit row pointers, the tiles' counts and maxima,
                         the totals */
    int64_t *rp64;
    int32_t *counts, *tile_max, *d_totals;
    int32_t totals[MPCGI_ADAPTIVE_QUANTITIES + 2]; /* the ticket stays on the device */
    int64_t c64[MPCGI_ADAPTIVE_QUANTITIES], region[MPCGI_ADAPTIVE_BINS];
    cudaEvent_t t0 = NULL, t1 = NULL, t2 = NULL;
    const size_t rp_bytes = ((size_t)n + 1) * sizeof *rp64;
    const size_t tb = (size_t)ntiles * (Q + 2) * sizeof *counts;
    MPCG_TRY(ctx, st,
             mpcgi_device_alloc(ctx, rp_bytes + tb + MPCGI_ADAPTIVE_TOTALS * sizeof *d_totals,
                                &tmp));
    rp64 = (int64_t *)tmp;
    counts = (int32_t *)(tmp + rp_bytes);
    tile_max = counts + (size_t)ntiles * Q;
    d_totals = tile_max + (size_t)ntiles * 2;
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, rp64, p->A->row_ptr, rp_bytes, MPCGI_H2D));
    MPCG_CUDA_GOTO(ctx, st,
                   cudaMemsetAsync(d_totals, 0, MPCGI_ADAPTIVE_TOTALS * sizeof *d_totals,
                                   g->stream));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t0));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t1));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t2));

    MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t0, g->stream));
    MPCG_CUDA_GOTO(ctx, st,
                   (cudaError_t)mpcgi_adaptive_setup_count(s, n, rp64, p->d_row_ptr, p->d_col_idx,
                                                           &p->par.bin, counts, tile_max,
                                                           d_totals));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, totals, d_totals, sizeof totals, MPCGI_D2H));
    const int32_t span = totals[MPCGI_ADAPTIVE_QUANTITIES + 1];
    p->wide = span > n / 4; /* span is 0 or above INT16_MAX */
    if (want_tiles(&p->par, p->wide, p->A->nnz, totals[MPCGI_ADAPTIVE_QUANTITIES])) {
        /* count again with the tiles' long rows */
        MPCG_TRY(ctx, st, tiles_start(ctx, p, g->props.multiProcessorCount));
        MPCG_CUDA_GOTO(ctx, st,
                       (cudaError_t)mpcgi_adaptive_setup_count(s, n, rp64, p->d_row_ptr,
                                                               p->d_col_idx, &p->par.bin, counts,
                                                               tile_max, d_totals));
        MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, totals, d_totals, sizeof totals, MPCGI_D2H));
    }
    for (int q = 0; q < MPCGI_ADAPTIVE_QUANTITIES; q++)
        c64[q] = totals[q];
    plan_layout(p, c64, totals[MPCGI_ADAPTIVE_QUANTITIES]);
    if (p->L.path != MPCGI_ADAPTIVE_UNIFORM) { /* the row list, then the chunk offsets */
        const size_t len = (size_t)list_length(&p->L), need = len + (size_t)p->L.n_long + 1;
        if (need <= p->rows_reserved)
            p->d_rows = p->d_row_ptr + n + 1;
        else
            MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, need * sizeof *p->d_rows, &p->d_rows));
        p->d_long_start = p->d_rows + len;
        for (int b = 0; b < MPCGI_ADAPTIVE_BINS; b++)
            region[b] = p->L.row_start[b];
        if (list_length(&p->L) > 0)
            MPCG_CUDA_GOTO(ctx, st,
                           (cudaError_t)mpcgi_adaptive_setup_scatter(
                               s, n, p->d_row_ptr, &p->par.bin, counts, d_totals, region,
                               p->L.path != MPCGI_ADAPTIVE_BINNED, p->d_rows, p->d_long_start));
        else /* split without long rows: nothing to place, no chunks */
            MPCG_CUDA_GOTO(ctx, st,
                           cudaMemsetAsync(p->d_long_start, 0, sizeof(int32_t), g->stream));
    }
    MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t1, g->stream));
    if (p->L.path == MPCGI_ADAPTIVE_TILES) { /* timed apart, from the end of the binning */
        MPCG_TRY(ctx, st, tiles_device(ctx, p));
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t2, g->stream));
        MPCG_CUDA_GOTO(ctx, st, cudaEventSynchronize(t2));
        float tms = 0;
        MPCG_CUDA_GOTO(ctx, st, cudaEventElapsedTime(&tms, t1, t2));
        p->tiles_ms = tms;
    }
    MPCG_CUDA_GOTO(ctx, st, cudaEventSynchronize(t1));
    float ms = 0;
    MPCG_CUDA_GOTO(ctx, st, cudaEventElapsedTime(&ms, t0, t1));
    p->setup_ms = ms;
    MPCG_TRY(ctx, st, columns16(ctx, p, span));
done:
    /* teardown cannot report failures: destroying valid events does not fail */
    if (t0) (void)cudaEventDestroy(t0);
    if (t1) (void)cudaEventDestroy(t1);
    if (t2) (void)cudaEventDestroy(t2);
    mpcgi_device_free(ctx, tmp);
    return st;
}

/* The tiles of a device plan (spmv/adaptive_tiles.cu; tiles_host builds the same on the host):
 * the cut and the rounds on the host, the sort, the levels and the slots on the device. Three
 * allocations (H100: a cudaMalloc costs 0.1 - 0.25 ms whatever its size, a cudaFree about
 * 0.6 ms per GB): the tiles' arrays (kept), the scratch with the level tables (freed here), the
 * slots with their values (kept). */
static mpcg_status tiles_device(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    void *s = mpcgi_device_stream(ctx);
    cudaStream_t cs = mpcgi_gpu_of(ctx)->stream;
    const mpcgi_csr *A = p->A;
    const int ml = p->par.bin.long_min + 1;
    int failed = 0;
    int32_t *level_len = NULL, *level_round = NULL;
    char *scratch = NULL;
    const int T = p->L.tiles;
    const size_t tb = ((size_t)T + 1) * sizeof(int32_t), lb = (size_t)T * ml * sizeof(int32_t);
    const size_t ob = ((size_t)T + 1) * sizeof(int64_t);
    /* the tiles: first slots, first rows, first long rows */
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, ob + 2 * tb, &p->d_tile_off));
    p->d_tile_row = (int32_t *)(p->d_tile_off + T + 1);
    p->d_tile_long = p->d_tile_row + T + 1;
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, p->d_tile_row, p->tile_row, tb, MPCGI_H2D));
    /* the values' buffers are written after the tiles (upload_values): until then the fp64 one
     * holds the keys and what is sorted with them as the keys kernel writes them, the fp32 one
     * the sort's second keys, and the scratch is smaller (5 bytes per nonzero instead of 17 where
     * both are there; its release costs 0.6 ms per GB); with the fp64 one the keys kernel runs
     * while the scratch is allocated (H100: 0.2 ms for 0.2 GB) */
    void *lend8 = p->d_val64, *lend4 = p->d_val32;
    mpcgi_adaptive_tile_setup su = {
        .n = A->n,
        .nnz = A->nnz,
        .n_short = A->nnz - p->long_nnz,
        .tiles = T,
        .long_min = p->par.bin.long_min,
        .max_levels = ml,
        .max_rows = p->L.tile_max_rows,
        .row_ptr = p->d_row_ptr,
        .col = p->d_col_idx,
        .tile_row = p->d_tile_row,
        .rows = p->d_rows,
        .tile_n_long = p->L.tile_n_long,
        .lend8 = lend8,
        .lend4 = lend4,
        .tile_long = p->d_tile_long,
    };
    if (lend8) MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_keys(s, &su));
    /* the scratch: the sort's, then the level lengths, the failure flag, the levels' first
     * rounds (the same on the host) */
    const size_t sb = mpcgi_adaptive_tiles_scratch(A->nnz, T, lend8 != NULL, lend4 != NULL);
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, sb + 2 * lb + sizeof(int), &scratch));
    int32_t *d_level_len = (int32_t *)(scratch + sb);
    int *d_failed = (int *)(d_level_len + (size_t)T * ml);
    int32_t *d_level_round = (int32_t *)(d_failed + 1);
    su.scratch = scratch;
    su.level_len = d_level_len;
    su.failed = d_failed;
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(d_failed, 0, sizeof(int), cs));
    if (!lend8) MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_keys(s, &su));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_step1(s, &su));
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, 2 * lb + sizeof(int), &level_len));
    level_round = (int32_t *)((int *)(level_len + (size_t)T * ml) + 1);
    /* the level lengths and the flag in one copy */
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, level_len, d_level_len, lb + sizeof(int), MPCGI_D2H));
    memcpy(&failed, level_len + (size_t)T * ml, sizeof failed);
    MPCG_ENSURE_GOTO(ctx, st, !failed, MPCG_ERR_INTERNAL,
                     "backend adaptive: a tile needs more than %d levels", ml);
    MPCG_TRY(ctx, st, tiles_rounds(ctx, p, level_len, ml, level_round));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, d_level_round, level_round, lb, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, p->d_tile_off, p->tile_off, ob, MPCGI_H2D));
    /* the slots: values (fp64, fp32), columns, entries, rows in tile */
    const size_t slots = (size_t)(p->n_slots > 0 ? p->n_slots : 1);
    const size_t b64 = p->use64 ? slots * sizeof(double) : 0, b32 = p->use32 ? slots * 4 : 0;
    char *blk = NULL;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, b64 + b32 + slots * (4 + 4 + 2), &blk));
    p->d_slots = blk;
    p->d_tval64 = b64 ? (double *)blk : NULL;
    p->d_tval32 = b32 ? (float *)(blk + b64) : NULL;
    p->d_slot_col = (int32_t *)(blk + b64 + b32);
    p->d_slot_perm = p->d_slot_col + slots;
    p->d_slot_row = (uint16_t *)(p->d_slot_perm + slots);
    /* the slots without an entry: entry -1 and row TILE_EMPTY (0xffff); their column is never
     * read */
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(p->d_slot_perm, 0xff, slots * (4 + 2), cs));
    MPCG_CUDA_GOTO(ctx, st,
                   (cudaError_t)mpcgi_adaptive_tiles_step2(s, &su, p->d_tile_off, d_level_round,
                                                           p->d_slot_col, p->d_slot_row,
                                                           p->d_slot_perm));
    tiles_finish(p);
    mpcgi_adaptive_launch *L = &p->L;
    L->tile_row = p->d_tile_row;
    L->tile_off = p->d_tile_off;
    L->tile_long = p->d_tile_long;
    L->slot_col = p->d_slot_col;
    L->slot_row = p->d_slot_row;
    L->tval64 = p->d_tval64; /* filled by upload_values */
    L->tval32 = p->d_tval32;
    /* the scratch goes once the slots are written */
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
done:
    mpcgi_device_free(ctx, scratch);
    mpcgi_host_free(level_len);
    return st;
}

const char *mpcgi_adaptive_path_name(int path)
{
    return path == MPCGI_ADAPTIVE_UNIFORM ? "uniform"
           : path == MPCGI_ADAPTIVE_SPLIT ? "split"
           : path == MPCGI_ADAPTIVE_TILES ? "tiles"
                                          : "binned";
}

/* The persistent CG loop an uploaded plan runs. */
static const char *loop_name(const adaptive_plan *p)
{
    return p->loop1_grid > 0 ? "single-reduction" : p->loop_grid > 0 ? "two-barrier" : "none";
}

/* On failure the dispatcher destroys the plan, which releases what was created here. */
static mpcg_status adaptive_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    adaptive_plan *p = impl;
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    const mpcgi_csr *A = p->A;
    mpcgi_adaptive_launch *L = &p->L;
    size_t n = (size_t)A->n, nnz = (size_t)A->nnz;
    /* small plans: the row pointers and room for any row list in one allocation (below) */
    p->rows_reserved = A->n < ROWS_RESERVE ? 2 * n + 1 : 0;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (n + 1 + p->rows_reserved) * sizeof(int32_t),
                                       &p->d_row_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nnz * sizeof(int32_t), &p->d_col_idx));
    MPCG_CHECK(ctx,
               mpcgi_device_copy(ctx, p->d_col_idx, A->col_idx, nnz * sizeof(int32_t), MPCGI_H2D));
    /* 256 bytes more: the tiles' setup keeps its sort keys there before the values
     * (tiles_device) */
    if (p->use64)
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nnz * sizeof(double) + 256, &p->d_val64));
    if (p->use32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nnz * sizeof(float), &p->d_val32));
    MPCG_CHECK(ctx, device_binning(ctx, p));
    MPCG_CHECK(ctx, upload_values(ctx, p)); /* after the binning: the tiles' slot order */
    /* the dot's grid: one block per virtual block like apply (a grid-stride loop over a wave
     * of resident blocks measured up to 1.9 times slower), at most DOT_GRID_MAX; fixed per
     * plan, so the dot's order is too */
    L->dot_grid = L->path == MPCGI_ADAPTIVE_TILES ? L->tiles /* a partial per warp of each */
                  : p->par.dot_grid                   ? p->par.dot_grid
                                                      : (int)(L->vblocks < 1 ? 1
                                                              : L->vblocks > DOT_GRID_MAX
                                                                  ? DOT_GRID_MAX
                                                                  : L->vblocks);
    size_t counters = ((size_t)L->n_long + 1) * sizeof(int);
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, counters, &p->d_counters));
    MPCG_CUDA(ctx, cudaMemsetAsync(p->d_counters, 0, counters, g->stream));
    L->row_ptr = p->d_row_ptr;
    L->col_idx = p->d_col_idx; /* one of the two, the other NULL */
    L->col16 = p->d_col16;
    L->rows = p->d_rows;
    L->long_start = p->d_long_start;
    L->counters = p->d_counters;
    /* the persistent CG loops: their partial arrays share the fused CG's MPCGI_CG_BLOCKS */
    p->loop_grid = p->use64 && p->par.loop != LOOP_SINGLE
                       ? mpcgi_adaptive_cg_grid(L, g->id, p->par.loop_blocks, MPCGI_CG_BLOCKS / 2)
                       : 0;
    p->loop1_grid = p->use64 && p->par.loop != LOOP_TWO_BARRIER &&
                            L->path != MPCGI_ADAPTIVE_TILES
                        ? mpcgi_adaptive_cg_loop1_grid(L, g->id, p->max_len,
                                                       p->par.loop == LOOP_SINGLE, &p->loop1_rb,
                                                       &p->loop1_width)
                        : 0;
    sizes->bytes_matrix = bytes_matrix(p);
    /* the single-reduction loop reads and writes one record per row (r, w, s: 24 + 24 B), the
     * two-barrier loop A + 80 (solver/cg_fused.c) */
    sizes->loop_row_bytes = p->loop1_grid > 0 ? 48.0 : 0.0;
    sizes->bytes_workspace = (size_t)mpcgi_adaptive_ws_doubles(L) * sizeof(double);
    mpcgi_log(ctx, MPCG_LOG_INFO,
              "adaptive: n %lld, nnz %lld, longest row %lld: %s (NT %d, R %d, %d-bit columns), "
              "rows per bin long %lld (%d chunks), NT32 %lld, NT16 %lld, NT8 %lld, NT4 %lld, "
              "NT2 %lld, NT1 %lld; binning on the GPU %.3f ms, tiles %.3f ms, "
              "16-bit columns %.3f ms; "
              "persistent CG loop: %s",
              (long long)A->n, (long long)A->nnz, (long long)p->max_len, mpcgi_adaptive_path_name(L->path), L->nt,
              L->rows_per_group, p->d_col16 ? 16 : 32, (long long)p->bin_rows[0], L->long_blocks,
              (long long)p->bin_rows[1], (long long)p->bin_rows[2], (long long)p->bin_rows[3],
              (long long)p->bin_rows[4], (long long)p->bin_rows[5], (long long)p->bin_rows[6],
              p->setup_ms, p->tiles_ms, p->columns_ms, loop_name(p));
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    adaptive_plan *p = impl;
    p->A = A;
    if (p->val32) fill_val32(p);
    if (p->d_row_ptr) MPCG_CHECK(ctx, upload_values(ctx, p)); /* uploaded: a device plan */
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                                  void *y, void *ws)
{
    const adaptive_plan *p = impl;
    void *s = mpcgi_device_stream(ctx);
    mpcgi_adaptive_launch l32;
    if (prec == MPCG_PRECISION_FP64) {
        MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_f64(s, &p->L, p->d_val64, x, y, ws));
    } else {
        fp32_launch(p, &l32);
        MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_f32(s, &l32, p->d_val32, x, y, ws));
    }
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                      double *dot_dev, const int *skip_dev, void *ws)
{
    const adaptive_plan *p = impl;
    MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_dot_f64(mpcgi_device_stream(ctx), &p->L, p->d_val64, x, y,
                                                 ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply_direction_dot(mpcg_context *ctx, void *impl, const double *r,
                                                const double *p, const double *beta_dev,
                                                double *p_out, double *y, double *dot_dev,
                                                const int *skip_dev, void *ws)
{
    const adaptive_plan *a = impl;
    MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_direction_dot_f64(mpcgi_device_stream(ctx), &a->L,
                                                           a->d_val64, r, p, beta_dev, p_out, y, ws,
                                                           dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_cg_loop(mpcg_context *ctx, void *impl, const mpcgi_cg_loop *c)
{
    const adaptive_plan *p = impl;
    void *s = mpcgi_device_stream(ctx);
    if (p->loop_grid < 1 && p->loop1_grid < 1)
        return MPCG_ERR_NOT_SUPPORTED; /* a question, not an error */
    if (!c) return MPCG_SUCCESS;
    if (p->loop1_grid > 0)
        MPCG_LAUNCH(ctx, mpcgi_adaptive_cg_loop1(s, &p->L, p->d_val64, p->loop1_grid, p->loop1_rb,
                                                 p->loop1_width, c));
    else MPCG_LAUNCH(ctx, mpcgi_adaptive_cg_loop(s, &p->L, p->d_val64, p->loop_grid, c));
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- CPU emulation */

#define EMU_T double
#define EMU_FMA fma
#define EMU(name) name##_f64
#include "spmv/adaptive_impl.h"
#undef EMU_T
#undef EMU_FMA
#undef EMU

#define EMU_T float
#define EMU_FMA fmaf
#define EMU(name) name##_f32
#include "spmv/adaptive_impl.h"
#undef EMU_T
#undef EMU_FMA
#undef EMU

static mpcg_status adaptive_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                       const void *x, void *y)
{
    adaptive_plan *p = impl;
    mpcgi_adaptive_launch l32;
    if (p->L.path == MPCGI_ADAPTIVE_TILES) {
        if (prec == MPCG_PRECISION_FP64) return emulate_tiles_f64(ctx, p, p->A->val, x, y);
        return emulate_tiles_f32(ctx, p, p->val32, x, y);
    }
    if (prec == MPCG_PRECISION_FP64) {
        emulate_f64(p, &p->L, p->A->val, x, y, p->part);
    } else {
        fp32_launch(p, &l32);
        emulate_f32(p, &l32, p->val32, x, y, (float *)p->part);
    }
    return MPCG_SUCCESS;
}

void mpcgi_spmv_adaptive_info(const void *impl, mpcgi_adaptive_info *info)
{
    const adaptive_plan *p = impl;
    const mpcgi_adaptive_launch *L = &p->L;
    memset(info, 0, sizeof *info);
    info->path = L->path;
    info->nt = L->nt;
    mpcgi_adaptive_launch l32;
    fp32_launch(p, &l32);
    info->nt_fp32 = l32.nt;
    info->rows_per_group = L->rows_per_group;
    info->list_length = list_length(L);
    info->block = L->block;
    info->chunk = L->chunk;
    info->long_min = p->par.bin.long_min;
    memcpy(info->bin_rows, p->bin_rows, sizeof info->bin_rows);
    info->long_blocks = L->long_blocks;
    info->max_len = p->max_len;
    info->vblocks = L->vblocks;
    info->setup_ms = p->setup_ms;
    info->tiles_ms = p->tiles_ms;
    info->columns_ms = p->columns_ms;
    info->rows = p->d_row_ptr ? p->d_rows : p->rows;
    info->long_start = p->d_row_ptr ? p->d_long_start : p->long_start;
    info->index_bits = p->d_col16 ? 16 : 32;
    info->cg_loop = loop_name(p);
    info->tiles = L->tiles;
    info->tile_rows = L->tile_max_rows;
    info->slots = p->n_slots;
    info->slot_perm = p->d_row_ptr ? p->d_slot_perm : p->slot_perm;
}

const struct mpcgi_spmv_ops mpcgi_spmv_adaptive = {
    .name = "adaptive",
    .description = "CSR-vector with NT threads per row, rows binned by length (seed 003)",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_NEEDS_DEVICE | MPCG_CAP_CPU_EMULATION |
            MPCG_CAP_DETERMINISTIC,
    .analyze = adaptive_analyze,
    .update_values = adaptive_update_values,
    .upload = adaptive_upload,
    .apply = adaptive_apply,
    .apply_host = adaptive_apply_host,
    .destroy = adaptive_destroy,
    .apply_dot = adaptive_apply_dot,
    .apply_direction_dot = adaptive_apply_direction_dot,
    .cg_loop = adaptive_cg_loop,
};
