/* solver/batch_cg.cu: batched CG on the GPU: one launch, a thread block a system, the steps of
 * solver/batch_cg.c (the host's) with the block's own reductions and convergence test */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>
#include <math.h>

#include "solver/batch_cg.h"

#define THREADS 128
#define WARPS (THREADS / 32)
#define VECTORS MPCGI_BATCH_VECTORS
#define SMEM_BYTES (96 * 1024) /* shared memory a block may take for its system */

/*
 * Block i takes system i: its vectors (VECTORS x n_i doubles) in shared memory when the largest
 * system's fit in SMEM_BYTES, else in the workspace at rows off[i] .. of each vector; and, when
 * the largest system's entries fit beside its vectors as well, A_i itself (values, local
 * columns, row pointers rebased to 0), copied in once and read by every product. A thread
 * takes rows t, t + 128, ... in the products and the vector updates; a dot is the threads'
 * partials added by warp shuffles, then the 4 warps' sums in order, so every thread of the
 * block holds the same value and takes the same branch.
 */
struct batch_sys {
    int64_t n;
    const int64_t *ptr;
    const int32_t *col;
    const double *val;
    double *x, *r, *z, *p, *q, *dinv;
};

static __device__ double block_sum(double v, double *red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    double s = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++)
        s += red[w];
    __syncthreads(); /* red is written again by the next sum */
    return s;
}

static __device__ double dot(const batch_sys &A, const double *a, const double *b, double *red)
{
    double s = 0;
    for (int64_t i = threadIdx.x; i < A.n; i += THREADS)
        s += a[i] * b[i];
    return block_sum(s, red);
}

/* y = A x (rows of this thread), then a barrier. */
static __device__ void spmv(const batch_sys &A, const double *x, double *y)
{
    for (int64_t r = threadIdx.x; r < A.n; r += THREADS) {
        double s = 0;
        for (int64_t e = A.ptr[r]; e < A.ptr[r + 1]; e++)
            s += A.val[e] * x[A.col[e]]; /* A may be in shared memory: no __ldg */
        y[r] = s;
    }
    __syncthreads();
}

/* r = b - A x; ||r||. */
static __device__ double residual(const batch_sys &A, const double *b, double *r, double *red)
{
    spmv(A, A.x, r);
    for (int64_t i = threadIdx.x; i < A.n; i += THREADS)
        r[i] = b[i] - r[i];
    __syncthreads();
    return sqrt(dot(A, r, r, red));
}

/* z = M^-1 r; r.z. */
static __device__ double apply_pc(const batch_sys &A, int jacobi, double *red)
{
    if (!jacobi) return dot(A, A.r, A.r, red);
    for (int64_t i = threadIdx.x; i < A.n; i += THREADS)
        A.z[i] = A.dinv[i] * A.r[i];
    __syncthreads();
    return dot(A, A.r, A.z, red);
}

/* p = z + beta p, or p = z when restarting (beta = 0: p is not read, as it may hold anything,
 * NaN included, left in shared memory or the workspace by an earlier block), then a barrier. */
static __device__ void direction(const batch_sys &A, double beta)
{
    for (int64_t i = threadIdx.x; i < A.n; i += THREADS)
        A.p[i] = beta == 0 ? A.z[i] : A.z[i] + beta * A.p[i];
    __syncthreads();
}

/* 1/diag(A) into dinv; whether every diagonal is > 0. The host's builder is
 * mpcgi_precond_diag_rows (precond/precond.c); this one stays on the device, the block's threads
 * over the system's rows, so that a batch's setup never leaves the launch. */
static __device__ bool jacobi_of(const batch_sys &A, double *red)
{
    double bad = 0;
    for (int64_t r = threadIdx.x; r < A.n; r += THREADS) {
        double d = 0;
        for (int64_t e = A.ptr[r]; e < A.ptr[r + 1]; e++)
            if (A.col[e] == r) d = A.val[e];
        bad += d > 0 ? 0.0 : 1.0;
        A.dinv[r] = 1.0 / d;
    }
    return block_sum(bad, red) == 0;
}

static __device__ void iterate(const batch_sys &A, const double *b, double bnorm,
                               const mpcgi_batch_settings &st, double *red, mpcg_batch_result &res)
{
    const int64_t maxit = st.maxit >= 0 ? st.maxit : (10 * A.n > 100 ? 10 * A.n : 100);
    int64_t k = 0;
    int repl = 0;
    double rn = residual(A, b, A.r, red), rz = apply_pc(A, st.jacobi, red);
    direction(A, 0.0);
    for (;;) {
        if (rn <= st.tol * bnorm) {
            const double tn = residual(A, b, A.r, red);
            if (tn <= st.tol * bnorm) {
                res.reason = MPCG_CONVERGED_RTOL;
                break;
            }
            if (++repl > st.replacements) {
                res.reason = MPCG_DIVERGED_STAGNATION;
                break;
            }
            rn = tn, rz = apply_pc(A, st.jacobi, red);
            direction(A, 0.0);
            continue;
        }
        if (k >= maxit) {
            res.reason = MPCG_DIVERGED_MAX_ITER;
            break;
        }
        spmv(A, A.p, A.q);
        const double pq = dot(A, A.p, A.q, red);
        if (!(pq > 0)) {
            res.reason = !isfinite(pq) ? MPCG_DIVERGED_NAN
                         : pq == 0     ? MPCG_DIVERGED_BREAKDOWN
                                       : MPCG_DIVERGED_INDEFINITE_MATRIX;
            break;
        }
        const double alpha = rz / pq;
        for (int64_t i = threadIdx.x; i < A.n; i += THREADS)
            A.x[i] += alpha * A.p[i], A.r[i] -= alpha * A.q[i];
        __syncthreads();
        k++;
        const double rzn = apply_pc(A, st.jacobi, red);
        rn = sqrt(dot(A, A.r, A.r, red));
        if (!isfinite(rn) || !isfinite(rzn)) {
            res.reason = MPCG_DIVERGED_NAN;
            break;
        }
        if (!(rzn > 0) && rn > 0) {
            res.reason = MPCG_DIVERGED_INDEFINITE_PC;
            break;
        }
        const double beta = rzn / rz;
        rz = rzn;
        direction(A, beta);
    }
    res.iterations = k;
    res.recurrence_relres = rn / bnorm;
}

/* Where the block's system lives: vectors, and A staged or read from global memory. */
struct batch_place {
    int vec_smem, a_smem;
    int64_t max_n, max_nnz; /* the shared-memory layout is cut for the largest system */
};

/* System i's view: vectors at V, A in shared memory (copied in here) or in global memory. */
static __device__ batch_sys system_of(const int64_t *off, const int64_t *ptr, const int32_t *col,
                                      const double *val, double *work, const batch_place &pl,
                                      double *smem)
{
    const int64_t i = blockIdx.x, o = off[i], n = off[i + 1] - o;
    double *V = pl.vec_smem ? smem : work + VECTORS * o;
    batch_sys A = {n, ptr + o, col, val, V, V + n, V + 2 * n, V + 3 * n, V + 4 * n, V + 5 * n};
    if (pl.a_smem) {
        double *sval = smem + VECTORS * pl.max_n;
        int64_t *sptr = (int64_t *)(sval + pl.max_nnz);
        int32_t *scol = (int32_t *)(sptr + pl.max_n + 1);
        const int64_t e0 = ptr[o], nnz = ptr[o + n] - e0;
        for (int64_t e = threadIdx.x; e < nnz; e += THREADS)
            sval[e] = val[e0 + e], scol[e] = col[e0 + e];
        for (int64_t r = threadIdx.x; r <= n; r += THREADS)
            sptr[r] = ptr[o + r] - e0;
        A.ptr = sptr, A.col = scol, A.val = sval;
    }
    return A;
}

static __global__ void __launch_bounds__(THREADS)
    batch_cg_kernel(const int64_t *off, const int64_t *ptr, const int32_t *col, const double *val,
                    const double *b, double *x, mpcgi_batch_settings st, mpcg_batch_result *results,
                    double *work, batch_place pl)
{
    extern __shared__ double smem[];
    __shared__ double red[WARPS];
    batch_sys A = system_of(off, ptr, col, val, work, pl, smem);
    const int64_t i = blockIdx.x, o = off[i], n = A.n;
    if (!st.jacobi) A.z = A.r;
    const double *bi = b + o;
    mpcg_batch_result res = {MPCG_REASON_NONE, 0, 0.0, 0.0};
    for (int64_t r = threadIdx.x; r < n; r += THREADS)
        A.x[r] = 0.0;
    __syncthreads();
    const double bnorm = sqrt(dot(A, bi, bi, red));
    if (bnorm == 0) {
        res.reason = MPCG_CONVERGED_ZERO_RHS;
    } else if (!isfinite(bnorm)) { /* ||b||^2 overflows: as mpcg_solve, NaN/Inf */
        res.reason = MPCG_DIVERGED_NAN;
        res.true_relres = res.recurrence_relres = NAN;
    } else if (st.jacobi && !jacobi_of(A, red)) {
        res.reason = MPCG_DIVERGED_INDEFINITE_PC;
        res.true_relres = res.recurrence_relres = 1.0;
    } else {
        iterate(A, bi, bnorm, st, red, res);
        res.true_relres = residual(A, bi, A.q, red) / bnorm;
    }
    for (int64_t r = threadIdx.x; r < n; r += THREADS)
        x[o + r] = A.x[r];
    if (threadIdx.x == 0) {
        *(int64_t *)&results[i] = 0; /* the reason's word with its padding: the copy reads it */
        results[i] = res;
    }
}

extern "C" {

int mpcgi_batch_cg_launch(void *stream, const mpcgi_batch_dev *A, const double *b, double *x,
                          mpcgi_batch_settings st, mpcg_batch_result *res_dev, void *work)
{
    if (A->k <= 0) return (int)cudaSuccess;
    batch_place pl = {0, 0, A->max_n, A->max_nnz};
    const size_t vec = (size_t)VECTORS * A->max_n * sizeof(double);
    const size_t mat = (size_t)A->max_nnz * (sizeof(double) + sizeof(int32_t)) +
                       (size_t)(A->max_n + 1) * sizeof(int64_t);
    pl.vec_smem = vec <= SMEM_BYTES;
    pl.a_smem = pl.vec_smem && vec + mat <= SMEM_BYTES;
    const size_t smem = pl.a_smem ? vec + mat : pl.vec_smem ? vec : 0;
    static int opted; /* past the default 48 KiB: once */
    if (smem > 48 * 1024 && !opted) {
        cudaError_t e = cudaFuncSetAttribute(
            batch_cg_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (e != cudaSuccess) return (int)e;
        opted = 1;
    }
    batch_cg_kernel<<<(unsigned)A->k, THREADS, smem, (cudaStream_t)stream>>>(
        A->off, A->ptr, A->col, A->val, b, x, st, res_dev, (double *)work, pl);
    return (int)cudaGetLastError();
}

} /* extern "C" */
