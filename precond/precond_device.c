/* precond/precond_device.c: the preconditioner's device applies on the context's stream (CUDA
 * builds) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/cuda_check.h"
#include "core/device.h"
#include "precond/precond_cuda.h"
#include "precond/precond_impl.h"

mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, int64_t n, double alpha,
                                       const double *dinv, const double *x, double *y)
{
    MPCG_LAUNCH(ctx, mpcgi_precond_scale_f64(mpcgi_device_stream(ctx), n, alpha, dinv, x, y));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        const double *r, double *z)
{
    if (pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY)
        MPCG_LAUNCH(ctx, mpcgi_precond_cholesky_f64(mpcgi_device_stream(ctx), pc->nblocks,
                                                    pc->d_bstart, pc->d_boff, pc->d_binv, r, z));
    else
        MPCG_LAUNCH(ctx, mpcgi_precond_blocks_f64(mpcgi_device_stream(ctx), pc->n, pc->nblocks,
                                                  pc->d_bstart, pc->d_boff, pc->d_binv, r, z));
    return MPCG_SUCCESS;
}
