/* bench/experiments/lib_loop.c: the library's fused fp64 CG iteration (solver/cg_fused.c's
 * launched form: the backend's apply_dot, mpcgi_cg_update_r, mpcgi_cg_update_p) queued in a
 * plain loop, timed as pdl_early.cu times its own, and its kernels alone; then whole solves at
 * two iteration caps, whose difference is the solve's cost an iteration without its fixed
 * costs. Where does the library's iteration lose against pdl_early.cu's? (an experiment, not
 * built by make; issue 25, session 16)
 *
 * Build (in a configured build directory BUILD of the tree, after make):
 *   gcc -O2 -fopenmp -I. -IBUILD -Iinclude -I/usr/local/cuda/include \
 *       bench/experiments/lib_loop.c BUILD/.libs/libmpcgi.a -L/usr/local/cuda/lib64 \
 *       -lcusparse -lcublas -lcudart -lstdc++ -lz -lm -o lib_loop
 *   ./lib_loop poisson3d:128 fold
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cg_kernels.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "include/mpcg.h"
#include "solver/cg_fused.h"
#include "solver/solver.h"
#include "spmv/spmv.h"

#include "experiment.h"

enum { ITER, ONLY_DOT, ONLY_R, ONLY_P };

static void queue(mpcg_solver *s, int what)
{
    struct mpcgi_cg_fused *f = s->fused;
    void *stream = mpcgi_device_stream(s->ctx);
    const int64_t n = s->A->csr.n;
    double *p = s->p, *q = s->q, *r = s->r;
    if (what == ITER || what == ONLY_DOT)
        CKM(s->ctx, mpcgi_spmv_apply_dot(s->ctx, s->plan, p, q, &f->st->pq, &f->st->stop));
    if (what == ITER || what == ONLY_R)
        CK((cudaError_t)mpcgi_cg_update_r(stream, n, q, r, f->st, f->partial));
    if (what == ITER || what == ONLY_P) CK((cudaError_t)mpcgi_cg_update_p(stream, n, r, p, f->st));
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ms a call: median of 7 groups of 10 after 20 (pdl_early.cu's protocol) */
static double timed(mpcg_solver *s, int what)
{
    cudaStream_t st = (cudaStream_t)mpcgi_device_stream(s->ctx);
    cudaEvent_t a, b;
    double t[7];
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; i++) queue(s, what);
    for (int g = 0; g < 7; g++) {
        float ms;
        CK(cudaEventRecord(a, st));
        for (int i = 0; i < 10; i++) queue(s, what);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        t[g] = ms / 10.0;
    }
    qsort(t, 7, sizeof *t, cmp);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[3];
}

/* the device state running: no stop, no limit, no threshold */
static void unstop(mpcg_solver *s)
{
    mpcgi_cg_state m;
    CK(cudaMemcpy(&m, s->fused->st, sizeof m, cudaMemcpyDeviceToHost));
    m.stop = 0, m.kmax = (int64_t)1 << 50, m.threshold = 0, m.k = 0;
    CK(cudaMemcpy(s->fused->st, &m, sizeof m, cudaMemcpyHostToDevice));
}

static double solve_ms(mpcg_context *ctx, mpcg_solver *s, const double *b, double *x, int maxit,
                       int64_t *iters)
{
    mpcg_info info;
    CKM(ctx, mpcg_solver_set_maxit(s, maxit));
    CK(cudaMemset(x, 0, (size_t)s->A->csr.n * 8));
    CK(cudaDeviceSynchronize());
    const double t0 = mpcgi_wtime();
    CKM(ctx, mpcg_solve_device(s, b, x, &info));
    *iters = info.iterations;
    return (mpcgi_wtime() - t0) * 1e3;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *spec = argc > 1 ? argv[1] : "poisson3d:128", *spmv = argc > 2 ? argv[2] : "fold";
    mpcg_context *ctx;
    mpcg_matrix *A;
    mpcg_solver *s;
    if (mpcg_context_create("cuda:0", &ctx) != MPCG_SUCCESS) return 1;
    CKM(ctx, mpcg_matrix_generate(ctx, spec, &A));
    CKM(ctx, mpcg_solver_create(ctx, A, &s));
    CKM(ctx, mpcg_solver_set_spmv(s, spmv));
    CKM(ctx, mpcg_solver_set_option(s, "cg.variant", "launched"));
    CKM(ctx, mpcg_solver_set_tol(s, 1e-30));
    CKM(ctx, mpcg_solver_setup(s));
    const int64_t n = mpcg_matrix_n(A);
    double *b, *x;
    CK(cudaMalloc((void **)&b, n * 8));
    CK(cudaMalloc((void **)&x, n * 8));
    double *ones = malloc(n * 8);
    for (int64_t i = 0; i < n; i++) ones[i] = 1.0;
    CK(cudaMemcpy(b, ones, n * 8, cudaMemcpyHostToDevice));
    free(ones);
    int64_t it1, it2;
    double t1 = solve_ms(ctx, s, b, x, 300, &it1); /* warm-up */
    t1 = solve_ms(ctx, s, b, x, 300, &it1);
    double t2 = solve_ms(ctx, s, b, x, 1300, &it2);
    double t1b = solve_ms(ctx, s, b, x, 300, &it1);
    double t2b = solve_ms(ctx, s, b, x, 1300, &it2);
    printf("%s %s: solves of %lld and %lld iterations: %.3f / %.3f ms, %.3f / %.3f ms; "
           "an iteration beyond the fixed costs %.5f / %.5f ms; whole %.5f ms\n",
           spec, spmv, (long long)it1, (long long)it2, t1, t2, t1b, t2b,
           (t2 - t1) / (double)(it2 - it1), (t2b - t1b) / (double)(it2 - it1), t2 / it2);
    if (!s->fused || !s->fused->fused_dot) {
        printf("no fused dot on this plan\n");
        return 0;
    }
    unstop(s);
    double it = timed(s, ITER), it_again;
    double d = timed(s, ONLY_DOT), r = timed(s, ONLY_R), p = timed(s, ONLY_P);
    unstop(s);
    it_again = timed(s, ITER);
    mpcgi_cg_state m;
    CK(cudaMemcpy(&m, s->fused->st, sizeof m, cudaMemcpyDeviceToHost));
    printf("%s %s: loop of launched iterations %.5f ms, again %.5f; apply_dot alone %.5f, "
           "update_r alone %.5f, update_p alone %.5f (state at the end: stop %d, k %lld)\n",
           spec, spmv, it, it_again, d, r, p, m.stop, (long long)m.k);
    return 0;
}
