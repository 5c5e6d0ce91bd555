/* solver/cg_loop2.cu: the two-barrier persistent CG loop (CG, and PCG with a diagonal or
 * block inverses folded in), templated on a backend's row functor; one cooperative launch runs a
 * window of iterations */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "solver/cg_loop_common.cuh"
#include "solver/pcg_tile.cuh"

/* ---------------------------------------------------------------- the two-barrier loop */

/*
 *   phase 1: this block's rows (the functor's rows()): d_i = r_i + beta p_i written to the other
 *            p buffer, q_i = sum_j a_ij d_j with the d_j formed on the fly, the terms d_i q_i;
 *            one partial per block                                         A + 32 B per row
 *   barrier; every block adds the partials in the same order: p.q, the curvature test, alpha
 *   phase 2: x += alpha d, r -= alpha q, the terms r_i r_i; one partial per block    48 B
 *   barrier; every block adds the partials: r.r, then solver/cg.c's stop tests and beta
 * A + 80 bytes per row and two grid-wide barriers per iteration in fp64; with 4-byte vectors
 * (fp32) phase 1 moves 16 B and phase 2 24 B, A32 + 40, and a mixed solve's fp64 x adds 8: A32
 * + 48 (A32: the matrix bytes with fp32 values).
 */

#define LOOP_THREADS 512
/* At most 64 registers: two blocks of LOOP_THREADS fit an SM. */
#define LOOP_MIN_BLOCKS 2

/* The direction d_j = r_j + beta p_j formed on the fly through L2 (one fused multiply-add, as
 * core/cg_kernels.cu's p update, beta rounded to T); keep stores a row's d_i in p_out. */
template <typename T> struct loop2_src {
    const T *__restrict__ r, *__restrict__ p;
    T *__restrict__ p_out;
    T beta;
    __device__ __forceinline__ T operator()(int j) const
    {
        return fma(beta, __ldcg(p + j), __ldcg(r + j));
    }
    __device__ __forceinline__ void keep(int i, T d) const { p_out[i] = d; }
};

/* Phase 2 with block-Jacobi (PK = MPCGI_PC_FUSED_BLOCKS): the loop's block as two halves of
 * MPCGI_PC_TILE_ROWS threads, each a tile of whole diagonal blocks at a time (tile pairs strided
 * by the grid); x += alpha d and r -= alpha q for the tile's rows, their r to shared memory,
 * then z_i = binv_b(i, :) r_b, the terms r_i r_i and r_i z_i. */
template <typename T, typename X>
static __device__ __forceinline__ void loop2_blocks(const mpcgi_pc_fused &M, X *x, const T *d, T *r,
                                                    const T *q, T *z, T ta, X xa, double &rr,
                                                    double &rz)
{
    constexpr int H = MPCGI_PC_TILE_ROWS;
    static_assert(LOOP_THREADS == 2 * H, "two tiles a block");
    __shared__ T rs[LOOP_THREADS];
    __shared__ int blk[LOOP_THREADS];
    const int half = threadIdx.x / H, l = threadIdx.x % H;
    T *rh = rs + half * H;
    int *bh = blk + half * H;
    for (int64_t tp = blockIdx.x; tp < (M.ntiles + 1) / 2; tp += gridDim.x) {
        const int64_t t = 2 * tp + half;
        mpcgi_pc_tile g = {0, 0, 0, 0}; /* none for the second half of an odd count */
        if (t < M.ntiles) g = mpcgi_pc_tile_of(M, t);
        mpcgi_pc_tile_map(M, g, l, H, bh);
        const int64_t i = g.r0 + l;
        T ri = T(0);
        if (l < g.rows) {
            x[i] += xa * (X)__ldcg(d + i);           /* x += alpha d */
            ri = __ldcg(r + i) - ta * __ldcg(q + i); /* r -= alpha q */
            r[i] = ri;
            rh[l] = ri;
        }
        __syncthreads();
        if (l < g.rows) {
            const T zi = mpcgi_pc_tile_z(M, g, bh, rh, l); /* z = M^-1 r */
            z[i] = zi;
            rz += (double)ri * (double)zi;
            rr += (double)ri * (double)ri;
        }
        __syncthreads(); /* rs and blk are free for the next pair */
    }
}

/*
 * PK: the preconditioner's fused form (precond/precond.h): NONE (CG: the direction from r), DIAG
 * (Jacobi: the iteration keeps z = D^-1 r in r's place, as solver/pcg_kernels.cu's update: z -=
 * alpha dinv q, r_i = z_i / dinv_i for the sums; 8 B a row more than CG in fp64) or BLOCKS
 * (block-Jacobi: r and z both kept, phase 2 by tiles, loop2_blocks). With a preconditioner the
 * state's rr holds r.z and phase 2 sums r.r and r.z (core/cg_kernels.h, "PCG"); the direction
 * is d = z + beta p, z passed as the functor's r.
 */
template <typename F, typename X, int PK>
static __global__ void __launch_bounds__(LOOP_THREADS, LOOP_MIN_BLOCKS)
    cg_loop2_kernel(const __grid_constant__ F f, const int64_t n,
                    const __grid_constant__ mpcgi_cg_loop c,
                    const __grid_constant__ mpcgi_pc_fused M, void *zv)
{
    using T = typename F::value_type;
    __shared__ double sh[LOOP_THREADS / 32];
    __shared__ double bcast;
    __shared__ mpcgi_cg_state s; /* this block's copy of the state */
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) s = *c.st;
    __syncthreads();
    if (s.stop) return; /* the same decision in every block */
    double *part_pq = c.partial, *part_rr = c.partial + gridDim.x,
           *part_rz = c.partial + 2 * gridDim.x;
    X *x = mpcgi_cg_state_x<X>(&s);
    T *const r = static_cast<T *>(c.r), *const q = static_cast<T *>(c.q);
    T *const z = PK == MPCGI_PC_FUSED_NONE ? r : static_cast<T *>(zv);
    const T *const dinv = static_cast<const T *>(M.dinv);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t it = 0; it < c.iters; it++) {
        T *pout = static_cast<T *>(c.p[s.par ^ 1]);
        const loop2_src<T> d{z, static_cast<const T *>(c.p[s.par]), pout, (T)s.beta};
        double dacc = 0;
        f.rows(d, q, dacc); /* q = A d, d.q */
        dacc = lsum_block(dacc, sh);
        if (threadIdx.x == 0) part_pq[blockIdx.x] = dacc;
        grid.sync();
        const double pq = partials_sum(part_pq, gridDim.x, sh, &bcast); /* pq = d.q */
        if (threadIdx.x == 0) s.pq = pq, s.stop = mpcgi_cg_curvature_stop(pq);
        __syncthreads();
        if (s.stop) break; /* x untouched, as in solver/cg.c */
        const double alpha = s.rr / pq;
        const T ta = (T)alpha; /* alpha itself in fp64 */
        const X xa = (X)alpha; /* unrounded for the fp64 iterate of a mixed solve */
        double acc = 0, acz = 0;
        if (PK == MPCGI_PC_FUSED_BLOCKS) {
            loop2_blocks(M, x, pout, r, q, z, ta, xa, acc, acz);
        } else {
            for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
                x[i] += xa * (X)__ldcg(pout + i); /* x += alpha d */
                if (PK == MPCGI_PC_FUSED_DIAG) {  /* z -= alpha dinv q */
                    const T di = dinv[i], zi = __ldcg(z + i) - ta * (di * __ldcg(q + i));
                    const T ri = zi / di;
                    z[i] = zi;
                    acc += (double)ri * (double)ri;
                    acz += (double)ri * (double)zi;
                } else {
                    const T ri = __ldcg(r + i) - ta * __ldcg(q + i); /* r -= alpha q */
                    r[i] = ri;
                    acc += (double)ri * (double)ri;
                }
            }
        }
        acc = lsum_block(acc, sh);
        if (PK != MPCGI_PC_FUSED_NONE) acz = lsum_block(acz, sh);
        if (threadIdx.x == 0) {
            part_rr[blockIdx.x] = acc;
            if (PK != MPCGI_PC_FUSED_NONE) part_rz[blockIdx.x] = acz;
        }
        grid.sync();
        const double rr_new = partials_sum(part_rr, gridDim.x, sh, &bcast); /* r.r */
        double rz_new = 0;
        if (PK != MPCGI_PC_FUSED_NONE) rz_new = partials_sum(part_rz, gridDim.x, sh, &bcast);
        if (threadIdx.x == 0) {
            if (PK == MPCGI_PC_FUSED_NONE)
                mpcgi_cg_finish_update(&s, rr_new);
            else
                mpcgi_pcg_finish_update(&s, rz_new, rr_new);
            s.par ^= 1;
        }
        __syncthreads();
        if (s.stop) break;
    }
    /* every block has read the state before the first barrier; no block reads it again */
    if (blockIdx.x == 0 && threadIdx.x == 0) *c.st = s;
}

/* The loop's kernel for the preconditioner's fused form pk: v(kernel). */
template <typename F, typename X, typename V> static int with_loop2(int pk, V &&v)
{
    switch (pk) {
    case MPCGI_PC_FUSED_NONE: return v(cg_loop2_kernel<F, X, MPCGI_PC_FUSED_NONE>);
    case MPCGI_PC_FUSED_DIAG: return v(cg_loop2_kernel<F, X, MPCGI_PC_FUSED_DIAG>);
    case MPCGI_PC_FUSED_BLOCKS: return v(cg_loop2_kernel<F, X, MPCGI_PC_FUSED_BLOCKS>);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* ---------------------------------------------------------------- launchers */

extern "C" {

int mpcgi_cg_loop2_grid(const mpcgi_rows *R, int prec, int pk, int device, int blocks_per_sm,
                        int most)
{
    if (!rows_usable(R, prec)) return -MPCGI_LOOP_NO_FUNCTOR;
    if (pk == MPCGI_PC_FUSED_APPLY) return -MPCGI_LOOP_NO_PC;
    if (R->kind == MPCGI_ROWS_ADAPTIVE &&
        ((const mpcgi_adaptive_launch *)R->layout)->path != MPCGI_ADAPTIVE_UNIFORM)
        return -MPCGI_LOOP_NOT_UNIFORM;
    const int sms = coop_sms(device);
    int fit = 0;
    if (sms < 1) return -MPCGI_LOOP_NO_COOP;
    const cudaError_t e = (cudaError_t)with_prec(prec, [&](auto t, auto xt) {
        return with_rows_functor<decltype(t)>(R, [&](auto f) {
            return with_loop2<decltype(f), decltype(xt)>(pk, [&](auto kernel) {
                return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel,
                                                                          LOOP_THREADS, 0);
            });
        });
    });
    if (e != cudaSuccess || fit < 1) {
        (void)cudaGetLastError();
        return -MPCGI_LOOP_NO_COOP;
    }
    const int per_sm = blocks_per_sm < fit ? blocks_per_sm : fit;
    const int64_t grid = (int64_t)per_sm * sms;
    return (int)(grid < most ? grid : most);
}

int mpcgi_cg_loop2(void *stream, const mpcgi_rows *R, int prec, int grid, const mpcgi_cg_loop *c,
                   const mpcgi_pc_fused *M, void *z)
{
    const int64_t n = R->n;
    mpcgi_pc_fused none;
    memset(&none, 0, sizeof none);
    return with_prec(prec, [&](auto t, auto xt) {
        return with_rows_functor<decltype(t)>(R, [&](auto f) {
            return with_loop2<decltype(f), decltype(xt)>(M ? M->kind : 0, [&](auto kernel) {
                mpcgi_cg_loop cc = *c;
                mpcgi_pc_fused mm = M ? *M : none;
                int64_t nn = n;
                void *zz = z;
                void *args[] = {&f, &nn, &cc, &mm, &zz};
                return (int)cudaLaunchCooperativeKernel((const void *)kernel, grid, LOOP_THREADS,
                                                        args, 0, (cudaStream_t)stream);
            });
        });
    });
}
} /* extern "C" */
