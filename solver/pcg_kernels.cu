/* solver/pcg_kernels.cu: the fused PCG residual updates and restarts of the preconditioners
 * with a fused form: Jacobi's diagonal, block-Jacobi's small dense blocks (by tiles) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>

#include "core/cg_device.cuh"
#include "core/launch.cuh"
#include "solver/pcg_kernels.h"
#include "solver/pcg_tile.cuh"

#define THREADS MPCGI_THREADS
static_assert(MPCGI_PC_TILE_ROWS == THREADS, "a thread a row of a block-Jacobi tile");

/* ---------------------------------------------------------------- the diagonal */

/* z = dinv r, p = z unless kept, r.z and r.r (the restart of solver/pcg_kernels.h) */
template <typename T>
static __global__ void __launch_bounds__(THREADS, 8)
    diag_restart_kernel(int64_t n, const T *__restrict__ r, const T *__restrict__ dinv,
                        T *__restrict__ z, T *__restrict__ p, mpcgi_cg_state *st, double *partial)
{
    mpcgi_pdl_start();
    const bool keep = st->keep;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double rz = 0.0, rr = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const T ri = r[i], zi = dinv[i] * ri;
        z[i] = zi;
        if (!keep) p[i] = zi;
        rz += (double)ri * (double)zi;
        rr += (double)ri * (double)ri;
    }
    const double acc[2] = {rz, rr};
    double t[2];
    if (mpcgi_grid_sums<2>(acc, partial, &st->arrived, t) && threadIdx.x == 0)
        mpcgi_pcg_finish_restart(st, t[0], t[1]);
}

/* z -= alpha dinv q with r.z and r.r from r_i = z_i / dinv_i; x pending (the update of
 * solver/pcg_kernels.h): 4 values a row */
template <typename T>
static __global__ void __launch_bounds__(THREADS, 8)
    diag_update_kernel(int64_t n, const T *__restrict__ q, const T *__restrict__ dinv,
                       T *__restrict__ z, mpcgi_cg_state *st, double *partial)
{
    mpcgi_pdl_start();
    double alpha;
    if (!mpcgi_update_begin(st, &alpha)) return;
    const T ta = (T)alpha;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    double rz = 0.0, rr = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const T di = dinv[i], zi = z[i] - ta * (di * q[i]), ri = zi / di;
        z[i] = zi;
        rz += (double)ri * (double)zi;
        rr += (double)ri * (double)ri;
    }
    const double acc[2] = {rz, rr};
    double t[2];
    if (mpcgi_grid_sums<2>(acc, partial, &st->arrived, t) && threadIdx.x == 0) {
        st->alpha = alpha, st->xpend = 1;
        mpcgi_pcg_finish_update(st, t[0], t[1]);
    }
}

/* ---------------------------------------------------------------- the blocks */

/*
 * One CUDA block a tile (M.tile_row, M.tile_block: whole consecutive diagonal blocks of at most
 * THREADS rows), the tiles strided by the grid, a thread a row. UPDATE: r -= alpha q first (the
 * update); else the restart, from r as it is, writing p = z unless kept. The tile's r goes to
 * shared memory, then z_i = sum_j binv_b(i, j) r_(start + j) over the row's block, in the host's
 * order (precond/bjacobi.c).
 */
template <typename T, bool UPDATE>
static __global__ void __launch_bounds__(THREADS)
    blocks_kernel(const __grid_constant__ mpcgi_pc_fused M, const T *__restrict__ q,
                  T *__restrict__ r, T *__restrict__ z, T *__restrict__ p, mpcgi_cg_state *st,
                  double *partial)
{
    __shared__ T rs[THREADS];
    __shared__ int blk[THREADS]; /* a tile row's block, from the tile's first */
    mpcgi_pdl_start();
    double alpha = 0.0;
    if (UPDATE && !mpcgi_update_begin(st, &alpha)) return;
    const bool keep = !UPDATE && st->keep;
    const T ta = (T)alpha;
    const int l = threadIdx.x;
    double rz = 0.0, rr = 0.0;
    for (int64_t t = blockIdx.x; t < M.ntiles; t += gridDim.x) {
        const mpcgi_pc_tile g = mpcgi_pc_tile_of(M, t);
        mpcgi_pc_tile_map(M, g, l, THREADS, blk);
        const int64_t i = g.r0 + l;
        T ri = T(0);
        if (l < g.rows) {
            ri = r[i];
            if (UPDATE) {
                ri = ri - ta * q[i];
                r[i] = ri;
            }
            rs[l] = ri;
        }
        __syncthreads();
        if (l < g.rows) {
            const T zi = mpcgi_pc_tile_z(M, g, blk, rs, l); /* z = M^-1 r */
            z[i] = zi;
            if (!UPDATE && !keep) p[i] = zi;
            rz += (double)ri * (double)zi;
            rr += (double)ri * (double)ri;
        }
        __syncthreads(); /* rs and blk are free for the next tile */
    }
    const double acc[2] = {rz, rr};
    double tot[2];
    if (mpcgi_grid_sums<2>(acc, partial, &st->arrived, tot) && threadIdx.x == 0) {
        if (UPDATE) {
            st->alpha = alpha, st->xpend = 1;
            mpcgi_pcg_finish_update(st, tot[0], tot[1]);
        } else {
            mpcgi_pcg_finish_restart(st, tot[0], tot[1]);
        }
    }
}

/* ---------------------------------------------------------------- launchers */

/* The blocks kernel's grid: a CUDA block a tile, at most MPCGI_CG_BLOCKS (the partials). */
static unsigned tiles_grid(const mpcgi_pc_fused *M)
{
    const int64_t g = M->ntiles < MPCGI_CG_BLOCKS ? M->ntiles : MPCGI_CG_BLOCKS;
    return g > 0 ? (unsigned)g : 1u;
}

template <typename T>
static int fused_update(void *stream, const mpcgi_pc_fused *M, const void *q, void *r, void *z,
                        mpcgi_cg_state *st, double *partial)
{
    if (M->kind == MPCGI_PC_FUSED_DIAG)
        return (int)mpcgi_launch(diag_update_kernel<T>, mpcgi_grid_for(M->n, MPCGI_CG_BLOCKS),
                                 THREADS, stream, M->n, (const T *)q, (const T *)M->dinv, (T *)z,
                                 st, partial);
    if (M->kind != MPCGI_PC_FUSED_BLOCKS) return (int)cudaErrorInvalidValue;
    return (int)mpcgi_launch(blocks_kernel<T, true>, tiles_grid(M), THREADS, stream, *M,
                             (const T *)q, (T *)r, (T *)z, (T *)nullptr, st, partial);
}

template <typename T>
static int fused_restart(void *stream, const mpcgi_pc_fused *M, const void *r, void *z, void *p,
                         mpcgi_cg_state *st, double *partial)
{
    if (M->kind == MPCGI_PC_FUSED_DIAG)
        return (int)mpcgi_launch(diag_restart_kernel<T>, mpcgi_grid_for(M->n, MPCGI_CG_BLOCKS),
                                 THREADS, stream, M->n, (const T *)r, (const T *)M->dinv, (T *)z,
                                 (T *)p, st, partial);
    if (M->kind != MPCGI_PC_FUSED_BLOCKS) return (int)cudaErrorInvalidValue;
    return (int)mpcgi_launch(blocks_kernel<T, false>, tiles_grid(M), THREADS, stream, *M,
                             (const T *)nullptr, (T *)r, (T *)z, (T *)p, st, partial);
}

extern "C" {

int mpcgi_pcg_fused_update(void *stream, int f32, const mpcgi_pc_fused *M, const void *q, void *r,
                           void *z, mpcgi_cg_state *st, double *partial)
{
    return f32 ? fused_update<float>(stream, M, q, r, z, st, partial)
               : fused_update<double>(stream, M, q, r, z, st, partial);
}

int mpcgi_pcg_fused_restart(void *stream, int f32, const mpcgi_pc_fused *M, const void *r, void *z,
                            void *p, mpcgi_cg_state *st, double *partial)
{
    return f32 ? fused_restart<float>(stream, M, r, z, p, st, partial)
               : fused_restart<double>(stream, M, r, z, p, st, partial);
}

} /* extern "C" */
