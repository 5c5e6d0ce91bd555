/* io/mm_num.h: exact, locale-independent parsing of integers and decimals in Matrix Market text */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_IO_MM_NUM_H
#define MPCG_IO_MM_NUM_H

#include <stdint.h>

/* Result of a parse: the token is a number, is not one, or is one that does not fit. */
enum { MPCGI_NUM_OK = 0, MPCGI_NUM_BAD = 1, MPCGI_NUM_RANGE = 2 };

/* Longest decimal token handed to the slow path (longer ones are MPCGI_NUM_BAD). */
#define MPCGI_NUM_MAX_LEN 400

static inline int mpcgi_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static inline const char *mpcgi_skip_blanks(const char *p, const char *e)
{
    while (p < e && mpcgi_is_blank(*p))
        p++;
    return p;
}

static inline const char *mpcgi_token_end(const char *p, const char *e)
{
    while (p < e && !mpcgi_is_blank(*p))
        p++;
    return p;
}

/* The whole token [p, e) as a decimal integer with an optional sign. Overflow is detected
 * before it happens (never undefined behaviour). */
static inline int mpcgi_parse_i64(const char *p, const char *e, int64_t *out)
{
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p == e) return MPCGI_NUM_BAD;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int range = 0;
    for (; p < e; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9) return MPCGI_NUM_BAD;
        if (v > (limit - d) / 10)
            range = 1;
        else
            v = 10 * v + d;
    }
    if (range) return MPCGI_NUM_RANGE;
    *out = !neg ? (int64_t)v : v ? -(int64_t)(v - 1) - 1 : 0;
    return MPCGI_NUM_OK;
}

/* Slow path of mpcgi_parse_double: strtod on a copy of the token (io/mm_num.c). */
int mpcgi_parse_double_slow(const char *p, const char *e, double *out);

/*
 * The whole token [p, e) as a finite double: [+-] digits [. digits] [(e|E) [+-] digits], with at
 * least one mantissa digit. Exactly rounded: with at most 19 significant digits w and a decimal
 * exponent q, if w <= 2^53 and |q| <= 22 then w and 10^|q| are exact doubles and one IEEE
 * multiplication or division rounds correctly (Clinger's fast path). Everything else (longer
 * mantissas such as %.17g output, far exponents) goes to the correctly rounded strtod.
 * Non-finite results ("1e400") give MPCGI_NUM_RANGE; "nan", "inf" and hex are MPCGI_NUM_BAD.
 */
static inline int mpcgi_parse_double(const char *p, const char *e, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *start = p;
    int neg = 0, digits = 0, sig = 0, slow = 0;
    int64_t q = 0;
    uint64_t w = 0;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    for (int frac = 0; p < e; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9) {
            if (*p != '.' || frac) break;
            frac = 1;
            continue;
        }
        digits++;
        if (sig < 19) {
            if (w || d) sig++;
            w = 10 * w + d;
            q -= frac;
        } else {
            slow = 1; /* more than 19 significant digits */
        }
    }
    if (!digits) return MPCGI_NUM_BAD;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, edigits = 0;
        int64_t x = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; p < e && (unsigned)(unsigned char)*p - '0' <= 9; p++, edigits++)
            if (x < 100000) x = 10 * x + (*p - '0');
        if (!edigits) return MPCGI_NUM_BAD;
        q += eneg ? -x : x;
    }
    if (p != e) return MPCGI_NUM_BAD;
    if (slow || w > ((uint64_t)1 << 53) || q < -22 || q > 22 + 15)
        return mpcgi_parse_double_slow(start, e, out);
    double v = (double)w;
    if (q > 22) { /* w * 10^(q-22) may still be an exact integer below 2^53 */
        v *= pow10[q - 22];
        if (v >= 0x1p53) return mpcgi_parse_double_slow(start, e, out);
        v *= 1e22;
    } else if (q >= 0) {
        v *= pow10[q];
    } else {
        v /= pow10[-q];
    }
    *out = neg ? -v : v;
    return MPCGI_NUM_OK;
}

#endif /* MPCG_IO_MM_NUM_H */
