/* io/generate_graph.c: generators with real or skewed structure (replicate, powerlaw, biased) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "io/generate.h"
#include "io/mm_num.h"

/* Fixed seeds: a spec always gives the same matrix, so results from different runs compare. */
#define PERM_SEED 0x5eed0001ull
#define POWERLAW_SEED 0x5eed0002ull

/* An integer >= 1 between s and e, or an error naming the spec. */
static mpcg_status count_arg(const mpcg_context *ctx, const char *spec, const char *s,
                             const char *e, const char *what, int64_t *out)
{
    int rc = mpcgi_parse_i64(s, e, out);
    MPCG_ENSURE(ctx, rc == MPCGI_NUM_OK && *out >= 1, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': %s must be an integer >= 1", spec, what);
    return MPCG_SUCCESS;
}

/* Read FILE into a host CSR (the matrix wrapper is dropped). */
static mpcg_status read_csr(mpcg_context *ctx, const char *path, mpcgi_csr *out)
{
    mpcg_matrix *M;
    MPCG_CHECK(ctx, mpcg_matrix_read_mm(ctx, path, &M));
    *out = M->csr;
    memset(&M->csr, 0, sizeof M->csr);
    mpcg_matrix_destroy(M);
    return MPCG_SUCCESS;
}

/* A uniformly random permutation of [0, n) (Fisher-Yates with the fixed seed). */
static mpcg_status random_permutation(const mpcg_context *ctx, int64_t n, int32_t **out)
{
    int32_t *p;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof *p, &p));
    for (int64_t i = 0; i < n; i++) p[i] = (int32_t)i;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, PERM_SEED);
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)mpcgi_rng_below(&g, (uint64_t)i + 1);
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    *out = p;
    return MPCG_SUCCESS;
}

/*
 * B = K diagonal copies of A; with perm, B = P B P^T for a random permutation P, which keeps B
 * SPD and its row lengths but destroys the locality of x accesses. Row r of B is row inv[r] of the
 * unpermuted block matrix, with its columns mapped through p and re-sorted.
 */
static mpcg_status replicate(mpcg_context *ctx, const mpcgi_csr *A, int64_t K, int perm,
                             mpcgi_csr *out)
{
    mpcg_status st = MPCG_SUCCESS;
    int64_t n = A->n, nn = K * n, nnz = K * A->nnz;
    int32_t *p = NULL, *inv = NULL;
    mpcgi_csr B = {0};
    MPCG_ENSURE(ctx, K <= MPCGI_MAX_N / n, MPCG_ERR_INVALID_ARG,
                "replicate: %lld copies of n = %lld exceed n = %d", (long long)K, (long long)n,
                MPCGI_MAX_N);
    MPCG_TRY(ctx, st, mpcgi_csr_alloc(ctx, nn, nnz, &B));
    if (perm) {
        MPCG_TRY(ctx, st, random_permutation(ctx, nn, &p));
        MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nn, sizeof *inv, &inv));
        for (int64_t i = 0; i < nn; i++) inv[p[i]] = (int32_t)i;
    }
    B.row_ptr[0] = 0;
    for (int64_t r = 0; r < nn; r++) { /* row r of B is row s of the block matrix */
        int64_t s = perm ? inv[r] : r, i = s % n;
        B.row_ptr[r + 1] = B.row_ptr[r] + A->row_ptr[i + 1] - A->row_ptr[i];
    }
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < nn; r++) {
        int64_t s = perm ? inv[r] : r, i = s % n, shift = s - i, w = B.row_ptr[r];
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++, w++) {
            int64_t c = A->col_idx[k] + shift;
            B.col_idx[w] = perm ? p[c] : (int32_t)c;
            B.val[w] = A->val[k];
        }
        int64_t b0 = B.row_ptr[r];
        if (perm) mpcgi_csr_sort_row(B.col_idx + b0, B.val + b0, w - b0);
    }
    *out = B;
done:
    mpcgi_host_free(p);
    mpcgi_host_free(inv);
    if (st != MPCG_SUCCESS) mpcgi_csr_free(&B);
    return st;
}

mpcg_status mpcgi_gen_replicate(mpcg_context *ctx, const char *spec, const char *args,
                                const void *param, mpcgi_csr *out)
{
    (void)param;
    mpcg_status st = MPCG_SUCCESS;
    char path[4096];
    int64_t K;
    size_t len = strlen(args);
    int perm = len > 5 && strcmp(args + len - 5, ":perm") == 0;
    if (perm) len -= 5;
    const char *colon = NULL;
    for (size_t k = 0; k < len; k++)
        if (args[k] == ':') colon = args + k;
    MPCG_ENSURE(ctx, colon && colon > args && (size_t)(colon - args) < sizeof path,
                MPCG_ERR_INVALID_ARG, "malformed matrix spec '%s': expected replicate:FILE:K[:perm]",
                spec);
    MPCG_CHECK(ctx, count_arg(ctx, spec, colon + 1, args + len, "K", &K));
    memcpy(path, args, (size_t)(colon - args));
    path[colon - args] = '\0';
    mpcgi_csr A = {0};
    MPCG_TRY(ctx, st, read_csr(ctx, path, &A));
    MPCG_TRY(ctx, st, replicate(ctx, &A, K, perm, out));
done:
    mpcgi_csr_free(&A);
    return st;
}

/* Out-degree of vertex i: Pareto(alpha = 2) with mean deg / 2, capped; deterministic per i. */
static int64_t out_degree(int64_t i, int64_t deg, int64_t cap)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, POWERLAW_SEED ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull));
    double xm = (double)deg / 4.0, u = 1.0 - mpcgi_rng_uniform(&g); /* u in (0, 1] */
    double d = xm / sqrt(u);                                          /* alpha = 2 */
    int64_t k = (int64_t)d;
    return k < 1 ? 1 : k > cap ? cap : k;
}

/*
 * The Laplacian of a random graph whose out-degrees follow a power law (Pareto, alpha = 2, mean
 * deg/2 out-edges plus as many in-edges on average), plus a diagonal shift in [0.5, 1.5): every
 * off-diagonal is -1, the diagonal is the row's degree + shift, so the matrix is symmetric,
 * strictly diagonally dominant and SPD. Duplicate edges add up. Row lengths range from ~2 to the cap (min(n - 1, 100000)).
 */
mpcg_status mpcgi_gen_powerlaw(mpcg_context *ctx, const char *spec, const char *args,
                               const void *param, mpcgi_csr *out)
{
    (void)param;
    mpcg_status st = MPCG_SUCCESS;
    const char *colon = strchr(args, ':');
    int64_t n, deg, *start = NULL;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL;
    MPCG_ENSURE(ctx, colon, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': expected powerlaw:N:DEG", spec);
    MPCG_CHECK(ctx, count_arg(ctx, spec, args, colon, "N", &n));
    MPCG_CHECK(ctx, count_arg(ctx, spec, colon + 1, colon + strlen(colon), "DEG", &deg));
    MPCG_ENSURE(ctx, n >= 2 && n <= MPCGI_MAX_N, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': N must be in [2, %d]", spec, MPCGI_MAX_N);
    int64_t cap = n - 1 < 100000 ? n - 1 : 100000;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)n + 1, sizeof *start, &start));
    start[0] = 0;
    for (int64_t i = 0; i < n; i++) start[i + 1] = start[i] + out_degree(i, deg, cap);
    int64_t edges = start[n], m = 2 * edges + n;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)m, sizeof *ri, &ri));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)m, sizeof *ci, &ci));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)m, sizeof *v, &v));
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t i = 0; i < n; i++) {
        mpcgi_rng g;
        mpcgi_rng_seed(&g, POWERLAW_SEED + 7 * (uint64_t)i);
        for (int64_t e = start[i]; e < start[i + 1]; e++) {
            int64_t j = (int64_t)mpcgi_rng_below(&g, (uint64_t)n - 1);
            j += j >= i; /* no self loops */
            ri[2 * e] = (int32_t)i, ci[2 * e] = (int32_t)j, v[2 * e] = -1.0;
            ri[2 * e + 1] = (int32_t)j, ci[2 * e + 1] = (int32_t)i, v[2 * e + 1] = -1.0;
        }
    }
    /* diagonal: degree (both directions, duplicates included) + a shift in [0.5, 1.5) that
     * varies by row, so that b = ones is not an eigenvector (CG would end in one step) */
    mpcgi_rng g;
    mpcgi_rng_seed(&g, POWERLAW_SEED);
    for (int64_t i = 0; i < n; i++) {
        ri[2 * edges + i] = ci[2 * edges + i] = (int32_t)i;
        v[2 * edges + i] = 0.5 + mpcgi_rng_uniform(&g);
    }
    for (int64_t k = 0; k < 2 * edges; k++) v[2 * edges + ri[k]] += 1.0;
    MPCG_TRY(ctx, st, mpcgi_csr_from_coo(ctx, n, m, ri, ci, v, out));
done:
    mpcgi_host_free(start);
    mpcgi_host_free(ri);
    mpcgi_host_free(ci);
    mpcgi_host_free(v);
    return st;
}

/*
 * The "excessively biased" matrix of segmented-scan SpMV studies: row 0 holds all N columns and
 * every other row only its diagonal (nnz = 2N - 1), so one row carries half the nonzeros and an
 * SpMV that gives each row to one thread or warp waits on it. Values are exact binary fractions:
 * a_00 = N, a_0j = (1 + j mod 7) / 8 for j >= 1, a_ii = 1 + (i mod 7) / 8 for i >= 1. With a
 * period of 4 or 8, neighbouring power-of-two chunks of row 0 would hold equal sums and x = ones
 * could not tell a chunk read in place of its neighbour; period 7 makes their sums differ. A is
 * upper triangular with a positive diagonal (row 0 strictly dominant: its off-diagonals sum to
 * less than N - 1) but not symmetric: it stresses SpMV load balance, it is not a CG problem.
 */
mpcg_status mpcgi_gen_biased(mpcg_context *ctx, const char *spec, const char *args,
                             const void *param, mpcgi_csr *out)
{
    (void)param;
    int64_t n;
    MPCG_CHECK(ctx, count_arg(ctx, spec, args, args + strlen(args), "N", &n));
    MPCG_ENSURE(ctx, n <= MPCGI_MAX_N, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': N must be in [1, %d]", spec, MPCGI_MAX_N);
    mpcgi_csr A;
    MPCG_CHECK(ctx, mpcgi_csr_alloc(ctx, n, 2 * n - 1, &A));
    A.row_ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++) { /* row 0: every column */
        A.col_idx[j] = (int32_t)j;
        A.val[j] = j == 0 ? (double)n : (double)(1 + j % 7) / 8.0;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 1; i < n; i++) { /* row i >= 1: its diagonal, after row 0's n entries */
        int64_t k = n + i - 1;
        A.row_ptr[i] = k;
        A.col_idx[k] = (int32_t)i;
        A.val[k] = 1.0 + (double)(i % 7) / 8.0;
    }
    A.row_ptr[n] = 2 * n - 1;
    *out = A;
    return MPCG_SUCCESS;
}
