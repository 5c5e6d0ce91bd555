/* fuzz/fuzz_mm_read.c: libFuzzer target for the Matrix Market reader (fuzz/build.sh builds it) */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each input is written to a file (".mtx.gz" when it starts with the gzip magic, else ".mtx":
 * the reader picks zlib by the name) and read with mpcg_matrix_read_mm and mpcg_vector_read_mm.
 * Either call must
 *   - succeed with a valid result: a CSR matrix with 1 <= n, row pointers from 0 to nnz, sorted
 *     in-range distinct columns and finite values (then written and read back bit-identically),
 *     or a vector of n >= 1 finite values;
 *   - or fail with MPCG_ERR_PARSE ("PATH:LINE: reason"), MPCG_ERR_IO, MPCG_ERR_NOT_SUPPORTED or
 *     MPCG_ERR_HOST_ALLOC (a declared size beyond the fuzzing run's allocation cap), returning
 *     nothing and with a message holding ':';
 * and leave no block allocated. Anything else aborts, which libFuzzer reports as a crash; ASan
 * and UBSan report memory and undefined-behaviour errors.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "mpcg.h"

static mpcg_context *ctx;
static char dir[256], plain[300], gz[300], back[300];

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_mm_read: %s\n  %s\n", what, detail ? detail : "");
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cleanup(void)
{
    remove(plain);
    remove(gz);
    remove(back);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mpcg-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) die("cannot create a temporary directory", dir);
    snprintf(plain, sizeof plain, "%s/input.mtx", dir);
    snprintf(gz, sizeof gz, "%s/input.mtx.gz", dir);
    snprintf(back, sizeof back, "%s/back.mtx", dir);
    atexit(cleanup);
    if (mpcg_context_create("cpu", &ctx) != MPCG_SUCCESS) die("no context", mpcg_last_error(NULL));
    return 0;
}

/* A failed read: an allowed status, nothing returned, a message with "PATH:" for PARSE. */
static void check_failure(mpcg_status st, const char *path, int returned)
{
    const char *msg = mpcg_last_error(ctx);
    if (st != MPCG_ERR_PARSE && st != MPCG_ERR_IO && st != MPCG_ERR_NOT_SUPPORTED &&
        st != MPCG_ERR_HOST_ALLOC)
        die(mpcg_status_name(st), msg);
    if (returned) die("a failed read returned something", msg);
    if (!*msg || !strchr(msg, ':')) die("a failure without a message", msg);
    if (st == MPCG_ERR_PARSE) {
        char where[320];
        snprintf(where, sizeof where, "%s:", path);
        const char *p = strstr(msg, where);
        if (!p || p[strlen(where)] < '0' || p[strlen(where)] > '9')
            die("a parse error without PATH:LINE:", msg);
    }
}

static void check_matrix(const mpcg_matrix *A)
{
    int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (n < 1 || n > INT32_MAX || nnz < 0) die("matrix size out of range", NULL);
    if (mpcg_matrix_csr(A, &rp, &ci, &v) != MPCG_SUCCESS) die("no CSR arrays", NULL);
    if (rp[0] != 0 || rp[n] != nnz) die("row pointers do not span 0 .. nnz", NULL);
    for (int64_t i = 0; i < n; i++) {
        if (rp[i + 1] < rp[i]) die("decreasing row pointers", NULL);
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            if (ci[k] < 0 || ci[k] >= n) die("column out of range", NULL);
            if (k > rp[i] && ci[k] <= ci[k - 1]) die("columns not sorted and distinct", NULL);
            if (!isfinite(v[k])) die("non-finite value", NULL);
        }
    }
    /* the checks run without failing on anything but symmetry */
    mpcg_status st = mpcg_matrix_check(A, MPCG_CHECK_DIAGONAL | MPCG_CHECK_SYMMETRY);
    if (st != MPCG_SUCCESS && st != MPCG_ERR_INVALID_ARG) die("mpcg_matrix_check", NULL);
    mpcg_clear_error(ctx);
}

/* What was read is written and read back bit-identically. */
static void round_trip(const mpcg_matrix *A)
{
    mpcg_matrix *B = NULL;
    if (mpcg_matrix_write_mm(A, back) != MPCG_SUCCESS) die("write", mpcg_last_error(ctx));
    if (mpcg_matrix_read_mm(ctx, back, &B) != MPCG_SUCCESS) die("read back", mpcg_last_error(ctx));
    int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    const int64_t *rp, *rq;
    const int32_t *ci, *cj;
    const double *v, *w;
    mpcg_matrix_csr(A, &rp, &ci, &v);
    mpcg_matrix_csr(B, &rq, &cj, &w);
    if (mpcg_matrix_n(B) != n || mpcg_matrix_nnz(B) != nnz ||
        memcmp(rp, rq, (size_t)(n + 1) * sizeof *rp) || memcmp(ci, cj, (size_t)nnz * sizeof *ci) ||
        memcmp(v, w, (size_t)nnz * sizeof *v))
        die("the matrix read back differs", NULL);
    mpcg_matrix_destroy(B);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? gz : plain;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) die("cannot write", path);
    int64_t live = mpcgi_alloc_live();

    mpcg_matrix *A = NULL;
    mpcg_clear_error(ctx);
    mpcg_status st = mpcg_matrix_read_mm(ctx, path, &A);
    if (st == MPCG_SUCCESS) {
        if (!A) die("success without a matrix", NULL);
        check_matrix(A);
        if (mpcg_matrix_nnz(A) <= 100000) round_trip(A);
        mpcg_matrix_destroy(A);
    } else {
        check_failure(st, path, A != NULL);
    }

    int64_t n = -1;
    double *x = NULL;
    mpcg_clear_error(ctx);
    st = mpcg_vector_read_mm(ctx, path, &n, &x);
    if (st == MPCG_SUCCESS) {
        if (!x || n < 1 || n > INT32_MAX) die("success without a vector", NULL);
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(x[i])) die("non-finite vector value", NULL);
        mpcg_free(x);
    } else {
        check_failure(st, path, x != NULL || n != 0);
    }
    if (mpcgi_alloc_live() != live) die("blocks leaked", NULL);
    remove(path);
    return 0;
}
