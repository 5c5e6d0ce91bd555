/* bench/cg_baseline.c: the plain cuSPARSE + cuBLAS CG loop that cgbench compares mpcg with */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "bench/cg_baseline.h"
#include "bench/common.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"

/* Most timed runs. */
#define MAX_RUNS 100

/* Everything the loop needs on the device. */
typedef struct baseline {
    mpcg_context *ctx;
    cudaStream_t stream;
    cusparseHandle_t sparse;
    cublasHandle_t blas;
    int n;
    const double *b;
    int32_t *row_ptr_host;
    int32_t *row_ptr, *col_idx;
    double *val, *x, *r, *p, *q;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vp, vq, vx;
    void *buf;
    cudaEvent_t e0, e1;
} baseline;

static void baseline_close(baseline *bl)
{
    mpcg_context *ctx = bl->ctx;
    /* teardown cannot report failures: destroying valid objects does not fail */
    if (bl->stream) (void)cudaStreamSynchronize(bl->stream);
    if (bl->A) (void)cusparseDestroySpMat(bl->A);
    if (bl->vp) (void)cusparseDestroyDnVec(bl->vp);
    if (bl->vq) (void)cusparseDestroyDnVec(bl->vq);
    if (bl->vx) (void)cusparseDestroyDnVec(bl->vx);
    if (bl->sparse) (void)cusparseDestroy(bl->sparse);
    if (bl->blas) (void)cublasDestroy(bl->blas);
    if (bl->e0) (void)cudaEventDestroy(bl->e0);
    if (bl->e1) (void)cudaEventDestroy(bl->e1);
    void *dev[] = {bl->row_ptr, bl->col_idx, bl->val, bl->x, bl->r, bl->p, bl->q, bl->buf};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        mpcgi_device_free(ctx, dev[k]);
    mpcgi_host_free(bl->row_ptr_host);
}

/* The CSR arrays on the device (int32 row pointers) and the work vectors. */
static mpcg_status baseline_upload(baseline *bl, const mpcgi_csr *A)
{
    mpcg_context *ctx = bl->ctx;
    size_t n = (size_t)A->n, nnz = (size_t)A->nnz, vec = n * sizeof(double);
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, n + 1, sizeof(int32_t), &bl->row_ptr_host));
    /* 0 <= row_ptr[i] <= nnz <= INT32_MAX (checked by the caller): the narrowing is exact */
    for (size_t i = 0; i <= n; i++)
        bl->row_ptr_host[i] = (int32_t)A->row_ptr[i];
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (n + 1) * sizeof(int32_t), &bl->row_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nnz * sizeof(int32_t), &bl->col_idx));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nnz * sizeof(double), &bl->val));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, bl->row_ptr, bl->row_ptr_host, (n + 1) * sizeof(int32_t),
                                      MPCGI_H2D));
    MPCG_CHECK(ctx,
               mpcgi_device_copy(ctx, bl->col_idx, A->col_idx, nnz * sizeof(int32_t), MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, bl->val, A->val, nnz * sizeof(double), MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, vec, &bl->x));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, vec, &bl->r));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, vec, &bl->p));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, vec, &bl->q));
    MPCG_CUDA(ctx, cudaMemsetAsync(bl->x, 0, vec, bl->stream));
    MPCG_CUDA(ctx, cudaMemsetAsync(bl->p, 0, vec, bl->stream));
    return MPCG_SUCCESS;
}

/* Handles, descriptors and the SpMV buffer, as in the cuSPARSE documentation. */
static mpcg_status baseline_open(baseline *bl, const mpcgi_csr *A)
{
    mpcg_context *ctx = bl->ctx;
    const double one = 1.0, zero = 0.0;
    size_t buf_bytes = 0;
    MPCG_CUSPARSE(ctx, cusparseCreate(&bl->sparse));
    MPCG_CUSPARSE(ctx, cusparseSetStream(bl->sparse, bl->stream));
    MPCG_CUBLAS(ctx, cublasCreate(&bl->blas));
    MPCG_CUBLAS(ctx, cublasSetStream(bl->blas, bl->stream));
    MPCG_CUBLAS(ctx, cublasSetPointerMode(bl->blas, CUBLAS_POINTER_MODE_HOST));
    MPCG_CUDA(ctx, cudaEventCreate(&bl->e0));
    MPCG_CUDA(ctx, cudaEventCreate(&bl->e1));
    MPCG_CHECK(ctx, baseline_upload(bl, A));
    MPCG_CUSPARSE(ctx, cusparseCreateCsr(&bl->A, A->n, A->n, A->nnz, bl->row_ptr, bl->col_idx,
                                         bl->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&bl->vp, A->n, bl->p, CUDA_R_64F));
    MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&bl->vq, A->n, bl->q, CUDA_R_64F));
    MPCG_CUSPARSE(ctx, cusparseCreateDnVec(&bl->vx, A->n, bl->x, CUDA_R_64F));
    MPCG_CUSPARSE(ctx, cusparseSpMV_bufferSize(bl->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                               bl->A, bl->vp, &zero, bl->vq, CUDA_R_64F,
                                               CUSPARSE_SPMV_ALG_DEFAULT, &buf_bytes));
    if (buf_bytes) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, buf_bytes, &bl->buf));
    return MPCG_SUCCESS;
}

/* q = A v (v: the descriptor of p or x) */
static mpcg_status spmv(baseline *bl, cusparseDnVecDescr_t v)
{
    const double one = 1.0, zero = 0.0;
    MPCG_CUSPARSE(bl->ctx,
                  cusparseSpMV(bl->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, bl->A, v, &zero,
                               bl->vq, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, bl->buf));
    return MPCG_SUCCESS;
}

/*
 * The textbook loop, x0 = 0. Memory traffic per iteration (bytes per row, A = matrix bytes per
 * row): p = r + b p as Dscal + Daxpy: 16 + 24 | q = A p: A + 16 | p.q: 16 | x += a p: 24 |
 * r -= a q: 24 | r.r: 8; total A + 128 (the first iteration copies r to p instead: 16).
 */
static mpcg_status baseline_solve(baseline *bl, double tol, int64_t maxit, int64_t *iters,
                                  double *relres)
{
    mpcg_context *ctx = bl->ctx;
    cublasHandle_t h = bl->blas;
    int n = bl->n;
    const double one = 1.0;
    double rr, rr_old = 0.0, bb, pq, alpha, minus_alpha, beta;
    int64_t k = 0;
    MPCG_CUDA(ctx, cudaMemsetAsync(bl->x, 0, (size_t)n * sizeof(double), bl->stream)); /* x = 0 */
    MPCG_CUBLAS(ctx, cublasDcopy(h, n, bl->b, 1, bl->r, 1));                           /* r = b */
    MPCG_CUBLAS(ctx, cublasDdot(h, n, bl->r, 1, bl->r, 1, &rr));                       /* r.r */
    bb = rr;
    while (rr > tol * tol * bb && k < maxit) {
        if (k == 0) {
            MPCG_CUBLAS(ctx, cublasDcopy(h, n, bl->r, 1, bl->p, 1)); /* p = r */
        } else {
            beta = rr / rr_old;
            MPCG_CUBLAS(ctx, cublasDscal(h, n, &beta, bl->p, 1));          /* p = b p */
            MPCG_CUBLAS(ctx, cublasDaxpy(h, n, &one, bl->r, 1, bl->p, 1)); /* p += r */
        }
        MPCG_CHECK(ctx, spmv(bl, bl->vp));                           /* q = A p */
        MPCG_CUBLAS(ctx, cublasDdot(h, n, bl->p, 1, bl->q, 1, &pq)); /* p.q */
        alpha = rr / pq;
        minus_alpha = -alpha;
        MPCG_CUBLAS(ctx, cublasDaxpy(h, n, &alpha, bl->p, 1, bl->x, 1));       /* x += a p */
        MPCG_CUBLAS(ctx, cublasDaxpy(h, n, &minus_alpha, bl->q, 1, bl->r, 1)); /* r -= a q */
        rr_old = rr;
        MPCG_CUBLAS(ctx, cublasDdot(h, n, bl->r, 1, bl->r, 1, &rr)); /* r.r */
        k++;
    }
    *iters = k;
    *relres = sqrt(rr / bb);
    return MPCG_SUCCESS;
}

/* ||b - A x|| / ||b|| of the last run, in r and q. */
static mpcg_status baseline_true_relres(baseline *bl, double *relres)
{
    mpcg_context *ctx = bl->ctx;
    const double minus_one = -1.0;
    double rnorm = 0.0, bnorm = 0.0;
    MPCG_CHECK(ctx, spmv(bl, bl->vx));                                              /* q = A x */
    MPCG_CUBLAS(ctx, cublasDcopy(bl->blas, bl->n, bl->b, 1, bl->r, 1));             /* r = b */
    MPCG_CUBLAS(ctx, cublasDaxpy(bl->blas, bl->n, &minus_one, bl->q, 1, bl->r, 1)); /* r -= q */
    MPCG_CUBLAS(ctx, cublasDnrm2(bl->blas, bl->n, bl->r, 1, &rnorm));
    MPCG_CUBLAS(ctx, cublasDnrm2(bl->blas, bl->n, bl->b, 1, &bnorm));
    *relres = bnorm > 0.0 ? rnorm / bnorm : 0.0;
    return MPCG_SUCCESS;
}

/* One untimed run, then `runs` event-timed runs. */
static mpcg_status baseline_time(baseline *bl, double tol, int64_t maxit, int runs,
                                 bench_cg_result *res)
{
    mpcg_context *ctx = bl->ctx;
    double t[MAX_RUNS];
    MPCG_CHECK(ctx, baseline_solve(bl, tol, maxit, &res->iterations, &res->recurrence_relres));
    for (int k = 0; k < runs; k++) {
        float f = 0.0f;
        MPCG_CUDA(ctx, cudaEventRecord(bl->e0, bl->stream));
        MPCG_CHECK(ctx, baseline_solve(bl, tol, maxit, &res->iterations, &res->recurrence_relres));
        MPCG_CUDA(ctx, cudaEventRecord(bl->e1, bl->stream));
        MPCG_CUDA(ctx, cudaEventSynchronize(bl->e1));
        MPCG_CUDA(ctx, cudaEventElapsedTime(&f, bl->e0, bl->e1));
        t[k] = f;
    }
    res->ms = bench_median(t, runs); /* sorts t */
    res->ms_min = t[0];
    res->ms_max = t[runs - 1];
    res->converged = res->recurrence_relres <= tol;
    res->ms_per_iter = res->iterations > 0 ? res->ms / (double)res->iterations : NAN;
    return MPCG_SUCCESS;
}

mpcg_status bench_cg_baseline(mpcg_context *ctx, const mpcgi_csr *A, const double *b_dev,
                              double tol, int64_t maxit, int runs, bench_cg_result *res)
{
    mpcg_status st = MPCG_SUCCESS;
    baseline bl;
    memset(&bl, 0, sizeof bl);
    memset(res, 0, sizeof *res);
    bl.ctx = ctx;
    MPCG_ENSURE(ctx, A->nnz <= INT32_MAX && A->n <= INT32_MAX, MPCG_ERR_NOT_SUPPORTED,
                "cusparse-loop: %lld nonzeros exceed its 32-bit indices", (long long)A->nnz);
    MPCG_ENSURE(ctx, runs >= 1 && runs <= MAX_RUNS && maxit >= 0, MPCG_ERR_INVALID_ARG,
                "cusparse-loop: runs = %d must be in [1, %d], maxit = %lld >= 0", runs, MAX_RUNS,
                (long long)maxit);
    bl.stream = (cudaStream_t)mpcg_context_stream(ctx);
    bl.n = (int)A->n; /* checked above */
    bl.b = b_dev;
    MPCG_TRY(ctx, st, baseline_open(&bl, A));
    MPCG_TRY(ctx, st, baseline_time(&bl, tol, maxit, runs, res));
    MPCG_TRY(ctx, st, baseline_true_relres(&bl, &res->true_relres));
    res->bytes_matrix = 12.0 * (double)A->nnz + 4.0 * (double)(A->n + 1);
    res->bytes_per_iter = res->bytes_matrix + 128.0 * (double)A->n;
done:
    baseline_close(&bl);
    return st;
}
