/* core/device_cuda.c: the device layer on CUDA: GPU, stream, library handles, memory, vectors */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/device_spin.h"
#include "core/timer.h"
#include "core/vec_cuda.h"

/* ---------------------------------------------------------------- status mapping */

/* Record "<call>: <error name>: <error text>", with the call's text cut at its first
 * parenthesis ("cudaMalloc(&p, n)" -> "cudaMalloc"). */
static mpcg_status library_error(const mpcg_context *ctx, mpcg_status st, const char *call,
                                 const char *name, const char *text, const char *file, int line,
                                 const char *func)
{
    return mpcgi_error_set(ctx, st, file, line, func, "%.*s: %s: %s", (int)strcspn(call, "("),
                           call, name, text);
}

mpcg_status mpcgi_cuda_status(const mpcg_context *ctx, cudaError_t e, const char *call,
                              const char *file, int line, const char *func)
{
    if (e == cudaSuccess) return MPCG_SUCCESS;
    (void)cudaGetLastError(); /* reported here; do not report it again at the next launch */
    return library_error(ctx,
                         e == cudaErrorMemoryAllocation ? MPCG_ERR_DEVICE_ALLOC : MPCG_ERR_CUDA,
                         call, cudaGetErrorName(e), cudaGetErrorString(e), file, line, func);
}

mpcg_status mpcgi_cusparse_status(const mpcg_context *ctx, cusparseStatus_t e, const char *call,
                                  const char *file, int line, const char *func)
{
    if (e == CUSPARSE_STATUS_SUCCESS) return MPCG_SUCCESS;
    return library_error(ctx, MPCG_ERR_CUSPARSE, call, cusparseGetErrorName(e),
                         cusparseGetErrorString(e), file, line, func);
}

mpcg_status mpcgi_cublas_status(const mpcg_context *ctx, cublasStatus_t e, const char *call,
                                const char *file, int line, const char *func)
{
    if (e == CUBLAS_STATUS_SUCCESS) return MPCG_SUCCESS;
    return library_error(ctx, MPCG_ERR_CUBLAS, call, cublasGetStatusName(e),
                         cublasGetStatusString(e), file, line, func);
}

/* ---------------------------------------------------------------- context */

int mpcgi_device_count(void)
{
    int count = 0;
    /* no driver, no GPU, or a driver older than the runtime: no usable GPU, so "auto" falls
     * back to the CPU */
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

/* Release whatever part of g exists. Teardown cannot report failures: the calls are unchecked. */
static void gpu_release(struct mpcgi_gpu *g)
{
    if (!g) return;
    (void)cudaSetDevice(g->id);
    if (g->stream) (void)cudaStreamSynchronize(g->stream);
    if (g->cusparse) (void)cusparseDestroy(g->cusparse);
    if (g->cublas) (void)cublasDestroy(g->cublas);
    if (g->scalar_host) (void)cudaFreeHost(g->scalar_host);
    mpcgi_device_stage_free(g);
    if (g->own_stream) (void)cudaStreamDestroy(g->own_stream);
    free(g->blocks);
    mpcgi_host_free(g);
}

/* "cuda:0 NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)" */
static void describe(mpcg_context *ctx, const struct mpcgi_gpu *g)
{
    snprintf(ctx->device_name, sizeof ctx->device_name, "cuda:%d %.96s (sm_%d%d, %d SMs, %.1f GiB)",
             g->id, g->props.name, g->props.major, g->props.minor, g->props.multiProcessorCount,
             (double)g->props.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
}

mpcg_status mpcgi_device_open(mpcg_context *ctx, int id)
{
    mpcg_status st = MPCG_SUCCESS;
    struct mpcgi_gpu *g = NULL;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "cannot use GPU %d: no usable CUDA GPU "
                  "(cudaGetDeviceCount: %s: %s)", id, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    MPCG_ENSURE(ctx, id >= 0 && id < count, MPCG_ERR_NO_DEVICE,
                "cannot use GPU %d: this machine has %d usable CUDA GPU%s", id, count,
                count == 1 ? "" : "s");
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *g, &g));
    g->id = id;
    MPCG_CUDA_GOTO(ctx, st, cudaSetDevice(id));
    MPCG_CUDA_GOTO(ctx, st, cudaGetDeviceProperties(&g->props, id));
    MPCG_CUDA_GOTO(ctx, st, cudaStreamCreateWithFlags(&g->own_stream, cudaStreamNonBlocking));
    g->stream = g->own_stream;
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&g->scalar_host, MPCGI_PINNED_BYTES));
    MPCG_CUBLAS_GOTO(ctx, st, cublasCreate(&g->cublas));
    MPCG_CUBLAS_GOTO(ctx, st, cublasSetStream(g->cublas, g->stream));
    MPCG_CUSPARSE_GOTO(ctx, st, cusparseCreate(&g->cusparse));
    MPCG_CUSPARSE_GOTO(ctx, st, cusparseSetStream(g->cusparse, g->stream));
    describe(ctx, g);
    snprintf(ctx->device_model, sizeof ctx->device_model, "%.127s", g->props.name);
    ctx->gpu = g;
    ctx->kind = MPCG_DEVICE_CUDA;
    ctx->device_id = id;
done:
    if (st != MPCG_SUCCESS) gpu_release(g);
    return st;
}

void mpcgi_device_close(mpcg_context *ctx)
{
    gpu_release(mpcgi_gpu_of(ctx));
    ctx->gpu = NULL;
}

mpcg_status mpcgi_device_set_stream(mpcg_context *ctx, void *stream)
{
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_ENSURE(ctx, g || !stream, MPCG_ERR_INVALID_STATE,
                "context %s runs on the CPU: it takes no CUDA stream", ctx->device_name);
    if (!g) return MPCG_SUCCESS;
    cudaStream_t next = stream ? (cudaStream_t)stream : g->own_stream;
    if (next == g->stream) return MPCG_SUCCESS;
    /* work already queued on the old stream finishes before any work on the new one */
    MPCG_CUDA(ctx, cudaStreamSynchronize(g->stream));
    MPCG_CUSPARSE(ctx, cusparseSetStream(g->cusparse, next));
    mpcg_status st = MPCGI_CUBLAS_STATUS(ctx, cublasSetStream(g->cublas, next));
    if (st != MPCG_SUCCESS) {
        (void)cusparseSetStream(g->cusparse, g->stream); /* back to the old stream, as it was */
        return st;
    }
    g->stream = next;
    return MPCG_SUCCESS;
}

void *mpcgi_device_stream(const mpcg_context *ctx)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    return g ? (void *)g->stream : NULL;
}

/* ---------------------------------------------------------------- memory and copies */

mpcg_status mpcg_context_set_device_memory_limit(mpcg_context *ctx, size_t bytes)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    if (g) g->mem_limit = bytes; /* a CPU context holds no device memory: nothing to cap */
    return MPCG_SUCCESS;
}

/* Room for one more entry in the block table (plain realloc: not an attempt of the failure
 * hook, and not a live block of the leak checks, since the table outlives the blocks). */
static mpcg_status reserve_block(mpcg_context *ctx, struct mpcgi_gpu *g)
{
    if (g->nblocks < g->cap_blocks) return MPCG_SUCCESS;
    size_t cap = g->cap_blocks ? 2 * g->cap_blocks : 64;
    void *t = realloc(g->blocks, cap * sizeof *g->blocks);
    if (!t)
        MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "cannot grow the table of device blocks to %zu "
                  "entries", cap);
    g->blocks = t;
    g->cap_blocks = cap;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_device_alloc(mpcg_context *ctx, size_t bytes, void *pptr)
{
    void **out = (void **)pptr;
    *out = NULL;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_ENSURE(ctx, g, MPCG_ERR_INVALID_STATE, "device memory asked for on context %s",
                ctx->device_name);
    mpcgi_alloc_count_device();
    MPCG_CHECK(ctx, reserve_block(ctx, g));
    MPCG_CUDA(ctx, cudaSetDevice(g->id));
    void *p = NULL;
    /* the shared failure hook (core/alloc.h) makes the attempt fail as cudaMalloc would */
    int fail = mpcgi_alloc_should_fail();
    if (!fail && g->mem_limit && (g->mem_in_use > g->mem_limit ||
                                  bytes > g->mem_limit - g->mem_in_use))
        MPCG_FAIL(ctx, MPCG_ERR_DEVICE_ALLOC,
                  "cannot allocate %zu bytes on cuda:%d: device memory limit of %zu bytes "
                  "reached (%zu in use; set with mpcg_context_set_device_memory_limit)",
                  bytes, g->id, g->mem_limit, g->mem_in_use);
    cudaError_t e = fail ? cudaErrorMemoryAllocation : cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc of %zu bytes on cuda:%d", bytes, g->id);
        return mpcgi_cuda_status(ctx, e, what, __FILE__, __LINE__, __func__);
    }
    g->blocks[g->nblocks++] = (struct mpcgi_gpu_block){p, bytes};
    g->mem_in_use += bytes;
    mpcgi_alloc_track(+1);
    *out = p;
    return MPCG_SUCCESS;
}

void mpcgi_device_free(mpcg_context *ctx, void *p)
{
    if (!p) return;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    if (g) {
        (void)cudaSetDevice(g->id);
        /* blocks are mostly freed in the reverse order of their allocation: search from the end */
        for (size_t k = g->nblocks; k-- > 0;)
            if (g->blocks[k].p == p) {
                g->mem_in_use -= g->blocks[k].bytes;
                g->blocks[k] = g->blocks[--g->nblocks];
                break;
            }
    }
    (void)cudaFree(p); /* a failure here could only be a sticky error already reported */
    mpcgi_alloc_track(-1);
}

static enum cudaMemcpyKind memcpy_kind(mpcgi_copy_kind kind)
{
    switch (kind) {
    case MPCGI_H2D: return cudaMemcpyHostToDevice;
    case MPCGI_D2H: return cudaMemcpyDeviceToHost;
    case MPCGI_D2D: return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

mpcg_status mpcgi_device_copy(mpcg_context *ctx, void *dst, const void *src, size_t bytes,
                              mpcgi_copy_kind kind)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_ENSURE(ctx, g, MPCG_ERR_INVALID_STATE, "device copy asked for on context %s",
                ctx->device_name);
    if (bytes == 0) return MPCG_SUCCESS;
    /* a solve starts with a copy: the kernels that follow go to this context's GPU even when
     * the thread used another GPU in between */
    MPCG_CUDA(ctx, cudaSetDevice(g->id));
    if (kind == MPCGI_D2H && bytes <= MPCGI_PINNED_BYTES) { /* through pinned memory */
        MPCG_CUDA(ctx, cudaMemcpyAsync(g->scalar_host, src, bytes, cudaMemcpyDeviceToHost,
                                       g->stream));
        MPCG_CUDA(ctx, cudaStreamSynchronize(g->stream));
        memcpy(dst, g->scalar_host, bytes);
        return MPCG_SUCCESS;
    }
    const double t0 = kind == MPCGI_H2D ? mpcgi_wtime() : 0;
    if (kind == MPCGI_H2D && mpcgi_device_stage_wanted(ctx, mpcgi_gpu_of(ctx), bytes)) {
        MPCG_CHECK(ctx, mpcgi_device_stage_h2d(ctx, mpcgi_gpu_of(ctx), dst, src, bytes));
        mpcgi_gpu_of(ctx)->h2d_seconds += mpcgi_wtime() - t0;
        return MPCG_SUCCESS;
    }
    MPCG_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, memcpy_kind(kind), g->stream));
    if (kind == MPCGI_D2H) MPCG_CUDA(ctx, cudaStreamSynchronize(g->stream));
    if (kind == MPCGI_H2D) mpcgi_gpu_of(ctx)->h2d_seconds += mpcgi_wtime() - t0;
    return MPCG_SUCCESS;
}

size_t mpcgi_device_bytes_left(const mpcg_context *ctx)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    size_t free_b = 0, total = 0;
    if (!g) return 0;
    if (g->mem_limit) return g->mem_in_use < g->mem_limit ? g->mem_limit - g->mem_in_use : 0;
    if (cudaSetDevice(g->id) != cudaSuccess || cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return free_b;
}

double mpcgi_device_h2d_seconds(const mpcg_context *ctx)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    return g ? g->h2d_seconds : 0;
}

mpcg_status mpcgi_device_sync(mpcg_context *ctx)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_ENSURE(ctx, g, MPCG_ERR_INVALID_STATE, "device sync asked for on context %s",
                ctx->device_name);
    MPCG_CUDA(ctx, cudaStreamSynchronize(g->stream));
    return MPCG_SUCCESS;
}

/* The device timer's spin ahead of `queued` calls: the host's time to queue them, at most
 * SPIN_CALL_NS each after SPIN_BASE_NS (event records and launches take a few microseconds). */
#define SPIN_BASE_NS 30000
#define SPIN_CALL_NS 12000
static int64_t spin_ns(int64_t queued) { return SPIN_BASE_NS + SPIN_CALL_NS * queued; }

mpcg_status mpcgi_device_time_calls(mpcg_context *ctx, mpcgi_device_call fn, void *arg, int warmup,
                                    int groups, int per_group, double *seconds)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    mpcg_status st = MPCG_SUCCESS;
    cudaEvent_t *e = NULL;
    int made = 0;
    MPCG_ENSURE(ctx, g, MPCG_ERR_NO_DEVICE, "events asked for on context %s", ctx->device_name);
    MPCG_ENSURE(ctx, groups >= 1 && per_group >= 1, MPCG_ERR_INVALID_ARG,
                "%d timed groups of %d calls", groups, per_group);
    MPCG_CUDA(ctx, cudaSetDevice(g->id)); /* the events belong to the context's GPU */
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, (size_t)groups + 1, sizeof *e, &e));
    for (; made <= groups; made++) MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&e[made]));
    MPCG_CUDA_GOTO(ctx, st, cudaStreamSynchronize(g->stream)); /* what came before is not ours */
    /* nothing waited for until the end: a spin ahead of the calls, then the warm-up, keep the
     * device busy while the host queues the timed calls, as a solve's queued launches (or its
     * graph) keep it; without the spin a call shorter than its host's launch time left the
     * device idle between calls, and the events timed the host. An event only between groups:
     * inside one the calls follow each other as a solve's do (with PDL, a kernel's start
     * overlaps the end of the one before), docs/backends/auto.md, "The trial" */
    const int64_t queued = (int64_t)warmup + (int64_t)groups * per_group;
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_device_spin(g->stream, spin_ns(queued)));
    for (int i = 0; i < warmup; i++)
        MPCG_TRY(ctx, st, fn(ctx, arg));
    for (int i = 0; i < groups; i++) {
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e[i], g->stream));
        for (int k = 0; k < per_group; k++)
            MPCG_TRY(ctx, st, fn(ctx, arg));
    }
    MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(e[groups], g->stream));
    MPCG_CUDA_GOTO(ctx, st, cudaEventSynchronize(e[groups]));
    for (int i = 0; i < groups; i++) {
        float ms = 0;
        MPCG_CUDA_GOTO(ctx, st, cudaEventElapsedTime(&ms, e[i], e[i + 1]));
        seconds[i] = 1e-3 * (double)ms / per_group;
    }
done:
    for (int i = 0; i < made; i++) (void)cudaEventDestroy(e[i]);
    mpcgi_host_free(e);
    return st;
}

/* ---------------------------------------------------------------- vector kernels */

static size_t dev_dot_workspace(int64_t n)
{
    (void)n;
    return MPCGI_DOT_WORKSPACE_DOUBLES * sizeof(double);
}

/* The one synchronisation point of each dot: the scalar goes through pinned host memory. */
static mpcg_status dot_result(mpcg_context *ctx, const struct mpcgi_gpu *g, double *w,
                              double *out)
{
    MPCG_CUDA(ctx, cudaMemcpyAsync(g->scalar_host, w + MPCGI_DOT_BLOCKS, sizeof *w,
                                   cudaMemcpyDeviceToHost, g->stream));
    MPCG_CUDA(ctx, cudaStreamSynchronize(g->stream));
    *out = *g->scalar_host;
    return MPCG_SUCCESS;
}

static mpcg_status dev_dot(mpcg_context *ctx, void *ws, int64_t n, const void *x, const void *y,
                           double *out)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_LAUNCH(ctx, mpcgi_vec_dot_f64(g->stream, n, x, y, ws));
    return dot_result(ctx, g, ws, out);
}

static mpcg_status dev_axpy(mpcg_context *ctx, int64_t n, double a, const void *x, void *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_axpy_f64(mpcgi_gpu_of(ctx)->stream, n, a, x, y));
    return MPCG_SUCCESS;
}

static mpcg_status dev_axpy_wide(mpcg_context *ctx, int64_t n, double a, const void *x,
                                 double *y)
{
    return dev_axpy(ctx, n, a, x, y);
}

static mpcg_status dev_xpay(mpcg_context *ctx, int64_t n, const void *x, double a, void *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_xpay_f64(mpcgi_gpu_of(ctx)->stream, n, x, a, y));
    return MPCG_SUCCESS;
}

/* copy and zero use the runtime's own copy and fill, which run at the copy bandwidth */
static mpcg_status dev_copy_bytes(mpcg_context *ctx, size_t bytes, const void *x, void *y)
{
    MPCG_CUDA(ctx, cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice,
                                   mpcgi_gpu_of(ctx)->stream));
    return MPCG_SUCCESS;
}

static mpcg_status dev_zero_bytes(mpcg_context *ctx, size_t bytes, void *y)
{
    MPCG_CUDA(ctx, cudaMemsetAsync(y, 0, bytes, mpcgi_gpu_of(ctx)->stream));
    return MPCG_SUCCESS;
}

static mpcg_status dev_copy(mpcg_context *ctx, int64_t n, const void *x, void *y)
{
    return dev_copy_bytes(ctx, (size_t)n * sizeof(double), x, y);
}

static mpcg_status dev_zero(mpcg_context *ctx, int64_t n, void *y)
{
    return dev_zero_bytes(ctx, (size_t)n * sizeof(double), y);
}

/* fp64 to and from fp64: a copy */
static mpcg_status dev_demote(mpcg_context *ctx, int64_t n, const double *x, void *y)
{
    return dev_copy(ctx, n, x, y);
}

static mpcg_status dev_promote(mpcg_context *ctx, int64_t n, const void *x, double *y)
{
    return dev_copy(ctx, n, x, y);
}

static const mpcgi_vec_ops vec_device = {
    .name = "cuda",
    .prec = MPCG_PRECISION_FP64,
    .dot_workspace = dev_dot_workspace,
    .dot = dev_dot,
    .axpy = dev_axpy,
    .axpy_wide = dev_axpy_wide,
    .xpay = dev_xpay,
    .copy = dev_copy,
    .zero = dev_zero,
    .demote = dev_demote,
    .promote = dev_promote,
};

/* The fp32 table: float vectors, dots accumulated in double (core/vec_cuda.h). */
static mpcg_status dev_dot_f32(mpcg_context *ctx, void *ws, int64_t n, const void *x,
                               const void *y, double *out)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    MPCG_LAUNCH(ctx, mpcgi_vec_dot_f32(g->stream, n, x, y, ws));
    return dot_result(ctx, g, ws, out);
}

static mpcg_status dev_axpy_f32(mpcg_context *ctx, int64_t n, double a, const void *x, void *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_axpy_f32(mpcgi_gpu_of(ctx)->stream, n, (float)a, x, y));
    return MPCG_SUCCESS;
}

static mpcg_status dev_axpy_wide_f32(mpcg_context *ctx, int64_t n, double a, const void *x,
                                     double *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_axpy_wide_f32(mpcgi_gpu_of(ctx)->stream, n, a, x, y));
    return MPCG_SUCCESS;
}

static mpcg_status dev_xpay_f32(mpcg_context *ctx, int64_t n, const void *x, double a, void *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_xpay_f32(mpcgi_gpu_of(ctx)->stream, n, x, (float)a, y));
    return MPCG_SUCCESS;
}

static mpcg_status dev_copy_f32(mpcg_context *ctx, int64_t n, const void *x, void *y)
{
    return dev_copy_bytes(ctx, (size_t)n * sizeof(float), x, y);
}

static mpcg_status dev_zero_f32(mpcg_context *ctx, int64_t n, void *y)
{
    return dev_zero_bytes(ctx, (size_t)n * sizeof(float), y);
}

static mpcg_status dev_demote_f32(mpcg_context *ctx, int64_t n, const double *x, void *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_demote_f32(mpcgi_gpu_of(ctx)->stream, n, x, y));
    return MPCG_SUCCESS;
}

static mpcg_status dev_promote_f32(mpcg_context *ctx, int64_t n, const void *x, double *y)
{
    MPCG_LAUNCH(ctx, mpcgi_vec_promote_f32(mpcgi_gpu_of(ctx)->stream, n, x, y));
    return MPCG_SUCCESS;
}

static const mpcgi_vec_ops vec_device_f32 = {
    .name = "cuda-fp32",
    .prec = MPCG_PRECISION_FP32,
    .dot_workspace = dev_dot_workspace,
    .dot = dev_dot_f32,
    .axpy = dev_axpy_f32,
    .axpy_wide = dev_axpy_wide_f32,
    .xpay = dev_xpay_f32,
    .copy = dev_copy_f32,
    .zero = dev_zero_f32,
    .demote = dev_demote_f32,
    .promote = dev_promote_f32,
};

const mpcgi_vec_ops *mpcgi_device_vec_ops_f32(void) { return &vec_device_f32; }

const mpcgi_vec_ops *mpcgi_device_vec_ops(void) { return &vec_device; }
