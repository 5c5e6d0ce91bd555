/* spmv/fold/impl.h: the fold backend's layout and plan, shared by its ops glue (spmv/fold/fold.c)
 * and its layout builder and CPU emulation (spmv/fold/layout.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_FOLD_IMPL_H
#define MPCG_SPMV_FOLD_IMPL_H

#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"
#include "spmv/fold/kernels.h"

/*
 * The Fold layout: width F; row i's first min(len_i, F) entries are thread i's slots;
 * a row longer than F is folded: its further entries go, F at a time, to pieces appended after
 * row n - 1 (threads n .. n + pieces - 1, the pieces of one row together, rows in order); each
 * thread's unused slots hold 0 and the column of its last entry (an empty row: its own index;
 * the padding threads past n + pieces: 0), so every slot can be read without a branch. The
 * thread count np = n + pieces rounded up to a multiple of 32. Slot k of thread p sits at
 * k np + p.
 */
typedef struct mpcgi_fold_layout {
    int F;
    int64_t n, nnz, np, pieces, folded, max_len;
    double mean, sigma;      /* of the row lengths (population sigma) */
    int32_t *col;            /* F np */
    uint32_t *fbits;         /* ceil(n / 32): bit i set where row i is folded */
    int64_t *fold_row;       /* folded: the folded rows, in order */
    int64_t *fold_ptr;       /* folded + 1: their pieces, offsets into threads n .. */
} mpcgi_fold_layout;

/* F = ceil(q mean + r sigma) (q_pct, r_pct: q and r in percent), at least 1, at most the
 * longest row (wider would only pad); mean, sigma and the longest row to *L. */
int mpcgi_fold_width(const mpcgi_csr *A, long q_pct, long r_pct, mpcgi_fold_layout *L);
/* L->pieces, folded, np (and n, nnz) of A folded at width L->F. */
void mpcgi_fold_count(const mpcgi_csr *A, mpcgi_fold_layout *L);
/* The pattern of A folded at width F (L->F on entry, with the statistics of mpcgi_fold_width) on
 * the host: the CPU emulation's copy (spmv/fold/setup.cu builds the device one alike). */
mpcg_status mpcgi_fold_layout_build(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_fold_layout *L);
void mpcgi_fold_layout_free(mpcgi_fold_layout *L);
/* A's values (val: double, val32 or lo32: float) into slot order, zero padding (F np). */
void mpcgi_fold_scatter_f64(const mpcgi_fold_layout *L, const mpcgi_csr *A, const double *src,
                            double *dst);
void mpcgi_fold_scatter_f32(const mpcgi_fold_layout *L, const mpcgi_csr *A, const float *src,
                            float *dst);

/* The out-of-core tiles (the gather backend's streamed chunks): chunk c of C threads (C a
 * multiple of 32) holds threads c C .. c C + C - 1, slot-major within the chunk: slot k of
 * thread t at mpcgi_fold_tile_at(F, C, t, k) = (t / C) F C + k C + t % C; mpcgi_fold_tiles(L, C)
 * chunks (the last one padded to C threads: column 0, value 0). The columns come from the host
 * layout (L->col built), the values from A. */
size_t mpcgi_fold_tile_at(int F, int64_t C, int64_t t, int k);
int64_t mpcgi_fold_tiles(const mpcgi_fold_layout *L, int64_t C);
void mpcgi_fold_tile_cols(const mpcgi_fold_layout *L, int64_t C, int32_t *dst);
void mpcgi_fold_tile_f64(const mpcgi_fold_layout *L, const mpcgi_csr *A, int64_t C,
                         const double *src, double *dst);

typedef struct mpcgi_fold_plan {
    const mpcgi_csr *A;
    mpcgi_fold_layout L;
    long q_pct, r_pct;
    int fp64, fp32, mixed;   /* the values held: fp64, fp32 (hi with mixed), lo (mixed) */
    double *val64;           /* a CPU plan's slot-order values (with L's arrays: made at its */
    float *val32, *lo32;     /* first product, refreshed after a value update) */
    double *piece;           /* a CPU plan's pieces' sums (pieces + 1; float in fp32) */
    int host_stale;          /* values changed since the host copies were made */
    int32_t *d_col;
    uint32_t *d_fbits;
    int64_t *d_row_ptr, *d_pbase; /* kept for value updates (the scatter on the GPU) */
    int64_t *d_fold_row, *d_fold_ptr;
    double *d_val;
    float *d_val32, *d_lo32;
    int *d_arrived;
    size_t xg_offset;        /* the gather backend: its xg in the workspace (0: a fold plan) */
    void *extra;             /* gather's own state (spmv/fold/gather.c); NULL for fold */
} mpcgi_fold_plan;

/* The kernels' view of an uploaded plan on ctx's stream. */
mpcgi_fold_args mpcgi_fold_args_of(mpcg_context *ctx, const mpcgi_fold_plan *p);

/* y = A x on host vectors, the kernels' operations in their order (FP64, FP32, or MIXED). */
mpcg_status mpcgi_fold_emulate(mpcg_context *ctx, mpcgi_fold_plan *p, mpcg_precision prec,
                               const void *x, void *y);

#endif /* MPCG_SPMV_FOLD_IMPL_H */
