/* precond/precond.h: preconditioners M ~ A for PCG (Jacobi, block-Jacobi, Chebyshev): the setup
 * on the host from the CSR matrix, z = M^-1 r on the host (the reference) or on the GPU */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_PRECOND_PRECOND_H
#define MPCG_PRECOND_PRECOND_H

#include <stdint.h>

#include "core/csr.h"
#include "core/vec.h"
#include "mpcg.h"

/* The largest bjacobi block: its inverse is dense (nb^2 values per block, nb per row) and the
 * device apply gives each row one thread that sums nb products. */
#define MPCGI_PRECOND_MAX_BLOCK 64

/* What the solver asks for (mpcg_solver_set_precond and the precond.* options). */
typedef struct mpcgi_precond_params {
    mpcg_precond type;
    int block_size;   /* bjacobi: rows per block, [1, MPCGI_PRECOND_MAX_BLOCK]; 0: detected from
                         the pattern (node blocks of at most MPCGI_PRECOND_MAX_BLOCK rows) */
    int degree;       /* chebyshev: the polynomial's degree (>= 1) */
    double lmin_ratio; /* chebyshev: lambda_min = lmax * lmin_ratio, in (0, 1) */
    int block_apply;  /* bjacobi: MPCGI_BLOCK_APPLY_INVERSE or _CHOLESKY */
} mpcgi_precond_params;

/* bjacobi's blocks: their explicit inverses (z_b = Ainv_b r_b, a dense product) or their
 * Cholesky factors L_b (z_b = L_b^-T L_b^-1 r_b, two triangular solves). */
enum { MPCGI_BLOCK_APPLY_INVERSE, MPCGI_BLOCK_APPLY_CHOLESKY };

/* The products with A a preconditioner needs (chebyshev): y = A x where V computes. */
typedef mpcg_status (*mpcgi_precond_spmv_fn)(mpcg_context *ctx, void *user, const double *x,
                                             double *y);

typedef struct mpcgi_precond {
    mpcgi_precond_params params;
    int64_t n;
    int on_device;        /* the d_ arrays below hold device copies */
    /* jacobi and chebyshev: 1 / a_ii (host; device copy) */
    double *dinv, *d_dinv;
    /* bjacobi: block b holds rows [bstart[b], bstart[b + 1]); its inverse (the explicit inverse
     * of the Cholesky-factored block, row-major, nb x nb; block_apply cholesky: its factor L,
     * zeros above the diagonal) at binv + boff[b] */
    int64_t nblocks;
    int64_t *bstart, *boff;
    double *binv;
    int64_t *d_bstart, *d_boff;
    double *d_binv;
    int block_max;        /* the largest block */
    int detected;         /* 1: the blocks were detected from the pattern */
    int64_t diag_blocks;  /* blocks that were not SPD and fell back to their diagonal */
    int64_t first_diag_block; /* the first of them (-1: none) */
    /* chebyshev on the Jacobi-scaled matrix D^-1 A: its eigenvalue bounds and the products the
     * setup spent estimating lmax */
    double lmin, lmax;
    int64_t setup_spmvs;  /* of the last create or refresh */
    int lanczos_steps;    /* the steps the estimate ran (fewer than 10 where the Krylov space
                             of its start vector was exhausted) */
    int64_t apply_spmvs;  /* products with A per apply (chebyshev: degree - 1; others 0) */
    double setup_time_s;
    char describe[200];   /* one line for the reports: "bjacobi, 1806 blocks of up to 3 rows
                             (detected node blocks)" */
} mpcgi_precond;

/* The preconditioner to build for `asked`: itself, or for MPCG_PRECOND_AUTO Jacobi, unless
 * every diagonal entry of A is the same value (then none: D^-1 = I / d would scale CG's iterates
 * and nothing else, and cost 8 B a row); why: the choice in words ("" when not auto). */
mpcg_precond mpcgi_precond_resolve(const mpcgi_csr *A, mpcg_precond asked, char *why,
                                   size_t size);

/* Build M from A on the host (checks: a diagonal entry <= 0 or missing fails jacobi, bjacobi and
 * chebyshev with MPCG_ERR_INVALID_ARG naming the row; on a GPU context the arrays are copied to
 * the device). spmv/user: A's product where ctx computes, for chebyshev's lmax estimate (the
 * others may pass NULL). MPCG_PRECOND_NONE gives M = I (apply copies). Parameters out of range
 * fail with MPCG_ERR_INVALID_ARG; bjacobi without LAPACKE with MPCG_ERR_NOT_SUPPORTED. *out is
 * NULL on failure. */
mpcg_status mpcgi_precond_create(mpcg_context *ctx, const mpcgi_csr *A,
                                 const mpcgi_precond_params *p, mpcgi_precond_spmv_fn spmv,
                                 void *user, mpcgi_precond **out);
/* New values of A (same pattern): the numeric setup again, blocks and sizes kept. On failure
 * pc keeps its arrays but must not be applied before a refresh that succeeds. */
mpcg_status mpcgi_precond_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                  mpcgi_precond_spmv_fn spmv, void *user);
void mpcgi_precond_destroy(mpcg_context *ctx, mpcgi_precond *pc);

/* z = M^-1 r where ctx computes (host arrays on the CPU, device arrays on a GPU), fp64 vectors;
 * z must not alias r. V the fp64 vector table of that place (none, chebyshev), work: 2 n doubles
 * there (chebyshev of degree >= 2; the others may pass NULL), spmv/user as at create. */
mpcg_status mpcgi_precond_apply(mpcg_context *ctx, const mpcgi_precond *pc,
                                const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                const double *r, double *z, double *work);

#endif /* MPCG_PRECOND_PRECOND_H */
