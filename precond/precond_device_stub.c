/* precond/precond_device_stub.c: the preconditioner's device applies in a CPU-only build (a CPU
 * context never reaches them) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/error.h"
#include "precond/precond_impl.h"

mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, mpcg_precision prec, int64_t n,
                                       double alpha, const void *dinv, const void *x, void *y)
{
    (void)prec, (void)n, (void)alpha, (void)dinv, (void)x, (void)y;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "precond: no GPU in a CPU-only build");
}

mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        mpcg_precision prec, const void *r, void *z)
{
    (void)pc, (void)prec, (void)r, (void)z;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "precond: no GPU in a CPU-only build");
}
