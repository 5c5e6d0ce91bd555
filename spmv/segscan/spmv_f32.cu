/* spmv/segscan/spmv_f32.cu: the segscan SpMV's fp32 instances (a module of its own:
 * spmv/segscan/segscan.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/segscan/segscan.cuh"

extern "C" int mpcgi_segscan_apply_f32(const mpcgi_segscan_args *a, const float *val,
                                       const float *x, float *y, float *carry)
{
    return segscan::launch<float, float, false, false>(a, val, nullptr, x, y, carry, nullptr,
                                                       nullptr, nullptr);
}
