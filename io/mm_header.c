/* io/mm_header.c: the Matrix Market banner and size line */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/csr.h"
#include "core/error.h"
#include "io/mm.h"
#include "io/mm_num.h"

#define BANNER "%%MatrixMarket matrix FORMAT FIELD SYMMETRY"
#define MAX_WORDS 6

static const char *const symmetry_name[] = {"general", "symmetric", "skew-symmetric"};

/* Record status as "PATH:LINE: message". */
static mpcg_status mm_verror(const mpcgi_lines *r, int64_t at, mpcg_status status, const char *file,
                             int line, const char *func, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return mpcgi_error_set(r->ctx, status, file, line, func, "%s:%lld: %s", r->path,
                           (long long)at, msg);
}

mpcg_status mpcgi_mm_error(const mpcgi_lines *r, const char *file, int line, const char *func,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mpcg_status st = mm_verror(r, r->line, MPCG_ERR_PARSE, file, line, func, fmt, ap);
    va_end(ap);
    return st;
}

mpcg_status mpcgi_mm_size_error(const mpcgi_lines *r, const mpcgi_mm_header *h, mpcg_status status,
                                const char *file, int line, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mpcg_status st = mm_verror(r, h->size_line, status, file, line, func, fmt, ap);
    va_end(ap);
    return st;
}

const char *mpcgi_mm_token(const char *p, const char *t, char *buf)
{
    size_t k = 0;
    for (; p < t && k < 40; p++)
        buf[k++] = *p >= ' ' && *p <= '~' ? *p : '?';
    if (p < t) buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
    buf[k] = '\0';
    return buf;
}

mpcg_status mpcgi_mm_next_line(mpcgi_lines *r, const char **begin, const char **end)
{
    for (;;) {
        char *s, *e;
        MPCG_CHECK(r->ctx, mpcgi_lines_next(r, &s, &e));
        if (!s) {
            *begin = *end = NULL;
            return MPCG_SUCCESS;
        }
        const char *p = mpcgi_skip_blanks(s, e);
        if (p < e && *p != '%') {
            *begin = p;
            *end = e;
            return MPCG_SUCCESS;
        }
    }
}

/* Split [p, e) at blanks; returns the number of words (only the first max are stored). */
static int split(const char *p, const char *e, const char **word, const char **wend, int max)
{
    int n = 0;
    for (p = mpcgi_skip_blanks(p, e); p < e; p = mpcgi_skip_blanks(p, e)) {
        const char *t = mpcgi_token_end(p, e);
        if (n < max) {
            word[n] = p;
            wend[n] = t;
        }
        n++;
        p = t;
    }
    return n;
}

/* ASCII case-insensitive comparison of [p, t) with the lower-case word w (not the locale's
 * tolower: in a Turkish locale 'I' is not the upper case of 'i'). */
static int word_is(const char *p, const char *t, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(t - p) != n) return 0;
    for (size_t k = 0; k < n; k++) {
        char c = p[k] >= 'A' && p[k] <= 'Z' ? (char)(p[k] - 'A' + 'a') : p[k];
        if (c != w[k]) return 0;
    }
    return 1;
}

static mpcg_status parse_words(mpcgi_lines *r, const char **w, const char **we, mpcgi_mm_header *h)
{
    if (word_is(w[1], we[1], "vector"))
        return MPCGI_MM_ERROR(r, "object 'vector' is not supported: expected 'matrix' (write a "
                                 "vector as an n x 1 matrix)");
    if (!word_is(w[1], we[1], "matrix"))
        return MPCGI_MM_ERROR(r, "unknown object '%s': expected 'matrix'",
                              MPCGI_MM_TOKEN(w[1], we[1]));
    if (word_is(w[2], we[2], "coordinate"))
        h->format = MPCGI_MM_COORDINATE;
    else if (word_is(w[2], we[2], "array"))
        h->format = MPCGI_MM_ARRAY;
    else
        return MPCGI_MM_ERROR(r, "unknown format '%s': expected coordinate or array",
                              MPCGI_MM_TOKEN(w[2], we[2]));
    if (word_is(w[3], we[3], "real"))
        h->field = MPCGI_MM_REAL;
    else if (word_is(w[3], we[3], "integer"))
        h->field = MPCGI_MM_INTEGER;
    else if (word_is(w[3], we[3], "pattern"))
        h->field = MPCGI_MM_PATTERN;
    else if (word_is(w[3], we[3], "complex"))
        return MPCGI_MM_ERROR(r, "complex matrices are not supported (mpcg solves real SPD "
                                 "systems)");
    else
        return MPCGI_MM_ERROR(r, "unknown field '%s': expected real, integer or pattern",
                              MPCGI_MM_TOKEN(w[3], we[3]));
    if (word_is(w[4], we[4], "general"))
        h->symmetry = MPCGI_MM_GENERAL;
    else if (word_is(w[4], we[4], "symmetric"))
        h->symmetry = MPCGI_MM_SYMMETRIC;
    else if (word_is(w[4], we[4], "skew-symmetric"))
        h->symmetry = MPCGI_MM_SKEW;
    else if (word_is(w[4], we[4], "hermitian")) /* the field is not complex (refused above) */
        h->symmetry = MPCGI_MM_SYMMETRIC, h->hermitian = 1;
    else
        return MPCGI_MM_ERROR(r,
                              "unknown symmetry '%s': expected general, symmetric, "
                              "skew-symmetric or hermitian",
                              MPCGI_MM_TOKEN(w[4], we[4]));
    return MPCG_SUCCESS;
}

static mpcg_status parse_banner(mpcgi_lines *r, mpcgi_mm_want want, mpcgi_mm_header *h)
{
    char *s, *e;
    const char *w[MAX_WORDS], *we[MAX_WORDS];
    MPCG_CHECK(r->ctx, mpcgi_lines_next(r, &s, &e));
    if (!s) return MPCGI_MM_ERROR(r, "empty file: expected the banner '%s'", BANNER);
    int n = split(s, e, w, we, MAX_WORDS);
    if (n == 0 || !word_is(w[0], we[0], "%%matrixmarket"))
        return MPCGI_MM_ERROR(r, "missing banner: the first line must be '%s'", BANNER);
    if (n != 5) return MPCGI_MM_ERROR(r, "the banner has %d words, expected 5: '%s'", n, BANNER);
    MPCG_CHECK(r->ctx, parse_words(r, w, we, h));
    if (h->field == MPCGI_MM_PATTERN && h->format == MPCGI_MM_ARRAY)
        return MPCGI_MM_ERROR(r, "the pattern field is not allowed with the array format");
    if (h->field == MPCGI_MM_PATTERN && h->symmetry == MPCGI_MM_SKEW)
        return MPCGI_MM_ERROR(r, "a pattern matrix cannot be skew-symmetric");
    if (want != MPCGI_MM_WANT_MATRIX && h->symmetry != MPCGI_MM_GENERAL)
        return MPCGI_MM_ERROR(r, "a vector file must be general, not %s",
                              h->hermitian ? "hermitian" : symmetry_name[h->symmetry]);
    if (want != MPCGI_MM_WANT_MATRIX && h->field == MPCGI_MM_PATTERN)
        return MPCGI_MM_ERROR(r, "a vector needs values: pattern files are not vectors");
    return MPCG_SUCCESS;
}

/* Word k of the size line as an integer in [lo, hi]. */
static mpcg_status size_value(mpcgi_lines *r, const char *p, const char *t, const char *what,
                              int64_t lo, int64_t hi, int64_t *out)
{
    int rc = mpcgi_parse_i64(p, t, out);
    if (rc == MPCGI_NUM_BAD)
        return MPCGI_MM_ERROR(r, "size line: %s '%s' is not an integer", what,
                              MPCGI_MM_TOKEN(p, t));
    if (rc == MPCGI_NUM_RANGE || *out < lo || *out > hi)
        return MPCGI_MM_ERROR(r, "size line: %s = %s out of range [%lld, %lld]", what,
                              MPCGI_MM_TOKEN(p, t), (long long)lo, (long long)hi);
    return MPCG_SUCCESS;
}

static mpcg_status parse_size(mpcgi_lines *r, mpcgi_mm_want want, mpcgi_mm_header *h)
{
    const char *s, *e, *w[MAX_WORDS], *we[MAX_WORDS];
    MPCG_CHECK(r->ctx, mpcgi_mm_next_line(r, &s, &e));
    if (!s) return MPCGI_MM_ERROR(r, "unexpected end of file: missing the size line");
    h->size_line = r->line;
    int coord = h->format == MPCGI_MM_COORDINATE, expect = coord ? 3 : 2;
    int n = split(s, e, w, we, MAX_WORDS);
    if (n != expect)
        return MPCGI_MM_ERROR(r, "the size line has %d fields, expected %d (%s)", n, expect,
                              coord ? "rows columns entries" : "rows columns");
    MPCG_CHECK(r->ctx, size_value(r, w[0], we[0], "rows", 1, MPCGI_MAX_N, &h->rows));
    MPCG_CHECK(r->ctx, size_value(r, w[1], we[1], "columns", 1, MPCGI_MAX_N, &h->cols));
    if (coord)
        MPCG_CHECK(r->ctx, size_value(r, w[2], we[2], "entries", 0, INT64_MAX / 2, &h->entries));
    if (want == MPCGI_MM_WANT_MATRIX && h->rows != h->cols)
        return MPCGI_MM_ERROR(r, "the matrix is not square: %lld row%s, %lld column%s",
                              (long long)h->rows, h->rows == 1 ? "" : "s", (long long)h->cols,
                              h->cols == 1 ? "" : "s");
    if (want == MPCGI_MM_WANT_VECTOR && h->rows != 1 && h->cols != 1)
        return MPCGI_MM_ERROR(r, "a vector must have 1 column (or 1 row), not %lld x %lld",
                              (long long)h->rows, (long long)h->cols);
    if (!coord) {
        int64_t n2 = h->rows; /* square unless general */
        h->entries = h->symmetry == MPCGI_MM_GENERAL     ? h->rows * h->cols
                     : h->symmetry == MPCGI_MM_SYMMETRIC ? n2 * (n2 + 1) / 2
                                                         : n2 * (n2 - 1) / 2;
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_mm_read_header(mpcgi_lines *r, mpcgi_mm_want want, mpcgi_mm_header *h)
{
    memset(h, 0, sizeof *h);
    MPCG_CHECK(r->ctx, parse_banner(r, want, h));
    MPCG_CHECK(r->ctx, parse_size(r, want, h));
    return MPCG_SUCCESS;
}
