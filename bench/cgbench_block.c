/* bench/cgbench_block.c: cgbench --rhs=S: S random right-hand sides solved one after another
 * (fused CG), as one block CG solve and as S independent CGs sharing the SpMM, for each backend
 * with a block product (docs/benchmarks.md) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "bench/cgbench_block.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/timer.h"

/* The ways of solving the S columns, in the table's order. */
enum { SEQUENTIAL, BLOCK, INDEPENDENT, NMETHODS };
static const char *const method_name[NMETHODS] = {"sequential", "block", "independent"};

/* One backend and method: its solver, the device blocks B and X (n x S column-major) and the
 * infos of the last solve (S, one per column). */
typedef struct rhs_case {
    const cgbench_block_args *a;
    int method;
    mpcg_solver *s;
    const double *B;
    double *X;
    mpcg_info *infos;
} rhs_case;

/* B uniform in [-1, 1) from the seed, column after column, made on the host and copied to the
 * device once; X beside it. */
static mpcg_status make_blocks(const cgbench_block_args *a, double **B, double **X)
{
    mpcg_context *ctx = a->ctx;
    mpcg_status st = MPCG_SUCCESS;
    const size_t count = (size_t)mpcg_matrix_n(a->A) * (size_t)a->nrhs;
    double *host = NULL;
    mpcgi_rng g;
    mpcgi_rng_seed(&g, a->seed);
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, count, sizeof(double), &host));
    for (size_t i = 0; i < count; i++)
        host[i] = 2.0 * mpcgi_rng_uniform(&g) - 1.0;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, count * sizeof(double), B));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, count * sizeof(double), X));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, *B, host, count * sizeof(double), MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
done:
    mpcgi_host_free(host);
    return st;
}

/* The case's solver with the run's settings (fp64, zero guess, block.method for the block
 * methods after the -O options), set up once; r->setup_ms its setup. */
static mpcg_status make_solver(rhs_case *c, const struct mpcgi_spmv_ops *ops, bench_record *r)
{
    const cgbench_block_args *a = c->a;
    mpcg_context *ctx = a->ctx;
    MPCG_CHECK(ctx, bench_solver_create(ctx, a->A, a->c, ops->name, MPCG_PRECISION_FP64, a->precond,
                                        a->tol, a->maxit, &c->s));
    if (c->method != SEQUENTIAL)
        MPCG_CHECK(ctx, mpcg_solver_set_option(c->s, "block.method", method_name[c->method]));
    MPCG_CHECK(ctx, mpcg_solver_set_initial_guess(c->s, MPCG_GUESS_ZERO));
    const double t0 = mpcgi_wtime();
    MPCG_CHECK(ctx, mpcg_solver_setup(c->s));
    r->setup_ms = (mpcgi_wtime() - t0) * 1e3;
    return MPCG_SUCCESS;
}

/* X zeroed (untimed), then all S columns solved by the case's method; *ms: wall time up to a
 * final device synchronisation. */
static mpcg_status solve_once(rhs_case *c, double *ms)
{
    const cgbench_block_args *a = c->a;
    mpcg_context *ctx = a->ctx;
    const size_t n = (size_t)mpcg_matrix_n(a->A);
    MPCG_CUDA(ctx, cudaMemsetAsync(c->X, 0, n * (size_t)a->nrhs * sizeof(double),
                                   (cudaStream_t)mpcg_context_stream(ctx)));
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    const double t0 = mpcgi_wtime();
    if (c->method == SEQUENTIAL)
        for (int j = 0; j < a->nrhs; j++)
            MPCG_CHECK(ctx, mpcg_solve_device(c->s, c->B + (size_t)j * n, c->X + (size_t)j * n,
                                              &c->infos[j]));
    else
        MPCG_CHECK(ctx, mpcg_solve_block_device(c->s, a->nrhs, c->B, c->X, c->infos));
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    *ms = (mpcgi_wtime() - t0) * 1e3;
    return MPCG_SUCCESS;
}

/* The columns of the last solve into r: steps (the most iterations of a column), the largest
 * true relres, the products with A, the first non-converged column's reason (else the first
 * column's). Returns how many columns did not converge. */
static int summarize(const rhs_case *c, bench_record *r)
{
    int bad = -1, notconv = 0;
    r->iterations = 0;
    r->true_relres = 0.0;
    r->spmvs = 0;
    for (int j = 0; j < c->a->nrhs; j++) {
        const mpcg_info *f = &c->infos[j];
        if (f->iterations > r->iterations) r->iterations = f->iterations;
        if (!(f->true_relres <= r->true_relres)) r->true_relres = f->true_relres; /* NaN sticks */
        r->spmvs += f->spmvs;
        if (!f->converged) notconv++, bad = bad < 0 ? j : bad;
    }
    if (c->method != SEQUENTIAL) r->spmvs = c->infos[0].spmvs; /* block products of the solve */
    r->ms_per_iter = r->iterations > 0 ? r->ms / (double)r->iterations : NAN;
    snprintf(r->reason, sizeof r->reason, "%s",
             mpcg_reason_name(c->infos[bad < 0 ? 0 : bad].reason));
    snprintf(r->precond, sizeof r->precond, "%s", c->infos[0].precond);
    return notconv;
}

/* Set up, warm up and time one case into r; *notconv: its columns that did not converge. */
static mpcg_status run_case(rhs_case *c, const struct mpcgi_spmv_ops *ops, bench_record *r,
                            int *notconv)
{
    mpcg_context *ctx = c->a->ctx;
    mpcg_status st = MPCG_SUCCESS;
    const int runs = (int)c->a->c->runs;
    double t[CGBENCH_BLOCK_MAX_RUNS], warm;
    MPCG_TRY(ctx, st, make_solver(c, ops, r));
    MPCG_TRY(ctx, st, solve_once(c, &warm));
    for (int k = 0; k < runs; k++)
        MPCG_TRY(ctx, st, solve_once(c, &t[k]));
    r->ms = bench_median(t, runs); /* sorts t */
    r->ms_min = t[0];
    r->ms_max = t[runs - 1];
    *notconv = summarize(c, r);
done:
    mpcg_solver_destroy(c->s);
    c->s = NULL;
    return st;
}

/* A record of one backend and method with the run's settings. */
static void new_record(const cgbench_block_args *a, const char *backend, int m, bench_record *r)
{
    bench_record_init(r, "cg-block", a->matrix, bench_csr(a->A));
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->precision = "fp64";
    r->method = method_name[m];
    r->nrhs = a->nrhs;
    r->seed = a->seed, r->seed_set = 1;
    r->tol = a->tol;
    r->maxit = a->maxit_resolved;
    r->runs = a->c->runs;
    r->options = a->c->opt_all;
}

static void print_header(const cgbench_block_args *a)
{
    printf("rhs: B of %d columns (n x %d, column-major), uniform in [-1, 1) from seed %llu, made "
           "on the host and copied to the device once; X = 0 before every solve (untimed), zero "
           "initial guess; fp64, precond %s, tol %g, maxit %lld%s%s\n",
           a->nrhs, a->nrhs, (unsigned long long)a->seed, mpcg_precond_name(a->precond), a->tol,
           (long long)a->maxit_resolved, a->c->opt_all[0] ? ", -O " : "", a->c->opt_all);
    printf("sequential: %d mpcg_solve_device calls, one per column; block: one "
           "mpcg_solve_block_device (block.method=block); independent: the same with "
           "block.method=independent; each method: its own solver, set up once, one warm-up, "
           "then %ld timed runs (wall time up to a final device sync), median reported; steps = "
           "most iterations of a column; ms/step = ms / steps; vs sequential = sequential ms / "
           "ms\n",
           a->nrhs, a->c->runs);
    printf("| backend | method | steps | solve ms | ms/step | vs sequential | max true relres | "
           "reasons |\n|---|---|--:|--:|--:|--:|--:|---|\n");
    fflush(stdout);
}

static void print_row(const bench_record *r, int notconv)
{
    const char *reason = strncmp(r->reason, "MPCG_", 5) == 0 ? r->reason + 5 : r->reason;
    printf("| %s | %s |", r->backend, r->method);
    bench_print_cells(5, "%.0f", r->iterations >= 0 ? (double)r->iterations : NAN, "%.4g", r->ms,
                      "%.4g", r->ms_per_iter, "%.3f", r->speedup_vs_sequential, "%.2e",
                      r->true_relres);
    if (strcmp(r->status, "ok") != 0)
        printf(" FAILED |\n");
    else if (notconv == 0)
        printf(" all converged |\n");
    else
        printf(" %s (%d of %d columns not converged) |\n", reason, notconv, r->nrhs);
    fflush(stdout);
}

/* The three methods of one backend, each printed and recorded; a method the library does not
 * support here (MPCG_ERR_NOT_SUPPORTED) is skipped with a note. */
static mpcg_status measure_backend(const cgbench_block_args *a, const struct mpcgi_spmv_ops *ops,
                                   double *B, double *X, mpcg_info *infos, int *failed)
{
    mpcg_context *ctx = a->ctx;
    double seq_ms = NAN;
    for (int m = 0; m < NMETHODS; m++) {
        rhs_case c = {.a = a, .method = m, .B = B, .X = X, .infos = infos};
        bench_record r;
        int notconv = 0;
        new_record(a, ops->name, m, &r);
        mpcg_status st = run_case(&c, ops, &r, &notconv);
        if (st == MPCG_ERR_NOT_SUPPORTED) {
            fprintf(stderr, "cgbench: %s %s: not measured: %s\n", ops->name, method_name[m],
                    mpcg_last_error(ctx));
            mpcg_clear_error(ctx);
            continue;
        }
        if (st != MPCG_SUCCESS) {
            fprintf(stderr, "cgbench: %s %s with %d right-hand sides failed: %s\n", ops->name,
                    method_name[m], a->nrhs, mpcg_last_error(ctx));
            mpcg_clear_error(ctx);
            r.status = "failed";
            *failed = 1;
        }
        if (m == SEQUENTIAL) seq_ms = r.ms;
        r.speedup_vs_sequential = seq_ms / r.ms;
        print_row(&r, notconv);
        MPCG_CHECK(ctx, bench_records_add(ctx, a->records, &r));
    }
    return MPCG_SUCCESS;
}

/* "%.3f" of v into buf, or "-". */
static const char *ratio_text(char *buf, size_t size, double v)
{
    if (isfinite(v))
        snprintf(buf, size, "%.3f", v);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* Per backend: the time of the block and independent solves / the sequential time. */
static void print_ratios(const cgbench_block_args *a)
{
    const bench_records *l = a->records;
    printf("copy bandwidth %.1f GB/s; time to solve all %d columns / time of %d sequential fused "
           "CG solves (target: block <= 0.4 at S = 8 on poisson3d:128):\n",
           a->dev->copy_gbs, a->nrhs, a->nrhs);
    for (int k = 0; k < l->count; k++) {
        if (!l->v[k].method || strcmp(l->v[k].method, "block") != 0) continue;
        double ind = NAN;
        char b1[32], b2[32];
        for (int j = 0; j < l->count; j++)
            if (l->v[j].method && strcmp(l->v[j].method, "independent") == 0 &&
                strcmp(l->v[j].backend, l->v[k].backend) == 0)
                ind = 1.0 / l->v[j].speedup_vs_sequential;
        printf("ratio %s: block/sequential %s, independent/sequential %s\n", l->v[k].backend,
               ratio_text(b1, sizeof b1, 1.0 / l->v[k].speedup_vs_sequential),
               ratio_text(b2, sizeof b2, ind));
    }
    fflush(stdout);
}

mpcg_status cgbench_block_run(const cgbench_block_args *a, int *failed)
{
    mpcg_context *ctx = a->ctx;
    mpcg_status st = MPCG_SUCCESS;
    double *B = NULL, *X = NULL;
    mpcg_info *infos = NULL;
    int measured = 0;
    MPCG_ENSURE(ctx,
                a->nrhs >= 1 && a->nrhs <= CGBENCH_BLOCK_MAX_RHS && a->c->runs >= 1 &&
                    a->c->runs <= CGBENCH_BLOCK_MAX_RUNS,
                MPCG_ERR_INVALID_ARG, "--rhs=%d with --runs=%ld", a->nrhs, a->c->runs);
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)a->nrhs, sizeof *infos, &infos));
    MPCG_TRY(ctx, st, make_blocks(a, &B, &X));
    print_header(a);
    for (int b = 0; b < a->count; b++) {
        const struct mpcgi_spmv_ops *ops = a->ops[b];
        if (!(ops->caps & MPCG_CAP_FP64) || !ops->apply_block) {
            fprintf(stderr,
                    "cgbench: backend %s has no fp64 block product (SpMM): not "
                    "measured\n",
                    ops->name);
            continue;
        }
        measured++;
        MPCG_TRY(ctx, st, measure_backend(a, ops, B, X, infos, failed));
    }
    if (!measured) {
        fprintf(stderr, "cgbench: no selected backend has an fp64 block product (cgsolve "
                        "--list-backends): nothing measured\n");
        *failed = 1;
    }
    print_ratios(a);
done:
    mpcgi_device_free(ctx, B);
    mpcgi_device_free(ctx, X);
    mpcgi_host_free(infos);
    return st;
}
