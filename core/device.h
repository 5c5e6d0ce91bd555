/* core/device.h: the device layer (GPU memory, copies, stream); plain C, no CUDA types */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_DEVICE_H
#define MPCG_CORE_DEVICE_H

#include <stddef.h>

#include "core/vec.h"
#include "mpcg.h"

/*
 * Implemented by core/device_cuda.c in a CUDA build and by core/device_stub.c otherwise (the
 * stub reports MPCG_ERR_NO_DEVICE). No other file knows which one is linked.
 */

/* Number of usable GPUs: 0 in a CPU-only build or when the driver finds none. Never fails. */
int mpcgi_device_count(void);

/* Bind ctx to GPU `id`: set ctx->gpu, ctx->device_name, create the stream and library handles.
 * On failure ctx is left as it was. */
mpcg_status mpcgi_device_open(mpcg_context *ctx, int id);

/* Release what mpcgi_device_open created. Accepts a CPU context (no-op). */
void mpcgi_device_close(mpcg_context *ctx);

/* Order all further work on `stream` (a cudaStream_t; NULL: the context's own stream), after
 * waiting for the work queued on the current one; the library handles are re-bound. A CPU
 * context accepts only NULL (MPCG_ERR_INVALID_STATE otherwise). */
mpcg_status mpcgi_device_set_stream(mpcg_context *ctx, void *stream);
/* The stream work is ordered on; NULL on a CPU context. */
void *mpcgi_device_stream(const mpcg_context *ctx);

/* Device memory of ctx's GPU through the shared allocation counter and failure hook
 * (core/alloc.h). MPCG_ERR_DEVICE_ALLOC on failure (*pptr = NULL). */
mpcg_status mpcgi_device_alloc(mpcg_context *ctx, size_t bytes, void *pptr);
/* Accepts NULL. */
void mpcgi_device_free(mpcg_context *ctx, void *p);
/* Bytes ctx may still allocate on its GPU: where a limit is set
 * (mpcg_context_set_device_memory_limit) the limit less what is in use, else the free memory the
 * driver reports; 0 on a CPU context or when the driver cannot say. Records no error. */
size_t mpcgi_device_bytes_left(const mpcg_context *ctx);

typedef enum mpcgi_copy_kind { MPCGI_H2D, MPCGI_D2H, MPCGI_D2D } mpcgi_copy_kind;

/* Copy on the context's stream. Returns when dst may be used by the host (D2H waits). */
mpcg_status mpcgi_device_copy(mpcg_context *ctx, void *dst, const void *src, size_t bytes,
                              mpcgi_copy_kind kind);

/* Wait for all work queued on the context's stream; reports asynchronous kernel errors. */
mpcg_status mpcgi_device_sync(mpcg_context *ctx);

/* One operation the device timer runs: queue it on the context's stream. */
typedef mpcg_status (*mpcgi_device_call)(mpcg_context *ctx, void *arg);

/* Run fn `warmup` times (untimed), then `groups` groups of `per_group` calls back to back, a CUDA
 * event before each group and after the last, all queued on the context's stream behind a
 * kernel that keeps the device busy while they are queued (12 us a call), before the one wait
 * at the end: the steady state of a solve's queued launches or graph, the host's launch time
 * hidden behind the device's work even for calls shorter than their launch, and no event
 * between the calls of a group; seconds[g] is group g's device time per call (seconds has
 * `groups` entries; groups, per_group >= 1). MPCG_ERR_NO_DEVICE on a CPU context or in a
 * CPU-only build. */
mpcg_status mpcgi_device_time_calls(mpcg_context *ctx, mpcgi_device_call fn, void *arg, int warmup,
                                    int groups, int per_group, double *seconds);

/* Seconds of host wall time spent in host-to-device mpcgi_device_copy calls on ctx so far (0 on
 * a CPU context): the benchmarks split a plan's setup into transfers and the rest. A pageable
 * copy returns once its last chunk is staged, so the tail of the DMA counts as "the rest". */
double mpcgi_device_h2d_seconds(const mpcg_context *ctx);

/* The dense vector kernels on device vectors, fp64 and fp32 (NULL in a CPU-only build). */
const mpcgi_vec_ops *mpcgi_device_vec_ops(void);
const mpcgi_vec_ops *mpcgi_device_vec_ops_f32(void);

#endif /* MPCG_CORE_DEVICE_H */
