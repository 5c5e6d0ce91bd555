/* solver/cg_fused_stub.c: the GPU CG variants in a CPU-only build (none can run) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/error.h"
#include "solver/cg_variants.h"

static int no_gpu(mpcg_solver *s, int asked, char *why, size_t size)
{
    (void)s, (void)asked;
    snprintf(why, size, "this build has no CUDA (CPU only)");
    return 0;
}

mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    (void)a, (void)info;
    MPCG_FAIL(s->ctx, MPCG_ERR_NO_DEVICE, "no GPU CG in a CPU-only build");
}

mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s)
{
    MPCG_FAIL(s->ctx, MPCG_ERR_NO_DEVICE, "no GPU CG in a CPU-only build");
}

void mpcgi_cg_fused_teardown(mpcg_solver *s) { (void)s; }

int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s)
{
    (void)s;
    return 0;
}

static double no_bytes(const mpcg_solver *s)
{
    (void)s;
    return 0.0;
}

#define NO_GPU_VARIANT(sym, word)                                                              \
    const mpcgi_cg_variant sym = {.name = word, .wanted = no_gpu,                              \
                                  .setup = mpcgi_cg_fused_setup, .run = mpcgi_cg_run_fused,    \
                                  .vector_bytes = no_bytes, .teardown = mpcgi_cg_fused_teardown}

NO_GPU_VARIANT(mpcgi_cg_launched, "launched");
NO_GPU_VARIANT(mpcgi_cg_graph, "graph");
NO_GPU_VARIANT(mpcgi_cg_persistent_single, "persistent-single");
NO_GPU_VARIANT(mpcgi_cg_persistent_two_barrier, "persistent-two-barrier");
