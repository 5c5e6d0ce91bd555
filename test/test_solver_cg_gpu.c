/* test/test_solver_cg_gpu.c: fp64 CG on the GPU against CG on the CPU, real and generated */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;
static const double tol = 1e-8; /* the solver's default */

/* Iteration counts may differ: cuSPARSE sums a row in another order than the CPU, so the
 * iterates drift apart by rounding (allowed: test_iterations_close). */
static mpcg_info solve(mpcg_context *ctx, mpcg_matrix *A, const double *b, double *x)
{
    mpcg_solver *S;
    mpcg_info info;
    memset(&info, 0xff, sizeof info);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    /* the GPU checks of this test were measured with cusparse; auto's trial may take another
     * backend from run to run (test_spmv_auto_gpu tests auto) */
    if (mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA)
        CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    mpcg_solver_destroy(S);
    return info;
}

/* A provided initial guess x0 = 0.9 x_cpu: with maxit = 0 the solve reports the residual of x0
 * (so the guess was used), with the default limit it converges. */
static void check_guess(mpcg_solver *S, const mpcgi_csr *A, const double *b, const double *xc)
{
    int64_t n = A->n;
    double *x0, *x, scale;
    mpcg_info info;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x0, &x0));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x, &x));
    for (int64_t i = 0; i < n; i++) x0[i] = x[i] = 0.9 * xc[i];
    CHECK_OK(gpu, mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED));
    CHECK_OK(gpu, mpcg_solver_set_maxit(S, 0));

    CHECK_OK(gpu, mpcg_solve(S, b, x, &info));

    CHECK(info.iterations == 0 && info.reason == MPCG_DIVERGED_MAX_ITER);
    CHECK(test_close(info.true_relres, test_relres(A, b, x0, &scale), 1e-6, 1e-12));
    CHECK(memcmp(x, x0, (size_t)n * sizeof *x) == 0);
    CHECK_OK(gpu, mpcg_solver_set_maxit(S, 10 * n > 100 ? 10 * n : 100));
    CHECK_OK(gpu, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && info.true_relres <= tol && test_residual_ok(A, b, x, tol));
    CHECK_OK(gpu, mpcg_solver_set_initial_guess(S, MPCG_GUESS_ZERO));
    mpcgi_host_free(x0), mpcgi_host_free(x);
}

/* b and x already on the device (the caller's cudaMalloc memory, ordered on the context's
 * stream): as mpcg_solve, and a NaN in b is refused. */
static void check_solve_device(mpcg_solver *S, const mpcgi_csr *A, const double *b,
                               const mpcg_info *host_info)
{
    size_t bytes = (size_t)A->n * sizeof(double);
    cudaStream_t s = (cudaStream_t)mpcg_context_stream(gpu);
    double *db = NULL, *dx = NULL, *x;
    mpcg_info info;
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, bytes, &x));
    CHECK(cudaMalloc((void **)&db, bytes) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dx, bytes) == cudaSuccess);
    CHECK(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, s) == cudaSuccess);
    CHECK(cudaMemsetAsync(dx, 0xff, bytes, s) == cudaSuccess); /* NaN: the guess is zero */

    CHECK_OK(gpu, mpcg_solve_device(S, db, dx, &info));
    CHECK(cudaMemcpy(x, dx, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);

    CHECK(info.converged && info.true_relres <= tol && test_residual_ok(A, b, x, tol));
    CHECK(info.iterations == host_info->iterations); /* the same GPU arithmetic */
    CHECK(cudaMemsetAsync(db, 0xff, sizeof(double), s) == cudaSuccess);
    CHECK_STATUS(gpu, mpcg_solve_device(S, db, dx, &info), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(gpu), "b_dev holds a NaN"));
    mpcg_clear_error(gpu);
    CHECK_STATUS(gpu, mpcg_solve_device(S, NULL, dx, &info), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(gpu);
    cudaFree(db), cudaFree(dx);
    mpcgi_host_free(x);
}

/* The same system on both contexts: same reason, iteration counts close, both within tol. */
static void compare(const char *name, mpcg_matrix *Ac, mpcg_matrix *Ag)
{
    int64_t n = mpcg_matrix_n(Ac);
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)mpcg_matrix_nnz(Ac));
    double *b, *xc, *xg;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *xc, &xc));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *xg, &xg));
    for (int64_t i = 0; i < n; i++) b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    memset(xc, 0xff, (size_t)n * sizeof *xc), memset(xg, 0xff, (size_t)n * sizeof *xg); /* NaN */

    mpcg_info ic = solve(cpu, Ac, b, xc), ig = solve(gpu, Ag, b, xg);

    printf("  %-20s n = %7lld: cpu %5lld iterations (%.2e), gpu %5lld (%.2e)\n", name,
           (long long)n, (long long)ic.iterations, ic.true_relres, (long long)ig.iterations,
           ig.true_relres);
    CHECK(strcmp(ic.backend, "cpu") == 0 && strcmp(ig.backend, "cusparse") == 0);
    CHECK(ic.reason == MPCG_CONVERGED_RTOL && ig.reason == MPCG_CONVERGED_RTOL);
    CHECK(test_iterations_close(name, ig.iterations, ic.iterations));
    CHECK(ic.true_relres <= tol && ig.true_relres <= tol);
    CHECK(test_residual_ok(&Ag->csr, b, xg, tol));
    mpcg_solver *S;
    CHECK_OK(gpu, mpcg_solver_create(gpu, Ag, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, "cusparse")); /* as ig's solve */
    check_guess(S, &Ag->csr, b, xc);
    check_solve_device(S, &Ag->csr, b, &ig);
    mpcg_solver_destroy(S);
    mpcgi_host_free(b), mpcgi_host_free(xc), mpcgi_host_free(xg);
}

static void compare_generated(const char *spec)
{
    mpcg_matrix *Ac = NULL, *Ag = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, spec, &Ac));
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, spec, &Ag));
    if (Ac && Ag) compare(spec, Ac, Ag);
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

static void compare_random(int64_t n)
{
    mpcg_matrix *Ac = test_random_spd(cpu, n, test_seed + (uint64_t)n);
    mpcg_matrix *Ag = test_random_spd(gpu, n, test_seed + (uint64_t)n);
    CHECK(Ac && Ag);
    if (Ac && Ag) compare("random SPD", Ac, Ag);
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

/* A symmetric .mtx file of test/data (all bundled ones are SPD). */
static void compare_file(const char *name, const char *path, void *user)
{
    mpcg_matrix *Ac = NULL, *Ag = NULL;
    (void)user;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, path, &Ac));
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, path, &Ag));
    if (Ac && mpcg_matrix_check(Ac, MPCG_CHECK_SYMMETRY) != MPCG_SUCCESS) {
        printf("  %-20s not symmetric: skipped\n", name);
        mpcg_clear_error(cpu);
    } else if (Ac && Ag) {
        compare(name, Ac, Ag);
    }
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

/* On the CPU the cusparse backend runs its emulation, which traverses rows as the cpu backend
 * does: the whole solve is bit-identical (the --device=cpu --spmv=cusparse path of CI). */
static void test_emulated_solve(void)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    mpcg_matrix *A = test_random_spd(cpu, 597, test_seed);
    mpcg_solver *S;
    mpcg_info ie, ic;
    double b[597], xe[597], xc[597];
    CHECK(A != NULL);
    if (!A) return;
    for (int i = 0; i < 597; i++) b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    CHECK_OK(cpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */

    CHECK_OK(cpu, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(cpu, mpcg_solve(S, b, xe, &ie));
    CHECK_OK(cpu, mpcg_solver_set_spmv(S, "cpu"));
    CHECK_OK(cpu, mpcg_solve(S, b, xc, &ic));

    CHECK(strcmp(ie.backend, "cusparse") == 0 && ie.converged);
    CHECK(ie.iterations == ic.iterations && memcmp(xe, xc, sizeof xe) == 0);
    CHECK(ie.bytes_per_iteration == (double)mpcg_matrix_nnz(A) * 12 + 598 * 4 + 112 * 597);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_solver_cg_gpu");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_solver_cg_gpu");
    test_emulated_solve();
    if (mpcgi_device_count() == 0) {
        printf("test_solver_cg_gpu: no usable GPU, the GPU checks are skipped\n");
        mpcg_context_destroy(cpu);
        return test_failures ? test_finish("test_solver_cg_gpu") : TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_solver_cg_gpu");
    printf("test_solver_cg_gpu: %s\n", mpcg_context_device_name(gpu));
    compare_generated("poisson3d:24");
    compare_random(10007);
    CHECK(test_each_mtx(compare_file, NULL) == 0);
    mpcg_context_destroy(cpu);
    mpcg_context_destroy(gpu);
    return test_finish("test_solver_cg_gpu");
}
