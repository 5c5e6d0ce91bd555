/* core/cg_kernels.cu: the fused CG vector kernels (x, r update with r.r; p update; p.q) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/cg_device.cuh"
#include "core/cg_kernels.h"
#include "core/cuda_reduce.cuh"
#include "core/launch.cuh"

/* Threads per block (core/cuda_reduce.cuh). */
#define THREADS MPCGI_THREADS
/* Most blocks of the elementwise p update; each thread then strides over the rest. */
#define MAX_GRID 65536

static_assert(sizeof(mpcgi_cg_state) % sizeof(double) == 0, "the partials follow the state");

/*
 * The grid-wide sums of every thread's N values acc[], in a fixed order: each block stores its
 * sums (mpcgi_block_sum_shfl) in partial[j * gridDim.x + blockIdx.x]; the block that arrives
 * last (an integer counter, after a fence) adds the partials, each thread its entries in order,
 * then the same block sum, and resets the counter. Returns true in that block only, with the
 * totals in total[] in thread 0. Which block is last varies; the order of the sums does not.
 * partial: N * gridDim.x doubles.
 */
template <int N>
static __device__ bool grid_sums(const double (&acc)[N], double *partial, unsigned *arrived,
                                 double (&total)[N])
{
    __shared__ double ws[N][THREADS / 32];
    __shared__ bool last;
    double b[N];
    for (int j = 0; j < N; j++) b[j] = mpcgi_block_sum_shfl<THREADS>(acc[j], ws[j]);
    if (threadIdx.x == 0) {
        for (int j = 0; j < N; j++) partial[j * gridDim.x + blockIdx.x] = b[j];
        __threadfence(); /* the partials are visible before the count says so */
        last = atomicAdd(arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return false;
    __threadfence(); /* the other blocks' partials are read after their counts */
    for (int j = 0; j < N; j++) {
        double a = 0.0;
        for (unsigned k = threadIdx.x; k < gridDim.x; k += THREADS)
            a += __ldcg(&partial[j * gridDim.x + k]);
        total[j] = mpcgi_block_sum_shfl<THREADS>(a, ws[j]); /* ws[j] read before the barrier */
    }
    if (threadIdx.x == 0) *arrived = 0; /* ready for the next reduction (kernels run in order) */
    return true;
}

/* One sum: grid_sums<1>. */
static __device__ __forceinline__ bool grid_sum(double acc, double *partial, unsigned *arrived,
                                                double *total)
{
    const double a[1] = {acc};
    double t[1];
    const bool last = grid_sums<1>(a, partial, arrived, t);
    if (last && threadIdx.x == 0) *total = t[0];
    return last;
}

/*
 * The start of an r (or z) update after q = A p and p.q: block 0 clears xpend first, whatever
 * happens after (it arrives at the reduction before the block that sets it, so a stopped or
 * skipped update leaves xpend = 0); nothing once stopped; the curvature test on p.q, every thread
 * taking the same decision from the same scalar, so no thread touches a vector when one would
 * stop (the one write of `stop` can only turn other blocks back earlier). Else alpha = rr / pq
 * and true.
 */
static __device__ __forceinline__ bool update_begin(mpcgi_cg_state *st, double *alpha)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) st->xpend = 0;
    if (st->stop) return false;
    const double pq = st->pq;
    const int bad = mpcgi_cg_curvature_stop(pq);
    if (bad) {
        if (blockIdx.x == 0 && threadIdx.x == 0) st->stop = bad;
        return false;
    }
    *alpha = st->rr / pq;
    return true;
}

/* Jacobi PCG's restart: z = dinv r, p = z, rr = r.z, rr_new = r.r (core/cg_kernels.h). */
static __global__ void __launch_bounds__(THREADS, 8)
    pcg_restart_kernel(int64_t n, const double *__restrict__ r, const double *__restrict__ dinv,
                       double *__restrict__ z, double *__restrict__ p, mpcgi_cg_state *st,
                       double *partial)
{
    mpcgi_pdl_start();
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double rz = 0.0, rr = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const double ri = r[i], zi = dinv[i] * ri;
        z[i] = zi;
        p[i] = zi;
        rz += ri * zi;
        rr += ri * ri;
    }
    const double acc[2] = {rz, rr};
    double t[2];
    if (grid_sums<2>(acc, partial, &st->arrived, t) && threadIdx.x == 0) {
        st->rr = t[0];
        st->rr_new = t[1];
        if (!isfinite(t[0]) || !isfinite(t[1])) st->stop = MPCGI_CG_STOP_NAN;
        else if (t[0] <= 0.0) st->stop = MPCGI_CG_STOP_INDEFINITE_PC;
    }
}

/* Jacobi PCG's update: z -= alpha dinv q with r.z and r.r from r_i = z_i / dinv_i; x pending
 * for mpcgi_cg_update_p(z, p), as update_xr_kernel<double, false>. */
static __global__ void __launch_bounds__(THREADS, 8)
    pcg_update_z_kernel(int64_t n, const double *__restrict__ q, const double *__restrict__ dinv,
                        double *__restrict__ z, mpcgi_cg_state *st, double *partial)
{
    mpcgi_pdl_start();
    double alpha;
    if (!update_begin(st, &alpha)) return;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double rz = 0.0, rr = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const double di = dinv[i], zi = z[i] - alpha * (di * q[i]), ri = zi / di;
        z[i] = zi;
        rz += ri * zi;
        rr += ri * ri;
    }
    const double acc[2] = {rz, rr};
    double t[2];
    if (grid_sums<2>(acc, partial, &st->arrived, t) && threadIdx.x == 0) {
        st->alpha = alpha, st->xpend = 1;
        mpcgi_pcg_finish_update(st, t[0], t[1]);
    }
}

/* st->pq = p.q (16 B per fp64 row, 8 per fp32 row; products and sums in double) */
template <typename T>
static __global__ void __launch_bounds__(THREADS, 8)
    dot_pq_kernel(int64_t n, const T *__restrict__ p, const T *__restrict__ q,
                  mpcgi_cg_state *st, double *partial)
{
    mpcgi_pdl_start();
    if (st->stop) return;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double acc = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        acc += (double)p[i] * (double)q[i];
    double pq;
    if (grid_sum(acc, partial, &st->arrived, &pq) && threadIdx.x == 0) st->pq = pq;
}

/* Rows of update_xr_kernel's grid-stride loop whose r a thread loads before its PDL wait. */
#define EARLY_ROWS 2

/* With X: x += alpha p, r -= alpha q, rr_new = r.r (48 B per row); without: r and rr_new only
 * (24 B), alpha and xpend = 1 left in the state for update_p to add alpha p to x (update_begin
 * clears xpend). At most 32 registers, so that 8 blocks fit an SM and the MPCGI_CG_BLOCKS blocks
 * run in one wave on an H100 (132 SMs). Each thread loads r of its first EARLY_ROWS rows before
 * the wait (core/launch.cuh, "early loads": r is written by this kernel only, q by the product
 * right ahead of it, which is why q waits). */
template <typename T, bool X>
static __global__ void __launch_bounds__(THREADS, 8)
    update_xr_kernel(int64_t n, const T *__restrict__ p, const T *__restrict__ q,
                     T *__restrict__ r, mpcgi_cg_state *st, double *partial)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS,
                  i0 = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    T early[EARLY_ROWS];
#pragma unroll
    for (int j = 0; j < EARLY_ROWS; j++)
        if (i0 + j * stride < n) early[j] = r[i0 + j * stride];
    mpcgi_pdl_start();
    double alpha;
    if (!update_begin(st, &alpha)) return;
    const T ta = (T)alpha; /* alpha itself for double */
    T *__restrict__ x = mpcgi_cg_state_x<T>(st);
    double acc = 0.0;
    int64_t i = i0;
#pragma unroll
    for (int j = 0; j < EARLY_ROWS; j++, i += stride)
        if (i < n) {
            if (X) x[i] += ta * p[i];
            const T ri = early[j] - ta * q[i];
            r[i] = ri;
            acc += (double)ri * (double)ri;
        }
    for (; i < n; i += stride) {
        if (X) x[i] += ta * p[i];
        const T ri = r[i] - ta * q[i];
        r[i] = ri;
        acc += (double)ri * (double)ri;
    }
    double rr_new;
    if (grid_sum(acc, partial, &st->arrived, &rr_new) && threadIdx.x == 0) {
        if (!X) st->alpha = alpha, st->xpend = 1;
        mpcgi_cg_finish_update(st, rr_new);
    }
}

/* x += alpha p where update_xr left it pending (xpend; also after the update that stopped), then
 * p = r + beta p while running, one fused multiply-add as the backends' apply_direction_dot:
 * 40 B per row, 24 B without the x. X: the iterate's type (double beside fp32 vectors in a mixed
 * solve: x += alpha (double)p with alpha unrounded, 28 B per row). Each thread loads p and x of
 * its first row before the PDL wait (core/launch.cuh, "early loads": only this kernel writes
 * them; r, written by the update right ahead, waits). */
template <typename T, typename X>
static __global__ void update_p_kernel(int64_t n, const T *__restrict__ r, T *__restrict__ p,
                                       const mpcgi_cg_state *st)
{
    const int64_t i0 = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    X *__restrict__ x = mpcgi_cg_state_x<X>(st); /* set by the host before the solve */
    T p0 = T(0);
    X x0 = X(0);
    if (i0 < n) p0 = p[i0], x0 = x[i0];
    mpcgi_pdl_start();
    const bool run = !st->stop, add_x = st->xpend;
    if (!run && !add_x) return;
    const T beta = (T)st->beta; /* itself for double */
    const X alpha = (X)st->alpha;
    if (i0 < n) {
        if (add_x) x[i0] = x0 + alpha * (X)p0;
        if (run) p[i0] = fma(beta, p0, r[i0]);
    }
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = i0 + stride; i < n; i += stride) {
        const T pi = p[i];
        if (add_x) x[i] += alpha * (X)pi;
        if (run) p[i] = fma(beta, pi, r[i]);
    }
}

extern "C" {

int mpcgi_cg_dot_pq(void *stream, int64_t n, const double *p, const double *q,
                    mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(dot_pq_kernel<double>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS), THREADS,
                             stream, n, p, q, st, partial);
}

int mpcgi_cg_update_xr(void *stream, int64_t n, const double *p, const double *q, double *r,
                       mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(update_xr_kernel<double, true>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS),
                             THREADS, stream, n, p, q, r, st, partial);
}

int mpcgi_cg_update_r(void *stream, int64_t n, const double *q, double *r, mpcgi_cg_state *st,
                      double *partial)
{
    return (int)mpcgi_launch(update_xr_kernel<double, false>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS),
                             THREADS, stream, n, (const double *)nullptr, q, r, st, partial);
}

int mpcgi_cg_update_p(void *stream, int64_t n, const double *r, double *p,
                      const mpcgi_cg_state *st)
{
    return (int)mpcgi_launch(update_p_kernel<double, double>, mpcgi_grid_for(n, MAX_GRID), THREADS,
                             stream, n, r, p, st);
}

int mpcgi_pcg_jacobi_restart(void *stream, int64_t n, const double *r, const double *dinv,
                             double *z, double *p, mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(pcg_restart_kernel, mpcgi_grid_for(n, MPCGI_CG_BLOCKS), THREADS,
                             stream, n, r, dinv, z, p, st, partial);
}

int mpcgi_pcg_jacobi_update_z(void *stream, int64_t n, const double *q, const double *dinv,
                              double *z, mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(pcg_update_z_kernel, mpcgi_grid_for(n, MPCGI_CG_BLOCKS),
                             THREADS, stream, n, q, dinv, z, st, partial);
}

int mpcgi_cg_dot_pq_f32(void *stream, int64_t n, const float *p, const float *q,
                        mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(dot_pq_kernel<float>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS), THREADS,
                             stream, n, p, q, st, partial);
}

int mpcgi_cg_update_r_f32(void *stream, int64_t n, const float *q, float *r,
                          mpcgi_cg_state *st, double *partial)
{
    return (int)mpcgi_launch(update_xr_kernel<float, false>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS),
                             THREADS, stream, n, (const float *)nullptr, q, r, st, partial);
}

int mpcgi_cg_update_p_f32(void *stream, int64_t n, const float *r, float *p,
                          const mpcgi_cg_state *st)
{
    return (int)mpcgi_launch(update_p_kernel<float, float>, mpcgi_grid_for(n, MAX_GRID), THREADS,
                             stream, n, r, p, st);
}

int mpcgi_cg_update_p_f32x64(void *stream, int64_t n, const float *r, float *p,
                             const mpcgi_cg_state *st)
{
    return (int)mpcgi_launch(update_p_kernel<float, double>, mpcgi_grid_for(n, MAX_GRID),
                             THREADS, stream, n, r, p, st);
}

} /* extern "C" */
