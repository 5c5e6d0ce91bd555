/* precond/precond_impl.h: what the preconditioner's files share (the diagonal, the value arrays
 * and their fp32 and device twins, the blocks, the Chebyshev estimate, the device launches) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_PRECOND_PRECOND_IMPL_H
#define MPCG_PRECOND_PRECOND_IMPL_H

#include "precond/precond.h"

/* precond/precond.c */

/* Check every diagonal entry of A (present, finite, > 0: MPCG_ERR_INVALID_ARG naming the first
 * offending 1-based row, "precond <who>: row 17: ...") and, when dinv is not NULL, set
 * dinv[i] = 1 / a_ii (mpcgi_precond_diag_rows). */
mpcg_status mpcgi_precond_diag(mpcg_context *ctx, const mpcgi_csr *A, const char *who,
                               double *dinv);
/* A kind's array of count values: the host fp64 one (*h) and, with pc->params.fp32, its fp32
 * copy (*h32); where pc->on_device their device twins (*d, *d32). The others stay NULL. */
mpcg_status mpcgi_precond_vals_alloc(mpcg_context *ctx, const mpcgi_precond *pc, size_t count,
                                     double **h, float **h32, double **d, float **d32);
/* Once the host fp64 values h are set: h32 = h rounded to float, and the device copies (the
 * arrays of mpcgi_precond_vals_alloc, NULL where not made). */
mpcg_status mpcgi_precond_vals_sync(mpcg_context *ctx, const mpcgi_precond *pc, size_t count,
                                    const double *h, float *h32, double *d, float *d32);
void mpcgi_precond_vals_free(mpcg_context *ctx, const mpcgi_precond *pc, double *h, float *h32,
                             double *d, float *d32);

/* precond/jacobi.c: the diagonal that jacobi and chebyshev share */

/* pc->dinv (n values), its fp32 and device twins. */
mpcg_status mpcgi_jacobi_diag_setup(mpcg_context *ctx, mpcgi_precond *pc);
/* pc->dinv = 1 / a_ii from A's values (checked: mpcgi_precond_diag), then its twins. */
mpcg_status mpcgi_jacobi_diag_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A);
void mpcgi_jacobi_diag_destroy(mpcg_context *ctx, mpcgi_precond *pc);
/* y = alpha D^-1 x where ctx computes, vectors of precision prec (y may be x; fp32: alpha
 * rounded to float, dinv32). */
mpcg_status mpcgi_precond_scale(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                double alpha, const void *x, void *y);

/* precond/bjacobi.c */

/* The tiles of the blocks [bstart[b], bstart[b + 1]), b < nblocks, each block at most
 * MPCGI_PRECOND_MAX_BLOCK rows: a greedy walk that adds whole consecutive blocks to a tile while
 * it stays within MPCGI_PC_TILE_ROWS rows. Their count; with tile_row and tile_block (count + 1
 * entries each) also the first row and the first block of each tile, and tile_row[count] = n,
 * tile_block[count] = nblocks. */
int64_t mpcgi_bjacobi_tiles(int64_t nblocks, const int64_t *bstart, int64_t *tile_row,
                            int64_t *tile_block);
/* z = M^-1 r on host vectors of precision prec (z must not alias r; fp32: binv32, summed in
 * float as the device does). */
void mpcgi_bjacobi_apply_host(const mpcgi_precond *pc, mpcg_precision prec, const void *r, void *z);

/* precond/chebyshev.c */

/* The largest eigenvalue of the symmetric tridiagonal matrix with diagonal a[0..k-1] and
 * off-diagonal b[0..k-2] (Sturm bisection; k >= 1). */
double mpcgi_tridiag_lmax(int k, const double *a, const double *b);

/* precond/precond_device.c (CUDA builds) or precond/precond_device_stub.c: the device applies
 * on the context's stream (MPCG_ERR_NO_DEVICE in a CPU-only build); prec FP64 (double arrays)
 * or FP32 (float arrays) */

/* y = alpha dinv .* x on device arrays (y may be x). */
mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, mpcg_precision prec, int64_t n,
                                       double alpha, const void *dinv, const void *x, void *y);
/* z = M^-1 r for bjacobi on device arrays (pc's d_ arrays: d_binv or d_binv32). */
mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        mpcg_precision prec, const void *r, void *z);

#endif /* MPCG_PRECOND_PRECOND_IMPL_H */
