/* solver/block_cg.h: block CG for many right-hand sides (solver/block_cg.c: the API and the
 * state; solver/block_iter.c: the two iterations; solver/block_dense.c: the small dense
 * algebra) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_BLOCK_CG_H
#define MPCG_SOLVER_BLOCK_CG_H

#include "core/block.h"
#include "solver/solver.h"

/* Block CG's work arrays, held by the solver from one block solve to the next (as mpcg_solve's
 * vectors are held from setup), where the solver computes: the blocks for `cap` columns, the
 * staging of host B and X (device solves), the preconditioner's columns, xty's workspace for
 * every shape up to cap x cap; on the host, the iteration's small matrices (scratch). */
#define MPCGI_BLOCK_BLOCKS 10 /* X R Z P Q W T Bm, then the staged B and X */
typedef struct mpcgi_block_ws {
    int cap;
    double *blk[MPCGI_BLOCK_BLOCKS];
    double *col_r, *col_z, *pc_work;
    void *ws;
    void *scratch; /* host, mpcgi_block_scratch_bytes() */
} mpcgi_block_ws;

/* The solver's work arrays for nrhs columns (kept if they hold as many, else made anew). */
mpcg_status mpcgi_block_ws_get(mpcg_solver *s, int nrhs, mpcgi_block_ws **out);
/* Release them (the solver's teardown). */
void mpcgi_block_ws_free(mpcg_solver *s);

/* A block solve's state. Blocks are n x m row-major (core/block.h) where the solver computes;
 * the m active columns are compacted (act[i]: the caller's column of active column i), so a
 * converged column leaves every block. */
typedef struct mpcgi_block_solve {
    mpcg_solver *s;
    mpcg_context *ctx;
    const mpcgi_block_ops *B;  /* fp64 block kernels where the solver computes */
    const mpcgi_vec_ops *V;    /* fp64 vector kernels there (blocks as vectors of n m values) */
    int64_t n, maxit;
    int nrhs, m, independent;
    int col0;                  /* the caller's column of this group's column 0 */
    double rank_rel;           /* a direction whose new part is below this of its norm drops */
    double *X, *R, *Z, *P, *Q, *W, *T, *Bm; /* n x nrhs each */
    double *col_r, *col_z, *pc_work;         /* n, n, 2 n: the preconditioner column by column */
    void *ws;                                /* xty's workspace for every shape up to nrhs */
    void *scratch;                           /* host: the iteration's small matrices */
    double *out_x;             /* the caller's X (column-major, ld n) where the solver computes */
    int act[MPCGI_BLOCK_MAX];
    double bnorm[MPCGI_BLOCK_MAX];
    mpcg_info *infos;          /* nrhs, the caller's order */
    int64_t spmm, spmm_cols;   /* block products, and the vectors they multiplied */
} mpcgi_block_solve;

/* The iterations (solver/block_iter.c): from X (n x m, the guess) to every column converged or
 * stopped, its info filled (reason, iterations, recurrence_relres); the converged columns are
 * written to out_x as they leave. */
mpcg_status mpcgi_block_iterate(mpcgi_block_solve *b);
/* Bytes of host scratch mpcgi_block_iterate needs (b->scratch). */
size_t mpcgi_block_scratch_bytes(void);

/* Helpers of the iterations (solver/block_cg.c). */
mpcg_status mpcgi_block_spmm(mpcgi_block_solve *b, int w, const double *X, double *Y);
/* Keep the active columns i with keep[i] set: X, R and Bm compacted (the iteration makes Z and
 * P again); the leaving columns of X are written to out_x first. */
mpcg_status mpcgi_block_compact(mpcgi_block_solve *b, const int *keep);
/* The active columns' residuals at iteration k (norms[i] = ||r_i||, the recurrence one, the
 * true one or both: MPCGI_BLOCK_NOTE_*) into their histories and the block monitor. */
enum { MPCGI_BLOCK_NOTE_REC = 1, MPCGI_BLOCK_NOTE_TRUE = 2, MPCGI_BLOCK_NOTE_BOTH = 3 };
mpcg_status mpcgi_block_note(mpcgi_block_solve *b, int64_t k, const double *norms, int what);
/* R = Bm - A X over the m active columns; norms[i] = ||r_i||. */
mpcg_status mpcgi_block_residual(mpcgi_block_solve *b, double *norms);
/* Z = M^-1 R (column by column; Z = R without a preconditioner). */
mpcg_status mpcgi_block_precond(mpcgi_block_solve *b);

/* Small dense algebra (solver/block_dense.c), row-major, on the host. */
int mpcgi_block_orth_factor(const double *G, int m, double rel, double *T);
int mpcgi_block_cholesky(double *M, int r);
void mpcgi_block_cholesky_solve(const double *C, int r, double *Y, int m);

#endif /* MPCG_SOLVER_BLOCK_CG_H */
