/* test/testutil.c: random test matrices */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <time.h>

#include "core/alloc.h"
#include "test/testutil.h"

int test_random_csr(mpcgi_rng *g, int64_t n, int per_row, int empty_rows, mpcgi_csr *out)
{
    int64_t cap = n * (2 * (int64_t)per_row + 1) + 1, m = 0;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL, *rowsum = NULL;
    int rc = 1;
    if (mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *ri, &ri) ||
        mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *ci, &ci) ||
        mpcgi_host_alloc_array(NULL, (size_t)cap, sizeof *v, &v) ||
        mpcgi_host_calloc(NULL, (size_t)n, sizeof *rowsum, &rowsum))
        goto done;
    for (int64_t i = 0; i < n; i++) {
        if (empty_rows && i % 7 == 3) continue;
        int k = per_row ? (int)mpcgi_rng_below(g, (uint64_t)per_row + 1) : 0;
        for (int t = 0; t < k; t++) {
            int64_t j = (int64_t)mpcgi_rng_below(g, (uint64_t)n);
            if (j == i || (empty_rows && j % 7 == 3)) continue;
            double a = -mpcgi_rng_uniform(g);
            ri[m] = (int32_t)i, ci[m] = (int32_t)j, v[m++] = a;
            ri[m] = (int32_t)j, ci[m] = (int32_t)i, v[m++] = a;
            rowsum[i] += -a, rowsum[j] += -a;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (empty_rows && i % 7 == 3) continue;
        ri[m] = (int32_t)i, ci[m] = (int32_t)i, v[m++] = 1.0 + rowsum[i] + mpcgi_rng_uniform(g);
    }
    rc = mpcgi_csr_from_coo(NULL, n, m, ri, ci, v, out) != MPCG_SUCCESS;
done:
    mpcgi_host_free(ri);
    mpcgi_host_free(ci);
    mpcgi_host_free(v);
    mpcgi_host_free(rowsum);
    return rc;
}

mpcg_matrix *test_random_spd(mpcg_context *ctx, int64_t n, uint64_t seed)
{
    mpcgi_rng g;
    mpcgi_csr C;
    mpcg_matrix *A = NULL;
    mpcgi_rng_seed(&g, seed);
    if (test_random_csr(&g, n, 8, 0, &C) != 0) return NULL;
    if (mpcg_matrix_create_csr(ctx, n, C.row_ptr, C.col_idx, C.val, &A) != MPCG_SUCCESS) A = NULL;
    mpcgi_csr_free(&C);
    return A;
}

/* Values that stress the decimal conversion both ways. */
double test_stress_value(mpcgi_rng *g)
{
    static const double special[] = {0.1,           1e-300,
                                     -3.5e300,      DBL_TRUE_MIN,
                                     -DBL_TRUE_MIN, 0x1.fffffffffffffp-1023,
                                     DBL_MIN,       DBL_MAX,
                                     -DBL_MAX,      1.0 / 3.0,
                                     -0.0,          0.0,
                                     1.0,           -1.0,
                                     0x1p53,        0x1p53 + 2,
                                     1e22,          1e23,
                                     2.5e-310,      0.30000000000000004,
                                     123456.789};
    switch (mpcgi_rng_below(g, 4)) {
    case 0: return special[mpcgi_rng_below(g, sizeof special / sizeof special[0])];
    case 1: {
        uint64_t bits = mpcgi_rng_u64(g);
        double v;
        memcpy(&v, &bits, sizeof v);
        return isfinite(v) ? v : 0.5;
    }
    case 2: return (mpcgi_rng_uniform(g) - 0.5) * pow(10.0, (double)mpcgi_rng_below(g, 40) - 20);
    default: return (double)mpcgi_rng_below(g, 2001) - 1000.0;
    }
}
