/* io/mm.h: Matrix Market parsing shared by the matrix and vector readers */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_IO_MM_H
#define MPCG_IO_MM_H

#include <stdint.h>

#include "io/lines.h"
#include "mpcg.h"

typedef enum mpcgi_mm_format { MPCGI_MM_COORDINATE, MPCGI_MM_ARRAY } mpcgi_mm_format;
typedef enum mpcgi_mm_field { MPCGI_MM_REAL, MPCGI_MM_INTEGER, MPCGI_MM_PATTERN } mpcgi_mm_field;
typedef enum mpcgi_mm_symmetry {
    MPCGI_MM_GENERAL,
    MPCGI_MM_SYMMETRIC,
    MPCGI_MM_SKEW
} mpcgi_mm_symmetry;

/* What the caller reads: a square matrix, or a vector (n x 1 or 1 x n, general, not pattern). */
/* MATRIX: a square sparse matrix; VECTOR: n x 1 or 1 x n values; DENSE: n x s values (a block) */
typedef enum mpcgi_mm_want {
    MPCGI_MM_WANT_MATRIX,
    MPCGI_MM_WANT_VECTOR,
    MPCGI_MM_WANT_DENSE
} mpcgi_mm_want;

typedef struct mpcgi_mm_header {
    mpcgi_mm_format format;
    mpcgi_mm_field field;
    mpcgi_mm_symmetry symmetry;
    int64_t rows, cols; /* both in [1, MPCGI_MAX_N] */
    int64_t entries;    /* entry lines that follow: the declared count (coordinate), or rows x cols,
                           n(n+1)/2 (symmetric) or n(n-1)/2 (skew-symmetric) values (array) */
    int64_t size_line;  /* the line of the size line, for messages about the sizes */
    int hermitian;      /* the banner said hermitian: for real values the same as symmetric, which
                           symmetry then holds */
} mpcgi_mm_header;

/* Coordinate triplets, 0-based, grown as needed. */
typedef struct mpcgi_coo {
    int64_t nnz, cap;
    int32_t *ri, *ci;
    double *v;
} mpcgi_coo;

/* The word [p, t) for a message ("%s"): at most 40 characters (then "..."), anything but
 * printable ASCII shown as '?'. buf holds at least MPCGI_MM_TOKEN_SIZE bytes. */
#define MPCGI_MM_TOKEN_SIZE 48
const char *mpcgi_mm_token(const char *p, const char *t, char *buf);
#define MPCGI_MM_TOKEN(p, t) mpcgi_mm_token((p), (t), (char[MPCGI_MM_TOKEN_SIZE]){0})

/* Record MPCG_ERR_PARSE as "PATH:LINE: message" at the reader's current line. */
mpcg_status mpcgi_mm_error(const mpcgi_lines *r, const char *file, int line, const char *func,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define MPCGI_MM_ERROR(r, ...) mpcgi_mm_error((r), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Next line that is neither blank nor a comment ('%' as its first non-blank character), with
 * *begin at its first non-blank character; *begin = NULL at the end of the file. */
mpcg_status mpcgi_mm_next_line(mpcgi_lines *r, const char **begin, const char **end);

/* Read the banner, the comments and the size line, and check them against want. */
mpcg_status mpcgi_mm_read_header(mpcgi_lines *r, mpcgi_mm_want want, mpcgi_mm_header *h);

/* Read all h->entries entries as triplets in file order: coordinate entries as written (checked
 * against the symmetry: nothing above the diagonal, no skew-symmetric diagonal), array values
 * at their (row, column) with zeros left out. Symmetric files are not expanded here. Extra
 * entries after the last one are an error. */
mpcg_status mpcgi_mm_read_coo(mpcgi_lines *r, const mpcgi_mm_header *h, mpcgi_coo *c);

/* Read the h->entries values of a general array file into a new array *x (mpcgi_host_free), in
 * file order (column-major). The array grows as values arrive, so a file that declares more
 * values than it holds fails at its end having allocated for what it holds. */
mpcg_status mpcgi_mm_read_dense(mpcgi_lines *r, const mpcgi_mm_header *h, double **x);

/* Record `status` with "PATH:LINE: message" at the size line of h. */
mpcg_status mpcgi_mm_size_error(const mpcgi_lines *r, const mpcgi_mm_header *h, mpcg_status status,
                                const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
#define MPCGI_MM_SIZE_ERROR(r, h, status, ...)                                                     \
    mpcgi_mm_size_error((r), (h), (status), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Make room for need triplets (never more than max(need, hint) unless growing past hint). */
mpcg_status mpcgi_coo_reserve(const mpcg_context *ctx, mpcgi_coo *c, int64_t need, int64_t hint);
void mpcgi_coo_free(mpcgi_coo *c);

#endif /* MPCG_IO_MM_H */
