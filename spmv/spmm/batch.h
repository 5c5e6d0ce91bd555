/* spmv/spmm/batch.h: the batched SpMM's device launcher (spmv/spmm/batch.cu; the host product
 * and the API: spmv/spmm/batch.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_BATCH_SPMM_H
#define MPCG_SPMV_BATCH_SPMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Y_i = A_i X_i for the k systems of the device arrays (core/batch.h), one launch on stream;
 * returns a cudaError_t as int. */
int mpcgi_batch_spmm_launch(void *stream, int64_t k, const int64_t *off, const int64_t *ptr,
                            const int32_t *col, const double *val, int s, const double *X,
                            double *Y);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_BATCH_SPMM_H */
