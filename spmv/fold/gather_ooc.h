/* spmv/fold/gather_ooc.h: the gather backend's out-of-core mode (spmv/fold/gather_ooc.c;
 * docs/backends/fold.md, "Out-of-core mode") */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_GATHER_OOC_H
#define MPCG_SPMV_GATHER_OOC_H

#include <stddef.h>
#include <stdint.h>

#include "spmv/fold/impl.h"

typedef struct gather_ooc gather_ooc;

/* The performance model's measurements (gather.model=on): the pinned host-to-device bandwidth
 * at this chunk size, measured when the plan is made; of the last product, the stages' totals
 * over its chunks and the product's wall time. */
typedef struct mpcgi_gather_ooc_timing {
    double link_gbs;    /* pinned host-to-device copies of chunk values alone (events) */
    double x_ms;        /* x to pinned host memory (wall) */
    double gather_ms;   /* host threads gathering x (wall) */
    double copy_ms;     /* host-to-device copies of values and gathered x (events) */
    double kernel_ms;   /* the direct kernel (events) */
    double wall_ms;     /* the whole product, synchronised */
    double slots, copy_bytes;
    int64_t chunks, products;
} mpcgi_gather_ooc_timing;

/* Threads a chunk under a device-memory limit (0: none) with in_use bytes held: about np / 16
 * (4 - 64 MiB of values), at most three buffers of F values and F gathered x a thread after
 * RESERVED_VECTORS vectors of n doubles for the solver; a multiple of MPCGI_FOLD_THREADS, at most
 * np rounded up; 0 when not even one block's worth fits. */
int64_t mpcgi_gather_ooc_chunk_threads(size_t limit, size_t in_use, int64_t n, int F,
                                       int64_t np);
/* The pinned tiles (from p's host layout: p->L.col built) and the chunk buffers, C threads a
 * chunk; model: time every product (mpcgi_gather_ooc_model). */
mpcg_status mpcgi_gather_ooc_create(mpcg_context *ctx, const mpcgi_fold_plan *p, int64_t C,
                                    int model, gather_ooc **out);
/* The model's time of a product (ms) from m's stages, the link at m->link_gbs: the pipeline
 * of mpcgi_gather_ooc_apply played with every chunk at the mean of its stages (x to the host
 * first, overlapping the first values copy; each chunk's values copy, then its gather on the
 * host, its gathered x copy, its kernel; a buffer reused once its gathered x has landed). */
double mpcgi_gather_ooc_predict(const mpcgi_gather_ooc_timing *m);
/* The last product's measurements (NULL without gather.model=on or before a product); the
 * threads a chunk. */
const mpcgi_gather_ooc_timing *mpcgi_gather_ooc_model(const gather_ooc *o);
int64_t mpcgi_gather_ooc_chunk_size(const gather_ooc *o);
/* p->A's values into the pinned tiles again (a value update), once the copies in flight have
 * read the old ones. */
mpcg_status mpcgi_gather_ooc_values(mpcg_context *ctx, gather_ooc *o, const mpcgi_fold_plan *p);
/* y = A x (device vectors, fp64): x to pinned memory, the chunks streamed, fold's fixup; a: the
 * plan's fold arguments (fbits, fold_row, fold_ptr on the device); ws: fold's workspace (the
 * pieces' sums, then the partial dots); dot: NULL, or *dot = x^T y as fold's apply_dot. */
mpcg_status mpcgi_gather_ooc_apply(mpcg_context *ctx, gather_ooc *o, const mpcgi_fold_args *a,
                                   const double *x, double *y, void *ws, double *dot);
void mpcgi_gather_ooc_free(mpcg_context *ctx, gather_ooc *o);

#endif /* MPCG_SPMV_GATHER_OOC_H */
