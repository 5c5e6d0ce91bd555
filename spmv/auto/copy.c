/* spmv/auto/copy.c: the one device copy of a host matrix that auto's candidates are built from */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/context.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/error.h"
#include "core/timer.h"
#include "spmv/auto/auto.h"

/*
 * Without it every candidate uploads the matrix on its own, through the driver's pageable staging:
 * on a large matrix the uploads alone then cost more than a thousand SpMVs (docs/backends/auto.md,
 * "The trial"). With it the matrix crosses the bus once, as a device view attached to A for the
 * trial, and each candidate that builds on the device (MPCGI_VIEW_DEVICE, _DIRECT) copies or
 * converts what it needs there, at device bandwidth.
 */

/* Bytes of the copy's three arrays: row pointers (int64), columns, values. */
typedef struct copy_sizes {
    size_t rows, cols, vals;
} copy_sizes;

static copy_sizes sizes_of(const mpcgi_csr *A)
{
    return (copy_sizes){((size_t)A->n + 1) * sizeof(int64_t), (size_t)A->nnz * sizeof(int32_t),
                        (size_t)A->nnz * sizeof(double)};
}

int mpcgi_auto_copy_wanted(const mpcg_context *ctx, const mpcgi_csr *A, int candidates)
{
    const copy_sizes b = sizes_of(A);
    return ctx->kind == MPCG_DEVICE_CUDA && !A->dev && A->nnz > 0 && candidates >= 2 &&
           b.rows + b.cols + b.vals <= mpcgi_device_bytes_left(ctx) / 4;
}

static void free_arrays(mpcg_context *ctx, mpcgi_auto_copy *c)
{
    mpcgi_view_release(ctx, &c->view);
    mpcgi_device_free(ctx, c->row_ptr);
    mpcgi_device_free(ctx, c->col_idx);
    mpcgi_device_free(ctx, c->val);
    c->row_ptr = NULL;
    c->col_idx = NULL;
    c->val = NULL;
}

mpcg_status mpcgi_auto_copy_attach(mpcg_context *ctx, mpcgi_csr *A, mpcgi_auto_copy *c)
{
    mpcg_status st = MPCG_SUCCESS;
    const copy_sizes b = sizes_of(A);
    const double t0 = mpcgi_wtime(), h0 = mpcgi_device_h2d_seconds(ctx);
    *c = (mpcgi_auto_copy){0};
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, b.rows, &c->row_ptr));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, b.cols, &c->col_idx));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, b.vals, &c->val));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, c->row_ptr, A->row_ptr, b.rows, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, c->col_idx, A->col_idx, b.cols, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, c->val, A->val, b.vals, MPCGI_H2D));
    c->view.row_ptr = c->row_ptr;
    c->view.rp64 = 1;
    c->view.col_idx = c->col_idx;
    c->view.val = c->val;
    /* the longest row (view.max_len), which DIRECT plans read; the structure is A's, checked */
    MPCG_TRY(ctx, st, mpcgi_view_open(ctx, A->n, A->nnz, &c->view));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
    c->seconds = mpcgi_wtime() - t0;
    c->h2d_s = mpcgi_device_h2d_seconds(ctx) - h0;
    c->saved_mirror = A->mirror;
    A->dev = &c->view;
    A->mirror = MPCGI_MIRROR_FULL; /* A's host arrays are all there: nothing is copied back */
done:
    if (st != MPCG_SUCCESS) free_arrays(ctx, c);
    return st;
}

void mpcgi_auto_copy_detach(mpcg_context *ctx, mpcgi_csr *A, mpcgi_auto_copy *c)
{
    if (A->dev == &c->view) { /* attached (not yet detached) */
        A->dev = NULL;
        A->mirror = c->saved_mirror;
    }
    free_arrays(ctx, c);
}

mpcg_status mpcgi_auto_copy_keep(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_copy *c,
                                 const mpcgi_auto_request *req, mpcgi_spmv_plan **plan,
                                 double build_s, double *own_s)
{
    if ((*plan)->ops->view == MPCGI_VIEW_DEVICE) { /* its layout is its own: it stays */
        const double t0 = mpcgi_wtime(); /* A's host fp32 copies: a plan built on A made them */
        MPCG_CHECK(ctx, mpcgi_spmv_plan_rehome(ctx, *plan, A));
        *own_s = c->seconds + build_s + (mpcgi_wtime() - t0);
        return MPCG_SUCCESS;
    }
    /* it read the copy in place (DIRECT) or was built from A's host arrays (HOST): built again
     * on A, as a named backend would be */
    const struct mpcgi_spmv_ops *ops = (*plan)->ops;
    mpcgi_spmv_plan_destroy(ctx, *plan);
    *plan = NULL;
    const double t0 = mpcgi_wtime();
    MPCG_CHECK(ctx, mpcgi_spmv_plan_create(ctx, ops, A, req->precisions, req->opts, plan));
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    *own_s = mpcgi_wtime() - t0;
    return MPCG_SUCCESS;
}
