/* test/spmv_check.c: the checks every device SpMV backend's test runs (test/spmv_check.h) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

mpcg_context *spmv_check_cpu, *spmv_check_gpu;
#define cpu spmv_check_cpu
#define gpu spmv_check_gpu

/* A CSR of order n with the given row lengths (columns spread over [0, n), sorted, values in
 * [-1, 1)); len may hold zeros. */
int spmv_check_skew_csr(mpcgi_rng *g, int64_t n, const int64_t *len, mpcgi_csr *A)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += len[i];
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
int64_t spmv_check_reference(const mpcgi_csr *A, const double *x, const void *y, int fp32)
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

/* test/spmv_check.h */
int spmv_check_start(const char *test, mpcgi_rng *g)
{
    test_init_seed(test);
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return -1;
    if (mpcgi_device_count() > 0)
        CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else
        printf("%s: no usable GPU, the GPU checks are skipped\n", test);
    mpcgi_rng_seed(g, test_seed);
    return 0;
}

/* test/spmv_check.h */
int spmv_check_finish(const char *test)
{
    int skip = !gpu && !test_failures; /* the CPU checks passed; the GPU ones could not run */
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    gpu = cpu = NULL;
    return skip ? TEST_SKIP : test_finish(test);
}

/* test/spmv_check.h */
void spmv_check_options(const char *const *kv, mpcgi_options *o)
{
    memset(o, 0, sizeof *o);
    for (; kv && *kv; kv++) {
        char key[64];
        const char *eq = strchr(*kv, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - *kv), *kv);
        CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, key, eq + 1));
    }
}

/* A random x in [-1, 1) for A, then check(what, A, x, arg) and a line saying so. */
static void check_shape(const char *what, mpcgi_csr *A, mpcgi_rng *g, spmv_check_fn *check,
                        void *arg)
{
    double *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *x, &x));
    for (int64_t i = 0; x && i < A->n; i++)
        x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    if (x) check(what, A, x, arg);
    printf("  %s: n = %lld, nnz = %lld checked\n", what, (long long)A->n, (long long)A->nnz);
    mpcgi_host_free(x);
}

/* test/spmv_check.h */
void spmv_check_fold_shapes(mpcgi_rng *g, spmv_check_fn *check, void *arg)
{
    mpcgi_csr A;
    /* random rows with empty ones, n not a multiple of 32 */
    if (test_random_csr(g, 1001, 9, 1, &A) == 0)
        check_shape("random 1001", &A, g, check, arg), mpcgi_csr_free(&A);
    /* skew: rows far longer than 10 F (F about 3), empty rows between, rows of 1 - 3 */
    int64_t n = 3001, *len = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *len, &len));
    for (int64_t i = 0; len && i < n; i++)
        len[i] = i % 7 == 3 ? 0 : 1 + (int64_t)mpcgi_rng_below(g, 3);
    if (len) {
        len[0] = 1500, len[1] = 0, len[2] = 777, len[n - 1] = 0, len[n - 2] = 0, len[900] = 64;
        if (spmv_check_skew_csr(g, n, len, &A) == 0)
            check_shape("skew", &A, g, check, arg), mpcgi_csr_free(&A);
        for (int64_t i = 0; i < n; i++)
            len[i] = 0; /* no nonzeros: y = 0 */
        if (spmv_check_skew_csr(g, 77, len, &A) == 0)
            check_shape("empty", &A, g, check, arg), mpcgi_csr_free(&A);
    }
    mpcgi_host_free(len);
}

/* test/spmv_check.h */
void spmv_check_with_defaults(const char *what, mpcgi_csr *A, const double *x, void *arg)
{
    const spmv_check_target *t = arg;
    char name[128];
    snprintf(name, sizeof name, "%s %s", what, t->ops->name);
    spmv_check_backend(t->ops, name, A, NULL, x, t->exact);
}

/* test/spmv_check.h */
void spmv_check_backend(const struct mpcgi_spmv_ops *ops, const char *name, mpcgi_csr *A,
                        const mpcgi_options *opts, const double *x, int exact)
{
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    const int64_t n = A->n;
    for (int fp32 = 0; fp32 < 2; fp32++) {
        const mpcg_precision prec = fp32 ? MPCG_PRECISION_FP32 : MPCG_PRECISION_FP64;
        const size_t bytes = (size_t)n * (fp32 ? sizeof(float) : sizeof(double));
        void *hx = NULL, *hy = NULL, *gy = NULL, *dx = NULL, *dy = NULL;
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &hx));
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &hy));
        CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes + 8, &gy));
        if (!hx || !hy || !gy) return;
        for (int64_t i = 0; i < n; i++) {
            if (fp32)
                ((float *)hx)[i] = (float)x[i];
            else
                ((double *)hx)[i] = x[i];
        }
        memset(hy, 0xff, bytes); /* NaN */
        mpcgi_spmv_plan *emu = NULL;
        CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, ops, A, both, opts, &emu));
        if (emu) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, prec, hx, hy));
        int64_t bad = spmv_check_reference(A, x, hy, fp32);
        if (bad)
            printf("  %s %s: %lld rows off the reference\n", name, fp32 ? "fp32" : "fp64",
                   (long long)bad);
        CHECK(bad == 0);
        if (gpu) {
            mpcgi_spmv_plan *plan = NULL;
            CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, ops, A, both, opts, &plan));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dx));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes + 8, &dy));
            CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, hx, bytes, MPCGI_H2D));
            for (int rep = 0; plan && rep < 2; rep++) { /* the same bits twice */
                poison(dy, bytes);
                CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, prec, dx, dy));
                CHECK_OK(gpu, mpcgi_device_copy(gpu, gy, dy, bytes, MPCGI_D2H));
                int same =
                    exact ? memcmp(gy, hy, bytes) == 0 : spmv_check_reference(A, x, gy, fp32) == 0;
                if (!same)
                    printf("  %s %s: GPU differs from the emulation\n", name,
                           fp32 ? "fp32" : "fp64");
                CHECK(same);
            }
            if (plan && !fp32 && ops->apply_dot) check_dot(A, plan, dx, x, hy);
            mpcgi_spmv_plan_destroy(gpu, plan);
            mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
        }
        mpcgi_spmv_plan_destroy(cpu, emu);
        mpcgi_host_free(hx), mpcgi_host_free(hy), mpcgi_host_free(gy);
    }
}
