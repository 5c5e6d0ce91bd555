/* bench/spmvbench.c: SpMV time of each GPU backend beside cuSPARSE and the copy bandwidth */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/common.h"
#include "bench/spmvbench_auto.h"
#include "bench/spmvbench_block.h"
#include "bench/spmvbench_ref.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/rng.h"
#include "core/timer.h"
#include "solver/options.h"

/* Rotation: copies are cycled while matrix + x + y of one copy fit in L2_MULTIPLE x L2. */
#define L2_MULTIPLE 4
#define MAX_ROTATION 1024

static const char usage_text[] =
    "usage: spmvbench [options] MATRIX.mtx\n"
    "       spmvbench [options] --generate=SPEC\n"
    "       spmvbench --info [--device=cuda:N]\n"
    "Time y = A x of each GPU SpMV backend beside cuSPARSE, after measuring the device copy\n"
    "bandwidth. Every result is checked against a CPU reference first; a wrong one is reported\n"
    "as WRONG without a time. Protocol and output: docs/benchmarks.md.\n"
    "\n"
    "  --generate=SPEC     a generated matrix (poisson3d:N, poisson3d27:N, replicate:FILE:K,\n"
    "                      powerlaw:N:DEG, biased:N, ...: see cgsolve --help)\n"
    "  --spmv=LIST         comma-separated backends and auto (default: every GPU backend and\n"
    "                      auto: its trial, then the backend it keeps timed as a row named\n"
    "                      auto); cusparse is always measured as the baseline\n"
    "  --precision=LIST    fp64,fp32 (default: both, where the backend supports them)\n"
    "  --runs=N            calls per timed group (default 50)\n"
    "  --seed=N            seed of x (default: a fresh one, printed)\n"
    "  --block=S           instead, Y = A X for S vectors (1 - 64) of each backend that has\n"
    "                      it, beside cusparseSpMM and beside S of its own SpMVs\n"
    "  -O KEY=VALUE        an option of every plan (a backend's keys: cgsolve --help-options),\n"
    "                      repeatable, applied in order; recorded with each row\n"
    "  --json FILE         write the records as a JSON list, appending to a list already there\n"
    "  --device=cuda:N     the GPU (default cuda, GPU 0)\n"
    "  --info              print the device, CUDA versions and copy bandwidth, and exit\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 all measured and correct, 1 a measurement failed or a result was wrong,\n"
    "2 bad usage, 77 no usable CUDA GPU.\n";

typedef struct spmv_opts {
    bench_opts c;
    const char *precisions;
    const char *seed;
    int info_only;
    long block; /* --block=S; 0: the single SpMV */
} spmv_opts;

/* One backend x precision: K plans (each its own device copy of A) with their x and y. */
typedef struct spmv_case {
    mpcg_context *ctx;
    mpcgi_csr *A;
    const struct mpcgi_spmv_ops *ops;
    mpcg_precision prec;
    const mpcgi_options *opts; /* -O */
    const bench_auto *auto_row; /* the auto row: its trial (ops is the kept backend); NULL */
    int phase;                 /* the step time_phases is timing */
    size_t vw; /* bytes per vector entry */
    int64_t k;
    mpcgi_spmv_plan *plan[MAX_ROTATION];
    void *x[MAX_ROTATION], *y[MAX_ROTATION];
} spmv_case;

/* ---------------------------------------------------------------- one backend x precision */

static void case_free(spmv_case *c)
{
    for (int64_t j = 0; j < c->k; j++) {
        mpcgi_spmv_plan_destroy(c->ctx, c->plan[j]);
        mpcgi_device_free(c->ctx, c->x[j]);
        mpcgi_device_free(c->ctx, c->y[j]);
    }
    c->k = 0;
}

/* One more copy: a plan of its own (analyze + upload; its wall time in *setup_ms, up to the end
 * of the upload, and of it the host-to-device copies in *h2d_ms) and its x and y. */
static mpcg_status case_add_copy(spmv_case *c, const reference *R, double *setup_ms,
                                 double *h2d_ms)
{
    mpcg_context *ctx = c->ctx;
    size_t bytes = (size_t)c->A->n * c->vw;
    unsigned cap = c->prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32 : MPCG_CAP_FP64;
    int64_t j = c->k++;
    c->plan[j] = NULL;
    c->x[j] = c->y[j] = NULL;
    double t0 = mpcgi_wtime(), h0 = mpcgi_device_h2d_seconds(ctx);
    MPCG_CHECK(ctx, mpcgi_spmv_plan_create(ctx, c->ops, c->A, cap, c->opts, &c->plan[j]));
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    *setup_ms = (mpcgi_wtime() - t0) * 1e3;
    *h2d_ms = (mpcgi_device_h2d_seconds(ctx) - h0) * 1e3;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes, &c->x[j]));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes, &c->y[j]));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, c->x[j], R->x, bytes, MPCGI_H2D));
    return MPCG_SUCCESS;
}

/* The first copy (its setup time is reported), then as many more as the rotation needs. */
static mpcg_status case_build(spmv_case *c, const reference *R, const bench_device *dev,
                              bench_record *r)
{
    mpcg_context *ctx = c->ctx;
    double unused, unused_h2d;
    MPCG_CHECK(ctx, case_add_copy(c, R, &r->setup_ms, &r->setup_h2d_ms));
    r->bytes_matrix = (double)c->plan[0]->sizes.bytes_matrix;
    mpcgi_spmv_describe(c->plan[0], r->storage, sizeof r->storage);
    r->bytes = r->bytes_matrix + 2.0 * (double)c->A->n * (double)c->vw;
    double l2x = (double)L2_MULTIPLE * (double)dev->l2_bytes;
    int64_t k = r->bytes <= l2x ? (int64_t)ceil(l2x / r->bytes) : 1;
    if (k > MAX_ROTATION) k = MAX_ROTATION;
    while (c->k < k)
        MPCG_CHECK(ctx, case_add_copy(c, R, &unused, &unused_h2d));
    r->rotation = k;
    return MPCG_SUCCESS;
}

/* Each copy: y poisoned with NaN, one SpMV, checked; the first one timed (first_apply_ms). */
static mpcg_status case_check(spmv_case *c, const reference *R, void *y_host, int64_t *wrong,
                              bench_record *r)
{
    mpcg_context *ctx = c->ctx;
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(ctx);
    size_t bytes = (size_t)c->A->n * c->vw;
    char what[96];
    snprintf(what, sizeof what, "%s %s", c->ops->name, r->precision);
    *wrong = 0;
    for (int64_t j = 0; j < c->k && *wrong == 0; j++) {
        MPCG_CUDA(ctx, cudaMemsetAsync(c->y[j], 0xff, bytes, s)); /* all ones: NaN */
        double t0 = mpcgi_wtime();
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, c->plan[j], c->prec, c->x[j], c->y[j]));
        MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
        if (j == 0) r->first_apply_ms = (mpcgi_wtime() - t0) * 1e3;
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, y_host, c->y[j], bytes, MPCGI_D2H));
        *wrong = spmv_reference_compare(what, R, y_host, c->A->n);
    }
    return MPCG_SUCCESS;
}

/* Call i of the protocol: the SpMV of copy i mod K. */
static mpcg_status call_apply(mpcg_context *ctx, void *arg, int64_t i)
{
    spmv_case *c = arg;
    int64_t j = i % c->k;
    return mpcgi_spmv_apply(ctx, c->plan[j], c->prec, c->x[j], c->y[j]);
}

/* Call i of the protocol for one step of the apply (c->phase): copy i mod K. */
static mpcg_status call_phase(mpcg_context *ctx, void *arg, int64_t i)
{
    spmv_case *c = arg;
    int64_t j = i % c->k;
    return mpcgi_spmv_apply_phase(ctx, c->plan[j], c->prec, c->x[j], c->y[j], c->phase);
}

/* Each step of a backend's apply alone (the phases slot), same protocol; a step reads what the
 * steps before it left, so every copy first runs the whole apply once. A plan whose apply has
 * no separate steps (gather out-of-core) says so at its first step: no steps then. */
static mpcg_status time_phases(spmv_case *c, const bench_protocol *p, bench_record *r)
{
    mpcg_context *ctx = c->ctx;
    bench_timing t;
    for (int64_t j = 0; j < c->k; j++)
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, c->plan[j], c->prec, c->x[j], c->y[j]));
    if (mpcgi_spmv_apply_phase(ctx, c->plan[0], c->prec, c->x[0], c->y[0], 0) ==
        MPCG_ERR_NOT_SUPPORTED) {
        mpcg_clear_error(ctx);
        return MPCG_SUCCESS;
    }
    r->nphases = c->ops->phases < 4 ? c->ops->phases : 4;
    for (int k = 0; k < r->nphases; k++) {
        c->phase = k;
        MPCG_CHECK(ctx, bench_time_calls(ctx, p, call_phase, c, &t));
        r->phase_name[k] = c->ops->phase_names[k];
        r->phase_ms[k] = t.ms;
    }
    return MPCG_SUCCESS;
}

/* Build, check and time one backend x precision into r (status "wrong" without a time). */
static mpcg_status run_case(spmv_case *c, const reference *R, const bench_device *dev,
                            int per_group, bench_record *r)
{
    mpcg_context *ctx = c->ctx;
    mpcg_status st = MPCG_SUCCESS;
    void *y_host = NULL;
    int64_t wrong = 0;
    bench_timing t;
    const bench_protocol p = {.warmup = 100, .groups = 3, .per_group = per_group, .untimed = 10};
    MPCG_TRY(ctx, st, case_build(c, R, dev, r));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)c->A->n, c->vw, &y_host));
    MPCG_TRY(ctx, st, case_check(c, R, y_host, &wrong, r));
    if (wrong) {
        fprintf(stderr, "spmvbench: %s %s: %lld wrong rows: no time is reported\n", c->ops->name,
                r->precision, (long long)wrong);
        r->status = "wrong";
        goto done;
    }
    MPCG_TRY(ctx, st, bench_time_calls(ctx, &p, call_apply, c, &t));
    r->ms = t.ms;
    r->ms_min = t.ms_min;
    r->ms_max = t.ms_max;
    r->gflops = 2.0 * (double)c->A->nnz / (t.ms * 1e-3) * 1e-9;
    r->gbs = r->bytes / (t.ms * 1e-3) * 1e-9;
    r->frac_copy = r->gbs / dev->copy_gbs;
    r->setup_spmvs = r->setup_ms / t.ms;
    r->setup_device_spmvs = (r->setup_ms - r->setup_h2d_ms) / t.ms;
    if (c->ops->apply_phase) MPCG_TRY(ctx, st, time_phases(c, &p, r));
    /* again, after the products: a plan may describe what it measured (gather's model) */
    mpcgi_spmv_describe(c->plan[0], r->storage, sizeof r->storage);
done:
    mpcgi_host_free(y_host);
    case_free(c);
    return st;
}

/* ---------------------------------------------------------------- output */

static void print_header(void)
{
    printf("| matrix | n | nnz | backend | precision | ms | GFLOP/s | GB/s | of copy | "
           "vs cusparse | setup ms | setup SpMVs | w/o H2D | rotation |\n"
           "|---|--:|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
}

static void print_row(const bench_record *r)
{
    const char *status = strcmp(r->status, "ok") == 0      ? NULL
                         : strcmp(r->status, "wrong") == 0 ? "WRONG"
                                                           : "FAILED";
    printf("| %s | %lld | %lld | %s | %s |", r->matrix, (long long)r->n, (long long)r->nnz,
           r->backend, r->precision);
    if (status)
        printf(" %s |", status);
    else
        bench_print_cells(1, "%.4g", r->ms);
    bench_print_cells(7, "%.1f", r->gflops, "%.1f", r->gbs, "%.3f", r->frac_copy, "%.2f",
                      r->speedup_vs_cusparse, "%.2f", r->setup_ms, "%.0f", r->setup_spmvs, "%.1f",
                      r->setup_device_spmvs);
    printf(" %lld |\n", (long long)(r->rotation > 0 ? r->rotation : 0));
    fflush(stdout);
}

/* ---------------------------------------------------------------- the run */

/* Everything one run measures and reports. */
typedef struct spmv_run {
    mpcg_context *ctx;
    mpcgi_csr *A;
    char matrix[256];
    const struct mpcgi_spmv_ops *ops[BENCH_MAX_BACKENDS + 1]; /* cusparse first */
    int count;
    mpcg_precision precs[2];
    int nprec, explicit_precisions;
    uint64_t seed;
    int per_group;
    mpcgi_options opts;    /* -O, for every plan */
    const char *opt_all;   /* their text */
    bench_device dev;
    bench_records records;
    int failed; /* a case failed or was wrong */
    int with_auto;       /* an auto row after the backends of each precision */
    bench_auto autos[2]; /* its trials, one per precision */
    int nauto;
} spmv_run;

/* cusparse (the baseline) first, then the backends asked for. */
static mpcg_status select_backends(spmv_run *run, const char *list)
{
    const struct mpcgi_spmv_ops *asked[BENCH_MAX_BACKENDS];
    int n = 0;
    MPCG_CHECK(run->ctx, bench_backends(run->ctx, list, asked, &n));
    MPCG_CHECK(run->ctx, mpcgi_spmv_lookup(run->ctx, "cusparse", &run->ops[0]));
    run->count = 1;
    for (int k = 0; k < n; k++)
        if (asked[k] != run->ops[0]) run->ops[run->count++] = asked[k];
    run->with_auto = bench_with_auto(list);
    return MPCG_SUCCESS;
}

/* Measure one backend x precision into a record, print its row and keep it. */
static mpcg_status measure(spmv_run *run, spmv_case *c, const reference *R, double *base_ms)
{
    mpcg_context *ctx = run->ctx;
    bench_record r;
    bench_record_init(&r, "spmv", run->matrix, run->A);
    snprintf(r.backend, sizeof r.backend, "%s", c->auto_row ? "auto" : c->ops->name);
    if (c->auto_row) bench_auto_record(c->auto_row, &r);
    r.precision = c->prec == MPCG_PRECISION_FP32 ? "fp32" : "fp64";
    r.seed = run->seed;
    r.seed_set = 1;
    r.runs = run->per_group;
    r.options = run->opt_all;
    if (run_case(c, R, &run->dev, run->per_group, &r) != MPCG_SUCCESS) {
        fprintf(stderr, "spmvbench: %s %s failed: %s\n", c->ops->name, r.precision,
                mpcg_last_error(ctx));
        mpcg_clear_error(ctx);
        r.status = "failed";
    }
    if (strcmp(r.status, "ok") != 0)
        run->failed = 1;
    else if (c->ops == run->ops[0] && !c->auto_row)
        *base_ms = r.ms;
    r.speedup_vs_cusparse = *base_ms / r.ms;
    print_row(&r);
    MPCG_CHECK(ctx, bench_records_add(ctx, &run->records, &r));
    return MPCG_SUCCESS;
}

/* Every backend in one precision: one x, one reference, cusparse first. */
static mpcg_status run_precision(spmv_run *run, mpcg_precision prec)
{
    mpcg_context *ctx = run->ctx;
    mpcg_status st = MPCG_SUCCESS;
    reference R;
    spmv_case *c = NULL;
    double base_ms = NAN;
    unsigned cap = prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32 : MPCG_CAP_FP64;
    memset(&R, 0, sizeof R);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *c, &c));
    MPCG_TRY(ctx, st, spmv_reference_make(ctx, run->A, prec, run->seed, &R));
    *c = (spmv_case){.ctx = ctx, .A = run->A, .prec = prec, .opts = &run->opts,
                     .vw = prec == MPCG_PRECISION_FP32 ? sizeof(float) : sizeof(double)};
    for (int b = 0; b < run->count; b++) {
        if (!(run->ops[b]->caps & cap)) {
            if (run->explicit_precisions)
                fprintf(stderr, "spmvbench: backend %s does not support %s: not measured\n",
                        run->ops[b]->name, prec == MPCG_PRECISION_FP32 ? "fp32" : "fp64");
            continue;
        }
        c->ops = run->ops[b];
        MPCG_TRY(ctx, st, measure(run, c, &R, &base_ms));
    }
    if (run->with_auto) { /* auto's trial, then the backend it keeps as the auto row */
        bench_auto *a = &run->autos[run->nauto++];
        MPCG_TRY(ctx, st, bench_auto_trial(ctx, run->A, prec, &run->opts, a));
        c->ops = a->chosen;
        c->auto_row = a;
        MPCG_TRY(ctx, st, measure(run, c, &R, &base_ms));
    }
done:
    spmv_reference_free(&R);
    mpcgi_host_free(c);
    return st;
}

static void print_protocol(const spmv_run *run)
{
    printf("x: uniform in [-1, 1), seed %" PRIu64 " (replay with --seed=%" PRIu64 ")\n", run->seed,
           run->seed);
    printf("check: y poisoned with NaN, one SpMV, each row within (len + 2) eps sum_j "
           "|a_ij x_j| of a long double CPU reference; a wrong result gets no time\n");
    printf("timing: 100 warm-up calls, then 3 groups of %d calls timed with CUDA events, each "
           "after 10 untimed calls; ms = median group / %d\n",
           run->per_group, run->per_group);
    printf("bytes: the plan's matrix bytes + x read once + y written (8 or 4 bytes per entry); "
           "of copy = GB/s / copy bandwidth; setup = plan analyze + upload; w/o H2D: setup less "
           "its host-to-device copies, in SpMVs\n");
    if (run->opt_all[0]) printf("options (-O, every plan): %s\n", run->opt_all);
    printf("rotation: K copies (each its own plan and device matrix, x and y) are cycled when "
           "one copy fits in %d x L2 = %.1f MiB: K = ceil(%d L2 / bytes), at most %d\n",
           L2_MULTIPLE, L2_MULTIPLE * (double)run->dev.l2_bytes / 1048576.0, L2_MULTIPLE,
           MAX_ROTATION);
}

/* --block=S: the block products of every precision (bench/spmvbench_block.c). */
static mpcg_status run_block(spmv_run *run, int s)
{
    const bench_block_args a = {.ctx = run->ctx, .A = run->A, .matrix = run->matrix,
                                .ops = run->ops, .count = run->count, .s = s, .seed = run->seed,
                                .per_group = run->per_group, .opts = &run->opts,
                                .opt_all = run->opt_all, .dev = &run->dev,
                                .records = &run->records};
    bench_block_header(s);
    for (int k = 0; k < run->nprec; k++)
        MPCG_CHECK(run->ctx, bench_block_run(&a, run->precs[k], &run->failed));
    return MPCG_SUCCESS;
}

/* Open, measure the copy bandwidth, load, run every precision, write the JSON. */
static int run_all(const spmv_opts *o, spmv_run *run)
{
    mpcg_matrix *A = NULL;
    int rc = BENCH_EXIT_FAILED;
    if (bench_open(&o->c, &run->ctx, &run->dev) != MPCG_SUCCESS) return BENCH_EXIT_FAILED;
    if (bench_copy_bandwidth(run->ctx, &run->dev) != MPCG_SUCCESS) goto fail;
    if (bench_h2d_bandwidth(run->ctx, &run->dev) != MPCG_SUCCESS) goto fail;
    bench_print_device(o->c.prog, run->ctx, &run->dev);
    if (o->info_only) {
        printf("device: %s\ncuda: %s\ndriver: %s\ncopy_gbs: %.1f\n", run->dev.name, run->dev.cuda,
               run->dev.driver, run->dev.copy_gbs);
        rc = BENCH_EXIT_OK;
        goto out;
    }
    if (bench_load_matrix(run->ctx, &o->c, &A, run->matrix, sizeof run->matrix) != MPCG_SUCCESS)
        goto fail;
    run->A = bench_csr(A);
    if (select_backends(run, o->c.spmv) != MPCG_SUCCESS) goto fail;
    print_protocol(run);
    if (o->block > 0) {
        if (run_block(run, (int)o->block) != MPCG_SUCCESS) goto fail;
    } else {
        print_header();
        for (int k = 0; k < run->nprec; k++)
            if (run_precision(run, run->precs[k]) != MPCG_SUCCESS) goto fail;
    }
    bench_auto_report(run->autos, run->nauto, &run->records);
    for (int k = 0; k < run->records.count; k++) /* after the table, not inside it */
        if (run->records.v[k].storage[0])
            printf("storage (%s, %s): %s\n", run->records.v[k].backend,
                   run->records.v[k].precision, run->records.v[k].storage);
    for (int k = 0; k < run->records.count; k++) {
        const bench_record *r = &run->records.v[k];
        if (r->nphases == 0) continue;
        printf("steps (%s, %s): the whole apply %.4g ms;", r->backend, r->precision, r->ms);
        for (int q = 0; q < r->nphases; q++)
            printf(" %s alone %.4g ms (%.0f %%)", r->phase_name[q], r->phase_ms[q],
                   100.0 * r->phase_ms[q] / r->ms);
        printf("\n");
    }
    rc = run->failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
    if (o->c.json && bench_json_write(o->c.prog, o->c.json, &run->records, &run->dev) != 0)
        rc = BENCH_EXIT_FAILED;
    goto out;
fail:
    fprintf(stderr, "spmvbench: %s\n", mpcg_last_error(run->ctx));
out:
    bench_records_free(&run->records);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(run->ctx);
    return rc;
}

/* ---------------------------------------------------------------- arguments */

/* "fp64,fp32" into run->precs; -1 (message printed) on an unknown or missing name. */
static int parse_precisions(const char *list, spmv_run *run)
{
    run->nprec = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        mpcg_precision prec;
        if (len == 4 && strncmp(p, "fp64", 4) == 0) {
            prec = MPCG_PRECISION_FP64;
        } else if (len == 4 && strncmp(p, "fp32", 4) == 0) {
            prec = MPCG_PRECISION_FP32;
        } else {
            bench_usage_error("spmvbench", "--precision: expected fp64 and/or fp32: ", list);
            return -1;
        }
        int seen = 0;
        for (int k = 0; k < run->nprec; k++)
            seen |= run->precs[k] == prec;
        if (!seen) run->precs[run->nprec++] = prec;
        p += len + (p[len] == ',');
    }
    if (run->nprec > 0) return 0;
    bench_usage_error("spmvbench", "--precision: expected fp64 and/or fp32", NULL);
    return -1;
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, spmv_opts *o, spmv_run *run)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (bench_help(&o->c, a)) return BENCH_EXIT_OK;
        if (strcmp(a, "--info") == 0) {
            o->info_only = 1;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--precision", &v)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
            o->precisions = v;
            run->explicit_precisions = 1;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--block", &v)) != 0) {
            if (r < 0 || bench_parse_long(o->c.prog, "--block", v, 1, 64, &o->block) != 0)
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--seed", &v)) != 0) {
            char *end;
            if (r < 0) return BENCH_EXIT_USAGE;
            run->seed = strtoull(v, &end, 0);
            if (end == v || *end) return bench_usage_error(o->c.prog, "--seed: not a number: ", v);
            o->seed = v;
        } else if ((r = bench_parse_common(&o->c, argc, argv, &i)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
        } else {
            return bench_usage_error(o->c.prog, "unknown option ", a);
        }
    }
    if (parse_precisions(o->precisions, run) != 0) return BENCH_EXIT_USAGE;
    if (!o->info_only && bench_check_matrix_source(&o->c) != 0) return BENCH_EXIT_USAGE;
    if (o->c.runs > 100000) return bench_usage_error(o->c.prog, "--runs: at most 100000", NULL);
    run->per_group = (int)o->c.runs;
    run->opt_all = o->c.opt_all;
    for (int k = 0; k < o->c.nopt; k++) /* checked when parsed */
        if (mpcgi_options_set_text(NULL, &run->opts, o->c.opt_key[k], o->c.opt_value[k]) !=
            MPCG_SUCCESS)
            return bench_usage_error(o->c.prog, "-O: ", mpcg_last_error(NULL));
    if (!o->seed) {
        mpcgi_rng g;
        mpcgi_rng_seed(&g, (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20));
        run->seed = mpcgi_rng_u64(&g) >> 16; /* short enough to retype */
    }
    return -1;
}

int main(int argc, char **argv)
{
    spmv_opts o = {.c = {.prog = "spmvbench", .usage = usage_text, .device = "cuda", .runs = 50},
                   .precisions = "fp64,fp32"};
    spmv_run *run = calloc(1, sizeof *run);
    if (!run) {
        fprintf(stderr, "spmvbench: out of memory\n");
        return BENCH_EXIT_FAILED;
    }
    int rc = parse_args(argc, argv, &o, run);
    if (rc < 0) {
        rc = bench_require_gpu(o.c.prog);
        if (rc == BENCH_EXIT_OK) rc = run_all(&o, run);
    }
    free(run);
    return rc;
}
