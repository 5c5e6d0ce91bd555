/* test/test_spmv_auto_copy.c: auto's one device copy of a host matrix (spmv/auto/copy.c). A plan
 * of each GPU backend built on the attached copy and then kept (a device-built plan moved to the
 * host matrix, any other built again on it) computes what the same backend's plan built on the
 * host matrix computes, in every precision the plan holds, before and after new values (bit for
 * bit where the backend is deterministic); the copy is wanted only where it can pay and fit; one
 * that cannot be allocated leaves A as it was and nothing behind. Skips (77) without a GPU. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "spmv/auto/auto.h"
#include "test/testutil.h"

static mpcg_context *gpu;

/* y of plan for x (host, n doubles) in precision p, into y (host), y poisoned (NaN) first. */
static void apply(mpcgi_spmv_plan *plan, mpcg_precision p, const double *x, double *y, int64_t n)
{
    const size_t w = p == MPCG_PRECISION_FP32 ? 4 : 8, b = (size_t)n * w;
    void *dx = NULL, *dy = NULL;
    float *x32 = NULL, *y32 = NULL;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b, &x32));
    CHECK_OK(gpu, mpcgi_host_alloc(gpu, b, &y32));
    if (!dx || !dy || !x32 || !y32) goto done;
    for (int64_t i = 0; i < n; i++) {
        if (w == 4) x32[i] = (float)x[i], y32[i] = NAN;
        y[i] = NAN;
    }
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, w == 4 ? (const void *)x32 : (const void *)x, b,
                                    MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dy, w == 4 ? (const void *)y32 : (const void *)y, b,
                                    MPCGI_H2D)); /* poisoned */
    CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, p, dx, dy));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, w == 4 ? (void *)y32 : (void *)y, dy, b, MPCGI_D2H));
    for (int64_t i = 0; w == 4 && i < n; i++) y[i] = y32[i];
done:
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    mpcgi_host_free(x32), mpcgi_host_free(y32);
}

/* The products of `kept` and `ref` (host-built) in every precision they hold: the same bits
 * where the backend is deterministic, else within the precision's rounding of the sum. */
static void same_products(const char *what, mpcgi_spmv_plan *kept, mpcgi_spmv_plan *ref,
                          const mpcgi_csr *A, const double *x)
{
    const int64_t n = A->n;
    const mpcg_precision ps[3] = {MPCG_PRECISION_FP64, MPCG_PRECISION_FP32, MPCG_PRECISION_MIXED};
    double *a = calloc((size_t)n, 8), *b = calloc((size_t)n, 8);
    const int strict = (kept->ops->caps & MPCG_CAP_DETERMINISTIC) != 0;
    for (int k = 0; a && b && k < 3; k++) {
        const unsigned cap = ps[k] == MPCG_PRECISION_FP64 ? MPCG_CAP_FP64 : MPCG_CAP_FP32;
        if (ps[k] == MPCG_PRECISION_MIXED ? !kept->mixed : !(kept->precisions & cap)) continue;
        apply(kept, ps[k], x, a, n);
        apply(ref, ps[k], x, b, n);
        const double eps = ps[k] == MPCG_PRECISION_FP32 ? 1e-5 : 1e-13;
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += strict ? memcmp(&a[i], &b[i], 8) != 0
                          : !(fabs(a[i] - b[i]) <= eps * (1 + fabs(b[i])));
        if (bad) printf("  %s, %s: %lld of %lld entries differ\n", what,
                        mpcg_precision_name(ps[k]), (long long)bad, (long long)n);
        CHECK(bad == 0);
    }
    free(a), free(b);
}

/* Backend ops in value precisions `prec`: built on the copy and kept, against a plan built on A
 * alone; then new values through both. */
static void check_backend(const struct mpcgi_spmv_ops *ops, unsigned prec, mpcgi_csr *A,
                          mpcgi_rng *g)
{
    char what[64];
    mpcgi_auto_copy c;
    mpcgi_spmv_plan *kept = NULL, *ref = NULL;
    double own = -1;
    const mpcgi_auto_request req = {.precision = MPCG_PRECISION_FP64, .precisions = prec};
    double *x = calloc((size_t)A->n, 8);
    snprintf(what, sizeof what, "%s, precisions 0x%x", ops->name, prec);
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, ops, A, prec, NULL, &ref));
    CHECK_OK(gpu, mpcgi_auto_copy_attach(gpu, A, &c));
    CHECK(A->dev == &c.view && c.seconds > 0 && c.h2d_s >= 0 && c.h2d_s <= c.seconds);
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, ops, A, prec, NULL, &kept));
    CHECK(kept && strstr(kept->view_note, "device view") != NULL);
    mpcgi_auto_copy_detach(gpu, A, &c);
    CHECK(A->dev == NULL && A->mirror == 0 && c.row_ptr == NULL && c.val == NULL);
    mpcgi_auto_copy_detach(gpu, A, &c); /* twice: nothing left to do */
    if (kept) CHECK_OK(gpu, mpcgi_auto_copy_keep(gpu, A, &c, &req, &kept, 1e-3, &own));
    if (!kept || !ref || !x) goto done;
    CHECK(kept->view_note[0] == '\0' && kept->ops == ops);
    /* a device-built plan's own setup: the copy and its build; any other was built again */
    CHECK(ops->view == MPCGI_VIEW_DEVICE ? own >= c.seconds + 1e-3 : own > 0);
    for (int64_t i = 0; i < A->n; i++) x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    same_products(what, kept, ref, A, x);
    /* new values, the same pattern, as mpcg_matrix_update_values refreshes them */
    for (int64_t k = 0; k < A->nnz; k++) A->val[k] = 0.75 * A->val[k] + 0.125;
    if (A->val32) CHECK_OK(gpu, mpcgi_csr_fill_val32(gpu, A));
    if (A->lo32) CHECK_OK(gpu, mpcgi_csr_fill_lo32(gpu, A));
    CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, kept, A));
    CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, ref, A));
    same_products(what, kept, ref, A, x);
done:
    mpcgi_spmv_plan_destroy(gpu, kept);
    mpcgi_spmv_plan_destroy(gpu, ref);
    free(x);
}

/* A fresh host matrix for each case (its fp32 copies made by the plans, or not). */
static void check_backends(mpcgi_rng *g)
{
    const char *const names[] = {"adaptive", "fold", "segscan", "cusparse"};
    const unsigned precs[] = {MPCG_CAP_FP64, MPCG_CAP_FP64 | MPCG_CAP_FP32,
                              MPCG_CAP_FP64 | MPCGI_PREC_MIXED_STORE};
    for (int b = 0; b < 4; b++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(names[b]);
        CHECK(ops != NULL && ops->view != MPCGI_VIEW_HOST);
        for (int k = 0; ops && k < 3; k++) {
            mpcgi_csr A;
            if ((ops->caps & precs[k]) != precs[k]) continue;
            if (test_random_csr(g, 1000 + 37 * b + k, 7, 0, &A) != 0) continue;
            check_backend(ops, precs[k], &A, g);
            mpcgi_csr_free(&A);
        }
    }
}

/* Wanted: a GPU, host CSR with entries, two candidates at least, and room for it four times. */
static void check_wanted(mpcgi_rng *g)
{
    mpcgi_csr A;
    mpcgi_auto_copy c;
    if (test_random_csr(g, 500, 5, 0, &A) != 0) return;
    const size_t bytes = 501 * 8 + (size_t)A.nnz * 12;
    CHECK(mpcgi_auto_copy_wanted(gpu, &A, 2) && !mpcgi_auto_copy_wanted(gpu, &A, 1));
    const size_t big = (size_t)1 << 40;
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, big));
    const size_t in_use = big - mpcgi_device_bytes_left(gpu);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, in_use + 4 * bytes - 4));
    CHECK(mpcgi_device_bytes_left(gpu) == 4 * bytes - 4 && !mpcgi_auto_copy_wanted(gpu, &A, 4));
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, in_use + 4 * bytes));
    CHECK(mpcgi_auto_copy_wanted(gpu, &A, 4));
    A.dev = (mpcgi_csr_view *)&c; /* a device view's matrix: never (the pointer is not read) */
    CHECK(!mpcgi_auto_copy_wanted(gpu, &A, 4));
    A.dev = NULL;
    /* a copy that does not fit: A as it was, nothing allocated, the error says why */
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, bytes / 2));
    const int64_t live = mpcgi_alloc_live();
    CHECK_STATUS(gpu, mpcgi_auto_copy_attach(gpu, &A, &c), MPCG_ERR_DEVICE_ALLOC);
    CHECK(A.dev == NULL && mpcgi_alloc_live() == live);
    mpcg_clear_error(gpu);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, 0));
    mpcgi_csr_free(&A);
}

int main(void)
{
    test_init_seed("test_spmv_auto_copy");
    if (mpcgi_device_count() == 0) {
        printf("test_spmv_auto_copy: no usable GPU, skipped\n");
        return 77;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_spmv_auto_copy");
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    check_wanted(&g);
    check_backends(&g);
    mpcg_context_destroy(gpu);
    return test_finish("test_spmv_auto_copy");
}
