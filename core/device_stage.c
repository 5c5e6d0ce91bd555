/* core/device_stage.c: large host-to-device copies through two pinned buffers, the host's copy
 * into one overlapped with the DMA out of the other */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/cuda_check.h"
#include "core/device_cuda.h"
#include "core/error.h"

/*
 * A cudaMemcpyAsync from pageable memory is staged by the driver through its own pinned buffer, one
 * thread copying, several times slower than a copy from pinned memory (docs/gpu.md, "Where pointers
 * live"). Here the host threads (OpenMP) copy a chunk into pinned buffer k while the DMA of the
 * other buffer runs; an event per buffer says when its last DMA has landed, so a buffer is refilled
 * only after that, in this copy or a later one. The caller's array may change as soon as the call
 * returns (every byte is in a pinned buffer or on the device by then), as with the pageable copy it
 * replaces.
 */

/* dst[0, len) = src[0, len), with the host's threads, in pieces of 256 KiB (32 to a buffer). */
static void copy_threads(char *dst, const char *src, size_t len)
{
    const size_t piece = (size_t)256 << 10;
    const long pieces = (long)((len + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (pieces > 1)
    for (long p = 0; p < pieces; p++) {
        const size_t at = (size_t)p * piece, n = len - at < piece ? len - at : piece;
        memcpy(dst + at, src + at, n);
    }
}

/* The two buffers and their events, at the first staged copy; 0 when they cannot be had (no
 * pinned memory left: the caller copies as before, the log says so once). */
static int stage_ready(mpcg_context *ctx, struct mpcgi_gpu *g)
{
    if (g->stage[0] && g->stage[1]) return 1;
    if (g->stage_refused) return 0;
    for (int k = 0; k < 2; k++) {
        if (!g->stage[k] && cudaHostAlloc(&g->stage[k], MPCGI_STAGE_CHUNK,
                                          cudaHostAllocDefault) != cudaSuccess) {
            g->stage[k] = NULL;
            break;
        }
        if (!g->stage_done[k] &&
            cudaEventCreateWithFlags(&g->stage_done[k], cudaEventDisableTiming) != cudaSuccess) {
            g->stage_done[k] = NULL;
            break;
        }
    }
    if (g->stage[0] && g->stage[1] && g->stage_done[0] && g->stage_done[1]) return 1;
    (void)cudaGetLastError();
    g->stage_refused = 1;
    mpcgi_log(ctx, MPCG_LOG_INFO, "device: no %d MiB of pinned host memory for staged copies: "
              "large host-to-device copies go through the driver's staging",
              2 * (int)(MPCGI_STAGE_CHUNK >> 20));
    return 0;
}

int mpcgi_device_stage_wanted(mpcg_context *ctx, struct mpcgi_gpu *g, size_t bytes)
{
    return bytes >= MPCGI_STAGE_MIN && stage_ready(ctx, g);
}

mpcg_status mpcgi_device_stage_h2d(mpcg_context *ctx, struct mpcgi_gpu *g, void *dst,
                                   const void *src, size_t bytes)
{
    int k = 0;
    for (size_t at = 0; at < bytes; at += MPCGI_STAGE_CHUNK, k ^= 1) {
        const size_t len = bytes - at < MPCGI_STAGE_CHUNK ? bytes - at : MPCGI_STAGE_CHUNK;
        MPCG_CUDA(ctx, cudaEventSynchronize(g->stage_done[k])); /* its last DMA has landed */
        copy_threads(g->stage[k], (const char *)src + at, len);
        MPCG_CUDA(ctx, cudaMemcpyAsync((char *)dst + at, g->stage[k], len,
                                       cudaMemcpyHostToDevice, g->stream));
        MPCG_CUDA(ctx, cudaEventRecord(g->stage_done[k], g->stream));
    }
    return MPCG_SUCCESS;
}

void mpcgi_device_stage_free(struct mpcgi_gpu *g)
{
    for (int k = 0; k < 2; k++) {
        if (g->stage_done[k]) {
            (void)cudaEventSynchronize(g->stage_done[k]);
            (void)cudaEventDestroy(g->stage_done[k]);
        }
        if (g->stage[k]) (void)cudaFreeHost(g->stage[k]);
        g->stage[k] = NULL;
        g->stage_done[k] = NULL;
    }
}
