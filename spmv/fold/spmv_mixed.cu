/* spmv/fold/spmv_mixed.cu: the fold SpMV's mixed instances, y = (hi + lo) x in fp64 (a module of
 * its own: spmv/fold/fold.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold/fold.cuh"

extern "C" int mpcgi_fold_apply_mixed(const mpcgi_fold_args *a, const float *hi, const float *lo,
                                      const double *x, double *y, void *ws)
{
    return fold::launch<double, float, true, false>(a, hi, lo, x, y, ws, nullptr, nullptr);
}
