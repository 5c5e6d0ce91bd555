/* test/test_solver_history.c: the residual history (mpcg_solver_set_history,
 * mpcg_solver_get_history) and the progress callback on the CPU: one entry an iteration, the
 * first the initial residual, the true residuals where the solve computes them, monotone time */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "test/testutil.h"

#define N 300

static mpcg_context *ctx;
static double b[N], x[N];

/* What the progress callback saw, to compare with the history. */
static int64_t seen, seen_it[4096];
static double seen_rel[4096];
static void progress(int64_t it, double relres, void *user)
{
    CHECK(user == &seen);
    if (seen < 4096) seen_it[seen] = it, seen_rel[seen] = relres;
    seen++;
}

typedef struct hist {
    int64_t count;
    const int64_t *it;
    const double *rel, *tru, *t;
} hist;

static hist get(const mpcg_solver *S)
{
    hist h;
    CHECK_OK(ctx, mpcg_solver_get_history(S, &h.count, &h.it, &h.rel, &h.tru, &h.t));
    return h;
}

/* The shape every host-loop history has: entries 0 .. iterations, the first the initial
 * residual (true and recurrence), the last the final one of info, time non-decreasing from
 * 0 up to the solve time; the true residuals finite exactly where the solve computed one:
 * `trues` of them (-1: do not count). */
static void check_shape(const mpcg_solver *S, const mpcg_info *info, double relres0, int trues)
{
    hist h = get(S);
    int ok_it = 1, ok_t = 1, finite = 0;
    CHECK(h.count == info->iterations + 1);
    if (h.count != info->iterations + 1 || h.count < 1) return;
    for (int64_t i = 0; i < h.count; i++) {
        ok_it &= h.it[i] == i && isfinite(h.rel[i]) && h.rel[i] >= 0;
        ok_t &= h.t[i] >= 0 && (i == 0 || h.t[i] >= h.t[i - 1]);
        finite += isfinite(h.tru[i]);
    }
    CHECK(ok_it && ok_t && h.t[h.count - 1] <= info->solve_time_s);
    CHECK(test_close(h.rel[0], 1.0, 1e-6, 0) && test_close(h.tru[0], relres0, 1e-14, 0));
    CHECK(h.rel[h.count - 1] == info->recurrence_relres);
    CHECK(h.tru[h.count - 1] == info->true_relres);
    if (trues >= 0) CHECK(finite == trues);
}

/* fp64 CG: the history against the monitor-free progress callback and info; off: nothing. */
static void test_host_loop(mpcg_matrix *A)
{
    mpcg_solver *S;
    mpcg_info info;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    hist h = get(S);
    CHECK(h.count == 0 && h.it == NULL && h.rel == NULL && h.tru == NULL && h.t == NULL);

    CHECK_OK(ctx, mpcg_solver_set_history(S, 1));
    CHECK_OK(ctx, mpcg_solver_set_progress(S, progress, &seen));
    seen = 0;
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));

    /* the initial and the final true residual, and any replacement's */
    CHECK(info.reason == MPCG_CONVERGED_RTOL);
    check_shape(S, &info, 1.0, (int)info.residual_replacements + 2);
    h = get(S);
    CHECK(h.tru[0] == 1.0); /* b - A 0 = b, exactly */
    CHECK(seen == h.count);
    int same = seen == h.count;
    for (int64_t i = 0; same && i < h.count; i++)
        same = seen_it[i] == h.it[i] && seen_rel[i] == h.rel[i];
    CHECK(same);
    printf("  fp64: %lld entries, relres %.3e -> %.3e, %.6f s\n", (long long)h.count, h.rel[0],
           h.rel[h.count - 1], h.t[h.count - 1]);

    /* the limit: the end's true residual lands on the last entry */
    CHECK_OK(ctx, mpcg_solver_set_maxit(S, 5));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_DIVERGED_MAX_ITER && info.iterations == 5);
    check_shape(S, &info, 1.0, 2);

    /* a provided guess (the iterate of that solve): the initial true residual is b - A x0,
     * computed as that solve's final one */
    const double last = info.true_relres;
    CHECK_OK(ctx, mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    h = get(S);
    CHECK(h.count == info.iterations + 1 && h.count > 0 && h.tru[0] == last);
    CHECK(h.count > 0 && test_close(h.rel[0], h.tru[0], 1e-12, 0));
    CHECK_OK(ctx, mpcg_solver_set_initial_guess(S, MPCG_GUESS_ZERO));
    CHECK_OK(ctx, mpcg_solver_set_maxit(S, 10 * N));

    /* below fp64's reach: every replacement's true residual, and the stagnation's */
    CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-19));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.reason == MPCG_DIVERGED_STAGNATION && info.residual_replacements >= 1);
    check_shape(S, &info, 1.0, (int)info.residual_replacements + 2);

    /* b = 0 and a block solve record nothing here (test_block_history); off releases */
    double zero[N] = {0}, B[2 * N], X[2 * N];
    mpcg_info infos[2];
    CHECK_OK(ctx, mpcg_solve(S, zero, x, &info));
    CHECK(get(S).count == 0);
    memcpy(B, b, sizeof b), memcpy(B + N, b, sizeof b);
    CHECK_OK(ctx, mpcg_solver_set_tol(S, 1e-8));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(get(S).count == info.iterations + 1);
    CHECK_OK(ctx, mpcg_solve_block(S, 2, B, X, infos));
    CHECK(get(S).count == 0);
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK_OK(ctx, mpcg_solver_set_history(S, 0));
    h = get(S);
    CHECK(h.count == 0 && h.it == NULL && h.t == NULL);
    seen = 0;
    CHECK_OK(ctx, mpcg_solver_set_progress(S, NULL, &seen));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(seen == 0 && get(S).count == 0);

    CHECK_STATUS(ctx, mpcg_solver_get_history(S, NULL, NULL, NULL, NULL, NULL),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_history(NULL, 1), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_progress(NULL, progress, NULL), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    mpcg_solver_destroy(S);
}

/* fp32, PCG and mixed solves (reliable updates: a true residual each; an fp64 head and its
 * end): every iteration still has its entry, and the true residuals are where info says. */
static void test_other_loops(mpcg_matrix *A)
{
    const struct {
        mpcg_precision p;
        mpcg_precond pc;
        double tol;
        const char *what;
    } cases[] = {{MPCG_PRECISION_FP32, MPCG_PRECOND_NONE, 1e-5, "fp32"},
                 {MPCG_PRECISION_FP64, MPCG_PRECOND_JACOBI, 1e-10, "fp64 jacobi"},
                 {MPCG_PRECISION_MIXED, MPCG_PRECOND_NONE, 1e-12, "mixed"},
                 {MPCG_PRECISION_MIXED, MPCG_PRECOND_JACOBI, 1e-12, "mixed jacobi"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mpcg_solver *S;
        mpcg_info info;
        CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
        CHECK_OK(ctx, mpcg_solver_set_precision(S, cases[c].p));
        CHECK_OK(ctx, mpcg_solver_set_precond(S, cases[c].pc));
        CHECK_OK(ctx, mpcg_solver_set_tol(S, cases[c].tol));
        CHECK_OK(ctx, mpcg_solver_set_history(S, 1));
        CHECK_OK(ctx, mpcg_solve(S, b, x, &info));

        CHECK(info.converged);
        /* mixed: the head's end, each reliable update, the end, and the initial residual */
        check_shape(S, &info, 1.0, -1);
        hist h = get(S);
        int finite = 0;
        for (int64_t i = 0; i < h.count; i++) finite += isfinite(h.tru[i]);
        CHECK(finite >= (int)info.residual_replacements + 2);
        printf("  %-12s %lld entries, %d true residuals, %lld replacements\n", cases[c].what,
               (long long)h.count, finite, (long long)info.residual_replacements);
        mpcg_solver_destroy(S);
    }
}

/* A history that cannot grow fails the solve with MPCG_ERR_HOST_ALLOC and leaks nothing; the
 * next solve, with memory back, records the whole history. */
static void test_alloc_failure(mpcg_matrix *A)
{
    mpcg_solver *S;
    mpcg_info info;
    int64_t live = mpcgi_alloc_live(), failed = 0;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    int64_t live_setup = mpcgi_alloc_live();
    for (int64_t n = 0; n < 4; n++) {
        CHECK_OK(ctx, mpcg_solver_set_history(S, 1));
        mpcgi_alloc_fail_at(n); /* the first entry's arrays, one by one */
        mpcg_status st = mpcg_solve(S, b, x, &info);
        mpcgi_alloc_fail_at(-1);
        failed += st == MPCG_ERR_HOST_ALLOC;
        CHECK(strstr(mpcg_last_error(ctx), "bytes") != NULL);
        mpcg_clear_error(ctx);
        CHECK_OK(ctx, mpcg_solver_set_history(S, 0)); /* releases what did grow */
        CHECK(mpcgi_alloc_live() == live_setup);
    }
    CHECK(failed == 4);
    CHECK_OK(ctx, mpcg_solver_set_history(S, 1));
    CHECK_OK(ctx, mpcg_solve(S, b, x, &info));
    CHECK(info.converged && get(S).count == info.iterations + 1);
    mpcg_solver_destroy(S);
    CHECK(mpcgi_alloc_live() == live);
}

/* What the block monitor saw: calls per column, the last iteration of each. */
static int64_t bcalls[40], blast[40];
static void block_monitor(int64_t it, int column, double relres, void *user)
{
    CHECK(user == bcalls && column >= 0 && column < 40 && relres >= 0);
    if (column < 0 || column >= 40) return;
    CHECK(it % 2 == 0 && (bcalls[column] == 0 ? it == 0 : it > blast[column]));
    bcalls[column]++, blast[column] = it;
}

/* A block solve: a history per column (the shape of a single solve's: entries 0 .. the column's
 * iterations, the first the initial residual, the last info's), a b = 0 column none; the block
 * monitor every 2nd iteration of each column; 40 columns (two groups of 20) as well. */
static void test_block_history(mpcg_matrix *A)
{
    enum { S_ = 40 };
    static double B[S_ * N], X[S_ * N];
    mpcg_info infos[S_];
    mpcg_solver *S;
    hist h;
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &S));
    CHECK_OK(ctx, mpcg_solver_set_history(S, 1));
    CHECK_OK(ctx, mpcg_solver_set_block_monitor(S, 2, block_monitor, bcalls));
    for (int j = 0; j < S_; j++)
        for (int i = 0; i < N; i++) B[j * N + i] = j == 1 ? 0.0 : sin(1.0 + i * (j + 1));
    for (int nrhs = 3; nrhs <= S_; nrhs += S_ - 3) {
        memset(bcalls, 0, sizeof bcalls);
        CHECK_OK(ctx, mpcg_solve_block(S, nrhs, B, X, infos));
        CHECK(get(S).count == 0);
        for (int j = 0; j < nrhs; j++) {
            CHECK_OK(ctx, mpcg_solver_get_block_history(S, j, &h.count, &h.it, &h.rel, &h.tru,
                                                         &h.t));
            if (j == 1) {
                CHECK(h.count == 0 && h.it == NULL && bcalls[j] == 0);
                continue;
            }
            CHECK(infos[j].converged && h.count == infos[j].iterations + 1 && h.count > 1);
            if (h.count < 2) continue;
            CHECK(h.it[0] == 0 && h.rel[0] == 1.0 && h.tru[0] == 1.0 && h.t[0] >= 0);
            CHECK(h.it[h.count - 1] == infos[j].iterations && h.t[h.count - 1] >= h.t[0]);
            CHECK(h.rel[h.count - 1] == infos[j].recurrence_relres);
            CHECK(h.tru[h.count - 1] == infos[j].true_relres);
            CHECK(bcalls[j] == infos[j].iterations / 2 + 1);
        }
        CHECK_OK(ctx, mpcg_solver_get_block_history(S, nrhs, &h.count, NULL, NULL, NULL, NULL));
        CHECK(h.count == 0);
    }
    CHECK_OK(ctx, mpcg_solve(S, b, x, &infos[0]));
    CHECK_OK(ctx, mpcg_solver_get_block_history(S, 0, &h.count, NULL, NULL, NULL, NULL));
    CHECK(h.count == 0 && get(S).count == infos[0].iterations + 1);
    CHECK_STATUS(ctx, mpcg_solver_get_block_history(S, 64, &h.count, NULL, NULL, NULL, NULL),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_get_block_history(S, 0, NULL, NULL, NULL, NULL, NULL),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_block_monitor(NULL, 1, block_monitor, NULL),
                 MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    mpcg_solver_destroy(S);
}

int main(void)
{
    test_init_seed("test_solver_history");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    mpcg_matrix *A = test_random_spd(ctx, N, test_seed);
    CHECK(A != NULL);
    for (int i = 0; i < N; i++) b[i] = sin(1.0 + i);
    test_host_loop(A);
    test_other_loops(A);
    test_alloc_failure(A);
    test_block_history(A);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return test_finish("test_solver_history");
}
