/* spmv/fold/setup.h: the fold backend's layout built on the GPU (spmv/fold/setup.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_FOLD_SETUP_H
#define MPCG_SPMV_FOLD_SETUP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From the device CSR (row_ptr n + 1, csr_col): pbase and fidx (n + 1 each: the pieces and the
 * folded rows before each row), then the slot-major columns (F np), fbits (ceil(n / 32) words),
 * fold_row and fold_ptr (the folded rows and their pieces). scratch: 2 (n + 1) int64. With tmp
 * NULL only *tmp_bytes is set (the scans' temporary storage). Queued on stream. */
int mpcgi_fold_build_pattern(void *stream, int64_t n, int64_t np, int64_t pieces, int F,
                             const int64_t *row_ptr, const int32_t *csr_col, int64_t *pbase,
                             int64_t *fidx, int64_t *scratch, void *tmp, size_t *tmp_bytes,
                             int32_t *col, uint32_t *fbits, int64_t *fold_row, int64_t *fold_ptr);
/* A's values (device, CSR order) into slot order (F np, zero padding). */
int mpcgi_fold_build_values_f64(void *stream, int64_t n, int64_t np, int F,
                                const int64_t *row_ptr, const int64_t *pbase, const double *src,
                                double *dst);
int mpcgi_fold_build_values_f32(void *stream, int64_t n, int64_t np, int F,
                                const int64_t *row_ptr, const int64_t *pbase, const float *src,
                                float *dst);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_FOLD_SETUP_H */
