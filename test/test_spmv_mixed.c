/* test/test_spmv_mixed.c: the mixed storage (hi = (float)a, lo = (float)(a - hi)) of every
 * backend: the split rules and the fp64 fallback, the CPU emulations, the GPU applies */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "solver/options.h"
#include "spmv/cusparse/mixed.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* The backends with mixed storage, with the adaptive paths forced one by one. */
typedef struct variant {
    const struct mpcgi_spmv_ops *ops;
    const char *mode; /* adaptive.mode, or NULL */
} variant;
static const variant variants[] = {
    {&mpcgi_spmv_cpu, NULL},           {&mpcgi_spmv_cusparse, NULL},
    {&mpcgi_spmv_adaptive, "auto"},    {&mpcgi_spmv_adaptive, "uniform"},
    {&mpcgi_spmv_adaptive, "split"},   {&mpcgi_spmv_adaptive, "binned"},
    {&mpcgi_spmv_adaptive, "staged"},
    {&mpcgi_spmv_segscan, NULL},       {&mpcgi_spmv_fold, NULL},
    {&mpcgi_spmv_gather, NULL},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

static void options_of(const variant *v, mpcgi_options *o)
{
    memset(o, 0, sizeof *o);
    if (v->mode) CHECK_OK(cpu, mpcgi_options_set_text(cpu, o, "adaptive.mode", v->mode));
}

/* a rounded to `bits` significant bits: hi + lo holds it exactly for bits <= 48 */
static double round_bits(double a, int bits)
{
    int e;
    double m = frexp(a, &e);
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

/* A random matrix with values of `bits` significant bits (53: any double, hi + lo within 2^-48). */
static void random_matrix(int64_t n, int per_row, int bits, mpcgi_csr *A)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + (uint64_t)n * 31 + (uint64_t)bits);
    CHECK(test_random_csr(&g, n, per_row, 1, A) == 0);
    for (int64_t k = 0; k < A->nnz; k++) {
        double v = A->val[k] * (1 + 1e-3 * mpcgi_rng_uniform(&g));
        A->val[k] = bits < 53 ? round_bits(v, bits) : v;
    }
}

static void random_x(int64_t n, uint64_t seed, double *x, float *xf)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, seed);
    for (int64_t i = 0; i < n; i++) {
        x[i] = 2 * mpcgi_rng_uniform(&g) - 1;
        xf[i] = (float)x[i];
    }
}

/* ---------------------------------------------------------------- the split rules */

static void expect_split(double a, const char *why)
{
    int64_t rp[2] = {0, 1};
    int32_t col[1] = {0};
    double val[1] = {a};
    mpcgi_csr A = {.n = 1, .nnz = 1, .row_ptr = rp, .col_idx = col, .val = val};
    char buf[160] = "";
    int exact = mpcgi_csr_split_exact(&A, buf, sizeof buf);
    if (exact != (why == NULL) || (why && !strstr(buf, why)))
        fprintf(stderr, "split of %.17g: exact %d (%s), want %s\n", a, exact, buf,
                why ? why : "exact");
    CHECK(exact == (why == NULL) && (!why || strstr(buf, why)));
}

static void test_split_rules(void)
{
    expect_split(6, NULL);
    expect_split(-1, NULL);
    expect_split(0, NULL);
    expect_split(-0.0, NULL);
    expect_split(1 + ldexp(1, -40), NULL);          /* lo = 2^-40 */
    expect_split(FLT_MAX, NULL);
    expect_split(0.1, NULL);                       /* 53 significant bits: hi + lo is within
                                                      2^-48 of it (below) */
    CHECK(fabs((double)(float)0.1 + (double)(float)(0.1 - (double)(float)0.1) - 0.1) <=
          ldexp(0.1, -48));
    expect_split(1e39, "beyond fp32's range");
    expect_split(-DBL_MAX, "beyond fp32's range");
    expect_split((double)FLT_MAX * (1 + ldexp(1, -25)), "beyond fp32's range"); /* hi rounds
                                                                                     to inf */
    expect_split(1e-39, "below fp32's normal range");
    expect_split(ldexp(1, -100) * (1 + ldexp(1, -30)), "denormal low half"); /* lo = 2^-130 */
}

/* ---------------------------------------------------------------- host plans */

/* y = (double)hi x with NT lanes and a butterfly (the cusparse mixed kernel's order). */
static void lanes_reference(const mpcgi_csr *A, int nt, const double *x, double *y)
{
    for (int64_t i = 0; i < A->n; i++) {
        double a[32] = {0}; /* nt >= 1: the initializer quiets -Wmaybe-uninitialized */
        for (int l = 0; l < nt; l++) {
            a[l] = 0;
            for (int64_t k = A->row_ptr[i] + l; k < A->row_ptr[i + 1]; k += nt)
                a[l] = fma((double)A->val32[k] + (double)A->lo32[k], x[A->col_idx[k]], a[l]);
        }
        for (int s = nt / 2; s > 0; s /= 2)
            for (int l = 0; l < s; l++) a[l] += a[l + s];
        y[i] = a[0];
    }
}

/* Rows where |y - ref| > c eps sum_j |a_ij x_j| (summation-order rounding only). */
static int64_t rows_off_by(const mpcgi_csr *A, const double *x, const double *y,
                           const double *ref, double slack)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < A->n; i++) {
        double s = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            s += fabs(A->val[k] * x[A->col_idx[k]]);
        double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
        if (!(fabs(y[i] - ref[i]) <= (len + 2 + slack) * DBL_EPSILON * s)) bad++;
    }
    return bad;
}

static int64_t rows_off(const mpcgi_csr *A, const double *x, const double *y, const double *ref)
{
    return rows_off_by(A, x, y, ref, 0);
}

/* One variant's mixed plan on the CPU: FP32 from hi == an fp32 plan's FP32 (bitwise); MIXED ==
 * the fp64 plan's FP64 (bitwise where the orders agree: cpu, adaptive; cusparse: its own order
 * against lanes_reference bitwise, fp64 within rounding). */
static void check_host_variant(const variant *v, mpcgi_csr *A, const double *x, const float *xf)
{
    mpcgi_options o;
    options_of(v, &o);
    int64_t n = A->n;
    double *y, *ref;
    float *yf, *reff;
    mpcgi_spmv_plan *mixed = NULL, *p64 = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *y, &y));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *ref, &ref));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *yf, &yf));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *reff, &reff));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, A, MPCGI_PREC_MIXED_STORE, &o, &mixed));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, A, MPCG_CAP_FP64 | MPCG_CAP_FP32, &o, &p64));
    if (!mixed || !p64) goto done;
    CHECK(mpcgi_spmv_mixed_fallback(mixed) == NULL && A->lo32 != NULL);
    for (int64_t i = 0; i < n; i++) y[i] = ref[i] = yf[i] = reff[i] = NAN;
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, mixed, MPCG_PRECISION_FP32, xf, yf));
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, p64, MPCG_PRECISION_FP32, xf, reff));
    CHECK(memcmp(yf, reff, (size_t)n * sizeof *yf) == 0);
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, mixed, MPCG_PRECISION_MIXED, x, y));
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, p64, MPCG_PRECISION_FP64, x, ref));
    CHECK(rows_off(A, x, y, ref) == 0);
    if (v->ops == &mpcgi_spmv_cusparse)
        lanes_reference(A, mpcgi_cusparse_mixed_nt(A->n, A->nnz), x, ref);
    if (memcmp(y, ref, (size_t)n * sizeof *y) != 0)
        fprintf(stderr, "%s %s (n = %lld): mixed apply not bit-identical to its reference\n",
                v->ops->name, v->mode ? v->mode : "", (long long)n);
    CHECK(memcmp(y, ref, (size_t)n * sizeof *y) == 0);
done:
    mpcgi_spmv_plan_destroy(cpu, mixed), mpcgi_spmv_plan_destroy(cpu, p64);
    mpcgi_host_free(y), mpcgi_host_free(ref), mpcgi_host_free(yf), mpcgi_host_free(reff);
}

/* Values of 53 significant bits keep the split: MIXED within 2^-48 |a| per entry of fp64
 * (32 eps of slack beside the summation order's len + 2). */
static void check_53_bits(const variant *v)
{
    mpcgi_csr A;
    const int64_t n = 301;
    double x[301], y[301], ref[301];
    float xf[301];
    mpcgi_options o = {0};
    mpcgi_spmv_plan *plan = NULL, *p64 = NULL;
    random_x(n, test_seed + 7, x, xf);
    random_matrix(n, 7, 53, &A);
    if (v->mode) CHECK_OK(cpu, mpcgi_options_set_text(cpu, &o, "adaptive.mode", v->mode));

    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, &A, MPCGI_PREC_MIXED_STORE, &o, &plan));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, &A, MPCG_CAP_FP64, &o, &p64));

    if (plan && p64) {
        CHECK(mpcgi_spmv_mixed_fallback(plan) == NULL);
        for (int64_t i = 0; i < n; i++) y[i] = ref[i] = NAN;
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_MIXED, x, y));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, p64, MPCG_PRECISION_FP64, x, ref));
        CHECK(rows_off_by(&A, x, y, ref, 32) == 0);
    }
    mpcgi_spmv_plan_destroy(cpu, plan), mpcgi_spmv_plan_destroy(cpu, p64);
    mpcgi_csr_free(&A);
}

static void check_host(int64_t n, int per_row)
{
    mpcgi_csr A;
    double *x;
    float *xf;
    random_matrix(n, per_row, 40, &A);
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *x, &x));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *xf, &xf));
    random_x(n, test_seed ^ (uint64_t)n, x, xf);
    for (int v = 0; v < N_VARIANTS; v++) check_host_variant(&variants[v], &A, x, xf);
    mpcgi_host_free(x), mpcgi_host_free(xf);
    mpcgi_csr_free(&A);
}

/* Values whose halves are not normal fp32 numbers: the whole matrix in fp64, stated; MIXED = FP64
 * bitwise. Then a value update of a split plan to such values takes the fallback too. */
static void check_fallback(const variant *v)
{
    mpcgi_options o;
    options_of(v, &o);
    mpcgi_csr A;
    const int64_t n = 597;
    double x[597], y[597], ref[597];
    float xf[597];
    mpcgi_spmv_plan *plan = NULL;
    random_x(n, test_seed + 5, x, xf);
    for (int pass = 0; pass < 3; pass++) {
        random_matrix(n, 9, pass == 0 ? 53 : 40, &A);
        if (pass == 0) A.val[A.nnz / 3] = 1e-39; /* below fp32's normal range */
        if (pass == 1) A.val[A.nnz / 2] = 1e39; /* beyond fp32 */
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, &A, MPCGI_PREC_MIXED_STORE, &o, &plan));
        if (!plan) break;
        if (pass == 2) { /* split, then new values that cannot be */
            CHECK(mpcgi_spmv_mixed_fallback(plan) == NULL);
            for (int64_t k = 0; k < A.nnz; k++) A.val[k] *= 1.1; /* 53 bits: still splits */
            A.val[A.nnz / 4] = ldexp(1, -100) * (1 + ldexp(1, -30)); /* a denormal lo */
            CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, &A)); /* as mpcg_matrix_update_values */
            CHECK_OK(cpu, mpcgi_csr_fill_lo32(cpu, &A));
            CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, plan, &A));
        }
        const char *why = mpcgi_spmv_mixed_fallback(plan);
        CHECK(why && strstr(why, pass == 1   ? "beyond fp32's range"
                                 : pass == 0 ? "below fp32's normal range"
                                             : "denormal low half"));
        for (int64_t i = 0; i < n; i++) y[i] = ref[i] = NAN;
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_MIXED, x, y));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, x, ref));
        CHECK(memcmp(y, ref, sizeof y) == 0);
        mpcgi_spmv_plan_destroy(cpu, plan);
        mpcgi_csr_free(&A);
    }
    if (!plan) mpcgi_csr_free(&A);
}

/* Without mixed storage a MIXED apply is refused, naming the backend. */
static void test_refused(void)
{
    mpcgi_csr A;
    double x[31], y[31];
    float xf[31];
    mpcgi_spmv_plan *plan = NULL;
    random_matrix(31, 3, 40, &A);
    random_x(31, test_seed, x, xf);
    for (int v = 0; v < 3; v++) {
        CHECK(variants[v].ops->caps & MPCG_CAP_MIXED_STORE);
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, variants[v].ops, &A, MPCG_CAP_FP64, NULL, &plan));
        CHECK_STATUS(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_MIXED, x, y),
                     MPCG_ERR_NOT_SUPPORTED);
        char want[96];
        snprintf(want, sizeof want, "backend %s was not set up for precision mixed",
                 variants[v].ops->name);
        CHECK(strstr(mpcg_last_error(cpu), want));
        mpcg_clear_error(cpu);
        CHECK(mpcgi_spmv_mixed_fallback(plan) == NULL);
        mpcgi_spmv_plan_destroy(cpu, plan);
    }
    /* the adaptive tiles path has no mixed instances: refused, saying so */
    mpcgi_options o = {0};
    CHECK_OK(cpu, mpcgi_options_set_text(cpu, &o, "adaptive.mode", "tiles"));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_adaptive, &A, MPCGI_PREC_MIXED_STORE, &o,
                                         &plan));
    CHECK_STATUS(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_MIXED, x, y),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(cpu), "tiles path"));
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP32, xf, (float *)y));
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_csr_free(&A);
}

/* ---------------------------------------------------------------- GPU */

/* One device apply of `plan` in prec (output poisoned with NaN) against the CPU emulation of
 * the same backend and options: bitwise (deterministic layouts: adaptive, the cusparse mixed
 * kernel), else within rounding (cuSPARSE's fp32 SpMV). Returns the rows off. */
static int64_t device_vs_host(const variant *v, mpcgi_spmv_plan *plan, mpcgi_spmv_plan *host,
                              mpcg_precision prec, const double *x, const float *xf, int64_t n)
{
    int fp32 = prec == MPCG_PRECISION_FP32;
    size_t bytes = (size_t)n * (fp32 ? sizeof(float) : sizeof(double));
    int exact = !fp32 || v->ops != &mpcgi_spmv_cusparse;
    void *dx = NULL, *dy = NULL, *hy = NULL, *want = NULL;
    int64_t bad = 0;
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, bytes + 8, &hy));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, bytes + 8, &want));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dy));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, fp32 ? (const void *)xf : (const void *)x, bytes,
                                    MPCGI_H2D));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, bytes,
                                                         mpcg_context_stream(gpu)))); /* NaN */
    CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, prec, dx, dy));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, hy, dy, bytes, MPCGI_D2H));
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, host, prec, fp32 ? (const void *)xf : (const void *)x,
                                   want));
    for (int64_t i = 0; i < n; i++) {
        double a = fp32 ? (double)((float *)hy)[i] : ((double *)hy)[i];
        double b = fp32 ? (double)((float *)want)[i] : ((double *)want)[i];
        int ok = exact ? memcmp(&a, &b, sizeof a) == 0 : fabs(a - b) <= 1e-4 * (1 + fabs(b));
        if (!ok && bad++ < 3)
            fprintf(stderr, "  row %lld: got %.17g, want %.17g\n", (long long)i, a, b);
    }
    mpcgi_host_free(hy), mpcgi_host_free(want);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    return bad;
}

/* MIXED and FP32-from-hi applies on the GPU vs the CPU emulation; again after new values. */
static void check_device_variant(const variant *v, mpcgi_csr *A, const double *x,
                                 const float *xf)
{
    mpcgi_options o;
    options_of(v, &o);
    mpcgi_spmv_plan *plan = NULL, *host = NULL;
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, v->ops, A, MPCGI_PREC_MIXED_STORE, &o, &plan));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, v->ops, A, MPCGI_PREC_MIXED_STORE, &o, &host));
    for (int pass = 0; pass < 2 && plan && host; pass++) {
        CHECK(mpcgi_spmv_mixed_fallback(plan) == NULL);
        int64_t bm = device_vs_host(v, plan, host, MPCG_PRECISION_MIXED, x, xf, A->n);
        int64_t b32 = device_vs_host(v, plan, host, MPCG_PRECISION_FP32, x, xf, A->n);
        if (bm || b32)
            fprintf(stderr, "%s %s (n = %lld)%s: %lld mixed and %lld fp32 rows wrong\n",
                    v->ops->name, v->mode ? v->mode : "", (long long)A->n,
                    pass ? " after update_values" : "", (long long)bm, (long long)b32);
        CHECK(bm == 0 && b32 == 0);
        if (pass == 0) { /* new values, still split exactly (40 bits times 0.75) */
            for (int64_t k = 0; k < A->nnz; k++) A->val[k] *= 0.75;
            CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, A)); /* as mpcg_matrix_update_values */
            CHECK_OK(cpu, mpcgi_csr_fill_lo32(cpu, A));
            CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, A));
            CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, host, A));
        }
    }
    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_spmv_plan_destroy(cpu, host);
}

static void check_device(int64_t n, int per_row)
{
    mpcgi_csr A;
    double *x;
    float *xf;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *x, &x));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *xf, &xf));
    random_x(n, test_seed ^ (uint64_t)(3 * n), x, xf);
    for (int v = 1; v < N_VARIANTS; v++) { /* the GPU backends */
        random_matrix(n, per_row, 40, &A);
        check_device_variant(&variants[v], &A, x, xf);
        mpcgi_csr_free(&A);
    }
    mpcgi_host_free(x), mpcgi_host_free(xf);
}

int main(void)
{
    test_init_seed("test_spmv_mixed");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    test_split_rules();
    test_refused();
    const int64_t sizes[] = {1, 31, 597, 10007};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_host(sizes[i], 9);
    check_host(3001, 120); /* long rows: the adaptive chunks */
    for (int v = 0; v < N_VARIANTS; v++) check_fallback(&variants[v]);
    for (int v = 0; v < N_VARIANTS; v++) check_53_bits(&variants[v]);
    if (mpcgi_device_count() == 0) {
        printf("test_spmv_mixed: no usable GPU, the GPU checks are skipped\n");
        mpcg_context_destroy(cpu);
        return test_failures ? test_finish("test_spmv_mixed") : TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (gpu) {
        printf("test_spmv_mixed: %s\n", mpcg_context_device_name(gpu));
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_device(sizes[i], 9);
        check_device(200003, 9);
        check_device(3001, 400); /* long rows */
    }
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return test_finish("test_spmv_mixed");
}
