/* solver/cg_loops.c: the persistent-loop variants (single-reduction, two-barrier) over the row
 * functor a plan exports: whether they can run, their setup and their launch */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/matrix.h"
#include "solver/cg_fused.h"
#include "solver/cg_persistent.h"
#include "solver/cg_variants.h"
#include "solver/options.h"
#include "solver/solver.h"

/* The loops' precision (solver/cg_persistent.h) for iterations in `work`: fp64, or fp32
 * vectors and values (hi in a mixed solve) with the fp32 iterate (fp32) or the fp64 one (mixed).
 * The loop is set up in the solve's main precision (s->work). */
static int loop_prec_of(const mpcg_solver *s, mpcg_precision work)
{
    if (work == MPCG_PRECISION_FP64) return MPCGI_LOOP_FP64;
    return s->precision == MPCG_PRECISION_MIXED ? MPCGI_LOOP_MIXED : MPCGI_LOOP_FP32;
}

static int loop_prec(const mpcg_solver *s)
{
    return loop_prec_of(s, s->work);
}

/* The preconditioner's fused form in the loop's precision (MPCGI_PC_FUSED_NONE without one). */
static int loop_pk(const mpcg_solver *s)
{
    mpcgi_pc_fused M = {0};
    if (!s->pc) return MPCGI_PC_FUSED_NONE;
    if (mpcgi_precond_fused(s->pc, s->work, &M) != MPCG_SUCCESS) return MPCGI_PC_FUSED_APPLY;
    return M.kind;
}

/* The plan's rows (spmv/rows.h) over the values the iteration works with (s->work: fp64, or
 * fp32 in fp32 and mixed solves) into s->loop.rows, or 0 and why. */
static int rows_of(mpcg_solver *s, char *why, size_t size)
{
    if (!mpcgi_cg_gpu_wanted(s, 0, why, size)) return 0;
    if (mpcgi_spmv_rows(s->plan, s->work, &s->loop.rows) == MPCG_SUCCESS) return 1;
    snprintf(why, size, "backend %s exports no %s rows for this plan (spmv/rows.h)",
             s->plan->ops->name, mpcg_precision_name(s->work));
    return 0;
}

/* The single-reduction loop: the plan's rows, a block's rows in shared memory and, unless asked
 * for by name, at most 32 entries a thread an iteration. */
static int single_wanted(mpcg_solver *s, int asked, char *why, size_t size)
{
    if (s->pc_type != MPCG_PRECOND_NONE) {
        snprintf(why, size,
                 "the single-reduction loop runs without a preconditioner (PCG: the "
                 "two-barrier loop, or launched kernels)");
        return 0;
    }
    if (!rows_of(s, why, size)) return 0;
    int g = mpcgi_cg_loop1_grid(&s->loop.rows, loop_prec(s), mpcgi_gpu_of(s->ctx)->id, asked,
                                &s->loop.rb, &s->loop.width);
    s->loop.grid = g > 0 ? g : 0;
    if (g > 0) return 1;
    snprintf(why, size, "%s", mpcgi_loop_why(-g));
    return 0;
}

/* The two-barrier loop: the plan's rows (adaptive: its uniform path), cg.persistent_blocks
 * blocks per SM where they fit, at most MPCGI_CG_BLOCKS / 2 (the partials hold three sets of
 * that many: p.q, r.r and PCG's r.z). */
static int two_barrier_wanted(mpcg_solver *s, int asked, char *why, size_t size)
{
    (void)asked;
    if (!rows_of(s, why, size)) return 0;
    long per_sm =
        mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_PERSISTENT_BLOCKS]);
    int g = mpcgi_cg_loop2_grid(&s->loop.rows, loop_prec(s), loop_pk(s), mpcgi_gpu_of(s->ctx)->id,
                                (int)per_sm, MPCGI_CG_BLOCKS / 2);
    s->loop.grid = g > 0 ? g : 0;
    if (g > 0) return 1;
    snprintf(why, size, "%s", mpcgi_loop_why(-g));
    return 0;
}

/* The device state, then 9 n values of the vectors' type (double, or float in fp32 and mixed
 * solves): the single-reduction loop's two record sets of 4 n, the two-barrier loop's second
 * direction buffer. The loop's precision is that of s->work at setup (a mixed solve's fp32). */
static mpcg_status loop_setup(mpcg_solver *s)
{
    int64_t n = s->A->csr.n;
    size_t e = s->work == MPCG_PRECISION_FP64 ? sizeof(double) : sizeof(float);
    s->loop.prec = loop_prec(s);
    MPCG_CHECK(s->ctx, mpcgi_cg_fused_setup(s));
    MPCG_CHECK(s->ctx, mpcgi_device_alloc(s->ctx, (size_t)n * 9 * e, &s->fused->rws));
    s->fused->p2 = (char *)s->fused->rws + (size_t)n * 8 * e;
    return MPCG_SUCCESS;
}

static mpcgi_cg_loop loop_args(const mpcg_solver *s, int64_t iters)
{
    const struct mpcgi_cg_fused *f = s->fused;
    return (mpcgi_cg_loop){.p = {s->p, f->p2},
                           .q = s->q,
                           .r = s->r,
                           .rws = f->rws,
                           .st = f->st,
                           .partial = f->partial,
                           .iters = iters};
}

/*
 * One cooperative launch runs the window (solver/cg_persistent.cu). A segment in another
 * precision than the loop's (a mixed solve's fp64 head and finish: the loop and its rows are
 * fp32) runs the launched kernels instead, as the graph's enqueue does. They leave what the
 * loops' resume expects (core/cg_kernels.h, mpcgi_cg_loop): par = 0 (as state_put set it; no
 * kernel changes it) and p_k, the direction of the last iteration, in s->p = p[0], which the
 * mixed driver demotes to fp32 in place beside r after the head; the fp32 segment's start then
 * sets rr, beta (kept direction) and primed = 0, and the loop forms r + beta p_k itself.
 */
static mpcg_status single_enqueue(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters)
{
    if (loop_prec_of(s, g->work) != s->loop.prec) return mpcgi_cg_launched_enqueue(s, g, iters);
    mpcgi_cg_loop c = loop_args(s, iters);
    MPCG_LAUNCH(s->ctx, mpcgi_cg_loop1(mpcgi_device_stream(s->ctx), &s->loop.rows, s->loop.prec,
                                       s->loop.grid, s->loop.rb, s->loop.width, &c));
    return MPCG_SUCCESS;
}

static mpcg_status two_barrier_enqueue(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters)
{
    if (loop_prec_of(s, g->work) != s->loop.prec) /* a mixed solve's fp64 segment */
        return mpcgi_cg_launched_enqueue(s, g, iters);
    mpcgi_cg_loop c = loop_args(s, iters);
    const int f32 = s->loop.prec != MPCGI_LOOP_FP64;
    void *z = s->pc ? (f32 ? s->zw : (void *)s->z) : NULL;
    MPCG_LAUNCH(s->ctx, mpcgi_cg_loop2(mpcgi_device_stream(s->ctx), &s->loop.rows, s->loop.prec,
                                       s->loop.grid, &c, &s->fused->pcf[f32], z));
    return MPCG_SUCCESS;
}

/* After new matrix values: the rows hold the plan's arrays, and a device view's plan may read
 * the caller's new array in place (cusparse on mpcg_matrix_update_values_device), so read them
 * again in the loop's precision (rows_of's at setup). */
static mpcg_status loop_refresh(mpcg_solver *s)
{
    mpcg_precision prec =
        s->loop.prec == MPCGI_LOOP_FP64 ? MPCG_PRECISION_FP64 : MPCG_PRECISION_FP32;
    MPCG_CHECK(s->ctx, mpcgi_spmv_rows(s->plan, prec, &s->loop.rows));
    return MPCG_SUCCESS;
}

/* One record written and the gathers: 48 B per row beside the matrix bytes (which come from
 * shared memory after the first iteration of a window); fp32 records: 24 B (x stays in shared
 * memory, so the mixed solve's fp64 x adds nothing). */
static double single_vector_bytes(const mpcg_solver *s)
{
    return s->work == MPCG_PRECISION_FP64 ? 48.0 : 24.0;
}

/* d, q, x, r: A + 80 B per row; fp32: 40; mixed (fp64 x): 48 (solver/cg_persistent.cu); a
 * preconditioner's bytes beside them. */
static double two_barrier_vector_bytes(const mpcg_solver *s)
{
    const double w = s->work == MPCG_PRECISION_FP64 ? 8.0 : 4.0;
    double b = s->work == MPCG_PRECISION_FP64         ? 80.0
               : s->precision == MPCG_PRECISION_MIXED ? 48.0
                                                      : 40.0;
    if (!s->fused || !s->pc) return b;
    /* PCG (solver/cg_persistent.cu): the diagonal read; the blocks' z written and up to nb
     * values of their inverses a row (nb the largest block) */
    const mpcgi_pc_fused *M = &s->fused->pcf[s->work != MPCG_PRECISION_FP64];
    if (M->kind == MPCGI_PC_FUSED_DIAG) return b + w;
    return b + w * (1.0 + (double)M->max_block);
}

const mpcgi_cg_variant mpcgi_cg_persistent_single = {
    .name = "persistent-single",
    .wanted = single_wanted,
    .setup = loop_setup,
    .refresh = loop_refresh,
    .run = mpcgi_cg_run_fused,
    .enqueue = single_enqueue,
    .stops_itself = 1,
    .resume = mpcgi_cg_loop_resume, /* the loop forms r + beta p_k (core/cg_kernels.h) */
    .vector_bytes = single_vector_bytes,
    .teardown = mpcgi_cg_fused_teardown,
};

const mpcgi_cg_variant mpcgi_cg_persistent_two_barrier = {
    .name = "persistent-two-barrier",
    .wanted = two_barrier_wanted,
    .setup = loop_setup,
    .refresh = loop_refresh,
    .run = mpcgi_cg_run_fused,
    .enqueue = two_barrier_enqueue,
    .stops_itself = 1,
    .resume = mpcgi_cg_loop_resume, /* the loop forms r + beta p[par] (core/cg_kernels.h) */
    .vector_bytes = two_barrier_vector_bytes,
    .teardown = mpcgi_cg_fused_teardown,
};
