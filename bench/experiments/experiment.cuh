/* bench/experiments/experiment.cuh: what the single-file experiments share (the error checks
 * of experiment.h, timing, comparison with a CPU product, the cuSPARSE baseline); included by them,
 * not built by make */
#ifndef MPCG_BENCH_EXPERIMENT_CUH
#define MPCG_BENCH_EXPERIMENT_CUH

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>

#include "experiment.h"

/* Median over 7 groups of 10 calls of f (after 20), in ms per call; the events on `stream`. */
template <typename F> static double time_ms(F f, cudaStream_t stream = 0)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; i++) f();
    std::vector<float> t;
    for (int g = 0; g < 7; g++) {
        CK(cudaEventRecord(a, stream));
        for (int i = 0; i < 10; i++) f();
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / 10);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[3];
}

/* The device's copy bandwidth, GB/s: cudaMemcpyAsync device to device of 1 GiB, read + write
 * counted (time_ms's median). */
static double copy_gbs()
{
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    double ms = time_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
    CK(cudaFree(a));
    CK(cudaFree(b));
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

/* A block's sum of v over its B threads (fixed order: butterflies, then the warps' sums in
 * order) in thread 0. */
template <int B> static __device__ double block_sum_of(double v)
{
    __shared__ double s[B / 32];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) s[threadIdx.x / 32] = v;
    __syncthreads();
    double t = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < B / 32; w++)
            t += s[w];
    return t;
}

/* The end of a CG r update (blocks of B threads): the blocks' partials of r.r, the last block
 * (a counter after a fence) sums them in a fixed order: beta = r.r / rr, rr = r.r. S: a state
 * with rr, beta and an unsigned counter `arrived`, 0 between kernels. */
template <int B, typename S> static __device__ void rr_finish_of(double acc, double *part, S *s)
{
    __shared__ bool last;
    acc = block_sum_of<B>(acc);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = acc;
        __threadfence();
        last = atomicAdd(&s->arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double t = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += B)
        t += __ldcg(part + b);
    t = block_sum_of<B>(t);
    if (threadIdx.x == 0) {
        s->beta = t / s->rr;
        s->rr = t;
        s->arrived = 0;
    }
}

/* pq = part[0] + ... + part[parts - 1] (one block of 1024 threads, a shared tree), alpha =
 * rr / pq into the CG state s (fields rr, pq, alpha). */
template <typename S> static __device__ void dot_finish_of(int parts, const double *part, S *s)
{
    __shared__ double sh[1024];
    double t = 0;
    for (int b = threadIdx.x; b < parts; b += 1024)
        t += part[b];
    sh[threadIdx.x] = t;
    __syncthreads();
    for (int h = 512; h > 0; h /= 2) {
        if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) s->pq = sh[0], s->alpha = s->rr / sh[0];
}

/* ms a call of f (time_ms on stream), then the n doubles at x_dev copied into x: an
 * experiment's iteration timed and its iterate kept for a bit-for-bit comparison. */
template <typename F>
static double time_ms_fetch(F f, cudaStream_t stream, const double *x_dev, int n,
                            std::vector<double> &x)
{
    const double ms = time_ms(f, stream);
    x.resize(n);
    CK(cudaMemcpy(x.data(), x_dev, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
    return ms;
}

static double rel_diff(const std::vector<double> &ref, const double *dy, int n)
{
    std::vector<double> y(n);
    CK(cudaMemcpy(y.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
    double m = 0, d = 0;
    for (int i = 0; i < n; i++) {
        m = std::max(m, std::fabs(ref[i]));
        d = std::max(d, std::fabs(y[i] - ref[i]));
    }
    return d / m;
}

/* y = A x by cusparseSpMV (CSR, 32-bit indices, fp64, the default algorithm) on device arrays. */
struct cusparse_spmv {
    cusparseHandle_t h;
    cusparseSpMatDescr_t mA;
    cusparseDnVecDescr_t vx, vy;
    void *ws = nullptr;
    double one = 1, zero = 0;
    cusparse_spmv(int n, long nnz, int *rp, int *col, double *val, double *x, double *y)
    {
        size_t wsb = 0;
        cusparseCreate(&h);
        cusparseCreateCsr(&mA, n, n, nnz, rp, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
        cusparseCreateDnVec(&vx, n, x, CUDA_R_64F);
        cusparseCreateDnVec(&vy, n, y, CUDA_R_64F);
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, vx, &zero, vy,
                                CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &wsb);
        CK(cudaMalloc(&ws, wsb + 1));
    }
    void operator()()
    {
        cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, vx, &zero, vy, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, ws);
    }
};

/* A 7- or 27-point stencil on an m^3 grid (CSR, columns ascending): diagonal 6 or 26, the
 * others -1 - 0.001 (i mod 7), row i's. Not symmetric and not positive definite (the interior
 * rows' sums are negative): the experiments time kernels, and CG on it meets p.q <= 0 within
 * tens of iterations. */
struct mat {
    int n;
    long nnz;
    std::vector<int> rp;
    std::vector<int> col;
    std::vector<double> val;
};

static mat stencil(int m, int pts)
{
    mat A;
    A.n = m * m * m;
    A.rp.push_back(0);
    for (int z = 0; z < m; z++)
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++) {
                int i = (z * m + y) * m + x;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int a = (dx != 0) + (dy != 0) + (dz != 0);
                            if (pts == 7 && a > 1) continue;
                            int X = x + dx, Y = y + dy, Z = z + dz;
                            if (X < 0 || Y < 0 || Z < 0 || X >= m || Y >= m || Z >= m) continue;
                            int j = (Z * m + Y) * m + X;
                            A.col.push_back(j);
                            A.val.push_back(j == i ? (pts == 7 ? 6.0 : 26.0)
                                                   : -1.0 - 0.001 * (i % 7));
                        }
                A.rp.push_back((int)A.col.size());
            }
    A.nnz = (long)A.col.size();
    return A;
}

/* A's slot-major ELL on the device (K = the longest row; slot k of row i at k n + i, padding 0
 * with column i), as fold lays out a matrix without folded rows. */
struct ell {
    int n = 0, K = 0;
    double *val = nullptr;
    int *col = nullptr;
};

static ell ell_of(const mat &A)
{
    ell E;
    E.n = A.n;
    for (int i = 0; i < A.n; i++)
        E.K = std::max(E.K, A.rp[i + 1] - A.rp[i]);
    const long slots = (long)E.K * E.n;
    std::vector<double> v(slots, 0.0);
    std::vector<int> c(slots);
    for (int i = 0; i < A.n; i++)
        for (int k = 0; k < E.K; k++) {
            const int e = A.rp[i] + k;
            const bool in = e < A.rp[i + 1];
            v[(long)k * E.n + i] = in ? A.val[e] : 0.0;
            c[(long)k * E.n + i] = in ? A.col[e] : i;
        }
    CK(cudaMalloc(&E.val, slots * 8));
    CK(cudaMalloc(&E.col, slots * 4));
    CK(cudaMemcpy(E.val, v.data(), slots * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(E.col, c.data(), slots * 4, cudaMemcpyHostToDevice));
    return E;
}

#endif /* MPCG_BENCH_EXPERIMENT_CUH */
