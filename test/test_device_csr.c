/* test/test_device_csr.c: matrices over device CSR arrays (mpcg_matrix_view_device_csr) against
 * the same matrices from host CSR, on every GPU backend (a GPU test: exits 77 without a GPU;
 * test/test_view_args.c checks the arguments without one) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "solver/solver.h"
#include "test/testutil.h"

static mpcg_context *gpu;
static const double tol = 1e-10;

/* A host matrix's CSR on the device: row pointers of both widths, columns, values. */
typedef struct dev_csr {
    int64_t n, nnz;
    int32_t *rp32, *col;
    int64_t *rp64;
    double *val;
} dev_csr;

/* Written and synchronised, as docs/embedding.md asks of values not written on the context's
 * stream: cudaMemcpy from pageable memory returns once the bytes are staged, before the DMA has
 * landed, and the context's own stream does not wait for the legacy one (under memcheck a
 * cusparsesell view once read the old values at its update). */
static void dev_write(void *d, const void *h, size_t bytes)
{
    if (bytes) CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

static void *dev_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    CHECK(cudaMalloc(&d, bytes ? bytes : 1) == cudaSuccess);
    dev_write(d, h, bytes);
    return d;
}

static dev_csr upload(const mpcg_matrix *H)
{
    const int64_t *rp;
    const int32_t *col;
    const double *val;
    dev_csr d = {.n = mpcg_matrix_n(H), .nnz = mpcg_matrix_nnz(H)};
    CHECK_OK(gpu, mpcg_matrix_csr(H, &rp, &col, &val));
    int32_t *rp32 = malloc(((size_t)d.n + 1) * sizeof *rp32);
    for (int64_t i = 0; i <= d.n; i++) rp32[i] = (int32_t)rp[i];
    d.rp32 = dev_copy(rp32, ((size_t)d.n + 1) * 4);
    d.rp64 = dev_copy(rp, ((size_t)d.n + 1) * 8);
    d.col = dev_copy(col, (size_t)d.nnz * 4);
    d.val = dev_copy(val, (size_t)d.nnz * 8);
    free(rp32);
    return d;
}

static void dev_free(dev_csr *d)
{
    cudaFree(d->rp32), cudaFree(d->rp64), cudaFree(d->col), cudaFree(d->val);
}

static mpcg_matrix *view(const dev_csr *d, int rp64)
{
    mpcg_matrix *V = NULL;
    CHECK_OK(gpu, mpcg_matrix_view_device_csr(gpu, d->n, d->nnz,
                                              rp64 ? (const void *)d->rp64 : (const void *)d->rp32,
                                              rp64 ? MPCG_INDEX_INT64 : MPCG_INDEX_INT32, d->col,
                                              d->val, &V));
    return V;
}

/* A solver on A with one backend, precision and preconditioner (tol 1e-10). */
static mpcg_solver *solver(mpcg_matrix *A, const char *backend, mpcg_precision prec,
                           mpcg_precond pc)
{
    mpcg_solver *S = NULL;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, backend));
    CHECK_OK(gpu, mpcg_solver_set_precision(S, prec));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, pc));
    CHECK_OK(gpu, mpcg_solver_set_tol(S, tol));
    return S;
}

/* x (poisoned with NaN first: the guess is zero) of S on b. */
static mpcg_status solve(mpcg_solver *S, const double *b, double *x, int64_t n, mpcg_info *info)
{
    for (int64_t i = 0; i < n; i++) x[i] = NAN;
    return mpcg_solve(S, b, x, info);
}

/* ||x - y|| / ||y|| */
static double rel_diff(const double *x, const double *y, int64_t n)
{
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) d += (x[i] - y[i]) * (x[i] - y[i]), s += y[i] * y[i];
    return sqrt(d / s);
}

/* The view's solve against the host CSR's where the backend is not deterministic (cusparse's
 * ALG1, docs/gpu.md: the same layout may round differently from run to run): fp64 iterations
 * as close as GPU against CPU (test_iterations_close) and x within 1e-5; fp32 and mixed within
 * the rounding noise of their residuals. A difference in the bits is printed as a note. */
static void close_solves(const mpcg_info *ih, const mpcg_info *iv, const double *xh,
                         const double *xv, int64_t n, const char *what)
{
    if (memcmp(xh, xv, (size_t)n * 8) == 0 && ih->iterations == iv->iterations) return;
    printf("  note: %s: not bit-identical (%lld against %lld iterations, x differs by %.2e)\n",
           what, (long long)iv->iterations, (long long)ih->iterations, rel_diff(xv, xh, n));
    if (ih->precision == MPCG_PRECISION_FP64) {
        CHECK(test_iterations_close(what, iv->iterations, ih->iterations));
        CHECK(rel_diff(xv, xh, n) <= 1e-5);
    } else {
        CHECK(iv->true_relres <= 10 * (ih->true_relres > tol ? ih->true_relres : tol));
    }
}

/* The solves of H (host CSR) and V (its view) by S_h and S_v: the same status; on success the
 * same reason, and with a deterministic backend (strict) the same iterations and bit-identical
 * x (it builds the same layout from the same numbers and reads it in the same order), else
 * close_solves; the view's plan says it is one. */
static void same_solves(mpcg_solver *Sh, mpcg_solver *Sv, const double *b, int64_t n,
                        const char *what, int strict)
{
    double *xh = malloc((size_t)n * 8), *xv = malloc((size_t)n * 8);
    mpcg_info ih, iv;
    mpcg_status sh = solve(Sh, b, xh, n, &ih), sv = solve(Sv, b, xv, n, &iv);
    CHECK(sh == sv);
    if (sh == MPCG_SUCCESS && sv == MPCG_SUCCESS) {
        CHECK(ih.reason == iv.reason);
        if (strict) CHECK(ih.iterations == iv.iterations);
        if (strict) CHECK(memcmp(xh, xv, (size_t)n * 8) == 0);
        if (!strict) close_solves(&ih, &iv, xh, xv, n, what);
        CHECK(iv.converged == ih.converged && (!iv.converged || iv.true_relres <= tol));
        CHECK(strstr(iv.spmv_describe, "device view") != NULL);
        CHECK(strstr(ih.spmv_describe, "device view") == NULL);
    }
    if (test_failures) fprintf(stderr, "  after %s: %s / %s\n", what, mpcg_status_name(sh),
                               mpcg_status_name(sv));
    if (sv != MPCG_SUCCESS) mpcg_clear_error(gpu);
    if (sh != MPCG_SUCCESS) mpcg_clear_error(gpu);
    free(xh), free(xv);
}

/* Every GPU backend in every precision it has, on H and on its view V. */
static void check_backends(mpcg_matrix *H, mpcg_matrix *V, const double *b, const char *name)
{
    const int64_t n = mpcg_matrix_n(H);
    const mpcg_precision precs[] = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32,
                                    MPCG_PRECISION_MIXED};
    const unsigned need[] = {MPCG_CAP_FP64, MPCG_CAP_FP32, MPCG_CAP_MIXED_STORE};
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info bi;
        CHECK_OK(gpu, mpcg_backend_get(i, &bi));
        if (!(bi.caps & MPCG_CAP_NEEDS_DEVICE)) continue;
        for (int p = 0; p < 3; p++) {
            if (!(bi.caps & need[p])) continue;
            char what[128];
            snprintf(what, sizeof what, "%s, %s, %s", name, bi.name, mpcg_precision_name(precs[p]));
            mpcg_solver *Sh = solver(H, bi.name, precs[p], MPCG_PRECOND_NONE);
            mpcg_solver *Sv = solver(V, bi.name, precs[p], MPCG_PRECOND_NONE);
            same_solves(Sh, Sv, b, n, what, (bi.caps & MPCG_CAP_DETERMINISTIC) != 0);
            mpcg_solver_destroy(Sh), mpcg_solver_destroy(Sv);
        }
    }
}

/* cusparse reads the view in place: the plan's row functor (an internal accessor) holds the
 * caller's pointers (row pointers: the caller's int32 ones, or the view's copy of int64 ones). */
static void check_no_copy(mpcg_matrix *V, const dev_csr *d, int rp64)
{
    mpcg_solver *S = solver(V, "cusparse", MPCG_PRECISION_FP64, MPCG_PRECOND_NONE);
    mpcgi_rows rows;
    CHECK_OK(gpu, mpcg_solver_setup(S));
    CHECK(mpcgi_spmv_rows(S->plan, MPCG_PRECISION_FP64, &rows) == MPCG_SUCCESS);
    CHECK(rows.val == d->val && rows.col_idx == d->col);
    CHECK(rp64 ? (const void *)rows.row_ptr != (const void *)d->rp64
               : rows.row_ptr == d->rp32);
    mpcg_solver_destroy(S);
}

/* New values on the device (another array, then the same one rewritten) against
 * mpcg_matrix_update_values on H, through solvers set up before (their numeric setup again). */
static void check_update(mpcg_matrix *H, mpcg_matrix *V, const dev_csr *d, const double *b,
                         const char *backend, mpcg_precond pc, int strict, const char *name)
{
    char what[128];
    snprintf(what, sizeof what, "%s, %s, update", name, backend);
    const int64_t n = mpcg_matrix_n(H), nnz = mpcg_matrix_nnz(H);
    const double *v0;
    CHECK_OK(gpu, mpcg_matrix_csr(H, NULL, NULL, &v0));
    double *v = malloc((size_t)nnz * 8), *orig = malloc((size_t)nnz * 8);
    memcpy(orig, v0, (size_t)nnz * 8);
    mpcg_solver *Sh = solver(H, backend, MPCG_PRECISION_FP64, pc);
    mpcg_solver *Sv = solver(V, backend, MPCG_PRECISION_FP64, pc);
    same_solves(Sh, Sv, b, n, what, strict);
    double *d2 = NULL;
    for (int k = 2; k <= 3; k++) { /* k = 2: a new array; k = 3: the same, rewritten */
        for (int64_t q = 0; q < nnz; q++) v[q] = k * orig[q];
        if (!d2) d2 = dev_copy(v, (size_t)nnz * 8);
        else dev_write(d2, v, (size_t)nnz * 8);
        CHECK_OK(gpu, mpcg_matrix_update_values(H, v));
        CHECK_OK(gpu, mpcg_matrix_update_values_device(V, d2));
        same_solves(Sh, Sv, b, n, what, strict);
    }
    for (int64_t q = 0; q < nnz; q++) v[q] = orig[q]; /* back, for the next checks */
    CHECK_OK(gpu, mpcg_matrix_update_values(H, v));
    CHECK_OK(gpu, mpcg_matrix_update_values_device(V, d->val)); /* d2 goes below */
    mpcg_solver_destroy(Sh), mpcg_solver_destroy(Sv);
    cudaFree(d2);
    free(v), free(orig);
}

/* Views of broken arrays are refused with the first offending entry named; nothing is
 * returned. */
static void refuse(const char *what, int64_t n, int64_t nnz, const void *rp, const int32_t *col,
                   const double *val, const char *message)
{
    mpcg_matrix *V = (mpcg_matrix *)&V;
    CHECK_STATUS(gpu, mpcg_matrix_view_device_csr(gpu, n, nnz, rp, MPCG_INDEX_INT32, col, val, &V),
                 MPCG_ERR_INVALID_ARG);
    CHECK(V == NULL);
    if (!strstr(mpcg_last_error(gpu), message)) {
        fprintf(stderr, "%s: message '%s' lacks '%s'\n", what, mpcg_last_error(gpu), message);
        test_failures++;
    }
    mpcg_clear_error(gpu);
}

/* A device copy of rp32 (host), one entry changed. */
static int32_t *bad_rows(const dev_csr *d, int64_t i, int32_t value)
{
    int32_t *h = malloc(((size_t)d->n + 1) * 4), *out;
    CHECK(cudaMemcpy(h, d->rp32, ((size_t)d->n + 1) * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    h[i] = value;
    out = dev_copy(h, ((size_t)d->n + 1) * 4);
    free(h);
    return out;
}

static void check_refusals(const dev_csr *d, const mpcg_matrix *H)
{
    const int64_t *rp;
    const int32_t *col;
    const double *val;
    CHECK_OK(gpu, mpcg_matrix_csr(H, &rp, &col, &val));
    int64_t r = 0; /* a row with two entries or more */
    while (rp[r + 1] - rp[r] < 2) r++;
    refuse("host arrays", d->n, d->nnz, rp, col, val, "host memory");
    refuse("host values", d->n, d->nnz, d->rp32, d->col, val, "val_dev");
    refuse("misaligned", d->n, d->nnz, d->rp32, d->col, (const double *)((char *)d->val + 4),
           "aligned");
    refuse("nnz", d->n, d->nnz + 1, d->rp32, d->col, d->val, "row_ptr_dev[");
    int32_t *bad = bad_rows(d, r + 1, (int32_t)rp[r] - 1);
    refuse("decreasing", d->n, d->nnz, bad, d->col, d->val, "not decrease");
    cudaFree(bad);
    int32_t *cols = dev_copy(col, (size_t)d->nnz * 4), c = (int32_t)d->n, c2[2];
    dev_write(cols + rp[r], &c, 4);
    refuse("column", d->n, d->nnz, d->rp32, cols, d->val, "out of range");
    c2[0] = col[rp[r] + 1], c2[1] = col[rp[r]]; /* a row's first two swapped */
    dev_write(cols + rp[r], c2, 8);
    refuse("order", d->n, d->nnz, d->rp32, cols, d->val, "strictly increasing");
    cudaFree(cols);
    const double nan = NAN;
    double *vals = dev_copy(val, (size_t)d->nnz * 8);
    dev_write(vals + d->nnz - 1, &nan, 8);
    refuse("value", d->n, d->nnz, d->rp32, d->col, vals, "not finite");
    cudaFree(vals);
}

/* What a view refuses or copies to the host once made: host values, host pointers of updates;
 * mpcg_matrix_csr's copy; mpcg_matrix_check of values written after the creation. */
static void check_view_calls(mpcg_matrix *V, const mpcg_matrix *H)
{
    const int64_t nnz = mpcg_matrix_nnz(H);
    const int64_t *rp, *vrp;
    const int32_t *col, *vcol;
    const double *val, *vval;
    CHECK_OK(gpu, mpcg_matrix_csr(H, &rp, &col, &val));
    CHECK_STATUS(gpu, mpcg_matrix_update_values(V, val), MPCG_ERR_INVALID_STATE);
    CHECK_STATUS(gpu, mpcg_matrix_update_values_device(V, val), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(gpu, mpcg_matrix_update_values_device((mpcg_matrix *)H, val),
                 MPCG_ERR_INVALID_STATE);
    mpcg_clear_error(gpu);
    CHECK_OK(gpu, mpcg_matrix_csr(V, &vrp, &vcol, &vval));
    CHECK(memcmp(rp, vrp, ((size_t)mpcg_matrix_n(H) + 1) * 8) == 0);
    CHECK(memcmp(col, vcol, (size_t)nnz * 4) == 0 && memcmp(val, vval, (size_t)nnz * 8) == 0);
    CHECK_OK(gpu, mpcg_matrix_check(V, MPCG_CHECK_SYMMETRY));
    double *d = dev_copy(val, (size_t)nnz * 8);
    const double inf = INFINITY;
    dev_write(d + nnz / 2, &inf, 8);
    CHECK_OK(gpu, mpcg_matrix_update_values_device(V, d)); /* not checked here */
    CHECK_STATUS(gpu, mpcg_matrix_check(V, 0), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(gpu), "not finite") != NULL);
    mpcg_clear_error(gpu);
    dev_write(d, val, (size_t)nnz * 8);
    CHECK_OK(gpu, mpcg_matrix_update_values_device(V, d)); /* the copy follows */
    CHECK_OK(gpu, mpcg_matrix_check(V, MPCG_CHECK_DIAGONAL));
    cudaFree(d);
}

/* The caller's stream: the arrays written there, the view and a device solve ordered after. */
static void check_stream(const mpcg_matrix *H, const double *b, mpcg_solver *Sh,
                         const char *name)
{
    const int64_t n = mpcg_matrix_n(H), nnz = mpcg_matrix_nnz(H);
    const int64_t *rp;
    const int32_t *col;
    const double *val;
    cudaStream_t st;
    int64_t *drp;
    int32_t *dcol;
    double *dval, *db, *dx, *x = malloc((size_t)n * 8), *xh = malloc((size_t)n * 8);
    mpcg_matrix *V = NULL;
    mpcg_solver *S = NULL;
    mpcg_info info, ih;
    CHECK_OK(gpu, mpcg_matrix_csr(H, &rp, &col, &val));
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc((void **)&drp, ((size_t)n + 1) * 8) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dcol, (size_t)nnz * 4) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dval, (size_t)nnz * 8) == cudaSuccess);
    CHECK(cudaMalloc((void **)&db, (size_t)n * 8) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dx, (size_t)n * 8) == cudaSuccess);
    CHECK_OK(gpu, mpcg_context_set_stream(gpu, st));
    CHECK(cudaMemcpyAsync(drp, rp, ((size_t)n + 1) * 8, cudaMemcpyHostToDevice, st) == cudaSuccess);
    CHECK(cudaMemcpyAsync(dcol, col, (size_t)nnz * 4, cudaMemcpyHostToDevice, st) == cudaSuccess);
    CHECK(cudaMemcpyAsync(dval, val, (size_t)nnz * 8, cudaMemcpyHostToDevice, st) == cudaSuccess);
    CHECK(cudaMemcpyAsync(db, b, (size_t)n * 8, cudaMemcpyHostToDevice, st) == cudaSuccess);
    CHECK_OK(gpu, mpcg_matrix_view_device_csr(gpu, n, nnz, drp, MPCG_INDEX_INT64, dcol, dval, &V));
    S = solver(V, "cusparse", MPCG_PRECISION_FP64, MPCG_PRECOND_NONE);
    CHECK_OK(gpu, mpcg_solve_device(S, db, dx, &info));
    CHECK(cudaMemcpyAsync(x, dx, (size_t)n * 8, cudaMemcpyDeviceToHost, st) == cudaSuccess);
    CHECK(cudaStreamSynchronize(st) == cudaSuccess);
    CHECK_OK(gpu, solve(Sh, b, xh, n, &ih));
    /* the same GPU arithmetic up to cuSPARSE ALG1's rounding (and ||b|| comes from the device
     * in one, the host in the other) */
    CHECK(info.converged && test_iterations_close(name, info.iterations, ih.iterations));
    CHECK(rel_diff(x, xh, n) <= 1e-5);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(V);
    CHECK_OK(gpu, mpcg_context_set_stream(gpu, NULL));
    cudaFree(drp), cudaFree(dcol), cudaFree(dval), cudaFree(db), cudaFree(dx);
    cudaStreamDestroy(st);
    free(x), free(xh);
}

static void check_matrix(mpcg_matrix *H, const char *name)
{
    const int64_t n = mpcg_matrix_n(H);
    double *b = malloc((size_t)n * 8);
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)n);
    for (int64_t i = 0; i < n; i++) b[i] = mpcgi_rng_uniform(&g) - 0.5;
    dev_csr d = upload(H);
    printf("%s: n %lld, nnz %lld\n", name, (long long)n, (long long)d.nnz);
    for (int rp64 = 0; rp64 < 2; rp64++) {
        mpcg_matrix *V = view(&d, rp64);
        if (!V) break;
        CHECK(mpcg_matrix_n(V) == n && mpcg_matrix_nnz(V) == d.nnz);
        check_backends(H, V, b, name);
        check_no_copy(V, &d, rp64);
        check_update(H, V, &d, b, "cusparse", MPCG_PRECOND_NONE, 0, name); /* ALG1: not strict */
        check_update(H, V, &d, b, "adaptive", MPCG_PRECOND_JACOBI, 1, name);
        check_update(H, V, &d, b, "cusparsesell", MPCG_PRECOND_AUTO, 0, name);
        check_update(H, V, &d, b, "segscan", MPCG_PRECOND_CHEBYSHEV, 1, name);
        check_update(H, V, &d, b, "fold", MPCG_PRECOND_BJACOBI, 1, name);
        check_view_calls(V, H);
        mpcg_matrix_destroy(V);
    }
    mpcg_solver *Sh = solver(H, "cusparse", MPCG_PRECISION_FP64, MPCG_PRECOND_NONE);
    check_stream(H, b, Sh, name);
    mpcg_solver_destroy(Sh);
    check_refusals(&d, H);
    dev_free(&d);
    free(b);
}

int main(void)
{
    test_init_seed("test_device_csr");
    if (mpcgi_device_count() == 0) {
        printf("SKIP: no usable GPU (test/test_view_args checks the arguments without one)\n");
        return TEST_SKIP;
    }
    const int64_t live = mpcgi_alloc_live();
    CHECK_OK(NULL, mpcg_context_create("cuda", &gpu));
    mpcg_matrix *R = test_random_spd(gpu, 3001, test_seed), *B = NULL;
    CHECK(R != NULL);
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data("bcsstk05.mtx"), &B));
    if (R) check_matrix(R, "random SPD");
    if (B) check_matrix(B, "bcsstk05");
    mpcg_matrix_destroy(R);
    mpcg_matrix_destroy(B);
    mpcg_context_destroy(gpu);
    CHECK(mpcgi_alloc_live() == live); /* host and device blocks of the library */
    return test_finish("test_device_csr");
}
