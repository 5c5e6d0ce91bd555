/* precond/precond.c: the preconditioner's setup on the host (checks, the diagonal, device
 * copies), refresh, destroy and the dispatch of z = M^-1 r */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/timer.h"
#include "precond/precond_impl.h"

mpcg_precond mpcgi_precond_resolve(const mpcgi_csr *A, mpcg_precond asked, char *why,
                                   size_t size)
{
    why[0] = '\0';
    if (asked != MPCG_PRECOND_AUTO) return asked;
    double d0 = NAN;
    for (int64_t i = 0; i < A->n; i++) {
        const int64_t t = mpcgi_csr_find(A, i, (int32_t)i);
        const double d = t < 0 ? NAN : A->val[t];
        if (i == 0) d0 = d;
        if (!(d == d0)) { /* differs, or missing / NaN: Jacobi's setup names such a row */
            snprintf(why, size, "auto: jacobi (the diagonal of A varies)");
            return MPCG_PRECOND_JACOBI;
        }
    }
    snprintf(why, size, "auto: none (every diagonal entry of A is %g: Jacobi would only scale "
             "CG's iterates)", d0);
    return MPCG_PRECOND_NONE;
}

mpcg_status mpcgi_precond_diag(mpcg_context *ctx, const mpcgi_csr *A, const char *who,
                               double *dinv)
{
    /* the first offending row, so the message is the same whatever the thread count */
    int64_t bad = A->n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (A->n > 16384)
    for (int64_t i = 0; i < A->n; i++) {
        const int64_t t = mpcgi_csr_find(A, i, (int32_t)i);
        const double a = t < 0 ? 0.0 : A->val[t];
        if (t < 0 || !(a > 0) || !isfinite(a)) {
            if (i < bad) bad = i;
        } else if (dinv) {
            dinv[i] = 1.0 / a;
        }
    }
    if (bad == A->n) return MPCG_SUCCESS;
    const int64_t t = mpcgi_csr_find(A, bad, (int32_t)bad);
    MPCG_ENSURE(ctx, t >= 0, MPCG_ERR_INVALID_ARG,
                "precond %s: row %lld: no diagonal entry (A is not SPD)", who,
                (long long)bad + 1);
    MPCG_ENSURE(ctx, isfinite(A->val[t]), MPCG_ERR_INVALID_ARG,
                "precond %s: row %lld: diagonal entry %g is not finite", who, (long long)bad + 1,
                A->val[t]);
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "precond %s: row %lld: diagonal entry %g <= 0 (A is not "
              "SPD)", who, (long long)bad + 1, A->val[t]);
}

mpcg_status mpcgi_precond_scale(mpcg_context *ctx, const mpcgi_precond *pc, double alpha,
                                const double *x, double *y)
{
    if (pc->on_device)
        return mpcgi_precond_device_scale(ctx, pc->n, alpha, pc->d_dinv, x, y);
    const double *dinv = pc->dinv;
#pragma omp parallel for schedule(static) if (pc->n > 16384)
    for (int64_t i = 0; i < pc->n; i++) y[i] = alpha * dinv[i] * x[i];
    return MPCG_SUCCESS;
}

static mpcg_status check_params(mpcg_context *ctx, const mpcgi_precond_params *p,
                                mpcgi_precond_spmv_fn spmv)
{
    MPCG_ENSURE(ctx, p->type >= MPCG_PRECOND_NONE && p->type <= MPCG_PRECOND_CHEBYSHEV,
                MPCG_ERR_INVALID_ARG, "precond: unknown type %d (auto: mpcgi_precond_resolve "
                "first)", (int)p->type);
    if (p->type == MPCG_PRECOND_BJACOBI)
        MPCG_ENSURE(ctx, p->block_apply == MPCGI_BLOCK_APPLY_INVERSE ||
                             p->block_apply == MPCGI_BLOCK_APPLY_CHOLESKY,
                    MPCG_ERR_INVALID_ARG, "precond bjacobi: block apply %d is not inverse (0) or "
                    "cholesky (1)", p->block_apply);
    if (p->type == MPCG_PRECOND_BJACOBI)
        MPCG_ENSURE(ctx, p->block_size >= 0 && p->block_size <= MPCGI_PRECOND_MAX_BLOCK,
                    MPCG_ERR_INVALID_ARG,
                    "precond bjacobi: block size %d out of range [0, %d] (0: detected)",
                    p->block_size, MPCGI_PRECOND_MAX_BLOCK);
    if (p->type != MPCG_PRECOND_CHEBYSHEV) return MPCG_SUCCESS;
    MPCG_ENSURE(ctx, p->degree >= 1, MPCG_ERR_INVALID_ARG,
                "precond chebyshev: degree %d must be >= 1", p->degree);
    MPCG_ENSURE(ctx, p->lmin_ratio > 0 && p->lmin_ratio < 1, MPCG_ERR_INVALID_ARG,
                "precond chebyshev: lmin_ratio %g out of range (0, 1)", p->lmin_ratio);
    MPCG_ENSURE(ctx, spmv, MPCG_ERR_INVALID_ARG, "precond chebyshev: no SpMV callback");
    return MPCG_SUCCESS;
}

/* The host arrays of pc's type (bjacobi: after its blocks are known) and their device twins. */
static mpcg_status alloc_arrays(mpcg_context *ctx, mpcgi_precond *pc)
{
    const size_t n = (size_t)pc->n, nb = (size_t)pc->nblocks;
    const mpcg_precond t = pc->params.type;
    if (t == MPCG_PRECOND_JACOBI || t == MPCG_PRECOND_CHEBYSHEV) {
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, n, sizeof *pc->dinv, &pc->dinv));
        if (pc->on_device)
            MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, n * sizeof(double), &pc->d_dinv));
    }
    if (t != MPCG_PRECOND_BJACOBI) return MPCG_SUCCESS;
    const size_t nv = (size_t)pc->boff[pc->nblocks];
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nv, sizeof *pc->binv, &pc->binv));
    if (!pc->on_device) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (nb + 1) * sizeof(int64_t), &pc->d_bstart));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (nb + 1) * sizeof(int64_t), &pc->d_boff));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nv * sizeof(double), &pc->d_binv));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, pc->d_bstart, pc->bstart, (nb + 1) * sizeof(int64_t),
                                      MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, pc->d_boff, pc->boff, (nb + 1) * sizeof(int64_t),
                                      MPCGI_H2D));
    return MPCG_SUCCESS;
}

static void describe(mpcgi_precond *pc)
{
    char *d = pc->describe;
    const size_t size = sizeof pc->describe;
    switch (pc->params.type) {
    case MPCG_PRECOND_NONE:
    case MPCG_PRECOND_AUTO: snprintf(d, size, "none"); break; /* check_params refuses auto */
    case MPCG_PRECOND_JACOBI: snprintf(d, size, "jacobi (1 / a_ii)"); break;
    case MPCG_PRECOND_BJACOBI: mpcgi_bjacobi_describe(pc, d, size); break;
    case MPCG_PRECOND_CHEBYSHEV:
        snprintf(d, size, "chebyshev degree %d on D^-1 A, lambda in [%.3g, %.3g] (lmax: %d Lanczos "
                 "steps x 1.1)", pc->params.degree, pc->lmin, pc->lmax, pc->lanczos_steps);
        break;
    }
}

/* The numeric setup from A's values: the diagonal or the blocks' inverses, their device
 * copies, and Chebyshev's estimate (which applies D^-1 where ctx computes). */
static mpcg_status numeric(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                           mpcgi_precond_spmv_fn spmv, void *user)
{
    const double t0 = mpcgi_wtime();
    const char *who = mpcg_precond_name(pc->params.type);
    const size_t n = (size_t)pc->n;
    switch (pc->params.type) {
    case MPCG_PRECOND_NONE:
    case MPCG_PRECOND_AUTO: break;
    case MPCG_PRECOND_JACOBI:
    case MPCG_PRECOND_CHEBYSHEV:
        MPCG_CHECK(ctx, mpcgi_precond_diag(ctx, A, who, pc->dinv));
        if (pc->on_device)
            MPCG_CHECK(ctx, mpcgi_device_copy(ctx, pc->d_dinv, pc->dinv, n * sizeof(double),
                                              MPCGI_H2D));
        break;
    case MPCG_PRECOND_BJACOBI:
        MPCG_CHECK(ctx, mpcgi_precond_diag(ctx, A, who, NULL));
        MPCG_CHECK(ctx, mpcgi_bjacobi_factor(ctx, A, pc));
        if (pc->on_device)
            MPCG_CHECK(ctx, mpcgi_device_copy(ctx, pc->d_binv, pc->binv,
                                              (size_t)pc->boff[pc->nblocks] * sizeof(double),
                                              MPCGI_H2D));
        break;
    }
    pc->setup_spmvs = 0;
    if (pc->params.type == MPCG_PRECOND_CHEBYSHEV)
        MPCG_CHECK(ctx, mpcgi_chebyshev_estimate(ctx, pc, spmv, user));
    describe(pc);
    pc->setup_time_s = mpcgi_wtime() - t0;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_precond_create(mpcg_context *ctx, const mpcgi_csr *A,
                                 const mpcgi_precond_params *p, mpcgi_precond_spmv_fn spmv,
                                 void *user, mpcgi_precond **out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_precond *pc = NULL;
    const double t0 = mpcgi_wtime();
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "precond: out must not be NULL");
    *out = NULL;
    MPCG_ENSURE(ctx, A && p, MPCG_ERR_INVALID_ARG, "precond: A and params must not be NULL");
    MPCG_CHECK(ctx, check_params(ctx, p, spmv));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *pc, &pc));
    pc->params = *p;
    pc->n = A->n;
    pc->on_device = ctx->kind == MPCG_DEVICE_CUDA;
    pc->first_diag_block = -1;
    /* chebyshev: degree steps from z = 0, the first without a product */
    pc->apply_spmvs = p->type == MPCG_PRECOND_CHEBYSHEV ? p->degree - 1 : 0;
    if (p->type == MPCG_PRECOND_BJACOBI) MPCG_TRY(ctx, st, mpcgi_bjacobi_blocks(ctx, A, pc));
    MPCG_TRY(ctx, st, alloc_arrays(ctx, pc));
    MPCG_TRY(ctx, st, numeric(ctx, pc, A, spmv, user));
    pc->setup_time_s = mpcgi_wtime() - t0; /* the blocks' detection and the copies too */
    *out = pc;
    pc = NULL;
done:
    mpcgi_precond_destroy(ctx, pc);
    return st;
}

mpcg_status mpcgi_precond_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                  mpcgi_precond_spmv_fn spmv, void *user)
{
    MPCG_ENSURE(ctx, pc && A, MPCG_ERR_INVALID_ARG, "precond: pc and A must not be NULL");
    MPCG_ENSURE(ctx, A->n == pc->n, MPCG_ERR_INVALID_ARG,
                "precond refresh: A has %lld rows, the preconditioner %lld", (long long)A->n,
                (long long)pc->n);
    MPCG_ENSURE(ctx, pc->params.type != MPCG_PRECOND_CHEBYSHEV || spmv, MPCG_ERR_INVALID_ARG,
                "precond chebyshev: no SpMV callback");
    MPCG_CHECK(ctx, numeric(ctx, pc, A, spmv, user));
    return MPCG_SUCCESS;
}

void mpcgi_precond_destroy(mpcg_context *ctx, mpcgi_precond *pc)
{
    if (!pc) return;
    mpcgi_host_free(pc->dinv);
    mpcgi_host_free(pc->bstart);
    mpcgi_host_free(pc->boff);
    mpcgi_host_free(pc->binv);
    if (pc->on_device) {
        mpcgi_device_free(ctx, pc->d_dinv);
        mpcgi_device_free(ctx, pc->d_bstart);
        mpcgi_device_free(ctx, pc->d_boff);
        mpcgi_device_free(ctx, pc->d_binv);
    }
    mpcgi_host_free(pc);
}

mpcg_status mpcgi_precond_apply(mpcg_context *ctx, const mpcgi_precond *pc,
                                const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                const double *r, double *z, double *work)
{
    MPCG_ENSURE(ctx, pc, MPCG_ERR_INVALID_STATE, "precond: not set up");
    MPCG_ENSURE(ctx, pc->n == 0 || (r && z), MPCG_ERR_INVALID_ARG,
                "precond: r and z must not be NULL");
    switch (pc->params.type) {
    case MPCG_PRECOND_NONE:
    case MPCG_PRECOND_AUTO:
        MPCG_ENSURE(ctx, V, MPCG_ERR_INVALID_ARG, "precond none: no vector table");
        MPCG_CHECK(ctx, V->copy(ctx, pc->n, r, z));
        break;
    case MPCG_PRECOND_JACOBI: MPCG_CHECK(ctx, mpcgi_precond_scale(ctx, pc, 1.0, r, z)); break;
    case MPCG_PRECOND_BJACOBI:
        if (pc->on_device) MPCG_CHECK(ctx, mpcgi_precond_device_blocks(ctx, pc, r, z));
        else mpcgi_bjacobi_apply_host(pc, r, z);
        break;
    case MPCG_PRECOND_CHEBYSHEV:
        MPCG_CHECK(ctx, mpcgi_chebyshev_apply(ctx, pc, V, spmv, user, r, z, work));
        break;
    }
    return MPCG_SUCCESS;
}
