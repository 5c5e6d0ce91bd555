/* core/context.h: the context object (device, log, last error) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CONTEXT_H
#define MPCG_CORE_CONTEXT_H

#include <string.h>

#include "mpcg.h"

#define MPCGI_ERR_LEN 2048
#define MPCGI_CONTEXT_MAGIC 0x6d706367 /* "mpcg" */

struct mpcg_context {
    unsigned magic;            /* MPCGI_CONTEXT_MAGIC while alive */
    mpcg_device_kind kind;     /* what the context computes on */
    int device_id;             /* GPU ordinal, -1 on the CPU */
    char device_name[160];
    char device_model[128]; /* the GPU's model (cudaDeviceProp.name); "" on the CPU */
    char cache_dir[1024];   /* mpcg_context_set_cache_dir; "" (the default): no cache */
    mpcg_log_fn log_fn;
    void *log_user;
    mpcg_log_level log_level;
    char err[MPCGI_ERR_LEN];   /* first failure since mpcg_clear_error */
    int err_set;
    int err_frames;
    void *gpu;                 /* struct mpcgi_gpu (core/device.h) on a GPU, else NULL */
};

/* 1 if ctx points at a live context. */
int mpcgi_context_valid(const mpcg_context *ctx);

/* The context's recorded error, put aside while a step that may fail on its own runs
 * (mpcgi_error_save clears it) and put back after it (mpcgi_error_restore). */
typedef struct mpcgi_saved_error {
    char err[MPCGI_ERR_LEN];
    int set, frames;
} mpcgi_saved_error;

static inline void mpcgi_error_save(mpcg_context *ctx, mpcgi_saved_error *e)
{
    memcpy(e->err, ctx->err, sizeof e->err);
    e->set = ctx->err_set;
    e->frames = ctx->err_frames;
    mpcg_clear_error(ctx);
}

static inline void mpcgi_error_restore(mpcg_context *ctx, const mpcgi_saved_error *e)
{
    memcpy(ctx->err, e->err, sizeof ctx->err);
    ctx->err_set = e->set;
    ctx->err_frames = e->frames;
}

#endif /* MPCG_CORE_CONTEXT_H */
