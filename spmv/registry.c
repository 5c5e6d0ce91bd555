/* spmv/registry.c: the one list of SpMV backends, and the "auto" policy */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/context.h"
#include "core/error.h"
#include "spmv/spmv.h"

static const struct mpcgi_spmv_ops *const backends[] = {
    &mpcgi_spmv_cpu,
#if MPCG_HAVE_CUDA
    &mpcgi_spmv_cusparse,
    &mpcgi_spmv_adaptive,
    &mpcgi_spmv_segscan,
    &mpcgi_spmv_fold,
    &mpcgi_spmv_cusparse_sell,
    &mpcgi_spmv_gather,
#endif
};

int mpcgi_spmv_count(void) { return (int)(sizeof backends / sizeof backends[0]); }

const struct mpcgi_spmv_ops *mpcgi_spmv_get(int i)
{
    return i >= 0 && i < mpcgi_spmv_count() ? backends[i] : NULL;
}

/* "auto": the vendor baseline on a GPU, the OpenMP CSR on the CPU. */
static const char *auto_choice(const mpcg_context *ctx)
{
    return ctx->kind == MPCG_DEVICE_CUDA ? "cusparse" : "cpu";
}

mpcg_status mpcgi_spmv_lookup(mpcg_context *ctx, const char *name,
                              const struct mpcgi_spmv_ops **out)
{
    *out = NULL;
    MPCG_ENSURE(ctx, name, MPCG_ERR_INVALID_ARG, "backend name must not be NULL");
    if (strcmp(name, "auto") == 0) name = auto_choice(ctx);
    for (int i = 0; i < mpcgi_spmv_count(); i++)
        if (strcmp(backends[i]->name, name) == 0) {
            *out = backends[i];
            return MPCG_SUCCESS;
        }
    char known[256] = "auto";
    for (int i = 0; i < mpcgi_spmv_count(); i++) {
        size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, ", %s", backends[i]->name);
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
    info->name = backends[i]->name;
    info->description = backends[i]->description;
    info->caps = backends[i]->caps;
    return MPCG_SUCCESS;
}
