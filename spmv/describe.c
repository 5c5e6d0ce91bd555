/* spmv/describe.c: what a backend's analysis would store for a matrix, and what "auto" picks */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"
#include "spmv/spmv.h"

/* A context of kind `kind` that lives on the stack: it holds the messages of a host analysis
 * (so the caller's context keeps its own recorded error) and asks the registry what "auto"
 * means on that kind of device. It owns no device and is never destroyed. */
static void scratch_context(mpcg_context *c, mpcg_device_kind kind, const mpcg_context *like)
{
    memset(c, 0, sizeof *c);
    c->magic = MPCGI_CONTEXT_MAGIC;
    c->kind = kind;
    c->device_id = -1;
    c->log_level = like ? like->log_level : MPCG_LOG_WARN;
    c->log_fn = like ? like->log_fn : NULL;
    c->log_user = like ? like->log_user : NULL;
}

const char *mpcg_backend_auto(mpcg_device_kind kind)
{
    mpcg_context probe;
    const struct mpcgi_spmv_ops *ops = NULL;
    if (kind != MPCG_DEVICE_CPU && kind != MPCG_DEVICE_CUDA) return NULL;
    scratch_context(&probe, kind, NULL);
    return mpcgi_spmv_lookup(&probe, "auto", &ops) == MPCG_SUCCESS ? ops->name : NULL;
}

mpcg_status mpcg_backend_describe(const mpcg_matrix *A, const char *backend,
                                  mpcg_backend_layout *out)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_ENSURE(A->ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    memset(out, 0, sizeof *out);
    /* the host analysis, as on a CPU context (the device binning takes the same decisions) */
    mpcg_context host;
    scratch_context(&host, MPCG_DEVICE_CPU, A->ctx);
    const struct mpcgi_spmv_ops *ops = NULL;
    MPCG_CHECK(A->ctx, mpcgi_spmv_lookup(A->ctx, backend, &ops));
    /* a device view is described from its host copy, as host CSR */
    MPCG_CHECK(A->ctx, mpcgi_matrix_mirror(A, MPCGI_MIRROR_FULL));
    mpcgi_csr csr = A->csr;
    csr.dev = NULL;
    mpcgi_spmv_plan plan = {.ops = ops, .n = A->csr.n, .precisions = MPCG_CAP_FP64};
    mpcgi_spmv_sizes sizes = {.padding_ratio = 1.0};
    out->name = ops->name;
    out->status = ops->analyze(&host, &csr, MPCG_CAP_FP64, NULL, &plan.impl, &sizes);
    if (out->status == MPCG_SUCCESS) {
        mpcgi_spmv_describe(&plan, out->storage, sizeof out->storage);
        out->bytes_matrix = sizes.bytes_matrix;
        out->padding_ratio = sizes.padding_ratio;
        ops->destroy(&host, plan.impl);
    } else {
        mpcg_last_error_message(&host, out->message, sizeof out->message);
    }
    return MPCG_SUCCESS;
}
