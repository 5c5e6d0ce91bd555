/* io/mm_entries.c: the entry lines of Matrix Market files (coordinate triplets, array values) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mm.h"
#include "io/mm_num.h"

/* Triplets reserved before the first entry: a declared count is only a claim of the file, so
 * larger arrays are grown as entries actually arrive (doubling, capped at the declared count). */
#define INITIAL_CAP ((int64_t)1 << 16)

static const char *const symmetry_name[] = {"general", "symmetric", "skew-symmetric"};

void mpcgi_coo_free(mpcgi_coo *c)
{
    mpcgi_host_free(c->ri);
    mpcgi_host_free(c->ci);
    mpcgi_host_free(c->v);
    memset(c, 0, sizeof *c);
}

mpcg_status mpcgi_coo_reserve(const mpcg_context *ctx, mpcgi_coo *c, int64_t need, int64_t hint)
{
    if (need <= c->cap) return MPCG_SUCCESS;
    int64_t cap = c->cap < INT64_MAX / 2 ? 2 * c->cap : INT64_MAX;
    if (cap > hint) cap = hint;
    if (cap < need) cap = need;
    MPCG_ENSURE(ctx, (uint64_t)cap <= SIZE_MAX / sizeof *c->v, MPCG_ERR_HOST_ALLOC,
                "%lld entries do not fit in memory", (long long)cap);
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, (size_t)cap * sizeof *c->ri, &c->ri));
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, (size_t)cap * sizeof *c->ci, &c->ci));
    MPCG_CHECK(ctx, mpcgi_host_realloc(ctx, (size_t)cap * sizeof *c->v, &c->v));
    c->cap = cap;
    return MPCG_SUCCESS;
}

/* An index word [p, t) in [1, max], returned 0-based. */
static mpcg_status parse_index(mpcgi_lines *r, const char *p, const char *t, const char *what,
                               int64_t max, int32_t *out)
{
    int64_t x;
    int rc = mpcgi_parse_i64(p, t, &x);
    if (rc == MPCGI_NUM_BAD)
        return MPCGI_MM_ERROR(r, "%s index '%s' is not an integer", what, MPCGI_MM_TOKEN(p, t));
    if (rc == MPCGI_NUM_RANGE || x < 1 || x > max)
        return MPCGI_MM_ERROR(r, "%s index %s out of range [1, %lld]", what, MPCGI_MM_TOKEN(p, t),
                              (long long)max);
    *out = (int32_t)(x - 1);
    return MPCG_SUCCESS;
}

/* A value word [p, t) of a real or integer field. */
static mpcg_status parse_value(mpcgi_lines *r, mpcgi_mm_field field, const char *p, const char *t,
                               double *v)
{
    if (field == MPCGI_MM_INTEGER) {
        int64_t x;
        int rc = mpcgi_parse_i64(p, t, &x);
        if (rc == MPCGI_NUM_BAD)
            return MPCGI_MM_ERROR(r, "value '%s' is not an integer (the field is integer)",
                                  MPCGI_MM_TOKEN(p, t));
        if (rc == MPCGI_NUM_RANGE)
            return MPCGI_MM_ERROR(r, "integer value %s out of range of a 64-bit integer",
                                  MPCGI_MM_TOKEN(p, t));
        *v = (double)x;
        return MPCG_SUCCESS;
    }
    int rc = mpcgi_parse_double(p, t, v);
    if (rc == MPCGI_NUM_BAD)
        return MPCGI_MM_ERROR(r, "value '%s' is not a number", MPCGI_MM_TOKEN(p, t));
    if (rc == MPCGI_NUM_RANGE)
        return MPCGI_MM_ERROR(r, "value %s is not a finite double", MPCGI_MM_TOKEN(p, t));
    return MPCG_SUCCESS;
}

/* Nothing but blanks may follow the last word [.., t) of an entry. */
static mpcg_status expect_end(mpcgi_lines *r, const char *t, const char *e, const char *what)
{
    const char *p = mpcgi_skip_blanks(t, e);
    if (p != e)
        return MPCGI_MM_ERROR(r, "unexpected text '%s' after the %s",
                              MPCGI_MM_TOKEN(p, mpcgi_token_end(p, e)), what);
    return MPCG_SUCCESS;
}

/* "i j [value]" with 1-based i, j, checked against the size and the symmetry. */
static mpcg_status coordinate_line(mpcgi_lines *r, const mpcgi_mm_header *h, const char *p,
                                   const char *e, int32_t *i, int32_t *j, double *v)
{
    const char *t = mpcgi_token_end(p, e);
    MPCG_CHECK(r->ctx, parse_index(r, p, t, "row", h->rows, i));
    p = mpcgi_skip_blanks(t, e);
    if (p == e) return MPCGI_MM_ERROR(r, "missing column index");
    t = mpcgi_token_end(p, e);
    MPCG_CHECK(r->ctx, parse_index(r, p, t, "column", h->cols, j));
    *v = 1.0;
    if (h->field != MPCGI_MM_PATTERN) {
        p = mpcgi_skip_blanks(t, e);
        if (p == e) return MPCGI_MM_ERROR(r, "missing value");
        t = mpcgi_token_end(p, e);
        MPCG_CHECK(r->ctx, parse_value(r, h->field, p, t, v));
    }
    MPCG_CHECK(r->ctx, expect_end(r, t, e, "entry"));
    if (h->symmetry != MPCGI_MM_GENERAL && *j > *i)
        return MPCGI_MM_ERROR(r, "entry (%d, %d) above the diagonal in a %s file", *i + 1, *j + 1,
                              symmetry_name[h->symmetry]);
    if (h->symmetry == MPCGI_MM_SKEW && *i == *j)
        return MPCGI_MM_ERROR(r,
                              "diagonal entry (%d, %d) in a skew-symmetric file (its diagonal is "
                              "zero and not stored)",
                              *i + 1, *j + 1);
    return MPCG_SUCCESS;
}

/* One value per line. */
static mpcg_status array_line(mpcgi_lines *r, const mpcgi_mm_header *h, const char *p,
                              const char *e, double *v)
{
    const char *t = mpcgi_token_end(p, e);
    MPCG_CHECK(r->ctx, parse_value(r, h->field, p, t, v));
    MPCG_CHECK(r->ctx, expect_end(r, t, e, "value (an array file has one value per line)"));
    return MPCG_SUCCESS;
}

static mpcg_status unexpected_end(mpcgi_lines *r, const mpcgi_mm_header *h, int64_t k)
{
    return MPCGI_MM_ERROR(r, "unexpected end of file: %lld of %lld %s read", (long long)k,
                          (long long)h->entries,
                          h->format == MPCGI_MM_COORDINATE ? "entries" : "values");
}

/* After the last entry only blank and comment lines may follow. */
static mpcg_status expect_eof(mpcgi_lines *r, const mpcgi_mm_header *h)
{
    const char *p, *e;
    MPCG_CHECK(r->ctx, mpcgi_mm_next_line(r, &p, &e));
    if (!p) return MPCG_SUCCESS;
    if (h->format == MPCGI_MM_COORDINATE)
        return MPCGI_MM_ERROR(r, "more entries than the %lld declared in the size line",
                              (long long)h->entries);
    return MPCGI_MM_ERROR(r, "more values than the %lld of a %lld x %lld %s array",
                          (long long)h->entries, (long long)h->rows, (long long)h->cols,
                          symmetry_name[h->symmetry]);
}

mpcg_status mpcgi_mm_read_coo(mpcgi_lines *r, const mpcgi_mm_header *h, mpcgi_coo *c)
{
    const mpcg_context *ctx = r->ctx;
    const int coord = h->format == MPCGI_MM_COORDINATE;
    const int64_t hint = h->entries;
    /* position of the next array value: column-major, from the diagonal (symmetric) or below
     * it (skew-symmetric) */
    int64_t ai = h->symmetry == MPCGI_MM_SKEW ? 1 : 0, aj = 0;
    MPCG_CHECK(ctx, mpcgi_coo_reserve(ctx, c, hint < INITIAL_CAP ? hint : INITIAL_CAP, hint));
    for (int64_t k = 0; k < h->entries; k++) {
        const char *p, *e;
        int32_t i, j;
        double v;
        MPCG_CHECK(ctx, mpcgi_mm_next_line(r, &p, &e));
        if (!p) return unexpected_end(r, h, k);
        if (coord) {
            MPCG_CHECK(ctx, coordinate_line(r, h, p, e, &i, &j, &v));
        } else {
            MPCG_CHECK(ctx, array_line(r, h, p, e, &v));
            i = (int32_t)ai;
            j = (int32_t)aj;
            if (++ai == h->rows) {
                aj++;
                ai = h->symmetry == MPCGI_MM_GENERAL ? 0 : aj + (h->symmetry == MPCGI_MM_SKEW);
            }
            if (v == 0.0) continue;
        }
        if (c->nnz == c->cap) MPCG_CHECK(ctx, mpcgi_coo_reserve(ctx, c, c->nnz + 1, hint));
        c->ri[c->nnz] = i;
        c->ci[c->nnz] = j;
        c->v[c->nnz] = v;
        c->nnz++;
    }
    MPCG_CHECK(ctx, expect_eof(r, h));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_mm_read_dense(mpcgi_lines *r, const mpcgi_mm_header *h, double **x)
{
    const mpcg_context *ctx = r->ctx;
    mpcg_status st = MPCG_SUCCESS;
    int64_t cap = 0;
    double *v = NULL;
    *x = NULL;
    for (int64_t k = 0; k < h->entries; k++) {
        const char *p, *e;
        MPCG_TRY(ctx, st, mpcgi_mm_next_line(r, &p, &e));
        if (!p) {
            st = unexpected_end(r, h, k);
            goto done;
        }
        if (k == cap) { /* doubling, capped at the declared count */
            cap = k < INITIAL_CAP ? INITIAL_CAP : 2 * k;
            if (cap > h->entries) cap = h->entries;
            MPCG_ENSURE_GOTO(ctx, st, (uint64_t)cap <= SIZE_MAX / sizeof *v, MPCG_ERR_HOST_ALLOC,
                             "%lld values do not fit in memory", (long long)cap);
            MPCG_TRY(ctx, st, mpcgi_host_realloc(ctx, (size_t)cap * sizeof *v, &v));
        }
        MPCG_TRY(ctx, st, array_line(r, h, p, e, &v[k]));
    }
    MPCG_TRY(ctx, st, expect_eof(r, h));
    *x = v;
    v = NULL;
done:
    mpcgi_host_free(v);
    return st;
}
