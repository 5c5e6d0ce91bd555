/* spmv/spmv.c: the SpMV dispatcher: validates, then calls the backend */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/csr_view.h"
#include "core/error.h"
#include "core/device.h"
#include "core/block.h"
#include "spmv/spmv.h"

static unsigned prec_cap(mpcg_precision prec)
{
    switch (prec) {
    case MPCG_PRECISION_FP64: return MPCG_CAP_FP64;
    case MPCG_PRECISION_FP32: return MPCG_CAP_FP32;
    case MPCG_PRECISION_MIXED: return MPCGI_PREC_MIXED_STORE;
    default: return 0;
    }
}

/* 1 in *exact if every value of A splits exactly into hi + lo, else 0 with the first offender
 * in why (mpcgi_csr_split_exact; found on the device for a device view). */
static mpcg_status split_exact(mpcg_context *ctx, const mpcgi_csr *A, char *why, size_t size,
                               int *exact)
{
    int64_t k = -1;
    double a = 0;
    if (!A->dev) {
        *exact = mpcgi_csr_split_exact(A, why, size);
        return MPCG_SUCCESS;
    }
    MPCG_CHECK(ctx, mpcgi_view_split_first(ctx, A, &k, &a));
    *exact = k < 0;
    if (k >= 0) mpcgi_split_why(k, a, why, size);
    return MPCG_SUCCESS;
}

/* A device view: the host copy the backend's analysis reads (ops->view), and the plan's note
 * of how it is built (mpcgi_spmv_describe). */
static mpcg_status view_prepare(mpcg_context *ctx, mpcgi_csr *A, mpcgi_spmv_plan *plan)
{
    const int how = plan->ops->view;
    const size_t rows = ((size_t)A->n + 1) * (A->dev->rp64 ? 8 : 4);
    char *s = plan->view_note;
    const size_t size = sizeof plan->view_note;
    MPCG_ENSURE(ctx, plan->on_device, MPCG_ERR_INVALID_STATE,
                "a device view needs a GPU context (context %s)", ctx->device_name);
    MPCG_CHECK(ctx, mpcgi_view_mirror(ctx, A, how == MPCGI_VIEW_HOST     ? MPCGI_MIRROR_FULL
                                              : how == MPCGI_VIEW_DEVICE ? MPCGI_MIRROR_ROWS
                                                                         : MPCGI_MIRROR_NONE));
    if (how == MPCGI_VIEW_DIRECT) {
        snprintf(s, size, "device view: the caller's arrays read in place%s",
                 A->dev->rp64 ? " (its int64 row pointers as an int32 copy made on the device)"
                              : "");
    } else if (how == MPCGI_VIEW_DEVICE) {
        snprintf(s, size, "device view: layout built on the device from the caller's arrays, "
                 "their row pointers copied to the host for the analysis (%zu bytes)", rows);
    } else {
        snprintf(s, size, "device view: layout built on the host from a copy of the matrix "
                 "(%zu bytes device to host; the values again at each "
                 "mpcg_matrix_update_values_device)", rows + (size_t)A->nnz * 12);
        mpcgi_log(ctx, MPCG_LOG_INFO, "backend %s: %s", plan->ops->name, s);
    }
    return MPCG_SUCCESS;
}

/* The values analyze gets for a MIXED_STORE request: the matrix's halves where its split is
 * exact, else the fp64 fallback (FP64 | FP32 instead of MIXED_STORE), stated in
 * plan->mixed_fallback and the log. The fp32 copy (hi) is made where the precisions need it,
 * on the host unless the plan makes its own from a device view (MPCGI_VIEW_DEVICE, _DIRECT). */
static mpcg_status prepare_values(mpcg_context *ctx, mpcgi_csr *A, mpcgi_spmv_plan *plan)
{
    const int host = !A->dev || plan->ops->view == MPCGI_VIEW_HOST;
    int exact = 1;
    if (plan->precisions & MPCGI_PREC_MIXED_STORE) {
        plan->mixed = 1;
        MPCG_CHECK(ctx, split_exact(ctx, A, plan->mixed_fallback, sizeof plan->mixed_fallback,
                                    &exact));
        if (exact) {
            if (host) MPCG_CHECK(ctx, mpcgi_csr_fill_lo32(ctx, A));
            plan->precisions |= MPCG_CAP_FP32; /* hi is A->val32 */
        } else {
            plan->precisions = (plan->precisions & ~MPCGI_PREC_MIXED_STORE) | MPCG_CAP_FP64 |
                               MPCG_CAP_FP32;
            mpcgi_log(ctx, MPCG_LOG_INFO,
                      "backend %s: mixed storage falls back to fp64 values for the whole "
                      "matrix: %s", plan->ops->name, plan->mixed_fallback);
        }
    }
    if ((plan->precisions & MPCG_CAP_FP32) && !A->val32 && host)
        MPCG_CHECK(ctx, mpcgi_csr_fill_val32(ctx, A));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_spmv_plan_create(mpcg_context *ctx, const struct mpcgi_spmv_ops *ops,
                                   mpcgi_csr *A, unsigned precisions,
                                   const mpcgi_options *opts, mpcgi_spmv_plan **out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_spmv_plan *plan = NULL;
    *out = NULL;
    int on_device = ctx->kind == MPCG_DEVICE_CUDA;
    MPCG_ENSURE(ctx, (ops->caps & precisions) == precisions, MPCG_ERR_NOT_SUPPORTED,
                "backend %s does not support the requested value precision(s)", ops->name);
    MPCG_ENSURE(ctx, !on_device || (ops->caps & MPCG_CAP_NEEDS_DEVICE), MPCG_ERR_NOT_SUPPORTED,
                "backend %s runs on the CPU only; use it with --device=cpu", ops->name);
    MPCG_ENSURE(ctx,
                on_device || !(ops->caps & MPCG_CAP_NEEDS_DEVICE) ||
                    (ops->caps & MPCG_CAP_CPU_EMULATION),
                MPCG_ERR_NOT_SUPPORTED, "backend %s needs a GPU and has no CPU emulation",
                ops->name);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *plan, &plan));
    plan->ops = ops;
    plan->on_device = on_device;
    plan->precisions = precisions;
    plan->n = A->n;
    plan->opts = opts;
    if (A->dev) MPCG_TRY(ctx, st, view_prepare(ctx, A, plan));
    MPCG_TRY(ctx, st, prepare_values(ctx, A, plan));
    MPCG_TRY(ctx, st, ops->analyze(ctx, A, plan->precisions, opts, &plan->impl, &plan->sizes));
    if (on_device) {
        MPCG_TRY(ctx, st, ops->upload(ctx, plan->impl, &plan->sizes));
        if (plan->sizes.bytes_workspace)
            MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, plan->sizes.bytes_workspace, &plan->ws));
    } else if (plan->sizes.bytes_workspace) {
        MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, plan->sizes.bytes_workspace, &plan->ws));
    }
    *out = plan;
done:
    if (st != MPCG_SUCCESS) mpcgi_spmv_plan_destroy(ctx, plan);
    return st;
}

mpcg_status mpcgi_spmv_plan_rehome(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcgi_csr *A)
{
    MPCG_ENSURE(ctx, !A->dev && plan->on_device && plan->ops->view == MPCGI_VIEW_DEVICE,
                MPCG_ERR_INTERNAL, "backend %s: only a device-built plan moves to a host matrix",
                plan->ops->name);
    if ((plan->precisions & MPCGI_PREC_MIXED_STORE) && !A->lo32)
        MPCG_CHECK(ctx, mpcgi_csr_fill_lo32(ctx, A));
    if ((plan->precisions & MPCG_CAP_FP32) && !A->val32)
        MPCG_CHECK(ctx, mpcgi_csr_fill_val32(ctx, A));
    plan->view_note[0] = '\0';
    return MPCG_SUCCESS;
}

/* A new layout for A's values (backends without update_values, and mixed storage whose split
 * stopped being exact); the workspace grows where the new layout needs more. */
static mpcg_status reanalyze(mpcg_context *ctx, mpcgi_spmv_plan *plan, const mpcgi_csr *A)
{
    void *impl = NULL, *ws = NULL;
    mpcgi_spmv_sizes sizes = {0};
    MPCG_CHECK(ctx, plan->ops->analyze(ctx, A, plan->precisions, plan->opts, &impl, &sizes));
    mpcg_status st = plan->on_device ? plan->ops->upload(ctx, impl, &sizes) : MPCG_SUCCESS;
    if (st == MPCG_SUCCESS && sizes.bytes_workspace > plan->sizes.bytes_workspace)
        st = plan->on_device ? mpcgi_device_alloc(ctx, sizes.bytes_workspace, &ws)
                             : mpcgi_host_alloc(ctx, sizes.bytes_workspace, &ws);
    if (st != MPCG_SUCCESS) {
        plan->ops->destroy(ctx, impl);
        MPCG_CHECK(ctx, st);
    }
    if (ws) {
        if (plan->on_device) mpcgi_device_free(ctx, plan->ws);
        else mpcgi_host_free(plan->ws);
        plan->ws = ws;
        plan->sizes.bytes_workspace = sizes.bytes_workspace;
    }
    plan->ops->destroy(ctx, plan->impl);
    plan->impl = impl;
    return MPCG_SUCCESS;
}

/* A mixed-storage plan whose new values no longer split exactly takes the fp64 fallback (the
 * matrix has refreshed A->val32 and A->lo32). A plan already in the fallback keeps it until the
 * next setup, even where the new values would split exactly (correct, not faster). */
mpcg_status mpcgi_spmv_plan_update_values(mpcg_context *ctx, mpcgi_spmv_plan *plan,
                                          const mpcgi_csr *A)
{
    int exact = 1;
    MPCG_ENSURE(ctx, plan && A->n == plan->n, MPCG_ERR_INVALID_STATE,
                "plan and matrix do not match");
    if (plan->precisions & MPCGI_PREC_MIXED_STORE)
        MPCG_CHECK(ctx, split_exact(ctx, A, plan->mixed_fallback, sizeof plan->mixed_fallback,
                                    &exact));
    if (!exact) {
        plan->precisions = (plan->precisions & ~MPCGI_PREC_MIXED_STORE) | MPCG_CAP_FP64 |
                           MPCG_CAP_FP32;
        mpcgi_log(ctx, MPCG_LOG_INFO,
                  "backend %s: mixed storage falls back to fp64 values for the whole matrix "
                  "after a value update: %s", plan->ops->name, plan->mixed_fallback);
        MPCG_CHECK(ctx, reanalyze(ctx, plan, A));
        return MPCG_SUCCESS;
    }
    if (plan->ops->update_values) {
        MPCG_CHECK(ctx, plan->ops->update_values(ctx, plan->impl, A));
        return MPCG_SUCCESS;
    }
    MPCG_CHECK(ctx, reanalyze(ctx, plan, A));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_spmv_apply(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                             const void *x, void *y)
{
    MPCG_ENSURE(ctx, plan && plan->impl, MPCG_ERR_INVALID_STATE, "SpMV plan is not set up");
    MPCG_ENSURE(ctx,
                prec == MPCG_PRECISION_MIXED ? plan->mixed
                                             : prec_cap(prec) && (plan->precisions & prec_cap(prec)),
                MPCG_ERR_NOT_SUPPORTED,
                "backend %s was not set up for precision %s%s", plan->ops->name, mpcg_precision_name(prec),
                prec == MPCG_PRECISION_MIXED ? " (no mixed storage asked for)" : "");
    /* the fp64 fallback of the mixed storage: the fp64 apply on the same (double) vectors */
    if (prec == MPCG_PRECISION_MIXED && !(plan->precisions & MPCGI_PREC_MIXED_STORE))
        prec = MPCG_PRECISION_FP64;
    MPCG_ENSURE(ctx, plan->n == 0 || (x && y), MPCG_ERR_INVALID_ARG, "x and y must not be NULL");
    if (plan->on_device)
        MPCG_CHECK(ctx, plan->ops->apply(ctx, plan->impl, prec, x, y, plan->ws));
    else
        MPCG_CHECK(ctx, plan->ops->apply_host(ctx, plan->impl, prec, x, y));
    return MPCG_SUCCESS;
}

const char *mpcgi_spmv_mixed_fallback(const mpcgi_spmv_plan *plan)
{
    return plan && plan->mixed && plan->mixed_fallback[0] ? plan->mixed_fallback : NULL;
}

int mpcgi_spmv_host_driven(const mpcgi_spmv_plan *plan)
{
    return plan && plan->on_device && plan->sizes.host_driven;
}

int mpcgi_spmv_has_block(const mpcgi_spmv_plan *plan)
{
    return plan && (plan->on_device ? plan->ops->apply_block != NULL
                                    : plan->ops->apply_block_host != NULL);
}

mpcg_status mpcgi_spmv_apply_block(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                                   int s, const void *X, void *Y)
{
    MPCG_ENSURE(ctx, plan && plan->impl, MPCG_ERR_INVALID_STATE, "SpMV plan is not set up");
    MPCG_ENSURE(ctx, mpcgi_spmv_has_block(plan), MPCG_ERR_NOT_SUPPORTED,
                "backend %s has no block product (SpMM) %s", plan->ops->name,
                plan->on_device ? "on the device" : "on the host");
    MPCG_ENSURE(ctx, prec == MPCG_PRECISION_FP64 || prec == MPCG_PRECISION_FP32,
                MPCG_ERR_NOT_SUPPORTED, "the block product runs fp64 or fp32, not %s",
                mpcg_precision_name(prec));
    MPCG_ENSURE(ctx, plan->precisions & (prec == MPCG_PRECISION_FP64 ? MPCG_CAP_FP64 : MPCG_CAP_FP32),
                MPCG_ERR_NOT_SUPPORTED, "backend %s was not set up for precision %s",
                plan->ops->name, mpcg_precision_name(prec));
    MPCG_ENSURE(ctx, s >= 1 && s <= MPCGI_BLOCK_MAX, MPCG_ERR_INVALID_ARG,
                "block of %d vectors (1 to %d)", s, MPCGI_BLOCK_MAX);
    MPCG_ENSURE(ctx, plan->n == 0 || (X && Y), MPCG_ERR_INVALID_ARG, "X and Y must not be NULL");
    if (plan->on_device)
        return plan->ops->apply_block(ctx, plan->impl, prec, s, X, Y, plan->ws);
    return plan->ops->apply_block_host(ctx, plan->impl, prec, s, X, Y);
}

int mpcgi_spmv_has_apply_dot(const mpcgi_spmv_plan *plan)
{
    return plan && plan->on_device && plan->ops->apply_dot != NULL;
}

mpcg_status mpcgi_spmv_apply_dot(mpcg_context *ctx, mpcgi_spmv_plan *plan, const double *x,
                                 double *y, double *dot_dev, const int *skip_dev)
{
    MPCG_ENSURE(ctx, plan && plan->impl, MPCG_ERR_INVALID_STATE, "SpMV plan is not set up");
    MPCG_ENSURE(ctx, mpcgi_spmv_has_apply_dot(plan), MPCG_ERR_NOT_SUPPORTED,
                "backend %s has no fused SpMV + dot on the device", plan->ops->name);
    MPCG_ENSURE(ctx, plan->precisions & MPCG_CAP_FP64, MPCG_ERR_NOT_SUPPORTED,
                "backend %s was not set up for precision fp64", plan->ops->name);
    MPCG_ENSURE(ctx, plan->n == 0 || (x && y && dot_dev), MPCG_ERR_INVALID_ARG,
                "x, y and dot_dev must not be NULL");
    MPCG_CHECK(ctx, plan->ops->apply_dot(ctx, plan->impl, x, y, dot_dev, skip_dev, plan->ws));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_spmv_apply_phase(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                                   const void *x, void *y, int phase)
{
    MPCG_ENSURE(ctx, plan && plan->impl, MPCG_ERR_INVALID_STATE, "SpMV plan is not set up");
    MPCG_ENSURE(ctx, plan->on_device && plan->ops->apply_phase && phase >= 0 &&
                         phase < plan->ops->phases,
                MPCG_ERR_NOT_SUPPORTED, "backend %s has no step %d on the device",
                plan->ops->name, phase);
    MPCG_CHECK(ctx, plan->ops->apply_phase(ctx, plan->impl, prec, x, y, plan->ws, phase));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_spmv_rows(const mpcgi_spmv_plan *plan, mpcg_precision prec, mpcgi_rows *out)
{
    const unsigned cap = prec == MPCG_PRECISION_FP64   ? MPCG_CAP_FP64
                         : prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32
                                                       : 0;
    /* a question, not an error: nothing is recorded */
    if (!plan || !plan->impl || !plan->on_device || !plan->ops->rows || !cap ||
        !(plan->precisions & cap))
        return MPCG_ERR_NOT_SUPPORTED;
    mpcg_status st = plan->ops->rows(plan->impl, out);
    if (st != MPCG_SUCCESS) return st;
    if (prec == MPCG_PRECISION_FP64) out->val32 = NULL;
    else out->val = NULL;
    return out->val || out->val32 ? MPCG_SUCCESS : MPCG_ERR_NOT_SUPPORTED;
}

void mpcgi_spmv_describe(const mpcgi_spmv_plan *plan, char *buf, size_t size)
{
    if (plan->ops->describe) plan->ops->describe(plan->impl, buf, size);
    else snprintf(buf, size, "%s", plan->ops->description);
    const size_t len = strlen(buf);
    if (plan->view_note[0] && len + 2 < size)
        snprintf(buf + len, size - len, "; %s", plan->view_note);
}

void mpcgi_spmv_plan_destroy(mpcg_context *ctx, mpcgi_spmv_plan *plan)
{
    if (!plan) return;
    if (plan->impl) plan->ops->destroy(ctx, plan->impl);
    if (plan->on_device) mpcgi_device_free(ctx, plan->ws);
    else mpcgi_host_free(plan->ws);
    mpcgi_host_free(plan);
}
