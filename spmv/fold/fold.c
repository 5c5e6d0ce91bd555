/* spmv/fold/fold.c: the fold backend: the Fold method's ELL-like slot-major layout, rows longer
 * than the width folded into pieces added on the GPU; the ops glue and the options */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/csr_view.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/fold/impl.h"
#include "spmv/fold/kernels.h"
#include "spmv/fold/setup.h"
#include "spmv/spmv.h"

/*
 * analyze takes the width F from the row lengths (fold.q_pct, fold.r_pct, or fold.width) and
 * counts the pieces (two passes over the row pointers, parallel); upload copies the CSR arrays
 * and builds the layout on the GPU (spmv/fold/setup.cu: scans, the slot-major columns and their
 * padding, the folded rows' map, the values in slot order); a value update copies the new
 * values and scatters them again (the pattern stands). A CPU plan builds the same layout on the
 * host at its first product (spmv/fold/layout.c).
 *
 * Bytes per SpMV: F np slots of value + column (12 with fp64 values, 8 with fp32, 12 with hi +
 * lo) — padding counted as moved —, x gathered, y written, the pieces' sums written and read
 * (2 x 8 a piece), the folded rows' map (16 a row).
 *
 * Defaults: DEFAULT_Q_PCT, DEFAULT_R_PCT, the Fold paper's (docs/backends/fold.md, "Options
 * (`fold.*`, read at analyze)": the sweep that keeps them).
 */

#define DEFAULT_Q_PCT 150
#define DEFAULT_R_PCT 0

static const mpcgi_option_key fold_keys[] = {
    {"fold.q_pct", MPCGI_OPTION_INT, DEFAULT_Q_PCT, 0, 100000, 0, 0, NULL,
     "q in percent: the width F = ceil(q mean + r sigma) of the row lengths"},
    {"fold.r_pct", MPCGI_OPTION_INT, DEFAULT_R_PCT, 0, 100000, 0, 0, NULL,
     "r in percent: the width F = ceil(q mean + r sigma) of the row lengths"},
    {"fold.width", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 1, 1 << 20, 0, 1, NULL,
     "the width F itself; auto: from fold.q_pct and fold.r_pct (at most the longest row)"},
};
static const mpcgi_option_table fold_options = {fold_keys, 3};

static void fold_destroy(mpcg_context *ctx, void *impl)
{
    mpcgi_fold_plan *p = impl;
    mpcgi_device_free(ctx, p->d_col), mpcgi_device_free(ctx, p->d_fbits);
    mpcgi_device_free(ctx, p->d_fold_row), mpcgi_device_free(ctx, p->d_fold_ptr);
    mpcgi_device_free(ctx, p->d_val), mpcgi_device_free(ctx, p->d_val32);
    mpcgi_device_free(ctx, p->d_lo32), mpcgi_device_free(ctx, p->d_arrived);
    mpcgi_device_free(ctx, p->d_row_ptr), mpcgi_device_free(ctx, p->d_pbase);
    mpcgi_host_free(p->val64), mpcgi_host_free(p->val32), mpcgi_host_free(p->lo32);
    mpcgi_host_free(p->piece);
    mpcgi_fold_layout_free(&p->L);
    mpcgi_host_free(p);
}

static mpcg_status fold_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_fold_plan *p = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->q_pct = mpcgi_options_get(opts, &fold_keys[0]);
    p->r_pct = mpcgi_options_get(opts, &fold_keys[1]);
    const long width = mpcgi_options_get(opts, &fold_keys[2]);
    p->L.F = mpcgi_fold_width(A, p->q_pct, p->r_pct, &p->L);
    if (width != MPCGI_OPTION_AUTO) p->L.F = (int)width;
    mpcgi_fold_count(A, &p->L);
    p->mixed = (precisions & MPCGI_PREC_MIXED_STORE) != 0; /* hi is the fp32 side */
    p->fp64 = (precisions & MPCG_CAP_FP64) != 0;
    p->fp32 = (precisions & MPCG_CAP_FP32) != 0 || p->mixed;
    p->host_stale = 1;
    const size_t slots = (size_t)p->L.F * (size_t)p->L.np,
                 extra = (size_t)p->L.pieces * 16 + (size_t)p->L.folded * 16;
    sizes->bytes_matrix = slots * ((p->fp64 || p->mixed ? 8 : 4) + 4) + extra;
    sizes->bytes_matrix32 = p->fp32 ? slots * 8 + extra : 0;
    sizes->bytes_workspace = ((size_t)p->L.pieces + 1) * sizeof(double) +
                             ((size_t)mpcgi_fold_blocks(p->L.np) + (size_t)p->L.folded) *
                                 sizeof(double);
    sizes->padding_ratio = p->L.nnz > 0 ? (double)slots / (double)p->L.nnz : 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) fold_destroy(ctx, p);
    return st;
}

mpcgi_fold_args mpcgi_fold_args_of(mpcg_context *ctx, const mpcgi_fold_plan *p)
{
    return (mpcgi_fold_args){.stream = mpcgi_device_stream(ctx), .n = p->L.n, .np = p->L.np,
                             .pieces = p->L.pieces, .folded = p->L.folded, .F = p->L.F,
                             .col = p->d_col, .fbits = p->d_fbits, .fold_row = p->d_fold_row,
                             .fold_ptr = p->d_fold_ptr, .arrived = p->d_arrived};
}

/* 256-byte aligned offset. */
static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* One precision's values (part of A, CSR order) to the staging buffer, scattered into dst
 * (queued; the caller synchronises before the staging buffer goes). */
static mpcg_status stage_values(mpcg_context *ctx, mpcgi_fold_plan *p, mpcgi_csr_part part,
                                void *dst, void *stage)
{
    const mpcgi_fold_layout *L = &p->L;
    const int f32 = part != MPCGI_PART_VAL;
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, p->A, part, stage));
    void *s = mpcgi_device_stream(ctx);
    if (f32)
        MPCG_LAUNCH(ctx, mpcgi_fold_build_values_f32(s, L->n, L->np, L->F, p->d_row_ptr,
                                                     p->d_pbase, stage, dst));
    else
        MPCG_LAUNCH(ctx, mpcgi_fold_build_values_f64(s, L->n, L->np, L->F, p->d_row_ptr,
                                                     p->d_pbase, stage, dst));
    return MPCG_SUCCESS;
}

/* The values of every precision the plan holds, through `stage` (at least 8 nnz bytes). Each
 * copy into the staging buffer waits for the scatter before it (stream order). */
static mpcg_status stage_all_values(mpcg_context *ctx, mpcgi_fold_plan *p, void *stage)
{
    if (p->d_val) MPCG_CHECK(ctx, stage_values(ctx, p, MPCGI_PART_VAL, p->d_val, stage));
    if (p->d_val32) MPCG_CHECK(ctx, stage_values(ctx, p, MPCGI_PART_VAL32, p->d_val32, stage));
    if (p->d_lo32) MPCG_CHECK(ctx, stage_values(ctx, p, MPCGI_PART_LO32, p->d_lo32, stage));
    return MPCG_SUCCESS;
}

/* The device layout and values from the CSR arrays (spmv/fold/setup.cu), through one staging
 * buffer: the CSR columns, the scans' arrays and temporary storage, then each precision's
 * values (one allocation, one synchronisation, one free: setup time is the point). */
static mpcg_status build_device(mpcg_context *ctx, mpcgi_fold_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_fold_layout *L = &p->L;
    void *stream = mpcgi_device_stream(ctx);
    char *stage = NULL;
    size_t tmp_bytes = 0;
    const size_t n1 = (size_t)L->n + 1, cols = align256((size_t)L->nnz * 4 + 4),
                 fidx = align256(n1 * 8), scr = align256(n1 * 16);
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_fold_build_pattern(
                                stream, L->n, L->np, L->pieces, L->F, p->d_row_ptr, NULL, NULL,
                                NULL, NULL, NULL, &tmp_bytes, NULL, NULL, NULL, NULL));
    size_t need = cols + fidx + scr + align256(tmp_bytes + 16);
    if (need < (size_t)L->nnz * 8 + 8) need = (size_t)L->nnz * 8 + 8;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, need, &stage));
    int32_t *csr_col = (int32_t *)stage;
    int64_t *fx = (int64_t *)(stage + cols), *scratch = (int64_t *)(stage + cols + fidx);
    void *tmp = stage + cols + fidx + scr;
    MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, p->A, MPCGI_PART_COL, csr_col));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_fold_build_pattern(
                                stream, L->n, L->np, L->pieces, L->F, p->d_row_ptr, csr_col,
                                p->d_pbase, fx, scratch, tmp, &tmp_bytes, p->d_col, p->d_fbits,
                                p->d_fold_row, p->d_fold_ptr));
    MPCG_TRY(ctx, st, stage_all_values(ctx, p, stage));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx)); /* the staging buffer is read before it goes */
done:
    mpcgi_device_free(ctx, stage);
    return st;
}

static mpcg_status fold_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    mpcgi_fold_plan *p = impl;
    const mpcgi_fold_layout *L = &p->L;
    const size_t slots = (size_t)L->F * (size_t)L->np, words = (size_t)(L->n + 31) / 32 + 1;
    (void)sizes;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)L->n + 1) * 8, &p->d_row_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)L->n + 1) * 8, &p->d_pbase));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, slots * 4, &p->d_col));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, words * 4, &p->d_fbits));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)L->folded + 1) * 8, &p->d_fold_row));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)L->folded + 1) * 8, &p->d_fold_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, sizeof(int), &p->d_arrived));
    if (p->fp64) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, slots * 8, &p->d_val));
    if (p->fp32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, slots * 4, &p->d_val32));
    if (p->mixed) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, slots * 4, &p->d_lo32));
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, p->A, MPCGI_PART_ROW_PTR64, p->d_row_ptr));
    MPCG_CUDA(ctx, cudaMemsetAsync(p->d_arrived, 0, sizeof(int), mpcgi_gpu_of(ctx)->stream));
    return build_device(ctx, p);
}

static mpcg_status fold_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    mpcgi_fold_plan *p = impl;
    mpcg_status st = MPCG_SUCCESS;
    void *stage = NULL;
    p->A = A; /* same pattern: the layout stands */
    p->host_stale = 1;
    if (!p->d_col) return MPCG_SUCCESS; /* a CPU plan: its host copies follow at its next product */
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, (size_t)A->nnz * 8 + 8, &stage));
    MPCG_TRY(ctx, st, stage_all_values(ctx, p, stage));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
done:
    mpcgi_device_free(ctx, stage);
    return st;
}

static mpcg_status fold_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                              void *y, void *ws)
{
    mpcgi_fold_plan *p = impl;
    mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
    if (prec == MPCG_PRECISION_FP32)
        MPCG_LAUNCH(ctx, mpcgi_fold_apply_f32(&a, p->d_val32, x, y, ws));
    else if (prec == MPCG_PRECISION_MIXED)
        MPCG_LAUNCH(ctx, mpcgi_fold_apply_mixed(&a, p->d_val32, p->d_lo32, x, y, ws));
    else
        MPCG_LAUNCH(ctx, mpcgi_fold_apply_f64(&a, p->d_val, x, y, ws));
    return MPCG_SUCCESS;
}

static mpcg_status fold_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                  double *dot_dev, const int *skip_dev, void *ws)
{
    mpcgi_fold_plan *p = impl;
    mpcgi_fold_args a = mpcgi_fold_args_of(ctx, p);
    MPCG_ENSURE(ctx, p->d_val, MPCG_ERR_NOT_SUPPORTED,
                "backend fold: the fused dot needs fp64 values on this plan");
    MPCG_LAUNCH(ctx, mpcgi_fold_apply_dot_f64(&a, p->d_val, x, y, ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static mpcg_status fold_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                   const void *x, void *y)
{
    return mpcgi_fold_emulate(ctx, impl, prec, x, y);
}

/* The fold statistics: F and its rule, the row lengths, the rows folded and the pieces added,
 * the padding (slots / nonzeros - 1) and the inner loop's reduction (longest row / F). */
static void fold_describe(const void *impl, char *buf, size_t size)
{
    const mpcgi_fold_plan *p = impl;
    const mpcgi_fold_layout *L = &p->L;
    const double slots = (double)L->F * (double)L->np;
    snprintf(buf, size,
             "Fold ELL, slot-major: F = %d (q %.2f, r %.2f; rows: mean %.2f, sigma %.2f, max "
             "%lld), %lld rows folded into %lld pieces (%lld threads), padding %.1f %% of the "
             "nonzeros, inner loop max / F = %.2f",
             L->F, (double)p->q_pct / 100, (double)p->r_pct / 100, L->mean, L->sigma,
             (long long)L->max_len, (long long)L->folded, (long long)L->pieces,
             (long long)L->np, L->nnz > 0 ? 100.0 * (slots / (double)L->nnz - 1) : 0.0,
             L->F > 0 ? (double)L->max_len / L->F : 0.0);
}

const struct mpcgi_spmv_ops mpcgi_spmv_fold = {
    .name = "fold",
    .description = "Fold method: ELL of width about the mean row length, slot-major, "
                   "long rows folded into pieces added on the GPU",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION | MPCG_CAP_DETERMINISTIC,
    .view = MPCGI_VIEW_DEVICE,
    .options = &fold_options,
    .analyze = fold_analyze,
    .update_values = fold_update_values,
    .upload = fold_upload,
    .apply = fold_apply,
    .apply_host = fold_apply_host,
    .destroy = fold_destroy,
    .describe = fold_describe,
    .apply_dot = fold_apply_dot,
};
