/* bench/experiments/cg_iteration.cu: where does the fused fp64 CG iteration's time go on the
 * H200, and does it get faster if its vectors stay in L2 between its kernels, or with fewer
 * kernels? (an experiment, not built by make; issue 25)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/experiments/cg_iteration.cu -lcusparse -o cg_iteration
 *   ./cg_iteration [1-3]   (a matrix, default all: poisson3d27:96, poisson3d:128, poisson3d27:128)
 *
 * The iteration is mpcg's fused one (docs/solver.md, docs/roofline.md: A + 80 bytes a row) in
 * four kernels: q = A p with the blocks' partials of p.q (a slot-major ELL SpMV, one thread a
 * row, the matrix read evict-first as fold does), the one-block sum of the partials, r -= alpha q
 * with r.r (the last block sums), x += alpha p and p = r + beta p. The variants differ only in
 * the L2 eviction priority of the vector accesses, never in the arithmetic (x is compared bit for
 * bit after the same iterations):
 *   - plain: default loads and stores;
 *   - last=SET: the loads and stores of the vectors in SET (r, p, q, x) with an evict_last
 *     policy (createpolicy.fractional.L2::evict_last, ld/st .L2::cache_hint), no set-aside;
 *   - window: the stream's access-policy window over the four vectors (one allocation),
 *     persisting on a hit, with the set-aside at the device's maximum and the hit ratio that fits
 *     it; the kernels plain;
 *   - plain with the flag: the SpMV reads a stop flag before anything else (the library's
 *     fused products do, for the iterations queued after a stop);
 *   - merged: update_r and update_p one cooperative kernel with a grid barrier between them
 *     (r -= alpha q, r.r; the barrier; every block sums the partials; x += alpha p,
 *     p = r + beta p with r_i still in registers: A + 72 bytes a row, three kernels);
 *   - direction: the SpMV forms d_j = r_j + beta p_j on the fly from two gathers and writes its
 *     rows' d_i to the other p buffer; one update kernel then does x += alpha d, r -= alpha q and
 *     r.r (A + 80 bytes, three kernels: the persistent two-barrier loop's phases as kernels).
 *   - warp partials: the SpMV writes a partial of p.q a warp (no block barrier) and a two-level
 *     finish adds them (a block per 1024, the last block the blocks' sums), as adaptive does.
 * Then each kernel alone, repeated (the SpMV without the dot; with block partials and the
 * one-block finish; with warp partials and the two-level finish; update_r; update_p), against
 * the time of its bytes at the copy bandwidth (update_r's 24 n bytes and, on poisson3d27:96,
 * update_p's stay in L2 when repeated alone).
 * Each is timed as ms an iteration (CUDA events, median of 7 groups of 10 iterations after 20)
 * against the roofline of its bytes (ELL as stored + 80 n) at the copy bandwidth measured here
 * (cudaMemcpy device to device of 1 GiB, read + write counted).
 */
#include "experiment.cuh"
#include <cooperative_groups.h>
#include <cstdint>
#include <cstring>

namespace cg = cooperative_groups;

#define THREADS 256
#define R_ 1
#define P_ 2
#define Q_ 4
#define X_ 8
#define NODOT_ 32 /* the SpMV alone: no partials */
#define WARP_ 64  /* a partial a warp (no block barrier), the two-level finish */
#define SK_ 16    /* the SpMV reads a stop flag first, as the library's fused products do */

struct state {
    double rr, pq, alpha, beta;
    unsigned arrived;
};

static __device__ __forceinline__ uint64_t evict_last_policy()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

template <bool EL> static __device__ __forceinline__ double ld(const double *a, uint64_t pol)
{
    if constexpr (!EL) return *a;
    double v;
    asm volatile("ld.global.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(a), "l"(pol));
    return v;
}

/* the gather of p: read-only path, as the backends' __ldg */
template <bool EL> static __device__ __forceinline__ double ldg(const double *a, uint64_t pol)
{
    if constexpr (!EL) return __ldg(a);
    double v;
    asm volatile("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(a), "l"(pol));
    return v;
}

template <bool EL> static __device__ __forceinline__ void st(double *a, double v, uint64_t pol)
{
    if constexpr (!EL)
        *a = v;
    else
        asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;" ::"l"(a), "d"(v), "l"(pol)
                     : "memory");
}

static __device__ double block_sum(double v) { return block_sum_of<THREADS>(v); }

/* The end of an r update (experiment.cuh's rr_finish_of). */
static __device__ void rr_finish(double acc, double *part, state *s)
{
    rr_finish_of<THREADS>(acc, part, s);
}

template <int M>
__global__ void __launch_bounds__(THREADS)
    spmv_dot(int n, int K, const double *__restrict__ val, const int *__restrict__ col,
             const double *__restrict__ p, double *__restrict__ q, double *part, const int *skip)
{
    if ((M & SK_) && *skip) return;
    const uint64_t pol = evict_last_policy();
    const long i = (long)blockIdx.x * THREADS + threadIdx.x;
    double d = 0;
    if (i < n) {
        double acc = 0;
#pragma unroll 4
        for (int k = 0; k < K; k++) {
            const long e = (long)k * n + i;
            acc = fma(__ldcs(val + e), ldg<(M & P_) != 0>(p + __ldcs(col + e), pol), acc);
        }
        st<(M & Q_) != 0>(q + i, acc, pol);
        d = ldg<(M & P_) != 0>(p + i, pol) * acc;
    }
    if constexpr ((M & NODOT_) != 0) return;
    if constexpr ((M & WARP_) != 0) {
        for (int o = 16; o > 0; o /= 2)
            d += __shfl_xor_sync(0xffffffffu, d, o);
        if ((threadIdx.x & 31) == 0) part[blockIdx.x * (THREADS / 32) + threadIdx.x / 32] = d;
        return;
    }
    d = block_sum(d);
    if (threadIdx.x == 0) part[blockIdx.x] = d;
}

/* WARP_'s finish: block b sums partials [1024 b, 1024 (b + 1)) (a tree), the last block the
 * blocks' sums, as adaptive's dot_reduce_kernel */
__global__ void __launch_bounds__(1024)
    dot_finish2(int parts, const double *part, double *stage, state *s)
{
    __shared__ double sh[1024];
    __shared__ bool last;
    const int i = blockIdx.x * 1024 + threadIdx.x;
    sh[threadIdx.x] = i < parts ? __ldcg(part + i) : 0.0;
    __syncthreads();
    for (int h = 512; h > 0; h /= 2) {
        if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stage[blockIdx.x] = sh[0];
        __threadfence();
        last = atomicAdd(&s->arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    sh[threadIdx.x] = threadIdx.x < gridDim.x ? __ldcg(stage + threadIdx.x) : 0.0;
    __syncthreads();
    for (int h = 512; h > 0; h /= 2) {
        if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) s->pq = sh[0], s->alpha = s->rr / sh[0], s->arrived = 0;
}

__global__ void __launch_bounds__(1024) dot_finish(int parts, const double *part, state *s)
{
    dot_finish_of(parts, part, s);
}

template <int M>
__global__ void __launch_bounds__(THREADS, 8)
    update_r(int n, const double *__restrict__ q, double *__restrict__ r, state *s, double *part)
{
    const uint64_t pol = evict_last_policy();
    const double alpha = s->alpha;
    double acc = 0;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS) {
        const double ri = ld<(M & R_) != 0>(r + i, pol) - alpha * ld<(M & Q_) != 0>(q + i, pol);
        st<(M & R_) != 0>(r + i, ri, pol);
        acc += ri * ri;
    }
    rr_finish(acc, part, s);
}

template <int M>
__global__ void __launch_bounds__(THREADS)
    update_p(int n, const double *__restrict__ r, double *__restrict__ p, double *__restrict__ x,
             const state *s)
{
    const uint64_t pol = evict_last_policy();
    const double alpha = s->alpha, beta = s->beta;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS) {
        const double pi = ld<(M & P_) != 0>(p + i, pol);
        st<(M & X_) != 0>(x + i, ld<(M & X_) != 0>(x + i, pol) + alpha * pi, pol);
        st<(M & P_) != 0>(p + i, fma(beta, pi, ld<(M & R_) != 0>(r + i, pol)), pol);
    }
}

/* merged: r -= alpha q with r.r, a grid barrier, then x += alpha p, p = r + beta p; the first CH
 * of a thread's rows keep r_i in registers across the barrier, the others read it again. */
template <int CH>
__global__ void __launch_bounds__(THREADS)
    update_rp(int n, const double *__restrict__ q, double *__restrict__ r, double *__restrict__ p,
              double *__restrict__ x, state *s, double *part)
{
    __shared__ double bc;
    cg::grid_group grid = cg::this_grid();
    const double alpha = s->alpha, rr_old = s->rr;
    const long stride = (long)gridDim.x * THREADS, i0 = (long)blockIdx.x * THREADS + threadIdx.x;
    double rc[CH], acc = 0;
#pragma unroll
    for (int j = 0; j < CH; j++) {
        const long i = i0 + j * stride;
        if (i < n) {
            rc[j] = r[i] - alpha * q[i];
            r[i] = rc[j];
            acc += rc[j] * rc[j];
        }
    }
    for (long i = i0 + CH * stride; i < n; i += stride) {
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
    grid.sync();
    double t = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        t += __ldcg(part + b);
    t = block_sum(t);
    if (threadIdx.x == 0) bc = t;
    __syncthreads();
    const double rr = bc, beta = rr / rr_old;
#pragma unroll
    for (int j = 0; j < CH; j++) {
        const long i = i0 + j * stride;
        if (i < n) {
            const double pi = p[i];
            x[i] += alpha * pi;
            p[i] = fma(beta, pi, rc[j]);
        }
    }
    for (long i = i0 + CH * stride; i < n; i += stride) {
        const double pi = p[i];
        x[i] += alpha * pi;
        p[i] = fma(beta, pi, r[i]);
    }
    grid.sync(); /* every block has read s->rr */
    if (blockIdx.x == 0 && threadIdx.x == 0) s->beta = beta, s->rr = rr;
}

/* direction: q = A d, d_j = r_j + beta p_j on the fly, d_i to pout, the blocks' partials of d.q */
__global__ void __launch_bounds__(THREADS)
    spmv_dir(int n, int K, const double *__restrict__ val, const int *__restrict__ col,
             const double *__restrict__ r, const double *__restrict__ p, double *__restrict__ pout,
             double *__restrict__ q, double *part, const state *s)
{
    const double beta = s->beta;
    const long i = (long)blockIdx.x * THREADS + threadIdx.x;
    double d = 0;
    if (i < n) {
        double acc = 0;
#pragma unroll 4
        for (int k = 0; k < K; k++) {
            const long e = (long)k * n + i;
            const int c = __ldcs(col + e);
            acc = fma(__ldcs(val + e), fma(beta, __ldg(p + c), __ldg(r + c)), acc);
        }
        q[i] = acc;
        const double di = fma(beta, __ldg(p + i), __ldg(r + i));
        pout[i] = di;
        d = di * acc;
    }
    d = block_sum(d);
    if (threadIdx.x == 0) part[blockIdx.x] = d;
}

/* direction: x += alpha d, r -= alpha q, r.r; the last block: beta, rr */
__global__ void __launch_bounds__(THREADS, 8)
    update_xr(int n, const double *__restrict__ d, const double *__restrict__ q,
              double *__restrict__ r, double *__restrict__ x, state *s, double *part)
{
    const double alpha = s->alpha;
    double acc = 0;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS) {
        x[i] += alpha * d[i];
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    rr_finish(acc, part, s);
}

struct problem {
    int n, K;
    double *val, *slab, *r, *p, *q, *x, *part, *part2, *p2, *stage;
    int *col, *skip;
    state *s;
    int sblocks, ublocks, pblocks, cblocks;
    long it; /* direction: the parity of the p buffers */
};

#define MERGED 100
#define DIRECTION 101
#define ONLY_SPMV 102
#define ONLY_R 103
#define ONLY_P 104
#define ONLY_SPMV_W 105
#define ONLY_SPMV_NODOT 106

template <int M> static void iteration(problem &P, cudaStream_t st)
{
    if constexpr (M == MERGED) {
        spmv_dot<0>
            <<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.p, P.q, P.part, P.skip);
        dot_finish<<<1, 1024, 0, st>>>(P.sblocks, P.part, P.s);
        int n = P.n;
        void *args[] = {&n, &P.q, &P.r, &P.p, &P.x, &P.s, &P.part2};
        CK(cudaLaunchCooperativeKernel((void *)update_rp<8>, P.cblocks, THREADS, args, 0, st));
    } else if constexpr (M == DIRECTION) {
        double *pin = P.it & 1 ? P.p2 : P.p, *pout = P.it & 1 ? P.p : P.p2;
        spmv_dir<<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.r, pin, pout, P.q, P.part,
                                                P.s);
        dot_finish<<<1, 1024, 0, st>>>(P.sblocks, P.part, P.s);
        update_xr<<<P.ublocks, THREADS, 0, st>>>(P.n, pout, P.q, P.r, P.x, P.s, P.part2);
        P.it++;
    } else if constexpr (M == ONLY_SPMV) {
        spmv_dot<0>
            <<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.p, P.q, P.part, P.skip);
        dot_finish<<<1, 1024, 0, st>>>(P.sblocks, P.part, P.s);
    } else if constexpr (M == ONLY_SPMV_W) {
        const int parts = P.sblocks * (THREADS / 32);
        spmv_dot<WARP_>
            <<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.p, P.q, P.part, P.skip);
        dot_finish2<<<(parts + 1023) / 1024, 1024, 0, st>>>(parts, P.part, P.stage, P.s);
    } else if constexpr (M == ONLY_SPMV_NODOT) {
        spmv_dot<NODOT_>
            <<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.p, P.q, P.part, P.skip);
    } else if constexpr (M == ONLY_R) {
        update_r<0><<<P.ublocks, THREADS, 0, st>>>(P.n, P.q, P.r, P.s, P.part2);
    } else if constexpr (M == ONLY_P) {
        update_p<0><<<P.pblocks, THREADS, 0, st>>>(P.n, P.r, P.p, P.x, P.s);
    } else {
        spmv_dot<M>
            <<<P.sblocks, THREADS, 0, st>>>(P.n, P.K, P.val, P.col, P.p, P.q, P.part, P.skip);
        if constexpr ((M & WARP_) != 0) {
            const int parts = P.sblocks * (THREADS / 32);
            dot_finish2<<<(parts + 1023) / 1024, 1024, 0, st>>>(parts, P.part, P.stage, P.s);
        } else {
            dot_finish<<<1, 1024, 0, st>>>(P.sblocks, P.part, P.s);
        }
        update_r<M><<<P.ublocks, THREADS, 0, st>>>(P.n, P.q, P.r, P.s, P.part2);
        update_p<M><<<P.pblocks, THREADS, 0, st>>>(P.n, P.r, P.p, P.x, P.s);
    }
}

static void reset(problem &P, cudaStream_t st)
{
    std::vector<double> one(P.n, 1.0);
    CK(cudaMemcpyAsync(P.r, one.data(), P.n * 8, cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(P.p, one.data(), P.n * 8, cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(P.p2, one.data(), P.n * 8, cudaMemcpyHostToDevice, st));
    CK(cudaMemsetAsync(P.x, 0, P.n * 8, st));
    P.it = 0;
    state s0 = {(double)P.n, 0, 0, 0, 0};
    CK(cudaMemcpyAsync(P.s, &s0, sizeof s0, cudaMemcpyHostToDevice, st));
    CK(cudaStreamSynchronize(st));
}

/* ms an iteration (median of 7 groups of 10 after 20), x after the 90 iterations in xout */
template <int M> static double run(problem &P, cudaStream_t st, std::vector<double> &xout)
{
    reset(P, st);
    return time_ms_fetch([&] { iteration<M>(P, st); }, st, P.x, P.n, xout);
}

static void one_matrix(int m, int pts, double gbs, const cudaDeviceProp &prop)
{
    mat A = stencil(m, pts);
    problem P{};
    const ell E = ell_of(A);
    P.n = E.n, P.K = E.K, P.val = E.val, P.col = E.col;
    const long slots = (long)P.K * P.n;
    const size_t vb = (size_t)P.n * 8, slab = 4 * vb;
    CK(cudaMalloc(&P.slab, slab));
    P.r = P.slab, P.p = P.slab + P.n, P.q = P.slab + 2L * P.n, P.x = P.slab + 3L * P.n;
    P.sblocks = (P.n + THREADS - 1) / THREADS;
    P.ublocks = prop.multiProcessorCount * 8;
    P.pblocks = std::min(65536, (P.n + THREADS - 1) / THREADS);
    CK(cudaMalloc(&P.p2, vb));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, update_rp<8>, THREADS, 0));
    P.cblocks = std::min(per_sm, 8) * prop.multiProcessorCount;
    CK(cudaMalloc(&P.part, P.sblocks * 8 * (THREADS / 32)));
    CK(cudaMalloc(&P.stage, P.sblocks * 8));
    CK(cudaMalloc(&P.part2, std::max(P.ublocks, P.cblocks) * 8));
    CK(cudaMalloc(&P.s, sizeof(state)));
    CK(cudaMalloc(&P.skip, sizeof(int)));
    CK(cudaMemset(P.skip, 0, sizeof(int)));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    const double bytes = (double)slots * 12 + 80.0 * P.n, roof = bytes / (gbs * 1e9) * 1e3;
    printf("\n%s:%d  n %d  K %d  nnz %ld  vectors %.1f MB each  roofline %.4f ms (ELL + 80 n, "
           "%.1f MB)\n",
           pts == 7 ? "poisson3d" : "poisson3d27", m, P.n, P.K, A.nnz, vb / 1e6, roof, bytes / 1e6);
    printf("| variant | ms/iter | of roofline | x as plain |\n|---|--:|--:|---|\n");
    std::vector<double> x0, x1;
    auto row = [&](const char *name, double ms, const std::vector<double> &x) {
        printf("| %s | %.5f | %.3f | %s |\n", name, ms, ms / roof,
               memcmp(x.data(), x0.data(), x0.size() * 8) == 0 ? "same bits" : "DIFFERENT");
    };
    double ms = run<0>(P, st, x0);
    row("plain", ms, x0);
    row("plain, the SpMV reads a stop flag first", run<SK_>(P, st, x1), x1);
    row("last=r", run<R_>(P, st, x1), x1);
    row("last=r,p", run<R_ | P_>(P, st, x1), x1);
    row("last=r,p,x", run<R_ | P_ | X_>(P, st, x1), x1);
    row("last=r,p,q,x", run<R_ | P_ | Q_ | X_>(P, st, x1), x1);
    row("plain again", run<0>(P, st, x1), x1);

    /* the window: persisting set-aside at the maximum, hit ratio so the window fits it */
    size_t aside = prop.persistingL2CacheMaxSize;
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, aside));
    cudaStreamAttrValue w = {};
    w.accessPolicyWindow.base_ptr = P.slab;
    w.accessPolicyWindow.num_bytes = std::min(slab, (size_t)prop.accessPolicyMaxWindowSize);
    w.accessPolicyWindow.hitRatio =
        (float)std::min(1.0, (double)aside / (double)w.accessPolicyWindow.num_bytes);
    w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w));
    char name[96];
    snprintf(name, sizeof name, "window (hit ratio %.2f)", w.accessPolicyWindow.hitRatio);
    row(name, run<0>(P, st, x1), x1);
    w.accessPolicyWindow.num_bytes = 0;
    CK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w));
    CK(cudaCtxResetPersistingL2Cache());
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    row("plain after", run<0>(P, st, x1), x1);
    snprintf(name, sizeof name, "merged (%d blocks)", P.cblocks);
    row(name, run<MERGED>(P, st, x1), x1);
    row("direction", run<DIRECTION>(P, st, x1), x1);
    row("plain last", run<0>(P, st, x1), x1);
    row("warp partials, two-level finish", run<WARP_>(P, st, x1), x1);
    row("warp partials again", run<WARP_>(P, st, x1), x1);
    row("plain once more", run<0>(P, st, x1), x1);

    const double bs = (double)slots * 12 + 16.0 * P.n, br = 24.0 * P.n, bp = 40.0 * P.n;
    printf("\n| kernel alone, repeated | ms | at copy ms | ratio |\n|---|--:|--:|--:|\n");
    auto alone = [&](const char *what, double t, double b) {
        printf("| %s | %.5f | %.5f | %.3f |\n", what, t, b / (gbs * 1e6), t / (b / (gbs * 1e6)));
    };
    alone("SpMV alone", run<ONLY_SPMV_NODOT>(P, st, x1), bs);
    alone("SpMV + p.q (block partials) + one-block finish", run<ONLY_SPMV>(P, st, x1), bs);
    alone("SpMV + p.q (warp partials) + two-level finish", run<ONLY_SPMV_W>(P, st, x1), bs);
    alone("update_r", run<ONLY_R>(P, st, x1), br);
    alone("update_p", run<ONLY_P>(P, st, x1), bp);
    CK(cudaStreamDestroy(st));
    cudaFree(P.val), cudaFree(P.col), cudaFree(P.slab), cudaFree(P.part), cudaFree(P.part2),
        cudaFree(P.p2), cudaFree(P.stage);
    cudaFree(P.s), cudaFree(P.skip);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const double gbs = copy_gbs();
    printf("%s: L2 %.1f MB, persisting max %.1f MB, window max %.1f MB; copy %.1f GB/s\n",
           prop.name, prop.l2CacheSize / 1e6, prop.persistingL2CacheMaxSize / 1e6,
           prop.accessPolicyMaxWindowSize / 1e6, gbs);
    const int ms[3] = {96, 128, 128}, pts[3] = {27, 7, 27};
    for (int k = 0; k < 3; k++)
        if (which == 0 || which == k + 1) one_matrix(ms[k], pts[k], gbs, prop);
    return 0;
}
