/* core/block_pass.c: the checks of a pass over block rows (core/block_pass.h) and the host
 * table's pass (OpenMP; the CPU reference of core/block_pass.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/block.h"
#include "core/error.h"

/* Rows of a host chunk: chunk c's partial products (rows in order) go to ws; then the partials
 * are added in chunk order (the bits depend on n alone, not on the thread count). */
#define CHUNK 4096

static int64_t chunks_of(int64_t n)
{
    return n > 0 ? (n + CHUNK - 1) / CHUNK : 1;
}

/* Whether block b is made (set) by an update before update `before` (or before the writes and
 * products, before = nupd). */
static int made_before(const mpcgi_block_pass *p, int b, int before)
{
    for (int u = 0; u < before; u++)
        if (p->upd[u].dst == b) return p->upd[u].set;
    return 0;
}

static mpcg_status check_updates(mpcg_context *ctx, const mpcgi_block_pass *p)
{
    for (int u = 0; u < p->nupd; u++) {
        const mpcgi_pass_update *q = &p->upd[u];
        MPCG_ENSURE(ctx,
                    q->dst >= 0 && q->dst < p->nb && q->src >= 0 && q->src < p->nb &&
                        q->dst != q->src && q->M,
                    MPCG_ERR_INVALID_ARG, "pass update %d: dst %d, src %d of %d blocks, M %s", u,
                    q->dst, q->src, p->nb, q->M ? "given" : "NULL");
        MPCG_ENSURE(ctx, p->in[q->src] || made_before(p, q->src, u), MPCG_ERR_INVALID_ARG,
                    "pass update %d reads block %d, which has no input and is not made before", u,
                    q->src);
        MPCG_ENSURE(ctx, p->in[q->dst] || q->set || made_before(p, q->dst, u), MPCG_ERR_INVALID_ARG,
                    "pass update %d adds to block %d, which has no input and is not made before", u,
                    q->dst);
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_block_pass_check(mpcg_context *ctx, const mpcgi_block_pass *p)
{
    MPCG_ENSURE(ctx, p, MPCG_ERR_INVALID_ARG, "pass: NULL description");
    MPCG_ENSURE(ctx,
                p->n >= 0 && p->nb >= 1 && p->nb <= MPCGI_PASS_BLOCKS && p->nupd >= 0 &&
                    p->nupd <= MPCGI_PASS_UPDATES && p->nprod >= 0 &&
                    p->nprod <= MPCGI_PASS_PRODUCTS,
                MPCG_ERR_INVALID_ARG,
                "pass: n = %lld, %d blocks (1 .. %d), %d updates (<= %d), %d products (<= %d)",
                (long long)p->n, p->nb, MPCGI_PASS_BLOCKS, p->nupd, MPCGI_PASS_UPDATES, p->nprod,
                MPCGI_PASS_PRODUCTS);
    for (int b = 0; b < p->nb; b++)
        MPCG_ENSURE(ctx, p->w[b] >= 1 && p->w[b] <= MPCGI_PASS_MAXW, MPCG_ERR_INVALID_ARG,
                    "pass: block %d is %d wide, out of range [1, %d]", b, p->w[b], MPCGI_PASS_MAXW);
    MPCG_CHECK(ctx, check_updates(ctx, p));
    for (int b = 0; b < p->nb; b++)
        MPCG_ENSURE(ctx, p->in[b] || !p->out[b] || made_before(p, b, p->nupd), MPCG_ERR_INVALID_ARG,
                    "pass: block %d is written but has no input and no "
                    "update makes it",
                    b);
    for (int q = 0; q < p->nprod; q++) {
        const int a = p->prod[q][0], c = p->prod[q][1];
        MPCG_ENSURE(ctx, a >= 0 && a < p->nb && c >= 0 && c < p->nb, MPCG_ERR_INVALID_ARG,
                    "pass product %d: blocks %d, %d of %d", q, a, c, p->nb);
        MPCG_ENSURE(ctx,
                    (p->in[a] || made_before(p, a, p->nupd)) &&
                        (p->in[c] || made_before(p, c, p->nupd)),
                    MPCG_ERR_INVALID_ARG,
                    "pass product %d reads a block with no input that no "
                    "update makes",
                    q);
    }
    return MPCG_SUCCESS;
}

size_t mpcgi_block_pass_host_workspace(int64_t n, int maxw)
{
    const size_t w = (size_t)(maxw < 1 ? 1 : maxw);
    return (size_t)chunks_of(n) * MPCGI_PASS_PRODUCTS * w * w * sizeof(double);
}

/* Row i: read, update, write; the products added to part. */
static void pass_row(const mpcgi_block_pass *p, int64_t i, const int *cofs, double *part)
{
    double v[MPCGI_PASS_BLOCKS][MPCGI_PASS_MAXW];
    for (int b = 0; b < p->nb; b++)
        if (p->in[b]) memcpy(v[b], p->in[b] + i * p->w[b], (size_t)p->w[b] * sizeof(double));
    for (int u = 0; u < p->nupd; u++) {
        const mpcgi_pass_update *q = &p->upd[u];
        const int wd = p->w[q->dst], wsrc = p->w[q->src];
        for (int j = 0; j < wd; j++) {
            double acc = q->set ? 0.0 : v[q->dst][j];
            for (int a = 0; a < wsrc; a++)
                acc = fma(v[q->src][a], q->M[a * wd + j], acc);
            v[q->dst][j] = acc;
        }
    }
    for (int b = 0; b < p->nb; b++)
        if (p->out[b]) memcpy(p->out[b] + i * p->w[b], v[b], (size_t)p->w[b] * sizeof(double));
    for (int q = 0; q < p->nprod; q++) {
        const double *x = v[p->prod[q][0]], *y = v[p->prod[q][1]];
        const int wa = p->w[p->prod[q][0]], wb = p->w[p->prod[q][1]];
        double *c = part + cofs[q];
        for (int a = 0; a < wa; a++)
            for (int k = 0; k < wb; k++)
                c[a * wb + k] += x[a] * y[k];
    }
}

mpcg_status mpcgi_block_pass_host(mpcg_context *ctx, void *ws, const mpcgi_block_pass *p, double *C)
{
    MPCG_CHECK(ctx, mpcgi_block_pass_check(ctx, p));
    const int64_t n = p->n, nc = chunks_of(n), outs = mpcgi_pass_outputs(p);
    int cofs[MPCGI_PASS_PRODUCTS];
    for (int q = 0, o = 0; q < p->nprod; q++)
        cofs[q] = o, o += p->w[p->prod[q][0]] * p->w[p->prod[q][1]];
    double *part = ws;
#pragma omp parallel for schedule(static) if (n > 2 * CHUNK)
    for (int64_t c = 0; c < nc; c++) {
        double *pc = part + c * outs;
        memset(pc, 0, (size_t)outs * sizeof *pc);
        const int64_t e = (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n;
        for (int64_t i = c * CHUNK; i < e; i++)
            pass_row(p, i, cofs, pc);
    }
    for (int64_t k = 0; k < outs; k++) {
        double sum = 0;
        for (int64_t c = 0; c < nc; c++)
            sum += part[c * outs + k];
        C[k] = sum;
    }
    return MPCG_SUCCESS;
}
