/* test/testutil.c: random test matrices, the test data files, a host residual */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <float.h>
#include <string.h>
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

int test_each_mtx(void (*fn)(const char *name, const char *path, void *user), void *user)
{
    const char *dir = getenv("MPCG_TEST_DATA") ? getenv("MPCG_TEST_DATA") : "test/data";
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        char path[4096];
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(e->d_name, path, user);
    }
    closedir(d);
    return 0;
}

double test_relres(const mpcgi_csr *A, const double *b, const double *x, double *scale)
{
    long double rr = 0, bb = 0, ss = 0;
    for (int64_t i = 0; i < A->n; i++) {
        long double r = b[i], s = fabs(b[i]);
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            r -= (long double)A->val[k] * x[A->col_idx[k]];
            s += fabsl((long double)A->val[k] * x[A->col_idx[k]]);
        }
        rr += r * r, bb += (long double)b[i] * b[i], ss += s * s;
    }
    *scale = (double)sqrtl(ss / bb);
    return (double)sqrtl(rr / bb);
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

int test_residual_ok(const mpcgi_csr *A, const double *b, const double *x, double tol)
{
    double scale, r = test_relres(A, b, x, &scale);
    return r <= tol + 16 * DBL_EPSILON * scale;
}

int test_iterations_close(const char *name, int64_t gpu_it, int64_t cpu_it)
{
    int64_t slack = 1;
    /* the two bundled matrices whose count moves with the dots' summation order (docs/gpu.md) */
    if (strstr(name, "mesh2em5") || strstr(name, "bcsstk05")) slack = (cpu_it + 19) / 20;
    int64_t d = gpu_it - cpu_it;
    return (d < 0 ? -d : d) <= slack;
}

int test_iterations_close_order(int64_t it, int64_t ref_it)
{
    int64_t d = it - ref_it, slack = (ref_it + 4) / 5;
    return (d < 0 ? -d : d) <= (slack > 2 ? slack : 2);
}

int test_iterations_close_loop(const char *variant, int64_t it, int64_t ref_it)
{
    if (strcmp(variant, "persistent-single") != 0) return test_iterations_close_order(it, ref_it);
    /* fewer by the order's slack at most, more by up to ref_it */
    return it <= 2 * ref_it && (it >= ref_it || test_iterations_close_order(it, ref_it));
}
