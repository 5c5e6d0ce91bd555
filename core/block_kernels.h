/* core/block_kernels.h: launchers of the device block kernels (core/block_cuda.cu, core/tsgemm.cu)
 * and the tall-skinny GEMM's grid rule; plain C, no CUDA types */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_BLOCK_KERNELS_H
#define MPCG_CORE_BLOCK_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/block_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every launcher queues its work on `stream` (the context's cudaStream_t), never synchronises,
 * and returns cudaGetLastError() as an int (callers wrap it in MPCG_LAUNCH). Blocks are n x s
 * row-major device arrays (core/block.h); s, t in 1 .. 64.
 *
 * C = X^T Y (the tall-skinny GEMM, core/tsgemm.cu). The rows are cut into `blocks` contiguous
 * ranges of `rows` rows (a multiple of 4, so every range starts 16-byte aligned); thread block
 * b streams its range through shared memory in slabs (cp.async, three stages) and keeps its
 * whole s x t partial in registers, each thread a TILE x TILE piece of it for one of the
 * 256 / tiles row groups; the groups' pieces are added in a fixed tree at the end. The grid is
 * a function of (n, s, t) alone: one full wave on a 132-SM H100/H200 (MPCGI_TS_PER_SM
 * resident blocks per SM, which the kernel's launch bounds ask for), fewer blocks when n is
 * small. Bytes: (s + t) values per row, read
 * once.
 *
 * mode 0 (deterministic): block b writes its partial to part[b]; the last block of each group of
 * MPCGI_TS_GROUP consecutive blocks (atomic ticket, __threadfence) adds the group's partials in
 * block order into gpart[group]; the last group to finish adds the groups' sums in group order
 * into C. A fixed order, so the same bits on every run. mode 1 (atomic, seed 004): C zeroed,
 * every block atomicAdds its partial into C (order, and so the last bits, vary).
 */
#define MPCGI_TS_THREADS 256
#define MPCGI_TS_GROUP 16
#define MPCGI_TS_SMS 132      /* the SMs of an H100 / H200 SXM: the grid's unit */
#define MPCGI_TS_MIN_ROWS 512 /* fewest rows a thread block takes (small n: fewer blocks) */
/* Resident thread blocks per SM by tile edge: 64 registers a thread below TILE 4, 85 at 4 (16
 * accumulators), all it needs at 8 (64 accumulators); each block has under 48 KiB of shared
 * memory. */
#define MPCGI_TS_PER_SM(tile) ((tile) == 8 ? 1 : (tile) == 4 ? 3 : 4)

/* Edge of the square output tile a thread keeps in registers: the smallest of 1, 2, 4, 8 that
 * cuts s x t into at most 16 tiles (8 beyond that). */
static inline int mpcgi_tsgemm_tile(int s, int t)
{
    for (int e = 1; e < 8; e *= 2)
        if (((s + e - 1) / e) * ((t + e - 1) / e) <= 16) return e;
    return 8;
}

/* The grid of C = X^T Y: its thread blocks (returned, >= 1) and the rows of each (*rows). */
static inline int mpcgi_tsgemm_blocks(int64_t n, int s, int t, int64_t *rows)
{
    const int64_t most = (int64_t)MPCGI_TS_SMS * MPCGI_TS_PER_SM(mpcgi_tsgemm_tile(s, t));
    int64_t r = (n + most - 1) / most;
    if (r < MPCGI_TS_MIN_ROWS) r = MPCGI_TS_MIN_ROWS;
    r = (r + 3) / 4 * 4;
    *rows = r;
    const int64_t b = (n + r - 1) / r;
    return (int)(b < 1 ? 1 : b);
}

/* Bytes of device workspace mpcgi_tsgemm_* needs: the blocks' partials, the groups' sums, the
 * tickets. */
static inline size_t mpcgi_tsgemm_workspace(int64_t n, int s, int t)
{
    int64_t rows;
    const size_t blocks = (size_t)mpcgi_tsgemm_blocks(n, s, t, &rows);
    const size_t groups = (blocks + MPCGI_TS_GROUP - 1) / MPCGI_TS_GROUP;
    return (blocks + groups) * (size_t)s * (size_t)t * sizeof(double) + (groups + 1) * sizeof(int);
}

/* C (s x t, row-major, double, on the device) = X^T Y; mode 0 deterministic, 1 atomic; ws:
 * mpcgi_tsgemm_workspace bytes (16-byte aligned; not read before written). */
int mpcgi_tsgemm_f64(void *stream, int mode, int64_t n, int s, int t, const double *X,
                     const double *Y, double *C, void *ws);
int mpcgi_tsgemm_f32(void *stream, int mode, int64_t n, int s, int t, const float *X,
                     const float *Y, double *C, void *ws);

/* Y = beta Y + X B (core/block_cuda.cu): B s x t on the host (row-major double, rounded to the
 * blocks' type and passed to the kernel by value); each Y value is (T)beta y (0 if beta == 0,
 * Y not read) then fma(x[a], B[a][b], acc) for a = 0 .. s - 1. Bytes: s + 2 t values per row
 * (s + t if beta = 0). */
int mpcgi_block_xb_f64(void *stream, int64_t n, int s, int t, const double *X, const double *B,
                       double beta, double *Y);
int mpcgi_block_xb_f32(void *stream, int64_t n, int s, int t, const float *X, const double *B,
                       double beta, float *Y);

/* One pass over block rows (core/block_pass.h, core/block_pass.cu), fp64: C (on the device,
 * mpcgi_pass_outputs values) the products; ws: mpcgi_block_pass_workspace(n, maxw) bytes, maxw
 * >= every width (16-byte aligned; not read before written). The grid is a function of n alone
 * (one wave of 4 thread blocks an SM on 132 SMs, fewer when n is small); the updates cost one
 * fma a term, as on the host. Bytes: the read blocks once, the written ones once. */
size_t mpcgi_block_pass_workspace(int64_t n, int maxw);
int mpcgi_block_pass_f64(void *stream, const mpcgi_block_pass *p, double *C, void *ws);

/* x[i] = X[i s + j] / X[i s + j] = x[i], i < n; elem: 8 (double) or 4 (float) bytes. */
int mpcgi_block_get_col(void *stream, size_t elem, int64_t n, int s, int j, const void *X, void *x);
int mpcgi_block_set_col(void *stream, size_t elem, int64_t n, int s, int j, const void *x, void *X);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_CORE_BLOCK_KERNELS_H */
