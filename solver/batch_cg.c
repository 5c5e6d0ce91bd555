/* solver/batch_cg.c: mpcg_batch_solve: every system of a batch with its own CG (or Jacobi PCG),
 * on the host (OpenMP over the systems) or in one launch on the GPU (solver/batch_cg.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "config.h"
#include "core/alloc.h"
#include "core/batch.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "precond/precond.h"
#include "solver/batch_cg.h"
#if MPCG_HAVE_CUDA
#include "core/cuda_check.h"
#endif

/*
 * One system (docs/batched.md), the same steps on the host and the device: x = 0, r = b,
 * z = M^-1 r (M = diag(A) with Jacobi, which auto chooses unless the batch's diagonal is constant; a diagonal <= 0 or missing stops the system with
 * MPCG_DIVERGED_INDEFINITE_PC), p = z; each step q = A p, alpha = r.z / p.q (p.q <= 0 stops:
 * BREAKDOWN at 0, INDEFINITE_MATRIX below, NAN if not finite), x += alpha p, r -= alpha q,
 * z = M^-1 r, beta = r.z_new / r.z, p = z + beta p. When ||r|| <= tol ||b|| by the recurrence,
 * the true residual decides: converged, or r is replaced by it and the iteration restarts
 * from p = z (at most MPCGI_BATCH_REPLACEMENTS times, then STAGNATION). b = 0 gives x = 0,
 * CONVERGED_ZERO_RHS.
 */

typedef struct sysv {
    int64_t n;
    const int64_t *ptr; /* the system's rows' entries (global positions) */
    const int32_t *col;
    const double *val;
} sysv;

static void sys_spmv(const sysv *A, const double *x, double *y)
{
    for (int64_t r = 0; r < A->n; r++) {
        double s = 0;
        for (int64_t e = A->ptr[r]; e < A->ptr[r + 1]; e++)
            s += A->val[e] * x[A->col[e]];
        y[r] = s;
    }
}

static double dot(int64_t n, const double *a, const double *b)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* r = b - A x; ||r||. */
static double residual(const sysv *A, const double *b, const double *x, double *r)
{
    sys_spmv(A, x, r);
    for (int64_t i = 0; i < A->n; i++)
        r[i] = b[i] - r[i];
    return sqrt(dot(A->n, r, r));
}

/* dinv = 1 / diag(A) by the preconditioners' diagonal builder (the batch's columns are sorted
 * and distinct in a row, its values finite); 0, or -1 at a diagonal <= 0 or missing. */
static int jacobi_of(const sysv *A, double *dinv)
{
    return mpcgi_precond_diag_rows(A->n, A->ptr, A->col, A->val, dinv) == A->n ? 0 : -1;
}

/* z = M^-1 r (z is r without a preconditioner); r.z. */
static double apply_pc(int64_t n, const double *dinv, const double *r, double *z)
{
    if (!dinv) return dot(n, r, r);
    for (int64_t i = 0; i < n; i++)
        z[i] = dinv[i] * r[i];
    return dot(n, r, z);
}

/* The iteration from x = 0 (w: 5 n values); the reason, iterations, the recurrence norm. */
static void iterate(const sysv *A, const double *b, double *x, double *w, double bnorm,
                    const mpcgi_batch_settings *st, mpcg_batch_result *res)
{
    const int64_t n = A->n, maxit = st->maxit >= 0 ? st->maxit : (10 * n > 100 ? 10 * n : 100);
    double *r = w, *p = w + 2 * n, *q = w + 3 * n, *dinv = st->jacobi ? w + 4 * n : NULL;
    double *z = dinv ? w + n : r;
    int64_t k = 0;
    int repl = 0;
    double rn = residual(A, b, x, r), rz = apply_pc(n, dinv, r, z);
    memcpy(p, z, (size_t)n * sizeof *p);
    for (;;) {
        if (rn <= st->tol * bnorm) {
            const double tn = residual(A, b, x, r);
            if (tn <= st->tol * bnorm) {
                res->reason = MPCG_CONVERGED_RTOL;
                break;
            }
            if (++repl > st->replacements) {
                res->reason = MPCG_DIVERGED_STAGNATION;
                break;
            }
            rn = tn, rz = apply_pc(n, dinv, r, z);
            memcpy(p, z, (size_t)n * sizeof *p);
            continue;
        }
        if (k >= maxit) {
            res->reason = MPCG_DIVERGED_MAX_ITER;
            break;
        }
        sys_spmv(A, p, q);
        const double pq = dot(n, p, q);
        if (!(pq > 0)) {
            res->reason = !isfinite(pq) ? MPCG_DIVERGED_NAN
                          : pq == 0     ? MPCG_DIVERGED_BREAKDOWN
                                        : MPCG_DIVERGED_INDEFINITE_MATRIX;
            break;
        }
        const double alpha = rz / pq;
        for (int64_t i = 0; i < n; i++)
            x[i] += alpha * p[i], r[i] -= alpha * q[i];
        k++;
        const double rzn = apply_pc(n, dinv, r, z);
        rn = sqrt(dot(n, r, r));
        if (!isfinite(rn) || !isfinite(rzn)) {
            res->reason = MPCG_DIVERGED_NAN;
            break;
        }
        if (!(rzn > 0) && rn > 0) {
            res->reason = MPCG_DIVERGED_INDEFINITE_PC;
            break;
        }
        const double beta = rzn / rz;
        rz = rzn;
        for (int64_t i = 0; i < n; i++)
            p[i] = z[i] + beta * p[i];
    }
    res->iterations = k;
    res->recurrence_relres = rn / bnorm;
}

static void solve_one(const sysv *A, const double *b, double *x, double *w,
                      const mpcgi_batch_settings *st, mpcg_batch_result *res)
{
    memset(res, 0, sizeof *res);
    memset(x, 0, (size_t)A->n * sizeof *x);
    const double bnorm = sqrt(dot(A->n, b, b));
    if (bnorm == 0) {
        res->reason = MPCG_CONVERGED_ZERO_RHS;
        return;
    }
    if (!isfinite(bnorm)) { /* ||b||^2 overflows: as mpcg_solve, NaN/Inf */
        res->reason = MPCG_DIVERGED_NAN;
        res->true_relres = res->recurrence_relres = NAN;
        return;
    }
    if (st->jacobi && jacobi_of(A, w + 4 * A->n) != 0) {
        res->reason = MPCG_DIVERGED_INDEFINITE_PC;
        res->true_relres = res->recurrence_relres = 1.0;
        return;
    }
    iterate(A, b, x, w, bnorm, st, res);
    res->true_relres = residual(A, b, x, w) / bnorm;
}

/* Auto's rule, as mpcg_solver's (precond/precond.c, mpcgi_precond_resolve) on the batch as one
 * block-diagonal matrix: Jacobi unless every diagonal entry of every system is the same (a
 * missing one counts as different: Jacobi then stops that system, naming no row). */
static mpcg_precond resolve(const mpcg_batch *b)
{
    if (b->precond != MPCG_PRECOND_AUTO) return b->precond;
    const mpcgi_batch_arrays *a = &b->host;
    double d0 = NAN;
    for (int64_t i = 0; i < b->k; i++)
        for (int64_t r = a->off[i]; r < a->off[i + 1]; r++) {
            double d = NAN;
            for (int64_t e = a->ptr[r]; e < a->ptr[r + 1]; e++)
                if (a->col[e] == r - a->off[i]) d = a->val[e];
            if (r == 0) d0 = d;
            if (!(d == d0)) return MPCG_PRECOND_JACOBI;
        }
    return MPCG_PRECOND_NONE;
}

mpcg_precond mpcg_batch_precond(const mpcg_batch *b)
{
    return mpcgi_batch_valid(b) ? resolve(b) : MPCG_PRECOND_NONE;
}

static mpcgi_batch_settings settings_of(const mpcg_batch *b)
{
    return (mpcgi_batch_settings){.tol = b->tol,
                                  .maxit = b->maxit,
                                  .jacobi = resolve(b) == MPCG_PRECOND_JACOBI,
                                  .replacements = MPCGI_BATCH_REPLACEMENTS};
}

static mpcg_status solve_host(mpcg_batch *bt, const double *b, double *x, mpcg_batch_result *res)
{
    double *w;
    MPCG_CHECK(bt->ctx,
               mpcgi_host_alloc_array(bt->ctx, (size_t)(5 * bt->rows + 1), sizeof(double), &w));
    const mpcgi_batch_settings st = settings_of(bt);
    const mpcgi_batch_arrays *a = &bt->host;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t i = 0; i < bt->k; i++) {
        const int64_t o = a->off[i];
        const sysv A = {a->off[i + 1] - o, a->ptr + o, a->col, a->val};
        solve_one(&A, b + o, x + o, w + 5 * o, &st, &res[i]);
    }
    mpcgi_host_free(w);
    return MPCG_SUCCESS;
}

/* Bytes of the batch's device workspace a device solve uses after its first `pre` bytes. */
static size_t device_bytes(const mpcg_batch *bt)
{
    return ((size_t)bt->k * sizeof(mpcg_batch_result) + 15) / 16 * 16 +
           mpcgi_batch_cg_workspace(bt->rows);
}

/* b, x: device arrays; results to the host. The batch's workspace from byte pre on is the
 * solve's (the caller may hold the bytes before). */
static mpcg_status solve_device(mpcg_batch *bt, const double *b, double *x, mpcg_batch_result *res,
                                size_t pre)
{
    mpcg_context *ctx = bt->ctx;
#if MPCG_HAVE_CUDA
    const size_t rbytes = (size_t)bt->k * sizeof *res;
    void *work;
    MPCG_CHECK(ctx, mpcgi_batch_work(bt, pre + device_bytes(bt), &work));
    mpcg_batch_result *rd = (mpcg_batch_result *)((char *)work + pre);
    void *rest = (char *)rd + (rbytes + 15) / 16 * 16;
    const mpcgi_batch_arrays *a = &bt->dev;
    const mpcgi_batch_dev A = {bt->k, bt->max_n, bt->max_nnz, a->off, a->ptr, a->col, a->val};
    MPCG_LAUNCH(
        ctx, mpcgi_batch_cg_launch(mpcgi_device_stream(ctx), &A, b, x, settings_of(bt), rd, rest));
    return mpcgi_device_copy(ctx, res, rd, rbytes, MPCGI_D2H);
#else
    (void)b, (void)x, (void)res, (void)pre;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED, "batched CG on a GPU: a build without CUDA");
#endif
}

static mpcg_status begin(mpcg_batch *bt, const void *b, const void *x, const void *res)
{
    MPCG_ENSURE(NULL, mpcgi_batch_valid(bt), MPCG_ERR_INVALID_ARG, "invalid batch");
    MPCG_ENSURE(bt->ctx, (b && x && res) || bt->k == 0, MPCG_ERR_INVALID_ARG,
                "mpcg_batch_solve: b, x and results must not be NULL");
    return MPCG_SUCCESS;
}

mpcg_status mpcg_batch_solve(mpcg_batch *bt, const double *b, double *x, mpcg_batch_result *res)
{
    MPCG_CHECK(bt ? bt->ctx : NULL, begin(bt, b, x, res));
    mpcg_context *ctx = bt->ctx;
    if (bt->k == 0) return MPCG_SUCCESS;
    for (int64_t i = 0; i < bt->rows; i++)
        MPCG_ENSURE(ctx, isfinite(b[i]), MPCG_ERR_INVALID_ARG,
                    "mpcg_batch_solve: b[%lld] = %g is not finite", (long long)i, b[i]);
    if (!bt->dev.off) return solve_host(bt, b, x, res);
    /* b and x staged in the batch's workspace, before the solve's part (kept between solves) */
    const size_t bytes = (size_t)bt->rows * sizeof(double), pre = (2 * bytes + 15) / 16 * 16;
    void *work;
    MPCG_CHECK(ctx, mpcgi_batch_work(bt, pre + device_bytes(bt), &work));
    double *d = work;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, d, b, bytes, MPCGI_H2D));
    MPCG_CHECK(ctx, solve_device(bt, d, d + bt->rows, res, pre));
    return mpcgi_device_copy(ctx, x, d + bt->rows, bytes, MPCGI_D2H);
}

mpcg_status mpcg_batch_solve_device(mpcg_batch *bt, const double *b, double *x,
                                    mpcg_batch_result *res)
{
    MPCG_CHECK(bt ? bt->ctx : NULL, begin(bt, b, x, res));
    MPCG_ENSURE(bt->ctx, bt->dev.off || bt->k == 0, MPCG_ERR_INVALID_STATE,
                "mpcg_batch_solve_device needs a GPU context, and context %s runs on the CPU "
                "(use mpcg_batch_solve)",
                bt->ctx->device_name);
    if (bt->k == 0) return MPCG_SUCCESS;
    return solve_device(bt, b, x, res, 0);
}
