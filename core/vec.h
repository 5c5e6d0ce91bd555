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
    /* bytes of workspace `dot` needs for vectors of length n */
    size_t (*dot_workspace)(int64_t n);
    /* *out = x^T y (out on the host) */
    mpcg_status (*dot)(mpcg_context *ctx, void *ws, int64_t n, const double *x, const double *y,
                       double *out);
    /* y += a x */
    mpcg_status (*axpy)(mpcg_context *ctx, int64_t n, double a, const double *x, double *y);
    /* y = x + a y */
    mpcg_status (*xpay)(mpcg_context *ctx, int64_t n, const double *x, double a, double *y);
    /* y = x */
    mpcg_status (*copy)(mpcg_context *ctx, int64_t n, const double *x, double *y);
    /* y = 0 */
    mpcg_status (*zero)(mpcg_context *ctx, int64_t n, double *y);
} mpcgi_vec_ops;

extern const mpcgi_vec_ops mpcgi_vec_host;

/* The table for vectors of precision `prec` on a device kind: the fp64 tables (mpcgi_vec_host,
 * the CUDA one of core/device.h); NULL where there is none (fp32 and mixed: planned, and CUDA in
 * a CPU-only build), so the solver's setup refuses the precision. */
const mpcgi_vec_ops *mpcgi_vec_ops_for(mpcg_device_kind kind, mpcg_precision prec);

/* The host dot product in the fixed order above (used by the CPU reference everywhere). */
double mpcgi_host_dot(double *partials, int64_t n, const double *x, const double *y);
/* Number of partials mpcgi_host_dot needs. */
int64_t mpcgi_host_dot_blocks(int64_t n);

#endif /* MPCG_CORE_VEC_H */
