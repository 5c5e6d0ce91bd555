/* precond/jacobi.c: Jacobi, M = D = diag(A): the diagonal's arrays (which chebyshev shares),
 * y = alpha D^-1 x in fp64 and fp32 on the host or the device, and the kind's table */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/error.h"
#include "precond/precond_impl.h"

mpcg_status mpcgi_jacobi_diag_setup(mpcg_context *ctx, mpcgi_precond *pc)
{
    return mpcgi_precond_vals_alloc(ctx, pc, (size_t)pc->n, &pc->dinv, &pc->dinv32, &pc->d_dinv,
                                    &pc->d_dinv32);
}

mpcg_status mpcgi_jacobi_diag_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A)
{
    MPCG_CHECK(ctx, mpcgi_precond_diag(ctx, A, pc->ops->name, pc->dinv));
    return mpcgi_precond_vals_sync(ctx, pc, (size_t)pc->n, pc->dinv, pc->dinv32, pc->d_dinv,
                                   pc->d_dinv32);
}

void mpcgi_jacobi_diag_destroy(mpcg_context *ctx, mpcgi_precond *pc)
{
    mpcgi_precond_vals_free(ctx, pc, pc->dinv, pc->dinv32, pc->d_dinv, pc->d_dinv32);
}

/* y = alpha dinv .* x on the host, in double (24 B per row) */
static void scale_f64(int64_t n, double alpha, const double *dinv, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++)
        y[i] = alpha * dinv[i] * x[i];
}

/* the same in float, alpha rounded to float as the vector kernels do (12 B per row) */
static void scale_f32(int64_t n, double alpha, const float *dinv, const float *x, float *y)
{
    const float a = (float)alpha;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++)
        y[i] = a * dinv[i] * x[i];
}

mpcg_status mpcgi_precond_scale(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                double alpha, const void *x, void *y)
{
    const int fp32 = prec == MPCG_PRECISION_FP32;
    if (pc->on_device)
        return mpcgi_precond_device_scale(ctx, prec, pc->n, alpha,
                                          fp32 ? (const void *)pc->d_dinv32 : pc->d_dinv, x, y);
    if (fp32)
        scale_f32(pc->n, alpha, pc->dinv32, x, y);
    else
        scale_f64(pc->n, alpha, pc->dinv, x, y);
    return MPCG_SUCCESS;
}

static mpcg_status jacobi_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                  mpcgi_precond_spmv_fn spmv, void *user)
{
    (void)spmv, (void)user;
    return mpcgi_jacobi_diag_refresh(ctx, pc, A);
}

static mpcg_status jacobi_setup(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A)
{
    (void)A;
    return mpcgi_jacobi_diag_setup(ctx, pc);
}

/* z = D^-1 r */
static mpcg_status jacobi_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                const void *r, void *z, void *work)
{
    (void)V, (void)spmv, (void)user, (void)work;
    return mpcgi_precond_scale(ctx, pc, prec, 1.0, r, z);
}

static void jacobi_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out)
{
    out->kind = MPCGI_PC_FUSED_DIAG;
    out->dinv = prec == MPCG_PRECISION_FP32 ? (const void *)pc->d_dinv32 : pc->d_dinv;
}

static void jacobi_describe(const mpcgi_precond *pc, char *buf, size_t size)
{
    (void)pc;
    snprintf(buf, size, "jacobi (1 / a_ii)");
}

const struct mpcgi_precond_ops mpcgi_precond_jacobi = {
    .name = "jacobi",
    .type = MPCG_PRECOND_JACOBI,
    .caps = MPCGI_PC_CAP_FP32,
    .setup = jacobi_setup,
    .refresh = jacobi_refresh,
    .apply = jacobi_apply,
    .fused = jacobi_fused,
    .describe = jacobi_describe,
    .destroy = mpcgi_jacobi_diag_destroy,
};
