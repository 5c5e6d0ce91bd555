/* solver/cg_fused.c: CG on the GPU in three fused kernels per iteration, scalars on the device */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cg_kernels.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/matrix.h"
#include "solver/solver.h"

/*
 * The host queues a window of K iterations without waiting, then reads the device state once
 * (docs/solver.md, "The GPU iteration"). Kernels do nothing once the device has stopped, so x is
 * never updated past the stopping iteration and the iteration count is exact.
 */

/* Largest n whose window runs as one launch of the backend's persistent loop where it has one,
 * else as a CUDA graph (latency-bound sizes); MPCG_CG_LOOP=0/1 and MPCG_CG_GRAPH=0/1 at setup
 * turn either off, or on for any n. Above it the kernels are launched one by one: with
 * programmatic dependent launch (core/launch.cuh) that measured as fast as the graph or faster
 * (docs/solver.md). */
#define SMALL_MAX_N 200000
/* Iterations per graph launch when K is adaptive or above K_MAX. */
#define GRAPH_ITERS 8
/* The adaptive K: first window, and the largest. */
#define K_FIRST 4
#define K_MAX 64

/* How the iterations run: three kernels (four without apply_dot), launched one by one or, when
 * the graph is there, as a CUDA graph of them; the backend's direction + SpMV + dot then one
 * kernel (folded); or the backend's persistent loop. */
enum { PATH_KERNELS, PATH_FOLDED, PATH_LOOP };

struct mpcgi_cg_fused {
    mpcgi_cg_state *st;     /* device state, followed by the partials */
    double *partial;        /* MPCGI_CG_BLOCKS doubles on the device */
    mpcgi_cg_state *mirror; /* pinned host copy of *st as of the last check */
    int fused_dot;          /* the backend has apply_dot */
    cudaGraphExec_t graph;  /* graph_iters iterations, or NULL */
    int64_t graph_iters;
    int path;   /* PATH_* (PATH_KERNELS runs as a graph when `graph` is set) */
    double *p2;  /* the second direction buffer of the loop and the folded path */
    double *rws; /* the loop: 8 n doubles of records (core/cg_kernels.h), then p2 */
    int par;    /* folded path: the direction is p[par] (p[0] = s->p, p[1] = p2) */
};

/* The adaptive window: K, and the residual at the previous check for the decay rate. */
typedef struct window {
    int64_t K;
    int64_t k_last;
    double log_r_last; /* log ||r|| */
} window;

/* ---------------------------------------------------------------- one iteration */

/* q = A p and p.q, the r update with r.r, the x and p update: three kernels (four without a
 * fused apply_dot), queued on the context's stream. */
static mpcg_status iteration(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    void *stream = mpcgi_device_stream(ctx);
    int64_t n = s->A->csr.n;
    double *p = s->p, *q = s->q, *r = s->r;
    if (f->path == PATH_FOLDED) { /* p' = r + beta p, q = A p', pq = p'.q; x, r, rr */
        double *pin = f->par ? f->p2 : p, *pout = f->par ? p : f->p2;
        MPCG_CHECK(ctx, mpcgi_spmv_apply_direction_dot(ctx, s->plan, r, pin, &f->st->beta, pout, q,
                                                       &f->st->pq, &f->st->stop));
        MPCG_LAUNCH(ctx, mpcgi_cg_update_xr(stream, n, pout, q, r, f->st, f->partial));
        f->par ^= 1; /* right whenever the solve goes on: a stop ends it or restarts at p[0] */
        return MPCG_SUCCESS;
    }
    if (f->fused_dot) {
        MPCG_CHECK(ctx, mpcgi_spmv_apply_dot(ctx, s->plan, p, q, &f->st->pq, &f->st->stop));
    } else {
        MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, MPCG_PRECISION_FP64, p, q)); /* q = A p */
        MPCG_LAUNCH(ctx, mpcgi_cg_dot_pq(stream, n, p, q, f->st, f->partial));     /* pq = p.q */
    }
    MPCG_LAUNCH(ctx, mpcgi_cg_update_r(stream, n, q, r, f->st, f->partial)); /* r, rr */
    MPCG_LAUNCH(ctx, mpcgi_cg_update_p(stream, n, r, p, f->st)); /* x += a p, p = r + b p */
    return MPCG_SUCCESS;
}

/* Queue `iters` iterations: one launch of the persistent loop, or whole graph launches first and
 * the rest one by one. */
static mpcg_status enqueue(mpcg_solver *s, int64_t iters)
{
    struct mpcgi_cg_fused *f = s->fused;
    cudaStream_t stream = mpcgi_gpu_of(s->ctx)->stream;
    if (f->path == PATH_LOOP) {
        mpcgi_cg_loop c = {.p = {s->p, f->p2}, .q = s->q, .r = s->r, .rws = f->rws,
                           .st = f->st, .partial = f->partial, .iters = iters};
        return mpcgi_spmv_cg_loop(s->ctx, s->plan, &c);
    }
    for (; f->graph && iters >= f->graph_iters; iters -= f->graph_iters)
        MPCG_CUDA(s->ctx, cudaGraphLaunch(f->graph, stream));
    for (; iters > 0; iters--) MPCG_CHECK(s->ctx, iteration(s));
    return MPCG_SUCCESS;
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

/* Start a solve: x, rr = r.r, the stop threshold tol ||b||, k = 0, the limit; p = r is in
 * p[0] and beta = 0, so a path that forms r + beta p takes r. */
static mpcg_status state_put(mpcg_solver *s, const mpcgi_cg_args *a, double rr)
{
    *s->fused->mirror = (mpcgi_cg_state){
        .x = a->x, .rr = rr, .rr_new = rr, .threshold = s->tol * a->bnorm, .kmax = a->maxit};
    s->fused->par = 0;
    return state_send(s);
}

/* Go on after a residual replacement: rr of the true residual, p[0] = r, beta = 0, running. */
static mpcg_status state_restart(mpcg_solver *s, double rr)
{
    mpcgi_cg_state *m = s->fused->mirror;
    m->rr = rr;
    m->stop = MPCGI_CG_RUNNING;
    m->beta = 0;
    m->par = 0;
    m->xpend = 0;
    m->primed = 0;
    s->fused->par = 0;
    return state_send(s);
}

/* Wait for the queued iterations and read the state: the one round trip of a window. */
static mpcg_status state_get(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    cudaStream_t stream = mpcgi_gpu_of(s->ctx)->stream;
    MPCG_CUDA(s->ctx, cudaMemcpyAsync(f->mirror, f->st, sizeof *f->st, cudaMemcpyDeviceToHost,
                                      stream));
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
    default: return MPCG_REASON_NONE;
    }
}

/* ---------------------------------------------------------------- the check interval */

/* Iterations of the next window: up to the next multiple of the monitor interval when there is
 * a monitor, else the fixed K or the adaptive one; never past maxit, except that the adaptive K
 * is rounded up to whole graph launches (the device stops at the limit itself). */
static int64_t window_size(const mpcg_solver *s, const window *w, int64_t k, int64_t maxit)
{
    int64_t G = s->fused->graph_iters;
    int64_t K = s->monitor              ? s->monitor_every - k % s->monitor_every
                : s->check_interval > 0 ? s->check_interval
                                        : w->K;
    if (G > 0 && !s->monitor && s->check_interval == 0) return (K + G - 1) / G * G;
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
 * Memory traffic per iteration with fp64 vectors (bytes per row, A = matrix bytes per row):
 *   q = A p, pq = p.q (apply_dot): A + 16 | r -= alpha q, rr = r.r: 24 |
 *   x += alpha p, p = r + beta p: 40
 * total A + 80 bytes per row, 8 under the 3-kernel fused count of ref/anchors-performance.md
 * section 7 (A + 88, with x updated beside r): x moves to the p update, which reads p anyway. A
 * backend without apply_dot adds a separate p.q: A + 96. The folded path and the backend's
 * persistent loop form p inside the SpMV instead (apply_direction_dot reads r and the old p,
 * writes p and q: A + 32, then x, r, rr: 48): also A + 80.
 */
mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info)
{
    mpcg_context *ctx = s->ctx;
    const mpcgi_cg_state *h = s->fused->mirror; /* the device state at the last check */
    window w = {.K = K_FIRST};
    int64_t k = 0;
    double rr, last_true;
    mpcg_reason reason;

    MPCG_CHECK(ctx, mpcgi_cg_start(s, a, &rr, &last_true, info, &reason)); /* r, rr, p = r */
    MPCG_CHECK(ctx, state_put(s, a, rr));                                  /* scalars to device */
    window_note(&w, 0, rr);
    while (reason == MPCG_REASON_NONE && k < a->maxit) {
        MPCG_CHECK(ctx, enqueue(s, window_size(s, &w, k, a->maxit))); /* K iterations, no wait */
        MPCG_CHECK(ctx, state_get(s));                                /* wait; read k, rr, stop */
        if (h->k > k) mpcgi_cg_monitor(s, h->k, sqrt(h->rr_new) / a->bnorm);
        k = h->k;
        rr = h->rr;
        if (h->stop == MPCGI_CG_RUNNING) {
            window_grow(&w, k, rr, h->threshold);
        } else if (h->stop != MPCGI_CG_STOP_CONVERGED) {
            reason = stop_reason(h->stop); /* max_iter, NaN, indefinite, breakdown */
        } else {
            /* the recurrence reached tol: the true residual decides (solver/cg.c) */
            MPCG_CHECK(ctx, mpcgi_cg_check_true(s, a, &rr, &last_true, info, &reason));
            if (reason == MPCG_REASON_NONE) {
                MPCG_CHECK(ctx, state_restart(s, rr)); /* r, p = b - A x; rr = r.r */
                window_note(&w, k, rr);
            }
        }
    }
    return mpcgi_cg_finish(s, a, rr, k, reason, info);
}

/* ---------------------------------------------------------------- setup */

/* Whether the environment variable `name` (read at setup) is set to `value`. */
static int env_is(const char *name, const char *value)
{
    const char *env = getenv(name);
    return env && strcmp(env, value) == 0;
}

/* Whether the environment variable `name` turns a small-system path off (0), on for any n (1),
 * or leaves it to n <= SMALL_MAX_N (unset). */
static int small_path_wanted(const mpcg_solver *s, const char *name)
{
    if (env_is(name, "0")) return 0;
    return env_is(name, "1") || s->A->csr.n <= SMALL_MAX_N;
}

/* The backend's persistent loop, where it has one for this plan (MPCG_CG_LOOP). */
static int loop_wanted(mpcg_solver *s)
{
    return small_path_wanted(s, "MPCG_CG_LOOP") && mpcgi_spmv_has_cg_loop(s->ctx, s->plan);
}

/* The folded path where the backend has apply_direction_dot, only when MPCG_CG_FOLD=1 (read at
 * setup; it then comes before the graph): it saves 8 B per row but gathers two vectors for one,
 * and measured slower than the three kernels on the H100 (docs/solver.md). */
static int fold_wanted(const mpcg_solver *s)
{
    return mpcgi_spmv_has_apply_direction_dot(s->plan) && env_is("MPCG_CG_FOLD", "1");
}

/* Iterations per graph launch, or 0 for no graph (MPCG_CG_GRAPH). */
static int64_t graph_iters_wanted(const mpcg_solver *s)
{
    if (!small_path_wanted(s, "MPCG_CG_GRAPH")) return 0;
    return s->check_interval > 0 && s->check_interval <= K_MAX ? s->check_interval : GRAPH_ITERS;
}

/* One SpMV before the capture, so a backend's lazy analysis (cuSPARSE's preprocess) runs
 * outside the graph. */
static mpcg_status warm_up(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    struct mpcgi_cg_fused *f = s->fused;
    MPCG_CHECK(ctx, s->V->zero(ctx, s->A->csr.n, s->p));
    if (f->fused_dot)
        MPCG_CHECK(ctx, mpcgi_spmv_apply_dot(ctx, s->plan, s->p, s->q, &f->st->pq, NULL));
    else MPCG_CHECK(ctx, mpcgi_spmv_apply(ctx, s->plan, MPCG_PRECISION_FP64, s->p, s->q));
    return MPCG_SUCCESS;
}

/* Capture `iters` iterations on the context's stream and instantiate them. */
static mpcg_status capture(mpcg_solver *s, int64_t iters)
{
    mpcg_context *ctx = s->ctx;
    cudaStream_t stream = mpcgi_gpu_of(ctx)->stream;
    cudaGraph_t graph = NULL;
    mpcg_status st = MPCG_SUCCESS;
    MPCG_CHECK(ctx, warm_up(s));
    MPCG_CUDA(ctx, cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    st = enqueue(s, iters); /* no graph yet: one by one */
    cudaError_t e = cudaStreamEndCapture(stream, &graph); /* always leave capture mode */
    if (st == MPCG_SUCCESS) st = MPCGI_CUDA_STATUS(ctx, e);
    if (st == MPCG_SUCCESS)
        st = MPCGI_CUDA_STATUS(ctx, cudaGraphInstantiate(&s->fused->graph, graph, 0));
    if (graph) (void)cudaGraphDestroy(graph);
    if (st == MPCG_SUCCESS) s->fused->graph_iters = iters;
    return st;
}

/* The graph if wanted. A capture that fails (a backend whose SpMV cannot be captured, a legacy
 * stream) is not an error: the iterations are launched one by one, with the same results. */
static void graph_setup(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    int64_t iters = graph_iters_wanted(s);
    int had_error = ctx->err_set;
    if (iters == 0) return;
    if (capture(s, iters) == MPCG_SUCCESS) {
        mpcgi_log(ctx, MPCG_LOG_DEBUG, "fused CG: a CUDA graph of %lld iterations (n = %lld)",
                  (long long)iters, (long long)s->A->csr.n);
        return;
    }
    mpcgi_log(ctx, MPCG_LOG_WARN, "fused CG: no CUDA graph, iterations are launched one by one "
              "(%s)", ctx->err);
    if (!had_error) mpcg_clear_error(ctx);
    (void)cudaGetLastError();
    s->fused->graph = NULL;
    s->fused->graph_iters = 0;
}

mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s)
{
    mpcg_context *ctx = s->ctx;
    mpcg_status st = MPCG_SUCCESS;
    struct mpcgi_cg_fused *f;
    size_t bytes = sizeof *f->st + MPCGI_CG_BLOCKS * sizeof(double);
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, 1, sizeof *f, &f));
    s->fused = f;
    f->fused_dot = mpcgi_spmv_has_apply_dot(s->plan);
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes, &f->st));
    f->partial = (double *)(f->st + 1);
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(f->st, 0, bytes, mpcgi_gpu_of(ctx)->stream));
    MPCG_CUDA_GOTO(ctx, st, cudaMallocHost((void **)&f->mirror, sizeof *f->mirror));
    f->path = loop_wanted(s) ? PATH_LOOP : fold_wanted(s) ? PATH_FOLDED : PATH_KERNELS;
    if (f->path == PATH_KERNELS) {
        graph_setup(s); /* a graph if it works */
    } else if (f->path == PATH_FOLDED) {
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, (size_t)s->A->csr.n * sizeof(double), &f->p2));
    } else { /* the records of the single-reduction loop, then p2 of the two-barrier one */
        MPCG_TRY(ctx, st,
                 mpcgi_device_alloc(ctx, (size_t)s->A->csr.n * 9 * sizeof(double), &f->rws));
        f->p2 = f->rws + 8 * s->A->csr.n;
    }
    mpcgi_log(ctx, MPCG_LOG_DEBUG, "fused CG: the %s path (n = %lld)", mpcgi_cg_fused_path(s),
              (long long)s->A->csr.n);
done:
    if (st != MPCG_SUCCESS) mpcgi_cg_fused_teardown(s);
    return st;
}

mpcg_status mpcgi_cg_fused_refresh(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    if (!f || !f->graph) return MPCG_SUCCESS;
    (void)cudaGraphExecDestroy(f->graph);
    f->graph = NULL;
    f->graph_iters = 0;
    graph_setup(s);
    return MPCG_SUCCESS;
}

void mpcgi_cg_fused_teardown(mpcg_solver *s)
{
    struct mpcgi_cg_fused *f = s->fused;
    if (!f) return;
    /* teardown cannot report failures: the calls are unchecked */
    if (f->graph) (void)cudaGraphExecDestroy(f->graph);
    if (f->mirror) (void)cudaFreeHost(f->mirror);
    mpcgi_device_free(s->ctx, f->path == PATH_LOOP ? f->rws : f->p2);
    mpcgi_device_free(s->ctx, f->st);
    mpcgi_host_free(f);
    s->fused = NULL;
}

int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s)
{
    return s->fused ? s->fused->graph_iters : 0;
}

const char *mpcgi_cg_fused_path(const mpcg_solver *s)
{
    const struct mpcgi_cg_fused *f = s->fused;
    if (!f) return "none";
    switch (f->path) {
    case PATH_LOOP: return "persistent";
    case PATH_FOLDED: return "folded";
    default: return f->graph ? "graph" : "launched";
    }
}

double mpcgi_cg_fused_vector_bytes(const mpcg_solver *s)
{
    const struct mpcgi_cg_fused *f = s->fused;
    if (f && f->path == PATH_LOOP && s->plan->sizes.loop_row_bytes > 0)
        return s->plan->sizes.loop_row_bytes;
    if (f && (f->path == PATH_LOOP || f->path == PATH_FOLDED)) return 80.0;
    return mpcgi_spmv_has_apply_dot(s->plan) ? 80.0 : 96.0;
}
