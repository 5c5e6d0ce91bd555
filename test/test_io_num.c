/* test/test_io_num.c: the Matrix Market number parsers against strtod and strtoll */
/* SPDX-License-Identifier: BSD-3-Clause */

#include "io/mm_num.h"
#include "test/testutil.h"

/* Compare with strtod bit for bit; what strtod overflows to infinity must be MPCGI_NUM_RANGE. */
static void check_parse(const char *s)
{
    double want = strtod(s, NULL), got = 0.0;

    int rc = mpcgi_parse_double(s, s + strlen(s), &got);

    if (!isfinite(want)) {
        CHECK(rc == MPCGI_NUM_RANGE);
        return;
    }
    CHECK(rc == MPCGI_NUM_OK && memcmp(&got, &want, sizeof got) == 0);
    if (rc != MPCGI_NUM_OK || memcmp(&got, &want, sizeof got) != 0)
        fprintf(stderr, "  parsing \"%s\": got %.17g, strtod %.17g\n", s, got, want);
}

static void test_parse_double(void)
{
    /* fast path, its edges (2^53 + 1, 10^22, 10^23, 12e35) and strtod's cases, space-separated */
    static const char fixed[] = "0 -0 1 +1 0.1 .5 5. 1.5e-3 1e22 1e23 1e37 12e35 9007199254740993 "
                                "123456789012345678901 100000000000000000000000 1e-400 "
                                "4.9406564584124654e-324 2.2250738585072011e-308 "
                                "1.7976931348623157e308 0.000000000000000000000000000123 "
                                "3.14159265358979323846264338327950288";
    static const char *const bad[] = {"",    "-",   "+",     ".",   "e5",  "1e",  "1e+",   "1.2.3",
                                      "nan", "inf", "0x1p3", "1,5", "1d5", "--1", "1e5.5", " 1"};
    mpcgi_rng g;
    char s[64];
    double v;
    mpcgi_rng_seed(&g, test_seed + 2);
    for (const char *p = fixed; *p; p += strspn(p, " ")) {
        size_t len = strcspn(p, " ");
        snprintf(s, sizeof s, "%.*s", (int)len, p);
        check_parse(s);
        p += len;
    }
    for (int k = 0; k < 20000; k++) {
        int digits = 1 + (int)mpcgi_rng_below(&g, 22), point = (int)mpcgi_rng_below(&g, 24);
        int len = 0;
        for (int d = 0; d < digits; d++) {
            if (d == point) s[len++] = '.';
            s[len++] = (char)('0' + mpcgi_rng_below(&g, 10));
        }
        if (mpcgi_rng_below(&g, 2))
            len +=
                snprintf(s + len, sizeof s - (size_t)len, "e%d", (int)mpcgi_rng_below(&g, 80) - 40);
        s[len] = '\0';
        check_parse(s);
    }
    for (int k = 0; k < 20000; k++) {
        static const char *const fmt[] = {"%.17g", "%.16g", "%.15g", "%.6g", "%.3e"};
        snprintf(s, sizeof s, fmt[k % 5], test_stress_value(&g));
        check_parse(s);
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(mpcgi_parse_double(bad[k], bad[k] + strlen(bad[k]), &v) == MPCGI_NUM_BAD);
    CHECK(mpcgi_parse_double("1e400", "1e400" + 5, &v) == MPCGI_NUM_RANGE);
    CHECK(mpcgi_parse_double("-1e99999999999", "-1e99999999999" + 14, &v) == MPCGI_NUM_RANGE);
}

static void test_parse_i64(void)
{
    static const char *const ok[] = {"0", "-0", "+5", "9223372036854775807",
                                     "-9223372036854775808"};
    static const int64_t ok_value[] = {0, 0, 5, INT64_MAX, INT64_MIN};
    static const char *const range[] = {"9223372036854775808", "-9223372036854775809",
                                        "18446744073709551617", "99999999999999999999999999"};
    static const char *const bad[] = {"", "-", "1a", "1.0"};
    int64_t v;
    for (size_t k = 0; k < 5; k++)
        CHECK(mpcgi_parse_i64(ok[k], ok[k] + strlen(ok[k]), &v) == MPCGI_NUM_OK &&
              v == ok_value[k]);
    for (size_t k = 0; k < 4; k++) {
        CHECK(mpcgi_parse_i64(range[k], range[k] + strlen(range[k]), &v) == MPCGI_NUM_RANGE);
        CHECK(mpcgi_parse_i64(bad[k], bad[k] + strlen(bad[k]), &v) == MPCGI_NUM_BAD);
    }
}

int main(void)
{
    test_init_seed("test_io_num");
    test_parse_double();
    test_parse_i64();
    return test_finish("test_io_num");
}
