/* core/device_stub.c: the device layer of a CPU-only build (configure --without-cuda) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/context.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/error.h"

int mpcgi_device_count(void) { return 0; }

mpcg_status mpcgi_device_open(mpcg_context *ctx, int id)
{
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE,
              "cannot use GPU %d: mpcg was built without CUDA (configure --with-cuda)", id);
}

void mpcgi_device_close(mpcg_context *ctx) { (void)ctx; }

mpcg_status mpcgi_device_set_stream(mpcg_context *ctx, void *stream)
{
    MPCG_ENSURE(ctx, !stream, MPCG_ERR_INVALID_STATE,
                "context %s runs on the CPU: it takes no CUDA stream", ctx->device_name);
    return MPCG_SUCCESS;
}

void *mpcgi_device_stream(const mpcg_context *ctx)
{
    (void)ctx;
    return NULL;
}

mpcg_status mpcg_context_set_device_memory_limit(mpcg_context *ctx, size_t bytes)
{
    (void)bytes; /* a CPU context holds no device memory: there is nothing to cap */
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_device_alloc(mpcg_context *ctx, size_t bytes, void *pptr)
{
    *(void **)pptr = NULL;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "cannot allocate %zu bytes of device memory: no GPU in "
              "a CPU-only build", bytes);
}

void mpcgi_device_free(mpcg_context *ctx, void *p)
{
    (void)ctx;
    (void)p;
}

mpcg_status mpcgi_device_copy(mpcg_context *ctx, void *dst, const void *src, size_t bytes,
                              mpcgi_copy_kind kind)
{
    (void)dst;
    (void)src;
    (void)kind;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "cannot copy %zu bytes to or from a device: no GPU in a "
              "CPU-only build", bytes);
}

size_t mpcgi_device_bytes_left(const mpcg_context *ctx)
{
    (void)ctx;
    return 0;
}

double mpcgi_device_h2d_seconds(const mpcg_context *ctx)
{
    (void)ctx;
    return 0;
}

mpcg_status mpcgi_device_sync(mpcg_context *ctx)
{
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "no GPU in a CPU-only build");
}

mpcg_status mpcgi_device_time_calls(mpcg_context *ctx, mpcgi_device_call fn, void *arg, int warmup,
                                    int groups, int per_group, double *seconds)
{
    (void)fn, (void)arg, (void)warmup, (void)groups, (void)per_group, (void)seconds;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "no GPU to time on in a CPU-only build");
}

const mpcgi_vec_ops *mpcgi_device_vec_ops(void) { return NULL; }
const mpcgi_vec_ops *mpcgi_device_vec_ops_f32(void) { return NULL; }

/* Device CSR views: none can exist in this build (mpcgi_view_open refuses the first). */
mpcg_status mpcgi_view_open(mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr_view *v)
{
    (void)n, (void)nnz, (void)v;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "mpcg was built without CUDA (configure --with-cuda): "
              "it takes no device CSR arrays");
}

static mpcg_status no_view(mpcg_context *ctx)
{
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "no device CSR view in a CPU-only build");
}

mpcg_status mpcgi_view_validate(mpcg_context *ctx, const mpcgi_csr *A)
{
    (void)A;
    return no_view(ctx);
}

mpcg_status mpcgi_view_check_pointer(mpcg_context *ctx, const void *p, size_t align,
                                     const char *what)
{
    (void)p, (void)align, (void)what;
    return no_view(ctx);
}

void mpcgi_view_release(mpcg_context *ctx, mpcgi_csr_view *v) { (void)ctx, (void)v; }

mpcg_status mpcgi_view_mirror(mpcg_context *ctx, mpcgi_csr *A, int level)
{
    (void)A, (void)level;
    return no_view(ctx);
}

mpcg_status mpcgi_view_mirror_values(mpcg_context *ctx, mpcgi_csr *A)
{
    (void)A;
    return no_view(ctx);
}

mpcg_status mpcgi_view_split_first(mpcg_context *ctx, const mpcgi_csr *A, int64_t *k, double *a)
{
    (void)A, *k = -1, *a = 0;
    return no_view(ctx);
}

mpcg_status mpcgi_view_diag(mpcg_context *ctx, const mpcgi_csr *A, double *diag,
                            unsigned char *has)
{
    (void)A, (void)diag, (void)has;
    return no_view(ctx);
}

mpcg_status mpcgi_view_pattern_samples(mpcg_context *ctx, const mpcgi_csr *A,
                                       struct mpcgi_pattern_sample *s)
{
    (void)A, (void)s;
    return no_view(ctx);
}
