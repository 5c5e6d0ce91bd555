/* spmv/fold/spmv_f64.cu: the fold SpMV's fp64 instances (a module of its own: spmv/fold/fold.cuh)
 * */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold/fold.cuh"

extern "C" int mpcgi_fold_apply_f64(const mpcgi_fold_args *a, const double *val, const double *x,
                                    double *y, void *ws)
{
    return fold::launch<double, double, false, false>(a, val, nullptr, x, y, ws, nullptr, nullptr);
}
