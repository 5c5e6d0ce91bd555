/* spmv/segscan/spmv_f64.cu: the segscan SpMV's fp64 instances (a module of its own:
 * spmv/segscan/segscan.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/segscan/segscan.cuh"

extern "C" int mpcgi_segscan_apply_f64(const mpcgi_segscan_args *a, const double *val,
                                       const double *x, double *y, double *carry)
{
    return segscan::launch<double, double, false, false>(a, val, nullptr, x, y, carry, nullptr,
                                                         nullptr, nullptr);
}
