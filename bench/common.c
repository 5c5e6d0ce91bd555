/* bench/common.c: shared parts of the GPU benchmarks: options, device, timing, JSON records */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/common.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "solver/options.h"

/* Copy bandwidth: the largest buffer tried, the smallest accepted, warm-up and timed copies. */
#define COPY_MAX_BYTES ((size_t)1 << 30)
#define COPY_MIN_BYTES ((size_t)1 << 24)
#define COPY_WARMUP 3
#define COPY_REPS 21
#define H2D_BYTES ((size_t)1 << 28) /* the pinned host-to-device copy: 256 MiB */
/* Most timed groups of bench_time_calls. */
#define MAX_GROUPS 64

/* ---------------------------------------------------------------- options */

int bench_usage_error(const char *prog, const char *message, const char *arg)
{
    fprintf(stderr, "%s: %s%s\nTry '%s --help'.\n", prog, message, arg ? arg : "", prog);
    return BENCH_EXIT_USAGE;
}

int bench_option(const char *prog, int argc, char **argv, int *i, const char *name,
                 const char **val)
{
    const char *a = argv[*i];
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0) return 0;
    if (a[len] == '=') {
        *val = a + len + 1;
        return 1;
    }
    if (a[len] != '\0') return 0;
    if (*i + 1 >= argc) {
        bench_usage_error(prog, "option needs a value: ", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int bench_parse_long(const char *prog, const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s=%s: expected an integer in [%ld, %ld]\nTry '%s --help'.\n", prog,
                opt, s, lo, hi, prog);
        return -1;
    }
    *out = v;
    return 0;
}

int bench_parse_double(const char *prog, const char *opt, const char *s, double lo, double hi,
                       double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > lo && v < hi)) {
        fprintf(stderr, "%s: %s=%s: expected a number in (%g, %g)\nTry '%s --help'.\n", prog, opt,
                s, lo, hi, prog);
        return -1;
    }
    *out = v;
    return 0;
}

/* -O KEY=VALUE: checked against the build's keys now (a scratch store), kept in order. */
static int parse_kv(bench_opts *o, const char *kv)
{
    mpcgi_options scratch = {0};
    if (o->nopt == BENCH_MAX_OPTIONS) {
        bench_usage_error(o->prog, "-O: at most 16", NULL);
        return -1;
    }
    char *t = o->opt_text[o->nopt];
    snprintf(t, sizeof o->opt_text[0], "%s", kv);
    char *eq = strchr(t, '=');
    if (!eq) {
        bench_usage_error(o->prog, "-O: expected KEY=VALUE, got ", kv);
        return -1;
    }
    *eq = '\0';
    if (mpcgi_options_set_text(NULL, &scratch, t, eq + 1) != MPCG_SUCCESS) {
        fprintf(stderr, "%s: -O %s: %s\n", o->prog, kv, mpcg_last_error(NULL));
        mpcg_clear_error(NULL);
        return -1;
    }
    o->opt_key[o->nopt] = t;
    o->opt_value[o->nopt++] = eq + 1;
    size_t len = strlen(o->opt_all);
    snprintf(o->opt_all + len, sizeof o->opt_all - len, "%s%s", len ? " " : "", kv);
    return 0;
}

int bench_parse_common(bench_opts *o, int argc, char **argv, int *i)
{
    const struct {
        const char *name;
        const char **dst;
    } strings[] = {{"--generate", &o->generate},
                   {"--spmv", &o->spmv},
                   {"--json", &o->json},
                   {"--device", &o->device}};
    const char *a = argv[*i], *v = NULL;
    if (a[0] != '-') {
        if (o->matrix) {
            bench_usage_error(o->prog, "more than one matrix file: ", a);
            return -1;
        }
        o->matrix = a;
        return 1;
    }
    for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
        int r = bench_option(o->prog, argc, argv, i, strings[k].name, &v);
        if (r < 0) return -1;
        if (r == 0) continue;
        *strings[k].dst = v;
        if (strings[k].dst == &o->device && strncmp(v, "cuda", 4) != 0) {
            bench_usage_error(o->prog, "--device must be cuda or cuda:N, not ", v);
            return -1;
        }
        return 1;
    }
    int r = bench_option(o->prog, argc, argv, i, "-O", &v);
    if (r < 0) return -1;
    if (r > 0) return parse_kv(o, v) == 0 ? 1 : -1;
    r = bench_option(o->prog, argc, argv, i, "--runs", &v);
    if (r <= 0) return r;
    return bench_parse_long(o->prog, "--runs", v, 1, 1000000, &o->runs) == 0 ? 1 : -1;
}

int bench_help(const bench_opts *o, const char *a)
{
    if (strcmp(a, "-h") != 0 && strcmp(a, "--help") != 0) return 0;
    fputs(o->usage, stdout);
    return 1;
}

int bench_check_matrix_source(const bench_opts *o)
{
    if (!o->matrix && !o->generate) {
        bench_usage_error(o->prog, "no matrix: give MATRIX.mtx or --generate=SPEC", NULL);
        return -1;
    }
    if (o->matrix && o->generate) {
        bench_usage_error(o->prog, "give either MATRIX.mtx or --generate=SPEC, not both", NULL);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- device */

int bench_require_gpu(const char *prog)
{
    if (mpcgi_device_count() > 0) return 0;
    fprintf(stderr,
            "%s: no usable CUDA GPU (no device, or no driver): the benchmarks time GPU kernels "
            "and need one; exit status %d\n",
            prog, BENCH_EXIT_NO_GPU);
    return BENCH_EXIT_NO_GPU;
}

/* "13.0" from 13000. */
static void version_string(char *buf, size_t size, int v)
{
    snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

mpcg_status bench_open(const bench_opts *o, mpcg_context **ctx, bench_device *dev)
{
    memset(dev, 0, sizeof *dev);
    mpcg_status st = mpcg_context_create(o->device, ctx);
    if (st != MPCG_SUCCESS) {
        fprintf(stderr, "%s: cannot open %s: %s\n", o->prog, o->device, mpcg_last_error(NULL));
        return st;
    }
    const struct mpcgi_gpu *g = mpcgi_gpu_of(*ctx);
    snprintf(dev->name, sizeof dev->name, "%s", g->props.name);
    dev->l2_bytes = g->props.l2CacheSize > 0 ? (size_t)g->props.l2CacheSize : 0;
    int rt = 0, drv = 0;
    st = MPCGI_CUDA_STATUS(*ctx, cudaRuntimeGetVersion(&rt));
    if (st == MPCG_SUCCESS) st = MPCGI_CUDA_STATUS(*ctx, cudaDriverGetVersion(&drv));
    if (st != MPCG_SUCCESS) {
        fprintf(stderr, "%s: %s\n", o->prog, mpcg_last_error(*ctx));
        mpcg_context_destroy(*ctx);
        *ctx = NULL;
        return st;
    }
    version_string(dev->cuda, sizeof dev->cuda, rt);
    version_string(dev->driver, sizeof dev->driver, drv);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(dev->date, sizeof dev->date, "%Y-%m-%d", &tm);
    return MPCG_SUCCESS;
}

/* Event-timed copies of `size` bytes from src to dst; the median time in *ms. */
static mpcg_status time_copies(mpcg_context *ctx, void *dst, const void *src, size_t size,
                               enum cudaMemcpyKind kind, double *ms)
{
    mpcg_status st = MPCG_SUCCESS;
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(ctx);
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t[COPY_REPS];
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&e0));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&e1));
    for (int k = 0; k < COPY_WARMUP; k++)
        MPCG_CUDA_GOTO(ctx, st, cudaMemcpyAsync(dst, src, size, kind, s));
    for (int k = 0; k < COPY_REPS; k++) {
        float f = 0.0f;
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e0, s));
        MPCG_CUDA_GOTO(ctx, st, cudaMemcpyAsync(dst, src, size, kind, s));
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e1, s));
        MPCG_CUDA_GOTO(ctx, st, cudaEventSynchronize(e1));
        MPCG_CUDA_GOTO(ctx, st, cudaEventElapsedTime(&f, e0, e1));
        t[k] = f;
    }
    *ms = bench_median(t, COPY_REPS);
done:
    /* teardown cannot report failures: destroying valid events does not fail */
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    return st;
}

mpcg_status bench_copy_bandwidth(mpcg_context *ctx, bench_device *dev)
{
    mpcg_status st = MPCG_SUCCESS;
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(ctx);
    void *src = NULL, *dst = NULL;
    size_t free_b = 0, total_b = 0, size = COPY_MAX_BYTES;
    double ms = 0.0;
    MPCG_CUDA_GOTO(ctx, st, cudaMemGetInfo(&free_b, &total_b));
    /* both buffers within 80 % of the free memory */
    while (size > COPY_MIN_BYTES && 2 * size > free_b / 10 * 8)
        size /= 2;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, size, &src));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, size, &dst));
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(src, 1, size, s));
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(dst, 0, size, s));
    MPCG_TRY(ctx, st, time_copies(ctx, dst, src, size, cudaMemcpyDeviceToDevice, &ms));
    MPCG_ENSURE_GOTO(ctx, st, ms > 0.0, MPCG_ERR_INTERNAL, "copy of %zu bytes timed at %g ms", size,
                     ms);
    dev->copy_bytes = size;
    dev->copy_reps = COPY_REPS;
    dev->copy_gbs = 2.0 * (double)size / (ms * 1e-3) * 1e-9; /* bytes read + bytes written */
done:
    mpcgi_device_free(ctx, src);
    mpcgi_device_free(ctx, dst);
    return st;
}

mpcg_status bench_h2d_bandwidth(mpcg_context *ctx, bench_device *dev)
{
    mpcg_status st = MPCG_SUCCESS;
    void *src = NULL, *dst = NULL;
    const size_t size = H2D_BYTES;
    double ms = 0.0;
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost(&src, size));
    memset(src, 1, size);
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, size, &dst));
    MPCG_TRY(ctx, st, time_copies(ctx, dst, src, size, cudaMemcpyHostToDevice, &ms));
    MPCG_ENSURE_GOTO(ctx, st, ms > 0.0, MPCG_ERR_INTERNAL, "copy of %zu bytes timed at %g ms", size,
                     ms);
    dev->h2d_bytes = size;
    dev->h2d_gbs = (double)size / (ms * 1e-3) * 1e-9; /* one way */
done:
    if (src) (void)cudaFreeHost(src);
    mpcgi_device_free(ctx, dst);
    return st;
}

void bench_print_device(const char *prog, const mpcg_context *ctx, const bench_device *dev)
{
    printf("%s: %s\n", prog, mpcg_context_device_name(ctx));
    printf("CUDA runtime %s, driver supports CUDA %s, L2 %.1f MiB, date %s (UTC)\n", dev->cuda,
           dev->driver, (double)dev->l2_bytes / 1048576.0, dev->date);
    printf("copy bandwidth: %.1f GB/s (cudaMemcpyAsync device to device of %.0f MiB, bytes read "
           "+ written, median of %d)\n",
           dev->copy_gbs, (double)dev->copy_bytes / 1048576.0, dev->copy_reps);
    if (dev->h2d_gbs > 0)
        printf("pinned host-to-device: %.1f GB/s (cudaMemcpyAsync of %.0f MiB from pinned host "
               "memory, median of %d)\n",
               dev->h2d_gbs, (double)dev->h2d_bytes / 1048576.0, COPY_REPS);
}

/* ---------------------------------------------------------------- timing */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

mpcg_status bench_time_calls(mpcg_context *ctx, const bench_protocol *p, bench_call_fn fn,
                             void *arg, bench_timing *t)
{
    mpcg_status st = MPCG_SUCCESS;
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(ctx);
    cudaEvent_t e0 = NULL, e1 = NULL;
    double g[MAX_GROUPS];
    int64_t i = 0;
    MPCG_ENSURE(ctx, p->groups >= 1 && p->groups <= MAX_GROUPS && p->per_group >= 1,
                MPCG_ERR_INVALID_ARG, "timing protocol: %d groups of %d calls", p->groups,
                p->per_group);
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&e0));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&e1));
    for (int k = 0; k < p->warmup; k++)
        MPCG_TRY(ctx, st, fn(ctx, arg, i++));
    for (int grp = 0; grp < p->groups; grp++) {
        float f = 0.0f;
        for (int k = 0; k < p->untimed; k++)
            MPCG_TRY(ctx, st, fn(ctx, arg, i++));
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e0, s));
        for (int k = 0; k < p->per_group; k++)
            MPCG_TRY(ctx, st, fn(ctx, arg, i++));
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e1, s));
        MPCG_CUDA_GOTO(ctx, st, cudaEventSynchronize(e1));
        MPCG_CUDA_GOTO(ctx, st, cudaEventElapsedTime(&f, e0, e1));
        g[grp] = (double)f / p->per_group;
    }
    t->ms = bench_median(g, p->groups); /* sorts g */
    t->ms_min = g[0];
    t->ms_max = g[p->groups - 1];
done:
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    return st;
}

/* ---------------------------------------------------------------- matrix and backends */

/* spec with every ':'-separated field cut to what follows its last '/'. */
static void short_spec(char *out, size_t size, const char *spec)
{
    size_t o = 0;
    const char *field = spec;
    while (o + 1 < size) {
        const char *end = strchr(field, ':');
        size_t len = end ? (size_t)(end - field) : strlen(field);
        const char *base = field;
        for (const char *c = field; c < field + len; c++)
            if (*c == '/') base = c + 1;
        o += (size_t)snprintf(out + o, size - o, "%.*s%s", (int)(field + len - base), base,
                              end ? ":" : "");
        if (!end || o >= size) break;
        field = end + 1;
    }
}

mpcg_status bench_load_matrix(mpcg_context *ctx, const bench_opts *o, mpcg_matrix **A, char *name,
                              size_t name_size)
{
    double t0 = mpcgi_wtime();
    if (o->generate)
        MPCG_CHECK(ctx, mpcg_matrix_generate(ctx, o->generate, A));
    else
        MPCG_CHECK(ctx, mpcg_matrix_read_mm(ctx, o->matrix, A));
    double t = mpcgi_wtime() - t0;
    if (o->generate)
        short_spec(name, name_size, o->generate);
    else
        snprintf(name, name_size, "%s", (*A)->name);
    int64_t n = mpcg_matrix_n(*A), nnz = mpcg_matrix_nnz(*A);
    printf("matrix %s: n = %lld, nnz = %lld (%.1f per row), %s in %.2f s\n", name, (long long)n,
           (long long)nnz, (double)nnz / (double)n, o->generate ? "generated" : "read", t);
    return MPCG_SUCCESS;
}

mpcgi_csr *bench_csr(mpcg_matrix *A)
{
    return &A->csr;
}

/* Add ops to out unless it is there already. */
static mpcg_status add_backend(mpcg_context *ctx, const struct mpcgi_spmv_ops *ops,
                               const struct mpcgi_spmv_ops *out[BENCH_MAX_BACKENDS], int *count)
{
    MPCG_ENSURE(ctx, ops->caps & MPCG_CAP_NEEDS_DEVICE, MPCG_ERR_INVALID_ARG,
                "backend %s runs on the CPU only; the benchmarks time GPU backends", ops->name);
    for (int k = 0; k < *count; k++)
        if (out[k] == ops) return MPCG_SUCCESS;
    MPCG_ENSURE(ctx, *count < BENCH_MAX_BACKENDS, MPCG_ERR_INVALID_ARG, "more than %d backends",
                BENCH_MAX_BACKENDS);
    out[(*count)++] = ops;
    return MPCG_SUCCESS;
}

mpcg_status bench_solver_create(mpcg_context *ctx, mpcg_matrix *A, const bench_opts *o,
                                const char *spmv, mpcg_precision prec, mpcg_precond precond,
                                double tol, long maxit, mpcg_solver **out)
{
    MPCG_CHECK(ctx, mpcg_solver_create(ctx, A, out));
    mpcg_solver *s = *out;
    MPCG_CHECK(ctx, mpcg_solver_set_spmv(s, spmv));
    MPCG_CHECK(ctx, mpcg_solver_set_precision(s, prec));
    MPCG_CHECK(ctx, mpcg_solver_set_precond(s, precond));
    for (int k = 0; k < o->nopt; k++)
        MPCG_CHECK(ctx, mpcg_solver_set_option(s, o->opt_key[k], o->opt_value[k]));
    MPCG_CHECK(ctx, mpcg_solver_set_tol(s, tol));
    if (maxit >= 0) MPCG_CHECK(ctx, mpcg_solver_set_maxit(s, maxit));
    return MPCG_SUCCESS;
}

mpcg_status bench_backends(mpcg_context *ctx, const char *list,
                           const struct mpcgi_spmv_ops *out[BENCH_MAX_BACKENDS], int *count)
{
    *count = 0;
    if (!list) {
        for (int i = 0; i < mpcgi_spmv_count(); i++)
            if (mpcgi_spmv_get(i)->caps & MPCG_CAP_NEEDS_DEVICE)
                MPCG_CHECK(ctx, add_backend(ctx, mpcgi_spmv_get(i), out, count));
    }
    for (const char *p = list; p && *p;) {
        char name[64];
        size_t len = strcspn(p, ",");
        MPCG_ENSURE(ctx, len > 0 && len < sizeof name, MPCG_ERR_INVALID_ARG,
                    "--spmv=%s: empty or overlong backend name", list);
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        p += len + (p[len] == ',');
        if (mpcgi_spmv_is_auto(name)) continue; /* the auto row, bench_with_auto */
        const struct mpcgi_spmv_ops *ops = NULL;
        MPCG_CHECK(ctx, mpcgi_spmv_lookup(ctx, name, &ops));
        MPCG_CHECK(ctx, add_backend(ctx, ops, out, count));
    }
    MPCG_ENSURE(ctx, *count > 0 || bench_with_auto(list), MPCG_ERR_INVALID_ARG,
                "no GPU backend in this build");
    return MPCG_SUCCESS;
}

int bench_with_auto(const char *list)
{
    if (!list) return 1;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 4 && strncmp(p, "auto", 4) == 0) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* ---------------------------------------------------------------- JSON records */

void bench_record_init(bench_record *r, const char *kind, const char *matrix, const mpcgi_csr *A)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->status = "ok";
    snprintf(r->matrix, sizeof r->matrix, "%s", matrix);
    r->n = A->n;
    r->nnz = A->nnz;
    r->ms = r->gbs = r->frac_copy = r->speedup_vs_cusparse = r->ms_per_iter = NAN;
    r->speedup_vs_cublas = NAN;
    r->true_relres = r->roofline_ratio = NAN;
    r->gflops = r->bytes = r->bytes_matrix = r->setup_ms = r->first_ms = r->setup_spmvs = NAN;
    r->setup_h2d_ms = r->setup_device_spmvs = NAN;
    r->first_apply_ms = r->ms_min = r->ms_max = r->roofline_ms = r->roofline_unfused_ms = NAN;
    r->tol = NAN;
    r->iterations = r->rotation = r->maxit = r->runs = -1;
    r->spmvs = r->spmvs_fp64 = -1;
    r->speedup_vs_fp64 = NAN;
    r->precision_fallback = -1;
    r->spmvs_ms = r->speedup_vs_spmvs = NAN;
    r->speedup_vs_sequential = NAN;
    r->batch_s = r->loop_systems = r->iterations_median = r->not_converged = -1;
    r->speedup_vs_loop = NAN;
    r->auto_trial_ms = r->auto_trial_spmvs = NAN;
}

mpcg_status bench_records_add(mpcg_context *ctx, bench_records *list, const bench_record *r)
{
    if (list->count == list->cap) {
        int cap = list->cap ? 2 * list->cap : 16;
        MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, (size_t)cap * sizeof *list->v, &list->v));
        list->cap = cap;
    }
    list->v[list->count++] = *r;
    return MPCG_SUCCESS;
}

void bench_records_free(bench_records *list)
{
    mpcgi_host_free(list->v);
    memset(list, 0, sizeof *list);
}

static void json_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, ", \"%s\": ", key);
    if (!s || !*s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, ", \"%s\": %.9g", key, v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_int(FILE *f, const char *key, int64_t v)
{
    if (v >= 0)
        fprintf(f, ", \"%s\": %lld", key, (long long)v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_record(FILE *f, const bench_record *r, const bench_device *d)
{
    fprintf(f, "  {\"kind\": \"%s\"", r->kind);
    json_str(f, "matrix", r->matrix);
    json_int(f, "n", r->n);
    json_int(f, "nnz", r->nnz);
    json_str(f, "backend", r->backend);
    json_str(f, "precision", r->precision);
    if (r->precond[0]) json_str(f, "precond", r->precond);
    if (r->variant[0]) json_str(f, "variant", r->variant);
    if (r->options && r->options[0]) json_str(f, "options", r->options);
    if (r->storage[0]) json_str(f, "storage", r->storage);
    for (int k = 0; k < r->nphases; k++) {
        char key[48];
        snprintf(key, sizeof key, "phase_%s_ms", r->phase_name[k]);
        json_num(f, key, r->phase_ms[k]);
    }
    json_num(f, "ms", r->ms);
    json_num(f, "gbs", r->gbs);
    json_num(f, "frac_copy", r->frac_copy);
    json_num(f, "speedup_vs_cusparse", r->speedup_vs_cusparse);
    if (!isnan(r->speedup_vs_cublas)) json_num(f, "speedup_vs_cublas", r->speedup_vs_cublas);
    json_num(f, "ms_per_iter", r->ms_per_iter);
    json_int(f, "iterations", r->iterations);
    json_num(f, "true_relres", r->true_relres);
    json_num(f, "roofline_ratio", r->roofline_ratio);
    json_str(f, "device", d->name);
    json_str(f, "cuda", d->cuda);
    json_num(f, "copy_gbs", d->copy_gbs);
    if (d->h2d_gbs > 0) json_num(f, "h2d_gbs", d->h2d_gbs);
    json_str(f, "date", d->date);
    json_str(f, "status", r->status);
    json_num(f, "gflops", r->gflops);
    json_num(f, "bytes", r->bytes);
    json_num(f, "bytes_matrix", r->bytes_matrix);
    json_num(f, "setup_ms", r->setup_ms);
    json_num(f, "first_ms", r->first_ms);
    json_num(f, "setup_spmvs", r->setup_spmvs);
    if (!isnan(r->setup_h2d_ms)) {
        json_num(f, "setup_h2d_ms", r->setup_h2d_ms);
        json_num(f, "setup_device_spmvs", r->setup_device_spmvs);
    }
    json_num(f, "first_apply_ms", r->first_apply_ms);
    json_num(f, "ms_min", r->ms_min);
    json_num(f, "ms_max", r->ms_max);
    json_int(f, "rotation", r->rotation);
    if (r->seed_set)
        fprintf(f, ", \"seed\": %llu", (unsigned long long)r->seed);
    else
        fputs(", \"seed\": null", f);
    json_num(f, "roofline_ms", r->roofline_ms);
    json_num(f, "roofline_unfused_ms", r->roofline_unfused_ms);
    json_str(f, "reason", r->reason);
    json_int(f, "maxit", r->maxit);
    json_num(f, "tol", r->tol);
    json_int(f, "runs", r->runs);
    json_int(f, "spmvs", r->spmvs);
    json_int(f, "spmvs_fp64", r->spmvs_fp64);
    json_num(f, "speedup_vs_fp64", r->speedup_vs_fp64);
    json_int(f, "precision_fallback", r->precision_fallback);
    if (r->block_s > 0) {
        json_int(f, "block_s", r->block_s);
        json_num(f, "spmvs_ms", r->spmvs_ms);
        json_num(f, "speedup_vs_spmvs", r->speedup_vs_spmvs);
    }
    if (r->method) {
        json_str(f, "method", r->method);
        json_int(f, "nrhs", r->nrhs);
        json_num(f, "speedup_vs_sequential", r->speedup_vs_sequential);
    }
    if (r->batch_k > 0) {
        json_int(f, "batch_k", r->batch_k);
        json_int(f, "batch_s", r->batch_s);
        json_int(f, "loop_systems", r->loop_systems);
        json_num(f, "speedup_vs_loop", r->speedup_vs_loop);
        json_int(f, "iterations_median", r->iterations_median);
        json_int(f, "not_converged", r->not_converged);
    }
    if (r->auto_chosen[0]) {
        json_str(f, "auto_chosen", r->auto_chosen);
        json_num(f, "auto_trial_ms", r->auto_trial_ms);
        json_num(f, "auto_trial_spmvs", r->auto_trial_spmvs);
        json_int(f, "auto_timed", r->auto_timed);
    }
    json_str(f, "driver", d->driver);
    fputs("}", f);
}

/* The whole file in a NUL-terminated buffer (free it), or NULL with *missing = 1 if it does not
 * exist, or NULL with a message on stderr. */
static char *slurp(const char *prog, const char *path, int *missing)
{
    *missing = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            *missing = 1;
        else
            fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap = 2 * cap + 4096);
            if (!nb) break;
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    int bad = ferror(f) || cap - len < 1;
    fclose(f);
    if (bad || !buf) {
        fprintf(stderr, "%s: cannot read %s\n", prog, path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* In an existing file's text, the list's contents before its closing ']' (cut there) and whether
 * it holds a record; -1 if the text is not a JSON list. */
static int open_list(char *text, int *has_items)
{
    size_t len = strlen(text);
    while (len > 0 && strchr(" \t\r\n", text[len - 1]))
        len--;
    const char *start = text + strspn(text, " \t\r\n");
    if (len == 0) {
        text[0] = '\0';
        *has_items = 0;
        return 0;
    }
    if (*start != '[' || text[len - 1] != ']') return -1;
    text[len - 1] = '\0';
    *has_items = strchr(start, '{') != NULL;
    return 0;
}

int bench_json_write(const char *prog, const char *path, const bench_records *list,
                     const bench_device *dev)
{
    int missing = 0, has_items = 0;
    char tmp[4096];
    char *old = slurp(prog, path, &missing);
    if (!old && !missing) return -1;
    if (old && open_list(old, &has_items) != 0) {
        fprintf(stderr, "%s: %s is not a JSON list; not appending to it\n", prog, path);
        free(old);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot create %s: %s\n", prog, tmp, strerror(errno));
        free(old);
        return -1;
    }
    int started = old && old[0];
    if (started) {
        size_t len = strlen(old);
        while (len > 0 && strchr(" \t\r\n", old[len - 1]))
            old[--len] = '\0';
        fputs(old, f);
    } else {
        fputc('[', f);
    }
    for (int k = 0; k < list->count; k++) {
        fputs(has_items || k > 0 ? ",\n" : "\n", f);
        json_record(f, &list->v[k], dev);
    }
    fputs("\n]\n", f);
    free(old);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

void bench_print_cells(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (int k = 0; k < count; k++) {
        const char *fmt = va_arg(ap, const char *);
        double v = va_arg(ap, double);
        char cell[64];
        if (isfinite(v))
            snprintf(cell, sizeof cell, fmt, v);
        else
            snprintf(cell, sizeof cell, "-");
        printf(" %s |", cell);
    }
    va_end(ap);
}
