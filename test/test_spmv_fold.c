/* test/test_spmv_fold.c: the fold backend (seed 002): the layout of the seed's worked example,
 * the width rule F = ceil(q mean + r sigma) on a matrix of known mean, sigma and longest row,
 * then the checks of test/spmv_check.h (emulation against a long double reference, the GPU bit
 * for bit against the emulation, the fused dot) for several widths on matrices with empty rows,
 * rows longer than 10 F, n not a multiple of 32 and no nonzeros, the gather backend (fold with x
 * pre-gathered: fold's bits) and the cusparsesell baseline against the reference; a value
 * update; gather's two steps */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "spmv/fold_impl.h"
#include "spmv/gather_ooc.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

#define cpu spmv_check_cpu
#define gpu spmv_check_gpu

/* Options from "key=value" words (NULL-terminated). */
static void options_of(const char *const *kv, mpcgi_options *o)
{
    memset(o, 0, sizeof *o);
    for (; kv && *kv; kv++) {
        char key[64];
        const char *eq = strchr(*kv, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - *kv), *kv);
        CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, key, eq + 1));
    }
}

/* A plan's layout (its impl: spmv/fold_impl.h). */
static const mpcgi_fold_layout *layout_of(const mpcgi_spmv_plan *plan)
{
    return &((const mpcgi_fold_plan *)plan->impl)->L;
}

/* The seed's worked example (digest section 2.8): rows of 2, 9, 3, 1 entries at F = 4: row 1
 * folds into its slot and pieces at threads 4 (entries 4 .. 7) and 5 (entry 8); 32 threads;
 * unused slots repeat the thread's last column. */
static void test_example(mpcgi_rng *g)
{
    const int64_t len[4] = {2, 9, 3, 1};
    const char *const kv[] = {"fold.width=4", NULL};
    mpcgi_csr A;
    mpcgi_options o;
    mpcgi_spmv_plan *plan = NULL;
    options_of(kv, &o);
    if (spmv_check_skew_csr(g, 4, len, &A) != 0) return;
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, &o, &plan));
    if (plan) { /* a CPU plan builds its layout at its first product */
        double x[4] = {1, -2, 0.5, 3}, y[4], want[4] = {0, 0, 0, 0};
        for (int64_t i = 0; i < 4; i++)
            for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
                want[i] += A.val[k] * x[A.col_idx[k]];
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, x, y));
        for (int i = 0; i < 4; i++) CHECK(fabs(y[i] - want[i]) <= 1e-14 * (1 + fabs(want[i])));
        const mpcgi_fold_layout *L = layout_of(plan);
        CHECK(L->F == 4 && L->pieces == 2 && L->folded == 1 && L->np == 32 && L->col);
        for (int k = 0; L->col && k < 4; k++) {
            CHECK(L->col[k * 32 + 1] == A.col_idx[A.row_ptr[1] + k]);     /* entries 0 .. 3 */
            CHECK(L->col[k * 32 + 4] == A.col_idx[A.row_ptr[1] + 4 + k]); /* 4 .. 7 */
            CHECK(L->col[k * 32 + 5] == A.col_idx[A.row_ptr[1] + 8]);     /* 8, repeated */
            CHECK(L->col[k * 32 + 0] == A.col_idx[k < 2 ? k : 1]);        /* row 0: 2, repeated */
            CHECK(L->col[k * 32 + 6] == 0);                              /* padding thread */
        }
        CHECK(L->col && L->fold_row[0] == 1 && L->fold_ptr[0] == 0 && L->fold_ptr[1] == 2);
        CHECK(L->col && L->fbits[0] == 2u);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_csr_free(&A);
}

/* The width rule on rows of 2, 4, 6, 12 entries: mean 6, sigma sqrt(14) = 3.742, longest 12. */
static void test_width(mpcgi_rng *g)
{
    static const struct {
        const char *kv[3];
        int F;
        int64_t pieces, folded;
    } cases[] = {
        {{NULL}, 9, 1, 1},                                /* the seed's q = 1.5: 9 */
        {{"fold.q_pct=100", "fold.r_pct=100", NULL}, 10, 1, 1}, /* 6 + 3.742 */
        {{"fold.q_pct=100", "fold.r_pct=200", NULL}, 12, 0, 0}, /* 13.48, capped at the longest */
        {{"fold.q_pct=50", NULL}, 3, 5, 3},               /* 4 -> 1 piece, 6 -> 1, 12 -> 3 */
        {{"fold.width=1", NULL}, 1, 20, 4},               /* every entry past the first */
    };
    const int64_t len[4] = {2, 4, 6, 12};
    mpcgi_csr A;
    if (spmv_check_skew_csr(g, 4, len, &A) != 0) return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mpcgi_options o;
        mpcgi_spmv_plan *plan = NULL;
        options_of(cases[c].kv, &o);
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, &o, &plan));
        if (!plan) continue;
        const mpcgi_fold_layout *L = layout_of(plan);
        if (L->F != cases[c].F || L->pieces != cases[c].pieces || L->folded != cases[c].folded)
            printf("  width case %zu: F %d pieces %lld folded %lld\n", c, L->F,
                   (long long)L->pieces, (long long)L->folded);
        CHECK(L->F == cases[c].F && L->pieces == cases[c].pieces &&
              L->folded == cases[c].folded);
        CHECK(fabs(L->mean - 6) < 1e-12 && fabs(L->sigma - sqrt(14.0)) < 1e-12 && L->max_len == 12);
        char d[320], want[64];
        mpcgi_spmv_describe(plan, d, sizeof d);
        snprintf(want, sizeof want, "F = %d (", cases[c].F);
        CHECK(strstr(d, want) && strstr(d, "mean 6.00, sigma 3.74, max 12"));
        snprintf(want, sizeof want, "max / F = %.2f", 12.0 / cases[c].F);
        CHECK(strstr(d, want));
        mpcgi_spmv_plan_destroy(cpu, plan);
    }
    mpcgi_csr_free(&A);
}

/* The widths checked on every matrix: the default, one entry a thread (all folded), 3, the
 * mean + 2 sigma rule, half the mean, the longest row (nothing folded: the fixup only sums the
 * dot). */
static const char *const widths[][3] = {
    {NULL}, {"fold.width=1", NULL}, {"fold.width=3", NULL},
    {"fold.q_pct=100", "fold.r_pct=200", NULL}, {"fold.q_pct=50", NULL},
    {"fold.q_pct=100000", NULL},
};

static void check_matrix(const char *what, mpcgi_csr *A, mpcgi_rng *g)
{
    double *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *x, &x));
    for (int64_t i = 0; x && i < A->n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    for (size_t k = 0; x && k < sizeof widths / sizeof widths[0]; k++) {
        mpcgi_options o;
        char name[128];
        options_of(widths[k], &o);
        snprintf(name, sizeof name, "%s %s %s", what, widths[k][0] ? widths[k][0] : "default",
                 widths[k][0] && widths[k][1] ? widths[k][1] : "");
        spmv_check_backend(&mpcgi_spmv_fold, name, A, &o, x, 1);
    }
    char name[128]; /* the baseline: cuSPARSE's sliced ELL, against the reference */
    snprintf(name, sizeof name, "%s cusparsesell", what);
    if (x) spmv_check_backend(&mpcgi_spmv_cusparse_sell, name, A, NULL, x, 0);
    snprintf(name, sizeof name, "%s gather", what); /* fold with x pre-gathered: fold's bits */
    if (x) spmv_check_backend(&mpcgi_spmv_gather, name, A, NULL, x, 1);
    printf("  %s: n = %lld, nnz = %lld checked\n", what, (long long)A->n, (long long)A->nnz);
    mpcgi_host_free(x);
}

/* New values on the same pattern: the GPU plan after update_values equals a fresh emulation. */
static void test_update(mpcgi_rng *g)
{
    mpcgi_csr A;
    double *x = NULL, *y = NULL, *hy = NULL, *dx = NULL, *dy = NULL;
    mpcgi_spmv_plan *plan = NULL, *emu = NULL;
    if (!gpu || test_random_csr(g, 777, 12, 1, &A) != 0) return;
    const size_t b = (size_t)A.n * 8;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &y));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &hy));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, NULL, &plan));
    if (x && y && hy && dx && dy && plan) {
        for (int64_t i = 0; i < A.n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
        for (int64_t k = 0; k < A.nnz; k++) A.val[k] = 3 * mpcgi_rng_uniform(g) - 1;
        CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, &A));
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, NULL, &emu));
        if (emu) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, y));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
        CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
        CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, dx, dy));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, hy, dy, b, MPCGI_D2H));
        CHECK(memcmp(hy, y, b) == 0);
        CHECK(spmv_check_reference(&A, x, hy, 0) == 0);
    }
    mpcgi_spmv_plan_destroy(gpu, plan), mpcgi_spmv_plan_destroy(cpu, emu);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(hy);
    mpcgi_csr_free(&A);
}

/* The gather backend's steps: gather then direct equal apply, bit for bit; no third step. */
static void test_gather_steps(mpcgi_rng *g)
{
    mpcgi_csr A;
    double *x = NULL, *y1 = NULL, *y2 = NULL, *dx = NULL, *dy = NULL;
    mpcgi_spmv_plan *plan = NULL;
    if (!gpu || test_random_csr(g, 999, 20, 1, &A) != 0) return;
    const size_t b = (size_t)A.n * 8;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &y1));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &y2));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    const char *const kv[] = {"fold.width=3", NULL}; /* folded rows: the fixup runs too */
    mpcgi_options o;
    options_of(kv, &o);
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o, &plan));
    if (x && y1 && y2 && dx && dy && plan) {
        for (int64_t i = 0; i < A.n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, dx, dy));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, y1, dy, b, MPCGI_D2H));
        CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
        CHECK_OK(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 0));
        CHECK_OK(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 1));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, y2, dy, b, MPCGI_D2H));
        CHECK(memcmp(y1, y2, b) == 0);
        CHECK_STATUS(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 2),
                     MPCG_ERR_NOT_SUPPORTED);
        mpcg_clear_error(gpu);
    }
    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    mpcgi_host_free(x), mpcgi_host_free(y1), mpcgi_host_free(y2);
    mpcgi_csr_free(&A);
}

/* The out-of-core tiles (chunks of C threads): every slot where mpcgi_fold_tile_at puts it,
 * chunk boundaries inside folded rows, the last chunk padded; per thread the same sum as the
 * slot-major layout, bit for bit. */
static void test_tiles(mpcgi_rng *g)
{
    int64_t len[300];
    for (int i = 0; i < 300; i++) len[i] = 1 + (int64_t)mpcgi_rng_below(g, 6);
    len[5] = 200, len[77] = 0, len[150] = 61; /* folded across chunk boundaries at F = 4 */
    const char *const kv[] = {"fold.width=4", NULL};
    mpcgi_csr A;
    mpcgi_options o;
    mpcgi_spmv_plan *plan = NULL;
    options_of(kv, &o);
    if (spmv_check_skew_csr(g, 300, len, &A) != 0) return;
    double x[300], y[300];
    for (int i = 0; i < 300; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, &o, &plan));
    if (plan) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, x, y)); /* builds */
    const mpcgi_fold_plan *fp = plan ? plan->impl : NULL;
    for (int64_t C = 32; fp && fp->val64 && C <= 128; C *= 2) {
        const mpcgi_fold_layout *L = &fp->L;
        const int64_t tiles = mpcgi_fold_tiles(L, C);
        const size_t all = (size_t)tiles * (size_t)L->F * (size_t)C;
        int32_t *tc = NULL;
        double *tv = NULL;
        CHECK(tiles * C >= L->np && (tiles - 1) * C < L->np);
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, all, sizeof *tc, &tc));
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, all, sizeof *tv, &tv));
        if (tc && tv) {
            mpcgi_fold_tile_cols(L, C, tc);
            mpcgi_fold_tile_f64(L, &A, C, A.val, tv);
            int64_t bad = 0;
            for (int64_t t = 0; t < tiles * C; t++) {
                double a1 = 0, a2 = 0;
                for (int k = 0; k < L->F; k++) {
                    const size_t at = mpcgi_fold_tile_at(L->F, C, t, k);
                    if (t < L->np) {
                        const size_t sm = (size_t)k * (size_t)L->np + (size_t)t;
                        bad += tc[at] != L->col[sm] || memcmp(&tv[at], &fp->val64[sm], 8) != 0;
                        a1 = fma(fp->val64[sm], x[L->col[sm]], a1);
                    } else {
                        bad += tc[at] != 0 || tv[at] != 0;
                    }
                    a2 = fma(tv[at], x[tc[at]], a2);
                }
                bad += memcmp(&a1, &a2, 8) != 0;
            }
            if (bad) printf("  tiles C = %lld: %lld mismatches\n", (long long)C, (long long)bad);
            CHECK(bad == 0);
        }
        mpcgi_host_free(tc), mpcgi_host_free(tv);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_csr_free(&A);
}

/* The out-of-core chunk size from a device-memory limit, and the fp64-only refusal. */
static void test_ooc_rules(void)
{
    /* n = 1000, F = 7, np = 1024: the reserve is 8 n doubles = 64000 bytes; 3 x 7 x 16 = 336
     * bytes a thread; chunks are whole blocks of 256 threads */
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 1000, 7, 1024) == 1024);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000, 0, 1000, 7, 1024) == 0);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 255, 0, 1000, 7, 1024) == 0);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 600, 0, 1000, 7, 1024) == 512);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 600 + 5000, 5000, 1000, 7, 1024) == 512);
    CHECK(mpcgi_gather_ooc_chunk_threads((size_t)1 << 40, 0, 1000, 7, 1024) == 1024);
    /* no limit, many threads: a sixteenth (625 000 -> 625 152), within 4 - 64 MiB of values a
     * chunk (F = 81: at most 103 563 -> 103 424; 1 000 000 threads at F = 7: 4 MiB, 75 008) */
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 10000000, 7, 10000000) == 625152);
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 10000000, 81, 10000000) == 103424);
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 1000000, 7, 1000000) == 75008);
    /* the model's pipeline: one chunk runs its stages in a row (x 1, values 1, gather 4 after
     * x, gathered x 1, kernel 0.5: 6.5 ms); four copy-bound chunks take the link's 16 ms and
     * one kernel */
    mpcgi_gather_ooc_timing m = {.link_gbs = 1, .x_ms = 1, .gather_ms = 4, .kernel_ms = 0.5,
                                 .copy_bytes = 2e6, .chunks = 1};
    CHECK(fabs(mpcgi_gather_ooc_predict(&m) - 6.5) < 1e-12);
    m = (mpcgi_gather_ooc_timing){.link_gbs = 1, .x_ms = 0, .gather_ms = 4, .kernel_ms = 2,
                                  .copy_bytes = 16e6, .chunks = 4};
    CHECK(fabs(mpcgi_gather_ooc_predict(&m) - 16.5) < 1e-12);
    int64_t rp[2] = {0, 0};
    mpcgi_csr A = {.n = 1, .nnz = 0, .row_ptr = rp};
    const char *const kv[] = {"gather.ooc=on", NULL};
    mpcgi_options o;
    mpcgi_spmv_plan *plan = NULL;
    options_of(kv, &o);
    CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP32, &o,
                                             &plan),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(plan == NULL && strstr(mpcg_last_error(cpu), "gather.ooc=on runs fp64 only"));
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o, &plan));
    mpcgi_spmv_plan_destroy(cpu, plan);
}

/* One out-of-core plan (GPU) of A against fold's emulation: apply twice into poisoned y (fold's
 * bits), apply_dot (apply's y; the dot close to x.y and the in-core plan's apply_dot dot, bit for
 * bit), then new values (A's scaled and shifted: the pinned tiles rewritten) and apply again.
 * With gather.model=on the description carries the model. */
static void ooc_case(mpcgi_csr *A, const char *const *kv, int model, mpcgi_rng *g)
{
    const size_t b = (size_t)A->n * 8;
    double *x = NULL, *want = NULL, *got = NULL, *dx = NULL, *dy = NULL, *ddot = NULL, dot = 0;
    mpcgi_spmv_plan *emu = NULL, *plan = NULL, *incore = NULL;
    double dot_in = 0;
    mpcgi_options o;
    options_of(kv, &o);
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &want));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &got));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 8, &ddot));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, A, MPCG_CAP_FP64, NULL, &emu));
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, A, MPCG_CAP_FP64, &o, &plan));
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, A, MPCG_CAP_FP64, NULL, &incore));
    if (!(x && want && got && dx && dy && ddot && emu && plan && incore)) goto done;
    for (int64_t i = 0; i < A->n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, want));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
    for (int rep = 0; rep < 3; rep++) {
        if (rep == 2) { /* new values, the same pattern */
            for (int64_t k = 0; k < A->nnz; k++) A->val[k] = 0.25 - 1.5 * A->val[k];
            CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, emu, A));
            CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, A));
            CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, want));
        }
        CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
        CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, dx, dy));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, got, dy, b, MPCGI_D2H));
        CHECK(memcmp(got, want, b) == 0);
    }
    CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, incore, A));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, incore, dx, dy, ddot, NULL));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dot_in, ddot, 8, MPCGI_D2H));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(ddot, 0xff, 8, mpcg_context_stream(gpu))));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, dx, dy, ddot, NULL));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, got, dy, b, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dot, ddot, 8, MPCGI_D2H));
    CHECK(memcmp(got, want, b) == 0);
    long double ref = 0, sc = 0;
    for (int64_t i = 0; i < A->n; i++)
        ref += (long double)x[i] * want[i], sc += fabsl((long double)x[i] * want[i]);
    CHECK(fabsl(dot - ref) <= (long double)(A->n + 2) * DBL_EPSILON * sc);
    CHECK(memcmp(&dot, &dot_in, 8) == 0);
    char d[768];
    mpcgi_spmv_describe(plan, d, sizeof d);
    CHECK(strstr(d, "out-of-core") && !strstr(d, "predicted") == !model);
done:
    mpcgi_spmv_plan_destroy(gpu, plan), mpcgi_spmv_plan_destroy(cpu, emu);
    mpcgi_spmv_plan_destroy(gpu, incore);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy), mpcgi_device_free(gpu, ddot);
    mpcgi_host_free(x), mpcgi_host_free(want), mpcgi_host_free(got);
}

/* Out-of-core (GPU): chunks of 256 threads (a folded row's pieces across a chunk boundary, the
 * last chunk partial), with and without the model; a device-memory limit with no room for one chunk is
 * refused when the plan is set up. */
static void test_ooc(mpcgi_rng *g)
{
    int64_t len[2000];
    mpcgi_csr A;
    for (int i = 0; i < 2000; i++) len[i] = 1 + (int64_t)mpcgi_rng_below(g, 9);
    len[10] = 700, len[1999] = 300, len[500] = 0;
    if (!gpu || spmv_check_skew_csr(g, 2000, len, &A) != 0) return;
    const char *const kv[] = {"gather.ooc=on", "gather.chunk=256", NULL};
    const char *const kvm[] = {"gather.ooc=on", "gather.chunk=256", "gather.model=on", NULL};
    ooc_case(&A, kv, 0, g);
    ooc_case(&A, kvm, 1, g);
    mpcgi_spmv_plan *plan = NULL;
    mpcgi_options o;
    const char *const kv2[] = {"gather.ooc=on", NULL};
    options_of(kv2, &o);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, 64 * 1024));
    CHECK_STATUS(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o,
                                             &plan),
                 MPCG_ERR_DEVICE_ALLOC);
    CHECK(plan == NULL && strstr(mpcg_last_error(gpu), "leaves no room for one out-of-core chunk"));
    mpcg_clear_error(gpu);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, 0));
    mpcgi_csr_free(&A);
    /* rows of one length: nothing folded, the fixups only sum the blocks' parts (in-core after
     * the SpMV, out-of-core after the last chunk): the same bits */
    for (int i = 0; i < 2000; i++) len[i] = 5;
    if (spmv_check_skew_csr(g, 2000, len, &A) != 0) return;
    ooc_case(&A, kv, 0, g);
    mpcgi_csr_free(&A);
}

int main(void)
{
    test_init_seed("test_spmv_fold");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_spmv_fold");
    if (mpcgi_device_count() > 0) CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else printf("test_spmv_fold: no usable GPU, the GPU checks are skipped\n");
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    test_example(&g);
    test_width(&g);
    test_tiles(&g);
    test_ooc_rules();
    mpcgi_csr A;
    /* random rows with empty ones, n not a multiple of 32 */
    if (test_random_csr(&g, 1001, 9, 1, &A) == 0) check_matrix("random 1001", &A, &g), mpcgi_csr_free(&A);
    /* skew: rows far longer than 10 F (F about 3), empty rows between, rows of 1 - 3 */
    int64_t n = 3001, *len = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *len, &len));
    for (int64_t i = 0; len && i < n; i++) len[i] = i % 7 == 3 ? 0 : 1 + (int64_t)mpcgi_rng_below(&g, 3);
    if (len) {
        len[0] = 1500, len[1] = 0, len[2] = 777, len[n - 1] = 0, len[n - 2] = 0, len[900] = 64;
        if (spmv_check_skew_csr(&g, n, len, &A) == 0) check_matrix("skew", &A, &g), mpcgi_csr_free(&A);
        for (int64_t i = 0; i < n; i++) len[i] = 0; /* no nonzeros: y = 0 */
        if (spmv_check_skew_csr(&g, 77, len, &A) == 0) check_matrix("empty", &A, &g), mpcgi_csr_free(&A);
    }
    mpcgi_host_free(len);
    test_update(&g);
    test_gather_steps(&g);
    test_ooc(&g);
    int skip = !gpu && !test_failures; /* the CPU checks passed; the GPU ones could not run */
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return skip ? TEST_SKIP : test_finish("test_spmv_fold");
}
