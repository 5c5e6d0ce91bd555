/* spmv/adaptive/spmv_mixed.cu: the adaptive SpMV's instances for y = (hi + lo) x in fp64, the
 * mixed storage's fp64 apply (a module of its own) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/adaptive/spmv.cuh"

extern "C" {

int mpcgi_adaptive_spmv_mixed(void *stream, const mpcgi_adaptive_launch *L, const float *hi,
                              const float *lo, const double *x, double *y, double *ws)
{
    return spmv<false>(stream, L, mpcgi_split_vals{hi, lo}, x, y, ws, (double *)nullptr,
                       (const int *)nullptr);
}

} /* extern "C" */
