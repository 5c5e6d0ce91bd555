/* spmv/adaptive/spmv_dot_f64.cu: the adaptive SpMV's instances for y = A x and x.y in fp64
 * (apply_dot) (a module of its own) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/adaptive/spmv.cuh"

extern "C" {

int mpcgi_adaptive_spmv_dot_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                                const double *x, double *y, double *ws, double *dot,
                                const int *skip)
{
    return spmv<true>(stream, L, val, x, y, ws, dot, skip);
}

} /* extern "C" */
