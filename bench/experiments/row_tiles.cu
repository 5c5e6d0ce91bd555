/* bench/experiments/row_tiles.cu: can a gather-bound SpMV issue fewer L2 requests if each block
 * takes a tile of rows, keeps the tile's y in shared memory and walks the tile's entries in
 * column order? (an experiment, not built by make)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp bench/experiments/row_tiles.cu \
 *        -lcusparse -o row_tiles
 *   ./row_tiles [n] [deg]          (default 4000000 16: the shape of powerlaw:N:DEG)
 *
 * The matrix: the structure of powerlaw:N:DEG (io/generate_graph.c): out-degrees Pareto(2) with
 * mean DEG / 2 capped at 100000, uniformly random targets, symmetrised, plus the diagonal; random
 * values. With uniformly random columns a CSR kernel issues one L2 request per nonzero for x
 * (Nsight Compute: the L2 tag lookups run at 96 %, docs/backends.md). Sorting a tile's entries
 * by column puts the 32 gathers of one warp instruction into few 128-byte lines when the tile is
 * dense enough (R rows, ~DEG R entries over n columns): the L1 then sends one request per line.
 *
 * Determinism without atomics: the tile's entries are dealt into rounds of BS entries (one per
 * thread) in which no row occurs twice; y_tile[row] += val * x[col] then needs no atomic, and a
 * __syncthreads between rounds fixes the order of the additions to a row (round order). Rows
 * longer than LONG entries are summed by one warp each before the rounds. D rounds load their
 * entries and gathers together before their D barriers (latency).
 *
 * Timed (CUDA events, median of 7 groups of 10 calls, after warm-up), fp64: cusparseSpMV (CSR,
 * default algorithm), a CSR-vector kernel (NT lanes per row), and the tile kernel for several
 * tile counts. Each result is compared with a CPU product (relative max difference).
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "experiment.cuh"
#include <numeric>
#include <vector>


#define NONE 0xffff

struct csr {
    int n;
    std::vector<long> rp;
    std::vector<int> col;
    std::vector<double> val;
};

template <int NT>
__global__ void __launch_bounds__(128) csr_vector(int n, const long *__restrict__ rp,
                                                  const int *__restrict__ col,
                                                  const double *__restrict__ val,
                                                  const double *__restrict__ x,
                                                  double *__restrict__ y)
{
    const int row = (int)(((long)blockIdx.x * blockDim.x + threadIdx.x) / NT);
    const int lane = threadIdx.x % NT;
    const long b = row < n ? rp[row] : 0, e = row < n ? rp[row + 1] : 0;
    double s = 0;
    for (long k = b + lane; k < e; k += NT)
        s += __ldcs(val + k) * __ldg(x + __ldcs(col + k));
    for (int d = NT / 2; d > 0; d >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, d, NT);
    if (lane == 0 && row < n) y[row] = s;
}

struct tiles_dev {
    int T, bs, d;
    int *tile_row, *tile_rounds, *long_ptr, *long_row;
    long *tile_off;
    int *col;
    unsigned short *lrow;
    double *val;
    long entries;
    int smem;
};

/* The tile kernel: the next D rounds' entries are loaded while this batch's barriers run;
 * x gathered with ld.global.nc (G = 0) or ld.global.cg (G = 1). */
template <int G> __device__ __forceinline__ double gather(const double *p)
{
    if constexpr (G == 0) return __ldg(p);
    else return __ldcg(p);
}

template <int BS, int D, int G>
__global__ void __launch_bounds__(BS) tile_kernel_pf(
    const int *__restrict__ tile_row, const long *__restrict__ tile_off,
    const int *__restrict__ tile_rounds, const int *__restrict__ long_ptr,
    const int *__restrict__ long_row, const long *__restrict__ rp, const int *__restrict__ acol,
    const double *__restrict__ aval, const int *__restrict__ col,
    const unsigned short *__restrict__ lrow, const double *__restrict__ val,
    const double *__restrict__ x, double *__restrict__ y)
{
    extern __shared__ double ys[];
    const int t = blockIdx.x, r0 = tile_row[t], R = tile_row[t + 1] - r0;
    for (int i = threadIdx.x; i < R; i += BS) ys[i] = 0;
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int j = long_ptr[t] + warp; j < long_ptr[t + 1]; j += BS / 32) {
        const int r = long_row[j];
        double s = 0;
        for (long k = rp[r] + lane; k < rp[r + 1]; k += 32)
            s += __ldcs(aval + k) * __ldg(x + __ldcs(acol + k));
        for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (lane == 0) ys[r - r0] = s;
    }
    __syncthreads();
    const long base = tile_off[t] + threadIdx.x;
    const int nr = tile_rounds[t];
    int c[D], l[D];
    double v[D];
    if (nr > 0) {
#pragma unroll
        for (int j = 0; j < D; j++) {
            const long e = base + (long)j * BS;
            c[j] = __ldcs(col + e), l[j] = __ldcs(lrow + e), v[j] = __ldcs(val + e);
        }
    }
    for (int q = 0; q < nr; q += D) {
        double p[D];
        int lc[D];
#pragma unroll
        for (int j = 0; j < D; j++) {
            lc[j] = l[j];
            p[j] = l[j] != NONE ? v[j] * gather<G>(x + c[j]) : 0.0;
        }
        if (q + D < nr) {
#pragma unroll
            for (int j = 0; j < D; j++) {
                const long e = base + (long)(q + D + j) * BS;
                c[j] = __ldcs(col + e), l[j] = __ldcs(lrow + e), v[j] = __ldcs(val + e);
            }
        }
#pragma unroll
        for (int j = 0; j < D; j++) {
            if (lc[j] != NONE) ys[lc[j]] += p[j];
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < R; i += BS) y[r0 + i] = ys[i];
}


template <typename T> static T *up(const std::vector<T> &v)
{
    T *d;
    CK(cudaMalloc(&d, std::max<size_t>(1, v.size()) * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

static unsigned long long rng_state = 0x5eed0004ull;
static unsigned rnd()
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33);
}
static double urand() { return (rnd() + 0.5) / 4294967296.0 * 2.0; } /* (0, 1) */

static csr make_powerlaw(int n, int deg)
{
    const long cap = std::min(n - 1, 100000);
    std::vector<long> out(n);
    long edges = 0;
    for (int i = 0; i < n; i++) {
        double d = deg / 4.0 / std::sqrt(urand());
        long k = (long)d;
        out[i] = k < 1 ? 1 : k > cap ? cap : k;
        edges += out[i];
    }
    std::vector<int> ri, ci;
    ri.reserve(2 * edges);
    ci.reserve(2 * edges);
    for (int i = 0; i < n; i++)
        for (long e = 0; e < out[i]; e++) {
            int j = (int)(rnd() % (unsigned)(n - 1));
            j += j >= i;
            ri.push_back(i), ci.push_back(j), ri.push_back(j), ci.push_back(i);
        }
    csr A;
    A.n = n;
    A.rp.assign(n + 1, 0);
    for (int r : ri) A.rp[r + 1]++;
    for (int i = 0; i < n; i++) A.rp[i + 1] += A.rp[i] + 1; /* + the diagonal */
    std::vector<long> w(A.rp.begin(), A.rp.end() - 1);
    std::vector<int> c(A.rp[n]);
    for (int i = 0; i < n; i++) c[w[i]++] = i;
    for (size_t k = 0; k < ri.size(); k++) c[w[ri[k]]++] = ci[k];
#pragma omp parallel for schedule(dynamic, 4096)
    for (int i = 0; i < n; i++) std::sort(c.begin() + A.rp[i], c.begin() + A.rp[i + 1]);
    /* merge duplicates */
    std::vector<long> rp(n + 1, 0);
    A.col.reserve(c.size());
    for (int i = 0; i < n; i++) {
        for (long k = A.rp[i]; k < A.rp[i + 1]; k++)
            if (k == A.rp[i] || c[k] != c[k - 1]) A.col.push_back(c[k]);
        rp[i + 1] = (long)A.col.size();
    }
    A.rp = rp;
    A.val.resize(A.col.size());
    for (auto &v : A.val) v = (double)(rnd() % 2001) / 1000.0 - 1.0;
    return A;
}

/* T tiles of about equal nnz; rounds of bs entries, a row at most once per round; rounds padded
 * to a multiple of d. Returns false when a tile would exceed max_rows. */
static bool build_tiles(const csr &A, int T, int S, int bs, int d, int long_min, int max_rows,
                        tiles_dev &td, double *pad_frac, double *lines_per_warp)
{
    const int n = A.n;
    const long nnz = A.rp[n];
    std::vector<int> tile_row(T + 1, n);
    tile_row[0] = 0;
    if (T > 0) {
        int t = 1;
        for (int i = 0; i < n && t < T; i++)
            if (A.rp[i + 1] >= (long)((double)nnz * t / T)) tile_row[t++] = i + 1;
        for (; t <= T; t++) tile_row[t] = n;
    } else { /* big first: waves of S tiles of max_rows rows (or nnz / S entries), the rest in S
                tiles */
        std::vector<int> cut{0};
        const long eb = nnz / S;
        int i = 0;
        while ((long)(n - i) > (long)S * max_rows) {
            for (int k = 0; k < S; k++) {
                int j = i;
                while (j < n && j - i < max_rows && A.rp[j + 1] - A.rp[i] <= eb) j++;
                if (j == i) j++;
                cut.push_back(i = j);
            }
        }
        const long e0 = A.rp[i], rest = nnz - e0;
        for (int k = 1; k < S; k++) {
            int j = cut.back();
            while (j < n && A.rp[j + 1] - e0 <= rest * k / S) j++;
            cut.push_back(j);
        }
        cut.push_back(n);
        T = (int)cut.size() - 1;
        tile_row = cut;
    }
    int rmax = 0;
    for (int t = 0; t < T; t++) rmax = std::max(rmax, tile_row[t + 1] - tile_row[t]);
    if (rmax > max_rows || rmax >= NONE) return false;
    std::vector<long> tile_off(T + 1, 0);
    std::vector<int> tile_rounds(T), long_ptr(T + 1, 0), long_row;
    std::vector<std::vector<int>> tcol(T);
    std::vector<std::vector<unsigned short>> tl(T);
    std::vector<std::vector<double>> tv(T);
    std::vector<std::vector<int>> tlong(T);
    std::vector<double> tlines(T, 0);
    std::vector<long> twarps(T, 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < T; t++) {
        const int r0 = tile_row[t], r1 = tile_row[t + 1];
        std::vector<long> ent; /* entry k of the matrix */
        std::vector<int> erow;
        for (int i = r0; i < r1; i++) {
            if (A.rp[i + 1] - A.rp[i] > long_min) {
                tlong[t].push_back(i);
                continue;
            }
            for (long k = A.rp[i]; k < A.rp[i + 1]; k++) ent.push_back(k);
        }
        std::stable_sort(ent.begin(), ent.end(),
                         [&](long a, long b) { return A.col[a] < A.col[b]; });
        std::vector<int> last(r1 - r0, -1), fill;
        std::vector<long> slot_of(ent.size());
        long pos = 0;
        for (long k : ent) {
            int i = (int)(std::upper_bound(A.rp.begin() + r0, A.rp.begin() + r1 + 1, k) -
                          A.rp.begin()) - 1 - r0;
            int q = std::max((int)(pos / bs), last[i] + 1);
            while (q < (int)fill.size() && fill[q] == bs) q++;
            if (q >= (int)fill.size()) fill.resize(q + 1, 0);
            slot_of[pos] = (long)q * bs + fill[q]++;
            last[i] = q;
            pos++;
        }
        int rounds = (int)fill.size();
        rounds = (rounds + d - 1) / d * d;
        tile_rounds[t] = rounds;
        tcol[t].assign((size_t)rounds * bs, 0);
        tl[t].assign((size_t)rounds * bs, NONE);
        tv[t].assign((size_t)rounds * bs, 0.0);
        for (size_t p = 0; p < ent.size(); p++) {
            long k = ent[p], s = slot_of[p];
            tcol[t][s] = A.col[k];
            tv[t][s] = A.val[k];
            tl[t][s] = (unsigned short)((std::upper_bound(A.rp.begin() + r0,
                                                          A.rp.begin() + r1 + 1, k) -
                                         A.rp.begin()) - 1 - r0);
        }
        /* distinct 128-byte lines of x per warp instruction */
        for (long w = 0; w < (long)rounds * bs / 32; w++) {
            int lines = 0, prev = -1;
            std::vector<int> ls;
            for (int j = 0; j < 32; j++)
                if (tl[t][w * 32 + j] != NONE) ls.push_back(tcol[t][w * 32 + j] / 16);
            std::sort(ls.begin(), ls.end());
            for (int v : ls)
                if (v != prev) lines++, prev = v;
            if (!ls.empty()) tlines[t] += lines, twarps[t] += (long)ls.size();
        }
    }
    for (int t = 0; t < T; t++) {
        tile_off[t + 1] = tile_off[t] + (long)tile_rounds[t] * bs;
        long_ptr[t + 1] = long_ptr[t] + (int)tlong[t].size();
        long_row.insert(long_row.end(), tlong[t].begin(), tlong[t].end());
    }
    const long E = tile_off[T];
    std::vector<int> col(E);
    std::vector<unsigned short> lr(E);
    std::vector<double> val(E);
    double lines = 0, gathers = 0;
    long real = 0;
    for (int t = 0; t < T; t++) {
        std::copy(tcol[t].begin(), tcol[t].end(), col.begin() + tile_off[t]);
        std::copy(tl[t].begin(), tl[t].end(), lr.begin() + tile_off[t]);
        std::copy(tv[t].begin(), tv[t].end(), val.begin() + tile_off[t]);
        lines += tlines[t], gathers += (double)twarps[t];
        for (auto v : tl[t]) real += v != NONE;
    }
    *pad_frac = (double)(E - real) / (double)E;
    *lines_per_warp = lines / gathers * 32;
    (void)S;
    td.T = T, td.bs = bs, td.d = d, td.entries = E, td.smem = rmax * 8;
    td.tile_row = up(tile_row), td.tile_off = up(tile_off), td.tile_rounds = up(tile_rounds);
    td.long_ptr = up(long_ptr), td.long_row = up(long_row);
    td.col = up(col), td.lrow = up(lr), td.val = up(val);
    return true;
}

static void free_tiles(tiles_dev &td)
{
    cudaFree(td.tile_row), cudaFree(td.tile_off), cudaFree(td.tile_rounds);
    cudaFree(td.long_ptr), cudaFree(td.long_row);
    cudaFree(td.col), cudaFree(td.lrow), cudaFree(td.val);
}

template <int BS, int D, int PF>
static void launch_tiles(const tiles_dev &td, const long *rp, const int *acol, const double *aval,
                         const double *x, double *y)
{
    auto k = PF == 2 ? tile_kernel_pf<BS, D, 1> : tile_kernel_pf<BS, D, 0>;
    static bool set = false;
    if (!set) {
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
        set = true;
    }
    k<<<td.T, BS, td.smem>>>(td.tile_row, td.tile_off, td.tile_rounds,
                                              td.long_ptr, td.long_row, rp, acol, aval, td.col,
                                              td.lrow, td.val, x, y);
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 4000000, deg = argc > 2 ? atoi(argv[2]) : 16;
    csr A = make_powerlaw(n, deg);
    const long nnz = A.rp[n];
    std::vector<double> x(n), ref(n, 0.0);
    for (int i = 0; i < n; i++) x[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
    for (int i = 0; i < n; i++)
        for (long k = A.rp[i]; k < A.rp[i + 1]; k++) ref[i] += A.val[k] * x[A.col[k]];

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int S = prop.multiProcessorCount;
    printf("row_tiles: %s, %d SMs, L2 %d MB; n %d, nnz %ld (%.1f per row), x %.1f MB\n",
           prop.name, S, prop.l2CacheSize >> 20, n, nnz, (double)nnz / n, n * 8.0 / 1e6);
    double *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(double)));
    CK(cudaMalloc(&dy, n * sizeof(double)));
    CK(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<int> rp32(A.rp.begin(), A.rp.end());
    long *drp = up(A.rp);
    int *drp32 = up(rp32), *dcol = up(A.col);
    double *dval = up(A.val);

    cusparse_spmv cus(n, nnz, drp32, dcol, dval, dx, dy);
    CK(cudaMemset(dy, 0xff, n * sizeof(double)));
    cus();
    CK(cudaDeviceSynchronize());
    const double bytes = nnz * 12.0 + (n + 1) * 4.0 + n * 16.0;
    const double tc = time_ms(cus);
    printf("%-40s %8.4f ms  %7.1f GB/s  1.00 x  diff %.1e\n", "cusparse", tc, bytes / tc / 1e6,
           rel_diff(ref, dy, n));
    {
        auto run = [&]() {
            csr_vector<16><<<(unsigned)(((long)n * 16 + 127) / 128), 128>>>(n, drp, dcol, dval,
                                                                          dx, dy);
        };
        CK(cudaMemset(dy, 0xff, n * sizeof(double)));
        run();
        CK(cudaDeviceSynchronize());
        double d = rel_diff(ref, dy, n), t = time_ms(run);
        printf("%-40s %8.4f ms  %7.1f GB/s  %.2f x  diff %.1e\n", "csr-vector NT 16", t,
               bytes / t / 1e6, tc / t, d);
    }
    const int long_min = argc > 3 ? atoi(argv[3]) : 64;
    struct cfg {
        int mult, bs, d, pf;
    } cfgs[] = {{2, 1024, 8, 1}, {2, 1024, 8, 2}, {2, 1024, 4, 2}, {0, 1024, 8, 1},
                {0, 1024, 8, 2}, {0, 1024, 4, 2}, {0, 512, 8, 1}, {0, 512, 8, 2}, {0, 512, 4, 2}};
    for (auto c : cfgs) {
        tiles_dev td;
        double pad, lpw;
        const int max_rows = c.bs == 1024 ? (227 * 1024 - 64) / 8 : (113 * 1024 - 64) / 8;
        if (!build_tiles(A, S * c.mult, S, c.bs, c.d, long_min, max_rows, td, &pad, &lpw)) {
            printf("T %d: a tile exceeds the shared memory\n", S * c.mult);
            continue;
        }
        auto run = [&]() {
#define L_(B, D_, P)                                                                               \
    if (c.bs == B && c.d == D_ && c.pf == P) launch_tiles<B, D_, P>(td, drp, dcol, dval, dx, dy);
            L_(1024, 8, 1) L_(1024, 8, 2) L_(1024, 4, 2) L_(512, 8, 1) L_(512, 8, 2) L_(512, 4, 2)
        };
        CK(cudaMemset(dy, 0xff, n * sizeof(double)));
        run();
        CK(cudaDeviceSynchronize());
        double d = rel_diff(ref, dy, n), t = time_ms(run);
        char name[96];
        snprintf(name, sizeof name, "tiles T %d (%s), BS %d, D %d%s, smem %dK", td.T,
                 c.mult ? "even" : "big first", c.bs, c.d, c.pf == 2 ? " cg" : c.pf ? " pf" : "", td.smem / 1024);
        printf("%-46s %8.4f ms  %7.1f GB/s  %.2f x  diff %.1e  pad %.3f  lines/warp %.1f\n",
               name, t, bytes / t / 1e6, tc / t, d, pad, lpw);
        fflush(stdout);
        free_tiles(td);
    }
    return 0;
}
