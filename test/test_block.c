/* test/test_block.c: the host block kernels (core/block.h) against long double references; the
 * host pass (core/block_pass.h) on block CG's three shapes against the same fma in the test (the
 * written rows bit for bit, the products within (n + 2) eps sum |a||b|), outputs poisoned, and
 * mpcgi_block_pass_check's refusals; block CG (mpcg_solve_block) against single CG solves:
 * random and bundled matrices, both methods, duplicate, dependent and zero right-hand sides,
 * columns converging at different steps, refusals; on a GPU the same solves on its backends
 * with a block product */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "config.h"
#include "core/alloc.h"
#include "core/block.h"
#include "core/device.h"
#include "core/rng.h"
#include "spmv/spmv.h"
#include "test/block_pass_shapes.h"
#include "test/testutil.h"

static mpcgi_rng g;

/* xty and xb of the host tables on fresh random blocks, outputs poisoned first. */
static void check_host_kernels(const mpcgi_block_ops *B, int64_t n, int s, int t)
{
    const int f32 = B->prec == MPCG_PRECISION_FP32;
    const size_t es = f32 ? 4 : 8;
    void *X = malloc((size_t)n * s * es + 8), *Y = malloc((size_t)n * t * es + 8);
    void *ws = malloc(B->xty_workspace(n, s, t) + 8), *col = malloc((size_t)n * es + 8);
    double C[64 * 64], Bm[64 * 64];
    if (!X || !Y || !ws || !col) goto done;
#define AT(P, i) (f32 ? (double)((float *)(P))[i] : ((double *)(P))[i])
#define SET(P, i, v)                                                                               \
    (f32 ? (void)(((float *)(P))[i] = (float)(v)) : (void)(((double *)(P))[i] = (v)))
    for (int64_t i = 0; i < n * s; i++)
        SET(X, i, 2 * mpcgi_rng_uniform(&g) - 1);
    for (int64_t i = 0; i < n * t; i++)
        SET(Y, i, 2 * mpcgi_rng_uniform(&g) - 1);
    for (int i = 0; i < s * t; i++)
        C[i] = NAN, Bm[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK_OK(NULL, B->xty(NULL, ws, n, s, t, X, Y, C));
    for (int a = 0; a < s; a++)
        for (int b = 0; b < t; b++) {
            long double ref = 0, mag = 0;
            for (int64_t i = 0; i < n; i++) {
                ref += (long double)AT(X, i * s + a) * AT(Y, i * t + b);
                mag += fabsl((long double)AT(X, i * s + a) * AT(Y, i * t + b));
            }
            CHECK(fabsl(C[a * t + b] - ref) <= (long double)(n + 2) * DBL_EPSILON * mag);
        }
    /* Y = X Bm (beta 0: Y poisoned must not matter), then Y = 2 Y + X Bm */
    for (int64_t i = 0; i < n * t; i++)
        SET(Y, i, NAN);
    CHECK_OK(NULL, B->xb(NULL, n, s, t, X, Bm, 0.0, Y));
    const double eps = f32 ? FLT_EPSILON : DBL_EPSILON;
    for (int64_t i = 0; i < n; i += 1 + n / 97)
        for (int b = 0; b < t; b++) {
            long double ref = 0, mag = 0;
            for (int a = 0; a < s; a++) {
                const double bv = f32 ? (double)(float)Bm[a * t + b] : Bm[a * t + b];
                ref += (long double)AT(X, i * s + a) * bv, mag += fabsl(AT(X, i * s + a) * bv);
            }
            CHECK(fabsl(AT(Y, i * t + b) - ref) <= (long double)(s + 2) * eps * mag);
        }
    /* get_col / set_col are exact */
    CHECK_OK(NULL, B->get_col(NULL, n, s, s - 1, X, col));
    for (int64_t i = 0; i < n; i++)
        CHECK(AT(col, i) == AT(X, i * s + s - 1));
    for (int64_t i = 0; i < n; i++)
        SET(col, i, (double)i);
    CHECK_OK(NULL, B->set_col(NULL, n, s, 0, col, X));
    for (int64_t i = 0; i < n; i++)
        CHECK(AT(X, i * s) == (double)i);
#undef AT
#undef SET
done:
    free(X), free(Y), free(ws), free(col);
}

/* ---- the pass (core/block_pass.h) ---- */

/* The shapes (test/block_pass_shapes.h) with their host arrays. */
#define GUARD 4 /* values past the end of every array that a pass must leave alone */
static const double guard_value = -1234.5;

typedef struct pass_case {
    block_pass_shape sh;
    double *in[MPCGI_PASS_BLOCKS], *out[MPCGI_PASS_BLOCKS]; /* host arrays */
} pass_case;

/* The host arrays: inputs random, outputs of their own NaN, every one followed by GUARD values. */
static int pass_open(pass_case *c, mpcgi_rng *rg)
{
    mpcgi_block_pass *p = &c->sh.p;
    for (int b = 0; b < p->nb; b++) {
        const int64_t len = p->n * p->w[b];
        for (int k = 0; k < 2; k++) {
            double **a = k ? &c->out[b] : &c->in[b];
            if (!(k ? c->sh.out_kind[b] == 2 : c->sh.has_in[b])) continue;
            if (!(*a = malloc((size_t)(len + GUARD) * sizeof(double)))) return -1;
            for (int64_t i = 0; i < len; i++)
                (*a)[i] = k ? NAN : 2 * mpcgi_rng_uniform(rg) - 1;
            for (int i = 0; i < GUARD; i++)
                (*a)[len + i] = guard_value;
        }
        p->in[b] = c->in[b];
        p->out[b] = c->sh.out_kind[b] == 1 ? c->in[b] : c->out[b];
    }
    return 0;
}

static void pass_close(pass_case *c)
{
    for (int b = 0; b < MPCGI_PASS_BLOCKS; b++)
        free(c->in[b]), free(c->out[b]);
}

/* The pass in the test: the blocks' final rows to ref[b] (NULL: not kept), made with the same
 * fma in the same order; the products and their magnitudes sum |a||b| in long double. */
static void pass_reference(const mpcgi_block_pass *p, double *const *ref, long double *sum,
                           long double *mag)
{
    double row[MPCGI_PASS_BLOCKS][MPCGI_PASS_MAXW];
    for (int k = 0; k < mpcgi_pass_outputs(p); k++)
        sum[k] = mag[k] = 0;
    for (int64_t i = 0; i < p->n; i++) {
        for (int b = 0; b < p->nb; b++)
            for (int j = 0; j < p->w[b]; j++)
                row[b][j] = p->in[b] ? p->in[b][i * p->w[b] + j] : NAN;
        for (int u = 0; u < p->nupd; u++) {
            const mpcgi_pass_update *U = &p->upd[u];
            const int ws = p->w[U->src], wd = p->w[U->dst];
            for (int j = 0; j < wd; j++) {
                double acc = U->set ? 0 : row[U->dst][j];
                for (int a = 0; a < ws; a++)
                    acc = fma(row[U->src][a], U->M[a * wd + j], acc);
                row[U->dst][j] = acc;
            }
        }
        for (int b = 0; b < p->nb; b++)
            if (ref[b]) memcpy(ref[b] + i * p->w[b], row[b], (size_t)p->w[b] * sizeof(double));
        long double *s = sum, *g2 = mag;
        for (int q = 0; q < p->nprod; q++) {
            const double *x = row[p->prod[q][0]], *y = row[p->prod[q][1]];
            for (int a = 0; a < p->w[p->prod[q][0]]; a++)
                for (int c = 0; c < p->w[p->prod[q][1]]; c++) {
                    const long double v = (long double)x[a] * y[c];
                    *s++ += v, *g2++ += fabsl(v);
                }
        }
    }
}

/* The host pass against pass_reference: written rows bit for bit, the inputs not written over
 * unchanged, the guards kept, C (poisoned) within (n + 2) eps sum |a||b|. */
static void check_host_pass(int shape, int64_t n, int r, int m)
{
    static long double sum[PASS_C_MAX], mag[PASS_C_MAX];
    const mpcgi_block_ops *B = &mpcgi_block_host;
    double C[PASS_C_MAX], *ref[MPCGI_PASS_BLOCKS] = {0}, *orig[MPCGI_PASS_BLOCKS] = {0};
    void *ws = NULL;
    pass_case c;
    memset(&c, 0, sizeof c);
    pass_shape(&c.sh, shape, n, r, m, &g);
    const mpcgi_block_pass *p = &c.sh.p;
    const int no = mpcgi_pass_outputs(p), fails = test_failures;
    int bad = pass_open(&c, &g) != 0;
    for (int b = 0; !bad && b < p->nb; b++) {
        const size_t bytes = (size_t)n * p->w[b] * sizeof(double);
        bad = !(ref[b] = malloc(bytes + 8)) || !(orig[b] = malloc(bytes + 8));
        if (!bad && p->in[b]) memcpy(orig[b], p->in[b], bytes);
    }
    const size_t wsb = B->pass_workspace(n, pass_maxw(p));
    CHECK(!bad && (ws = malloc(wsb ? wsb : 1)));
    if (bad || !ws) goto done;
    pass_reference(p, ref, sum, mag);
    for (int k = 0; k < PASS_C_MAX; k++)
        C[k] = NAN;
    CHECK_OK(NULL, B->pass(NULL, ws, p, no ? C : NULL));
    for (int b = 0; b < p->nb; b++) {
        const int64_t len = n * p->w[b];
        if (p->out[b]) bad += memcmp(p->out[b], ref[b], (size_t)len * sizeof(double)) != 0;
        if (p->in[b] && p->out[b] != p->in[b])
            bad += memcmp(p->in[b], orig[b], (size_t)len * sizeof(double)) != 0;
        for (int i = 0; i < GUARD; i++)
            bad += (c.in[b] && c.in[b][len + i] != guard_value) +
                   (c.out[b] && c.out[b][len + i] != guard_value);
    }
    CHECK(bad == 0);
    for (int k = 0; k < no; k++)
        bad += !(fabsl(C[k] - sum[k]) <= (long double)(n + 2) * DBL_EPSILON * mag[k]);
    CHECK(bad == 0);
    for (int k = no; k < PASS_C_MAX; k++)
        bad += !isnan(C[k]); /* nothing past the products */
    CHECK(bad == 0);
done:
    if (test_failures != fails)
        printf("test_block: host pass, shape %d, n = %lld, r = %d, m = %d: FAILED\n", shape,
               (long long)n, r, m);
    for (int b = 0; b < MPCGI_PASS_BLOCKS; b++)
        free(ref[b]), free(orig[b]);
    free(ws);
    pass_close(&c);
}

/* mpcgi_block_pass_check on q: refused with a message, or accepted. */
static void pass_checked(mpcg_context *ctx, const mpcgi_block_pass *q, int refused, const char *why)
{
    mpcg_clear_error(ctx);
    const mpcg_status st = mpcgi_block_pass_check(ctx, q);
    if (refused ? st != MPCG_ERR_INVALID_ARG || !*mpcg_last_error(ctx) : st != MPCG_SUCCESS) {
        fprintf(stderr, "%s:%d: pass check, %s: %s (%s), expected %s (seed %" PRIu64 ")\n",
                __FILE__, __LINE__, why, mpcg_status_name(st), mpcg_last_error(ctx),
                refused ? "a refusal" : "success", test_seed);
        test_failures++;
    }
}

/* Each of mpcgi_block_pass_check's rules, one case each, and passes it must take; the host
 * table's pass checks first. */
static void check_pass_refusals(mpcg_context *ctx)
{
    static double dummy[2][MPCGI_PASS_BLOCKS][64], M[MPCGI_PASS_MAXW * MPCGI_PASS_MAXW];
    static block_pass_shape cs[2];
    pass_shape(&cs[0], 1, 10, 3, 5, &g); /* {P, Q, X, R}, two updates, four products */
    pass_shape(&cs[1], 3, 10, 3, 5, &g); /* {Z, P, W}, W without input, set by the second update */
    for (int k = 0; k < 2; k++) /* arrays never read: the check looks at the pointers alone */
        for (int b = 0; b < MPCGI_PASS_BLOCKS; b++) {
            const int o = cs[k].out_kind[b];
            cs[k].p.in[b] = cs[k].has_in[b] ? dummy[0][b] : NULL;
            cs[k].p.out[b] = o == 2 ? dummy[1][b] : o ? dummy[0][b] : NULL;
        }
    const mpcgi_block_pass a = cs[0].p, z = cs[1].p;
#define PASS_CASE(base, stmt, refused)                                                             \
    do {                                                                                           \
        mpcgi_block_pass q = (base);                                                               \
        stmt;                                                                                      \
        pass_checked(ctx, &q, refused, #stmt);                                                     \
    } while (0)
    PASS_CASE(a, (void)0, 0);
    PASS_CASE(z, (void)0, 0);
    PASS_CASE(a, q.n = 0, 0);
    PASS_CASE(a, (q.nupd = 0, q.nprod = 0), 0);
    PASS_CASE(z, (q.upd[0] = (mpcgi_pass_update){2, 1, 1, M}, q.upd[1].set = 0), 0); /* W set, += */
    PASS_CASE(z, (q.nb = 4, q.w[3] = 2, q.in[3] = q.out[3] = NULL), 0); /* a block left alone */
    for (int b = 0; b < 4; b++)
        PASS_CASE(a, q.w[b] = MPCGI_PASS_MAXW, 0);
    PASS_CASE(a, q.nb = 0, 1);
    PASS_CASE(a, q.nb = 5, 1);
    PASS_CASE(a, q.nupd = -1, 1);
    PASS_CASE(a, q.nupd = 3, 1);
    PASS_CASE(a, q.nprod = -1, 1);
    PASS_CASE(a, q.nprod = 5, 1);
    PASS_CASE(a, q.w[1] = 0, 1);
    PASS_CASE(a, q.w[3] = MPCGI_PASS_MAXW + 1, 1);
    PASS_CASE(a, q.n = -1, 1);
    PASS_CASE(a, q.upd[0].dst = 4, 1);
    PASS_CASE(a, q.upd[1].src = -1, 1);
    PASS_CASE(a, q.prod[2][1] = 4, 1);
    PASS_CASE(a, q.prod[0][0] = -1, 1);
    PASS_CASE(a, q.upd[1].src = 3, 1); /* dst == src */
    PASS_CASE(a, q.upd[0].M = NULL, 1);
    PASS_CASE(z, q.upd[0].src = 2, 1); /* W read before it is set */
    PASS_CASE(z, q.upd[1].set = 0, 1); /* W += Z T without a W */
    PASS_CASE(z, (q.nupd = 1, q.out[2] = NULL, q.nprod = 1, q.prod[0][0] = 1, q.prod[0][1] = 2), 1);
    PASS_CASE(z, q.nupd = 1, 1); /* W written, never set */
#undef PASS_CASE
    mpcgi_block_pass q = a;
    q.nb = 0;
    double C[PASS_C_MAX];
    CHECK_STATUS(ctx, mpcgi_block_host.pass(ctx, dummy[1][0], &q, C), MPCG_ERR_INVALID_ARG);
    CHECK(mpcgi_block_host.pass_workspace && mpcgi_block_host.pass);
    CHECK(!mpcgi_block_host_f32.pass_workspace && !mpcgi_block_host_f32.pass);
    CHECK(mpcgi_block_ops_for(MPCG_DEVICE_CPU, MPCG_PRECISION_FP64) == &mpcgi_block_host);
    mpcg_clear_error(ctx);
}

/* ||b - A x|| / ||b|| in long double. */
static double relres(const mpcg_matrix *A, const double *b, const double *x)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (mpcg_matrix_csr(A, &rp, &ci, &v) != MPCG_SUCCESS) return INFINITY;
    long double r2 = 0, b2 = 0;
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++) {
        long double ax = 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            ax += (long double)v[k] * x[ci[k]];
        r2 += (b[i] - ax) * (b[i] - ax), b2 += (long double)b[i] * b[i];
    }
    return b2 > 0 ? (double)sqrtl(r2 / b2) : (double)sqrtl(r2);
}

/* B (n x nrhs, column-major) random, then `kind`: 1 column 1 = column 0, column 2 = 0, column 3
 * = column 0 + column 1 (rank deficient); 2 column 0 = A times ones (a smooth x: it converges
 * at another step than the random columns). */
static void make_rhs(const mpcg_matrix *A, int nrhs, int kind, double *B)
{
    const int64_t n = mpcg_matrix_n(A);
    for (int64_t i = 0; i < n * nrhs; i++)
        B[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    if (kind == 1 && nrhs >= 4)
        for (int64_t i = 0; i < n; i++)
            B[n + i] = B[i], B[2 * n + i] = 0, B[3 * n + i] = B[i] + B[n + i];
    if (kind == 2) {
        const int64_t *rp;
        const int32_t *ci;
        const double *v;
        if (mpcg_matrix_csr(A, &rp, &ci, &v) != MPCG_SUCCESS) return;
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int64_t k = rp[i]; k < rp[i + 1]; k++)
                s += v[k];
            B[i] = s;
        }
    }
}

/* Block solve of A X = B (both methods) against single CG solves of each column. */
static void check_solve(mpcg_context *ctx, const char *spmv, const mpcg_matrix *Am,
                        const char *name, int nrhs, int kind, mpcg_precond precond)
{
    mpcg_matrix *A = (mpcg_matrix *)Am;
    const int64_t n = mpcg_matrix_n(A);
    double *B = malloc((size_t)(n * nrhs) * 8), *X = malloc((size_t)(n * nrhs) * 8);
    double *x1 = malloc((size_t)n * 8);
    mpcg_info infos[64], one;
    mpcg_solver *S = NULL;
    if (!B || !X || !x1) goto done;
    make_rhs(A, nrhs, kind, B);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S) goto done;
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, spmv));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, precond));
    int64_t single_max = 0, its[64];
    for (int j = 0; j < nrhs; j++) {
        for (int64_t i = 0; i < n; i++)
            x1[i] = NAN;
        CHECK_OK(ctx, mpcg_solve(S, B + j * n, x1, &one));
        its[j] = one.iterations;
        single_max = one.iterations > single_max ? one.iterations : single_max;
    }
    for (int method = 0; method < 2; method++) {
        CHECK_OK(ctx, mpcg_solver_set_option(S, "block.method", method ? "independent" : "block"));
        for (int64_t i = 0; i < n * nrhs; i++)
            X[i] = NAN;
        CHECK_OK(ctx, mpcg_solve_block(S, nrhs, B, X, infos));
        int64_t block_max = 0;
        for (int j = 0; j < nrhs; j++) {
            const double rr = relres(A, B + j * n, X + j * n);
            CHECK(infos[j].converged);
            CHECK(rr <= 1e-8 * 1.0001 || infos[j].reason == MPCG_CONVERGED_ZERO_RHS);
            CHECK(fabs(rr - infos[j].true_relres) <= 1e-3 * rr + 1e-14);
            if (infos[j].reason == MPCG_CONVERGED_ZERO_RHS)
                for (int64_t i = 0; i < n; i++)
                    CHECK(X[j * n + i] == 0);
            /* independent: each column is its single CG, up to rounding */
            if (method == 1 && infos[j].reason != MPCG_CONVERGED_ZERO_RHS)
                CHECK(llabs(infos[j].iterations - its[j]) <= 2 + its[j] / 20);
            block_max = infos[j].iterations > block_max ? infos[j].iterations : block_max;
        }
        /* never slower than one CG, up to rounding */
        if (method == 0) CHECK(block_max <= single_max + 2 + single_max / 50);
        printf("test_block: %s %s, %d rhs (kind %d, precond %s), %s: %lld steps (single CG: "
               "%lld), %lld block products\n",
               spmv, name, nrhs, kind, mpcg_precond_name(precond), method ? "independent" : "block",
               (long long)block_max, (long long)single_max, (long long)infos[0].spmvs);
    }
done:
    mpcg_solver_destroy(S);
    free(B), free(X), free(x1);
}

/* Bad arguments and configurations are refused with messages. */
static void check_refusals(mpcg_context *ctx, mpcg_matrix *A)
{
    mpcg_solver *S = NULL;
    double B[4096], X[4096];
    mpcg_info infos[65];
    const int64_t n = mpcg_matrix_n(A);
    for (int64_t i = 0; i < n && i < 4096; i++)
        B[i] = 1, X[i] = 0;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S || n > 4096) goto done;
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_solve_block(S, 0, B, X, infos), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "nrhs = 0 out of range"));
    CHECK_STATUS(ctx, mpcg_solve_block(S, 65, B, X, infos), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solve_block(S, 1, NULL, X, infos), MPCG_ERR_INVALID_ARG);
    B[3] = NAN;
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_solve_block(S, 1, B, X, infos), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "column 0 of B is not finite"));
    B[3] = 1;
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_FP32));
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_solve_block(S, 1, B, X, infos), MPCG_ERR_NOT_SUPPORTED);
    CHECK(strstr(mpcg_last_error(ctx), "block CG runs in fp64"));
    CHECK_OK(ctx, mpcg_solver_set_precision(S, MPCG_PRECISION_FP64));
    /* a backend of this build without a block product where ctx computes (none in a CPU-only
     * build, whose one backend is cpu) */
    const int gpu = mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA;
    for (int i = 0; i < mpcgi_spmv_count(); i++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_get(i);
        const int has = gpu ? ops->apply_block != NULL : ops->apply_block_host != NULL;
        if (has || (gpu && !(ops->caps & MPCG_CAP_NEEDS_DEVICE))) continue;
        if (!gpu && !(ops->caps & MPCG_CAP_CPU_EMULATION) && (ops->caps & MPCG_CAP_NEEDS_DEVICE))
            continue;
        char want[96];
        snprintf(want, sizeof want, "backend %s has no block product", ops->name);
        CHECK_OK(ctx, mpcg_solver_set_spmv(S, ops->name));
        mpcg_clear_error(ctx);
        CHECK_STATUS(ctx, mpcg_solve_block(S, 1, B, X, infos), MPCG_ERR_NOT_SUPPORTED);
        CHECK(strstr(mpcg_last_error(ctx), want));
        break;
    }
    CHECK_STATUS(ctx, mpcg_solve_block_device(S, 1, B, X, infos),
                 mpcg_context_device_kind(ctx) == MPCG_DEVICE_CPU ? MPCG_ERR_INVALID_STATE
                                                                  : MPCG_ERR_NOT_SUPPORTED);
done:
    mpcg_clear_error(ctx);
    mpcg_solver_destroy(S);
}

static void check_context(mpcg_context *ctx, const char *const *backends)
{
    mpcg_matrix *P = NULL, *R = NULL, *F = NULL;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:30", &P));
    R = test_random_spd(ctx, 2000, test_seed);
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, test_data("bcsstk05.mtx"), &F));
    for (const char *const *b = backends; *b; b++) {
        if (P) check_solve(ctx, *b, P, "poisson2d:30", 8, 0, MPCG_PRECOND_NONE);
        if (P) check_solve(ctx, *b, P, "poisson2d:30", 6, 1, MPCG_PRECOND_JACOBI);
        if (R) check_solve(ctx, *b, R, "random 2000", 4, 2, MPCG_PRECOND_AUTO);
        /* more columns than a pass takes: two blocks of 20, one after the other */
        if (R) check_solve(ctx, *b, R, "random 2000", 40, 1, MPCG_PRECOND_NONE);
        if (F) check_solve(ctx, *b, F, "bcsstk05", 5, 1, MPCG_PRECOND_AUTO);
        if (F) check_solve(ctx, *b, F, "bcsstk05", 1, 0, MPCG_PRECOND_CHEBYSHEV);
        if (F) check_solve(ctx, *b, F, "bcsstk05", 3, 2, MPCG_PRECOND_CHEBYSHEV);
    }
    if (P) check_refusals(ctx, P);
    mpcg_matrix_destroy(P), mpcg_matrix_destroy(R), mpcg_matrix_destroy(F);
}

int main(void)
{
    test_init_seed("test_block");
    mpcgi_rng_seed(&g, test_seed);
    const int shapes[][3] = {{1, 1, 1}, {1000, 2, 3}, {10007, 8, 8}, {5000, 17, 5}, {3000, 64, 64}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        check_host_kernels(&mpcgi_block_host, shapes[k][0], shapes[k][1], shapes[k][2]);
        check_host_kernels(&mpcgi_block_host_f32, shapes[k][0], shapes[k][1], shapes[k][2]);
    }
    const int64_t pass_ns[] = {0, 1, 1000, 4097 * 3 + 5};
    const int pass_w[] = {1, 3, 8, 16, 32};
    for (int shape = 0; shape < PASS_SHAPES; shape++)
        for (int i = 0; i < 4; i++)
            for (int r = 0; r < 5; r++)
                for (int m = r; m < 5; m++)
                    check_host_pass(shape, pass_ns[i], pass_w[r], pass_w[m]);
    mpcg_context *cpu = NULL, *gpu = NULL;
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (cpu) check_pass_refusals(cpu);
    const char *const cpu_backends[] = {"cpu", NULL};
    if (cpu) check_context(cpu, cpu_backends), mpcg_context_destroy(cpu);
    if (mpcgi_device_count() == 0) {
        printf("test_block: no usable GPU, the GPU checks are skipped\n");
        return test_finish("test_block");
    }
    const char *const gpu_backends[] = {"cusparse", "adaptive", NULL};
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (gpu) check_context(gpu, gpu_backends), mpcg_context_destroy(gpu);
    return test_finish("test_block");
}
