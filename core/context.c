/* core/context.c: creating a context on "auto", "cpu" or "cuda[:N]" */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"

void mpcg_version(int v[3])
{
    if (!v) return;
    v[0] = MPCG_VERSION_MAJOR;
    v[1] = MPCG_VERSION_MINOR;
    v[2] = MPCG_VERSION_PATCH;
}

int mpcgi_context_valid(const mpcg_context *ctx)
{
    return ctx && ctx->magic == MPCGI_CONTEXT_MAGIC;
}

static void use_cpu(mpcg_context *ctx)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    ctx->kind = MPCG_DEVICE_CPU;
    ctx->device_id = -1;
    snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (%d OpenMP thread%s)", threads,
             threads == 1 ? "" : "s");
}

/* "cuda" -> 0, "cuda:N" -> N; -1 if malformed. */
static int parse_cuda_id(const char *s)
{
    if (strcmp(s, "cuda") == 0) return 0;
    if (strncmp(s, "cuda:", 5) != 0 || s[5] < '0' || s[5] > '9') return -1;
    errno = 0;
    char *end;
    long id = strtol(s + 5, &end, 10);
    if (errno || *end || id < 0 || id > 1023) return -1;
    return (int)id;
}

mpcg_status mpcg_context_create(const char *device, mpcg_context **out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcg_context *ctx = NULL;
    mpcg_clear_error(NULL);
    MPCG_ENSURE(NULL, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    if (!device) device = "auto";
    int is_auto = strcmp(device, "auto") == 0, is_cpu = strcmp(device, "cpu") == 0;
    int id = is_auto || is_cpu ? 0 : parse_cuda_id(device);
    MPCG_ENSURE(NULL, id >= 0, MPCG_ERR_INVALID_ARG,
                "device \"%s\" is not one of auto, cpu, cuda, cuda:N", device);

    MPCG_TRY(NULL, st, mpcgi_host_calloc(NULL, 1, sizeof *ctx, &ctx));
    ctx->magic = MPCGI_CONTEXT_MAGIC;
    ctx->log_level = MPCG_LOG_WARN;
    use_cpu(ctx);
    if (!is_cpu && (!is_auto || mpcgi_device_count() > 0)) {
        st = mpcgi_device_open(ctx, id);
        if (st != MPCG_SUCCESS) {
            mpcgi_error_frame(ctx, __FILE__, __LINE__, __func__);
            mpcgi_error_to_thread(ctx); /* the context is about to go */
            goto done;
        }
    }
done:
    if (st != MPCG_SUCCESS) {
        if (ctx) ctx->magic = 0;
        mpcgi_host_free(ctx);
        return st;
    }
    *out = ctx;
    return MPCG_SUCCESS;
}

void mpcg_context_destroy(mpcg_context *ctx)
{
    if (!mpcgi_context_valid(ctx)) return;
    mpcgi_device_close(ctx);
    ctx->magic = 0;
    mpcgi_host_free(ctx);
}

mpcg_device_kind mpcg_context_device_kind(const mpcg_context *ctx)
{
    return mpcgi_context_valid(ctx) ? ctx->kind : MPCG_DEVICE_CPU;
}

const char *mpcg_context_device_name(const mpcg_context *ctx)
{
    return mpcgi_context_valid(ctx) ? ctx->device_name : "invalid context";
}

mpcg_status mpcg_context_set_stream(mpcg_context *ctx, void *stream)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_CHECK(ctx, mpcgi_device_set_stream(ctx, stream));
    return MPCG_SUCCESS;
}

void *mpcg_context_stream(const mpcg_context *ctx)
{
    return mpcgi_context_valid(ctx) ? mpcgi_device_stream(ctx) : NULL;
}

mpcg_status mpcg_context_set_log(mpcg_context *ctx, mpcg_log_level level, mpcg_log_fn fn,
                                 void *user)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, level >= MPCG_LOG_ERROR && level <= MPCG_LOG_DEBUG, MPCG_ERR_INVALID_ARG,
                "log level %d out of range [0, 3]", (int)level);
    ctx->log_level = level;
    ctx->log_fn = fn;
    ctx->log_user = user;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_context_set_cache_dir(mpcg_context *ctx, const char *dir)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    size_t len = dir ? strlen(dir) : 0;
    MPCG_ENSURE(ctx, len < 1000, MPCG_ERR_INVALID_ARG, "cache directory of %zu bytes: at most 999",
                len);
    snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir ? dir : "");
    return MPCG_SUCCESS;
}
