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

/* The sum x.y over the grid, nothing once stopped: st->pq = p.q (RZ false: 16 B per fp64 row, 8
 * per fp32 row), or the generic PCG's r.z after z = M^-1 r (RZ: mpcgi_pcg_finish_rz; stopped by
 * the r update before it, or earlier). Products and sums in double. */
template <typename T, bool RZ>
static __global__ void __launch_bounds__(THREADS, 8)
    dot_kernel(int64_t n, const T *__restrict__ x, const T *__restrict__ y, mpcgi_cg_state *st,
               double *partial)
{
    mpcgi_pdl_start();
    if (st->stop) return;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double acc = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        acc += (double)x[i] * (double)y[i];
    double sum;
    if (mpcgi_grid_sum(acc, partial, &st->arrived, &sum) && threadIdx.x == 0) {
        if (RZ)
            mpcgi_pcg_finish_rz(st, sum);
        else
            st->pq = sum;
    }
}

/* Rows of update_xr_kernel's grid-stride loop whose r a thread loads before its PDL wait. */
#define EARLY_ROWS 2

/* With X: x += alpha p, r -= alpha q, rr_new = r.r (48 B per row); without: r and rr_new only
 * (24 B), alpha and xpend = 1 left in the state for update_p to add alpha p to x (update_begin
 * clears xpend). At most 32 registers, so that 8 blocks fit an SM and the MPCGI_CG_BLOCKS blocks
 * run in one wave on an H100 (132 SMs). Each thread loads r of its first EARLY_ROWS rows before
 * the wait (core/launch.cuh, "early loads": r is written by this kernel only, q by the product
 * right ahead of it, which is why q waits). */
template <typename T, bool X, bool PC = false>
static __global__ void __launch_bounds__(THREADS, 8)
    update_xr_kernel(int64_t n, const T *__restrict__ p, const T *__restrict__ q, T *__restrict__ r,
                     mpcgi_cg_state *st, double *partial)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS,
                  i0 = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    T early[EARLY_ROWS];
#pragma unroll
    for (int j = 0; j < EARLY_ROWS; j++)
        if (i0 + j * stride < n) early[j] = r[i0 + j * stride];
    mpcgi_pdl_start();
    double alpha;
    if (!mpcgi_update_begin(st, &alpha)) return;
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
    if (mpcgi_grid_sum(acc, partial, &st->arrived, &rr_new) && threadIdx.x == 0) {
        if (!X) st->alpha = alpha, st->xpend = 1;
        if (PC)
            mpcgi_pcg_finish_r(st, rr_new); /* beta waits for r.z */
        else
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

/* The generic PCG's start or resume after z = M^-1 r: r.z and r.r (mpcgi_pcg_finish_restart),
 * and p = z unless the direction is kept (then mpcgi_cg_update_p forms z + beta p after it).
 * Reads r and z, writes p: 3 values per row. */
template <typename T>
static __global__ void __launch_bounds__(THREADS, 8)
    restart_dot_kernel(int64_t n, const T *__restrict__ r, const T *__restrict__ z,
                       T *__restrict__ p, mpcgi_cg_state *st, double *partial)
{
    mpcgi_pdl_start();
    const bool keep = st->keep;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double rz = 0.0, rr = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const T ri = r[i], zi = z[i];
        if (!keep) p[i] = zi;
        rz += (double)ri * (double)zi;
        rr += (double)ri * (double)ri;
    }
    const double acc[2] = {rz, rr};
    double t[2];
    if (mpcgi_grid_sums<2>(acc, partial, &st->arrived, t) && threadIdx.x == 0)
        mpcgi_pcg_finish_restart(st, t[0], t[1]);
}

/* The launchers of one value type T (the suffix: f64 or f32). */
template <typename T>
static int pcg_update_r(void *stream, int64_t n, const void *q, void *r, mpcgi_cg_state *st,
                        double *partial)
{
    return (int)mpcgi_launch(update_xr_kernel<T, false, true>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS),
                             THREADS, stream, n, (const T *)nullptr, (const T *)q, (T *)r, st,
                             partial);
}

extern "C" {

int mpcgi_cg_dot_pq(void *stream, int64_t n, const double *p, const double *q, mpcgi_cg_state *st,
                    double *partial)
{
    return (int)mpcgi_launch(dot_kernel<double, false>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS), THREADS,
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

int mpcgi_cg_update_p(void *stream, int64_t n, const double *r, double *p, const mpcgi_cg_state *st)
{
    return (int)mpcgi_launch(update_p_kernel<double, double>, mpcgi_grid_for(n, MAX_GRID), THREADS,
                             stream, n, r, p, st);
}

int mpcgi_cg_dot_pq_f32(void *stream, int64_t n, const float *p, const float *q, mpcgi_cg_state *st,
                        double *partial)
{
    return (int)mpcgi_launch(dot_kernel<float, false>, mpcgi_grid_for(n, MPCGI_CG_BLOCKS), THREADS,
                             stream, n, p, q, st, partial);
}

int mpcgi_cg_update_r_f32(void *stream, int64_t n, const float *q, float *r, mpcgi_cg_state *st,
                          double *partial)
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
    return (int)mpcgi_launch(update_p_kernel<float, double>, mpcgi_grid_for(n, MAX_GRID), THREADS,
                             stream, n, r, p, st);
}

int mpcgi_pcg_update_r(void *stream, int f32, int64_t n, const void *q, void *r, mpcgi_cg_state *st,
                       double *partial)
{
    return f32 ? pcg_update_r<float>(stream, n, q, r, st, partial)
               : pcg_update_r<double>(stream, n, q, r, st, partial);
}

int mpcgi_pcg_dot_rz(void *stream, int f32, int64_t n, const void *r, const void *z,
                     mpcgi_cg_state *st, double *partial)
{
    const unsigned grid = mpcgi_grid_for(n, MPCGI_CG_BLOCKS);
    if (f32)
        return (int)mpcgi_launch(dot_kernel<float, true>, grid, THREADS, stream, n,
                                 (const float *)r, (const float *)z, st, partial);
    return (int)mpcgi_launch(dot_kernel<double, true>, grid, THREADS, stream, n, (const double *)r,
                             (const double *)z, st, partial);
}

int mpcgi_pcg_restart_dot(void *stream, int f32, int64_t n, const void *r, const void *z, void *p,
                          mpcgi_cg_state *st, double *partial)
{
    const unsigned grid = mpcgi_grid_for(n, MPCGI_CG_BLOCKS);
    if (f32)
        return (int)mpcgi_launch(restart_dot_kernel<float>, grid, THREADS, stream, n,
                                 (const float *)r, (const float *)z, (float *)p, st, partial);
    return (int)mpcgi_launch(restart_dot_kernel<double>, grid, THREADS, stream, n,
                             (const double *)r, (const double *)z, (double *)p, st, partial);
}

} /* extern "C" */
