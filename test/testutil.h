/* test/testutil.h: assertions, seeded random inputs and helpers shared by the test programs */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_TEST_TESTUTIL_H
#define MPCG_TEST_TESTUTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/csr.h"
#include "core/rng.h"
#include "mpcg.h"

/* Exit code automake's harness reads as SKIP. */
#define TEST_SKIP 77

static int test_failures;
static uint64_t test_seed;

/* Seed from MPCG_TEST_SEED or the clock; printed so any failure can be replayed. */
static inline uint64_t test_init_seed(const char *prog)
{
    const char *s = getenv("MPCG_TEST_SEED");
    /* line by line, so a failed CHECK (stderr) lands after the case it belongs to in the log */
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    printf("%s: seed %" PRIu64 " (replay with MPCG_TEST_SEED=%" PRIu64 ")\n", prog, test_seed,
           test_seed);
    return test_seed;
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s (seed %" PRIu64 ")\n", __FILE__,    \
                    __LINE__, #cond, test_seed);                                         \
            test_failures++;                                                             \
        }                                                                                \
    } while (0)

/* Check a status; on mismatch print the library's message. */
#define CHECK_STATUS(ctx, expr, want)                                                    \
    do {                                                                                 \
        mpcg_status got_ = (expr);                                                       \
        if (got_ != (want)) {                                                            \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n  last error: %s\n",    \
                    __FILE__, __LINE__, #expr, mpcg_status_name(got_),                   \
                    mpcg_status_name(want), mpcg_last_error(ctx));                       \
            test_failures++;                                                             \
        }                                                                                \
    } while (0)

#define CHECK_OK(ctx, expr) CHECK_STATUS(ctx, expr, MPCG_SUCCESS)

/* Relative closeness |a - b| <= tol * max(|a|, |b|, floor). NaN never passes. */
static inline int test_close(double a, double b, double tol, double floor)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < floor) m = floor;
    return fabs(a - b) <= tol * m;
}

static inline int test_finish(const char *prog)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed (seed %" PRIu64 ")\n", prog, test_failures,
                test_seed);
        return 1;
    }
    printf("%s: all checks passed\n", prog);
    return 0;
}

/* Path of a file under test/data (MPCG_TEST_DATA is set by make check). */
static inline const char *test_data(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("MPCG_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "test/data", name);
    return buf;
}

/*
 * A random SPD-shaped sparse matrix: n rows, about `per_row` off-diagonal entries per row placed
 * symmetrically, some rows empty of off-diagonals, and a dominant positive diagonal (so it is SPD).
 * With empty_rows, every 7th row is entirely empty (not SPD; for SpMV tests only).
 * Returns the CSR through mpcg's own allocator; free with mpcgi_csr_free.
 */
int test_random_csr(mpcgi_rng *g, int64_t n, int per_row, int empty_rows, mpcgi_csr *out);

/* A random SPD matrix of order n on ctx: test_random_csr with up to 8 off-diagonal pairs per row
 * and no empty rows, the same matrix for the same seed. NULL on failure. */
mpcg_matrix *test_random_spd(mpcg_context *ctx, int64_t n, uint64_t seed);

/* A random double that stresses decimal conversion both ways: specials (subnormals, DBL_MAX,
 * 0.1, -0.0, ...), random bit patterns, random magnitudes and small integers; always finite. */
double test_stress_value(mpcgi_rng *g);

/* fn(name, path, user) for every .mtx file of the test data (MPCG_TEST_DATA, else test/data);
 * 0, or -1 if the directory cannot be read. */
int test_each_mtx(void (*fn)(const char *name, const char *path, void *user), void *user);

/* 1 if a GPU CG iteration count is close enough to the CPU one for matrix `name` (a file or
 * generator name): within 1, except on the bundled matrices whose count moves with the summation
 * order alone (docs/gpu.md, "GPU and CPU iteration counts"): mesh2em5 3, bcsstk05 5 %. */
int test_iterations_close(const char *name, int64_t gpu_it, int64_t cpu_it);

/* 1 if the iteration count of a solve whose fp32 sums run in another order than the reference's
 * (the GPU against the CPU, the persistent loops against the launched kernels, in fp32 and mixed
 * solves) is within 20% (at least 2) of it: fp32 rounding noise moves with the order, and a
 * mixed solve's count with the noise. Measured on the H200 (mixed reliable, tol 1e-10):
 * Trefethen_500 239 GPU against 285 CPU, 273 in the two-barrier loop; bcsstk05 430 against
 * 481; nos4 97 against 99; the well-conditioned matrices within 1. */
int test_iterations_close_order(int64_t it, int64_t ref_it);

/* 1 if a mixed solve's count in the persistent loop `variant` (info.variant) is close enough to
 * that of the launched kernels or the host loop on the same GPU: the two-barrier loop has their
 * recurrences (test_iterations_close_order); the single-reduction loop forms p.A p and A p by
 * recurrences that drift further in fp32, so it may take more, up to twice (emulated: bcsstk05
 * 529 - 649 against 444, Trefethen_500 294 against 256; the others within 10%). */
int test_iterations_close_loop(const char *variant, int64_t it, int64_t ref_it);

/* 1 if x meets the relative tolerance tol on A x = b, up to the rounding of the residual itself
 * (test_relres: ||b - A x|| / ||b|| <= tol + 16 eps scale). */
int test_residual_ok(const mpcgi_csr *A, const double *b, const double *x, double tol);

/* ||b - A x|| / ||b|| on the host in long double; *scale = || |A| |x| || / ||b||, the size of
 * the rounding error of computing that residual in fp64 (a bound for the difference between
 * this value and the one a solver computed, in units of eps). */
double test_relres(const mpcgi_csr *A, const double *b, const double *x, double *scale);

#endif /* MPCG_TEST_TESTUTIL_H */
