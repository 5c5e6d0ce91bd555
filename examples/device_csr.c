/* examples/device_csr.c: a matrix that lives on the GPU, solved in place on the caller's stream */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The heat equation of examples/heat.c, (I + dt L) u_new = u_old on an N x N grid, as a GPU code
 * that owns its data would run it: the CSR arrays (int32 row pointers, as cuSPARSE and CuPy keep
 * them), the state u and the right-hand side stay in device memory the program allocated, all of
 * its work and mpcg's is queued on one stream of the program's, and mpcg reads the matrix in
 * place (mpcg_matrix_view_device_csr: no copy). Every step the time step grows: the program
 * writes the new values into its own device array (here with cudaMemcpyAsync from the host; a
 * real code would run its assembly kernel on the stream) and tells mpcg with
 * mpcg_matrix_update_values_device; the solver keeps its pattern analysis and refreshes only
 * its numeric setup. Each solve is mpcg_solve_device: b and x on the device, nothing copied.
 * Usage: device_csr [N [STEPS [BACKEND]]]. Exit status 77 where no GPU is usable (the test
 * harness's SKIP), 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "mpcg.h"

/* The 5-point pattern with int32 row pointers: row r = i N + j holds the columns r - N, r - 1,
 * r, r + 1, r + N that lie inside the grid, in that (increasing) order. Made once. */
static void pattern(int N, int32_t *rp, int32_t *col)
{
    int32_t k = 0;
    for (int r = 0; r < N * N; r++) {
        const int i = r / N, j = r % N;
        const int nb[5] = {i > 0 ? r - N : -1, j > 0 ? r - 1 : -1, r, j < N - 1 ? r + 1 : -1,
                           i < N - 1 ? r + N : -1};
        rp[r] = k;
        for (int q = 0; q < 5; q++)
            if (nb[q] >= 0) col[k++] = nb[q];
    }
    rp[N * N] = k;
}

/* The values of I + dt L in that pattern (L the 5-point Laplacian / h^2): every time step. */
static void values(int N, double dt, const int32_t *rp, const int32_t *col, double *val)
{
    const double h2 = 1.0 / ((N + 1.0) * (N + 1.0)), off = -dt / h2, diag = 1.0 + 4.0 * dt / h2;
    for (int r = 0; r < N * N; r++)
        for (int32_t k = rp[r]; k < rp[r + 1]; k++) val[k] = col[k] == r ? diag : off;
}

/* The program's device arrays and its stream. */
typedef struct app {
    cudaStream_t stream;
    int32_t *rp, *col;
    double *val, *u, *unew;
} app;

#define CUDA_OK(call) ((call) == cudaSuccess)

static int app_alloc(app *a, int N, int64_t nnz)
{
    const size_t n = (size_t)N * N;
    return CUDA_OK(cudaStreamCreateWithFlags(&a->stream, cudaStreamNonBlocking)) &&
           CUDA_OK(cudaMalloc((void **)&a->rp, (n + 1) * sizeof(int32_t))) &&
           CUDA_OK(cudaMalloc((void **)&a->col, (size_t)nnz * sizeof(int32_t))) &&
           CUDA_OK(cudaMalloc((void **)&a->val, (size_t)nnz * sizeof(double))) &&
           CUDA_OK(cudaMalloc((void **)&a->u, n * sizeof(double))) &&
           CUDA_OK(cudaMalloc((void **)&a->unew, n * sizeof(double)));
}

static void app_free(app *a)
{
    cudaFree(a->rp), cudaFree(a->col), cudaFree(a->val), cudaFree(a->u), cudaFree(a->unew);
    if (a->stream) cudaStreamDestroy(a->stream);
}

/* The time loop: new values on the stream, the solver told, one solve a step. */
static int steps_loop(mpcg_matrix *A, mpcg_solver *S, app *a, int N, int steps, double *val,
                      const int32_t *rp, const int32_t *col)
{
    const int64_t nnz = mpcg_matrix_nnz(A);
    double dt = 1e-4, center = 0;
    for (int s = 0; s < steps; s++, dt *= 1.5) {
        mpcg_info info;
        values(N, dt, rp, col, val); /* the pattern is the same; the values change */
        if (!CUDA_OK(cudaMemcpyAsync(a->val, val, (size_t)nnz * sizeof *val,
                                     cudaMemcpyHostToDevice, a->stream)) ||
            mpcg_matrix_update_values_device(A, a->val) ||
            cudaMemcpyAsync(a->unew, a->u, (size_t)N * N * sizeof(double),
                            cudaMemcpyDeviceToDevice, a->stream) != cudaSuccess) /* the guess */
            return 1;
        if (mpcg_solve_device(S, a->u, a->unew, &info) || !info.converged) {
            fprintf(stderr, "device_csr: step %d: %s\n", s, mpcg_reason_string(info.reason));
            return 1;
        }
        double *t = a->u;
        a->u = a->unew, a->unew = t;
        if (!CUDA_OK(cudaMemcpyAsync(&center, a->u + (N / 2) * N + N / 2, sizeof center,
                                     cudaMemcpyDeviceToHost, a->stream)) ||
            !CUDA_OK(cudaStreamSynchronize(a->stream)))
            return 1;
        printf("step %3d  dt %.1e  iterations %3lld  true relres %.2e  u(center) %.6f\n", s, dt,
               (long long)info.iterations, info.true_relres, center);
        if (s == steps - 1) printf("spmv: %s\n", info.spmv_describe); /* how it reads A */
    }
    return 0;
}

/* The state: a hot square around the center, on the stream. */
static int initial_state(app *a, int N, double *h)
{
    for (int r = 0; r < N * N; r++) {
        const double xr = (double)(r % N + 1) / (N + 1), yr = (double)(r / N + 1) / (N + 1);
        h[r] = xr > 0.25 && xr < 0.65 && yr > 0.35 && yr < 0.75 ? 1.0 : 0.0;
    }
    return CUDA_OK(cudaMemcpyAsync(a->u, h, (size_t)N * N * sizeof *h, cudaMemcpyHostToDevice,
                                   a->stream)) &&
           CUDA_OK(cudaStreamSynchronize(a->stream)); /* h is pageable and reused */
}

int main(int argc, char **argv)
{
    const int N = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 5;
    const char *backend = argc > 3 ? argv[3] : "auto";
    int count = 0, rc = 1;
    if (N < 2 || N > 40000 || steps < 1) {
        fprintf(stderr, "usage: device_csr [N in 2..40000 [STEPS >= 1 [BACKEND]]]\n");
        return 2;
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("device_csr: no usable GPU\n");
        return 77;
    }
    const int64_t n = (int64_t)N * N, nnz = 5 * n - 4 * N;
    int32_t *rp = malloc((size_t)(n + 1) * sizeof *rp), *col = malloc((size_t)nnz * sizeof *col);
    double *val = malloc((size_t)(nnz > n ? nnz : n) * sizeof *val);
    app a = {0};
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    if (!rp || !col || !val || !app_alloc(&a, N, nnz) || !initial_state(&a, N, val)) goto done;
    pattern(N, rp, col);
    values(N, 1e-4, rp, col, val);
    /* the arrays reach the device on the program's stream; mpcg works on that stream too, so
     * its check of the new view runs after the copies */
    if (!CUDA_OK(cudaMemcpyAsync(a.rp, rp, (size_t)(n + 1) * sizeof *rp, cudaMemcpyHostToDevice,
                                 a.stream)) ||
        !CUDA_OK(cudaMemcpyAsync(a.col, col, (size_t)nnz * sizeof *col, cudaMemcpyHostToDevice,
                                 a.stream)) ||
        !CUDA_OK(cudaMemcpyAsync(a.val, val, (size_t)nnz * sizeof *val, cudaMemcpyHostToDevice,
                                 a.stream)) ||
        mpcg_context_create("cuda", &ctx) || mpcg_context_set_stream(ctx, a.stream) ||
        mpcg_matrix_view_device_csr(ctx, n, nnz, a.rp, MPCG_INDEX_INT32, a.col, a.val, &A) ||
        mpcg_solver_create(ctx, A, &S) || mpcg_solver_set_spmv(S, backend) ||
        mpcg_solver_set_tol(S, 1e-10) || mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED))
        goto done;
    printf("device_csr: %d x %d grid, %d steps on %s, the matrix a view of the program's arrays\n",
           N, N, steps, mpcg_context_device_name(ctx));
    rc = steps_loop(A, S, &a, N, steps, val, rp, col);
done:
    if (rc) { /* the message alone; mpcg_last_error adds the source location and call frames */
        char msg[512];
        mpcg_last_error_message(ctx, msg, sizeof msg); /* ctx NULL: this thread's last error */
        fprintf(stderr, "device_csr: %s\n", *msg ? msg : "a CUDA call failed");
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx); /* before the stream it works on goes */
    app_free(&a);
    free(rp), free(col), free(val);
    return rc;
}
