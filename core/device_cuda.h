/* core/device_cuda.h: the GPU state behind mpcg_context.gpu (CUDA builds only) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_DEVICE_CUDA_H
#define MPCG_CORE_DEVICE_CUDA_H

#include "core/context.h"
#include "core/cuda_check.h"

#define MPCGI_PINNED_BYTES 256 /* struct mpcgi_gpu.scalar_host */

/*
 * Created by mpcgi_device_open, released by mpcgi_device_close. Only .c files compiled in a CUDA
 * build include this header (core/device_cuda.c and the cuSPARSE-based backends); everything
 * else sees the plain-C contract of core/device.h.
 *
 * All work of a context is ordered on `stream`: the context's own non-blocking stream, or the
 * caller's (mpcg_context_set_stream). Both library handles are bound to `stream`, so a change
 * of stream re-binds them.
 */
struct mpcgi_gpu {
    int id;                     /* CUDA device ordinal */
    struct cudaDeviceProp props;
    cudaStream_t own_stream;    /* created by mpcgi_device_open */
    cudaStream_t stream;        /* where all work goes: own_stream or the caller's */
    cublasHandle_t cublas;
    cusparseHandle_t cusparse;
    /* pinned host memory, MPCGI_PINNED_BYTES: dot products land here, and small device-to-host
     * copies pass through it (a pageable copy is staged by the driver, slower) */
    double *scalar_host;
    /* device memory held through mpcgi_device_alloc, for mpcg_context_set_device_memory_limit;
     * the block table uses plain malloc, outside the counted allocator of core/alloc.h */
    size_t mem_limit;           /* 0: no limit */
    size_t mem_in_use;          /* sum of blocks[].bytes */
    struct mpcgi_gpu_block {
        void *p;
        size_t bytes;
    } *blocks;
    size_t nblocks, cap_blocks;
    double h2d_seconds; /* mpcgi_device_h2d_seconds */
    /* host-to-device copies of MPCGI_STAGE_MIN bytes or more: two pinned buffers of
     * MPCGI_STAGE_CHUNK bytes and an event each (core/device_stage.c), made at the first one;
     * stage_refused: they could not be had, the driver's staging is used */
    void *stage[2];
    cudaEvent_t stage_done[2];
    int stage_refused;
};

#define MPCGI_STAGE_CHUNK ((size_t)8 << 20) /* bytes of each staging buffer */
#define MPCGI_STAGE_MIN ((size_t)32 << 20)  /* smaller copies go through the driver */

/* core/device_stage.c: 1 when a host-to-device copy of `bytes` goes through the staging buffers
 * (made here at the first one); the copy; the buffers' release (with the context). */
int mpcgi_device_stage_wanted(mpcg_context *ctx, struct mpcgi_gpu *g, size_t bytes);
mpcg_status mpcgi_device_stage_h2d(mpcg_context *ctx, struct mpcgi_gpu *g, void *dst,
                                   const void *src, size_t bytes);
void mpcgi_device_stage_free(struct mpcgi_gpu *g);

/* The GPU state of a CUDA context (NULL on a CPU context). */
static inline struct mpcgi_gpu *mpcgi_gpu_of(const mpcg_context *ctx)
{
    return (struct mpcgi_gpu *)ctx->gpu;
}

#endif /* MPCG_CORE_DEVICE_CUDA_H */
