/* solver/solver.h: the solver object and the CG loop */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_SOLVER_H
#define MPCG_SOLVER_SOLVER_H

#include <stdint.h>

#include "core/options.h"
#include "core/vec.h"
#include "mpcg.h"
#include "spmv/spmv.h"

#define MPCGI_SOLVER_MAGIC 0x736f6c76

struct mpcg_solver {
    unsigned magic;
    mpcg_context *ctx;
    mpcg_matrix *A;

    /* options */
    char spmv_name[32];
    mpcg_precision precision;
    double tol;
    int64_t maxit; /* < 0: the default max(100, 10 n) */
    mpcg_guess guess;
    int64_t monitor_every;
    mpcg_monitor_fn monitor;
    void *monitor_user;
    int error_if_not_converged;
    int64_t check_interval;  /* fused GPU loop: iterations between host checks; 0: adaptive */
    mpcgi_options opts;      /* mpcg_solver_set_option (after MPCG_OPTIONS); read at setup */

    /* setup state */
    int setup_done;          /* cleared by option changes */
    uint64_t values_version; /* A->values_version the plan was built or updated for */
    double setup_time_s;     /* of the most recent setup */
    mpcgi_spmv_plan *plan;
    const mpcgi_vec_ops *V;  /* host or device vector kernels */
    int on_device;
    double *r, *p, *q, *t;   /* work vectors where V computes (t: true-residual scratch) */
    double *b_dev, *x_dev;   /* device copies of b and x (device solves only) */
    void *dot_ws;
    struct mpcgi_cg_fused *fused; /* device scalars, pinned mirror, graph (GPU setups only) */
};

/* Vectors and scalars one CG run works on; all vectors live where V computes. */
typedef struct mpcgi_cg_args {
    const double *b;
    double *x;
    double bnorm; /* ||b||, > 0 */
    int x_is_zero; /* 1: x = 0 on entry (r = b without an SpMV) */
    int64_t maxit; /* resolved iteration limit */
} mpcgi_cg_args;

/* The CG iteration (solver/cg.c): fills reason, iterations, residuals of info. */
mpcg_status mpcgi_cg_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info);

/* The steps solver/cg.c shares with the fused loop, so both stop for the same reasons:
 * start: r = b - A x, rr = r.r, p = r, monitor at 0, tests on the initial residual;
 * check_true: the true-residual test, replacement or stagnation once sqrt(rr) <= tol ||b||;
 * finish: reason (NONE: the limit), residuals and iterations of info; monitor: every K-th. */
mpcg_status mpcgi_cg_start(mpcg_solver *s, const mpcgi_cg_args *a, double *rr, double *last_true,
                           mpcg_info *info, mpcg_reason *reason);
mpcg_status mpcgi_cg_check_true(mpcg_solver *s, const mpcgi_cg_args *a, double *rr,
                                double *last_true, mpcg_info *info, mpcg_reason *reason);
mpcg_status mpcgi_cg_finish(mpcg_solver *s, const mpcgi_cg_args *a, double rr, int64_t k,
                            mpcg_reason reason, mpcg_info *info);
void mpcgi_cg_monitor(const mpcg_solver *s, int64_t k, double relres);

/*
 * The fused CG iteration on the GPU (solver/cg_fused.c; solver/cg_fused_stub.c in CPU-only
 * builds): three kernels per iteration, scalars on the device, the host reading the state every
 * few iterations (docs/solver.md, "The GPU iteration"). Same results and reasons as
 * mpcgi_cg_run; x is never updated past the stopping iteration, so `iterations` is exact.
 */
mpcg_status mpcgi_cg_run_fused(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info);
/* Setup of the fused loop (after the plan and work vectors): device state, partials, pinned
 * mirror, and for small n the CUDA graph of a window of iterations. */
mpcg_status mpcgi_cg_fused_setup(mpcg_solver *s);
/* After the plan's values were updated: re-capture the graph (setup work). */
mpcg_status mpcgi_cg_fused_refresh(mpcg_solver *s);
/* Release what mpcgi_cg_fused_setup made; accepts a solver without it. */
void mpcgi_cg_fused_teardown(mpcg_solver *s);
/* Iterations one launch of the captured graph runs; 0 when iterations are launched one by one. */
int64_t mpcgi_cg_fused_graph_iters(const mpcg_solver *s);
/* How the fused loop runs its iterations: "launched", "graph", "folded" (the backend's
 * apply_direction_dot) or "persistent" (its cg_loop); "none" without the fused loop. */
const char *mpcgi_cg_fused_path(const mpcg_solver *s);
/* Vector bytes per row of one fused iteration on its path (80 or 96; docs/solver.md). */
double mpcgi_cg_fused_vector_bytes(const mpcg_solver *s);

#endif /* MPCG_SOLVER_SOLVER_H */
