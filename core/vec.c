/* core/vec.c: host dense vector kernels (OpenMP), deterministic dot products, fp64 and fp32 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/device.h"
#include "core/vec.h"

/* Block length of the dot partials: fixed, so the summation order never depends on threads. */
#define DOT_BLOCK 4096

int64_t mpcgi_host_dot_blocks(int64_t n) { return (n + DOT_BLOCK - 1) / DOT_BLOCK; }

#define T double
#define SUFFIX f64
#include "core/vec_impl.h"
#undef T
#undef SUFFIX

#define T float
#define SUFFIX f32
#include "core/vec_impl.h"
#undef T
#undef SUFFIX

/* (double)x * (double)y is x * y for doubles: the fp64 sums are those of before the template. */
double mpcgi_host_dot(double *partials, int64_t n, const double *x, const double *y)
{
    return dot_blocks_f64(partials, n, x, y);
}

double mpcgi_host_dot_f32(double *partials, int64_t n, const float *x, const float *y)
{
    return dot_blocks_f32(partials, n, x, y);
}

static size_t host_dot_workspace(int64_t n)
{
    return (size_t)mpcgi_host_dot_blocks(n) * sizeof(double);
}

const mpcgi_vec_ops mpcgi_vec_host = {
    .name = "host",
    .prec = MPCG_PRECISION_FP64,
    .dot_workspace = host_dot_workspace,
    .dot = host_dot_f64,
    .axpy = host_axpy_f64,
    .axpy_wide = host_axpy_wide_f64,
    .xpay = host_xpay_f64,
    .copy = host_copy_f64,
    .zero = host_zero_f64,
    .demote = host_demote_f64,
    .promote = host_promote_f64,
};

const mpcgi_vec_ops mpcgi_vec_host_f32 = {
    .name = "host-fp32",
    .prec = MPCG_PRECISION_FP32,
    .dot_workspace = host_dot_workspace,
    .dot = host_dot_f32,
    .axpy = host_axpy_f32,
    .axpy_wide = host_axpy_wide_f32,
    .xpay = host_xpay_f32,
    .copy = host_copy_f32,
    .zero = host_zero_f32,
    .demote = host_demote_f32,
    .promote = host_promote_f32,
};

const mpcgi_vec_ops *mpcgi_vec_ops_for(mpcg_device_kind kind, mpcg_precision prec)
{
    int gpu = kind == MPCG_DEVICE_CUDA;
    if (prec == MPCG_PRECISION_FP64) return gpu ? mpcgi_device_vec_ops() : &mpcgi_vec_host;
    if (prec == MPCG_PRECISION_FP32) return gpu ? mpcgi_device_vec_ops_f32() : &mpcgi_vec_host_f32;
    return NULL; /* mixed: no single vector type */
}
