/* spmv/cusparse/sell.c: the cusparsesell backend: cuSPARSE's sliced ELL SpMV
 * (CUSPARSE_SPMV_SELL_ALG1, slices of 32 rows), the vendor's padded and transposed format, the
 * baseline the fold backend is measured against; and its CPU emulation */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/spmv.h"

/*
 * Layout: slices of SLICE rows; slice s is as wide as its longest row, w_s, and holds its rows'
 * entries column-major: entry j of the slice's row r at offset[s] + j SLICE + r; the padding
 * has column -1 (cuSPARSE's marker) and value 0. int32 offsets and columns, fp64 and/or fp32
 * values, built on the host at analyze (values scattered again at each value update).
 *
 * Bytes per SpMV: (value + 4) per stored slot, padding included, + 4 per slice; x gathered, y
 * written.
 */

#define SLICE 32

typedef struct side {
    int used;
    cudaDataType type;
    size_t val_size;
    void *val;                  /* device, slots */
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t x, y;
    size_t ws_offset, ws_bytes;
    int preprocessed;
} side;

typedef struct sell_plan {
    const mpcgi_csr *A;
    int64_t nslices, slots;
    int32_t *offset, *col;      /* host: nslices + 1, slots */
    int32_t *d_offset, *d_col;
    side sides[2];              /* [0] fp64, [1] fp32 */
} sell_plan;

static const double one64 = 1.0, zero64 = 0.0;
static const float one32 = 1.0f, zero32 = 0.0f;

static void sell_destroy(mpcg_context *ctx, void *impl)
{
    sell_plan *p = impl;
    for (int k = 0; k < 2; k++) {
        side *sd = &p->sides[k];
        if (sd->mat) (void)cusparseDestroySpMat(sd->mat);
        if (sd->x) (void)cusparseDestroyDnVec(sd->x);
        if (sd->y) (void)cusparseDestroyDnVec(sd->y);
        mpcgi_device_free(ctx, sd->val);
    }
    mpcgi_device_free(ctx, p->d_offset), mpcgi_device_free(ctx, p->d_col);
    mpcgi_host_free(p->offset), mpcgi_host_free(p->col);
    mpcgi_host_free(p);
}

/* The slot of entry j of row i. */
static int64_t slot_of(const sell_plan *p, int64_t i, int64_t j)
{
    return p->offset[i / SLICE] + j * SLICE + i % SLICE;
}

static mpcg_status sell_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    sell_plan *p = NULL;
    (void)opts; /* no option keys */
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->sides[0] = (side){.used = (precisions & MPCG_CAP_FP64) != 0, .type = CUDA_R_64F,
                         .val_size = sizeof(double)};
    p->sides[1] = (side){.used = (precisions & MPCG_CAP_FP32) != 0, .type = CUDA_R_32F,
                         .val_size = sizeof(float)};
    p->nslices = (A->n + SLICE - 1) / SLICE;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->nslices + 1, sizeof *p->offset,
                                             &p->offset));
    p->offset[0] = 0;
    for (int64_t s = 0; s < p->nslices; s++) {
        int64_t w = 0;
        for (int64_t i = s * SLICE; i < A->n && i < (s + 1) * SLICE; i++)
            if (A->row_ptr[i + 1] - A->row_ptr[i] > w) w = A->row_ptr[i + 1] - A->row_ptr[i];
        MPCG_ENSURE_GOTO(ctx, st, p->offset[s] + w * SLICE <= INT32_MAX, MPCG_ERR_NOT_SUPPORTED,
                         "backend cusparsesell: more than 2^31 - 1 slots (32-bit offsets)");
        p->offset[s + 1] = (int32_t)(p->offset[s] + w * SLICE);
    }
    p->slots = p->offset[p->nslices];
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->slots + 1, sizeof *p->col, &p->col));
    for (int64_t k = 0; k < p->slots; k++) p->col[k] = -1;
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            p->col[slot_of(p, i, k - A->row_ptr[i])] = A->col_idx[k];
    const size_t vs = p->sides[0].used ? 8 : 4;
    sizes->bytes_matrix = (size_t)p->slots * (vs + 4) + ((size_t)p->nslices + 1) * 4;
    sizes->bytes_matrix32 = p->sides[1].used ? (size_t)p->slots * 8 + ((size_t)p->nslices + 1) * 4
                                             : 0;
    sizes->bytes_workspace = 0; /* known at upload */
    sizes->padding_ratio = A->nnz > 0 ? (double)p->slots / (double)A->nnz : 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) sell_destroy(ctx, p);
    return st;
}

/* A's values of side k in slot order, zero padding, to the device. */
static mpcg_status upload_values(mpcg_context *ctx, sell_plan *p, int k)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_csr *A = p->A;
    side *sd = &p->sides[k];
    const size_t bytes = (size_t)p->slots * sd->val_size;
    char *h = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, (size_t)p->slots + 1, sd->val_size, &h));
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++) {
            const int64_t at = slot_of(p, i, q - A->row_ptr[i]);
            if (k == 0) ((double *)h)[at] = A->val[q];
            else ((float *)h)[at] = A->val32[q];
        }
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, sd->val, h, bytes, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx)); /* the pageable copy is staged */
    sd->preprocessed = 0;
done:
    mpcgi_host_free(h);
    return st;
}

static mpcg_status sell_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    sell_plan *p = impl;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    const mpcgi_csr *A = p->A;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)p->nslices + 1) * 4, &p->d_offset));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (size_t)p->slots * 4 + 4, &p->d_col));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_offset, p->offset, ((size_t)p->nslices + 1) * 4,
                                      MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_col, p->col, (size_t)p->slots * 4, MPCGI_H2D));
    size_t total = 0;
    for (int k = 0; k < 2; k++) {
        side *sd = &p->sides[k];
        if (!sd->used) continue;
        const void *one = k == 0 ? (const void *)&one64 : (const void *)&one32;
        const void *zero = k == 0 ? (const void *)&zero64 : (const void *)&zero32;
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (size_t)p->slots * sd->val_size + 8, &sd->val));
        MPCG_CHECK(ctx, upload_values(ctx, p, k));
        MPCG_CUSPARSE(ctx, cusparseCreateSlicedEll(&sd->mat, A->n, A->n, A->nnz, p->slots, SLICE,
                                                   p->d_offset, p->d_col, sd->val,
                                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                   CUSPARSE_INDEX_BASE_ZERO, sd->type));
        MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&sd->x, A->n, sd->val, sd->type));
        MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&sd->y, A->n, sd->val, sd->type));
        MPCG_CUSPARSE(ctx, cusparseSpMV_bufferSize(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                   one, sd->mat, sd->x, zero, sd->y, sd->type,
                                                   CUSPARSE_SPMV_SELL_ALG1, &sd->ws_bytes));
        sd->ws_offset = total;
        total += (sd->ws_bytes + 255) / 256 * 256;
    }
    sizes->bytes_workspace = total;
    return MPCG_SUCCESS;
}

static mpcg_status sell_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    sell_plan *p = impl;
    p->A = A; /* same pattern */
    for (int k = 0; k < 2; k++)
        if (p->sides[k].val) MPCG_CHECK(ctx, upload_values(ctx, p, k));
    return MPCG_SUCCESS;
}

static mpcg_status sell_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                              void *y, void *ws)
{
    sell_plan *p = impl;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    const int k = prec == MPCG_PRECISION_FP32 ? 1 : 0;
    side *sd = &p->sides[k];
    const void *one = k == 0 ? (const void *)&one64 : (const void *)&one32;
    const void *zero = k == 0 ? (const void *)&zero64 : (const void *)&zero32;
    void *buf = sd->ws_bytes ? (char *)ws + sd->ws_offset : NULL;
    MPCG_CUSPARSE(ctx, cusparseDnVecSetValues(sd->x, (void *)x)); /* x is only read */
    MPCG_CUSPARSE(ctx, cusparseDnVecSetValues(sd->y, y));
    if (!sd->preprocessed) {
        MPCG_CUSPARSE(ctx, cusparseSpMV_preprocess(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                   one, sd->mat, sd->x, zero, sd->y, sd->type,
                                                   CUSPARSE_SPMV_SELL_ALG1, buf));
        sd->preprocessed = 1;
    }
    MPCG_CUSPARSE(ctx, cusparseSpMV(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, one, sd->mat,
                                    sd->x, zero, sd->y, sd->type, CUSPARSE_SPMV_SELL_ALG1, buf));
    return MPCG_SUCCESS;
}

/* The CPU emulation: the cpu backend's sums (each row in column order in the value precision;
 * its plan is the matrix itself). cuSPARSE's order is not documented: not bit for bit. */
static mpcg_status sell_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                   const void *xv, void *yv)
{
    const sell_plan *p = impl;
    return mpcgi_spmv_cpu.apply_host(ctx, (void *)p->A, prec, xv, yv);
}

static void sell_describe(const void *impl, char *buf, size_t size)
{
    const sell_plan *p = impl;
    snprintf(buf, size, "cuSPARSE sliced ELL, %d-row slices: %lld slots, padding %.1f %% of the "
             "nonzeros", SLICE, (long long)p->slots,
             p->A->nnz > 0 ? 100.0 * ((double)p->slots / (double)p->A->nnz - 1) : 0.0);
}

const struct mpcgi_spmv_ops mpcgi_spmv_cusparse_sell = {
    .name = "cusparsesell",
    .description = "cuSPARSE sliced ELL SpMV (SELL_ALG1, 32-row slices), a vendor baseline",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_NEEDS_DEVICE | MPCG_CAP_CPU_EMULATION,
    .analyze = sell_analyze,
    .update_values = sell_update_values,
    .upload = sell_upload,
    .apply = sell_apply,
    .apply_host = sell_apply_host,
    .destroy = sell_destroy,
    .describe = sell_describe,
};
