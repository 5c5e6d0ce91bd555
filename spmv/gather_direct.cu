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

/* Out-of-core: one streamed chunk (threads p0 .. p0 + C - 1; values and gathered x in the
 * chunk's tile, slot-major: slot k of thread j at k C + j): fold's sums, in fold's order. */
static __global__ void ooc_chunk_kernel(int F, int64_t C, int64_t p0, int64_t n, int64_t pieces,
                                        int64_t np, const double *__restrict__ val,
                                        const double *__restrict__ xg, double *__restrict__ y,
                                        double *__restrict__ piece)
{
    mpcgi_pdl_start();
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, p = p0 + j;
    if (j >= C || p >= np) return;
    double acc = 0;
#pragma unroll 4
    for (int k = 0; k < F; k++) acc = __fma_rn(__ldcs(val + k * C + j), __ldcs(xg + k * C + j), acc);
    if (p < n) y[p] = acc;
    else if (p < n + pieces) piece[p - n] = acc;
}

extern "C" int mpcgi_gather_ooc_chunk(void *stream, int F, int64_t C, int64_t p0, int64_t n,
                                      int64_t pieces, int64_t np, const double *val,
                                      const double *xg, double *y, double *piece)
{
    return (int)mpcgi_launch(ooc_chunk_kernel, (unsigned)((C + 255) / 256), 256, stream, F, C, p0,
                             n, pieces, np, val, xg, y, piece);
}

/* fold's fixup alone (the folded rows' pieces added to y), fp64. */
extern "C" int mpcgi_gather_fixup_f64(const mpcgi_fold_args *a, const double *x, double *y,
                                      const double *piece)
{
    if (a->folded == 0) return (int)cudaSuccess;
    const unsigned fb = (unsigned)((a->folded + MPCGI_THREADS / 32 - 1) / (MPCGI_THREADS / 32));
    return (int)mpcgi_launch(fold::fold_fixup_kernel<double, false>, fb, MPCGI_THREADS, a->stream,
                             *a, piece, x, y, (double *)nullptr, (int64_t)0, (double *)nullptr,
                             (const int *)nullptr);
}

/* *dot = x^T y over n rows (fp64, fixed order: each thread its rows j, j + stride, ... in order,
 * the block's tree, then the last block sums the blocks'): the out-of-core apply_dot. part:
 * gridDim.x doubles; the grid is a function of n alone. */
static __global__ void __launch_bounds__(MPCGI_THREADS)
    ooc_dot_kernel(int64_t n, const double *__restrict__ x, const double *__restrict__ y,
                   double *part, int *arrived, double *dot)
{
    __shared__ double sh[MPCGI_THREADS];
    mpcgi_pdl_start();
    double acc = 0;
    for (int64_t i = (int64_t)blockIdx.x * MPCGI_THREADS + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * MPCGI_THREADS)
        acc = __fma_rn(x[i], y[i], acc);
    sh[threadIdx.x] = acc;
    mpcgi_block_sum(sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = sh[0];
        __threadfence(); /* visible before this block is counted */
    }
    mpcgi_last_block_sum(part, gridDim.x, arrived, dot, sh);
}

extern "C" int mpcgi_gather_ooc_dot(void *stream, int64_t n, const double *x, const double *y,
                                    double *part, int *arrived, double *dot)
{
    const unsigned grid = mpcgi_grid_for(n, MPCGI_OOC_DOT_BLOCKS);
    return (int)mpcgi_launch(ooc_dot_kernel, grid, MPCGI_THREADS, stream, n, x, y, part, arrived,
                             dot);
}
