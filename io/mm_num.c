/* io/mm_num.c: the slow path of the decimal parser (strtod, independent of the locale) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/mm_num.h"

int mpcgi_parse_double_slow(const char *p, const char *e, double *out)
{
    /* The caller has checked the syntax, so strtod sees a plain decimal (never "inf", "nan" or
     * hex). strtod reads the locale's decimal point: a program that called setlocale() may use
     * ',', so the copy carries that character instead of '.'. */
    char buf[MPCGI_NUM_MAX_LEN + 1];
    size_t len = (size_t)(e - p);
    if (len > MPCGI_NUM_MAX_LEN) return MPCGI_NUM_BAD;
    memcpy(buf, p, len);
    buf[len] = '\0';
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && dp[0] != '.' && !dp[1]) {
        char *dot = memchr(buf, '.', len);
        if (dot) *dot = dp[0];
    }
    char *end;
    double v = strtod(buf, &end);
    if (end != buf + len) return MPCGI_NUM_BAD;
    if (!isfinite(v)) return MPCGI_NUM_RANGE;
    *out = v;
    return MPCGI_NUM_OK;
}
