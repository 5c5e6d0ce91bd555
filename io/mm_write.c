/* io/mm_write.c: writing matrices and vectors as Matrix Market text that reads back exactly */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/csr.h"
#include "core/error.h"
#include "core/matrix.h"
#include "io/lines.h"

#define BUF_SIZE ((size_t)1 << 20)
#define LINE_MAX_LEN 128 /* two 20-digit indices and a %.17g value (at most 24 characters) */

/* Text is formatted into buf and written in blocks. */
typedef struct writer {
    const mpcg_context *ctx;
    const char *path;
    FILE *f;
    int regular; /* a regular file: removed again if writing fails (never /dev/... ) */
    char dp;     /* the locale's decimal point, turned back into '.' */
    char *buf;
    size_t len;
} writer;

static mpcg_status w_open(const mpcg_context *ctx, const char *path, writer *w)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->path = path;
    const char *dp = localeconv()->decimal_point;
    w->dp = dp && dp[0] && !dp[1] ? dp[0] : '.';
    MPCG_ENSURE(ctx, !mpcgi_path_is_gz(path), MPCG_ERR_NOT_SUPPORTED,
                "cannot write %s: writing .gz is not supported (write plain text and gzip it)",
                path);
    MPCG_CHECK(ctx, mpcgi_host_alloc(ctx, BUF_SIZE, &w->buf));
    errno = 0;
    w->f = fopen(path, "w");
    if (!w->f) {
        int err = errno;
        mpcgi_host_free(w->buf);
        w->buf = NULL;
        MPCG_FAIL(ctx, MPCG_ERR_IO, "cannot create %s: %s", path, strerror(err));
    }
    struct stat sb;
    w->regular = fstat(fileno(w->f), &sb) == 0 && S_ISREG(sb.st_mode);
    return MPCG_SUCCESS;
}

static mpcg_status w_flush(writer *w)
{
    errno = 0;
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
        MPCG_FAIL(w->ctx, MPCG_ERR_IO, "cannot write %s: %s", w->path,
                  errno ? strerror(errno) : "write error");
    w->len = 0;
    return MPCG_SUCCESS;
}

/* Make room for one line. */
static inline mpcg_status w_room(writer *w)
{
    return w->len <= BUF_SIZE - LINE_MAX_LEN ? MPCG_SUCCESS : w_flush(w);
}

/* Flush and close on success; on failure close and remove the partial file. Returns st or the
 * first failure of flushing and closing. */
static mpcg_status w_close(writer *w, mpcg_status st)
{
    if (w->f) {
        if (st == MPCG_SUCCESS) st = w_flush(w);
        errno = 0;
        if (fclose(w->f) != 0 && st == MPCG_SUCCESS)
            st = mpcgi_error_set(w->ctx, MPCG_ERR_IO, __FILE__, __LINE__, __func__,
                                 "cannot write %s: %s", w->path,
                                 errno ? strerror(errno) : "close failed");
        if (st != MPCG_SUCCESS && w->regular) remove(w->path);
    }
    mpcgi_host_free(w->buf);
    memset(w, 0, sizeof *w);
    return st;
}

static char *put_u64(char *p, uint64_t x)
{
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (k)
        *p++ = tmp[--k];
    return p;
}

/* %.17g, which strtod turns back into the same double. Integers below 2^53 in magnitude print
 * the same digits by hand, without printf (the common case of generated matrices). */
static char *put_double(const writer *w, char *p, double v)
{
    if (fabs(v) < 0x1p53 && v == (double)(int64_t)v && !(v == 0.0 && signbit(v))) {
        if (v < 0) *p++ = '-';
        return put_u64(p, (uint64_t)fabs(v));
    }
    int k = snprintf(p, 32, "%.17g", v);
    if (w->dp != '.') {
        char *d = memchr(p, w->dp, (size_t)k);
        if (d) *d = '.';
    }
    return p + k;
}

static void put_line(writer *w, int64_t i, int64_t j, double v)
{
    char *p = w->buf + w->len;
    if (i > 0) {
        p = put_u64(p, (uint64_t)i);
        *p++ = ' ';
        p = put_u64(p, (uint64_t)j);
        *p++ = ' ';
    }
    p = put_double(w, p, v);
    *p++ = '\n';
    w->len = (size_t)(p - w->buf);
}

/* Banner, a comment naming the matrix (control characters replaced), and the size line. */
static void put_header(writer *w, const char *format, const char *name, int64_t rows, int64_t cols,
                       int64_t nnz)
{
    char safe[256];
    size_t k = 0;
    for (; name[k] && k + 1 < sizeof safe; k++)
        safe[k] = (unsigned char)name[k] < 0x20 || name[k] == 0x7f ? '?' : name[k];
    safe[k] = '\0';
    int len = snprintf(w->buf, BUF_SIZE, "%%%%MatrixMarket matrix %s real general\n", format);
    if (safe[0])
        len += snprintf(w->buf + len, BUF_SIZE - (size_t)len, "%% %s (written by mpcg %d.%d.%d)\n",
                        safe, MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR, MPCG_VERSION_PATCH);
    len += snprintf(w->buf + len, BUF_SIZE - (size_t)len, "%lld %lld", (long long)rows,
                    (long long)cols);
    if (nnz >= 0) len += snprintf(w->buf + len, BUF_SIZE - (size_t)len, " %lld", (long long)nnz);
    w->buf[len++] = '\n';
    w->len = (size_t)len;
}

mpcg_status mpcg_matrix_write_mm(const mpcg_matrix *A, const char *path)
{
    mpcg_status st = MPCG_SUCCESS;
    writer w;
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    const mpcg_context *ctx = A->ctx;
    const mpcgi_csr *csr = &A->csr;
    MPCG_ENSURE(ctx, path, MPCG_ERR_INVALID_ARG, "path must not be NULL");
    MPCG_CHECK(ctx, mpcgi_matrix_mirror(A, MPCGI_MIRROR_FULL)); /* a device view's copy */
    MPCG_CHECK(ctx, w_open(ctx, path, &w));

    put_header(&w, "coordinate", A->name, csr->n, csr->n, csr->nnz);
    for (int64_t i = 0; i < csr->n; i++)
        for (int64_t k = csr->row_ptr[i]; k < csr->row_ptr[i + 1]; k++) {
            MPCG_TRY(ctx, st, w_room(&w));
            put_line(&w, i + 1, (int64_t)csr->col_idx[k] + 1, csr->val[k]);
        }
done:
    return w_close(&w, st);
}

mpcg_status mpcg_dense_write_mm(mpcg_context *ctx, const char *path, int64_t rows,
                                int64_t cols, const double *x)
{
    mpcg_status st = MPCG_SUCCESS;
    writer w;
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, path && x, MPCG_ERR_INVALID_ARG, "path and x must not be NULL");
    MPCG_ENSURE(ctx, rows >= 1 && rows <= MPCGI_MAX_N && cols >= 1 && cols <= MPCGI_MAX_N,
                MPCG_ERR_INVALID_ARG, "%lld x %lld out of range [1, %d]", (long long)rows,
                (long long)cols, MPCGI_MAX_N);
    const int64_t len = rows * cols;
    for (int64_t k = 0; k < len; k++)
        MPCG_ENSURE(ctx, isfinite(x[k]), MPCG_ERR_INVALID_ARG,
                    "x[%lld] = %g is not finite (the file could not be read back)", (long long)k,
                    x[k]);
    MPCG_CHECK(ctx, w_open(ctx, path, &w));

    put_header(&w, "array", "", rows, cols, -1);
    for (int64_t k = 0; k < len; k++) { /* column by column */
        MPCG_TRY(ctx, st, w_room(&w));
        put_line(&w, 0, 0, x[k]);
    }
done:
    return w_close(&w, st);
}

mpcg_status mpcg_vector_write_mm(mpcg_context *ctx, const char *path, int64_t n, const double *x)
{
    return mpcg_dense_write_mm(ctx, path, n, 1, x);
}
