/* solver/cg.c: conjugate gradient and preconditioned CG, written once over the vector table and the
 * SpMV plan; the steps the fused GPU loop shares (start, check, finish) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>

#include "core/error.h"
#include "core/matrix.h"
#include "solver/solver.h"

/* Residual replacements allowed before the solve is declared stagnant. */
#define MAX_REPLACEMENTS 8

/* fp32: x = (double) xw, t = b - A x in fp64 with the fp64 values, r = (float) t; ||t||. The
 * exit check is the true residual of the fp64 problem, so an fp32 solve never claims more. Mixed
 * (x itself is the fp64 iterate, xw == x): the same with the hi + lo values. */
static mpcg_status true_residual_lo(mpcg_solver *s, const mpcgi_cg_args *a, void *r, double *norm)
{
    mpcg_context *ctx = s->ctx;
    int64_t n = s->A->csr.n;
    double tt;
    if (a->xw != a->x) MPCG_CHECK(ctx, a->seg.V->promote(ctx, n, a->xw, a->x)); /* x = xw */
    MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, s->exact, a->x, s->t));      /* t = Ax */
    MPCG_CHECK(ctx, s->V64->xpay(ctx, n, a->b, -1.0, s->t));                    /* t = b - t */
    MPCG_CHECK(ctx, s->V64->dot(ctx, s->dot_ws, n, s->t, s->t, &tt));
    MPCG_CHECK(ctx, a->seg.V->demote(ctx, n, s->t, r)); /* r = t */
    *norm = sqrt(tt);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_cg_true_residual(mpcg_solver *s, const mpcgi_cg_args *a, void *r, double *norm)
{
    s->true_residuals++;
    if (a->seg.work != MPCG_PRECISION_FP64) return true_residual_lo(s, a, r, norm);
    const mpcgi_vec_ops *V = a->seg.V;
    const double *b = a->b, *x = a->x;
    mpcg_context *ctx = s->ctx;
    int64_t n = s->A->csr.n;
    double rr;
    MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, s->exact, x, s->t)); /* t = A x */
    MPCG_CHECK(ctx, V->copy(ctx, n, b, r));                             /* r = b */
    MPCG_CHECK(ctx, V->axpy(ctx, n, -1.0, s->t, r));                    /* r -= t */
    MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, r, r, &rr));
    *norm = sqrt(rr);
    return MPCG_SUCCESS;
}

mpcgi_cg_seg mpcgi_cg_seg_plain(const mpcg_solver *s, mpcg_precision work)
{
    return (mpcgi_cg_seg){.work = work, .V = work == MPCG_PRECISION_FP64 ? s->V64 : s->V};
}

mpcg_precision mpcgi_cg_apply_precision(const mpcg_solver *s, const mpcgi_cg_seg *g)
{
    return g->work == MPCG_PRECISION_FP64 ? s->exact : MPCG_PRECISION_FP32;
}

mpcg_status mpcgi_cg_direction(mpcg_solver *s, const mpcgi_cg_seg *g, double beta)
{
    int64_t n = s->A->csr.n;
    if (beta == 0.0)
        MPCG_CHECK(s->ctx, g->V->copy(s->ctx, n, s->r, s->p)); /* p = r */
    else
        MPCG_CHECK(s->ctx, g->V->xpay(s->ctx, n, s->r, beta, s->p)); /* r + beta p */
    return MPCG_SUCCESS;
}

/*
 * The recurrence's stop threshold, ||r|| <= max(tol, eps) ||b||: below eps ||b|| the recurrence
 * residual no longer tells anything about b - A x (rounding in the SpMV alone is of that order),
 * so a tol below it is checked against the true residual from there on, and when that cannot
 * improve the solve ends as stagnant. Without the floor the recurrence went on shrinking until
 * p.q underflowed to 0 (reported as a breakdown) or maxit ran out. An absolute tolerance above
 * that raises the threshold to atol (max(x, 0) = x: atol = 0 changes nothing).
 */
double mpcgi_cg_threshold(const mpcg_solver *s, mpcg_precision work, double bnorm)
{
    double eps = work == MPCG_PRECISION_FP64 ? DBL_EPSILON : FLT_EPSILON;
    double rel = (s->tol > eps ? s->tol : eps) * bnorm;
    return rel > s->atol ? rel : s->atol;
}

double mpcgi_cg_target(const mpcg_solver *s, double bnorm)
{
    double rel = s->tol * bnorm;
    return rel > s->atol ? rel : s->atol;
}

mpcg_reason mpcgi_cg_converged(const mpcg_solver *s, double tnorm, double bnorm)
{
    if (!(tnorm <= mpcgi_cg_target(s, bnorm))) return MPCG_REASON_NONE;
    return s->atol > s->tol * bnorm ? MPCG_CONVERGED_ATOL : MPCG_CONVERGED_RTOL;
}

mpcg_status mpcgi_cg_measure(mpcg_solver *s, const mpcgi_cg_args *a, double *tnorm, mpcg_info *info,
                             mpcg_reason *reason)
{
    MPCG_CHECK(s->ctx, mpcgi_cg_true_residual(s, a, s->r, tnorm)); /* r = b - A x */
    info->true_relres = *tnorm / a->bnorm;
    *reason = isfinite(*tnorm) ? mpcgi_cg_converged(s, *tnorm, a->bnorm) : MPCG_DIVERGED_NAN;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_cg_monitor(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double relres)
{
    k += a->seg.k0; /* the solve's count */
    MPCG_CHECK(s->ctx, mpcgi_history_residual(s, k, relres));
    if (s->progress) s->progress(k, relres, s->progress_user);
    if (s->monitor && s->monitor_every > 0 && k % s->monitor_every == 0)
        s->monitor(k, relres, s->monitor_user);
    return MPCG_SUCCESS;
}

mpcg_reason mpcgi_cg_curvature_reason(double pq)
{
    if (!isfinite(pq)) return MPCG_DIVERGED_NAN;
    if (pq < 0.0) return MPCG_DIVERGED_INDEFINITE_MATRIX;
    if (pq == 0.0) return MPCG_DIVERGED_BREAKDOWN;
    return MPCG_REASON_NONE;
}

/*
 * When the recurrence residual reaches tol, the true residual b - A x decides. If it is above
 * tol (rounding made r drift from b - A x), r is replaced by the true residual and CG restarts
 * from p = r (beta = 0); if the true residual stops improving, the solve is stagnant. Sets
 * *reason (NONE: go on). r holds the true residual afterwards in every case.
 */
static mpcg_status check_true(mpcg_solver *s, const mpcgi_cg_args *a, double *rr, double *beta,
                              mpcgi_cg_track *tr, mpcg_info *info, mpcg_reason *reason)
{
    double tnorm;
    MPCG_CHECK(s->ctx, mpcgi_cg_measure(s, a, &tnorm, info, reason)); /* r = b - A x */
    *beta = 0.0;
    if (*reason == MPCG_REASON_NONE &&
        (info->residual_replacements >= MAX_REPLACEMENTS || tnorm >= 0.5 * tr->last_true))
        *reason = MPCG_DIVERGED_STAGNATION;
    if (*reason != MPCG_REASON_NONE) return MPCG_SUCCESS;
    tr->last_true = tnorm;
    info->residual_replacements++;
    *rr = tnorm * tnorm;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_cg_check(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rr_old,
                           double *rr, double *beta, mpcgi_cg_track *tr, mpcg_info *info,
                           mpcg_reason *reason)
{
    if (a->seg.kind == MPCGI_SEG_HEAD)
        MPCG_CHECK(s->ctx, mpcgi_mixed_head_end(s, a, rr_old, tr, info, reason));
    else if (a->seg.kind == MPCGI_SEG_MIXED)
        MPCG_CHECK(s->ctx, mpcgi_mixed_update(s, a, k, rr_old, rr, beta, tr, info, reason));
    else
        MPCG_CHECK(s->ctx, check_true(s, a, rr, beta, tr, info, reason));
    return mpcgi_history_true(s, a->seg.k0 + k, info->true_relres); /* each sets it */
}

/* r = b - A x (r = b for a zero guess), rr = r.r, p = r, the monitor at iteration 0, and the
 * stop tests on the initial residual (reason NONE: iterate); a resumed segment: the track and
 * rr only. */
mpcg_status mpcgi_cg_start(mpcg_solver *s, const mpcgi_cg_args *a, double *rr, mpcgi_cg_track *tr,
                           mpcg_info *info, mpcg_reason *reason)
{
    mpcg_context *ctx = s->ctx;
    const mpcgi_vec_ops *V = a->seg.V;
    const int64_t n = s->A->csr.n;
    const double plain = mpcgi_cg_threshold(s, a->seg.work, a->bnorm);
    double tnorm = a->bnorm, beta;
    *reason = MPCG_REASON_NONE;
    *tr = (mpcgi_cg_track){.last_true = INFINITY, .threshold = plain};
    if (a->seg.kind == MPCGI_SEG_HEAD) tr->threshold = a->seg.level;
    if (a->seg.resume) {
        *rr = a->seg.rr; /* r: the true residual the segment before measured */
        if (a->seg.kind == MPCGI_SEG_MIXED) mpcgi_mixed_begin(s, a, 0, sqrt(*rr), tr);
        return MPCG_SUCCESS;
    }
    if (a->x_is_zero) {
        MPCG_CHECK(ctx, V->demote(ctx, n, a->b, s->r)); /* r = b */
    } else {
        if (a->xw != a->x) MPCG_CHECK(ctx, V->demote(ctx, n, a->x, a->xw)); /* xw = x */
        MPCG_CHECK(ctx, mpcgi_cg_true_residual(s, a, s->r, &tnorm));        /* r = b - A x */
    }
    MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, s->r, s->r, rr)); /* rr = r.r */
    MPCG_CHECK(ctx, V->copy(ctx, n, s->r, s->p));               /* p = r */
    if (a->seg.kind == MPCGI_SEG_MIXED) mpcgi_mixed_begin(s, a, 0, tnorm, tr);
    /* the monitor saw the iteration a later segment starts from */
    if (a->seg.k0 == 0) MPCG_CHECK(ctx, mpcgi_cg_monitor(s, a, 0, sqrt(*rr) / a->bnorm));
    /* b - A x0 (b itself for a zero guess: exact) */
    MPCG_CHECK(ctx, mpcgi_history_true(s, a->seg.k0, tnorm / a->bnorm));
    if (!isfinite(*rr)) {
        *reason = MPCG_DIVERGED_NAN;
    } else if (sqrt(*rr) <= (a->seg.kind == MPCGI_SEG_HEAD ? tr->threshold : plain)) {
        MPCG_CHECK(ctx, mpcgi_cg_check(s, a, 0, *rr, rr, &beta, tr, info, reason));
        if (*reason == MPCG_REASON_NONE && !tr->next)
            MPCG_CHECK(ctx, mpcgi_cg_direction(s, &a->seg, 0));
    }
    return MPCG_SUCCESS;
}

/* The end of every CG run: reason (NONE: the limit was reached), residuals and count; where the
 * segment ended and the solve goes on in another, the driver's a->end instead. */
mpcg_status mpcgi_cg_finish(mpcg_solver *s, const mpcgi_cg_args *a, double rr, int64_t k,
                            mpcg_reason reason, mpcgi_cg_track *tr, mpcg_info *info)
{
    double tnorm;
    if (mpcgi_mixed_stop_to_fp64(a, reason)) {
        mpcgi_log(s->ctx, MPCG_LOG_INFO,
                  "mixed: the fp32 iteration stopped (%s) at iteration "
                  "%lld: the solve goes on in fp64",
                  mpcg_reason_string(reason), (long long)(a->seg.k0 + k));
        reason = MPCG_REASON_NONE;
        tr->next = MPCGI_SEG_FALLBACK;
    }
    if (tr->next && reason == MPCG_REASON_NONE && k < a->maxit) {
        a->end->next = tr->next; /* the driver goes on from iteration k */
        a->end->k = k;
        return MPCG_SUCCESS;
    }
    if (reason == MPCG_REASON_NONE) reason = MPCG_DIVERGED_MAX_ITER;
    info->recurrence_relres = sqrt(rr) / a->bnorm;
    if (reason != MPCG_CONVERGED_RTOL && reason != MPCG_CONVERGED_ATOL &&
        reason != MPCG_DIVERGED_STAGNATION) {                           /* a check measured those */
        MPCG_CHECK(s->ctx, mpcgi_cg_true_residual(s, a, s->r, &tnorm)); /* r = b - A x */
        info->true_relres = tnorm / a->bnorm;
        MPCG_CHECK(s->ctx, mpcgi_history_true(s, a->seg.k0 + k, info->true_relres));
    }
    info->reason = reason;
    info->iterations = a->seg.k0 + k;
    return MPCG_SUCCESS;
}

/* 1 when the solve has an M: the library's preconditioner, or the caller's callback. */
static int has_m(const mpcg_solver *s)
{
    return s->pc || s->pc_fn;
}

/*
 * z = M^-1 r and rz = r.z for PCG (solver/pcg.c), or z = r and rz = rr for CG: no copy and no
 * dot, so a solve without a preconditioner has CG's bits (beta = r.r_new / r.r).
 */
static mpcg_status precondition(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, void **z,
                                double *rz, mpcg_reason *reason)
{
    if (has_m(s)) return mpcgi_pcg_precondition(s, g, z, rz, reason);
    *z = s->r;
    *rz = rr;
    *reason = MPCG_REASON_NONE;
    return MPCG_SUCCESS;
}

/* The next direction after a residual update: p = z + beta p with beta = r.z_new / r.z, or
 * after a check (restart: beta from the check, 0 for p = z). CG takes the check's beta as it is
 * (the mixed reliable update keeps the direction with r.r_true / r.r_old); PCG keeps the
 * direction with beta = r.z_new / r.z of the replaced residual, or restarts from p = z. */
static mpcg_status next_direction(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, int checked,
                                  double beta_check, double *rz, mpcg_reason *reason)
{
    const int64_t n = s->A->csr.n;
    double rz_new, beta;
    void *z;
    MPCG_CHECK(s->ctx, precondition(s, g, rr, &z, &rz_new, reason)); /* z, r.z */
    if (*reason != MPCG_REASON_NONE) return MPCG_SUCCESS;
    if (checked && (!has_m(s) || beta_check == 0.0))
        beta = beta_check;
    else
        beta = rz_new / *rz;
    *rz = rz_new;
    if (beta == 0.0)
        MPCG_CHECK(s->ctx, g->V->copy(s->ctx, n, z, s->p)); /* p = z */
    else
        MPCG_CHECK(s->ctx, g->V->xpay(s->ctx, n, z, beta, s->p)); /* p = z + beta p */
    return MPCG_SUCCESS;
}

/*
 * CG, and PCG with z = M^-1 r (Saad, Alg. 9.1; z = r without a preconditioner), written once over
 * the vector table and the SpMV plan: alpha = r.z / p.A p, beta = r.z_new / r.z, p = z + beta p.
 * The stop test stays on the unpreconditioned residual: the recurrence's ||r|| reaching the
 * threshold, then the true residual decides (mpcgi_cg_check). r.z <= 0 (or not finite) means M
 * is not positive definite: MPCG_DIVERGED_INDEFINITE_PC, never converged.
 *
 * Memory traffic per iteration with fp64 vectors (bytes per row, A = matrix bytes per row):
 *   q = A p: A + 16 | p.q: 16 | x += a p: 24 | r -= a q: 24 | r.r: 8 | p = r + b p: 24
 * total A + 112 bytes per row (the unfused roofline of docs/roofline.md); fp32 vectors (V's
 * type, A from the fp32 values): A32 + 56. A preconditioner adds its apply (jacobi: 24 B per
 * row, bjacobi: 16 + 8 nb B, chebyshev: degree - 1 SpMVs and their vectors) and r.z (16).
 */
mpcg_status mpcgi_cg_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    const mpcgi_cg_seg *g = &a->seg;
    const mpcgi_vec_ops *V = g->V;
    const mpcg_precision prec = mpcgi_cg_apply_precision(s, g);
    int64_t n = s->A->csr.n, k = 0;
    void *r = s->r, *p = s->p, *q = s->q, *x = a->xw, *z;
    double rr, rr_new, rz = 0.0, pq, alpha, beta;
    const int pcg = has_m(s);
    mpcgi_cg_track tr;
    mpcg_reason reason;

    MPCG_CHECK(ctx, mpcgi_cg_start(s, a, &rr, &tr, info, &reason)); /* r, rr, p = r */
    if (reason == MPCG_REASON_NONE && !tr.next && g->resume) {
        rz = g->rz; /* p = z + beta p from the segment before's direction */
        MPCG_CHECK(ctx, next_direction(s, g, rr, 1, g->beta, &rz, &reason));
    } else if (reason == MPCG_REASON_NONE && !tr.next) {
        MPCG_CHECK(ctx, precondition(s, g, rr, &z, &rz, &reason)); /* z, rz */
        if (reason == MPCG_REASON_NONE && pcg) MPCG_CHECK(ctx, V->copy(ctx, n, z, p));
    }
    while (reason == MPCG_REASON_NONE && !tr.next && k < a->maxit) {
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, prec, p, q));
        MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, p, q, &pq)); /* pq = p.q */
        if ((reason = mpcgi_cg_curvature_reason(pq)) != MPCG_REASON_NONE) break;
        alpha = rz / pq;
        if (x == a->x)
            MPCG_CHECK(ctx, V->axpy_wide(ctx, n, alpha, p, a->x)); /* x += alpha p */
        else
            MPCG_CHECK(ctx, V->axpy(ctx, n, alpha, p, x));         /* fp32: xw += alpha p */
        MPCG_CHECK(ctx, V->axpy(ctx, n, -alpha, q, r));            /* r -= alpha q */
        MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, r, r, &rr_new)); /* rr = r.r */
        k++;
        MPCG_CHECK(ctx, mpcgi_cg_monitor(s, a, k, sqrt(rr_new) / a->bnorm));
        MPCG_CHECK(ctx, mpcgi_cg_iterate(s, a, k)); /* the caller's callback(x_k) */
        if (!isfinite(rr_new)) {
            reason = MPCG_DIVERGED_NAN;
            break;
        }
        const int checked =
            sqrt(rr_new) <= tr.threshold || mpcgi_mixed_stalled(a, &tr, k, sqrt(rr_new));
        const double rr_old = rr;
        rr = rr_new;
        beta = 0.0;
        if (checked) { /* converged, stagnant, the segment's end, or on from the true residual */
            MPCG_CHECK(ctx, mpcgi_cg_check(s, a, k, rr_old, &rr, &beta, &tr, info, &reason));
            if (tr.next) a->end->rz = rz; /* the next segment's r.z (CG: r.r, unused) */
            if (reason != MPCG_REASON_NONE || tr.next) break;
            if (!pcg) rz = rr_old; /* CG: beta from the check */
        }
        MPCG_CHECK(ctx, next_direction(s, g, rr, checked, beta, &rz, &reason)); /* z, p */
    }
    return mpcgi_cg_finish(s, a, rr, k, reason, &tr, info);
}
