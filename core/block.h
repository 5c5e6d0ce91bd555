/* core/block.h: dense kernels on blocks of s vectors (block CG), one table per place and
 * precision, like core/vec.h */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_BLOCK_H
#define MPCG_CORE_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "core/block_pass.h"
#include "mpcg.h"

/* The most vectors a block holds (SpMM, the tall-skinny products, block CG). */
#define MPCGI_BLOCK_MAX 64

/*
 * A block is n x s, row-major: row i's s values are contiguous, X[i s + j] (the SpMM's layout,
 * spmv/spmv.h apply_block). The small matrices (s x t) live on the host, row-major, in double.
 * Every reduction has a fixed order (per-chunk partials, then one sequential pass): the same
 * input gives the same bits whatever the thread count or grid.
 */
typedef struct mpcgi_block_ops {
    const char *name;
    mpcg_precision prec; /* the blocks' type: fp64 (double) or fp32 (float) */
    /* bytes of workspace xty needs for an n x s by n x t product */
    size_t (*xty_workspace)(int64_t n, int s, int t);
    /* C = X^T Y (the tall-skinny GEMM, k = n): X n x s, Y n x t, C s x t on the host (row-major,
     * C[a t + b] = sum_i X[i s + a] Y[i t + b]; accumulated in double in both precisions) */
    mpcg_status (*xty)(mpcg_context *ctx, void *ws, int64_t n, int s, int t, const void *X,
                       const void *Y, double *C);
    /* Y = beta Y + X B: X n x s, Y n x t, B s x t on the host (row-major, double; each product
     * summed over a = 0 .. s - 1 in order, in the blocks' type); beta = 0: Y is not read (NaN in
     * Y does not survive) */
    mpcg_status (*xb)(mpcg_context *ctx, int64_t n, int s, int t, const void *X, const double *B,
                      double beta, void *Y);
    /* x = column j of X (n x s), x contiguous (n values) */
    mpcg_status (*get_col)(mpcg_context *ctx, int64_t n, int s, int j, const void *X, void *x);
    /* column j of X (n x s) = x */
    mpcg_status (*set_col)(mpcg_context *ctx, int64_t n, int s, int j, const void *x, void *X);
    /* bytes of workspace pass needs for n rows and blocks up to maxw (<= MPCGI_PASS_MAXW) wide */
    size_t (*pass_workspace)(int64_t n, int maxw);
    /* one pass over the rows of fp64 blocks (core/block_pass.h), ws of pass_workspace(n, maxw)
     * bytes with maxw >= every width; C: the products, on the host (NULL allowed when there are
     * none); NULL in the fp32 tables */
    mpcg_status (*pass)(mpcg_context *ctx, void *ws, const mpcgi_block_pass *p, double *C);
} mpcgi_block_ops;

/* The checks every pass table makes first (core/block_pass.c): counts, widths, indices, and
 * that a block without input is set before it is read. */
mpcg_status mpcgi_block_pass_check(mpcg_context *ctx, const mpcgi_block_pass *p);
/* The host table's pass and its workspace (core/block_pass.c). */
size_t mpcgi_block_pass_host_workspace(int64_t n, int maxw);
mpcg_status mpcgi_block_pass_host(mpcg_context *ctx, void *ws, const mpcgi_block_pass *p,
                                  double *C);

extern const mpcgi_block_ops mpcgi_block_host, mpcgi_block_host_f32;

/* The table for blocks of precision `prec` (FP64 or FP32) on a device kind; NULL where there is
 * none (MIXED; CUDA in a CPU-only build). */
const mpcgi_block_ops *mpcgi_block_ops_for(mpcg_device_kind kind, mpcg_precision prec);

#endif /* MPCG_CORE_BLOCK_H */
