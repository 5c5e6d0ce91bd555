/* core/block_cuda.cu: device block kernels Y = beta Y + X B, get_col, set_col, and their
 * launchers (core/block_kernels.h; C = X^T Y is in core/tsgemm.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/block_kernels.h"

#define THREADS 256
#define MAX_GRID 65536
#define XB_SMEM 49152 /* shared bytes of an xb block: B, then the slab of X rows */
#define XB_WORK 1024  /* Y values a block computes per slab (4 a thread) */

/*
 * B reaches the kernel by value, as a kernel parameter (up to 32764 bytes on Volta and later
 * with CUDA 12.1+): no device buffer to own, no copy to queue, and two contexts on one GPU
 * cannot overwrite each other's B (a __constant__ symbol filled on each context's stream could).
 * Two sizes keep small launches small; an fp64 B above XB_CAP_F64 values (s = t = 64) is cut
 * into column ranges, one launch each (X is then read once per range).
 */
#define XB_CAP_SMALL 256
#define XB_CAP_F64 4000
#define XB_CAP_F32 4096

template <typename T, int CAP> struct xb_matrix {
    T v[CAP]; /* B[a][b0 .. b0 + tc), row-major s x tc */
};

static __device__ __forceinline__ double fma_rn(double a, double b, double c)
{
    return __fma_rn(a, b, c);
}
static __device__ __forceinline__ float fma_rn(float a, float b, float c)
{
    return __fmaf_rn(a, b, c);
}

/* Columns b0 .. b0 + tc of Y (n x t) = beta Y + X B[:, b0 ..): rows by slabs of R, the slab's X
 * rows staged in shared memory with an odd row stride sp (no bank conflicts between rows), each
 * thread Y values e = r tc + b of the slab (coalesced), summing a = 0 .. s - 1 in order with one
 * rounding per fma, as the host table does. */
template <typename T, int CAP>
static __global__ void __launch_bounds__(THREADS)
    xb_kernel(int64_t n, int s, int t, int b0, int tc, int R, const T *__restrict__ X, T beta,
              int beta_zero, T *__restrict__ Y, const xb_matrix<T, CAP> B)
{
    extern __shared__ __align__(16) unsigned char smem[];
    T *Bs = (T *)smem, *Xs = Bs + s * tc;
    const int sp = s | 1;
    for (int k = threadIdx.x; k < s * tc; k += THREADS) Bs[k] = B.v[k];
    for (int64_t row0 = (int64_t)blockIdx.x * R; row0 < n; row0 += (int64_t)gridDim.x * R) {
        const int nr = (int)(n - row0 < R ? n - row0 : R);
        __syncthreads(); /* the slab before is used up (and Bs is written) */
        const T *x = X + row0 * s;
        for (int e = threadIdx.x; e < nr * s; e += THREADS) Xs[e / s * sp + e % s] = x[e];
        __syncthreads();
        for (int e = threadIdx.x; e < nr * tc; e += THREADS) {
            const int r = e / tc, b = e - r * tc;
            T *y = Y + (row0 + r) * t + b0 + b;
            T acc = beta_zero ? (T)0 : beta * *y;
            const T *xr = Xs + r * sp;
            for (int a = 0; a < s; a++) acc = fma_rn(xr[a], Bs[a * tc + b], acc);
            *y = acc;
        }
    }
}

template <typename T, int CAP>
static cudaError_t xb_launch(cudaStream_t st, int64_t n, int s, int t, int b0, int tc,
                             const T *X, const double *B, double beta, T *Y)
{
    xb_matrix<T, CAP> m;
    for (int a = 0; a < s; a++)
        for (int b = 0; b < tc; b++) m.v[a * tc + b] = (T)B[a * t + b0 + b];
    const size_t bbytes = (size_t)s * tc * sizeof(T), row = (size_t)(s | 1) * sizeof(T);
    int64_t R = XB_WORK / tc;
    if ((size_t)R * row > XB_SMEM - bbytes) R = (int64_t)((XB_SMEM - bbytes) / row);
    if (R < 1) R = 1;
    const int64_t slabs = (n + R - 1) / R;
    const unsigned grid = (unsigned)(slabs > MAX_GRID ? MAX_GRID : slabs);
    xb_kernel<T, CAP><<<grid, THREADS, bbytes + (size_t)R * row, st>>>(
        n, s, t, b0, tc, (int)R, X, (T)beta, beta == 0, Y, m);
    return cudaGetLastError();
}

template <typename T, int CAP_BIG>
static int xb(void *stream, int64_t n, int s, int t, const T *X, const double *B, double beta,
              T *Y)
{
    if (n <= 0) return (int)cudaSuccess;
    cudaStream_t st = (cudaStream_t)stream;
    const int ranges = (s * t + CAP_BIG - 1) / CAP_BIG; /* 1, or 2 for an fp64 64 x 64 B */
    const int width = (t + ranges - 1) / ranges;
    for (int b0 = 0; b0 < t; b0 += width) {
        const int tc = t - b0 < width ? t - b0 : width;
        cudaError_t e = s * tc <= XB_CAP_SMALL
                            ? xb_launch<T, XB_CAP_SMALL>(st, n, s, t, b0, tc, X, B, beta, Y)
                            : xb_launch<T, CAP_BIG>(st, n, s, t, b0, tc, X, B, beta, Y);
        if (e != cudaSuccess) return (int)e;
    }
    return (int)cudaSuccess;
}

/* x[i] = X[i s + j] (one value read, one written a row) */
template <typename T>
static __global__ void get_col_kernel(int64_t n, int s, int j, const T *__restrict__ X,
                                      T *__restrict__ x)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        x[i] = X[i * s + j];
}

/* X[i s + j] = x[i] */
template <typename T>
static __global__ void set_col_kernel(int64_t n, int s, int j, const T *__restrict__ x,
                                      T *__restrict__ X)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        X[i * s + j] = x[i];
}

static unsigned col_grid(int64_t n)
{
    const int64_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > MAX_GRID ? MAX_GRID : b);
}

extern "C" {

int mpcgi_block_xb_f64(void *stream, int64_t n, int s, int t, const double *X, const double *B,
                       double beta, double *Y)
{
    return xb<double, XB_CAP_F64>(stream, n, s, t, X, B, beta, Y);
}

int mpcgi_block_xb_f32(void *stream, int64_t n, int s, int t, const float *X, const double *B,
                       double beta, float *Y)
{
    return xb<float, XB_CAP_F32>(stream, n, s, t, X, B, beta, Y);
}

int mpcgi_block_get_col(void *stream, size_t elem, int64_t n, int s, int j, const void *X, void *x)
{
    if (n <= 0) return (int)cudaSuccess;
    cudaStream_t st = (cudaStream_t)stream;
    if (elem == sizeof(double))
        get_col_kernel<double><<<col_grid(n), THREADS, 0, st>>>(n, s, j, (const double *)X,
                                                                (double *)x);
    else
        get_col_kernel<float><<<col_grid(n), THREADS, 0, st>>>(n, s, j, (const float *)X,
                                                               (float *)x);
    return (int)cudaGetLastError();
}

int mpcgi_block_set_col(void *stream, size_t elem, int64_t n, int s, int j, const void *x, void *X)
{
    if (n <= 0) return (int)cudaSuccess;
    cudaStream_t st = (cudaStream_t)stream;
    if (elem == sizeof(double))
        set_col_kernel<double><<<col_grid(n), THREADS, 0, st>>>(n, s, j, (const double *)x,
                                                                (double *)X);
    else
        set_col_kernel<float><<<col_grid(n), THREADS, 0, st>>>(n, s, j, (const float *)x,
                                                               (float *)X);
    return (int)cudaGetLastError();
}

} /* extern "C" */
