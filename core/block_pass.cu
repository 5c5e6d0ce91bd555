/* core/block_pass.cu: one pass over the rows of a few blocks on the device (core/block_pass.h):
 * the rows staged in shared memory, updated, written, and their small products summed with the
 * tall-skinny GEMM's deterministic cross-block sum */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#include "core/block_kernels.h"
#include "core/ts_device.cuh"

#define THREADS 256
#define PER_SM 3 /* resident thread blocks an SM (the grid: one wave of them) */
#define SMS 132  /* the SMs of an H100 / H200 (core/block_kernels.h MPCGI_TS_SMS) */
#define TILE 4   /* a thread's piece of a product: TILE x TILE in registers */
#define STAGES 4 /* slabs of rows in flight: one computed, three loading */
#define STAGE_VALUES                                                                               \
    2048              /* doubles of block rows a stage holds (16 KiB); two stages then             \
                       * hold the sum over the row groups (256 threads x 16) */
#define MIN_ROWS 64   /* fewest rows a thread block takes (small n: fewer blocks) */
#define CAP_SMALL 512 /* update matrices' values by value: up to two 16 x 16 */
#define CAP_BIG (2 * MPCGI_PASS_MAXW * MPCGI_PASS_MAXW)

/*
 * Thread block b takes rows [b rows, (b + 1) rows) in slabs of `slab` rows; a stage holds the
 * slab of every block, block k's rows at slab * off[k], row-major with an odd stride sp[k] =
 * w[k] | 1 (threads reading the same column of consecutive rows hit distinct banks). Each slab:
 * the updates (a thread takes 4 columns of a row, consecutive threads consecutive rows; a fma
 * per term in order, as the host; M in shared memory with rows padded to 4 by zeros), the
 * written blocks stored, then the products: the products' TILE x TILE tiles are numbered one
 * product after another (tiles <= 256); thread i takes tile i % tiles for the rows g, g + rg, ...
 * of the slab, g = i / tiles < rg = 256 / tiles. At the end the row groups' tiles are added in
 * group order, and the block's partial joins the others' (core/ts_device.cuh).
 */
template <int CAP> struct pass_args {
    int64_t n, rows;
    int nb, nupd, nprod, slab, blocks, outputs, tiles, mvals;
    int w[MPCGI_PASS_BLOCKS], sp[MPCGI_PASS_BLOCKS], off[MPCGI_PASS_BLOCKS];
    const double *in[MPCGI_PASS_BLOCKS];
    double *out[MPCGI_PASS_BLOCKS];
    int udst[MPCGI_PASS_UPDATES], usrc[MPCGI_PASS_UPDATES], uset[MPCGI_PASS_UPDATES];
    int moff[MPCGI_PASS_UPDATES];
    int pa[MPCGI_PASS_PRODUCTS], pb[MPCGI_PASS_PRODUCTS], c0[MPCGI_PASS_PRODUCTS];
    int tile0[MPCGI_PASS_PRODUCTS + 1];
    double *C, *part, *gpart;
    int *ticket;
    double M[CAP]; /* the updates' matrices, one after another, rows padded to 4 by zeros */
};

/* The thread's tile: product p, rows a0.. of block pa, columns b0.. of block pb. */
struct pass_tile {
    int p, a0, b0, g, rg;
};

template <int CAP> static __device__ pass_tile tile_of(const pass_args<CAP> &a)
{
    pass_tile t;
    const int ti = threadIdx.x % a.tiles;
    t.rg = THREADS / a.tiles, t.g = threadIdx.x / a.tiles;
    t.p = 0;
    while (t.p + 1 < a.nprod && ti >= a.tile0[t.p + 1])
        t.p++;
    const int lt = ti - a.tile0[t.p], gb = (a.w[a.pb[t.p]] + TILE - 1) / TILE;
    t.a0 = lt / gb * TILE, t.b0 = lt % gb * TILE;
    return t;
}

/* Queue the rows [first, first + nr) of every block with input into the stage (cp.async, a value
 * at a time: the rows are padded in shared memory). */
template <int CAP>
static __device__ void stage_slab(const pass_args<CAP> &a, double *stage, int64_t first, int nr)
{
    for (int k = 0; k < a.nb; k++) {
        if (!a.in[k]) continue;
        const int w = a.w[k], sp = a.sp[k];
        const double *src = a.in[k] + first * w;
        double *dst = stage + a.slab * a.off[k];
        for (int e = threadIdx.x; e < nr * w; e += THREADS) {
            const int r = e / w;
            __pipeline_memcpy_async(dst + r * sp + (e - r * w), src + e, sizeof(double));
        }
    }
}

/* Queue slab j of the rows [r0, r1) into its stage. */
template <int CAP>
static __device__ __forceinline__ void stage_next(const pass_args<CAP> &a, double *smem, int64_t r0,
                                                  int64_t r1, int j)
{
    const int64_t first = r0 + (int64_t)j * a.slab;
    stage_slab<CAP>(a, smem + (j % STAGES) * STAGE_VALUES, first,
                    (int)(r1 - first < a.slab ? r1 - first : a.slab));
}

/* dst columns j0 .. j0 + 3 of row r (set: from 0) + src row r times M (rows of 4 padded). */
static __device__ __forceinline__ void update_quad(double *D, const double *S, const double *M,
                                                   int wd, int wsrc, int wq, int j0, int set)
{
    double acc[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        acc[i] = set || j0 + i >= wd ? 0.0 : D[j0 + i];
    for (int k = 0; k < wsrc; k++) {
        const double x = S[k];
        const double2 m01 = *(const double2 *)(M + k * wq + j0);
        const double2 m23 = *(const double2 *)(M + k * wq + j0 + 2);
        acc[0] = __fma_rn(x, m01.x, acc[0]), acc[1] = __fma_rn(x, m01.y, acc[1]);
        acc[2] = __fma_rn(x, m23.x, acc[2]), acc[3] = __fma_rn(x, m23.y, acc[3]);
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (j0 + i < wd) D[j0 + i] = acc[i];
}

/* The updates in order, then the written blocks stored. */
template <int CAP>
static __device__ void update_slab(const pass_args<CAP> &a, double *stage, const double *Ms,
                                   int64_t first, int nr)
{
    for (int u = 0; u < a.nupd; u++) {
        const int d = a.udst[u], src = a.usrc[u], wd = a.w[d], wq = (wd + 3) / 4 * 4;
        double *D = stage + a.slab * a.off[d];
        const double *S = stage + a.slab * a.off[src];
        for (int e = threadIdx.x; e < nr * (wq / 4); e += THREADS) {
            const int q = e / nr, r = e - q * nr;
            update_quad(D + r * a.sp[d], S + r * a.sp[src], Ms + a.moff[u], wd, a.w[src], wq, 4 * q,
                        a.uset[u]);
        }
        __syncthreads();
    }
    for (int k = 0; k < a.nb; k++) {
        if (!a.out[k]) continue;
        const int w = a.w[k], sp = a.sp[k];
        const double *S = stage + a.slab * a.off[k];
        double *o = a.out[k] + first * w;
        for (int e = threadIdx.x; e < nr * w; e += THREADS) {
            const int r = e / w;
            o[e] = S[r * sp + (e - r * w)];
        }
    }
}

/* acc += the tile's product over the slab's rows g, g + rg, ... (in order). */
template <int CAP>
static __device__ __forceinline__ void product_slab(const pass_args<CAP> &a, const pass_tile &t,
                                                    const double *stage, int nr,
                                                    double (&acc)[TILE][TILE])
{
    if (t.g >= t.rg) return;
    const int wa = a.w[a.pa[t.p]], wb = a.w[a.pb[t.p]];
    const int sa = a.sp[a.pa[t.p]], sb = a.sp[a.pb[t.p]];
    const double *X = stage + a.slab * a.off[a.pa[t.p]] + t.a0;
    const double *Y = stage + a.slab * a.off[a.pb[t.p]] + t.b0;
    for (int r = t.g; r < nr; r += t.rg) {
        double x[TILE], y[TILE];
#pragma unroll
        for (int i = 0; i < TILE; i++)
            x[i] = t.a0 + i < wa ? X[r * sa + i] : 0.0;
#pragma unroll
        for (int i = 0; i < TILE; i++)
            y[i] = t.b0 + i < wb ? Y[r * sb + i] : 0.0;
#pragma unroll
        for (int i = 0; i < TILE; i++)
#pragma unroll
            for (int k = 0; k < TILE; k++)
                acc[i][k] = fma(x[i], y[k], acc[i][k]);
    }
}

/* The row groups' tiles added in group order into group 0's, written to this block's partial. */
template <int CAP>
static __device__ void finish_products(const pass_args<CAP> &a, const pass_tile &t, double *red,
                                       double (&acc)[TILE][TILE])
{
    const int ti = threadIdx.x % a.tiles;
    if (t.g >= 1 && t.g < t.rg)
#pragma unroll
        for (int i = 0; i < TILE; i++)
#pragma unroll
            for (int k = 0; k < TILE; k++)
                red[((i * TILE + k) * t.rg + t.g) * a.tiles + ti] = acc[i][k];
    __syncthreads();
    if (t.g == 0) {
        const int wa = a.w[a.pa[t.p]], wb = a.w[a.pb[t.p]];
        double *part = a.part + (size_t)blockIdx.x * a.outputs + a.c0[t.p];
        for (int g = 1; g < t.rg; g++)
#pragma unroll
            for (int i = 0; i < TILE; i++)
#pragma unroll
                for (int k = 0; k < TILE; k++)
                    acc[i][k] += red[((i * TILE + k) * t.rg + g) * a.tiles + ti];
#pragma unroll
        for (int i = 0; i < TILE; i++)
#pragma unroll
            for (int k = 0; k < TILE; k++)
                if (t.a0 + i < wa && t.b0 + k < wb) part[(t.a0 + i) * wb + t.b0 + k] = acc[i][k];
    }
    ts_deterministic_sum(a.part, a.gpart, a.ticket, a.blocks, a.outputs, a.C);
}

template <int CAP>
static __global__ void __launch_bounds__(THREADS, PER_SM)
    pass_kernel(const __grid_constant__ pass_args<CAP> a)
{
    extern __shared__ __align__(16) double smem[];
    double *Ms = smem + STAGES * STAGE_VALUES;
    for (int k = threadIdx.x; k < a.mvals; k += THREADS)
        Ms[k] = a.M[k];
    const int64_t r0 = (int64_t)blockIdx.x * a.rows;
    const int64_t r1 = r0 + a.rows < a.n ? r0 + a.rows : a.n;
    const int nslab = (int)((r1 - r0 + a.slab - 1) / a.slab);
    pass_tile t = {0, 0, 0, 1, 0};
    if (a.outputs > 0) t = tile_of(a);
    double acc[TILE][TILE];
    ts_zero_tile(acc);
    for (int j = 0; j < STAGES - 1; j++) {
        if (j < nslab) stage_next(a, smem, r0, r1, j);
        __pipeline_commit();
    }
    for (int j = 0; j < nslab; j++) {
        const int64_t first = r0 + (int64_t)j * a.slab;
        const int nr = (int)(r1 - first < a.slab ? r1 - first : a.slab);
        if (j + STAGES - 1 < nslab) stage_next(a, smem, r0, r1, j + STAGES - 1);
        __pipeline_commit();
        __pipeline_wait_prior(STAGES - 1); /* slab j has landed */
        __syncthreads();                   /* for every thread (and Ms is written) */
        double *stage = smem + (j % STAGES) * STAGE_VALUES;
        update_slab(a, stage, Ms, first, nr);
        if (a.outputs > 0) product_slab(a, t, stage, nr, acc);
        __syncthreads(); /* the stage is refilled next */
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    if (a.outputs > 0) finish_products(a, t, smem, acc);
}

/* The grid of a pass over n rows: thread blocks (returned) and the rows of each (*rows). */
static int grid_of(int64_t n, int64_t *rows)
{
    const int64_t most = (int64_t)SMS * PER_SM;
    int64_t r = (n + most - 1) / most;
    if (r < MIN_ROWS) r = MIN_ROWS;
    r = (r + 1) / 2 * 2; /* even: every slab 16-byte aligned */
    *rows = r;
    const int64_t b = (n + r - 1) / r;
    return (int)(b < 1 ? 1 : b);
}

/* The description into the kernel's arguments; false if it does not fit (a bug of the caller:
 * the table checked the widths). */
template <int CAP> static bool fill_args(const mpcgi_block_pass *p, pass_args<CAP> &a)
{
    a.n = p->n, a.nb = p->nb, a.nupd = p->nupd, a.nprod = p->nprod;
    a.blocks = grid_of(p->n, &a.rows);
    int rv = 0;
    for (int k = 0; k < p->nb; k++) {
        a.w[k] = p->w[k], a.sp[k] = p->w[k] | 1, a.off[k] = rv, rv += a.sp[k];
        a.in[k] = p->in[k], a.out[k] = p->out[k];
    }
    a.slab = STAGE_VALUES / rv / 2 * 2;
    a.mvals = 0;
    for (int u = 0; u < p->nupd; u++) { /* M's rows padded to wq (4) by zeros */
        const mpcgi_pass_update *q = &p->upd[u];
        const int ws = p->w[q->src], wd = p->w[q->dst], wq = (wd + 3) / 4 * 4;
        if (a.mvals + ws * wq > CAP) return false;
        a.udst[u] = q->dst, a.usrc[u] = q->src, a.uset[u] = q->set, a.moff[u] = a.mvals;
        for (int k = 0; k < ws; k++)
            for (int j = 0; j < wq; j++)
                a.M[a.mvals + k * wq + j] = j < wd ? q->M[k * wd + j] : 0.0;
        a.mvals += ws * wq;
    }
    a.tiles = 0, a.outputs = 0;
    for (int q = 0; q < p->nprod; q++) {
        const int wa = p->w[p->prod[q][0]], wb = p->w[p->prod[q][1]];
        a.pa[q] = p->prod[q][0], a.pb[q] = p->prod[q][1];
        a.tile0[q] = a.tiles, a.c0[q] = a.outputs;
        a.tiles += ((wa + TILE - 1) / TILE) * ((wb + TILE - 1) / TILE);
        a.outputs += wa * wb;
    }
    a.tile0[p->nprod] = a.tiles;
    return a.slab >= 2 && a.tiles <= THREADS;
}

template <int CAP>
static cudaError_t launch_args(cudaStream_t st, const mpcgi_block_pass *p, double *C, void *ws,
                               pass_args<CAP> &a)
{
    if (!fill_args(p, a)) return cudaErrorInvalidValue;
    const size_t groups = (a.blocks + MPCGI_TS_GROUP - 1) / MPCGI_TS_GROUP;
    a.C = C, a.part = (double *)ws;
    a.gpart = a.part + (size_t)a.blocks * a.outputs;
    a.ticket = (int *)(a.gpart + groups * a.outputs);
    if (a.outputs > 0) {
        cudaError_t e = cudaMemsetAsync(a.ticket, 0, (groups + 1) * sizeof(int), st);
        if (e != cudaSuccess) return e;
    }
    const size_t smem = (STAGES * STAGE_VALUES + (size_t)a.mvals) * sizeof(double);
    void (*kernel)(pass_args<CAP>) = pass_kernel<CAP>;
    static int opted; /* past the default 48 KiB: once for the most this kernel asks */
    if (!opted) {
        const int most = (int)((STAGES * STAGE_VALUES + CAP) * sizeof(double));
        cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
        if (e != cudaSuccess) return e;
        opted = 1;
    }
    kernel<<<a.blocks, THREADS, smem, st>>>(a);
    return cudaGetLastError();
}

template <int CAP>
static cudaError_t launch(cudaStream_t st, const mpcgi_block_pass *p, double *C, void *ws)
{
    pass_args<CAP> *ap = (pass_args<CAP> *)malloc(sizeof *ap); /* up to 16 KiB: off the stack */
    if (!ap) return cudaErrorMemoryAllocation;
    const cudaError_t e = launch_args(st, p, C, ws, *ap);
    free(ap);
    return e;
}

extern "C" {

size_t mpcgi_block_pass_workspace(int64_t n, int maxw)
{
    int64_t rows;
    const size_t blocks = (size_t)grid_of(n, &rows);
    const size_t groups = (blocks + MPCGI_TS_GROUP - 1) / MPCGI_TS_GROUP;
    const size_t outs = (size_t)MPCGI_PASS_PRODUCTS * maxw * maxw;
    return (blocks + groups) * outs * sizeof(double) + (groups + 1) * sizeof(int);
}

int mpcgi_block_pass_f64(void *stream, const mpcgi_block_pass *p, double *C, void *ws)
{
    cudaStream_t st = (cudaStream_t)stream;
    const int outputs = mpcgi_pass_outputs(p);
    if (p->n <= 0)
        return outputs > 0 ? (int)cudaMemsetAsync(C, 0, outputs * sizeof(double), st)
                           : (int)cudaSuccess;
    int mvals = 0;
    for (int u = 0; u < p->nupd; u++)
        mvals += p->w[p->upd[u].src] * ((p->w[p->upd[u].dst] + 3) / 4 * 4);
    return mvals <= CAP_SMALL ? (int)launch<CAP_SMALL>(st, p, C, ws)
                              : (int)launch<CAP_BIG>(st, p, C, ws);
}

} /* extern "C" */
