/* core/cg_device.cuh: the fused CG's scalar steps on the device, shared by every kernel that
 * advances the state (core/cg_kernels.cu, solver/cg_persistent.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CG_DEVICE_CUH
#define MPCG_CORE_CG_DEVICE_CUH

#include "core/cg_kernels.h"
#include "core/cuda_reduce.cuh"

/* The iterate of the state in type X: double (fp64 and mixed solves) or float (fp32: x32). */
template <typename X>
static __device__ __forceinline__ X *mpcgi_cg_state_x(const mpcgi_cg_state *st);
template <> __device__ __forceinline__ double *mpcgi_cg_state_x<double>(const mpcgi_cg_state *st)
{
    return st->x;
}
template <> __device__ __forceinline__ float *mpcgi_cg_state_x<float>(const mpcgi_cg_state *st)
{
    return st->x32;
}

/* The stop code for p.q (solver/cg.c's curvature_reason), or 0. */
static __device__ __forceinline__ int mpcgi_cg_curvature_stop(double pq)
{
    if (!isfinite(pq)) return MPCGI_CG_STOP_NAN;
    if (pq < 0.0) return MPCGI_CG_STOP_INDEFINITE;
    if (pq == 0.0) return MPCGI_CG_STOP_BREAKDOWN;
    return MPCGI_CG_RUNNING;
}

/* The end of an update, in one thread after r.r is known: solver/cg.c's order of tests. The
 * threshold is max(max(tol, eps) ||b||, atol) (mpcgi_cg_threshold), so a tol below what fp64
 * reaches stops here at eps ||b|| and the host's true-residual check ends it as stagnant, as in
 * solver/cg.c; an absolute tolerance reaches the device through the same number. */
static __device__ __forceinline__ void mpcgi_cg_finish_update(mpcgi_cg_state *st, double rr_new)
{
    const int64_t k = st->k + 1;
    st->k = k;
    st->rr_new = rr_new;
    if (!isfinite(rr_new)) {
        st->stop = MPCGI_CG_STOP_NAN; /* rr keeps its last finite value, as in solver/cg.c */
        return;
    }
    st->beta = rr_new / st->rr;
    st->rr = rr_new;
    if (sqrt(rr_new) <= st->threshold)
        st->stop = MPCGI_CG_STOP_CONVERGED;
    else if (k >= st->kmax)
        st->stop = MPCGI_CG_STOP_MAX_ITER;
}

/* The end of a PCG residual update whose preconditioner is applied by a later kernel (the
 * generic fused PCG: r -= alpha q and r.r here, z = M^-1 r and r.z after): the iteration
 * count, rr_new = r.r and the tests on it (NaN, the threshold, the limit); alpha and beta wait
 * for r.z (mpcgi_pcg_finish_rz). */
static __device__ __forceinline__ void mpcgi_pcg_finish_r(mpcgi_cg_state *st, double rr_new)
{
    const int64_t k = st->k + 1;
    st->k = k;
    st->rr_new = rr_new;
    if (!isfinite(rr_new))
        st->stop = MPCGI_CG_STOP_NAN;
    else if (sqrt(rr_new) <= st->threshold)
        st->stop = MPCGI_CG_STOP_CONVERGED;
    else if (k >= st->kmax)
        st->stop = MPCGI_CG_STOP_MAX_ITER;
}

/* ... and its r.z: the tests of the preconditioner (NaN, r.z <= 0), beta = r.z_new / r.z, and
 * rr = r.z_new for the next alpha. */
static __device__ __forceinline__ void mpcgi_pcg_finish_rz(mpcgi_cg_state *st, double rz_new)
{
    if (!isfinite(rz_new)) {
        st->stop = MPCGI_CG_STOP_NAN;
        return;
    }
    if (rz_new <= 0.0) {
        st->stop = MPCGI_CG_STOP_INDEFINITE_PC;
        return;
    }
    st->beta = rz_new / st->rr;
    st->rr = rz_new;
}

/* The end of a fused PCG update (solver/pcg_kernels.cu, the two-barrier loop): rr_new = r.r
 * stops, rz_new = r.z steers. The tests in the host loop's order (solver/cg.c): NaN, the
 * threshold, then the preconditioner's r.z <= 0 and the limit. At the threshold rr keeps the
 * r.z of the last direction, as mpcgi_pcg_finish_r leaves it: a resume that keeps the direction
 * takes beta = r.z of the true residual / that r.z (mpcgi_pcg_finish_restart). */
static __device__ __forceinline__ void mpcgi_pcg_finish_update(mpcgi_cg_state *st, double rz_new,
                                                               double rr_new)
{
    const int64_t k = st->k + 1;
    st->k = k;
    st->rr_new = rr_new;
    if (!isfinite(rr_new) || !isfinite(rz_new)) {
        st->stop = MPCGI_CG_STOP_NAN;
        return;
    }
    if (sqrt(rr_new) <= st->threshold) {
        st->stop = MPCGI_CG_STOP_CONVERGED;
        return;
    }
    mpcgi_pcg_finish_rz(st, rz_new); /* r.z <= 0, else beta and rr */
    if (!st->stop && k >= st->kmax) st->stop = MPCGI_CG_STOP_MAX_ITER;
}

/* A PCG start or resume after z = M^-1 r (core/cg_kernels.h, "PCG"): rr = r.z, rr_new = r.r,
 * no x pending, and beta = r.z / r.z_old where the host asked to keep the direction (st->keep:
 * rr still holds the r.z of the last iteration), else 0 (p = z). */
static __device__ __forceinline__ void mpcgi_pcg_finish_restart(mpcgi_cg_state *st, double rz,
                                                                double rr)
{
    st->xpend = 0;
    st->rr_new = rr;
    st->beta = st->keep ? rz / st->rr : 0.0;
    st->rr = rz;
    if (!isfinite(rz) || !isfinite(rr))
        st->stop = MPCGI_CG_STOP_NAN;
    else if (rz <= 0.0)
        st->stop = MPCGI_CG_STOP_INDEFINITE_PC;
}

/*
 * The grid-wide sums of every thread's N values acc[], in a fixed order: each block stores its
 * sums (mpcgi_block_sum_shfl) in partial[j * gridDim.x + blockIdx.x]; the block that arrives
 * last (an integer counter, after a fence) adds the partials, each thread its entries in order,
 * then the same block sum, and resets the counter. Returns true in that block only, with the
 * totals in total[] in thread 0. Which block is last varies; the order of the sums does not.
 * partial: N * gridDim.x doubles.
 */
template <int N>
static __device__ bool mpcgi_grid_sums(const double (&acc)[N], double *partial, unsigned *arrived,
                                       double (&total)[N])
{
    __shared__ double ws[N][MPCGI_THREADS / 32];
    __shared__ bool last;
    double b[N];
    for (int j = 0; j < N; j++)
        b[j] = mpcgi_block_sum_shfl<MPCGI_THREADS>(acc[j], ws[j]);
    if (threadIdx.x == 0) {
        for (int j = 0; j < N; j++)
            partial[j * gridDim.x + blockIdx.x] = b[j];
        __threadfence(); /* the partials are visible before the count says so */
        last = atomicAdd(arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return false;
    __threadfence(); /* the other blocks' partials are read after their counts */
    for (int j = 0; j < N; j++) {
        double a = 0.0;
        for (unsigned k = threadIdx.x; k < gridDim.x; k += MPCGI_THREADS)
            a += __ldcg(&partial[j * gridDim.x + k]);
        total[j] =
            mpcgi_block_sum_shfl<MPCGI_THREADS>(a, ws[j]); /* ws[j] read before the barrier */
    }
    if (threadIdx.x == 0) *arrived = 0; /* ready for the next reduction (kernels run in order) */
    return true;
}

/* One sum: mpcgi_grid_sums<1>. */
static __device__ __forceinline__ bool mpcgi_grid_sum(double acc, double *partial,
                                                      unsigned *arrived, double *total)
{
    const double a[1] = {acc};
    double t[1];
    const bool last = mpcgi_grid_sums<1>(a, partial, arrived, t);
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
static __device__ __forceinline__ bool mpcgi_update_begin(mpcgi_cg_state *st, double *alpha)
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

#endif /* MPCG_CORE_CG_DEVICE_CUH */
