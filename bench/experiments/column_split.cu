/* bench/experiments/column_split.cu: is y = A x faster in K passes over column slabs of A when
 * the columns are random and x is larger than an L2 partition? (an experiment, not built by make)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/experiments/column_split.cu -lcusparse -o column_split
 *   ./column_split [n] [mean row length]          (default 4000000 16)
 *
 * The matrix: n rows of 8 + (r % (2 mean - 15)) entries (mean `mean`), the diagonal and uniformly
 * random columns (the gather pattern of powerlaw:N:DEG, whose columns are uniform too), random
 * values. Timed (CUDA events, median of 7 groups of 10 calls, after warm-up), fp64:
 *   - cusparseSpMV (CSR, default algorithm) on the whole matrix;
 *   - one pass of a CSR-vector kernel (NT lanes per row, matrix loads .cs, x through ld.global.nc,
 *     shuffle reduction) on the whole matrix;
 *   - K = 2, 4 passes of it over the column slabs [s n / K, (s + 1) n / K), each its own CSR
 *     (all rows), the first writing y, the others adding to it.
 * Every result is compared with a CPU product (relative max difference printed).
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "experiment.cuh"
#include <vector>


struct csr {
    std::vector<int> rp, col;
    std::vector<double> val;
};
struct dcsr {
    int *rp, *col;
    double *val;
    long nnz;
};

template <int NT>
__global__ void __launch_bounds__(128) csr_vector(int n, const int *__restrict__ rp,
                                                  const int *__restrict__ col,
                                                  const double *__restrict__ val,
                                                  const double *__restrict__ x,
                                                  double *__restrict__ y, int add)
{
    const int row = (int)(((long)blockIdx.x * blockDim.x + threadIdx.x) / NT);
    const int lane = threadIdx.x % NT;
    const int b = row < n ? rp[row] : 0, e = row < n ? rp[row + 1] : 0; /* every lane shuffles */
    double s = 0;
    for (int k = b + lane; k < e; k += NT)
        s += __ldcs(val + k) * __ldg(x + __ldcs(col + k));
    for (int d = NT / 2; d > 0; d >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, d, NT);
    if (lane == 0 && row < n) y[row] = add ? y[row] + s : s;
}

static dcsr upload(const csr &A)
{
    dcsr d;
    d.nnz = (long)A.col.size();
    CK(cudaMalloc(&d.rp, A.rp.size() * sizeof(int)));
    CK(cudaMalloc(&d.col, std::max<size_t>(1, A.col.size()) * sizeof(int)));
    CK(cudaMalloc(&d.val, std::max<size_t>(1, A.val.size()) * sizeof(double)));
    CK(cudaMemcpy(d.rp, A.rp.data(), A.rp.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.col, A.col.data(), A.col.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.val, A.val.data(), A.val.size() * sizeof(double), cudaMemcpyHostToDevice));
    return d;
}

static void launch(int nt, int n, const dcsr &A, const double *x, double *y, int add)
{
    const long threads = (long)n * nt;
    const unsigned grid = (unsigned)((threads + 127) / 128);
    switch (nt) {
    case 4: csr_vector<4><<<grid, 128>>>(n, A.rp, A.col, A.val, x, y, add); break;
    case 8: csr_vector<8><<<grid, 128>>>(n, A.rp, A.col, A.val, x, y, add); break;
    case 16: csr_vector<16><<<grid, 128>>>(n, A.rp, A.col, A.val, x, y, add); break;
    default: csr_vector<32><<<grid, 128>>>(n, A.rp, A.col, A.val, x, y, add); break;
    }
}


int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 4000000, mean = argc > 2 ? atoi(argv[2]) : 16;
    const int spread = 2 * mean - 15 > 1 ? 2 * mean - 15 : 1;
    csr A;
    A.rp.assign(n + 1, 0);
    unsigned long long g = 0x5eed0003ull;
    auto rnd = [&g]() {
        g = g * 6364136223846793005ull + 1442695040888963407ull;
        return (unsigned)(g >> 33);
    };
    for (int i = 0; i < n; i++) {
        int len = 8 + (int)(rnd() % (unsigned)spread);
        std::vector<int> c{i};
        for (int t = 1; t < len; t++) c.push_back((int)(rnd() % (unsigned)n));
        std::sort(c.begin(), c.end());
        for (int j : c) {
            A.col.push_back(j);
            A.val.push_back((double)(rnd() % 2001) / 1000.0 - 1.0);
        }
        A.rp[i + 1] = (int)A.col.size();
    }
    const long nnz = (long)A.col.size();
    std::vector<double> x(n), ref(n, 0.0);
    for (int i = 0; i < n; i++) x[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
    for (int i = 0; i < n; i++)
        for (int k = A.rp[i]; k < A.rp[i + 1]; k++) ref[i] += A.val[k] * x[A.col[k]];

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("column_split: %s, L2 %d MB; n %d, nnz %ld (%.1f per row), x %.1f MB\n", prop.name,
           prop.l2CacheSize >> 20, n, nnz, (double)nnz / n, n * 8.0 / 1e6);
    double *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(double)));
    CK(cudaMalloc(&dy, n * sizeof(double)));
    CK(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    dcsr dA = upload(A);

    /* cuSPARSE */
    cusparse_spmv cus(n, nnz, dA.rp, dA.col, dA.val, dx, dy);
    CK(cudaMemset(dy, 0xff, n * sizeof(double)));
    cus();
    CK(cudaDeviceSynchronize());
    const double bytes = nnz * 12.0 + (n + 1) * 4.0 + n * 16.0;
    double tc = time_ms(cus);
    printf("%-28s %8.4f ms  %7.1f GB/s  1.00 x  diff %.1e\n", "cusparse", tc, bytes / tc / 1e6,
           rel_diff(ref, dy, n));

    for (int K : {1, 2, 4}) {
        std::vector<csr> S(K);
        for (int s = 0; s < K; s++) S[s].rp.assign(n + 1, 0);
        for (int i = 0; i < n; i++) {
            for (int k = A.rp[i]; k < A.rp[i + 1]; k++) {
                int s = (int)((long)A.col[k] * K / n);
                S[s].col.push_back(A.col[k]);
                S[s].val.push_back(A.val[k]);
            }
            for (int s = 0; s < K; s++) S[s].rp[i + 1] = (int)S[s].col.size();
        }
        std::vector<dcsr> dS;
        for (int s = 0; s < K; s++) dS.push_back(K == 1 ? dA : upload(S[s]));
        for (int nt : {4, 8, 16, 32}) {
            if (nt * K > 64 || nt * K < mean / 2) continue;
            auto run = [&]() {
                for (int s = 0; s < K; s++) launch(nt, n, dS[s], dx, dy, s > 0);
            };
            CK(cudaMemset(dy, 0xff, n * sizeof(double)));
            run();
            CK(cudaDeviceSynchronize());
            double d = rel_diff(ref, dy, n), t = time_ms(run);
            char name[64];
            snprintf(name, sizeof name, "%d pass%s, NT %d", K, K > 1 ? "es" : "", nt);
            printf("%-28s %8.4f ms  %7.1f GB/s  %.2f x  diff %.1e\n", name, t,
                   (bytes + (K - 1) * (n * 16.0 + (n + 1) * 4.0)) / t / 1e6, tc / t, d);
        }
        for (int s = 0; s < K && K > 1; s++) {
            cudaFree(dS[s].rp), cudaFree(dS[s].col), cudaFree(dS[s].val);
        }
    }
    return 0;
}
