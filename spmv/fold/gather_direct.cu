/* spmv/fold/gather_direct.cu: the gather backend's kernels (the Fold paper's memory accelerator
 * emulated on the GPU): the gather of x into slot order and the direct kernel on it, every
 * precision (a module of its own: spmv/fold/fold.cuh) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "spmv/fold/fold.cuh"

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

/* Out-of-core: one streamed chunk (threads p0 .. p0 + C - 1, p0 and C multiples of
 * MPCGI_FOLD_THREADS; values and gathered x in the chunk's tile, slot-major: slot k of thread j
 * at k C + j): fold's sums in fold's order, and with DOT fold's partial dot of each block at its
 * index in the whole layout (so the out-of-core dot is the in-core one, bit for bit). */
template <bool DOT>
static __global__ void __launch_bounds__(MPCGI_FOLD_THREADS)
    ooc_chunk_kernel(const __grid_constant__ mpcgi_fold_args a, int64_t C, int64_t p0,
                     const double *__restrict__ val, const double *__restrict__ xg,
                     const double *__restrict__ x, double *__restrict__ y,
                     double *__restrict__ piece, double *__restrict__ part)
{
    mpcgi_pdl_start();
    const int64_t j = (int64_t)blockIdx.x * MPCGI_FOLD_THREADS + threadIdx.x, p = p0 + j;
    double acc = 0;
    if (j < C && p < a.np) {
#pragma unroll 4
        for (int k = 0; k < a.F; k++)
            acc = __fma_rn(__ldcs(val + k * C + j), __ldcs(xg + k * C + j), acc);
        if (p < a.n) y[p] = acc;
        else if (p < a.n + a.pieces) piece[p - a.n] = acc;
    }
    if constexpr (DOT) fold::block_part(a, p, x, acc, part, p0 / MPCGI_FOLD_THREADS + blockIdx.x);
}

extern "C" int mpcgi_gather_ooc_chunk(const mpcgi_fold_args *a, int64_t C, int64_t p0,
                                      const double *val, const double *xg, const double *x,
                                      double *y, void *ws, int dot)
{
    const int64_t threads = a->np - p0 < C ? a->np - p0 : C; /* no block past the layout */
    const unsigned blocks = (unsigned)((threads + MPCGI_FOLD_THREADS - 1) / MPCGI_FOLD_THREADS);
    double *part = fold::parts_of<double>(a, ws);
    if (dot)
        return (int)mpcgi_launch(ooc_chunk_kernel<true>, blocks, MPCGI_FOLD_THREADS, a->stream,
                                 *a, C, p0, val, xg, x, y, (double *)ws, part);
    return (int)mpcgi_launch(ooc_chunk_kernel<false>, blocks, MPCGI_FOLD_THREADS, a->stream, *a,
                             C, p0, val, xg, x, y, (double *)ws, part);
}

/* After the chunks: fold's fixup (the folded rows' pieces added to y; with dot, the folded rows'
 * x_i y_i and the last block's sum of every partial into *dot). */
extern "C" int mpcgi_gather_ooc_finish(const mpcgi_fold_args *a, const double *x, double *y,
                                       void *ws, double *dot)
{
    double *part = fold::parts_of<double>(a, ws);
    if (dot) return fold::fixup<double, true>(a, (const double *)ws, x, y, part, dot, nullptr);
    return fold::fixup<double, false>(a, (const double *)ws, x, y, part, nullptr, nullptr);
}
