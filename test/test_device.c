/* test/test_device.c: the CUDA device layer: errors, contexts, streams, memory, vector kernels,
 * the device timer */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/device_spin.h"
#include "core/timer.h"
#include "core/vec_cuda.h"
#include "test/testutil.h"

/* A kernel launcher (returns cudaGetLastError()) checked like any call. */
#define CHECK_LAUNCH(ctx, call)                                                             \
    CHECK_OK(ctx, mpcgi_cuda_status((ctx), (cudaError_t)(call), #call, __FILE__, __LINE__, \
                                    __func__))

/* ---------------------------------------------------------------- without a GPU */

static void test_status_mapping(void)
{
    mpcg_context *ctx;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));

    mpcg_status ok = MPCGI_CUDA_STATUS(ctx, cudaSuccess);
    mpcg_status oom = mpcgi_cuda_status(ctx, cudaErrorMemoryAllocation, "cudaMalloc(&p, 8)",
                                        "f.c", 1, "fn");

    CHECK(ok == MPCG_SUCCESS && oom == MPCG_ERR_DEVICE_ALLOC);
    CHECK(strstr(mpcg_last_error(ctx), "cudaMalloc: cudaErrorMemoryAllocation: out of memory"));
    mpcg_clear_error(ctx);
    CHECK(mpcgi_cuda_status(ctx, cudaErrorInvalidValue, "cudaMemcpyAsync(d, s, n)", "f.c", 2,
                            "fn") == MPCG_ERR_CUDA);
    CHECK(strstr(mpcg_last_error(ctx), "cudaMemcpyAsync: cudaErrorInvalidValue: "));
    mpcg_clear_error(ctx);
    CHECK(mpcgi_cusparse_status(ctx, CUSPARSE_STATUS_NOT_SUPPORTED, "cusparseSpMV(h)", "f.c", 3,
                                "fn") == MPCG_ERR_CUSPARSE);
    CHECK(strstr(mpcg_last_error(ctx), "cusparseSpMV: CUSPARSE_STATUS_NOT_SUPPORTED: "));
    mpcg_clear_error(ctx);
    CHECK(mpcgi_cublas_status(ctx, CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate(&h)", "f.c", 4,
                              "fn") == MPCG_ERR_CUBLAS);
    CHECK(strstr(mpcg_last_error(ctx), "cublasCreate: CUBLAS_STATUS_ALLOC_FAILED: "));
    mpcg_clear_error(ctx);
    CHECK(MPCGI_CUSPARSE_STATUS(ctx, CUSPARSE_STATUS_SUCCESS) == MPCG_SUCCESS);
    CHECK(MPCGI_CUBLAS_STATUS(ctx, CUBLAS_STATUS_SUCCESS) == MPCG_SUCCESS);
    CHECK(strcmp(mpcg_last_error(ctx), "") == 0);
    mpcg_context_destroy(ctx);
}

static void test_no_such_gpu(void)
{
    mpcg_context *ctx = (mpcg_context *)1;

    mpcg_status st = mpcg_context_create("cuda:99", &ctx);

    CHECK(st == MPCG_ERR_NO_DEVICE && ctx == NULL);
    CHECK(strstr(mpcg_last_error(NULL), "cannot use GPU 99"));
}

/* A small SPD matrix: tridiag(-1, 4, -1) of order n <= 64. */
static mpcg_matrix *tridiag(mpcg_context *ctx, int n)
{
    int64_t rp[65];
    int32_t col[3 * 64];
    double val[3 * 64];
    int m = 0;
    rp[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < n) col[m] = j, val[m++] = i == j ? 4.0 : -1.0;
        rp[i + 1] = m;
    }
    mpcg_matrix *A = NULL;
    CHECK_OK(ctx, mpcg_matrix_create_csr(ctx, n, rp, col, val, &A));
    return A;
}

static void test_cpu_context(void)
{
    mpcg_context *ctx;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    mpcg_matrix *A = tridiag(ctx, 8);
    mpcg_solver *S;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    double b[8] = {1, 1, 1, 1, 1, 1, 1, 1}, x[8];
    void *p = (void *)1;

    CHECK(mpcg_context_stream(ctx) == NULL && mpcg_context_stream(NULL) == NULL);
    CHECK_OK(ctx, mpcg_context_set_stream(ctx, NULL));
    CHECK_STATUS(ctx, mpcg_context_set_stream(ctx, (void *)1), MPCG_ERR_INVALID_STATE);
    CHECK(strstr(mpcg_last_error(ctx), "runs on the CPU: it takes no CUDA stream"));
    mpcg_clear_error(ctx);
    CHECK_STATUS(NULL, mpcg_context_set_stream(NULL, NULL), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solve_device(S, b, x, NULL), MPCG_ERR_INVALID_STATE);
    CHECK(strstr(mpcg_last_error(ctx), "mpcg_solve_device needs a GPU context"));
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_device_alloc(ctx, 8, &p), MPCG_ERR_INVALID_STATE);
    CHECK(p == NULL);
    CHECK_STATUS(ctx, mpcgi_device_copy(ctx, x, b, 8, MPCGI_H2D), MPCG_ERR_INVALID_STATE);
    CHECK_STATUS(ctx, mpcgi_device_sync(ctx), MPCG_ERR_INVALID_STATE);
    mpcg_clear_error(ctx);
    CHECK(mpcgi_device_bytes_left(ctx) == 0 && mpcg_last_error(ctx)[0] == '\0');

    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

/* ---------------------------------------------------------------- on a GPU */

static void test_gpu_context(mpcg_context *ctx)
{
    char *p = NULL;
    char in[100], out[100];
    for (int i = 0; i < 100; i++) in[i] = (char)i, out[i] = 0;
    int64_t live = mpcgi_alloc_live();

    CHECK(mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA);
    CHECK(strncmp(mpcg_context_device_name(ctx), "cuda:0 ", 7) == 0);
    CHECK(strstr(mpcg_context_device_name(ctx), "(sm_"));
    CHECK(strstr(mpcg_context_device_name(ctx), " GiB)"));
    CHECK(mpcg_context_stream(ctx) != NULL);
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, 200, &p));
    CHECK(p != NULL && mpcgi_alloc_live() == live + 1);
    CHECK_OK(ctx, mpcgi_device_copy(ctx, p, in, 100, MPCGI_H2D));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, p + 100, p, 100, MPCGI_D2D));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, out, p + 100, 100, MPCGI_D2H));
    CHECK(memcmp(in, out, 100) == 0);
    CHECK_OK(ctx, mpcgi_device_sync(ctx));
    /* what is left: the driver's free memory, or the limit less what is in use */
    const size_t left = mpcgi_device_bytes_left(ctx);
    CHECK(left > 200);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, (size_t)1 << 40));
    const size_t in_use = ((size_t)1 << 40) - mpcgi_device_bytes_left(ctx);
    CHECK(in_use >= 200);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, in_use + 1000));
    CHECK(mpcgi_device_bytes_left(ctx) == 1000);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, in_use - 1)); /* over it: none */
    CHECK(mpcgi_device_bytes_left(ctx) == 0);
    CHECK_OK(ctx, mpcg_context_set_device_memory_limit(ctx, 0));
    mpcgi_device_free(ctx, p);
    mpcgi_device_free(ctx, NULL);
    CHECK(mpcgi_alloc_live() == live);

    /* a real allocation failure: reported with CUDA's name and text, nothing leaks, and the
     * error is not reported again by the next launch */
    p = (char *)1;
    CHECK_STATUS(ctx, mpcgi_device_alloc(ctx, (size_t)1 << 60, &p), MPCG_ERR_DEVICE_ALLOC);
    CHECK(p == NULL && mpcgi_alloc_live() == live);
    CHECK(strstr(mpcg_last_error(ctx), "cudaMalloc of 1152921504606846976 bytes on cuda:0: "
                                       "cudaErrorMemoryAllocation: out of memory"));
    mpcg_clear_error(ctx);
    double dot = -1.0;
    const mpcgi_vec_ops *V = mpcgi_device_vec_ops();
    double *ws;
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, V->dot_workspace(0), &ws));
    CHECK_OK(ctx, V->dot(ctx, ws, 0, ws, ws, &dot));
    CHECK(dot == 0.0);
    mpcgi_device_free(ctx, ws);
}

/* Host arrays of n random values in [-1, 1), as double and as float. */
static void random_vectors(mpcgi_rng *g, int64_t n, double *x, float *xf)
{
    for (int64_t i = 0; i < n; i++) {
        x[i] = 2 * mpcgi_rng_uniform(g) - 1;
        xf[i] = (float)x[i];
    }
}

/* y = x and y = 0 through the table (x and r host, dx and dy device, n entries). */
static void check_copy_zero(mpcg_context *ctx, int64_t n, const double *x, const double *dx,
                            double *dy, double *r)
{
    const mpcgi_vec_ops *V = mpcgi_device_vec_ops();
    size_t bytes = (size_t)n * sizeof *r;
    int bad = 0;

    CHECK_OK(ctx, V->copy(ctx, n, dx, dy));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, r, dy, bytes, MPCGI_D2H));

    CHECK(memcmp(r, x, bytes) == 0);
    CHECK_OK(ctx, V->zero(ctx, n, dy));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, r, dy, bytes, MPCGI_D2H));
    for (int64_t i = 0; i < n; i++) bad += r[i] != 0.0;
    CHECK(bad == 0);
}

/* The table's fp64 kernels and the fp32 launchers against the host, for one length n. */
static void check_vec(mpcg_context *ctx, int64_t n)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)n);
    const mpcgi_vec_ops *V = mpcgi_device_vec_ops();
    size_t b64 = (size_t)n * sizeof(double), b32 = (size_t)n * sizeof(float);
    double *x, *y, *r, *dx, *dy, *ws, *partials;
    float *xf, *yf, *rf, *dxf, *dyf;
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b64, &x));
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b64, &y));
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b64, &r));
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b32, &xf));
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b32, &yf));
    CHECK_OK(ctx, mpcgi_host_alloc(ctx, b32, &rf));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, (size_t)mpcgi_host_dot_blocks(n), sizeof(double),
                                         &partials));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, b64, &dx));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, b64, &dy));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, b32, &dxf));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, b32, &dyf));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, V->dot_workspace(n), &ws));
    random_vectors(&g, n, x, xf);
    random_vectors(&g, n, y, yf);
    CHECK_OK(ctx, mpcgi_device_copy(ctx, dx, x, b64, MPCGI_H2D));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, dy, y, b64, MPCGI_H2D));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, dxf, xf, b32, MPCGI_H2D));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, dyf, yf, b32, MPCGI_H2D));
    double d1 = NAN, d2 = NAN, df = NAN, ref = mpcgi_host_dot(partials, n, x, y);
    double sum_abs = 0, sum_absf = 0;
    for (int64_t i = 0; i < n; i++)
        sum_abs += fabs(x[i] * y[i]), sum_absf += fabs((double)xf[i] * yf[i]);

    CHECK_OK(ctx, V->dot(ctx, ws, n, dx, dy, &d1));
    CHECK_OK(ctx, V->dot(ctx, ws, n, dx, dy, &d2));
    CHECK_LAUNCH(ctx, mpcgi_vec_dot_f32(mpcg_context_stream(ctx), n, dxf, dyf, ws));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, &df, ws + MPCGI_DOT_BLOCKS, sizeof df, MPCGI_D2H));

    CHECK(memcmp(&d1, &d2, sizeof d1) == 0); /* deterministic: bit-identical on a re-run */
    CHECK(fabs(d1 - ref) <= 2.0 * (double)n * DBL_EPSILON * sum_abs);
    double reff = 0;
    for (int64_t i = 0; i < n; i++) reff += (double)xf[i] * yf[i];
    CHECK(fabs(df - reff) <= 2.0 * (double)n * DBL_EPSILON * sum_absf); /* fp64 sums */

    /* y += a x, then y = x + b y, fp64 through the table and fp32 through the launchers */
    const double a = 0.75, bb = -1.25;
    CHECK_OK(ctx, V->axpy(ctx, n, a, dx, dy));
    CHECK_OK(ctx, V->xpay(ctx, n, dx, bb, dy));
    CHECK_LAUNCH(ctx, mpcgi_vec_axpy_f32(mpcg_context_stream(ctx), n, (float)a, dxf, dyf));
    CHECK_LAUNCH(ctx, mpcgi_vec_xpay_f32(mpcg_context_stream(ctx), n, dxf, (float)bb, dyf));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, r, dy, b64, MPCGI_D2H));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, rf, dyf, b32, MPCGI_D2H));
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double want = x[i] + bb * (y[i] + a * x[i]), scale = fabs(x[i]) + 2 * fabs(y[i]) + 2;
        float wantf = xf[i] + (float)bb * (yf[i] + (float)a * xf[i]);
        bad += !(fabs(r[i] - want) <= 4 * DBL_EPSILON * scale);
        bad += !(fabs(rf[i] - wantf) <= 4 * FLT_EPSILON * (float)scale);
    }
    CHECK(bad == 0);

    check_copy_zero(ctx, n, x, dx, dy, r);

    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(r), mpcgi_host_free(partials);
    mpcgi_host_free(xf), mpcgi_host_free(yf), mpcgi_host_free(rf);
    mpcgi_device_free(ctx, dx), mpcgi_device_free(ctx, dy), mpcgi_device_free(ctx, ws);
    mpcgi_device_free(ctx, dxf), mpcgi_device_free(ctx, dyf);
}

/* No device allocation inside a solve: two host-pointer solves, a device-pointer solve and a
 * solve after new values all leave the device allocation counter where setup left it. */
static void test_no_alloc_in_solve(mpcg_context *ctx)
{
    const int64_t n = 597;
    mpcg_matrix *A = test_random_spd(ctx, n, test_seed + 1);
    CHECK(A != NULL);
    if (!A) return;
    mpcg_solver *S;
    mpcg_info info;
    double b[597], x[597], *db, *dx, val[597 * 17 + 1];
    for (int64_t i = 0; i < n; i++) b[i] = sin((double)i);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    /* the backend this was measured with (test_spmv_auto_gpu checks auto's solves) */
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, sizeof b, &db));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, sizeof x, &dx));
    CHECK_OK(ctx, mpcgi_device_copy(ctx, db, b, sizeof b, MPCGI_H2D));
    const double *v;
    CHECK(mpcg_matrix_nnz(A) <= 597 * 17);
    CHECK_OK(ctx, mpcg_matrix_csr(A, NULL, NULL, &v));
    for (int64_t k = 0; k < mpcg_matrix_nnz(A); k++) val[k] = 3 * v[k];
    int64_t before = mpcgi_alloc_device_attempts();

    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && strcmp(info.backend, "cusparse") == 0);
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK_OK(ctx, mpcg_solve_device(S, db, dx, &info));
    CHECK(info.converged);
    CHECK_OK(ctx, mpcg_matrix_update_values(A, val));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged);

    CHECK(mpcgi_alloc_device_attempts() == before);
    mpcgi_device_free(ctx, db), mpcgi_device_free(ctx, dx);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* Device (and host) allocation failure at every step of setup: each failing setup reports
 * the allocation status and leaves nothing behind; the solver still solves afterwards. */
static void test_setup_oom_sweep(mpcg_context *ctx)
{
    const int64_t n = 100;
    mpcg_matrix *A = test_random_spd(ctx, n, test_seed + 2);
    CHECK(A != NULL);
    if (!A) return;
    mpcg_solver *S;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    /* one backend's setup: auto's trial goes on past a candidate whose allocation fails
     * (test_spmv_auto_gpu sweeps that) */
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    double b[100], x[100];
    for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    int64_t live = mpcgi_alloc_live();
    int done = 0, device_failures = 0;
    for (int64_t k = 0; k < 200 && !done; k++) {
        mpcgi_alloc_fail_at(k);

        mpcg_status st = mpcg_solver_setup(S);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) {
            done = 1;
            break;
        }
        CHECK(st == MPCG_ERR_DEVICE_ALLOC || st == MPCG_ERR_HOST_ALLOC);
        device_failures += st == MPCG_ERR_DEVICE_ALLOC;
        CHECK(mpcgi_alloc_live() == live);
        mpcg_clear_error(ctx);
    }
    /* 3 matrix arrays, 4 work vectors, the dot workspace, b and x (and the SpMV workspace if
     * cuSPARSE asks for one) */
    CHECK(done && device_failures >= 10);

    /* a failed setup, then a solve: the solve sets up again and converges */
    mpcg_info info;
    mpcgi_alloc_fail_at(1);
    CHECK(mpcg_solver_setup(S) != MPCG_SUCCESS);
    mpcgi_alloc_fail_at(-1);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && info.true_relres <= 1e-8);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* The caller's stream replaces the context's own for all work, and NULL brings it back. */
static void test_caller_stream(mpcg_context *ctx)
{
    const int64_t n = 597;
    mpcg_matrix *A = test_random_spd(ctx, n, test_seed + 3);
    CHECK(A != NULL);
    if (!A) return;
    mpcg_solver *S;
    mpcg_info own, theirs;
    double b[597], x1[597], x2[597];
    for (int64_t i = 0; i < n; i++) b[i] = cos((double)i);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    void *own_stream = mpcg_context_stream(ctx);
    CHECK_OK(ctx, mpcg_solve(S, b, x1, &own));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s) == cudaSuccess);

    CHECK_OK(ctx, mpcg_context_set_stream(ctx, s));
    CHECK(mpcg_context_stream(ctx) == (void *)s);
    CHECK_OK(ctx, mpcg_solve(S, b, x2, &theirs));
    CHECK(cudaStreamQuery(s) == cudaSuccess); /* the solve's work is done when it returns */
    CHECK_OK(ctx, mpcg_context_set_stream(ctx, NULL));

    CHECK(mpcg_context_stream(ctx) == own_stream);
    CHECK(own.converged && theirs.converged);
    CHECK(llabs(own.iterations - theirs.iterations) <= 1);
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < n; i++) diff += fabs(x1[i] - x2[i]), norm += fabs(x1[i]);
    CHECK(diff <= 1e-6 * norm);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

/* Host-to-device copies large enough for the staging buffers (core/device_stage.c), their
 * length not a multiple of a buffer: two copies one after the other (the second refills buffers
 * whose DMA may still be in flight), the source overwritten as soon as each call returns, then
 * both read back against what was copied. */
static void test_staged_copy(mpcg_context *ctx)
{
    const size_t n = (40u << 20) / 8 + 12345; /* 40 MiB and a tail, in doubles */
    double *h = NULL, *back = NULL;
    void *d1 = NULL, *d2 = NULL;
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, n, sizeof *h, &h));
    CHECK_OK(ctx, mpcgi_host_alloc_array(ctx, n, sizeof *back, &back));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, n * 8, &d1));
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, n * 8, &d2));
    if (!h || !back || !d1 || !d2) goto done;
    for (size_t i = 0; i < n; i++) h[i] = (double)i + 0.25;
    CHECK_OK(ctx, mpcgi_device_copy(ctx, d1, h, n * 8, MPCGI_H2D));
    for (size_t i = 0; i < n; i++) h[i] = -(double)i; /* the first copy must not see this */
    CHECK_OK(ctx, mpcgi_device_copy(ctx, d2, h, n * 8, MPCGI_H2D));
    for (size_t i = 0; i < n; i++) h[i] = NAN;
    size_t bad1 = 0, bad2 = 0;
    CHECK_OK(ctx, mpcgi_device_copy(ctx, back, d1, n * 8, MPCGI_D2H));
    for (size_t i = 0; i < n; i++) bad1 += back[i] != (double)i + 0.25;
    CHECK_OK(ctx, mpcgi_device_copy(ctx, back, d2, n * 8, MPCGI_D2H));
    for (size_t i = 0; i < n; i++) bad2 += back[i] != -(double)i;
    printf("  staged copies of %zu bytes: %zu and %zu entries wrong\n", n * 8, bad1, bad2);
    CHECK(bad1 == 0 && bad2 == 0);
done:
    mpcgi_device_free(ctx, d1);
    mpcgi_device_free(ctx, d2);
    mpcgi_host_free(h);
    mpcgi_host_free(back);
}

/* ---------------------------------------------------------------- the device timer */

struct timer_call {
    int64_t spin_ns; /* > 0: the call is a spin of this many ns */
    double host_s;   /* else the host waits this long, then queues a 4-byte memset */
    void *d;
};

static mpcg_status timed_call(mpcg_context *ctx, void *arg)
{
    const struct timer_call *c = arg;
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(ctx);
    if (c->spin_ns > 0)
        return mpcgi_cuda_status(ctx, (cudaError_t)mpcgi_device_spin(s, c->spin_ns), "spin",
                                 __FILE__, __LINE__, __func__);
    const double t0 = mpcgi_wtime();
    while (mpcgi_wtime() - t0 < c->host_s) {
    }
    return mpcgi_cuda_status(ctx, cudaMemsetAsync(c->d, 0, 4, s), "memset", __FILE__, __LINE__,
                             __func__);
}

/* mpcgi_device_time_calls times the device: a spin of 50 us measures 50 us (at most 2 ms more),
 * alone or in groups of 3 (a group's time per call; groups of 0 calls refused),
 * and calls whose host side (8 us) outlasts their device work (a 4-byte memset) measure the
 * device's time, not the host's (all but two under 6 us): the timer's own spin covers the
 * queueing. */
static void test_device_timer(mpcg_context *ctx)
{
    double s[8];
    struct timer_call c = {50000, 0, NULL};
    CHECK_OK(ctx, mpcgi_device_time_calls(ctx, timed_call, &c, 1, 4, 1, s));
    for (int i = 0; i < 4; i++) CHECK(s[i] >= 50e-6 && s[i] <= 50e-6 + 2e-3);
    /* groups of 3: a group's time per call, 50 us each */
    for (int i = 0; i < 3; i++) s[i] = NAN;
    CHECK_OK(ctx, mpcgi_device_time_calls(ctx, timed_call, &c, 1, 3, 3, s));
    for (int i = 0; i < 3; i++) CHECK(s[i] >= 50e-6 && s[i] <= 50e-6 + 2e-3);
    CHECK_STATUS(ctx, mpcgi_device_time_calls(ctx, timed_call, &c, 1, 3, 0, s),
                 MPCG_ERR_INVALID_ARG);
    CHECK_OK(ctx, mpcgi_device_alloc(ctx, 4, &c.d));
    c.spin_ns = 0, c.host_s = 8e-6;
    CHECK_OK(ctx, mpcgi_device_time_calls(ctx, timed_call, &c, 2, 8, 1, s));
    int slow = 0;
    double lo = s[0], hi = s[0];
    for (int i = 0; i < 8; i++) lo = fmin(lo, s[i]), hi = fmax(hi, s[i]), slow += s[i] >= 6e-6;
    printf("  timer: memsets queued 8 us apart measure %.2f - %.2f us\n", lo * 1e6, hi * 1e6);
    CHECK(slow <= 2); /* the host's 8 us would show in every call */
    mpcgi_device_free(ctx, c.d);
}

int main(void)
{
    test_init_seed("test_device");
    test_status_mapping();
    test_no_such_gpu();
    test_cpu_context();
    if (mpcgi_device_count() == 0) {
        printf("test_device: no usable GPU, the GPU checks are skipped\n");
        return test_failures ? test_finish("test_device") : TEST_SKIP;
    }
    mpcg_context *ctx;
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &ctx));
    if (!ctx) return test_finish("test_device");
    printf("test_device: %s\n", mpcg_context_device_name(ctx));
    test_gpu_context(ctx);
    const int64_t sizes[] = {1, 31, 597, 10007, 1000003};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_vec(ctx, sizes[i]);
    test_no_alloc_in_solve(ctx);
    test_setup_oom_sweep(ctx);
    test_caller_stream(ctx);
    test_staged_copy(ctx);
    test_device_timer(ctx);
    mpcg_context_destroy(ctx);
    return test_finish("test_device");
}
