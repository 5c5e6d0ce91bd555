/* bench/cgbench.c: CG time per iteration of each GPU backend beside a plain cuSPARSE loop */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cg_baseline.h"
#include "bench/cgbench_block.h"
#include "bench/common.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/error.h"
#include "core/timer.h"
#include "solver/options.h"
#include "solver/solver.h"

/* Most timed solves per backend. */
#define MAX_SOLVES 100
/* Bytes per row of the vector traffic of one CG iteration (docs/roofline.md):
 * three fused kernels, and the unfused loop. */
#define FUSED_VECTOR_BYTES 88.0
#define UNFUSED_VECTOR_BYTES 112.0
/* Precisions a run measures at most (fp64, fp32, mixed and its strategies). */
#define MAX_PRECS 5
/* Rows of the report: every backend at every precision, and the baseline. */
#define MAX_ROWS ((BENCH_MAX_BACKENDS + 1) * MAX_PRECS + 1) /* + auto, + the baseline */
/* Seed of the --rhs right-hand sides. */
#define RHS_SEED 1

static const char usage_text[] =
    "usage: cgbench [options] MATRIX.mtx\n"
    "       cgbench [options] --generate=SPEC\n"
    "Solve A x = ones with mpcg's CG on the GPU (b and x in device memory) for each GPU SpMV\n"
    "backend, beside a plain cuSPARSE + cuBLAS CG loop run for the same number of iterations,\n"
    "and compare the time per iteration with the fused roofline (matrix bytes + 88 n) / copy\n"
    "bandwidth measured in the same run. Protocol and output: docs/benchmarks.md.\n"
    "\n"
    "  --generate=SPEC     a generated matrix (poisson3d:N, poisson3d27:N, replicate:FILE:K,\n"
    "                      powerlaw:N:DEG, biased:N, ...: see cgsolve --help)\n"
    "  --spmv=LIST         comma-separated backends and auto (default: every GPU backend and\n"
    "                      auto, whose setup times its candidates; its row says which it kept)\n"
    "  --precision=LIST    comma-separated precisions of the solves: fp64, fp32, mixed\n"
    "                      (the library's default strategy), mixed:reliable,\n"
    "                      mixed:refinement (default fp64); a precision the library refuses\n"
    "                      is a failed row\n"
    "  --precond=P         preconditioner of every solve: none (default), jacobi, bjacobi,\n"
    "                      chebyshev or auto (their parameters: -O precond.*)\n"
    "  -O KEY=VALUE        an option of every solver (mpcg_solver_set_option; cgsolve\n"
    "                      --help-options lists the keys), repeatable, applied in order\n"
    "  --tol=T             relative tolerance (default 1e-8)\n"
    "  --maxit=N           iteration cap (default: the library's, max(100, 10 n))\n"
    "  --runs=N            timed solves after one warm-up solve, median reported (default 3,\n"
    "                      at most 100)\n"
    "  --rhs=S             S random right-hand sides (1 <= S <= 64, uniform in [-1, 1), seed 1)\n"
    "                      solved one after another (fused CG), as one block CG solve and as S\n"
    "                      independent CGs sharing the SpMM; fp64; replaces the b = ones rows\n"
    "                      and the loop, for the backends with a block product\n"
    "  --json FILE         write the records as a JSON list, appending to a list already there\n"
    "  --device=cuda:N     the GPU (default cuda, GPU 0)\n"
    "  -h, --help          this text\n"
    "\n"
    "A solve that stops without converging (iteration cap, indefinite matrix, ...) is reported\n"
    "with its reason and is not an error.\n"
    "exit status: 0 all measured, 1 a measurement failed, 2 bad usage, 77 no usable CUDA GPU.\n";

typedef struct cg_opts {
    bench_opts c;
    double tol;
    long maxit; /* -1: the library's default */
    mpcg_precision precs[MAX_PRECS];
    const char *strategy[MAX_PRECS]; /* mixed: mixed.strategy of the row, or NULL */
    int nprec;
    mpcg_precond precond;
    long rhs; /* --rhs=S; 0: the single right-hand side table */
} cg_opts;

/* One run of cgbench. */
typedef struct cg_run {
    mpcg_context *ctx;
    mpcg_matrix *A;
    char matrix[256];
    const struct mpcgi_spmv_ops *ops[BENCH_MAX_BACKENDS];
    int count;
    double *b, *x; /* device */
    bench_device dev;
    bench_record rows[MAX_ROWS];
    int nrows;
    int failed;
} cg_run;

/* ---------------------------------------------------------------- measurements */

/* The roofline fields of r from its matrix bytes and measured time per iteration: fp64 rows
 * against the fused model (matrix + 88 n), fp32 and mixed ones against their own modelled bytes
 * per iteration (fp32 values + their vector bytes). */
static void roofline(bench_record *r, const bench_device *dev)
{
    double n = (double)r->n, bw = dev->copy_gbs * 1e9;
    r->roofline_ms = strcmp(r->precision, "fp64") == 0
                         ? (r->bytes_matrix + FUSED_VECTOR_BYTES * n) / bw * 1e3
                         : r->bytes / bw * 1e3;
    r->roofline_unfused_ms = (r->bytes_matrix + UNFUSED_VECTOR_BYTES * n) / bw * 1e3;
    r->roofline_ratio = r->ms_per_iter / r->roofline_ms;
    r->gbs = r->bytes / (r->ms_per_iter * 1e-3) * 1e-9;
    r->frac_copy = r->gbs / dev->copy_gbs;
}

/* The auto row's fields: the backend auto kept and what its trial cost (the setup's choice). */
static mpcg_status auto_fields(const mpcg_solver *s, bench_record *r)
{
    mpcg_backend_choice c;
    MPCG_CHECK(s->ctx, mpcg_solver_backend_choice(s, &c));
    snprintf(r->auto_chosen, sizeof r->auto_chosen, "%s", c.chosen);
    r->auto_trial_ms = 1e3 * c.trial_s;
    r->auto_trial_spmvs = c.trial_cost_spmv_equivalents;
    r->auto_timed = 0;
    for (int i = 0; i < c.ncandidates; i++) r->auto_timed += !c.candidates[i].skipped;
    return MPCG_SUCCESS;
}

/* Setup, one warm-up solve, o->c.runs timed solves (wall time, median) of one backend (or of
 * auto: its trial is part of the setup). */
static mpcg_status cg_case(cg_run *run, const cg_opts *o, const char *spmv, int p, bench_record *r)
{
    mpcg_precision prec = o->precs[p];
    mpcg_context *ctx = run->ctx;
    mpcg_status st = MPCG_SUCCESS;
    mpcg_solver *s = NULL;
    mpcg_info info;
    double t[MAX_SOLVES];
    int runs = (int)o->c.runs;
    MPCG_TRY(
        ctx, st,
        bench_solver_create(ctx, run->A, &o->c, spmv, prec, o->precond, o->tol, o->maxit, &s));
    if (o->strategy[p])
        MPCG_TRY(ctx, st, mpcg_solver_set_option(s, "mixed.strategy", o->strategy[p]));
    double t0 = mpcgi_wtime();
    MPCG_TRY(ctx, st, mpcg_solver_setup(s));
    r->setup_ms = (mpcgi_wtime() - t0) * 1e3;
    if (mpcgi_spmv_is_auto(spmv)) MPCG_TRY(ctx, st, auto_fields(s, r));
    t0 = mpcgi_wtime();
    MPCG_TRY(ctx, st, mpcg_solve_device(s, run->b, run->x, &info)); /* warm-up */
    r->first_ms = (mpcgi_wtime() - t0) * 1e3;
    for (int k = 0; k < runs; k++) {
        t0 = mpcgi_wtime();
        MPCG_TRY(ctx, st, mpcg_solve_device(s, run->b, run->x, &info));
        t[k] = (mpcgi_wtime() - t0) * 1e3;
    }
    r->ms = bench_median(t, runs); /* sorts t */
    r->ms_min = t[0];
    r->ms_max = t[runs - 1];
    r->iterations = info.iterations;
    r->ms_per_iter = info.iterations > 0 ? r->ms / (double)info.iterations : NAN;
    r->true_relres = info.true_relres;
    snprintf(r->reason, sizeof r->reason, "%s", mpcg_reason_name(info.reason));
    r->bytes_matrix = (double)s->plan->sizes.bytes_matrix;
    r->bytes = info.bytes_per_iteration; /* the library's model of its loop */
    r->spmvs = info.spmvs;
    r->spmvs_fp64 = info.spmvs_fp64;
    snprintf(r->precond, sizeof r->precond, "%s", info.precond);
    snprintf(r->variant, sizeof r->variant, "%s", info.variant);
    if (prec == MPCG_PRECISION_MIXED) {
        r->precision_fallback = info.precision_fallback;
        r->precision =
            strcmp(info.mixed_strategy, "refinement") == 0 ? "mixed-refinement" : "mixed-reliable";
    }
    roofline(r, &run->dev);
done:
    mpcg_solver_destroy(s);
    return st;
}

/* The resolved iteration cap: --maxit, else the library's default max(100, 10 n). */
static int64_t resolved_maxit(const cg_opts *o, int64_t n)
{
    return o->maxit >= 0 ? o->maxit : (n > 10 ? 10 * n : 100);
}

/* A record of the run's matrix with the options of a CG row. */
static bench_record *new_row(cg_run *run, const cg_opts *o, const char *backend,
                             mpcg_precision prec)
{
    bench_record *r = &run->rows[run->nrows++];
    const mpcgi_csr *A = bench_csr(run->A);
    bench_record_init(r, "cg", run->matrix, A);
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->precision = mpcg_precision_name(prec);
    r->tol = o->tol;
    r->maxit = resolved_maxit(o, A->n);
    r->runs = o->c.runs;
    r->options = o->c.opt_all;
    return r;
}

/* The baseline row, for the iteration count of the cusparse row (else the first measured). */
static void baseline_row(cg_run *run, const cg_opts *o)
{
    const bench_record *ref = NULL;
    for (int k = 0; k < run->nrows; k++)
        if (strcmp(run->rows[k].status, "ok") == 0 && strcmp(run->rows[k].precision, "fp64") == 0 &&
            (!ref || strcmp(run->rows[k].backend, "cusparse") == 0))
            ref = &run->rows[k];
    if (!ref || ref->iterations <= 0) {
        fprintf(stderr, "cgbench: cusparse-loop not run: no mpcg solve took an iteration\n");
        return;
    }
    bench_cg_result res;
    bench_record *r = new_row(run, o, "cusparse-loop", MPCG_PRECISION_FP64);
    r->maxit = ref->iterations;
    if (bench_cg_baseline(run->ctx, bench_csr(run->A), run->b, o->tol, ref->iterations,
                          (int)o->c.runs, &res) != MPCG_SUCCESS) {
        fprintf(stderr, "cgbench: cusparse-loop failed: %s\n", mpcg_last_error(run->ctx));
        mpcg_clear_error(run->ctx);
        r->status = "failed";
        run->failed = 1;
        return;
    }
    r->ms = res.ms;
    r->ms_min = res.ms_min;
    r->ms_max = res.ms_max;
    r->iterations = res.iterations;
    r->ms_per_iter = res.ms_per_iter;
    r->true_relres = res.true_relres;
    snprintf(r->reason, sizeof r->reason, "%s",
             res.converged ? "recurrence_converged" : "iteration_limit");
    r->bytes_matrix = res.bytes_matrix;
    r->bytes = res.bytes_per_iter;
    roofline(r, &run->dev);
}

/* ---------------------------------------------------------------- output */

static void print_table(const cg_run *run)
{
    printf("| matrix | n | nnz | backend | precision | iterations | SpMVs (fp64) | result | ms | "
           "vs fp64 | ms/iter | true relres | GB/s | of copy | vs loop | roofline ms/iter | ratio "
           "| unfused ms/iter |\n|---|--:|--:|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|"
           "--:|--:|\n");
    for (int k = 0; k < run->nrows; k++) {
        const bench_record *r = &run->rows[k];
        const char *reason = strncmp(r->reason, "MPCG_", 5) == 0 ? r->reason + 5 : r->reason;
        if (strcmp(r->status, "ok") != 0) reason = "FAILED";
        printf("| %s | %lld | %lld | %s%s%s%s | %s%s%s |", r->matrix, (long long)r->n,
               (long long)r->nnz, r->backend, r->auto_chosen[0] ? " (" : "", r->auto_chosen,
               r->auto_chosen[0] ? ")" : "", r->precision, r->precond[0] ? " + " : "", r->precond);
        bench_print_cells(1, "%.0f", r->iterations >= 0 ? (double)r->iterations : NAN);
        if (r->spmvs >= 0)
            printf(" %lld (%lld) |", (long long)r->spmvs, (long long)r->spmvs_fp64);
        else
            printf(" - |");
        printf(" %s%s |", reason, r->precision_fallback == 1 ? ", fp64 finish" : "");
        bench_print_cells(10, "%.4g", r->ms, "%.2f", r->speedup_vs_fp64, "%.4g", r->ms_per_iter,
                          "%.2e", r->true_relres, "%.1f", r->gbs, "%.3f", r->frac_copy, "%.2f",
                          r->speedup_vs_cusparse, "%.4g", r->roofline_ms, "%.2f", r->roofline_ratio,
                          "%.4g", r->roofline_unfused_ms);
        printf("\n");
    }
    for (int k = 0; k < run->nrows; k++) /* after the table: what auto's trials cost */
        if (run->rows[k].auto_chosen[0])
            printf("auto: %s kept %s after timing %d backends, %.4g ms beyond its setup (%.0f "
                   "SpMVs of %s)\n",
                   run->rows[k].precision, run->rows[k].auto_chosen, run->rows[k].auto_timed,
                   run->rows[k].auto_trial_ms, run->rows[k].auto_trial_spmvs,
                   run->rows[k].auto_chosen);
}

static void print_protocol(const cg_run *run, const cg_opts *o)
{
    printf("solve: b = ones, x0 = 0, both in device memory (mpcg_solve_device), tol %g, maxit "
           "%lld; one warm-up solve, then %ld timed solves (wall time), median reported\n",
           o->tol, (long long)resolved_maxit(o, mpcg_matrix_n(run->A)), o->c.runs);
    printf("cusparse-loop: cusparseSpMV (CSR, ALG_DEFAULT) + cublasDdot/Daxpy/Dscal/Dcopy, host "
           "pointer mode, stops on the recurrence residual or at the iteration count of the "
           "cusparse row; one warm-up run, then %ld timed with CUDA events, median reported\n",
           o->c.runs);
    printf("roofline: fp64 rows: fused (matrix bytes + 88 n) / copy bandwidth per iteration; "
           "fp32 and mixed rows: their modelled bytes per iteration (fp32 values + vectors) / "
           "copy bandwidth; ratio = ms/iter / roofline (mixed: its fp64 residuals count in "
           "ms/iter); vs fp64 = time to solution of the backend's fp64 row / the row's; "
           "unfused model (matrix bytes + 112 n) for reference; GB/s = the "
           "row's modelled bytes per iteration (mpcg: mpcg_info.bytes_per_iteration; "
           "cusparse-loop: matrix + 128 n) / ms per iteration; vs loop = cusparse-loop ms/iter "
           "/ ms/iter\n");
    fflush(stdout);
}

/* ---------------------------------------------------------------- the run */

/* b = ones and x on the device. */
static mpcg_status make_vectors(cg_run *run)
{
    mpcg_context *ctx = run->ctx;
    mpcg_status st = MPCG_SUCCESS;
    int64_t n = mpcg_matrix_n(run->A);
    size_t bytes = (size_t)n * sizeof(double);
    double *ones = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)n, sizeof(double), &ones));
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes, &run->b));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes, &run->x));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, run->b, ones, bytes, MPCGI_H2D));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
done:
    mpcgi_host_free(ones);
    return st;
}

/* Every backend (and auto, which is not in run->ops), then the baseline; speedups against the
 * baseline. */
static void measure_all(cg_run *run, const cg_opts *o)
{
    const int with_auto = bench_with_auto(o->c.spmv);
    for (int k = 0; k < run->count + with_auto; k++)
        for (int p = 0; p < o->nprec; p++) {
            const char *name = k < run->count ? run->ops[k]->name : "auto";
            const char *pn = mpcg_precision_name(o->precs[p]);
            bench_record *r = new_row(run, o, name, o->precs[p]);
            printf("solving with %s in %s%s%s ...\n", name, pn, o->strategy[p] ? ":" : "",
                   o->strategy[p] ? o->strategy[p] : "");
            fflush(stdout);
            if (cg_case(run, o, name, p, r) != MPCG_SUCCESS) {
                fprintf(stderr, "cgbench: %s in %s failed: %s\n", name, pn,
                        mpcg_last_error(run->ctx));
                mpcg_clear_error(run->ctx);
                r->status = "failed";
                run->failed = 1;
            }
        }
    printf("solving with cusparse-loop ...\n");
    fflush(stdout);
    baseline_row(run, o);
    double loop = NAN;
    for (int k = 0; k < run->nrows; k++)
        if (strcmp(run->rows[k].backend, "cusparse-loop") == 0) loop = run->rows[k].ms_per_iter;
    for (int k = 0; k < run->nrows; k++) {
        bench_record *r = &run->rows[k];
        r->speedup_vs_cusparse = loop / r->ms_per_iter;
        for (int j = 0; j < run->nrows; j++) /* the same backend's fp64 row */
            if (strcmp(run->rows[j].backend, r->backend) == 0 &&
                strcmp(run->rows[j].precision, "fp64") == 0 &&
                strcmp(run->rows[j].status, "ok") == 0)
                r->speedup_vs_fp64 = run->rows[j].ms / r->ms;
    }
}

/* --rhs=S: the block CG rows instead of the single right-hand side table
 * (bench/cgbench_block.c). The exit status. */
static int run_rhs(const cg_opts *o, cg_run *run)
{
    bench_records list = {0};
    int failed = 0;
    const cgbench_block_args a = {.ctx = run->ctx,
                                  .A = run->A,
                                  .matrix = run->matrix,
                                  .ops = run->ops,
                                  .count = run->count,
                                  .nrhs = (int)o->rhs,
                                  .seed = RHS_SEED,
                                  .c = &o->c,
                                  .tol = o->tol,
                                  .maxit = o->maxit,
                                  .maxit_resolved = resolved_maxit(o, mpcg_matrix_n(run->A)),
                                  .precond = o->precond,
                                  .dev = &run->dev,
                                  .records = &list};
    if (cgbench_block_run(&a, &failed) != MPCG_SUCCESS) {
        fprintf(stderr, "cgbench: %s\n", mpcg_last_error(run->ctx));
        mpcg_clear_error(run->ctx);
        failed = 1;
    }
    if (o->c.json && list.count > 0 && bench_json_write(o->c.prog, o->c.json, &list, &run->dev))
        failed = 1;
    bench_records_free(&list);
    return failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}

/* Open, measure the copy bandwidth, load, measure, print, write the JSON. */
static int run_all(const cg_opts *o, cg_run *run)
{
    int rc = BENCH_EXIT_FAILED;
    if (bench_open(&o->c, &run->ctx, &run->dev) != MPCG_SUCCESS) return BENCH_EXIT_FAILED;
    if (bench_copy_bandwidth(run->ctx, &run->dev) != MPCG_SUCCESS) goto fail;
    bench_print_device(o->c.prog, run->ctx, &run->dev);
    if (bench_load_matrix(run->ctx, &o->c, &run->A, run->matrix, sizeof run->matrix) !=
        MPCG_SUCCESS)
        goto fail;
    if (bench_backends(run->ctx, o->c.spmv, run->ops, &run->count) != MPCG_SUCCESS) goto fail;
    if (o->rhs) {
        rc = run_rhs(o, run);
        goto out;
    }
    if (make_vectors(run) != MPCG_SUCCESS) goto fail;
    print_protocol(run, o);
    measure_all(run, o);
    print_table(run);
    rc = run->failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
    bench_records list = {.v = run->rows, .count = run->nrows, .cap = run->nrows};
    if (o->c.json && bench_json_write(o->c.prog, o->c.json, &list, &run->dev) != 0)
        rc = BENCH_EXIT_FAILED;
    goto out;
fail:
    fprintf(stderr, "cgbench: %s\n", mpcg_last_error(run->ctx));
out:
    mpcgi_device_free(run->ctx, run->b);
    mpcgi_device_free(run->ctx, run->x);
    mpcg_matrix_destroy(run->A);
    mpcg_context_destroy(run->ctx);
    return rc;
}

/* ---------------------------------------------------------------- arguments */

/* --precision=LIST: 0, or a usage error's exit status. */
static int parse_precisions(const char *list, cg_opts *o)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    o->nprec = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        static const struct {
            const char *word, *strategy;
            mpcg_precision p;
        } words[] = {{"fp64", NULL, MPCG_PRECISION_FP64},
                     {"fp32", NULL, MPCG_PRECISION_FP32},
                     {"mixed", NULL, MPCG_PRECISION_MIXED},
                     {"mixed:reliable", "reliable", MPCG_PRECISION_MIXED},
                     {"mixed:refinement", "refinement", MPCG_PRECISION_MIXED}};
        int w = 0;
        while (w < 5 && strcmp(t, words[w].word) != 0)
            w++;
        if (w == 5 || o->nprec == MAX_PRECS)
            return bench_usage_error(o->c.prog,
                                     "--precision: expected a list of fp64, fp32, "
                                     "mixed, mixed:reliable, mixed:refinement, got ",
                                     list);
        o->strategy[o->nprec] = words[w].strategy;
        o->precs[o->nprec++] = words[w].p;
    }
    return o->nprec ? 0 : bench_usage_error(o->c.prog, "--precision: empty list", NULL);
}

/* --precond=P: one of the library's names (mpcg_precond_name). */
static int parse_precond(const char *word, cg_opts *o)
{
    for (int p = MPCG_PRECOND_NONE; p <= MPCG_PRECOND_AUTO; p++)
        if (strcmp(word, mpcg_precond_name((mpcg_precond)p)) == 0) {
            o->precond = (mpcg_precond)p;
            return 0;
        }
    return bench_usage_error(o->c.prog,
                             "--precond: expected none, jacobi, bjacobi, chebyshev or "
                             "auto, got ",
                             word);
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, cg_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (bench_help(&o->c, a)) return BENCH_EXIT_OK;
        if ((r = bench_option(o->c.prog, argc, argv, &i, "--tol", &v)) != 0) {
            if (r < 0 || bench_parse_double(o->c.prog, "--tol", v, 0.0, 1.0, &o->tol) != 0)
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--precision", &v)) != 0) {
            if (r < 0 || parse_precisions(v, o) != 0) return BENCH_EXIT_USAGE;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--precond", &v)) != 0) {
            if (r < 0 || parse_precond(v, o) != 0) return BENCH_EXIT_USAGE;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--maxit", &v)) != 0) {
            if (r < 0 || bench_parse_long(o->c.prog, "--maxit", v, 0, 1000000000, &o->maxit))
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_option(o->c.prog, argc, argv, &i, "--rhs", &v)) != 0) {
            if (r < 0 || bench_parse_long(o->c.prog, "--rhs", v, 1, CGBENCH_BLOCK_MAX_RHS, &o->rhs))
                return BENCH_EXIT_USAGE;
        } else if ((r = bench_parse_common(&o->c, argc, argv, &i)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
        } else {
            return bench_usage_error(o->c.prog, "unknown option ", a);
        }
    }
    if (bench_check_matrix_source(&o->c) != 0) return BENCH_EXIT_USAGE;
    if (o->c.runs > MAX_SOLVES) return bench_usage_error(o->c.prog, "--runs: at most 100", NULL);
    if (o->rhs && (o->nprec != 1 || o->precs[0] != MPCG_PRECISION_FP64))
        return bench_usage_error(o->c.prog,
                                 "--rhs: block CG runs in fp64 only; drop --precision "
                                 "or give --precision=fp64",
                                 NULL);
    return -1;
}

int main(int argc, char **argv)
{
    cg_opts o = {.c = {.prog = "cgbench", .usage = usage_text, .device = "cuda", .runs = 3},
                 .tol = 1e-8,
                 .maxit = -1,
                 .precs = {MPCG_PRECISION_FP64},
                 .nprec = 1};
    cg_run *run = calloc(1, sizeof *run);
    if (!run) {
        fprintf(stderr, "cgbench: out of memory\n");
        return BENCH_EXIT_FAILED;
    }
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) {
        rc = bench_require_gpu(o.c.prog);
        if (rc == BENCH_EXIT_OK) rc = run_all(&o, run);
    }
    free(run);
    return rc;
}
