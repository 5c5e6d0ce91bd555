/* solver/cg_variants.c: the CG variants table, the host variant and choose_variant() */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"
#include "solver/cg_variants.h"
#include "solver/options.h"

/* ---------------------------------------------------------------- the host variant */

static int host_wanted(mpcg_solver *s, int asked, char *why, size_t size)
{
    (void)s, (void)asked, (void)why, (void)size;
    return 1; /* over the context's vector kernels: the CPU's, or the GPU's */
}

/* CG, or PCG with a preconditioner (solver/cg.c) */
static mpcg_status host_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    return mpcgi_cg_run(s, a, info);
}

static mpcg_status host_setup(mpcg_solver *s)
{
    (void)s;
    return MPCG_SUCCESS;
}

static double host_vector_bytes(const mpcg_solver *s)
{
    /* solver/cg.c's traffic comment: 4-byte vectors in fp32 */
    return s->work == MPCG_PRECISION_FP64 ? 112.0 : 56.0;
}

static void host_teardown(mpcg_solver *s)
{
    (void)s;
}

const mpcgi_cg_variant mpcgi_cg_host = {
    .name = "host",
    .wanted = host_wanted,
    .setup = host_setup,
    .run = host_run,
    .vector_bytes = host_vector_bytes,
    .teardown = host_teardown,
};

/* ---------------------------------------------------------------- choose_variant */

/* In the order of the cg.variant words (solver/options.h); index 0 (auto) has no entry. */
static const mpcgi_cg_variant *const variants[] = {NULL,
                                                   &mpcgi_cg_host,
                                                   &mpcgi_cg_launched,
                                                   &mpcgi_cg_graph,
                                                   &mpcgi_cg_persistent_single,
                                                   &mpcgi_cg_persistent_two_barrier};

/*
 * Whether auto may take the single-reduction loop: not in a mixed solve. Its recurrences for p.A p
 * and A p drift further in fp32 than CG's own, and a solve to fp64 accuracy runs its fp32
 * iterations through every reliable update: in fp32 it takes more iterations than the launched
 * kernels' recurrences and can break down into the fp64 finish (docs/solver.md, "Precision"). The
 * two-barrier loop has the launched kernels' recurrences. cg.variant=persistent-single still
 * runs it.
 */
static int single_for_auto(mpcg_solver *s, char *why, size_t size)
{
    if (s->precision == MPCG_PRECISION_MIXED) {
        snprintf(why, size, "auto keeps it from mixed solves (its recurrences drift in fp32)");
        return 0;
    }
    return mpcgi_cg_persistent_single.wanted(s, 0, why, size);
}

/* cg.small_n: the largest n of the latency-bound variants under auto. */
static long long small_n(const mpcg_solver *s)
{
    return mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_SMALL_N]);
}

/*
 * The auto rule (docs/solver.md): the host loop where the caller's callbacks are set
 * (mpcg_solver_set_precond_callback, _iterate_callback) or on a CPU context; on a GPU, systems
 * above cg.small_n run launched kernels (bandwidth-bound: with PDL as fast as a graph), smaller
 * ones (latency-bound) a persistent loop over the plan's rows where it can run: the
 * single-reduction loop where the rows fit in shared memory and its chain rule passes (not in a
 * mixed solve, single_for_auto), else the two-barrier loop, else a CUDA graph. Writes the choice's
 * reason.
 */
static const mpcgi_cg_variant *choose_auto(mpcg_solver *s, char *why, size_t size)
{
    const mpcg_context *ctx = s->ctx;
    long long n = (long long)s->A->csr.n;
    long long small = small_n(s);
    char no1[96], no2[96];
    if (mpcgi_solver_callbacks(s)) {
        snprintf(why, size,
                 "auto: a preconditioner or iterate callback of the caller: the host "
                 "loop");
        return &mpcgi_cg_host;
    }
    if (!s->on_device) {
        snprintf(why, size, "auto: context %.40s runs on the CPU", ctx->device_name);
        return &mpcgi_cg_host;
    }
    if (mpcgi_spmv_host_driven(s->plan)) {
        snprintf(why, size,
                 "auto: the SpMV waits for the host inside (out-of-core): launched "
                 "kernels, no CUDA graph or persistent loop");
        return &mpcgi_cg_launched;
    }
    if (s->pc_type != MPCG_PRECOND_NONE && n > small) {
        snprintf(why, size, "auto: PCG (%s), n = %lld > cg.small_n = %lld: launched kernels",
                 mpcg_precond_name(s->pc_type), n, small);
        return &mpcgi_cg_launched;
    }
    if (s->pc_type != MPCG_PRECOND_NONE) {
        if (mpcgi_cg_persistent_two_barrier.wanted(s, 0, no2, sizeof no2)) {
            snprintf(why, size, "auto: PCG (%s), n = %lld <= cg.small_n: the two-barrier loop",
                     mpcg_precond_name(s->pc_type), n);
            return &mpcgi_cg_persistent_two_barrier;
        }
        snprintf(why, size,
                 "auto: PCG (%s), n = %lld <= cg.small_n; not two-barrier: %.80s; a "
                 "CUDA graph",
                 mpcg_precond_name(s->pc_type), n, no2);
        return &mpcgi_cg_graph;
    }
    if (n > small) {
        snprintf(why, size, "auto: n = %lld > cg.small_n = %lld: launched kernels", n, small);
        return &mpcgi_cg_launched;
    }
    if (single_for_auto(s, no1, sizeof no1)) {
        snprintf(why, size,
                 "auto: n = %lld <= cg.small_n and the rows fit the single-reduction "
                 "loop",
                 n);
        return &mpcgi_cg_persistent_single;
    }
    if (mpcgi_cg_persistent_two_barrier.wanted(s, 0, no2, sizeof no2)) {
        snprintf(why, size, "auto: n = %lld <= cg.small_n; not single-reduction: %.80s", n, no1);
        return &mpcgi_cg_persistent_two_barrier;
    }
    snprintf(why, size,
             "auto: n = %lld <= cg.small_n; not single-reduction: %.80s; not "
             "two-barrier: %.80s; a CUDA graph",
             n, no1, no2);
    return &mpcgi_cg_graph;
}

int mpcgi_cg_variant_needs_rows(const mpcg_solver *s)
{
    const long req = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_VARIANT]);
    if (!s->on_device || s->need_block || mpcgi_solver_callbacks(s)) return 0;
    if (req == MPCGI_VARIANT_PERSISTENT_SINGLE || req == MPCGI_VARIANT_PERSISTENT_TWO_BARRIER)
        return 1;
    /* choose_auto's way to a persistent loop, as far as it is known before the plan */
    return req == MPCGI_VARIANT_AUTO && (long long)s->A->csr.n <= small_n(s);
}

int mpcgi_cg_variant_fuses_dot(const mpcg_solver *s)
{
    const long req = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_VARIANT]);
    if (!s->on_device || s->need_block || s->precision != MPCG_PRECISION_FP64 ||
        mpcgi_solver_callbacks(s))
        return 0;
    if (req != MPCGI_VARIANT_AUTO && req != MPCGI_VARIANT_LAUNCHED && req != MPCGI_VARIANT_GRAPH)
        return 0;
    return !mpcgi_cg_variant_needs_rows(s);
}

mpcg_status mpcgi_cg_variant_setup(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    long req = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_VARIANT]);
    const mpcgi_cg_variant *v;
    char why[128];
    if (mpcgi_solver_callbacks(s)) { /* the caller's M or callback(x_k): the host loop, fp64 */
        MPCG_ENSURE(ctx, s->precision == MPCG_PRECISION_FP64, MPCG_ERR_NOT_SUPPORTED,
                    "a preconditioner or iterate callback runs in fp64 (precision %s asked)",
                    mpcg_precision_name(s->precision));
        MPCG_ENSURE(ctx, req == MPCGI_VARIANT_AUTO || variants[req] == &mpcgi_cg_host,
                    MPCG_ERR_NOT_SUPPORTED,
                    "cg.variant=%s cannot run here: a preconditioner or iterate callback runs in "
                    "the host loop (cg.variant=host or auto)",
                    variants[req]->name);
    }
    if (req == MPCGI_VARIANT_AUTO) {
        v = choose_auto(s, s->variant_reason, sizeof s->variant_reason);
    } else {
        v = variants[req];
        MPCG_ENSURE(ctx, v->wanted(s, 1, why, sizeof why), MPCG_ERR_NOT_SUPPORTED,
                    "cg.variant=%s cannot run here: %s", v->name, why);
        snprintf(s->variant_reason, sizeof s->variant_reason, "cg.variant=%s (the option)",
                 v->name);
    }
    s->variant = v;
    mpcg_status st = v->setup(s);
    if (st != MPCG_SUCCESS) {
        v->teardown(s);
        s->variant = NULL;
        return st;
    }
    mpcgi_log(ctx, MPCG_LOG_DEBUG, "CG variant %s (%s)", v->name, s->variant_reason);
    return MPCG_SUCCESS;
}

void mpcgi_cg_variant_teardown(mpcg_solver *s)
{
    if (s->variant) s->variant->teardown(s);
    s->variant = NULL;
}
