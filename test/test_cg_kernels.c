/* test/test_cg_kernels.c: the fused CG kernels of core/cg_kernels.cu: the deferred x update, the
 * reduction's grid */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "core/cg_kernels.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "test/testutil.h"

static mpcg_context *cpu;

static double *vec(int64_t n)
{
    double *v = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *v, &v));
    return v;
}

/* ---------------------------------------------------------------- GPU: the update kernels */

#define UN 1000 /* rows of the kernel checks: not a multiple of the block */

/* Device vectors x, p, q, r (UN each) and the state with its partials. */
typedef struct upd {
    double *v;
    mpcgi_cg_state *st;
    cudaStream_t stream;
} upd;

/* Run mpcgi_cg_update_r then mpcgi_cg_update_p from the host state *h and vectors x, p, q, r
 * (4 UN doubles); both come back updated. */
static void run_updates(upd *u, mpcgi_cg_state *h, double *xpqr)
{
    double *x = u->v, *p = x + UN, *q = p + UN, *r = q + UN;
    h->x = x;
    CHECK(cudaMemcpy(u->v, xpqr, 4 * UN * sizeof(double), cudaMemcpyHostToDevice) == 0);
    CHECK(cudaMemcpy(u->st, h, sizeof *h, cudaMemcpyHostToDevice) == 0);
    CHECK(mpcgi_cg_update_r(u->stream, UN, q, r, u->st, (double *)(u->st + 1)) == 0);
    CHECK(mpcgi_cg_update_p(u->stream, UN, r, p, u->st) == 0);
    CHECK(cudaStreamSynchronize(u->stream) == 0);
    CHECK(cudaMemcpy(xpqr, u->v, 4 * UN * sizeof(double), cudaMemcpyDeviceToHost) == 0);
    CHECK(cudaMemcpy(h, u->st, sizeof *h, cudaMemcpyDeviceToHost) == 0);
}

/* p.q over 3 * 2^20 + 5 rows: the reduction's grid stays within the MPCGI_CG_BLOCKS partials
 * after the state (a canary after them is untouched) and the sum of small integers is exact: a
 * grid helper of core/launch.cuh with the name of core/cuda_reduce.cuh's, taken by
 * core/cg_kernels.cu from 2^20 rows on, would launch 3073 blocks and write 2049 partials past the
 * end. */
static void test_reduction_grid(void)
{
    const int64_t n = 3 * ((int64_t)1 << 20) + 5;
    const size_t canary = 65536, head = sizeof(mpcgi_cg_state) + MPCGI_CG_BLOCKS * sizeof(double);
    double *pq = NULL, *hp = NULL;
    unsigned char *blk = NULL, *tail = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)(2 * n), sizeof *hp, &hp));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, canary, &tail));
    CHECK(cudaMalloc((void **)&pq, (size_t)(2 * n) * sizeof(double)) == 0);
    CHECK(cudaMalloc((void **)&blk, head + canary) == 0);
    if (!hp || !tail || !pq || !blk) goto done;
    double want = 0;
    for (int64_t i = 0; i < n; i++) {
        hp[i] = 1.0 + (double)(i % 3);
        hp[n + i] = (double)(i % 7) - 3.0;
        want += hp[i] * hp[n + i]; /* integers below 2^53: exact in any order */
    }
    CHECK(cudaMemcpy(pq, hp, (size_t)(2 * n) * sizeof(double), cudaMemcpyHostToDevice) == 0);
    CHECK(cudaMemset(blk, 0, head) == 0);
    CHECK(cudaMemset(blk + head, 0x5a, canary) == 0);
    mpcgi_cg_state *st = (mpcgi_cg_state *)blk;
    CHECK(mpcgi_cg_dot_pq(NULL, n, pq, pq + n, st, (double *)(st + 1)) == 0);
    CHECK(cudaDeviceSynchronize() == 0);
    mpcgi_cg_state h;
    CHECK(cudaMemcpy(&h, st, sizeof h, cudaMemcpyDeviceToHost) == 0);
    CHECK(cudaMemcpy(tail, blk + head, canary, cudaMemcpyDeviceToHost) == 0);
    CHECK(h.pq == want && h.arrived == 0);
    size_t hit = 0;
    for (size_t i = 0; i < canary; i++)
        hit += tail[i] != 0x5a;
    if (hit) fprintf(stderr, "  dot_pq wrote %zu bytes past its partials\n", hit);
    CHECK(hit == 0);
done:
    cudaFree(pq), cudaFree(blk);
    mpcgi_host_free(hp), mpcgi_host_free(tail);
}

/*
 * The x update deferred from mpcgi_cg_update_r to mpcgi_cg_update_p: a running update moves r,
 * x and p; the update that converges moves r and x, not p; a stopped state or a curvature stop
 * moves nothing; xpend says which, and the next update_r clears it.
 */
static void test_update_kernels(void)
{
    upd u = {0};
    double *v0 = vec(4 * UN), *v = vec(4 * UN);
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ 77);
    for (int i = 0; i < 4 * UN; i++) v0[i] = 2 * mpcgi_rng_uniform(&g) - 1;
    CHECK(cudaMalloc((void **)&u.v, 4 * UN * sizeof(double)) == 0);
    CHECK(cudaMalloc((void **)&u.st, sizeof *u.st + MPCGI_CG_BLOCKS * sizeof(double)) == 0);
    CHECK(cudaMemset(u.st, 0, sizeof *u.st + MPCGI_CG_BLOCKS * sizeof(double)) == 0);
    CHECK(cudaStreamCreate(&u.stream) == 0);
    const double *x0 = v0, *p0 = v0 + UN, *q0 = v0 + 2 * UN, *r0 = v0 + 3 * UN;
    double *x = v, *p = v + UN, *r = v + 3 * UN;

    for (int converge = 0; converge < 2; converge++) { /* rr = 2, pq = 4: alpha = 0.5 */
        mpcgi_cg_state h = {.rr = 2, .pq = 4, .kmax = 100, .threshold = converge ? 1e300 : 0};
        double rr = 0;
        memcpy(v, v0, 4 * UN * sizeof *v);
        run_updates(&u, &h, v);
        for (int i = 0; i < UN; i++) rr += r[i] * r[i];
        CHECK(h.k == 1 && h.xpend == 1 && h.alpha == 0.5 && h.arrived == 0);
        CHECK(h.stop == (converge ? MPCGI_CG_STOP_CONVERGED : MPCGI_CG_RUNNING));
        CHECK(test_close(h.rr_new, rr, 1e-13, 0) && test_close(h.beta, h.rr_new / 2, 1e-15, 0));
        for (int i = 0; i < UN; i++) { /* O(1) values: within 1e-15, fused or not */
            CHECK(test_close(r[i], r0[i] - 0.5 * q0[i], 1e-15, 1.0));
            CHECK(test_close(x[i], x0[i] + 0.5 * p0[i], 1e-15, 1.0));
            if (converge) CHECK(memcmp(&p[i], &p0[i], sizeof *p) == 0);
            else CHECK(test_close(p[i], r[i] + h.beta * p0[i], 1e-15, 1.0));
        }
        /* the next update after the stop: nothing moves, xpend cleared */
        if (converge) {
            double *w = vec(4 * UN);
            memcpy(w, v, 4 * UN * sizeof *w);
            run_updates(&u, &h, w);
            CHECK(memcmp(w, v, 4 * UN * sizeof *w) == 0 && h.xpend == 0 && h.k == 1);
            mpcgi_host_free(w);
        }
    }
    /* a curvature stop (p.q < 0): nothing moves, xpend cleared even where it was set */
    mpcgi_cg_state h = {.rr = 2, .pq = -4, .kmax = 100, .xpend = 1, .alpha = 3};
    memcpy(v, v0, 4 * UN * sizeof *v);
    run_updates(&u, &h, v);
    CHECK(memcmp(v, v0, 4 * UN * sizeof *v) == 0);
    CHECK(h.stop == MPCGI_CG_STOP_INDEFINITE && h.xpend == 0 && h.k == 0);
    cudaStreamDestroy(u.stream);
    cudaFree(u.v), cudaFree(u.st);
    mpcgi_host_free(v0), mpcgi_host_free(v);
}

int main(void)
{
    test_init_seed("test_cg_kernels");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_cg_kernels");
    if (mpcgi_device_count() == 0) {
        printf("test_cg_kernels: no usable GPU, skipped\n");
        mpcg_context_destroy(cpu);
        return TEST_SKIP;
    }
    test_update_kernels();
    test_reduction_grid();
    mpcg_context_destroy(cpu);
    return test_finish("test_cg_kernels");
}
