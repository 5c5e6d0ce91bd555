/* core/vec.c: host dense vector kernels (OpenMP), deterministic dot products */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/device.h"
#include "core/vec.h"

/* Block length of the dot partials: fixed, so the summation order never depends on threads. */
#define DOT_BLOCK 4096

int64_t mpcgi_host_dot_blocks(int64_t n) { return (n + DOT_BLOCK - 1) / DOT_BLOCK; }

double mpcgi_host_dot(double *partials, int64_t n, const double *x, const double *y)
{
    int64_t nb = mpcgi_host_dot_blocks(n);
#pragma omp parallel for schedule(static) if (n > 4 * DOT_BLOCK)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * DOT_BLOCK, hi = lo + DOT_BLOCK < n ? lo + DOT_BLOCK : n;
        double s = 0.0;
        for (int64_t i = lo; i < hi; i++) s += x[i] * y[i];
        partials[b] = s;
    }
    double s = 0.0;
    for (int64_t b = 0; b < nb; b++) s += partials[b];
    return s;
}

static size_t host_dot_workspace(int64_t n)
{
    return (size_t)mpcgi_host_dot_blocks(n) * sizeof(double);
}

static mpcg_status host_dot(mpcg_context *ctx, void *ws, int64_t n, const double *x,
                            const double *y, double *out)
{
    (void)ctx;
    *out = mpcgi_host_dot(ws, n, x, y);
    return MPCG_SUCCESS;
}

static mpcg_status host_axpy(mpcg_context *ctx, int64_t n, double a, const double *x, double *y)
{
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
    return MPCG_SUCCESS;
}

static mpcg_status host_xpay(mpcg_context *ctx, int64_t n, const double *x, double a, double *y)
{
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] = x[i] + a * y[i];
    return MPCG_SUCCESS;
}

static mpcg_status host_copy(mpcg_context *ctx, int64_t n, const double *x, double *y)
{
    (void)ctx;
    if (n > 0) memcpy(y, x, (size_t)n * sizeof *y);
    return MPCG_SUCCESS;
}

static mpcg_status host_zero(mpcg_context *ctx, int64_t n, double *y)
{
    (void)ctx;
    if (n > 0) memset(y, 0, (size_t)n * sizeof *y);
    return MPCG_SUCCESS;
}

const mpcgi_vec_ops mpcgi_vec_host = {
    .name = "host",
    .dot_workspace = host_dot_workspace,
    .dot = host_dot,
    .axpy = host_axpy,
    .xpay = host_xpay,
    .copy = host_copy,
    .zero = host_zero,
};

const mpcgi_vec_ops *mpcgi_vec_ops_for(mpcg_device_kind kind, mpcg_precision prec)
{
    if (prec != MPCG_PRECISION_FP64) return NULL; /* the fp32 tables are planned */
    return kind == MPCG_DEVICE_CUDA ? mpcgi_device_vec_ops() : &mpcgi_vec_host;
}
