/* test/test_csr.c: building CSR from triplets and user arrays, validation, the matrix object */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/csr.h"
#include "test/testutil.h"

static void test_from_coo_sorts_and_sums(void)
{
    /* 3x3, unordered, with a duplicate (1,1) given twice */
    const int32_t ri[] = {2, 0, 1, 1, 0, 2, 1};
    const int32_t ci[] = {0, 0, 1, 1, 2, 2, 0};
    const double v[] = {5, 1, 2, 3, 4, 6, 7};
    mpcgi_csr A;

    CHECK_OK(NULL, mpcgi_csr_from_coo(NULL, 3, 7, ri, ci, v, &A));

    const int64_t rp[] = {0, 2, 4, 6};
    const int32_t col[] = {0, 2, 0, 1, 0, 2};
    const double val[] = {1, 4, 7, 5, 5, 6};
    CHECK(A.n == 3 && A.nnz == 6);
    for (int i = 0; i < 4; i++) CHECK(A.row_ptr[i] == rp[i]);
    for (int k = 0; k < 6; k++) CHECK(A.col_idx[k] == col[k] && A.val[k] == val[k]);
    mpcgi_csr_free(&A);
}

static void test_from_coo_empty_rows(void)
{
    const int32_t ri[] = {3}, ci[] = {1};
    const double v[] = {2.5};
    mpcgi_csr A;

    CHECK_OK(NULL, mpcgi_csr_from_coo(NULL, 5, 1, ri, ci, v, &A));

    const int64_t rp[] = {0, 0, 0, 0, 1, 1};
    for (int i = 0; i < 6; i++) CHECK(A.row_ptr[i] == rp[i]);
    CHECK(A.col_idx[0] == 1 && A.val[0] == 2.5);
    mpcgi_csr_free(&A);
}

static void test_from_user_validation(void)
{
    const int64_t rp_ok[] = {0, 2, 3};
    const int32_t col_unsorted[] = {1, 0, 1};
    const double val[] = {2, 1, 3};
    mpcgi_csr A;

    /* an unsorted row is sorted (values follow their columns) */
    CHECK_OK(NULL, mpcgi_csr_from_user(NULL, 2, rp_ok, col_unsorted, val, &A));
    CHECK(A.col_idx[0] == 0 && A.val[0] == 1 && A.col_idx[1] == 1 && A.val[1] == 2);
    mpcgi_csr_free(&A);

    struct {
        int64_t n;
        int64_t rp[3];
        int32_t col[3];
        double val[3];
        const char *msg;
    } bad[] = {
        {0, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, "n = 0 out of range"},
        {2, {1, 2, 3}, {0, 1, 1}, {1, 1, 1}, "row_ptr[0] = 1 must be 0"},
        {2, {0, 2, 1}, {0, 1, 1}, {1, 1, 1}, "must not decrease"},
        {2, {0, 2, 3}, {0, 2, 1}, {1, 1, 1}, "col_idx[1] = 2 out of range [0, 2)"},
        {2, {0, 2, 3}, {0, -1, 1}, {1, 1, 1}, "col_idx[1] = -1 out of range"},
        {2, {0, 2, 3}, {0, 1, 1}, {1, NAN, 1}, "val[1] = nan is not finite"},
        {2, {0, 2, 3}, {0, 1, 1}, {1, 1, INFINITY}, "val[2] = inf is not finite"},
        {2, {0, 2, 3}, {1, 1, 1}, {1, 1, 1}, "row 0 has column 1 twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mpcg_context *ctx;
        CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
        mpcg_matrix *M = (mpcg_matrix *)1;

        mpcg_status st = mpcg_matrix_create_csr(ctx, bad[i].n, bad[i].rp, bad[i].col, bad[i].val,
                                                &M);

        CHECK(st == MPCG_ERR_INVALID_ARG && M == NULL);
        if (!strstr(mpcg_last_error(ctx), bad[i].msg)) {
            fprintf(stderr, "case %zu: message \"%s\" lacks \"%s\"\n", i, mpcg_last_error(ctx),
                    bad[i].msg);
            CHECK(0);
        }
        mpcg_context_destroy(ctx);
    }
}

static int warnings;
static char warn_text[1024];
static void log_fn(mpcg_log_level level, const char *msg, void *user)
{
    (void)user;
    if (level == MPCG_LOG_WARN) {
        warnings++;
        snprintf(warn_text + strlen(warn_text), sizeof warn_text - strlen(warn_text), "%s\n", msg);
    }
}

static void test_matrix_checks(void)
{
    /* [[2, 1, 0], [1, -1, 0], [0, 3, 0]]: not symmetric, negative and zero diagonal */
    const int64_t rp[] = {0, 2, 4, 6};
    const int32_t col[] = {0, 1, 0, 1, 1, 2};
    const double val[] = {2, 1, 1, -1, 3, 0};
    mpcg_context *ctx;
    mpcg_matrix *A;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_context_set_log(ctx, MPCG_LOG_WARN, log_fn, NULL));
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, 3, rp, col, val, &A));

    CHECK_OK(ctx, mpcg_matrix_check(A, MPCG_CHECK_DIAGONAL));
    mpcg_status st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY);

    CHECK(warnings == 2);
    CHECK(strstr(warn_text, "1 diagonal entries are zero (first: row 3)") != NULL);
    CHECK(strstr(warn_text, "1 diagonal entries are negative (first: row 2)") != NULL);
    CHECK(st == MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "not symmetric: A(3, 2) = 3 but A(2, 3) = 0") != NULL);
    CHECK(mpcg_matrix_n(A) == 3 && mpcg_matrix_nnz(A) == 6);
    CHECK(mpcg_matrix_n(NULL) == 0 && mpcg_matrix_nnz(NULL) == 0);

    /* update_values keeps the pattern, rejects non-finite values and leaves A unchanged then */
    const double nv[] = {4, 1, 1, 5, 0, 7};
    const double badv[] = {4, 1, NAN, 5, 0, 7};
    const double *cur;
    CHECK_OK(ctx, mpcg_matrix_update_values(A, nv));
    CHECK_STATUS(ctx, mpcg_matrix_update_values(A, badv), MPCG_ERR_INVALID_ARG);
    CHECK_OK(ctx, mpcg_matrix_csr(A, NULL, NULL, &cur));
    for (int k = 0; k < 6; k++) CHECK(cur[k] == nv[k]);
    CHECK_STATUS(ctx, mpcg_matrix_update_values(A, NULL), MPCG_ERR_INVALID_ARG);
    mpcg_matrix_destroy(A);
    mpcg_matrix_destroy(NULL);
    mpcg_context_destroy(ctx);
}

static void test_symmetric_random(void)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    mpcgi_csr A;
    CHECK(test_random_csr(&g, 597, 6, 1, &A) == 0);

    CHECK_OK(NULL, mpcgi_csr_check_symmetric(NULL, &A));

    A.val[A.row_ptr[1]] += 1.0; /* perturb one entry (off-diagonal or diagonal) */
    mpcgi_diag_stats d;
    mpcgi_csr_diag_stats(&A, &d);
    CHECK(d.missing == (597 + 3) / 7); /* the empty rows of test_random_csr */
    mpcgi_csr_free(&A);
}

static void test_alloc_sweep(void)
{
    const int64_t rp[] = {0, 2, 3};
    const int32_t col[] = {1, 0, 1};
    const double val[] = {2, 1, 3};
    mpcg_context *ctx;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    int64_t live = mpcgi_alloc_live();
    int ok = 0;
    for (int64_t n = 0; n < 50 && !ok; n++) {
        mpcg_matrix *A = NULL;
        mpcgi_alloc_fail_at(n);

        mpcg_status st = mpcg_matrix_create_csr(ctx, 2, rp, col, val, &A);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) ok = 1, mpcg_matrix_destroy(A);
        else CHECK(st == MPCG_ERR_HOST_ALLOC && A == NULL);
        CHECK(mpcgi_alloc_live() == live);
    }
    CHECK(ok);
    mpcg_context_destroy(ctx);
}

int main(void)
{
    test_init_seed("test_csr");
    test_from_coo_sorts_and_sums();
    test_from_coo_empty_rows();
    test_from_user_validation();
    test_matrix_checks();
    test_symmetric_random();
    test_alloc_sweep();
    return test_finish("test_csr");
}
