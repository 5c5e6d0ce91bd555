/* precond/precond_kernels.cu: the preconditioner's device kernels (diagonal scaling, the
 * blocks of block-Jacobi) and their launchers */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/cuda_reduce.cuh"
#include "precond/precond_cuda.h"

/* Threads per block (core/cuda_reduce.cuh). */
#define THREADS MPCGI_THREADS
/* Most blocks of a grid; each thread then strides over the rest. */
#define MAX_GRID 65536

/* y = alpha dinv .* x (24 B per row); no __restrict__: y may be x */
static __global__ void scale_kernel(int64_t n, double alpha, const double *dinv, const double *x,
                                    double *y)
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
        if (bstart[mid] <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* One thread per row i of block b: z_i = sum_j binv_b[i - start][j] r[start + j], summed in the
 * host's order (8 nb + 8 B per row for a block of nb rows, r's block mostly from cache) */
static __global__ void blocks_kernel(int64_t n, int64_t nblocks,
                                     const int64_t *__restrict__ bstart,
                                     const int64_t *__restrict__ boff,
                                     const double *__restrict__ binv,
                                     const double *__restrict__ r, double *__restrict__ z)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const int64_t b = block_of(i, nblocks, bstart);
        const int64_t start = bstart[b], nb = bstart[b + 1] - start;
        const double *a = binv + boff[b] + (i - start) * nb;
        double s = 0.0;
        for (int64_t j = 0; j < nb; j++) s += a[j] * r[start + j];
        z[i] = s;
    }
}

/* One thread per block b: z_b = L_b^-T L_b^-1 r_b, forward then backward substitution in z, in
 * the host's order (precond/bjacobi.c). A thread walks its block's nb^2 / 2 factor entries
 * alone, strided by nb^2 from its neighbour's, rather than applying stored inverses. */
static __global__ void cholesky_kernel(int64_t nblocks, const int64_t *__restrict__ bstart,
                                       const int64_t *__restrict__ boff,
                                       const double *__restrict__ fac,
                                       const double *__restrict__ r, double *__restrict__ z)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t b = (int64_t)blockIdx.x * THREADS + threadIdx.x; b < nblocks; b += stride) {
        const int64_t start = bstart[b], nb = bstart[b + 1] - start;
        const double *L = fac + boff[b];
        double *zb = z + start;
        for (int64_t i = 0; i < nb; i++) {
            double s = r[start + i];
            for (int64_t j = 0; j < i; j++) s -= L[i * nb + j] * zb[j];
            zb[i] = s / L[i * nb + i];
        }
        for (int64_t i = nb - 1; i >= 0; i--) {
            double s = zb[i];
            for (int64_t j = i + 1; j < nb; j++) s -= L[j * nb + i] * zb[j];
            zb[i] = s / L[i * nb + i];
        }
    }
}

extern "C" {

int mpcgi_precond_cholesky_f64(void *stream, int64_t nblocks, const int64_t *bstart,
                               const int64_t *boff, const double *fac, const double *r, double *z)
{
    if (nblocks == 0) return (int)cudaGetLastError();
    cholesky_kernel<<<mpcgi_grid_for(nblocks, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(
        nblocks, bstart, boff, fac, r, z);
    return (int)cudaGetLastError();
}


int mpcgi_precond_scale_f64(void *stream, int64_t n, double alpha, const double *dinv,
                            const double *x, double *y)
{
    scale_kernel<<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(n, alpha,
                                                                                   dinv, x, y);
    return (int)cudaGetLastError();
}

int mpcgi_precond_blocks_f64(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                             const int64_t *boff, const double *binv, const double *r, double *z)
{
    if (nblocks == 0) return (int)cudaGetLastError();
    blocks_kernel<<<mpcgi_grid_for(n, MAX_GRID), THREADS, 0, (cudaStream_t)stream>>>(
        n, nblocks, bstart, boff, binv, r, z);
    return (int)cudaGetLastError();
}

} /* extern "C" */
