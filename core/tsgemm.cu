/* core/tsgemm.cu: the tall-skinny GEMM C = X^T Y of block CG, split over k = n (seed 004) with
 * a deterministic or an atomic cross-block sum (core/block_kernels.h) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "core/block_kernels.h"
#include "core/ts_device.cuh"

#define THREADS MPCGI_TS_THREADS
#define STAGES 3 /* slabs in flight: one computed, two loading */
#define SLAB_BYTES                                                                                 \
    16000              /* bytes of X and Y rows per slab (3 stages + the ticket flag fit           \
                        * the 48 KiB a block gets without opting in) */
#define RED_BYTES 8192 /* the group tree's buffer: 128 groups' pieces of TILE doubles */

/* One product: the arrays, the sizes and the grid (core/block_kernels.h). */
struct ts_args {
    int64_t n, rows; /* rows of the blocks, rows of a thread block */
    int s, t, slab;  /* slab: rows per slab, a multiple of 4 */
    int blocks, groups, atomic;
    const void *X, *Y;
    double *C, *part, *gpart;
    int *ticket; /* groups + 1 counters, zeroed by the launcher */
};

/* Queue slab j of this thread block's rows [r0, r1) into its stage. */
template <typename T, bool VEC>
static __device__ __forceinline__ void stage_slab(const ts_args &a, T *stages, int64_t r0,
                                                  int64_t r1, int j)
{
    const int64_t first = r0 + (int64_t)j * a.slab;
    const int nr = (int)(r1 - first < a.slab ? r1 - first : a.slab);
    T *dst = stages + (size_t)(j % STAGES) * a.slab * (a.s + a.t);
    ts_stage_copy<T, VEC>(dst, (const T *)a.X + first * a.s, nr * a.s);
    ts_stage_copy<T, VEC>(dst + a.slab * a.s, (const T *)a.Y + first * a.t, nr * a.t);
}

/* Where a thread works: the tile (rows a0.., columns b0.. of C) and the row group g (< rg; the
 * threads past tiles * rg only help to load). */
struct ts_place {
    int tiles, rg, ti, g, a0, b0;
};

template <int TILE> static __device__ __forceinline__ ts_place place_of(int s, int t)
{
    ts_place p;
    const int gb = (t + TILE - 1) / TILE;
    p.tiles = ((s + TILE - 1) / TILE) * gb;
    p.rg = THREADS / p.tiles;
    p.ti = threadIdx.x % p.tiles;
    p.g = threadIdx.x / p.tiles;
    p.a0 = p.ti / gb * TILE;
    p.b0 = p.ti % gb * TILE;
    return p;
}

/* acc += x^T y over the slab's rows g, g + rg, ... < nr (in order), in double. */
template <typename T, int TILE>
static __device__ __forceinline__ void slab_product(const ts_place &p, const T *Xs, const T *Ys,
                                                    int s, int t, int nr, double (&acc)[TILE][TILE])
{
    if (p.g >= p.rg) return;
    for (int r = p.g; r < nr; r += p.rg) {
        double x[TILE], y[TILE];
#pragma unroll
        for (int i = 0; i < TILE; i++)
            x[i] = p.a0 + i < s ? (double)Xs[r * s + p.a0 + i] : 0.0;
#pragma unroll
        for (int i = 0; i < TILE; i++)
            y[i] = p.b0 + i < t ? (double)Ys[r * t + p.b0 + i] : 0.0;
#pragma unroll
        for (int i = 0; i < TILE; i++)
#pragma unroll
            for (int k = 0; k < TILE; k++)
                acc[i][k] = fma(x[i], y[k], acc[i][k]);
    }
}

/* Row group 0 ends with the sum over the groups, a fixed tree: at each step the upper half of
 * the m groups hands its pieces to the lower half through red (one tile row at a time). Every
 * thread of the block calls it. */
template <int TILE>
static __device__ __forceinline__ void group_tree(const ts_place &p, double *red,
                                                  double (&acc)[TILE][TILE])
{
#pragma unroll
    for (int i = 0; i < TILE; i++) {
        for (int m = p.rg; m > 1;) {
            const int h = (m + 1) / 2;
            if (p.g >= h && p.g < m)
#pragma unroll
                for (int k = 0; k < TILE; k++)
                    red[((p.g - h) * p.tiles + p.ti) * TILE + k] = acc[i][k];
            __syncthreads();
            if (p.g < m - h)
#pragma unroll
                for (int k = 0; k < TILE; k++)
                    acc[i][k] += red[(p.g * p.tiles + p.ti) * TILE + k];
            __syncthreads();
            m = h;
        }
    }
}

template <typename T, int TILE, bool VEC>
static __global__ void __launch_bounds__(THREADS, MPCGI_TS_PER_SM(TILE)) tsgemm_kernel(ts_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    T *stages = (T *)smem;
    const int s = a.s, t = a.t;
    const int64_t r0 = (int64_t)blockIdx.x * a.rows;
    const int64_t r1 = r0 + a.rows < a.n ? r0 + a.rows : a.n;
    const int nslab = (int)((r1 - r0 + a.slab - 1) / a.slab);
    const ts_place p = place_of<TILE>(s, t);
    double acc[TILE][TILE];
    ts_zero_tile(acc);
    for (int j = 0; j < STAGES - 1; j++) {
        if (j < nslab) stage_slab<T, VEC>(a, stages, r0, r1, j);
        __pipeline_commit();
    }
    for (int j = 0; j < nslab; j++) {
        if (j + STAGES - 1 < nslab) stage_slab<T, VEC>(a, stages, r0, r1, j + STAGES - 1);
        __pipeline_commit();
        __pipeline_wait_prior(STAGES - 1); /* slab j has landed */
        __syncthreads();
        const T *Xs = stages + (size_t)(j % STAGES) * a.slab * (s + t);
        const int64_t left = r1 - r0 - (int64_t)j * a.slab;
        slab_product<T, TILE>(p, Xs, Xs + a.slab * s, s, t, (int)(left < a.slab ? left : a.slab),
                              acc);
        __syncthreads(); /* the stage is refilled next */
    }
    group_tree<TILE>(p, (double *)smem, acc);
    if (p.g == 0) {
        double *out = a.atomic ? a.C : a.part + (size_t)blockIdx.x * s * t;
#pragma unroll
        for (int i = 0; i < TILE; i++)
#pragma unroll
            for (int k = 0; k < TILE; k++) {
                if (p.a0 + i >= s || p.b0 + k >= t) continue;
                const int o = (p.a0 + i) * t + p.b0 + k;
                if (a.atomic)
                    atomicAdd(out + o, acc[i][k]);
                else
                    out[o] = acc[i][k];
            }
    }
    if (!a.atomic) ts_deterministic_sum(a.part, a.gpart, a.ticket, a.blocks, s * t, a.C);
}

/* Rows per slab: about SLAB_BYTES of X and Y, a multiple of 4 (16-byte aligned slabs). */
static int slab_rows(int s, int t, size_t elem)
{
    int r = (int)(SLAB_BYTES / ((size_t)(s + t) * elem)) / 4 * 4;
    return r < 4 ? 4 : r;
}

template <typename T, int TILE>
static cudaError_t launch_tile(cudaStream_t st, const ts_args &a, bool vec)
{
    size_t smem = (size_t)STAGES * a.slab * (a.s + a.t) * sizeof(T);
    if (smem < RED_BYTES) smem = RED_BYTES;
    if (vec)
        tsgemm_kernel<T, TILE, true><<<a.blocks, THREADS, smem, st>>>(a);
    else
        tsgemm_kernel<T, TILE, false><<<a.blocks, THREADS, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename T>
static int tsgemm(void *stream, int mode, int64_t n, int s, int t, const T *X, const T *Y,
                  double *C, void *ws)
{
    cudaStream_t st = (cudaStream_t)stream;
    const size_t cbytes = (size_t)s * t * sizeof(double);
    if (n <= 0 || mode == 1) { /* C = 0 (n = 0), or the atomic mode's start */
        cudaError_t e = cudaMemsetAsync(C, 0, cbytes, st);
        if (e != cudaSuccess || n <= 0) return (int)e;
    }
    ts_args a;
    a.n = n, a.s = s, a.t = t, a.slab = slab_rows(s, t, sizeof(T));
    a.blocks = mpcgi_tsgemm_blocks(n, s, t, &a.rows);
    a.groups = (a.blocks + MPCGI_TS_GROUP - 1) / MPCGI_TS_GROUP;
    a.atomic = mode == 1, a.X = X, a.Y = Y, a.C = C;
    a.part = (double *)ws;
    a.gpart = a.part + (size_t)a.blocks * s * t;
    a.ticket = (int *)(a.gpart + (size_t)a.groups * s * t);
    if (mode != 1) {
        cudaError_t e = cudaMemsetAsync(a.ticket, 0, (a.groups + 1) * sizeof(int), st);
        if (e != cudaSuccess) return (int)e;
    }
    const bool vec = ((uintptr_t)X | (uintptr_t)Y) % 16 == 0;
    switch (mpcgi_tsgemm_tile(s, t)) {
    case 1: return (int)launch_tile<T, 1>(st, a, vec);
    case 2: return (int)launch_tile<T, 2>(st, a, vec);
    case 4: return (int)launch_tile<T, 4>(st, a, vec);
    default: return (int)launch_tile<T, 8>(st, a, vec);
    }
}

extern "C" {

int mpcgi_tsgemm_f64(void *stream, int mode, int64_t n, int s, int t, const double *X,
                     const double *Y, double *C, void *ws)
{
    return tsgemm<double>(stream, mode, n, s, t, X, Y, C, ws);
}

int mpcgi_tsgemm_f32(void *stream, int mode, int64_t n, int s, int t, const float *X,
                     const float *Y, double *C, void *ws)
{
    return tsgemm<float>(stream, mode, n, s, t, X, Y, C, ws);
}

} /* extern "C" */
