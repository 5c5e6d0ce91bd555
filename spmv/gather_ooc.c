/* spmv/gather_ooc.c: the gather backend's out-of-core mode (seed 002's memory accelerator,
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
#include "spmv/gather_ooc.h"

/*
 * Work in progress (issue 22): first run on an H200 (same iterations as in-core); the model's
 * timing (gather.model=on) not yet run.
 *
 * Chunk c (C threads, mpcgi_fold_tile_at) uses buffer b = c mod BUFS:
 *   host: once buffer b's last copy has landed (event staged[b]), gather xg = x[col] of chunk c
 *         into the pinned staging h_xg[b] (OpenMP);
 *   copy stream: once the kernel that read device buffer b is done (event consumed[b]), copy
 *         the chunk's values and h_xg[b] to d_val[b], d_xg[b]; record staged[b];
 *   the context's stream: wait staged[b], run the chunk's direct kernel; record consumed[b].
 * The host gathers chunk c + 1 while chunk c's copies run and chunk c - 1 is multiplied. After
 * the last chunk, fold's fixup adds the folded rows' pieces on the context's stream.
 */

#define BUFS 3

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
    cudaEvent_t staged[BUFS], consumed[BUFS];
    /* the performance model (mpcgi_gather_ooc_model): with `model`, every product records
     * timing events per chunk and waits for its end */
    int model;
    cudaEvent_t *t_copy0, *t_copy1, *t_k0, *t_k1; /* per chunk */
    mpcgi_gather_ooc_timing last;
};

/* Vectors the solver holds beside the plan, reserved out of the device-memory limit. */
#define RESERVED_VECTORS 8

int64_t mpcgi_gather_ooc_chunk_threads(size_t limit, size_t in_use, int64_t n, int F,
                                       int64_t np)
{
    const size_t reserve = (size_t)RESERVED_VECTORS * (size_t)n * 8;
    const size_t per_thread = (size_t)BUFS * (size_t)F * 16; /* values and xg, 8 bytes each */
    if (limit == 0) return np < (1 << 20) ? (np + 31) / 32 * 32 : (1 << 20);
    if (limit <= in_use + reserve) return 0;
    int64_t C = (int64_t)((limit - in_use - reserve) / per_thread) / 32 * 32;
    if (C > np) C = (np + 31) / 32 * 32;
    return C;
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
    for (int64_t c = 0; o->t_copy0 && c < o->tiles; c++) {
        if (o->t_copy0[c]) (void)cudaEventDestroy(o->t_copy0[c]);
        if (o->t_copy1[c]) (void)cudaEventDestroy(o->t_copy1[c]);
        if (o->t_k0[c]) (void)cudaEventDestroy(o->t_k0[c]);
        if (o->t_k1[c]) (void)cudaEventDestroy(o->t_k1[c]);
    }
    mpcgi_host_free(o->t_copy0), mpcgi_host_free(o->t_copy1);
    mpcgi_host_free(o->t_k0), mpcgi_host_free(o->t_k1);
    if (o->h_val) (void)cudaFreeHost(o->h_val);
    if (o->h_col) (void)cudaFreeHost(o->h_col);
    if (o->h_x) (void)cudaFreeHost(o->h_x);
    if (o->copy) (void)cudaStreamDestroy(o->copy);
    mpcgi_host_free(o);
}

mpcg_status mpcgi_gather_ooc_create(mpcg_context *ctx, const mpcgi_fold_plan *p, int64_t C,
                                    int model, gather_ooc **out)
{
    mpcg_status st = MPCG_SUCCESS;
    gather_ooc *o = NULL;
    const mpcgi_fold_layout *L = &p->L;
    MPCG_ENSURE(ctx, C >= 32 && C % 32 == 0, MPCG_ERR_INVALID_ARG,
                "backend gather: %lld threads a chunk (a multiple of 32 is needed)",
                (long long)C);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *o, &o));
    o->F = L->F, o->C = C, o->n = L->n, o->np = L->np, o->pieces = L->pieces;
    o->tiles = mpcgi_fold_tiles(L, C);
    o->tile_slots = (size_t)L->F * (size_t)C;
    const size_t all = (size_t)o->tiles * o->tile_slots;
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_val, all * sizeof *o->h_val));
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_col, all * sizeof *o->h_col));
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&o->h_x, ((size_t)L->n + 1) * 8));
    MPCG_CUDA_GOTO(ctx, st, cudaStreamCreateWithFlags(&o->copy, cudaStreamNonBlocking));
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
        const size_t t = (size_t)o->tiles;
        MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, t, sizeof(cudaEvent_t), &o->t_copy0));
        MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, t, sizeof(cudaEvent_t), &o->t_copy1));
        MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, t, sizeof(cudaEvent_t), &o->t_k0));
        MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, t, sizeof(cudaEvent_t), &o->t_k1));
        for (size_t c = 0; c < t; c++) {
            MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&o->t_copy0[c]));
            MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&o->t_copy1[c]));
            MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&o->t_k0[c]));
            MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&o->t_k1[c]));
        }
    }
    mpcgi_fold_tile_cols(L, C, o->h_col);
    mpcgi_fold_tile_f64(L, p->A, C, p->A->val, o->h_val);
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
static mpcg_status model_sums(mpcg_context *ctx, gather_ooc *o, double gather_s, double t0)
{
    mpcgi_gather_ooc_timing *m = &o->last;
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    MPCG_CUDA(ctx, cudaStreamSynchronize(o->copy));
    m->wall_ms = (mpcgi_wtime() - t0) * 1e3;
    m->gather_ms = gather_s * 1e3;
    m->copy_ms = m->kernel_ms = 0;
    for (int64_t c = 0; c < o->tiles; c++) {
        float a = 0, b = 0;
        MPCG_CUDA(ctx, cudaEventElapsedTime(&a, o->t_copy0[c], o->t_copy1[c]));
        MPCG_CUDA(ctx, cudaEventElapsedTime(&b, o->t_k0[c], o->t_k1[c]));
        m->copy_ms += a, m->kernel_ms += b;
    }
    m->chunks = o->tiles;
    m->slots = (double)o->tiles * (double)o->tile_slots;
    m->copy_bytes = m->slots * 16; /* values and gathered x */
    m->products++;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_gather_ooc_apply(mpcg_context *ctx, gather_ooc *o, const mpcgi_fold_args *a,
                                   const double *x, double *y, double *piece)
{
    cudaStream_t compute = mpcgi_gpu_of(ctx)->stream;
    const double t0 = mpcgi_wtime();
    double gather_s = 0;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, o->h_x, x, (size_t)o->n * 8, MPCGI_D2H));
    for (int b = 0; b < BUFS; b++) MPCG_CUDA(ctx, cudaEventRecord(o->consumed[b], compute));
    for (int64_t c = 0; c < o->tiles; c++) {
        const int b = (int)(c % BUFS);
        /* h_xg[b] is free once its last copy has landed, in this product or the one before
         * (an event never recorded counts as done) */
        MPCG_CUDA(ctx, cudaEventSynchronize(o->staged[b]));
        const double g0 = mpcgi_wtime();
        host_gather(o, c, o->h_xg[b]);
        gather_s += mpcgi_wtime() - g0;
        MPCG_CUDA(ctx, cudaStreamWaitEvent(o->copy, o->consumed[b], 0));
        if (o->model) MPCG_CUDA(ctx, cudaEventRecord(o->t_copy0[c], o->copy));
        MPCG_CUDA(ctx, cudaMemcpyAsync(o->d_val[b], o->h_val + (size_t)c * o->tile_slots,
                                       o->tile_slots * 8, cudaMemcpyHostToDevice, o->copy));
        MPCG_CUDA(ctx, cudaMemcpyAsync(o->d_xg[b], o->h_xg[b], o->tile_slots * 8,
                                       cudaMemcpyHostToDevice, o->copy));
        if (o->model) MPCG_CUDA(ctx, cudaEventRecord(o->t_copy1[c], o->copy));
        MPCG_CUDA(ctx, cudaEventRecord(o->staged[b], o->copy));
        MPCG_CUDA(ctx, cudaStreamWaitEvent(compute, o->staged[b], 0));
        if (o->model) MPCG_CUDA(ctx, cudaEventRecord(o->t_k0[c], compute));
        MPCG_LAUNCH(ctx, mpcgi_gather_ooc_chunk(compute, o->F, o->C, c * o->C, o->n, o->pieces,
                                                o->np, o->d_val[b], o->d_xg[b], y, piece));
        if (o->model) MPCG_CUDA(ctx, cudaEventRecord(o->t_k1[c], compute));
        MPCG_CUDA(ctx, cudaEventRecord(o->consumed[b], compute));
    }
    MPCG_LAUNCH(ctx, mpcgi_gather_fixup_f64(a, x, y, piece));
    if (o->model) MPCG_CHECK(ctx, model_sums(ctx, o, gather_s, t0));
    return MPCG_SUCCESS;
}

const mpcgi_gather_ooc_timing *mpcgi_gather_ooc_model(const gather_ooc *o)
{
    return o && o->model && o->last.products > 0 ? &o->last : NULL;
}

int64_t mpcgi_gather_ooc_chunk_size(const gather_ooc *o)
{
    return o ? o->C : 0;
}
