/* precond/precond_kernels.cu: the preconditioner's device kernels (diagonal scaling, the
 * blocks of block-Jacobi) as templates on the value type T, and their fp64 and fp32 launchers */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/cuda_reduce.cuh"
#include "precond/precond_cuda.h"

/* Threads per block (core/cuda_reduce.cuh). */
#define THREADS MPCGI_THREADS
/* Most blocks of a grid; each thread then strides over the rest. */
#define MAX_GRID 65536

/* y = alpha dinv .* x (3 values per row); no __restrict__: y may be x */
template <typename T>
static __global__ void scale_kernel(int64_t n, T alpha, const T *dinv, const T *x, T *y)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        y[i] = alpha * dinv[i] * x[i];
}

/* The block of row i: the last b with bstart[b] <= i (a binary search, log2(nblocks) reads of
 * bstart, rather than a row-to-block map of n more entries to keep and upload). */
static __device__ int64_t block_of(int64_t i, int64_t nblocks, const int64_t *bstart)
{
    int64_t lo = 0, hi = nblocks - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (bstart[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* One thread per row i of block b: z_i = sum_j binv_b[i - start][j] r[start + j], summed in T
 * in the host's order (nb + 1 values per row for a block of nb rows, r's block mostly from
 * cache) */
template <typename T>
static __global__ void blocks_kernel(int64_t n, int64_t nblocks, const int64_t *__restrict__ bstart,
                                     const int64_t *__restrict__ boff, const T *__restrict__ binv,
                                     const T *__restrict__ r, T *__restrict__ z)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const int64_t b = block_of(i, nblocks, bstart);
        const int64_t start = bstart[b], nb = bstart[b + 1] - start;
        const T *a = binv + boff[b] + (i - start) * nb;
        T s = 0;
        for (int64_t j = 0; j < nb; j++)
            s += a[j] * r[start + j];
        z[i] = s;
    }
}

/* One thread per block b: z_b = L_b^-T L_b^-1 r_b, forward then backward substitution in z, in
 * the host's order (precond/bjacobi_impl.h). A thread walks its block's nb^2 / 2 factor entries
 * alone, strided by nb^2 from its neighbour's, rather than applying stored inverses. */
template <typename T>
static __global__ void cholesky_kernel(int64_t nblocks, const int64_t *__restrict__ bstart,
                                       const int64_t *__restrict__ boff, const T *__restrict__ fac,
                                       const T *__restrict__ r, T *__restrict__ z)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t b = (int64_t)blockIdx.x * THREADS + threadIdx.x; b < nblocks; b += stride) {
        const int64_t start = bstart[b], nb = bstart[b + 1] - start;
        const T *L = fac + boff[b];
        T *zb = z + start;
        for (int64_t i = 0; i < nb; i++) {
            T s = r[start + i];
            for (int64_t j = 0; j < i; j++)
                s -= L[i * nb + j] * zb[j];
            zb[i] = s / L[i * nb + i];
        }
        for (int64_t i = nb - 1; i >= 0; i--) {
            T s = zb[i];
            for (int64_t j = i + 1; j < nb; j++)
                s -= L[j * nb + i] * zb[j];
            zb[i] = s / L[i * nb + i];
        }
    }
}

template <typename T>
static int launch_scale(void *stream, int64_t n, double alpha, const T *dinv, const T *x, T *y)
{
    scale_kernel<T><<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, (T)alpha,
                                                                                       dinv, x, y);
    return (int)cudaGetLastError();
}

template <typename T>
static int launch_blocks(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                         const int64_t *boff, const T *binv, const T *r, T *z)
{
    if (nblocks == 0) return (int)cudaGetLastError();
    blocks_kernel<T><<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(
        n, nblocks, bstart, boff, binv, r, z);
    return (int)cudaGetLastError();
}

template <typename T>
static int launch_cholesky(void *stream, int64_t nblocks, const int64_t *bstart,
                           const int64_t *boff, const T *fac, const T *r, T *z)
{
    if (nblocks == 0) return (int)cudaGetLastError();
    cholesky_kernel<T><<<mpcgi_grid_for(nblocks, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(
        nblocks, bstart, boff, fac, r, z);
    return (int)cudaGetLastError();
}

extern "C" {

int mpcgi_precond_scale_f64(void *stream, int64_t n, double alpha, const double *dinv,
                            const double *x, double *y)
{
    return launch_scale<double>(stream, n, alpha, dinv, x, y);
}

int mpcgi_precond_scale_f32(void *stream, int64_t n, double alpha, const float *dinv,
                            const float *x, float *y)
{
    return launch_scale<float>(stream, n, alpha, dinv, x, y);
}

int mpcgi_precond_blocks_f64(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                             const int64_t *boff, const double *binv, const double *r, double *z)
{
    return launch_blocks<double>(stream, n, nblocks, bstart, boff, binv, r, z);
}

int mpcgi_precond_blocks_f32(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                             const int64_t *boff, const float *binv, const float *r, float *z)
{
    return launch_blocks<float>(stream, n, nblocks, bstart, boff, binv, r, z);
}

int mpcgi_precond_cholesky_f64(void *stream, int64_t nblocks, const int64_t *bstart,
                               const int64_t *boff, const double *fac, const double *r, double *z)
{
    return launch_cholesky<double>(stream, nblocks, bstart, boff, fac, r, z);
}

int mpcgi_precond_cholesky_f32(void *stream, int64_t nblocks, const int64_t *bstart,
                               const int64_t *boff, const float *fac, const float *r, float *z)
{
    return launch_cholesky<float>(stream, nblocks, bstart, boff, fac, r, z);
}

} /* extern "C" */
