/* spmv/segscan/spmv_dot_f64.cu: the segscan SpMV's fp64 instances with the fused dot, y = A x and
 * x^T y (a module of its own: spmv/segscan/segscan.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/segscan/segscan.cuh"

extern "C" int mpcgi_segscan_apply_dot_f64(const mpcgi_segscan_args *a, const double *val,
                                           const double *x, double *y, double *ws, double *dot,
                                           const int *skip)
{
    return segscan::launch<double, double, false, true>(a, val, nullptr, x, y, ws, ws + a->nseg,
                                                        dot, skip);
}
