/* core/cg_device.cuh: the fused CG's scalar steps on the device, shared by every kernel that
 * advances the state (core/cg_kernels.cu, solver/cg_persistent.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CG_DEVICE_CUH
#define MPCG_CORE_CG_DEVICE_CUH

#include "core/cg_kernels.h"

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
    if (sqrt(rr_new) <= st->threshold) st->stop = MPCGI_CG_STOP_CONVERGED;
    else if (k >= st->kmax) st->stop = MPCGI_CG_STOP_MAX_ITER;
}

/* The end of a Jacobi PCG update (core/cg_kernels.h): rz_new = r.z steers, rr_new = r.r stops. */
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
    if (rz_new <= 0.0) {
        st->stop = MPCGI_CG_STOP_INDEFINITE_PC;
        return;
    }
    st->beta = rz_new / st->rr;
    st->rr = rz_new;
    if (sqrt(rr_new) <= st->threshold) st->stop = MPCGI_CG_STOP_CONVERGED;
    else if (k >= st->kmax) st->stop = MPCGI_CG_STOP_MAX_ITER;
}

#endif /* MPCG_CORE_CG_DEVICE_CUH */
