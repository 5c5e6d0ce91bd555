/* spmv/registry.c: the one list of SpMV backends, and the "auto" policy */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/context.h"
#include "core/error.h"
#include "spmv/spmv.h"

/*
 * The one list of backends: a backend is one entry here (and the extern of its table in
 * spmv/spmv.h). The order is the listing's (`cgsolve --list-backends`, mpcg_backend_get).
 *
 * rank is the backend's place in auto's trial (spmv/auto/auto.c, docs/backends/auto.md): auto
 * times the ranked backends in rank order, as far as the solve allows them (capabilities,
 * precision, a block product) and the trial's budget reaches. Most often fastest first: adaptive
 * is within 5 % of the fastest on most of the standard set, fold is the fastest on the stencils,
 * segscan on the replicas in row order; cusparse, the vendor baseline, last. A backend of rank 0
 * is never timed, for the reason given. The cpu backend ranks last: a GPU trial refuses it by its
 * caps (it runs on the CPU), a trial on a CPU context (the tests) can time it.
 */
static const struct {
    const struct mpcgi_spmv_ops *ops;
    int rank;
    const char *skip;
} backends[] = {
    {&mpcgi_spmv_cpu, 5, NULL},
#if MPCG_HAVE_CUDA
    {&mpcgi_spmv_cusparse, 4, NULL},
    {&mpcgi_spmv_adaptive, 1, NULL},
    {&mpcgi_spmv_segscan, 3, NULL},
    {&mpcgi_spmv_fold, 2, NULL},
    {&mpcgi_spmv_cusparse_sell, 0,
     "never tried by auto: cuSPARSE's sliced ELL is built on the host, a setup of about a "
     "thousand SpMVs, and fold's layout is as fast or faster (docs/backends.md)"},
    {&mpcgi_spmv_gather, 0,
     "never tried by auto: it emulates a memory accelerator, fold's product after a gather "
     "step, never faster than fold (docs/backends/fold.md)"},
#endif
};

int mpcgi_spmv_count(void) { return (int)(sizeof backends / sizeof backends[0]); }

const struct mpcgi_spmv_ops *mpcgi_spmv_get(int i)
{
    return i >= 0 && i < mpcgi_spmv_count() ? backends[i].ops : NULL;
}

int mpcgi_spmv_auto_rank(const struct mpcgi_spmv_ops *ops, const char **skip)
{
    for (int i = 0; i < mpcgi_spmv_count(); i++)
        if (backends[i].ops == ops) {
            *skip = backends[i].skip;
            return backends[i].rank;
        }
    *skip = "never tried by auto: not in its list (spmv/registry.c)";
    return 0;
}

int mpcgi_spmv_is_auto(const char *name)
{
    return name && strcmp(name, "auto") == 0;
}

const struct mpcgi_spmv_ops *mpcgi_spmv_find(const char *name)
{
    for (int i = 0; name && i < mpcgi_spmv_count(); i++)
        if (strcmp(backends[i].ops->name, name) == 0) return backends[i].ops;
    return NULL;
}

/* What "auto" names without a matrix: the cpu backend on the CPU; on a GPU the first candidate
 * of the trial (what a trial without budget for a second plan keeps). */
static const char *auto_choice(const mpcg_context *ctx)
{
    const struct mpcgi_spmv_ops *first = NULL;
    int best = 0;
    const char *skip;
    if (ctx->kind != MPCG_DEVICE_CUDA) return "cpu";
    for (int i = 0; i < mpcgi_spmv_count(); i++) {
        const struct mpcgi_spmv_ops *ops = backends[i].ops;
        int r = mpcgi_spmv_auto_rank(ops, &skip);
        if (r > 0 && (ops->caps & MPCG_CAP_NEEDS_DEVICE) && (!first || r < best))
            first = ops, best = r;
    }
    return first ? first->name : "none";
}

mpcg_status mpcgi_spmv_lookup(mpcg_context *ctx, const char *name,
                              const struct mpcgi_spmv_ops **out)
{
    *out = NULL;
    MPCG_ENSURE(ctx, name, MPCG_ERR_INVALID_ARG, "backend name must not be NULL");
    if (mpcgi_spmv_is_auto(name)) name = auto_choice(ctx);
    if ((*out = mpcgi_spmv_find(name)) != NULL) return MPCG_SUCCESS;
    char known[256] = "auto";
    for (int i = 0; i < mpcgi_spmv_count(); i++) {
        size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, ", %s", backends[i].ops->name);
    }
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "unknown SpMV backend \"%s\" (known in this build: %s)",
              name, known);
}

int mpcg_backend_count(void) { return mpcgi_spmv_count(); }

mpcg_status mpcg_backend_get(int i, mpcg_backend_info *info)
{
    MPCG_ENSURE(NULL, info, MPCG_ERR_INVALID_ARG, "info must not be NULL");
    MPCG_ENSURE(NULL, i >= 0 && i < mpcgi_spmv_count(), MPCG_ERR_INVALID_ARG,
                "backend index %d out of range [0, %d)", i, mpcgi_spmv_count());
    info->name = backends[i].ops->name;
    info->description = backends[i].ops->description;
    info->caps = backends[i].ops->caps;
    return MPCG_SUCCESS;
}
