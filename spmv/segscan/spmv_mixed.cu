/* spmv/segscan/spmv_mixed.cu: the segscan SpMV's mixed instances, y = (hi + lo) x in fp64 (a module
 * of its own: spmv/segscan/segscan.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/segscan/segscan.cuh"

extern "C" int mpcgi_segscan_apply_mixed(const mpcgi_segscan_args *a, const float *hi,
                                         const float *lo, const double *x, double *y,
                                         double *carry)
{
    return segscan::launch<double, float, true, false>(a, hi, lo, x, y, carry, nullptr, nullptr,
                                                       nullptr);
}
