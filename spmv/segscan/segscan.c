/* spmv/segscan/segscan.c: the segscan backend (the segmented-scan SpMV): nonzero segments of L
 * entries on the CSR arrays as they are, a segmented reduction per segment, carries for rows that
 * cross; the ops glue and the options */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/csr_view.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/segscan/impl.h"
#include "spmv/segscan/kernels.h"
#include "spmv/spmv.h"

/*
 * Layout: A's CSR arrays unchanged (int64 row pointers, int32 columns; fp64 values, fp32 values,
 * or the mixed storage's hi and lo) and, built on the GPU at upload (spmv/segscan/setup.cu):
 * hb, the first row with its head in each segment (nseg + 1 int64), and with
 * segscan.reduce=index the paper's per-nonzero run offsets (uint16). The workspace holds one
 * carry per segment, and apply_dot's partial dot per segment.
 *
 * Bytes per SpMV: 12 per nonzero with fp64 values (8 with fp32, 12 with hi + lo), + 2 with the
 * index reduction, + 8 per row (row pointers, read for the heads and again, from cache, for the
 * ends), + 8 per segment; x gathered, y written once per row.
 *
 * The shape (docs/backends/segscan.md, "Options (`segscan.*`, read at analyze)"): V nonzeros a
 * thread, L = 256 V a segment by default; DEFAULT_V keeps a block's loads in flight long enough
 * between its barriers.
 */

#define DEFAULT_V 8
#define DEFAULT_THREADS 256
#define SEED_L 256 /* the paper's segment, the index reduction's default */

enum { REDUCE_SCAN, REDUCE_INDEX };
static const char *const reduce_words[] = {"shuffle", "index", NULL};


static const mpcgi_option_key segscan_keys[] = {
    {"segscan.segment", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 128, 4096, 1, 1, NULL,
     "nonzeros per segment, one block each; auto: 256 threads of segscan.per_thread (index: "
     "256)"},
    {"segscan.per_thread", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 1, 8, 1, 1, NULL,
     "nonzeros a thread of the shuffle reduction (128 .. 512 threads a block); auto: 8 (index: "
     "1)"},
    {"segscan.reduce", MPCGI_OPTION_WORD, REDUCE_SCAN, 0, 0, 0, 0, reduce_words,
     "the in-segment reduction: a warp-shuffle segmented scan, or an index-based tree "
     "(one nonzero a thread, a 2-byte run offset per nonzero)"},
};
static const mpcgi_option_table segscan_options = {segscan_keys, 3};

static void segscan_destroy(mpcg_context *ctx, void *impl)
{
    mpcgi_segscan_plan *p = impl;
    mpcgi_device_free(ctx, p->d_row_ptr), mpcgi_device_free(ctx, p->d_hb);
    mpcgi_device_free(ctx, p->d_col), mpcgi_device_free(ctx, p->d_val);
    mpcgi_device_free(ctx, p->d_val32), mpcgi_device_free(ctx, p->d_lo32);
    mpcgi_device_free(ctx, p->d_idx), mpcgi_device_free(ctx, p->d_arrived);
    mpcgi_host_free(p->hb), mpcgi_host_free(p->idx), mpcgi_host_free(p->scratch);
    mpcgi_host_free(p);
}

/* L and V from the options (auto: module comment), checked against the kernels' shapes. */
static mpcg_status segscan_shape(mpcg_context *ctx, const mpcgi_options *opts,
                                 mpcgi_segscan_plan *p)
{
    const long L = mpcgi_options_get(opts, &segscan_keys[0]);
    const long V = mpcgi_options_get(opts, &segscan_keys[1]);
    p->index = mpcgi_options_get(opts, &segscan_keys[2]) == REDUCE_INDEX;
    if (p->index) {
        p->V = V == MPCGI_OPTION_AUTO ? 1 : (int)V;
        p->L = L == MPCGI_OPTION_AUTO ? SEED_L : (int)L;
        MPCG_ENSURE(ctx, mpcgi_segscan_shape_ok(p->L, p->V, 1), MPCG_ERR_INVALID_ARG,
                    "backend segscan: segscan.reduce=index takes one nonzero a thread and "
                    "segments of 128 .. 1024 (asked: segscan.per_thread=%d, segscan.segment=%d)",
                    p->V, p->L);
        return MPCG_SUCCESS;
    }
    if (V != MPCGI_OPTION_AUTO) p->V = (int)V;
    else if (L == MPCGI_OPTION_AUTO) p->V = DEFAULT_V;
    else p->V = L / DEFAULT_V < 128 ? (int)L / 128 : L / DEFAULT_V > 512 ? (int)L / 512 : DEFAULT_V;
    p->L = L == MPCGI_OPTION_AUTO ? DEFAULT_THREADS * p->V : (int)L;
    MPCG_ENSURE(ctx, mpcgi_segscan_shape_ok(p->L, p->V, 0), MPCG_ERR_INVALID_ARG,
                "backend segscan: segscan.segment=%d with segscan.per_thread=%d makes %d threads "
                "a block; the shuffle reduction takes 128 .. 512",
                p->L, p->V, p->L / p->V);
    return MPCG_SUCCESS;
}

static mpcg_status segscan_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                   const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_segscan_plan *p = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    MPCG_TRY(ctx, st, segscan_shape(ctx, opts, p));
    p->A = A;
    p->nseg = A->nnz > 0 ? (A->nnz + p->L - 1) / p->L : 1; /* one segment writes y = 0 */
    p->mixed = (precisions & MPCGI_PREC_MIXED_STORE) != 0;  /* hi is the fp32 side */
    p->fp64 = (precisions & MPCG_CAP_FP64) != 0;
    p->fp32 = (precisions & MPCG_CAP_FP32) != 0 || p->mixed;
    const size_t idx = p->index ? 2 : 0, rows = ((size_t)A->n + 1) * 8,
                 segs = ((size_t)p->nseg + 1) * 8;
    sizes->bytes_matrix = (size_t)A->nnz * ((p->fp64 ? 8 : p->mixed ? 8 : 4) + 4 + idx) + rows + segs;
    sizes->bytes_matrix32 = p->fp32 ? (size_t)A->nnz * (8 + idx) + rows + segs : 0;
    sizes->bytes_workspace = (size_t)p->nseg * 2 * sizeof(double); /* carries, dot parts */
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) segscan_destroy(ctx, p);
    return st;
}

static mpcgi_segscan_args args_of(mpcg_context *ctx, const mpcgi_segscan_plan *p)
{
    return (mpcgi_segscan_args){.stream = mpcgi_device_stream(ctx), .n = p->A->n,
                                .nnz = p->A->nnz, .nseg = p->nseg, .L = p->L, .V = p->V,
                                .index = p->index, .row_ptr = p->d_row_ptr, .col = p->d_col,
                                .idx = p->d_idx, .hb = p->d_hb, .arrived = p->d_arrived};
}

static mpcg_status upload_values(mpcg_context *ctx, mpcgi_segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    if (p->d_val) MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_VAL, p->d_val));
    if (p->d_val32) MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_VAL32, p->d_val32));
    if (p->d_lo32) MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_LO32, p->d_lo32));
    return MPCG_SUCCESS;
}

/* The arrays to the device (sized to whole vector loads: the kernels load V entries at a time
 * only where all V exist, so the slack is never read); hb and idx are built there. */
static mpcg_status segscan_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    mpcgi_segscan_plan *p = impl;
    const mpcgi_csr *A = p->A;
    const size_t nz = (size_t)A->nnz + 1;
    (void)sizes;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)A->n + 1) * 8, &p->d_row_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)p->nseg + 1) * 8, &p->d_hb));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4, &p->d_col));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, sizeof(int), &p->d_arrived));
    if (p->fp64) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 8, &p->d_val));
    if (p->fp32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4, &p->d_val32));
    if (p->mixed) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4, &p->d_lo32));
    if (p->index) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 2, &p->d_idx));
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_ROW_PTR64, p->d_row_ptr));
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_COL, p->d_col));
    MPCG_CUDA(ctx, cudaMemsetAsync(p->d_arrived, 0, sizeof(int), mpcgi_gpu_of(ctx)->stream));
    MPCG_CHECK(ctx, upload_values(ctx, p));
    mpcgi_segscan_args a = args_of(ctx, p);
    MPCG_LAUNCH(ctx, mpcgi_segscan_setup(&a, p->d_hb, p->d_idx));
    return MPCG_SUCCESS;
}

static mpcg_status segscan_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    mpcgi_segscan_plan *p = impl;
    p->A = A; /* same pattern: hb and idx stand */
    return p->d_col ? upload_values(ctx, p) : MPCG_SUCCESS;
}

static mpcg_status segscan_apply(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                 const void *x, void *y, void *ws)
{
    mpcgi_segscan_plan *p = impl;
    mpcgi_segscan_args a = args_of(ctx, p);
    if (prec == MPCG_PRECISION_FP32)
        MPCG_LAUNCH(ctx, mpcgi_segscan_apply_f32(&a, p->d_val32, x, y, ws));
    else if (prec == MPCG_PRECISION_MIXED)
        MPCG_LAUNCH(ctx, mpcgi_segscan_apply_mixed(&a, p->d_val32, p->d_lo32, x, y, ws));
    else
        MPCG_LAUNCH(ctx, mpcgi_segscan_apply_f64(&a, p->d_val, x, y, ws));
    return MPCG_SUCCESS;
}

static mpcg_status segscan_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                     double *dot_dev, const int *skip_dev, void *ws)
{
    mpcgi_segscan_plan *p = impl;
    mpcgi_segscan_args a = args_of(ctx, p);
    MPCG_ENSURE(ctx, p->d_val, MPCG_ERR_NOT_SUPPORTED,
                "backend segscan: the fused dot needs fp64 values on this plan");
    MPCG_LAUNCH(ctx, mpcgi_segscan_apply_dot_f64(&a, p->d_val, x, y, ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static mpcg_status segscan_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                      const void *x, void *y)
{
    return mpcgi_segscan_emulate(ctx, impl, prec, x, y);
}

static void segscan_describe(const void *impl, char *buf, size_t size)
{
    const mpcgi_segscan_plan *p = impl;
    if (p->index)
        snprintf(buf, size, "CSR in %lld segments of %d nonzeros, the index-tree "
                 "reduction, one nonzero a thread", (long long)p->nseg, p->L);
    else
        snprintf(buf, size, "CSR in %lld segments of %d nonzeros, warp-shuffle segmented scan, "
                 "%d nonzeros a thread", (long long)p->nseg, p->L, p->V);
}

const struct mpcgi_spmv_ops mpcgi_spmv_segscan = {
    .name = "segscan",
    .description = "nonzero-balanced segmented-scan CSR: fixed segments of "
                   "nonzeros, insensitive to row skew",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION | MPCG_CAP_DETERMINISTIC,
    .view = MPCGI_VIEW_DEVICE,
    .options = &segscan_options,
    .analyze = segscan_analyze,
    .update_values = segscan_update_values,
    .upload = segscan_upload,
    .apply = segscan_apply,
    .apply_host = segscan_apply_host,
    .destroy = segscan_destroy,
    .describe = segscan_describe,
    .apply_dot = segscan_apply_dot,
};
