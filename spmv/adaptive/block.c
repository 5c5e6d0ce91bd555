/* spmv/adaptive/block.c: the adaptive backend's block product Y = A X (SpMM, spmv/spmm/spmm.h) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/csr_view.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/error.h"
#include "spmv/adaptive/plan.h"
#include "spmv/spmm/spmm.h"

/*
 * The SpMM kernel (spmv/spmm/spmm.cu) walks plain CSR: int64 row pointers, int32 columns, the
 * values in CSR order. A device plan holds int32 row pointers and, where every |col - row| fits,
 * 16-bit column offsets in place of the columns; the first block product adds what the kernel
 * needs: the int64 row pointers (8 (n + 1) bytes) and, with 16-bit offsets, the int32 columns (4
 * nnz bytes), uploaded from the plan's matrix in device memory counted like the rest of the plan
 * (the memory limit, the INFO log). Made there, not at upload: most plans never run a block
 * product, and on poisson3d:128 the two arrays are 75 MB, two allocations and copies that every
 * adaptive setup would otherwise make (docs/block.md). The values are the plan's own (val64; val32,
 * which is hi with the mixed storage), refreshed with them. The CPU plan (apply_block_host)
 * emulates the kernel's sums on the matrix's arrays.
 */

/* The block product's CSR, once per plan; on failure nothing of it is kept. */
static mpcg_status block_csr(mpcg_context *ctx, adaptive_plan *p)
{
    mpcg_status st = MPCG_SUCCESS;
    const mpcgi_csr *A = p->A;
    const size_t rp_bytes = ((size_t)A->n + 1) * sizeof(int64_t);
    const size_t col_bytes = (size_t)A->nnz * sizeof(int32_t);
    if (p->d.row_ptr64) return MPCG_SUCCESS;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, rp_bytes, &p->d.row_ptr64));
    MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, A, MPCGI_PART_ROW_PTR64, p->d.row_ptr64));
    if (!p->d.col_idx && col_bytes) {
        MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, col_bytes, &p->d.col_block));
        MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, A, MPCGI_PART_COL, p->d.col_block));
    }
    mpcgi_log(ctx, MPCG_LOG_INFO,
              "adaptive: the block product's CSR adds %zu bytes of device memory (int64 row "
              "pointers%s)",
              rp_bytes + (p->d.col_block ? col_bytes : 0),
              p->d.col_block ? ", int32 columns beside the 16-bit offsets" : "");
done:
    if (st != MPCG_SUCCESS) {
        mpcgi_device_free(ctx, p->d.row_ptr64);
        mpcgi_device_free(ctx, p->d.col_block);
        p->d.row_ptr64 = NULL;
        p->d.col_block = NULL;
    }
    return st;
}

mpcg_status mpcgi_adaptive_apply_block(mpcg_context *ctx, void *impl, mpcg_precision prec, int s,
                                       const void *X, void *Y, void *ws)
{
    adaptive_plan *p = impl;
    MPCG_CHECK(ctx, block_csr(ctx, p));
    const int32_t *col = p->d.col_idx ? p->d.col_idx : p->d.col_block;
    void *stream = mpcgi_device_stream(ctx);
    (void)ws; /* the kernel needs none */
    if (prec == MPCG_PRECISION_FP64)
        MPCG_LAUNCH(ctx, mpcgi_spmm_csr_f64(stream, p->A->n, p->d.row_ptr64, col, p->d.val64, s,
                                            X, Y));
    else
        MPCG_LAUNCH(ctx, mpcgi_spmm_csr_f32(stream, p->A->n, p->d.row_ptr64, col, p->d.val32, s,
                                            X, Y));
    return MPCG_SUCCESS;
}

/* fp32 reads the matrix's own fp32 values (A->val32: hi with the mixed storage), as the device
 * plan's val32 holds them. */
mpcg_status mpcgi_adaptive_apply_block_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                            int s, const void *X, void *Y)
{
    const adaptive_plan *p = impl;
    const mpcgi_csr *A = p->A;
    (void)ctx;
    if (prec == MPCG_PRECISION_FP64)
        mpcgi_spmm_emulate_f64(A->n, A->row_ptr, A->col_idx, A->val, s, X, Y);
    else
        mpcgi_spmm_emulate_f32(A->n, A->row_ptr, A->col_idx, A->val32, s, X, Y);
    return MPCG_SUCCESS;
}
