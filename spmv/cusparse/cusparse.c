/* spmv/cusparse/cusparse.c: the cusparse backend: cusparseSpMV on 32-bit-index CSR, and its CPU
 * emulation */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdint.h>

#include "core/alloc.h"
#include "core/block.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/cusparse/mixed.h"
#include "spmv/spmv.h"

/*
 * Layout: the host CSR with its int64 row pointers narrowed to int32 (nnz <= 2^31 - 1; cuSPARSE
 * rejects 64-bit row offsets with 32-bit column indices, so larger matrices would need 64-bit
 * column indices too and are refused instead), the int32 sorted column indices, and fp64 and/or
 * fp32 values. Both precisions share the device index arrays.
 *
 * Bytes per SpMV: 12 per nonzero (8 value + 4 column) + 4 per row pointer with fp64 values; 8 per
 * nonzero + 4 per row with fp32 values; plus x gathered and 8 (4) per row for y.
 *
 * A device view (MPCGI_VIEW_DIRECT, docs/backends.md "Device views"): the plan reads the caller's
 * int32 row pointers (or the view's int32 copy of int64 ones), columns and fp64 values in place,
 * and re-points the fp64 descriptor when mpcg_matrix_update_values_device gives another array;
 * fp32 values and low halves are the plan's own, converted on the device.
 *
 * Mixed storage (MPCGI_PREC_MIXED_STORE): the fp32 side holds hi (the matrix's A->val32), served
 * by cuSPARSE's fp32 SpMV (8 bytes per nonzero); the low halves (A->lo32) sit beside it, and the
 * mixed apply runs our own CSR kernel (spmv/cusparse/mixed.cu: cuSPARSE has no fp32-matrix x
 * fp64-vector SpMV) reading hi, lo and the columns: 12 bytes per nonzero, as fp64.
 *
 * cuSPARSE's sequence is bufferSize -> preprocess -> compute. upload creates the descriptors and
 * asks bufferSize for each precision; the dispatcher then allocates the workspace once. Preprocess
 * needs that workspace, so it runs on the first apply of each precision after upload or after a
 * value update (one extra analysis in that SpMV, none in later ones). Each precision owns its
 * region of the workspace because preprocess leaves its analysis there for the later SpMVs.
 */

/* The block product's algorithm: cuSPARSE's default (CSR, row-major X and Y: docs/block.md). */
#define SPMM_ALG CUSPARSE_SPMM_ALG_DEFAULT
/* The algorithm: ALG1, cuSPARSE's CSR default (docs/gpu.md: choice and determinism). */
#define SPMV_ALG CUSPARSE_SPMV_CSR_ALG1
/* Workspace regions start on this boundary (cudaMalloc's alignment). */
#define WS_ALIGN 256

/* One value precision on the device. */
typedef struct side {
    int used;                   /* this precision was asked for */
    cudaDataType type;          /* CUDA_R_64F or CUDA_R_32F, also the compute type */
    size_t val_size;            /* bytes per value */
    void *val;                  /* device values, nnz */
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t x, y;  /* created at upload, re-pointed at each apply */
    size_t ws_offset, ws_bytes; /* its region of the workspace */
    int preprocessed;           /* preprocess has run on the current values */
    int borrowed;               /* val is the device view's (not freed here) */
    /* the block product (cusparseSpMM): X and Y as n x block_s row-major dense matrices, made
     * for the first block and again when s changes; its buffer grown on demand */
    int block_s;
    cusparseDnMatDescr_t X, Y;
    void *block_buf;
    size_t block_buf_bytes;
} side;

typedef struct cusparse_plan {
    const mpcgi_csr *A;
    int32_t *row_ptr; /* host int32 row pointers, n + 1 (NULL on a device view) */
    int32_t *d_row_ptr, *d_col_idx;
    int borrowed;     /* d_row_ptr and d_col_idx are the device view's (not freed here) */
    int64_t max_len;  /* the longest row (the persistent loops' rows) */
    side sides[2];    /* [0] fp64, [1] fp32 (hi with mixed storage) */
    int mixed;        /* mixed storage: d_lo beside the fp32 side */
    int mixed_nt;     /* the mixed kernel's lanes per row */
    float *d_lo;      /* device low halves, nnz */
} cusparse_plan;

/* y = 1 A x + 0 y: alpha and beta in the compute type of side k (host pointers, cuSPARSE's
 * default pointer mode). */
static const double one64 = 1.0, zero64 = 0.0;
static const float one32 = 1.0f, zero32 = 0.0f;
static const void *alpha_of(int k) { return k == 0 ? (const void *)&one64 : (const void *)&one32; }
static const void *beta_of(int k) { return k == 0 ? (const void *)&zero64 : (const void *)&zero32; }

static void cusparse_destroy(mpcg_context *ctx, void *impl)
{
    cusparse_plan *p = impl;
    for (int k = 0; k < 2; k++) {
        side *sd = &p->sides[k];
        /* teardown cannot report failures: destroying valid descriptors does not fail */
        if (sd->mat) (void)cusparseDestroySpMat(sd->mat);
        if (sd->x) (void)cusparseDestroyDnVec(sd->x);
        if (sd->y) (void)cusparseDestroyDnVec(sd->y);
        if (sd->X) (void)cusparseDestroyDnMat(sd->X);
        if (sd->Y) (void)cusparseDestroyDnMat(sd->Y);
        mpcgi_device_free(ctx, sd->block_buf);
        if (!sd->borrowed) mpcgi_device_free(ctx, sd->val);
    }
    mpcgi_device_free(ctx, p->d_lo);
    if (!p->borrowed) mpcgi_device_free(ctx, p->d_row_ptr);
    if (!p->borrowed) mpcgi_device_free(ctx, p->d_col_idx);
    mpcgi_host_free(p->row_ptr);
    mpcgi_host_free(p);
}

static mpcg_status cusparse_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                    const mpcgi_options *opts,
                                    void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    cusparse_plan *p = NULL;
    (void)opts; /* no option keys */
    MPCG_ENSURE(ctx, A->nnz <= INT32_MAX, MPCG_ERR_NOT_SUPPORTED,
                "backend cusparse: %lld nonzeros exceed its 32-bit indices (at most %d)",
                (long long)A->nnz, INT32_MAX);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->sides[0] = (side){.used = (precisions & MPCG_CAP_FP64) != 0, .type = CUDA_R_64F,
                         .val_size = sizeof(double)};
    p->sides[1] = (side){.used = (precisions & MPCG_CAP_FP32) != 0, .type = CUDA_R_32F,
                         .val_size = sizeof(float)};
    p->mixed = (precisions & MPCGI_PREC_MIXED_STORE) != 0; /* the dispatcher adds FP32 */
    p->mixed_nt = mpcgi_cusparse_mixed_nt(A->n, A->nnz);
    if (A->dev) { /* the view's arrays at upload; nothing on the host */
        p->max_len = A->dev->max_len;
    } else {
        MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)A->n + 1, sizeof *p->row_ptr,
                                                 &p->row_ptr));
        /* 0 <= row_ptr[i] <= nnz <= INT32_MAX, checked above: the narrowing is exact */
        for (int64_t i = 0; i <= A->n; i++) p->row_ptr[i] = (int32_t)A->row_ptr[i];
        for (int64_t i = 0; i < A->n; i++)
            if (A->row_ptr[i + 1] - A->row_ptr[i] > p->max_len)
                p->max_len = A->row_ptr[i + 1] - A->row_ptr[i];
    }
    size_t val_size = p->sides[0].used || p->mixed ? sizeof(double) : sizeof(float);
    sizes->bytes_matrix = (size_t)A->nnz * (val_size + 4) + ((size_t)A->n + 1) * 4;
    sizes->bytes_matrix32 = p->sides[1].used || p->mixed
                                ? (size_t)A->nnz * (sizeof(float) + 4) + ((size_t)A->n + 1) * 4
                                : 0;
    sizes->bytes_workspace = 0; /* known at upload (cusparseSpMV_bufferSize) */
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) cusparse_destroy(ctx, p);
    return st;
}

/* The values of side k: A's (host CSR, or converted from a device view) into the side's own
 * device array; the fp64 side of a device view is the view's array itself. */
static mpcg_status side_values(mpcg_context *ctx, cusparse_plan *p, int k)
{
    side *sd = &p->sides[k];
    if (sd->borrowed) {
        sd->val = (void *)p->A->dev->val; /* only read */
        return MPCG_SUCCESS;
    }
    if (!sd->val)
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (size_t)p->A->nnz * sd->val_size, &sd->val));
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, p->A, k == 0 ? MPCGI_PART_VAL : MPCGI_PART_VAL32,
                                        sd->val));
    return MPCG_SUCCESS;
}

/* Device values, matrix and vector descriptors of one precision; its workspace size. */
static mpcg_status side_upload(mpcg_context *ctx, cusparse_plan *p, int k)
{
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    const mpcgi_csr *A = p->A;
    side *sd = &p->sides[k];
    sd->borrowed = k == 0 && A->dev != NULL;
    MPCG_CHECK(ctx, side_values(ctx, p, k));
    MPCG_CUSPARSE(ctx, cusparseCreateCsr(&sd->mat, A->n, A->n, A->nnz, p->d_row_ptr,
                                         p->d_col_idx, sd->val, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, sd->type));
    /* the values array is a placeholder of the right type: apply re-points x and y before
     * every use, and bufferSize reads only sizes and types */
    MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&sd->x, A->n, sd->val, sd->type));
    MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&sd->y, A->n, sd->val, sd->type));
    MPCG_CUSPARSE(ctx, cusparseSpMV_bufferSize(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               alpha_of(k), sd->mat, sd->x, beta_of(k), sd->y,
                                               sd->type, SPMV_ALG, &sd->ws_bytes));
    return MPCG_SUCCESS;
}

/* On failure the dispatcher destroys the plan, which releases what was created here. */
static mpcg_status cusparse_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    cusparse_plan *p = impl;
    const mpcgi_csr *A = p->A;
    size_t rp_bytes = ((size_t)A->n + 1) * sizeof *p->d_row_ptr;
    size_t ci_bytes = (size_t)A->nnz * sizeof *p->d_col_idx;
    if (A->dev) { /* the view's arrays, only read */
        const int32_t *rp = NULL;
        MPCG_CHECK(ctx, mpcgi_view_row_ptr32(ctx, A, &rp));
        p->borrowed = 1;
        p->d_row_ptr = (int32_t *)rp;
        p->d_col_idx = (int32_t *)A->dev->col_idx;
    } else {
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, rp_bytes, &p->d_row_ptr));
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ci_bytes, &p->d_col_idx));
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_row_ptr, p->row_ptr, rp_bytes, MPCGI_H2D));
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_col_idx, A->col_idx, ci_bytes, MPCGI_H2D));
    }
    if (p->mixed) {
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (size_t)A->nnz * sizeof(float), &p->d_lo));
        MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_LO32, p->d_lo));
    }
    size_t total = 0;
    for (int k = 0; k < 2; k++) {
        side *sd = &p->sides[k];
        if (!sd->used) continue;
        MPCG_CHECK(ctx, side_upload(ctx, p, k));
        sd->ws_offset = total;
        total += (sd->ws_bytes + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN;
    }
    sizes->bytes_workspace = total;
    return MPCG_SUCCESS;
}

static mpcg_status cusparse_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    cusparse_plan *p = impl;
    p->A = A; /* with FP32 the dispatcher has refreshed A->val32 */
    for (int k = 0; k < 2; k++) {
        side *sd = &p->sides[k];
        if (!sd->val) continue; /* not uploaded: a CPU emulation plan */
        MPCG_CHECK(ctx, side_values(ctx, p, k)); /* a view's own array: the descriptor too */
        if (sd->borrowed) MPCG_CUSPARSE(ctx, cusparseSpMatSetValues(sd->mat, sd->val));
        sd->preprocessed = 0;
    }
    if (p->d_lo) /* the dispatcher has checked the split again; A->lo32 is refreshed */
        MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_LO32, p->d_lo));
    return MPCG_SUCCESS;
}

static mpcg_status cusparse_apply(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                  const void *x, void *y, void *ws)
{
    cusparse_plan *p = impl;
    struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    if (prec == MPCG_PRECISION_MIXED) {
        MPCG_LAUNCH(ctx, mpcgi_cusparse_mixed_spmv(mpcgi_device_stream(ctx), p->A->n, p->mixed_nt, p->d_row_ptr,
                                                   p->d_col_idx, p->sides[1].val, p->d_lo, x, y));
        return MPCG_SUCCESS;
    }
    int k = prec == MPCG_PRECISION_FP64 ? 0 : 1;
    side *sd = &p->sides[k];
    const void *alpha = alpha_of(k), *beta = beta_of(k);
    void *buf = sd->ws_bytes ? (char *)ws + sd->ws_offset : NULL;
    MPCG_CUSPARSE(ctx, cusparseDnVecSetValues(sd->x, (void *)x)); /* x is only read */
    MPCG_CUSPARSE(ctx, cusparseDnVecSetValues(sd->y, y));
    if (!sd->preprocessed) {
        MPCG_CUSPARSE(ctx, cusparseSpMV_preprocess(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                   alpha, sd->mat, sd->x, beta, sd->y, sd->type,
                                                   SPMV_ALG, buf));
        sd->preprocessed = 1;
    }
    MPCG_CUSPARSE(ctx, cusparseSpMV(g->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, sd->mat,
                                    sd->x, beta, sd->y, sd->type, SPMV_ALG, buf)); /* y = A x */
    return MPCG_SUCCESS;
}

/* The mixed kernel's order (spmv/cusparse/mixed.cu): NT lanes stride over row i from 0 with
 * fused multiply-adds, values (double)hi + (double)lo, then the butterfly seen from lane 0. */
static void mixed_host(const cusparse_plan *p, const double *x, double *y)
{
    const int32_t *rp = p->row_ptr, *ci = p->A->col_idx;
    const float *hi = p->A->val32, *lo = p->A->lo32;
    const int nt = p->mixed_nt;
#pragma omp parallel for schedule(static) if (p->A->nnz > 65536)
    for (int64_t i = 0; i < p->A->n; i++) {
        double a[32] = {0}; /* nt >= 1: the initializer quiets -Wmaybe-uninitialized */
        for (int l = 0; l < nt; l++) {
            double acc = 0;
            for (int32_t k = rp[i] + l; k < rp[i + 1]; k += nt)
                acc = fma((double)hi[k] + (double)lo[k], x[ci[k]], acc);
            a[l] = acc;
        }
        for (int s = nt / 2; s > 0; s /= 2)
            for (int l = 0; l < s; l++) a[l] = a[l] + a[l + s];
        y[i] = a[0];
    }
}

/* The CPU emulation: the same arrays (int32 row pointers, sorted int32 columns, fp64 or fp32
 * values), each row summed sequentially in column order in the value precision; the mixed
 * apply as its kernel sums. */
static mpcg_status cusparse_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                       const void *xv, void *yv)
{
    (void)ctx;
    const cusparse_plan *p = impl;
    const int32_t *rp = p->row_ptr, *ci = p->A->col_idx;
    int64_t n = p->A->n;
    if (prec == MPCG_PRECISION_MIXED) {
        mixed_host(p, xv, yv);
    } else if (prec == MPCG_PRECISION_FP64) {
        const double *val = p->A->val, *x = xv;
        double *y = yv;
#pragma omp parallel for schedule(static) if (p->A->nnz > 65536)
        for (int64_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[ci[k]];
            y[i] = s;
        }
    } else {
        const float *val = p->A->val32, *x = xv;
        float *y = yv;
#pragma omp parallel for schedule(static) if (p->A->nnz > 65536)
        for (int64_t i = 0; i < n; i++) {
            float s = 0.0f;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[ci[k]];
            y[i] = s;
        }
    }
    return MPCG_SUCCESS;
}

/* The dense descriptors of X and Y (n x s, row-major, leading dimension s) for a block of s
 * vectors, and cusparseSpMM's buffer for them, grown where it needs more. */
static mpcg_status block_prepare(mpcg_context *ctx, cusparse_plan *p, int k, int s, const void *X,
                                 void *Y)
{
    side *sd = &p->sides[k];
    const int64_t n = p->A->n;
    size_t need = 0;
    if (sd->block_s != s) {
        if (sd->X) (void)cusparseDestroyDnMat(sd->X);
        if (sd->Y) (void)cusparseDestroyDnMat(sd->Y);
        sd->X = sd->Y = NULL;
        sd->block_s = 0;
        MPCG_CUSPARSE(ctx, cusparseCreateDnMat(&sd->X, n, s, s, (void *)X, sd->type,
                                               CUSPARSE_ORDER_ROW)); /* X is only read */
        MPCG_CUSPARSE(ctx, cusparseCreateDnMat(&sd->Y, n, s, s, Y, sd->type, CUSPARSE_ORDER_ROW));
        sd->block_s = s;
    }
    MPCG_CUSPARSE(ctx, cusparseDnMatSetValues(sd->X, (void *)X));
    MPCG_CUSPARSE(ctx, cusparseDnMatSetValues(sd->Y, Y));
    MPCG_CUSPARSE(ctx, cusparseSpMM_bufferSize(mpcgi_gpu_of(ctx)->cusparse,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_of(k),
                                               sd->mat, sd->X, beta_of(k), sd->Y, sd->type,
                                               SPMM_ALG, &need));
    if (need > sd->block_buf_bytes) {
        mpcgi_device_free(ctx, sd->block_buf);
        sd->block_buf = NULL;
        sd->block_buf_bytes = 0;
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, need, &sd->block_buf));
        sd->block_buf_bytes = need;
    }
    return MPCG_SUCCESS;
}

/* Y = A X for s vectors: cusparseSpMM (CSR times row-major dense, in the value precision). */
static mpcg_status cusparse_apply_block(mpcg_context *ctx, void *impl, mpcg_precision prec, int s,
                                        const void *X, void *Y, void *ws)
{
    cusparse_plan *p = impl;
    const int k = prec == MPCG_PRECISION_FP64 ? 0 : 1;
    side *sd = &p->sides[k];
    (void)ws;
    if (p->A->n == 0) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, block_prepare(ctx, p, k, s, X, Y));
    MPCG_CUSPARSE(ctx, cusparseSpMM(mpcgi_gpu_of(ctx)->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_of(k), sd->mat, sd->X,
                                    beta_of(k), sd->Y, sd->type, SPMM_ALG, sd->block_buf));
    return MPCG_SUCCESS;
}

/* The block product's CPU emulation: the cpu backend's (each row's s sums in column order in the
 * value precision, on the matrix this plan was made from; cuSPARSE's own order is not
 * reproduced). */
static mpcg_status cusparse_apply_block_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                             int s, const void *Xv, void *Yv)
{
    const cusparse_plan *p = impl;
    return mpcgi_spmv_cpu.apply_block_host(ctx, (void *)p->A, prec, s, Xv, Yv);
}

/* The solver's persistent loops read the plan's device CSR directly (spmv/csr_rows.cuh): int32
 * row pointers and columns, the fp64 values and/or the fp32 ones (hi with mixed storage). */
static mpcg_status cusparse_rows(const void *impl, mpcgi_rows *out)
{
    const cusparse_plan *p = impl;
    if (!p->d_row_ptr || (!p->sides[0].val && !p->sides[1].val)) return MPCG_ERR_NOT_SUPPORTED;
    *out = (mpcgi_rows){.kind = MPCGI_ROWS_CSR, .n = p->A->n, .nnz = p->A->nnz,
                        .max_len = p->max_len, .row_ptr = p->d_row_ptr,
                        .col_idx = p->d_col_idx, .val = p->sides[0].val,
                        .val32 = p->sides[1].val};
    return MPCG_SUCCESS;
}

const struct mpcgi_spmv_ops mpcgi_spmv_cusparse = {
    .name = "cusparse",
    .description = "cuSPARSE CSR SpMV (ALG1, 32-bit indices), the vendor baseline",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION,
    .view = MPCGI_VIEW_DIRECT,
    .analyze = cusparse_analyze,
    .update_values = cusparse_update_values,
    .upload = cusparse_upload,
    .apply = cusparse_apply,
    .apply_host = cusparse_apply_host,
    .destroy = cusparse_destroy,
    .rows = cusparse_rows,
    .apply_block = cusparse_apply_block,
    .apply_block_host = cusparse_apply_block_host,
};
