/* test/test_spmv_segscan.c: the segscan backend (seed 001): its CPU emulation against a long
 * double reference, and the GPU bit for bit against the emulation, for both reductions and
 * several segment lengths and nonzeros a thread, and its fused dot, on matrices with empty rows, rows longer than many segments, a row
 * ending exactly at a segment boundary, n not a multiple of 32, and no nonzeros at all */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "solver/options.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* A CSR of order n with the given row lengths (columns spread over [0, n), sorted, values in
 * [-1, 1)); len may hold zeros. */
static int skew_csr(mpcgi_rng *g, int64_t n, const int64_t *len, mpcgi_csr *A)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) nnz += len[i];
    if (mpcgi_csr_alloc(cpu, n, nnz, A) != MPCG_SUCCESS) return -1;
    A->row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t k0 = A->row_ptr[i];
        for (int64_t j = 0; j < len[i]; j++) {
            A->col_idx[k0 + j] = (int32_t)(j * n / len[i]); /* distinct, ascending */
            A->val[k0 + j] = 2 * mpcgi_rng_uniform(g) - 1;
        }
        A->row_ptr[i + 1] = k0 + len[i];
    }
    return mpcgi_csr_fill_val32(cpu, A) == MPCG_SUCCESS ? 0 : -1;
}

/* y within (len + 2) eps scale of the long double sum (scale: sum of |a x|). */
static int64_t check_reference(const mpcgi_csr *A, const double *x, const void *y, int fp32)
{
    int64_t bad = 0;
    const double eps = fp32 ? FLT_EPSILON : DBL_EPSILON;
    for (int64_t i = 0; i < A->n; i++) {
        long double s = 0, sc = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            long double a = fp32 ? A->val32[k] : A->val[k];
            long double xv = fp32 ? (float)x[A->col_idx[k]] : x[A->col_idx[k]];
            s += a * xv, sc += fabsl(a * xv);
        }
        double yi = fp32 ? ((const float *)y)[i] : ((const double *)y)[i];
        double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
        if (!(fabsl(yi - s) <= (len + 2) * eps * sc)) {
            if (bad++ < 3)
                fprintf(stderr, "  row %lld: got %.17g, want %.17Lg\n", (long long)i, yi, s);
        }
    }
    return bad;
}

/* One shape of the backend: reduce, segment, per_thread ("auto" where NULL). */
typedef struct shape {
    const char *reduce, *segment, *per_thread;
} shape;

static void options_of(const shape *sh, mpcgi_options *o)
{
    memset(o, 0, sizeof *o);
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.reduce", sh->reduce));
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.segment", sh->segment ? sh->segment : "auto"));
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.per_thread",
                                          sh->per_thread ? sh->per_thread : "auto"));
}

static void poison(void *d, size_t bytes) /* NaN in every fp64 and fp32 entry */
{
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(d, 0xff, bytes, mpcg_context_stream(gpu))));
}

static int all_poisoned(const void *h, size_t bytes)
{
    const unsigned char *c = h;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != 0xff) return 0;
    return 1;
}

/* apply_dot: the same y bits as apply (y, from the emulation), the same dot bits twice, the dot
 * close to x^T y in long double; with the skip flag set nothing is written. */
static void check_dot(const mpcgi_csr *A, mpcgi_spmv_plan *plan, const double *dx, const double *x,
                      const double *y)
{
    const size_t b64 = (size_t)A->n * 8;
    double *dy = NULL, *ddot = NULL, *hy = NULL, dots[2];
    int *dskip = NULL, flag[2] = {0, 1};
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b64 + 8, &dy));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 8, &ddot));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, sizeof(int), &dskip));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b64 + 8, &hy));
    if (!dy || !ddot || !dskip || !hy) goto done;
    for (int run = 0; run < 2; run++) {
        poison(dy, b64), poison(ddot, 8);
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dskip, &flag[0], sizeof(int), MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, dx, dy, ddot, run ? dskip : NULL));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, hy, dy, b64, MPCGI_D2H));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, &dots[run], ddot, 8, MPCGI_D2H));
        CHECK(memcmp(hy, y, b64) == 0);
    }
    long double ref = 0, scale = 0;
    for (int64_t i = 0; i < A->n; i++)
        ref += (long double)x[i] * y[i], scale += fabsl((long double)x[i] * y[i]);
    CHECK(memcmp(&dots[0], &dots[1], 8) == 0);
    if (!(fabsl(dots[0] - ref) <= (long double)(A->n + 2) * DBL_EPSILON * scale))
        printf("  dot %.17g, want %.17Lg\n", dots[0], ref);
    CHECK(fabsl(dots[0] - ref) <= (long double)(A->n + 2) * DBL_EPSILON * scale);
    poison(dy, b64), poison(ddot, 8);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dskip, &flag[1], sizeof(int), MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, dx, dy, ddot, dskip));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, hy, dy, b64, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dots[0], ddot, 8, MPCGI_D2H));
    CHECK(all_poisoned(hy, b64) && all_poisoned(&dots[0], 8));
done:
    mpcgi_device_free(gpu, dy), mpcgi_device_free(gpu, ddot), mpcgi_device_free(gpu, dskip);
    mpcgi_host_free(hy);
}

/* One shape: the emulation against the reference, the GPU against the emulation (twice: the
 * same bits), and in fp64 the fused dot. */
static void check_one(const char *what, mpcgi_csr *A, const shape *sp, const double *x)
{
    mpcgi_options opts;
    options_of(sp, &opts);
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    const int64_t n = A->n;
    char name[96];
    snprintf(name, sizeof name, "%s %s L=%s V=%s", what, sp->reduce,
             sp->segment ? sp->segment : "auto", sp->per_thread ? sp->per_thread : "auto");
    for (int fp32 = 0; fp32 < 2; fp32++) {
        const mpcg_precision prec = fp32 ? MPCG_PRECISION_FP32 : MPCG_PRECISION_FP64;
        const size_t bytes = (size_t)n * (fp32 ? sizeof(float) : sizeof(double));
        void *hx = NULL, *hy = NULL, *gy = NULL, *dx = NULL, *dy = NULL;
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &hx));
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &hy));
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &gy));
        if (!hx || !hy || !gy) return;
        for (int64_t i = 0; i < n; i++) {
            if (fp32) ((float *)hx)[i] = (float)x[i];
            else ((double *)hx)[i] = x[i];
        }
        memset(hy, 0xff, bytes); /* NaN */
        mpcgi_spmv_plan *emu = NULL;
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_segscan, A, both, &opts, &emu));
        if (emu) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, prec, hx, hy));
        int64_t bad = check_reference(A, x, hy, fp32);
        if (bad) printf("  %s %s: %lld rows off the reference\n", name, fp32 ? "fp32" : "fp64",
                        (long long)bad);
        CHECK(bad == 0);
        if (gpu) {
            mpcgi_spmv_plan *plan = NULL;
            CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_segscan, A, both, &opts, &plan));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dx));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dy));
            CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, hx, bytes, MPCGI_H2D));
            for (int rep = 0; plan && rep < 2; rep++) { /* the same bits twice */
                poison(dy, bytes);
                CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, prec, dx, dy));
                CHECK_OK(gpu, mpcgi_device_copy(gpu, gy, dy, bytes, MPCGI_D2H));
                int same = memcmp(gy, hy, bytes) == 0;
                if (!same) printf("  %s %s: GPU differs from the emulation\n", name,
                                  fp32 ? "fp32" : "fp64");
                CHECK(same);
            }
            if (plan && !fp32) check_dot(A, plan, dx, x, hy);
            mpcgi_spmv_plan_destroy(gpu, plan);
            mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
        }
        mpcgi_spmv_plan_destroy(cpu, emu);
        mpcgi_host_free(hx), mpcgi_host_free(hy), mpcgi_host_free(gy);
    }
}

/* The shapes: the defaults, each thread count and V of the scan, the seed's index tree at its
 * smallest, default and largest segments. */
static const shape shapes[] = {
    {"shuffle", NULL, NULL},         {"shuffle", "128", "1"},
    {"shuffle", "512", "2"},         {"shuffle", "1024", "8"},
    {"shuffle", "4096", "8"},        {"shuffle", "2048", "4"},
    {"index", NULL, NULL},           {"index", "128", NULL},
    {"index", "1024", "1"},
};

static void check_matrix(const char *what, mpcgi_csr *A, mpcgi_rng *g)
{
    double *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *x, &x));
    for (int64_t i = 0; x && i < A->n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    for (size_t k = 0; x && k < sizeof shapes / sizeof shapes[0]; k++)
        check_one(what, A, &shapes[k], x);
    printf("  %s: n = %lld, nnz = %lld checked\n", what, (long long)A->n, (long long)A->nnz);
    mpcgi_host_free(x);
}

/* Shapes without kernels are refused when the plan is made, naming the options. */
static void check_refusals(void)
{
    static const struct {
        shape sp;
        const char *why;
    } bad[] = {
        {{"shuffle", "128", "8"}, "makes 16 threads a block"},
        {{"shuffle", "4096", "1"}, "makes 4096 threads a block"},
        {{"index", "2048", NULL}, "segscan.reduce=index takes one nonzero a thread"},
        {{"index", "256", "2"}, "segscan.per_thread=2"},
    };
    int64_t rp[2] = {0, 0};
    mpcgi_csr A = {.n = 1, .nnz = 0, .row_ptr = rp};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mpcgi_options o;
        mpcgi_spmv_plan *plan = NULL;
        options_of(&bad[k].sp, &o);
        CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_segscan, &A, MPCG_CAP_FP64, &o,
                                                 &plan),
                     MPCG_ERR_INVALID_ARG);
        CHECK(plan == NULL && strstr(mpcg_last_error(cpu), bad[k].why));
        mpcg_clear_error(cpu);
    }
    mpcgi_options o = {0};
    CHECK_STATUS(NULL, mpcgi_options_set_text(NULL, &o, "segscan.per_thread", "3"),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcgi_options_set_text(NULL, &o, "segscan.segment", "8192"),
                 MPCG_ERR_INVALID_ARG);
}

int main(void)
{
    test_init_seed("test_spmv_segscan");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_spmv_segscan");
    if (mpcgi_device_count() > 0) CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else printf("test_spmv_segscan: no usable GPU, the GPU checks are skipped\n");
    check_refusals();
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    mpcgi_csr A;
    /* random rows with empty ones, n not a multiple of 32 */
    if (test_random_csr(&g, 1001, 9, 1, &A) == 0) check_matrix("random 1001", &A, &g), mpcgi_csr_free(&A);
    /* skew: a row of exactly 256 (ends at a boundary of L = 128 and 256), one from 256 to 8192
     * (many segments, ends at a boundary of every L), empty rows between, rows of 1 */
    int64_t n = 6007, *len = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *len, &len));
    for (int64_t i = 0; len && i < n; i++) len[i] = i % 7 == 3 ? 0 : 1 + (int64_t)mpcgi_rng_below(&g, 3);
    if (len) {
        len[0] = 256, len[1] = 0, len[2] = 8192 - 256, len[n - 1] = 0, len[n - 2] = 0;
        len[500] = 1024; /* another long one, at an arbitrary offset */
        if (skew_csr(&g, n, len, &A) == 0) check_matrix("skew", &A, &g), mpcgi_csr_free(&A);
        for (int64_t i = 0; i < n; i++) len[i] = 0; /* no nonzeros: y = 0 */
        if (skew_csr(&g, 77, len, &A) == 0) check_matrix("empty", &A, &g), mpcgi_csr_free(&A);
        len[0] = 3000; /* biased: one long row, the others 1 (the seed's stress case, small) */
        for (int64_t i = 1; i < 3000; i++) len[i] = 1;
        if (skew_csr(&g, 3000, len, &A) == 0) check_matrix("biased 3000", &A, &g), mpcgi_csr_free(&A);
    }
    mpcgi_host_free(len);
    int skip = !gpu && !test_failures; /* the CPU checks passed; the GPU ones could not run */
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return skip ? TEST_SKIP : test_finish("test_spmv_segscan");
}
