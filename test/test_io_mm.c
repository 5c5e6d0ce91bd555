/* test/test_io_mm.c: Matrix Market reading and writing: variants, mangled files, round trips */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkstemp, setrlimit, stat, pipe, clock_gettime */
#include <signal.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "core/alloc.h"
#include "core/matrix.h"
#include "test/testutil.h"

#ifndef MPCG_HAVE_ZLIB
#define MPCG_HAVE_ZLIB 0
#endif
#if MPCG_HAVE_ZLIB
#include <zlib.h>
#endif

static mpcg_context *ctx;
static char tmp_path[4096]; /* a temporary file for the round trips */

/* ---------------------------------------------------------------- valid files */

typedef struct expected {
    const char *file;
    int64_t n, nnz;
    int64_t row_ptr[8];
    int32_t col_idx[16];
    double val[16];
} expected;

/* [4 -1 0; -1 4 -2; 0 -2 5] */
#define A3                                                                                         \
    3, 7, {0, 2, 5, 7}, {0, 1, 0, 1, 2, 1, 2},                                                     \
    {                                                                                              \
        4, -1, -1, 4, -2, -2, 5                                                                    \
    }
/* [0 -1 2; 1 0 -3; -2 3 0] from its strict lower triangle 1, -2, 3 */
#define S3                                                                                         \
    3, 6, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1},                                                        \
    {                                                                                              \
        -1, 2, 1, -3, -2, 3                                                                        \
    }
/* pattern (1,1) (1,3) (2,1) (3,3) */
#define P3                                                                                         \
    3, 4, {0, 2, 3, 4}, {0, 2, 0, 2},                                                              \
    {                                                                                              \
        1, 1, 1, 1                                                                                 \
    }
/* symmetric pattern (1,1) (2,1) (3,2) (3,3) and the mirrors (1,2) (2,3) */
#define PS3                                                                                        \
    3, 6, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2},                                                        \
    {                                                                                              \
        1, 1, 1, 1, 1, 1                                                                           \
    }

static const expected valid[] = {
    {"coord_real_general.mtx", A3},
    {"coord_real_symmetric.mtx", A3},
    {"coord_real_hermitian.mtx", A3}, /* hermitian with real values: symmetric */
    {"array_integer_hermitian.mtx", A3},
    {"coord_integer_general.mtx", A3},
    {"coord_integer_symmetric.mtx", A3},
    {"coord_real_skew.mtx", S3},
    {"coord_integer_skew.mtx", S3},
    {"coord_pattern_general.mtx", P3},
    {"coord_pattern_symmetric.mtx", PS3},
    {"array_real_general.mtx", A3},
    {"array_integer_general.mtx", A3},
    {"array_real_symmetric.mtx", A3},
    {"array_integer_symmetric.mtx", A3},
    {"array_real_skew.mtx", S3},
    {"array_integer_skew.mtx", S3},
    {"layout_comments_blank.mtx", A3},
    {"layout_crlf.mtx", A3},
    {"layout_tabs.mtx", A3},
    {"layout_case.mtx", A3},
    {"layout_no_final_newline.mtx", A3},
    {"coord_real_general.mtx.gz", A3},
    {"array_real_symmetric.mtx.gz", A3},
    /* (1,1): 1.5 + 2.5; (2,1): -1 + 0.25; an explicit zero entry is kept */
    {"duplicates.mtx", 2, 4, {0, 2, 4}, {0, 1, 0, 1}, {4, 0, -0.75, 2}},
    /* (2,1) 1 + 2, mirrored after summing */
    {"duplicates_symmetric.mtx", 2, 4, {0, 2, 4}, {0, 1, 0, 1}, {1, 3, 3, 3}},
    {"numbers.mtx", 6, 6, {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5}, {1, 0.5, 5, 2, -2.5, 1.5e-3}},
    {"empty_entries.mtx", 2, 0, {0, 0, 0}, {0}, {0}},
    {"one.mtx", 1, 1, {0, 1}, {0}, {7}},
};

/* 1 if this build refuses path: the corpus's ".gz" files are gzip data, which a build without
 * zlib refuses (MPCG_ERR_NOT_SUPPORTED). */
static int no_gz(const char *path)
{
    size_t len = strlen(path);
    return !MPCG_HAVE_ZLIB && len >= 3 && strcmp(path + len - 3, ".gz") == 0;
}

static void check_csr(const mpcg_matrix *A, const expected *e)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK(mpcg_matrix_n(A) == e->n);
    CHECK(mpcg_matrix_nnz(A) == e->nnz);
    if (mpcg_matrix_n(A) != e->n || mpcg_matrix_nnz(A) != e->nnz) return;
    CHECK_OK(ctx, mpcg_matrix_csr(A, &rp, &ci, &v));
    for (int64_t i = 0; i <= e->n; i++)
        CHECK(rp[i] == e->row_ptr[i]);
    for (int64_t k = 0; k < e->nnz; k++)
        CHECK(ci[k] == e->col_idx[k] && v[k] == e->val[k]);
}

static void test_valid_files(void)
{
    for (size_t t = 0; t < sizeof valid / sizeof valid[0]; t++) {
        char path[512];
        snprintf(path, sizeof path, "mm/%s", valid[t].file);
        mpcg_matrix *A = NULL;
        int before = test_failures;

        mpcg_status st = mpcg_matrix_read_mm(ctx, test_data(path), &A);

        CHECK_STATUS(ctx, st, no_gz(path) ? MPCG_ERR_NOT_SUPPORTED : MPCG_SUCCESS);
        if (A) check_csr(A, &valid[t]);
        if (test_failures != before) fprintf(stderr, "  while reading %s\n", path);
        mpcg_matrix_destroy(A);
    }
}

static void test_matrix_name(void)
{
    mpcg_matrix *A = NULL, *B = NULL;

    mpcg_matrix_read_mm(ctx, test_data("mm/coord_real_general.mtx.gz"), &A);
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, test_data("mm/one.mtx"), &B));

    CHECK(no_gz(".gz") || (A && strcmp(A->name, "coord_real_general") == 0));
    CHECK(B && strcmp(B->name, "one") == 0);
    mpcg_matrix_destroy(A);
    mpcg_matrix_destroy(B);
}

static void test_valid_vectors(void)
{
    static const struct {
        const char *file;
        int64_t n;
        double x[4];
    } cases[] = {
        {"mm/vec_array.mtx", 3, {1.5, -2, 0}},
        {"mm/vec_array_row.mtx", 3, {4, 5, 6}},
        {"mm/vec_coord.mtx", 4, {-1, 0, 3, 0}}, /* (3): 2.5 + 0.5, missing entries 0 */
        {"mm/vec_coord_row.mtx", 3, {0, 7, 0}},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        int64_t n = -1;
        double *x = NULL;

        CHECK_OK(ctx, mpcg_vector_read_mm(ctx, test_data(cases[t].file), &n, &x));

        CHECK(n == cases[t].n && x);
        for (int64_t k = 0; x && k < n && k < 4; k++)
            CHECK(x[k] == cases[t].x[k]);
        mpcg_free(x);
    }
}

/* ---------------------------------------------------------------- mangled files */

typedef struct mangled {
    const char *file; /* under test/data/mm */
    int vector;       /* read with mpcg_vector_read_mm */
    mpcg_status status;
    int line;         /* the message must contain "FILE:LINE:" */
    const char *text; /* and this */
} mangled;

static const mangled mangled_files[] = {
    {"bad_empty.mtx", 0, MPCG_ERR_PARSE, 1, "empty file"},
    {"bad_banner_typo.mtx", 0, MPCG_ERR_PARSE, 1, "missing banner"},
    {"bad_no_banner.mtx", 0, MPCG_ERR_PARSE, 1, "missing banner"},
    {"bad_banner_short.mtx", 0, MPCG_ERR_PARSE, 1, "banner has 4 words"},
    {"bad_banner_long.mtx", 0, MPCG_ERR_PARSE, 1, "banner has 6 words"},
    {"bad_object.mtx", 0, MPCG_ERR_PARSE, 1, "unknown object 'tensor'"},
    {"bad_vector_object.mtx", 0, MPCG_ERR_PARSE, 1, "object 'vector' is not supported"},
    {"bad_vector_object.mtx", 1, MPCG_ERR_PARSE, 1, "object 'vector' is not supported"},
    {"bad_format.mtx", 0, MPCG_ERR_PARSE, 1, "unknown format 'sparse'"},
    {"bad_field.mtx", 0, MPCG_ERR_PARSE, 1, "unknown field 'double'"},
    {"bad_symmetry.mtx", 0, MPCG_ERR_PARSE, 1, "unknown symmetry 'lower'"},
    {"bad_complex.mtx", 0, MPCG_ERR_PARSE, 1, "complex matrices are not supported"},
    {"bad_complex_hermitian.mtx", 0, MPCG_ERR_PARSE, 1, "complex matrices are not supported"},
    {"bad_pattern_array.mtx", 0, MPCG_ERR_PARSE, 1, "pattern field is not allowed"},
    {"bad_pattern_skew.mtx", 0, MPCG_ERR_PARSE, 1, "cannot be skew-symmetric"},
    {"bad_header_only.mtx", 0, MPCG_ERR_PARSE, 4, "missing the size line"},
    {"bad_size_few.mtx", 0, MPCG_ERR_PARSE, 3, "has 2 fields, expected 3"},
    {"bad_size_many.mtx", 0, MPCG_ERR_PARSE, 2, "has 4 fields, expected 3"},
    {"bad_size_float.mtx", 0, MPCG_ERR_PARSE, 2, "columns '3.0' is not an integer"},
    {"bad_size_negative.mtx", 0, MPCG_ERR_PARSE, 2, "rows = -3 out of range"},
    {"bad_size_zero.mtx", 0, MPCG_ERR_PARSE, 2, "rows = 0 out of range"},
    {"bad_size_int32.mtx", 0, MPCG_ERR_PARSE, 2, "rows = 3000000000 out of range [1, 2147483647]"},
    {"bad_size_int64.mtx", 0, MPCG_ERR_PARSE, 2, "rows = 99999999999999999999 out of range"},
    {"bad_nnz_negative.mtx", 0, MPCG_ERR_PARSE, 2, "entries = -1 out of range"},
    {"bad_not_square.mtx", 0, MPCG_ERR_PARSE, 2, "not square: 3 rows, 4 columns"},
    {"vec_array.mtx", 0, MPCG_ERR_PARSE, 2, "not square: 3 rows, 1 column"},
    {"bad_array_size.mtx", 0, MPCG_ERR_PARSE, 2, "has 3 fields, expected 2"},
    {"bad_too_few.mtx", 0, MPCG_ERR_PARSE, 6, "unexpected end of file: 3 of 4 entries"},
    {"bad_too_few_huge.mtx", 0, MPCG_ERR_PARSE, 5, "2 of 1000000000000 entries"},
    {"bad_too_many.mtx", 0, MPCG_ERR_PARSE, 5, "more entries than the 2 declared"},
    {"bad_array_too_few.mtx", 0, MPCG_ERR_PARSE, 6, "3 of 4 values"},
    {"bad_array_too_many.mtx", 0, MPCG_ERR_PARSE, 7, "more values than the 4"},
    {"bad_row_zero.mtx", 0, MPCG_ERR_PARSE, 4, "row index 0 out of range [1, 5]"},
    {"bad_row_big.mtx", 0, MPCG_ERR_PARSE, 7, "row index 9 out of range [1, 5]"},
    {"bad_row_big.mtx.gz", 0, MPCG_ERR_PARSE, 7, "row index 9 out of range [1, 5]"},
    {"bad_crlf_row.mtx", 0, MPCG_ERR_PARSE, 5, "row index 6 out of range [1, 5]"},
    {"bad_col_big.mtx", 0, MPCG_ERR_PARSE, 3, "column index 6 out of range [1, 5]"},
    {"bad_index_negative.mtx", 0, MPCG_ERR_PARSE, 3, "row index -1 out of range"},
    {"bad_index_overflow.mtx", 0, MPCG_ERR_PARSE, 3, "row index 99999999999999999999 out of"},
    {"bad_index_float.mtx", 0, MPCG_ERR_PARSE, 3, "row index '1.0' is not an integer"},
    {"bad_column_missing.mtx", 0, MPCG_ERR_PARSE, 3, "missing column index"},
    {"bad_value_missing.mtx", 0, MPCG_ERR_PARSE, 3, "missing value"},
    {"bad_value_garbage.mtx", 0, MPCG_ERR_PARSE, 3, "value '1.0abc' is not a number"},
    {"bad_value_nan.mtx", 0, MPCG_ERR_PARSE, 3, "value 'nan' is not a number"},
    {"bad_value_inf.mtx", 0, MPCG_ERR_PARSE, 3, "value '-inf' is not a number"},
    {"bad_value_dot.mtx", 0, MPCG_ERR_PARSE, 3, "value '.' is not a number"},
    {"bad_value_hex.mtx", 0, MPCG_ERR_PARSE, 3, "value '0x10' is not a number"},
    {"bad_value_overflow.mtx", 0, MPCG_ERR_PARSE, 3, "value 1e400 is not a finite double"},
    {"bad_nul_byte.mtx", 0, MPCG_ERR_PARSE, 3, "value '1?' is not a number"},
    {"bad_extra_token.mtx", 0, MPCG_ERR_PARSE, 3, "unexpected text '7' after the entry"},
    {"bad_pattern_extra.mtx", 0, MPCG_ERR_PARSE, 3, "unexpected text '1.0' after the entry"},
    {"bad_integer_float.mtx", 0, MPCG_ERR_PARSE, 3, "value '2.5' is not an integer"},
    {"bad_integer_overflow.mtx", 0, MPCG_ERR_PARSE, 3, "out of range of a 64-bit integer"},
    {"bad_symmetric_upper.mtx", 0, MPCG_ERR_PARSE, 4,
     "entry (1, 2) above the diagonal in a symmetric file"},
    {"bad_skew_upper.mtx", 0, MPCG_ERR_PARSE, 3,
     "entry (1, 3) above the diagonal in a skew-symmetric file"},
    {"bad_skew_diagonal.mtx", 0, MPCG_ERR_PARSE, 3, "diagonal entry (2, 2) in a skew-symmetric"},
    {"bad_array_value.mtx", 0, MPCG_ERR_PARSE, 4, "value 'abc' is not a number"},
    {"bad_array_two_values.mtx", 0, MPCG_ERR_PARSE, 3, "one value per line"},
    {"bad_truncated.mtx.gz", 0, MPCG_ERR_IO, 1, "truncated gzip data"},
    {"bad_vec_shape.mtx", 1, MPCG_ERR_PARSE, 2,
     "a vector must have 1 column (or 1 row), not 3 x 2"},
    {"coord_real_general.mtx", 1, MPCG_ERR_PARSE, 2, "a vector must have 1 column"},
    {"bad_vec_symmetric.mtx", 1, MPCG_ERR_PARSE, 1, "a vector file must be general, not symmetric"},
    {"bad_vec_hermitian.mtx", 1, MPCG_ERR_PARSE, 1, "a vector file must be general, not hermitian"},
    {"bad_vec_pattern.mtx", 1, MPCG_ERR_PARSE, 1, "pattern files are not vectors"},
    {"bad_vec_too_few.mtx", 1, MPCG_ERR_PARSE, 5, "2 of 3 values"},
    /* more kinds (docs/reliability.md): trailing text, sizes and counts out of range, a byte
     * order mark, Fortran exponents, huge declared sizes with few entries */
    {"bad_trailing_garbage.mtx", 0, MPCG_ERR_PARSE, 6, "more entries than the 3 declared"},
    {"bad_nnz_int64.mtx", 0, MPCG_ERR_PARSE, 2, "entries = 99999999999999999999 out of range"},
    {"bad_bom.mtx", 0, MPCG_ERR_PARSE, 1, "missing banner"},
    {"bad_value_fortran.mtx", 0, MPCG_ERR_PARSE, 3, "value '1.0D+00' is not a number"},
    {"bad_array_sym_too_many.mtx", 0, MPCG_ERR_PARSE, 9, "more values than the 6 of a 3 x 3"},
    {"bad_col_zero.mtx", 0, MPCG_ERR_PARSE, 4, "column index 0 out of range [1, 3]"},
    {"bad_array_not_square.mtx", 0, MPCG_ERR_PARSE, 2, "not square: 3 rows, 2 columns"},
    {"bad_array_huge.mtx", 0, MPCG_ERR_PARSE, 5, "2 of 4611686014132420609 values"},
    {"bad_coord_huge.mtx", 0, MPCG_ERR_PARSE, 4, "1 of 4611686018427387903 entries"},
    {"bad_symmetric_upper_last.mtx", 0, MPCG_ERR_PARSE, 6, "entry (1, 3) above the diagonal"},
    {"bad_value_truncated_line.mtx", 0, MPCG_ERR_PARSE, 4, "missing value"},
    /* found by fuzz/run.sh as finite values whose duplicates sum to an infinity (the next
     * three files keep that case); its runs of CR were blanks inside line 9 until a CR alone
     * became a line end, and now leave "6 6" without a value */
    {"bad_fuzz_duplicate_sum.mtx", 0, MPCG_ERR_PARSE, 9, "missing value"},
    {"bad_duplicates_overflow.mtx", 0, MPCG_ERR_PARSE, 6, "entries of (2, 2) sum to inf"},
    {"bad_duplicates_overflow_symmetric.mtx", 0, MPCG_ERR_PARSE, 6,
     "entries of (1, 3) sum to -inf"},
    {"bad_vec_duplicates_overflow.mtx", 1, MPCG_ERR_PARSE, 5, "entries of (2, 1) sum to inf"},
};

/* Read path as a matrix or vector; nothing may come back and nothing may leak. */
static mpcg_status read_any(const char *path, int vector)
{
    int64_t live = mpcgi_alloc_live(), n = -1;
    mpcg_matrix *A = NULL;
    double *x = NULL;
    mpcg_clear_error(ctx);
    mpcg_status st =
        vector ? mpcg_vector_read_mm(ctx, path, &n, &x) : mpcg_matrix_read_mm(ctx, path, &A);
    CHECK(st == MPCG_SUCCESS ? (vector ? x != NULL : A != NULL) : !A && !x && (!vector || !n));
    mpcg_matrix_destroy(A);
    mpcg_free(x);
    CHECK(mpcgi_alloc_live() == live);
    return st;
}

static void check_message(const char *file, int line, const char *text)
{
    char where[512];
    const char *msg = mpcg_last_error(ctx);
    snprintf(where, sizeof where, "%s:%d: ", file, line);
    if (!strstr(msg, where) || !strstr(msg, text)) {
        fprintf(stderr, "message of %s lacks \"%s\" or \"%s\":\n  %s\n", file, where, text, msg);
        test_failures++;
    }
}

static void test_mangled_files(void)
{
    for (size_t t = 0; t < sizeof mangled_files / sizeof mangled_files[0]; t++) {
        const mangled *m = &mangled_files[t];
        char path[512];
        snprintf(path, sizeof path, "mm/%s", m->file);

        mpcg_status st = read_any(test_data(path), m->vector);

        CHECK_STATUS(ctx, st, no_gz(m->file) ? MPCG_ERR_NOT_SUPPORTED : m->status);
        if (!no_gz(m->file)) check_message(m->file, m->line, m->text);
    }
}

/* A line longer than the reader's limit (16 MiB) is an error, not an endless allocation. */
static void test_overlong_line(void)
{
    FILE *f = fopen(tmp_path, "w");
    CHECK(f != NULL);
    if (!f) return;
    static char chunk[1 << 16];
    memset(chunk, 'a', sizeof chunk);
    fputs("%%MatrixMarket matrix coordinate real general\n% ", f);
    for (int k = 0; k < 17 * 16; k++) /* a comment line of 17 MiB */
        fwrite(chunk, 1, sizeof chunk, f);
    fputs("\n3 3 0\n", f);
    fclose(f);

    mpcg_status st = read_any(tmp_path, 0);

    CHECK_STATUS(ctx, st, MPCG_ERR_PARSE);
    check_message(tmp_path, 2, "line longer than 16777216 bytes");
}

/* ---------------------------------------------------------------- I/O errors and arguments */

static void test_io_errors(void)
{
    mpcg_matrix *A = NULL;
    double x[2] = {1, 2};
    struct stat sb;
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, test_data("mm/one.mtx"), &A));

    CHECK_STATUS(ctx, read_any(test_data("mm/no_such_file.mtx"), 0), MPCG_ERR_IO);
    CHECK(strstr(mpcg_last_error(ctx), "cannot open") != NULL);
    CHECK_STATUS(ctx, read_any(test_data("mm/no_such_file.mtx.gz"), 1), MPCG_ERR_IO);
    CHECK_STATUS(ctx, read_any(test_data("mm"), 0), MPCG_ERR_IO); /* a directory */
    CHECK(strstr(mpcg_last_error(ctx), "cannot read") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_matrix_write_mm(A, "/nonexistent-mpcg-dir/a.mtx"), MPCG_ERR_IO);
    CHECK(strstr(mpcg_last_error(ctx), "cannot create /nonexistent-mpcg-dir/a.mtx") != NULL);
    CHECK_STATUS(ctx, mpcg_vector_write_mm(ctx, test_data("mm"), 2, x), MPCG_ERR_IO);
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        CHECK_STATUS(ctx, mpcg_matrix_write_mm(A, "/dev/full"), MPCG_ERR_IO);
        CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)); /* never removed */
    }
    char gz[4200];
    snprintf(gz, sizeof gz, "%s.gz", tmp_path);
    CHECK_STATUS(ctx, mpcg_matrix_write_mm(A, gz), MPCG_ERR_NOT_SUPPORTED);
    CHECK(stat(gz, &sb) != 0);

    mpcg_matrix_destroy(A);
}

static void test_invalid_arguments(void)
{
    mpcg_matrix *A = (mpcg_matrix *)&A;
    int64_t n;
    double *x = NULL, v[2] = {1, NAN};
    const char *path = test_data("mm/one.mtx");

    CHECK_STATUS(NULL, mpcg_matrix_read_mm(NULL, path, &A), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_read_mm(ctx, path, NULL), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_read_mm(ctx, NULL, &A), MPCG_ERR_INVALID_ARG);
    CHECK(A == NULL);
    CHECK_STATUS(ctx, mpcg_vector_read_mm(ctx, path, NULL, &x), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_vector_read_mm(ctx, NULL, &n, &x), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_matrix_write_mm(NULL, tmp_path), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_vector_write_mm(NULL, tmp_path, 1, v), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_vector_write_mm(ctx, NULL, 1, v), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_vector_write_mm(ctx, tmp_path, 0, v), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_vector_write_mm(ctx, tmp_path, 2, v), MPCG_ERR_INVALID_ARG);
    CHECK(x == NULL);
}

/* A write that fails half-way (here: the file size limit) leaves no partial file behind. */
static void test_failed_write_removes_file(void)
{
    mpcg_matrix *A = NULL;
    struct rlimit old, lim;
    struct stat sb;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:60", &A));
    if (getrlimit(RLIMIT_FSIZE, &old) != 0) goto done;
    lim = old;
    lim.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) goto done;

    mpcg_clear_error(ctx);
    mpcg_status st = mpcg_matrix_write_mm(A, tmp_path);
    setrlimit(RLIMIT_FSIZE, &old);

    CHECK_STATUS(ctx, st, MPCG_ERR_IO);
    CHECK(strstr(mpcg_last_error(ctx), tmp_path) != NULL);
    CHECK(stat(tmp_path, &sb) != 0);
done:
    mpcg_matrix_destroy(A);
}

/* ---------------------------------------------------------------- exact round trips */

/* Read path back and compare with A bit for bit. */
static void check_same_matrix(const mpcg_matrix *A, const char *path)
{
    mpcg_matrix *B = NULL;
    const int64_t *rpa, *rpb;
    const int32_t *cia, *cib;
    const double *va, *vb;
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, path, &B));
    if (!B) return;
    int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    CHECK(mpcg_matrix_n(B) == n && mpcg_matrix_nnz(B) == nnz);
    if (mpcg_matrix_n(B) == n && mpcg_matrix_nnz(B) == nnz) {
        mpcg_matrix_csr(A, &rpa, &cia, &va);
        mpcg_matrix_csr(B, &rpb, &cib, &vb);
        CHECK(memcmp(rpa, rpb, (size_t)(n + 1) * sizeof *rpa) == 0);
        CHECK(memcmp(cia, cib, (size_t)nnz * sizeof *cia) == 0);
        CHECK(memcmp(va, vb, (size_t)nnz * sizeof *va) == 0);
    }
    mpcg_matrix_destroy(B);
}

static void test_round_trip_random(void)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    for (int trial = 0; trial < 30; trial++) {
        int64_t n = 1 + (int64_t)mpcgi_rng_below(&g, 60), nnz = 0;
        int64_t *rp = calloc((size_t)n + 1, sizeof *rp);
        int32_t *ci = malloc((size_t)(n * n) * sizeof *ci);
        double *v = malloc((size_t)(n * n) * sizeof *v);
        mpcg_matrix *A = NULL;
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = 0; j < n; j++)
                if (mpcgi_rng_below(&g, 5) == 0)
                    ci[nnz] = (int32_t)j, v[nnz++] = test_stress_value(&g);
            rp[i + 1] = nnz;
        }
        CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, n, rp, ci, v, &A));

        CHECK_OK(ctx, mpcg_matrix_write_mm(A, tmp_path));

        check_same_matrix(A, tmp_path);
        mpcg_matrix_destroy(A);
        free(rp);
        free(ci);
        free(v);
    }
}

/* A generated matrix large enough that the reader grows its triplet arrays. */
static void test_round_trip_generated(void)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson3d:40", &A));

    CHECK_OK(ctx, mpcg_matrix_write_mm(A, tmp_path));

    check_same_matrix(A, tmp_path);
    mpcg_matrix_destroy(A);
}

static void test_round_trip_vector(void)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 1);
    for (int trial = 0; trial < 10; trial++) {
        int64_t n = 1 + (int64_t)mpcgi_rng_below(&g, 300), m = -1;
        double *x = malloc((size_t)n * sizeof *x), *y = NULL;
        for (int64_t k = 0; k < n; k++)
            x[k] = test_stress_value(&g);

        CHECK_OK(ctx, mpcg_vector_write_mm(ctx, tmp_path, n, x));
        CHECK_OK(ctx, mpcg_vector_read_mm(ctx, tmp_path, &m, &y));

        CHECK(m == n && y && memcmp(x, y, (size_t)n * sizeof *x) == 0);
        mpcg_free(y);
        free(x);
    }
}

/* ---------------------------------------------------------------- line ends and gzip data */

/* coord_real_symmetric.mtx (A3) with a comment and a blank line; line 8 is "3 2 -2" */
static const char *const a3_lines[] = {"%%MatrixMarket matrix coordinate real symmetric",
                                       "% a comment",
                                       "",
                                       "3 3 5",
                                       "1 1 4",
                                       "2 1 -1",
                                       "2 2 4",
                                       "3 2 -2",
                                       "3 3 5"};
#define A3_LINES (sizeof a3_lines / sizeof a3_lines[0])

/* The lines of A3 in buf, line k ended by ends[k % nends] (the last one too), with "9 2 -2" in
 * place of line 8 when bad; returns the length. (In a mix, a blank line must not follow a CR
 * with its own LF: "\r" "" "\n" would be one CR LF.) */
static size_t a3_text(char *buf, size_t size, const char *const *ends, size_t nends, int bad)
{
    size_t len = 0;
    for (size_t k = 0; k < A3_LINES; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                bad && k == 7 ? "9 2 -2" : a3_lines[k], ends[k % nends]);
    return len;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, len, f) == len);
    if (f) CHECK(fclose(f) == 0);
}

/* Read path as a matrix: A3 when !bad; else the out-of-range row on line 8, named so. */
static void check_a3_file(const char *path, int bad, const char *what)
{
    static const expected a3 = {"", A3};
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    mpcg_matrix *A = NULL;
    int before = test_failures;

    mpcg_status st = bad ? read_any(path, 0) : mpcg_matrix_read_mm(ctx, path, &A);

    CHECK_STATUS(ctx, st, bad ? MPCG_ERR_PARSE : MPCG_SUCCESS);
    if (A) check_csr(A, &a3);
    if (bad) check_message(base, 8, "row index 9 out of range [1, 3]");
    if (test_failures != before) fprintf(stderr, "  while reading %s (%s)\n", path, what);
    mpcg_matrix_destroy(A);
}

/* LF, CR LF, CR alone, and all three mixed in one file: the same matrix, the same line numbers */
static void test_line_ends(void)
{
    static const char *const lf[] = {"\n"}, *const crlf[] = {"\r\n"}, *const cr[] = {"\r"},
                             *const mixed[] = {"\n", "\r\n", "\r"};
    static const struct {
        const char *name;
        const char *const *ends;
        size_t nends;
    } kinds[] = {{"LF", lf, 1}, {"CR LF", crlf, 1}, {"CR", cr, 1}, {"mixed", mixed, 3}};
    char text[512];
    for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++)
        for (int bad = 0; bad <= 1; bad++) {
            size_t len = a3_text(text, sizeof text, kinds[t].ends, kinds[t].nends, bad);

            write_file(tmp_path, text, len);

            check_a3_file(tmp_path, bad, kinds[t].name);
        }
}

/* A line end across the reader's 1 MiB blocks: the CR of a CR LF as the last byte of the first
 * block is one line end with the LF that starts the next; a CR alone there is one line end. */
static void test_line_end_at_block_edge(void)
{
    static const char *const crlf[] = {"\r\n"}, *const cr[] = {"\r"};
    const size_t block = (size_t)1 << 20;
    char *buf = malloc(block + 512);
    CHECK(buf != NULL);
    if (!buf) return;
    for (int kind = 0; kind < 2; kind++) {
        /* banner, a comment line whose line end starts at block - 1, then lines 3..9 */
        size_t len = (size_t)sprintf(buf, "%s%s%%", a3_lines[0], kind ? "\r" : "\r\n");
        memset(buf + len, 'x', block - 1 - len);
        len = block - 1;
        buf[len++] = '\r';
        char rest[512];
        size_t n = a3_text(rest, sizeof rest, kind ? cr : crlf, 1, 1);
        size_t skip = strlen(a3_lines[0]) + strlen(kind ? "\r" : "\r\n") + strlen(a3_lines[1]);
        /* from the line end of line 2 on (a CR LF's LF goes first into the second block) */
        memcpy(buf + len, rest + skip + 1, n - skip - 1);
        len += n - skip - 1;

        write_file(tmp_path, buf, len);

        check_a3_file(tmp_path, 1, kind ? "CR at the block edge" : "CR LF across the block edge");
    }
    free(buf);
}

/* A matrix of several blocks written by mpcg, its LF turned into CR or CR LF: read back the same
 * (and in linear time: each line must not search the rest of the block again). */
static void test_line_ends_large(void)
{
    mpcg_matrix *A = NULL;
    FILE *f = NULL;
    char *lf = NULL, *conv = NULL;
    long size = 0;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson3d:32", &A));
    CHECK_OK(ctx, mpcg_matrix_write_mm(A, tmp_path));
    f = fopen(tmp_path, "rb");
    CHECK(f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > (1L << 21));
    if (!f || size <= 0) goto done;
    rewind(f);
    lf = malloc((size_t)size);
    conv = malloc(2 * (size_t)size);
    CHECK(lf && conv && fread(lf, 1, (size_t)size, f) == (size_t)size);
    if (!lf || !conv) goto done;
    for (int crlf = 0; crlf <= 1; crlf++) {
        size_t n = 0;
        for (long k = 0; k < size; k++) {
            if (lf[k] == '\n') {
                conv[n++] = '\r';
                if (crlf) conv[n++] = '\n';
            } else {
                conv[n++] = lf[k];
            }
        }

        write_file(tmp_path, conv, n);

        check_same_matrix(A, tmp_path);
    }
done:
    if (f) fclose(f);
    free(lf);
    free(conv);
    mpcg_matrix_destroy(A);
}

/* gzip is recognised by its content: gzip data without ".gz" in the name is decompressed (or, in
 * a build without zlib, refused as such), and a plain file named ".gz" is read as it is. */
static void test_gzip_by_content(void)
{
    static const char *const cr[] = {"\r"};
    char text[512], gz[4200];
    snprintf(gz, sizeof gz, "%s.gz", tmp_path);
    for (int bad = 0; bad <= 1; bad++) {
        size_t len = a3_text(text, sizeof text, cr, 1, bad);
#if MPCG_HAVE_ZLIB
        gzFile g = gzopen(tmp_path, "wb");
        CHECK(g && gzwrite(g, text, (unsigned)len) == (int)len);
        if (g) CHECK(gzclose(g) == Z_OK);

        check_a3_file(tmp_path, bad, "gzip data, no .gz in the name, CR line ends");
#else
        static const unsigned char magic[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
        write_file(tmp_path, magic, sizeof magic);

        CHECK_STATUS(ctx, read_any(tmp_path, 0), MPCG_ERR_NOT_SUPPORTED);
        CHECK(strstr(mpcg_last_error(ctx), "reading .gz needs zlib") != NULL);
#endif
        write_file(gz, text, len);

        check_a3_file(gz, bad, "plain text named .gz");
    }
    remove(gz);
}

/* A pipe (here /dev/fd/N of one written beforehand) can be read once: plain text is read;
 * gzip data, which is read again from its start once recognised, is a clear MPCG_ERR_IO. */
static void test_pipe(void)
{
    static const char *const mixed[] = {"\n", "\r\n", "\r"};
    struct stat sb;
    char text[512], path[64];
    if (stat("/dev/fd/0", &sb) != 0) return; /* no /dev/fd here */
    for (int gzip = 0; gzip <= 1; gzip++) {
        int fd[2];
        size_t len = a3_text(text, sizeof text, mixed, 3, 0);
        if (gzip) {
            static const unsigned char magic[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
            memcpy(text, magic, sizeof magic);
        }
        CHECK(pipe(fd) == 0);
        CHECK(write(fd[1], text, len) == (ssize_t)len);
        close(fd[1]);
        snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
        mpcg_matrix *A = NULL;
        static const expected a3 = {"", A3};

        mpcg_status st = gzip ? read_any(path, 0) : mpcg_matrix_read_mm(ctx, path, &A);

        if (!gzip) {
            CHECK_OK(ctx, st);
            if (A) check_csr(A, &a3);
        } else if (MPCG_HAVE_ZLIB) {
            CHECK_STATUS(ctx, st, MPCG_ERR_IO);
            CHECK(strstr(mpcg_last_error(ctx), "cannot be rewound") != NULL);
        } else {
            CHECK_STATUS(ctx, st, MPCG_ERR_NOT_SUPPORTED);
        }
        mpcg_matrix_destroy(A);
        close(fd[0]);
    }
}

/* ---------------------------------------------------------------- sizes from what is read */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Under AddressSanitizer the address space holds the shadow: no RLIMIT_AS can be set. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Lower the soft RLIMIT_AS to 4 GiB above the address space in use, so that the memory the
 * reader sees available is small on any machine; 0 if that cannot be done here. */
static int limit_memory(struct rlimit *old)
{
#ifdef UNDER_ASAN
    (void)old;
    return 0;
#else
    long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    int ok = fscanf(f, "%lld", &pages) == 1;
    fclose(f);
    if (!ok || getrlimit(RLIMIT_AS, old) != 0) return 0;
    struct rlimit lim = *old;
    rlim_t want = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)4 << 30);
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < want) return 1; /* already lower */
    lim.rlim_cur = want;
    return setrlimit(RLIMIT_AS, &lim) == 0;
#endif
}

/* A 100-byte file that declares 2e9 rows and holds 3 entries fails at once at its size line,
 * having allocated for its entries only (it took 52 s and the OOM killer when 16 bytes a declared
 * row were allocated first); so do vectors that declare more than they hold or fit. */
static void test_huge_declared_sizes(void)
{
    struct rlimit old;
    int limited = limit_memory(&old);
    static const struct {
        const char *text;
        int vector;
        mpcg_status status;
        int line, needs_limit;
        const char *msg;
    } cases[] = {
        {"%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 3\n"
         "1 1 4\n2 2 4\n3 3 4\n",
         0, MPCG_ERR_HOST_ALLOC, 2, 1,
         "declares 2000000000 rows, but the file holds 3 entries: at least 1999999997 rows are "
         "empty, and solving a matrix of 2000000000 rows needs 74.5 GiB"},
        {"%%MatrixMarket matrix array real general\n2000000000 1\n1\n2\n3\n", 1,
         MPCG_ERR_PARSE, 6, 0, "3 of 2000000000 values"},
        {"%%MatrixMarket matrix coordinate real general\n2000000000 1 3\n1 1 1\n2 1 2\n"
         "2000000000 1 3\n",
         1, MPCG_ERR_HOST_ALLOC, 2, 1, "2000000000 x 1 values need 14.9 GiB, more than"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        if (cases[t].needs_limit && !limited) continue;
        write_file(tmp_path, cases[t].text, strlen(cases[t].text));
        double t0 = now();

        mpcg_status st = read_any(tmp_path, cases[t].vector);

        double seconds = now() - t0;
        CHECK_STATUS(ctx, st, cases[t].status);
        check_message(tmp_path, cases[t].line, cases[t].msg);
        CHECK(seconds < 1.0);
    }
    if (limited) setrlimit(RLIMIT_AS, &old);
}

/* mpcg_dense_read_mm_rows refuses a file of other than the rows asked at its size line, before
 * it reads or allocates anything, however many rows the file declares (cgsolve -b, --x0). */
static void test_dense_rows(void)
{
    static const char text[] = "%%MatrixMarket matrix array real general\n2000000000 1\n1\n";
    int64_t cols = -1;
    double *x = NULL;
    CHECK_OK(ctx, mpcg_dense_read_mm_rows(ctx, test_data("mm/vec_array.mtx"), 3, &cols, &x));
    CHECK(cols == 1 && x && x[0] == 1.5 && x[1] == -2 && x[2] == 0);
    mpcg_free(x);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_dense_read_mm_rows(ctx, test_data("mm/vec_coord.mtx"), 3, &cols, &x),
                 MPCG_ERR_PARSE);
    check_message("vec_coord.mtx", 2, "4 rows, but 3 expected");
    CHECK(cols == 0 && !x);
    write_file(tmp_path, text, sizeof text - 1);
    int64_t live = mpcgi_alloc_live();
    double t0 = now();
    mpcg_clear_error(ctx);

    mpcg_status st = mpcg_dense_read_mm_rows(ctx, tmp_path, 100, &cols, &x);

    CHECK(now() - t0 < 1.0);
    CHECK_STATUS(ctx, st, MPCG_ERR_PARSE);
    check_message(tmp_path, 2, "2000000000 rows, but 100 expected");
    CHECK(!x && mpcgi_alloc_live() == live);
    CHECK_STATUS(ctx, mpcg_dense_read_mm_rows(ctx, tmp_path, 0, &cols, &x), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_dense_read_mm_rows(ctx, NULL, 3, &cols, &x), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_dense_read_mm_rows(ctx, tmp_path, 3, NULL, &x), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcg_dense_read_mm_rows(NULL, tmp_path, 3, &cols, &x), MPCG_ERR_INVALID_ARG);
}

/* A hermitian file of real values is read as symmetric; the facts keep the banner's word. */
static void test_hermitian_facts(void)
{
    mpcg_matrix *A = NULL;
    mpcg_matrix_facts f;
    CHECK_OK(ctx, mpcg_matrix_read_mm(ctx, test_data("mm/coord_real_hermitian.mtx"), &A));
    CHECK_OK(ctx, mpcg_matrix_describe(A, &f));
    CHECK(!strcmp(f.declared_symmetry, "hermitian") && f.symmetric && f.nnz_stored == 5);
    mpcg_matrix_destroy(A);
}

/* Compressed data other than gzip is refused by name, whatever the file is called (it got
 * "missing banner"): bzip2, xz and zstd by their magic bytes. */
static void test_other_compression(void)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *msg;
    } cases[] = {
        {"BZh91AY&SY\x01\x02", 12, "is bzip2-compressed: decompress it first (bunzip2)"},
        {"\xfd\x37zXZ\0\0\x04", 8, "is xz-compressed: decompress it first (unxz)"},
        {"\x28\xb5\x2f\xfd\x24\x05", 6, "is zstd-compressed: decompress it first (unzstd)"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        write_file(tmp_path, cases[t].bytes, cases[t].len);
        for (int vector = 0; vector <= 1; vector++) {
            CHECK_STATUS(ctx, read_any(tmp_path, vector), MPCG_ERR_NOT_SUPPORTED);
            CHECK(strstr(mpcg_last_error(ctx), cases[t].msg) != NULL);
            CHECK(strstr(mpcg_last_error(ctx), tmp_path) != NULL);
        }
    }
    write_file(tmp_path, "BZh", 3); /* too short to be bzip2: not a banner either */
    CHECK_STATUS(ctx, read_any(tmp_path, 0), MPCG_ERR_PARSE);
    check_message(tmp_path, 1, "missing banner");
}

/* ---------------------------------------------------------------- allocation failures */

static mpcg_matrix *sweep_matrix; /* what the write sweeps write */

enum { READ_MATRIX, READ_VECTOR, WRITE_MATRIX, WRITE_VECTOR };

static mpcg_status call(int what, const char *path)
{
    static const double x[3] = {1, -0.5, 1e-300};
    switch (what) {
    case WRITE_MATRIX: return mpcg_matrix_write_mm(sweep_matrix, path);
    case WRITE_VECTOR: return mpcg_vector_write_mm(ctx, path, 3, x);
    default: return read_any(path, what == READ_VECTOR);
    }
}

/* Fail allocation 0, 1, 2, ... of call(path) until it succeeds: every failure must report
 * MPCG_ERR_HOST_ALLOC and leave no block allocated. */
static void sweep(int what, const char *path)
{
    int64_t k = 0;
    for (;; k++) {
        int64_t live = mpcgi_alloc_live();
        mpcg_clear_error(ctx);
        mpcgi_alloc_fail_at(k);

        mpcg_status st = call(what, path);

        mpcgi_alloc_fail_at(-1);
        CHECK(mpcgi_alloc_live() == live);
        if (st == MPCG_SUCCESS || k > 200) break;
        CHECK_STATUS(ctx, st, MPCG_ERR_HOST_ALLOC);
    }
    CHECK(k >= 1 && k <= 200);
}

static void test_allocation_failures(void)
{
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:200", &sweep_matrix));

    sweep(READ_MATRIX, test_data("mm/coord_real_symmetric.mtx"));
    if (!no_gz(".gz")) sweep(READ_MATRIX, test_data("mm/array_real_symmetric.mtx.gz"));
    sweep(READ_VECTOR, test_data("mm/vec_array.mtx"));
    sweep(READ_VECTOR, test_data("mm/vec_coord.mtx"));
    sweep(WRITE_VECTOR, tmp_path);
    sweep(WRITE_MATRIX, tmp_path);
    sweep(READ_MATRIX, tmp_path); /* 199200 entries: the triplet arrays grow */

    mpcg_matrix_destroy(sweep_matrix);
}

int main(void)
{
    test_init_seed("test_io_mm");
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/test_io_mm-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp_path);
    if (fd < 0 || mpcg_context_create("cpu", &ctx) != MPCG_SUCCESS) {
        fprintf(stderr, "test_io_mm: cannot set up (%s)\n", mpcg_last_error(NULL));
        return 1;
    }
    close(fd);
    int64_t live = mpcgi_alloc_live();

    test_valid_files();
    test_matrix_name();
    test_valid_vectors();
    test_mangled_files();
    test_overlong_line();
    test_io_errors();
    test_invalid_arguments();
    test_failed_write_removes_file();
    test_round_trip_random();
    test_round_trip_generated();
    test_round_trip_vector();
    test_line_ends();
    test_line_end_at_block_edge();
    test_line_ends_large();
    test_gzip_by_content();
    test_pipe();
    test_huge_declared_sizes();
    test_dense_rows();
    test_hermitian_facts();
    test_other_compression();
    test_allocation_failures();

    CHECK(mpcgi_alloc_live() == live);
    mpcg_context_destroy(ctx);
    remove(tmp_path);
    return test_finish("test_io_mm");
}
