/* core/block_pass.h: one pass over the rows of a few blocks (block CG's fused step): updates of
 * the rows, then small products, each block read once; plain C, shared by the host and device
 * tables (core/block_pass.c, core/block_pass.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_BLOCK_PASS_H
#define MPCG_CORE_BLOCK_PASS_H

#include <stdint.h>

#define MPCGI_PASS_BLOCKS 4   /* blocks a pass takes */
#define MPCGI_PASS_UPDATES 2  /* updates a pass applies */
#define MPCGI_PASS_PRODUCTS 4 /* products a pass sums */
#define MPCGI_PASS_MAXW 32    /* widest block a pass takes */

/*
 * A pass walks the n rows of nb blocks (fp64, n x w[b] row-major, core/block.h). For each row:
 *  1. the row of block b is read from in[b] (in[b] NULL: the block has no input, and the first
 *     update that names it must set it);
 *  2. the updates, in order: dst = (set ? 0 : dst) + src M, M (w[src] x w[dst], row-major, on the
 *     host) with one fma per term, a = 0 .. w[src] - 1 in order (core/block.h xb's rounding);
 *  3. the row of block b is written to out[b] (NULL: not written; out[b] may be in[b]);
 *  4. the products C_p += blk[a_p]^T blk[b_p] (w[a_p] x w[b_p], row-major, summed in double) of
 *     the rows as they are after the updates.
 * C (on the host) holds the products one after another. A block's in and out arrays must not
 * overlap another block's; the sums have a fixed order (the same bits on every run), which
 * differs between the host and the device (their chunks differ); the written rows are the same
 * bits on both.
 */
typedef struct mpcgi_pass_update {
    int dst, src, set;
    const double *M;
} mpcgi_pass_update;

typedef struct mpcgi_block_pass {
    int64_t n;
    int nb, nupd, nprod;
    int w[MPCGI_PASS_BLOCKS];
    const double *in[MPCGI_PASS_BLOCKS];
    double *out[MPCGI_PASS_BLOCKS];
    mpcgi_pass_update upd[MPCGI_PASS_UPDATES];
    int prod[MPCGI_PASS_PRODUCTS][2]; /* blocks a_p, b_p */
} mpcgi_block_pass;

/* Values of C: the products' sizes added. */
static inline int mpcgi_pass_outputs(const mpcgi_block_pass *p)
{
    int o = 0;
    for (int q = 0; q < p->nprod; q++)
        o += p->w[p->prod[q][0]] * p->w[p->prod[q][1]];
    return o;
}

#endif /* MPCG_CORE_BLOCK_PASS_H */
