/* precond/precond.c: the preconditioner's dispatcher (create, refresh, apply, fused, destroy:
 * the checks and the timing, the kind's table doing the work), the choice of auto, and what the
 * kinds share (the diagonal, the value arrays with their fp32 and device twins) */
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

mpcg_precond mpcgi_precond_resolve(const mpcgi_csr *A, mpcg_precond asked, char *why, size_t size)
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
    snprintf(why, size,
             "auto: none (every diagonal entry of A is %g: Jacobi would only scale CG's "
             "iterates)",
             d0);
    return MPCG_PRECOND_NONE;
}

int64_t mpcgi_precond_diag_rows(int64_t n, const int64_t *ptr, const int32_t *col,
                                const double *val, double *dinv)
{
    /* a CSR over the caller's arrays, for mpcgi_csr_find's binary search (read only) */
    const mpcgi_csr A = {.n = n, .row_ptr = (int64_t *)ptr, .col_idx = (int32_t *)col};
    /* the first offending row, so the answer is the same whatever the thread count */
    int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n > 16384)
    for (int64_t i = 0; i < n; i++) {
        const int64_t t = mpcgi_csr_find(&A, i, (int32_t)i);
        const double a = t < 0 ? 0.0 : val[t];
        if (t < 0 || !(a > 0) || !isfinite(a)) {
            if (i < bad) bad = i;
        } else if (dinv) {
            dinv[i] = 1.0 / a;
        }
    }
    return bad;
}

mpcg_status mpcgi_precond_diag(mpcg_context *ctx, const mpcgi_csr *A, const char *who, double *dinv)
{
    const int64_t bad = mpcgi_precond_diag_rows(A->n, A->row_ptr, A->col_idx, A->val, dinv);
    if (bad == A->n) return MPCG_SUCCESS;
    const int64_t t = mpcgi_csr_find(A, bad, (int32_t)bad);
    MPCG_ENSURE(ctx, t >= 0, MPCG_ERR_INVALID_ARG,
                "precond %s: row %lld: no diagonal entry (A is not SPD)", who, (long long)bad + 1);
    MPCG_ENSURE(ctx, isfinite(A->val[t]), MPCG_ERR_INVALID_ARG,
                "precond %s: row %lld: diagonal entry %g is not finite", who, (long long)bad + 1,
                A->val[t]);
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG,
              "precond %s: row %lld: diagonal entry %g <= 0 (A is not SPD)", who,
              (long long)bad + 1, A->val[t]);
}

mpcg_status mpcgi_precond_vals_alloc(mpcg_context *ctx, const mpcgi_precond *pc, size_t count,
                                     double **h, float **h32, double **d, float **d32)
{
    const int fp32 = pc->params.fp32;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, count, sizeof **h, h));
    if (fp32) MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, count, sizeof **h32, h32));
    if (!pc->on_device) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, count * sizeof **d, d));
    if (fp32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, count * sizeof **d32, d32));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_precond_vals_sync(mpcg_context *ctx, const mpcgi_precond *pc, size_t count,
                                    const double *h, float *h32, double *d, float *d32)
{
    if (h32) {
#pragma omp parallel for schedule(static) if (count > 16384)
        for (size_t i = 0; i < count; i++)
            h32[i] = (float)h[i];
    }
    if (!pc->on_device) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, d, h, count * sizeof *h, MPCGI_H2D));
    if (h32) MPCG_CHECK(ctx, mpcgi_device_copy(ctx, d32, h32, count * sizeof *h32, MPCGI_H2D));
    return MPCG_SUCCESS;
}

void mpcgi_precond_vals_free(mpcg_context *ctx, const mpcgi_precond *pc, double *h, float *h32,
                             double *d, float *d32)
{
    mpcgi_host_free(h);
    mpcgi_host_free(h32);
    if (!pc->on_device) return;
    mpcgi_device_free(ctx, d);
    mpcgi_device_free(ctx, d32);
}

/* The products with A a kind needs: its callback must be there. */
static mpcg_status check_spmv(mpcg_context *ctx, const struct mpcgi_precond_ops *ops,
                              mpcgi_precond_spmv_fn spmv)
{
    MPCG_ENSURE(ctx, !(ops->caps & MPCGI_PC_CAP_SPMV) || spmv, MPCG_ERR_INVALID_ARG,
                "precond %s: no SpMV callback", ops->name);
    return MPCG_SUCCESS;
}

/* The numeric setup from A's values (the kind's refresh), then the report's line. */
static mpcg_status numeric(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                           mpcgi_precond_spmv_fn spmv, void *user)
{
    const double t0 = mpcgi_wtime();
    pc->setup_spmvs = 0;
    MPCG_CHECK(ctx, pc->ops->refresh(ctx, pc, A, spmv, user));
    pc->ops->describe(pc, pc->describe, sizeof pc->describe);
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
    const struct mpcgi_precond_ops *ops = mpcgi_precond_ops_of(p->type);
    MPCG_ENSURE(ctx, ops, MPCG_ERR_INVALID_ARG,
                "precond: unknown type %d (auto: mpcgi_precond_resolve first)", (int)p->type);
    MPCG_CHECK(ctx, check_spmv(ctx, ops, spmv));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *pc, &pc));
    pc->ops = ops;
    pc->params = *p;
    pc->n = A->n;
    pc->on_device = ctx->kind == MPCG_DEVICE_CUDA;
    MPCG_TRY(ctx, st, ops->setup(ctx, pc, A));
    MPCG_TRY(ctx, st, numeric(ctx, pc, A, spmv, user));
    pc->setup_time_s = mpcgi_wtime() - t0; /* the pattern's analysis and the copies too */
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
    MPCG_CHECK(ctx, check_spmv(ctx, pc->ops, spmv));
    MPCG_CHECK(ctx, numeric(ctx, pc, A, spmv, user));
    return MPCG_SUCCESS;
}

void mpcgi_precond_destroy(mpcg_context *ctx, mpcgi_precond *pc)
{
    if (!pc) return;
    pc->ops->destroy(ctx, pc);
    mpcgi_host_free(pc);
}

/* fp64, or fp32 where the fp32 arrays were built; the failure's status (ctx may be NULL). */
static mpcg_status check_precision(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec)
{
    MPCG_ENSURE(ctx, prec == MPCG_PRECISION_FP64 || prec == MPCG_PRECISION_FP32,
                MPCG_ERR_INVALID_ARG, "precond %s: precision %s: fp64 or fp32 vectors only",
                pc->ops->name, mpcg_precision_name(prec));
    MPCG_ENSURE(ctx, prec == MPCG_PRECISION_FP64 || pc->params.fp32, MPCG_ERR_INVALID_STATE,
                "precond %s: fp32 asked of a preconditioner built without its fp32 arrays "
                "(params.fp32)",
                pc->ops->name);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_precond_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                const void *r, void *z, void *work)
{
    MPCG_ENSURE(ctx, pc, MPCG_ERR_INVALID_STATE, "precond: not set up");
    MPCG_CHECK(ctx, check_precision(ctx, pc, prec));
    MPCG_ENSURE(ctx, !V || V->prec == prec, MPCG_ERR_INVALID_ARG,
                "precond %s: a vector table of %s for %s vectors", pc->ops->name,
                mpcg_precision_name(V ? V->prec : prec), mpcg_precision_name(prec));
    MPCG_ENSURE(ctx, pc->n == 0 || (r && z), MPCG_ERR_INVALID_ARG,
                "precond: r and z must not be NULL");
    return pc->ops->apply(ctx, pc, prec, V, spmv, user, r, z, work);
}

mpcg_status mpcgi_precond_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out)
{
    MPCG_ENSURE(NULL, pc && out, MPCG_ERR_INVALID_ARG,
                "precond fused: pc and out must not be NULL");
    MPCG_ENSURE(NULL, pc->on_device, MPCG_ERR_INVALID_STATE,
                "precond %s: no fused form on a CPU context", pc->ops->name);
    MPCG_CHECK(NULL, check_precision(NULL, pc, prec));
    *out = (mpcgi_pc_fused){.kind = MPCGI_PC_FUSED_APPLY, .n = pc->n};
    pc->ops->fused(pc, prec, out);
    return MPCG_SUCCESS;
}
