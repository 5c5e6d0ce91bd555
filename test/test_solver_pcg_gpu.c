/* test/test_solver_pcg_gpu.c: every precision with every preconditioner on every GPU variant,
 * against the host loop on the CPU (the same algorithm: the preconditioner applied in the
 * iteration's precision) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/matrix.h"
#include "solver/cg_variants.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;
static const double tol = 1e-8;

static const char *const precisions[] = {"fp64", "fp32", "mixed"};
static const char *const preconds[] = {"jacobi", "bjacobi:3", "bjacobi:0", "chebyshev:3"};
static const char *const variants[] = {"host", "launched", "graph", "persistent-two-barrier"};

/* A solver of A on ctx: precision, preconditioner (and block_apply), variant ("" = auto). */
static mpcg_solver *solver(mpcg_context *ctx, mpcg_matrix *A, const char *prec, const char *pc,
                           const char *apply, const char *variant)
{
    mpcg_solver *S = NULL;
    mpcg_precision p = prec[0] == 'm'   ? MPCG_PRECISION_MIXED
                       : prec[2] == '3' ? MPCG_PRECISION_FP32
                                        : MPCG_PRECISION_FP64;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    if (!S) return NULL;
    CHECK_OK(ctx, mpcg_solver_set_precision(S, p));
    CHECK_OK(ctx, mpcg_solver_set_precond_spec(S, pc));
    CHECK_OK(ctx, mpcg_solver_set_option(S, "precond.block_apply", apply));
    /* fp32: well above its floor (bcsstk05 with bjacobi stagnates near 1e-5) */
    CHECK_OK(ctx, mpcg_solver_set_tol(S, p == MPCG_PRECISION_FP32 ? 1e-4 : tol));
    if (ctx == gpu) CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cusparse"));
    if (variant[0]) CHECK_OK(ctx, mpcg_solver_set_option(S, "cg.variant", variant));
    return S;
}

/* The spread allowed between the GPU's iteration count and the CPU's: the sums' order differs
 * (deterministic on each), so the iterates drift by rounding; fp32 drifts further. */
static int close_counts(const char *prec, int64_t g, int64_t c)
{
    const double rel = prec[0] == 'f' && prec[2] == '6' ? 0.05 : 0.25;
    return llabs((long long)(g - c)) <= 3 + (long long)(rel * (double)c);
}

static void combination(const char *name, mpcg_matrix *Ac, mpcg_matrix *Ag, const double *b,
                        const char *prec, const char *pc, const char *apply)
{
    const int64_t n = mpcg_matrix_n(Ac);
    double *xc, *x[4];
    mpcg_info ic, ig[4];
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *xc, &xc));
    mpcg_solver *S = solver(cpu, Ac, prec, pc, apply, "");
    memset(xc, 0xff, (size_t)n * sizeof *xc);
    CHECK_OK(cpu, mpcg_solve(S, b, xc, &ic));
    mpcg_solver_destroy(S);
    for (int v = 0; v < 4; v++) {
        CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x[v], &x[v]));
        memset(x[v], 0xff, (size_t)n * sizeof *x[v]); /* NaN: the guess is zero */
        memset(&ig[v], 0, sizeof ig[v]);
        S = solver(gpu, Ag, prec, pc, apply, variants[v]);
        mpcg_status st = mpcg_solve(S, b, x[v], &ig[v]);
        /* the two-barrier loop folds in a diagonal or block inverses only, and needs its rows */
        if (st == MPCG_ERR_NOT_SUPPORTED && v == 3) {
            printf("  %-10s %-5s %-11s %-8s %-22s refused: %s\n", name, prec, pc, apply,
                   variants[v], mpcg_last_error(gpu));
            CHECK(strcmp(pc, "chebyshev:3") == 0 || strcmp(apply, "cholesky") == 0);
            mpcg_clear_error(gpu);
            ig[v].iterations = -1;
        } else {
            CHECK_OK(gpu, st);
            CHECK(strcmp(ig[v].variant, variants[v]) == 0);
            CHECK(ig[v].reason == ic.reason);
            CHECK(close_counts(prec, ig[v].iterations, ic.iterations));
            if (ig[v].converged)
                CHECK(test_residual_ok(&Ag->csr, b, x[v], ig[v].true_relres * 1.01 + 1e-15));
            printf("  %-10s %-5s %-11s %-8s %-22s %5lld iterations (cpu %5lld), %.2e, %s\n", name,
                   prec, pc, apply, variants[v], (long long)ig[v].iterations,
                   (long long)ic.iterations, ig[v].true_relres, mpcg_reason_string(ig[v].reason));
        }
        mpcg_solver_destroy(S);
    }
    /* launched and graph queue the same kernels: the same bits */
    CHECK(ig[1].iterations == ig[2].iterations);
    CHECK(memcmp(x[1], x[2], (size_t)n * sizeof(double)) == 0);
    for (int v = 0; v < 4; v++)
        mpcgi_host_free(x[v]);
    mpcgi_host_free(xc);
}

/* The precision the command line asked for (NULL: every one). */
static const char *only_precision;

static int wanted(const char *prec)
{
    return !only_precision || strcmp(prec, only_precision) == 0;
}

static void matrix(const char *name, mpcg_matrix *Ac, mpcg_matrix *Ag)
{
    const int64_t n = mpcg_matrix_n(Ac);
    mpcgi_rng g;
    double *b;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)n);
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    for (int64_t i = 0; i < n; i++)
        b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 4; c++) {
            if (!wanted(precisions[p])) continue;
            combination(name, Ac, Ag, b, precisions[p], preconds[c], "inverse");
            if (strncmp(preconds[c], "bjacobi", 7) == 0)
                combination(name, Ac, Ag, b, precisions[p], preconds[c], "cholesky");
        }
    mpcgi_host_free(b);
}

static void file(const char *name)
{
    mpcg_matrix *Ac = NULL, *Ag = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, test_data(name), &Ac));
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data(name), &Ag));
    if (Ac && Ag) matrix(name, Ac, Ag);
    mpcg_matrix_destroy(Ac), mpcg_matrix_destroy(Ag);
}

/* New values (the diagonal raised by random amounts, same pattern) on a set-up GPU solver of
 * every kind, precision and fused variant: the refreshed solve equals a fresh solver's on the new
 * values bit for bit (the preconditioner's arrays, fp32 copies, tiles, graph and loop rows all
 * follow the values) and differs from the first. */
static void refresh(const char *name)
{
    static const char *const fused[] = {"launched", "graph", "persistent-two-barrier"};
    mpcg_matrix *A = NULL, *F = NULL;
    mpcgi_rng g;
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data(name), &A));
    CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data(name), &F));
    if (!A || !F) return;
    const mpcgi_csr *C = &A->csr;
    const int64_t n = C->n;
    double *val, *orig, *b, *x[3];
    mpcgi_rng_seed(&g, test_seed ^ 0x5eedull);
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)C->nnz, sizeof *val, &val));
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)C->nnz, sizeof *orig, &orig));
    memcpy(orig, C->val, (size_t)C->nnz * sizeof *orig);
    CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *b, &b));
    for (int j = 0; j < 3; j++)
        CHECK_OK(gpu, mpcgi_host_alloc_array(gpu, (size_t)n, sizeof *x[j], &x[j]));
    for (int64_t i = 0; i < n; i++) {
        b[i] = 2 * mpcgi_rng_uniform(&g) - 1;
        for (int64_t k = C->row_ptr[i]; k < C->row_ptr[i + 1]; k++)
            val[k] = C->val[k] * (C->col_idx[k] == i ? 1.0 + mpcgi_rng_uniform(&g) : 1.0);
    }
    CHECK_OK(gpu, mpcg_matrix_update_values(F, val));
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 4; c++)
            for (int v = 0; v < 3; v++) {
                if (!wanted(precisions[p])) continue;
                if (v == 2 && strcmp(preconds[c], "chebyshev:3") == 0) continue; /* refused */
                CHECK_OK(gpu, mpcg_matrix_update_values(A, orig)); /* the first values again */
                mpcg_solver *S = solver(gpu, A, precisions[p], preconds[c], "inverse", fused[v]);
                mpcg_solver *T = solver(gpu, F, precisions[p], preconds[c], "inverse", fused[v]);
                mpcg_info i1, i2, i3;
                for (int j = 0; j < 3; j++)
                    memset(x[j], 0xff, (size_t)n * sizeof(double));
                CHECK_OK(gpu, mpcg_solve(S, b, x[0], &i1));
                CHECK_OK(gpu, mpcg_matrix_update_values(A, val));
                CHECK_OK(gpu, mpcg_solve(S, b, x[1], &i2));
                CHECK_OK(gpu, mpcg_solve(T, b, x[2], &i3));
                printf("  refresh %-10s %-5s %-11s %-22s %4lld -> %4lld (fresh %4lld)\n", name,
                       precisions[p], preconds[c], fused[v], (long long)i1.iterations,
                       (long long)i2.iterations, (long long)i3.iterations);
                CHECK(i2.reason == i3.reason && i2.iterations == i3.iterations);
                CHECK(memcmp(x[1], x[2], (size_t)n * sizeof(double)) == 0);
                CHECK(memcmp(x[0], x[1], (size_t)n * sizeof(double)) != 0);
                mpcg_solver_destroy(S), mpcg_solver_destroy(T);
            }
    mpcgi_host_free(val), mpcgi_host_free(orig), mpcgi_host_free(b);
    for (int j = 0; j < 3; j++)
        mpcgi_host_free(x[j]);
    mpcg_matrix_destroy(A), mpcg_matrix_destroy(F);
}

/* arguments "quick [PRECISION]": bcsstk05 alone, and one precision where given (fp64, fp32,
 * mixed), so the compute-sanitizer runs of docs/reliability.md can run side by side */
int main(int argc, char **argv)
{
    test_init_seed("test_solver_pcg_gpu");
    if (argc > 2) only_precision = argv[2];
    if (mpcgi_device_count() == 0) {
        printf("test_solver_pcg_gpu: no usable GPU, skipped\n");
        return TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!cpu || !gpu) return test_finish("test_solver_pcg_gpu");
    file("bcsstk05.mtx");
    refresh("bcsstk05.mtx");
    if (argc < 2 || strcmp(argv[1], "quick") != 0) file("fv1.mtx");
    mpcg_context_destroy(cpu);
    mpcg_context_destroy(gpu);
    return test_finish("test_solver_pcg_gpu");
}
