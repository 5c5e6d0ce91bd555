/* spmv/fold/gather.c: the gather backend (the Fold paper's memory accelerator, emulated on the
 * GPU): the fold layout, x gathered into slot order by a kernel (the accelerator), then the direct
 * kernel on two dense streams; the ops glue */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/fold/impl.h"
#include "spmv/fold/kernels.h"
#include "spmv/fold/gather_ooc.h"
#include "spmv/spmv.h"

/*
 * The plan is a fold plan (spmv/fold/fold.c: the same analysis, layout, upload, value updates, CPU
 * emulation and fold.* options) with xg, one value per slot, after fold's workspace. An apply
 * is two steps: `gather`, xg[i] = x[col[i]] (what the paper's accelerator would deliver: a dense
 * stream in slot order), and `direct`, fold's kernel reading xg where fold reads x[col] (the
 * same products and sums in the same order: the result is fold's, bit for bit), then fold's
 * fixup. spmvbench times the steps apart (the phases slot): the direct step is what the GPU
 * would spend with a real accelerator, the sum what it spends here.
 *
 * Bytes: the gather reads the columns (4 a slot) and x, writes xg (8 or 4 a slot); the direct
 * step reads the values and xg. bytes_matrix counts both steps.
 */

static const char *const phase_names[] = {"gather", "direct"};

enum { OOC_OFF, OOC_ON };
static const char *const ooc_words[] = {"off", "on", NULL};
static const mpcgi_option_key gather_keys[] = {
    {"gather.ooc", MPCGI_OPTION_WORD, OOC_OFF, 0, 0, 0, 0, ooc_words,
     "out-of-core: the matrix in pinned host memory, streamed in chunks with x gathered by host "
     "threads (fp64)"},
    {"gather.chunk", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, MPCGI_FOLD_THREADS, 1 << 30, 0, 1, NULL,
     "out-of-core: threads a chunk, a multiple of 256; auto: about a sixteenth of the layout "
     "(4 - 64 MiB of values), less where the device-memory limit says"},
    {"gather.model", MPCGI_OPTION_WORD, OOC_OFF, 0, 0, 0, 0, ooc_words,
     "out-of-core: measure the link when the plan is made and time each product's stages "
     "(gather, copies, kernel; it then waits for its end) for the performance model in the "
     "plan's description"},
};
static const mpcgi_option_table gather_options = {gather_keys, 3};

/* The out-of-core state of a plan: the fold plan's, plus the streaming (spmv/fold/gather_ooc.c). */
typedef struct gather_extra {
    int ooc, model;
    long chunk;
    gather_ooc *o;
} gather_extra;

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

static mpcg_status gather_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                  const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    const int ooc = mpcgi_options_get(opts, &gather_keys[0]) == OOC_ON;
    MPCG_ENSURE(ctx, !ooc || !A->dev, MPCG_ERR_NOT_SUPPORTED,
                "backend gather: gather.ooc=on streams a matrix held in host memory, and this "
                "one is a view of device arrays (it is on the GPU already: gather.ooc=off)");
    MPCG_ENSURE(ctx, !ooc || ((precisions & MPCG_CAP_FP64) &&
                              !(precisions & (MPCG_CAP_FP32 | MPCGI_PREC_MIXED_STORE))),
                MPCG_ERR_NOT_SUPPORTED,
                "backend gather: gather.ooc=on runs fp64 only in this version");
    MPCG_CHECK(ctx, mpcgi_spmv_fold.analyze(ctx, A, precisions, opts, impl, sizes));
    mpcgi_fold_plan *p = *impl;
    gather_extra *e = NULL;
    const mpcg_status st = mpcgi_host_calloc(ctx, 1, sizeof *e, &e);
    if (st != MPCG_SUCCESS) {
        mpcgi_spmv_fold.destroy(ctx, p);
        *impl = NULL;
        return st;
    }
    e->ooc = ooc;
    e->chunk = mpcgi_options_get(opts, &gather_keys[1]);
    e->model = mpcgi_options_get(opts, &gather_keys[2]) == OOC_ON;
    p->extra = e;
    const size_t slots = (size_t)p->L.F * (size_t)p->L.np;
    const int wide = p->fp64 || p->mixed; /* xg holds the vectors' type */
    if (ooc) { /* fold's workspace as it is (the pieces' sums, apply_dot's partials); the slots
                * stream from the host */
        sizes->bytes_matrix = slots * 16 + (size_t)p->L.n * 8; /* values, xg; x to the host */
        sizes->host_driven = 1; /* the host gathers between the chunks' copies */
        return MPCG_SUCCESS;
    }
    p->xg_offset = align256(sizes->bytes_workspace);
    sizes->bytes_workspace = p->xg_offset + slots * (wide ? 8 : 4);
    sizes->bytes_matrix += slots * (4 + (wide ? 16 : 8)) - slots * 4; /* + xg written, read */
    if (p->fp32) sizes->bytes_matrix32 += slots * 8 - slots * 4;
    return MPCG_SUCCESS;
}

/* Out-of-core upload: the host layout, the folded rows' map on the device, the chunk size from
 * the device-memory limit, the pinned tiles and the chunk buffers (spmv/fold/gather_ooc.c). */
static mpcg_status ooc_upload(mpcg_context *ctx, mpcgi_fold_plan *p, gather_extra *e)
{
    const mpcgi_fold_layout *L = &p->L;
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    const size_t m = ((size_t)L->folded + 1) * 8, words = ((size_t)L->n + 31) / 32 * 4;
    MPCG_CHECK(ctx, mpcgi_fold_layout_build(ctx, p->A, &p->L));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, m, &p->d_fold_row));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, m, &p->d_fold_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, words ? words : 4, &p->d_fbits));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, sizeof(int), &p->d_arrived));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_fold_row, L->fold_row, m, MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_fold_ptr, L->fold_ptr, m, MPCGI_H2D));
    if (words) MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_fbits, L->fbits, words, MPCGI_H2D));
    MPCG_CUDA(ctx, cudaMemsetAsync(p->d_arrived, 0, sizeof(int), g->stream));
    const int64_t C = e->chunk != MPCGI_OPTION_AUTO
                          ? e->chunk
                          : mpcgi_gather_ooc_chunk_threads(g->mem_limit, g->mem_in_use, L->n,
                                                           L->F, L->np);
    MPCG_ENSURE(ctx, C >= MPCGI_FOLD_THREADS, MPCG_ERR_DEVICE_ALLOC,
                "backend gather: the device-memory limit of %zu bytes (%zu held) leaves no room "
                "for one out-of-core chunk of %d threads (%zu bytes at F = %d) beside the "
                "solver's vectors", g->mem_limit, g->mem_in_use, MPCGI_FOLD_THREADS,
                (size_t)3 * MPCGI_FOLD_THREADS * (size_t)L->F * 16, L->F);
    return mpcgi_gather_ooc_create(ctx, p, C, e->model, &e->o);
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
    const mpcgi_fold_plan *p = impl;
    const gather_extra *e = p->extra;
    MPCG_ENSURE(ctx, !e->ooc, MPCG_ERR_NOT_SUPPORTED,
                "backend gather: the out-of-core apply has no separate steps");
    return gather_step(ctx, impl, prec, x, y, ws, phase);
}

static mpcg_status gather_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                                void *y, void *ws)
{
    mpcgi_fold_plan *p = impl;
    gather_extra *e = p->extra;
    if (e->ooc) {
        mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
        return mpcgi_gather_ooc_apply(ctx, e->o, &a, x, y, ws, NULL);
    }
    MPCG_CHECK(ctx, gather_step(ctx, impl, prec, x, y, ws, 0));
    return gather_step(ctx, impl, prec, x, y, ws, 1);
}

static mpcg_status gather_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                    double *dot_dev, const int *skip_dev, void *ws)
{
    mpcgi_fold_plan *p = impl;
    gather_extra *e = p->extra;
    mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
    if (e->ooc) { /* host-driven: the skip flag is read on the host (the apply waits anyway) */
        int skip = 0;
        if (skip_dev) MPCG_CHECK(ctx, mpcgi_device_copy(ctx, &skip, skip_dev, sizeof skip,
                                                        MPCGI_D2H));
        return skip ? MPCG_SUCCESS : mpcgi_gather_ooc_apply(ctx, e->o, &a, x, y, ws, dot_dev);
    }
    double *xg = (double *)((char *)ws + p->xg_offset);
    MPCG_ENSURE(ctx, p->d_val, MPCG_ERR_NOT_SUPPORTED,
                "backend gather: the fused dot needs fp64 values on this plan");
    MPCG_LAUNCH(ctx, mpcgi_gather_x_f64(&a, x, xg));
    MPCG_LAUNCH(ctx, mpcgi_gather_direct_dot_f64(&a, p->d_val, x, xg, y, ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static void gather_describe(const void *impl, char *buf, size_t size)
{
    const mpcgi_fold_plan *p = impl;
    const gather_extra *e = p->extra;
    mpcgi_spmv_fold.describe(impl, buf, size);
    const size_t len = strlen(buf);
    const mpcgi_gather_ooc_timing *m = e && e->o ? mpcgi_gather_ooc_model(e->o) : NULL;
    if (e && e->ooc && m) {
        const double link_ms = m->copy_bytes / (m->link_gbs * 1e9) * 1e3;
        snprintf(buf + len, size - len,
                 "; out-of-core, %lld chunks of %lld threads; model of the last product: x to "
                 "the host %.3f ms, host gather %.3f ms (%.2f G slots/s), %.1f MB over a %.1f "
                 "GB/s link %.3f ms (in the pipeline %.3f ms, %.1f GB/s), direct kernel %.3f "
                 "ms -> predicted %.3f ms, measured %.3f ms (streaming %.1f GB/s)",
                 (long long)m->chunks, (long long)mpcgi_gather_ooc_chunk_size(e->o), m->x_ms,
                 m->gather_ms, m->slots / (m->gather_ms * 1e-3) * 1e-9, m->copy_bytes * 1e-6,
                 m->link_gbs, link_ms, m->copy_ms, m->copy_bytes / (m->copy_ms * 1e-3) * 1e-9,
                 m->kernel_ms, mpcgi_gather_ooc_predict(m), m->wall_ms,
                 m->copy_bytes / (m->wall_ms * 1e-3) * 1e-9);
    } else if (e && e->ooc) {
        snprintf(buf + len, size - len, "; out-of-core, %lld threads a chunk: the slots in "
                 "pinned host memory, x gathered by host threads, chunks streamed (-O "
                 "gather.model=on times the stages)", (long long)mpcgi_gather_ooc_chunk_size(e->o));
    } else {
        snprintf(buf + len, size - len, "; x gathered into slot order by a kernel (the emulated "
                 "memory accelerator), then the direct kernel");
    }
}

/* fold's slots, through wrappers (a static table cannot take another table's pointers) */
static mpcg_status gather_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    mpcgi_fold_plan *p = impl;
    gather_extra *e = p->extra;
    return e->ooc ? ooc_upload(ctx, p, e) : mpcgi_spmv_fold.upload(ctx, impl, sizes);
}

static mpcg_status gather_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    mpcgi_fold_plan *p = impl;
    gather_extra *e = p->extra;
    if (!e->o) return mpcgi_spmv_fold.update_values(ctx, impl, A);
    p->A = A; /* same pattern */
    p->host_stale = 1;
    return mpcgi_gather_ooc_values(ctx, e->o, p);
}

static mpcg_status gather_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                     const void *x, void *y)
{
    return mpcgi_spmv_fold.apply_host(ctx, impl, prec, x, y); /* fold's sums: the same bits */
}

static void gather_destroy(mpcg_context *ctx, void *impl)
{
    mpcgi_fold_plan *p = impl;
    gather_extra *e = p->extra;
    if (e) {
        mpcgi_gather_ooc_free(ctx, e->o);
        mpcgi_host_free(e);
    }
    mpcgi_spmv_fold.destroy(ctx, impl);
}

const struct mpcgi_spmv_ops mpcgi_spmv_gather = {
    .name = "gather",
    .description = "the fold layout with x gathered into slot order first (a memory accelerator's "
                   "gather, emulated by a kernel), then a direct kernel on dense streams",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION | MPCG_CAP_DETERMINISTIC | MPCG_CAP_OUT_OF_CORE,
    .view = MPCGI_VIEW_DEVICE, /* fold's upload; gather.ooc=on refuses a view */
    .options = &gather_options,
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
