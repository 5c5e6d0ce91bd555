/* spmv/segscan/kernels.h: the segscan backend's kernel launchers (spmv/segscan_*.cu) */
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
    int L;                   /* nonzeros a segment: 128 .. 4096, a power of two */
    int V;                   /* nonzeros a thread: 1, 2, 4 or 8; L / V threads a block */
    int index;               /* 1: the paper's index-based reduction (V = 1); 0: the scan */
    const int64_t *row_ptr;  /* n + 1 */
    const int32_t *col;      /* nnz */
    const uint16_t *idx;     /* nnz offsets in the run (index only) */
    const int64_t *hb;       /* nseg + 1: the first row with its head in each segment */
    int *arrived;            /* one device int, 0 between dots (apply_dot's last-block count) */
} mpcgi_segscan_args;

/* Whether (L, V, index) has kernels: the scan with L / V in {128, 256, 512} threads, the index
 * reduction with V = 1 and L <= 1024. */
static inline int mpcgi_segscan_shape_ok(int L, int V, int index)
{
    if (index) return V == 1 && L >= 128 && L <= 1024;
    return (V == 1 || V == 2 || V == 4 || V == 8) && L / V >= 128 && L / V <= 512 &&
           L % V == 0;
}

/* y = A x. carry: nseg values of the vectors' type (the workspace).
 *   f64: double values, vectors;  f32: float values, vectors;
 *   mixed: y = (hi + lo) x in fp64, hi and lo float, double vectors. */
int mpcgi_segscan_apply_f64(const mpcgi_segscan_args *a, const double *val, const double *x,
                            double *y, double *carry);
int mpcgi_segscan_apply_f32(const mpcgi_segscan_args *a, const float *val, const float *x,
                            float *y, float *carry);
int mpcgi_segscan_apply_mixed(const mpcgi_segscan_args *a, const float *hi, const float *lo,
                              const double *x, double *y, double *carry);
/* y = A x and *dot = x^T y (fp64), deterministic; ws: 2 nseg doubles (carries, then the
 * segments' partial dots); nothing is written when skip && *skip. */
int mpcgi_segscan_apply_dot_f64(const mpcgi_segscan_args *a, const double *val, const double *x,
                                double *y, double *ws, double *dot, const int *skip);
/* hb (nseg + 1) from row_ptr, and idx (nnz; NULL: not built). */
int mpcgi_segscan_setup(const mpcgi_segscan_args *a, int64_t *hb, uint16_t *idx);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_SEGSCAN_KERNELS_H */
