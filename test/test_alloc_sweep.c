/* test/test_alloc_sweep.c: fail the n-th host allocation, for every n, on the whole CPU path
 * (context, read, solver, setup, solve): the right status, nothing leaked, and a solver whose
 * setup or solve failed solves correctly on the next call */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "test/testutil.h"

#define N_MAX 100 /* nos4: 100 rows */

typedef struct run_result {
    mpcg_status st;   /* the first failing step's status */
    const char *step; /* its name, NULL if every step succeeded */
    int64_t iterations;
    int converged;
    int retried;      /* a failed setup or solve was followed by a solve that converged */
    int64_t attempts; /* allocations tried by the path */
} run_result;

/* One pass over the whole path with the n-th allocation failing (n < 0: none). Everything is
 * destroyed before it returns. */
static run_result run(int64_t n, const char *path)
{
    run_result r = {MPCG_SUCCESS, NULL, -1, 0, 0, 0};
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    double b[N_MAX], x[N_MAX];
    mpcg_info info;
    for (int i = 0; i < N_MAX; i++)
        b[i] = 1.0, x[i] = 0.0;

    mpcgi_alloc_fail_at(n);
#define STEP(name, expr)                                                                           \
    do {                                                                                           \
        if ((r.st = (expr)) != MPCG_SUCCESS) {                                                     \
            r.step = name;                                                                         \
            goto failed;                                                                           \
        }                                                                                          \
    } while (0)
    STEP("context create", mpcg_context_create("cpu", &ctx));
    STEP("read", mpcg_matrix_read_mm(ctx, path, &A));
    STEP("solver create", mpcg_solver_create(ctx, A, &S));
    STEP("set tol", mpcg_solver_set_tol(S, 1e-10));
    STEP("setup", mpcg_solver_setup(S));
    STEP("solve", mpcg_solve(S, b, x, &info));
#undef STEP
    r.attempts = mpcgi_alloc_attempts();
    mpcgi_alloc_fail_at(-1);
    r.iterations = info.iterations;
    r.converged = info.converged;
    goto done;
failed:
    r.attempts = mpcgi_alloc_attempts();
    mpcgi_alloc_fail_at(-1);
    /* nothing half-made comes back */
    if (strcmp(r.step, "context create") == 0) CHECK(ctx == NULL);
    if (strcmp(r.step, "read") == 0) CHECK(A == NULL);
    if (strcmp(r.step, "solver create") == 0) CHECK(S == NULL);
    if (ctx && !strstr(mpcg_last_error(ctx), "bytes")) {
        fprintf(stderr, "step %s, allocation %lld: the message names no size: %s\n", r.step,
                (long long)n, mpcg_last_error(ctx));
        test_failures++;
    }
    /* a second solve after a failed setup or solve: it sets up again and converges */
    if (S) {
        mpcg_clear_error(ctx);
        for (int i = 0; i < N_MAX; i++)
            x[i] = 0.0;
        mpcg_status st = mpcg_solve(S, b, x, &info);
        CHECK_OK(ctx, st);
        r.retried = st == MPCG_SUCCESS && info.converged;
        r.iterations = info.iterations;
    }
done:
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return r;
}

int main(void)
{
    test_init_seed("test_alloc_sweep");
    const char *path = test_data("nos4.mtx");
    int64_t live = mpcgi_alloc_live();

    /* the reference: how many allocations the path makes */
    run_result ref = run(-1, path);
    int64_t total = ref.attempts;
    CHECK(ref.step == NULL && ref.converged);
    CHECK(mpcgi_alloc_live() == live);
    printf("test_alloc_sweep: %lld allocations, %lld iterations\n", (long long)total,
           (long long)ref.iterations);

    /* every allocation fails once: n = 0 .. total - 1 fail, n = total succeeds */
    int64_t failed = 0, retried = 0;
    const char *last_step = "";
    for (int64_t n = 0; n <= total; n++) {
        run_result r = run(n, path);
        if (n < total) {
            if (r.step == NULL || r.st != MPCG_ERR_HOST_ALLOC) {
                fprintf(stderr,
                        "allocation %lld: step %s returned %s, expected "
                        "MPCG_ERR_HOST_ALLOC\n",
                        (long long)n, r.step ? r.step : "(none)", mpcg_status_name(r.st));
                test_failures++;
            }
            failed += r.step != NULL;
            if (r.step && strcmp(r.step, last_step) != 0) {
                printf("  allocation %lld: first failure in step \"%s\"\n", (long long)n, r.step);
                last_step = r.step;
            }
            if (r.retried) {
                retried++;
                CHECK(r.iterations == ref.iterations);
            }
        } else {
            CHECK(r.step == NULL && r.converged && r.iterations == ref.iterations);
        }
        if (mpcgi_alloc_live() != live) {
            fprintf(stderr, "allocation %lld (step %s): %lld blocks leaked\n", (long long)n,
                    r.step ? r.step : "(none)", (long long)(mpcgi_alloc_live() - live));
            test_failures++;
            live = mpcgi_alloc_live();
        }
    }
    printf("test_alloc_sweep: %lld failing runs, each HOST_ALLOC without a leak; %lld failed "
           "setups or solves solved on the next call\n",
           (long long)failed, (long long)retried);
    CHECK(failed == total && total >= 10);
    return test_finish("test_alloc_sweep");
}
