/* test/test_batch.c: batches of small systems (core/batch.c, solver/batch_cg.c,
 * spmv/spmm/batch.c): batched CG on the CPU against one mpcg_solve per system (200 Laplacians of
 * 9 .. 196 rows with random diagonals, plain and Jacobi; converged, true residual as computed
 * here, x and counts as the single solves'), the members that stop alone (a negated system, b =
 * 0, a 1 x 1 system, the iteration cap), new values, the empty batch, the largest system a batch
 * takes; the batched SpMM against long double and the host's fma order; the refusals and their
 * messages; on a GPU the same batches against the CPU's (reasons, counts, x; the SpMM bit for
 * bit), device arrays as host arrays, and a 55 x 55 system whose vectors live in global memory */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/batch.h"
#include "core/device.h"
#include "core/rng.h"
#include "test/testutil.h"

static mpcgi_rng g;

/* A batch as the caller holds it: the arguments of mpcg_batch_create. */
typedef struct bdata {
    int64_t k, *off, *ptr;
    int32_t *col;
    double *val;
} bdata;

#define ROWS(B) ((B)->off[(B)->k])

static void bfree(bdata *B)
{
    free(B->off), free(B->ptr), free(B->col), free(B->val);
    memset(B, 0, sizeof *B);
}

/* k systems: system i a grid x grid 5-point Laplacian, grid random in [3, 14], but 1 (a 1 x 1
 * system) for system `one` and 55 for system `big`; every diagonal entry times a random factor in
 * [1, 1.5), local columns sorted; system `neg` negated (-1: no such member). 0, or -1. */
static int build(bdata *B, int64_t k, int64_t neg, int64_t one, int64_t big)
{
    int *grid = malloc((size_t)(k + 1) * sizeof *grid);
    int64_t rows = 0, r = 0, e = 0;
    for (int64_t i = 0; grid && i < k; i++) {
        grid[i] = i == one ? 1 : i == big ? 55 : 3 + (int)mpcgi_rng_below(&g, 12);
        rows += (int64_t)grid[i] * grid[i];
    }
    B->k = k;
    B->off = malloc((size_t)(k + 1) * sizeof *B->off);
    B->ptr = malloc((size_t)(rows + 1) * sizeof *B->ptr);
    B->col = malloc((size_t)(5 * rows + 1) * sizeof *B->col);
    B->val = malloc((size_t)(5 * rows + 1) * sizeof *B->val);
    if (!grid || !B->off || !B->ptr || !B->col || !B->val) {
        free(grid), bfree(B);
        return -1;
    }
    B->off[0] = B->ptr[0] = 0;
    for (int64_t i = 0; i < k; i++) {
        const int m = grid[i];
        const double sign = i == neg ? -1.0 : 1.0;
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++, r++) {
                const int c = y * m + x, nb[5] = {c - m, c - 1, c, c + 1, c + m};
                const int in[5] = {y > 0, x > 0, 1, x < m - 1, y < m - 1};
                for (int q = 0; q < 5; q++) {
                    if (!in[q]) continue;
                    B->col[e] = nb[q];
                    B->val[e++] = sign * (q == 2 ? 4.0 + 2.0 * mpcgi_rng_uniform(&g) : -1.0);
                }
                B->ptr[r + 1] = e;
            }
        B->off[i + 1] = r;
    }
    free(grid);
    return 0;
}

/* n values uniform in [-1, 1), or NaN with nan; system `zero` of B (-1: none) zero. */
static double *vec(const bdata *B, int64_t n, int nan, int64_t zero)
{
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (int64_t i = 0; v && i < n; i++)
        v[i] = nan ? NAN : 2 * mpcgi_rng_uniform(&g) - 1;
    if (v && zero >= 0)
        for (int64_t i = B->off[zero]; i < B->off[zero + 1]; i++)
            v[i] = 0;
    return v;
}

/* ||b_i - A_i x_i|| / ||b_i|| of system i in long double; *scale = || |A_i| |x_i| || / ||b_i||,
 * the size of the rounding of that residual in fp64. */
static double sys_relres(const bdata *B, int64_t i, const double *b, const double *x, double *scale)
{
    const int64_t o = B->off[i];
    long double rr = 0, bb = 0, mm = 0;
    for (int64_t r = o; r < B->off[i + 1]; r++) {
        long double s = b[r], m = 0;
        for (int64_t e = B->ptr[r]; e < B->ptr[r + 1]; e++) {
            s -= (long double)B->val[e] * x[o + B->col[e]];
            m += fabsl((long double)B->val[e] * x[o + B->col[e]]);
        }
        rr += s * s, bb += (long double)b[r] * b[r], mm += m * m;
    }
    *scale = bb > 0 ? (double)sqrtl(mm / bb) : 0;
    return bb > 0 ? (double)sqrtl(rr / bb) : 0;
}

/* ||xa_i - xb_i|| <= tol ||xb_i|| over system i (NaN fails). */
static int x_close(const bdata *B, int64_t i, const double *xa, const double *xb, double tol)
{
    long double d = 0, m = 0;
    for (int64_t r = B->off[i]; r < B->off[i + 1]; r++)
        d += ((long double)xa[r] - xb[r]) * ((long double)xa[r] - xb[r]),
            m += (long double)xb[r] * xb[r];
    return sqrtl(d) <= tol * sqrtl(m);
}

/* Iteration counts within 2 + 5 %. */
static int it_close(int64_t it, int64_t ref)
{
    return fabs((double)(it - ref)) <= 2 + 0.05 * ref;
}

/* Converged to 1e-8 with the true residual the test computes (up to its fp64 rounding). */
static int converged_ok(const bdata *B, int64_t i, const mpcg_batch_result *r, const double *b,
                        const double *x)
{
    double scale;
    const double rel = sys_relres(B, i, b, x, &scale);
    return r->reason == MPCG_CONVERGED_RTOL && r->true_relres <= 1e-8 &&
           r->recurrence_relres <= 1e-8 * (1 + 1e-12) &&
           fabs(r->true_relres - rel) <= 1e-3 * rel + 16 * DBL_EPSILON * scale;
}

/* System i alone: a CPU mpcg_solver (tol 1e-8, precond pc) on its matrix, row_ptr rebased. */
static mpcg_info single(mpcg_context *cpu, const bdata *B, int64_t i, mpcg_precond pc,
                        const double *b, double *x)
{
    const int64_t o = B->off[i], n = B->off[i + 1] - o, e0 = B->ptr[o];
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_info info;
    memset(&info, 0, sizeof info);
    for (int64_t r = 0; rp && r <= n; r++)
        rp[r] = B->ptr[o + r] - e0;
    if (rp) CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, n, rp, B->col + e0, B->val + e0, &A));
    if (A) CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (S) {
        CHECK_OK(cpu, mpcg_solver_set_tol(S, 1e-8));
        CHECK_OK(cpu, mpcg_solver_set_precond(S, pc));
        CHECK_OK(cpu, mpcg_solve(S, b + o, x + o, &info));
    }
    mpcg_solver_destroy(S), mpcg_matrix_destroy(A), free(rp);
    return info;
}

/* Batched CG of B (batch bt on the CPU, precond pc, x poisoned first) against single solves;
 * system neg is not SPD, system zero has b_i = 0 (-1: none). */
static void check_cpu_solve(mpcg_context *cpu, const bdata *B, mpcg_batch *bt, mpcg_precond pc,
                            const double *b, double *x, mpcg_batch_result *res, int64_t neg,
                            int64_t zero)
{
    const int64_t n = ROWS(B);
    double *xs = vec(B, n, 1, -1);
    int64_t bad = 0, its = 0;
    for (int64_t i = 0; i < n; i++)
        x[i] = NAN;
    CHECK_OK(cpu, mpcg_batch_set_precond(bt, pc));
    CHECK_OK(cpu, mpcg_batch_solve(bt, b, x, res));
    for (int64_t i = 0; xs && i < B->k; i++) {
        const mpcg_batch_result *r = &res[i];
        mpcg_info in = {.reason = MPCG_REASON_NONE};
        int ok = 1;
        if (i == neg) {
            ok = r->reason == (pc == MPCG_PRECOND_NONE ? MPCG_DIVERGED_INDEFINITE_MATRIX
                                                       : MPCG_DIVERGED_INDEFINITE_PC) &&
                 r->iterations == 0;
        } else if (i == zero) {
            ok = r->reason == MPCG_CONVERGED_ZERO_RHS && r->iterations == 0 && !r->true_relres;
            for (int64_t j = B->off[i]; j < B->off[i + 1]; j++)
                ok = ok && x[j] == 0;
        } else {
            in = single(cpu, B, i, pc, b, xs);
            ok = converged_ok(B, i, r, b, x) && in.reason == MPCG_CONVERGED_RTOL &&
                 x_close(B, i, x, xs, 1e-6) && it_close(r->iterations, in.iterations);
        }
        if (!ok)
            printf("  system %lld: %s, %lld iterations, true residual %.3e; single: %s, %lld\n",
                   (long long)i, mpcg_reason_name(r->reason), (long long)r->iterations,
                   r->true_relres, mpcg_reason_name(in.reason), (long long)in.iterations);
        bad += !ok, its += r->iterations;
    }
    printf("  cpu, %lld systems, %lld rows, precond %s: %lld iterations in all, %lld wrong\n",
           (long long)B->k, (long long)n, mpcg_precond_name(pc), (long long)its, (long long)bad);
    CHECK(xs && bad == 0);
    free(xs);
}

/* The members that stop alone, the cap of 3 iterations, and values times 2 (x halves). */
static void check_special(mpcg_context *cpu)
{
    const int64_t k = 60, neg = 5, zero = 17, one = 31;
    bdata B = {0};
    mpcg_batch *bt = NULL;
    CHECK(build(&B, k, neg, one, -1) == 0);
    if (!B.off) return;
    const int64_t n = ROWS(&B), nnz = B.ptr[n];
    double *b = vec(&B, n, 0, zero), *x = vec(&B, n, 1, -1), *x2 = vec(&B, n, 1, -1);
    double *v2 = malloc((size_t)nnz * sizeof *v2);
    mpcg_batch_result *res = malloc(2 * (size_t)k * sizeof *res), *r3 = res + k;
    CHECK_OK(cpu, mpcg_batch_create(cpu, k, B.off, B.ptr, B.col, B.val, &bt));
    if (!bt || !b || !x || !x2 || !v2 || !res) goto done;
    check_cpu_solve(cpu, &B, bt, MPCG_PRECOND_JACOBI, b, x, res, neg, zero);
    check_cpu_solve(cpu, &B, bt, MPCG_PRECOND_NONE, b, x, res, neg, zero);
    CHECK(res[one].reason == MPCG_CONVERGED_RTOL && res[one].iterations == 1);
    CHECK_OK(cpu, mpcg_batch_set_maxit(bt, 3));
    CHECK_OK(cpu, mpcg_batch_solve(bt, b, x2, r3));
    for (int64_t i = 0; i < k; i++) {
        const int capped = res[i].iterations > 3;
        CHECK(capped ? r3[i].reason == MPCG_DIVERGED_MAX_ITER && r3[i].iterations == 3
                     : r3[i].reason == res[i].reason && r3[i].iterations == res[i].iterations);
    }
    CHECK_OK(cpu, mpcg_batch_set_maxit(bt, -1));
    for (int64_t e = 0; e < nnz; e++)
        v2[e] = 2 * B.val[e];
    CHECK_OK(cpu, mpcg_batch_update_values(bt, v2));
    CHECK_OK(cpu, mpcg_batch_solve(bt, b, x2, r3));
    for (int64_t i = 0; i < n; i++)
        x2[i] *= 2;
    for (int64_t i = 0; i < k; i++)
        CHECK(r3[i].reason == res[i].reason && x_close(&B, i, x2, x, 1e-6));
done:
    mpcg_batch_destroy(bt), free(b), free(x), free(x2), free(v2), free(res), bfree(&B);
}

/* The default preconditioner is auto, mpcg_solver's rule on the batch as one matrix: none while
 * every diagonal entry is 2, Jacobi once one differs; its solve is bit for bit the one named. */
static void check_auto(mpcg_context *ctx)
{
    const int64_t off[3] = {0, 2, 4}, ptr[5] = {0, 2, 4, 5, 6};
    const int32_t col[6] = {0, 1, 0, 1, 0, 1};
    double val[6] = {2, -1, -1, 2, 2, 2};
    const double b[4] = {1, 2, 3, 4};
    double x[4], y[4];
    mpcg_batch_result r[2], q[2];
    mpcg_batch *bt = NULL;
    CHECK_OK(ctx, mpcg_batch_create(ctx, 2, off, ptr, col, val, &bt));
    if (!bt) return;
    CHECK(mpcg_batch_precond(bt) == MPCG_PRECOND_NONE);
    val[5] = 3; /* system 1's diagonal (2, 3) */
    CHECK_OK(ctx, mpcg_batch_update_values(bt, val));
    CHECK(mpcg_batch_precond(bt) == MPCG_PRECOND_JACOBI);
    CHECK_OK(ctx, mpcg_batch_solve(bt, b, x, r));
    CHECK_OK(ctx, mpcg_batch_set_precond(bt, MPCG_PRECOND_JACOBI));
    CHECK_OK(ctx, mpcg_batch_solve(bt, b, y, q));
    CHECK(!memcmp(x, y, sizeof x) && r[1].iterations == q[1].iterations);
    CHECK_OK(ctx, mpcg_batch_set_precond(bt, MPCG_PRECOND_AUTO));
    CHECK(mpcg_batch_precond(bt) == MPCG_PRECOND_JACOBI && mpcg_batch_precond(NULL) == 0);
    mpcg_batch_destroy(bt);
}

/* k = 0: created from offsets = row_ptr = {0}; every call with NULL arrays does nothing. */
static void check_empty(mpcg_context *ctx)
{
    const int64_t off[1] = {0}, ptr[1] = {0};
    mpcg_batch *bt = NULL;
    CHECK_OK(ctx, mpcg_batch_create(ctx, 0, off, ptr, NULL, NULL, &bt));
    CHECK(bt && mpcg_batch_count(bt) == 0 && mpcg_batch_rows(bt) == 0);
    CHECK_OK(ctx, mpcg_batch_set_precond(bt, MPCG_PRECOND_JACOBI));
    CHECK_OK(ctx, mpcg_batch_solve(bt, NULL, NULL, NULL));
    CHECK_OK(ctx, mpcg_batch_solve_device(bt, NULL, NULL, NULL));
    CHECK_OK(ctx, mpcg_batch_spmm(bt, 8, NULL, NULL));
    CHECK_OK(ctx, mpcg_batch_spmm_device(bt, 8, NULL, NULL));
    CHECK_OK(ctx, mpcg_batch_update_values(bt, NULL));
    mpcg_batch_destroy(bt);
}

/* The largest system a batch takes (diag(2), MPCG_BATCH_MAX_ROWS rows: one step, x = b / 2),
 * and one row more, refused with a message naming mpcg_solve. */
static void check_max_rows(mpcg_context *ctx)
{
    const int64_t n = MPCG_BATCH_MAX_ROWS + 1;
    int64_t off[2] = {0, n - 1}, *ptr = malloc((size_t)(n + 1) * sizeof *ptr);
    int32_t *col = malloc((size_t)n * sizeof *col);
    double *val = malloc((size_t)n * sizeof *val), *b = malloc((size_t)n * 2 * sizeof *b);
    mpcg_batch *bt = NULL;
    mpcg_batch_result res;
    if (!ptr || !col || !val || !b) goto done;
    for (int64_t r = 0; r <= n; r++)
        ptr[r] = r;
    for (int64_t r = 0; r < n; r++)
        col[r] = (int32_t)r, val[r] = 2, b[r] = 1 + r % 7, b[n + r] = NAN;
    CHECK_OK(ctx, mpcg_batch_create(ctx, 1, off, ptr, col, val, &bt));
    if (bt) CHECK_OK(ctx, mpcg_batch_solve(bt, b, b + n, &res));
    CHECK(bt && res.reason == MPCG_CONVERGED_RTOL && res.iterations == 1);
    for (int64_t r = 0; bt && r < n - 1; r++)
        CHECK(b[n + r] == b[r] / 2);
    mpcg_batch_destroy(bt);
    off[1] = n, bt = NULL;
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_batch_create(ctx, 1, off, ptr, col, val, &bt), MPCG_ERR_INVALID_ARG);
    CHECK(!bt && strstr(mpcg_last_error(ctx), "mpcg_solve") &&
          strstr(mpcg_last_error(ctx), "16385"));
done:
    free(ptr), free(col), free(val), free(b);
}

/* A finite b whose norm overflows stops its system with MPCG_DIVERGED_NAN (as mpcg_solve), x = 0,
 * beside a system that converges. */
static void check_overflow(mpcg_context *ctx)
{
    const int64_t off[3] = {0, 2, 4}, ptr[5] = {0, 1, 2, 3, 4};
    const int32_t col[4] = {0, 1, 0, 1};
    const double val[4] = {2, 2, 4, 4}, b[4] = {1e200, 1e200, 1, 2};
    double x[4] = {NAN, NAN, NAN, NAN};
    mpcg_batch_result res[2];
    mpcg_batch *bt = NULL;
    CHECK_OK(ctx, mpcg_batch_create(ctx, 2, off, ptr, col, val, &bt));
    if (!bt) return;
    CHECK_OK(ctx, mpcg_batch_solve(bt, b, x, res));
    CHECK(res[0].reason == MPCG_DIVERGED_NAN && res[0].iterations == 0 && x[0] == 0 && x[1] == 0);
    CHECK(res[1].reason == MPCG_CONVERGED_RTOL && x[2] == 0.25 && x[3] == 0.5);
    mpcg_batch_destroy(bt);
}

/* mpcg_batch_spmm with s columns, Y poisoned: within (row nnz + 2) eps sum |a||x| of long double
 * and the host's order (one fma an entry, in order) bit for bit. */
static void check_spmm(mpcg_context *ctx, const bdata *B, mpcg_batch *bt, int s, const double *X,
                       double *Y)
{
    const int64_t n = ROWS(B);
    int64_t bad = 0;
    for (int64_t i = 0; i < n * s; i++)
        Y[i] = NAN;
    CHECK_OK(ctx, mpcg_batch_spmm(bt, s, X, Y));
    for (int64_t i = 0; i < B->k; i++)
        for (int64_t r = B->off[i]; r < B->off[i + 1]; r++)
            for (int c = 0; c < s; c++) {
                long double ref = 0, mag = 0;
                double acc = 0;
                for (int64_t e = B->ptr[r]; e < B->ptr[r + 1]; e++) {
                    const double a = B->val[e], xv = X[(B->off[i] + B->col[e]) * s + c];
                    ref += (long double)a * xv, mag += fabsl((long double)a * xv);
                    acc = fma(a, xv, acc);
                }
                const long double tol = (B->ptr[r + 1] - B->ptr[r] + 2) * DBL_EPSILON * mag;
                bad += !(fabsl(Y[r * s + c] - ref) <= tol) || Y[r * s + c] != acc;
            }
    CHECK(bad == 0);
}

static const int spmm_s[] = {1, 3, 8, 33, 64};
#define SPMM_CASES (int)(sizeof spmm_s / sizeof spmm_s[0])

/* 200 random systems: batched CG plain and Jacobi against single solves; the SpMM. */
static void check_cpu_batch(mpcg_context *cpu)
{
    bdata B = {0};
    mpcg_batch *bt = NULL;
    CHECK(build(&B, 200, -1, -1, -1) == 0);
    if (!B.off) return;
    const int64_t n = ROWS(&B);
    double *b = vec(&B, 64 * n, 0, -1), *x = vec(&B, 64 * n, 1, -1);
    mpcg_batch_result *res = malloc((size_t)B.k * sizeof *res);
    CHECK_OK(cpu, mpcg_batch_create(cpu, B.k, B.off, B.ptr, B.col, B.val, &bt));
    CHECK(mpcg_batch_count(bt) == 200 && mpcg_batch_rows(bt) == n);
    if (bt && b && x && res) {
        check_cpu_solve(cpu, &B, bt, MPCG_PRECOND_NONE, b, x, res, -1, -1);
        check_cpu_solve(cpu, &B, bt, MPCG_PRECOND_JACOBI, b, x, res, -1, -1);
        for (int q = 0; q < SPMM_CASES; q++)
            check_spmm(cpu, &B, bt, spmm_s[q], b, x);
    }
    mpcg_batch_destroy(bt), free(b), free(x), free(res), bfree(&B);
}

/* A status and a message with `words` (the error cleared first). */
#define REFUSED(ctx, expr, want, words)                                                            \
    do {                                                                                           \
        mpcg_clear_error(ctx);                                                                     \
        CHECK_STATUS(ctx, expr, want);                                                             \
        if (!strstr(mpcg_last_error(ctx), words)) {                                                \
            fprintf(stderr, "%s:%d: message without \"%s\": %s\n", __FILE__, __LINE__, words,      \
                    mpcg_last_error(ctx));                                                         \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* mpcg_batch_create's refusals, each on two valid systems changed in one place. */
static void check_create_refusals(mpcg_context *ctx)
{
    static const char *const words[] = {
        "offsets must increase", "offsets[0] = 1", "outside [0,", "columns not increasing",
        "row_ptr decreases",     "not finite",     "not finite",  "NULL array"};
    for (int t = 0; t < 8; t++) {
        bdata B = {0};
        CHECK(build(&B, 2, -1, -1, -1) == 0);
        if (!B.off) return;
        int64_t *off = B.off, e1 = B.ptr[B.off[1]]; /* system 1's row 0: columns 0, 1, .. */
        switch (t) {
        case 0: B.off[1] = B.off[2]; break;
        case 1: B.off[0] = 1; break;
        case 2: B.col[e1] = (int32_t)(B.off[2] - B.off[1]); break;
        case 3: B.col[e1] = 1, B.col[e1 + 1] = 0; break;
        case 4: B.ptr[2] = B.ptr[1] - 1; break;
        case 5: B.val[3] = NAN; break;
        case 6: B.val[e1] = INFINITY; break;
        default: B.off = NULL;
        }
        mpcg_batch *bt = (mpcg_batch *)(uintptr_t)1; /* not NULL: a refusal clears it */
        REFUSED(ctx, mpcg_batch_create(ctx, B.k, B.off, B.ptr, B.col, B.val, &bt),
                MPCG_ERR_INVALID_ARG, words[t]);
        CHECK(bt == NULL);
        B.off = off;
        bfree(&B);
    }
}

/* The refusals of the calls on a valid batch, and of a NULL batch. */
static void check_call_refusals(mpcg_context *ctx)
{
    bdata B = {0};
    mpcg_batch *bt = NULL;
    CHECK(build(&B, 3, -1, -1, -1) == 0);
    if (!B.off) return;
    const int64_t n = ROWS(&B), nnz = B.ptr[n];
    double *b = vec(&B, 65 * n, 0, -1), *x = vec(&B, 65 * n, 1, -1);
    mpcg_batch_result res[3];
    CHECK_OK(ctx, mpcg_batch_create(ctx, B.k, B.off, B.ptr, B.col, B.val, &bt));
    if (!bt || !b || !x) goto done;
    b[n - 1] = NAN;
    REFUSED(ctx, mpcg_batch_solve(bt, b, x, res), MPCG_ERR_INVALID_ARG, "not finite");
    b[n - 1] = 0.5;
    REFUSED(ctx, mpcg_batch_solve(bt, b, NULL, res), MPCG_ERR_INVALID_ARG, "NULL");
    REFUSED(ctx, mpcg_batch_solve(bt, b, x, NULL), MPCG_ERR_INVALID_ARG, "NULL");
    REFUSED(ctx, mpcg_batch_spmm(bt, 0, b, x), MPCG_ERR_INVALID_ARG, "s = 0 outside [1, 64]");
    REFUSED(ctx, mpcg_batch_spmm(bt, 65, b, x), MPCG_ERR_INVALID_ARG, "s = 65");
    REFUSED(ctx, mpcg_batch_spmm(bt, 2, NULL, x), MPCG_ERR_INVALID_ARG, "NULL");
    REFUSED(ctx, mpcg_batch_set_tol(bt, 0), MPCG_ERR_INVALID_ARG, "tol");
    REFUSED(ctx, mpcg_batch_set_tol(bt, 1), MPCG_ERR_INVALID_ARG, "tol");
    REFUSED(ctx, mpcg_batch_set_tol(bt, NAN), MPCG_ERR_INVALID_ARG, "tol");
    REFUSED(ctx, mpcg_batch_set_maxit(bt, -2), MPCG_ERR_INVALID_ARG, "maxit");
    REFUSED(ctx, mpcg_batch_set_precond(bt, MPCG_PRECOND_CHEBYSHEV), MPCG_ERR_NOT_SUPPORTED,
            "chebyshev");
    for (int64_t e = 0; e < nnz; e++)
        x[e] = e == nnz / 2 ? NAN : B.val[e];
    REFUSED(ctx, mpcg_batch_update_values(bt, x), MPCG_ERR_INVALID_ARG, "not finite");
    REFUSED(ctx, mpcg_batch_update_values(bt, NULL), MPCG_ERR_INVALID_ARG, "NULL");
    CHECK_OK(ctx, mpcg_batch_solve(bt, b, x, res)); /* the refusals changed nothing */
    for (int64_t i = 0; i < B.k; i++)
        CHECK(converged_ok(&B, i, &res[i], b, x));
    if (mpcg_context_device_kind(ctx) == MPCG_DEVICE_CPU) {
        REFUSED(ctx, mpcg_batch_solve_device(bt, b, x, res), MPCG_ERR_INVALID_STATE, "GPU");
        REFUSED(ctx, mpcg_batch_spmm_device(bt, 1, b, x), MPCG_ERR_INVALID_STATE, "GPU");
    }
    REFUSED(NULL, mpcg_batch_solve(NULL, b, x, res), MPCG_ERR_INVALID_ARG, "invalid batch");
    REFUSED(NULL, mpcg_batch_solve_device(NULL, b, x, res), MPCG_ERR_INVALID_ARG, "batch");
    REFUSED(NULL, mpcg_batch_spmm(NULL, 1, b, x), MPCG_ERR_INVALID_ARG, "invalid batch");
    REFUSED(NULL, mpcg_batch_spmm_device(NULL, 1, b, x), MPCG_ERR_INVALID_ARG, "batch");
    REFUSED(NULL, mpcg_batch_update_values(NULL, B.val), MPCG_ERR_INVALID_ARG, "batch");
    REFUSED(NULL, mpcg_batch_set_tol(NULL, 1e-6), MPCG_ERR_INVALID_ARG, "batch");
    REFUSED(NULL, mpcg_batch_set_maxit(NULL, 5), MPCG_ERR_INVALID_ARG, "batch");
    REFUSED(NULL, mpcg_batch_set_precond(NULL, MPCG_PRECOND_NONE), MPCG_ERR_INVALID_ARG, "batch");
    CHECK(mpcg_batch_count(NULL) == 0 && mpcg_batch_rows(NULL) == 0);
    mpcg_batch_destroy(NULL);
done:
    mpcg_batch_destroy(bt), free(b), free(x), bfree(&B);
}

/* ---- on a GPU ---- */

/* The batch's device workspace (once a solve has made it) filled with NaN, so that a kernel
 * reading a vector before writing it shows. */
static void poison_work(mpcg_context *gpu, mpcg_batch *gb)
{
    const size_t n = gb->work_bytes / sizeof(double);
    double *h = malloc(n * sizeof *h);
    CHECK(h != NULL || n == 0);
    for (size_t i = 0; h && i < n; i++)
        h[i] = NAN;
    if (h && n) CHECK_OK(gpu, mpcgi_device_copy(gpu, gb->work, h, n * sizeof *h, MPCGI_H2D));
    free(h);
}

/* B's batch on the GPU (gb) against the CPU's (cb): solves plain and Jacobi, uncapped and
 * capped at 3 iterations, the workspace poisoned before each but the first (the same reasons,
 * counts within 2 + 5 %, x within 1e-6, converged to 1e-8); then the solve and the SpMM on device
 * arrays as on host arrays, bit for bit. */
static void check_gpu_solves(mpcg_context *cpu, mpcg_context *gpu, const bdata *B, mpcg_batch *cb,
                             mpcg_batch *gb, const double *b)
{
    const int64_t n = ROWS(B), k = B->k;
    double *xc = vec(B, n, 1, -1), *xg = vec(B, n, 1, -1);
    mpcg_batch_result *rc = malloc(2 * (size_t)k * sizeof *rc), *rg = rc + k;
    for (int t = 0; xc && xg && rc && t < 4; t++) {
        const mpcg_precond pc = t & 1 ? MPCG_PRECOND_JACOBI : MPCG_PRECOND_NONE;
        const int64_t maxit = t & 2 ? -1 : 3;
        int64_t bad = 0;
        CHECK_OK(cpu, mpcg_batch_set_precond(cb, pc));
        CHECK_OK(gpu, mpcg_batch_set_precond(gb, pc));
        CHECK_OK(cpu, mpcg_batch_set_maxit(cb, maxit));
        CHECK_OK(gpu, mpcg_batch_set_maxit(gb, maxit));
        for (int64_t i = 0; i < n; i++)
            xc[i] = xg[i] = NAN;
        CHECK_OK(cpu, mpcg_batch_solve(cb, b, xc, rc));
        poison_work(gpu, gb); /* from the second solve on: the first makes the workspace */
        CHECK_OK(gpu, mpcg_batch_solve(gb, b, xg, rg));
        for (int64_t i = 0; i < k; i++) {
            const int ok =
                rg[i].reason == rc[i].reason && it_close(rg[i].iterations, rc[i].iterations) &&
                x_close(B, i, xg, xc, 1e-6) &&
                (rg[i].reason != MPCG_CONVERGED_RTOL || converged_ok(B, i, &rg[i], b, xg));
            if (!ok)
                printf("  system %lld: gpu %s %lld iterations, cpu %s %lld\n", (long long)i,
                       mpcg_reason_name(rg[i].reason), (long long)rg[i].iterations,
                       mpcg_reason_name(rc[i].reason), (long long)rc[i].iterations);
            bad += !ok;
        }
        printf("  gpu, %lld systems, %lld rows, precond %s, maxit %lld: %lld unlike the cpu\n",
               (long long)k, (long long)n, mpcg_precond_name(pc), (long long)maxit, (long long)bad);
        CHECK(bad == 0);
    }
    double *d = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 2 * (size_t)n * sizeof *d, &d));
    if (d && xc && xg && rc) {
        CHECK_OK(gpu, mpcgi_device_copy(gpu, d, b, (size_t)n * sizeof *d, MPCGI_H2D));
        CHECK_OK(gpu, mpcg_batch_solve_device(gb, d, d + n, rc));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, xc, d + n, (size_t)n * sizeof *d, MPCGI_D2H));
        CHECK(!memcmp(xc, xg, (size_t)n * sizeof *xc));
        for (int64_t i = 0; i < k; i++)
            CHECK(rc[i].reason == rg[i].reason && rc[i].iterations == rg[i].iterations &&
                  rc[i].true_relres == rg[i].true_relres &&
                  rc[i].recurrence_relres == rg[i].recurrence_relres);
    }
    mpcgi_device_free(gpu, d), free(xc), free(xg), free(rc);
}

/* The GPU's SpMM against the CPU's (checked on its own), bit for bit, host and device arrays. */
static void check_gpu_spmm(mpcg_context *cpu, mpcg_context *gpu, const bdata *B, mpcg_batch *cb,
                           mpcg_batch *gb)
{
    const int64_t n = ROWS(B);
    const size_t bytes = 64 * (size_t)n * sizeof(double);
    double *X = vec(B, 64 * n, 0, -1), *Yc = vec(B, 64 * n, 1, -1), *Yg = vec(B, 64 * n, 1, -1);
    double *d = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 2 * bytes, &d));
    for (int q = 0; d && X && Yc && Yg && q < SPMM_CASES; q++) {
        const int s = spmm_s[q];
        const size_t sb = (size_t)n * s * sizeof(double);
        check_spmm(cpu, B, cb, s, X, Yc);
        for (int64_t i = 0; i < n * s; i++)
            Yg[i] = NAN;
        CHECK_OK(gpu, mpcg_batch_spmm(gb, s, X, Yg));
        CHECK(!memcmp(Yc, Yg, sb));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, d, X, sb, MPCGI_H2D));
        CHECK_OK(gpu, mpcg_batch_spmm_device(gb, s, d, d + 64 * n));
        for (int64_t i = 0; i < n * s; i++)
            Yg[i] = NAN;
        CHECK_OK(gpu, mpcgi_device_copy(gpu, Yg, d + 64 * n, sb, MPCGI_D2H));
        CHECK(!memcmp(Yc, Yg, sb));
    }
    mpcgi_device_free(gpu, d), free(X), free(Yc), free(Yg);
}

/* 200 random systems; the special members; a 55 x 55 system (3025 rows: vectors in global
 * memory) among small ones. */
static void check_gpu(mpcg_context *cpu, mpcg_context *gpu)
{
    const int64_t cases[3][5] = {{200, -1, -1, -1, -1}, {60, 5, 17, 31, -1}, {40, 3, 9, 20, 27}};
    for (int t = 0; t < 3; t++) {
        const int64_t *c = cases[t];
        bdata B = {0};
        mpcg_batch *cb = NULL, *gb = NULL;
        CHECK(build(&B, c[0], c[1], c[3], c[4]) == 0);
        if (!B.off) continue;
        double *b = vec(&B, ROWS(&B), 0, c[2]);
        CHECK_OK(cpu, mpcg_batch_create(cpu, B.k, B.off, B.ptr, B.col, B.val, &cb));
        CHECK_OK(gpu, mpcg_batch_create(gpu, B.k, B.off, B.ptr, B.col, B.val, &gb));
        CHECK(mpcg_batch_count(gb) == B.k && mpcg_batch_rows(gb) == ROWS(&B));
        if (b && cb && gb) check_gpu_solves(cpu, gpu, &B, cb, gb, b);
        if (cb && gb) check_gpu_spmm(cpu, gpu, &B, cb, gb);
        mpcg_batch_destroy(cb), mpcg_batch_destroy(gb), free(b), bfree(&B);
    }
}

int main(void)
{
    test_init_seed("test_batch");
    mpcgi_rng_seed(&g, test_seed);
    mpcg_context *cpu = NULL, *gpu = NULL;
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_batch");
    check_cpu_batch(cpu);
    check_special(cpu);
    check_auto(cpu);
    check_empty(cpu);
    check_max_rows(cpu);
    check_overflow(cpu);
    check_create_refusals(cpu);
    check_call_refusals(cpu);
    if (mpcgi_device_count() == 0) {
        printf("test_batch: no usable GPU, the GPU checks are skipped\n");
    } else {
        CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
        if (gpu) {
            check_gpu(cpu, gpu);
            check_auto(gpu);
            check_empty(gpu);
            check_max_rows(gpu);
            check_overflow(gpu);
            check_create_refusals(gpu);
            check_call_refusals(gpu);
        }
        mpcg_context_destroy(gpu);
    }
    mpcg_context_destroy(cpu);
    return test_finish("test_batch");
}
