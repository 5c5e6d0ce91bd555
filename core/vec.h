/* core/vec.h: dense vector kernels behind a table, one table per place (host, device) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_VEC_H
#define MPCG_CORE_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "mpcg.h"

/*
 * The CG loop is written once against this table (hypre's Krylov callbacks). Vectors live
 * where the table says (host or device); scalars are passed and returned on the host.
 * Dots reduce in a fixed order (per-block partials in `ws`, then one sequential pass), so the
 * same input gives bit-identical results whatever the thread count.
 */
typedef struct mpcgi_vec_ops {
    const char *name;
    mpcg_precision prec; /* the vectors' type: fp64 (double) or fp32 (float) */
    /* bytes of workspace `dot` needs for vectors of length n (the same for both precisions) */
    size_t (*dot_workspace)(int64_t n);
    /* *out = x^T y (out on the host; accumulated in double for both precisions) */
    mpcg_status (*dot)(mpcg_context *ctx, void *ws, int64_t n, const void *x, const void *y,
                       double *out);
    /* y += a x (a rounded to the vectors' type) */
    mpcg_status (*axpy)(mpcg_context *ctx, int64_t n, double a, const void *x, void *y);
    /* y += a x with y double and a unrounded: an fp64 iterate updated from the table's vectors
     * (mixed precision; axpy itself in the fp64 table) */
    mpcg_status (*axpy_wide)(mpcg_context *ctx, int64_t n, double a, const void *x, double *y);
    /* y = x + a y */
    mpcg_status (*xpay)(mpcg_context *ctx, int64_t n, const void *x, double a, void *y);
    /* y = x */
    mpcg_status (*copy)(mpcg_context *ctx, int64_t n, const void *x, void *y);
    /* y = 0 */
    mpcg_status (*zero)(mpcg_context *ctx, int64_t n, void *y);
    /* y = x rounded to the table's type (x double; a copy in the fp64 table) */
    mpcg_status (*demote)(mpcg_context *ctx, int64_t n, const double *x, void *y);
    /* y = x widened to double (y double; a copy in the fp64 table) */
    mpcg_status (*promote)(mpcg_context *ctx, int64_t n, const void *x, double *y);
} mpcgi_vec_ops;

extern const mpcgi_vec_ops mpcgi_vec_host, mpcgi_vec_host_f32;

/* The table for vectors of precision `prec` on a device kind: fp64 (mpcgi_vec_host, the CUDA one
 * of core/device.h) or fp32 (mpcgi_vec_host_f32, the CUDA fp32 one); NULL where there is none
 * (mixed: no single vector type; CUDA in a CPU-only build), so the solver's setup refuses it. */
const mpcgi_vec_ops *mpcgi_vec_ops_for(mpcg_device_kind kind, mpcg_precision prec);

/* The host dot product in the fixed order above (used by the CPU reference everywhere); the
 * fp32 one accumulates the products in double, in the same order. */
double mpcgi_host_dot(double *partials, int64_t n, const double *x, const double *y);
double mpcgi_host_dot_f32(double *partials, int64_t n, const float *x, const float *y);
/* Number of partials mpcgi_host_dot needs. */
int64_t mpcgi_host_dot_blocks(int64_t n);

#endif /* MPCG_CORE_VEC_H */
