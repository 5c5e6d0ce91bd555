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
 * Stopping, per column: once ||r_i|| <= max(tol ||b_i||, atol) by the recurrence, the true
 * residuals of every active column replace R; those at or below that leave (converged at this
 * iteration), the rest go on from the true residual with fresh directions.
 *
 * An iteration is the SpMM and three passes over the rows (core/block_pass.h), each reading its
 * blocks once: (A) P^T Q and P^T R; (B) X += P alpha, R -= Q alpha with R^T R (the recurrence
 * norms) and, without a preconditioner (Z = R), Q^T Z, P^T Z and P^T P; (D) W = Z + P beta
 * orthonormalised on the fly, P = W T, T from W^T W = Z^T Z + beta^T P^T Z + Z^T P beta +
 * beta^T P^T P beta (the Gram matrix from B's products, W never stored). A preconditioner adds
 * its application and a pass (C) for Q^T Z, P^T Z, Z^T Z.
 */

#define W_ MPCGI_PASS_MAXW

typedef struct small {
    double PQ[W_ * W_]; /* P^T Q (r x r), then its Cholesky factor */
    double A[W_ * W_];  /* alpha, beta (r x m) */
    double N[W_ * W_];  /* -alpha */
    double T[W_ * W_];  /* orth's factor (m x r) */
    double G[W_ * W_];  /* Gram matrices (m x m) */
    double ZZ[W_ * W_], QZ[W_ * W_], PZ[W_ * W_], PP[W_ * W_]; /* products kept for D */
    double C[MPCGI_PASS_PRODUCTS * W_ * W_];                   /* a pass's products */
    double rz[W_], norms[W_];
    int r; /* directions in P */
} small;

static mpcgi_block_pass pass_of(const mpcgi_block_solve *b)
{
    mpcgi_block_pass p;
    memset(&p, 0, sizeof p);
    p.n = b->n;
    return p;
}

/* A block of the pass: its input, where it is written, its width; its index. */
static int blk(mpcgi_block_pass *p, const double *in, double *out, int w)
{
    p->in[p->nb] = in, p->out[p->nb] = out, p->w[p->nb] = w;
    return p->nb++;
}

static void prod(mpcgi_block_pass *p, int a, int c)
{
    p->prod[p->nprod][0] = a, p->prod[p->nprod][1] = c, p->nprod++;
}

static void upd(mpcgi_block_pass *p, int dst, int src, int set, const double *M)
{
    p->upd[p->nupd++] = (mpcgi_pass_update){.dst = dst, .src = src, .set = set, .M = M};
}

/* Z: the preconditioned residual, R itself without a preconditioner. */
static double *zblock(const mpcgi_block_solve *b)
{
    return b->s->pc ? b->Z : b->R;
}

static mpcg_status run(mpcgi_block_solve *b, const mpcgi_block_pass *p, double *C)
{
    return b->B->pass(b->ctx, b->ws, p, C);
}

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
    for (int i = 0; i < b->m; i++)
        b->infos[b->act[i]].true_relres = w->norms[i] / b->bnorm[i];
    MPCG_CHECK(b->ctx, mpcgi_block_note(b, k, w->norms, MPCGI_BLOCK_NOTE_TRUE));
    return mpcgi_block_compact(b, keep);
}

/* Recurrence norms from R^T R (w->G): 1 if a column is at tol, -1 on NaN/Inf, else 0. */
static int recurrence(mpcgi_block_solve *b, small *w)
{
    int at_tol = 0;
    for (int i = 0; i < b->m; i++) {
        w->norms[i] = sqrt(w->G[i * b->m + i]);
        if (!isfinite(w->norms[i])) return -1;
        if (w->norms[i] <= mpcgi_cg_target(b->s, b->bnorm[i])) at_tol = 1;
    }
    return at_tol;
}

/* The true residuals decide: the columns at tol leave, converged at iteration k; R becomes the
 * true residual of the others. */
static mpcg_status settle(mpcgi_block_solve *b, int64_t k, small *w)
{
    int keep[MPCGI_BLOCK_MAX], kept = 0;
    double rec[MPCGI_BLOCK_MAX];
    memcpy(rec, w->norms, sizeof w->norms);
    MPCG_CHECK(b->ctx, mpcgi_block_residual(b, w->norms));
    MPCG_CHECK(b->ctx, mpcgi_block_note(b, k, w->norms, MPCGI_BLOCK_NOTE_TRUE));
    for (int i = 0; i < b->m; i++) {
        mpcg_info *in = &b->infos[b->act[i]];
        const mpcg_reason why = mpcgi_cg_converged(b->s, w->norms[i], b->bnorm[i]);
        keep[i] = why == MPCG_REASON_NONE;
        if (keep[i]) {
            in->residual_replacements++;
            w->norms[kept++] = w->norms[i]; /* the staying columns' norms, compacted as R is */
            continue;
        }
        in->reason = why, in->iterations = k;
        in->recurrence_relres = rec[i] / b->bnorm[i];
        in->true_relres = w->norms[i] / b->bnorm[i];
    }
    return mpcgi_block_compact(b, keep);
}

/* A fresh start from R: Z = M^-1 R; independent: P = Z, rz = diag(R^T Z); block: P = orth(Z). */
static mpcg_status restart(mpcgi_block_solve *b, small *w)
{
    const int m = b->m;
    mpcgi_block_pass p = pass_of(b);
    if (b->s->pc) MPCG_CHECK(b->ctx, mpcgi_block_precond(b));
    double *Z = zblock(b);
    const int z = blk(&p, Z, NULL, m);
    if (b->independent) {
        prod(&p, blk(&p, b->R, NULL, m), z);
        MPCG_CHECK(b->ctx, run(b, &p, w->G));
        for (int i = 0; i < m; i++)
            w->rz[i] = w->G[i * m + i];
        w->r = m;
        return b->V->copy(b->ctx, b->n * m, Z, b->P);
    }
    prod(&p, z, z);
    MPCG_CHECK(b->ctx, run(b, &p, w->G));
    w->r = mpcgi_block_orth_factor(w->G, m, b->rank_rel, w->T);
    if (w->r == 0) return MPCG_SUCCESS;
    return b->B->xb(b->ctx, b->n, m, w->r, Z, w->T, 0.0, b->P);
}

/* alpha (r x m) from pass A; the reason that stops every column, or NONE. */
static void alpha(mpcgi_block_solve *b, small *w, mpcg_reason *why)
{
    const int m = b->m, r = w->r;
    memcpy(w->PQ, w->C, (size_t)r * r * sizeof *w->PQ);
    if (b->independent) { /* alpha_i = (r_i . z_i) / (p_i . q_i) */
        memset(w->A, 0, (size_t)m * m * sizeof *w->A);
        for (int i = 0; i < m; i++) {
            const double pq = w->PQ[i * m + i];
            if (!(pq > 0))
                *why = isfinite(pq) ? MPCG_DIVERGED_INDEFINITE_MATRIX : MPCG_DIVERGED_NAN;
            w->A[i * m + i] = w->rz[i] / pq;
        }
        return;
    }
    memcpy(w->A, w->C + r * r, (size_t)r * m * sizeof *w->A); /* P^T R */
    if (mpcgi_block_cholesky(w->PQ, r) != 0)
        *why = MPCG_DIVERGED_INDEFINITE_MATRIX;
    else
        mpcgi_block_cholesky_solve(w->PQ, r, w->A, m);
}

/* Q = A P; pass A; pass B: X += P alpha, R -= Q alpha with R^T R into w->G (and, Z = R, the
 * products of D). The reason that stops every column, or NONE. */
static mpcg_status step(mpcgi_block_solve *b, small *w, mpcg_reason *why)
{
    const int m = b->m, r = w->r;
    *why = MPCG_REASON_NONE;
    MPCG_CHECK(b->ctx, mpcgi_block_spmm(b, r, b->P, b->Q));
    mpcgi_block_pass a = pass_of(b);
    const int pa = blk(&a, b->P, NULL, r), qa = blk(&a, b->Q, NULL, r);
    prod(&a, pa, qa);
    if (!b->independent) prod(&a, pa, blk(&a, b->R, NULL, m));
    MPCG_CHECK(b->ctx, run(b, &a, w->C));
    alpha(b, w, why);
    if (*why != MPCG_REASON_NONE) return MPCG_SUCCESS;
    for (int i = 0; i < r * m; i++)
        w->N[i] = -w->A[i];
    mpcgi_block_pass u = pass_of(b);
    const int p = blk(&u, b->P, NULL, r), q = blk(&u, b->Q, NULL, r);
    const int x = blk(&u, b->X, b->X, m), rr = blk(&u, b->R, b->R, m);
    upd(&u, x, p, 0, w->A);
    upd(&u, rr, q, 0, w->N);
    prod(&u, rr, rr);
    const int fused = !b->independent && !b->s->pc;
    if (fused) prod(&u, q, rr), prod(&u, p, rr), prod(&u, p, p);
    MPCG_CHECK(b->ctx, run(b, &u, w->C));
    memcpy(w->G, w->C, (size_t)m * m * sizeof *w->G);
    if (fused) {
        memcpy(w->ZZ, w->C, (size_t)m * m * sizeof *w->ZZ);
        memcpy(w->QZ, w->C + m * m, (size_t)r * m * sizeof *w->QZ);
        memcpy(w->PZ, w->C + m * m + r * m, (size_t)r * m * sizeof *w->PZ);
        memcpy(w->PP, w->C + m * m + 2 * r * m, (size_t)r * r * sizeof *w->PP);
    }
    return MPCG_SUCCESS;
}

/* With a preconditioner: Z = M^-1 R and pass C (block: Q^T Z, P^T Z, Z^T Z, P^T P;
 * independent: R^T Z). */
static mpcg_status precondition(mpcgi_block_solve *b, small *w)
{
    const int m = b->m, r = w->r;
    MPCG_CHECK(b->ctx, mpcgi_block_precond(b));
    mpcgi_block_pass c = pass_of(b);
    const int z = blk(&c, b->Z, NULL, m);
    if (b->independent) {
        prod(&c, blk(&c, b->R, NULL, m), z);
        MPCG_CHECK(b->ctx, run(b, &c, w->ZZ));
        return MPCG_SUCCESS;
    }
    const int p = blk(&c, b->P, NULL, r), q = blk(&c, b->Q, NULL, r);
    prod(&c, q, z), prod(&c, p, z), prod(&c, z, z), prod(&c, p, p);
    MPCG_CHECK(b->ctx, run(b, &c, w->C));
    memcpy(w->QZ, w->C, (size_t)r * m * sizeof *w->QZ);
    memcpy(w->PZ, w->C + r * m, (size_t)r * m * sizeof *w->PZ);
    memcpy(w->ZZ, w->C + 2 * r * m, (size_t)m * m * sizeof *w->ZZ);
    memcpy(w->PP, w->C + 2 * r * m + m * m, (size_t)r * r * sizeof *w->PP);
    return MPCG_SUCCESS;
}

/* G = Z^T Z + beta^T P^T Z + (P^T Z)^T beta + beta^T P^T P beta: the Gram matrix of
 * W = Z + P beta (m x m) from the products (beta r x m). */
static void next_gram(small *w, int m)
{
    double PB[W_ * W_]; /* P^T P beta, r x m */
    const int r = w->r;
    for (int k = 0; k < r; k++)
        for (int j = 0; j < m; j++) {
            double v = 0;
            for (int l = 0; l < r; l++)
                v += w->PP[k * r + l] * w->A[l * m + j];
            PB[k * m + j] = v;
        }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double v = w->ZZ[i * m + j];
            for (int k = 0; k < r; k++)
                v += w->A[k * m + i] * (w->PZ[k * m + j] + PB[k * m + j]) +
                     w->PZ[k * m + i] * w->A[k * m + j];
            w->G[i * m + j] = v;
        }
}

/* The next directions: beta, then pass D writes P = (Z + P beta) T into W (swapped with P). */
static mpcg_status next_directions(mpcgi_block_solve *b, small *w)
{
    const int m = b->m, r = w->r;
    if (b->s->pc) MPCG_CHECK(b->ctx, precondition(b, w));
    mpcgi_block_pass d = pass_of(b);
    const int z = blk(&d, zblock(b), NULL, m), p = blk(&d, b->P, NULL, r);
    if (b->independent) { /* beta_i = (r_i . z_i)_new / (r_i . z_i)_old; P = Z + P beta */
        const double *rz = b->s->pc ? w->ZZ : w->G;
        memset(w->A, 0, (size_t)m * m * sizeof *w->A);
        for (int i = 0; i < m; i++) {
            w->A[i * m + i] = rz[i * m + i] / w->rz[i];
            w->rz[i] = rz[i * m + i];
        }
        d.out[z] = b->W;
        upd(&d, z, p, 0, w->A);
    } else { /* beta = -(P^T Q)^-1 Q^T Z; P = orth(Z + P beta) */
        memcpy(w->A, w->QZ, (size_t)r * m * sizeof *w->A);
        mpcgi_block_cholesky_solve(w->PQ, r, w->A, m);
        for (int i = 0; i < r * m; i++)
            w->A[i] = -w->A[i];
        next_gram(w, m);
        w->r = mpcgi_block_orth_factor(w->G, m, b->rank_rel, w->T);
        if (w->r == 0) return MPCG_SUCCESS;
        const int nw = blk(&d, NULL, b->W, w->r);
        upd(&d, z, p, 0, w->A);
        upd(&d, nw, z, 1, w->T);
    }
    MPCG_CHECK(b->ctx, run(b, &d, NULL));
    double *t = b->P;
    b->P = b->W, b->W = t;
    return MPCG_SUCCESS;
}

static mpcg_status iterate(mpcgi_block_solve *b, small *w)
{
    mpcg_reason why;
    int64_t k = 0;
    int at_tol = 0;
    MPCG_CHECK(b->ctx, mpcgi_block_residual(b, w->norms));
    MPCG_CHECK(b->ctx, mpcgi_block_note(b, 0, w->norms, MPCGI_BLOCK_NOTE_BOTH));
    for (int i = 0; i < b->m; i++)
        at_tol |= w->norms[i] <= mpcgi_cg_target(b->s, b->bnorm[i]);
    if (at_tol) MPCG_CHECK(b->ctx, settle(b, 0, w));
    if (b->m > 0) MPCG_CHECK(b->ctx, restart(b, w));
    while (b->m > 0) {
        if (w->r == 0) return stop_all(b, MPCG_DIVERGED_STAGNATION, k, w);
        if (k >= b->maxit) return stop_all(b, MPCG_DIVERGED_MAX_ITER, k, w);
        MPCG_CHECK(b->ctx, step(b, w, &why));
        if (why != MPCG_REASON_NONE) return stop_all(b, why, k, w);
        k++;
        const int rec = recurrence(b, w);
        if (rec < 0) return stop_all(b, MPCG_DIVERGED_NAN, k, w);
        MPCG_CHECK(b->ctx, mpcgi_block_note(b, k, w->norms, MPCGI_BLOCK_NOTE_REC));
        if (rec > 0) {
            MPCG_CHECK(b->ctx, settle(b, k, w));
            if (b->m > 0) MPCG_CHECK(b->ctx, restart(b, w));
            continue;
        }
        MPCG_CHECK(b->ctx, next_directions(b, w));
    }
    return MPCG_SUCCESS;
}

size_t mpcgi_block_scratch_bytes(void)
{
    return sizeof(small);
}

mpcg_status mpcgi_block_iterate(mpcgi_block_solve *b)
{
    small *w = b->scratch; /* 100 KB of small matrices: not on an embedding thread's stack */
    memset(w, 0, sizeof *w);
    return iterate(b, w);
}
