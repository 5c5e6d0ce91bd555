/* solver/pcg.c: the preconditioner in the host loop: A's product for its setup and applies, and
 * z = M^-1 r with r.z in the iteration's precision (the loop itself: solver/cg.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/error.h"
#include "core/matrix.h"
#include "precond/precond.h"
#include "solver/solver.h"

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
 * z = M^-1 r and rz = r.z in the iteration's precision (the segment's: fp64, or fp32 in fp32 solves
 * and in mixed solves' fp32 segment: the preconditioner's fp32 arrays, r.z
 * summed in double as every dot), as the fused GPU iteration does; the reason when r.z says M
 * is not SPD (NONE otherwise). M is the caller's where a preconditioner callback is set.
 */
mpcg_status mpcgi_pcg_precondition(mpcg_solver *s, const mpcgi_cg_seg *g, void **zv, double *rz,
                                   mpcg_reason *reason)
{
    mpcg_context *ctx = s->ctx;
    const int64_t n = s->A->csr.n;
    const int f64 = g->work == MPCG_PRECISION_FP64;
    void *z = f64 ? (void *)s->z : s->zw;
    if (s->pc_fn) /* the caller's M (solver/callback.c), fp64 */
        MPCG_CHECK(ctx, mpcgi_pcg_callback(s, s->z));
    else
        MPCG_CHECK(ctx,
                   mpcgi_precond_apply(ctx, s->pc, f64 ? MPCG_PRECISION_FP64 : MPCG_PRECISION_FP32,
                                       g->V, mpcgi_pcg_spmv, s, s->r, z, s->pc_work));
    MPCG_CHECK(ctx, g->V->dot(ctx, s->dot_ws, n, s->r, z, rz)); /* rz = r.z */
    *zv = z;
    *reason = !isfinite(*rz) ? MPCG_DIVERGED_NAN
              : *rz <= 0.0   ? MPCG_DIVERGED_INDEFINITE_PC
                             : MPCG_REASON_NONE;
    return MPCG_SUCCESS;
}
