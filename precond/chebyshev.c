/* precond/chebyshev.c: the Chebyshev polynomial preconditioner on D^-1 A: lambda_max by
 * Lanczos (through CG) at setup, the Chebyshev iteration as the apply (fp64 or fp32), and the
 * kind's table */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/rng.h"
#include "precond/precond_impl.h"

/* Lanczos steps of the estimate, and the factor on its largest Ritz value: after 10 steps the
 * largest Ritz value is close to lambda_max from below, and the polynomial must cover the whole
 * spectrum (above lmax it grows, and M^-1 may lose definiteness). PETSc's default factor. */
#define LANCZOS_STEPS 10
#define SAFETY 1.1
/* The start vector's seed: the same estimate on every run and on both places. */
#define START_SEED 0x63686562ull /* "cheb" */
/* The estimate runs in fp64 whatever the applies' precision. */
#define FP64 MPCG_PRECISION_FP64

double mpcgi_tridiag_lmax(int k, const double *a, const double *b)
{
    /* Gershgorin bounds the spectrum; Sturm's count of the pivots of T - x I below zero is the
     * number of eigenvalues below x, so lmax = the least x with k of them below */
    double lo = a[0], hi = a[0];
    for (int i = 0; i < k; i++) {
        const double rad = (i > 0 ? fabs(b[i - 1]) : 0) + (i < k - 1 ? fabs(b[i]) : 0);
        lo = fmin(lo, a[i] - rad);
        hi = fmax(hi, a[i] + rad);
    }
    for (int it = 0; it < 200 && hi - lo > 4 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)); it++) {
        const double x = 0.5 * (lo + hi);
        int below = 0;
        double d = 1;
        for (int i = 0; i < k; i++) {
            d = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / d : 0);
            if (d == 0) d = -DBL_MIN; /* x is an eigenvalue of the leading block: count it */
            below += d < 0;
        }
        if (below == k)
            hi = x;
        else
            lo = x;
    }
    return hi;
}

/* Memory where ctx computes (the estimate's vectors). */
static mpcg_status place_alloc(mpcg_context *ctx, const mpcgi_precond *pc, size_t bytes, void *p)
{
    return pc->on_device ? mpcgi_device_alloc(ctx, bytes, p) : mpcgi_host_alloc(ctx, bytes, p);
}

static void place_free(mpcg_context *ctx, const mpcgi_precond *pc, void *p)
{
    if (pc->on_device)
        mpcgi_device_free(ctx, p);
    else
        mpcgi_host_free(p);
}

/* r = the fixed start vector, uniform in [-1, 1) (a host copy first on a GPU). */
static mpcg_status start_vector(mpcg_context *ctx, const mpcgi_precond *pc, double *r)
{
    mpcg_status st = MPCG_SUCCESS;
    double *h = r;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, START_SEED);
    if (pc->on_device) MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)pc->n, sizeof *h, &h));
    for (int64_t i = 0; i < pc->n; i++)
        h[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    if (pc->on_device)
        MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, r, h, (size_t)pc->n * sizeof *h, MPCGI_H2D));
done:
    if (h != r) mpcgi_host_free(h);
    return st;
}

/* CG on A with the preconditioner D (the Lanczos process on D^-1 A in the D inner product):
 * alpha[j], beta[j] of its steps; *steps = how many ran. v: 4 n doubles (r, z, p, q). */
static mpcg_status lanczos_cg(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_vec_ops *V,
                              mpcgi_precond_spmv_fn spmv, void *user, double *v, void *ws,
                              double *alpha, double *beta, int *steps)
{
    const int64_t n = pc->n;
    double *r = v, *z = v + n, *p = v + 2 * n, *q = v + 3 * n, rz, rz0, pq;
    *steps = 0;
    MPCG_CHECK(ctx, start_vector(ctx, pc, r));
    MPCG_CHECK(ctx, mpcgi_precond_scale(ctx, pc, FP64, 1.0, r, z)); /* z = D^-1 r */
    MPCG_CHECK(ctx, V->copy(ctx, n, z, p));                         /* p = z */
    MPCG_CHECK(ctx, V->dot(ctx, ws, n, r, z, &rz));
    for (rz0 = rz; *steps < LANCZOS_STEPS && rz > 1e-24 * rz0;) {
        MPCG_CHECK(ctx, spmv(ctx, user, FP64, p, q)); /* q = A p */
        pc->setup_spmvs++;
        MPCG_CHECK(ctx, V->dot(ctx, ws, n, p, q, &pq));
        MPCG_ENSURE(ctx, pq > 0 && isfinite(pq), MPCG_ERR_INVALID_ARG,
                    "precond chebyshev: p^T A p = %g at Lanczos step %d (A is not SPD)", pq,
                    *steps + 1);
        const int j = (*steps)++;
        alpha[j] = rz / pq;
        MPCG_CHECK(ctx, V->axpy(ctx, n, -alpha[j], q, r));              /* r -= alpha q */
        MPCG_CHECK(ctx, mpcgi_precond_scale(ctx, pc, FP64, 1.0, r, z)); /* z = D^-1 r */
        double rz_new;
        MPCG_CHECK(ctx, V->dot(ctx, ws, n, r, z, &rz_new));
        beta[j] = rz_new / rz;
        rz = rz_new;
        MPCG_CHECK(ctx, V->xpay(ctx, n, z, beta[j], p)); /* p = z + beta p */
    }
    return MPCG_SUCCESS;
}

/* pc->lmax, lmin, lanczos_steps, setup_spmvs from Lanczos steps on D^-1 A where ctx computes
 * (pc->dinv and, on a GPU, d_dinv already set). */
static mpcg_status estimate(mpcg_context *ctx, mpcgi_precond *pc, mpcgi_precond_spmv_fn spmv,
                            void *user)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_vec_ops *V = mpcgi_vec_ops_for(ctx->kind, MPCG_PRECISION_FP64);
    double *v = NULL, alpha[LANCZOS_STEPS], beta[LANCZOS_STEPS], a[LANCZOS_STEPS], b[LANCZOS_STEPS];
    void *ws = NULL;
    int k = 0;
    MPCG_ENSURE(ctx, V, MPCG_ERR_NOT_SUPPORTED, "precond chebyshev: no fp64 vectors here");
    MPCG_TRY(ctx, st, place_alloc(ctx, pc, 4 * (size_t)pc->n * sizeof *v, &v));
    MPCG_TRY(ctx, st, place_alloc(ctx, pc, V->dot_workspace(pc->n), &ws));
    MPCG_TRY(ctx, st, lanczos_cg(ctx, pc, V, spmv, user, v, ws, alpha, beta, &k));
    /* The Lanczos matrix of CG (Saad, Iterative Methods, 6.7.3): T_jj = 1/alpha_j +
     * beta_(j-1)/alpha_(j-1), T_j,j+1 = sqrt(beta_j)/alpha_j */
    for (int j = 0; j < k; j++) {
        a[j] = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
        b[j] = sqrt(beta[j]) / alpha[j];
    }
    /* no step (n = 0): the Rayleigh quotient of D^-1 A at any unit vector e_i is 1 */
    pc->lmax = SAFETY * (k > 0 ? mpcgi_tridiag_lmax(k, a, b) : 1.0);
    pc->lmin = pc->lmax * pc->params.lmin_ratio;
    pc->lanczos_steps = k;
done:
    if (v) place_free(ctx, pc, v);
    if (ws) place_free(ctx, pc, ws);
    return st;
}

static mpcg_status chebyshev_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                   const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                   const void *r, void *z, void *work)
{
    /* Saad, Iterative Methods, Alg. 12.1 preconditioned by D, for A z = r from z = 0; the
     * residual is formed as r - A z each step (PETSc's KSPCHEBYSHEV), so the first step, where
     * z = 0, needs no product: degree - 1 products in all. The same steps in fp32 through V and
     * spmv of that precision: the scalars stay double, and V's kernels round them to float
     * where they multiply a vector. */
    const int64_t n = pc->n;
    const size_t size = prec == MPCG_PRECISION_FP32 ? sizeof(float) : sizeof(double);
    const double theta = 0.5 * (pc->lmax + pc->lmin), delta = 0.5 * (pc->lmax - pc->lmin);
    const double sigma = theta / delta;
    double rho = 1 / sigma;
    void *w = work, *d = work ? (char *)work + (size_t)n * size : NULL;
    MPCG_CHECK(ctx, mpcgi_precond_scale(ctx, pc, prec, 1 / theta, r, z)); /* z = D^-1 r / theta */
    if (pc->params.degree == 1) return MPCG_SUCCESS;
    MPCG_ENSURE(ctx, V && spmv && (n == 0 || work), MPCG_ERR_INVALID_ARG,
                "precond chebyshev: the vector table, SpMV and work must not be NULL");
    MPCG_CHECK(ctx, V->copy(ctx, n, z, d));
    for (int k = 1; k < pc->params.degree; k++) {
        const double rho_new = 1 / (2 * sigma - rho);
        MPCG_CHECK(ctx, spmv(ctx, user, prec, z, w)); /* w = A z */
        MPCG_CHECK(ctx, V->xpay(ctx, n, r, -1.0, w)); /* w = r - A z */
        MPCG_CHECK(ctx, mpcgi_precond_scale(ctx, pc, prec, 2 * rho_new / delta, w, w));
        MPCG_CHECK(ctx, V->xpay(ctx, n, w, rho_new * rho, d)); /* d = w + rho' rho d */
        MPCG_CHECK(ctx, V->axpy(ctx, n, 1.0, d, z));           /* z += d */
        rho = rho_new;
    }
    return MPCG_SUCCESS;
}

static mpcg_status chebyshev_setup(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A)
{
    const mpcgi_precond_params *p = &pc->params;
    (void)A;
    MPCG_ENSURE(ctx, p->degree >= 1, MPCG_ERR_INVALID_ARG,
                "precond chebyshev: degree %d must be >= 1", p->degree);
    MPCG_ENSURE(ctx, p->lmin_ratio > 0 && p->lmin_ratio < 1, MPCG_ERR_INVALID_ARG,
                "precond chebyshev: lmin_ratio %g out of range (0, 1)", p->lmin_ratio);
    pc->apply_spmvs = p->degree - 1; /* degree steps from z = 0, the first without a product */
    return mpcgi_jacobi_diag_setup(ctx, pc);
}

static mpcg_status chebyshev_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                     mpcgi_precond_spmv_fn spmv, void *user)
{
    MPCG_CHECK(ctx, mpcgi_jacobi_diag_refresh(ctx, pc, A));
    return estimate(ctx, pc, spmv, user);
}

/* A polynomial of degree - 1 products with A: no fused form. */
static void chebyshev_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out)
{
    (void)pc, (void)prec;
    out->kind = MPCGI_PC_FUSED_APPLY;
}

static void chebyshev_describe(const mpcgi_precond *pc, char *buf, size_t size)
{
    snprintf(buf, size,
             "chebyshev degree %d on D^-1 A, lambda in [%.3g, %.3g] (lmax: %d Lanczos steps "
             "x 1.1)",
             pc->params.degree, pc->lmin, pc->lmax, pc->lanczos_steps);
}

const struct mpcgi_precond_ops mpcgi_precond_chebyshev = {
    .name = "chebyshev",
    .type = MPCG_PRECOND_CHEBYSHEV,
    .caps = MPCGI_PC_CAP_SPMV | MPCGI_PC_CAP_FP32,
    .setup = chebyshev_setup,
    .refresh = chebyshev_refresh,
    .apply = chebyshev_apply,
    .fused = chebyshev_fused,
    .describe = chebyshev_describe,
    .destroy = mpcgi_jacobi_diag_destroy,
};
