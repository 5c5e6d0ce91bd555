/* solver/cg_fused.c: CG on the GPU with its scalars on the device: the fused loop, and the
 * launched and graph variants (three fused kernels an iteration) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/matrix.h"
#include "precond/precond.h"
#include "solver/cg_fused.h"
#include "solver/cg_variants.h"
#include "solver/options.h"
#include "solver/pcg_kernels.h"
#include "solver/solver.h"

/*
 * The host queues a window of K iterations without waiting (the variant's enqueue), then reads
 * the device state once (docs/solver.md, "The GPU iteration"). Kernels do nothing once the
 * device has stopped, so x is never updated past the stopping iteration and the iteration count
 * is exact.
 */

/* Iterations per graph launch when K is adaptive or above K_MAX. */
#define GRAPH_ITERS 8
/* The adaptive K: first window, and the largest. */
#define K_FIRST 4
#define K_MAX 64
/* The adaptive K of a variant that stops itself (the persistent loops), every window: it
 * bounds one launch's length, and the host's reads of the state to one per K_LOOP iterations. */
#define K_LOOP 1024

/* The adaptive window: K, and the residual at the previous check for the decay rate. */
typedef struct window {
    int64_t K;
    int64_t k_last;
    double log_r_last; /* log ||r|| */
} window;

/* ---------------------------------------------------------------- one iteration */

/* 1 when the segment runs on fp32 vectors (fp32 solves, mixed ones' fp32 segment). */
static int iter_f32(const mpcgi_cg_seg *g)
{
    return g->work != MPCG_PRECISION_FP64;
}

/* z of the preconditioned iteration in its precision (CG: r itself). */
static void *z_of(const mpcg_solver *s, const mpcgi_cg_seg *g)
{
    if (!s->pc) return s->r;
    return iter_f32(g) ? s->zw : (void *)s->z;
}

/* q = A p and p.q: one pass where the plan has apply_dot (fp64), else the product and a dot. */
static mpcg_status product(mpcg_solver *s, const mpcgi_cg_seg *g, void *stream, int64_t n)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    if (!iter_f32(g) && f->fused_dot)
        return mpcgi_spmv_apply_dot(ctx, s->plan, s->p, s->q, &f->st->pq, &f->st->stop);
    MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, mpcgi_cg_apply_precision(s, g), s->p, s->q));
    if (iter_f32(g))
        MPCG_LAUNCH(ctx, mpcgi_cg_dot_pq_f32(stream, n, s->p, s->q, f->st, f->partial));
    else
        MPCG_LAUNCH(ctx, mpcgi_cg_dot_pq(stream, n, s->p, s->q, f->st, f->partial));
    return MPCG_SUCCESS;
}

/* x += alpha p where pending, p = z + beta p: the iterate in fp64 (fp64, mixed) or fp32. */
static mpcg_status update_p(mpcg_solver *s, const mpcgi_cg_seg *g, void *stream, int64_t n,
                            const void *z)
{
    const mpcgi_cg_state *st = s->fused->st;
    if (!iter_f32(g))
        MPCG_LAUNCH(s->ctx, mpcgi_cg_update_p(stream, n, z, s->p, st));
    else if (s->precision == MPCG_PRECISION_MIXED)
        MPCG_LAUNCH(s->ctx, mpcgi_cg_update_p_f32x64(stream, n, z, s->p, st));
    else
        MPCG_LAUNCH(s->ctx, mpcgi_cg_update_p_f32(stream, n, z, s->p, st));
    return MPCG_SUCCESS;
}

/* z = M^-1 r by the preconditioner's own apply (its kernels on the stream, in the iteration's
 * precision; chebyshev's products through the plan). */
static mpcg_status pc_apply(mpcg_solver *s, const mpcgi_cg_seg *g, const void *r, void *z)
{
    const mpcg_precision prec = iter_f32(g) ? MPCG_PRECISION_FP32 : MPCG_PRECISION_FP64;
    return mpcgi_precond_apply(s->ctx, s->pc, prec, g->V, mpcgi_pcg_spmv, s, r, z, s->pc_work);
}

/* The residual update: CG's r and r.r; PCG's r (or z) with z = M^-1 r and both sums, fused
 * where the preconditioner has a fused form, else the update, the apply and r.z. */
static mpcg_status update_r(mpcg_solver *s, const mpcgi_cg_seg *g, void *stream, int64_t n, void *z)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    const int f32 = iter_f32(g);
    const mpcgi_pc_fused *M = &f->pcf[f32];
    if (!s->pc) {
        if (f32)
            MPCG_LAUNCH(ctx, mpcgi_cg_update_r_f32(stream, n, s->q, s->r, f->st, f->partial));
        else
            MPCG_LAUNCH(ctx, mpcgi_cg_update_r(stream, n, s->q, s->r, f->st, f->partial));
    } else if (M->kind != MPCGI_PC_FUSED_APPLY) {
        MPCG_LAUNCH(ctx, mpcgi_pcg_fused_update(stream, f32, M, s->q, s->r, z, f->st, f->partial));
    } else {
        MPCG_LAUNCH(ctx, mpcgi_pcg_update_r(stream, f32, n, s->q, s->r, f->st, f->partial));
        MPCG_CHECK(ctx, pc_apply(s, g, s->r, z)); /* z = M^-1 r */
        MPCG_LAUNCH(ctx, mpcgi_pcg_dot_rz(stream, f32, n, s->r, z, f->st, f->partial));
    }
    return MPCG_SUCCESS;
}

/* One iteration: q = A p and p.q, the residual update (with z = M^-1 r), x and p; three kernels
 * for CG and the fused preconditioners where the plan has apply_dot (docs/solver.md's table),
 * queued on the context's stream. */
static mpcg_status iteration(mpcg_solver *s, const mpcgi_cg_seg *g)
{
    void *stream = mpcgi_device_stream(s->ctx);
    const int64_t n = s->A->csr.n;
    void *z = z_of(s, g);
    MPCG_CHECK(s->ctx, product(s, g, stream, n));     /* q = A p, p.q */
    MPCG_CHECK(s->ctx, update_r(s, g, stream, n, z)); /* r, z = M^-1 r, r.r, r.z */
    return update_p(s, g, stream, n, z);              /* x += alpha p, p = z + beta p */
}

/* launched: `iters` iterations one by one */
mpcg_status mpcgi_cg_launched_enqueue(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters)
{
    for (; iters > 0; iters--)
        MPCG_CHECK(s->ctx, iteration(s, g));
    return MPCG_SUCCESS;
}

/* graph: whole graph launches first, the rest one by one; a segment in another precision than
 * the captured one (a mixed solve's fp64 head and finish) runs the launched kernels */
static mpcg_status graph_enqueue(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters)
{
    struct mpcgi_cg_fused *f = s->fused;
    cudaStream_t stream = mpcgi_gpu_of(s->ctx)->stream;
    for (; f->graph && (int)g->work == f->graph_work && iters >= f->graph_iters;
         iters -= f->graph_iters)
        MPCG_CUDA(s->ctx, cudaGraphLaunch(f->graph, stream));
    return mpcgi_cg_launched_enqueue(s, g, iters);
}

/* ---------------------------------------------------------------- the device state */

/* The mirror to the device (no wait). */
static mpcg_status state_send(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    MPCG_CUDA(s->ctx, cudaMemcpyAsync(f->st, f->mirror, sizeof *f->st, cudaMemcpyHostToDevice,
                                      mpcgi_gpu_of(s->ctx)->stream));
    return MPCG_SUCCESS;
}

/* Start a solve: x, rr = r.r, the first segment's stop threshold, k = 0, the limit; p = r is
 * in p[0] and beta = 0, so a path that forms r + beta p takes r. */
static mpcg_status state_put(mpcg_solver *s, const mpcgi_cg_args *a, double rr, double threshold)
{
    *s->fused->mirror = (mpcgi_cg_state){
        .x = a->xw, .rr = rr, .rr_new = rr, .threshold = threshold, .kmax = a->maxit};
    return state_send(s);
}

static mpcg_status pcg_restart(mpcg_solver *s, const mpcgi_cg_seg *g, int form_p);

/* PCG's resume: rr keeps the r.z of the last iteration (the device's, read at the check, or the
 * segment before's put by the start); the host's beta only says whether to keep the direction;
 * the restart forms z and the sums. */
static mpcg_status pcg_resume(mpcg_solver *s, const mpcgi_cg_seg *g, double beta, double threshold,
                              int form_p)
{
    mpcgi_cg_state *m = s->fused->mirror;
    m->threshold = threshold;
    m->stop = MPCGI_CG_RUNNING;
    m->keep = beta != 0.0;
    m->xpend = 0;
    m->primed = 0;
    if (!m->keep || form_p) m->par = 0; /* p = z (or z + beta p) in p[0] */
    MPCG_CHECK(s->ctx, state_send(s));
    return pcg_restart(s, g, form_p);
}

mpcg_status mpcgi_cg_loop_resume(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, double beta,
                                 double threshold)
{
    mpcgi_cg_state *m = s->fused->mirror;
    if (s->pc) return pcg_resume(s, g, beta, threshold, 0); /* the loop forms z + beta p */
    m->rr = rr;
    m->threshold = threshold;
    m->stop = MPCGI_CG_RUNNING;
    m->beta = beta;
    m->xpend = 0;
    m->primed = 0;
    return state_send(s);
}

/* PCG after the state went to the device (a start, or a resume from the host's r): z = M^-1 r,
 * r.z and r.r there, p = z, or where the state keeps the direction beta and, with form_p, p = z
 * + beta p (the two-barrier loop forms it itself). */
static mpcg_status pcg_restart(mpcg_solver *s, const mpcgi_cg_seg *g, int form_p)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    void *stream = mpcgi_device_stream(ctx), *z = z_of(s, g);
    const int f32 = iter_f32(g);
    const int64_t n = s->A->csr.n;
    const mpcgi_pc_fused *M = &f->pcf[f32];
    if (!s->pc) return MPCG_SUCCESS;
    f->pc_starts++;
    if (M->kind != MPCGI_PC_FUSED_APPLY) {
        MPCG_LAUNCH(ctx, mpcgi_pcg_fused_restart(stream, f32, M, s->r, z, s->p, f->st, f->partial));
    } else {
        MPCG_CHECK(ctx, pc_apply(s, g, s->r, z)); /* z = M^-1 r */
        MPCG_LAUNCH(ctx, mpcgi_pcg_restart_dot(stream, f32, n, s->r, z, s->p, f->st, f->partial));
    }
    if (form_p && f->mirror->keep) MPCG_CHECK(ctx, update_p(s, g, stream, n, z)); /* z + beta p */
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_cg_fused_resume(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, double beta,
                                  double threshold)
{
    if (s->pc) return pcg_resume(s, g, beta, threshold, 1);
    MPCG_CHECK(s->ctx, mpcgi_cg_direction(s, g, beta)); /* p = r + beta p: the next direction */
    s->fused->mirror->par = 0;
    return mpcgi_cg_loop_resume(s, g, rr, 0.0, threshold); /* p as it is */
}

/* Wait for the queued iterations and read the state: the one round trip of a window. */
static mpcg_status state_get(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    cudaStream_t stream = mpcgi_gpu_of(s->ctx)->stream;
    MPCG_CUDA(s->ctx,
              cudaMemcpyAsync(f->mirror, f->st, sizeof *f->st, cudaMemcpyDeviceToHost, stream));
    MPCG_CUDA(s->ctx, cudaStreamSynchronize(stream));
    return MPCG_SUCCESS;
}

static mpcg_reason stop_reason(int stop)
{
    switch (stop) {
    case MPCGI_CG_STOP_MAX_ITER: return MPCG_DIVERGED_MAX_ITER;
    case MPCGI_CG_STOP_NAN: return MPCG_DIVERGED_NAN;
    case MPCGI_CG_STOP_INDEFINITE: return MPCG_DIVERGED_INDEFINITE_MATRIX;
    case MPCGI_CG_STOP_BREAKDOWN: return MPCG_DIVERGED_BREAKDOWN;
    case MPCGI_CG_STOP_INDEFINITE_PC: return MPCG_DIVERGED_INDEFINITE_PC;
    default: return MPCG_REASON_NONE;
    }
}

/* ---------------------------------------------------------------- the check interval */

/* The adaptive K of a variant that stops itself is K_LOOP, unless the host is to read the
 * residual as the solve goes (history, progress): then the windows grow as for the launched
 * kernels, and the history keeps their entries. Each window of a persistent loop is a launch,
 * its matrix loaded again into shared memory, and a round trip (what that costs a small
 * system: docs/solver.md, "K"). A segment in another precision than the loop's (a mixed
 * solve's fp64 head and finish) runs the launched kernels, whose windows grow as theirs, and so
 * do a mixed solve's fp32 iterations in the loop, for the stall rule. */
static int loop_windows(const mpcg_solver *s, const mpcgi_cg_seg *g, const mpcgi_cg_track *tr)
{
    /* the stall rule of a mixed solve's fp32 segment reads the residual where the host does:
     * windows of K_LOOP would let a stalled fp32 loop run a thousand iterations before it is
     * seen (msc04515 with Jacobi: the fp64 finish at 1,021 against 29 with the graph) */
    const int sampled = g->kind == MPCGI_SEG_MIXED && tr->stall_window > 0;
    return s->variant->stops_itself && g->work == s->work && !sampled && !s->hist.on &&
           !s->progress;
}

/* Iterations of the next window: up to the next multiple of the monitor interval when there is
 * a monitor, else the fixed K or the adaptive one; never past maxit, except that the adaptive K
 * is rounded up to whole graph launches (the device stops at the limit itself). */
static int64_t window_size(const mpcg_solver *s, const mpcgi_cg_seg *g, const mpcgi_cg_track *tr,
                           const window *w, int64_t k, int64_t maxit)
{
    int64_t G = s->fused->graph_iters;
    int64_t fixed = mpcgi_solver_check_interval(s);
    int64_t K = s->monitor               ? s->monitor_every - k % s->monitor_every
                : fixed > 0              ? fixed
                : loop_windows(s, g, tr) ? K_LOOP
                                         : w->K;
    if (G > 0 && !s->monitor && fixed == 0) return (K + G - 1) / G * G;
    return K < maxit - k ? K : maxit - k;
}

/* Remember the residual of a check (the start, or a restart from the true residual). */
static void window_note(window *w, int64_t k, double rr)
{
    w->k_last = k;
    w->log_r_last = 0.5 * log(rr);
}

/* After a window that did not stop: twice K (at most K_MAX), or less near the end: half the
 * iterations still needed at the decay rate of the last window (at least 1), so the windows
 * close in on the stopping iteration and few queued iterations run empty after it. */
static void window_grow(window *w, int64_t k, double rr, double threshold)
{
    double log_r = 0.5 * log(rr);
    int64_t next = 2 * w->K;
    if (k > w->k_last && log_r < w->log_r_last) {
        double rate = (log_r - w->log_r_last) / (double)(k - w->k_last); /* < 0 */
        double half_left = 0.5 * (log(threshold) - log_r) / rate;
        if (half_left < (double)next) next = half_left < 1.0 ? 1 : (int64_t)ceil(half_left);
    }
    w->K = next < K_MAX ? next : K_MAX;
    window_note(w, k, rr);
}

/* ---------------------------------------------------------------- the loop */

/*
 * Memory traffic per iteration with fp64 vectors (bytes per row, A = matrix bytes per row), the
 * launched and graph variants:
 *   q = A p, pq = p.q (apply_dot): A + 16 | r -= alpha q, rr = r.r: 24 |
 *   x += alpha p, p = r + beta p: 40
 * total A + 80 bytes per row, 8 under the 3-kernel fused count of docs/roofline.md (A + 88, with
 * x updated beside r): x moves to the p update, which reads p anyway. A
 * backend without apply_dot adds a separate p.q: A + 96. fp32 (A from the fp32 values, 4-byte
 * vectors, no apply_dot): A32 + 48. With a preconditioner the residual update carries z = M^-1 r
 * (launched_vector_bytes has the counts). The persistent loops' counts are in
 * solver/cg_persistent.cu.
 */
mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    const mpcgi_cg_seg *g = &a->seg;
    const mpcgi_cg_state *h = s->fused->mirror; /* the device state at the last check */
    window w = {.K = K_FIRST};
    int64_t k = 0;
    double rr, beta;
    mpcgi_cg_track tr;
    mpcg_reason reason;

    const int64_t pc_before = s->pc_spmvs; /* the applies of the solve's earlier segments */
    s->fused->pc_starts = 0;
    MPCG_CHECK(ctx, mpcgi_cg_start(s, a, &rr, &tr, info, &reason)); /* r, rr, p = r */
    if (g->resume) {
        /* from the segment before's r (the true residual) and direction: PCG keeps its r.z in
         * the state, as at a check; the variant forms z + beta p */
        MPCG_CHECK(ctx, state_put(s, a, s->pc ? g->rz : rr, tr.threshold));
        MPCG_CHECK(ctx, s->variant->resume(s, g, rr, g->beta, tr.threshold));
    } else {
        MPCG_CHECK(ctx, state_put(s, a, rr, tr.threshold)); /* scalars to device */
        if (reason == MPCG_REASON_NONE && !tr.next)
            MPCG_CHECK(ctx, pcg_restart(s, g, 1)); /* PCG: z, p = z, r.z */
    }
    window_note(&w, 0, rr);
    while (reason == MPCG_REASON_NONE && !tr.next && k < a->maxit) {
        const int64_t K = window_size(s, g, &tr, &w, k, a->maxit);
        mpcgi_log(ctx, MPCG_LOG_DEBUG, "CG (%s): a window of %lld iterations from %lld",
                  s->variant->name, (long long)K, (long long)k);
        MPCG_CHECK(ctx, s->variant->enqueue(s, g, K)); /* no wait */
        MPCG_CHECK(ctx, state_get(s));                 /* wait; read k, rr, stop */
        if (h->k > k) MPCG_CHECK(ctx, mpcgi_cg_monitor(s, a, h->k, sqrt(h->rr_new) / a->bnorm));
        k = h->k;
        rr = s->pc ? h->rr_new : h->rr; /* PCG: rr holds r.z */
        if (h->stop == MPCGI_CG_RUNNING && !mpcgi_mixed_stalled(a, &tr, k, sqrt(h->rr_new))) {
            window_grow(&w, k, rr, h->threshold);
        } else if (h->stop != MPCGI_CG_RUNNING && h->stop != MPCGI_CG_STOP_CONVERGED) {
            reason = stop_reason(h->stop); /* max_iter, NaN, indefinite, breakdown */
        } else {
            /* the recurrence reached the threshold, or a mixed segment stalled: the true
             * residual decides (solver/cg.c) */
            double rr_old = h->beta > 0.0 ? h->rr / h->beta : INFINITY; /* r.r before the step */
            MPCG_CHECK(ctx, mpcgi_cg_check(s, a, k, rr_old, &rr, &beta, &tr, info, &reason));
            if (tr.next) a->end->rz = h->rr; /* PCG: the next segment's r.z (as a resume) */
            if (reason == MPCG_REASON_NONE && !tr.next) {
                /* r = b - A x, rr = r.r, p = r + beta p */
                MPCG_CHECK(ctx, s->variant->resume(s, g, rr, beta, tr.threshold));
                window_note(&w, k, rr);
            }
        }
    }
    /* the applies' products: one apply an iteration and a start (a graph replays its captured
     * applies, so the host's count of calls would not tell), beside the earlier segments' */
    if (s->pc) s->pc_spmvs = pc_before + (k + s->fused->pc_starts) * s->pc->apply_spmvs;
    return mpcgi_cg_finish(s, a, rr, k, reason, &tr, info);
}

/* ---------------------------------------------------------------- the device state */

mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f;
    size_t bytes = sizeof *f->st + 2 * MPCGI_CG_BLOCKS * sizeof(double); /* Jacobi PCG: 2 sums */
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *f, &f));
    s->fused = f; /* released by the variant's teardown, also on failure below */
    f->fused_dot = mpcgi_spmv_has_apply_dot(s->plan) && s->work == MPCG_PRECISION_FP64 &&
                   s->exact == MPCG_PRECISION_FP64;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes, &f->st));
    f->partial = (double *)(f->st + 1);
    MPCG_CUDA(ctx, cudaMemsetAsync(f->st, 0, bytes, mpcgi_gpu_of(ctx)->stream));
    MPCG_CUDA(ctx, cudaMallocHost((void **)&f->mirror, sizeof *f->mirror));
    if (!s->pc) return MPCG_SUCCESS;
    /* the fp64 form serves fp64 solves and a mixed solve's fp64 head; the fp32 form the fp32
     * iterations */
    MPCG_CHECK(ctx, mpcgi_precond_fused(s->pc, MPCG_PRECISION_FP64, &f->pcf[0]));
    if (s->precision != MPCG_PRECISION_FP64)
        MPCG_CHECK(ctx, mpcgi_precond_fused(s->pc, MPCG_PRECISION_FP32, &f->pcf[1]));
    return MPCG_SUCCESS;
}

void mpcgi_cg_fused_teardown(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    if (!f) return;
    /* teardown cannot report failures: the calls are unchecked */
    if (f->graph) (void)cudaGraphExecDestroy(f->graph);
    if (f->mirror) (void)cudaFreeHost(f->mirror);
    mpcgi_device_free(s->ctx, f->rws);
    mpcgi_device_free(s->ctx, f->st);
    mpcgi_host_free(f);
    s->fused = NULL;
}

int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s)
{
    return s->fused ? s->fused->graph_iters : 0;
}

/* ---------------------------------------------------------------- launched and graph */

/* The GPU variants need a GPU context. */
int mpcgi_cg_gpu_wanted(mpcg_solver *s, int asked, char *why, size_t size)
{
    (void)asked;
    if (s->on_device) return 1; /* every precision with every preconditioner */
    snprintf(why, size, "it needs a GPU context, and context %s runs on the CPU",
             s->ctx->device_name);
    return 0;
}

/* Vector bytes per row of an iteration of the launched kernels (mpcgi_cg_run_fused's count),
 * w the bytes of a vector value: CG A + 10 w with apply_dot (fp64 only), else A + 12 w, a mixed
 * solve's fp64 x 8 B more; PCG beside it: the diagonal 1 w (dinv read; the iteration keeps z
 * in r's place), the blocks 1 w (z written) and up to nb w of their inverses (nb the largest
 * block), an apply 2 w (r.z reads r and z) and the apply's own traffic (at least r read and z
 * written; chebyshev: its products, counted in info.precond_spmvs). */
static double launched_vector_bytes(const mpcg_solver *s)
{
    const double w = s->work == MPCG_PRECISION_FP64 ? 8.0 : 4.0;
    const int fused_dot = s->work == MPCG_PRECISION_FP64 && mpcgi_spmv_has_apply_dot(s->plan);
    double b = (fused_dot ? 10.0 : 12.0) * w;
    if (s->work != MPCG_PRECISION_FP64 && s->precision == MPCG_PRECISION_MIXED) b += 8.0;
    if (!s->fused || !s->pc) return b;
    const mpcgi_pc_fused *M = &s->fused->pcf[s->work != MPCG_PRECISION_FP64];
    switch (M->kind) {
    case MPCGI_PC_FUSED_DIAG: return b + w;
    case MPCGI_PC_FUSED_BLOCKS: return b + w * (1.0 + (double)M->max_block);
    default: return b + 4.0 * w;
    }
}

const mpcgi_cg_variant mpcgi_cg_launched = {
    .name = "launched",
    .wanted = mpcgi_cg_gpu_wanted,
    .setup = mpcgi_cg_fused_setup,
    .run = mpcgi_cg_run_fused,
    .enqueue = mpcgi_cg_launched_enqueue,
    .resume = mpcgi_cg_fused_resume,
    .vector_bytes = launched_vector_bytes,
    .teardown = mpcgi_cg_fused_teardown,
};

/* One SpMV before the capture, so a backend's lazy analysis (cuSPARSE's preprocess) runs
 * outside the graph. */
static mpcg_status warm_up(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    const mpcgi_cg_seg g = mpcgi_cg_seg_plain(s, s->work);
    MPCG_CHECK(ctx, s->V->zero(ctx, s->A->csr.n, s->p));
    if (f->fused_dot)
        MPCG_CHECK(ctx, mpcgi_spmv_apply_dot(ctx, s->plan, s->p, s->q, &f->st->pq, NULL));
    else
        MPCG_CHECK(ctx,
                   mpcgi_spmv_apply(ctx, s->plan, mpcgi_cg_apply_precision(s, &g), s->p, s->q));
    return MPCG_SUCCESS;
}

/* Capture a window of iterations (K for a fixed K <= K_MAX, else GRAPH_ITERS) on the context's
 * stream and instantiate it, in the precision of the solve's main iterations (s->work). */
static mpcg_status capture(mpcg_solver *s)
{
    const mpcgi_cg_seg g = mpcgi_cg_seg_plain(s, s->work);
    mpcg_context *ctx = s->ctx;
    cudaStream_t stream = mpcgi_gpu_of(ctx)->stream;
    cudaGraph_t graph = NULL;
    int64_t K = mpcgi_solver_check_interval(s), iters = K > 0 && K <= K_MAX ? K : GRAPH_ITERS;
    MPCG_CHECK(ctx, warm_up(s));
    MPCG_CUDA(ctx, cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    mpcg_status st = mpcgi_cg_launched_enqueue(s, &g, iters);
    cudaError_t e = cudaStreamEndCapture(stream, &graph); /* always leave capture mode */
    if (st == MPCG_SUCCESS) st = MPCGI_CUDA_STATUS(ctx, e);
    if (st == MPCG_SUCCESS)
        st = MPCGI_CUDA_STATUS(ctx, cudaGraphInstantiate(&s->fused->graph, graph, 0));
    if (graph) (void)cudaGraphDestroy(graph);
    if (st == MPCG_SUCCESS) s->fused->graph_iters = iters;
    s->fused->graph_work = (int)s->work;
    return st;
}

/* The graph. A capture that fails (a backend whose SpMV cannot be captured, a legacy stream) is
 * an error when cg.variant=graph asked for it; under auto the iterations are launched one by one
 * instead (the same results), and the variant and its reason say so. */
static mpcg_status graph_capture_or_launch(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    int had_error = ctx->err_set;
    size_t len = strlen(s->variant_reason);
    if (capture(s) == MPCG_SUCCESS) return MPCG_SUCCESS;
    MPCG_ENSURE(ctx,
                mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_CG_VARIANT]) ==
                    MPCGI_VARIANT_AUTO,
                MPCG_ERR_NOT_SUPPORTED, "cg.variant=graph: the CUDA graph capture failed");
    mpcgi_log(ctx, MPCG_LOG_WARN,
              "fused CG: no CUDA graph, iterations are launched one by one "
              "(%s)",
              ctx->err);
    if (!had_error) mpcg_clear_error(ctx);
    (void)cudaGetLastError();
    snprintf(s->variant_reason + len, sizeof s->variant_reason - len,
             ", the graph capture failed: launched");
    s->fused->graph = NULL;
    s->fused->graph_iters = 0;
    s->variant = &mpcgi_cg_launched;
    return MPCG_SUCCESS;
}

/* A graph holds the plan's launches: not those of a plan that waits for the host inside. */
static int graph_wanted(mpcg_solver *s, int asked, char *why, size_t size)
{
    if (!mpcgi_cg_gpu_wanted(s, asked, why, size)) return 0;
    if (!mpcgi_spmv_host_driven(s->plan)) return 1;
    snprintf(why, size,
             "the SpMV waits for the host inside (out-of-core): no CUDA graph can "
             "hold it");
    return 0;
}

static mpcg_status graph_setup(mpcg_solver *s)
{
    MPCG_CHECK(s->ctx, mpcgi_cg_fused_setup(s));
    return graph_capture_or_launch(s);
}

/* After mpcg_matrix_update_values: the graph holds the plan's launches, capture it again. */
static mpcg_status graph_refresh(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    if (!f || !f->graph) return MPCG_SUCCESS;
    (void)cudaGraphExecDestroy(f->graph);
    f->graph = NULL;
    f->graph_iters = 0;
    return graph_capture_or_launch(s);
}

const mpcgi_cg_variant mpcgi_cg_graph = {
    .name = "graph",
    .wanted = graph_wanted,
    .setup = graph_setup,
    .refresh = graph_refresh,
    .run = mpcgi_cg_run_fused,
    .enqueue = graph_enqueue,
    .resume = mpcgi_cg_fused_resume,
    .vector_bytes = launched_vector_bytes,
    .teardown = mpcgi_cg_fused_teardown,
};
