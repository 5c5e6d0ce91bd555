/* bench/tsbench.c: the tall-skinny products of block CG on the GPU, C = X^T Y (both reduction
 * modes) and Y += X B, beside cublasDgemm / cublasSgemm on the same device data
 * (docs/block.md, "Tall-skinny GEMM"; docs/benchmarks.md) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/common.h"
#include "core/alloc.h"
#include "core/block_cuda.h"
#include "core/block_kernels.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/rng.h"

#define MAX_COPIES 8    /* input copies cycled so that they are not L2-resident */
#define L2_MULTIPLE 3   /* copies cover at least this many L2 sizes */
#define CHECK_ROWS 100000 /* rows of Y compared with cuBLAS after Y += X B */

static const char usage[] =
    "usage: tsbench [options]\n"
    "Times C = X^T Y (mpcg's split-k kernel, deterministic and atomic sums) and Y += X B\n"
    "beside cublasDgemm / cublasSgemm, blocks n x s row-major, t = s.\n"
    "  --n=LIST          rows (k of the GEMM), comma-separated (default 1000000,10000000)\n"
    "  --s=LIST          block widths s = t, 1 .. 64 (default 1,2,4,8,16,32,64)\n"
    "  --precision=LIST  fp64 and/or fp32 (default fp64,fp32)\n"
    "  --runs=N          calls per timed group (default 50)\n"
    "  --device=cuda[:N] the GPU (default cuda)\n"
    "  --json=FILE       append the records to FILE (a JSON list)\n"
    "  -h, --help        this text\n"
    "Exit status: 0 ok, 1 a measurement failed or a result was wrong, 2 usage, 77 no GPU.\n";

typedef struct ts_run {
    mpcg_context *ctx;
    bench_device dev;
    bench_records records;
    int64_t ns[8];
    int nn, ss[8], nsw, nprec, failed;
    mpcg_precision precs[2];
    long runs;
} ts_run;

/* One (precision, n, s): K copies of X and Y, C, B, the workspace. */
typedef struct ts_case {
    ts_run *run;
    mpcg_precision prec;
    size_t elem;
    int64_t n;
    int s, K, impl; /* impl: 0 deterministic, 1 atomic, 2 cuBLAS */
    void *X[MAX_COPIES], *Y[MAX_COPIES], *ws, *Bd;
    double *C, B[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
} ts_case;

/* ---------------------------------------------------------------- the calls */

static mpcg_status blas_xty(ts_case *c, int k, double *C)
{
    /* row-major X (n x s) is column-major X^T (s x n, ld s); C^T (t x s, ld t) = Y^T X */
    cublasHandle_t h = mpcgi_gpu_of(c->run->ctx)->cublas;
    const int n = (int)c->n, s = c->s;
    if (c->prec == MPCG_PRECISION_FP64) {
        const double one = 1, zero = 0;
        MPCG_CUBLAS(c->run->ctx, cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, s, s, n, &one, c->Y[k],
                                             s, c->X[k], s, &zero, C, s));
    } else {
        const float one = 1, zero = 0;
        MPCG_CUBLAS(c->run->ctx, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, s, s, n, &one, c->Y[k],
                                             s, c->X[k], s, &zero, (float *)C, s));
    }
    return MPCG_SUCCESS;
}

static mpcg_status blas_xb(ts_case *c, int k)
{
    /* Y^T (t x n, ld t) = B^T (t x s: B row-major, ld t) X^T + Y^T */
    cublasHandle_t h = mpcgi_gpu_of(c->run->ctx)->cublas;
    const int n = (int)c->n, s = c->s;
    if (c->prec == MPCG_PRECISION_FP64) {
        const double one = 1;
        MPCG_CUBLAS(c->run->ctx, cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s, n, s, &one, c->Bd,
                                             s, c->X[k], s, &one, c->Y[k], s));
    } else {
        const float one = 1;
        MPCG_CUBLAS(c->run->ctx, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s, n, s, &one, c->Bd,
                                             s, c->X[k], s, &one, c->Y[k], s));
    }
    return MPCG_SUCCESS;
}

static mpcg_status call_xty(mpcg_context *ctx, void *arg, int64_t i)
{
    ts_case *c = arg;
    const int k = (int)(i % c->K);
    if (c->impl == 2) return blas_xty(c, k, c->C);
    return mpcgi_block_cuda_xty_dev(ctx, c->prec, (mpcgi_tsgemm_mode)c->impl, c->ws, c->n, c->s,
                                    c->s, c->X[k], c->Y[k], c->C);
}

static mpcg_status call_xb(mpcg_context *ctx, void *arg, int64_t i)
{
    ts_case *c = arg;
    const int k = (int)(i % c->K);
    if (c->impl == 2) return blas_xb(c, k);
    return mpcgi_block_ops_for(MPCG_DEVICE_CUDA, c->prec)->xb(ctx, c->n, c->s, c->s, c->X[k],
                                                              c->B, 1.0, c->Y[k]);
}

/* ---------------------------------------------------------------- checks */

/* C of the three ways within 64 eps n of each other (values uniform in [-1, 1): a C entry is
 * about sqrt(n) / 3, wrong operands miss by that much, rounding by far less). */
static mpcg_status check_xty(ts_case *c, int *ok)
{
    mpcg_context *ctx = c->run->ctx;
    const int st = c->s * c->s;
    double got[3][MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    float f[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    for (int impl = 0; impl < 3; impl++) {
        c->impl = impl;
        MPCG_CHECK(ctx, call_xty(ctx, c, 0));
        if (impl == 2 && c->prec == MPCG_PRECISION_FP32) {
            MPCG_CHECK(ctx, mpcgi_device_copy(ctx, f, c->C, (size_t)st * 4, MPCGI_D2H));
            for (int k = 0; k < st; k++) got[2][k] = f[k];
        } else {
            MPCG_CHECK(ctx, mpcgi_device_copy(ctx, got[impl], c->C, (size_t)st * 8, MPCGI_D2H));
        }
    }
    const double eps = c->prec == MPCG_PRECISION_FP64 ? DBL_EPSILON : FLT_EPSILON;
    *ok = 1;
    for (int k = 0; k < st; k++)
        for (int impl = 1; impl < 3; impl++)
            if (!(fabs(got[impl][k] - got[0][k]) <= 64 * eps * (double)c->n)) *ok = 0;
    return MPCG_SUCCESS;
}

/* Y += X B by mpcg on copy 0 and by cuBLAS on copy 1 (the same Y before), the first rows within
 * 4 eps (s + 1)^2. */
static mpcg_status check_xb(ts_case *c, int *ok)
{
    mpcg_context *ctx = c->run->ctx;
    const int64_t rows = c->n < CHECK_ROWS ? c->n : CHECK_ROWS;
    const size_t bytes = (size_t)rows * c->s * c->elem;
    void *a = NULL, *b = NULL;
    mpcg_status st = MPCG_SUCCESS;
    *ok = 0;
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, bytes + 8, &a));
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, bytes + 8, &b));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, c->Y[1], c->Y[0], (size_t)c->n * c->s * c->elem,
                                        MPCGI_D2D));
    c->impl = 0;
    MPCG_TRY(ctx, st, call_xb(ctx, c, 0));
    c->impl = 2;
    MPCG_TRY(ctx, st, call_xb(ctx, c, 1));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, a, c->Y[0], bytes, MPCGI_D2H));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, b, c->Y[1], bytes, MPCGI_D2H));
    const int fp64 = c->prec == MPCG_PRECISION_FP64;
    const double tol = 4 * (fp64 ? DBL_EPSILON : FLT_EPSILON) * (c->s + 1) * (c->s + 1);
    *ok = 1;
    for (int64_t k = 0; k < rows * c->s; k++) {
        const double u = fp64 ? ((double *)a)[k] : ((float *)a)[k];
        const double v = fp64 ? ((double *)b)[k] : ((float *)b)[k];
        if (!(fabs(u - v) <= tol)) *ok = 0;
    }
done:
    mpcgi_host_free(a), mpcgi_host_free(b);
    return st;
}

/* ---------------------------------------------------------------- one case */

static void case_free(ts_case *c)
{
    mpcg_context *ctx = c->run->ctx;
    for (int k = 0; k < MAX_COPIES; k++)
        mpcgi_device_free(ctx, c->X[k]), mpcgi_device_free(ctx, c->Y[k]);
    mpcgi_device_free(ctx, c->ws), mpcgi_device_free(ctx, c->Bd), mpcgi_device_free(ctx, c->C);
}

/* Random values in [-1, 1) of the case's type into the K copies of dst (the same values in
 * each: the copies only keep the data out of L2), through the host. */
static mpcg_status fill_device(ts_case *c, void **dst, int64_t count, mpcgi_rng *g, void *host)
{
    for (int64_t i = 0; i < count; i++) {
        const double v = 2 * mpcgi_rng_uniform(g) - 1;
        if (c->elem == 8) ((double *)host)[i] = v;
        else ((float *)host)[i] = (float)v;
    }
    for (int k = 0; k < c->K; k++)
        MPCG_CHECK(c->run->ctx, mpcgi_device_copy(c->run->ctx, dst[k], host,
                                                  (size_t)count * c->elem, MPCGI_H2D));
    return MPCG_SUCCESS;
}

/* Allocate and fill: K copies, K such that they cover L2_MULTIPLE L2 sizes (at least 2, for
 * check_xb). */
static mpcg_status case_open(ts_case *c, mpcgi_rng *g)
{
    mpcg_context *ctx = c->run->ctx;
    const size_t vals = (size_t)c->n * c->s, bytes = vals * c->elem;
    const double want = L2_MULTIPLE * (double)c->run->dev.l2_bytes / (2.0 * (double)bytes);
    c->K = want > MAX_COPIES ? MAX_COPIES : want < 2 ? 2 : (int)ceil(want);
    void *host = NULL;
    mpcg_status st = MPCG_SUCCESS;
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, bytes + 8, &host));
    for (int k = 0; k < c->K; k++) {
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes + 8, &c->X[k]));
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes + 8, &c->Y[k]));
    }
    MPCG_TRY(ctx, st, fill_device(c, c->X, (int64_t)vals, g, host));
    MPCG_TRY(ctx, st, fill_device(c, c->Y, (int64_t)vals, g, host));
    const int st2 = c->s * c->s;
    for (int k = 0; k < st2; k++) c->B[k] = (2 * mpcgi_rng_uniform(g) - 1) / c->s;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, (size_t)st2 * sizeof(double), &c->Bd));
    for (int k = 0; k < st2; k++) /* B for cuBLAS, in the blocks' type */
        if (c->elem == 8) ((double *)host)[k] = c->B[k];
        else ((float *)host)[k] = (float)c->B[k];
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, c->Bd, host, (size_t)st2 * c->elem, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, (size_t)st2 * sizeof(double), &c->C));
    MPCG_TRY(ctx, st,
             mpcgi_device_alloc(ctx, mpcgi_tsgemm_workspace(c->n, c->s, c->s), &c->ws));
done:
    mpcgi_host_free(host);
    return st;
}

static const char *impl_name(int impl)
{
    return impl == 0 ? "deterministic" : impl == 1 ? "atomic" : "cublas";
}

/* Time op (0: X^T Y, 1: Y += X B) for the three / two ways; print and record them. */
static mpcg_status time_op(ts_case *c, int op, int ok)
{
    ts_run *run = c->run;
    const bench_protocol p = {100, 3, (int)run->runs, 10};
    const double bytes = (double)c->n * c->elem * (op == 0 ? 2.0 * c->s : 3.0 * c->s);
    bench_timing t[3];
    bench_record r[3];
    const int impls[3] = {0, 1, 2}, count = op == 0 ? 3 : 2;
    for (int q = 0; q < count; q++) {
        c->impl = op == 0 ? impls[q] : q == 0 ? 0 : 2;
        MPCG_CHECK(run->ctx, bench_time_calls(run->ctx, &p, op == 0 ? call_xty : call_xb, c,
                                              &t[q]));
    }
    for (int q = 0; q < count; q++) {
        const int impl = op == 0 ? impls[q] : q == 0 ? 0 : 2;
        mpcgi_csr shape = {0};
        char name[64];
        shape.n = c->n, shape.nnz = -1;
        snprintf(name, sizeof name, "dense %d x %d", c->s, c->s);
        bench_record_init(&r[q], op == 0 ? "tsgemm_xty" : "tsgemm_xb", name, &shape);
        r[q].status = ok ? "ok" : "wrong";
        snprintf(r[q].backend, sizeof r[q].backend, "%s",
                 impl == 2 ? "cublas" : op == 0 ? impl_name(impl) : "mpcg");
        r[q].precision = mpcg_precision_name(c->prec);
        r[q].ms = t[q].ms, r[q].ms_min = t[q].ms_min, r[q].ms_max = t[q].ms_max;
        r[q].bytes = bytes;
        r[q].gbs = bytes / (t[q].ms * 1e6);
        r[q].frac_copy = r[q].gbs / run->dev.copy_gbs;
        r[q].gflops = 2.0 * c->n * c->s * c->s / (t[q].ms * 1e6);
        r[q].speedup_vs_cublas = t[count - 1].ms / t[q].ms;
        r[q].rotation = c->K, r[q].runs = run->runs;
        printf("| %s | %s | %" PRId64 " | %d |", op == 0 ? "X^T Y" : "Y += X B",
               r[q].precision, c->n, c->s);
        printf(" %s | %s |", r[q].backend, r[q].status);
        bench_print_cells(5, "%.4g", r[q].ms, "%.0f", r[q].gbs, "%.2f", r[q].frac_copy, "%.1f",
                          r[q].gflops, "%.2f", r[q].speedup_vs_cublas);
        printf("\n");
        MPCG_CHECK(run->ctx, bench_records_add(run->ctx, &run->records, &r[q]));
    }
    return MPCG_SUCCESS;
}

static mpcg_status run_case(ts_run *run, mpcg_precision prec, int64_t n, int s, mpcgi_rng *g)
{
    ts_case *c = calloc(1, sizeof *c);
    mpcg_status st = MPCG_SUCCESS;
    int ok_xty = 0, ok_xb = 0;
    if (!c) return MPCG_ERR_HOST_ALLOC;
    c->run = run, c->prec = prec, c->n = n, c->s = s;
    c->elem = prec == MPCG_PRECISION_FP64 ? sizeof(double) : sizeof(float);
    MPCG_TRY(run->ctx, st, case_open(c, g));
    MPCG_TRY(run->ctx, st, check_xty(c, &ok_xty));
    MPCG_TRY(run->ctx, st, check_xb(c, &ok_xb));
    if (!ok_xty || !ok_xb) run->failed = 1;
    MPCG_TRY(run->ctx, st, time_op(c, 0, ok_xty));
    MPCG_TRY(run->ctx, st, time_op(c, 1, ok_xb));
done:
    case_free(c);
    free(c);
    return st;
}

/* ---------------------------------------------------------------- arguments */

/* A comma-separated list of integers in [lo, hi] into v (at most 8); count or -1. */
static int parse_list(const char *opt, const char *s, long lo, long hi, int64_t *v)
{
    int count = 0;
    char item[32];
    for (const char *p = s; *p && count < 8;) {
        const size_t len = strcspn(p, ",");
        long x;
        snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), p);
        if (bench_parse_long("tsbench", opt, item, lo, hi, &x) != 0) return -1;
        v[count++] = x;
        p += len + (p[len] == ',');
    }
    if (count == 0) bench_usage_error("tsbench", "empty list for ", opt);
    return count > 0 ? count : -1;
}

static int parse_precisions(const char *s, ts_run *run)
{
    run->nprec = 0;
    if (strstr(s, "fp64")) run->precs[run->nprec++] = MPCG_PRECISION_FP64;
    if (strstr(s, "fp32")) run->precs[run->nprec++] = MPCG_PRECISION_FP32;
    if (run->nprec == 0)
        bench_usage_error("tsbench", "--precision: expected fp64 and/or fp32: ", s);
    return run->nprec > 0 ? 0 : -1;
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, ts_run *run, bench_opts *o)
{
    const char *v;
    int64_t tmp[8];
    for (int i = 1; i < argc; i++) {
        int r;
        if (bench_help(o, argv[i])) return BENCH_EXIT_OK;
        if ((r = bench_option("tsbench", argc, argv, &i, "--n", &v)) != 0) {
            if (r < 0 || (run->nn = parse_list("--n", v, 1, 2000000000L, run->ns)) < 0)
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_option("tsbench", argc, argv, &i, "--s", &v)) != 0) {
            if (r < 0 || (run->nsw = parse_list("--s", v, 1, MPCGI_BLOCK_MAX, tmp)) < 0)
                return BENCH_EXIT_USAGE;
            for (int k = 0; k < run->nsw; k++) run->ss[k] = (int)tmp[k];
        } else if ((r = bench_option("tsbench", argc, argv, &i, "--precision", &v)) != 0) {
            if (r < 0 || parse_precisions(v, run) != 0) return BENCH_EXIT_USAGE;
        } else if ((r = bench_option("tsbench", argc, argv, &i, "--runs", &v)) != 0) {
            if (r < 0 || bench_parse_long("tsbench", "--runs", v, 1, 100000, &run->runs) != 0)
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_option("tsbench", argc, argv, &i, "--device", &v)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
            o->device = v;
        } else if ((r = bench_option("tsbench", argc, argv, &i, "--json", &v)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
            o->json = v;
        } else {
            return bench_usage_error("tsbench", "unknown argument: ", argv[i]);
        }
    }
    return -1;
}

static void print_protocol(const ts_run *run)
{
    printf("inputs: X, Y n x s row-major, t = s, uniform in [-1, 1); B uniform in [-1/s, 1/s)\n");
    printf("check: C of both modes and of cuBLAS within 64 eps n of each other; Y += X B of mpcg "
           "and cuBLAS on the first %d rows within 4 eps (s + 1)^2; a wrong result is marked\n",
           CHECK_ROWS);
    printf("timing: 100 warm-up calls, then 3 groups of %ld calls timed with CUDA events, each "
           "after 10 untimed calls; ms = median group / %ld; copies of X and Y cycled to cover "
           "%d x L2\n", run->runs, run->runs, L2_MULTIPLE);
    printf("bytes: X^T Y reads X and Y, n (s + t) values; Y += X B reads X, reads and writes Y, "
           "n (s + 2 t) values; of copy = GB/s / copy bandwidth; vs cuBLAS = cuBLAS ms / ms\n");
    printf("\n| op | precision | n | s = t | impl | check | ms | GB/s | of copy | GFLOP/s | "
           "vs cuBLAS |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
}

int main(int argc, char **argv)
{
    ts_run run = {.nn = 2, .ns = {1000000, 10000000}, .nsw = 7, .ss = {1, 2, 4, 8, 16, 32, 64},
                  .nprec = 2, .precs = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32}, .runs = 50};
    bench_opts o = {.prog = "tsbench", .usage = usage, .device = "cuda"};
    const int rc = parse_args(argc, argv, &run, &o);
    if (rc >= 0) return rc;
    if (bench_require_gpu("tsbench")) return BENCH_EXIT_NO_GPU;
    if (bench_open(&o, &run.ctx, &run.dev) != MPCG_SUCCESS) return BENCH_EXIT_FAILED;
    int status = BENCH_EXIT_FAILED;
    if (bench_copy_bandwidth(run.ctx, &run.dev) != MPCG_SUCCESS) goto fail;
    bench_print_device("tsbench", run.ctx, &run.dev);
    print_protocol(&run);
    mpcgi_rng g;
    mpcgi_rng_seed(&g, 23);
    for (int p = 0; p < run.nprec; p++)
        for (int i = 0; i < run.nn; i++)
            for (int k = 0; k < run.nsw; k++)
                if (run_case(&run, run.precs[p], run.ns[i], run.ss[k], &g) != MPCG_SUCCESS)
                    goto fail;
    status = run.failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
    if (o.json && bench_json_write("tsbench", o.json, &run.records, &run.dev) != 0)
        status = BENCH_EXIT_FAILED;
    goto out;
fail:
    fprintf(stderr, "tsbench: %s\n", mpcg_last_error(run.ctx));
out:
    bench_records_free(&run.records);
    mpcg_context_destroy(run.ctx);
    return status;
}
