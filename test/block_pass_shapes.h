/* test/block_pass_shapes.h: block CG's passes (core/block_pass.h) as test shapes, shared by the
 * host pass's test (test/test_block.c) and the device pass's (test/test_block_cuda.c): the
 * blocks, their widths, updates (random matrices) and products, which blocks have an input and
 * where each is written; the arrays are each test's own */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_TEST_BLOCK_PASS_SHAPES_H
#define MPCG_TEST_BLOCK_PASS_SHAPES_H

#include <stdint.h>
#include <string.h>

#include "core/block_pass.h"
#include "core/rng.h"

/* Block CG's passes (widths r <= m): 0 {P(r), Q(r), R(m)}, products P^T Q, P^T R; 1 {P(r), Q(r),
 * X(m), R(m)}, X += P alpha and R += Q (-alpha) in place, products R^T R, Q^T R, P^T R, P^T P;
 * 2 - 4 {Z(m), P(r), W(r)}, Z += P beta, W = Z T (W without input), no products, Z not written
 * (2), written to an array of its own (3) or in place (4). */
#define PASS_SHAPES 5
#define PASS_C_MAX (MPCGI_PASS_PRODUCTS * MPCGI_PASS_MAXW * MPCGI_PASS_MAXW) /* values of C */

/* A shape: the pass without its arrays (in and out NULL), and what they are to be. */
typedef struct block_pass_shape {
    mpcgi_block_pass p;
    int has_in[MPCGI_PASS_BLOCKS], out_kind[MPCGI_PASS_BLOCKS];      /* out: 0 none, 1 in, 2 own */
    double M[MPCGI_PASS_UPDATES][MPCGI_PASS_MAXW * MPCGI_PASS_MAXW]; /* the updates' (p.upd) */
} block_pass_shape;

/* Shape `shape` on n rows; unused slots hold garbage a pass must not look at. The matrices are
 * drawn from rg first (2 MPCGI_PASS_MAXW^2 values, in the same order for every shape). */
static inline void pass_shape(block_pass_shape *c, int shape, int64_t n, int r, int m,
                              mpcgi_rng *rg)
{
    mpcgi_block_pass *p = &c->p;
    memset(c, 0, sizeof *c);
    for (int k = 0; k < MPCGI_PASS_BLOCKS; k++)
        p->w[k] = 99, p->prod[k][0] = p->prod[k][1] = 7;
    for (int u = 0; u < MPCGI_PASS_UPDATES; u++)
        p->upd[u] = (mpcgi_pass_update){7, 7, 0, NULL};
    for (int a = 0; a < MPCGI_PASS_MAXW * MPCGI_PASS_MAXW; a++)
        c->M[0][a] = 2 * mpcgi_rng_uniform(rg) - 1, c->M[1][a] = 2 * mpcgi_rng_uniform(rg) - 1;
    p->n = n;
    if (shape == 0) {
        p->nb = 3, p->nprod = 2;
        p->w[0] = p->w[1] = r, p->w[2] = m;
        c->has_in[0] = c->has_in[1] = c->has_in[2] = 1;
        const int pr[2][2] = {{0, 1}, {0, 2}};
        memcpy(p->prod, pr, sizeof pr);
    } else if (shape == 1) {
        p->nb = 4, p->nupd = 2, p->nprod = 4;
        p->w[0] = p->w[1] = r, p->w[2] = p->w[3] = m;
        for (int b = 0; b < 4; b++)
            c->has_in[b] = 1;
        c->out_kind[2] = c->out_kind[3] = 1;
        for (int a = 0; a < r * m; a++)
            c->M[1][a] = -c->M[0][a];
        p->upd[0] = (mpcgi_pass_update){2, 0, 0, c->M[0]};
        p->upd[1] = (mpcgi_pass_update){3, 1, 0, c->M[1]};
        const int pr[4][2] = {{3, 3}, {1, 3}, {0, 3}, {0, 0}};
        memcpy(p->prod, pr, sizeof pr);
    } else {
        p->nb = 3, p->nupd = 2;
        p->w[0] = m, p->w[1] = p->w[2] = r;
        c->has_in[0] = c->has_in[1] = 1;
        c->out_kind[0] = shape == 2 ? 0 : shape == 3 ? 2 : 1, c->out_kind[2] = 2;
        p->upd[0] = (mpcgi_pass_update){0, 1, 0, c->M[0]};
        p->upd[1] = (mpcgi_pass_update){2, 0, 1, c->M[1]};
    }
}

/* The widest of p's blocks (1 at least): the width its workspace is asked for. */
static inline int pass_maxw(const mpcgi_block_pass *p)
{
    int w = 1;
    for (int b = 0; b < p->nb; b++)
        w = p->w[b] > w ? p->w[b] : w;
    return w;
}

#endif /* MPCG_TEST_BLOCK_PASS_SHAPES_H */
