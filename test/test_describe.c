/* test/test_describe.c: the describe calls (core/describe.c, spmv/describe.c) and
 * mpcg_last_error_message, through the public API on hand-checked 3 x 3 and 4 x 4 matrices */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "testutil.h"

/* A = [[2, 1, 0], [-1, 0, 0], [0, 0, -3]]: structurally symmetric at (1,2)/(2,1) with values
 * that differ, a zero and a negative diagonal entry, no missing one. */
static void test_matrix_facts(void)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_matrix_facts f;
    const int64_t rp[] = {0, 2, 4, 5};
    const int32_t ci[] = {0, 1, 0, 1, 2};
    const double v[] = {2, 1, -1, 0, -3};
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, 3, rp, ci, v, &A));

    CHECK_OK(ctx, mpcg_matrix_describe(A, &f));

    CHECK(f.n == 3 && f.nnz == 5 && f.nnz_stored == 5 && !f.from_file && f.format[0] == '\0');
    CHECK(!f.symmetric && !f.skew_symmetric && f.structurally_symmetric);
    CHECK(f.asymmetric_entries == 2 && f.first_asymmetric_row == 0 && f.first_asymmetric_col == 1);
    CHECK(f.diag_positive == 1 && f.diag_zero == 1 && f.diag_negative == 1 && f.diag_missing == 0);
    CHECK(f.first_zero == 1 && f.first_negative == 2 && f.first_missing == -1);
    CHECK(f.row_nnz_min == 1 && f.row_nnz_max == 2 && f.empty_rows == 0);
    CHECK(test_close(f.row_nnz_mean, 5.0 / 3.0, 1e-15, 0));
    CHECK(test_close(f.row_nnz_stddev, sqrt(2.0) / 3.0, 1e-15, 0));
    /* the check shares the scan: it names the same first entry */
    CHECK_STATUS(ctx, mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY), MPCG_ERR_INVALID_ARG);
    char msg[256];
    size_t len = mpcg_last_error_message(ctx, msg, sizeof msg);
    CHECK(strcmp(msg, "matrix is not symmetric: A(1, 2) = 1 but A(2, 1) = -1 (1-based)") == 0);
    CHECK(len == strlen(msg));
    CHECK(strstr(mpcg_last_error(ctx), msg) && strncmp(mpcg_last_error(ctx), msg, 6) != 0);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

/* A file's banner reaches the facts; a generated matrix has none. */
static void test_file_facts(void)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_matrix_facts f;
    char path[512];
    const char *dir = getenv("MPCG_TEST_DATA");
    snprintf(path, sizeof path, "%s/mm/coord_real_skew.mtx", dir ? dir : "test/data");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, path, &A));

    CHECK_OK(ctx, mpcg_matrix_describe(A, &f));

    CHECK(f.from_file && !strcmp(f.format, "coordinate") && !strcmp(f.field, "real"));
    CHECK(!strcmp(f.declared_symmetry, "skew-symmetric") && f.nnz_stored == 3 && f.nnz == 6);
    CHECK(f.skew_symmetric && !f.symmetric && f.diag_missing == 3 && f.first_missing == 0);
    mpcg_matrix_destroy(A);
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:3", &A));
    CHECK_OK(ctx, mpcg_matrix_describe(A, &f));
    CHECK(!f.from_file && f.symmetric && f.nnz_stored == f.nnz && f.diag_positive == 9);
    CHECK_STATUS(ctx, mpcg_matrix_describe(NULL, &f), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_describe(A, NULL), MPCG_ERR_INVALID_ARG);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

/* Every backend describes poisson2d:4 (its host analysis); a name it does not know fails;
 * "auto" resolves for each kind; the caller's recorded error is kept. */
static void test_backend_layout(void)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_backend_layout l;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:4", &A));
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info b;
        CHECK_OK(ctx, mpcg_backend_get(i, &b));

        CHECK_OK(ctx, mpcg_backend_describe(A, b.name, &l));

        CHECK(l.status == MPCG_SUCCESS && !strcmp(l.name, b.name) && l.storage[0]);
        CHECK(l.message[0] == '\0' && l.bytes_matrix > 0 && l.padding_ratio >= 1.0);
    }
    CHECK_OK(ctx, mpcg_backend_describe(A, "cpu", &l));
    CHECK(l.bytes_matrix == 64 * 12 + 17 * 8); /* nnz = 64: nnz (4 + 8) + (n + 1) 8 */
    CHECK_OK(ctx, mpcg_backend_describe(A, "auto", &l));
    CHECK(!strcmp(l.name, "cpu"));
    CHECK_STATUS(ctx, mpcg_backend_describe(A, "nosuch", &l), MPCG_ERR_INVALID_ARG);
    char msg[256];
    mpcg_last_error_message(ctx, msg, sizeof msg);
    CHECK(strstr(msg, "unknown SpMV backend \"nosuch\"") == msg);
    CHECK_OK(ctx, mpcg_backend_describe(A, "cpu", &l)); /* the recorded error stays */
    CHECK(strstr(mpcg_last_error(ctx), "nosuch") != NULL);
    CHECK(!strcmp(mpcg_backend_auto(MPCG_DEVICE_CPU), "cpu"));
    CHECK(mpcg_backend_auto((mpcg_device_kind)7) == NULL);
    CHECK(mpcg_device_count() >= 0);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

/* The message alone: truncation, length, no failure, the thread's slot. */
static void test_error_message(void)
{
    mpcg_context *ctx = NULL;
    char small[8];
    CHECK_STATUS(NULL, mpcg_context_create("gpu", &ctx), MPCG_ERR_INVALID_ARG);
    size_t len = mpcg_last_error_message(NULL, small, sizeof small);
    CHECK(len == strlen("device \"gpu\" is not one of auto, cpu, cuda, cuda:N"));
    CHECK(!strcmp(small, "device "));
    CHECK(mpcg_last_error_message(NULL, NULL, 0) == len);
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK(mpcg_last_error_message(ctx, small, sizeof small) == 0 && small[0] == '\0');
    mpcg_context_destroy(ctx);
}

int main(void)
{
    test_init_seed("test_describe");
    test_matrix_facts();
    test_file_facts();
    test_backend_layout();
    test_error_message();
    return test_finish("test_describe");
}
