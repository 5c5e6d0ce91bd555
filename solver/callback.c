/* solver/callback.c: the caller's preconditioner and iterate callbacks (SciPy's M and callback:
 * mpcg_solver_set_precond_callback, mpcg_solver_set_iterate_callback), run by the host loop */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/device.h"
#include "core/error.h"
#include "core/matrix.h"
#include "solver/solver.h"

static int valid(const mpcg_solver *s)
{
    return s && s->magic == MPCGI_SOLVER_MAGIC;
}

int mpcgi_solver_callbacks(const mpcg_solver *s)
{
    return s->pc_fn || s->iter_fn;
}

/* Setting or removing one changes the setup (z, the variant, the host staging): a new one. */
mpcg_status mpcg_solver_set_precond_callback(mpcg_solver *s, mpcg_precond_fn fn, void *user)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    if (!fn != !s->pc_fn) s->setup_done = 0;
    s->pc_fn = fn;
    s->pc_fn_user = fn ? user : NULL;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_iterate_callback(mpcg_solver *s, mpcg_iterate_fn fn, void *user)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    if (!fn != !s->iter_fn) s->setup_done = 0;
    s->iter_fn = fn;
    s->iter_fn_user = fn ? user : NULL;
    return MPCG_SUCCESS;
}

/* After the work vectors: the host copies a GPU context's callbacks read and write. */
mpcg_status mpcgi_callbacks_setup(mpcg_solver *s)
{
    if (!mpcgi_solver_callbacks(s) || !s->on_device) return MPCG_SUCCESS;
    return mpcgi_host_alloc_array(s->ctx, 2 * (size_t)s->A->csr.n, sizeof(double), &s->cb_host);
}

void mpcgi_callbacks_teardown(mpcg_solver *s)
{
    mpcgi_host_free(s->cb_host);
    s->cb_host = NULL;
}

/* z = M r by the caller, through the host copies on a GPU (fp64: mpcgi_cg_variant_setup refuses
 * the others); solver/pcg.c forms r.z. */
mpcg_status mpcgi_pcg_callback(mpcg_solver *s, double *z)
{
    mpcg_context *ctx = s->ctx;
    const int64_t n = s->A->csr.n;
    const size_t bytes = (size_t)n * sizeof(double);
    int rc;
    if (s->on_device) {
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, s->cb_host, s->r, bytes, MPCGI_D2H));
        rc = s->pc_fn(s->cb_host, s->cb_host + n, s->pc_fn_user);
        if (rc == 0) MPCG_CHECK(ctx, mpcgi_device_copy(ctx, z, s->cb_host + n, bytes, MPCGI_H2D));
    } else {
        rc = s->pc_fn(s->r, z, s->pc_fn_user);
    }
    MPCG_ENSURE(ctx, rc == 0, MPCG_ERR_INVALID_ARG,
                "the preconditioner callback returned %d: the solve stops", rc);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_cg_iterate(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k)
{
    mpcg_context *ctx = s->ctx;
    const double *x = a->x;
    if (!s->iter_fn) return MPCG_SUCCESS;
    if (s->on_device) {
        const size_t bytes = (size_t)s->A->csr.n * sizeof(double);
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, s->cb_host, a->x, bytes, MPCGI_D2H));
        x = s->cb_host;
    }
    const int rc = s->iter_fn(a->seg.k0 + k, x, s->iter_fn_user);
    MPCG_ENSURE(ctx, rc == 0, MPCG_ERR_INVALID_ARG,
                "the iterate callback returned %d at iteration %lld: the solve stops", rc,
                (long long)(a->seg.k0 + k));
    return MPCG_SUCCESS;
}
