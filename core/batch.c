/* core/batch.c: mpcg_batch_create, update_values, destroy and the settings (the solve:
 * solver/batch_cg.c; the product: spmv/spmm/batch.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/batch.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"

int mpcgi_batch_valid(const mpcg_batch *b)
{
    return b && b->magic == MPCGI_BATCH_MAGIC;
}

/* The offsets and row pointers: sizes, order, and the largest system and row. */
static mpcg_status check_shape(mpcg_context *ctx, int64_t k, const int64_t *off, const int64_t *ptr,
                               int64_t *max_n, int64_t *max_row)
{
    MPCG_ENSURE(ctx, off[0] == 0, MPCG_ERR_INVALID_ARG, "batch: offsets[0] = %lld, must be 0",
                (long long)off[0]);
    *max_n = *max_row = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t n = off[i + 1] - off[i];
        MPCG_ENSURE(ctx, n >= 1, MPCG_ERR_INVALID_ARG,
                    "batch: system %lld has %lld rows (offsets must increase)", (long long)i,
                    (long long)n);
        MPCG_ENSURE(ctx, n <= MPCG_BATCH_MAX_ROWS, MPCG_ERR_INVALID_ARG,
                    "batch: system %lld has %lld rows, more than a batch takes (%d): solve it "
                    "on its own with mpcg_solve",
                    (long long)i, (long long)n, MPCG_BATCH_MAX_ROWS);
        *max_n = n > *max_n ? n : *max_n;
    }
    MPCG_ENSURE(ctx, ptr[0] == 0, MPCG_ERR_INVALID_ARG, "batch: row_ptr[0] = %lld, must be 0",
                (long long)ptr[0]);
    for (int64_t r = 0; r < off[k]; r++) {
        MPCG_ENSURE(ctx, ptr[r + 1] >= ptr[r], MPCG_ERR_INVALID_ARG,
                    "batch: row_ptr decreases at row %lld", (long long)r);
        *max_row = ptr[r + 1] - ptr[r] > *max_row ? ptr[r + 1] - ptr[r] : *max_row;
    }
    return MPCG_SUCCESS;
}

/* Local columns in range, sorted and distinct in a row; values finite. */
static mpcg_status check_entries(mpcg_context *ctx, int64_t k, const int64_t *off,
                                 const int64_t *ptr, const int32_t *col, const double *val)
{
    for (int64_t i = 0; i < k; i++)
        for (int64_t r = off[i]; r < off[i + 1]; r++)
            for (int64_t e = ptr[r]; e < ptr[r + 1]; e++) {
                MPCG_ENSURE(ctx, col[e] >= 0 && col[e] < off[i + 1] - off[i], MPCG_ERR_INVALID_ARG,
                            "batch: system %lld, row %lld: column %d outside [0, %lld)",
                            (long long)i, (long long)(r - off[i]), col[e],
                            (long long)(off[i + 1] - off[i]));
                MPCG_ENSURE(ctx, e == ptr[r] || col[e] > col[e - 1], MPCG_ERR_INVALID_ARG,
                            "batch: system %lld, row %lld: columns not increasing at %d",
                            (long long)i, (long long)(r - off[i]), col[e]);
                MPCG_ENSURE(ctx, isfinite(val[e]), MPCG_ERR_INVALID_ARG,
                            "batch: system %lld, row %lld: value %g is not finite", (long long)i,
                            (long long)(r - off[i]), val[e]);
            }
    return MPCG_SUCCESS;
}

/* The arrays at dst (host or device), from host arrays. */
static mpcg_status arrays_make(mpcg_batch *b, int device, mpcgi_batch_arrays *a)
{
    mpcg_context *ctx = b->ctx;
    const size_t sz[4] = {(size_t)(b->k + 1) * 8, (size_t)(b->rows + 1) * 8,
                          (size_t)(b->nnz ? b->nnz : 1) * 4, (size_t)(b->nnz ? b->nnz : 1) * 8};
    void **p[4] = {(void **)&a->off, (void **)&a->ptr, (void **)&a->col, (void **)&a->val};
    for (int q = 0; q < 4; q++)
        MPCG_CHECK(ctx, device ? mpcgi_device_alloc(ctx, sz[q], p[q])
                               : mpcgi_host_alloc(ctx, sz[q], p[q]));
    return MPCG_SUCCESS;
}

static void arrays_free(mpcg_batch *b, int device, mpcgi_batch_arrays *a)
{
    void *p[4] = {a->off, a->ptr, a->col, a->val};
    for (int q = 0; q < 4; q++)
        if (device)
            mpcgi_device_free(b->ctx, p[q]);
        else
            mpcgi_host_free(p[q]);
    memset(a, 0, sizeof *a);
}

static mpcg_status upload(mpcg_batch *b, int values_only)
{
    if (!b->dev.off) return MPCG_SUCCESS;
    mpcg_context *ctx = b->ctx;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, b->dev.val, b->host.val, (size_t)b->nnz * 8, MPCGI_H2D));
    if (values_only) return MPCG_SUCCESS;
    MPCG_CHECK(ctx,
               mpcgi_device_copy(ctx, b->dev.off, b->host.off, (size_t)(b->k + 1) * 8, MPCGI_H2D));
    MPCG_CHECK(
        ctx, mpcgi_device_copy(ctx, b->dev.ptr, b->host.ptr, (size_t)(b->rows + 1) * 8, MPCGI_H2D));
    return mpcgi_device_copy(ctx, b->dev.col, b->host.col, (size_t)b->nnz * 4, MPCGI_H2D);
}

mpcg_status mpcg_batch_create(mpcg_context *ctx, int64_t k, const int64_t *offsets,
                              const int64_t *row_ptr, const int32_t *col_idx, const double *val,
                              mpcg_batch **out)
{
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "mpcg_batch_create: out is NULL");
    *out = NULL;
    MPCG_ENSURE(ctx, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, k >= 0 && k < INT32_MAX, MPCG_ERR_INVALID_ARG, "batch: k = %lld systems",
                (long long)k);
    MPCG_ENSURE(ctx, offsets && row_ptr && ((col_idx && val) || k == 0), MPCG_ERR_INVALID_ARG,
                "mpcg_batch_create: NULL array");
    int64_t max_n = 0, max_row = 0;
    MPCG_CHECK(ctx, check_shape(ctx, k, offsets, row_ptr, &max_n, &max_row));
    MPCG_CHECK(ctx, check_entries(ctx, k, offsets, row_ptr, col_idx, val));
    mpcg_batch *b;
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *b, &b));
    *b = (mpcg_batch){.magic = MPCGI_BATCH_MAGIC,
                      .ctx = ctx,
                      .k = k,
                      .rows = offsets[k],
                      .nnz = row_ptr[offsets[k]],
                      .max_n = max_n,
                      .max_row_nnz = max_row,
                      .tol = 1e-8,
                      .maxit = -1,
                      .precond = MPCG_PRECOND_AUTO};
    mpcg_status st = arrays_make(b, 0, &b->host);
    if (st == MPCG_SUCCESS) {
        memcpy(b->host.off, offsets, (size_t)(k + 1) * 8);
        memcpy(b->host.ptr, row_ptr, (size_t)(b->rows + 1) * 8);
        if (b->nnz) memcpy(b->host.col, col_idx, (size_t)b->nnz * 4);
        if (b->nnz) memcpy(b->host.val, val, (size_t)b->nnz * 8);
        if (ctx->kind == MPCG_DEVICE_CUDA) st = arrays_make(b, 1, &b->dev);
    }
    if (st == MPCG_SUCCESS) st = upload(b, 0);
    if (st != MPCG_SUCCESS) {
        mpcg_batch_destroy(b);
        return st;
    }
    for (int64_t i = 0; i < k; i++) {
        const int64_t e = row_ptr[offsets[i + 1]] - row_ptr[offsets[i]];
        b->max_nnz = e > b->max_nnz ? e : b->max_nnz;
    }
    *out = b;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_batch_update_values(mpcg_batch *b, const double *val)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(b), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(b->ctx, val || b->nnz == 0, MPCG_ERR_INVALID_ARG, "batch values: NULL");
    MPCG_CHECK(b->ctx, check_entries(b->ctx, b->k, b->host.off, b->host.ptr, b->host.col, val));
    if (b->nnz) memcpy(b->host.val, val, (size_t)b->nnz * 8);
    return upload(b, 1);
}

void mpcg_batch_destroy(mpcg_batch *b)
{
    if (!mpcgi_batch_valid(b)) return;
    arrays_free(b, 0, &b->host);
    if (b->dev.off) arrays_free(b, 1, &b->dev);
    mpcgi_device_free(b->ctx, b->work);
    b->magic = 0;
    mpcgi_host_free(b);
}

mpcg_status mpcgi_batch_work(mpcg_batch *b, size_t bytes, void **out)
{
    if (b->work_bytes < bytes) {
        mpcgi_device_free(b->ctx, b->work);
        b->work = NULL, b->work_bytes = 0;
        MPCG_CHECK(b->ctx, mpcgi_device_alloc(b->ctx, bytes, &b->work));
        b->work_bytes = bytes;
    }
    *out = b->work;
    return MPCG_SUCCESS;
}

int64_t mpcg_batch_count(const mpcg_batch *b)
{
    return mpcgi_batch_valid(b) ? b->k : 0;
}
int64_t mpcg_batch_rows(const mpcg_batch *b)
{
    return mpcgi_batch_valid(b) ? b->rows : 0;
}

mpcg_status mpcg_batch_set_tol(mpcg_batch *b, double tol)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(b), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(b->ctx, tol > 0 && tol < 1, MPCG_ERR_INVALID_ARG, "batch tol = %g outside (0, 1)",
                tol);
    b->tol = tol;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_batch_set_maxit(mpcg_batch *b, int64_t maxit)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(b), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(b->ctx, maxit >= -1, MPCG_ERR_INVALID_ARG, "batch maxit = %lld (-1: default)",
                (long long)maxit);
    b->maxit = maxit;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_batch_set_precond(mpcg_batch *b, mpcg_precond precond)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(b), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(b->ctx,
                precond == MPCG_PRECOND_NONE || precond == MPCG_PRECOND_JACOBI ||
                    precond == MPCG_PRECOND_AUTO,
                MPCG_ERR_NOT_SUPPORTED, "batched CG takes precond none, jacobi or auto, not %s",
                mpcg_precond_name(precond));
    b->precond = precond;
    return MPCG_SUCCESS;
}
