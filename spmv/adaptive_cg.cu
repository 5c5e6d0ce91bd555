/* spmv/adaptive_cg.cu: the adaptive backend's persistent CG loop (small systems, one launch for
 * a window of iterations) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "core/cg_device.cuh"
#include "spmv/adaptive_device.cuh"
#include "spmv/adaptive_kernels.h"

/*
 * One cooperative launch runs up to `iters` CG iterations (core/cg_kernels.h, mpcgi_cg_loop);
 * every block keeps its own copy of the scalars, and all blocks compute the same bits:
 *
 *   phase 1: for the rows of the plan's uniform path (NT lanes, R rows per group, in virtual
 *            blocks of R blockDim / NT rows strided over the grid): d_i = r_i + beta p_i written
 *            to the other p buffer, q_i = sum_j a_ij d_j with the d_j formed on the fly, and the
 *            terms d_i q_i; one partial per block                          A + 32 B per row
 *   barrier; every block adds the partials in the same order: p.q, the curvature test, alpha
 *   phase 2: x += alpha d, r -= alpha q, the terms r_i r_i; one partial per block    48 B
 *   barrier; every block adds the partials: r.r, then solver/cg.c's stop tests and beta
 *
 * A + 80 bytes per row and two grid-wide barriers per iteration, against A + 88 and four kernel
 * launches of the three-kernel iteration (solver/cg_fused.c). Each row sum is the backend's (the
 * same NT lanes, order and butterfly as apply), so q is A d to the bit; the dot partials are per
 * block of this fixed grid, so the scalars differ in the last bits from the launched kernels'
 * but are the same on every run. Vectors written during the launch are read through L2
 * (__ldcg), never through L1 or the read-only path, which are not kept coherent across blocks.
 */

#define LOOP_THREADS 512
/* At most 64 registers: two blocks of LOOP_THREADS fit an SM. */
#define LOOP_MIN_BLOCKS 2

namespace cg = cooperative_groups;

/* The sum of part[0 .. count) in a fixed order, the same in every block; every thread gets it. */
static __device__ double partials_sum(const double *part, int count, double *sh, double *bcast)
{
    double t = 0;
    for (int j = threadIdx.x; j < count; j += blockDim.x)
        t += __ldcg(part + j);
    t = block_sum<true>(t, sh);
    if (threadIdx.x == 0) *bcast = t;
    __syncthreads();
    t = *bcast;
    __syncthreads(); /* bcast is free again */
    return t;
}

template <int NT, int R, bool C16>
static __global__ void __launch_bounds__(LOOP_THREADS, LOOP_MIN_BLOCKS)
    cg_loop_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const double *__restrict__ val,
                   const __grid_constant__ mpcgi_cg_loop c)
{
    __shared__ double sh[LOOP_THREADS / 32];
    __shared__ double bcast;
    __shared__ mpcgi_cg_state s; /* this block's copy of the state */
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) s = *c.st;
    __syncthreads();
    if (s.stop) return; /* the same decision in every block */
    double *part_pq = c.partial, *part_rr = c.partial + gridDim.x;
    double *x = s.x;
    const int64_t per = (int64_t)R * (blockDim.x / NT);
    const int64_t vblocks = (L.n + per - 1) / per;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t it = 0; it < c.iters; it++) {
        double *pout = c.p[s.par ^ 1];
        /* the direction through L2, beta from this block's state (no start()) */
        const mpcgi_src_direction<true> d{c.r, c.p[s.par], pout, nullptr, s.beta};
        double dacc = 0;
        for (int64_t v = blockIdx.x; v < vblocks; v += gridDim.x)
            vblock_rows<NT, R, false, true, false, C16>(L, v * per, L.n, nullptr, val, d, c.q,
                                                        dacc);
        dacc = block_sum<true>(dacc, sh);
        if (threadIdx.x == 0) part_pq[blockIdx.x] = dacc;
        grid.sync();
        const double pq = partials_sum(part_pq, gridDim.x, sh, &bcast);
        if (threadIdx.x == 0) {
            s.pq = pq;
            s.stop = mpcgi_cg_curvature_stop(pq);
        }
        __syncthreads();
        if (s.stop) break; /* x untouched, as in solver/cg.c */
        const double alpha = s.rr / pq;
        double acc = 0;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < L.n; i += stride) {
            x[i] += alpha * __ldcg(pout + i);
            const double ri = __ldcg(c.r + i) - alpha * __ldcg(c.q + i);
            c.r[i] = ri;
            acc += ri * ri;
        }
        acc = block_sum<true>(acc, sh);
        if (threadIdx.x == 0) part_rr[blockIdx.x] = acc;
        grid.sync();
        const double rr_new = partials_sum(part_rr, gridDim.x, sh, &bcast);
        if (threadIdx.x == 0) {
            mpcgi_cg_finish_update(&s, rr_new);
            s.par ^= 1;
        }
        __syncthreads();
        if (s.stop) break;
    }
    /* every block has read the state before the first barrier; no block reads it again */
    if (blockIdx.x == 0 && threadIdx.x == 0) *c.st = s;
}

/* ---------------------------------------------------------------- the single-reduction loop */

/*
 * Chronopoulos-Gear CG (docs/solver.md): with w = A r and s = A p kept by recurrences, one SpMV
 * (w = A r) and one pair of sums (r.r, w.r) per iteration, so one grid-wide barrier does. Each
 * block owns `rb` consecutive rows (thread t: local rows t, t + LOOP1_THREADS, ...), keeps their
 * entries in shared memory for the whole launch (loaded once, column-major: entry k of local
 * row l at k rb + l, conflict-free) and their x, p, r, w, s in shared memory too. Iteration k, with
 * gamma = r.r, delta = w.r from the barrier before and beta = gamma / gamma_old:
 *
 *   pq = delta - beta gamma / alpha_old (= p.A p; delta at a start), the curvature test, alpha
 *   own rows: p = r + beta p, s = w + beta s, x += alpha p, r -= alpha s      shared memory
 *   w_i = sum_j a_ij r'_j, where r'_j = r_j - alpha (w_j + beta s_j) is formed from the
 *   records of the last iteration (the same operations as the owner's, so the same bits)
 *                                             A (from shared memory) + one gathered record
 *   the new (r, w, s) of each own row to the other record set; the terms r.r and w.r
 *   barrier; every block adds the partials in the same order: r.r, w.r, solver/cg.c's stop tests
 *
 * The records double-buffer: the barrier of iteration k is passed only when every block has
 * read set k mod 2, so writing it again in iteration k + 1 is safe; the partials alternate the
 * same way. Records written during the launch are read by plain loads after the barrier (the
 * barrier's acquire makes them visible; never the read-only path), and a 32-byte record is one
 * L2 sector. Per iteration: one record write and the gathers (L1 / L2-resident at these sizes),
 * nothing of the matrix from device memory.
 *
 * A start or restart (st->primed = 0; the host has put r and beta = 0) first forms w = A r and
 * w.r with the records s = 0, and a barrier. Between windows x, p (in p[0]) and r go back to
 * device memory; w and s stay in the records.
 */

/* Threads per block: 72 registers each without spills (1024 threads at 64 registers spill). */
#define LOOP1_THREADS 896
/* Entries gathered before their multiply-adds. */
#define LOOP1_BATCH 4
/* Most entries one thread sums per iteration (rows per thread x the longest row) where the
 * choice is left to the plan: one lane per row is a chain of dependent gathers, and on the H100
 * (2026-11-24) bcsstk16 (1 x 81) ran at 20.3 us per iteration against 14.0 in the two-barrier
 * loop (32 lanes a row), bcsstk25 (1 x 59) at 13.4 against 12.1, while poisson3d27:40 (1 x 27)
 * ran at 14.9 against 26.7 and poisson3d:58 (2 x 7) at 11.3 against 18.7. */
#define LOOP1_MAX_CHAIN 32

/* Record j of a set: (r_j, w_j, s_j, unused); plain loads (written during the launch). */
static __device__ __forceinline__ void record_get(const double *set, int64_t j, double &r,
                                                  double &w, double &s)
{
    const double2 rw = *reinterpret_cast<const double2 *>(set + 4 * j);
    r = rw.x, w = rw.y, s = set[4 * j + 2];
}

static __device__ __forceinline__ void record_put(double *set, int64_t i, double r, double w,
                                                  double s)
{
    *reinterpret_cast<double2 *>(set + 4 * i) = make_double2(r, w);
    set[4 * i + 2] = s;
}

/* Where the r_j of the row sums come from: r itself (the start: w = A r) or the next residual
 * formed from a record set (the iteration). */
struct loop1_src_r {
    const double *r;
    __device__ __forceinline__ double operator()(int64_t j) const { return __ldg(r + j); }
};
struct loop1_src_next {
    const double *set;
    double alpha, beta;
    __device__ __forceinline__ double operator()(int64_t j) const
    {
        double r, w, s;
        record_get(set, j, r, w, s);
        return fma(-alpha, fma(beta, s, w), r);
    }
};

/* sum_k a_k r'_(col k) over `len` entries of local row l, in entry order from 0 (the order of
 * the backend's one-lane rows), LOOP1_BATCH gathers in flight. */
template <typename S>
static __device__ __forceinline__ double loop1_row(const double *sval, const int *scol, int rb,
                                                   int l, int len, const S &src)
{
    double acc = 0;
    for (int k = 0; k < len; k += LOOP1_BATCH) {
        double a[LOOP1_BATCH], v[LOOP1_BATCH];
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
    a = warp_sum(a), b = warp_sum(b);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) sh[0][warp] = a, sh[1][warp] = b;
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        a = warp_sum(in ? sh[0][lane] : 0.0), b = warp_sum(in ? sh[1][lane] : 0.0);
    }
}

/* Sums of the two partial rows part[0 .. G) and part[G .. 2G) in a fixed order (lane l adds
 * entries l, l + 32, ... in turn, then a butterfly): the same bits in every block; valid in warp
 * 0, which must be the caller. */
static __device__ __forceinline__ void partials_sum2(const double *part, int G, double &a,
                                                     double &b)
{
    a = 0, b = 0;
    for (int j = threadIdx.x; j < G; j += 32)
        a += __ldcg(part + j), b += __ldcg(part + G + j);
    a = warp_sum(a), b = warp_sum(b);
}

template <bool C16>
static __global__ void __launch_bounds__(LOOP1_THREADS, 1)
    cg_loop1_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const double *__restrict__ val,
                    const __grid_constant__ mpcgi_cg_loop c, int rb, int width)
{
    /* own rows: x, p, r, w, s (rb each), the row lengths (rb ints), then the entries: rb width
     * values, rb width columns */
    extern __shared__ double xs[];
    double *ps = xs + rb, *rs = ps + rb, *ws = rs + rb, *ss = ws + rb;
    double *sval = ss + rb;
    int *scol = reinterpret_cast<int *>(sval + (size_t)rb * width), *lens = scol + rb * width;
    __shared__ double sh[2][32];
    __shared__ mpcgi_cg_state s; /* this block's copy of the state */
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) s = *c.st;
    __syncthreads();
    if (s.stop) return; /* the same decision in every block */

    const int G = gridDim.x;
    const int64_t first = (int64_t)blockIdx.x * rb;
    const int own = (int)max((int64_t)0, min((int64_t)rb, L.n - first)); /* rows of this block */
    const mpcgi_cols<C16> cols{L.col_idx, L.col16};
    double *x = s.x;
    /* a thread touches only its own rows' shared entries: no barrier needed around them */
    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
        const int64_t i = first + l;
        const int b = __ldg(L.row_ptr + i), len = __ldg(L.row_ptr + i + 1) - b;
        for (int k = 0; k < len; k++) {
            sval[k * rb + l] = __ldg(val + b + k);
            scol[k * rb + l] = cols.template col<false>(b + k, (int)i);
        }
        lens[l] = len;
        xs[l] = x[i];
    }

    int ph = 0; /* the partial set of the next sums */
    if (!s.primed) { /* w = A r, delta = w.r, records (r, w, 0), p = s = 0 */
        const loop1_src_r src{c.r};
        double g = 0, d = 0;
        for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
            const double r = __ldg(c.r + first + l);
            const double w = loop1_row(sval, scol, rb, l, lens[l], src);
            d = fma(w, r, d);
            record_put(c.rws, first + l, r, w, 0.0);
            rs[l] = r, ws[l] = w, ps[l] = 0, ss[l] = 0;
        }
        block_sum2(g, d, sh);
        if (threadIdx.x == 0) c.partial[blockIdx.x] = g, c.partial[G + blockIdx.x] = d;
        grid.sync();
        if (threadIdx.x < 32) {
            partials_sum2(c.partial, G, g, d);
            if (threadIdx.x == 0) s.delta = d, s.primed = 1, s.par = 0;
        }
        __syncthreads();
        ph = 1;
    } else {
        const double *in = c.rws + 4 * L.n * s.par;
        for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
            record_get(in, first + l, rs[l], ws[l], ss[l]);
            ps[l] = c.p[0][first + l];
        }
    }

    for (int64_t it = 0; it < c.iters; it++) {
        const double beta = s.beta, gamma = s.rr;
        const double pq = beta == 0 ? s.delta : s.delta - beta * gamma / s.alpha;
        const int stop = mpcgi_cg_curvature_stop(pq);
        if (stop) { /* x untouched, as in solver/cg.c */
            if (threadIdx.x == 0) s.pq = pq, s.stop = stop;
            break;
        }
        const double alpha = gamma / pq;
        const loop1_src_next src{c.rws + 4 * L.n * s.par, alpha, beta};
        double *out = c.rws + 4 * L.n * (s.par ^ 1);
        double g = 0, d = 0;
        for (int l = threadIdx.x; l < own; l += LOOP1_THREADS) {
            const double p = fma(beta, ps[l], rs[l]), sv = fma(beta, ss[l], ws[l]);
            const double r = fma(-alpha, sv, rs[l]); /* = src(first + l), bit for bit */
            xs[l] = fma(alpha, p, xs[l]);
            const double w = loop1_row(sval, scol, rb, l, lens[l], src);
            g = fma(r, r, g);
            d = fma(w, r, d);
            record_put(out, first + l, r, w, sv);
            ps[l] = p, rs[l] = r, ws[l] = w, ss[l] = sv;
        }
        block_sum2(g, d, sh);
        double *part = c.partial + 2 * G * ph;
        if (threadIdx.x == 0) part[blockIdx.x] = g, part[G + blockIdx.x] = d;
        grid.sync();
        if (threadIdx.x < 32) {
            partials_sum2(part, G, g, d);
            if (threadIdx.x == 0) {
                s.pq = pq;
                s.alpha = alpha;
                mpcgi_cg_finish_update(&s, g);
                s.delta = d;
                s.par ^= 1;
            }
        }
        __syncthreads();
        ph ^= 1;
        if (s.stop) break;
    }

    for (int l = threadIdx.x; l < own; l += LOOP1_THREADS)
        x[first + l] = xs[l], c.p[0][first + l] = ps[l], c.r[first + l] = rs[l];
    grid.sync(); /* every block has read *c.st before block 0 writes it */
    if (blockIdx.x == 0 && threadIdx.x == 0) *c.st = s;
}

/* ---------------------------------------------------------------- launchers */

typedef void (*loop_fn)(const mpcgi_adaptive_launch, const double *, const mpcgi_cg_loop);

template <int R, bool C16> static loop_fn pick_nt(int nt)
{
    switch (nt) {
    case 1: return cg_loop_kernel<1, R, C16>;
    case 2: return cg_loop_kernel<2, R, C16>;
    case 4: return cg_loop_kernel<4, R, C16>;
    case 8: return cg_loop_kernel<8, R, C16>;
    case 16: return cg_loop_kernel<16, R, C16>;
    default: return cg_loop_kernel<32, R, C16>;
    }
}

template <bool C16> static loop_fn pick_rows(const mpcgi_adaptive_launch *L)
{
    switch (L->rows_per_group) {
    case 1: return pick_nt<1, C16>(L->nt);
    case 2: return pick_nt<2, C16>(L->nt);
    default: return pick_nt<4, C16>(L->nt);
    }
}

static loop_fn pick(const mpcgi_adaptive_launch *L)
{
    return L->col16 ? pick_rows<true>(L) : pick_rows<false>(L);
}

typedef void (*loop1_fn)(const mpcgi_adaptive_launch, const double *, const mpcgi_cg_loop, int,
                         int);

static loop1_fn pick1(const mpcgi_adaptive_launch *L)
{
    return L->col16 ? cg_loop1_kernel<true> : cg_loop1_kernel<false>;
}

/* Dynamic shared memory of the single-reduction loop: rb rows of five vectors, a length and
 * `width` entries. */
static size_t loop1_smem(int rb, int width)
{
    return (size_t)rb * (5 * sizeof(double) + sizeof(int) +
                         (size_t)width * (sizeof(double) + sizeof(int)));
}

extern "C" {

int mpcgi_adaptive_cg_grid(const mpcgi_adaptive_launch *L, int device, int blocks_per_sm,
                           int most)
{
    int coop = 0, sms = 0, fit = 0;
    if (L->path != MPCGI_ADAPTIVE_UNIFORM) return 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, pick(L), LOOP_THREADS, 0) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (!coop || fit < 1) return 0;
    int per_sm = blocks_per_sm < fit ? blocks_per_sm : fit;
    int64_t grid = (int64_t)per_sm * sms;
    return (int)(grid < most ? grid : most);
}

int mpcgi_adaptive_cg_loop1_grid(const mpcgi_adaptive_launch *L, int device, int64_t max_len,
                                  int any_chain, int *rb, int *width)
{
    int coop = 0, sms = 0, optin = 0, fit = 0;
    *rb = 0, *width = 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (!coop || sms < 1 || 4 * sms > MPCGI_CG_BLOCKS) return 0; /* two sets of two partials */
    const int64_t per = (L->n + sms - 1) / sms;
    if (per > (1 << 20) || max_len > (1 << 20)) return 0;
    const int r = per < 1 ? 1 : (int)per, wd = max_len < 1 ? 1 : (int)max_len;
    if (!any_chain && (int64_t)((r + LOOP1_THREADS - 1) / LOOP1_THREADS) * wd > LOOP1_MAX_CHAIN)
        return 0;
    /* the static shared memory (the state, the warp sums) comes on top of the dynamic */
    const size_t bytes = loop1_smem(r, wd);
    if (bytes + 1024 > (size_t)optin) return 0;
    const loop1_fn f = pick1(L);
    if (cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)bytes) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, f, LOOP1_THREADS, bytes) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (fit < 1) return 0;
    *rb = r, *width = wd;
    return sms;
}

int mpcgi_adaptive_cg_loop1(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                            int grid, int rb, int width, const mpcgi_cg_loop *c)
{
    mpcgi_adaptive_launch l = *L;
    mpcgi_cg_loop cc = *c;
    void *args[] = {&l, &val, &cc, &rb, &width};
    return (int)cudaLaunchCooperativeKernel((const void *)pick1(L), grid, LOOP1_THREADS, args,
                                            loop1_smem(rb, width), (cudaStream_t)stream);
}

int mpcgi_adaptive_cg_loop(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                           int grid, const mpcgi_cg_loop *c)
{
    mpcgi_adaptive_launch l = *L;
    mpcgi_cg_loop cc = *c;
    void *args[] = {&l, &val, &cc};
    return (int)cudaLaunchCooperativeKernel((const void *)pick(L), grid, LOOP_THREADS, args, 0,
                                            (cudaStream_t)stream);
}

} /* extern "C" */
