/* solver/solver.h: the solver object and the CG loop */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_SOLVER_H
#define MPCG_SOLVER_SOLVER_H

#include <stdint.h>

#include "core/options.h"
#include "core/vec.h"
#include "mpcg.h"
#include "solver/history.h"
#include "spmv/rows.h"
#include "spmv/spmv.h"

#define MPCGI_SOLVER_MAGIC 0x736f6c76

struct mpcg_solver {
    unsigned magic;
    mpcg_context *ctx;
    mpcg_matrix *A;

    /* options */
    char spmv_name[32];
    mpcg_precision precision;
    mpcg_precond precond;    /* the preconditioner asked for (its parameters: the precond.*
                                options) */
    double tol;
    double atol;             /* absolute tolerance (0: none): ||b - A x|| <= max(tol ||b||, atol) */
    int64_t maxit; /* < 0: the default max(100, 10 n) */
    mpcg_guess guess;
    int64_t monitor_every;
    mpcg_monitor_fn monitor;
    void *monitor_user;
    mpcg_monitor_fn progress; /* mpcg_solver_set_progress: at every read of the residual */
    void *progress_user;
    mpcg_precond_fn pc_fn; /* the caller's M (mpcg_solver_set_precond_callback), or NULL */
    void *pc_fn_user;
    mpcg_iterate_fn iter_fn; /* the caller's view of x_k (mpcg_solver_set_iterate_callback) */
    void *iter_fn_user;
    mpcgi_history hist;      /* mpcg_solver_set_history (solver/history.h) */
    mpcgi_block_history bhist; /* a block solve's per-column histories and monitor */
    int error_if_not_converged;
    mpcgi_options opts;      /* MPCG_OPTIONS, then mpcg_solver_set_option (cg.check_interval
                                too: mpcg_solver_set_check_interval sets that key); read at setup */

    /* setup state */
    int setup_done;          /* cleared by option changes */
    uint64_t values_version; /* A->values_version the plan was built or updated for */
    double setup_time_s;     /* of the most recent setup */
    mpcgi_spmv_plan *plan;
    /* how the plan's backend was chosen (spmv/auto/auto.h; mpcg_solver_backend_choice) */
    mpcg_backend_choice choice;
    int need_block;          /* a block solve asked for a block product: auto tries only
                                backends with one (solver/block_cg.c) */
    mpcg_precision work;     /* what the solve's main iterations run in, set at setup and never
                                changed by a solve: FP64, or FP32 (fp32 and mixed solves; a
                                mixed solve's fp64 segments take theirs as an argument,
                                mpcgi_cg_seg) */
    mpcg_precision exact;    /* the values of true residuals b - A x: FP64, or MIXED (hi + lo,
                                mixed solves; also their fp64 finish's products) */
    const mpcgi_vec_ops *V;  /* host or device vector kernels of `work` (setup) */
    const mpcgi_vec_ops *V64; /* the fp64 ones, for b, x and the true residual (V in fp64) */
    int64_t true_residuals;  /* products with the `exact` values in the running solve */
    int on_device;
    void *r, *p, *q;         /* work vectors of V's type where V computes (mixed: n doubles
                                each, for the fp64 finish) */
    double *t;               /* fp64 true-residual scratch */
    mpcg_precond pc_type;    /* the one set up (precond, or what AUTO chose; NONE: pc NULL) */
    char pc_why[160];        /* AUTO's choice in words, else "" */
    struct mpcgi_precond *pc; /* M of a preconditioned solve (precond/precond.h), or NULL */
    double *z, *pc_work;     /* z = M^-1 r (n doubles) and the apply's workspace (2 n) */
    double *cb_host;         /* GPU contexts with a callback: the host copies of r and z, or
                                of x (2 n doubles; solver/callback.c) */
    void *zw;                /* fp32 and mixed solves: z in V's type (n doubles' room) */
    int64_t pc_spmvs;        /* products with A in the running solve's applies */
    void *xw;                /* fp32: the working iterate (fp64 and mixed: NULL, x itself) */
    double *b_dev, *x_dev;   /* device copies of b and x (device solves only) */
    void *dot_ws;
    struct mpcgi_cg_fused *fused; /* device scalars, pinned mirror, graph (GPU setups only) */
    struct mpcgi_block_ws *block; /* block CG's work arrays, kept between block solves
                                     (solver/block_cg.c); NULL before the first */
    const struct mpcgi_cg_variant *variant; /* the CG variant chosen at setup */
    char variant_reason[256];               /* why (mpcg_info.variant_reason) */
    struct {                 /* the persistent loops (solver/cg_loops.c), measured by wanted */
        mpcgi_rows rows;     /* the plan's row functor */
        int grid, rb, width; /* blocks; single-reduction: rows per block, entries per row */
        int prec;            /* the MPCGI_LOOP_* precision set up (a mixed solve's fp64 head,
                                in another, runs launched kernels) */
    } loop;
};

/* Set up if needed, and the numeric setup again after new matrix values (every solve). */
mpcg_status mpcgi_solver_prepare(mpcg_solver *s);
/* info zeroed, then what the setup decided: backend, precision, variant, preconditioner. */
void mpcgi_solver_info_init(const mpcg_solver *s, mpcg_info *info);

/* The check interval K of the fused loop (cg.check_interval; 0: adaptive). */
int64_t mpcgi_solver_check_interval(const mpcg_solver *s);

/*
 * One CG segment: the precision its iterations run in (vectors, products, the preconditioner's
 * apply), what ends it and where it starts. A solve is one PLAIN segment (fp64, fp32), or mixed
 * precision's driver over several (solver/cg_mixed.c: an fp64 HEAD, an fp32 MIXED segment, an
 * fp64 PLAIN finish), each run by the chosen variant's run with its own arguments: nothing on
 * the solver changes during a solve.
 */
typedef enum mpcgi_seg_kind {
    MPCGI_SEG_PLAIN, /* to convergence or a stop; restarts from the true residual */
    MPCGI_SEG_HEAD,  /* fp64 until the recurrence reaches seg.level, then the true residual:
                        converged, or the segment ends (end->next) */
    MPCGI_SEG_MIXED  /* fp32 with reliable updates or refinement and the stall rule; ends at
                        convergence, or where fp32 stops improving (end->next) */
} mpcgi_seg_kind;

typedef struct mpcgi_cg_seg {
    mpcg_precision work;    /* FP64 or FP32 */
    const mpcgi_vec_ops *V; /* the vector kernels of work where the solve computes */
    mpcgi_seg_kind kind;
    double level;        /* HEAD: the recurrence residual that ends it (absolute) */
    int64_t k0;          /* iterations of the segments before it: the monitor, the history
                            and the callbacks count from there; 0: the first segment */
    int resume;          /* 1: r and p as the segment before left them (r the true residual
                            in `work`), the next direction z + beta p; 0: r = b - A x */
    double rr, rz, beta; /* resume: ||r||^2, PCG's r.z of the last direction, beta (0: p =
                            z, a restart) */
} mpcgi_cg_seg;

/* How a segment ended where the solve goes on in another (next != 0): the iteration, r.r of
 * the true residual and before the last update, PCG's r.z of the last direction. */
enum { MPCGI_SEG_DONE, MPCGI_SEG_HEAD_REACHED, MPCGI_SEG_FALLBACK };
typedef struct mpcgi_cg_seg_end {
    int next;
    int64_t k;
    double rr, rr_old, rz;
} mpcgi_cg_seg_end;

/* The segment of a whole solve in precision `work` (PLAIN, from r = b - A x). */
mpcgi_cg_seg mpcgi_cg_seg_plain(const mpcg_solver *s, mpcg_precision work);

/* Vectors and scalars one CG run (a segment) works on; all vectors live where V computes. */
typedef struct mpcgi_cg_args {
    const double *b;
    double *x;     /* fp64, the caller's; holds (double)xw after every true-residual check */
    void *xw;      /* fp32: the iterate in V's type; x itself in fp64 and mixed (updated from fp32
                      vectors by V->axpy_wide) */
    double bnorm;  /* ||b||, > 0 */
    int x_is_zero; /* 1: x = 0 on entry (r = b without an SpMV) */
    int64_t maxit; /* the segment's iteration limit (the solve's less seg.k0) */
    mpcgi_cg_seg seg;
    mpcgi_cg_seg_end *end; /* filled where the segment ends and the solve goes on */
} mpcgi_cg_args;

/* What one CG run tracks between its true residuals. */
typedef struct mpcgi_cg_track {
    double last_true;     /* ||b - A x|| of the last true residual (INFINITY before the first) */
    double threshold;     /* the recurrence stops the running segment when sqrt(r.r) <= threshold:
                             max(tol, eps) ||b||, and in a mixed solve the next update's level */
    double eta;           /* mixed refinement: the inner solves' relative reduction */
    int next;             /* the segment ended, the solve goes on (MPCGI_SEG_HEAD_REACHED: the
                             head's level reached; MPCGI_SEG_FALLBACK: fp32 stopped improving) */
    int forced;           /* mixed: this check is a stalled segment's, not the threshold's */
    int stalls;           /* mixed: stalled segments since the last threshold reached */
    int64_t stall_window; /* mixed: mixed.stall_window, read when the fp32 iteration begins */
    int64_t stall_k;      /* mixed: the iteration of the stall rule's reference residual */
    double stall_r;       /* mixed: that reference (the best recurrence residual then) */
    double stall_best;    /* mixed: the best recurrence residual of the running segment */
    double stall_rate;    /* mixed: the fastest fall of the solve's fp32 windows, decades an
                             iteration */
} mpcgi_cg_track;

/* Mixed precision's stall rule (solver/cg_mixed.c): the host has read the recurrence residual
 * rnorm of iteration k; 1 where the running fp32 segment has stalled, and the caller then checks
 * the true residual as if the threshold were reached (tr->forced set). */
int mpcgi_mixed_stalled(const mpcgi_cg_args *a, mpcgi_cg_track *tr, int64_t k, double rnorm);

/* The CG iteration, and PCG with s->pc, written once (solver/cg.c): fills reason, iterations,
 * residuals of info. */
mpcg_status mpcgi_cg_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info);

/* The steps solver/cg.c shares with the fused loop, so both stop for the same reasons:
 * start: r = b - A x, rr = r.r, p = r, the track, monitor at 0 (the first segment), tests on
 *   the initial residual; a resumed segment (seg.resume): the track and rr = seg.rr only, the
 *   caller forms the direction z + seg.beta p;
 * check: once sqrt(rr) <= tr->threshold, the true residual decides: converged, stagnant, the
 *   segment's end (tr->next: a mixed head reached, fp32 stopped improving), or go on (reason
 *   NONE) with r = b - A x, rr = r.r, the next
 *   direction r + *beta p (0: p = r, a restart; the caller forms it, mpcgi_cg_direction) and a
 *   new tr->threshold; rr_old: r.r before the last update (the mixed reliable update's beta);
 * finish: reason (NONE: the limit), residuals and iterations of info (seg.k0 + k); where the
 *   segment ended for the next one (tr->next), a->end for the driver instead;
 * monitor: the host has read the recurrence residual of iteration k: the history entry, the
 *   progress callback, and the monitor every K-th (its failure: the history's allocation).
 * Each true residual of start, check and finish goes into the history as well. */
mpcg_status mpcgi_cg_start(mpcg_solver *s, const mpcgi_cg_args *a, double *rr, mpcgi_cg_track *tr,
                           mpcg_info *info, mpcg_reason *reason);
mpcg_status mpcgi_cg_check(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rr_old,
                           double *rr, double *beta, mpcgi_cg_track *tr, mpcg_info *info,
                           mpcg_reason *reason);
mpcg_status mpcgi_cg_finish(mpcg_solver *s, const mpcgi_cg_args *a, double rr, int64_t k,
                            mpcg_reason reason, mpcgi_cg_track *tr, mpcg_info *info);
mpcg_status mpcgi_cg_monitor(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double relres);
/* The reason for p^T A p, or NONE if the iteration may go on. */
mpcg_reason mpcgi_cg_curvature_reason(double pq);
/* z = M^-1 r (s->pc) in the iteration's precision, into *z (s->z, or s->zw in fp32), and rz =
 * r.z; *reason NaN or MPCG_DIVERGED_INDEFINITE_PC where r.z says M is not SPD (solver/pcg.c). */
mpcg_status mpcgi_pcg_precondition(mpcg_solver *s, const mpcgi_cg_seg *g, void **z, double *rz,
                                   mpcg_reason *reason);
/* A's product for the preconditioner (its setup and applies; counted in s->pc_spmvs). */
mpcg_status mpcgi_pcg_spmv(mpcg_context *ctx, void *user, mpcg_precision prec, const void *x,
                           void *y);
/* The caller's callbacks (solver/callback.c): 1 when a preconditioner or iterate callback is
 * set (the host variant runs, fp64 only); their host staging on a GPU (setup, teardown); z = M r
 * by the caller's M (into s->z; mpcgi_pcg_precondition calls it); the iterate callback after
 * iteration k. */
int mpcgi_solver_callbacks(const mpcg_solver *s);
mpcg_status mpcgi_callbacks_setup(mpcg_solver *s);
void mpcgi_callbacks_teardown(mpcg_solver *s);
mpcg_status mpcgi_pcg_callback(mpcg_solver *s, double *z);
mpcg_status mpcgi_cg_iterate(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k);
/* p = r + beta p with V, or p = r for beta = 0. */
mpcg_status mpcgi_cg_direction(mpcg_solver *s, const mpcgi_cg_seg *g, double beta);
/* The recurrence residual's stop threshold max(max(tol, eps) ||b||, atol), eps of the
 * iteration's precision (solver/cg.c says why); the device stop tests use it too
 * (mpcgi_cg_state.threshold). */
double mpcgi_cg_threshold(const mpcg_solver *s, mpcg_precision work, double bnorm);
/* The true residual's target max(tol ||b||, atol): a solve converges when ||b - A x|| is at
 * or below it. */
double mpcgi_cg_target(const mpcg_solver *s, double bnorm);
/* MPCG_CONVERGED_ATOL or _RTOL if a true residual of norm tnorm meets the target (ATOL where
 * atol > tol ||b|| decided), else MPCG_REASON_NONE (also for NaN). */
mpcg_reason mpcgi_cg_converged(const mpcg_solver *s, double tnorm, double bnorm);
/* A check's measurement: r = b - A x (mpcgi_cg_true_residual) of norm *tnorm,
 * info->true_relres, and *reason: NaN, converged (mpcgi_cg_converged) or NONE. */
mpcg_status mpcgi_cg_measure(mpcg_solver *s, const mpcgi_cg_args *a, double *tnorm, mpcg_info *info,
                             mpcg_reason *reason);
/* The precision of the loop's products q = A p: FP32, or `exact` when the loop runs in fp64. */
mpcg_precision mpcgi_cg_apply_precision(const mpcg_solver *s, const mpcgi_cg_seg *g);
/* r = b - A x with the exact values and ||r|| (fp32 and mixed: x from xw first, see
 * solver/cg.c); counts the product. */
mpcg_status mpcgi_cg_true_residual(mpcg_solver *s, const mpcgi_cg_args *a, void *r, double *norm);

/* Mixed precision (solver/cg_mixed.c). The driver: the fp64 head, the fp32 segment and the fp64
 * finish, each a run of the chosen variant (`run`) with its own segment arguments. Inside the
 * fp32 segment: its first threshold (tr from the residual rnorm at iteration k, the stall
 * rule's start), and an update at a threshold or a stall (mpcgi_cg_check's contract; where fp32
 * stops improving tr->next says so and the segment ends). */
mpcg_status mpcgi_mixed_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info,
                            mpcg_status (*run)(mpcg_solver *, const mpcgi_cg_args *, mpcg_info *));
void mpcgi_mixed_begin(const mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rnorm,
                       mpcgi_cg_track *tr);
mpcg_status mpcgi_mixed_update(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rr_old,
                               double *rr, double *beta, mpcgi_cg_track *tr, mpcg_info *info,
                               mpcg_reason *reason);
/* The fp64 head's check (mpcgi_cg_check's contract): converged, or the head ends at iteration
 * k (tr->next; a->end: r.r of the true residual now in r, r.r before the last update). */
mpcg_status mpcgi_mixed_head_end(mpcg_solver *s, const mpcgi_cg_args *a, double rr_old,
                                 mpcgi_cg_track *tr, mpcg_info *info, mpcg_reason *reason);
/* 1 if a stop of a mixed solve's fp32 segment for `reason` (NaN, indefinite, breakdown) goes
 * on in fp64 instead of ending the solve. */
int mpcgi_mixed_stop_to_fp64(const mpcgi_cg_args *a, mpcg_reason reason);

/*
 * The fused CG iteration on the GPU (solver/cg_fused.c; solver/cg_fused_stub.c in CPU-only
 * builds), the run of the launched, graph and persistent variants (solver/cg_variants.h): the
 * variant's enqueue queues a window of iterations, scalars stay on the device, the host reads
 * the state once a window (docs/solver.md, "The GPU iteration"). Same results and reasons as
 * mpcgi_cg_run; x is never updated past the stopping iteration, so `iterations` is exact.
 */
mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info);
/* The device state of the fused loop: scalars, partials, pinned mirror (the GPU variants'
 * setup calls it first), and its release (accepts a solver without it). */
mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s);
void mpcgi_cg_fused_teardown(mpcg_solver *s);
/* Iterations one launch of the captured graph runs; 0 without a graph. */
int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s);

#endif /* MPCG_SOLVER_SOLVER_H */
