/* test/test_io_generate.c: generated matrices (stencils, replicate, powerlaw, biased) and specs */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/matrix.h"
#include "test/testutil.h"

static mpcg_context *ctx;

typedef struct family {
    const char *name;
    int dims; /* 2 or 3 */
    int full; /* 27-point: every neighbour with |dx|, |dy|, |dz| <= 1 */
    double diag;
} family;

static const family families[] = {
    {"poisson2d", 2, 0, 4},
    {"poisson3d", 3, 0, 6},
    {"poisson3d27", 3, 1, 26},
};

/* The nnz formulas of the brief, counted from the grid independently of the generator. */
static int64_t expected_nnz(const family *f, int64_t N)
{
    if (f->dims == 2) return 5 * N * N - 4 * N;
    if (!f->full) return 7 * N * N * N - 6 * N * N;
    return 27 * N * N * N - 54 * N * N + 36 * N - 8;
}

/* A(i, j) of the stencil on the grid, from the coordinates of both points. */
static double stencil_entry(const family *f, int64_t N, int64_t i, int64_t j)
{
    int64_t d[3], far = 0, moved = 0;
    for (int a = 0; a < 3; a++) {
        d[a] = llabs(i % N - j % N);
        i /= N, j /= N;
        far |= d[a] > 1;
        moved += d[a] != 0;
    }
    if (far) return 0.0;
    if (moved == 0) return f->diag;
    return f->full || moved == 1 ? -1.0 : 0.0;
}

/* Every entry of the dense n x n matrix against the CSR (small N only), plus the structure. */
static void check_family(const family *f, int64_t N)
{
    char spec[64];
    mpcg_matrix *A = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    snprintf(spec, sizeof spec, "%s:%lld", f->name, (long long)N);
    int64_t n = f->dims == 2 ? N * N : N * N * N;

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, spec, &A));

    if (!A) return;
    CHECK(strcmp(A->name, spec) == 0);
    CHECK(mpcg_matrix_n(A) == n);
    CHECK(mpcg_matrix_nnz(A) == expected_nnz(f, N));
    CHECK_OK(ctx, mpcgi_csr_check_symmetric(ctx, &A->csr));
    mpcg_matrix_csr(A, &rp, &ci, &v);
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        int boundary = 0;
        for (int64_t x = i, a = 0; a < f->dims; a++, x /= N)
            boundary |= x % N == 0 || x % N == N - 1;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            CHECK(k == rp[i] || ci[k] > ci[k - 1]); /* sorted, no duplicates */
            sum += v[k];
        }
        CHECK(boundary ? sum > 0 : sum == 0);
        for (int64_t j = 0, k = rp[i]; j < n; j++) {
            double aij = k < rp[i + 1] && ci[k] == j ? v[k++] : 0.0;
            CHECK(aij == stencil_entry(f, N, i, j));
        }
    }
    mpcg_matrix_destroy(A);
}

static void test_small_grids(void)
{
    for (size_t t = 0; t < sizeof families / sizeof families[0]; t++)
        for (int64_t N = 1; N <= 6; N++) {
            int before = test_failures;
            check_family(&families[t], N);
            if (test_failures != before)
                fprintf(stderr, "  while checking %s:%lld\n", families[t].name, (long long)N);
        }
}

/* poisson2d:2 by hand: grid points 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1). */
static void test_poisson2d_2(void)
{
    static const int64_t row_ptr[] = {0, 3, 6, 9, 12};
    static const int32_t col_idx[] = {0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3};
    static const double val[] = {4, -1, -1, -1, 4, -1, -1, 4, -1, -1, -1, 4};
    mpcg_matrix *A = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:2", &A));

    CHECK(mpcg_matrix_n(A) == 4 && mpcg_matrix_nnz(A) == 12);
    if (mpcg_matrix_nnz(A) != 12) goto done;
    mpcg_matrix_csr(A, &rp, &ci, &v);
    CHECK(memcmp(rp, row_ptr, sizeof row_ptr) == 0);
    CHECK(memcmp(ci, col_idx, sizeof col_idx) == 0);
    CHECK(memcmp(v, val, sizeof val) == 0);
done:
    mpcg_matrix_destroy(A);
}

/* N = 1 is a 1 x 1 matrix holding the diagonal. */
static void test_one_point(void)
{
    for (size_t t = 0; t < sizeof families / sizeof families[0]; t++) {
        char spec[64];
        mpcg_matrix *A = NULL;
        const double *v;
        snprintf(spec, sizeof spec, "%s:1", families[t].name);

        CHECK_OK(ctx, mpcg_matrix_generate(ctx, spec, &A));

        CHECK(mpcg_matrix_n(A) == 1 && mpcg_matrix_nnz(A) == 1);
        CHECK(mpcg_matrix_csr(A, NULL, NULL, &v) == MPCG_SUCCESS && v[0] == families[t].diag);
        mpcg_matrix_destroy(A);
    }
}

/* Larger grids: only the counts (the dense check above is O(n^2)). */
static void test_counts(void)
{
    static const int64_t sizes[] = {17, 40};
    for (size_t t = 0; t < sizeof families / sizeof families[0]; t++)
        for (size_t s = 0; s < 2; s++) {
            char spec[64];
            mpcg_matrix *A = NULL;
            int64_t N = sizes[s];
            snprintf(spec, sizeof spec, "%s:%lld", families[t].name, (long long)N);

            CHECK_OK(ctx, mpcg_matrix_generate(ctx, spec, &A));

            CHECK(mpcg_matrix_nnz(A) == expected_nnz(&families[t], N));
            CHECK(A && mpcgi_csr_check_symmetric(ctx, &A->csr) == MPCG_SUCCESS);
            mpcg_matrix_destroy(A);
        }
}

static void test_malformed_specs(void)
{
    static const char *const bad[] = {"",
                                      "poisson",
                                      "poisson2d",
                                      "poisson2d:",
                                      "poisson2d:0",
                                      "poisson2d:-3",
                                      "poisson2d:x",
                                      "poisson2d:3x",
                                      "poisson2d:3:4",
                                      "poisson2d: 3",
                                      "Poisson2d:3",
                                      "laplace:3",
                                      ":3",
                                      "poisson3d:99999999999999999999",
                                      "poisson3d:1291",
                                      "poisson2d:46341",
                                      "poisson3d27:2000"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mpcg_matrix *A = (mpcg_matrix *)&A;
        int64_t live = mpcgi_alloc_live();
        mpcg_clear_error(ctx);

        mpcg_status st = mpcg_matrix_generate(ctx, bad[k], &A);

        CHECK_STATUS(ctx, st, MPCG_ERR_INVALID_ARG);
        CHECK(A == NULL);
        CHECK(mpcgi_alloc_live() == live);
        const char *msg = mpcg_last_error(ctx);
        char quoted[128];
        snprintf(quoted, sizeof quoted, "'%s'", bad[k]);
        CHECK(strstr(msg, quoted) != NULL);
        int too_big = strstr(msg, "exceeds the largest supported size") != NULL;
        CHECK(too_big || strstr(msg, "poisson2d:N, poisson3d:N, poisson3d27:N") != NULL);
        if (strstr(msg, quoted) == NULL) fprintf(stderr, "  spec %s: %s\n", bad[k], msg);
    }
}

static void test_invalid_arguments(void)
{
    mpcg_matrix *A = (mpcg_matrix *)&A;

    CHECK_STATUS(NULL, mpcg_matrix_generate(NULL, "poisson2d:3", &A), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, "poisson2d:3", NULL), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, NULL, &A), MPCG_ERR_INVALID_ARG);

    CHECK(A == NULL);
}

/* Fail allocation 0, 1, 2, ... until generating succeeds; no failure may leak. */
static void test_allocation_failures(void)
{
    int64_t k = 0;
    for (;; k++) {
        mpcg_matrix *A = NULL;
        int64_t live = mpcgi_alloc_live();
        mpcg_clear_error(ctx);
        mpcgi_alloc_fail_at(k);

        mpcg_status st = mpcg_matrix_generate(ctx, "poisson3d27:4", &A);

        mpcgi_alloc_fail_at(-1);
        mpcg_matrix_destroy(A);
        CHECK(mpcgi_alloc_live() == live);
        if (st == MPCG_SUCCESS || k > 50) break;
        CHECK_STATUS(ctx, st, MPCG_ERR_HOST_ALLOC);
        CHECK(A == NULL);
    }
    CHECK(k >= 1 && k <= 50);
}

/* Sorted row lengths of a CSR (for comparing permuted matrices). */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t *sorted_lengths(const mpcgi_csr *A)
{
    int64_t *len = malloc((size_t)A->n * sizeof *len);
    for (int64_t i = 0; i < A->n; i++)
        len[i] = A->row_ptr[i + 1] - A->row_ptr[i];
    qsort(len, (size_t)A->n, sizeof *len, cmp_i64);
    return len;
}

static void test_replicate(void)
{
    char spec[4200], specp[4200];
    mpcg_matrix *base, *B, *P;
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, test_data("nos4.mtx"), &base));
    snprintf(spec, sizeof spec, "replicate:%s:3", test_data("nos4.mtx"));
    snprintf(specp, sizeof specp, "replicate:%s:3:perm", test_data("nos4.mtx"));

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, spec, &B));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, specp, &P));

    const mpcgi_csr *A = &base->csr, *b = &B->csr, *p = &P->csr;
    CHECK(b->n == 3 * A->n && b->nnz == 3 * A->nnz && p->n == b->n && p->nnz == b->nnz);
    int same = 1; /* block k of B is A shifted by k n */
    for (int64_t k = 0; k < 3; k++)
        for (int64_t i = 0; i < A->n; i++)
            for (int64_t t = 0; t < A->row_ptr[i + 1] - A->row_ptr[i]; t++) {
                int64_t kb = b->row_ptr[k * A->n + i] + t, ka = A->row_ptr[i] + t;
                same &= b->col_idx[kb] == A->col_idx[ka] + k * A->n && b->val[kb] == A->val[ka];
            }
    CHECK(same);
    CHECK_OK(ctx, mpcgi_csr_check_symmetric(ctx, p)); /* P B P^T stays symmetric */
    int64_t *lb = sorted_lengths(b), *lp = sorted_lengths(p);
    CHECK(memcmp(lb, lp, (size_t)b->n * sizeof *lb) == 0);
    double sb = 0, sp = 0, tb = 0, tp = 0; /* same values and same trace */
    for (int64_t k = 0; k < b->nnz; k++)
        sb += b->val[k], sp += p->val[k];
    mpcgi_diag_stats db, dp;
    mpcgi_csr_diag_stats(b, &db), mpcgi_csr_diag_stats(p, &dp);
    for (int64_t i = 0; i < b->n; i++)
        for (int64_t k = b->row_ptr[i]; k < b->row_ptr[i + 1]; k++)
            tb += b->col_idx[k] == i ? b->val[k] : 0;
    for (int64_t i = 0; i < p->n; i++)
        for (int64_t k = p->row_ptr[i]; k < p->row_ptr[i + 1]; k++)
            tp += p->col_idx[k] == i ? p->val[k] : 0;
    CHECK(test_close(sb, sp, 1e-12, 1e-300) && test_close(tb, tp, 1e-12, 1e-300));
    CHECK(db.missing == 0 && dp.missing == 0);
    int moved = 0; /* the permutation really moves rows */
    for (int64_t i = 0; i < b->n; i++)
        moved += b->row_ptr[i + 1] != p->row_ptr[i + 1];
    CHECK(moved > 0);
    free(lb), free(lp);
    mpcg_matrix_destroy(base), mpcg_matrix_destroy(B), mpcg_matrix_destroy(P);

    const char *bad[] = {"replicate:x", "replicate:nos4.mtx", "replicate::3", "replicate:f:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mpcg_matrix *M = (mpcg_matrix *)1;
        CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, bad[i], &M), MPCG_ERR_INVALID_ARG);
        CHECK(M == NULL);
        mpcg_clear_error(ctx);
    }
    mpcg_matrix *M;
    CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, "replicate:/nonexistent.mtx:2", &M), MPCG_ERR_IO);
    mpcg_clear_error(ctx);
}

static void test_powerlaw(void)
{
    mpcg_matrix *M, *M2;

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "powerlaw:50000:16", &M));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "powerlaw:50000:16", &M2));

    const mpcgi_csr *A = &M->csr;
    CHECK_OK(ctx, mpcgi_csr_check_symmetric(ctx, A));
    int64_t maxlen = 0, dominant = 1;
    for (int64_t i = 0; i < A->n; i++) {
        double diag = 0, off = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            if (A->col_idx[k] == i)
                diag = A->val[k];
            else
                off += fabs(A->val[k]), dominant &= A->val[k] < 0;
        }
        dominant &= diag >= off + 0.5 && diag < off + 1.5; /* SPD: strictly dominant */
        if (A->row_ptr[i + 1] - A->row_ptr[i] > maxlen) maxlen = A->row_ptr[i + 1] - A->row_ptr[i];
    }
    double mean = (double)A->nnz / (double)A->n;
    CHECK(dominant);
    CHECK(mean > 12 && mean < 20); /* about DEG nonzeros per row */
    CHECK(maxlen > 20 * mean);     /* heavily skewed rows */
    CHECK(M2->csr.nnz == A->nnz && memcmp(M2->csr.col_idx, A->col_idx, (size_t)A->nnz * 4) == 0);
    mpcg_matrix_destroy(M), mpcg_matrix_destroy(M2);
    CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, "powerlaw:1:4", &M), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, "powerlaw:100", &M), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
}

/* biased:N row lengths: N in row 0, 1 (the diagonal) in every other row. */
static int biased_shape(const mpcgi_csr *A, int64_t N)
{
    int ok = A->n == N && A->nnz == 2 * N - 1 && A->row_ptr[0] == 0 && A->row_ptr[1] == N;
    for (int64_t i = 1; ok && i < N; i++)
        ok = A->row_ptr[i + 1] == N + i && A->col_idx[N + i - 1] == i;
    for (int64_t j = 0; ok && j < N; j++)
        ok = A->col_idx[j] == j;
    return ok;
}

/* biased:1 and biased:5 by hand: a_00 = N, a_0j = (1 + j mod 7) / 8, a_ii = 1 + (i mod 7) / 8 */
static void test_biased_small(void)
{
    static const int64_t row_ptr[] = {0, 5, 6, 7, 8, 9};
    static const int32_t col_idx[] = {0, 1, 2, 3, 4, 1, 2, 3, 4};
    static const double val[] = {5, 0.25, 0.375, 0.5, 0.625, 1.125, 1.25, 1.375, 1.5};
    mpcg_matrix *one = NULL, *five = NULL;

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "biased:1", &one));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "biased:5", &five));

    if (one) CHECK(biased_shape(&one->csr, 1) && one->csr.val[0] == 1.0);
    if (five) {
        CHECK(biased_shape(&five->csr, 5) && strcmp(five->name, "biased:5") == 0);
        CHECK(memcmp(five->csr.row_ptr, row_ptr, sizeof row_ptr) == 0);
        CHECK(memcmp(five->csr.col_idx, col_idx, sizeof col_idx) == 0);
        CHECK(memcmp(five->csr.val, val, sizeof val) == 0);
        CHECK_STATUS(ctx, mpcgi_csr_check_symmetric(ctx, &five->csr), MPCG_ERR_INVALID_ARG);
        mpcg_clear_error(ctx);
    }
    mpcg_matrix_destroy(one), mpcg_matrix_destroy(five);
}

/* A large N: the shape, the formula at the ends, and two generations equal. */
static void test_biased_large(void)
{
    const int64_t N = 100000;
    mpcg_matrix *M = NULL, *M2 = NULL;

    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "biased:100000", &M));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "biased:100000", &M2));

    if (M && M2) {
        const mpcgi_csr *A = &M->csr, *A2 = &M2->csr;
        CHECK(biased_shape(A, N));
        CHECK(A->val[0] == (double)N && A->val[N - 1] == (1 + (N - 1) % 7) / 8.0);
        CHECK(A->val[2 * N - 2] == 1.0 + (double)((N - 1) % 7) / 8.0);
        CHECK(memcmp(A->row_ptr, A2->row_ptr, (size_t)(N + 1) * sizeof *A->row_ptr) == 0);
        CHECK(memcmp(A->col_idx, A2->col_idx, (size_t)A->nnz * sizeof *A->col_idx) == 0);
        CHECK(memcmp(A->val, A2->val, (size_t)A->nnz * sizeof *A->val) == 0);
    }
    mpcg_matrix_destroy(M), mpcg_matrix_destroy(M2);
}

static void test_biased_malformed(void)
{
    static const char *const bad[] = {"biased",    "biased:",    "biased:0",  "biased:x",
                                      "biased:-3", "biased:5:1", "biased: 5", "biased:2147483648"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char quoted[64];
        mpcg_matrix *M = (mpcg_matrix *)1;
        int64_t live = mpcgi_alloc_live();
        snprintf(quoted, sizeof quoted, "'%s'", bad[k]);

        CHECK_STATUS(ctx, mpcg_matrix_generate(ctx, bad[k], &M), MPCG_ERR_INVALID_ARG);

        CHECK(M == NULL && mpcgi_alloc_live() == live);
        CHECK(strstr(mpcg_last_error(ctx), quoted) != NULL);
        mpcg_clear_error(ctx);
    }
}

int main(void)
{
    test_init_seed("test_io_generate");
    if (mpcg_context_create("cpu", &ctx) != MPCG_SUCCESS) {
        fprintf(stderr, "test_io_generate: %s\n", mpcg_last_error(NULL));
        return 1;
    }
    int64_t live = mpcgi_alloc_live();

    test_small_grids();
    test_poisson2d_2();
    test_one_point();
    test_counts();
    test_malformed_specs();
    test_invalid_arguments();
    test_allocation_failures();
    test_replicate();
    test_powerlaw();
    test_biased_small();
    test_biased_large();
    test_biased_malformed();

    CHECK(mpcgi_alloc_live() == live);
    mpcg_context_destroy(ctx);
    return test_finish("test_io_generate");
}
