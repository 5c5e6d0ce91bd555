/* precond/precond_device.c: the preconditioner's device applies on the context's stream, fp64
 * or fp32 (CUDA builds) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/cuda_check.h"
#include "core/device.h"
#include "precond/precond_cuda.h"
#include "precond/precond_impl.h"

mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, mpcg_precision prec, int64_t n,
                                       double alpha, const void *dinv, const void *x, void *y)
{
    void *stream = mpcgi_device_stream(ctx);
    if (prec == MPCG_PRECISION_FP32)
        MPCG_LAUNCH(ctx, mpcgi_precond_scale_f32(stream, n, alpha, dinv, x, y));
    else
        MPCG_LAUNCH(ctx, mpcgi_precond_scale_f64(stream, n, alpha, dinv, x, y));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        mpcg_precision prec, const void *r, void *z)
{
    void *stream = mpcgi_device_stream(ctx);
    const int fp32 = prec == MPCG_PRECISION_FP32;
    const int64_t nb = pc->nblocks, *bstart = pc->d_bstart, *boff = pc->d_boff;
    if (pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY) {
        if (fp32)
            MPCG_LAUNCH(ctx,
                        mpcgi_precond_cholesky_f32(stream, nb, bstart, boff, pc->d_binv32, r, z));
        else
            MPCG_LAUNCH(ctx,
                        mpcgi_precond_cholesky_f64(stream, nb, bstart, boff, pc->d_binv, r, z));
    } else if (fp32) {
        MPCG_LAUNCH(ctx,
                    mpcgi_precond_blocks_f32(stream, pc->n, nb, bstart, boff, pc->d_binv32, r, z));
    } else {
        MPCG_LAUNCH(ctx,
                    mpcgi_precond_blocks_f64(stream, pc->n, nb, bstart, boff, pc->d_binv, r, z));
    }
    return MPCG_SUCCESS;
}
