/* test/test_spmv_segscan.c: the segscan backend (seed 001): the checks of test/spmv_check.h
 * (emulation against a long double reference, the GPU bit for bit against the emulation, the
 * fused dot) for both reductions and several segment lengths and nonzeros a thread, on matrices
 * with empty rows, rows longer than many segments, a row ending exactly at a segment boundary,
 * n not a multiple of 32, and no nonzeros at all; refused shapes */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "spmv/spmv.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

#define cpu spmv_check_cpu
#define gpu spmv_check_gpu

/* One shape of the backend: reduce, segment, per_thread ("auto" where NULL). */
typedef struct shape {
    const char *reduce, *segment, *per_thread;
} shape;

static void options_of(const shape *sh, mpcgi_options *o)
{
    memset(o, 0, sizeof *o);
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.reduce", sh->reduce));
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.segment",
                                          sh->segment ? sh->segment : "auto"));
    CHECK_OK(NULL, mpcgi_options_set_text(NULL, o, "segscan.per_thread",
                                          sh->per_thread ? sh->per_thread : "auto"));
}

/* The shapes: the defaults, each thread count and V of the scan, the seed's index tree at its
 * smallest, default and largest segments. */
static const shape shapes[] = {
    {"shuffle", NULL, NULL},  {"shuffle", "128", "1"},  {"shuffle", "512", "2"},
    {"shuffle", "1024", "8"}, {"shuffle", "4096", "8"}, {"shuffle", "2048", "4"},
    {"index", NULL, NULL},    {"index", "128", NULL},   {"index", "1024", "1"},
};

static void check_matrix(const char *what, mpcgi_csr *A, mpcgi_rng *g)
{
    double *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *x, &x));
    for (int64_t i = 0; x && i < A->n; i++)
        x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    for (size_t k = 0; x && k < sizeof shapes / sizeof shapes[0]; k++) {
        const shape *sp = &shapes[k];
        mpcgi_options opts;
        char name[96];
        options_of(sp, &opts);
        snprintf(name, sizeof name, "%s %s L=%s V=%s", what, sp->reduce,
                 sp->segment ? sp->segment : "auto", sp->per_thread ? sp->per_thread : "auto");
        spmv_check_backend(&mpcgi_spmv_segscan, name, A, &opts, x, 1);
    }
    printf("  %s: n = %lld, nnz = %lld checked\n", what, (long long)A->n, (long long)A->nnz);
    mpcgi_host_free(x);
}

/* Shapes without kernels are refused when the plan is made, naming the options. */
static void check_refusals(void)
{
    static const struct {
        shape sp;
        const char *why;
    } bad[] = {
        {{"shuffle", "128", "8"}, "makes 16 threads a block"},
        {{"shuffle", "4096", "1"}, "makes 4096 threads a block"},
        {{"index", "2048", NULL}, "segscan.reduce=index takes one nonzero a thread"},
        {{"index", "256", "2"}, "segscan.per_thread=2"},
    };
    int64_t rp[2] = {0, 0};
    mpcgi_csr A = {.n = 1, .nnz = 0, .row_ptr = rp};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mpcgi_options o;
        mpcgi_spmv_plan *plan = NULL;
        options_of(&bad[k].sp, &o);
        CHECK_STATUS(cpu,
                     mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_segscan, &A, MPCG_CAP_FP64, &o, &plan),
                     MPCG_ERR_INVALID_ARG);
        CHECK(plan == NULL && strstr(mpcg_last_error(cpu), bad[k].why));
        mpcg_clear_error(cpu);
    }
    mpcgi_options o = {0};
    CHECK_STATUS(NULL, mpcgi_options_set_text(NULL, &o, "segscan.per_thread", "3"),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcgi_options_set_text(NULL, &o, "segscan.segment", "8192"),
                 MPCG_ERR_INVALID_ARG);
}

int main(void)
{
    mpcgi_rng g;
    if (spmv_check_start("test_spmv_segscan", &g) != 0) return test_finish("test_spmv_segscan");
    check_refusals();
    mpcgi_csr A;
    /* random rows with empty ones, n not a multiple of 32 */
    if (test_random_csr(&g, 1001, 9, 1, &A) == 0)
        check_matrix("random 1001", &A, &g), mpcgi_csr_free(&A);
    /* skew: a row of exactly 256 (ends at a boundary of L = 128 and 256), one from 256 to 8192
     * (many segments, ends at a boundary of every L), empty rows between, rows of 1 */
    int64_t n = 6007, *len = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *len, &len));
    for (int64_t i = 0; len && i < n; i++)
        len[i] = i % 7 == 3 ? 0 : 1 + (int64_t)mpcgi_rng_below(&g, 3);
    if (len) {
        len[0] = 256, len[1] = 0, len[2] = 8192 - 256, len[n - 1] = 0, len[n - 2] = 0;
        len[500] = 1024; /* another long one, at an arbitrary offset */
        if (spmv_check_skew_csr(&g, n, len, &A) == 0)
            check_matrix("skew", &A, &g), mpcgi_csr_free(&A);
        for (int64_t i = 0; i < n; i++)
            len[i] = 0; /* no nonzeros: y = 0 */
        if (spmv_check_skew_csr(&g, 77, len, &A) == 0)
            check_matrix("empty", &A, &g), mpcgi_csr_free(&A);
        len[0] = 3000; /* biased: one long row, the others 1 (the seed's stress case, small) */
        for (int64_t i = 1; i < 3000; i++)
            len[i] = 1;
        if (spmv_check_skew_csr(&g, 3000, len, &A) == 0)
            check_matrix("biased 3000", &A, &g), mpcgi_csr_free(&A);
    }
    mpcgi_host_free(len);
    return spmv_check_finish("test_spmv_segscan");
}
