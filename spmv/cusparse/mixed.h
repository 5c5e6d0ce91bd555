/* spmv/cusparse/mixed.h: the cusparse backend's own kernel for the mixed apply (plain C) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_CUSPARSE_MIXED_H
#define MPCG_SPMV_CUSPARSE_MIXED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * y = (hi + lo) x in fp64 on int32 CSR (cuSPARSE has no fp32-matrix x fp64-vector SpMV): NT
 * lanes of a warp per row (NT = mpcgi_cusparse_mixed_nt, a power of two <= 32), lane l adds
 * entries l, l + NT, ... with fused multiply-adds from 0, each value formed as (double)hi +
 * (double)lo, then a butterfly a_l <- a_l + a_(l xor s), s = NT/2 ... 1. Deterministic; the
 * CPU emulation (spmv/cusparse/cusparse.c) repeats the order. Returns cudaGetLastError() as an int.
 */
int mpcgi_cusparse_mixed_spmv(void *stream, int64_t n, int nt, const int32_t *row_ptr,
                              const int32_t *col, const float *hi, const float *lo,
                              const double *x, double *y);

/* The lanes per row: the power of two >= the mean row length, 1 ... 32. */
static inline int mpcgi_cusparse_mixed_nt(int64_t n, int64_t nnz)
{
    int nt = 1;
    while (nt < 32 && (int64_t)nt * n < nnz) nt *= 2;
    return nt;
}

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_CUSPARSE_MIXED_H */
