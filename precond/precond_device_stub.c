/* precond/precond_device_stub.c: the preconditioner's device applies in a CPU-only build (a CPU
 * context never reaches them) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/error.h"
#include "precond/precond_impl.h"

mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, int64_t n, double alpha,
                                       const double *dinv, const double *x, double *y)
{
    (void)n, (void)alpha, (void)dinv, (void)x, (void)y;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "precond: no GPU in a CPU-only build");
}

mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        const double *r, double *z)
{
    (void)pc, (void)r, (void)z;
    MPCG_FAIL(ctx, MPCG_ERR_NO_DEVICE, "precond: no GPU in a CPU-only build");
}
