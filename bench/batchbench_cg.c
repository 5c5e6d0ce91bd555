/* bench/batchbench_cg.c: batchbench's cg scenario: mpcg_batch_solve_device beside one mpcg
 * solver per system, solved one after another (docs/benchmarks.md, "batchbench") */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "bench/batchbench.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/timer.h"

enum { C_BATCH, C_LOOP, NCG };
static const char *const cg_name[NCG] = {"mpcg-batch", "mpcg-loop"};

typedef struct cg_run {
    bb_run *run;
    bb_gen G;
    int runs;
    int64_t L;           /* systems of the loop */
    double *b, *x, *its; /* host: b, a solution, iteration counts (for the median) */
    double *db, *dx;     /* device: b, x */
    mpcg_matrix **A;     /* the loop's, L each */
    mpcg_solver **S;
    mpcg_info *info;
} cg_run;

/* ||b_i - A_i x_i|| / ||b_i|| of system i, on the host from the generated arrays. */
static double host_relres(const bb_gen *G, const double *b, const double *x, int64_t i)
{
    const int64_t o = G->off[i];
    double rr = 0, bb = 0;
    for (int64_t r = o; r < G->off[i + 1]; r++) {
        double s = b[r];
        for (int64_t e = G->ptr[r]; e < G->ptr[r + 1]; e++)
            s -= G->val[e] * x[o + G->col[e]];
        rr += s * s, bb += b[r] * b[r];
    }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

/* One system's outcome into r (iterations max and the count for the median, the worst true
 * relres, the first non-converged reason), and whether its x (C->x, host) is wrong: it reports
 * convergence but its residual recomputed here exceeds 2 tol. */
static int tally(cg_run *C, int64_t i, mpcg_reason reason, int64_t its, double relres,
                 bench_record *r)
{
    const double tol = C->run->o->tol;
    C->its[i] = (double)its;
    if (its > r->iterations) r->iterations = its;
    if (!(relres <= r->true_relres)) r->true_relres = relres; /* NaN sticks */
    if (reason <= 0 && r->not_converged++ == 0)
        snprintf(r->reason, sizeof r->reason, "%s", mpcg_reason_name(reason));
    const double host = host_relres(&C->G, C->b, C->x, i);
    if (reason <= 0 || host <= 2.0 * tol + 1e-12) return 0;
    fprintf(stderr,
            "batchbench: %s: system %lld reports %s after %lld iterations, but "
            "||b - A x|| / ||b|| = %.3g here\n",
            r->backend, (long long)i, mpcg_reason_name(reason), (long long)its, host);
    return 1;
}

/* The summary of count systems tallied (reason stays "" when all converged); status "wrong" if
 * any x was. */
static void summarize(cg_run *C, int64_t count, int64_t wrong, bench_record *r)
{
    r->iterations_median = (int64_t)llround(bench_median(C->its, (int)count)); /* sorts its */
    if (wrong) {
        fprintf(stderr, "batchbench: %s: %lld wrong solutions\n", r->backend, (long long)wrong);
        r->status = "wrong";
    }
}

/* The batch: created (setup_ms), one warm-up solve, then runs timed solves, every x checked. */
static mpcg_status cg_batched(cg_run *C, bench_record *r)
{
    mpcg_context *ctx = C->run->ctx;
    const bb_gen *G = &C->G;
    mpcg_status st = MPCG_SUCCESS;
    mpcg_batch *bt = NULL;
    mpcg_batch_result *res = NULL;
    double t[BB_MAX_RUNS];
    int64_t wrong = 0;
    double t0 = mpcgi_wtime();
    MPCG_TRY(ctx, st, mpcg_batch_create(ctx, G->k, G->off, G->ptr, G->col, G->val, &bt));
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
    r->setup_ms = (mpcgi_wtime() - t0) * 1e3;
    MPCG_TRY(ctx, st, mpcg_batch_set_tol(bt, C->run->o->tol));
    MPCG_TRY(ctx, st, mpcg_batch_set_precond(bt, C->run->o->precond));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)G->k, sizeof *res, &res));
    for (int k = -1; k < C->runs; k++) { /* k = -1: the warm-up */
        t0 = mpcgi_wtime();
        MPCG_TRY(ctx, st, mpcg_batch_solve_device(bt, C->db, C->dx, res));
        MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
        if (k >= 0) t[k] = (mpcgi_wtime() - t0) * 1e3;
    }
    r->ms = bb_median_of(t, C->runs, &r->ms_min, &r->ms_max);
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, C->x, C->dx, (size_t)G->rows * 8, MPCGI_D2H));
    for (int64_t i = 0; i < G->k; i++)
        wrong += tally(C, i, res[i].reason, res[i].iterations, res[i].true_relres, r);
    summarize(C, G->k, wrong, r);
done:
    mpcgi_host_free(res);
    mpcg_batch_destroy(bt);
    return st;
}

/* The loop's matrices and solvers (tol, precond, the rest the library's defaults), set up;
 * the wall time, to a device sync, in *ms. */
static mpcg_status loop_setup(cg_run *C, double *ms)
{
    mpcg_context *ctx = C->run->ctx;
    const bb_gen *G = &C->G;
    mpcg_status st = MPCG_SUCCESS;
    int64_t *lptr = NULL;
    const double t0 = mpcgi_wtime();
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)G->g2 * G->g2 + 1, 8, &lptr));
    for (int64_t i = 0; i < C->L; i++) {
        const int64_t o = G->off[i], n = G->off[i + 1] - o, e0 = G->ptr[o];
        for (int64_t r = 0; r <= n; r++)
            lptr[r] = G->ptr[o + r] - e0;
        MPCG_TRY(ctx, st, mpcg_matrix_create_csr(ctx, n, lptr, G->col + e0, G->val + e0, &C->A[i]));
        MPCG_TRY(ctx, st, mpcg_solver_create(ctx, C->A[i], &C->S[i]));
        MPCG_TRY(ctx, st, mpcg_solver_set_tol(C->S[i], C->run->o->tol));
        MPCG_TRY(ctx, st, mpcg_solver_set_precond(C->S[i], C->run->o->precond));
        MPCG_TRY(ctx, st, mpcg_solver_setup(C->S[i]));
    }
    MPCG_TRY(ctx, st, mpcgi_device_sync(ctx));
    *ms = (mpcgi_wtime() - t0) * 1e3;
done:
    mpcgi_host_free(lptr);
    return st;
}

/* One pass: the L systems solved one after another; wall time to a device sync in *ms. */
static mpcg_status loop_pass(cg_run *C, double *ms)
{
    mpcg_context *ctx = C->run->ctx;
    const double t0 = mpcgi_wtime();
    for (int64_t i = 0; i < C->L; i++) {
        const int64_t o = C->G.off[i];
        MPCG_CHECK(ctx, mpcg_solve_device(C->S[i], C->db + o, C->dx + o, &C->info[i]));
    }
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    *ms = (mpcgi_wtime() - t0) * 1e3;
    return MPCG_SUCCESS;
}

/* The loop: setup, one untimed pass, runs timed passes; times scaled by K / L. */
static mpcg_status cg_loop(cg_run *C, bench_record *r)
{
    mpcg_context *ctx = C->run->ctx;
    const double scale = (double)C->G.k / (double)C->L;
    double t[BB_MAX_RUNS], warm;
    int64_t wrong = 0;
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)C->L, sizeof *C->A, &C->A));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)C->L, sizeof *C->S, &C->S));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)C->L, sizeof *C->info, &C->info));
    MPCG_CHECK(ctx, loop_setup(C, &r->setup_ms));
    r->setup_ms *= scale;
    MPCG_CHECK(ctx, loop_pass(C, &warm));
    for (int k = 0; k < C->runs; k++)
        MPCG_CHECK(ctx, loop_pass(C, &t[k]));
    r->ms = scale * bb_median_of(t, C->runs, &r->ms_min, &r->ms_max);
    r->ms_min *= scale, r->ms_max *= scale;
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, C->x, C->dx, (size_t)C->G.off[C->L] * 8, MPCGI_D2H));
    for (int64_t i = 0; i < C->L; i++) {
        const mpcg_info *f = &C->info[i];
        wrong += tally(C, i, f->reason, f->iterations, f->true_relres, r);
    }
    summarize(C, C->L, wrong, r);
    snprintf(r->precond, sizeof r->precond, "%s", C->info[0].precond);
    printf("loop solvers: backend %s, variant %s (%s)\n", C->info[0].backend, C->info[0].variant,
           C->info[0].variant_reason);
    return MPCG_SUCCESS;
}

static void cg_header(const cg_run *C)
{
    const bb_opts *o = C->run->o;
    printf("cg: b_i the %lld draws after the matrices (2 u - 1; checksum %016llx), x0 = 0, tol "
           "%g, precond %s, maxit the library's max(100, 10 n_i); batch: mpcg_batch_create "
           "(setup), one warm-up mpcg_batch_solve_device, then %d timed (wall clock to a device "
           "sync; the results' copy to the host included), median; loop: one mpcg_matrix + "
           "mpcg_solver per system for the first %lld of %lld systems, set up (timed apart), one "
           "untimed pass of mpcg_solve_device calls, then %d timed passes (wall clock to a device "
           "sync), median; the loop's ms and setup ms are scaled by K / L = %.4g; every x "
           "checked here: a system that reports convergence must have ||b - A x|| / ||b|| <= 2 "
           "tol; vs loop = loop ms / ms\n",
           (long long)C->G.rows, (unsigned long long)bb_checksum(C->b, C->G.rows), o->tol,
           mpcg_precond_name(o->precond), C->runs, (long long)C->L, (long long)C->G.k, C->runs,
           (double)C->G.k / (double)C->L);
    printf("| method | systems timed | setup ms | ms | us per system | iterations max | median "
           "| not converged | max true relres | vs loop |\n"
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
}

static void cg_row(const bench_record *r)
{
    printf("| %s | %lld |", r->backend, (long long)r->loop_systems);
    bench_print_cells(1, "%.4g", r->setup_ms);
    if (strcmp(r->status, "ok") != 0)
        printf(" %s |", strcmp(r->status, "wrong") == 0 ? "WRONG" : "FAILED");
    else
        bench_print_cells(1, "%.4g", r->ms);
    bench_print_cells(5, "%.3g", r->ms * 1e3 / (double)r->batch_k, "%.0f",
                      r->iterations >= 0 ? (double)r->iterations : NAN, "%.0f",
                      r->iterations_median >= 0 ? (double)r->iterations_median : NAN, "%.0f",
                      r->not_converged >= 0 ? (double)r->not_converged : NAN, "%.2e",
                      r->true_relres);
    bench_print_cells(1, "%.1f", r->speedup_vs_loop);
    printf("\n");
}

/* Both methods measured (a failure marks its row), printed, recorded; the targets and the CuPy
 * command line. */
static mpcg_status cg_methods(cg_run *C)
{
    bb_run *run = C->run;
    const bb_opts *o = run->o;
    bench_record r[NCG];
    for (int m = 0; m < NCG; m++) {
        bb_record(run, &C->G, "batch-cg", cg_name[m], &r[m]);
        r[m].tol = o->tol, r[m].runs = C->runs;
        r[m].iterations = r[m].not_converged = 0, r[m].true_relres = 0.0;
        r[m].loop_systems = m == C_LOOP ? C->L : C->G.k;
        snprintf(r[m].precond, sizeof r[m].precond, "%s", mpcg_precond_name(o->precond));
    }
    for (int m = 0; m < NCG; m++) {
        if ((m == C_BATCH ? cg_batched(C, &r[m]) : cg_loop(C, &r[m])) != MPCG_SUCCESS) {
            fprintf(stderr, "batchbench: %s failed: %s\n", cg_name[m], mpcg_last_error(run->ctx));
            mpcg_clear_error(run->ctx);
            r[m].status = "failed";
        }
        if (strcmp(r[m].status, "ok") == 0) continue;
        run->failed = 1;
        r[m].ms = r[m].true_relres = NAN, r[m].iterations = r[m].iterations_median = -1;
        r[m].not_converged = -1;
    }
    cg_header(C);
    for (int m = 0; m < NCG; m++) {
        r[m].speedup_vs_loop = r[C_LOOP].ms / r[m].ms;
        cg_row(&r[m]);
        MPCG_CHECK(run->ctx, bench_records_add(run->ctx, &run->records, &r[m]));
    }
    bb_target("mpcg-batch vs the mpcg_solve_device loop", r[C_BATCH].speedup_vs_loop, 50.0);
    printf("CuPy comparison (the same systems, cupyx.scipy.sparse.linalg.cg one system after "
           "another; target: mpcg-batch >= 100x, i.e. CuPy's ms for all K >= %.4g):\n"
           "  python3 bench/cupy_batch_cg.py --k=%lld --grid=%d:%d --seed=%ld --tol=%g "
           "--precond=%s --loop-count=%lld --runs=%d\n",
           100.0 * r[C_BATCH].ms, (long long)C->G.k, C->G.g1, C->G.g2, o->seed, o->tol,
           mpcg_precond_name(o->precond), (long long)C->L, C->runs);
    return MPCG_SUCCESS;
}

mpcg_status bb_cg(bb_run *run)
{
    mpcg_context *ctx = run->ctx;
    const bb_opts *o = run->o;
    mpcg_status st = MPCG_SUCCESS;
    cg_run C = {.run = run, .runs = o->runs > 0 ? (int)o->runs : 3};
    const int64_t k = o->k > 0 ? o->k : 10000;
    const int g1 = o->grid[0] > 0 ? (int)o->grid[0] : 10,
              g2 = o->grid[0] > 0 ? (int)o->grid[1] : 10;
    MPCG_TRY(ctx, st, bb_gen_make(ctx, k, g1, g2, (uint64_t)o->seed, &C.G));
    C.L = o->loop > 0 && o->loop < k ? o->loop : k;
    const size_t bytes = (size_t)C.G.rows * sizeof(double);
    MPCG_TRY(ctx, st, bb_gen_vector(ctx, &C.G, C.G.rows, &C.b));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)C.G.rows + 1, sizeof(double), &C.x));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)k, sizeof(double), &C.its));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes, &C.db));
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, bytes, &C.dx));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, C.db, C.b, bytes, MPCGI_H2D));
    MPCG_TRY(ctx, st, cg_methods(&C));
done:
    for (int64_t i = 0; C.S && i < C.L; i++)
        mpcg_solver_destroy(C.S[i]), mpcg_matrix_destroy(C.A[i]);
    mpcgi_host_free(C.A), mpcgi_host_free(C.S), mpcgi_host_free(C.info);
    mpcgi_host_free(C.b), mpcgi_host_free(C.x), mpcgi_host_free(C.its);
    mpcgi_device_free(ctx, C.db), mpcgi_device_free(ctx, C.dx);
    bb_gen_free(&C.G);
    return st;
}
