/* spmv/gather_direct.cu: the gather backend's kernels (seed 002's memory accelerator emulated on
 * the GPU): the gather of x into slot order and the direct kernel on it, every precision (a module
 * of its own: spmv/fold.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold.cuh"

extern "C" int mpcgi_gather_x_f64(const mpcgi_fold_args *a, const double *x, double *xg)
{
    return fold::gather(a, x, xg);
}

extern "C" int mpcgi_gather_x_f32(const mpcgi_fold_args *a, const float *x, float *xg)
{
    return fold::gather(a, x, xg);
}

extern "C" int mpcgi_gather_direct_f64(const mpcgi_fold_args *a, const double *val,
                                       const double *x, const double *xg, double *y, void *ws)
{
    return fold::launch<double, double, false, false, true>(a, val, nullptr, x, y, ws, nullptr,
                                                            nullptr, xg);
}

extern "C" int mpcgi_gather_direct_f32(const mpcgi_fold_args *a, const float *val,
                                       const float *x, const float *xg, float *y, void *ws)
{
    return fold::launch<float, float, false, false, true>(a, val, nullptr, x, y, ws, nullptr,
                                                          nullptr, xg);
}

extern "C" int mpcgi_gather_direct_mixed(const mpcgi_fold_args *a, const float *hi,
                                         const float *lo, const double *x, const double *xg,
                                         double *y, void *ws)
{
    return fold::launch<double, float, true, false, true>(a, hi, lo, x, y, ws, nullptr, nullptr,
                                                          xg);
}

extern "C" int mpcgi_gather_direct_dot_f64(const mpcgi_fold_args *a, const double *val,
                                           const double *x, const double *xg, double *y,
                                           void *ws, double *dot, const int *skip)
{
    return fold::launch<double, double, false, true, true>(a, val, nullptr, x, y, ws, dot, skip,
                                                           xg);
}
