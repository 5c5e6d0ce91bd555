/* bench/experiments/staged_rows.cu: can adaptive's CSR-vector kernel reach 0.9 of the copy
 * bandwidth on the 7- and 27-point stencils if each block first copies a tile's values and
 * 16-bit column offsets into shared memory with coalesced loads, then sums the tile's rows from
 * there with the same NT lanes per row? (an experiment, not built by make; issue 25)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/experiments/staged_rows.cu -lcusparse -o staged_rows
 *   ./staged_rows [1-4 [diff]]   (a matrix, default all; diff: staged_x and staged_z only)
 *
 * The matrices: poisson3d:128 and :160 (7-point, n = 128^3, 160^3), poisson3d27:96 and :128
 * (27-point; argument 1 - 4 runs one of them, default all), fp64 values, columns as 16-bit offsets col - row (adaptive's C16 layout: 10 bytes a nonzero).
 * Counted bytes are adaptive's (bytes_matrix + x + y): 10 nnz + 4 (n + 1) + 16 n.
 *
 * Kernels, each timed with CUDA events (median of 7 groups of 10 after 20 warm-ups):
 *   - vector<NT, R>: a CSR-vector kernel (a group of NT lanes sums R rows, loads straight from
 *     global memory, evict-first for NT >= 8); simpler than the backend's (no grid stride, no
 *     launch bounds), so not the backend's baseline;
 *   - staged_u<NT, BLOCK, CAP, U>: a block takes min(BLOCK, CAP / longest row) consecutive
 *     rows, stages their row pointers, values and offsets in shared memory (every thread strides
 *     over the tile's entries: all loads independent), one barrier, then groups of NT lanes sum
 *     the rows from there, U strides a round, in the same order as vector<NT> (lane l adds
 *     entries l, l + NT, ... by fma from 0, then the butterfly): bit for bit vector<NT>'s;
 *   - staged_v: the same with 16-byte loads (double2 values, int4 of 8 offsets);
 *   - staged_async: persistent blocks, two tile buffers filled by cp.async while the other is
 *     summed.
 *   - staged_x<LATE, PDL, LOOP, MINB>: staged_u with the backend's differences (below);
 *   - staged_z<A, B, C>: staged_x's structure against staged_u's, one difference at a time.
 * Session 14, calls 1 and 2 (bench/results/nvidia-h200-2026-11-29-session14.md) ran the diff
 * lists: the loop over tiles (staged_x's, one trip) is what made the backend's kernel slow.
 * Call 1 of session 13 (bench/results/nvidia-h200-2026-11-29-session13.md) ran an earlier
 * version: staged without the U rounds (the U = 1 case here) and with R rows a group at once;
 * calls 2 and 3 ran the kernels of this file.
 * Device copy bandwidth: cudaMemcpy device to device of 1 GiB, read + write counted.
 */
#include "experiment.cuh"
#include <cstdint>
#include <cstring>
#include <cuda_pipeline.h>

#define FULL 0xffffffffu

template <int NT, int R>
__global__ void __launch_bounds__(256) vector_kernel(int n, const int *__restrict__ rp,
                                                      const int16_t *__restrict__ off,
                                                      const double *__restrict__ val,
                                                      const double *__restrict__ x,
                                                      double *__restrict__ y)
{
    const int groups = blockDim.x / NT, lane = threadIdx.x & (NT - 1);
    const long first = (long)blockIdx.x * groups * R;
    int row[R], s[R], len[R];
    double acc[R];
    int most = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        long i = first + r * groups + threadIdx.x / NT;
        row[r] = -1, s[r] = 0, len[r] = 0, acc[r] = 0;
        if (i < n) row[r] = (int)i, s[r] = __ldg(rp + i), len[r] = __ldg(rp + i + 1) - s[r];
        most = len[r] > most ? len[r] : most;
    }
    for (int o = lane; o < most; o += 2 * NT) {
        double a[R][2], b[R][2];
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++) {
                int k = o + u * NT;
                a[r][u] = 0, b[r][u] = 0;
                if (k < len[r]) {
                    a[r][u] = NT >= 8 ? __ldcs(val + s[r] + k) : __ldg(val + s[r] + k);
                    int c = row[r] + (NT >= 8 ? __ldcs(off + s[r] + k) : __ldg(off + s[r] + k));
                    b[r][u] = __ldg(x + c);
                }
            }
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++)
                if (o + u * NT < len[r]) acc[r] = fma(a[r][u], b[r][u], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int t = NT / 2; t > 0; t >>= 1)
            acc[r] += __shfl_xor_sync(FULL, acc[r], t, NT);
        if (lane == 0 && row[r] >= 0) y[row[r]] = acc[r];
    }
}

/* The sum of row g of a staged tile by NT lanes, U strides per round: every load of a round
 * (values and offsets from shared memory, the gathers of x) issued before its multiply-adds;
 * the same additions in the same order as vector<NT>. */
template <int NT, int U>
static __device__ __forceinline__ double staged_row(const double *sv, const int16_t *so, int s,
                                                    int e, int row, int lane,
                                                    const double *__restrict__ x)
{
    double acc = 0;
    for (int k = s + lane; k < e; k += U * NT) {
        double a[U], b[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (k + u * NT < e) a[u] = sv[k + u * NT], b[u] = __ldg(x + row + so[k + u * NT]);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (k + u * NT < e) acc = fma(a[u], b[u], acc);
    }
#pragma unroll
    for (int t = NT / 2; t > 0; t >>= 1)
        acc += __shfl_xor_sync(FULL, acc, t, NT);
    return acc;
}

template <int NT, int BLOCK, int CAP, int U>
__global__ void __launch_bounds__(BLOCK) staged_u_kernel(int n, int tile_rows,
                                                          const int *__restrict__ rp,
                                                          const int16_t *__restrict__ off,
                                                          const double *__restrict__ val,
                                                          const double *__restrict__ x,
                                                          double *__restrict__ y)
{
    __shared__ double sv[CAP];
    __shared__ int16_t so[CAP];
    __shared__ int sp[BLOCK + 1];
    const int r0 = blockIdx.x * tile_rows;
    const int rows = min(tile_rows, n - r0);
    for (int i = threadIdx.x; i <= rows; i += BLOCK)
        sp[i] = __ldg(rp + r0 + i);
    const int k0 = __ldg(rp + r0), cnt = __ldg(rp + r0 + rows) - k0;
    constexpr int L = 8;
    for (int b = threadIdx.x; b < cnt; b += L * BLOCK) {
        double v[L];
        int16_t o[L];
#pragma unroll
        for (int u = 0; u < L; u++) {
            int k = b + u * BLOCK;
            if (k < cnt) v[u] = __ldcs(val + k0 + k), o[u] = __ldcs(off + k0 + k);
        }
#pragma unroll
        for (int u = 0; u < L; u++) {
            int k = b + u * BLOCK;
            if (k < cnt) sv[k] = v[u], so[k] = o[u];
        }
    }
    __syncthreads();
    const int groups = BLOCK / NT, lane = threadIdx.x & (NT - 1);
    for (int g0 = 0; g0 < rows; g0 += groups) { /* warp-uniform trips: the shuffles */
        const int g = g0 + threadIdx.x / NT, ok = g < rows;
        double acc = staged_row<NT, U>(sv, so, ok ? sp[g] - k0 : 0, ok ? sp[g + 1] - k0 : 0,
                                       r0 + g, lane, x);
        if (lane == 0 && ok) y[r0 + g] = acc;
    }
}

/* Persistent blocks, two tile buffers: the next tile's values and offsets are copied by cp.async
 * (8-byte values, 4-byte pairs of offsets from an even index) while this tile is summed. */
template <int NT, int BLOCK, int CAP, int U>
__global__ void __launch_bounds__(BLOCK) staged_async_kernel(int n, int tile_rows, int tiles,
                                                              const int *__restrict__ rp,
                                                              const int16_t *__restrict__ off,
                                                              const double *__restrict__ val,
                                                              const double *__restrict__ x,
                                                              double *__restrict__ y)
{
    extern __shared__ double dyn[];
    double *sv[2] = {dyn, dyn + CAP};
    int16_t *so[2] = {(int16_t *)(dyn + 2 * CAP), (int16_t *)(dyn + 2 * CAP) + CAP + 2};
    int *sp[2] = {(int *)((int16_t *)(dyn + 2 * CAP) + 2 * (CAP + 2)),
                  (int *)((int16_t *)(dyn + 2 * CAP) + 2 * (CAP + 2)) + BLOCK + 1};
    auto issue = [&](int t, int bsel) {
        const int r0 = t * tile_rows, rows = min(tile_rows, n - r0);
        const int k0 = __ldg(rp + r0), k1 = __ldg(rp + r0 + rows);
        for (int i = threadIdx.x; i <= rows; i += BLOCK)
            __pipeline_memcpy_async(sp[bsel] + i, rp + r0 + i, 4);
        for (int k = k0 + threadIdx.x; k < k1; k += BLOCK)
            __pipeline_memcpy_async(sv[bsel] + (k - k0), val + k, 8);
        const int a0 = k0 & ~1;
        for (int k = a0 + 2 * threadIdx.x; k < k1; k += 2 * BLOCK)
            __pipeline_memcpy_async(so[bsel] + (k - a0), off + k, 4);
        __pipeline_commit();
    };
    int t = blockIdx.x, cur = 0;
    if (t < tiles) issue(t, 0);
    for (; t < tiles; t += gridDim.x, cur ^= 1) {
        if (t + (int)gridDim.x < tiles) issue(t + gridDim.x, cur ^ 1);
        else __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const int r0 = t * tile_rows, rows = min(tile_rows, n - r0);
        const int k0 = sp[cur][0], sh = k0 & 1;
        const int groups = BLOCK / NT, lane = threadIdx.x & (NT - 1);
        for (int g0 = 0; g0 < rows; g0 += groups) {
            const int g = g0 + threadIdx.x / NT, ok = g < rows;
            /* the offsets were copied from an even index: entry k's is at sh + k */
            double acc = staged_row<NT, U>(sv[cur], so[cur] + sh, ok ? sp[cur][g] - k0 : 0,
                                           ok ? sp[cur][g + 1] - k0 : 0, r0 + g, lane, x);
            if (lane == 0 && ok) y[r0 + g] = acc;
        }
        __syncthreads();
    }
}

/* staged_u_kernel with 16-byte loads: values as double2 from an even index, offsets as int4 (8
 * of them) from a multiple of 8; the few entries before the tile and after it are loaded and
 * not used (the arrays are padded). */
template <int NT, int BLOCK, int CAP, int U>
__global__ void __launch_bounds__(BLOCK) staged_v_kernel(int n, int tile_rows,
                                                          const int *__restrict__ rp,
                                                          const int16_t *__restrict__ off,
                                                          const double *__restrict__ val,
                                                          const double *__restrict__ x,
                                                          double *__restrict__ y)
{
    __shared__ __align__(16) double sv[CAP + 2];
    __shared__ __align__(16) int16_t so[CAP + 16];
    __shared__ int sp[BLOCK + 1];
    const int r0 = blockIdx.x * tile_rows;
    const int rows = min(tile_rows, n - r0);
    for (int i = threadIdx.x; i <= rows; i += BLOCK)
        sp[i] = __ldg(rp + r0 + i);
    const int k0 = __ldg(rp + r0), k1 = __ldg(rp + r0 + rows);
    const int a0 = k0 & ~1, b0 = k0 & ~7;
    const int nv = (k1 - a0 + 1) >> 1, no = (k1 - b0 + 7) >> 3;
    const double2 *v2 = (const double2 *)(val + a0);
    const int4 *o4 = (const int4 *)(off + b0);
    for (int i = threadIdx.x; i < nv + no; i += 4 * BLOCK) {
        double2 v[4];
        int4 o[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int j = i + u * BLOCK;
            if (j < nv) v[u] = __ldcs(v2 + j);
            else if (j < nv + no) o[u] = __ldcs(o4 + (j - nv));
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int j = i + u * BLOCK;
            if (j < nv) ((double2 *)sv)[j] = v[u];
            else if (j < nv + no) ((int4 *)so)[j - nv] = o[u];
        }
    }
    __syncthreads();
    const int groups = BLOCK / NT, lane = threadIdx.x & (NT - 1);
    for (int g0 = 0; g0 < rows; g0 += groups) {
        const int g = g0 + threadIdx.x / NT, ok = g < rows;
        /* entry k's value is at sv[k - a0], its offset at so[k - b0] */
        double acc = staged_row<NT, U>(sv + (k0 - a0), so + (k0 - b0), ok ? sp[g] - k0 : 0,
                                       ok ? sp[g + 1] - k0 : 0, r0 + g, lane, x);
        if (lane == 0 && ok) y[r0 + g] = acc;
    }
}

/*
 * staged_u<1, 128, 1024, 1> step by step towards the backend's staged kernel of commit c312ace
 * (spmv/adaptive_spmv.cuh there), which ran at 0.59 of copy on poisson3d27:96 where this one
 * ran at 0.90: one difference at a time. LATE: each thread reads its row's pointers from global
 * memory after the barrier (the backend) instead of the block staging them in shared memory
 * first; PDL: griddepcontrol.wait and launch_dependents first, launched with programmatic stream
 * serialization (core/launch.cuh); LOOP: the blocks stride over the tiles, a second barrier
 * after each. MINB: __launch_bounds__'s blocks an SM (0: none; 12: at most 40 registers).
 * Session 14, call 1: none of the three explains it; staged_x<0, 0, 0> itself (its loop over
 * tiles still there, one trip) ran at 0.69.
 */
template <bool LATE, bool PDL, bool LOOP, int MINB = 0>
__global__ void __launch_bounds__(128, MINB) staged_x_kernel(int n, int tile_rows, int tiles,
                                                        const int *__restrict__ rp,
                                                        const int16_t *__restrict__ off,
                                                        const double *__restrict__ val,
                                                        const double *__restrict__ x,
                                                        double *__restrict__ y)
{
    constexpr int BLOCK = 128, CAP = 1024, L = 8;
    __shared__ double sv[CAP];
    __shared__ int16_t so[CAP];
    __shared__ int sp[BLOCK + 1];
    if (PDL) {
        asm volatile("griddepcontrol.wait;" ::: "memory");
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    }
    const int t = threadIdx.x;
    for (int v = blockIdx.x; v < tiles; v += LOOP ? gridDim.x : tiles) {
        const int r0 = v * tile_rows, rows = min(tile_rows, n - r0);
        if (!LATE)
            for (int i = t; i <= rows; i += BLOCK)
                sp[i] = __ldg(rp + r0 + i);
        const int k0 = __ldg(rp + r0), cnt = __ldg(rp + r0 + rows) - k0;
        double a[L];
        int16_t o[L];
#pragma unroll
        for (int u = 0; u < L; u++)
            if (t + u * BLOCK < cnt)
                a[u] = __ldcs(val + k0 + t + u * BLOCK), o[u] = __ldcs(off + k0 + t + u * BLOCK);
#pragma unroll
        for (int u = 0; u < L; u++)
            if (t + u * BLOCK < cnt) sv[t + u * BLOCK] = a[u], so[t + u * BLOCK] = o[u];
        __syncthreads();
        if (t < rows) {
            const int s = (LATE ? __ldg(rp + r0 + t) : sp[t]) - k0;
            const int e = (LATE ? __ldg(rp + r0 + t + 1) : sp[t + 1]) - k0;
            double acc = 0;
            for (int k = s; k < e; k++)
                acc = fma(sv[k], __ldg(x + r0 + t + so[k]), acc);
            y[r0 + t] = acc;
        }
        if (LOOP) __syncthreads();
    }
}

/*
 * staged_z<A, B, C>: staged_x<0, 0, 0> (0.69 of copy on poisson3d27:96, session 14 call 1) moved
 * towards staged_u<1, 128, 1024, 1> (0.90) one structural difference at a time.
 * A: the tile's loads inside staged_u's loop over rounds of 8 x 128 entries (one trip here)
 * instead of straight; B: no loop over tiles (staged_x loops once: v += tiles); C: the row
 * summed by staged_row<1, 1> (loads of a round first, then the fma) instead of a plain loop.
 */
template <bool A, bool B, bool C>
__global__ void __launch_bounds__(128) staged_z_kernel(int n, int tile_rows, int tiles,
                                                        const int *__restrict__ rp,
                                                        const int16_t *__restrict__ off,
                                                        const double *__restrict__ val,
                                                        const double *__restrict__ x,
                                                        double *__restrict__ y)
{
    constexpr int BLOCK = 128, CAP = 1024, L = 8;
    __shared__ double sv[CAP];
    __shared__ int16_t so[CAP];
    __shared__ int sp[BLOCK + 1];
    const int t = threadIdx.x;
    for (int v = blockIdx.x; v < tiles; v += B ? INT_MAX / 2 : tiles) {
        const int r0 = v * tile_rows, rows = min(tile_rows, n - r0);
        for (int i = t; i <= rows; i += BLOCK)
            sp[i] = __ldg(rp + r0 + i);
        const int k0 = __ldg(rp + r0), cnt = __ldg(rp + r0 + rows) - k0;
        for (int b = t; b < cnt; b += A ? L * BLOCK : INT_MAX / 2) {
            double a[L];
            int16_t o[L];
#pragma unroll
            for (int u = 0; u < L; u++)
                if (b + u * BLOCK < cnt)
                    a[u] = __ldcs(val + k0 + b + u * BLOCK), o[u] = __ldcs(off + k0 + b + u * BLOCK);
#pragma unroll
            for (int u = 0; u < L; u++)
                if (b + u * BLOCK < cnt) sv[b + u * BLOCK] = a[u], so[b + u * BLOCK] = o[u];
            if (!A) break;
        }
        __syncthreads();
        if (C) {
            const int ok = t < rows;
            double acc = staged_row<1, 1>(sv, so, ok ? sp[t] - k0 : 0, ok ? sp[t + 1] - k0 : 0,
                                          r0 + t, 0, x);
            if (ok) y[r0 + t] = acc;
        } else if (t < rows) {
            const int s = sp[t] - k0, e = sp[t + 1] - k0;
            double acc = 0;
            for (int k = s; k < e; k++)
                acc = fma(sv[k], __ldg(x + r0 + t + so[k]), acc);
            y[r0 + t] = acc;
        }
        if (B) break;
    }
}

static void run(const char *name, int m, int pts, double copy, bool diff)
{
    mat A = stencil(m, pts);
    int n = A.n, maxlen = 0;
    for (int i = 0; i < n; i++) maxlen = std::max(maxlen, A.rp[i + 1] - A.rp[i]);
    std::vector<int16_t> off(A.nnz);
    for (int i = 0; i < n; i++)
        for (int k = A.rp[i]; k < A.rp[i + 1]; k++) off[k] = (int16_t)(A.col[k] - i);
    std::vector<double> x(n), ref(n);
    for (int i = 0; i < n; i++) x[i] = 1.0 + (i % 13) * 0.01;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = A.rp[i]; k < A.rp[i + 1]; k++) s += A.val[k] * x[A.col[k]];
        ref[i] = s;
    }
    int *rp, *col;
    int16_t *of;
    double *val, *dx, *dy, *dy0;
    CK(cudaMalloc(&rp, (n + 1) * 4));
    CK(cudaMalloc(&col, A.nnz * 4));
    CK(cudaMalloc(&of, A.nnz * 2 + 64));
    CK(cudaMalloc(&val, A.nnz * 8 + 64));
    CK(cudaMalloc(&dx, n * 8));
    CK(cudaMalloc(&dy, n * 8));
    CK(cudaMalloc(&dy0, n * 8));
    CK(cudaMemcpy(rp, A.rp.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(col, A.col.data(), A.nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(of, off.data(), A.nnz * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(val, A.val.data(), A.nnz * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
    const double bytes = 10.0 * A.nnz + 4.0 * (n + 1) + 16.0 * n;
    const double csr_bytes = 12.0 * A.nnz + 4.0 * (n + 1) + 16.0 * n;
    printf("%s: n %d nnz %ld max row %d; adaptive's bytes %.1f MB, copy %.0f GB/s\n", name, n,
           A.nnz, maxlen, bytes / 1e6, copy);
    cusparse_spmv cs(n, A.nnz, rp, col, val, dx, dy);
    double ms = time_ms(cs);
    printf("  %-34s %8.4f ms  %6.0f GB/s  %.3f of copy (CSR bytes)  err %.1e\n", "cusparse", ms,
           csr_bytes / ms / 1e6, csr_bytes / ms / 1e6 / copy, rel_diff(ref, dy, n));
    auto report = [&](const char *k, double t, bool cmp0) {
        double d = rel_diff(ref, dy, n);
        long same = -1;
        if (cmp0) {
            std::vector<double> a(n), b(n);
            CK(cudaMemcpy(a.data(), dy, n * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(b.data(), dy0, n * 8, cudaMemcpyDeviceToHost));
            same = 0;
            for (int i = 0; i < n; i++) same += memcmp(&a[i], &b[i], 8) == 0;
        }
        printf("  %-44s %8.4f ms  %6.0f GB/s  %.3f of copy  err %.1e%s%s\n", k, t,
               bytes / t / 1e6, bytes / t / 1e6 / copy, d, same < 0 ? "" : "  bits==vector: ",
               same < 0 ? "" : (same == n ? "all" : "NO"));
    };
#define VEC(NT, R)                                                                                 \
    do {                                                                                           \
        int per = 256 / NT * R, g = (n + per - 1) / per;                                           \
        CK(cudaMemset(dy, 0xff, n * 8));                                                           \
        double t = time_ms([&] { vector_kernel<NT, R><<<g, 256>>>(n, rp, of, val, dx, dy); });   \
        char k[64];                                                                                \
        snprintf(k, 64, "vector NT %d R %d", NT, R);                                              \
        report(k, t, false);                                                                       \
        if (NT == ntref) CK(cudaMemcpy(dy0, dy, n * 8, cudaMemcpyDeviceToDevice));               \
    } while (0)
    const int ntref = pts == 7 ? 8 : 16;
    if (pts == 7) VEC(8, 1); else VEC(16, 1);
/* one tile per block: KERNEL (staged_u_kernel or staged_v_kernel), its label L */
#define STAGED_RUN(KERNEL, L, NT, BLOCK, CAP, U)                                                  \
    do {                                                                                           \
        int tr = std::min(CAP / maxlen, BLOCK);                                                    \
        int g = (n + tr - 1) / tr;                                                                 \
        CK(cudaMemset(dy, 0xff, n * 8));                                                           \
        double t = time_ms([&] {                                                                   \
            KERNEL<NT, BLOCK, CAP, U><<<g, BLOCK>>>(n, tr, rp, of, val, dx, dy);                   \
        });                                                                                        \
        cudaFuncAttributes fa;                                                                     \
        CK(cudaFuncGetAttributes(&fa, KERNEL<NT, BLOCK, CAP, U>));                                 \
        char k[80];                                                                                \
        snprintf(k, 80, "%s NT %d blk %d cap %d U %d rows %d regs %d", L, NT, BLOCK, CAP, U, tr,   \
                 fa.numRegs);                                                                      \
        report(k, t, NT == ntref);                                                                 \
    } while (0)
#define STAGEDU(NT, BLOCK, CAP, U) STAGED_RUN(staged_u_kernel, "stagedU", NT, BLOCK, CAP, U)
#define STAGEDV(NT, BLOCK, CAP, U) STAGED_RUN(staged_v_kernel, "stagedV", NT, BLOCK, CAP, U)
    STAGEDU(1, 256, 2048, 1);
#define STAGEDX(LATE, PDL, LOOP) STAGEDXM(LATE, PDL, LOOP, 0)
#define STAGEDXM(LATE, PDL, LOOP, MINB)                                                                 \
    do {                                                                                           \
        int tr = std::min(1024 / maxlen, 128), tiles = (n + tr - 1) / tr;                          \
        cudaLaunchAttribute at[1];                                                                 \
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;                             \
        at[0].val.programmaticStreamSerializationAllowed = 1;                                      \
        cudaLaunchConfig_t cf = {};                                                                \
        cf.gridDim = dim3(tiles), cf.blockDim = dim3(128), cf.attrs = at;                          \
        cf.numAttrs = PDL ? 1 : 0;                                                                 \
        const int *rp_ = rp;                                                                       \
        const int16_t *of_ = of;                                                                   \
        const double *val_ = val, *dx_ = dx;                                                       \
        CK(cudaMemset(dy, 0xff, n * 8));                                                           \
        double t = time_ms([&] {                                                                   \
            cudaLaunchKernelEx(&cf, staged_x_kernel<LATE, PDL, LOOP, MINB>, n, tr, tiles, rp_, of_,      \
                               val_, dx_, dy);                                                     \
        });                                                                                        \
        cudaFuncAttributes fa;                                                                     \
        CK(cudaFuncGetAttributes(&fa, staged_x_kernel<LATE, PDL, LOOP, MINB>));                          \
        char k[64];                                                                                \
        snprintf(k, 64, "stagedX late %d pdl %d loop %d minb %d rows %d regs %d", LATE, PDL, LOOP, \
                 MINB, tr, fa.numRegs);                                                                     \
        report(k, t, false);                                                                       \
    } while (0)
#define STAGEDZ(A, B, C)                                                                           \
    do {                                                                                           \
        int tr = std::min(1024 / maxlen, 128), tiles = (n + tr - 1) / tr;                          \
        CK(cudaMemset(dy, 0xff, n * 8));                                                           \
        double t = time_ms([&] {                                                                   \
            staged_z_kernel<A, B, C><<<tiles, 128>>>(n, tr, tiles, rp, of, val, dx, dy);           \
        });                                                                                        \
        cudaFuncAttributes fa;                                                                     \
        CK(cudaFuncGetAttributes(&fa, staged_z_kernel<A, B, C>));                                  \
        char k[64];                                                                                \
        snprintf(k, 64, "stagedZ loadloop %d notileloop %d rowfn %d regs %d", A, B, C, fa.numRegs); \
        report(k, t, false);                                                                       \
    } while (0)
    if (diff) { /* the backend's differences one at a time, then all three */
        STAGEDU(1, 128, 1024, 1);
        STAGEDX(false, false, false);
        STAGEDX(true, false, false);
        STAGEDX(false, true, false);
        STAGEDX(false, false, true);
        STAGEDX(true, true, true);
        STAGEDXM(false, false, false, 12);
        STAGEDXM(true, true, true, 12);
        STAGEDXM(true, false, false, 12);
        STAGEDXM(false, true, false, 12);
        STAGEDZ(0, 0, 0); STAGEDZ(1, 0, 0); STAGEDZ(0, 1, 0); STAGEDZ(0, 0, 1);
        STAGEDZ(1, 1, 0); STAGEDZ(1, 0, 1); STAGEDZ(0, 1, 1); STAGEDZ(1, 1, 1);
        cudaFree(rp), cudaFree(col), cudaFree(of), cudaFree(val), cudaFree(dx), cudaFree(dy),
            cudaFree(dy0);
        return;
    }
#define STAGEDA(NT, BLOCK, CAP, U, PER)                                                            \
    do {                                                                                           \
        int tr = std::min(CAP / maxlen, BLOCK);                                                    \
        int tiles = (n + tr - 1) / tr;                                                             \
        size_t shb = 2 * CAP * 8 + 2 * (CAP + 2) * 2 + 2 * (BLOCK + 1) * 4;                        \
        auto kf = staged_async_kernel<NT, BLOCK, CAP, U>;                                          \
        CK(cudaFuncSetAttribute(kf, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shb));       \
        int g = std::min(tiles, PER * 132);                                                        \
        CK(cudaMemset(dy, 0xff, n * 8));                                                           \
        double t = time_ms([&] { kf<<<g, BLOCK, shb>>>(n, tr, tiles, rp, of, val, dx, dy); });    \
        char k[64];                                                                                \
        snprintf(k, 64, "async NT %d blk %d cap %d U %d per %d", NT, BLOCK, CAP, U, PER);         \
        report(k, t, NT == ntref);                                                                 \
    } while (0)
    STAGEDU(1, 256, 2048, 4);
    STAGEDU(1, 256, 2048, 8);
    STAGEDU(1, 128, 1024, 8);
    STAGEDU(1, 512, 4096, 8);
    STAGEDU(1, 256, 1024, 8);
    STAGEDU(2, 256, 2048, 4);
    STAGEDU(2, 256, 2048, 8);
    STAGEDU(4, 256, 2048, 4);
    STAGEDU(1, 256, 3072, 8);
    STAGEDU(1, 128, 1024, 1);
    STAGEDU(1, 128, 1024, 2);
    STAGEDU(1, 256, 2048, 2);
    STAGEDU(1, 256, 1792, 1);
    STAGEDU(1, 192, 1536, 1);
    STAGEDV(1, 256, 2048, 1);
    STAGEDV(1, 256, 2048, 2);
    STAGEDV(1, 128, 1024, 1);
    STAGEDV(1, 128, 1024, 2);
    STAGEDV(1, 256, 1792, 1);
    STAGEDV(1, 512, 3584, 1);
    STAGEDV(2, 256, 2048, 2);
    STAGEDV(1, 64, 512, 1);
    STAGEDA(1, 256, 2048, 8, 4);
    STAGEDA(1, 256, 2048, 8, 6);
    STAGEDA(1, 256, 2048, 8, 8);
    STAGEDA(1, 128, 1024, 8, 8);
    STAGEDA(1, 128, 1024, 8, 12);
    STAGEDA(1, 512, 4096, 8, 3);
    STAGEDA(2, 256, 2048, 8, 6);
    cudaFree(rp), cudaFree(col), cudaFree(of), cudaFree(val), cudaFree(dx), cudaFree(dy),
        cudaFree(dy0);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    const bool diff = argc > 2 && strcmp(argv[2], "diff") == 0;
    double copy = copy_gbs();
    if (which == 0 || which == 1) run("poisson3d:128", 128, 7, copy, diff);
    if (which == 0 || which == 2) run("poisson3d27:96", 96, 27, copy, diff);
    if (which == 0 || which == 3) run("poisson3d:160", 160, 7, copy, diff);
    if (which == 0 || which == 4) run("poisson3d27:128", 128, 27, copy, diff);
    return 0;
}
