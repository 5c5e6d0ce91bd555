/* test/test_spmm.c: the block product Y = A X (SpMM) of every backend that has one: the host
 * product against a long double reference, column j against the single SpMV of column j (bit for
 * bit where both sum in column order), the GPU against the host product (bit for bit where the
 * backend is deterministic, else against the reference), and the dispatcher's refusals */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/block.h"
#include "core/device.h"
#include "core/matrix.h"
#include "solver/options.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* The block sizes: powers of two, one past them, odd ones, the largest. */
static const int sizes[] = {1, 2, 3, 5, 8, 16, 17, 32, 33, 64};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* A CSR of order n with the given row lengths (columns spread over [0, n), ascending; values in
 * [-1, 1)); len may hold zeros. 0, or -1 on failure. (test/spmv_check.c has the same generator
 * but needs the CUDA headers; this test is built without CUDA too.) */
static int skew_csr(mpcgi_rng *g, int64_t n, const int64_t *len, mpcgi_csr *A)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) nnz += len[i];
    if (mpcgi_csr_alloc(cpu, n, nnz, A) != MPCG_SUCCESS) return -1;
    A->row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < len[i]; j++) {
            A->col_idx[A->row_ptr[i] + j] = (int32_t)(j * n / len[i]);
            A->val[A->row_ptr[i] + j] = 2 * mpcgi_rng_uniform(g) - 1;
        }
        A->row_ptr[i + 1] = A->row_ptr[i] + len[i];
    }
    return mpcgi_csr_fill_val32(cpu, A) == MPCG_SUCCESS ? 0 : -1;
}

/* Entry e of a block of the precision's type, as a double. */
static double at(const void *B, int fp32, size_t e)
{
    return fp32 ? (double)((const float *)B)[e] : ((const double *)B)[e];
}

/* Entries of Y (n x s) off the long double product by more than (len + 2) eps sum_k |a x| (the
 * first three printed). */
static int64_t off_reference(const mpcgi_csr *A, int fp32, int s, const void *X, const void *Y)
{
    const double eps = fp32 ? FLT_EPSILON : DBL_EPSILON, tiny = fp32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    int64_t bad = 0;
    for (int64_t i = 0; i < A->n; i++) {
        const int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
        for (int j = 0; j < s; j++) {
            long double sum = 0, scale = 0;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                long double a = fp32 ? A->val32[k] : A->val[k];
                long double t = a * at(X, fp32, (size_t)A->col_idx[k] * (size_t)s + (size_t)j);
                sum += t, scale += fabsl(t);
            }
            const double y = at(Y, fp32, (size_t)i * (size_t)s + (size_t)j);
            if (fabsl(y - sum) <= (len + 2) * eps * scale + (len + 1) * tiny) continue;
            if (bad++ < 3)
                fprintf(stderr, "  Y[%lld, %d] = %.17g, want %.17Lg\n", (long long)i, j, y, sum);
        }
    }
    return bad;
}

/* A random block n x s (values in [-1, 1)) of the precision's type. */
static void fill_block(mpcgi_rng *g, int fp32, size_t count, void *B)
{
    for (size_t e = 0; e < count; e++) {
        const double v = 2 * mpcgi_rng_uniform(g) - 1;
        if (fp32) ((float *)B)[e] = (float)v;
        else ((double *)B)[e] = v;
    }
}

/* Host arrays of one case: X, Y and the columns (x, y) of the column check. */
typedef struct bufs {
    void *X, *Y, *G, *x, *y;
    void *dX, *dY;
} bufs;

static int bufs_alloc(int64_t n, bufs *b)
{
    const size_t big = ((size_t)n * MPCGI_BLOCK_MAX + 1) * sizeof(double);
    const size_t col = ((size_t)n + 1) * sizeof(double);
    memset(b, 0, sizeof *b);
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, big, &b->X));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, big, &b->Y));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, big, &b->G));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, col, &b->x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, col, &b->y));
    if (gpu) {
        CHECK_OK(gpu, mpcgi_device_alloc(gpu, big, &b->dX));
        CHECK_OK(gpu, mpcgi_device_alloc(gpu, big, &b->dY));
    }
    return b->X && b->Y && b->G && b->x && b->y && (!gpu || (b->dX && b->dY)) ? 0 : -1;
}

static void bufs_free(bufs *b)
{
    mpcgi_host_free(b->X), mpcgi_host_free(b->Y), mpcgi_host_free(b->G);
    mpcgi_host_free(b->x), mpcgi_host_free(b->y);
    if (gpu) mpcgi_device_free(gpu, b->dX), mpcgi_device_free(gpu, b->dY);
}

/* Column j of the block product against the plan's SpMV of column j of X, bit for bit. */
static int64_t columns_differ(mpcgi_spmv_plan *plan, mpcg_precision prec, int s, const bufs *b)
{
    const int fp32 = prec == MPCG_PRECISION_FP32;
    const size_t w = fp32 ? sizeof(float) : sizeof(double), n = (size_t)plan->n;
    int64_t bad = 0;
    for (int j = 0; j < s; j++) {
        for (size_t i = 0; i < n; i++)
            memcpy((char *)b->x + i * w, (const char *)b->X + (i * (size_t)s + (size_t)j) * w, w);
        memset(b->y, 0xff, n * w);
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, prec, b->x, b->y));
        for (size_t i = 0; i < n; i++)
            bad += memcmp((const char *)b->y + i * w,
                          (const char *)b->Y + (i * (size_t)s + (size_t)j) * w, w) != 0;
    }
    return bad;
}

/* The GPU plan's block product into poisoned Y, twice: against the host product (bit for bit
 * when exact) and against the reference. */
static void gpu_case(const mpcgi_csr *A, mpcgi_spmv_plan *plan, mpcg_precision prec, int s,
                     int exact, const bufs *b, const char *what)
{
    const int fp32 = prec == MPCG_PRECISION_FP32;
    const size_t bytes = (size_t)A->n * (size_t)s * (fp32 ? sizeof(float) : sizeof(double));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dX, b->X, bytes, MPCGI_H2D));
    for (int rep = 0; rep < 2; rep++) {
        memset(b->G, 0xff, bytes); /* NaN, to the device and back */
        CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dY, b->G, bytes, MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_spmv_apply_block(gpu, plan, prec, s, b->dX, b->dY));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, b->G, b->dY, bytes, MPCGI_D2H));
        const int64_t off = off_reference(A, fp32, s, b->X, b->G);
        const int same = memcmp(b->G, b->Y, bytes) == 0;
        if (off || (exact && !same))
            printf("  %s s = %d: GPU %lld entries off the reference%s\n", what, s, (long long)off,
                   exact && !same ? ", differs from the emulation" : "");
        CHECK(off == 0 && (!exact || same));
    }
}

/* One backend (options kv, NULL-terminated "key=value" words) on A: every block size, fp64 and
 * fp32; colcheck: column j must equal the single SpMV bit for bit. */
static void check_backend(const struct mpcgi_spmv_ops *ops, const char *const *kv, mpcgi_csr *A,
                          int colcheck, const char *matrix, mpcgi_rng *g)
{
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    mpcgi_options o;
    mpcgi_spmv_plan *host = NULL, *dev = NULL;
    bufs b;
    char what[160];
    memset(&o, 0, sizeof o);
    for (; kv && *kv; kv++) {
        char key[64];
        const char *eq = strchr(*kv, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - *kv), *kv);
        CHECK_OK(NULL, mpcgi_options_set_text(NULL, &o, key, eq + 1));
    }
    if (bufs_alloc(A->n, &b) != 0) goto done;
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, ops, A, both, &o, &host));
    if (gpu && (ops->caps & MPCG_CAP_NEEDS_DEVICE) && ops->apply_block)
        CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, ops, A, both, &o, &dev));
    for (int c = 0; host && c < 2 * NSIZES; c++) {
        const int s = sizes[c / 2], fp32 = c % 2;
        const mpcg_precision prec = fp32 ? MPCG_PRECISION_FP32 : MPCG_PRECISION_FP64;
        const size_t count = (size_t)A->n * (size_t)s;
        snprintf(what, sizeof what, "%s %s %s", matrix, ops->name, fp32 ? "fp32" : "fp64");
        fill_block(g, fp32, count, b.X);
        memset(b.Y, 0xff, count * (fp32 ? sizeof(float) : sizeof(double)));
        CHECK_OK(cpu, mpcgi_spmv_apply_block(cpu, host, prec, s, b.X, b.Y));
        const int64_t off = off_reference(A, fp32, s, b.X, b.Y);
        if (off) printf("  %s s = %d: %lld entries off the reference\n", what, s, (long long)off);
        CHECK(off == 0);
        if (colcheck) {
            const int64_t diff = columns_differ(host, prec, s, &b);
            if (diff) printf("  %s s = %d: %lld entries differ from the SpMV\n", what, s,
                             (long long)diff);
            CHECK(diff == 0);
        }
        if (dev) gpu_case(A, dev, prec, s, (ops->caps & MPCG_CAP_DETERMINISTIC) != 0, &b, what);
    }
    printf("  %s %s%s: s = 1 ... 64 checked%s%s\n", matrix, ops->name,
           o.count ? " (options)" : "", colcheck ? ", columns = SpMVs bit for bit" : "",
           dev ? ", on the GPU" : "");
done:
    mpcgi_spmv_plan_destroy(cpu, host);
    mpcgi_spmv_plan_destroy(gpu, dev);
    bufs_free(&b);
}

/* Every registered backend with a block product on A. The cpu backend and the adaptive one with
 * one lane per row (adaptive.nt=1 on the uniform path: its SpMV is an fma chain in column order,
 * as the SpMM) are compared column by column with their SpMV. */
static void check_matrix(mpcgi_csr *A, const char *matrix, mpcgi_rng *g)
{
    static const char *const seq[] = {"adaptive.mode=uniform", "adaptive.nt=1", NULL};
    const struct mpcgi_spmv_ops *adaptive = NULL;
    if (mpcgi_spmv_lookup(cpu, "adaptive", &adaptive) != MPCG_SUCCESS) { /* a CPU-only build */
        mpcg_clear_error(cpu);
        adaptive = NULL;
    }
    for (int k = 0; k < mpcgi_spmv_count(); k++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_get(k);
        if (!ops->apply_block_host) continue;
        check_backend(ops, NULL, A, ops == &mpcgi_spmv_cpu, matrix, g);
        if (ops == adaptive) check_backend(ops, seq, A, 1, matrix, g);
    }
}

/* The refusals of mpcgi_spmv_apply_block, each with its message. */
static void check_refusals(mpcg_context *ctx, mpcgi_csr *A)
{
    mpcgi_spmv_plan *plan = NULL, *none = NULL, *fp64 = NULL;
    const struct mpcgi_spmv_ops *ops = ctx == cpu ? &mpcgi_spmv_cpu : NULL, *without = NULL;
    const size_t bytes = (size_t)A->n * 65 * sizeof(double);
    void *X = NULL, *Y = NULL;
    for (int k = 0; k < mpcgi_spmv_count(); k++) { /* on this context: with and without SpMM */
        const struct mpcgi_spmv_ops *o = mpcgi_spmv_get(k);
        if (ctx == gpu && !(o->caps & MPCG_CAP_NEEDS_DEVICE)) continue;
        if (ctx == cpu && (o->caps & MPCG_CAP_NEEDS_DEVICE) && !(o->caps & MPCG_CAP_CPU_EMULATION))
            continue;
        if (!ops && (ctx == gpu ? o->apply_block != NULL : o->apply_block_host != NULL)) ops = o;
        if (!without && (ctx == gpu ? o->apply_block == NULL : o->apply_block_host == NULL))
            without = o;
    }
    if (ctx == gpu) {
        CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &X));
        CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &Y));
    } else {
        CHECK_OK(cpu, mpcgi_host_calloc(cpu, 1, bytes, &X));
        CHECK_OK(cpu, mpcgi_host_calloc(cpu, 1, bytes, &Y));
    }
    if (!ops || !X || !Y) goto done;
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, ops, A, MPCG_CAP_FP64 | MPCG_CAP_FP32, NULL, &plan));
    CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, ops, A, MPCG_CAP_FP64, NULL, &fp64));
    if (!plan || !fp64) goto done;
    CHECK(mpcgi_spmv_has_block(plan));
    CHECK_STATUS(ctx, mpcgi_spmv_apply_block(ctx, plan, MPCG_PRECISION_FP64, 0, X, Y),
                 MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "block of 0 vectors (1 to 64)") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_spmv_apply_block(ctx, plan, MPCG_PRECISION_FP64, 65, X, Y),
                 MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "block of 65 vectors (1 to 64)") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_spmv_apply_block(ctx, plan, MPCG_PRECISION_MIXED, 4, X, Y),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(ctx), "the block product runs fp64 or fp32, not mixed") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_spmv_apply_block(ctx, fp64, MPCG_PRECISION_FP32, 4, X, Y),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(ctx), "was not set up for precision fp32") != NULL);
    mpcg_clear_error(ctx);
    if (without) {
        char want[96];
        CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, without, A, MPCG_CAP_FP64, NULL, &none));
        CHECK(none && !mpcgi_spmv_has_block(none));
        if (none)
            CHECK_STATUS(ctx, mpcgi_spmv_apply_block(ctx, none, MPCG_PRECISION_FP64, 4, X, Y),
                         MPCG_ERR_NOT_SUPPORTED);
        snprintf(want, sizeof want, "backend %s has no block product (SpMM) %s", without->name,
                 ctx == gpu ? "on the device" : "on the host");
        CHECK(strstr(mpcg_last_error(ctx), want) != NULL);
        mpcg_clear_error(ctx);
    }
    printf("  refusals on the %s checked%s%s\n", ctx == gpu ? "GPU" : "CPU",
           without ? ", a backend without SpMM: " : "", without ? without->name : "");
done:
    mpcgi_spmv_plan_destroy(ctx, plan), mpcgi_spmv_plan_destroy(ctx, fp64);
    mpcgi_spmv_plan_destroy(ctx, none);
    if (ctx == gpu) mpcgi_device_free(gpu, X), mpcgi_device_free(gpu, Y);
    else mpcgi_host_free(X), mpcgi_host_free(Y);
}

/* The skewed matrix: rows far longer than 32 (1500, 777, 64), empty rows between, short rows. */
static void check_skew(mpcgi_rng *g)
{
    const int64_t n = 3001;
    int64_t *len = NULL;
    mpcgi_csr A;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *len, &len));
    if (!len) return;
    for (int64_t i = 0; i < n; i++)
        len[i] = i % 7 == 3 ? 0 : 1 + (int64_t)mpcgi_rng_below(g, 3);
    len[0] = 1500, len[1] = 0, len[2] = 777, len[n - 1] = 0, len[900] = 64;
    if (skew_csr(g, n, len, &A) == 0) check_matrix(&A, "skew 3001", g), mpcgi_csr_free(&A);
    for (int64_t i = 0; i < 77; i++) len[i] = 0; /* no nonzeros: Y = 0 */
    if (skew_csr(g, 77, len, &A) == 0) check_matrix(&A, "empty 77", g), mpcgi_csr_free(&A);
    mpcg_context *keep = gpu; /* n = 0: the host products only (the launchers return before
                                 launching at n = 0; device plans of n = 0 are not this test's) */
    gpu = NULL;
    if (skew_csr(g, 0, len, &A) == 0) check_matrix(&A, "n = 0", g), mpcgi_csr_free(&A);
    gpu = keep;
    mpcgi_host_free(len);
}

int main(void)
{
    test_init_seed("test_spmm");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_spmm");
    if (mpcgi_device_count() > 0) CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else printf("test_spmm: no usable GPU, the GPU checks are skipped\n");
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    mpcgi_csr A;
    if (test_random_csr(&g, 1001, 9, 1, &A) == 0) { /* empty rows, n not a multiple of 32 */
        check_matrix(&A, "random 1001", &g);
        check_refusals(cpu, &A);
        if (gpu) check_refusals(gpu, &A);
        mpcgi_csr_free(&A);
    }
    check_skew(&g);
    mpcg_matrix *M = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, test_data("bcsstk05.mtx"), &M));
    if (M) check_matrix(&M->csr, "bcsstk05", &g);
    mpcg_matrix_destroy(M);
    int skip = !gpu && !test_failures; /* the CPU checks passed; the GPU ones could not run */
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return skip ? TEST_SKIP : test_finish("test_spmm");
}
