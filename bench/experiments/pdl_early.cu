/* bench/experiments/pdl_early.cu: does the fused fp64 CG iteration get faster if each kernel
 * issues the loads that do not depend on the kernel before it ahead of its PDL wait? (an
 * experiment, not built by make; issue 25, session 16)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/experiments/pdl_early.cu -lcusparse -o pdl_early
 *   ./pdl_early [1-4]   (a matrix, default all: poisson3d:128, poisson3d27:96, poisson3d:160,
 *                        poisson3d27:128)
 *
 * The iteration is cg_iteration.cu's plain one (fold's shape: a slot-major ELL SpMV with the
 * blocks' partials of p.q, a one-block finish, r -= alpha q with r.r, x += alpha p and
 * p = r + beta p), every kernel starting with griddepcontrol.wait then launch_dependents, as the
 * library's (core/launch.cuh). With programmatic dependent launch (PDL) a kernel's blocks may
 * sit on the SMs before the kernel ahead of it has finished; what they load before the wait
 * overlaps that kernel's tail:
 *   - the SpMV's matrix entries (constant): the first E slots of its row into registers
 *     (E = 4, 8 or all K where K <= 8), or every slot prefetched into L2;
 *   - update_r's r_i and q_i of its first 4 grid-stride rows, update_p's p_i and x_i. Each was
 *     last written two kernels back or more, and a kernel's blocks start only after the kernel
 *     ahead has passed its own wait, so those writes are complete.
 * The arithmetic is the same in every variant (x compared bit for bit with the plain one).
 * Times: ms an iteration (CUDA events, median of 7 groups of 10 iterations after 20) against
 * the roofline of its bytes (ELL as stored + 80 n) at the copy bandwidth measured here.
 */
#include "core/launch.cuh"
#include "experiment.cuh"
#include <cstdint>
#include <cstring>
#include <utility>

#define THREADS 256
#define PDL_ 1   /* launched with programmatic stream serialization */
#define EV_ 2    /* update_r and update_p load their independent vectors before the wait */
#define PF_ 4    /* the SpMV prefetches its slots into L2 before the wait */
#define CH 4     /* update_r's rows loaded early, a thread */
/* The library's shapes (core/cg_kernels.cu, spmv/fold.cuh), to find where its iteration loses:
 * LF_ the finish as fold_fixup_kernel's last-block sum (256 threads, a counter, a shared tree
 * with a barrier a level); LR_ update_r as update_xr_kernel (1024 blocks, the stop and
 * curvature tests, alpha = rr / pq in every block, xpend, tree sums, the stop tests at the end);
 * LP_ update_p as update_p_kernel (no launch bounds, stop and xpend read, branches); LS_ the
 * SpMV reads the stop flag after the wait. The sums' order changes with LR_ (x then differs). */
#define LF_ 8
#define LR_ 16
#define LP_ 32
#define LS_ 64

struct state {
    double rr, pq, alpha, beta;
    unsigned arrived;
    int stop, xpend, fin_arrived; /* the library-like kernels' (LIB_) */
    long k, kmax;
};

static __device__ __forceinline__ void dep_wait()
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

static __device__ double block_sum(double v) { return block_sum_of<THREADS>(v); }

/* E slots of the thread's row into registers before the wait (PF_: every slot into L2). */
template <int M, int E>
__global__ void __launch_bounds__(THREADS)
    spmv_dot(int n, int K, const double *__restrict__ val, const int *__restrict__ col,
             const double *__restrict__ p, double *__restrict__ q, double *part, const state *st)
{
    const long i = (long)blockIdx.x * THREADS + threadIdx.x;
    double v[E > 0 ? E : 1];
    int c[E > 0 ? E : 1];
    if (i < n) {
#pragma unroll
        for (int k = 0; k < E; k++)
            if (k < K) v[k] = __ldcs(val + (long)k * n + i), c[k] = __ldcs(col + (long)k * n + i);
        if constexpr ((M & PF_) != 0)
            for (int k = 0; k < K; k++) {
                asm volatile("prefetch.global.L2 [%0];" ::"l"(val + (long)k * n + i));
                asm volatile("prefetch.global.L2 [%0];" ::"l"(col + (long)k * n + i));
            }
    }
    dep_wait();
    if constexpr ((M & LS_) != 0)
        if (st->stop) return;
    double d = 0;
    if (i < n) {
        double acc = 0;
#pragma unroll
        for (int k = 0; k < E; k++)
            if (k < K) acc = fma(v[k], __ldg(p + c[k]), acc);
#pragma unroll 4
        for (int k = E; k < K; k++) {
            const long e = (long)k * n + i;
            acc = fma(__ldcs(val + e), __ldg(p + __ldcs(col + e)), acc);
        }
        q[i] = acc;
        d = p[i] * acc;
    }
    d = block_sum(d);
    if (threadIdx.x == 0) part[blockIdx.x] = d;
}

__global__ void __launch_bounds__(1024) dot_finish(int parts, const double *part, state *s)
{
    dep_wait();
    dot_finish_of(parts, part, s);
}

template <int M>
__global__ void __launch_bounds__(THREADS, 8)
    update_r(int n, const double *__restrict__ q, double *__restrict__ r, state *s, double *part)
{
    const long i0 = (long)blockIdx.x * THREADS + threadIdx.x, stride = (long)gridDim.x * THREADS;
    double rc[CH], qc[CH];
    if constexpr ((M & EV_) != 0) {
#pragma unroll
        for (int j = 0; j < CH; j++)
            if (i0 + j * stride < n) rc[j] = r[i0 + j * stride], qc[j] = q[i0 + j * stride];
    }
    dep_wait();
    const double alpha = s->alpha;
    double acc = 0;
    long i = i0;
    if constexpr ((M & EV_) != 0) {
#pragma unroll
        for (int j = 0; j < CH; j++, i += stride)
            if (i < n) {
                const double ri = rc[j] - alpha * qc[j];
                r[i] = ri;
                acc += ri * ri;
            }
    }
    for (; i < n; i += stride) {
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    rr_finish_of<THREADS>(acc, part, s);
}

template <int M>
__global__ void __launch_bounds__(THREADS)
    update_p(int n, const double *__restrict__ r, double *__restrict__ p, double *__restrict__ x,
             const state *s)
{
    const long i0 = (long)blockIdx.x * THREADS + threadIdx.x;
    double p0 = 0, x0 = 0;
    if constexpr ((M & EV_) != 0)
        if (i0 < n) p0 = p[i0], x0 = x[i0];
    dep_wait();
    const double alpha = s->alpha, beta = s->beta;
    for (long i = i0; i < n; i += (long)gridDim.x * THREADS) {
        const bool early = (M & EV_) != 0 && i == i0;
        const double pi = early ? p0 : p[i], xi = early ? x0 : x[i];
        x[i] = xi + alpha * pi;
        p[i] = fma(beta, pi, r[i]);
    }
}


/* ---- the library's shapes */
static __device__ void tree_sum(double *sh)
{
    for (int w = THREADS / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    }
}

__global__ void __launch_bounds__(THREADS) lib_finish(long count, const double *part, state *s)
{
    __shared__ double sh[THREADS];
    __shared__ bool last;
    dep_wait();
    if (s->stop) return;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&s->fin_arrived, 1) == (int)gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    double acc = 0;
    for (long j = threadIdx.x; j < count; j += THREADS)
        acc += __ldcg(part + j);
    sh[threadIdx.x] = acc;
    tree_sum(sh);
    if (threadIdx.x == 0) s->pq = sh[0], s->alpha = s->rr / sh[0], s->fin_arrived = 0;
}

__global__ void __launch_bounds__(THREADS, 8)
    lib_update_r(long n, const double *__restrict__ q, double *__restrict__ r, state *s,
                 double *part)
{
    __shared__ double sh[THREADS];
    __shared__ bool last;
    dep_wait();
    if (blockIdx.x == 0 && threadIdx.x == 0) s->xpend = 0;
    if (s->stop) return;
    const double pq = s->pq;
    if (!isfinite(pq)) { /* the library stops at pq <= 0 too; the stencil is not SPD */
        if (blockIdx.x == 0 && threadIdx.x == 0) s->stop = 1;
        return;
    }
    const double alpha = s->rr / pq;
    const long stride = (long)gridDim.x * THREADS;
    double acc = 0;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    sh[threadIdx.x] = acc;
    tree_sum(sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = sh[0];
        __threadfence();
        last = atomicAdd(&s->arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double a = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        a += __ldcg(&part[b]);
    sh[threadIdx.x] = a;
    tree_sum(sh);
    if (threadIdx.x == 0) {
        s->arrived = 0;
        s->alpha = alpha, s->xpend = 1;
        const double t = sh[0];
        s->k = s->k + 1;
        if (!isfinite(t)) {
            s->stop = 2;
            return;
        }
        s->beta = t / s->rr;
        s->rr = t;
        if (s->k >= s->kmax) s->stop = 3;
    }
}

__global__ void lib_update_p(long n, const double *__restrict__ r, double *__restrict__ p,
                             double *__restrict__ x, const state *s)
{
    dep_wait();
    const bool run = !s->stop, add_x = s->xpend;
    if (!run && !add_x) return;
    const double beta = s->beta, alpha = s->alpha;
    const long stride = (long)gridDim.x * THREADS;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const double pi = p[i];
        if (add_x) x[i] += alpha * pi;
        if (run) p[i] = fma(beta, pi, r[i]);
    }
}

/* kernel<<<grid, block, 0, st>>>(args...), with PDL (core/launch.cuh's mpcgi_launch) or plain */
template <typename... P, typename... A>
static void launch(bool pdl, void (*k)(P...), unsigned grid, unsigned block, cudaStream_t st,
                   A &&...args)
{
    if (pdl) CK(mpcgi_launch(k, grid, block, (void *)st, std::forward<A>(args)...));
    else {
        k<<<grid, block, 0, st>>>(std::forward<A>(args)...);
        CK(cudaGetLastError());
    }
}

struct problem {
    int n, K;
    double *val, *r, *p, *q, *x, *part, *part2;
    int *col;
    state *s;
    int sblocks, ublocks, pblocks;
};

template <int M, int E> static void iteration(problem &P, cudaStream_t st)
{
    const bool pdl = (M & PDL_) != 0;
    launch(pdl, spmv_dot<M, E>, P.sblocks, THREADS, st, P.n, P.K, (const double *)P.val,
           (const int *)P.col, (const double *)P.p, P.q, P.part, (const state *)P.s);
    if constexpr ((M & LF_) != 0)
        launch(pdl, lib_finish, 1, THREADS, st, (long)P.sblocks, (const double *)P.part, P.s);
    else launch(pdl, dot_finish, 1, 1024, st, P.sblocks, (const double *)P.part, P.s);
    if constexpr ((M & LR_) != 0)
        launch(pdl, lib_update_r, 1024, THREADS, st, (long)P.n, (const double *)P.q, P.r, P.s,
               P.part2);
    else
        launch(pdl, update_r<M>, P.ublocks, THREADS, st, P.n, (const double *)P.q, P.r, P.s,
               P.part2);
    if constexpr ((M & LP_) != 0)
        launch(pdl, lib_update_p, P.pblocks, THREADS, st, (long)P.n, (const double *)P.r, P.p,
               P.x, (const state *)P.s);
    else
        launch(pdl, update_p<M>, P.pblocks, THREADS, st, P.n, (const double *)P.r, P.p, P.x,
               (const state *)P.s);
}

static void reset(problem &P, cudaStream_t st)
{
    std::vector<double> one(P.n, 1.0);
    CK(cudaMemcpyAsync(P.r, one.data(), P.n * 8, cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(P.p, one.data(), P.n * 8, cudaMemcpyHostToDevice, st));
    CK(cudaMemsetAsync(P.x, 0, P.n * 8, st));
    state s0 = {(double)P.n, 0, 0, 0, 0, 0, 1, 0, 0, 1L << 50}; /* xpend 1: update_p adds x */
    CK(cudaMemcpyAsync(P.s, &s0, sizeof s0, cudaMemcpyHostToDevice, st));
    CK(cudaStreamSynchronize(st));
}

template <int M, int E>
static double run(problem &P, cudaStream_t st, std::vector<double> &xout)
{
    reset(P, st);
    return time_ms_fetch([&] { iteration<M, E>(P, st); }, st, P.x, P.n, xout);
}

static void one_matrix(int m, int pts, double gbs, const cudaDeviceProp &prop)
{
    mat A = stencil(m, pts);
    problem P{};
    const ell E = ell_of(A);
    P.n = E.n, P.K = E.K, P.val = E.val, P.col = E.col;
    const long slots = (long)P.K * P.n;
    const size_t vb = (size_t)P.n * 8;
    CK(cudaMalloc(&P.r, vb));
    CK(cudaMalloc(&P.p, vb));
    CK(cudaMalloc(&P.q, vb));
    CK(cudaMalloc(&P.x, vb));
    P.sblocks = (P.n + THREADS - 1) / THREADS;
    P.ublocks = prop.multiProcessorCount * 8;
    P.pblocks = std::min(65536, (P.n + THREADS - 1) / THREADS);
    CK(cudaMalloc(&P.part, P.sblocks * 8));
    CK(cudaMalloc(&P.part2, std::max(P.ublocks, 1024) * 8));
    CK(cudaMalloc(&P.s, sizeof(state)));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    const double bytes = (double)slots * 12 + 80.0 * P.n, roof = bytes / (gbs * 1e9) * 1e3;
    printf("\n%s:%d  n %d  K %d  nnz %ld  roofline %.4f ms (ELL + 80 n, %.1f MB)\n",
           pts == 7 ? "poisson3d" : "poisson3d27", m, P.n, P.K, A.nnz, roof, bytes / 1e6);
    printf("| variant | ms/iter | of roofline | x as plain |\n|---|--:|--:|---|\n");
    std::vector<double> x0, x1;
    auto row = [&](const char *name, double ms, const std::vector<double> &x) {
        printf("| %s | %.5f | %.3f | %s |\n", name, ms, ms / roof,
               memcmp(x.data(), x0.data(), x0.size() * 8) == 0 ? "same bits" : "DIFFERENT");
    };
    for (int rep = 0; rep < 2; rep++) {
        double ms = run<0, 0>(P, st, x0);
        row("plain launches", ms, x0);
        row("PDL, wait first (the library's)", run<PDL_, 0>(P, st, x1), x1);
        row("PDL, vectors early", run<PDL_ | EV_, 0>(P, st, x1), x1);
        row("PDL, SpMV 8 slots + vectors early", run<PDL_ | EV_, 8>(P, st, x1), x1);
        row("PDL, library finish", run<PDL_ | LF_, 0>(P, st, x1), x1);
        row("PDL, library update_r", run<PDL_ | LR_, 0>(P, st, x1), x1);
        row("PDL, library update_p", run<PDL_ | LP_, 0>(P, st, x1), x1);
        row("PDL, SpMV reads the stop flag", run<PDL_ | LS_, 0>(P, st, x1), x1);
        row("PDL, all four library shapes", run<PDL_ | LF_ | LR_ | LP_ | LS_, 0>(P, st, x1), x1);
    }
    CK(cudaStreamDestroy(st));
    cudaFree(P.val), cudaFree(P.col), cudaFree(P.r), cudaFree(P.p), cudaFree(P.q), cudaFree(P.x);
    cudaFree(P.part), cudaFree(P.part2), cudaFree(P.s);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const double gbs = copy_gbs();
    printf("%s: copy %.1f GB/s\n", prop.name, gbs);
    const int ms[4] = {128, 96, 160, 128}, pts[4] = {7, 27, 7, 27};
    for (int k = 0; k < 4; k++)
        if (which == 0 || which == k + 1) one_matrix(ms[k], pts[k], gbs, prop);
    return 0;
}
