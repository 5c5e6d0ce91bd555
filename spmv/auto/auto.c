/* spmv/auto/auto.c: "auto": its options, the rules (pure), and the trial that times the candidate
 * plans and keeps the best (the choice around it: spmv/auto/choose.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/timer.h"
#include "spmv/auto/auto.h"

#define MAX_CAND MPCG_BACKEND_CHOICE_MAX
#define MAX_REPS 100
#define MAX_RANK 16

static const char *const cache_words[] = {"on", "off", NULL};
static const char *const fingerprint_words[] = {"sampled", "full", NULL};

static const mpcgi_option_key auto_keys[MPCGI_OPT_AUTO_COUNT] = {
    [MPCGI_OPT_AUTO_CACHE] = {"auto.cache", MPCGI_OPTION_WORD, MPCGI_AUTO_CACHE_ON, 0, 0, 0, 0,
                              cache_words,
                              "spmv auto on a GPU: reuse the decision of an earlier trial on the "
                              "same fingerprint, kept in the context's cache directory (cgsolve: "
                              "$XDG_CACHE_HOME/mpcg; docs/backends/auto.md)"},
    [MPCGI_OPT_AUTO_ITERATIONS] = {"auto.iterations", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 0,
                                   1L << 30, 0, 1, NULL,
                                   "spmv auto: the SpMVs a plan's setup is weighed against (it "
                                   "keeps the least setup + this x SpMV time); auto: min(maxit, "
                                   "max(100, sqrt(n)))"},
    [MPCGI_OPT_AUTO_BUDGET] = {"auto.budget", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 0, 1L << 30, 0,
                               1, NULL,
                               "spmv auto: the most the trial may spend beyond the plan it "
                               "keeps, in SpMVs of the fastest so far; a candidate whose "
                               "predicted setup does not fit is skipped; auto: no cap"},
    [MPCGI_OPT_AUTO_SPMVS] = {"auto.spmvs", MPCGI_OPTION_INT, 3, 1, MAX_REPS, 0, 0, NULL,
                              "spmv auto: SpMVs timed per candidate after the warm-up (on a "
                              "GPU two, then queued back to back between CUDA events; on the "
                              "host one, the wall clock); their median counts (a close call on "
                              "a GPU: 30, auto.close_pct)"},
    [MPCGI_OPT_AUTO_FINGERPRINT] = {"auto.fingerprint", MPCGI_OPTION_WORD, MPCGI_AUTO_SAMPLED, 0, 0,
                                    0, 0, fingerprint_words,
                                    "spmv auto's cache: hash a sample of the pattern (256 rows) "
                                    "or all of it (a pass over the CSR) into the fingerprint"},
    [MPCGI_OPT_AUTO_CLOSE] = {"auto.close_pct", MPCGI_OPTION_INT, 12, 0, 100000, 0, 0, NULL,
                              "spmv auto on a GPU: a candidate's SpMV and the kept plan's within "
                              "this % of each other are timed again, 3 groups of 10 SpMVs each, "
                              "and those medians decide (0: never; docs/backends/auto.md)"},
};

const mpcgi_option_table mpcgi_auto_options = {auto_keys, MPCGI_OPT_AUTO_COUNT};

/* ---------------------------------------------------------------- the rules (pure) */

int mpcgi_auto_decide(mpcg_backend_candidate *c, int count, double expected_spmvs)
{
    int best = -1;
    for (int i = 0; i < count; i++) {
        c[i].score_s = c[i].skipped ? 0.0 : c[i].setup_s + expected_spmvs * c[i].spmv_s;
        if (!c[i].skipped && (best < 0 || c[i].score_s < c[best].score_s)) best = i;
    }
    return best;
}

double mpcgi_auto_expected_spmvs(const mpcgi_options *opts, int64_t n, int64_t maxit)
{
    long it = mpcgi_options_get(opts, &auto_keys[MPCGI_OPT_AUTO_ITERATIONS]);
    if (it != MPCGI_OPTION_AUTO) return (double)it;
    double e = sqrt((double)n);
    if (e < 100.0) e = 100.0;
    if (maxit >= 0 && e > (double)maxit) e = (double)maxit;
    return e;
}

int mpcgi_auto_fits(double budget, double spent_s, double predicted_s, double t_best, int calls)
{
    return budget < 0 || spent_s + predicted_s + calls * t_best <= budget * t_best;
}

/* ---------------------------------------------------------------- the trial */

/* A trial in progress. Candidates 0 .. ranked - 1 of c are tried in that order; the others are
 * listed as skipped. Only the best plan so far is kept. */
typedef struct trial {
    mpcg_context *ctx;
    mpcgi_csr *A;
    const mpcgi_auto_request *req;
    mpcg_backend_choice *c;
    const struct mpcgi_spmv_ops *ops[MAX_CAND]; /* of c->candidates[i] */
    int ranked;
    int best;              /* index of the kept plan; -1 before the first */
    mpcgi_spmv_plan *plan; /* the kept plan */
    void *x, *y;           /* n doubles each, where the plans compute; x = 0 */
    double *dot;           /* device: x.y of the fused product (req->fused_dot), or NULL */
    double t0;             /* when the trial began */
    double budget;         /* auto.budget; -1: no cap */
    int reps;              /* auto.spmvs */
    long close_pct;        /* auto.close_pct */
    mpcg_status failure;   /* the status of the first candidate that failed on its own */
    int failed;            /* its index; -1: none */
    mpcgi_auto_copy copy;  /* the device copy of a host A the candidates are built from */
    int copied;            /* 1: it was made (spmv/auto/copy.c) */
} trial;

/* Why the solve cannot use ops on this context, or NULL. */
static const char *not_allowed(const trial *t, const struct mpcgi_spmv_ops *ops, char *buf,
                               size_t size)
{
    const int dev = t->ctx->kind == MPCG_DEVICE_CUDA;
    const unsigned caps = ops->caps, want = t->req->precisions;
    if (dev && !(caps & MPCG_CAP_NEEDS_DEVICE)) return "runs on the CPU only";
    if (!dev && (caps & MPCG_CAP_NEEDS_DEVICE) && !(caps & MPCG_CAP_CPU_EMULATION))
        return "needs a GPU (no CPU emulation)";
    if ((caps & want) != want) {
        snprintf(buf, size, "does not support precision %s",
                 mpcg_precision_name(t->req->precision));
        return buf;
    }
    if (t->req->need_block && !(dev ? ops->apply_block != NULL : ops->apply_block_host != NULL))
        return "no block product (block CG needs one)";
    if (t->req->need_rows && !ops->rows)
        return "exports no rows: a small system (n <= cg.small_n) runs the persistent loop over "
               "a backend's rows, faster than a CUDA graph over any SpMV (docs/solver.md)";
    return NULL;
}

static void add_candidate(trial *t, const struct mpcgi_spmv_ops *ops, const char *skip)
{
    mpcg_backend_candidate *c = &t->c->candidates[t->c->ncandidates];
    memset(c, 0, sizeof *c);
    c->backend = ops->name;
    c->skipped = skip != NULL;
    snprintf(c->reason, sizeof c->reason, "%s", skip ? skip : "");
    t->ops[t->c->ncandidates++] = ops;
}

/* The backends the solve allows and auto ranks, in rank order, then every other one of the
 * build with the reason it is not tried. */
static mpcg_status list_candidates(trial *t)
{
    const int count = mpcgi_spmv_count();
    char buf[MAX_CAND][160];
    const char *why[MAX_CAND], *skip;
    int rank[MAX_CAND];
    MPCG_ENSURE(t->ctx, count <= MAX_CAND, MPCG_ERR_INTERNAL,
                "auto: %d backends, more than the %d a choice lists", count, MAX_CAND);
    for (int i = 0; i < count; i++) {
        rank[i] = mpcgi_spmv_auto_rank(mpcgi_spmv_get(i), &skip);
        why[i] = rank[i] > 0 ? not_allowed(t, mpcgi_spmv_get(i), buf[i], sizeof buf[i]) : skip;
    }
    t->c->ncandidates = 0;
    for (int r = 1; r <= MAX_RANK; r++)
        for (int i = 0; i < count; i++)
            if (rank[i] == r && !why[i]) add_candidate(t, mpcgi_spmv_get(i), NULL);
    t->ranked = t->c->ncandidates;
    for (int i = 0; i < count; i++)
        if (why[i]) add_candidate(t, mpcgi_spmv_get(i), why[i]);
    return MPCG_SUCCESS;
}

typedef struct apply_arg {
    mpcgi_spmv_plan *plan;
    mpcg_precision prec;
    const void *x;
    void *y;
    double *dot; /* device: y = A x with x.y fused (apply_dot, fp64), or NULL: y = A x */
} apply_arg;

static mpcg_status apply_once(mpcg_context *ctx, void *arg)
{
    apply_arg *a = arg;
    if (a->dot) return mpcgi_spmv_apply_dot(ctx, a->plan, a->x, a->y, a->dot, NULL);
    return mpcgi_spmv_apply(ctx, a->plan, a->prec, a->x, a->y);
}

/* The device double of the fused product where the iteration fuses the dot and plan can; NULL
 * (the plain product) otherwise. */
static double *fused_dot_of(const trial *t, const mpcgi_spmv_plan *plan)
{
    return t->req->fused_dot && mpcgi_spmv_has_apply_dot(plan) ? t->dot : NULL;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double s = v[j];
            v[j] = v[j - 1];
            v[j - 1] = s;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Warm-up SpMVs before the timed ones: on a GPU two, the first after a plan's build paying for
 * what the build left (its dirty lines in L2 written back, cuSPARSE's preprocess), the second
 * keeping the device busy while the host queues the timed calls; on the host one. */
static int warmups(int on_device) { return on_device ? 2 : 1; }

/* One SpMV of plan in the solve's iteration precision: `groups` groups of `per` calls after the
 * warm-up; on a GPU queued back to back as a solve queues them (mpcgi_device_time_calls: CUDA
 * events between groups only, the host's launch time hidden), on the host each group timed by
 * the wall clock; the median of the groups' times per call. */
static mpcg_status time_spmv(trial *t, mpcgi_spmv_plan *plan, int groups, int per,
                             double *spmv_s)
{
    mpcg_context *ctx = t->ctx;
    double s[MAX_REPS];
    apply_arg a = {plan, t->req->apply, t->x, t->y, fused_dot_of(t, plan)};
    if (a.dot) t->c->timed_dot = 1;
    if (plan->on_device) {
        MPCG_CHECK(ctx, mpcgi_device_time_calls(ctx, apply_once, &a, warmups(1), groups, per, s));
    } else {
        for (int k = 0; k < warmups(0); k++)
            MPCG_CHECK(ctx, apply_once(ctx, &a));
        for (int k = 0; k < groups; k++) {
            double t0 = mpcgi_wtime();
            for (int j = 0; j < per; j++)
                MPCG_CHECK(ctx, apply_once(ctx, &a));
            s[k] = (mpcgi_wtime() - t0) / per;
        }
    }
    /* at least a nanosecond: an empty matrix launches nothing, and the budget divides by it */
    *spmv_s = fmax(median(s, groups), 1e-9);
    return MPCG_SUCCESS;
}

/* A failure that is the candidate's own (it cannot hold A, the memory is short, an option of it
 * is inconsistent): the trial goes on without it. Anything else ends the setup. */
static int own_failure(mpcg_status st)
{
    return st == MPCG_ERR_NOT_SUPPORTED || st == MPCG_ERR_DEVICE_ALLOC ||
           st == MPCG_ERR_HOST_ALLOC || st == MPCG_ERR_INVALID_ARG;
}

/* 0 when the solve runs a persistent loop over the plan's rows (need_rows) and this device plan
 * exports none in the iteration's precision (spmv/rows.h). */
static int rows_if_needed(const trial *t, const mpcgi_spmv_plan *plan)
{
    mpcgi_rows rows;
    return !t->req->need_rows || !plan->on_device ||
           mpcgi_spmv_rows(plan, t->req->apply, &rows) == MPCG_SUCCESS;
}

/* Build candidate i's plan (waited for: setup_s is its wall time) and time its SpMV. *plan NULL
 * when the candidate failed on its own: then it is skipped with the library's message. */
static mpcg_status try_candidate(trial *t, int i, mpcgi_spmv_plan **plan)
{
    mpcg_context *ctx = t->ctx;
    mpcg_backend_candidate *c = &t->c->candidates[i];
    mpcgi_saved_error saved;
    mpcgi_error_save(ctx, &saved);
    const double t0 = mpcgi_wtime(), h0 = mpcgi_device_h2d_seconds(ctx);
    mpcg_status st =
        mpcgi_spmv_plan_create(ctx, t->ops[i], t->A, t->req->precisions, t->req->opts, plan);
    if (st == MPCG_SUCCESS && (*plan)->on_device) st = mpcgi_device_sync(ctx);
    c->setup_s = mpcgi_wtime() - t0;
    c->setup_h2d_s = mpcgi_device_h2d_seconds(ctx) - h0;
    if (st == MPCG_SUCCESS && !rows_if_needed(t, *plan))
        snprintf(c->reason, sizeof c->reason, "exports no rows for this plan (adaptive: its "
                 "tiles path): a small system runs the persistent loop over a backend's rows");
    else if (st == MPCG_SUCCESS)
        st = time_spmv(t, *plan, t->reps, 1, &c->spmv_s);
    if (st != MPCG_SUCCESS && !own_failure(st)) { /* the setup fails, its error recorded */
        mpcgi_spmv_plan_destroy(ctx, *plan);
        *plan = NULL;
        return st;
    }
    if (st != MPCG_SUCCESS) {
        char msg[160];
        mpcg_last_error_message(ctx, msg, sizeof msg);
        snprintf(c->reason, sizeof c->reason, "failed: %s", msg);
        if (t->failed < 0) t->failed = i, t->failure = st;
    }
    if (c->reason[0]) { /* skipped: failed on its own, or no rows where they are needed */
        c->skipped = 1;
        c->spmv_s = 0;
        mpcgi_spmv_plan_destroy(ctx, *plan);
        *plan = NULL;
    }
    mpcgi_error_restore(ctx, &saved);
    return MPCG_SUCCESS;
}

/* 1 if candidate i fits the budget after what the trial spent so far; else skipped, saying so.
 * Its setup is predicted as the longest one measured so far (each plan uploads the matrix, or
 * lays it out from the trial's device copy: work of one size for every candidate). */
static int within_budget(trial *t, int i)
{
    mpcg_backend_candidate *c = t->c->candidates, *best = &c[t->best];
    double predicted = 0;
    for (int k = 0; k < i; k++)
        if (!c[k].skipped && c[k].setup_s > predicted) predicted = c[k].setup_s;
    /* the device copy, where made, stands for the kept plan's own upload: not the trial's */
    const double spent = mpcgi_wtime() - t->t0 - best->setup_s - t->copy.seconds;
    const double tb = best->spmv_s;
    const int calls = warmups(t->ctx->kind == MPCG_DEVICE_CUDA) + t->reps;
    if (mpcgi_auto_fits(t->budget, spent, predicted, tb, calls)) return 1;
    c[i].skipped = 1;
    snprintf(c[i].reason, sizeof c[i].reason,
             "over the budget: its setup, predicted at %.0f SpMVs of %s, does not fit the %.0f "
             "left of auto.budget=%.0f",
             predicted / tb, best->backend, t->budget - spent / tb, t->budget);
    return 0;
}

/* A close call: the kept plan's SpMV and the new candidate p's (both on the GPU) within
 * auto.close_pct % of each other, timed with fewer than CLOSE_REPS calls. The first SpMVs after a
 * plan's build can run slower than its steady state by more than such a gap, by how much depends on
 * the backend, and an event between two calls keeps the second from overlapping the first as a
 * solve's do (docs/backends/auto.md, "The trial"), so both are timed again, CLOSE_GROUPS groups of
 * CLOSE_PER calls each, and the medians of their groups replace the first times. */
#define CLOSE_GROUPS 3
#define CLOSE_PER 10
#define CLOSE_REPS (CLOSE_GROUPS * CLOSE_PER)

static mpcg_status settle_close_call(trial *t, int i, mpcgi_spmv_plan *p)
{
    mpcg_backend_candidate *c = t->c->candidates, *b = &c[t->best];
    const double lo = fmin(b->spmv_s, c[i].spmv_s), hi = fmax(b->spmv_s, c[i].spmv_s);
    if (!p->on_device || !t->plan->on_device || t->reps >= CLOSE_REPS || t->close_pct == 0 ||
        hi > lo * (1.0 + t->close_pct / 100.0))
        return MPCG_SUCCESS;
    const double first_b = b->spmv_s, first_i = c[i].spmv_s;
    MPCG_CHECK(t->ctx, time_spmv(t, t->plan, CLOSE_GROUPS, CLOSE_PER, &b->spmv_s));
    MPCG_CHECK(t->ctx, time_spmv(t, p, CLOSE_GROUPS, CLOSE_PER, &c[i].spmv_s));
    mpcgi_log(t->ctx, MPCG_LOG_INFO,
              "auto: %s and %s within %d %% (%.4g and %.4g ms): timed again, %d groups of %d "
              "SpMVs each: %.4g and %.4g ms",
              b->backend, c[i].backend, (int)t->close_pct, first_b * 1e3, first_i * 1e3,
              CLOSE_GROUPS, CLOSE_PER, b->spmv_s * 1e3, c[i].spmv_s * 1e3);
    return MPCG_SUCCESS;
}

/* Every ranked candidate in order, keeping the best plan so far (mpcgi_auto_decide); a close
 * call between the two is timed again first (settle_close_call). */
static mpcg_status run_candidates(trial *t)
{
    const double expected = t->c->expected_spmvs;
    for (int i = 0; i < t->ranked; i++) {
        mpcgi_spmv_plan *p = NULL;
        if (t->best >= 0 && !within_budget(t, i)) continue;
        MPCG_CHECK(t->ctx, try_candidate(t, i, &p));
        if (!p) continue;
        if (t->best >= 0) {
            mpcg_status st = settle_close_call(t, i, p);
            if (st != MPCG_SUCCESS) {
                mpcgi_spmv_plan_destroy(t->ctx, p);
                return st;
            }
        }
        if (mpcgi_auto_decide(t->c->candidates, i + 1, expected) == i) {
            mpcgi_spmv_plan_destroy(t->ctx, t->plan);
            t->plan = p;
            t->best = i;
        } else {
            mpcgi_spmv_plan_destroy(t->ctx, p);
        }
    }
    mpcgi_auto_decide(t->c->candidates, t->c->ncandidates, expected); /* every score */
    return MPCG_SUCCESS;
}

/* The device copy of A the candidates are built from, where it pays (mpcgi_auto_copy_wanted).
 * One that cannot be had for want of memory is logged and the trial goes on without it: each
 * candidate then uploads its own, as before. */
static mpcg_status copy_if_wanted(trial *t)
{
    mpcg_context *ctx = t->ctx;
    if (!mpcgi_auto_copy_wanted(ctx, t->A, t->ranked)) return MPCG_SUCCESS;
    mpcgi_saved_error saved;
    mpcgi_error_save(ctx, &saved);
    mpcg_status st = mpcgi_auto_copy_attach(ctx, t->A, &t->copy);
    if (st != MPCG_SUCCESS && !own_failure(st)) return st; /* its error recorded */
    if (st != MPCG_SUCCESS) {
        char msg[200];
        mpcg_last_error_message(ctx, msg, sizeof msg);
        mpcgi_log(ctx, MPCG_LOG_INFO, "auto: no device copy of the matrix for the trial (%s): "
                  "each candidate uploads its own", msg);
    }
    t->copied = st == MPCG_SUCCESS;
    mpcgi_error_restore(ctx, &saved);
    return MPCG_SUCCESS;
}

static mpcg_status alloc_vectors(trial *t)
{
    mpcg_context *ctx = t->ctx;
    const size_t bytes = (size_t)t->A->n * sizeof(double);
    if (ctx->kind != MPCG_DEVICE_CUDA) {
        MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)t->A->n + 1, sizeof(double), &t->x));
        MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)t->A->n + 1, sizeof(double), &t->y));
        return MPCG_SUCCESS;
    }
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes, &t->x));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, bytes, &t->y));
    if (t->req->fused_dot) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, sizeof(double), &t->dot));
    MPCG_CHECK(ctx, mpcgi_device_vec_ops()->zero(ctx, t->A->n, t->x));
    return MPCG_SUCCESS;
}

static void free_vectors(trial *t)
{
    if (t->ctx->kind == MPCG_DEVICE_CUDA) {
        mpcgi_device_free(t->ctx, t->x);
        mpcgi_device_free(t->ctx, t->y);
        mpcgi_device_free(t->ctx, t->dot);
    } else {
        mpcgi_host_free(t->x);
        mpcgi_host_free(t->y);
    }
}

mpcg_status mpcgi_spmv_auto_trial(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_request *req,
                                  mpcgi_spmv_plan **out, mpcg_backend_choice *choice,
                                  double *own_s)
{
    mpcg_status st = MPCG_SUCCESS;
    const long budget = mpcgi_options_get(req->opts, &auto_keys[MPCGI_OPT_AUTO_BUDGET]);
    trial t = {.ctx = ctx,
               .A = A,
               .req = req,
               .c = choice,
               .best = -1,
               .failed = -1,
               .t0 = mpcgi_wtime(),
               .budget = budget == MPCGI_OPTION_AUTO ? -1.0 : (double)budget,
               .reps = (int)mpcgi_options_get(req->opts, &auto_keys[MPCGI_OPT_AUTO_SPMVS]),
               .close_pct = mpcgi_options_get(req->opts, &auto_keys[MPCGI_OPT_AUTO_CLOSE])};
    *out = NULL;
    choice->expected_spmvs = mpcgi_auto_expected_spmvs(req->opts, A->n, req->maxit);
    MPCG_TRY(ctx, st, list_candidates(&t));
    MPCG_TRY(ctx, st, alloc_vectors(&t));
    MPCG_TRY(ctx, st, copy_if_wanted(&t));
    MPCG_TRY(ctx, st, run_candidates(&t));
    mpcgi_auto_copy_detach(ctx, A, &t.copy);
    if (t.best < 0) { /* every candidate failed (its status), or none was allowed */
        const int k = t.failed >= 0 ? t.failed : 0;
        MPCG_FAIL_GOTO(ctx, st, t.failed >= 0 ? t.failure : MPCG_ERR_NOT_SUPPORTED,
                       "auto: no SpMV backend could run this solve (%s: %s)",
                       choice->ncandidates ? choice->candidates[k].backend : "none",
                       choice->ncandidates ? choice->candidates[k].reason : "no backend");
    }
    snprintf(choice->chosen, sizeof choice->chosen, "%s", t.ops[t.best]->name);
    choice->trial_h2d_s = 0;
    for (int i = 0; i < choice->ncandidates; i++)
        if (i != t.best) choice->trial_h2d_s += choice->candidates[i].setup_h2d_s;
    double own = choice->candidates[t.best].setup_s;
    if (t.copied) {
        choice->copy_s = t.copy.seconds;
        MPCG_TRY(ctx, st, mpcgi_auto_copy_keep(ctx, A, &t.copy, req, &t.plan, own, &own));
        if (t.plan->ops->view != MPCGI_VIEW_DEVICE) /* built again: the copy was the trial's */
            choice->trial_h2d_s += t.copy.h2d_s;
    }
    if (own_s) *own_s = own;
    *out = t.plan;
    t.plan = NULL;
done:
    mpcgi_auto_copy_detach(ctx, A, &t.copy);
    mpcgi_spmv_plan_destroy(ctx, t.plan);
    free_vectors(&t);
    return st;
}
