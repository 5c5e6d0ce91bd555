/* bench/spmvbench_block.c: spmvbench --block=S: each backend's block product Y = A X beside
 * cusparseSpMM and beside S of its own SpMVs (docs/benchmarks.md) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bench/spmvbench_block.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/rng.h"

/* Entries of a wrong result printed. */
#define SHOW_WRONG 5

/* One backend in one precision: its plan, X and Y (n x s row-major) and the same columns one
 * after another (column-major) for the single SpMVs, all on the device. */
typedef struct block_case {
    mpcgi_spmv_plan *plan;
    mpcg_precision prec;
    int s;
    int64_t n;
    size_t vw;
    void *dX, *dY, *dXc, *dYc;
} block_case;

/* Y (row-major, or column-major with colmajor) against the long double product of the values
 * the backend sees (A's and X's rounded to fp32 in fp32): within (len + 2) eps sum |a x| (plus
 * the subnormal spacing per term). The count of wrong entries; the first ones printed. */
static int64_t block_compare(const char *what, const mpcgi_csr *A, int fp32, int s, const void *X,
                             const void *Y, int colmajor, int show)
{
    const double eps = fp32 ? FLT_EPSILON : DBL_EPSILON, tiny = fp32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    const size_t n = (size_t)A->n, w = (size_t)s;
    int64_t bad = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : bad) if (!show)
    for (int64_t i = 0; i < A->n; i++) {
        long double sum[64] = {0}, scale[64] = {0};
        const double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            const size_t c = (size_t)A->col_idx[k] * w;
            for (int j = 0; j < s; j++) {
                long double t = fp32 ? (long double)(float)A->val[k] * ((const float *)X)[c + j]
                                     : (long double)A->val[k] * ((const double *)X)[c + j];
                sum[j] += t, scale[j] += fabsl(t);
            }
        }
        for (int j = 0; j < s; j++) {
            const size_t e = colmajor ? (size_t)j * n + (size_t)i : (size_t)i * w + (size_t)j;
            const double y = fp32 ? (double)((const float *)Y)[e] : ((const double *)Y)[e];
            const double ref = fp32 ? (double)(float)sum[j] : (double)sum[j];
            const double tol = (len + 2.0) * eps * (double)scale[j] + (len + 1.0) * tiny;
            const int ok = isfinite(ref) ? fabs(y - ref) <= tol : y == ref;
            if (ok) continue;
            if (show && bad < SHOW_WRONG)
                fprintf(stderr, "spmvbench: %s: Y[%lld, %d] = %.17g, reference %.17g, |diff| "
                                "%.3g > tolerance %.3g\n",
                        what, (long long)i, j, y, ref, fabs(y - ref), tol);
            bad++;
        }
    }
    return bad;
}

/* X uniform in [-1, 1) from seed, row-major in *X and column-major in *Xc (host). */
static mpcg_status make_x(mpcg_context *ctx, int64_t n, int s, int fp32, uint64_t seed, void **X,
                          void **Xc)
{
    const size_t count = (size_t)n * (size_t)s, vw = fp32 ? sizeof(float) : sizeof(double);
    mpcgi_rng g;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, count + 1, vw, X));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, count + 1, vw, Xc));
    mpcgi_rng_seed(&g, seed);
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < s; j++) {
            const double v = 2.0 * mpcgi_rng_uniform(&g) - 1.0;
            const size_t r = (size_t)i * (size_t)s + (size_t)j, c = (size_t)j * (size_t)n + (size_t)i;
            if (fp32) ((float *)*X)[r] = ((float *)*Xc)[c] = (float)v;
            else ((double *)*X)[r] = ((double *)*Xc)[c] = v;
        }
    return MPCG_SUCCESS;
}

/* Call i of the protocol: the block product. */
static mpcg_status call_block(mpcg_context *ctx, void *arg, int64_t i)
{
    block_case *c = arg;
    (void)i;
    return mpcgi_spmv_apply_block(ctx, c->plan, c->prec, c->s, c->dX, c->dY);
}

/* Call i of the protocol: S single SpMVs, one per column. */
static mpcg_status call_spmvs(mpcg_context *ctx, void *arg, int64_t i)
{
    block_case *c = arg;
    const size_t col = (size_t)c->n * c->vw;
    (void)i;
    for (int j = 0; j < c->s; j++)
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, c->plan, c->prec, (char *)c->dXc + (size_t)j * col,
                                         (char *)c->dYc + (size_t)j * col));
    return MPCG_SUCCESS;
}

/* Y poisoned with NaN, one block product and the S SpMVs, each checked (*wrong: entries off). */
static mpcg_status case_check(mpcg_context *ctx, const bench_block_args *a, block_case *c,
                              const void *X, void *host, const char *what, int64_t *wrong)
{
    const size_t bytes = (size_t)c->n * (size_t)c->s * c->vw;
    const int fp32 = c->prec == MPCG_PRECISION_FP32;
    cudaStream_t st = (cudaStream_t)mpcg_context_stream(ctx);
    char w2[128];
    MPCG_CUDA(ctx, cudaMemsetAsync(c->dY, 0xff, bytes + 1, st)); /* all ones: NaN */
    MPCG_CUDA(ctx, cudaMemsetAsync(c->dYc, 0xff, bytes + 1, st));
    MPCG_CHECK(ctx, call_block(ctx, c, 0));
    MPCG_CHECK(ctx, call_spmvs(ctx, c, 0));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, host, c->dY, bytes, MPCGI_D2H));
    *wrong = block_compare(what, a->A, fp32, c->s, X, host, 0, 0);
    if (*wrong) block_compare(what, a->A, fp32, c->s, X, host, 0, 1);
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, host, c->dYc, bytes, MPCGI_D2H));
    snprintf(w2, sizeof w2, "%s, its SpMVs", what);
    int64_t spmvs = block_compare(w2, a->A, fp32, c->s, X, host, 1, 0);
    if (spmvs) block_compare(w2, a->A, fp32, c->s, X, host, 1, 1);
    *wrong += spmvs;
    return MPCG_SUCCESS;
}

/* The device arrays and the plan of one case. */
static mpcg_status case_setup(mpcg_context *ctx, const bench_block_args *a,
                              const struct mpcgi_spmv_ops *ops, block_case *c, const void *X,
                              const void *Xc)
{
    const size_t bytes = (size_t)c->n * (size_t)c->s * c->vw;
    const unsigned cap = c->prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32 : MPCG_CAP_FP64;
    MPCG_CHECK(ctx, mpcgi_spmv_plan_create(ctx, ops, a->A, cap, a->opts, &c->plan));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes + 1, &c->dX));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes + 1, &c->dY));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes + 1, &c->dXc));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes + 1, &c->dYc));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, c->dX, X, bytes, MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, c->dXc, Xc, bytes, MPCGI_H2D));
    return MPCG_SUCCESS;
}

static void case_free(mpcg_context *ctx, block_case *c)
{
    mpcgi_spmv_plan_destroy(ctx, c->plan);
    mpcgi_device_free(ctx, c->dX), mpcgi_device_free(ctx, c->dY);
    mpcgi_device_free(ctx, c->dXc), mpcgi_device_free(ctx, c->dYc);
    memset(c, 0, sizeof *c);
}

/* Set up, check and time one backend into r (status "wrong" without a time). */
static mpcg_status run_case(const bench_block_args *a, const struct mpcgi_spmv_ops *ops,
                            block_case *c, const void *X, const void *Xc, bench_record *r)
{
    mpcg_context *ctx = a->ctx;
    mpcg_status st = MPCG_SUCCESS;
    const bench_protocol p = {.warmup = 100, .groups = 3, .per_group = a->per_group,
                              .untimed = 10};
    void *host = NULL;
    int64_t wrong = 0;
    bench_timing t, ts;
    char what[96];
    snprintf(what, sizeof what, "%s %s s = %d", ops->name, r->precision, c->s);
    MPCG_TRY(ctx, st, case_setup(ctx, a, ops, c, X, Xc));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)c->n * (size_t)c->s + 1, c->vw, &host));
    MPCG_TRY(ctx, st, case_check(ctx, a, c, X, host, what, &wrong));
    if (wrong) {
        fprintf(stderr, "spmvbench: %s: %lld wrong entries: no time is reported\n", what,
                (long long)wrong);
        r->status = "wrong";
        goto done;
    }
    MPCG_TRY(ctx, st, bench_time_calls(ctx, &p, call_block, c, &t));
    MPCG_TRY(ctx, st, bench_time_calls(ctx, &p, call_spmvs, c, &ts));
    r->ms = t.ms, r->ms_min = t.ms_min, r->ms_max = t.ms_max;
    r->spmvs_ms = ts.ms;
    r->speedup_vs_spmvs = ts.ms / t.ms;
    r->gflops = 2.0 * (double)a->A->nnz * c->s / (t.ms * 1e-3) * 1e-9;
    r->gbs = r->bytes / (t.ms * 1e-3) * 1e-9;
    r->frac_copy = r->gbs / a->dev->copy_gbs;
    mpcgi_spmv_describe(c->plan, r->storage, sizeof r->storage);
done:
    mpcgi_host_free(host);
    case_free(ctx, c);
    return st;
}

void bench_block_header(int s)
{
    printf("block: Y = A X for X of %d columns, n x %d row-major, uniform in [-1, 1) from the "
           "seed; every entry checked as y is; S SpMVs: the backend's apply on each column (the "
           "columns one after another); bytes: the CSR once (value + 4 per nonzero, 8 per row) "
           "+ X read once + Y written; no rotation\n",
           s, s);
    printf("| matrix | n | nnz | backend | precision | s | ms | GB/s | of copy | S SpMVs ms | "
           "vs S SpMVs | vs cusparseSpMM |\n"
           "|---|--:|--:|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
}

static void print_row(const bench_record *r)
{
    printf("| %s | %lld | %lld | %s | %s | %d |", r->matrix, (long long)r->n, (long long)r->nnz,
           r->backend, r->precision, r->block_s);
    if (strcmp(r->status, "ok") != 0)
        printf(" %s |", strcmp(r->status, "wrong") == 0 ? "WRONG" : "FAILED");
    else
        bench_print_cells(1, "%.4g", r->ms);
    bench_print_cells(5, "%.1f", r->gbs, "%.3f", r->frac_copy, "%.4g", r->spmvs_ms, "%.2f",
                      r->speedup_vs_spmvs, "%.2f", r->speedup_vs_cusparse);
    printf("\n");
    fflush(stdout);
}

/* One record: the case measured, printed and kept; *base_ms: cusparseSpMM's time. */
static mpcg_status measure(const bench_block_args *a, const struct mpcgi_spmv_ops *ops,
                           mpcg_precision prec, const void *X, const void *Xc, double *base_ms,
                           int *failed)
{
    mpcg_context *ctx = a->ctx;
    const int fp32 = prec == MPCG_PRECISION_FP32;
    block_case c = {.prec = prec, .s = a->s, .n = a->A->n,
                    .vw = fp32 ? sizeof(float) : sizeof(double)};
    bench_record r;
    bench_record_init(&r, "spmm", a->matrix, a->A);
    snprintf(r.backend, sizeof r.backend, "%s", ops->name);
    r.precision = fp32 ? "fp32" : "fp64";
    r.block_s = a->s;
    r.seed = a->seed, r.seed_set = 1;
    r.runs = a->per_group;
    r.options = a->opt_all;
    /* the CSR as the block kernels read it, once; X read and Y written once */
    r.bytes_matrix = (double)a->A->nnz * (double)(c.vw + 4) + 8.0 * (double)(a->A->n + 1);
    r.bytes = r.bytes_matrix + 2.0 * (double)a->A->n * a->s * (double)c.vw;
    if (run_case(a, ops, &c, X, Xc, &r) != MPCG_SUCCESS) {
        fprintf(stderr, "spmvbench: %s %s s = %d failed: %s\n", ops->name, r.precision, a->s,
                mpcg_last_error(ctx));
        mpcg_clear_error(ctx);
        r.status = "failed";
    }
    if (strcmp(r.status, "ok") != 0)
        *failed = 1;
    else if (ops == a->ops[0])
        *base_ms = r.ms;
    r.speedup_vs_cusparse = *base_ms / r.ms;
    print_row(&r);
    MPCG_CHECK(ctx, bench_records_add(ctx, a->records, &r));
    return MPCG_SUCCESS;
}

mpcg_status bench_block_run(const bench_block_args *a, mpcg_precision prec, int *failed)
{
    mpcg_context *ctx = a->ctx;
    mpcg_status st = MPCG_SUCCESS;
    const unsigned cap = prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32 : MPCG_CAP_FP64;
    void *X = NULL, *Xc = NULL;
    double base_ms = NAN;
    MPCG_TRY(ctx, st,
             make_x(ctx, a->A->n, a->s, prec == MPCG_PRECISION_FP32, a->seed, &X, &Xc));
    for (int b = 0; b < a->count; b++) {
        const struct mpcgi_spmv_ops *ops = a->ops[b];
        if (!(ops->caps & cap)) continue;
        if (!ops->apply_block) {
            fprintf(stderr, "spmvbench: backend %s has no block product: not measured\n",
                    ops->name);
            continue;
        }
        MPCG_TRY(ctx, st, measure(a, ops, prec, X, Xc, &base_ms, failed));
    }
done:
    mpcgi_host_free(X), mpcgi_host_free(Xc);
    return st;
}
