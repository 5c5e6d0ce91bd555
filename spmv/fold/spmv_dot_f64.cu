/* spmv/fold/spmv_dot_f64.cu: the fold SpMV's fp64 instances with the fused dot, y = A x and x^T y
 * (a module of its own: spmv/fold/fold.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold/fold.cuh"

extern "C" int mpcgi_fold_apply_dot_f64(const mpcgi_fold_args *a, const double *val,
                                        const double *x, double *y, void *ws, double *dot,
                                        const int *skip)
{
    return fold::launch<double, double, false, true>(a, val, nullptr, x, y, ws, dot, skip);
}
