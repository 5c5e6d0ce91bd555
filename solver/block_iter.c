/* solver/block_iter.c: the block CG iterations: O'Leary's block CG with the search directions
 * orthonormalised and the dependent ones dropped, or nrhs independent CGs sharing the SpMM */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "solver/block_cg.h"

/*
 * Block (the default, block.method=block; docs/block.md): R = B - A X, Z = M^-1 R,
 * P = orth(Z); each iteration Q = A P, alpha = (P^T Q)^-1 P^T R, X += P alpha, R -= Q alpha,
 * Z = M^-1 R, beta = -(P^T Q)^-1 Q^T Z, P = orth(Z + P beta). orth (mpcgi_block_orth_factor)
 * drops the directions that have become dependent (duplicate right-hand sides, columns
 * converging), so P^T Q stays positive definite and P may have fewer columns than R.
 * Independent (block.method=independent): the same blocks, but every scalar of column i is its
 * own CG's (the diagonals of the small products), so column i follows the single-vector CG.
 * Stopping, per column: once ||r_i|| <= tol ||b_i|| by the recurrence, the true residuals of
 * every active column replace R; those below tol leave (converged at this iteration), the rest
 * go on from the true residual with fresh directions.
 */

typedef struct small {
    double G[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX], PQ[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    double A[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX], T[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    double rz[MPCGI_BLOCK_MAX], norms[MPCGI_BLOCK_MAX];
    int r; /* directions in P */
} small;

/* Every active column stops with `reason` (its true residual measured first). */
static mpcg_status stop_all(mpcgi_block_solve *b, mpcg_reason reason, int64_t k, small *w)
{
    int keep[MPCGI_BLOCK_MAX] = {0};
    for (int i = 0; i < b->m; i++) {
        mpcg_info *in = &b->infos[b->act[i]];
        in->reason = reason, in->iterations = k;
        in->recurrence_relres = w->norms[i] / b->bnorm[i];
    }
    MPCG_CHECK(b->ctx, mpcgi_block_residual(b, w->norms));
    for (int i = 0; i < b->m; i++) b->infos[b->act[i]].true_relres = w->norms[i] / b->bnorm[i];
    return mpcgi_block_compact(b, keep);
}

/* Recurrence norms of R into w->norms; 1 if a column is at tol, -1 on NaN/Inf, else 0. */
static int recurrence(mpcgi_block_solve *b, small *w, mpcg_status *st)
{
    *st = b->B->xty(b->ctx, b->ws, b->n, b->m, b->m, b->R, b->R, w->G);
    int at_tol = 0;
    for (int i = 0; i < b->m && *st == MPCG_SUCCESS; i++) {
        w->norms[i] = sqrt(w->G[i * b->m + i]);
        if (!isfinite(w->norms[i])) return -1;
        if (w->norms[i] <= b->s->tol * b->bnorm[i]) at_tol = 1;
    }
    return at_tol;
}

/* The true residuals decide: the columns at tol leave, converged at iteration k; R becomes the
 * true residual of the others. */
static mpcg_status settle(mpcgi_block_solve *b, int64_t k, small *w)
{
    int keep[MPCGI_BLOCK_MAX];
    double rec[MPCGI_BLOCK_MAX];
    memcpy(rec, w->norms, sizeof rec);
    MPCG_CHECK(b->ctx, mpcgi_block_residual(b, w->norms));
    for (int i = 0; i < b->m; i++) {
        mpcg_info *in = &b->infos[b->act[i]];
        keep[i] = !(w->norms[i] <= b->s->tol * b->bnorm[i]);
        if (keep[i]) {
            in->residual_replacements++;
            continue;
        }
        in->reason = MPCG_CONVERGED_RTOL, in->iterations = k;
        in->recurrence_relres = rec[i] / b->bnorm[i];
        in->true_relres = w->norms[i] / b->bnorm[i];
    }
    return mpcgi_block_compact(b, keep);
}

/* P = orth(W) over m columns (block) or P = W (independent); w->r directions. */
static mpcg_status directions(mpcgi_block_solve *b, small *w)
{
    const int m = b->m;
    if (b->independent) {
        w->r = m;
        return b->V->copy(b->ctx, b->n * m, b->W, b->P);
    }
    MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, m, m, b->W, b->W, w->G));
    w->r = mpcgi_block_orth_factor(w->G, m, b->rank_rel, w->T);
    if (w->r == 0) return MPCG_SUCCESS;
    return b->B->xb(b->ctx, b->n, m, w->r, b->W, w->T, 0.0, b->P);
}

/* A fresh start from R: Z = M^-1 R, W = Z, P from W; independent: rz = diag(R^T Z). */
static mpcg_status restart(mpcgi_block_solve *b, small *w)
{
    MPCG_CHECK(b->ctx, mpcgi_block_precond(b));
    MPCG_CHECK(b->ctx, b->V->copy(b->ctx, b->n * b->m, b->Z, b->W));
    if (b->independent) {
        MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, b->m, b->m, b->R, b->Z, w->G));
        for (int i = 0; i < b->m; i++) w->rz[i] = w->G[i * b->m + i];
    }
    return directions(b, w);
}

/* alpha (r x m): X += P alpha, R -= Q alpha; the reason that stops every column, or NONE. */
static mpcg_status step(mpcgi_block_solve *b, small *w, mpcg_reason *why)
{
    const int m = b->m, r = w->r;
    *why = MPCG_REASON_NONE;
    MPCG_CHECK(b->ctx, mpcgi_block_spmm(b, r, b->P, b->Q));
    MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, r, r, b->P, b->Q, w->PQ));
    if (b->independent) { /* alpha_i = (r_i . z_i) / (p_i . q_i) */
        memset(w->A, 0, (size_t)m * m * sizeof *w->A);
        for (int i = 0; i < m; i++) {
            const double pq = w->PQ[i * m + i];
            if (!(pq > 0))
                *why = isfinite(pq) ? MPCG_DIVERGED_INDEFINITE_MATRIX : MPCG_DIVERGED_NAN;
            w->A[i * m + i] = w->rz[i] / pq;
        }
    } else {
        MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, r, m, b->P, b->R, w->A));
        if (mpcgi_block_cholesky(w->PQ, r) != 0) *why = MPCG_DIVERGED_INDEFINITE_MATRIX;
        else mpcgi_block_cholesky_solve(w->PQ, r, w->A, m);
    }
    if (*why != MPCG_REASON_NONE) return MPCG_SUCCESS;
    MPCG_CHECK(b->ctx, b->B->xb(b->ctx, b->n, r, m, b->P, w->A, 1.0, b->X));
    for (int i = 0; i < r * m; i++) w->A[i] = -w->A[i];
    return b->B->xb(b->ctx, b->n, r, m, b->Q, w->A, 1.0, b->R);
}

/* The next directions from Z = M^-1 R: W = Z + P beta, P from W. */
static mpcg_status next_directions(mpcgi_block_solve *b, small *w)
{
    const int m = b->m, r = w->r;
    MPCG_CHECK(b->ctx, mpcgi_block_precond(b));
    if (b->independent) { /* beta_i = (r_i . z_i)_new / (r_i . z_i)_old */
        MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, m, m, b->R, b->Z, w->G));
        memset(w->A, 0, (size_t)m * m * sizeof *w->A);
        for (int i = 0; i < m; i++) {
            w->A[i * m + i] = w->G[i * m + i] / w->rz[i];
            w->rz[i] = w->G[i * m + i];
        }
    } else { /* beta = -(P^T Q)^-1 Q^T Z */
        MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, r, m, b->Q, b->Z, w->A));
        mpcgi_block_cholesky_solve(w->PQ, r, w->A, m);
        for (int i = 0; i < r * m; i++) w->A[i] = -w->A[i];
    }
    MPCG_CHECK(b->ctx, b->V->copy(b->ctx, b->n * m, b->Z, b->W));
    MPCG_CHECK(b->ctx, b->B->xb(b->ctx, b->n, r, m, b->P, w->A, 1.0, b->W));
    return directions(b, w);
}

static mpcg_status iterate(mpcgi_block_solve *b, small *w)
{
    mpcg_status st;
    mpcg_reason why;
    int64_t k = 0;
    int at_tol = 0;
    MPCG_CHECK(b->ctx, mpcgi_block_residual(b, w->norms));
    for (int i = 0; i < b->m; i++) at_tol |= w->norms[i] <= b->s->tol * b->bnorm[i];
    if (at_tol) MPCG_CHECK(b->ctx, settle(b, 0, w));
    if (b->m > 0) MPCG_CHECK(b->ctx, restart(b, w));
    while (b->m > 0) {
        if (w->r == 0) return stop_all(b, MPCG_DIVERGED_STAGNATION, k, w);
        if (k >= b->maxit) return stop_all(b, MPCG_DIVERGED_MAX_ITER, k, w);
        MPCG_CHECK(b->ctx, step(b, w, &why));
        if (why != MPCG_REASON_NONE) return stop_all(b, why, k, w);
        k++;
        const int rec = recurrence(b, w, &st);
        MPCG_CHECK(b->ctx, st);
        if (rec < 0) return stop_all(b, MPCG_DIVERGED_NAN, k, w);
        if (rec > 0) {
            MPCG_CHECK(b->ctx, settle(b, k, w));
            if (b->m > 0) MPCG_CHECK(b->ctx, restart(b, w));
            continue;
        }
        MPCG_CHECK(b->ctx, next_directions(b, w));
    }
    return MPCG_SUCCESS;
}

size_t mpcgi_block_scratch_bytes(void) { return sizeof(small); }

mpcg_status mpcgi_block_iterate(mpcgi_block_solve *b)
{
    small *w = b->scratch; /* 140 KB of small matrices: not on an embedding thread's stack */
    memset(w, 0, sizeof *w);
    return iterate(b, w);
}
