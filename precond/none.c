/* precond/none.c: the identity M = I, a real kind: its apply copies r to z, so a loop over the
 * table never branches on "has a preconditioner" */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/error.h"
#include "precond/precond_impl.h"

static mpcg_status none_setup(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A)
{
    (void)ctx, (void)pc, (void)A;
    return MPCG_SUCCESS;
}

static mpcg_status none_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                mpcgi_precond_spmv_fn spmv, void *user)
{
    (void)ctx, (void)pc, (void)A, (void)spmv, (void)user;
    return MPCG_SUCCESS;
}

/* z = r with V (reads and writes n values) */
static mpcg_status none_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                              const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                              const void *r, void *z, void *work)
{
    (void)prec, (void)spmv, (void)user, (void)work;
    MPCG_ENSURE(ctx, V, MPCG_ERR_INVALID_ARG, "precond none: no vector table");
    return V->copy(ctx, pc->n, r, z);
}

static void none_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out)
{
    (void)pc, (void)prec;
    out->kind = MPCGI_PC_FUSED_NONE;
}

static void none_describe(const mpcgi_precond *pc, char *buf, size_t size)
{
    (void)pc;
    snprintf(buf, size, "none");
}

static void none_destroy(mpcg_context *ctx, mpcgi_precond *pc)
{
    (void)ctx, (void)pc;
}

const struct mpcgi_precond_ops mpcgi_precond_none = {
    .name = "none",
    .type = MPCG_PRECOND_NONE,
    .caps = MPCGI_PC_CAP_FP32,
    .setup = none_setup,
    .refresh = none_refresh,
    .apply = none_apply,
    .fused = none_fused,
    .describe = none_describe,
    .destroy = none_destroy,
};
