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

/* Median over 7 groups of 10 calls of f, in ms per call. */
template <typename F> static double time_ms(F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; i++) f();
    std::vector<float> t;
    for (int g = 0; g < 7; g++) {
        CK(cudaEventRecord(a));
        for (int i = 0; i < 10; i++) f();
        CK(cudaEventRecord(b));
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

#endif /* MPCG_BENCH_EXPERIMENT_CUH */
