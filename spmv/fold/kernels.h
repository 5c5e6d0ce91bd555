/* spmv/fold/kernels.h: the fold backend's kernel launchers (spmv/fold_*.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_FOLD_KERNELS_H
#define MPCG_SPMV_FOLD_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads a block of the SpMV kernel. */
#define MPCGI_FOLD_THREADS 256
/* Threads of the one block that sums apply_dot's partials where no row is folded. */
#define MPCGI_FOLD_FINISH_THREADS 1024

/* One plan's device arrays and shape (spmv/fold/impl.h: the layout). */
typedef struct mpcgi_fold_args {
    void *stream;             /* the context's stream */
    int64_t n;                /* rows of A */
    int64_t np;               /* threads: n + pieces, rounded up to a multiple of 32 */
    int64_t pieces;           /* rows added by folding (threads n .. n + pieces - 1) */
    int64_t folded;           /* rows folded (m) */
    int F;                    /* the width: slots a thread */
    const int32_t *col;       /* F np, slot-major: slot k of thread p at k np + p */
    const uint32_t *fbits;    /* ceil(n / 32) words: bit i set where row i is folded */
    const int64_t *fold_row;  /* m: the folded rows */
    const int64_t *fold_ptr;  /* m + 1: their pieces, offsets into threads n .. */
    int *arrived;             /* one device int, 0 between dots */
} mpcgi_fold_args;

/* Blocks of the SpMV kernel (its partial dots: apply_dot's workspace). */
static inline int64_t mpcgi_fold_blocks(int64_t np)
{
    return (np + MPCGI_FOLD_THREADS - 1) / MPCGI_FOLD_THREADS;
}

/* y = A x. ws: the pieces' sums (pieces values of the vectors' type), then for apply_dot
 * blocks + folded doubles (the partial dots).
 *   f64: double values, vectors;  f32: float values, vectors;
 *   mixed: y = (hi + lo) x in fp64, hi and lo float, double vectors. */
int mpcgi_fold_apply_f64(const mpcgi_fold_args *a, const double *val, const double *x, double *y,
                         void *ws);
int mpcgi_fold_apply_f32(const mpcgi_fold_args *a, const float *val, const float *x, float *y,
                         void *ws);
int mpcgi_fold_apply_mixed(const mpcgi_fold_args *a, const float *hi, const float *lo,
                           const double *x, double *y, void *ws);
/* y = A x and *dot = x^T y (fp64), deterministic; nothing is written when skip && *skip. */
int mpcgi_fold_apply_dot_f64(const mpcgi_fold_args *a, const double *val, const double *x,
                             double *y, void *ws, double *dot, const int *skip);

/* The gather backend (spmv/fold/gather_direct.cu): xg[i] = x[col[i]] for the F np slots, then the
 * fold kernel reading xg in place of x[col] (the same sums, in the same order, as fold's). */
int mpcgi_gather_x_f64(const mpcgi_fold_args *a, const double *x, double *xg);
int mpcgi_gather_x_f32(const mpcgi_fold_args *a, const float *x, float *xg);
int mpcgi_gather_direct_f64(const mpcgi_fold_args *a, const double *val, const double *x,
                            const double *xg, double *y, void *ws);
int mpcgi_gather_direct_f32(const mpcgi_fold_args *a, const float *val, const float *x,
                            const float *xg, float *y, void *ws);
int mpcgi_gather_direct_mixed(const mpcgi_fold_args *a, const float *hi, const float *lo,
                              const double *x, const double *xg, double *y, void *ws);
int mpcgi_gather_direct_dot_f64(const mpcgi_fold_args *a, const double *val, const double *x,
                                const double *xg, double *y, void *ws, double *dot,
                                const int *skip);

/* Out-of-core (fp64): the direct kernel on one streamed chunk's tile (threads p0 .. p0 + C - 1,
 * multiples of MPCGI_FOLD_THREADS: y for p < n, the pieces' sums for n <= p < n + pieces in ws;
 * dot: fold's partial dots too), and after the last chunk fold's fixup (dot: *dot = x^T y, the
 * in-core apply_dot's bits). ws: fold's workspace. */
int mpcgi_gather_ooc_chunk(const mpcgi_fold_args *a, int64_t C, int64_t p0, const double *val,
                           const double *xg, const double *x, double *y, void *ws, int dot);
int mpcgi_gather_ooc_finish(const mpcgi_fold_args *a, const double *x, double *y, void *ws,
                            double *dot);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SPMV_FOLD_KERNELS_H */
