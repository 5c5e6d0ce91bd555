/* core/block.c: the host tables of core/block.h (OpenMP; the CPU reference of the device ones) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "config.h"
#include "core/block.h"
#if MPCG_HAVE_CUDA
#include "core/block_cuda.h"
#endif

/*
 * xty: rows are cut into chunks of CHUNK rows; chunk c's s x t partial sum (rows in order) goes
 * to ws[c s t ...], then the partials are added in chunk order. The chunking depends on n alone,
 * so the bits do not depend on the thread count.
 */
#define CHUNK 4096

static int64_t chunks_of(int64_t n)
{
    return n > 0 ? (n + CHUNK - 1) / CHUNK : 1;
}

static size_t host_xty_workspace(int64_t n, int s, int t)
{
    return (size_t)chunks_of(n) * (size_t)s * (size_t)t * sizeof(double);
}

#define DEFINE_BLOCK_HOST(SUF, T, FMA)                                                             \
    static mpcg_status xty_##SUF(mpcg_context *ctx, void *ws, int64_t n, int s, int t,             \
                                 const void *Xv, const void *Yv, double *C)                        \
    {                                                                                              \
        (void)ctx;                                                                                 \
        const T *X = Xv, *Y = Yv;                                                                  \
        double *part = ws;                                                                         \
        const int64_t nc = chunks_of(n), st = (int64_t)s * t;                                      \
        _Pragma("omp parallel for schedule(static) if (n * st > 65536)") for (int64_t c = 0;       \
                                                                              c < nc; c++)         \
        {                                                                                          \
            double *P = part + c * st;                                                             \
            memset(P, 0, (size_t)st * sizeof *P);                                                  \
            const int64_t e = (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n;                           \
            for (int64_t i = c * CHUNK; i < e; i++) {                                              \
                const T *x = X + i * s, *y = Y + i * t;                                            \
                for (int a = 0; a < s; a++)                                                        \
                    for (int b = 0; b < t; b++)                                                    \
                        P[a * t + b] += (double)x[a] * (double)y[b];                               \
            }                                                                                      \
        }                                                                                          \
        for (int64_t k = 0; k < st; k++) {                                                         \
            double sum = 0;                                                                        \
            for (int64_t c = 0; c < nc; c++)                                                       \
                sum += part[c * st + k];                                                           \
            C[k] = sum;                                                                            \
        }                                                                                          \
        return MPCG_SUCCESS;                                                                       \
    }                                                                                              \
    static mpcg_status xb_##SUF(mpcg_context *ctx, int64_t n, int s, int t, const void *Xv,        \
                                const double *B, double beta, void *Yv)                            \
    {                                                                                              \
        (void)ctx;                                                                                 \
        const T *X = Xv;                                                                           \
        T *Y = Yv;                                                                                 \
        _Pragma("omp parallel for schedule(static) if (n * s * t > 65536)") for (int64_t i = 0;    \
                                                                                 i < n; i++)       \
        {                                                                                          \
            const T *x = X + i * s;                                                                \
            T *y = Y + i * t;                                                                      \
            for (int b = 0; b < t; b++) {                                                          \
                T acc = beta == 0 ? (T)0 : (T)beta * y[b];                                         \
                for (int a = 0; a < s; a++)                                                        \
                    acc = FMA(x[a], (T)B[a * t + b], acc);                                         \
                y[b] = acc;                                                                        \
            }                                                                                      \
        }                                                                                          \
        return MPCG_SUCCESS;                                                                       \
    }                                                                                              \
    static mpcg_status get_col_##SUF(mpcg_context *ctx, int64_t n, int s, int j, const void *Xv,   \
                                     void *xv)                                                     \
    {                                                                                              \
        (void)ctx;                                                                                 \
        const T *X = Xv;                                                                           \
        T *x = xv;                                                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            x[i] = X[i * s + j];                                                                   \
        return MPCG_SUCCESS;                                                                       \
    }                                                                                              \
    static mpcg_status set_col_##SUF(mpcg_context *ctx, int64_t n, int s, int j, const void *xv,   \
                                     void *Xv)                                                     \
    {                                                                                              \
        (void)ctx;                                                                                 \
        const T *x = xv;                                                                           \
        T *X = Xv;                                                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            X[i * s + j] = x[i];                                                                   \
        return MPCG_SUCCESS;                                                                       \
    }

/* xb rounds once per product term (fma, fmaf): the device kernels do the same, so both give the
 * same bits whatever the compilers contract. */
DEFINE_BLOCK_HOST(f64, double, fma)
DEFINE_BLOCK_HOST(f32, float, fmaf)

const mpcgi_block_ops mpcgi_block_host = {
    .name = "host",
    .prec = MPCG_PRECISION_FP64,
    .xty_workspace = host_xty_workspace,
    .xty = xty_f64,
    .xb = xb_f64,
    .get_col = get_col_f64,
    .set_col = set_col_f64,
    .pass_workspace = mpcgi_block_pass_host_workspace,
    .pass = mpcgi_block_pass_host,
};

const mpcgi_block_ops mpcgi_block_host_f32 = {
    .name = "host-fp32",
    .prec = MPCG_PRECISION_FP32,
    .xty_workspace = host_xty_workspace,
    .xty = xty_f32,
    .xb = xb_f32,
    .get_col = get_col_f32,
    .set_col = set_col_f32,
};

const mpcgi_block_ops *mpcgi_block_ops_for(mpcg_device_kind kind, mpcg_precision prec)
{
    if (prec != MPCG_PRECISION_FP64 && prec != MPCG_PRECISION_FP32) return NULL;
    if (kind != MPCG_DEVICE_CUDA)
        return prec == MPCG_PRECISION_FP64 ? &mpcgi_block_host : &mpcgi_block_host_f32;
#if MPCG_HAVE_CUDA
    return prec == MPCG_PRECISION_FP64 ? &mpcgi_block_cuda : &mpcgi_block_cuda_f32;
#else
    return NULL;
#endif
}
