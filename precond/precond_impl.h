/* precond/precond_impl.h: what the preconditioner's files share (the diagonal, the blocks, the
 * Chebyshev estimate and apply, the device launches) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_PRECOND_PRECOND_IMPL_H
#define MPCG_PRECOND_PRECOND_IMPL_H

#include "precond/precond.h"

/* precond/precond.c */

/* Check every diagonal entry of A (present, finite, > 0: MPCG_ERR_INVALID_ARG naming the first
 * offending 1-based row, "precond <who>: row 17: ...") and, when dinv is not NULL, set
 * dinv[i] = 1 / a_ii. */
mpcg_status mpcgi_precond_diag(mpcg_context *ctx, const mpcgi_csr *A, const char *who,
                               double *dinv);
/* y = alpha D^-1 x where ctx computes (y may be x). */
mpcg_status mpcgi_precond_scale(mpcg_context *ctx, const mpcgi_precond *pc, double alpha,
                                const double *x, double *y);

/* precond/bjacobi.c */

/* The blocks of pc->params.block_size rows (0: detected): pc->nblocks, bstart, boff (host),
 * block_max, detected. MPCG_ERR_NOT_SUPPORTED in a build without LAPACKE. */
mpcg_status mpcgi_bjacobi_blocks(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc);
/* pc->binv (allocated by the caller, boff[nblocks] doubles) = the blocks' inverses from A's
 * values; diag_blocks and first_diag_block count the blocks that fell back to their diagonal. */
mpcg_status mpcgi_bjacobi_factor(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc);
/* "bjacobi, 1806 blocks of up to 3 rows (detected node blocks)" and the fallbacks, if any. */
void mpcgi_bjacobi_describe(const mpcgi_precond *pc, char *buf, size_t size);
/* z = M^-1 r on host vectors (z must not alias r). */
void mpcgi_bjacobi_apply_host(const mpcgi_precond *pc, const double *r, double *z);

/* precond/chebyshev.c */

/* pc->lmax, lmin, lanczos_steps, setup_spmvs from Lanczos steps on D^-1 A where ctx computes
 * (pc->dinv and, on a GPU, d_dinv already set). */
mpcg_status mpcgi_chebyshev_estimate(mpcg_context *ctx, mpcgi_precond *pc,
                                     mpcgi_precond_spmv_fn spmv, void *user);
/* z = p(D^-1 A) D^-1 r: the Chebyshev iteration for A z = r from z = 0, degree steps. */
mpcg_status mpcgi_chebyshev_apply(mpcg_context *ctx, const mpcgi_precond *pc,
                                  const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                  const double *r, double *z, double *work);
/* The largest eigenvalue of the symmetric tridiagonal matrix with diagonal a[0..k-1] and
 * off-diagonal b[0..k-2] (Sturm bisection; k >= 1). */
double mpcgi_tridiag_lmax(int k, const double *a, const double *b);

/* precond/precond_device.c (CUDA builds) or precond/precond_device_stub.c: the device applies
 * on the context's stream (MPCG_ERR_NO_DEVICE in a CPU-only build) */

/* y = alpha dinv .* x on device arrays (y may be x). */
mpcg_status mpcgi_precond_device_scale(mpcg_context *ctx, int64_t n, double alpha,
                                       const double *dinv, const double *x, double *y);
/* z = M^-1 r for bjacobi on device arrays (pc's d_ arrays). */
mpcg_status mpcgi_precond_device_blocks(mpcg_context *ctx, const mpcgi_precond *pc,
                                        const double *r, double *z);

#endif /* MPCG_PRECOND_PRECOND_IMPL_H */
