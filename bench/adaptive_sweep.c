/* bench/adaptive_sweep.c: the adaptive backend's knobs timed on one matrix, beside cuSPARSE */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "core/timer.h"
#include "solver/options.h"
#include "spmv/adaptive/adaptive.h"
#include "spmv/spmv.h"

static const char usage_text[] =
    "usage: adaptive_sweep [options] MATRIX.mtx\n"
    "       adaptive_sweep [options] --generate=SPEC\n"
    "Times the adaptive SpMV backend under several settings of its adaptive.* options\n"
    "(docs/backends/adaptive.md) on one matrix, beside cusparse, in one process: the matrix is\n"
    "built once. Per setting: the path the plan took, the binning's time on the GPU, the tiles'\n"
    "layout's (0 off the tiles path) and the 16-bit columns' (0 where the columns stay 32-bit),\n"
    "each also in fp64 SpMVs, the whole plan's wall time, fp64 and fp32\n"
    "SpMV and fp64 SpMV + dot times, GB/s (the plan's bytes + x + y) and the fraction of the\n"
    "device copy bandwidth, the speedup over cusparse and the largest difference from cusparse's\n"
    "fp64 y relative to max |y| (a sanity check; test/test_spmv_adaptive checks the results).\n"
    "\n"
    "  --generate=SPEC   a generated matrix (poisson3d:N, powerlaw:N:DEG, biased:N,\n"
    "                    replicate:FILE:K, ...)\n"
    "  --configs=LIST    settings separated by ';', each a comma-separated KEY=VALUE list of\n"
    "                    option keys (adaptive.nt=4; a key without a dot is an adaptive.* key,\n"
    "                    case aside: nt=4); an empty setting is the defaults (default: one\n"
    "                    empty setting)\n"
    "                    e.g. --configs='; adaptive.mode=uniform,adaptive.nt=1; mode=split,nt=16'\n"
    "  --runs=N          calls per timed group (default 20; 5 groups, the median is reported)\n"
    "  --device=cuda:N   the GPU (default cuda:0)\n"
    "MPCG_OPTIONS is not read: each setting is the whole set of options of its plans.\n";

typedef struct sweep {
    mpcg_context *ctx;
    mpcgi_csr *A;
    int runs;
    double *x, *y, *dot; /* device fp64 vectors (x random) */
    float *xf, *yf;      /* device fp32 vectors */
    double *y_ref;       /* host: cusparse's fp64 y */
    double copy_gbs;
    mpcgi_options opts; /* the setting in use */
} sweep;

/* The options of one setting ("KEY=VALUE,KEY=VALUE") into s->opts; 0, or -1 with a message. */
static int set_knobs(sweep *s, const char *cfg)
{
    char key[96], buf[256];
    memset(&s->opts, 0, sizeof s->opts);
    snprintf(buf, sizeof buf, "%s", cfg);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            fprintf(stderr, "adaptive_sweep: setting '%s': expected KEY=VALUE, not %s\n", cfg, tok);
            return -1;
        }
        *eq = '\0';
        snprintf(key, sizeof key, "%s%s", strchr(tok, '.') ? "" : "adaptive.", tok);
        for (char *c = key; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (mpcgi_options_set_text(s->ctx, &s->opts, key, eq + 1) != MPCG_SUCCESS) {
            fprintf(stderr, "adaptive_sweep: %s\n", mpcg_last_error(s->ctx));
            mpcg_clear_error(s->ctx);
            return -1;
        }
    }
    return 0;
}

/* Median milliseconds per call over 5 groups of s->runs calls after 10 warm-up calls; kind 0:
 * fp64 SpMV, 1: fp32 SpMV, 2: fp64 SpMV + dot. */
static mpcg_status time_plan(sweep *s, mpcgi_spmv_plan *plan, int kind, double *ms)
{
    mpcg_status st = MPCG_SUCCESS;
    cudaStream_t stream = (cudaStream_t)mpcg_context_stream(s->ctx);
    cudaEvent_t e0 = NULL, e1 = NULL;
    double g[5];
    MPCG_CUDA_GOTO(s->ctx, st, cudaEventCreate(&e0));
    MPCG_CUDA_GOTO(s->ctx, st, cudaEventCreate(&e1));
    for (int grp = -1; grp < 5; grp++) {
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventRecord(e0, stream));
        for (int c = 0; c < (grp < 0 ? 10 : s->runs); c++) {
            if (kind == 2)
                MPCG_TRY(s->ctx, st, mpcgi_spmv_apply_dot(s->ctx, plan, s->x, s->y, s->dot, NULL));
            else if (kind == 1)
                MPCG_TRY(s->ctx, st,
                         mpcgi_spmv_apply(s->ctx, plan, MPCG_PRECISION_FP32, s->xf, s->yf));
            else
                MPCG_TRY(s->ctx, st,
                         mpcgi_spmv_apply(s->ctx, plan, MPCG_PRECISION_FP64, s->x, s->y));
        }
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventRecord(e1, stream));
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventSynchronize(e1));
        float f = 0;
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventElapsedTime(&f, e0, e1));
        if (grp >= 0) g[grp] = f / s->runs;
    }
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && g[j] < g[j - 1]; j--) {
            double t = g[j];
            g[j] = g[j - 1], g[j - 1] = t;
        }
    *ms = g[2];
done:
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    return st;
}

/* Device copy bandwidth: (read + written bytes) / time of a 256 MiB cudaMemcpyAsync, median of
 * 5 after one warm-up. */
static mpcg_status copy_bandwidth(sweep *s)
{
    mpcg_status st = MPCG_SUCCESS;
    size_t bytes = (size_t)256 << 20;
    void *a = NULL, *b = NULL;
    cudaStream_t stream = (cudaStream_t)mpcg_context_stream(s->ctx);
    cudaEvent_t e0 = NULL, e1 = NULL;
    double g[5];
    MPCG_TRY(s->ctx, st, mpcgi_device_alloc(s->ctx, bytes, &a));
    MPCG_TRY(s->ctx, st, mpcgi_device_alloc(s->ctx, bytes, &b));
    MPCG_CUDA_GOTO(s->ctx, st, cudaEventCreate(&e0));
    MPCG_CUDA_GOTO(s->ctx, st, cudaEventCreate(&e1));
    for (int k = -1; k < 5; k++) {
        float f = 0;
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventRecord(e0, stream));
        MPCG_CUDA_GOTO(s->ctx, st, cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream));
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventRecord(e1, stream));
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventSynchronize(e1));
        MPCG_CUDA_GOTO(s->ctx, st, cudaEventElapsedTime(&f, e0, e1));
        if (k >= 0) g[k] = 2.0 * (double)bytes / (f * 1e-3) / 1e9;
    }
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && g[j] < g[j - 1]; j--) {
            double t = g[j];
            g[j] = g[j - 1], g[j - 1] = t;
        }
    s->copy_gbs = g[2];
done:
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    mpcgi_device_free(s->ctx, a);
    mpcgi_device_free(s->ctx, b);
    return st;
}

/* Bytes of one SpMV in fp64 or fp32: the plan's matrix bytes with values of that size, x read
 * once, y written once. */
static double spmv_bytes(const sweep *s, const mpcgi_spmv_plan *plan, int fp32)
{
    double n = (double)s->A->n, nnz = (double)s->A->nnz;
    double extra = (double)plan->sizes.bytes_matrix - (nnz * 12 + (n + 1) * 4); /* row lists */
    return nnz * (fp32 ? 8 : 12) + (n + 1) * 4 + extra + 2 * n * (fp32 ? 4 : 8);
}

/* The largest |y - y_ref| / max |y_ref| of the fp64 y on the device. */
static double max_diff(sweep *s, double *host)
{
    size_t bytes = (size_t)s->A->n * sizeof(double);
    if (mpcgi_device_copy(s->ctx, host, s->y, bytes, MPCGI_D2H) != MPCG_SUCCESS) return NAN;
    double d = 0, m = 0;
    for (int64_t i = 0; i < s->A->n; i++) {
        double e = fabs(host[i] - s->y_ref[i]);
        d = e > d || isnan(e) ? e : d;
        m = fabs(s->y_ref[i]) > m ? fabs(s->y_ref[i]) : m;
    }
    return m > 0 ? d / m : d;
}

/* cusparse's times and fp64 y (the reference). */
static mpcg_status run_cusparse(sweep *s, double *ms64, double *ms32)
{
    mpcgi_spmv_plan *plan = NULL;
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    MPCG_CHECK(s->ctx, mpcgi_spmv_plan_create(s->ctx, &mpcgi_spmv_cusparse, s->A, both, NULL, &plan));
    mpcg_status st = time_plan(s, plan, 0, ms64);
    if (st == MPCG_SUCCESS) st = time_plan(s, plan, 1, ms32);
    if (st == MPCG_SUCCESS)
        st = mpcgi_device_copy(s->ctx, s->y_ref, s->y, (size_t)s->A->n * sizeof(double), MPCGI_D2H);
    mpcgi_spmv_plan_destroy(s->ctx, plan);
    return st;
}

/* One setting: plan, times, one table row. */
static mpcg_status run_config(sweep *s, const char *cfg, double cs64, double cs32, double *host)
{
    mpcgi_spmv_plan *plan = NULL;
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    double t0 = mpcgi_wtime();
    MPCG_CHECK(s->ctx, mpcgi_spmv_plan_create(s->ctx, &mpcgi_spmv_adaptive, s->A, both, &s->opts, &plan));
    double plan_ms = (mpcgi_wtime() - t0) * 1e3, ms64 = NAN, ms32 = NAN, msdot = NAN;
    mpcg_status st = time_plan(s, plan, 0, &ms64);
    double diff = st == MPCG_SUCCESS ? max_diff(s, host) : NAN;
    if (st == MPCG_SUCCESS) st = time_plan(s, plan, 1, &ms32);
    if (st == MPCG_SUCCESS) st = time_plan(s, plan, 2, &msdot);
    mpcgi_adaptive_info in;
    mpcgi_spmv_adaptive_info(plan->impl, &in);
    double gbs = spmv_bytes(s, plan, 0) / (ms64 * 1e-3) / 1e9;
    printf("| %s | %s | %d/%d | %d | %d | %lld/%lld | %.3f | %.1f | %.3f | %.1f | %.3f | %.0f | "
           "%.4f | %.1f | "
           "%.3f | "
           "%.2f | %.4f | %.2f | %.4f | %.1e |\n",
           *cfg ? cfg : "(defaults)", mpcgi_adaptive_path_name(in.path), in.nt, in.nt_fp32, in.rows_per_group,
           in.block, (long long)in.bin_rows[MPCGI_ADAPTIVE_LONG], (long long)in.long_blocks,
           in.setup_ms, in.setup_ms / ms64, in.tiles_ms, in.tiles_ms / ms64, in.columns_ms,
           plan_ms, ms64, gbs, gbs / s->copy_gbs,
           cs64 / ms64,
           ms32, cs32 / ms32, msdot, diff);
    fflush(stdout);
    mpcgi_spmv_plan_destroy(s->ctx, plan);
    return st;
}

/* The matrix, the vectors, cusparse, then every setting. */
static int run(sweep *s, const char *configs)
{
    mpcg_context *ctx = s->ctx;
    int64_t n = s->A->n;
    size_t b64 = (size_t)n * 8, b32 = (size_t)n * 4;
    double *hx = NULL, *host = NULL, cs64 = NAN, cs32 = NAN;
    float *hxf = NULL;
    int rc = 1;
    if (mpcgi_host_alloc(ctx, b64, &hx) || mpcgi_host_alloc(ctx, b32, &hxf) ||
        mpcgi_host_alloc(ctx, b64, &host) || mpcgi_host_alloc(ctx, b64, &s->y_ref) ||
        mpcgi_device_alloc(ctx, b64, &s->x) || mpcgi_device_alloc(ctx, b64, &s->y) ||
        mpcgi_device_alloc(ctx, 8, &s->dot) || mpcgi_device_alloc(ctx, b32, &s->xf) ||
        mpcgi_device_alloc(ctx, b32, &s->yf))
        goto done;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, 12345);
    for (int64_t i = 0; i < n; i++)
        hx[i] = 2 * mpcgi_rng_uniform(&g) - 1, hxf[i] = (float)hx[i];
    if (mpcgi_device_copy(ctx, s->x, hx, b64, MPCGI_H2D) ||
        mpcgi_device_copy(ctx, s->xf, hxf, b32, MPCGI_H2D) || copy_bandwidth(s) ||
        run_cusparse(s, &cs64, &cs32))
        goto done;
    printf("copy bandwidth %.1f GB/s; cusparse fp64 %.4f ms (%.1f GB/s, %.3f of copy), fp32 "
           "%.4f ms\n\n",
           s->copy_gbs, cs64, (s->A->nnz * 12.0 + (n + 1) * 4.0 + 16.0 * n) / (cs64 * 1e6),
           (s->A->nnz * 12.0 + (n + 1) * 4.0 + 16.0 * n) / (cs64 * 1e6) / s->copy_gbs, cs32);
    printf("| setting | path | NT fp64/fp32 | R | block | long rows/chunks | binning ms | "
           "binning SpMVs | tiles ms | tiles SpMVs | 16-bit cols ms | plan ms | fp64 ms | "
           "fp64 GB/s | of copy | "
           "vs cusparse | fp32 ms | "
           "vs cusparse | dot ms | diff |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    char *list = strdup(configs);
    rc = list == NULL;
    for (char *cfg = list, *next; cfg && !rc; cfg = next) {
        next = strchr(cfg, ';');
        if (next) *next++ = '\0';
        while (*cfg == ' ')
            cfg++;
        if (set_knobs(s, cfg) != 0 || run_config(s, cfg, cs64, cs32, host) != MPCG_SUCCESS) rc = 1;
    }
    free(list);
done:
    if (rc) fprintf(stderr, "adaptive_sweep: %s\n", mpcg_last_error(ctx));
    mpcgi_host_free(hx), mpcgi_host_free(hxf), mpcgi_host_free(host), mpcgi_host_free(s->y_ref);
    mpcgi_device_free(ctx, s->x), mpcgi_device_free(ctx, s->y), mpcgi_device_free(ctx, s->dot);
    mpcgi_device_free(ctx, s->xf), mpcgi_device_free(ctx, s->yf);
    return rc;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *spec = NULL, *configs = "", *device = "cuda:0";
    sweep s = {.runs = 20};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strncmp(a, "--generate=", 11) == 0)
            spec = a + 11;
        else if (strncmp(a, "--configs=", 10) == 0)
            configs = a + 10;
        else if (strncmp(a, "--device=", 9) == 0)
            device = a + 9;
        else if (strncmp(a, "--runs=", 7) == 0 && atoi(a + 7) >= 1)
            s.runs = atoi(a + 7);
        else if (a[0] != '-' && !file)
            file = a;
        else {
            fprintf(stderr, "adaptive_sweep: unknown argument %s\nTry 'adaptive_sweep --help'.\n",
                    a);
            return 2;
        }
    }
    if (!file == !spec) {
        fprintf(stderr, "adaptive_sweep: give one matrix: a file or --generate=SPEC\n");
        return 2;
    }
    if (mpcgi_device_count() == 0) {
        fprintf(stderr, "adaptive_sweep: no usable CUDA GPU\n");
        return 77;
    }
    mpcg_matrix *M = NULL;
    if (mpcg_context_create(device, &s.ctx) != MPCG_SUCCESS) {
        fprintf(stderr, "adaptive_sweep: %s\n", mpcg_last_error(NULL));
        return 1;
    }
    double t0 = mpcgi_wtime();
    mpcg_status st =
        file ? mpcg_matrix_read_mm(s.ctx, file, &M) : mpcg_matrix_generate(s.ctx, spec, &M);
    int rc = 1;
    if (st == MPCG_SUCCESS) {
        s.A = &M->csr;
        printf("adaptive_sweep: %s on %s: n %lld, nnz %lld (%.1f s to build)\n", file ? file : spec,
               mpcg_context_device_name(s.ctx), (long long)s.A->n, (long long)s.A->nnz,
               mpcgi_wtime() - t0);
        rc = run(&s, configs);
    } else {
        fprintf(stderr, "adaptive_sweep: %s\n", mpcg_last_error(s.ctx));
    }
    mpcg_matrix_destroy(M);
    mpcg_context_destroy(s.ctx);
    return rc;
}
