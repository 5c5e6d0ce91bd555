/* spmv/adaptive/rules.c: the adaptive backend's option keys, NT and R rules, path and layout */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/error.h"
#include "spmv/adaptive/adaptive.h"
#include "spmv/adaptive/plan.h"

#define DEFAULT_BLOCK 128
#define DEFAULT_MAX_RATIO10 40
#define DEFAULT_LONG_MIN 1024
#define DEFAULT_CHUNK 2048
/* The tuned rule's long rows of a small matrix (fewer than SMALL_NNZ nonzeros): there one warp
 * on a row of a few hundred entries, or one block on 2048, outlasts the rest of the SpMV. */
#define SMALL_NNZ (1 << 22)
#define SMALL_LONG_MIN 256
#define SMALL_CHUNK 512
#define DEFAULT_SPLIT_PCT 90
/* the tuned rule's split-or-binned test (choose_path): a round of a group's loop (loads, then
 * dependent gathers) and the device's streaming rate, both rough figures of an H100 (model
 * parameters, docs/backends/adaptive.md, "Paths") */
#define TAIL_NS_PER_ROUND 500.0
#define TAIL_BYTES_PER_NS 3000.0
/* The tuned rule takes the tiles path on wide plans of at least TILE_MIN_NNZ nonzeros whose
 * longest row is at most TILE_MAX_LEN (want_tiles). */
#define TILE_MIN_NNZ (1 << 22)
#define TILE_MAX_LEN (1 << 17)
/* The tuned rule stages a uniform plan (want_staged) of STAGED_MIN_N rows or more, not wide,
 * with STAGED_MIN_MEAN entries a row or more on average and rows of at most a sixteenth of a
 * tile. Below cg.small_n's default (200 000) the solver's persistent loops sum the plan's rows
 * with its NT, which staging sets to 1. */
#define STAGED_MIN_N (1 << 18)
#define STAGED_MIN_MEAN 16
#define STAGED_MIN_ROWS 16
/* A tile holds cap / (the longest row) rows: where the longest row is more than twice the mean,
 * tiles would run less than half full, a case not measured; the tuned rule leaves it unstaged. */
#define STAGED_MAX_SPREAD 2

/* ---------------------------------------------------------------- option keys */

enum {
    K_MODE, K_RULE, K_LOAD, K_INDEX, K_NT, K_ROWS, K_SPLIT_PCT, K_BLOCK, K_MAX_RATIO10, K_PASSES,
    K_LONG_MIN, K_CHUNK, K_GRID, K_DOT_GRID, K_TILE_ROWS, K_TILE_LONG, K_TILE_WAVE, K_COUNT
};

static const char *const modes[] = {"auto", "uniform", "split", "binned", "tiles", "staged",
                                    NULL};
static const char *const rules[] = {"tuned", "seed", NULL};
static const char *const loads[] = {"stream", "cached", NULL};
static const char *const indices[] = {"auto", "32", NULL};

#define WORD(k, w, h) {.key = k, .kind = MPCGI_OPTION_WORD, .def = 0, .words = w, .help = h}
#define INT(k, d, l, u, p2, a, h)                                                                \
    {.key = k, .kind = MPCGI_OPTION_INT, .def = d, .lo = l, .hi = u, .pow2 = p2, .autoable = a,  \
     .help = h}
#define AUTO MPCGI_OPTION_AUTO

/* In the order of the K_* indices. docs/backends/adaptive.md, "Options (`adaptive.*` keys, read
 * at analyze)", says which serve users and which compare alternatives. */
static const mpcgi_option_key keys[K_COUNT] = {
    WORD("adaptive.mode", modes,
         "the path; staged: uniform with each block's rows copied to shared memory first, a "
         "thread a row (rows of at most 1024 entries, blocks of 128); auto: the rule's choice"),
    WORD("adaptive.rule", rules,
         "tuned: NT >= mean / 2, R = 2 from 2^16 rows, tail test; seed: the original rule, "
         "NT >= mean, R = 1"),
    WORD("adaptive.load", loads, "matrix loads: stream (evict-first) or cached (__ldg)"),
    WORD("adaptive.index", indices,
         "auto: 16-bit column offsets where every col - row fits; 32: always 32-bit columns"),
    INT("adaptive.nt", AUTO, 1, 32, 1, 1, "threads per row, uniform and split paths; auto: the rule"),
    INT("adaptive.rows", AUTO, 1, 4, 1, 1, "R, rows a group sums at once; auto: the rule"),
    INT("adaptive.split_pct", DEFAULT_SPLIT_PCT, 0, 101, 0, 0,
        "seed rule: split when this % of the short rows want an NT within 2x of NT_s"),
    INT("adaptive.block", DEFAULT_BLOCK, 64, MPCGI_ADAPTIVE_MAX_BLOCK, 1, 0,
        "threads per block of the SpMV"),
    INT("adaptive.max_ratio10", DEFAULT_MAX_RATIO10, 10, 100000, 0, 0,
        "10 x max_ratio of the uniform test (longest row <= max_ratio x mean)"),
    INT("adaptive.passes", AUTO, 1, 32, 1, 1,
        "binned: a row gets the smallest NT with NT * passes >= its length; auto: 2 (seed: 1)"),
    INT("adaptive.long_min", AUTO, 32, 1 << 30, 0, 1,
        "rows longer than this are long; auto: 1024 (tuned, under 2^22 nonzeros: 256)"),
    INT("adaptive.chunk", AUTO, 64, 1 << 24, 0, 1,
        "nonzeros per long-row chunk, a multiple of adaptive.block; auto: 2048 (tuned, under "
        "2^22 nonzeros: 512 or the block)"),
    INT("adaptive.grid", AUTO, 1, 1 << 30, 0, 1,
        "blocks of apply, striding; auto: one per virtual block"),
    INT("adaptive.dot_grid", AUTO, 1, DOT_GRID_MAX, 0, 1,
        "blocks of apply_dot, striding; auto: one per virtual block, at most 2^20 (one per tile "
        "where staged)"),
    INT("adaptive.tile_rows", DEFAULT_TILE_ROWS, 16, MAX_TILE_ROWS, 0, 0,
        "tiles: rows per tile at most"),
    INT("adaptive.tile_long", AUTO, 1, TILE_LONG_MAX, 0, 1,
        "tiles: rows longer than this are summed whole; auto: a quarter of a tile's rounds"),
    INT("adaptive.tile_wave", AUTO, 1, 1 << 16, 0, 1,
        "tiles: their count is a multiple of this; auto: the SMs (CPU plans: 132)"),
};

const mpcgi_option_table mpcgi_adaptive_options = {keys, K_COUNT};

/* The value of key i: a number, a word's index, or def where the key is "auto". */
static int get(const mpcgi_options *opts, int i, int def)
{
    const long v = mpcgi_options_get(opts, &keys[i]);
    return v == MPCGI_OPTION_AUTO ? def : (int)v;
}

mpcg_status mpcgi_adaptive_params(const mpcg_context *ctx, const mpcgi_options *opts,
                                  int64_t nnz, adaptive_params *par)
{
    par->mode = (adaptive_mode)get(opts, K_MODE, 0);
    par->rule = (adaptive_rule)get(opts, K_RULE, 0);
    par->stream_loads = get(opts, K_LOAD, 0) == 0;
    par->index32 = get(opts, K_INDEX, 0) == 1;
    par->nt = get(opts, K_NT, 0);
    par->rows = get(opts, K_ROWS, 0);
    par->split_pct = get(opts, K_SPLIT_PCT, 0);
    par->block = get(opts, K_BLOCK, 0);
    par->max_ratio = get(opts, K_MAX_RATIO10, 0) / 10.0;
    /* binned short rows follow the rule too: two entries per lane (tuned) or one (seed) */
    par->bin.passes = get(opts, K_PASSES, par->rule == RULE_SEED ? 1 : 2);
    /* small matrices (tuned rule): shorter long rows, cut finer (a multiple of the block) */
    const int small = par->rule == RULE_TUNED && nnz < SMALL_NNZ;
    const int chunk = small ? (par->block > SMALL_CHUNK ? par->block : SMALL_CHUNK) : DEFAULT_CHUNK;
    par->bin.long_min = get(opts, K_LONG_MIN, small ? SMALL_LONG_MIN : DEFAULT_LONG_MIN);
    par->bin.chunk = get(opts, K_CHUNK, chunk);
    MPCG_ENSURE(ctx, par->bin.chunk % par->block == 0, MPCG_ERR_INVALID_ARG,
                "option adaptive.chunk=%d must be a multiple of adaptive.block=%d",
                par->bin.chunk, par->block);
    par->grid = get(opts, K_GRID, 0);
    par->dot_grid = get(opts, K_DOT_GRID, 0);
    MPCG_ENSURE(ctx,
                par->mode != MODE_STAGED ||
                    (par->nt <= 1 && par->rows <= 1 &&
                     par->block == MPCGI_ADAPTIVE_STAGED_BLOCK && !par->grid && !par->dot_grid),
                MPCG_ERR_INVALID_ARG,
                "option adaptive.mode=staged sums a row with one thread in blocks of %d, a block "
                "per tile: adaptive.nt=%d, adaptive.rows=%d, adaptive.block=%d, adaptive.grid=%d "
                "and adaptive.dot_grid=%d do not apply (leave them auto, 1, 1, %d, auto and auto)",
                MPCGI_ADAPTIVE_STAGED_BLOCK, par->nt, par->rows, par->block, par->grid,
                par->dot_grid, MPCGI_ADAPTIVE_STAGED_BLOCK);
    par->tile_rows = get(opts, K_TILE_ROWS, 0);
    par->tile_long = get(opts, K_TILE_LONG, 0);
    par->tile_wave = get(opts, K_TILE_WAVE, 0);
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- rules */

/* NT for rows of nnz / n nonzeros on average. The seed rule (the paper's): the smallest power of
 * two NT >= the mean, at most 32. The tuned rule (the default; docs/backends/adaptive.md, "The
 * tuned rule (default)"): the smallest power of two NT >= mean / 2, at most 32 (about two
 * entries per lane and row). */
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
 * is far below n / 4) are limited by L2, where fewer rows per group run faster
 * (docs/backends/adaptive.md, "The tuned rule (default)"). */
static int rows_per_group(const adaptive_params *par, int64_t n, int nt, int wide)
{
    if (par->rows) return par->rows;
    if (par->rule == RULE_SEED) return 1;
    return nt > 1 && n >= (1 << 16) && !wide ? 2 : 1;
}

/* Whether a plan takes the tiles path: asked for, or by the tuned rule on wide plans (random
 * gathers, where the tiles run faster than split: docs/backends/adaptive.md, "The tiles path")
 * of TILE_MIN_NNZ nonzeros or more whose longest row is at most TILE_MAX_LEN. */
int mpcgi_adaptive_want_tiles(const adaptive_plan *p, int64_t max_len)
{
    const adaptive_params *par = &p->par;
    if (par->mode == MODE_TILES) return 1;
    /* the tiles path has no mixed apply: a mixed plan under auto takes the binned paths */
    return par->mode == MODE_AUTO && par->rule == RULE_TUNED && !p->mixed && p->st.wide &&
           p->A->nnz >= TILE_MIN_NNZ && max_len <= TILE_MAX_LEN;
}

/* The tuned rule's split-or-binned test: split unless its tail is long for the SpMV's size. The
 * longest short row takes len / (2 NT) rounds of one group (about TAIL_NS_PER_ROUND each; the
 * first of them every group takes) while the whole SpMV takes about its bytes /
 * TAIL_BYTES_PER_NS; split while the tail is at most a quarter of that. One group of a few lanes
 * on a row of a thousand entries outlasts the rest of a small SpMV (docs/backends/adaptive.md,
 * "Paths"). */
static int tuned_split(const adaptive_params *par, int64_t n, int64_t nnz, const int64_t *counts,
                       int64_t max_len, int nt)
{
    int64_t longest_short = 0;
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS && !longest_short; b++)
        if (counts[b])
            longest_short = b == 1 ? (max_len < par->bin.long_min ? max_len : par->bin.long_min)
                                   : (int64_t)mpcgi_adaptive_bin_nt(b) * par->bin.passes;
    double rounds = (double)longest_short / (2.0 * nt); /* one is every group's */
    double tail_ns = (rounds > 1.0 ? rounds - 1.0 : 0.0) * TAIL_NS_PER_ROUND;
    double spmv_ns = (12.0 * (double)nnz + 20.0 * (double)n) / TAIL_BYTES_PER_NS;
    return tail_ns <= 0.25 * spmv_ns;
}

/* The path (docs/backends/adaptive.md, "Paths"). counts: MPCGI_ADAPTIVE_QUANTITIES totals. */
static int choose_path(const adaptive_params *par, int64_t n, int64_t nnz, const int64_t *counts,
                       int64_t max_len, int *nt)
{
    int64_t n_short = n - counts[MPCGI_ADAPTIVE_LONG];
    *nt = rule_nt(par, n_short, nnz - counts[MPCGI_ADAPTIVE_LONG_NNZ]);
    int skewed = n > 0 && (max_len > par->bin.long_min ||
                           (double)max_len > par->max_ratio * ((double)nnz / (double)n));
    if (par->mode == MODE_UNIFORM || par->mode == MODE_STAGED ||
        (par->mode == MODE_AUTO && !skewed)) {
        *nt = rule_nt(par, n, nnz);
        return MPCGI_ADAPTIVE_UNIFORM;
    }
    if (par->mode != MODE_AUTO)
        return par->mode == MODE_SPLIT ? MPCGI_ADAPTIVE_SPLIT : MPCGI_ADAPTIVE_BINNED;
    if (par->rule == RULE_TUNED)
        return tuned_split(par, n, nnz, counts, max_len, *nt) ? MPCGI_ADAPTIVE_SPLIT
                                                              : MPCGI_ADAPTIVE_BINNED;
    int64_t near = 0; /* short rows whose own NT is within a factor 2 of nt */
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS; b++) {
        int nt_b = mpcgi_adaptive_bin_nt(b);
        if (2 * nt_b >= *nt && nt_b <= 2 * *nt) near += counts[b];
    }
    return 100 * near >= (int64_t)par->split_pct * n_short ? MPCGI_ADAPTIVE_SPLIT
                                                           : MPCGI_ADAPTIVE_BINNED;
}

/* Whether a uniform plan stages its tiles: asked for, or by the tuned rule (NT, R, the block and
 * the grids not set) on plans that are not wide, of STAGED_MIN_N rows or more, STAGED_MIN_MEAN
 * entries a row or more on average, the longest row at most STAGED_MAX_SPREAD times the mean and
 * at least STAGED_MIN_ROWS rows a tile: where it runs faster than NT lanes a row (the 27-point
 * stencils; not the 7-point ones: docs/backends/adaptive.md, "The staged uniform path"). */
static int want_staged(const adaptive_plan *p, int64_t max_len)
{
    const adaptive_params *par = &p->par;
    const int64_t n = p->A->n;
    if (par->mode == MODE_STAGED) return 1;
    return par->mode == MODE_AUTO && par->rule == RULE_TUNED && !par->nt && !par->rows &&
           par->block == MPCGI_ADAPTIVE_STAGED_BLOCK && !par->grid && !par->dot_grid &&
           !p->st.wide && n >= STAGED_MIN_N &&
           p->A->nnz >= STAGED_MIN_MEAN * n && max_len * n <= STAGED_MAX_SPREAD * p->A->nnz &&
           max_len * STAGED_MIN_ROWS <= MPCGI_ADAPTIVE_STAGED_CAP;
}

/* ---------------------------------------------------------------- layout */

/* Virtual blocks of `rows` rows for groups of nt lanes, R rows each. */
static int64_t group_vblocks(const mpcgi_adaptive_launch *L, int64_t rows, int nt)
{
    const int64_t per = (int64_t)L->rows_per_group * (L->block / nt);
    return (rows + per - 1) / per;
}

/*
 * The fp32 SpMV's layout, derived from L: the same, but on the uniform path of the tuned rule,
 * where the plan is not wide and NT is not set by the option, half the lanes per row (NT / 2):
 * with half the bytes per entry, fp32 needs more entries per lane to keep as many bytes in
 * flight (on the permuted, wide, replicas halving is slower: docs/backends/adaptive.md, "The
 * tuned rule (default)").
 */
void mpcgi_adaptive_fp32_launch(const adaptive_plan *p, mpcgi_adaptive_launch *out)
{
    *out = p->L;
    if (out->path != MPCGI_ADAPTIVE_UNIFORM || p->par.rule != RULE_TUNED || p->par.nt ||
        p->st.wide || out->nt < 2)
        return;
    out->nt /= 2;
    out->vblocks = group_vblocks(out, out->n, out->nt);
}

/* The binned path's bins: row regions and virtual blocks per short bin. */
static void binned_layout(mpcgi_adaptive_launch *L, const int64_t *counts)
{
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS; b++) {
        L->row_start[b] = L->row_start[b - 1] + L->row_count[b - 1];
        L->row_count[b] = counts[b];
        L->vb_start[b] = L->vb_start[b - 1] + group_vblocks(L, counts[b], mpcgi_adaptive_bin_nt(b));
    }
    L->vblocks = L->vb_start[MPCGI_ADAPTIVE_SHORT_BINS];
}

mpcg_status mpcgi_adaptive_plan_layout(mpcg_context *ctx, adaptive_plan *p, const int64_t *counts,
                                       int64_t max_len)
{
    const adaptive_params *par = &p->par;
    mpcgi_adaptive_launch *L = &p->L;
    int64_t n = p->A->n;
    memcpy(p->st.bin_rows, counts, sizeof p->st.bin_rows);
    p->st.max_len = max_len;
    p->st.long_nnz = counts[MPCGI_ADAPTIVE_LONG_NNZ];
    L->n = n;
    L->block = par->block;
    L->chunk = par->bin.chunk;
    L->grid = par->grid;
    L->stream_loads = par->stream_loads;
    L->staged_rows = 0;
    L->path = mpcgi_adaptive_want_tiles(p, max_len)
                  ? MPCGI_ADAPTIVE_TILES
                  : choose_path(par, n, p->A->nnz, counts, max_len, &L->nt);
    if (L->path == MPCGI_ADAPTIVE_TILES) L->nt = 0;
    L->rows_per_group = rows_per_group(par, n, L->nt, p->st.wide);
    L->skip_len = INT64_MAX;
    L->n_long = L->long_blocks = 0;
    if (L->path != MPCGI_ADAPTIVE_UNIFORM) {
        L->n_long = (int)counts[MPCGI_ADAPTIVE_LONG];
        L->long_blocks = (int)counts[MPCGI_ADAPTIVE_CHUNKS];
    }
    L->row_start[0] = 0;
    L->row_count[0] = L->n_long;
    L->vb_start[0] = L->long_blocks;
    if (L->path == MPCGI_ADAPTIVE_TILES) { /* the rest: the tiles' setup */
        L->tile_n_long = L->n_long;
        L->vblocks = 0;
        return MPCG_SUCCESS;
    }
    if (L->path == MPCGI_ADAPTIVE_UNIFORM && want_staged(p, max_len)) {
        const int64_t cap = MPCGI_ADAPTIVE_STAGED_CAP, len = max_len > 1 ? max_len : 1;
        MPCG_ENSURE(ctx, max_len <= cap, MPCG_ERR_NOT_SUPPORTED,
                    "backend adaptive: adaptive.mode=staged holds rows of at most %lld "
                    "nonzeros; the longest row has %lld",
                    (long long)cap, (long long)max_len);
        L->nt = 1;
        L->rows_per_group = 1;
        L->staged_rows = (int)(cap / len < MPCGI_ADAPTIVE_STAGED_BLOCK ? cap / len
                                                                    : MPCGI_ADAPTIVE_STAGED_BLOCK);
        L->vblocks = (n + L->staged_rows - 1) / L->staged_rows;
        return MPCG_SUCCESS;
    }
    if (L->path != MPCGI_ADAPTIVE_BINNED) {
        if (L->path == MPCGI_ADAPTIVE_SPLIT) L->skip_len = par->bin.long_min;
        L->vblocks = L->long_blocks + group_vblocks(L, n, L->nt);
        return MPCG_SUCCESS;
    }
    binned_layout(L, counts);
    return MPCG_SUCCESS;
}

/* Entries of the row list: every row (binned), the long rows (split, tiles), none (uniform). */
int64_t mpcgi_adaptive_list_length(const mpcgi_adaptive_launch *L)
{
    return L->path == MPCGI_ADAPTIVE_BINNED  ? L->n
           : L->path == MPCGI_ADAPTIVE_TILES ? L->tile_n_long
                                             : L->n_long;
}

/* Bytes one SpMV reads of the matrix: values and columns, row pointers, and off the uniform
 * path the row list and the long rows' chunk offsets; vsize: bytes of a value (fp64, hi + lo,
 * or the fp32 value alone). */
static size_t bytes_matrix_of(const adaptive_plan *p, size_t vsize)
{
    size_t n = (size_t)p->A->n;
    size_t isize = p->d.col16 ? sizeof(int16_t) : sizeof(int32_t);
    if (p->L.path == MPCGI_ADAPTIVE_TILES) /* slots (value, column, row), long rows, tiles */
        return (size_t)p->t.n_slots * (vsize + 6) + (size_t)p->st.long_nnz * (vsize + 4) +
               (size_t)p->L.tile_n_long * 12 + ((size_t)p->L.tiles + 1) * 16;
    size_t b = (size_t)p->A->nnz * (vsize + isize) + (n + 1) * 4;
    if (p->L.path != MPCGI_ADAPTIVE_UNIFORM)
        b += (size_t)mpcgi_adaptive_list_length(&p->L) * 4 + ((size_t)p->L.n_long + 1) * 4;
    return b;
}

size_t mpcgi_adaptive_bytes_matrix(const adaptive_plan *p)
{
    return bytes_matrix_of(p, p->use64 || p->mixed ? sizeof(double) /* hi + lo */ : sizeof(float));
}

size_t mpcgi_adaptive_bytes_matrix32(const adaptive_plan *p)
{
    return p->use32 ? bytes_matrix_of(p, sizeof(float)) : 0;
}
