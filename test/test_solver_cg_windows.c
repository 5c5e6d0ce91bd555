/* test/test_solver_cg_windows.c: the GPU CG's check windows under the adaptive K
 * (solver/cg_fused.c, docs/solver.md "K"): a persistent loop, which leaves at its stop, runs one
 * window of up to 1024 iterations where nothing reads the residual as the solve goes, and
 * windows growing from 4 where a history or a progress callback does; the launched kernels
 * always grow theirs. Windows are counted from the library's debug log. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "solver/cg_variants.h"
#include "solver/solver.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* The windows of the solves since the last reset: their count and sizes, in order. */
static struct {
    int count;
    long long size[64], from[64];
} win;

static void log_fn(mpcg_log_level level, const char *msg, void *user)
{
    (void)user;
    long long K, k;
    const char *at = strstr(msg, "): a window of ");
    if (level != MPCG_LOG_DEBUG || !at) return;
    if (sscanf(at, "): a window of %lld iterations from %lld", &K, &k) != 2) return;
    if (win.count < 64) win.size[win.count] = K, win.from[win.count] = k;
    win.count++;
}

static int progress_calls;
static void progress(int64_t it, double relres, void *user)
{
    (void)it, (void)relres, (void)user;
    progress_calls++;
}

/* Solve poisson3d:20 (n = 8000, 49 iterations to 1e-8) from a NaN-poisoned x with cg.variant
 * v; hist / prog: a history / a progress callback. Returns the iterations; the windows in win. */
static int64_t solve(mpcg_matrix *A, const char *v, int hist, int prog, double *b, double *x)
{
    const int64_t n = mpcg_matrix_n(A);
    mpcg_solver *S = NULL;
    mpcg_info info;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    if (!S) return -1;
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, "cusparse"));
    CHECK_OK(gpu, mpcg_solver_set_option(S, "cg.variant", v));
    if (hist) CHECK_OK(gpu, mpcg_solver_set_history(S, 1));
    if (prog) CHECK_OK(gpu, mpcg_solver_set_progress(S, progress, NULL));
    memset(x, 0xff, (size_t)n * sizeof *x);
    win.count = 0, progress_calls = 0;
    CHECK_OK(gpu, mpcg_solve(S, b, x, &info));
    CHECK(strcmp(S->variant->name, v) == 0);
    CHECK(info.reason == MPCG_CONVERGED_RTOL);
    int64_t count = 0;
    const int64_t *it = NULL;
    const double *rel = NULL, *tru = NULL, *t = NULL;
    if (hist) { /* an entry at 0, then one a window read (the end's true residual joins the last) */
        CHECK_OK(gpu, mpcg_solver_get_history(S, &count, &it, &rel, &tru, &t));
        CHECK(count >= 3 && count <= win.count + 1 && it && it[0] == 0 &&
              it[count - 1] == info.iterations);
    }
    printf("  %s%s%s: %lld iterations, %d windows:", v, hist ? ", history" : "",
           prog ? ", progress" : "", (long long)info.iterations, win.count);
    for (int w = 0; w < win.count && w < 64; w++) printf(" %lld", win.size[w]);
    printf("\n");
    mpcg_solver_destroy(S);
    return info.iterations;
}

/* The windows follow one another: each starts where the one before stopped. */
static void contiguous(void)
{
    for (int w = 1; w < win.count && w < 64; w++)
        CHECK(win.from[w] == win.from[w - 1] + win.size[w - 1]);
}

static void test_windows(void)
{
    mpcg_matrix *A = NULL;
    CHECK_OK(gpu, mpcg_matrix_generate(gpu, "poisson3d:20", &A));
    if (!A) return;
    const int64_t n = mpcg_matrix_n(A);
    double *b = NULL, *x = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *b, &b));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *x, &x));
    if (!b || !x) goto done;
    for (int64_t i = 0; i < n; i++) b[i] = 1.0 + (double)(i % 7);
    static const char *const loops[] = {"persistent-single", "persistent-two-barrier"};
    for (int l = 0; l < 2; l++) {
        /* nothing reads the residual on the way: one window of 1024 (the loop stops itself) */
        int64_t its = solve(A, loops[l], 0, 0, b, x);
        CHECK(its > 4 && its < 1024 && win.count == 1 && win.size[0] == 1024 && win.from[0] == 0);
        /* a history or a progress callback: windows from 4, doubling while far from tol */
        int64_t its_h = solve(A, loops[l], 1, 0, b, x);
        CHECK(its_h == its && win.count >= 3 && win.size[0] == 4 && win.size[1] == 8);
        contiguous();
        solve(A, loops[l], 0, 1, b, x);
        CHECK(win.count >= 3 && win.size[0] == 4 && progress_calls >= 2);
        contiguous();
    }
    /* the launched kernels run a window's queued iterations empty after the stop: they grow
     * from 4 with or without a history */
    solve(A, "launched", 0, 0, b, x);
    CHECK(win.count >= 3 && win.size[0] == 4 && win.size[1] == 8);
    contiguous();
done:
    mpcgi_host_free(b), mpcgi_host_free(x);
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_solver_cg_windows");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_solver_cg_windows");
    if (mpcgi_device_count() == 0) {
        printf("test_solver_cg_windows: no usable GPU, skipped\n");
        mpcg_context_destroy(cpu);
        return TEST_SKIP;
    }
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_solver_cg_windows");
    CHECK_OK(gpu, mpcg_context_set_log(gpu, MPCG_LOG_DEBUG, log_fn, NULL));
    test_windows();
    mpcg_context_destroy(cpu);
    mpcg_context_destroy(gpu);
    return test_finish("test_solver_cg_windows");
}
