/* test/test_block_cuda.c: the device block tables (core/block_cuda.c) against the host ones
 * (core/block.c) on random blocks, outputs poisoned with NaN first: C = X^T Y in both modes
 * (deterministic: twice the same bits; both within (n + 2) eps sum |x||y| of a long double
 * reference), Y = beta Y + X B bit for bit (both sides fma in the same order), beta = 0 over a
 * NaN Y, get_col / set_col exact; n in {0, 1, 1000, 100003, 2000000}, s x t from 1 x 1 to 64 x 64,
 * fp64 and fp32. The pass (core/block_pass.h) on block CG's three shapes, widths 1 to 32, n up to
 * 2000000 (in place, to arrays of their own, W without input), against the host's on the same
 * inputs: the written rows bit for bit, the inputs not written over unchanged, the products
 * within (n + 2) eps sum |a||b| and the same bits twice; a block 33 wide refused */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/block_cuda.h"
#include "core/device.h"
#include "test/block_pass_shapes.h"
#include "test/testutil.h"

/* Products n s t above this skip the long double reference (a few seconds in all). */
#define MAX_REF_WORK 4.2e8

static mpcg_context *cpu, *gpu;

/* One case's arrays: X (n x s), Y (n x t), on the host and the device, of `elem` bytes a value. */
typedef struct blocks {
    int64_t n;
    int s, t;
    size_t elem;
    mpcg_precision prec;
    void *X, *Y;   /* host */
    void *dX, *dY; /* device */
} blocks;

static double value_at(const blocks *b, const void *p, int64_t i)
{
    return b->elem == sizeof(double) ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void fill(const blocks *b, void *p, int64_t count, mpcgi_rng *g, int nan)
{
    for (int64_t i = 0; i < count; i++) {
        const double v = nan ? NAN : 2 * mpcgi_rng_uniform(g) - 1;
        if (b->elem == sizeof(double))
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

static int blocks_open(blocks *b, int64_t n, int s, int t, mpcg_precision prec, mpcgi_rng *g)
{
    memset(b, 0, sizeof *b);
    b->n = n, b->s = s, b->t = t, b->prec = prec;
    b->elem = prec == MPCG_PRECISION_FP64 ? sizeof(double) : sizeof(float);
    const size_t xs = (size_t)n * s * b->elem + 16, ys = (size_t)n * t * b->elem + 16;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, xs, &b->X));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, ys, &b->Y));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, xs, &b->dX));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, ys, &b->dY));
    if (!b->X || !b->Y || !b->dX || !b->dY) return -1;
    fill(b, b->X, n * s, g, 0);
    fill(b, b->Y, n * t, g, 0);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dX, b->X, (size_t)n * s * b->elem, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dY, b->Y, (size_t)n * t * b->elem, MPCGI_H2D));
    return 0;
}

static void blocks_close(blocks *b)
{
    mpcgi_host_free(b->X), mpcgi_host_free(b->Y);
    mpcgi_device_free(gpu, b->dX), mpcgi_device_free(gpu, b->dY);
}

/* C within (n + 2) eps sum_i |x_ia||y_ib| of the long double sum, entry by entry. */
static int xty_close(const blocks *b, const double *C)
{
    const int s = b->s, t = b->t;
    static long double sum[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    static long double mag[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    double x[MPCGI_BLOCK_MAX], y[MPCGI_BLOCK_MAX];
    for (int k = 0; k < s * t; k++)
        sum[k] = mag[k] = 0;
    for (int64_t i = 0; i < b->n; i++) {
        for (int a = 0; a < s; a++)
            x[a] = value_at(b, b->X, i * s + a);
        for (int c = 0; c < t; c++)
            y[c] = value_at(b, b->Y, i * t + c);
        for (int a = 0; a < s; a++)
            for (int c = 0; c < t; c++) {
                const long double p = (long double)x[a] * y[c];
                sum[a * t + c] += p, mag[a * t + c] += fabsl(p);
            }
    }
    int bad = 0;
    for (int k = 0; k < s * t; k++) {
        const double err = (double)fabsl((long double)C[k] - sum[k]);
        if (!(err <= (double)(b->n + 2) * DBL_EPSILON * (double)mag[k])) bad++;
    }
    return bad == 0;
}

static void poison(double *C, int count)
{
    for (int k = 0; k < count; k++)
        C[k] = NAN;
}

/* The table's xty twice (the same bits), then both modes of xty_dev. */
static void check_xty(const blocks *b, const mpcgi_block_ops *dev)
{
    const int st = b->s * b->t;
    const size_t ws_bytes = dev->xty_workspace(b->n, b->s, b->t);
    double *C1 = NULL, *C2 = NULL, *C3 = NULL, *dC = NULL;
    void *ws = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, 3 * (size_t)st, sizeof(double), &C1));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, ws_bytes, &ws));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, (size_t)st * sizeof(double), &dC));
    if (!C1 || !ws || !dC) goto done;
    C2 = C1 + st, C3 = C2 + st;
    poison(C1, 3 * st);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, ws, C1, (size_t)st * sizeof(double), MPCGI_H2D));

    CHECK_OK(gpu, dev->xty(gpu, ws, b->n, b->s, b->t, b->dX, b->dY, C1));
    CHECK_OK(gpu, dev->xty(gpu, ws, b->n, b->s, b->t, b->dX, b->dY, C2));

    CHECK(memcmp(C1, C2, (size_t)st * sizeof(double)) == 0);
    CHECK(xty_close(b, C1));
    for (int mode = 0; mode < 2; mode++) {
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dC, C3, (size_t)st * sizeof(double), MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_block_cuda_xty_dev(gpu, b->prec, (mpcgi_tsgemm_mode)mode,
                                               (char *)ws + (size_t)st * sizeof(double), b->n, b->s,
                                               b->t, b->dX, b->dY, dC));
        double *out = mode ? C3 : C2;
        CHECK_OK(gpu, mpcgi_device_copy(gpu, out, dC, (size_t)st * sizeof(double), MPCGI_D2H));
        if (mode == 0)
            CHECK(memcmp(C1, C2, (size_t)st * sizeof(double)) == 0);
        else
            CHECK(xty_close(b, C3));
    }
done:
    mpcgi_host_free(C1);
    mpcgi_device_free(gpu, ws), mpcgi_device_free(gpu, dC);
}

/* Y = beta Y + X B on both sides, bit for bit; beta = 0 over a NaN Y. */
static void check_xb(const blocks *b, const mpcgi_block_ops *host, const mpcgi_block_ops *dev,
                     mpcgi_rng *g)
{
    const size_t ybytes = (size_t)b->n * b->t * b->elem;
    double B[MPCGI_BLOCK_MAX * MPCGI_BLOCK_MAX];
    void *Yh = NULL, *Yd = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, ybytes + 16, &Yh));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, ybytes + 16, &Yd));
    if (!Yh || !Yd) goto done;
    for (int k = 0; k < b->s * b->t; k++)
        B[k] = 2 * mpcgi_rng_uniform(g) - 1;
    for (int pass = 0; pass < 2; pass++) {
        const double beta = pass ? 0.75 : 0.0;
        if (pass)
            memcpy(Yh, b->Y, ybytes);
        else
            fill(b, Yh, b->n * b->t, g, 1);
        CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dY, Yh, ybytes, MPCGI_H2D));

        CHECK_OK(cpu, host->xb(cpu, b->n, b->s, b->t, b->X, B, beta, Yh));
        CHECK_OK(gpu, dev->xb(gpu, b->n, b->s, b->t, b->dX, B, beta, b->dY));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, Yd, b->dY, ybytes, MPCGI_D2H));

        CHECK(memcmp(Yh, Yd, ybytes) == 0);
        for (int64_t i = 0; !pass && i < b->n * b->t; i++)
            if (isnan(value_at(b, Yd, i))) {
                CHECK(!"beta = 0 left a NaN of Y");
                break;
            }
    }
    /* back to the case's Y for what follows */
    CHECK_OK(gpu, mpcgi_device_copy(gpu, b->dY, b->Y, ybytes, MPCGI_H2D));
done:
    mpcgi_host_free(Yh), mpcgi_host_free(Yd);
}

/* get_col of columns 0 and s - 1, then set_col of column s / 2: exact. */
static void check_cols(const blocks *b, const mpcgi_block_ops *host, const mpcgi_block_ops *dev,
                       mpcgi_rng *g)
{
    const size_t vbytes = (size_t)b->n * b->elem, xbytes = vbytes * b->s;
    void *x = NULL, *xd = NULL, *Xh = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, vbytes + 16, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, vbytes + 16, &xd));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, xbytes + 16, &Xh));
    void *dx = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, vbytes + 16, &dx));
    if (!x || !xd || !Xh || !dx) goto done;
    const int cols[2] = {0, b->s - 1};
    for (int k = 0; k < 2; k++) {
        fill(b, xd, b->n, g, 1);
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, xd, vbytes, MPCGI_H2D));
        CHECK_OK(cpu, host->get_col(cpu, b->n, b->s, cols[k], b->X, x));
        CHECK_OK(gpu, dev->get_col(gpu, b->n, b->s, cols[k], b->dX, dx));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, xd, dx, vbytes, MPCGI_D2H));
        CHECK(memcmp(x, xd, vbytes) == 0);
    }
    fill(b, x, b->n, g, 0);
    memcpy(Xh, b->X, xbytes);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, vbytes, MPCGI_H2D));
    CHECK_OK(cpu, host->set_col(cpu, b->n, b->s, b->s / 2, x, Xh));
    CHECK_OK(gpu, dev->set_col(gpu, b->n, b->s, b->s / 2, dx, b->dX));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, b->X, b->dX, xbytes, MPCGI_D2H));
    CHECK(memcmp(Xh, b->X, xbytes) == 0);
done:
    mpcgi_host_free(x), mpcgi_host_free(xd), mpcgi_host_free(Xh);
    mpcgi_device_free(gpu, dx);
}

static void check_case(int64_t n, int s, int t, mpcg_precision prec, mpcgi_rng *g)
{
    const mpcgi_block_ops *host = mpcgi_block_ops_for(MPCG_DEVICE_CPU, prec);
    const mpcgi_block_ops *dev = mpcgi_block_ops_for(MPCG_DEVICE_CUDA, prec);
    const int fails = test_failures;
    blocks b;
    CHECK(host && dev);
    if (!host || !dev) return;
    if (blocks_open(&b, n, s, t, prec, g) == 0) {
        check_xty(&b, dev);
        check_xb(&b, host, dev, g);
        check_cols(&b, host, dev, g);
    }
    blocks_close(&b);
    printf("  n = %lld, %d x %d, %s: %s\n", (long long)n, s, t, mpcg_precision_name(prec),
           test_failures == fails ? "ok" : "FAILED");
}

/* ---- the pass (core/block_pass.h) ---- */

/* The shapes (test/block_pass_shapes.h) with their arrays on both sides. */
typedef struct pass_case {
    block_pass_shape sh;
    mpcgi_block_pass dp; /* sh.p on the device's arrays (sh.p: on the host's) */
    double *in[MPCGI_PASS_BLOCKS], *out[MPCGI_PASS_BLOCKS], *orig[MPCGI_PASS_BLOCKS]; /* host */
    double *din[MPCGI_PASS_BLOCKS], *dout[MPCGI_PASS_BLOCKS];                         /* device */
} pass_case;

/* The inputs (random, kept in orig) copied to the device again. */
static void pass_load(const pass_case *c)
{
    for (int b = 0; b < c->sh.p.nb; b++)
        if (c->sh.has_in[b])
            CHECK_OK(gpu, mpcgi_device_copy(gpu, c->din[b], c->orig[b],
                                            (size_t)(c->sh.p.n * c->sh.p.w[b]) * sizeof(double),
                                            MPCGI_H2D));
}

/* The arrays on both sides, outputs of their own NaN; sh.p and dp point to them. */
static int pass_open(pass_case *c, mpcgi_rng *g)
{
    for (int b = 0; b < c->sh.p.nb; b++) {
        const int64_t len = c->sh.p.n * c->sh.p.w[b];
        const size_t bytes = (size_t)len * sizeof(double) + 16;
        if (c->sh.has_in[b]) {
            CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &c->in[b]));
            CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &c->orig[b]));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &c->din[b]));
            if (!c->in[b] || !c->orig[b] || !c->din[b]) return -1;
            for (int64_t i = 0; i < len; i++)
                c->orig[b][i] = 2 * mpcgi_rng_uniform(g) - 1;
            memcpy(c->in[b], c->orig[b], (size_t)len * sizeof(double));
        }
        if (c->sh.out_kind[b] == 2) {
            CHECK_OK(cpu, mpcgi_host_alloc(cpu, bytes, &c->out[b]));
            CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &c->dout[b]));
            if (!c->out[b] || !c->dout[b]) return -1;
            for (int64_t i = 0; i < len; i++)
                c->out[b][i] = NAN;
            CHECK_OK(gpu, mpcgi_device_copy(gpu, c->dout[b], c->out[b],
                                            (size_t)len * sizeof(double), MPCGI_H2D));
        }
        c->sh.p.in[b] = c->in[b], c->dp.in[b] = c->din[b];
        c->sh.p.out[b] = c->sh.out_kind[b] == 1 ? c->in[b] : c->out[b];
        c->dp.out[b] = c->sh.out_kind[b] == 1 ? c->din[b] : c->dout[b];
    }
    pass_load(c);
    return 0;
}

static void pass_close(pass_case *c)
{
    for (int b = 0; b < MPCGI_PASS_BLOCKS; b++) {
        mpcgi_host_free(c->in[b]), mpcgi_host_free(c->out[b]), mpcgi_host_free(c->orig[b]);
        mpcgi_device_free(gpu, c->din[b]), mpcgi_device_free(gpu, c->dout[b]);
    }
}

/* C1 and C2 (the host's and the device's products) within (n + 2) eps sum |a||b| of the long
 * double products of the blocks as the host pass left them (written, else the inputs). */
static int pass_products_close(const pass_case *c, const double *C1, const double *C2)
{
    static long double sum[PASS_C_MAX];
    static double mag[PASS_C_MAX]; /* a bound's scale: double is enough, and twice as fast */
    const mpcgi_block_pass *p = &c->sh.p;
    const int no = mpcgi_pass_outputs(p);
    for (int k = 0; k < no; k++)
        sum[k] = mag[k] = 0;
    for (int64_t i = 0; i < p->n; i++) {
        long double *s = sum;
        double *g = mag;
        for (int q = 0; q < p->nprod; q++) {
            const int A = p->prod[q][0], B = p->prod[q][1], wa = p->w[A], wb = p->w[B];
            const double *x = (p->out[A] ? p->out[A] : c->orig[A]) + i * wa;
            const double *y = (p->out[B] ? p->out[B] : c->orig[B]) + i * wb;
            for (int a = 0; a < wa; a++)
                for (int b = 0; b < wb; b++)
                    *s++ += (long double)x[a] * y[b], *g++ += fabs(x[a] * y[b]);
        }
    }
    int bad = 0;
    for (int k = 0; k < no; k++) {
        const long double tol = (long double)(p->n + 2) * DBL_EPSILON * mag[k];
        bad += !(fabsl(C1[k] - sum[k]) <= tol) + !(fabsl(C2[k] - sum[k]) <= tol);
    }
    return bad == 0;
}

/* The device pass against the host pass on the same inputs: written rows bit for bit, inputs not
 * written over unchanged, the products close, and a second run the same C bits. */
static int check_pass_case(int shape, int64_t n, int r, int m, mpcgi_rng *g)
{
    const mpcgi_block_ops *host = mpcgi_block_ops_for(MPCG_DEVICE_CPU, MPCG_PRECISION_FP64);
    const mpcgi_block_ops *dev = mpcgi_block_ops_for(MPCG_DEVICE_CUDA, MPCG_PRECISION_FP64);
    static pass_case c;
    static double C[3][PASS_C_MAX];
    void *hws = NULL, *dws = NULL, *back = NULL;
    const int fails = test_failures;
    memset(&c, 0, sizeof c);
    pass_shape(&c.sh, shape, n, r, m, g);
    const int no = mpcgi_pass_outputs(&c.sh.p), maxw = pass_maxw(&c.sh.p);
    c.dp = c.sh.p;
    CHECK(host && dev && host->pass && dev->pass);
    if (!host || !dev || !host->pass || !dev->pass || pass_open(&c, g) != 0) goto done;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, host->pass_workspace(n, maxw), &hws));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, dev->pass_workspace(n, maxw), &dws));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, (size_t)n * maxw * sizeof(double) + 16, &back));
    if (!hws || !dws || !back) goto done;
    for (int k = 0; k < 3 * PASS_C_MAX; k++)
        C[k / PASS_C_MAX][k % PASS_C_MAX] = NAN;
    CHECK_OK(cpu, host->pass(cpu, hws, &c.sh.p, no ? C[0] : NULL));
    CHECK_OK(gpu, dev->pass(gpu, dws, &c.dp, no ? C[1] : NULL));
    int bad = 0;
    for (int b = 0; b < c.sh.p.nb; b++) {
        const size_t bytes = (size_t)(n * c.sh.p.w[b]) * sizeof(double);
        if (c.dp.out[b]) {
            CHECK_OK(gpu, mpcgi_device_copy(gpu, back, c.dp.out[b], bytes, MPCGI_D2H));
            bad += memcmp(back, c.sh.p.out[b], bytes) != 0;
        }
        if (c.dp.in[b] && c.dp.out[b] != c.dp.in[b]) {
            CHECK_OK(gpu, mpcgi_device_copy(gpu, back, c.dp.in[b], bytes, MPCGI_D2H));
            bad += memcmp(back, c.orig[b], bytes) != 0;
        }
    }
    CHECK(bad == 0);
    CHECK(pass_products_close(&c, C[0], C[1]));
    pass_load(&c); /* the blocks written in place back as they were */
    CHECK_OK(gpu, dev->pass(gpu, dws, &c.dp, no ? C[2] : NULL));
    CHECK(memcmp(C[1], C[2], sizeof C[1]) == 0); /* the products' bits, and what is past them */
    bad = 0;
    for (int k = no; k < PASS_C_MAX; k++)
        bad += !isnan(C[1][k]); /* nothing written past them */
    CHECK(bad == 0);
done:
    if (test_failures != fails)
        printf("  pass shape %d, n = %lld, r = %d, m = %d: FAILED\n", shape, (long long)n, r, m);
    mpcgi_host_free(hws), mpcgi_host_free(back);
    mpcgi_device_free(gpu, dws);
    pass_close(&c);
    return test_failures == fails;
}

/* Every shape and pair of widths up to n = 1000; n = 100003 without r = 3 - 16 with m = 32 (the
 * long double reference takes time); n = 2000000 on two of them. */
static void check_passes(mpcgi_rng *g)
{
    const int64_t ns[] = {0, 1, 1000, 100003};
    const int ws[] = {1, 3, 7, 8, 16, 32};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int cases = 0, ok = 0;
        for (int shape = 0; shape < PASS_SHAPES; shape++)
            for (int r = 0; r < 6; r++)
                for (int m = r; m < 6; m++) {
                    if (ns[i] > 1000 && ws[m] == 32 && r > 0 && r < 5) continue;
                    ok += check_pass_case(shape, ns[i], ws[r], ws[m], g), cases++;
                }
        printf("  pass, n = %lld: %d of %d cases ok\n", (long long)ns[i], ok, cases);
    }
    const int big[][3] = {{1, 8, 8}, {3, 7, 16}};
    for (int k = 0; k < 2; k++) {
        const int ok = check_pass_case(big[k][0], 2000000, big[k][1], big[k][2], g);
        printf("  pass shape %d, n = 2000000, r = %d, m = %d: %s\n", big[k][0], big[k][1],
               big[k][2], ok ? "ok" : "FAILED");
    }
}

/* Widths out of range are refused, naming them. */
static void check_refusals(void)
{
    const mpcgi_block_ops *dev = mpcgi_block_ops_for(MPCG_DEVICE_CUDA, MPCG_PRECISION_FP64);
    double B[1] = {1}, C[1];
    CHECK_STATUS(gpu, dev->xb(gpu, 10, 0, 1, NULL, B, 0, NULL), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(gpu, dev->get_col(gpu, 10, 4, 4, NULL, NULL), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(gpu,
                 mpcgi_block_cuda_xty_dev(gpu, MPCG_PRECISION_FP64, MPCGI_TSGEMM_DETERMINISTIC,
                                          NULL, 10, 65, 1, NULL, NULL, C),
                 MPCG_ERR_INVALID_ARG);
    /* a pass with a block 33 wide (real arrays, should it run); fp32 has no pass */
    static double Cp[PASS_C_MAX];
    double *d = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 4 * 10 * 33 * sizeof(double), &d));
    if (d) {
        mpcgi_block_pass p = {.n = 10,
                              .nb = 3,
                              .nprod = 2,
                              .w = {3, 3, MPCGI_PASS_MAXW + 1},
                              .in = {d, d + 330, d + 660},
                              .prod = {{0, 1}, {0, 2}}};
        CHECK_STATUS(gpu, dev->pass(gpu, d + 990, &p, Cp), MPCG_ERR_INVALID_ARG);
    }
    mpcgi_device_free(gpu, d);
    CHECK(!mpcgi_block_cuda_f32.pass && !mpcgi_block_cuda_f32.pass_workspace);
    mpcg_clear_error(gpu);
}

int main(void)
{
    test_init_seed("test_block_cuda");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_block_cuda");
    if (mpcgi_device_count() == 0) {
        printf("test_block_cuda: no usable GPU, the GPU checks are skipped\n");
        mpcg_context_destroy(cpu);
        return TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    const int64_t ns[] = {0, 1, 1000, 100003, 2000000};
    const int st[][2] = {{1, 1}, {2, 3}, {8, 8}, {16, 16}, {17, 5}, {32, 32}, {64, 64}};
    const mpcg_precision precs[] = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32};
    for (int p = 0; gpu && p < 2; p++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t k = 0; k < sizeof st / sizeof st[0]; k++) {
                if ((double)ns[i] * st[k][0] * st[k][1] > MAX_REF_WORK) {
                    printf("  n = %lld, %d x %d: skipped (reference too long)\n", (long long)ns[i],
                           st[k][0], st[k][1]);
                    continue;
                }
                check_case(ns[i], st[k][0], st[k][1], precs[p], &g);
            }
    if (gpu) check_passes(&g);
    if (gpu) check_refusals();
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return test_finish("test_block_cuda");
}
