/* core/vec_cuda.cu: device vector kernels (deterministic dot, axpy, xpay) and their launchers */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/cuda_reduce.cuh"
#include "core/vec_cuda.h"

/* Threads per block of every kernel here (core/cuda_reduce.cuh). */
#define THREADS MPCGI_THREADS
/* Most blocks of the elementwise kernels; each thread then strides over the rest. */
#define MAX_GRID 65536


/* partial[b] = sum of x[i] y[i] over i = b THREADS + t + k gridDim THREADS (16 B per fp64 row) */
template <typename T>
static __global__ void dot_partial_kernel(int64_t n, const T *__restrict__ x,
                                          const T *__restrict__ y, double *__restrict__ partial)
{
    __shared__ double ws[THREADS / 32];
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double acc = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        acc += (double)x[i] * (double)y[i];
    acc = mpcgi_block_sum_shfl<THREADS>(acc, ws);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

/* ws[MPCGI_DOT_BLOCKS] = ws[0] + ... + ws[nblocks - 1], in one block: the order of the fused
 * CG's grid sums (core/cg_kernels.cu), so the host loop's dots and the fused kernels' agree bit
 * for bit */
static __global__ void dot_final_kernel(int nblocks, double *ws)
{
    __shared__ double sh[THREADS / 32];
    double acc = 0.0;
    for (int b = threadIdx.x; b < nblocks; b += THREADS) acc += ws[b];
    acc = mpcgi_block_sum_shfl<THREADS>(acc, sh);
    if (threadIdx.x == 0) ws[MPCGI_DOT_BLOCKS] = acc;
}

/* y += a x (24 B per fp64 row) */
template <typename T>
static __global__ void axpy_kernel(int64_t n, T a, const T *__restrict__ x, T *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        y[i] += a * x[i];
}

/* y += a (double)x with y double (20 B per row from fp32 x) */
template <typename T>
static __global__ void axpy_wide_kernel(int64_t n, double a, const T *__restrict__ x,
                                        double *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        y[i] += a * (double)x[i];
}

/* y = x + a y (24 B per fp64 row) */
template <typename T>
static __global__ void xpay_kernel(int64_t n, const T *__restrict__ x, T a, T *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        y[i] = x[i] + a * y[i];
}

/* y = (Y)x (12 B per row) */
template <typename X, typename Y>
static __global__ void convert_kernel(int64_t n, const X *__restrict__ x, Y *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        y[i] = (Y)x[i];
}

template <typename X, typename Y> static int convert(void *stream, int64_t n, const X *x, Y *y)
{
    convert_kernel<X, Y><<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, x,
                                                                                          y);
    return (int)cudaGetLastError();
}

template <typename T>
static int dot(void *stream, int64_t n, const T *x, const T *y, double *ws)
{
    cudaStream_t s = (cudaStream_t)stream;
    unsigned nblocks = mpcgi_grid_for(n, MPCGI_DOT_BLOCKS);
    dot_partial_kernel<T><<<nblocks, THREADS, 0, s>>>(n, x, y, ws);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
    dot_final_kernel<<<1, THREADS, 0, s>>>((int)nblocks, ws);
    return (int)cudaGetLastError();
}

template <typename T>
static int axpy(void *stream, int64_t n, T a, const T *x, T *y)
{
    axpy_kernel<T><<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, a, x, y);
    return (int)cudaGetLastError();
}

template <typename T>
static int xpay(void *stream, int64_t n, const T *x, T a, T *y)
{
    xpay_kernel<T><<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, x, a, y);
    return (int)cudaGetLastError();
}

extern "C" {

int mpcgi_vec_dot_f64(void *stream, int64_t n, const double *x, const double *y, double *ws)
{
    return dot<double>(stream, n, x, y, ws);
}

int mpcgi_vec_dot_f32(void *stream, int64_t n, const float *x, const float *y, double *ws)
{
    return dot<float>(stream, n, x, y, ws);
}

int mpcgi_vec_axpy_f64(void *stream, int64_t n, double a, const double *x, double *y)
{
    return axpy<double>(stream, n, a, x, y);
}

int mpcgi_vec_axpy_f32(void *stream, int64_t n, float a, const float *x, float *y)
{
    return axpy<float>(stream, n, a, x, y);
}

int mpcgi_vec_axpy_wide_f32(void *stream, int64_t n, double a, const float *x, double *y)
{
    axpy_wide_kernel<float>
        <<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, a, x, y);
    return (int)cudaGetLastError();
}

int mpcgi_vec_xpay_f64(void *stream, int64_t n, const double *x, double a, double *y)
{
    return xpay<double>(stream, n, x, a, y);
}

int mpcgi_vec_xpay_f32(void *stream, int64_t n, const float *x, float a, float *y)
{
    return xpay<float>(stream, n, x, a, y);
}

int mpcgi_vec_demote_f32(void *stream, int64_t n, const double *x, float *y)
{
    return convert<double, float>(stream, n, x, y);
}

int mpcgi_vec_promote_f32(void *stream, int64_t n, const float *x, double *y)
{
    return convert<float, double>(stream, n, x, y);
}

} /* extern "C" */
