/* spmv/auto/choose.c: the choice of an SpMV backend for a solve: a named backend, the cpu
 * backend on the host, or auto's decision from the cache or from a trial (spmv/auto/auto.c) */
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

/* ---------------------------------------------------------------- the choice */

int mpcgi_auto_cache_enabled(const mpcg_context *ctx, const mpcgi_options *opts)
{
    return ctx->cache_dir[0] &&
           mpcgi_options_get(opts, &mpcgi_auto_options.keys[MPCGI_OPT_AUTO_CACHE]) == MPCGI_AUTO_CACHE_ON;
}

/* A backend by name: a registered one ("fixed"), or auto on the CPU ("cpu"). */
static mpcg_status choose_fixed(mpcg_context *ctx, const char *name, mpcgi_csr *A,
                                const mpcgi_auto_request *req, mpcgi_spmv_plan **out,
                                mpcg_backend_choice *choice)
{
    const struct mpcgi_spmv_ops *ops;
    MPCG_CHECK(ctx, mpcgi_spmv_lookup(ctx, name, &ops));
    MPCG_CHECK(ctx, mpcgi_spmv_plan_create(ctx, ops, A, req->precisions, req->opts, out));
    snprintf(choice->chosen, sizeof choice->chosen, "%s", ops->name);
    snprintf(choice->source, sizeof choice->source, "%s",
             mpcgi_spmv_is_auto(name) ? "cpu" : "fixed");
    return MPCG_SUCCESS;
}

static void note_add(mpcg_backend_choice *choice, const char *what, const char *dir,
                     const char *file, const char *why)
{
    size_t len = strlen(choice->note);
    snprintf(choice->note + len, sizeof choice->note - len, "%s%s %s/%s%s%s", len ? "; " : "", what,
             dir, file, why ? ": " : "", why ? why : "");
}

/* The cached decision, its plan built: 1, or 0 (a miss, an ignored file, a plan that failed:
 * choice->note says which, the trial follows). *kept_s: the plan's setup. */
static int from_cache(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_request *req,
                      const mpcgi_auto_key *key, mpcgi_spmv_plan **out, mpcg_backend_choice *choice,
                      double *kept_s)
{
    if (!mpcgi_auto_cache_load(ctx->cache_dir, key, choice)) {
        if (choice->note[0]) mpcgi_log(ctx, MPCG_LOG_WARN, "auto: %s", choice->note);
        return 0;
    }
    mpcgi_saved_error saved;
    mpcgi_error_save(ctx, &saved);
    const double t0 = mpcgi_wtime();
    mpcg_status st = mpcgi_spmv_plan_create(ctx, mpcgi_spmv_find(choice->chosen), A,
                                            req->precisions, req->opts, out);
    if (st == MPCG_SUCCESS && (*out)->on_device) st = mpcgi_device_sync(ctx);
    *kept_s = mpcgi_wtime() - t0;
    if (st != MPCG_SUCCESS) {
        char msg[200];
        mpcg_last_error_message(ctx, msg, sizeof msg);
        mpcgi_spmv_plan_destroy(ctx, *out);
        *out = NULL;
        note_add(choice, "the cached choice failed", ctx->cache_dir, key->file, msg);
        mpcgi_log(ctx, MPCG_LOG_WARN, "auto: %s", choice->note);
    } else {
        note_add(choice, "read", ctx->cache_dir, key->file, NULL);
    }
    mpcgi_error_restore(ctx, &saved);
    return st == MPCG_SUCCESS;
}

/* Write the trial's decision; a failure is noted and logged, never the setup's. */
static void to_cache(mpcg_context *ctx, const mpcgi_auto_key *key, mpcg_backend_choice *choice)
{
    mpcgi_saved_error saved;
    mpcgi_error_save(ctx, &saved);
    if (mpcgi_auto_cache_store(ctx, ctx->cache_dir, key, choice) == MPCG_SUCCESS) {
        note_add(choice, "wrote", ctx->cache_dir, key->file, NULL);
    } else {
        char msg[200];
        mpcg_last_error_message(ctx, msg, sizeof msg);
        note_add(choice, "could not write", ctx->cache_dir, key->file, msg);
        mpcgi_log(ctx, MPCG_LOG_WARN, "auto: %s", choice->note);
    }
    mpcgi_error_restore(ctx, &saved);
}

/* The trial; where it ranked only backends with rows (a persistent loop ahead) and none of them
 * supports the solve (MPCG_ERR_NOT_SUPPORTED; a shortage of memory is not retried), the trial
 * again without that rule, noted: the solve then runs a CUDA graph or launched kernels over the
 * fastest SpMV (its variant finds no rows). */
static mpcg_status trial_or_without_rows(mpcg_context *ctx, mpcgi_csr *A,
                                         const mpcgi_auto_request *req, mpcgi_spmv_plan **out,
                                         mpcg_backend_choice *choice, double *own_s)
{
    if (!req->need_rows) return mpcgi_spmv_auto_trial(ctx, A, req, out, choice, own_s);
    mpcgi_saved_error saved;
    mpcgi_error_save(ctx, &saved);
    mpcg_status st = mpcgi_spmv_auto_trial(ctx, A, req, out, choice, own_s);
    if (st != MPCG_ERR_NOT_SUPPORTED) { /* a failure keeps its error, as without the wrapper */
        if (st == MPCG_SUCCESS) mpcgi_error_restore(ctx, &saved);
        return st;
    }
    char why[200];
    mpcg_last_error_message(ctx, why, sizeof why);
    mpcgi_error_restore(ctx, &saved);
    mpcgi_auto_request any = *req;
    any.need_rows = 0;
    MPCG_CHECK(ctx, mpcgi_spmv_auto_trial(ctx, A, &any, out, choice, own_s));
    const size_t len = strlen(choice->note);
    snprintf(choice->note + len, sizeof choice->note - len,
             "%sno backend with rows could run the solve (%.160s): timed again without them",
             len ? "; " : "", why);
    mpcgi_log(ctx, MPCG_LOG_WARN, "auto: %s", choice->note);
    return MPCG_SUCCESS;
}

/* trial_s and its SpMV-equivalents: the wall time since t0 less the kept plan's setup. */
static void account(mpcg_backend_choice *choice, double t0, double kept_s)
{
    const mpcg_backend_candidate *kept = NULL;
    const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(choice->chosen);
    for (int i = 0; i < choice->ncandidates; i++) /* names are the tables' own strings */
        if (!choice->candidates[i].skipped && ops && choice->candidates[i].backend == ops->name)
            kept = &choice->candidates[i];
    if (kept_s < 0) kept_s = kept ? kept->setup_s : 0;
    choice->trial_s = mpcgi_wtime() - t0 - kept_s;
    choice->trial_cost_spmv_equivalents =
        kept && kept->spmv_s > 0 ? choice->trial_s / kept->spmv_s : 0;
}

mpcg_status mpcgi_spmv_choose(mpcg_context *ctx, const char *name, mpcgi_csr *A,
                              const mpcgi_auto_request *req, mpcgi_spmv_plan **out,
                              mpcg_backend_choice *choice)
{
    memset(choice, 0, sizeof *choice);
    *out = NULL;
    if (!mpcgi_spmv_is_auto(name) || ctx->kind != MPCG_DEVICE_CUDA)
        return choose_fixed(ctx, name, A, req, out, choice);
    const double t0 = mpcgi_wtime();
    double kept_s = -1;
    const int cache = mpcgi_auto_cache_enabled(ctx, req->opts);
    mpcgi_auto_key key;
    if (cache) {
        MPCG_CHECK(ctx, mpcgi_auto_key_make(ctx, A, req, &key));
        choice->hash_s = mpcgi_wtime() - t0;
    }
    if (cache && from_cache(ctx, A, req, &key, out, choice, &kept_s)) {
        snprintf(choice->source, sizeof choice->source, "cache");
    } else {
        MPCG_CHECK(ctx, trial_or_without_rows(ctx, A, req, out, choice, &kept_s));
        snprintf(choice->source, sizeof choice->source, "trial");
        if (cache) to_cache(ctx, &key, choice);
    }
    account(choice, t0, kept_s);
    mpcgi_log(ctx, MPCG_LOG_INFO, "auto: %s (%s), %.3g s beyond its setup (%.0f SpMVs)",
              choice->chosen, choice->source, choice->trial_s, choice->trial_cost_spmv_equivalents);
    return MPCG_SUCCESS;
}
