/* solver/history.h: the residual history of a solve and the progress callback (internal) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_HISTORY_H
#define MPCG_SOLVER_HISTORY_H

#include <stdint.h>

#include "mpcg.h"

/*
 * What a solve records when mpcg_solver_set_history turned it on (docs/history.md): one entry
 * each time the host reads the recurrence residual (mpcgi_cg_monitor: every iteration of the
 * host loop, once a check window in the GPU variants), the true residual added to the entry of
 * the iteration where a check, the start or the end computed it. Four arrays of `cap` entries,
 * grown by doubling; kept between solves (a new solve overwrites them) and released by
 * mpcg_solver_set_history(S, 0) and mpcg_solver_destroy.
 */
typedef struct mpcgi_history {
    int on;
    int64_t count, cap;
    int64_t *iteration;
    double *relres;      /* ||r_k|| / ||b|| of the recurrence; NaN where only a true one is */
    double *true_relres; /* ||b - A x_k|| / ||b|| where computed, else NaN */
    double *time_s;      /* seconds since the solve began */
    double t0;           /* mpcgi_wtime() at that beginning */
} mpcgi_history;

/* A block solve's histories (mpcg_solver_get_block_history): one per column, and the block
 * monitor (mpcg_solver_set_block_monitor). */
typedef struct mpcgi_block_history {
    mpcgi_history *col; /* MPCGI_HISTORY_COLUMNS, allocated at the first block solve recorded */
    int ncols;          /* columns of the last solve (0 after a single solve) */
    int64_t monitor_every;
    mpcg_block_monitor_fn monitor;
    void *monitor_user;
} mpcgi_block_history;

#define MPCGI_HISTORY_COLUMNS 64 /* MPCGI_BLOCK_MAX */

struct mpcg_solver;

/* A solve begins at t0 (mpcgi_wtime): no entries yet. */
void mpcgi_history_begin(struct mpcg_solver *s, double t0);
/* The recurrence residual of iteration k (of the solve): a new entry (when on). */
mpcg_status mpcgi_history_residual(struct mpcg_solver *s, int64_t k, double relres);
/* A true residual at iteration k (of the solve): into the last entry if it is that
 * iteration's, else a new entry whose recurrence residual is NaN (when on). */
mpcg_status mpcgi_history_true(struct mpcg_solver *s, int64_t k, double true_relres);
/* Release the arrays (count 0, off stays as it is). */
void mpcgi_history_free(mpcgi_history *h);
/* A block solve of ncols columns begins (the history of each empty; none kept when off). */
mpcg_status mpcgi_history_block_begin(struct mpcg_solver *s, int ncols);
/* Column col read its residual at block iteration k: the recurrence one (relres) and/or the true
 * one (true_relres), NaN where not read; one entry per iteration (a true residual of the last
 * entry's iteration fills it in). The block monitor's call at every K-th iteration (and 0) of a
 * recurrence residual. */
mpcg_status mpcgi_history_column(struct mpcg_solver *s, int col, int64_t k, double relres,
                                 double true_relres);
/* Release every column's arrays (mpcg_solver_set_history(S, 0), mpcg_solver_destroy). */
void mpcgi_history_block_free(struct mpcg_solver *s);

#endif /* MPCG_SOLVER_HISTORY_H */
