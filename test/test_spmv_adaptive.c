/* test/test_spmv_adaptive.c: the adaptive backend in CPU emulation and on the GPU, vs references */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "spmv/adaptive/adaptive.h"
#include "solver/options.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* The knob settings every matrix is checked under: NULL-terminated name=value lists. */
static const char *const configs[][8] = {
    {NULL},
    {"adaptive.mode=binned", NULL},
    {"adaptive.mode=uniform", "adaptive.rule=seed", "adaptive.index=32", NULL},
    {"adaptive.mode=split", "adaptive.index=32", NULL},
    {"adaptive.mode=binned", "adaptive.block=256", "adaptive.chunk=512",
     "adaptive.long_min=64", "adaptive.passes=2", "adaptive.rows=4", NULL},
    {"adaptive.mode=split", "adaptive.block=64", "adaptive.load=cached",
     "adaptive.grid=7", "adaptive.dot_grid=5", "adaptive.chunk=64",
     "adaptive.long_min=40", NULL},
    /* the tiles path: many small tiles, long rows from 13 entries on; the default tiles */
    {"adaptive.mode=tiles", "adaptive.tile_wave=3", "adaptive.tile_rows=600",
     "adaptive.tile_long=12", NULL},
    {"adaptive.mode=tiles", "adaptive.tile_wave=2", NULL},
    /* 65536 tiles: from n > 128 on, the tile's bits leave the column fewer than its own in the
     * 24-bit sort keys (columns in buckets: mpcgi_adaptive_tile_shift) */
    {"adaptive.mode=tiles", "adaptive.tile_wave=65536", NULL},
    /* the uniform kernel with each NT (only on some matrices: see config_applies) */
    {"adaptive.mode=uniform", "adaptive.nt=1", "adaptive.rows=4", NULL},
    {"adaptive.mode=uniform", "adaptive.nt=2", "adaptive.rows=2", NULL},
    {"adaptive.mode=uniform", "adaptive.nt=4", "adaptive.rows=1", NULL},
    {"adaptive.mode=uniform", "adaptive.nt=8", "adaptive.rows=4", NULL},
    {"adaptive.mode=uniform", "adaptive.nt=16", "adaptive.rows=2", NULL},
    {"adaptive.mode=uniform", "adaptive.nt=32", "adaptive.rows=4", NULL},
    /* the staged uniform path (blocks of 128, tiles of 1024 entries, a block per tile): as it
     * is; 32-bit columns and cached loads */
    {"adaptive.mode=staged", NULL},
    {"adaptive.mode=staged", "adaptive.index=32", "adaptive.load=cached", NULL},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])
#define FIRST_NT_CONFIG 9
#define FIRST_STAGED_CONFIG 15
/* NT sweeps run on the random 10007, powerlaw and bimodal matrices only; the staged path on
 * the matrices whose rows fit its tiles of 1024 entries (not the 20000- and 3000-long rows, nor
 * powerlaw's hubs) */
static int config_applies(int c, int matrix)
{
    if (c >= FIRST_STAGED_CONFIG) return matrix != 4 && matrix != 6 && matrix != 11;
    return c < FIRST_NT_CONFIG || matrix == 3 || matrix == 6 || matrix == 9;
}

/* The options of the setting in use (set_config), passed to every plan. */
static mpcgi_options opts;
static int current;

static void set_config(int c)
{
    memset(&opts, 0, sizeof opts);
    current = c;
    for (int i = 0; configs[c][i]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", configs[c][i]);
        char *eq = strchr(buf, '=');
        *eq = '\0';
        CHECK_OK(cpu, mpcgi_options_set_text(cpu, &opts, buf, eq + 1));
    }
}

/* The value of option `key` in the setting in use, or NULL where it is not set. */
static const char *knob(const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; configs[current][i]; i++)
        if (strncmp(configs[current][i], key, len) == 0 && configs[current][i][len] == '=')
            return configs[current][i] + len + 1;
    return NULL;
}

/* ---------------------------------------------------------------- CPU emulation */

static void test_table(void)
{
    const struct mpcgi_spmv_ops *ops;

    CHECK_OK(cpu, mpcgi_spmv_lookup(cpu, "adaptive", &ops));

    CHECK(ops == &mpcgi_spmv_adaptive);
    CHECK(ops->caps == (MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE |
                        MPCG_CAP_NEEDS_DEVICE | MPCG_CAP_CPU_EMULATION |
                        MPCG_CAP_DETERMINISTIC));
    CHECK(ops->upload && ops->apply && ops->update_values && ops->apply_dot);
    /* the persistent loops live in solver/: the backend exports its row sums (rows) */
    CHECK(ops->rows && ops->describe && ops->options == &mpcgi_adaptive_options);
}

/* Too many nonzeros for 32-bit offsets, and malformed knobs: refused before any array is read. */
static void test_refusals(void)
{
    int64_t rp[2] = {0, (int64_t)INT32_MAX};
    mpcgi_csr A = {.n = 1, .nnz = rp[1], .row_ptr = rp};
    mpcgi_spmv_plan *plan = (mpcgi_spmv_plan *)1;

    CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCG_CAP_FP64, NULL, &plan),
                 MPCG_ERR_NOT_SUPPORTED);

    CHECK(plan == NULL);
    CHECK(strstr(mpcg_last_error(cpu), "2147483647 nonzeros exceed its 32-bit indices"));
    mpcg_clear_error(cpu);
    rp[1] = 0;
    A.nnz = 0;
    /* values out of range: refused when set, the message naming the key and its range */
    const char *bad[][3] = {
        {"adaptive.block", "100", "64 .. 1024, a power of two"},
        {"adaptive.nt", "3", "auto or 1 .. 32, a power of two"},
        {"adaptive.mode", "fast", "auto, uniform, split, binned, tiles, staged"},
        {"adaptive.chunk", "10", "auto or 64 .. 16777216"},
        {"adaptive.passes", "0", "auto or 1 .. 32, a power of two"},
        {"adaptive.load", "x", "stream, cached"},
        {"adaptive.long_min", "1e3", "auto or 32 .. 1073741824"},
        {"adaptive.rows", "3", "auto or 1 .. 4, a power of two"},
        {"adaptive.index", "16", "auto, 32"},
        {"adaptive.tile_wave", "0", "auto or 1 .. 65536"},
        {"adaptive.loop", "single", "unknown option 'adaptive.loop'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mpcgi_options o = {0};
        CHECK_STATUS(cpu, mpcgi_options_set_text(cpu, &o, bad[i][0], bad[i][1]),
                     MPCG_ERR_INVALID_ARG);
        CHECK(strstr(mpcg_last_error(cpu), bad[i][0]) && strstr(mpcg_last_error(cpu), bad[i][2]));
        CHECK(o.count == 0);
        mpcg_clear_error(cpu);
    }
    /* each value valid, together not: the chunk must be a multiple of the block (at analyze) */
    mpcgi_options o = {0};
    CHECK_OK(cpu, mpcgi_options_set_text(cpu, &o, "adaptive.block", "256"));
    CHECK_OK(cpu, mpcgi_options_set_text(cpu, &o, "adaptive.chunk", "384"));
    CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCG_CAP_FP64, &o, &plan),
                 MPCG_ERR_INVALID_ARG);
    CHECK(plan == NULL);
    CHECK(strstr(mpcg_last_error(cpu), "adaptive.chunk=384") &&
          strstr(mpcg_last_error(cpu), "adaptive.block=256"));
    mpcg_clear_error(cpu);
    /* the staged path sums a row with one thread in blocks of 128, a block per tile: NT or R
     * above 1, another block, or a grid of apply or of apply_dot contradicts it */
    const char *with[5][2] = {{"adaptive.nt", "4"},
                              {"adaptive.rows", "2"},
                              {"adaptive.block", "256"},
                              {"adaptive.grid", "7"},
                              {"adaptive.dot_grid", "5"}};
    for (int i = 0; i < 5; i++) {
        mpcgi_options w = {0};
        CHECK_OK(cpu, mpcgi_options_set_text(cpu, &w, "adaptive.mode", "staged"));
        CHECK_OK(cpu, mpcgi_options_set_text(cpu, &w, with[i][0], with[i][1]));
        CHECK_STATUS(cpu,
                     mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCG_CAP_FP64, &w,
                                            &plan),
                     MPCG_ERR_INVALID_ARG);
        CHECK(plan == NULL);
        CHECK(strstr(mpcg_last_error(cpu), "adaptive.mode=staged") &&
              strstr(mpcg_last_error(cpu), with[i][0]));
        mpcg_clear_error(cpu);
    }
    set_config(0);
}

/* The seed's Fig. 1 matrix (0-based): with the seed's rule NT = 4 from 17 / 6 nonzeros per row
 * (the tuned rule: NT = 2 >= 17 / 12), exact results. */
static void test_seed_example(void)
{
    int64_t rp[] = {0, 4, 8, 10, 13, 14, 17};
    int32_t ci[] = {0, 1, 4, 5, 1, 2, 3, 4, 1, 3, 0, 3, 5, 2, 2, 3, 4};
    double val[] = {8, 9, 4, 5, 7, 5, 6, 2, 6, 7, 9, 6, 2, 2, 7, 2, 8};
    mpcgi_csr A = {.n = 6, .nnz = 17, .row_ptr = rp, .col_idx = ci, .val = val};
    double ones[6] = {1, 1, 1, 1, 1, 1}, x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    const double want1[6] = {26, 20, 13, 17, 2, 17}, want2[6] = {76, 63, 40, 45, 6, 69};
    mpcgi_spmv_plan *plan;
    mpcgi_adaptive_info info;

    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCG_CAP_FP64, NULL, &plan));
    mpcgi_spmv_adaptive_info(plan->impl, &info);
    CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 2 && info.rows_per_group == 1);
    char text[160];
    mpcgi_spmv_describe(plan, text, sizeof text);
    CHECK(strcmp(text, "CSR, uniform path: 2 threads per row") == 0);
    mpcgi_rows rows;
    CHECK(mpcgi_spmv_rows(plan, MPCG_PRECISION_FP64, &rows) == MPCG_ERR_NOT_SUPPORTED); /* CPU */
    CHECK(mpcg_last_error(cpu)[0] == '\0');
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_options seed = {0};
    CHECK_OK(cpu, mpcgi_options_set_text(cpu, &seed, "adaptive.rule", "seed"));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCG_CAP_FP64, &seed, &plan));
    mpcgi_spmv_adaptive_info(plan->impl, &info);
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, ones, y));
    CHECK(memcmp(y, want1, sizeof y) == 0);
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, x, y));

    CHECK(memcmp(y, want2, sizeof y) == 0);
    CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 4 && info.rows_per_group == 1);
    CHECK(info.vblocks == 1 && info.max_len == 4 && info.list_length == 0);
    CHECK(plan->sizes.bytes_matrix == 17 * 12 + 7 * 4);
    mpcgi_spmv_plan_destroy(cpu, plan);
}

/* The layout of a split or binned plan: the row list holds every row (binned) or the long
 * rows (split), bin by bin (long first), ascending within a bin; each long row's chunks follow
 * in row order. */
static int layout_ok(const mpcgi_csr *A, const mpcgi_adaptive_info *in, const int32_t *rows,
                     const int32_t *long_start)
{
    const char *p = knob("adaptive.passes"), *l = knob("adaptive.long_min");
    const char *rule = knob("adaptive.rule");
    int seed = rule && strcmp(rule, "seed") == 0; /* entries per lane: seed 1, tuned 2 */
    /* long rows: the knob, else 1024, or 256 for the tuned rule under 2^22 nonzeros */
    int long_min = l ? atoi(l) : !seed && A->nnz < (1 << 22) ? 256 : 1024;
    mpcgi_adaptive_binning bin = {.passes = p ? atoi(p) : seed ? 1 : 2,
                                  .long_min = long_min,
                                  .chunk = in->chunk};
    if (in->long_min != long_min) return 0;
    int bins = in->path == MPCGI_ADAPTIVE_BINNED ? MPCGI_ADAPTIVE_BINS : 1;
    int64_t i = 0, chunks = 0;
    for (int b = 0; b < bins; b++)
        for (int64_t k = 0; k < in->bin_rows[b]; k++, i++) {
            int32_t r = rows[i];
            if (r < 0 || r >= A->n || (k > 0 && r <= rows[i - 1])) return 0;
            int64_t len = A->row_ptr[r + 1] - A->row_ptr[r];
            if (mpcgi_adaptive_bin_of(len, bin) != b) return 0;
            if (b == MPCGI_ADAPTIVE_LONG) {
                if (long_start[k] != chunks) return 0;
                chunks += mpcgi_adaptive_chunks(len, bin);
            }
        }
    return i == in->list_length && chunks == in->long_blocks &&
           long_start[in->bin_rows[0]] == chunks;
}

/* The layout of a tiles plan (CPU plan, host arrays): the row list holds the long rows (more
 * than TILE_LONG entries) ascending; every entry of the other rows sits in exactly
 * one slot, none of a long row; no row occurs twice within a round (TILE_BLOCK slots); tiles in
 * multiples of TILE_WAVE (CPU plans: 132 unless set), at most TILE_ROWS rows each. */
static int tiles_ok(const mpcgi_csr *A, const mpcgi_adaptive_info *in)
{
    const char *l = knob("adaptive.tile_long"), *w = knob("adaptive.tile_wave");
    const char *tr = knob("adaptive.tile_rows");
    const int wave = w ? atoi(w) : 132, bs = MPCGI_ADAPTIVE_TILE_BLOCK;
    /* unset: a quarter of the rounds of a tile, in [16, 254] */
    int64_t auto_min = in->tiles ? A->nnz / ((int64_t)in->tiles * bs * 4) : 0;
    const int long_min = l && atoi(l) ? atoi(l)
                         : auto_min < 16  ? 16
                         : auto_min > 254 ? 254
                                          : (int)auto_min;
    if (in->long_min != long_min || in->tiles % wave != 0 || in->slots % bs != 0) return 0;
    if (in->tile_rows > (tr ? atoi(tr) : 20480)) return 0;
    int64_t j = 0, seen_n = 0;
    for (int64_t r = 0; r < A->n; r++)
        if (A->row_ptr[r + 1] - A->row_ptr[r] > long_min && (j >= in->list_length || in->rows[j++] != r))
            return 0;
    if (j != in->list_length) return 0;
    char *seen = calloc((size_t)A->nnz + 1, 1);
    int32_t *row_of = malloc(((size_t)A->nnz + 1) * sizeof *row_of);
    int64_t *last = malloc(((size_t)A->n + 1) * sizeof *last);
    int ok = seen && row_of && last;
    for (int64_t r = 0; ok && r < A->n; r++) {
        last[r] = -1;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
            row_of[k] = (int32_t)r;
    }
    for (int64_t s = 0; ok && s < in->slots; s++) {
        int32_t k = in->slot_perm[s];
        if (k < 0) continue;
        int32_t r = k < A->nnz ? row_of[k] : 0;
        ok = k < A->nnz && !seen[k] && A->row_ptr[r + 1] - A->row_ptr[r] <= long_min &&
             last[r] != s / bs;
        if (ok) seen[k] = 1, last[r] = s / bs, seen_n++;
    }
    for (int64_t r = 0; ok && r < A->n; r++)
        if (A->row_ptr[r + 1] - A->row_ptr[r] <= long_min)
            seen_n -= A->row_ptr[r + 1] - A->row_ptr[r];
    free(seen), free(row_of), free(last);
    return ok && seen_n == 0;
}

/* Row i of y close to the reference: |y - yref| <= (len + 2) eps sum_j |a_ij x_j|. */
static int64_t rows_off(const mpcgi_csr *A, const double *x, const void *y, const void *yref,
                        int fp32)
{
    int64_t bad = 0;
    double eps = fp32 ? FLT_EPSILON : DBL_EPSILON;
    for (int64_t i = 0; i < A->n; i++) {
        double s = 0, a = fp32 ? ((const float *)y)[i] : ((const double *)y)[i];
        double b = fp32 ? ((const float *)yref)[i] : ((const double *)yref)[i];
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            s += fabs(A->val[k] * x[A->col_idx[k]]);
        if (!(fabs(a - b) <= (double)(A->row_ptr[i + 1] - A->row_ptr[i] + 2) * eps * s)) {
            if (bad < 3) fprintf(stderr, "  row %lld: %.17g vs %.17g\n", (long long)i, a, b);
            bad++;
        }
    }
    return bad;
}

/* Emulation vs the cpu backend in fp64 and fp32, output poisoned first; again after new values.
 * Returns the emulation's plan choice in *info. */
static void check_emulation(const char *what, mpcgi_csr *A, int config, mpcgi_adaptive_info *info)
{
    int64_t n = A->n;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)A->nnz);
    double *x, *y, *yref;
    float *xf, *yf, *yfref;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 8, &x));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 8, &y));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 8, &yref));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 4, &xf));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 4, &yf));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, 4, &yfref));
    for (int64_t i = 0; i < n; i++)
        xf[i] = (float)(2 * mpcgi_rng_uniform(&g) - 1), x[i] = xf[i];
    mpcgi_spmv_plan *emu, *ref;
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    set_config(config);
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, A, both, &opts, &emu));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_cpu, A, both, NULL, &ref));
    mpcgi_spmv_adaptive_info(emu->impl, info);
    CHECK(info->path == MPCGI_ADAPTIVE_UNIFORM ||
          (info->path == MPCGI_ADAPTIVE_TILES ? tiles_ok(A, info)
                                              : layout_ok(A, info, info->rows, info->long_start)));

    for (int pass = 0; pass < 2; pass++) {
        memset(y, 0xff, (size_t)n * 8), memset(yf, 0xff, (size_t)n * 4); /* NaN */

        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, y));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP32, xf, yf));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, ref, MPCG_PRECISION_FP64, x, yref));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, ref, MPCG_PRECISION_FP32, xf, yfref));

        int64_t bad64 = rows_off(A, x, y, yref, 0), bad32 = rows_off(A, x, yf, yfref, 1);
        if (bad64 || bad32)
            fprintf(stderr, "%s, config %d, pass %d: %lld fp64 and %lld fp32 rows wrong\n", what,
                    config, pass, (long long)bad64, (long long)bad32);
        CHECK(bad64 == 0 && bad32 == 0);
        for (int64_t k = 0; k < A->nnz; k++)
            A->val[k] = -0.5 * A->val[k] + 0.25;
        CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, A)); /* A's own fp32 copy follows its values */
        CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, emu, A));
        CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, ref, A));
    }

    mpcgi_spmv_plan_destroy(cpu, emu);
    mpcgi_spmv_plan_destroy(cpu, ref);
    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(yref);
    mpcgi_host_free(xf), mpcgi_host_free(yf), mpcgi_host_free(yfref);
    set_config(0);
}

/* ---------------------------------------------------------------- the test matrices */

typedef struct test_matrix {
    char name[64];
    mpcgi_csr A;
    mpcg_matrix *M; /* owner of A when generated */
} test_matrix;

/* The shape of a test matrix: even rows hold `even` entries, odd rows `odd`, row `row` holds
 * `len`, each the diagonal then random columns (duplicates add up); with dense, row `row` is
 * columns 0 ... len - 1. With far > 0 instead: banded, row i holds i - far, i - 1, i, i + 1,
 * i + far where inside. */
typedef struct shape {
    int64_t n;
    int even, odd;
    int64_t row, len;
    int dense;
    int64_t far;
} shape;

static int shaped_csr(mpcgi_rng *g, const shape *sh, mpcgi_csr *out)
{
    static const int64_t band[5] = {0, -1, 1, 0, 0}; /* with far: -far and +far at 3 and 4 */
    int64_t most = sh->even > sh->odd ? sh->even : sh->odd, m = 0;
    int64_t cap = (sh->far > 0 ? 5 : most) * sh->n + sh->len;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL;
    int rc = 1;
    if (mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *ri, &ri) ||
        mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *ci, &ci) ||
        mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *v, &v))
        goto done;
    for (int64_t i = 0; i < sh->n && sh->far > 0; i++)
        for (int t = 0; t < 5; t++) {
            int64_t j = i + (t == 3 ? -sh->far : t == 4 ? sh->far : band[t]);
            if (j >= 0 && j < sh->n)
                ri[m] = (int32_t)i, ci[m] = (int32_t)j, v[m++] = t == 0 ? 4.0 : -1.0;
        }
    for (int64_t i = 0; i < sh->n && sh->far == 0; i++) {
        int64_t k = i == sh->row ? sh->len : i % 2 ? sh->odd : sh->even;
        for (int64_t t = 0; t < k; t++) {
            int64_t j = i == sh->row && sh->dense ? t
                        : t == 0                  ? i
                                                  : (int64_t)mpcgi_rng_below(g, (uint64_t)sh->n);
            ri[m] = (int32_t)i, ci[m] = (int32_t)j, v[m++] = mpcgi_rng_uniform(g) - 0.5;
        }
    }
    rc = mpcgi_csr_from_coo(NULL, sh->n, m, ri, ci, v, out) != MPCG_SUCCESS;
done:
    mpcgi_host_free(ri), mpcgi_host_free(ci), mpcgi_host_free(v);
    return rc;
}

/* Matrix k of the set (0 <= k < NMATRICES); 0 on success. */
#define NMATRICES 12
static int make_matrix(int k, test_matrix *t)
{
    static const int64_t sizes[] = {1, 31, 597, 10007};
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 7 * (uint64_t)k);
    memset(t, 0, sizeof *t);
    if (k < 4) {
        snprintf(t->name, sizeof t->name, "random %lld, empty rows", (long long)sizes[k]);
        return test_random_csr(&g, sizes[k], 9, 1, &t->A);
    }
    if (k == 4) {
        shape sh = {.n = 30000, .even = 4, .odd = 4, .row = 12345, .len = 20000, .dense = 1};
        snprintf(t->name, sizeof t->name, "30000 with a 20000-long row");
        return shaped_csr(&g, &sh, &t->A);
    }
    if (k == 5) {
        snprintf(t->name, sizeof t->name, "no nonzeros");
        if (mpcgi_csr_alloc(NULL, 100, 0, &t->A) != MPCG_SUCCESS) return 1;
        memset(t->A.row_ptr, 0, 101 * sizeof *t->A.row_ptr);
        return 0;
    }
    if (k == 9) {
        shape sh = {.n = 5001, .even = 1, .odd = 30, .row = 0, .len = 200, .dense = 0};
        snprintf(t->name, sizeof t->name, "bimodal 5001");
        return shaped_csr(&g, &sh, &t->A);
    }
    if (k == 10) { /* column offsets up to 40000: no 16-bit columns */
        shape sh = {.n = 40000, .even = 3, .odd = 4, .row = -1, .len = 0, .dense = 0};
        snprintf(t->name, sizeof t->name, "random 40000, wide");
        return shaped_csr(&g, &sh, &t->A);
    }
    if (k == 11) { /* 2^19 rows or more: setup tiles of 1024 rows, the row list allocated apart
                      from the row pointers (spmv/adaptive/plan.h, ROWS_RESERVE) */
        shape sh = {.n = 600000, .even = 2, .odd = 3, .row = 300001, .len = 3000, .dense = 0};
        snprintf(t->name, sizeof t->name, "random 600000 with a 3000-long row");
        return shaped_csr(&g, &sh, &t->A);
    }
    const char *spec = k == 6 ? "powerlaw:30000:16" : k == 7 ? "poisson3d:20" : "poisson3d27:12";
    snprintf(t->name, sizeof t->name, "%s", spec);
    if (mpcg_matrix_generate(cpu, spec, &t->M) != MPCG_SUCCESS) return 1;
    t->A = t->M->csr; /* a shallow copy: the values of M change with it */
    return 0;
}

static void free_matrix(test_matrix *t)
{
    if (t->M) {
        t->M->csr.val = t->A.val;
        mpcg_matrix_destroy(t->M);
    } else {
        mpcgi_csr_free(&t->A);
    }
}

/* Every matrix under every knob setting that applies; the choices of the automatic rule. */
static void test_emulation(void)
{
    for (int k = 0; k < NMATRICES; k++) {
        test_matrix t;
        CHECK(make_matrix(k, &t) == 0);
        for (int c = 0; c < NCONFIGS; c++) {
            if (!config_applies(c, k)) continue;
            mpcgi_adaptive_info info;
            check_emulation(t.name, &t.A, c, &info);
            if (c >= 6 && c <= 8) /* the tiles configs */
                CHECK(info.path == MPCGI_ADAPTIVE_TILES &&
                      info.tiles % (c == 6 ? 3 : c == 7 ? 2 : 65536) == 0);
            if (c >= FIRST_NT_CONFIG && c < FIRST_STAGED_CONFIG)
                CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 1 << (c - FIRST_NT_CONFIG));
            if (c >= FIRST_STAGED_CONFIG) { /* tiles of 1024 entries, at most 128 rows */
                const int64_t len = info.max_len > 1 ? info.max_len : 1;
                const int64_t rows = 1024 / len < 128 ? 1024 / len : 128;
                CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 1 && info.nt_fp32 == 1 &&
                      info.rows_per_group == 1 && info.staged_rows == rows &&
                      info.vblocks == (t.A.n + rows - 1) / rows);
            } else {
                CHECK(info.staged_rows == 0);
            }
            /* fp32 halves NT only on the tuned rule's uniform path, not wide, NT not set */
            if (c != 0 || info.path != MPCGI_ADAPTIVE_UNIFORM || k >= 10 || info.nt < 2)
                CHECK(info.nt_fp32 == info.nt);
            else
                CHECK(info.nt_fp32 == info.nt / 2);
            if (c != 0) continue;
            printf("test_spmv_adaptive: %s: path %d, NT %d, R %d\n", t.name, info.path, info.nt,
                   info.rows_per_group);
            if (k < 4) CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM);
            /* the tuned rule (spmv/adaptive/rules.c): NT >= mean / 2; R = 1 below 2^16 rows */
            if (k == 4) CHECK(info.path == MPCGI_ADAPTIVE_SPLIT && info.nt == 2);
            /* small: rows over 256 are long, in chunks of 512 */
            if (k == 4) CHECK(info.bin_rows[0] == 1 && info.long_blocks == 40);
            if (k == 4) CHECK(info.long_min == 256 && info.chunk == 512);
            if (k == 5) CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 1);
            if (k == 6) CHECK(info.path == MPCGI_ADAPTIVE_BINNED && info.nt == 8);
            if (k == 7) CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 4);
            if (k == 7) CHECK(info.nt_fp32 == 2);
            if (k == 8) CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.nt == 16);
            CHECK(info.rows_per_group == 1);
            if (k == 9) CHECK(info.path == MPCGI_ADAPTIVE_BINNED && info.bin_rows[0] == 0);
        }
        free_matrix(&t);
    }
}

/* ---------------------------------------------------------------- on the GPU */

static void *dev_alloc(size_t bytes)
{
    void *d = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d));
    return d;
}

static void poison(void *d, size_t bytes) /* NaN in every fp64 and fp32 entry */
{
    CHECK_OK(gpu,
             MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(d, 0xff, bytes, mpcg_context_stream(gpu))));
}

static int all_poisoned(const void *h, size_t bytes)
{
    const unsigned char *c = h;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != 0xff) return 0;
    return 1;
}

/* The GPU-built layout equals the host-built one. */
/* Whether every column offset col - row of A fits in 16 bits. */
static int offsets_fit(const mpcgi_csr *A)
{
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (A->col_idx[k] - i < INT16_MIN || A->col_idx[k] - i > INT16_MAX) return 0;
    return 1;
}

/* The device plan has the emulation's layout, and 16-bit columns exactly where they fit (not
 * with adaptive.index=32), 2 bytes less per nonzero. */
static void check_same_layout(const mpcgi_csr *A, const mpcgi_spmv_plan *emu,
                              const mpcgi_spmv_plan *dev)
{
    mpcgi_adaptive_info a, b;
    const char *index = knob("adaptive.index");
    mpcgi_spmv_adaptive_info(emu->impl, &a);
    mpcgi_spmv_adaptive_info(dev->impl, &b);
    int bits = A->nnz > 0 && offsets_fit(A) && !(index && strcmp(index, "32") == 0) &&
                       a.path != MPCGI_ADAPTIVE_TILES
                   ? 16
                   : 32;
    CHECK(a.path == b.path && a.nt == b.nt && a.rows_per_group == b.rows_per_group);
    CHECK(a.staged_rows == b.staged_rows);
    CHECK(a.nt_fp32 == b.nt_fp32);
    CHECK(a.long_blocks == b.long_blocks && a.list_length == b.list_length);
    CHECK(a.max_len == b.max_len && a.vblocks == b.vblocks);
    CHECK(memcmp(a.bin_rows, b.bin_rows, sizeof a.bin_rows) == 0);
    CHECK(a.index_bits == 32 && b.index_bits == bits);
    CHECK(emu->sizes.bytes_matrix - (bits == 16 ? 2 * (size_t)A->nnz : 0) ==
          dev->sizes.bytes_matrix);
    CHECK(a.tiles == b.tiles && a.tile_rows == b.tile_rows && a.slots == b.slots);
    if (a.path == MPCGI_ADAPTIVE_TILES && a.path == b.path && a.slots == b.slots) {
        size_t pb = (size_t)a.slots * 4;
        int32_t *perm;
        CHECK_OK(gpu, mpcgi_host_alloc(gpu, pb + 4, &perm));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, perm, b.slot_perm, pb, MPCGI_D2H));
        CHECK(memcmp(perm, a.slot_perm, pb) == 0);
        mpcgi_host_free(perm);
    }
    if (a.path == MPCGI_ADAPTIVE_UNIFORM || a.path != b.path) return;
    size_t rb = (size_t)a.list_length * 4, lb = ((size_t)a.bin_rows[0] + 1) * 4;
    int32_t *rows, *ls;
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, rb, &rows));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, lb, &ls));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, rows, b.rows, rb, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, ls, b.long_start, lb, MPCGI_D2H));
    CHECK(memcmp(rows, a.rows, rb) == 0);
    CHECK(memcmp(ls, a.long_start, lb) == 0);
    mpcgi_host_free(rows), mpcgi_host_free(ls);
}

/* Device vectors of one check. */
typedef struct dvecs {
    double *x, *y, *y2, *dot;
    float *xf, *yf;
    int *skip;
} dvecs;

/* apply_dot: the same y bits as apply, the same dot bits twice (skip flag NULL, then 0), the dot
 * close to x^T y in long double; with the flag set nothing is written. */
static void check_dot(const mpcgi_csr *A, mpcgi_spmv_plan *plan, const dvecs *d, const double *x,
                      const double *y)
{
    int64_t n = A->n;
    size_t b64 = (size_t)n * 8;
    double *y2, dots[2];
    int flag[2] = {0, 1};
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b64, &y2));
    for (int run = 0; run < 2; run++) {
        poison(d->y2, b64), poison(d->dot, 8);
        CHECK_OK(gpu, mpcgi_device_copy(gpu, d->skip, &flag[0], sizeof(int), MPCGI_H2D));

        CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, d->x, d->y2, d->dot, run ? d->skip : NULL));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, y2, d->y2, b64, MPCGI_D2H));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, &dots[run], d->dot, 8, MPCGI_D2H));

        CHECK(memcmp(y2, y, b64) == 0);
    }
    long double ref = 0, scale = 0;
    for (int64_t i = 0; i < n; i++)
        ref += (long double)x[i] * y[i], scale += fabsl((long double)x[i] * y[i]);
    CHECK(memcmp(&dots[0], &dots[1], 8) == 0);
    CHECK(fabsl(dots[0] - ref) <= (long double)(n + 2) * DBL_EPSILON * scale);
    poison(d->y2, b64), poison(d->dot, 8);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d->skip, &flag[1], sizeof(int), MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, d->x, d->y2, d->dot, d->skip));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, y2, d->y2, b64, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dots[0], d->dot, 8, MPCGI_D2H));
    CHECK(all_poisoned(y2, b64) && all_poisoned(&dots[0], 8));
    mpcgi_host_free(y2);
}

/* The rows slot of a device plan (the solver's persistent loops): the plan's own arrays, the
 * values of the precision asked for (the other pointer NULL), off the tiles path;
 * NOT_SUPPORTED, without an error, on the tiles path or without that precision. */
static void check_rows_slot(const mpcgi_csr *A, const mpcgi_spmv_plan *plan, unsigned caps)
{
    static const mpcg_precision precs[2] = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32};
    static const unsigned need[2] = {MPCG_CAP_FP64, MPCG_CAP_FP32};
    mpcgi_adaptive_info in;
    mpcgi_spmv_adaptive_info(plan->impl, &in);
    for (int k = 0; k < 2; k++) {
        mpcgi_rows rw;
        mpcg_status st = mpcgi_spmv_rows(plan, precs[k], &rw);
        if (in.path == MPCGI_ADAPTIVE_TILES || !(caps & need[k])) {
            CHECK(st == MPCG_ERR_NOT_SUPPORTED && mpcg_last_error(gpu)[0] == '\0');
            continue;
        }
        CHECK(st == MPCG_SUCCESS && rw.kind == MPCGI_ROWS_ADAPTIVE && rw.n == A->n &&
              rw.nnz == A->nnz && rw.max_len == in.max_len && rw.row_ptr && rw.layout);
        CHECK(k == 0 ? rw.val && !rw.val32 : rw.val32 && !rw.val && rw.nt32 == in.nt_fp32);
        CHECK((rw.col16 != NULL) == (in.index_bits == 16) &&
              (rw.col_idx != NULL) != (rw.col16 != NULL));
    }
}

/* One pass: fp64 bit-identical to the emulation, fp32 within tolerance of it (bit differences
 * are reported), then apply_dot. */
static void check_device_pass(const char *what, const mpcgi_csr *A, mpcgi_spmv_plan *emu,
                              mpcgi_spmv_plan *plan, unsigned caps, const dvecs *d,
                              const double *x, const float *xf)
{
    const int f64 = (caps & MPCG_CAP_FP64) != 0, f32 = (caps & MPCG_CAP_FP32) != 0;
    int64_t n = A->n, diff64 = 0, diff32 = 0;
    size_t b64 = (size_t)n * 8, b32 = (size_t)n * 4;
    double *ye, *yd;
    float *yef, *ydf;
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b64, &ye));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b64, &yd));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b32, &yef));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b32, &ydf));
    if (f64) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, ye));
    if (f32) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP32, xf, yef));
    poison(d->y, b64), poison(d->yf, b32);

    if (f64) CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, d->x, d->y));
    if (f32) CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP32, d->xf, d->yf));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, yd, d->y, b64, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, ydf, d->yf, b32, MPCGI_D2H));

    for (int64_t i = 0; i < n; i++) {
        if (f64 && memcmp(&yd[i], &ye[i], 8) != 0 && diff64++ < 3)
            fprintf(stderr, "  %s row %lld: GPU %.17g, emulation %.17g\n", what, (long long)i,
                    yd[i], ye[i]);
        diff32 += f32 && memcmp(&ydf[i], &yef[i], 4) != 0;
    }
    CHECK(diff64 == 0);
    if (f32) CHECK(rows_off(A, x, ydf, yef, 1) == 0);
    if (diff32)
        printf("  note: %s: %lld fp32 rows differ in bits from the emulation\n", what,
               (long long)diff32);
    if (f64) check_dot(A, plan, d, x, yd); /* apply_dot is fp64 */
    mpcgi_host_free(ye), mpcgi_host_free(yd), mpcgi_host_free(yef), mpcgi_host_free(ydf);
}

/* Matrix t under knob setting `config`: layout, SpMVs and dot, again after new values. */
static void check_device(test_matrix *t, int config)
{
    mpcgi_csr *A = &t->A;
    int64_t n = A->n;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)A->nnz ^ 0x77);
    double *x;
    float *xf;
    dvecs d;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, 8, &x));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, 4, &xf));
    for (int64_t i = 0; i < n; i++)
        x[i] = 2 * mpcgi_rng_uniform(&g) - 1, xf[i] = (float)x[i];
    d.x = dev_alloc((size_t)n * 8), d.y = dev_alloc((size_t)n * 8), d.y2 = dev_alloc((size_t)n * 8);
    d.xf = dev_alloc((size_t)n * 4), d.yf = dev_alloc((size_t)n * 4);
    d.dot = dev_alloc(8), d.skip = dev_alloc(sizeof(int));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d.x, x, (size_t)n * 8, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d.xf, xf, (size_t)n * 4, MPCGI_H2D));
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    /* the tiles configs also with one precision: their setup keeps its sort buffers in the
     * values' buffers of the precisions there are (spmv/adaptive/tiles_setup.c) */
    const unsigned cap_sets[3] = {both, MPCG_CAP_FP64, MPCG_CAP_FP32};
    const int sets = config >= 6 && config <= 8 ? 3 : 1;
    for (int cs = 0; cs < sets; cs++) {
        mpcgi_spmv_plan *emu = NULL, *plan = NULL;
        set_config(config);
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, A, cap_sets[cs], &opts, &emu));
        CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_adaptive, A, cap_sets[cs], &opts, &plan));
        if (emu && plan) {
            char what[96];
            snprintf(what, sizeof what, "%s (config %d, precisions %u)", t->name, config,
                     cap_sets[cs]);
            check_same_layout(A, emu, plan);
            check_rows_slot(A, plan, cap_sets[cs]);
            for (int pass = 0; pass < 2; pass++) {
                check_device_pass(what, A, emu, plan, cap_sets[cs], &d, x, xf);
                for (int64_t k = 0; k < A->nnz; k++)
                    A->val[k] = 1.5 * A->val[k] - 0.125;
                if (A->val32) CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, A)); /* A's own copy */
                CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, emu, A));
                CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, A));
            }
        }
        mpcgi_spmv_plan_destroy(cpu, emu);
        mpcgi_spmv_plan_destroy(gpu, plan);
    }
    mpcgi_device_free(gpu, d.x), mpcgi_device_free(gpu, d.y), mpcgi_device_free(gpu, d.y2);
    mpcgi_device_free(gpu, d.xf), mpcgi_device_free(gpu, d.yf);
    mpcgi_device_free(gpu, d.dot), mpcgi_device_free(gpu, d.skip);
    mpcgi_host_free(x), mpcgi_host_free(xf);
    set_config(0);
}

static void test_device(void)
{
    for (int k = 0; k < NMATRICES; k++) {
        test_matrix t;
        CHECK(make_matrix(k, &t) == 0);
        for (int c = 0; c < NCONFIGS; c++)
            if (config_applies(c, k)) check_device(&t, c);
        free_matrix(&t);
    }
}

/* R of the tuned rule on 2^16 rows or more: 1 where the plan is wide (random columns: offsets
 * up to n), 2 where it is not: poisson3d:42 (offsets up to 1764, 16-bit columns on the GPU) and a
 * banded matrix whose offsets reach 40000 (above INT16_MAX, so 32-bit columns, but below n / 4),
 * whatever the index knob; on ctx (the CPU plan, or the GPU plan, which decides at upload). */
static void check_rows_rule(mpcg_context *ctx)
{
    static const char *const names[] = {"poisson3d:42", "random 70000", "banded 200000"};
    for (int k = 0; k < 3; k++)
        for (int index32 = 0; index32 < 2; index32++) {
            test_matrix t;
            memset(&t, 0, sizeof t);
            mpcgi_rng g;
            mpcgi_rng_seed(&g, test_seed);
            shape sh = {.n = 70000, .even = 8, .odd = 8, .row = -1, .len = 0, .dense = 0};
            if (k == 2) sh = (shape){.n = 200000, .row = -1, .far = 40000};
            if (k == 0) {
                CHECK_OK(cpu, mpcg_matrix_generate(cpu, names[k], &t.M));
                if (!t.M) return;
                t.A = t.M->csr;
            } else {
                CHECK(shaped_csr(&g, &sh, &t.A) == 0);
            }
            set_config(0);
            if (index32) CHECK_OK(cpu, mpcgi_options_set_text(cpu, &opts, "adaptive.index", "32"));
            mpcgi_spmv_plan *plan = NULL;
            mpcgi_adaptive_info info;
            CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_adaptive, &t.A, MPCG_CAP_FP64,
                                                 &opts, &plan));
            if (plan) {
                int want = k == 1 ? 1 : 2;
                mpcgi_spmv_adaptive_info(plan->impl, &info);
                if (info.rows_per_group != want)
                    fprintf(stderr, "%s on %s, index32 %d: R %d\n", names[k],
                            ctx == gpu ? "GPU" : "CPU", index32, info.rows_per_group);
                CHECK(info.nt > 1 && info.rows_per_group == want);
                if (ctx == gpu) CHECK(info.index_bits == (k == 0 && !index32 ? 16 : 32));
                mpcgi_spmv_plan_destroy(ctx, plan);
            }
            set_config(0);
            free_matrix(&t);
        }
}

/* A banded CSR of n rows: row i holds columns i - 8 ... i + 8 where inside (17 entries), row
 * n / 2 columns n / 2 - len / 2 ... n / 2 - len / 2 + len - 1. 0 on success. */
static int banded_csr(int64_t n, int64_t len, mpcgi_csr *A)
{
    const int64_t lr = n / 2, lo = lr - len / 2;
    if (mpcgi_csr_alloc(NULL, n, 17 * n + len, A) != MPCG_SUCCESS) return 1;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        A->row_ptr[i] = m;
        const int64_t a = i == lr ? lo : (i - 8 > 0 ? i - 8 : 0);
        const int64_t b = i == lr ? lo + len - 1 : (i + 8 < n - 1 ? i + 8 : n - 1);
        for (int64_t j = a; j <= b; j++, m++) {
            A->col_idx[m] = (int32_t)j;
            A->val[m] = j == i ? 20.0 : -1.0;
        }
    }
    A->row_ptr[n] = m;
    A->nnz = m;
    return 0;
}

/* The layout and description of ctx's adaptive plan of A with the options in use; 0 if none
 * was made (a failed check). */
static int staged_plan(mpcg_context *ctx, mpcgi_csr *A, mpcgi_adaptive_info *info,
                       char *text, size_t size)
{
    mpcgi_spmv_plan *plan = NULL;
    CHECK_OK(ctx,
             mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_adaptive, A, MPCG_CAP_FP64, &opts, &plan));
    if (!plan) return 0;
    mpcgi_spmv_adaptive_info(plan->impl, info);
    mpcgi_spmv_describe(plan, text, size);
    mpcgi_spmv_plan_destroy(ctx, plan);
    return 1;
}

/* The tuned rule stages a uniform plan of 2^18 rows or more, 16 entries a row or more on
 * average, rows of at most a sixteenth of a tile, NT and R not set: poisson3d27:64 (262144 rows
 * of at most 27: tiles of 1024 / 27 = 37 rows), not poisson3d27:63 (250047 rows), nor
 * poisson3d27:64 with adaptive.nt=16, adaptive.block=64 (staged blocks are 128) or
 * adaptive.grid=264 (a block per tile), nor poisson3d:64 (7 a row); a banded matrix with one
 * row of twice the mean, not one longer. adaptive.mode=staged refuses a row longer than its
 * tiles, naming both. On ctx (the CPU plan, or the GPU plan, which decides at upload). */
static void check_staged_rule(mpcg_context *ctx)
{
    static const struct {
        const char *spec, *key, *value;
        int staged;
    } cases[] = {
        {"poisson3d27:64", NULL, NULL, 37},     {"poisson3d27:63", NULL, NULL, 0},
        {"poisson3d27:64", "adaptive.nt", "16", 0}, {"poisson3d27:64", "adaptive.block", "64", 0},
        {"poisson3d27:64", "adaptive.grid", "264", 0}, {"poisson3d:64", NULL, NULL, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mpcg_matrix *M = NULL;
        CHECK_OK(cpu, mpcg_matrix_generate(cpu, cases[k].spec, &M));
        if (!M) return;
        set_config(0);
        if (cases[k].key)
            CHECK_OK(cpu, mpcgi_options_set_text(cpu, &opts, cases[k].key, cases[k].value));
        mpcgi_adaptive_info info;
        char text[160];
        if (staged_plan(ctx, &M->csr, &info, text, sizeof text)) {
            if (info.staged_rows != cases[k].staged)
                fprintf(stderr, "%s %s=%s on %s: staged rows %d\n", cases[k].spec,
                        cases[k].key ? cases[k].key : "", cases[k].value ? cases[k].value : "",
                        ctx == gpu ? "GPU" : "CPU", info.staged_rows);
            CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.staged_rows == cases[k].staged);
            char want[160];
            snprintf(want, sizeof want,
                     "CSR, uniform path staged: tiles of %d rows copied to shared memory, 1 "
                     "thread per row",
                     cases[k].staged);
            CHECK(!cases[k].staged || (info.nt == 1 && strcmp(text, want) == 0));
        }
        mpcg_matrix_destroy(M);
    }
    /* rows of 17 (fewer at the ends: the mean is a little below 17) but one of 33 (at most twice
     * the mean: staged, tiles of 1024 / 33 = 31 rows) or of 34 (more than twice: not staged) */
    for (int k = 0; k < 2; k++) {
        mpcgi_csr B;
        memset(&B, 0, sizeof B);
        CHECK(banded_csr(1 << 18, k ? 34 : 33, &B) == 0);
        set_config(0);
        mpcgi_adaptive_info info;
        char text[160];
        if (staged_plan(ctx, &B, &info, text, sizeof text))
            CHECK(info.path == MPCGI_ADAPTIVE_UNIFORM && info.staged_rows == (k ? 0 : 31));
        mpcgi_csr_free(&B);
    }
    /* a row of 20000 entries does not fit tiles of 1024 */
    test_matrix t;
    CHECK(make_matrix(4, &t) == 0);
    set_config(FIRST_STAGED_CONFIG);
    mpcgi_spmv_plan *plan = (mpcgi_spmv_plan *)1;
    CHECK_STATUS(ctx,
                 mpcgi_spmv_plan_create(ctx, &mpcgi_spmv_adaptive, &t.A, MPCG_CAP_FP64, &opts,
                                        &plan),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(plan == NULL);
    CHECK(strstr(mpcg_last_error(ctx), "adaptive.mode=staged") &&
          strstr(mpcg_last_error(ctx), "at most 1024") && strstr(mpcg_last_error(ctx), "20000"));
    mpcg_clear_error(ctx);
    set_config(0);
    free_matrix(&t);
}

/* A device plan of fewer than ROWS_RESERVE rows and at most BLOCK_NNZ nonzeros holds its arrays
 * in one allocation and frees its one scratch (spmv/adaptive/plan.h): with the plan's workspace,
 * three device allocations a setup in every precision set, with 16-bit columns (random 10007)
 * and without (wide 40000), and two after new values where there are fp64 values (one more, a
 * temporary, where there are none). The values are checked by check_device. */
static void test_small_plan(void)
{
    const int matrices[2] = {3, 10};
    const unsigned cap_sets[3] = {MPCG_CAP_FP64, MPCG_CAP_FP32, MPCG_CAP_FP64 | MPCG_CAP_FP32};
    set_config(1); /* binned: no tiles, whose layout has arrays of its own */
    for (int m = 0; m < 2; m++) {
        test_matrix t;
        CHECK(make_matrix(matrices[m], &t) == 0);
        for (int cs = 0; cs < 3; cs++) {
            mpcgi_spmv_plan *plan = NULL;
            const int64_t a0 = mpcgi_alloc_device_attempts();
            CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_adaptive, &t.A, cap_sets[cs],
                                                 &opts, &plan));
            const int64_t a1 = mpcgi_alloc_device_attempts();
            CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, &t.A));
            const int64_t a2 = mpcgi_alloc_device_attempts();
            if (a1 - a0 != 3 || a2 - a1 != (cap_sets[cs] & MPCG_CAP_FP64 ? 0 : 1))
                printf("test_spmv_adaptive: %s, precisions %u: %lld device allocations at setup, "
                       "%lld at new values\n",
                       t.name, cap_sets[cs], (long long)(a1 - a0), (long long)(a2 - a1));
            CHECK(a1 - a0 == 3);
            CHECK(a2 - a1 == (cap_sets[cs] & MPCG_CAP_FP64 ? 0 : 1));
            mpcgi_spmv_plan_destroy(gpu, plan);
        }
        free_matrix(&t);
    }
    set_config(0);
}

/* CG with --spmv=adaptive converges as with cusparse (iterations within 1). */
static void test_solve(void)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:24", &A));
    if (!A) return;
    int64_t n = mpcg_matrix_n(A), it[2] = {-1, -1};
    double *b, *x;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, 8, &b));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, 8, &x));
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    for (int64_t i = 0; i < n; i++)
        b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    const char *names[2] = {"cusparse", "adaptive"};
    for (int k = 0; k < 2; k++) {
        mpcg_solver *S = NULL;
        mpcg_info info;
        memset(x, 0xff, (size_t)n * 8);
        CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
        CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
        CHECK_OK(gpu, mpcg_solver_set_spmv(S, names[k]));

        CHECK_OK(gpu, mpcg_solve(S, b, x, &info));

        CHECK(info.converged);
        it[k] = info.iterations;
        mpcg_solver_destroy(S);
    }
    printf("test_spmv_adaptive: poisson3d:24 CG iterations cusparse %lld, adaptive %lld\n",
           (long long)it[0], (long long)it[1]);
    CHECK(llabs(it[0] - it[1]) <= 1);
    mpcgi_host_free(b), mpcgi_host_free(x);
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_spmv_adaptive");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    test_table();
    test_refusals();
    test_seed_example();
    test_emulation();
    check_rows_rule(cpu);
    check_staged_rule(cpu);
    if (mpcgi_device_count() == 0) {
        mpcg_context_destroy(cpu);
        printf("test_spmv_adaptive: no usable GPU, the GPU checks are skipped\n");
        return test_failures ? test_finish("test_spmv_adaptive") : TEST_SKIP;
    }

    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (gpu) {
        printf("test_spmv_adaptive: %s\n", mpcg_context_device_name(gpu));
        test_device();
        check_rows_rule(gpu);
        check_staged_rule(gpu);
        test_small_plan();
        test_solve();
        mpcg_context_destroy(gpu);
    }
    mpcg_context_destroy(cpu);
    return test_finish("test_spmv_adaptive");
}
