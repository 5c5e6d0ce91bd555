/* solver/solver.h: the solver object and the CG loop */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_SOLVER_H
#define MPCG_SOLVER_SOLVER_H

#include <stdint.h>

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

#endif /* MPCG_SOLVER_SOLVER_H */
