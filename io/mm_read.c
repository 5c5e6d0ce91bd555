/* io/mm_read.c: reading matrices and vectors from Matrix Market files */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/csr.h"
#include "core/error.h"
#include "core/matrix.h"
#include "io/mm.h"

/* The name reports use: the base name without ".mtx", ".mtx.gz" or ".gz". */
static void base_name(const char *path, char *name, size_t size)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    size_t len = strlen(s);
    if (mpcgi_path_is_gz(s)) len -= 3;
    if (len > 4 && memcmp(s + len - 4, ".mtx", 4) == 0) len -= 4;
    if (len >= size) len = size - 1;
    memcpy(name, s, len);
    name[len] = '\0';
}

/* Symmetric storage holds the lower triangle: append A(j, i) = sign * A(i, j) for every stored
 * off-diagonal entry (sign = -1 for skew-symmetric). */
static mpcg_status expand(const mpcg_context *ctx, mpcgi_coo *c, double sign)
{
    int64_t stored = c->nnz, off = 0;
    for (int64_t k = 0; k < stored; k++)
        off += c->ri[k] != c->ci[k];
    MPCG_CHECK(ctx, mpcgi_coo_reserve(ctx, c, stored + off, stored + off));
    int64_t m = stored;
    for (int64_t k = 0; k < stored; k++) {
        if (c->ri[k] == c->ci[k]) continue;
        c->ri[m] = c->ci[k];
        c->ci[m] = c->ri[k];
        c->v[m] = sign * c->v[k];
        m++;
    }
    c->nnz = m;
    return MPCG_SUCCESS;
}

/* The line of coordinate entry k (0-based, in file order), found by reading the file again up to
 * it; only for the message of the rare error below. 0 if the file no longer reads the same. */
static int64_t entry_line(const mpcg_context *ctx, const char *path, mpcgi_mm_want want, int64_t k)
{
    mpcgi_lines r;
    mpcgi_mm_header h;
    int64_t line = 0;
    if (mpcgi_lines_open(ctx, path, &r) == MPCG_SUCCESS &&
        mpcgi_mm_read_header(&r, want, &h) == MPCG_SUCCESS) {
        for (int64_t e = 0; e <= k; e++) {
            const char *p, *q;
            if (mpcgi_mm_next_line(&r, &p, &q) != MPCG_SUCCESS || !p) {
                line = 0;
                break;
            }
            line = r.line;
        }
    }
    mpcgi_lines_close(&r);
    return line;
}

/* Every value is finite in the file, but duplicates are summed: a sum that overflows is an error
 * of the file, reported at the entry where the running sum (in file order, as the summation)
 * stops being finite. c holds the triplets of the `stored` file entries, then the mirrored
 * off-diagonal ones of a symmetric file in the same order (see expand). */
static mpcg_status check_sums(const mpcg_context *ctx, const char *path, const mpcgi_csr *A,
                              const mpcgi_coo *c, int64_t stored)
{
    int64_t bad = -1;
    for (int64_t k = 0; k < A->nnz && bad < 0; k++)
        if (!isfinite(A->val[k])) bad = k;
    if (bad < 0) return MPCG_SUCCESS;
    int32_t i = 0, j = A->col_idx[bad];
    while (A->row_ptr[i + 1] <= bad) i++;
    double sum = 0.0;
    int64_t k = 0, seen = 0;
    for (; k < c->nnz; k++)
        if (c->ri[k] == i && c->ci[k] == j) {
            sum = seen++ ? sum + c->v[k] : c->v[k];
            if (!isfinite(sum)) break;
        }
    if (k >= stored) { /* a mirrored entry: the off-diagonal file entry it mirrors */
        int64_t m = k - stored;
        for (k = 0; k < stored; k++)
            if (c->ri[k] != c->ci[k] && m-- == 0) break;
    }
    mpcgi_lines at = {.ctx = ctx, .path = path};
    at.line = entry_line(ctx, path, MPCGI_MM_WANT_MATRIX, k);
    return MPCGI_MM_ERROR(&at, "the duplicate entries of (%d, %d) sum to %g: values must be finite",
                          i + 1, j + 1, A->val[bad]);
}

#define GIB(bytes) ((bytes) / (1024.0 * 1024.0 * 1024.0))

/* Sizes are taken from what is read, not from what the size line claims: before anything of n
 * entries is allocated, the declared n is checked, at the size line, against the entries read
 * (nnz of them after expansion, `stored` in the file) and the memory available. Reading needs
 * 8 bytes a row (the row pointers) and 28 an entry (the CSR arrays and the sort's triplets).
 * Entries that leave rows empty make a singular matrix: there the bar is what a CG solve needs,
 * the row pointers and at least four vectors of n doubles (x, r, p, A p), 40 bytes a row. */
static mpcg_status check_memory(const mpcgi_lines *r, const mpcgi_mm_header *h, int64_t stored,
                                int64_t nnz)
{
    const double avail = (double)mpcgi_host_available(), n = (double)h->rows;
    if (nnz < h->rows && 40.0 * n > avail)
        return MPCGI_MM_SIZE_ERROR(r, h, MPCG_ERR_HOST_ALLOC,
                                   "the size line declares %lld rows, but the file holds %lld "
                                   "entries: at least %lld rows are empty, and solving a matrix "
                                   "of %lld rows needs %.1f GiB (40 bytes a row), more than the "
                                   "%.1f GiB of memory available",
                                   (long long)h->rows, (long long)stored,
                                   (long long)(h->rows - nnz), (long long)h->rows,
                                   GIB(40.0 * n), GIB(avail));
    double need = 8.0 * (n + 1) + 28.0 * (double)nnz;
    if (need > avail)
        return MPCGI_MM_SIZE_ERROR(r, h, MPCG_ERR_HOST_ALLOC,
                                   "reading %lld rows and %lld entries needs %.1f GiB, more than "
                                   "the %.1f GiB of memory available",
                                   (long long)h->rows, (long long)stored, GIB(need), GIB(avail));
    return MPCG_SUCCESS;
}

mpcg_status mpcg_matrix_read_mm(mpcg_context *ctx, const char *path, mpcg_matrix **out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_lines r = {0};
    mpcgi_coo c = {0};
    mpcgi_csr csr = {0};
    mpcgi_mm_header h;
    char name[sizeof((mpcg_matrix *)0)->name];
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    MPCG_ENSURE(ctx, path, MPCG_ERR_INVALID_ARG, "path must not be NULL");

    MPCG_TRY(ctx, st, mpcgi_lines_open(ctx, path, &r));
    MPCG_TRY(ctx, st, mpcgi_mm_read_header(&r, MPCGI_MM_WANT_MATRIX, &h));
    MPCG_TRY(ctx, st, mpcgi_mm_read_coo(&r, &h, &c));
    mpcgi_lines_close(&r);
    int64_t stored = c.nnz;
    if (h.symmetry != MPCGI_MM_GENERAL)
        MPCG_TRY(ctx, st, expand(ctx, &c, h.symmetry == MPCGI_MM_SKEW ? -1.0 : 1.0));
    MPCG_TRY(ctx, st, check_memory(&r, &h, stored, c.nnz));
    MPCG_TRY(ctx, st, mpcgi_csr_from_coo(ctx, h.rows, c.nnz, c.ri, c.ci, c.v, &csr));
    if (h.format == MPCGI_MM_COORDINATE) /* an array file has no duplicates */
        MPCG_TRY(ctx, st, check_sums(ctx, path, &csr, &c, stored));
    mpcgi_coo_free(&c);
    base_name(path, name, sizeof name);
    MPCG_TRY(ctx, st, mpcgi_matrix_wrap(ctx, &csr, name, out));
    /* the banner, for mpcg_matrix_describe (the words as the file's banner has them) */
    mpcgi_matrix_set_file(*out, h.format == MPCGI_MM_ARRAY ? "array" : "coordinate",
                          h.field == MPCGI_MM_PATTERN   ? "pattern"
                          : h.field == MPCGI_MM_INTEGER ? "integer"
                                                        : "real",
                          h.hermitian                        ? "hermitian"
                          : h.symmetry == MPCGI_MM_SKEW      ? "skew-symmetric"
                          : h.symmetry == MPCGI_MM_SYMMETRIC ? "symmetric"
                                                             : "general",
                          h.entries);
done:
    mpcgi_lines_close(&r);
    mpcgi_coo_free(&c);
    mpcgi_csr_free(&csr);
    return st;
}

/* A coordinate dense file's entries (missing entries are zero, duplicates are summed) into a
 * new zeroed column-major array of h->rows x h->cols, allocated once they are read. */
static mpcg_status coo_dense(mpcg_context *ctx, mpcgi_lines *r, const mpcgi_mm_header *h,
                             mpcgi_mm_want want, double **x)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_coo c = {0};
    double *xv = NULL, avail = (double)mpcgi_host_available(), need = 8.0 * h->rows * h->cols;
    MPCG_TRY(ctx, st, mpcgi_mm_read_coo(r, h, &c));
    if (need > avail) {
        st = MPCGI_MM_SIZE_ERROR(r, h, MPCG_ERR_HOST_ALLOC,
                                 "%lld x %lld values need %.1f GiB, more than the %.1f GiB of "
                                 "memory available",
                                 (long long)h->rows, (long long)h->cols, GIB(need), GIB(avail));
        goto done;
    }
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, (size_t)(h->rows * h->cols), sizeof *xv, &xv));
    for (int64_t k = 0; k < c.nnz; k++) {
        double *e = &xv[(int64_t)c.ri[k] + (int64_t)c.ci[k] * h->rows];
        *e += c.v[k];
        if (!isfinite(*e)) { /* duplicates whose sum overflows (see check_sums) */
            mpcgi_lines at = {.ctx = ctx, .path = r->path};
            at.line = entry_line(ctx, r->path, want, k);
            st = MPCGI_MM_ERROR(&at, "the duplicate entries of (%d, %d) sum to %g: values "
                                     "must be finite", c.ri[k] + 1, c.ci[k] + 1, *e);
            goto done;
        }
    }
    *x = xv;
    xv = NULL;
done:
    mpcgi_coo_free(&c);
    mpcgi_host_free(xv);
    return st;
}

/* An n x s dense file (VECTOR: one of n, s is 1) into a new column-major array; a file of other
 * than want_rows rows (if > 0) is refused at its size line, before anything is allocated. */
static mpcg_status read_dense(mpcg_context *ctx, const char *path, mpcgi_mm_want want,
                              int64_t want_rows, int64_t *rows, int64_t *cols, double **x)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_lines r = {0};
    mpcgi_mm_header h;
    MPCG_TRY(ctx, st, mpcgi_lines_open(ctx, path, &r));
    MPCG_TRY(ctx, st, mpcgi_mm_read_header(&r, want, &h));
    if (want_rows > 0 && h.rows != want_rows) {
        st = MPCGI_MM_SIZE_ERROR(&r, &h, MPCG_ERR_PARSE, "%lld row%s, but %lld expected",
                                 (long long)h.rows, h.rows == 1 ? "" : "s",
                                 (long long)want_rows);
        goto done;
    }
    if (h.format == MPCGI_MM_ARRAY)
        MPCG_TRY(ctx, st, mpcgi_mm_read_dense(&r, &h, x)); /* column by column, as stored */
    else
        MPCG_TRY(ctx, st, coo_dense(ctx, &r, &h, want, x));
    *rows = h.rows, *cols = h.cols;
done:
    mpcgi_lines_close(&r);
    return st;
}

mpcg_status mpcg_vector_read_mm(mpcg_context *ctx, const char *path, int64_t *n, double **x)
{
    int64_t rows = 0, cols = 0;
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, n && x, MPCG_ERR_INVALID_ARG, "n and x must not be NULL");
    *n = 0;
    *x = NULL;
    MPCG_ENSURE(ctx, path, MPCG_ERR_INVALID_ARG, "path must not be NULL");
    MPCG_CHECK(ctx, read_dense(ctx, path, MPCGI_MM_WANT_VECTOR, 0, &rows, &cols, x));
    *n = rows * cols; /* one of them is 1 */
    return MPCG_SUCCESS;
}

mpcg_status mpcg_dense_read_mm(mpcg_context *ctx, const char *path, int64_t *rows,
                               int64_t *cols, double **x)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, rows && cols && x, MPCG_ERR_INVALID_ARG,
                "rows, cols and x must not be NULL");
    *rows = *cols = 0;
    *x = NULL;
    MPCG_ENSURE(ctx, path, MPCG_ERR_INVALID_ARG, "path must not be NULL");
    return read_dense(ctx, path, MPCGI_MM_WANT_DENSE, 0, rows, cols, x);
}

mpcg_status mpcg_dense_read_mm_rows(mpcg_context *ctx, const char *path, int64_t rows,
                                    int64_t *cols, double **x)
{
    int64_t r = 0;
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, cols && x, MPCG_ERR_INVALID_ARG, "cols and x must not be NULL");
    *cols = 0;
    *x = NULL;
    MPCG_ENSURE(ctx, path, MPCG_ERR_INVALID_ARG, "path must not be NULL");
    MPCG_ENSURE(ctx, rows >= 1, MPCG_ERR_INVALID_ARG, "rows = %lld: expected at least 1",
                (long long)rows);
    return read_dense(ctx, path, MPCGI_MM_WANT_DENSE, rows, &r, cols, x);
}
