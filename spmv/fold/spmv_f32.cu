/* spmv/fold/spmv_f32.cu: the fold SpMV's fp32 instances (a module of its own: spmv/fold/fold.cuh)
 * */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold/fold.cuh"

extern "C" int mpcgi_fold_apply_f32(const mpcgi_fold_args *a, const float *val, const float *x,
                                    float *y, void *ws)
{
    return fold::launch<float, float, false, false>(a, val, nullptr, x, y, ws, nullptr, nullptr);
}
