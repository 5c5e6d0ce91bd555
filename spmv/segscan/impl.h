/* spmv/segscan/impl.h: the segscan backend's plan, shared by its ops glue (spmv/segscan/segscan.c)
 * and its CPU emulation (spmv/segscan/emulate.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_SEGSCAN_IMPL_H
#define MPCG_SPMV_SEGSCAN_IMPL_H

#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"

typedef struct mpcgi_segscan_plan {
    const mpcgi_csr *A;
    int L, V, index;         /* segment length, nonzeros a thread, the paper's index reduction */
    int64_t nseg;            /* max(1, ceil(nnz / L)) */
    int fp64, fp32, mixed;   /* the values held: fp64, fp32 (hi with mixed), lo (mixed) */
    int64_t *hb;             /* host copies for the emulation, built at its first apply */
    uint16_t *idx;           /* (index only) */
    void *scratch;           /* the emulation's working arrays, made at its first product */
    int64_t *d_row_ptr, *d_hb;
    int32_t *d_col;
    double *d_val;
    float *d_val32, *d_lo32;
    uint16_t *d_idx;
    int *d_arrived;          /* apply_dot's block count */
} mpcgi_segscan_plan;

/* y = A x on host vectors, the device kernels' operations in their order (FP64, FP32, or MIXED:
 * (hi + lo) x in fp64 on double vectors). */
mpcg_status mpcgi_segscan_emulate(mpcg_context *ctx, mpcgi_segscan_plan *p, mpcg_precision prec,
                                  const void *x, void *y);

#endif /* MPCG_SPMV_SEGSCAN_IMPL_H */
