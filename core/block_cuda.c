/* core/block_cuda.c: the device tables of core/block.h (kernels: core/tsgemm.cu,
 * core/block_cuda.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/block_cuda.h"
#include "core/block_kernels.h"
#include "core/device.h"
#include "core/device_cuda.h"

/*
 * Workspace of xty: C (s x t doubles, on the device until the copy to the host), then the
 * tall-skinny GEMM's partials and tickets (mpcgi_tsgemm_workspace). Every call sets what it
 * reads, so a fresh cudaMalloc'd workspace is fine.
 */
static size_t cuda_xty_workspace(int64_t n, int s, int t)
{
    return (size_t)s * (size_t)t * sizeof(double) + mpcgi_tsgemm_workspace(n, s, t);
}

static mpcg_status check_sizes(mpcg_context *ctx, int64_t n, int s, int t)
{
    MPCG_ENSURE(ctx, n >= 0, MPCG_ERR_INVALID_ARG, "block rows n = %lld must be >= 0",
                (long long)n);
    MPCG_ENSURE(ctx, s >= 1 && s <= MPCGI_BLOCK_MAX && t >= 1 && t <= MPCGI_BLOCK_MAX,
                MPCG_ERR_INVALID_ARG, "block widths s = %d, t = %d out of range [1, %d]", s, t,
                MPCGI_BLOCK_MAX);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_cuda_xty_dev(mpcg_context *ctx, mpcg_precision prec, mpcgi_tsgemm_mode mode,
                                     void *ws, int64_t n, int s, int t, const void *X,
                                     const void *Y, double *C_dev)
{
    MPCG_CHECK(ctx, check_sizes(ctx, n, s, t));
    MPCG_ENSURE(ctx, prec == MPCG_PRECISION_FP64 || prec == MPCG_PRECISION_FP32,
                MPCG_ERR_NOT_SUPPORTED, "tall-skinny GEMM: blocks of %s values",
                mpcg_precision_name(prec));
    void *stream = mpcgi_gpu_of(ctx)->stream;
    const int m = mode == MPCGI_TSGEMM_ATOMIC;
    if (prec == MPCG_PRECISION_FP64)
        MPCG_LAUNCH(ctx, mpcgi_tsgemm_f64(stream, m, n, s, t, X, Y, C_dev, ws));
    else
        MPCG_LAUNCH(ctx, mpcgi_tsgemm_f32(stream, m, n, s, t, X, Y, C_dev, ws));
    return MPCG_SUCCESS;
}

/* C = X^T Y: the deterministic product into the workspace's C, then C to the host. */
static mpcg_status xty_in(mpcg_context *ctx, mpcg_precision prec, void *ws, int64_t n, int s, int t,
                          const void *X, const void *Y, double *C)
{
    double *C_dev = ws;
    void *rest = (char *)ws + (size_t)s * (size_t)t * sizeof(double);
    MPCG_CHECK(ctx, mpcgi_block_cuda_xty_dev(ctx, prec, MPCGI_TSGEMM_DETERMINISTIC, rest, n, s, t,
                                             X, Y, C_dev));
    MPCG_CHECK(ctx,
               mpcgi_device_copy(ctx, C, C_dev, (size_t)s * (size_t)t * sizeof(double), MPCGI_D2H));
    return MPCG_SUCCESS;
}

static mpcg_status xty_f64(mpcg_context *ctx, void *ws, int64_t n, int s, int t, const void *X,
                           const void *Y, double *C)
{
    return xty_in(ctx, MPCG_PRECISION_FP64, ws, n, s, t, X, Y, C);
}

static mpcg_status xty_f32(mpcg_context *ctx, void *ws, int64_t n, int s, int t, const void *X,
                           const void *Y, double *C)
{
    return xty_in(ctx, MPCG_PRECISION_FP32, ws, n, s, t, X, Y, C);
}

static mpcg_status xb_f64(mpcg_context *ctx, int64_t n, int s, int t, const void *X,
                          const double *B, double beta, void *Y)
{
    MPCG_CHECK(ctx, check_sizes(ctx, n, s, t));
    MPCG_LAUNCH(ctx, mpcgi_block_xb_f64(mpcgi_gpu_of(ctx)->stream, n, s, t, X, B, beta, Y));
    return MPCG_SUCCESS;
}

static mpcg_status xb_f32(mpcg_context *ctx, int64_t n, int s, int t, const void *X,
                          const double *B, double beta, void *Y)
{
    MPCG_CHECK(ctx, check_sizes(ctx, n, s, t));
    MPCG_LAUNCH(ctx, mpcgi_block_xb_f32(mpcgi_gpu_of(ctx)->stream, n, s, t, X, B, beta, Y));
    return MPCG_SUCCESS;
}

/* Workspace of pass: C (room for the most products of any pass), then the kernel's. */
#define PASS_C_BYTES ((size_t)MPCGI_PASS_PRODUCTS * MPCGI_PASS_MAXW * MPCGI_PASS_MAXW * 8)

static size_t cuda_pass_workspace(int64_t n, int maxw)
{
    return PASS_C_BYTES + mpcgi_block_pass_workspace(n, maxw);
}

static mpcg_status pass_f64(mpcg_context *ctx, void *ws, const mpcgi_block_pass *p, double *C)
{
    MPCG_CHECK(ctx, mpcgi_block_pass_check(ctx, p));
    const int outs = mpcgi_pass_outputs(p);
    double *C_dev = ws;
    void *rest = (char *)ws + PASS_C_BYTES;
    MPCG_LAUNCH(ctx, mpcgi_block_pass_f64(mpcgi_gpu_of(ctx)->stream, p, C_dev, rest));
    if (outs > 0)
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, C, C_dev, (size_t)outs * sizeof(double), MPCGI_D2H));
    return MPCG_SUCCESS;
}

static mpcg_status check_col(mpcg_context *ctx, int64_t n, int s, int j)
{
    MPCG_CHECK(ctx, check_sizes(ctx, n, s, 1));
    MPCG_ENSURE(ctx, j >= 0 && j < s, MPCG_ERR_INVALID_ARG, "column %d out of range [0, %d)", j, s);
    return MPCG_SUCCESS;
}

#define DEFINE_COLS(SUF, T)                                                                        \
    static mpcg_status get_col_##SUF(mpcg_context *ctx, int64_t n, int s, int j, const void *X,    \
                                     void *x)                                                      \
    {                                                                                              \
        MPCG_CHECK(ctx, check_col(ctx, n, s, j));                                                  \
        MPCG_LAUNCH(ctx,                                                                           \
                    mpcgi_block_get_col(mpcgi_gpu_of(ctx)->stream, sizeof(T), n, s, j, X, x));     \
        return MPCG_SUCCESS;                                                                       \
    }                                                                                              \
    static mpcg_status set_col_##SUF(mpcg_context *ctx, int64_t n, int s, int j, const void *x,    \
                                     void *X)                                                      \
    {                                                                                              \
        MPCG_CHECK(ctx, check_col(ctx, n, s, j));                                                  \
        MPCG_LAUNCH(ctx,                                                                           \
                    mpcgi_block_set_col(mpcgi_gpu_of(ctx)->stream, sizeof(T), n, s, j, x, X));     \
        return MPCG_SUCCESS;                                                                       \
    }

DEFINE_COLS(f64, double)
DEFINE_COLS(f32, float)

const mpcgi_block_ops mpcgi_block_cuda = {
    .name = "cuda",
    .prec = MPCG_PRECISION_FP64,
    .xty_workspace = cuda_xty_workspace,
    .xty = xty_f64,
    .xb = xb_f64,
    .get_col = get_col_f64,
    .set_col = set_col_f64,
    .pass_workspace = cuda_pass_workspace,
    .pass = pass_f64,
};

const mpcgi_block_ops mpcgi_block_cuda_f32 = {
    .name = "cuda-fp32",
    .prec = MPCG_PRECISION_FP32,
    .xty_workspace = cuda_xty_workspace,
    .xty = xty_f32,
    .xb = xb_f32,
    .get_col = get_col_f32,
    .set_col = set_col_f32,
};
