/* spmv/spmm/batch.c: mpcg_batch_spmm: Y_i = A_i X_i for every system of a batch, on the host
 * (the CPU reference: a row's entries summed in order with one fma each, as the device kernel
 * spmv/spmm/batch.cu does) or in one launch on the GPU */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "config.h"
#include "core/batch.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "spmv/spmm/batch.h"
#if MPCG_HAVE_CUDA
#include "core/cuda_check.h"
#endif

static void spmm_host(const mpcg_batch *b, int s, const double *X, double *Y)
{
    const mpcgi_batch_arrays *a = &b->host;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t i = 0; i < b->k; i++) {
        const int64_t o = a->off[i];
        for (int64_t r = o; r < a->off[i + 1]; r++)
            for (int c = 0; c < s; c++) {
                double acc = 0.0;
                for (int64_t e = a->ptr[r]; e < a->ptr[r + 1]; e++)
                    acc = fma(a->val[e], X[(o + a->col[e]) * s + c], acc);
                Y[r * s + c] = acc;
            }
    }
}

static mpcg_status begin(const mpcg_batch *b, int s, const void *X, const void *Y)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(b), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(b->ctx, s >= 1 && s <= 64, MPCG_ERR_INVALID_ARG,
                "mpcg_batch_spmm: s = %d outside [1, 64]", s);
    MPCG_ENSURE(b->ctx, (X && Y) || b->rows == 0, MPCG_ERR_INVALID_ARG,
                "mpcg_batch_spmm: X and Y must not be NULL");
    return MPCG_SUCCESS;
}

static mpcg_status spmm_device(mpcg_batch *b, int s, const double *X, double *Y)
{
#if MPCG_HAVE_CUDA
    const mpcgi_batch_arrays *a = &b->dev;
    MPCG_LAUNCH(b->ctx, mpcgi_batch_spmm_launch(mpcgi_device_stream(b->ctx), b->k, a->off, a->ptr,
                                                a->col, a->val, s, X, Y));
    return MPCG_SUCCESS;
#else
    (void)s, (void)X, (void)Y;
    MPCG_FAIL(b->ctx, MPCG_ERR_NOT_SUPPORTED, "batched SpMM on a GPU: a build without CUDA");
#endif
}

mpcg_status mpcg_batch_spmm(mpcg_batch *b, int s, const double *X, double *Y)
{
    MPCG_CHECK(b ? b->ctx : NULL, begin(b, s, X, Y));
    if (b->k == 0) return MPCG_SUCCESS;
    if (!b->dev.off) {
        spmm_host(b, s, X, Y);
        return MPCG_SUCCESS;
    }
    const size_t bytes = (size_t)b->rows * (size_t)s * sizeof(double);
    void *d;
    MPCG_CHECK(b->ctx, mpcgi_batch_work(b, 2 * bytes, &d));
    double *Xd = d, *Yd = Xd + b->rows * s;
    MPCG_CHECK(b->ctx, mpcgi_device_copy(b->ctx, Xd, X, bytes, MPCGI_H2D));
    MPCG_CHECK(b->ctx, spmm_device(b, s, Xd, Yd));
    return mpcgi_device_copy(b->ctx, Y, Yd, bytes, MPCGI_D2H);
}

mpcg_status mpcg_batch_spmm_device(mpcg_batch *b, int s, const double *X, double *Y)
{
    MPCG_CHECK(b ? b->ctx : NULL, begin(b, s, X, Y));
    MPCG_ENSURE(b->ctx, b->dev.off || b->k == 0, MPCG_ERR_INVALID_STATE,
                "mpcg_batch_spmm_device needs a GPU context, and context %s runs on the CPU "
                "(use mpcg_batch_spmm)",
                b->ctx->device_name);
    if (b->k == 0) return MPCG_SUCCESS;
    return spmm_device(b, s, X, Y);
}
