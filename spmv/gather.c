/* spmv/gather.c: the gather backend (seed 002's memory accelerator, emulated on the GPU): the
 * fold layout, x gathered into slot order by a kernel (the accelerator), then the direct kernel
 * on two dense streams; the ops glue */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/fold_impl.h"
#include "spmv/fold_kernels.h"
#include "spmv/spmv.h"

/*
 * The plan is a fold plan (spmv/fold.c: the same analysis, layout, upload, value updates, CPU
 * emulation and fold.* options) with xg, one value per slot, after fold's workspace. An apply
 * is two steps: `gather`, xg[i] = x[col[i]] (what the seed's accelerator would deliver: a dense
 * stream in slot order), and `direct`, fold's kernel reading xg where fold reads x[col] (the
 * same products and sums in the same order: the result is fold's, bit for bit), then fold's
 * fixup. spmvbench times the steps apart (the phases slot): the direct step is what the GPU
 * would spend with a real accelerator, the sum what it spends here.
 *
 * Bytes: the gather reads the columns (4 a slot) and x, writes xg (8 or 4 a slot); the direct
 * step reads the values and xg. bytes_matrix counts both steps.
 */

static const char *const phase_names[] = {"gather", "direct"};

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

static mpcg_status gather_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                  const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    MPCG_CHECK(ctx, mpcgi_spmv_fold.analyze(ctx, A, precisions, opts, impl, sizes));
    mpcgi_fold_plan *p = *impl;
    const size_t slots = (size_t)p->L.F * (size_t)p->L.np;
    const int wide = p->fp64 || p->mixed; /* xg holds the vectors' type */
    p->xg_offset = align256(sizes->bytes_workspace);
    sizes->bytes_workspace = p->xg_offset + slots * (wide ? 8 : 4);
    sizes->bytes_matrix += slots * (4 + (wide ? 16 : 8)) - slots * 4; /* + xg written, read */
    if (p->fp32) sizes->bytes_matrix32 += slots * 8 - slots * 4;
    return MPCG_SUCCESS;
}

static mpcg_status gather_step(mpcg_context *ctx, mpcgi_fold_plan *p, mpcg_precision prec,
                               const void *x, void *y, void *ws, int phase)
{
    mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
    void *xg = (char *)ws + p->xg_offset;
    const int f32 = prec == MPCG_PRECISION_FP32;
    if (phase == 0) {
        if (f32) MPCG_LAUNCH(ctx, mpcgi_gather_x_f32(&a, x, xg));
        else MPCG_LAUNCH(ctx, mpcgi_gather_x_f64(&a, x, xg));
    } else if (f32) {
        MPCG_LAUNCH(ctx, mpcgi_gather_direct_f32(&a, p->d_val32, x, xg, y, ws));
    } else if (prec == MPCG_PRECISION_MIXED) {
        MPCG_LAUNCH(ctx, mpcgi_gather_direct_mixed(&a, p->d_val32, p->d_lo32, x, xg, y, ws));
    } else {
        MPCG_LAUNCH(ctx, mpcgi_gather_direct_f64(&a, p->d_val, x, xg, y, ws));
    }
    return MPCG_SUCCESS;
}

static mpcg_status gather_apply_phase(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                      const void *x, void *y, void *ws, int phase)
{
    return gather_step(ctx, impl, prec, x, y, ws, phase);
}

static mpcg_status gather_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                                void *y, void *ws)
{
    MPCG_CHECK(ctx, gather_step(ctx, impl, prec, x, y, ws, 0));
    return gather_step(ctx, impl, prec, x, y, ws, 1);
}

static mpcg_status gather_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                    double *dot_dev, const int *skip_dev, void *ws)
{
    mpcgi_fold_plan *p = impl;
    mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
    double *xg = (double *)((char *)ws + p->xg_offset);
    MPCG_ENSURE(ctx, p->d_val, MPCG_ERR_NOT_SUPPORTED,
                "backend gather: the fused dot needs fp64 values on this plan");
    MPCG_LAUNCH(ctx, mpcgi_gather_x_f64(&a, x, xg));
    MPCG_LAUNCH(ctx, mpcgi_gather_direct_dot_f64(&a, p->d_val, x, xg, y, ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static void gather_describe(const void *impl, char *buf, size_t size)
{
    mpcgi_spmv_fold.describe(impl, buf, size);
    const size_t len = strlen(buf);
    snprintf(buf + len, size - len, "; x gathered into slot order by a kernel (the emulated "
             "memory accelerator), then the direct kernel");
}

/* fold's slots, through wrappers (a static table cannot take another table's pointers) */
static mpcg_status gather_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    return mpcgi_spmv_fold.upload(ctx, impl, sizes);
}

static mpcg_status gather_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    return mpcgi_spmv_fold.update_values(ctx, impl, A);
}

static mpcg_status gather_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                     const void *x, void *y)
{
    return mpcgi_spmv_fold.apply_host(ctx, impl, prec, x, y); /* fold's sums: the same bits */
}

static void gather_destroy(mpcg_context *ctx, void *impl)
{
    mpcgi_spmv_fold.destroy(ctx, impl);
}

const struct mpcgi_spmv_ops mpcgi_spmv_gather = {
    .name = "gather",
    .description = "the fold layout with x gathered into slot order first (seed 002's memory "
                   "accelerator, emulated by a kernel), then a direct kernel on dense streams",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION | MPCG_CAP_DETERMINISTIC,
    .analyze = gather_analyze,
    .update_values = gather_update_values,
    .upload = gather_upload,
    .apply = gather_apply,
    .apply_host = gather_apply_host,
    .destroy = gather_destroy,
    .describe = gather_describe,
    .apply_dot = gather_apply_dot,
    .phases = 2,
    .phase_names = phase_names,
    .apply_phase = gather_apply_phase,
};
