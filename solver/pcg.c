/* solver/pcg.c: preconditioned CG in the host loop (every preconditioner, CPU and GPU vectors) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/error.h"
#include "core/matrix.h"
#include "precond/precond.h"
#include "solver/solver.h"

/*
 * The Hestenes-Stiefel PCG (Saad, Alg. 9.1) over the vector table: z = M^-1 r,
 * alpha = r.z / p.A p, beta = r.z_new / r.z, p = z + beta p. The stop test stays on the
 * unpreconditioned residual: the recurrence's ||r|| reaching max(tol, eps) ||b||, then the true
 * residual b - A x decides (mpcgi_cg_check, as in solver/cg.c); a replaced residual restarts
 * from p = z. r.z <= 0 (or not finite) means M is not positive definite: the solve ends with
 * MPCG_DIVERGED_INDEFINITE_PC, never as converged.
 *
 * Memory traffic per iteration beyond CG's (solver/cg.c): the apply (jacobi: 24 B per row,
 * bjacobi: 16 + 8 B per row plus its blocks, chebyshev: degree - 1 SpMVs and their vectors),
 * r.z (16) and z read in the p update instead of r.
 */

/* A's product for the preconditioner's setup and applies: the plan, fp64 (or hi + lo) or
 * fp32 as asked. */
mpcg_status mpcgi_pcg_spmv(mpcg_context *ctx, void *user, mpcg_precision prec, const void *x,
                           void *y)
{
    mpcg_solver *s = user;
    s->pc_spmvs++;
    return mpcgi_spmv_apply(ctx, s->plan,
                            prec == MPCG_PRECISION_FP64 ? s->exact : MPCG_PRECISION_FP32, x, y);
}

/*
 * z = M^-1 r and rz = r.z in the iteration's precision (s->work: fp64, or fp32 in fp32 solves and
 * in mixed solves between their fp64 head and finish: the preconditioner's fp32 arrays, r.z
 * summed in double as every dot), as the fused GPU iteration does; the reason when r.z says M
 * is not SPD (NONE otherwise).
 */
static mpcg_status precondition(mpcg_solver *s, void **zv, double *rz, mpcg_reason *reason)
{
    mpcg_context *ctx = s->ctx;
    const int64_t n = s->A->csr.n;
    const int f64 = s->work == MPCG_PRECISION_FP64;
    void *z = f64 ? (void *)s->z : s->zw;
    MPCG_CHECK(ctx, mpcgi_precond_apply(ctx, s->pc, f64 ? MPCG_PRECISION_FP64 : MPCG_PRECISION_FP32,
                                        s->V, mpcgi_pcg_spmv, s, s->r, z, s->pc_work));
    MPCG_CHECK(ctx, s->V->dot(ctx, s->dot_ws, n, s->r, z, rz)); /* rz = r.z */
    *zv = z;
    *reason = !isfinite(*rz) ? MPCG_DIVERGED_NAN
              : *rz <= 0.0   ? MPCG_DIVERGED_INDEFINITE_PC
                             : MPCG_REASON_NONE;
    return MPCG_SUCCESS;
}

/* The loop of mpcgi_cg_run (solver/cg.c) with z in r's place in the direction; the same starts,
 * checks and ends, so fp32 and mixed solves (head, reliable updates, fp64 finish) are the same
 * solve with a preconditioner. A check that keeps the direction (the mixed reliable update:
 * beta != 0) continues with beta = r.z_new / r.z of the replaced residual; one that restarts
 * (beta = 0) continues from p = z. */
mpcg_status mpcgi_pcg_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    const mpcgi_vec_ops *V;
    int64_t n = s->A->csr.n, k = 0;
    void *r = s->r, *p = s->p, *q = s->q, *x = a->xw, *z = NULL;
    double rr, rz = 0.0, rz_new, pq, alpha, beta;
    mpcgi_cg_track tr;
    mpcg_reason reason;

    MPCG_CHECK(ctx, mpcgi_cg_start(s, a, &rr, &tr, info, &reason)); /* r, rr */
    if (reason == MPCG_REASON_NONE && !tr.fallback) {
        MPCG_CHECK(ctx, precondition(s, &z, &rz, &reason));                        /* z, rz */
        if (reason == MPCG_REASON_NONE) MPCG_CHECK(ctx, s->V->copy(ctx, n, z, p)); /* p = z */
    }
    while (reason == MPCG_REASON_NONE && !tr.fallback && k < a->maxit) {
        V = s->V; /* a mixed solve's fp64 head ends in mpcgi_cg_check */
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, mpcgi_cg_apply_precision(s), p, q));
        MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, p, q, &pq)); /* pq = p.q */
        if ((reason = mpcgi_cg_curvature_reason(pq)) != MPCG_REASON_NONE) break;
        alpha = rz / pq;
        if (x == a->x)
            MPCG_CHECK(ctx, V->axpy_wide(ctx, n, alpha, p, a->x)); /* x += alpha p */
        else
            MPCG_CHECK(ctx, V->axpy(ctx, n, alpha, p, x));     /* fp32: xw += alpha p */
        MPCG_CHECK(ctx, V->axpy(ctx, n, -alpha, q, r));        /* r -= alpha q */
        MPCG_CHECK(ctx, V->dot(ctx, s->dot_ws, n, r, r, &rr)); /* rr = r.r */
        k++;
        MPCG_CHECK(ctx, mpcgi_cg_monitor(s, k, sqrt(rr) / a->bnorm));
        if (!isfinite(rr)) {
            reason = MPCG_DIVERGED_NAN;
            break;
        }
        int restart = 0;
        if (sqrt(rr) <= tr.threshold || mpcgi_mixed_stalled(s, &tr, k, sqrt(rr))) {
            /* converged, stagnant, the fp64 finish, or on from the true residual */
            double rr_old = rr;
            MPCG_CHECK(ctx, mpcgi_cg_check(s, a, k, rr_old, &rr, &beta, &tr, info, &reason));
            if (reason != MPCG_REASON_NONE || tr.fallback) break;
            restart = beta == 0.0;
        }
        MPCG_CHECK(ctx, precondition(s, &z, &rz_new, &reason)); /* z, r.z */
        if (reason != MPCG_REASON_NONE) break;
        beta = restart ? 0.0 : rz_new / rz;
        rz = rz_new;
        V = s->V;
        if (beta == 0.0)
            MPCG_CHECK(ctx, V->copy(ctx, n, z, p)); /* p = z */
        else
            MPCG_CHECK(ctx, V->xpay(ctx, n, z, beta, p)); /* p = z + beta p */
    }
    return mpcgi_cg_finish(s, a, rr, k, reason, &tr, info);
}
