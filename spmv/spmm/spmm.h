/* spmv/spmm/spmm.h: the CSR SpMM Y = A X for a block of s vectors (a sub-warp per row, after the
 * batched sparse-matrix paper): launchers and the CPU emulation of its sums (plain C, no CUDA
 * types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_SPMM_H
#define MPCG_SPMV_SPMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X and Y are n x s row-major (X[i s + j]), 1 <= s <= 64 (MPCGI_BLOCK_MAX, core/block.h); the
 * matrix is CSR with int64 row pointers and int32 columns (mpcgi_csr's, core/csr.h). One
 * sub-warp of SUB lanes per row, SUB = mpcgi_spmm_sub(s): the smallest power of two >= s,
 * capped at 32. Lane l owns the columns j = l, l + SUB, ... (< s), its sums in registers. The
 * sub-warp reads the row's (column, value) pairs SUB at a time, one pair per lane (coalesced),
 * and passes each pair to its lanes by shuffles: every nonzero is read once per row.
 *
 * Deterministic: each Y[i s + j] starts from 0 and takes acc = fma(a_ik, X[k s + j], acc) over
 * the row's nonzeros in storage (column) order; mpcgi_spmm_emulate_* repeats exactly that with
 * C's fma, so the two agree bit for bit. An empty row gives +0.
 *
 * Bytes per product: the CSR once (8 per row pointer, 4 + the value size per nonzero), X
 * gathered (s values per nonzero, from cache where rows repeat), Y written (n s values).
 */

/* Lanes per row for a block of s vectors: 1, 2, 4, 8, 16 or 32. */
static inline int mpcgi_spmm_sub(int s)
{
    int sub = 1;
    while (sub < s && sub < 32) sub *= 2;
    return sub;
}

/* Y = A X on the device (stream: the context's cudaStream_t); queued, never synchronised;
 * returns cudaGetLastError() (callers wrap it in MPCG_LAUNCH). n = 0 launches nothing. */
int mpcgi_spmm_csr_f64(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                       const double *val, int s, const double *X, double *Y);
int mpcgi_spmm_csr_f32(void *stream, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                       const float *val, int s, const float *X, float *Y);

/* The same sums on host arrays (spmv/spmm/emulate.c), bit for bit the kernel's. */
void mpcgi_spmm_emulate_f64(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                            const double *val, int s, const double *X, double *Y);
void mpcgi_spmm_emulate_f32(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                            const float *val, int s, const float *X, float *Y);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_SPMM_H */
