/* spmv/segscan_kernels.h: the segscan backend's kernel launchers (spmv/segscan.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_SEGSCAN_KERNELS_H
#define MPCG_SPMV_SEGSCAN_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plan's device arrays and shape. */
typedef struct mpcgi_segscan_args {
    void *stream;            /* the context's stream */
    int64_t n, nnz, nseg;    /* nseg = max(1, ceil(nnz / L)) */
    int L;                   /* nonzeros a segment = threads a block: 128, 256, 512 or 1024 */
    int index;               /* 1: the seed's index-based reduction; 0: the shuffle scan */
    const int64_t *row_ptr;  /* n + 1 */
    const int32_t *col;      /* nnz */
    const void *val;         /* nnz, double or float (the apply's precision) */
    const uint16_t *idx;     /* nnz offsets in the run (index only) */
    const int64_t *hb;       /* nseg + 1 */
} mpcgi_segscan_args;

/* y = A x (fp32: float values and vectors, else double); carry: nseg values of that type. */
int mpcgi_segscan_apply(const mpcgi_segscan_args *a, int fp32, const void *x, void *y,
                        void *carry);
/* hb (nseg + 1) from row_ptr, and idx (nnz; NULL: not built). */
int mpcgi_segscan_setup(const mpcgi_segscan_args *a, int64_t *hb, uint16_t *idx);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_SEGSCAN_KERNELS_H */
