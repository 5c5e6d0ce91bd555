/* solver/cg_persistent.cu: the single-reduction persistent CG loop, templated on a backend's row
 * functor; one cooperative launch runs a window of iterations (the two-barrier loop:
 * solver/cg_loop2.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "solver/cg_loop_common.cuh"

/* ---------------------------------------------------------------- the single-reduction loop */

/*
 * Chronopoulos-Gear CG (docs/solver.md): with w = A r and s = A p kept by recurrences, one SpMV
 * (w = A r) and one pair of sums (r.r, w.r) per iteration, so one grid-wide barrier does. Each
 * block owns `rb` consecutive rows (thread t: local rows t, t + LOOP1_THREADS, ...), keeps their
 * entries in shared memory for the whole launch (loaded once through the functor's entries,
 * column-major: entry k of local row l at k rb + l, conflict-free) and their x, p, r, w, s too:
 *
 *   pq = delta - beta gamma / alpha_old (= p.A p; after a start, the start's exact p.s), the
 *   curvature test, alpha
 *   own rows: p = r + beta p, s = w + beta s, x += alpha p, r -= alpha s      shared memory
 *   w_i = sum_j a_ij r'_j, r'_j = r_j - alpha (w_j + beta s_j) formed from the records of the
 *   last iteration (the owner's operations, so the same bits)   A from shared memory + 32 B
 *   the new (r, w, s) of each own row to the other record set (32 B), the terms r.r and w.r
 *   barrier; every block adds the partials in the same order: r.r, w.r, solver/cg.c's stop tests
 *
 * With fp32 vectors (fp32 and mixed solves) a record is 16 B and the count is A32 + 24 B (x
 * stays in shared memory, so a mixed solve's fp64 x costs nothing per iteration).
 *
 * Records double-buffer: the barrier of iteration k is passed only when every block has read
 * set k mod 2, so writing it again in iteration k + 1 is safe; the partials alternate the same
 * way. A start or resume (st->primed = 0; the host has put r, rr and beta) first forms w = A r
 * (loop1_prime). Between windows x, p (in p[0]) and r go back to device memory.
 */

/* Threads per block: 72 registers each without spills (1024 threads at 64 registers spill). */
#define LOOP1_THREADS 896
/* Entries gathered before their multiply-adds. */
#define LOOP1_BATCH 4
/* Most entries one thread sums per iteration (rows per thread x the longest row) unless the loop
 * was asked for by name: one lane per row is a chain of dependent gathers (docs/solver.md). */
#define LOOP1_MAX_CHAIN 32

/* Record j of a set: (r_j, w_j, s_j, unused); plain loads (written during the launch). fp64:
 * 32 B, loaded as a double2 and a double; fp32: 16 B, one float4. */
static __device__ __forceinline__ void record_get(const double *set, int64_t j, double &r,
                                                  double &w, double &s)
{
    const double2 rw = *reinterpret_cast<const double2 *>(set + 4 * j);
    r = rw.x, w = rw.y, s = set[4 * j + 2];
}
static __device__ __forceinline__ void record_get(const float *set, int64_t j, float &r, float &w,
                                                  float &s)
{
    const float4 v = *reinterpret_cast<const float4 *>(set + 4 * j);
    r = v.x, w = v.y, s = v.z;
}

static __device__ __forceinline__ void record_put(double *set, int64_t i, double r, double w,
                                                  double s)
{
    *reinterpret_cast<double2 *>(set + 4 * i) = make_double2(r, w);
    set[4 * i + 2] = s;
}
static __device__ __forceinline__ void record_put(float *set, int64_t i, float r, float w, float s)
{
    *reinterpret_cast<float4 *>(set + 4 * i) = make_float4(r, w, s, 0.0f);
}

/* Where the v_j of the row sums come from: a vector not written before the launch's end (r, or
 * p[0] at a start: w = A r, s = A p) or the next residual formed from a record set (the
 * iteration, alpha and beta rounded to T). */
template <typename T> struct loop1_src_vec {
    const T *v;
    __device__ __forceinline__ T operator()(int64_t j) const { return __ldg(v + j); }
};
template <typename T> struct loop1_src_next {
    const T *set;
    T alpha, beta;
    __device__ __forceinline__ T operator()(int64_t j) const
    {
        T r, w, s;
        record_get(set, j, r, w, s);
        return fma(-alpha, fma(beta, s, w), r);
    }
};

/* sum_k a_k v_(col k) over `len` entries of local row l, in entry order from 0 in T,
 * LOOP1_BATCH gathers in flight. */
template <typename T, typename S>
static __device__ __forceinline__ T loop1_row(const T *sval, const int *scol, int rb, int l,
                                              int len, const S &src)
{
    T acc = 0;
    for (int k = 0; k < len; k += LOOP1_BATCH) {
        T a[LOOP1_BATCH], v[LOOP1_BATCH];
#pragma unroll
        for (int u = 0; u < LOOP1_BATCH; u++)
            if (k + u < len) {
                const int e = (k + u) * rb + l;
                a[u] = sval[e];
                v[u] = src(scol[e]);
            }
#pragma unroll
        for (int u = 0; u < LOOP1_BATCH; u++)
            if (k + u < len) acc = fma(a[u], v[u], acc);
    }
    return acc;
}

/* The block sums of two values, valid in thread 0 (a butterfly per warp, then warp 0 adds the
 * warp sums by a butterfly); every thread calls it. */
static __device__ __forceinline__ void block_sum2(double &a, double &b, double (*sh)[32])
{
    a = lsum_warp(a), b = lsum_warp(b);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) sh[0][warp] = a, sh[1][warp] = b;
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        a = lsum_warp(in ? sh[0][lane] : 0.0), b = lsum_warp(in ? sh[1][lane] : 0.0);
    }
}

/* Sums of part[0 .. G) and part[G .. 2G) in a fixed order (lane l adds l, l + 32, ... in turn,
 * then a butterfly): the same bits in every block; valid in warp 0, which must be the caller. */
static __device__ __forceinline__ void partials_sum2(const double *part, int G, double &a,
                                                     double &b)
{
    a = 0, b = 0;
    for (int j = threadIdx.x; j < G; j += 32)
        a += __ldcg(part + j), b += __ldcg(part + G + j);
    a = lsum_warp(a), b = lsum_warp(b);
}

/* The shared-memory arrays of one block of the single-reduction loop: x first (the widest
 * type, so every array is aligned), then p, r, w, s, the entries' values, their columns, the
 * lengths. */
template <typename T, typename X> struct loop1_smem {
    X *xs;
    T *ps, *rs, *ws, *ss, *sval;
    int *scol, *lens;
};

template <typename T, typename X>
static __device__ __forceinline__ loop1_smem<T, X> loop1_carve(void *base, int rb, int width)
{
    loop1_smem<T, X> m;
    m.xs = static_cast<X *>(base);
    m.ps = reinterpret_cast<T *>(m.xs + rb);
    m.rs = m.ps + rb, m.ws = m.rs + rb, m.ss = m.ws + rb, m.sval = m.ss + rb;
    m.scol = reinterpret_cast<int *>(m.sval + (size_t)rb * width);
    m.lens = m.scol + rb * width;
    return m;
}

/* Copy this block's rows (entries, x) into shared memory through the functor's entries. A
 * thread touches only its own rows: no barrier needed. */
template <typename F, typename T, typename X>
static __device__ __forceinline__ void loop1_load(const F &f, const loop1_smem<T, X> &m, const X *x,
                                                  int64_t first, int own, int rb)
{
    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
        const int64_t i = first + l;
        const int b = f.begin(i), len = f.end(i) - b;
        for (int k = 0; k < len; k++) {
            m.sval[k * rb + l] = f.val(b + k);
            m.scol[k * rb + l] = f.col(b + k, (int)i);
        }
        m.lens[l] = len;
        m.xs[l] = x[i];
    }
}

/*
 * A start or resume (primed = 0; the host has put r, rr and beta): w = A r, delta = w.r, and
 * the own rows' p and s the first iteration turns into its direction p = r + beta p and s = w +
 * beta s. beta = 0 (a start, a restart): p = s = 0, so it takes p = r, s = w. beta != 0 (a
 * resume that keeps the direction): p = p_k, the last direction, from p[0], and s = A p_k by a
 * second row sum. The first iteration's p.s is summed here beside delta, from the very values
 * that iteration forms (primed = 2: it takes this pq; with beta = 0 it has delta's bits).
 * Records (r, w, s) to set 0, par = 0; one barrier.
 */
template <typename T, typename X>
static __device__ __noinline__ void loop1_prime(const loop1_smem<T, X> &m, const mpcgi_cg_loop &c,
                                                mpcgi_cg_state &s, int64_t first, int own, int rb,
                                                double (*sh)[32], cg::grid_group &grid)
{
    const int G = gridDim.x;
    const T *r = static_cast<const T *>(c.r), *pk = static_cast<const T *>(c.p[0]);
    const bool keep = s.beta != 0; /* the same decision in every block */
    const T beta = (T)s.beta;
    double g = 0, d = 0;
    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
        const T ri = __ldg(r + first + l);
        const T w = loop1_row(m.sval, m.scol, rb, l, m.lens[l], loop1_src_vec<T>{r}); /* A r */
        T p = 0, sv = 0;
        if (keep) {
            p = __ldg(pk + first + l);
            sv = loop1_row(m.sval, m.scol, rb, l, m.lens[l], loop1_src_vec<T>{pk}); /* A p_k */
        }
        d = fma((double)w, (double)ri, d);
        g = fma((double)fma(beta, p, ri), (double)fma(beta, sv, w), g); /* the next p.s */
        record_put(static_cast<T *>(c.rws), first + l, ri, w, sv);
        m.rs[l] = ri, m.ws[l] = w, m.ps[l] = p, m.ss[l] = sv;
    }
    block_sum2(g, d, sh);
    if (threadIdx.x == 0) c.partial[blockIdx.x] = g, c.partial[G + blockIdx.x] = d;
    grid.sync();
    if (threadIdx.x < 32) {
        partials_sum2(c.partial, G, g, d);
        if (threadIdx.x == 0) s.pq = g, s.delta = d, s.primed = 2, s.par = 0;
    }
    __syncthreads();
}

/* One iteration's own rows (see the top comment): p, s, x, r in shared memory, w = A r', the
 * records to `out`; the terms of r.r (g) and w.r (d). */
template <typename T, typename X>
static __device__ __forceinline__ void loop1_rows(const loop1_smem<T, X> &m, int own, int rb,
                                                  const loop1_src_next<T> &src, double alpha,
                                                  T *out, int64_t first, double &g, double &d)
{
    const T ta = src.alpha, tb = src.beta;
    const X xa = (X)alpha; /* unrounded for the fp64 iterate of a mixed solve */
    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
        const T p = fma(tb, m.ps[l], m.rs[l]);  /* p = r + beta p */
        const T sv = fma(tb, m.ss[l], m.ws[l]); /* s = w + beta s */
        const T r = fma(-ta, sv, m.rs[l]);      /* r -= alpha s (= src(first + l)) */
        m.xs[l] = fma(xa, (X)p, m.xs[l]);       /* x += alpha p */
        const T w = loop1_row(m.sval, m.scol, rb, l, m.lens[l], src); /* w = A r */
        g = fma((double)r, (double)r, g);
        d = fma((double)w, (double)r, d);
        record_put(out, first + l, r, w, sv);
        m.ps[l] = p, m.rs[l] = r, m.ws[l] = w, m.ss[l] = sv;
    }
}

template <typename F, typename X>
static __global__ void __launch_bounds__(LOOP1_THREADS, 1)
    cg_loop1_kernel(const __grid_constant__ F f, const int64_t n,
                    const __grid_constant__ mpcgi_cg_loop c, int rb, int width)
{
    using T = typename F::value_type;
    extern __shared__ double smem[]; /* own rows: x, p, r, w, s, then the entries, the lengths */
    __shared__ double sh[2][32];
    __shared__ mpcgi_cg_state s; /* this block's copy of the state */
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) s = *c.st;
    __syncthreads();
    if (s.stop) return; /* the same decision in every block */
    const loop1_smem<T, X> m = loop1_carve<T, X>(smem, rb, width);
    const int G = gridDim.x;
    const int64_t first = (int64_t)blockIdx.x * rb;
    const int own = (int)max((int64_t)0, min((int64_t)rb, n - first)); /* rows of this block */
    X *x = mpcgi_cg_state_x<X>(&s);
    T *const rws = static_cast<T *>(c.rws), *const r = static_cast<T *>(c.r);
    T *const p0 = static_cast<T *>(c.p[0]);
    loop1_load(f, m, x, first, own, rb);
    int ph = 0; /* the partial set of the next sums */
    if (!s.primed) {
        loop1_prime(m, c, s, first, own, rb, sh, grid);
        ph = 1;
    } else {
        for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
            record_get(rws + 4 * n * s.par, first + l, m.rs[l], m.ws[l], m.ss[l]);
            m.ps[l] = p0[first + l];
        }
    }
    for (int64_t it = 0; it < c.iters; it++) {
        const double beta = s.beta, gamma = s.rr;
        const double pq = s.primed == 2 ? s.pq /* summed by the start */
                          : beta == 0   ? s.delta
                                        : s.delta - beta * gamma / s.alpha; /* p.A p */
        const int stop = mpcgi_cg_curvature_stop(pq);
        if (stop) { /* x untouched, as in solver/cg.c */
            /* every thread has read s (stop after the last barrier, primed, pq, ...) before
             * thread 0 writes it; the decision is the same in the whole block, so all reach the
             * barrier. Without it a write-after-read hazard for racecheck, hit where the fp32
             * recurrence of a mixed solve ends in p.A p <= 0 (then the fp64 finish) */
            __syncthreads();
            if (threadIdx.x == 0) s.pq = pq, s.stop = stop;
            break;
        }
        const double alpha = gamma / pq;
        const loop1_src_next<T> src{rws + 4 * n * s.par, (T)alpha, (T)beta};
        double g = 0, d = 0;
        loop1_rows(m, own, rb, src, alpha, rws + 4 * n * (s.par ^ 1), first, g, d);
        block_sum2(g, d, sh);
        double *part = c.partial + 2 * G * ph;
        if (threadIdx.x == 0) part[blockIdx.x] = g, part[G + blockIdx.x] = d;
        grid.sync();
        if (threadIdx.x < 32) {
            partials_sum2(part, G, g, d); /* gamma = r.r, delta = w.r */
            if (threadIdx.x == 0) {
                s.pq = pq, s.alpha = alpha, s.primed = 1;
                mpcgi_cg_finish_update(&s, g);
                s.delta = d, s.par ^= 1;
            }
        }
        __syncthreads();
        ph ^= 1;
        if (s.stop) break;
    }
    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS)
        x[first + l] = m.xs[l], p0[first + l] = m.ps[l], r[first + l] = m.rs[l];
    grid.sync(); /* every block has read *c.st before block 0 writes it */
    if (blockIdx.x == 0 && threadIdx.x == 0) *c.st = s;
}

/* The device's SM count, or 0 when it has no cooperative launch (or a query failed). */
static size_t loop1_bytes(int prec, int rb, int width)
{
    const size_t t = prec == MPCGI_LOOP_FP64 ? sizeof(double) : sizeof(float);
    const size_t x = prec == MPCGI_LOOP_FP32 ? sizeof(float) : sizeof(double);
    return (size_t)rb * (x + 4 * t + sizeof(int) + (size_t)width * (t + sizeof(int)));
}

/* ---------------------------------------------------------------- launchers */

extern "C" {

const char *mpcgi_loop_why(int code)
{
    switch (code) {
    case MPCGI_LOOP_OK: return "it can run";
    case MPCGI_LOOP_NO_COOP: return "the device has no cooperative launch for it";
    case MPCGI_LOOP_NO_FUNCTOR: return "the plan's layout has no row functor for it";
    case MPCGI_LOOP_NOT_UNIFORM: return "the adaptive plan is not on its uniform path";
    case MPCGI_LOOP_NO_FIT: return "the rows of a block do not fit in shared memory";
    case MPCGI_LOOP_CHAIN: return "a thread would sum more than 32 entries an iteration";
    case MPCGI_LOOP_NO_PC:
        return "the loop folds in a diagonal or block inverses, not this preconditioner's apply";
    default: return "unknown";
    }
}

int mpcgi_cg_loop1_grid(const mpcgi_rows *R, int prec, int device, int any_chain, int *rb,
                        int *width)
{
    int optin = 0, fit = 0;
    *rb = 0, *width = 0;
    if (!rows_usable(R, prec)) return -MPCGI_LOOP_NO_FUNCTOR;
    if (R->kind == MPCGI_ROWS_ADAPTIVE &&
        ((const mpcgi_adaptive_launch *)R->layout)->path == MPCGI_ADAPTIVE_TILES)
        return -MPCGI_LOOP_NO_FUNCTOR;
    const int sms = coop_sms(device);
    if (sms < 1 || 4 * sms > MPCGI_CG_BLOCKS) return -MPCGI_LOOP_NO_COOP; /* 2 sets of 2 sums */
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return -MPCGI_LOOP_NO_COOP;
    }
    const int64_t per = (R->n + sms - 1) / sms;
    if (per > (1 << 20) || R->max_len > (1 << 20)) return -MPCGI_LOOP_NO_FIT;
    const int r = per < 1 ? 1 : (int)per, wd = R->max_len < 1 ? 1 : (int)R->max_len;
    if (!any_chain && (int64_t)((r + LOOP1_THREADS - 1) / LOOP1_THREADS) * wd > LOOP1_MAX_CHAIN)
        return -MPCGI_LOOP_CHAIN;
    /* the static shared memory (the state, the warp sums) comes on top of the dynamic */
    const size_t bytes = loop1_bytes(prec, r, wd);
    if (bytes + 1024 > (size_t)optin) return -MPCGI_LOOP_NO_FIT;
    const cudaError_t e = (cudaError_t)with_prec(prec, [&](auto t, auto xt) {
        return with_entries_functor<decltype(t)>(R, [&](auto f) {
            const auto kernel = cg_loop1_kernel<decltype(f), decltype(xt)>;
            cudaError_t s = cudaFuncSetAttribute(
                (const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
            if (s == cudaSuccess)
                s = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, LOOP1_THREADS,
                                                                  bytes);
            return (int)s;
        });
    });
    if (e != cudaSuccess || fit < 1) {
        (void)cudaGetLastError();
        return -MPCGI_LOOP_NO_FIT;
    }
    *rb = r, *width = wd;
    return sms;
}

int mpcgi_cg_loop1(void *stream, const mpcgi_rows *R, int prec, int grid, int rb, int width,
                   const mpcgi_cg_loop *c)
{
    const int64_t n = R->n;
    return with_prec(prec, [&](auto t, auto xt) {
        return with_entries_functor<decltype(t)>(R, [&](auto f) {
            mpcgi_cg_loop cc = *c;
            int64_t nn = n;
            int r = rb, w = width;
            void *args[] = {&f, &nn, &cc, &r, &w};
            return (int)cudaLaunchCooperativeKernel(
                (const void *)cg_loop1_kernel<decltype(f), decltype(xt)>, grid, LOOP1_THREADS, args,
                loop1_bytes(prec, rb, width), (cudaStream_t)stream);
        });
    });
}
} /* extern "C" */
