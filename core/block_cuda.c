/* core/block_cuda.c: placeholder of issue 23's contract commit: the device block tables refuse
 * every call until the kernels land */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/block_cuda.h"
#include "core/error.h"

static size_t ws_none(int64_t n, int s, int t) { (void)n, (void)s, (void)t; return 0; }
static mpcg_status xty_no(mpcg_context *ctx, void *ws, int64_t n, int s, int t, const void *X,
                          const void *Y, double *C)
{
    (void)ws, (void)n, (void)s, (void)t, (void)X, (void)Y, (void)C;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED, "device block kernels: not built yet");
}
static mpcg_status xb_no(mpcg_context *ctx, int64_t n, int s, int t, const void *X,
                         const double *B, double beta, void *Y)
{
    (void)n, (void)s, (void)t, (void)X, (void)B, (void)beta, (void)Y;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED, "device block kernels: not built yet");
}
static mpcg_status col_no(mpcg_context *ctx, int64_t n, int s, int j, const void *a, void *b)
{
    (void)n, (void)s, (void)j, (void)a, (void)b;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED, "device block kernels: not built yet");
}
const mpcgi_block_ops mpcgi_block_cuda = {"cuda", MPCG_PRECISION_FP64, ws_none, xty_no, xb_no,
                                          col_no, col_no};
const mpcgi_block_ops mpcgi_block_cuda_f32 = {"cuda-fp32", MPCG_PRECISION_FP32, ws_none, xty_no,
                                              xb_no, col_no, col_no};
mpcg_status mpcgi_block_cuda_xty_dev(mpcg_context *ctx, mpcg_precision prec,
                                     mpcgi_tsgemm_mode mode, void *ws, int64_t n, int s, int t,
                                     const void *X, const void *Y, double *C_dev)
{
    (void)prec, (void)mode, (void)ws, (void)n, (void)s, (void)t, (void)X, (void)Y, (void)C_dev;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED, "device block kernels: not built yet");
}
