/* bench/experiments/experiment.cuh: what the single-file experiments share (error check,
 * timing, comparison with a CPU product, the cuSPARSE baseline); included by them, not built by
 * make */
#ifndef MPCG_BENCH_EXPERIMENT_CUH
#define MPCG_BENCH_EXPERIMENT_CUH

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

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

/* A 7- or 27-point stencil on an m^3 grid (CSR, columns ascending), SPD: diagonal 6 or 26, the
 * others -1 - 0.001 (i mod 7). */
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

#endif /* MPCG_BENCH_EXPERIMENT_CUH */
