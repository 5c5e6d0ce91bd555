/* spmv/fold/gather_ooc.c: the gather backend's out-of-core mode (the Fold paper's accelerator,
 * emulated by host threads): the values and columns in pinned host memory in chunk tiles, x
 * copied to pinned memory at each product, each chunk's x gathered on the host while the chunk
 * before streams over PCIe and the one before that is multiplied */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/timer.h"
#include "spmv/fold/kernels.h"
#include "spmv/fold/gather_ooc.h"

/*
 * x goes to pinned host memory on the context's stream. Chunk c (C threads,
 * mpcgi_fold_tile_at) uses buffer b = c mod BUFS:
 *   copy stream: once the kernel that read device buffer b is done (event consumed[b]), copy
 *         the chunk's values to d_val[b] (they need no gather: the copy engine starts on them
 *         while the host gathers);
 *   host: once buffer b's last gathered x has landed (event staged[b]), gather xg = x[col] of
 *         chunk c into the pinned staging h_xg[b] (OpenMP); copy stream: h_xg[b] to d_xg[b],
 *         record staged[b];
 *   the context's stream: wait staged[b], run the chunk's direct kernel; record consumed[b].
 * The host gathers chunk c + 1 while chunk c's copies run and chunk c - 1 is multiplied. After
 * the last chunk, fold's fixup adds the folded rows' pieces on the context's stream.
 */

#define BUFS 3
enum { EV_V0, EV_V1, EV_X0, EV_X1, EV_K0, EV_K1, EV_N };

struct gather_ooc {
    int F;
    int64_t C, tiles, n, np, pieces;
    size_t tile_slots;         /* F C */
    double *h_val;             /* pinned: tiles F C values, chunk-tiled */
    int32_t *h_col;            /* pinned: the same, columns */
    double *h_x;               /* pinned: n */
    double *h_xg[BUFS];        /* pinned staging: F C each */
    double *d_val[BUFS], *d_xg[BUFS];
    cudaStream_t copy;
    cudaEvent_t staged[BUFS], consumed[BUFS], x_ready;
    /* the performance model (mpcgi_gather_ooc_model): with `model`, every product records
     * timing events per chunk and waits for its end */
    int model;
    cudaEvent_t *ev; /* per chunk, EV_N: around the values copy, the xg copy, the kernel */
    mpcgi_gather_ooc_timing last;
};

/* Vectors the solver holds beside the plan, reserved out of the device-memory limit. */
#define RESERVED_VECTORS 8

/* The automatic chunk: about 1/16 of the threads, so the stages overlap over many chunks,
 * but copies of at least 4 MiB of values (a shorter copy falls off the link's rate) and at
 * most 64 MiB; never past the threads. */
#define CHUNKS_WANTED 16
#define CHUNK_MIN_BYTES ((size_t)4 << 20)
#define CHUNK_MAX_BYTES ((size_t)64 << 20)

#define UNIT MPCGI_FOLD_THREADS /* a chunk is whole blocks of the direct kernel */
static int64_t round_unit(int64_t c) { return (c + UNIT - 1) / UNIT * UNIT; }

int64_t mpcgi_gather_ooc_chunk_threads(size_t limit, size_t in_use, int64_t n, int F,
                                       int64_t np)
{
    const size_t reserve = (size_t)RESERVED_VECTORS * (size_t)n * 8;
    const size_t per_thread = (size_t)BUFS * (size_t)F * 16; /* values and xg, 8 bytes each */
    int64_t C = round_unit((np + CHUNKS_WANTED - 1) / CHUNKS_WANTED);
    const int64_t lo = round_unit((int64_t)(CHUNK_MIN_BYTES / ((size_t)F * 8)));
    const int64_t hi = (int64_t)(CHUNK_MAX_BYTES / ((size_t)F * 8)) / UNIT * UNIT;
    if (C < lo) C = lo;
    if (C > hi) C = hi > UNIT ? hi : UNIT;
    if (C > round_unit(np)) C = round_unit(np);
    if (limit == 0) return C;
    if (limit <= in_use + reserve) return 0;
    const int64_t fits = (int64_t)((limit - in_use - reserve) / per_thread) / UNIT * UNIT;
    return fits < C ? fits : C;
}

void mpcgi_gather_ooc_free(mpcg_context *ctx, gather_ooc *o)
{
    if (!o) return;
    for (int b = 0; b < BUFS; b++) {
        if (o->h_xg[b]) (void)cudaFreeHost(o->h_xg[b]);
        mpcgi_device_free(ctx, o->d_val[b]), mpcgi_device_free(ctx, o->d_xg[b]);
        if (o->staged[b]) (void)cudaEventDestroy(o->staged[b]);
        if (o->consumed[b]) (void)cudaEventDestroy(o->consumed[b]);
    }
    for (int64_t i = 0; o->ev && i < o->tiles * EV_N; i++)
        if (o->ev[i]) (void)cudaEventDestroy(o->ev[i]);
    mpcgi_host_free(o->ev);
    if (o->h_val) (void)cudaFreeHost(o->h_val);
    if (o->h_col) (void)cudaFreeHost(o->h_col);
    if (o->h_x) (void)cudaFreeHost(o->h_x);
    if (o->x_ready) (void)cudaEventDestroy(o->x_ready);
    if (o->copy) (void)cudaStreamDestroy(o->copy);
    mpcgi_host_free(o);
}

/* The model's link: the first chunks' values copied to the device buffers on the copy stream,
 * once to warm up and once timed by events (at most 16 chunks and 1 GiB). */
static mpcg_status measure_link(mpcg_context *ctx, gather_ooc *o)
{
    int64_t k = o->tiles < 16 ? o->tiles : 16;
    while (k > 1 && (double)k * (double)o->tile_slots * 8 > 1073741824.0) k--;
    float ms = 0;
    for (int rep = 0; rep < 2; rep++) {
        MPCG_CUDA(ctx, cudaEventRecord(o->ev[EV_V0], o->copy));
        for (int64_t c = 0; c < k; c++)
            MPCG_CUDA(ctx, cudaMemcpyAsync(o->d_val[c % BUFS],
                                           o->h_val + (size_t)c * o->tile_slots,
                                           o->tile_slots * 8, cudaMemcpyHostToDevice, o->copy));
        MPCG_CUDA(ctx, cudaEventRecord(o->ev[EV_V1], o->copy));
        MPCG_CUDA(ctx, cudaEventSynchronize(o->ev[EV_V1]));
    }
    MPCG_CUDA(ctx, cudaEventElapsedTime(&ms, o->ev[EV_V0], o->ev[EV_V1]));
    o->last.link_gbs = (double)k * (double)o->tile_slots * 8 / ((double)ms * 1e-3) * 1e-9;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_gather_ooc_create(mpcg_context *ctx, const mpcgi_fold_plan *p, int64_t C,
                                    int model, gather_ooc **out)
{
    mpcg_status st = MPCG_SUCCESS;
    gather_ooc *o = NULL;
    const mpcgi_fold_layout *L = &p->L;
    MPCG_ENSURE(ctx, C >= UNIT && C % UNIT == 0, MPCG_ERR_INVALID_ARG,
                "backend gather: %lld threads a chunk (a multiple of %d is needed)", (long long)C,
                UNIT);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *o, &o));
    o->F = L->F, o->C = C, o->n = L->n, o->np = L->np, o->pieces = L->pieces;
    o->tiles = mpcgi_fold_tiles(L, C);
    o->tile_slots = (size_t)L->F * (size_t)C;
    const size_t all = (size_t)o->tiles * o->tile_slots;
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_val, all * sizeof *o->h_val));
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_col, all * sizeof *o->h_col));
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_x, ((size_t)L->n + 1) * 8));
    MPCG_CUDA_GOTO(ctx, st, cudaStreamCreateWithFlags(&o->copy, cudaStreamNonBlocking));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreateWithFlags(&o->x_ready, cudaEventDisableTiming));
    for (int b = 0; b < BUFS; b++) {
        MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_xg[b], o->tile_slots * 8));
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, o->tile_slots * 8, &o->d_val[b]));
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, o->tile_slots * 8, &o->d_xg[b]));
        MPCG_CUDA_GOTO(ctx, st, cudaEventCreateWithFlags(&o->staged[b], cudaEventDisableTiming));
        MPCG_CUDA_GOTO(ctx, st,
                       cudaEventCreateWithFlags(&o->consumed[b], cudaEventDisableTiming));
    }
    o->model = model;
    if (model) {
        const size_t t = (size_t)o->tiles * EV_N;
        MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, t, sizeof(cudaEvent_t), &o->ev));
        for (size_t i = 0; i < t; i++) MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&o->ev[i]));
    }
    mpcgi_fold_tile_cols(L, C, o->h_col);
    mpcgi_fold_tile_f64(L, p->A, C, p->A->val, o->h_val);
    if (model) MPCG_TRY(ctx, st, measure_link(ctx, o));
    *out = o;
done:
    if (st != MPCG_SUCCESS) mpcgi_gather_ooc_free(ctx, o);
    return st;
}

mpcg_status mpcgi_gather_ooc_values(mpcg_context *ctx, gather_ooc *o, const mpcgi_fold_plan *p)
{
    MPCG_CUDA(ctx, cudaStreamSynchronize(o->copy)); /* no copy still reads the old tiles */
    mpcgi_fold_tile_f64(&p->L, p->A, o->C, p->A->val, o->h_val);
    return MPCG_SUCCESS;
}

/* xg of chunk c into dst: x at the chunk's columns (the emulated accelerator's gather). */
static void host_gather(const gather_ooc *o, int64_t c, double *dst)
{
    const int32_t *col = o->h_col + (size_t)c * o->tile_slots;
    const double *x = o->h_x;
    const int64_t m = (int64_t)o->tile_slots;
#pragma omp parallel for schedule(static) if (m > 65536)
    for (int64_t i = 0; i < m; i++) dst[i] = x[col[i]];
}

/* The model's sums of one product (o->model): host gather wall time, copy and kernel times from
 * the events, the whole product's wall time. */
static mpcg_status model_sums(mpcg_context *ctx, gather_ooc *o, double x_s, double gather_s,
                              double t0)
{
    mpcgi_gather_ooc_timing *m = &o->last;
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    MPCG_CUDA(ctx, cudaStreamSynchronize(o->copy));
    m->wall_ms = (mpcgi_wtime() - t0) * 1e3;
    m->x_ms = x_s * 1e3;
    m->gather_ms = gather_s * 1e3;
    m->copy_ms = m->kernel_ms = 0;
    for (int64_t c = 0; c < o->tiles; c++) {
        const cudaEvent_t *e = o->ev + c * EV_N;
        float v = 0, x = 0, k = 0;
        MPCG_CUDA(ctx, cudaEventElapsedTime(&v, e[EV_V0], e[EV_V1]));
        MPCG_CUDA(ctx, cudaEventElapsedTime(&x, e[EV_X0], e[EV_X1]));
        MPCG_CUDA(ctx, cudaEventElapsedTime(&k, e[EV_K0], e[EV_K1]));
        m->copy_ms += (double)v + (double)x, m->kernel_ms += k;
    }
    m->chunks = o->tiles;
    m->slots = (double)o->tiles * (double)o->tile_slots;
    m->copy_bytes = m->slots * 16; /* values and gathered x */
    m->products++;
    return MPCG_SUCCESS;
}

/* Record event i of chunk c on stream s when the model is on. */
static mpcg_status mark(mpcg_context *ctx, const gather_ooc *o, int64_t c, int i, cudaStream_t s)
{
    if (o->model) MPCG_CUDA(ctx, cudaEventRecord(o->ev[c * EV_N + i], s));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_gather_ooc_apply(mpcg_context *ctx, gather_ooc *o, const mpcgi_fold_args *a,
                                   const double *x, double *y, void *ws, double *dot)
{
    cudaStream_t compute = mpcgi_gpu_of(ctx)->stream;
    const double t0 = mpcgi_wtime();
    double gather_s = 0, x_s = 0;
    const size_t bytes = o->tile_slots * 8;
    /* x to the host on the context's stream (after what wrote x), while the copy stream
     * starts on the first chunks' values */
    MPCG_CUDA(ctx, cudaMemcpyAsync(o->h_x, x, (size_t)o->n * 8, cudaMemcpyDeviceToHost, compute));
    MPCG_CUDA(ctx, cudaEventRecord(o->x_ready, compute));
    for (int64_t c = 0; c < o->tiles; c++) {
        const int b = (int)(c % BUFS);
        MPCG_CUDA(ctx, cudaStreamWaitEvent(o->copy, o->consumed[b], 0));
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_V0, o->copy));
        MPCG_CUDA(ctx, cudaMemcpyAsync(o->d_val[b], o->h_val + (size_t)c * o->tile_slots, bytes,
                                       cudaMemcpyHostToDevice, o->copy));
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_V1, o->copy));
        if (c == 0) {
            MPCG_CUDA(ctx, cudaEventSynchronize(o->x_ready));
            x_s = mpcgi_wtime() - t0;
        }
        /* h_xg[b] is free once its last copy has landed, in this product or the one before
         * (an event never recorded counts as done) */
        MPCG_CUDA(ctx, cudaEventSynchronize(o->staged[b]));
        const double g0 = mpcgi_wtime();
        host_gather(o, c, o->h_xg[b]);
        gather_s += mpcgi_wtime() - g0;
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_X0, o->copy));
        MPCG_CUDA(ctx, cudaMemcpyAsync(o->d_xg[b], o->h_xg[b], bytes, cudaMemcpyHostToDevice,
                                       o->copy));
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_X1, o->copy));
        MPCG_CUDA(ctx, cudaEventRecord(o->staged[b], o->copy));
        MPCG_CUDA(ctx, cudaStreamWaitEvent(compute, o->staged[b], 0));
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_K0, compute));
        MPCG_LAUNCH(ctx, mpcgi_gather_ooc_chunk(a, o->C, c * o->C, o->d_val[b], o->d_xg[b], x,
                                                y, ws, dot != NULL));
        MPCG_CHECK(ctx, mark(ctx, o, c, EV_K1, compute));
        MPCG_CUDA(ctx, cudaEventRecord(o->consumed[b], compute));
    }
    MPCG_LAUNCH(ctx, mpcgi_gather_ooc_finish(a, x, y, ws, dot));
    if (o->model) MPCG_CHECK(ctx, model_sums(ctx, o, x_s, gather_s, t0));
    return MPCG_SUCCESS;
}

static double max2(double a, double b) { return a > b ? a : b; }

double mpcgi_gather_ooc_predict(const mpcgi_gather_ooc_timing *m)
{
    const double k = (double)m->chunks;
    const double g = m->gather_ms / k, kern = m->kernel_ms / k;
    const double half = m->copy_bytes / (m->link_gbs * 1e9) * 1e3 / (2 * k); /* one copy */
    double host = 0, link = 0, gpu = 0; /* when each is free */
    double staged[BUFS] = {0};
    for (int64_t c = 0; c < m->chunks; c++) {
        const double enqueued = host; /* the values copy is enqueued as the host gets here */
        link = max2(link, enqueued) + half;
        host = max2(max2(host, c == 0 ? m->x_ms : 0), staged[c % BUFS]) + g;
        link = max2(link, host) + half; /* the gathered x, once gathered */
        staged[c % BUFS] = link;
        gpu = max2(gpu, link) + kern;
    }
    return gpu;
}

const mpcgi_gather_ooc_timing *mpcgi_gather_ooc_model(const gather_ooc *o)
{
    return o && o->model && o->last.products > 0 ? &o->last : NULL;
}

int64_t mpcgi_gather_ooc_chunk_size(const gather_ooc *o)
{
    return o ? o->C : 0;
}
