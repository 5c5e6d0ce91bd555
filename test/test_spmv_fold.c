/* test/test_spmv_fold.c: the fold backend (the Fold paper's slot-major ELL): the layout of the
 * paper's worked example, the width rule F = ceil(q mean + r sigma) on a matrix of known mean,
 * sigma and longest row, then the checks of test/spmv_check.h (emulation against a long double
 * reference, the GPU bit for bit against the emulation, the fused dot) for several widths on
 * matrices with empty rows, rows longer than 10 F, n not a multiple of 32 and no nonzeros; a
 * value update */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "spmv/fold/impl.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

#define cpu spmv_check_cpu
#define gpu spmv_check_gpu
#define options_of spmv_check_options

/* A plan's layout (its impl: spmv/fold/impl.h). */
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
        for (int i = 0; i < 4; i++)
            CHECK(fabs(y[i] - want[i]) <= 1e-14 * (1 + fabs(want[i])));
        const mpcgi_fold_layout *L = layout_of(plan);
        CHECK(L->F == 4 && L->pieces == 2 && L->folded == 1 && L->np == 32 && L->col);
        for (int k = 0; L->col && k < 4; k++) {
            CHECK(L->col[k * 32 + 1] == A.col_idx[A.row_ptr[1] + k]);     /* entries 0 .. 3 */
            CHECK(L->col[k * 32 + 4] == A.col_idx[A.row_ptr[1] + 4 + k]); /* 4 .. 7 */
            CHECK(L->col[k * 32 + 5] == A.col_idx[A.row_ptr[1] + 8]);     /* 8, repeated */
            CHECK(L->col[k * 32 + 0] == A.col_idx[k < 2 ? k : 1]);        /* row 0: 2, repeated */
            CHECK(L->col[k * 32 + 6] == 0);                               /* padding thread */
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
        {{NULL}, 9, 1, 1},                                      /* the seed's q = 1.5: 9 */
        {{"fold.q_pct=100", "fold.r_pct=100", NULL}, 10, 1, 1}, /* 6 + 3.742 */
        {{"fold.q_pct=100", "fold.r_pct=200", NULL}, 12, 0, 0}, /* 13.48, capped at the longest */
        {{"fold.q_pct=50", NULL}, 3, 5, 3},                     /* 4 -> 1 piece, 6 -> 1, 12 -> 3 */
        {{"fold.width=1", NULL}, 1, 20, 4},                     /* every entry past the first */
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
        CHECK(L->F == cases[c].F && L->pieces == cases[c].pieces && L->folded == cases[c].folded);
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
    {NULL},
    {"fold.width=1", NULL},
    {"fold.width=3", NULL},
    {"fold.q_pct=100", "fold.r_pct=200", NULL},
    {"fold.q_pct=50", NULL},
    {"fold.q_pct=100000", NULL},
};

static void check_widths(const char *what, mpcgi_csr *A, const double *x, void *arg)
{
    (void)arg;
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        mpcgi_options o;
        char name[128];
        options_of(widths[k], &o);
        snprintf(name, sizeof name, "%s %s %s", what, widths[k][0] ? widths[k][0] : "default",
                 widths[k][0] && widths[k][1] ? widths[k][1] : "");
        spmv_check_backend(&mpcgi_spmv_fold, name, A, &o, x, 1);
    }
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
        for (int64_t i = 0; i < A.n; i++)
            x[i] = 2 * mpcgi_rng_uniform(g) - 1;
        for (int64_t k = 0; k < A.nnz; k++)
            A.val[k] = 3 * mpcgi_rng_uniform(g) - 1;
        CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, &A));
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, NULL, &emu));
        if (emu) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, y));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
        CHECK_OK(gpu,
                 MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
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

int main(void)
{
    mpcgi_rng g;
    if (spmv_check_start("test_spmv_fold", &g) != 0) return test_finish("test_spmv_fold");
    test_example(&g);
    test_width(&g);
    spmv_check_fold_shapes(&g, check_widths, NULL);
    test_update(&g);
    return spmv_check_finish("test_spmv_fold");
}
