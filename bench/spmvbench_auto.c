/* bench/spmvbench_auto.c: spmvbench's auto row: auto's trial, and its choice against the fastest
 * row */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/spmvbench_auto.h"
#include "core/error.h"
#include "core/timer.h"
#include "spmv/auto/auto.h"

mpcg_status bench_auto_trial(mpcg_context *ctx, mpcgi_csr *A, mpcg_precision prec,
                             const mpcgi_options *opts, bench_auto *a)
{
    const mpcgi_auto_request req = {
        .precision = prec,
        .precisions = prec == MPCG_PRECISION_FP32 ? MPCG_CAP_FP32 : MPCG_CAP_FP64,
        .apply = prec,
        .opts = opts,
        .maxit = 10 * A->n > 100 ? 10 * A->n : 100}; /* the library's default maxit */
    mpcgi_spmv_plan *plan = NULL;
    memset(a, 0, sizeof *a);
    a->precision = prec == MPCG_PRECISION_FP32 ? "fp32" : "fp64";
    const double t0 = mpcgi_wtime();
    MPCG_CHECK(ctx, mpcgi_spmv_auto_trial(ctx, A, &req, &plan, &a->choice, NULL));
    a->setup_ms = (mpcgi_wtime() - t0) * 1e3;
    a->chosen = plan->ops;
    mpcgi_spmv_plan_destroy(ctx, plan);
    return MPCG_SUCCESS;
}

/* The kept candidate of a trial. */
static const mpcg_backend_candidate *kept(const bench_auto *a)
{
    for (int i = 0; i < a->choice.ncandidates; i++)
        if (!a->choice.candidates[i].skipped && a->choice.candidates[i].backend == a->chosen->name)
            return &a->choice.candidates[i];
    return NULL;
}

void bench_auto_record(const bench_auto *a, bench_record *r)
{
    const mpcg_backend_candidate *k = kept(a);
    snprintf(r->auto_chosen, sizeof r->auto_chosen, "%s", a->chosen->name);
    r->auto_trial_ms = k ? a->setup_ms - 1e3 * k->setup_s : NAN;
    r->auto_trial_spmvs = k ? r->auto_trial_ms * 1e-3 / k->spmv_s : NAN;
    r->auto_timed = 0;
    for (int i = 0; i < a->choice.ncandidates; i++)
        r->auto_timed += !a->choice.candidates[i].skipped;
}

/* The fastest ok row of precision p that is not an auto row, or NULL. */
static const bench_record *fastest(const bench_records *list, const char *p)
{
    const bench_record *best = NULL;
    for (int k = 0; k < list->count; k++) {
        const bench_record *r = &list->v[k];
        if (strcmp(r->precision, p) || strcmp(r->status, "ok") || r->auto_chosen[0]) continue;
        if (!best || r->ms < best->ms) best = r;
    }
    return best;
}

/* The row of backend `name` in precision p (not an auto row), or NULL. */
static const bench_record *row_of(const bench_records *list, const char *p, const char *name)
{
    for (int k = 0; k < list->count; k++) {
        const bench_record *r = &list->v[k];
        if (!strcmp(r->precision, p) && !strcmp(r->backend, name) && !r->auto_chosen[0]) return r;
    }
    return NULL;
}

void bench_auto_report(const bench_auto *a, int count, const bench_records *list)
{
    for (int t = 0; t < count; t++) {
        const bench_auto *x = &a[t];
        const bench_record *best = fastest(list, x->precision);
        const bench_record *own = row_of(list, x->precision, x->chosen->name);
        printf("auto: %s trial:", x->precision);
        for (int i = 0; i < x->choice.ncandidates; i++) {
            const mpcg_backend_candidate *k = &x->choice.candidates[i];
            if (!k->skipped)
                printf(" %s %.4g ms (setup %.3g ms);", k->backend, 1e3 * k->spmv_s,
                       1e3 * k->setup_s);
        }
        printf(" skipped:");
        for (int i = 0; i < x->choice.ncandidates; i++)
            if (x->choice.candidates[i].skipped) printf(" %s", x->choice.candidates[i].backend);
        printf("\n");
        printf("auto: %s kept %s, its row %.4g ms; the fastest row %s %.4g ms: %.3f x the "
               "fastest%s\n",
               x->precision, x->chosen->name, own ? own->ms : NAN, best ? best->backend : "-",
               best ? best->ms : NAN, own && best ? own->ms / best->ms : NAN,
               own ? "" : " (its backend has no row: give it in --spmv)");
    }
}
