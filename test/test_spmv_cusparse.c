/* test/test_spmv_cusparse.c: the cusparse backend in CPU emulation and on the GPU, vs references */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "core/matrix.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* ---------------------------------------------------------------- CPU emulation */

static void test_table(void)
{
    const struct mpcgi_spmv_ops *ops;

    CHECK_OK(cpu, mpcgi_spmv_lookup(cpu, "cusparse", &ops));

    CHECK(ops == &mpcgi_spmv_cusparse);
    CHECK(ops->caps == (MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE |
                        MPCG_CAP_NEEDS_DEVICE |
                        MPCG_CAP_CPU_EMULATION)); /* ALG1 is not documented deterministic */
    CHECK(ops->upload && ops->apply && ops->update_values);
}

/* More nonzeros than 32-bit indices hold: refused before any array is read. */
static void test_too_many_nonzeros(void)
{
    int64_t rp[2] = {0, (int64_t)INT32_MAX + 1};
    mpcgi_csr A = {.n = 1, .nnz = rp[1], .row_ptr = rp};
    mpcgi_spmv_plan *plan = (mpcgi_spmv_plan *)1;

    CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_cusparse, &A, MPCG_CAP_FP64, NULL, &plan),
                 MPCG_ERR_NOT_SUPPORTED);

    CHECK(plan == NULL);
    CHECK(strstr(mpcg_last_error(cpu), "2147483648 nonzeros exceed its 32-bit indices"));
    mpcg_clear_error(cpu);
}

/* Emulation vs the cpu backend: the same traversal, so bit-identical in fp64 and fp32; again
 * after new values. */
static void check_emulation(int64_t n)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + (uint64_t)n);
    mpcgi_csr A;
    CHECK(test_random_csr(&g, n, 9, 1, &A) == 0);
    size_t b64 = (size_t)n * sizeof(double), b32 = (size_t)n * sizeof(float);
    double *x, *y, *yref;
    float *xf, *yf, *yfref;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b64, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b64, &y));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b64, &yref));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b32, &xf));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b32, &yf));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b32, &yfref));
    for (int64_t i = 0; i < n; i++) x[i] = 2 * mpcgi_rng_uniform(&g) - 1, xf[i] = (float)x[i];
    mpcgi_spmv_plan *emu, *ref;
    const unsigned both = MPCG_CAP_FP64 | MPCG_CAP_FP32;
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_cusparse, &A, both, NULL, &emu));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_cpu, &A, both, NULL, &ref));
    CHECK(emu->sizes.bytes_matrix == (size_t)A.nnz * 12 + ((size_t)n + 1) * 4);
    CHECK(emu->sizes.bytes_workspace == 0 && emu->sizes.padding_ratio == 1.0);

    for (int pass = 0; pass < 2; pass++) {
        memset(y, 0xff, b64), memset(yf, 0xff, b32); /* NaN */

        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, y));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP32, xf, yf));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, ref, MPCG_PRECISION_FP64, x, yref));
        CHECK_OK(cpu, mpcgi_spmv_apply(cpu, ref, MPCG_PRECISION_FP32, xf, yfref));

        CHECK(memcmp(y, yref, b64) == 0);
        CHECK(memcmp(yf, yfref, b32) == 0);
        /* new values, same pattern */
        for (int64_t k = 0; k < A.nnz; k++) A.val[k] = -0.5 * A.val[k] + 0.25;
        CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, &A)); /* as mpcg_matrix_update_values does */
        CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, emu, &A));
        CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, ref, &A));
    }

    mpcgi_spmv_plan_destroy(cpu, emu);
    mpcgi_spmv_plan_destroy(cpu, ref);
    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(yref);
    mpcgi_host_free(xf), mpcgi_host_free(yf), mpcgi_host_free(yfref);
    mpcgi_csr_free(&A);
}

/* The fp32-only layout reads 8 bytes per nonzero. */
static void test_fp32_bytes(void)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    mpcgi_csr A;
    mpcgi_spmv_plan *plan;
    CHECK(test_random_csr(&g, 100, 4, 0, &A) == 0);

    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_cusparse, &A, MPCG_CAP_FP32, NULL, &plan));

    CHECK(plan->sizes.bytes_matrix == (size_t)A.nnz * 8 + 101 * 4);
    CHECK_STATUS(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, A.val, A.val),
                 MPCG_ERR_NOT_SUPPORTED);
    mpcg_clear_error(cpu);
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_csr_free(&A);
}

/* ---------------------------------------------------------------- on the GPU */

/* y = A x in long double from the inputs as the precision rounds them (fp32: values and x
 * rounded to float), and s = sum |a_ij x_j| per row, the scale of the rounding error. */
static void reference(const mpcgi_csr *A, const double *x, int fp32, long double *y,
                      long double *s)
{
    for (int64_t i = 0; i < A->n; i++) {
        y[i] = s[i] = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            double a = fp32 ? (double)(float)A->val[k] : A->val[k];
            double xj = fp32 ? (double)(float)x[A->col_idx[k]] : x[A->col_idx[k]];
            y[i] += (long double)a * xj;
            s[i] += fabsl((long double)a * xj);
        }
    }
}

/* One device SpMV of `plan` in `prec`, output poisoned with NaN first, every row checked
 * against the reference within (row length + 2) eps sum|a_ij x_j|. Returns the bad rows. */
static int64_t check_device_apply(const mpcgi_csr *A, mpcgi_spmv_plan *plan, mpcg_precision prec,
                                  const double *x)
{
    int fp32 = prec == MPCG_PRECISION_FP32;
    int64_t n = A->n, bad = 0;
    size_t vsize = fp32 ? sizeof(float) : sizeof(double), bytes = (size_t)n * vsize;
    double eps = fp32 ? FLT_EPSILON : DBL_EPSILON;
    long double *ref, *scale;
    double *hx, *hy;
    void *dx, *dy;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *ref, &ref));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *scale, &scale));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof(double), &hx));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof(double), &hy));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &dy));
    for (int64_t i = 0; i < n; i++) {
        if (fp32) ((float *)hx)[i] = (float)x[i];
        else hx[i] = x[i];
    }
    reference(A, x, fp32, ref, scale);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, hx, bytes, MPCGI_H2D));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, bytes,
                                                         mpcg_context_stream(gpu)))); /* NaN */

    CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, prec, dx, dy));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, hy, dy, bytes, MPCGI_D2H));

    for (int64_t i = 0; i < n; i++) {
        double yi = fp32 ? (double)((float *)hy)[i] : hy[i];
        double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
        if (!(fabsl(yi - ref[i]) <= (len + 2) * eps * scale[i])) {
            if (bad < 3)
                fprintf(stderr, "  row %lld: got %.17g, want %.17Lg\n", (long long)i, yi, ref[i]);
            bad++;
        }
    }
    mpcgi_host_free(ref), mpcgi_host_free(scale), mpcgi_host_free(hx), mpcgi_host_free(hy);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    return bad;
}

/* fp64 and fp32 SpMVs of A on the GPU; with update, again after new values in A. */
static void check_device(const char *what, mpcgi_csr *A, int update)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)A->nnz);
    double *x;
    mpcgi_spmv_plan *plan;
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)A->n, sizeof *x, &x));
    for (int64_t i = 0; i < A->n; i++) x[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_cusparse, A,
                                         MPCG_CAP_FP64 | MPCG_CAP_FP32, NULL, &plan));
    if (!plan) {
        mpcgi_host_free(x);
        return;
    }

    for (int pass = 0; pass <= update; pass++) {
        int64_t bad64 = check_device_apply(A, plan, MPCG_PRECISION_FP64, x);
        int64_t bad32 = check_device_apply(A, plan, MPCG_PRECISION_FP32, x);
        if (bad64 || bad32)
            fprintf(stderr, "%s (n = %lld)%s: %lld fp64 and %lld fp32 rows wrong\n", what,
                    (long long)A->n, pass ? " after update_values" : "", (long long)bad64,
                    (long long)bad32);
        CHECK(bad64 == 0 && bad32 == 0);
        if (pass < update) {
            for (int64_t k = 0; k < A->nnz; k++) A->val[k] = 1.5 * A->val[k] - 0.125;
            CHECK_OK(gpu, mpcgi_csr_fill_val32(gpu, A)); /* as mpcg_matrix_update_values does */
            CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, A));
        }
    }

    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_host_free(x);
}

static void check_device_random(int64_t n)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 7 * (uint64_t)n);
    mpcgi_csr A;
    CHECK(test_random_csr(&g, n, 9, 1, &A) == 0);
    check_device("random", &A, 1);
    mpcgi_csr_free(&A);
}

static void check_file(const char *name, const char *path, void *user)
{
    (void)user;
    mpcg_matrix *M = NULL;
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, path, &M));
    if (M) check_device(name, &M->csr, 0);
    mpcg_matrix_destroy(M);
}

/* Every .mtx file of test/data, and a generated 3-D Poisson matrix. */
static void check_device_real(void)
{
    mpcg_matrix *M = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:20", &M));
    if (M) check_device("poisson3d:20", &M->csr, 0);
    mpcg_matrix_destroy(M);
    (void)test_each_mtx(check_file, NULL);
}

int main(void)
{
    test_init_seed("test_spmv_cusparse");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    test_table();
    test_too_many_nonzeros();
    const int64_t sizes[] = {1, 31, 597, 10007};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_emulation(sizes[i]);
    test_fp32_bytes();
    mpcg_context_destroy(cpu);
    if (mpcgi_device_count() == 0) {
        printf("test_spmv_cusparse: no usable GPU, the GPU checks are skipped\n");
        return test_failures ? test_finish("test_spmv_cusparse") : TEST_SKIP;
    }

    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_spmv_cusparse");
    printf("test_spmv_cusparse: %s\n", mpcg_context_device_name(gpu));
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_device_random(sizes[i]);
    check_device_random(200003);
    check_device_real();
    mpcg_context_destroy(gpu);
    return test_finish("test_spmv_cusparse");
}
