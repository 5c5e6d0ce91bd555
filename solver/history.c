/* solver/history.c: the residual history of a solve (mpcg_solver_set_history,
 * mpcg_solver_get_history) and the progress callback (mpcg_solver_set_progress) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/timer.h"
#include "solver/history.h"
#include "solver/solver.h"

/* Entries of the first allocation; then the capacity doubles. */
#define FIRST_CAP 256

static int valid(const mpcg_solver *s) { return s && s->magic == MPCGI_SOLVER_MAGIC; }

void mpcgi_history_free(mpcgi_history *h)
{
    mpcgi_host_free(h->iteration);
    mpcgi_host_free(h->relres);
    mpcgi_host_free(h->true_relres);
    mpcgi_host_free(h->time_s);
    h->iteration = NULL;
    h->relres = h->true_relres = h->time_s = NULL;
    h->count = h->cap = 0;
}

void mpcgi_history_begin(mpcg_solver *s, double t0)
{
    s->hist.count = 0;
    s->hist.t0 = t0;
    s->bhist.ncols = 0; /* a single solve: no column histories */
}

/* Room for one more entry of h: the four arrays grow together (one that grew before another
 * failed is only larger than cap, which stays the old one). */
static mpcg_status reserve(mpcg_context *ctx, mpcgi_history *h)
{
    if (h->count < h->cap) return MPCG_SUCCESS;
    int64_t cap = h->cap ? 2 * h->cap : FIRST_CAP;
    size_t n = (size_t)cap;
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, n * sizeof *h->iteration, &h->iteration));
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, n * sizeof *h->relres, &h->relres));
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, n * sizeof *h->true_relres, &h->true_relres));
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, n * sizeof *h->time_s, &h->time_s));
    h->cap = cap;
    return MPCG_SUCCESS;
}

static mpcg_status append_to(mpcg_context *ctx, mpcgi_history *h, int64_t it, double relres,
                             double true_relres)
{
    MPCG_CHECK(ctx, reserve(ctx, h));
    h->iteration[h->count] = it;
    h->relres[h->count] = relres;
    h->true_relres[h->count] = true_relres;
    h->time_s[h->count] = mpcgi_wtime() - h->t0;
    h->count++;
    return MPCG_SUCCESS;
}

static mpcg_status append(mpcg_solver *s, int64_t it, double relres, double true_relres)
{
    return append_to(s->ctx, &s->hist, it, relres, true_relres);
}

mpcg_status mpcgi_history_block_begin(mpcg_solver *s, int ncols)
{
    mpcgi_block_history *b = &s->bhist;
    b->ncols = ncols;
    if (!s->hist.on) return MPCG_SUCCESS;
    if (!b->col)
        MPCG_CHECK(s->ctx, mpcgi_host_calloc(s->ctx, MPCGI_HISTORY_COLUMNS, sizeof *b->col,
                                             &b->col));
    for (int j = 0; j < ncols; j++)
        b->col[j].count = 0, b->col[j].t0 = s->hist.t0;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_history_column(mpcg_solver *s, int col, int64_t k, double relres,
                                 double true_relres)
{
    mpcgi_block_history *b = &s->bhist;
    if (b->monitor && isfinite(relres) && k % b->monitor_every == 0)
        b->monitor(k, col, relres, b->monitor_user);
    if (!s->hist.on || !b->col) return MPCG_SUCCESS;
    mpcgi_history *h = &b->col[col];
    if (h->count > 0 && h->iteration[h->count - 1] == k) { /* the true residual of that step */
        if (!isnan(true_relres)) h->true_relres[h->count - 1] = true_relres;
        if (!isnan(relres)) h->relres[h->count - 1] = relres;
        return MPCG_SUCCESS;
    }
    return append_to(s->ctx, h, k, relres, true_relres);
}

void mpcgi_history_block_free(mpcg_solver *s)
{
    mpcgi_block_history *b = &s->bhist;
    if (!b->col) return;
    for (int j = 0; j < MPCGI_HISTORY_COLUMNS; j++)
        mpcgi_history_free(&b->col[j]);
    mpcgi_host_free(b->col);
    b->col = NULL;
    b->ncols = 0;
}

mpcg_status mpcgi_history_residual(mpcg_solver *s, int64_t k, double relres)
{
    if (!s->hist.on) return MPCG_SUCCESS;
    return append(s, k, relres, NAN);
}

mpcg_status mpcgi_history_true(mpcg_solver *s, int64_t k, double true_relres)
{
    mpcgi_history *h = &s->hist;
    const int64_t it = k;
    if (!h->on) return MPCG_SUCCESS;
    if (h->count > 0 && h->iteration[h->count - 1] == it) {
        h->true_relres[h->count - 1] = true_relres;
        return MPCG_SUCCESS;
    }
    return append(s, it, NAN, true_relres);
}

mpcg_status mpcg_solver_set_history(mpcg_solver *s, int on)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    s->hist.on = on != 0;
    if (!on) mpcgi_history_free(&s->hist), mpcgi_history_block_free(s);
    return MPCG_SUCCESS;
}

/* h's entries to the caller's pointers (NULL arrays when it has none). */
static void give(const mpcgi_history *h, int64_t *count, const int64_t **iteration,
                 const double **relres, const double **true_relres, const double **time_s)
{
    *count = h->count;
    if (iteration) *iteration = h->count ? h->iteration : NULL;
    if (relres) *relres = h->count ? h->relres : NULL;
    if (true_relres) *true_relres = h->count ? h->true_relres : NULL;
    if (time_s) *time_s = h->count ? h->time_s : NULL;
}

mpcg_status mpcg_solver_get_history(const mpcg_solver *s, int64_t *count,
                                    const int64_t **iteration, const double **relres,
                                    const double **true_relres, const double **time_s)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    MPCG_ENSURE(s->ctx, count, MPCG_ERR_INVALID_ARG, "count must not be NULL");
    const mpcgi_history *h = &s->hist;
    give(h, count, iteration, relres, true_relres, time_s);
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_get_block_history(const mpcg_solver *s, int column, int64_t *count,
                                          const int64_t **iteration, const double **relres,
                                          const double **true_relres, const double **time_s)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    MPCG_ENSURE(s->ctx, count, MPCG_ERR_INVALID_ARG, "count must not be NULL");
    MPCG_ENSURE(s->ctx, column >= 0 && column < MPCGI_HISTORY_COLUMNS, MPCG_ERR_INVALID_ARG,
                "column %d out of range [0, %d)", column, MPCGI_HISTORY_COLUMNS);
    const mpcgi_block_history *b = &s->bhist;
    const mpcgi_history none = {0};
    const mpcgi_history *h = b->col && column < b->ncols ? &b->col[column] : &none;
    give(h, count, iteration, relres, true_relres, time_s);
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_block_monitor(mpcg_solver *s, int64_t every, mpcg_block_monitor_fn fn,
                                          void *user)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    const int on = every > 0 && fn;
    s->bhist.monitor_every = on ? every : 0;
    s->bhist.monitor = on ? fn : NULL;
    s->bhist.monitor_user = on ? user : NULL;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_solver_set_progress(mpcg_solver *s, mpcg_monitor_fn fn, void *user)
{
    MPCG_ENSURE(NULL, valid(s), MPCG_ERR_INVALID_ARG, "invalid solver (NULL or destroyed)");
    s->progress = fn;
    s->progress_user = fn ? user : NULL;
    return MPCG_SUCCESS;
}
