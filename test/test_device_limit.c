/* test/test_device_limit.c: mpcg_context_set_device_memory_limit: a GPU that runs out of memory,
 * made reproducible; the failed setup leaks nothing and the same solver solves once the cap is
 * raised. The CPU checks run in every build; the GPU checks skip (77) without a GPU. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "core/alloc.h"
#include "core/device.h"
#include "test/testutil.h"
#if MPCG_HAVE_CUDA
#include "core/device_cuda.h"
#endif

/* The argument checks, and a CPU context: the call succeeds and changes nothing. */
static void test_cpu(void)
{
    mpcg_context *ctx = NULL;
    CHECK_STATUS(NULL, mpcg_context_set_device_memory_limit(NULL, 1), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(NULL), "invalid context") != NULL);
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    if (!ctx) return;
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 1));
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 0));
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 1));

    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_info info;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:16", &A));
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    double b[256], x[256];
    for (int i = 0; i < 256; i++)
        b[i] = 1.0;
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info)); /* host memory is not capped */
    CHECK(info.converged);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

#if MPCG_HAVE_CUDA
static size_t in_use(const mpcg_context *ctx)
{
    return mpcgi_gpu_of(ctx)->mem_in_use;
}

/* One GPU backend: caps below what setup needs fail with MPCG_ERR_DEVICE_ALLOC and leave nothing
 * behind; solving again after each failure fails the same way; raising the cap lets the same
 * solver set up and solve; lowering it below what is held keeps the held blocks. */
static void test_backend(mpcg_context *ctx, const char *backend)
{
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_info info;
    enum { N = 100 * 100 };
    static double b[N], x[N];
    for (int i = 0; i < N; i++)
        b[i] = 1.0;
    size_t base;
    int64_t live;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:100", &A));
    if (!A) goto done;
    /* what the context and the matrix hold: a destroyed solver leaves exactly this */
    base = in_use(ctx);
    live = mpcgi_alloc_live();
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, backend));
    if (!S) goto done;

    /* what setup holds without a cap */
    CHECK_OK(ctx, mpcg_solver_setup(S));
    size_t need = in_use(ctx) - base;
    printf("test_device_limit: %s: setup holds %zu bytes of device memory\n", backend, need);
    CHECK(need >= (size_t)mpcg_matrix_nnz(A) * (sizeof(double) + sizeof(int32_t)));
    mpcg_solver_destroy(S);
    S = NULL;
    CHECK(in_use(ctx) == base);
    CHECK(mpcgi_alloc_live() == live);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, backend));
    live = mpcgi_alloc_live();

    /* caps from 0 bytes of room to just under what setup holds */
    int failures = 0;
    for (int k = 0; k < 16; k++) {
        size_t cap = base + need / 16 * (size_t)k + (k ? 0 : 1);
        CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, cap));
        mpcg_clear_error(ctx);

        mpcg_status st = mpcg_solver_setup(S);

        CHECK_STATUS(ctx, st, MPCG_ERR_DEVICE_ALLOC);
        if (st == MPCG_ERR_DEVICE_ALLOC) {
            char want[128];
            snprintf(want, sizeof want, "device memory limit of %zu bytes reached", cap);
            CHECK(strstr(mpcg_last_error(ctx), want) != NULL);
            CHECK(strstr(mpcg_last_error(ctx), "mpcg_context_set_device_memory_limit") != NULL);
            failures++;
        }
        CHECK(in_use(ctx) == base);
        CHECK(mpcgi_alloc_live() == live);
        /* a solve after the failed setup tries again and fails the same way */
        mpcg_clear_error(ctx);
        CHECK_STATUS(ctx, mpcg_solve(S, b, x, &info), MPCG_ERR_DEVICE_ALLOC);
        CHECK(in_use(ctx) == base);
        CHECK(mpcgi_alloc_live() == live);
    }
    CHECK(failures == 16);

    /* raised: the same solver sets up and solves (a second solve after failed ones) */
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, base + 2 * need));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && info.true_relres <= 1e-8);
    int64_t iterations = info.iterations;

    /* lowered below what is held: the held blocks stay, a solve allocates nothing new */
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 1));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && info.iterations == iterations);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 0));
    mpcg_solver_destroy(S);
    S = NULL;
    CHECK(in_use(ctx) == base);
done:
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* Norm of a - s b over norm of a. */
static double rel_diff(const double *a, const double *b, double s, int64_t n)
{
    double d = 0, r = 0;
    for (int64_t i = 0; i < n; i++) d += (a[i] - s * b[i]) * (a[i] - s * b[i]), r += a[i] * a[i];
    return sqrt(d / r);
}

/* A backend that streams (MPCG_CAP_OUT_OF_CORE) solves under a device-memory limit far below
 * its in-core matrix: the in-core solve's x, bit for bit (both launched kernels: no graph can
 * hold a product that waits for the host), nothing held past the limit; then new values (A
 * times 2, the pinned copy rewritten): x halves. b random, x poisoned (NaN) before each solve. */
static void test_out_of_core(mpcg_context *ctx, const char *backend)
{
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL, *T = NULL;
    mpcg_info info;
    enum { N = 40 * 40 * 40 };
    static double b[N], x1[N], x2[N], val2[27 * N];
    char key[64];
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    for (int i = 0; i < N; i++) b[i] = 2 * mpcgi_rng_uniform(&g) - 1, x1[i] = x2[i] = NAN;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson3d27:40", &A));
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &T));
    CHECK_OK(ctx, mpcg_solver_set_precond(T, MPCG_PRECOND_NONE)); /* plain CG */
    if (!A || !S || !T) goto done;
    const size_t base = in_use(ctx);
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, backend));
    CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", "launched")); /* as out of core */
    CHECK_OK(ctx, mpcg_solve(S, b, x1, &info)); /* in core */
    const size_t need = in_use(ctx) - base;
    const int64_t iterations = info.iterations;
    CHECK(info.converged);
    mpcg_solver_destroy(S);
    S = NULL;
    /* room for the solver's vectors (8 of n doubles) and 2 MiB: a fifth of the in-core need */
    const size_t cap = base + (size_t)8 * N * 8 + ((size_t)2 << 20);
    CHECK(cap - base < need / 4);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, cap));
    snprintf(key, sizeof key, "%s.ooc", backend);
    CHECK_OK(ctx, mpcg_solver_set_spmv(T, backend));
    CHECK_OK(ctx, mpcg_solver_set_option(T, key, "on"));
    CHECK_OK(ctx, mpcg_solve(T, b, x2, &info));
    printf("test_device_limit: %s out of core under %zu bytes (in core %zu): %lld iterations "
           "(in core %lld), variant %s\n", backend, cap - base, need,
           (long long)info.iterations, (long long)iterations, info.variant);
    CHECK(info.converged && info.iterations == iterations && in_use(ctx) <= cap);
    CHECK(strcmp(info.variant, "launched") == 0 && strstr(info.spmv_describe, "out-of-core"));
    CHECK(memcmp(x1, x2, sizeof x1) == 0); /* the same sums in the same order */
    const double *val = NULL;
    CHECK_OK(ctx, mpcg_matrix_csr(A, NULL, NULL, &val));
    if (val && mpcg_matrix_nnz(A) <= 27 * N) {
        for (int64_t k = 0; k < mpcg_matrix_nnz(A); k++) val2[k] = 2 * val[k];
        CHECK_OK(ctx, mpcg_matrix_update_values(A, val2));
        for (int i = 0; i < N; i++) x1[i] = NAN;
        CHECK_OK(ctx, mpcg_solve(T, b, x1, &info));
        CHECK(info.converged && rel_diff(x2, x1, 2, N) <= 1e-8);
    }
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 0));
done:
    mpcg_solver_destroy(S);
    mpcg_solver_destroy(T);
    mpcg_matrix_destroy(A);
}

static void test_gpu(void)
{
    mpcg_context *ctx = NULL;
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &ctx));
    if (!ctx) return;
    printf("test_device_limit: %s\n", mpcg_context_device_name(ctx));
    int64_t live = mpcgi_alloc_live();
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info bi;
        CHECK_OK(NULL, mpcg_backend_get(i, &bi));
        if (bi.caps & MPCG_CAP_NEEDS_DEVICE) test_backend(ctx, bi.name);
        if (bi.caps & MPCG_CAP_OUT_OF_CORE) test_out_of_core(ctx, bi.name);
    }
    CHECK(mpcgi_alloc_live() == live);
    mpcg_context_destroy(ctx);
}
#endif

int main(void)
{
    test_init_seed("test_device_limit");
    test_cpu();
    if (mpcgi_device_count() == 0) {
        printf("test_device_limit: no usable GPU, the GPU checks are skipped\n");
        return test_failures ? test_finish("test_device_limit") : TEST_SKIP;
    }
#if MPCG_HAVE_CUDA
    test_gpu();
#endif
    return test_finish("test_device_limit");
}
