/* precond/registry.c: the one list of preconditioner kinds, looked up by mpcg_precond */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "precond/precond.h"

/*
 * A kind is one entry here (and the extern of its table in precond/precond.h); every
 * mpcg_precond but MPCG_PRECOND_AUTO, which mpcgi_precond_resolve turns into one of them, has
 * exactly one. Every kind is built in every configuration: bjacobi without LAPACKE refuses at
 * setup, and the device applies of a CPU-only build are precond/precond_device_stub.c's.
 */
static const struct mpcgi_precond_ops *const kinds[] = {
    &mpcgi_precond_none,
    &mpcgi_precond_jacobi,
    &mpcgi_precond_bjacobi,
    &mpcgi_precond_chebyshev,
};

int mpcgi_precond_count(void)
{
    return (int)(sizeof kinds / sizeof kinds[0]);
}

const struct mpcgi_precond_ops *mpcgi_precond_get(int i)
{
    return i >= 0 && i < mpcgi_precond_count() ? kinds[i] : NULL;
}

const struct mpcgi_precond_ops *mpcgi_precond_ops_of(mpcg_precond type)
{
    for (int i = 0; i < mpcgi_precond_count(); i++)
        if (kinds[i]->type == type) return kinds[i];
    return NULL;
}
