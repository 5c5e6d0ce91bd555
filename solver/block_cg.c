/* solver/block_cg.c: mpcg_solve_block and mpcg_solve_block_device: many right-hand sides at
 * once, on the solver's plan and preconditioner (the iterations: solver/block_iter.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "precond/precond.h"
#include "solver/block_cg.h"
#include "solver/options.h"

/*
 * The caller's blocks are n x nrhs column-major (column j at B + j n), where the solver
 * computes (mpcg_solve_block stages host arrays through the device on a GPU). Inside, the active
 * columns are compacted into n x m row-major blocks (core/block.h). Precision fp64; the plan
 * needs a block product (spmv apply_block); every preconditioner, applied column by column.
 */

mpcg_status mpcgi_block_spmm(mpcgi_block_solve *b, int w, const double *X, double *Y)
{
    MPCG_CHECK(b->ctx, mpcgi_spmv_apply_block(b->ctx, b->s->plan, MPCG_PRECISION_FP64, w, X, Y));
    b->spmm++, b->spmm_cols += w;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_compact(mpcgi_block_solve *b, const int *keep)
{
    const int m = b->m;
    int k = 0;
    double S[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    for (int i = 0; i < m; i++)
        if (!keep[i])
            MPCG_CHECK(b->ctx, b->B->get_col(b->ctx, b->n, m, i, b->X,
                                             b->out_x + (size_t)b->act[i] * b->n));
    for (int i = 0; i < m; i++)
        k += keep[i] != 0;
    if (k == m) return MPCG_SUCCESS;
    memset(S, 0, sizeof S);
    for (int i = 0, c = 0; i < m; i++)
        if (keep[i]) {
            S[i * k + c] = 1.0;
            b->act[c] = b->act[i], b->bnorm[c] = b->bnorm[i], c++;
        }
    if (k > 0) {
        double **blocks[] = {&b->X, &b->R, &b->Bm};
        for (int q = 0; q < 3; q++) { /* T = block S, then swap */
            MPCG_CHECK(b->ctx, b->B->xb(b->ctx, b->n, m, k, *blocks[q], S, 0.0, b->T));
            double *t = *blocks[q];
            *blocks[q] = b->T, b->T = t;
        }
    }
    b->m = k;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_note(mpcgi_block_solve *b, int64_t k, const double *norms, int what)
{
    for (int i = 0; i < b->m; i++) {
        const double v = norms[i] / b->bnorm[i];
        MPCG_CHECK(b->ctx, mpcgi_history_column(b->s, b->col0 + b->act[i], k,
                                                what & MPCGI_BLOCK_NOTE_REC ? v : NAN,
                                                what & MPCGI_BLOCK_NOTE_TRUE ? v : NAN));
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_residual(mpcgi_block_solve *b, double *norms)
{
    const int m = b->m;
    double G[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    if (m == 0) return MPCG_SUCCESS;
    MPCG_CHECK(b->ctx, mpcgi_block_spmm(b, m, b->X, b->T));             /* T = A X */
    MPCG_CHECK(b->ctx, b->V->copy(b->ctx, b->n * m, b->Bm, b->R));      /* R = B */
    MPCG_CHECK(b->ctx, b->V->axpy(b->ctx, b->n * m, -1.0, b->T, b->R)); /* R -= T */
    MPCG_CHECK(b->ctx, b->B->xty(b->ctx, b->ws, b->n, m, m, b->R, b->R, G));
    for (int i = 0; i < m; i++)
        norms[i] = sqrt(G[i * m + i]);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_precond(mpcgi_block_solve *b)
{
    mpcg_solver *s = b->s;
    if (!s->pc) return b->V->copy(b->ctx, b->n * b->m, b->R, b->Z);
    for (int i = 0; i < b->m; i++) {
        MPCG_CHECK(b->ctx, b->B->get_col(b->ctx, b->n, b->m, i, b->R, b->col_r));
        MPCG_CHECK(b->ctx, mpcgi_precond_apply(b->ctx, s->pc, MPCG_PRECISION_FP64, b->V,
                                               mpcgi_pcg_spmv, s, b->col_r, b->col_z, b->pc_work));
        MPCG_CHECK(b->ctx, b->B->set_col(b->ctx, b->n, b->m, i, b->col_z, b->Z));
    }
    return MPCG_SUCCESS;
}

static mpcg_status alloc_where(const mpcg_solver *s, size_t bytes, void *pptr)
{
    if (s->on_device) return mpcgi_device_alloc(s->ctx, bytes ? bytes : 8, pptr);
    return mpcgi_host_alloc(s->ctx, bytes ? bytes : 8, pptr);
}

static void free_where(const mpcg_solver *s, void *p)
{
    if (s->on_device)
        mpcgi_device_free(s->ctx, p);
    else
        mpcgi_host_free(p);
}

void mpcgi_block_ws_free(mpcg_solver *s)
{
    mpcgi_block_ws *w = s->block;
    if (!w) return;
    for (int i = 0; i < MPCGI_BLOCK_BLOCKS; i++)
        free_where(s, w->blk[i]);
    free_where(s, w->col_r), free_where(s, w->col_z), free_where(s, w->pc_work);
    free_where(s, w->ws);
    mpcgi_host_free(w->scratch);
    mpcgi_host_free(w);
    s->block = NULL;
}

/* xty's workspace for every shape the iteration asks (a, b <= cap): the grid of the
 * tall-skinny GEMM depends on the shape, so a smaller one can need more. */
static size_t xty_bytes(const mpcgi_block_ops *B, int64_t n, int cap)
{
    size_t most = 0;
    for (int a = 1; a <= cap; a++)
        for (int b = 1; b <= cap; b++) {
            const size_t w = B->xty_workspace(n, a, b);
            most = w > most ? w : most;
        }
    return most;
}

static mpcg_status ws_make(mpcg_solver *s, const mpcgi_block_ops *B, int cap, mpcgi_block_ws *w)
{
    const int64_t n = s->A->csr.n;
    const size_t blk = (size_t)n * (size_t)cap * sizeof(double), col = (size_t)n * 8;
    w->cap = cap;
    for (int i = 0; i < MPCGI_BLOCK_BLOCKS; i++)
        if (i < 8 || s->on_device) MPCG_CHECK(s->ctx, alloc_where(s, blk, &w->blk[i]));
    MPCG_CHECK(s->ctx, alloc_where(s, col, &w->col_r));
    MPCG_CHECK(s->ctx, alloc_where(s, col, &w->col_z));
    MPCG_CHECK(s->ctx, alloc_where(s, 2 * col, &w->pc_work));
    const int pw = cap < MPCGI_PASS_MAXW ? cap : MPCGI_PASS_MAXW;
    const size_t xb = xty_bytes(B, n, pw), pb = B->pass_workspace(n, pw);
    MPCG_CHECK(s->ctx, alloc_where(s, xb > pb ? xb : pb, &w->ws));
    return mpcgi_host_alloc(s->ctx, mpcgi_block_scratch_bytes(), &w->scratch);
}

mpcg_status mpcgi_block_ws_get(mpcg_solver *s, int nrhs, mpcgi_block_ws **out)
{
    const mpcg_device_kind kind = s->on_device ? MPCG_DEVICE_CUDA : MPCG_DEVICE_CPU;
    const mpcgi_block_ops *B = mpcgi_block_ops_for(kind, MPCG_PRECISION_FP64);
    MPCG_ENSURE(s->ctx, B, MPCG_ERR_NOT_SUPPORTED, "no block kernels on this device");
    if (s->block && s->block->cap >= nrhs) {
        *out = s->block;
        return MPCG_SUCCESS;
    }
    mpcgi_block_ws_free(s);
    MPCG_CHECK(s->ctx, mpcgi_host_calloc(s->ctx, 1, sizeof *s->block, &s->block));
    const mpcg_status st = ws_make(s, B, nrhs, s->block);
    if (st != MPCG_SUCCESS) mpcgi_block_ws_free(s);
    *out = s->block;
    return st;
}

/* The columns' norms; b = 0 columns are solved (x = 0) and leave; the others fill Bm and X. */
static mpcg_status load(mpcgi_block_solve *b, const double *B)
{
    mpcg_solver *s = b->s;
    const int64_t n = b->n;
    double bn[MPCGI_BLOCK_MAX];
    int m = 0;
    for (int j = 0; j < b->nrhs; j++) {
        MPCG_CHECK(b->ctx,
                   b->V->dot(b->ctx, s->dot_ws, n, B + (size_t)j * n, B + (size_t)j * n, &bn[j]));
        MPCG_ENSURE(b->ctx, isfinite(bn[j]), MPCG_ERR_INVALID_ARG,
                    "column %d of B is not finite (b.b = %g)", j, bn[j]);
        if (bn[j] > 0) b->act[m++] = j;
    }
    for (int j = 0; j < b->nrhs; j++) {
        if (bn[j] > 0) continue;
        MPCG_CHECK(b->ctx, b->V->zero(b->ctx, n, b->out_x + (size_t)j * n));
        b->infos[j].reason = MPCG_CONVERGED_ZERO_RHS;
    }
    b->m = m;
    for (int i = 0; i < m; i++) {
        const int j = b->act[i];
        b->bnorm[i] = sqrt(bn[j]);
        MPCG_CHECK(b->ctx, b->B->set_col(b->ctx, n, m, i, B + (size_t)j * n, b->Bm));
        if (s->guess == MPCG_GUESS_PROVIDED)
            MPCG_CHECK(b->ctx, b->B->set_col(b->ctx, n, m, i, b->out_x + (size_t)j * n, b->X));
    }
    if (s->guess != MPCG_GUESS_PROVIDED && m > 0)
        MPCG_CHECK(b->ctx, b->V->zero(b->ctx, n * m, b->X));
    return MPCG_SUCCESS;
}

/* The block solve of nrhs <= MPCGI_PASS_MAXW columns on arrays where the solver computes, in the
 * solver's work arrays w; infos filled but for the times. */
static mpcg_status solve_group(mpcg_solver *s, mpcgi_block_ws *w, int col0, int nrhs,
                               const double *B, double *X, mpcg_info *infos)
{
    mpcgi_block_solve b = {.s = s,
                           .ctx = s->ctx,
                           .n = s->A->csr.n,
                           .nrhs = nrhs,
                           .col0 = col0,
                           .out_x = X,
                           .infos = infos,
                           .V = s->V64};
    const mpcg_device_kind kind = s->on_device ? MPCG_DEVICE_CUDA : MPCG_DEVICE_CPU;
    b.B = mpcgi_block_ops_for(kind, MPCG_PRECISION_FP64);
    double **v[] = {&b.X, &b.R, &b.Z, &b.P, &b.Q, &b.W, &b.T, &b.Bm};
    for (int i = 0; i < 8; i++)
        *v[i] = w->blk[i];
    b.col_r = w->col_r, b.col_z = w->col_z, b.pc_work = w->pc_work;
    b.ws = w->ws, b.scratch = w->scratch;
    b.independent = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_BLOCK_METHOD]);
    b.rank_rel = pow(10.0, -(double)mpcgi_options_get(
                               &s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_BLOCK_RANK_DIGITS]));
    b.maxit = s->maxit >= 0 ? s->maxit : (10 * b.n > 100 ? 10 * b.n : 100);
    mpcg_status st = load(&b, B);
    if (st == MPCG_SUCCESS && b.m > 0) st = mpcgi_block_iterate(&b);
    for (int j = 0; j < nrhs; j++) {
        infos[j].spmvs = infos[j].spmvs_fp64 = b.spmm; /* block products, shared by the columns */
        infos[j].bytes_per_iteration = (double)s->plan->sizes.bytes_matrix;
    }
    return st;
}

/* More columns than a pass takes are solved as blocks of at most MPCGI_PASS_MAXW columns, one
 * after another, the columns shared out evenly (docs/block.md). */
static mpcg_status solve_where(mpcg_solver *s, mpcgi_block_ws *w, int nrhs, const double *B,
                               double *X, mpcg_info *infos)
{
    const int64_t n = s->A->csr.n;
    const int groups = (nrhs + MPCGI_PASS_MAXW - 1) / MPCGI_PASS_MAXW;
    for (int g = 0, c0 = 0; g < groups; g++) {
        const int cols = (nrhs - c0) / (groups - g);
        MPCG_CHECK(s->ctx,
                   solve_group(s, w, c0, cols, B + (size_t)c0 * n, X + (size_t)c0 * n,
                               infos + c0));
        c0 += cols;
    }
    return MPCG_SUCCESS;
}

/* The common checks; variant and reason words of every info. */
static mpcg_status begin(mpcg_solver *s, int nrhs, const void *B, const void *X, mpcg_info *infos)
{
    MPCG_ENSURE(NULL, s && s->magic == MPCGI_SOLVER_MAGIC, MPCG_ERR_INVALID_ARG,
                "invalid solver (NULL or destroyed)");
    mpcg_context *ctx = s->ctx;
    MPCG_ENSURE(ctx, nrhs >= 1 && nrhs <= MPCGI_BLOCK_MAX, MPCG_ERR_INVALID_ARG,
                "nrhs = %d out of range [1, %d]", nrhs, MPCGI_BLOCK_MAX);
    MPCG_ENSURE(ctx, B && X && infos, MPCG_ERR_INVALID_ARG, "B, X and infos must not be NULL");
    MPCG_ENSURE(ctx, s->precision == MPCG_PRECISION_FP64, MPCG_ERR_NOT_SUPPORTED,
                "block CG runs in fp64 (precision %s asked)", mpcg_precision_name(s->precision));
    MPCG_ENSURE(ctx, !mpcgi_solver_callbacks(s), MPCG_ERR_NOT_SUPPORTED,
                "block CG takes no preconditioner or iterate callback: solve the columns one by "
                "one with mpcg_solve");
    MPCG_CHECK(ctx, mpcgi_solver_prepare(s));
    if (!mpcgi_spmv_has_block(s->plan) && mpcgi_spmv_is_auto(s->spmv_name) && !s->need_block) {
        s->need_block = 1; /* auto chose a backend without SpMM: choose among those with one */
        MPCG_CHECK(ctx, mpcg_solver_setup(s));
    }
    MPCG_ENSURE(ctx, mpcgi_spmv_has_block(s->plan), MPCG_ERR_NOT_SUPPORTED,
                "backend %s has no block product (SpMM) %s: block CG needs one (--list-backends)",
                s->plan->ops->name, s->on_device ? "on the device" : "on the host");
    const long method = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_BLOCK_METHOD]);
    for (int j = 0; j < nrhs; j++) {
        mpcgi_solver_info_init(s, &infos[j]);
        snprintf(infos[j].variant, sizeof infos[j].variant, "%s",
                 mpcgi_cg_options.keys[MPCGI_OPT_BLOCK_METHOD].words[method]);
        snprintf(infos[j].variant_reason, sizeof infos[j].variant_reason,
                 "block.method=%s: %d right-hand sides", infos[j].variant, nrhs);
    }
    return MPCG_SUCCESS;
}

static mpcg_status end(mpcg_solver *s, int nrhs, mpcg_info *infos, double t0)
{
    const double t = mpcgi_wtime() - t0;
    int bad = -1;
    mpcgi_spmv_describe(s->plan, infos[0].spmv_describe, sizeof infos[0].spmv_describe);
    for (int j = 0; j < nrhs; j++) {
        infos[j].converged = infos[j].reason > 0;
        infos[j].solve_time_s = t;
        memcpy(infos[j].spmv_describe, infos[0].spmv_describe, sizeof infos[j].spmv_describe);
        if (!infos[j].converged && bad < 0) bad = j;
    }
    const mpcg_info *w = &infos[bad < 0 ? 0 : bad];
    MPCG_ENSURE(s->ctx, bad < 0 || !s->error_if_not_converged, MPCG_ERR_NOT_CONVERGED,
                "block CG: column %d did not converge: %s after %lld iterations (true relative "
                "residual %.3e, tol %.3e, atol %.3e)",
                bad, mpcg_reason_string(w->reason), (long long)w->iterations, w->true_relres,
                s->tol, s->atol);
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solve_block(mpcg_solver *s, int nrhs, const double *B, double *X, mpcg_info *infos)
{
    MPCG_CHECK(s ? s->ctx : NULL, begin(s, nrhs, B, X, infos));
    mpcg_context *ctx = s->ctx;
    mpcgi_block_ws *w;
    const double t0 = mpcgi_wtime();
    mpcgi_history_begin(s, t0); /* a history per column instead */
    MPCG_CHECK(ctx, mpcgi_history_block_begin(s, nrhs));
    MPCG_CHECK(ctx, mpcgi_block_ws_get(s, nrhs, &w));
    if (!s->on_device) {
        MPCG_CHECK(ctx, solve_where(s, w, nrhs, B, X, infos));
        return end(s, nrhs, infos, t0);
    }
    const size_t bytes = (size_t)s->A->csr.n * (size_t)nrhs * sizeof(double);
    double *Bd = w->blk[8], *Xd = w->blk[9]; /* the staging blocks */
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, Bd, B, bytes, MPCGI_H2D));
    if (s->guess == MPCG_GUESS_PROVIDED)
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, Xd, X, bytes, MPCGI_H2D));
    MPCG_CHECK(ctx, solve_where(s, w, nrhs, Bd, Xd, infos));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, X, Xd, bytes, MPCGI_D2H));
    return end(s, nrhs, infos, t0);
}

mpcg_status mpcg_solve_block_device(mpcg_solver *s, int nrhs, const double *B_dev, double *X_dev,
                                    mpcg_info *infos)
{
    MPCG_ENSURE(NULL, s && s->magic == MPCGI_SOLVER_MAGIC, MPCG_ERR_INVALID_ARG,
                "invalid solver (NULL or destroyed)");
    MPCG_ENSURE(s->ctx, s->ctx->kind == MPCG_DEVICE_CUDA, MPCG_ERR_INVALID_STATE,
                "mpcg_solve_block_device needs a GPU context, and context %s runs on the CPU (use "
                "mpcg_solve_block)",
                s->ctx->device_name);
    MPCG_CHECK(s->ctx, begin(s, nrhs, B_dev, X_dev, infos));
    mpcgi_block_ws *w;
    const double t0 = mpcgi_wtime();
    mpcgi_history_begin(s, t0); /* a history per column instead */
    MPCG_CHECK(s->ctx, mpcgi_history_block_begin(s, nrhs));
    MPCG_CHECK(s->ctx, mpcgi_block_ws_get(s, nrhs, &w));
    MPCG_CHECK(s->ctx, solve_where(s, w, nrhs, B_dev, X_dev, infos));
    return end(s, nrhs, infos, t0);
}
