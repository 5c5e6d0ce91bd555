/* solver/cg_fused_stub.c: the fused GPU iteration in a CPU-only build (no GPU solver exists) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/error.h"
#include "solver/solver.h"

mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    (void)a;
    (void)info;
    MPCG_FAIL(s->ctx, MPCG_ERR_NO_DEVICE, "no GPU CG in a CPU-only build");
}

mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s)
{
    MPCG_FAIL(s->ctx, MPCG_ERR_NO_DEVICE, "no GPU CG in a CPU-only build");
}

mpcg_status mpcgi_cg_fused_refresh(mpcg_solver *s)
{
    (void)s;
    return MPCG_SUCCESS;
}

void mpcgi_cg_fused_teardown(mpcg_solver *s) { (void)s; }

int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s)
{
    (void)s;
    return 0;
}

const char *mpcgi_cg_fused_path(const mpcg_solver *s)
{
    (void)s;
    return "none";
}

double mpcgi_cg_fused_vector_bytes(const mpcg_solver *s)
{
    (void)s;
    return 0.0;
}
