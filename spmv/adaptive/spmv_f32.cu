/* spmv/adaptive/spmv_f32.cu: the adaptive SpMV's instances for y = A x in fp32 (a module of its
 * own) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/adaptive/spmv.cuh"

extern "C" {

int mpcgi_adaptive_spmv_f32(void *stream, const mpcgi_adaptive_launch *L, const float *val,
                            const float *x, float *y, double *ws)
{
    return spmv<false>(stream, L, val, x, y, ws, (double *)nullptr, (const int *)nullptr);
}

} /* extern "C" */
