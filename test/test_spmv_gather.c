/* test/test_spmv_gather.c: the gather backend (fold's layout with x gathered ahead of the
 * product, the Fold paper's memory accelerator emulated on the GPU): the checks of
 * test/spmv_check.h against fold's bits on fold's matrices; gather's two steps composing to
 * apply; the out-of-core mode: its tiles against the slot-major layout, its chunk size and
 * model, and out-of-core plans against fold's emulation (apply, apply_dot, value updates, a
 * device-memory limit with no room for a chunk) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/cuda_check.h"
#include "core/device.h"
#include "spmv/fold/gather_ooc.h"
#include "spmv/fold/impl.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

#define cpu spmv_check_cpu
#define gpu spmv_check_gpu
#define options_of spmv_check_options

/* The gather backend's steps: gather then direct equal apply, bit for bit; no third step. */
static void test_gather_steps(mpcgi_rng *g)
{
    mpcgi_csr A;
    double *x = NULL, *y1 = NULL, *y2 = NULL, *dx = NULL, *dy = NULL;
    mpcgi_spmv_plan *plan = NULL;
    if (!gpu || test_random_csr(g, 999, 20, 1, &A) != 0) return;
    const size_t b = (size_t)A.n * 8;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &y1));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &y2));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    const char *const kv[] = {"fold.width=3", NULL}; /* folded rows: the fixup runs too */
    mpcgi_options o;
    options_of(kv, &o);
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o, &plan));
    if (x && y1 && y2 && dx && dy && plan) {
        for (int64_t i = 0; i < A.n; i++)
            x[i] = 2 * mpcgi_rng_uniform(g) - 1;
        CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, dx, dy));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, y1, dy, b, MPCGI_D2H));
        CHECK_OK(gpu,
                 MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
        CHECK_OK(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 0));
        CHECK_OK(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 1));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, y2, dy, b, MPCGI_D2H));
        CHECK(memcmp(y1, y2, b) == 0);
        CHECK_STATUS(gpu, mpcgi_spmv_apply_phase(gpu, plan, MPCG_PRECISION_FP64, dx, dy, 2),
                     MPCG_ERR_NOT_SUPPORTED);
        mpcg_clear_error(gpu);
    }
    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy);
    mpcgi_host_free(x), mpcgi_host_free(y1), mpcgi_host_free(y2);
    mpcgi_csr_free(&A);
}

/* The out-of-core tiles (chunks of C threads): every slot where mpcgi_fold_tile_at puts it,
 * chunk boundaries inside folded rows, the last chunk padded; per thread the same sum as the
 * slot-major layout, bit for bit. */
static void test_tiles(mpcgi_rng *g)
{
    int64_t len[300];
    for (int i = 0; i < 300; i++)
        len[i] = 1 + (int64_t)mpcgi_rng_below(g, 6);
    len[5] = 200, len[77] = 0, len[150] = 61; /* folded across chunk boundaries at F = 4 */
    const char *const kv[] = {"fold.width=4", NULL};
    mpcgi_csr A;
    mpcgi_options o;
    mpcgi_spmv_plan *plan = NULL;
    options_of(kv, &o);
    if (spmv_check_skew_csr(g, 300, len, &A) != 0) return;
    double x[300], y[300];
    for (int i = 0; i < 300; i++)
        x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, &A, MPCG_CAP_FP64, &o, &plan));
    if (plan) CHECK_OK(cpu, mpcgi_spmv_apply(cpu, plan, MPCG_PRECISION_FP64, x, y)); /* builds */
    const mpcgi_fold_plan *fp = plan ? plan->impl : NULL;
    for (int64_t C = 32; fp && fp->val64 && C <= 128; C *= 2) {
        const mpcgi_fold_layout *L = &fp->L;
        const int64_t tiles = mpcgi_fold_tiles(L, C);
        const size_t all = (size_t)tiles * (size_t)L->F * (size_t)C;
        int32_t *tc = NULL;
        double *tv = NULL;
        CHECK(tiles * C >= L->np && (tiles - 1) * C < L->np);
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, all, sizeof *tc, &tc));
        CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, all, sizeof *tv, &tv));
        if (tc && tv) {
            mpcgi_fold_tile_cols(L, C, tc);
            mpcgi_fold_tile_f64(L, &A, C, A.val, tv);
            int64_t bad = 0;
            for (int64_t t = 0; t < tiles * C; t++) {
                double a1 = 0, a2 = 0;
                for (int k = 0; k < L->F; k++) {
                    const size_t at = mpcgi_fold_tile_at(L->F, C, t, k);
                    if (t < L->np) {
                        const size_t sm = (size_t)k * (size_t)L->np + (size_t)t;
                        bad += tc[at] != L->col[sm] || memcmp(&tv[at], &fp->val64[sm], 8) != 0;
                        a1 = fma(fp->val64[sm], x[L->col[sm]], a1);
                    } else {
                        bad += tc[at] != 0 || tv[at] != 0;
                    }
                    a2 = fma(tv[at], x[tc[at]], a2);
                }
                bad += memcmp(&a1, &a2, 8) != 0;
            }
            if (bad) printf("  tiles C = %lld: %lld mismatches\n", (long long)C, (long long)bad);
            CHECK(bad == 0);
        }
        mpcgi_host_free(tc), mpcgi_host_free(tv);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_csr_free(&A);
}

/* The out-of-core chunk size from a device-memory limit, and the fp64-only refusal. */
static void test_ooc_rules(void)
{
    /* n = 1000, F = 7, np = 1024: the reserve is 8 n doubles = 64000 bytes; 3 x 7 x 16 = 336
     * bytes a thread; chunks are whole blocks of 256 threads */
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 1000, 7, 1024) == 1024);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000, 0, 1000, 7, 1024) == 0);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 255, 0, 1000, 7, 1024) == 0);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 600, 0, 1000, 7, 1024) == 512);
    CHECK(mpcgi_gather_ooc_chunk_threads(64000 + 336 * 600 + 5000, 5000, 1000, 7, 1024) == 512);
    CHECK(mpcgi_gather_ooc_chunk_threads((size_t)1 << 40, 0, 1000, 7, 1024) == 1024);
    /* no limit, many threads: a sixteenth (625 000 -> 625 152), within 4 - 64 MiB of values a
     * chunk (F = 81: at most 103 563 -> 103 424; 1 000 000 threads at F = 7: 4 MiB, 75 008) */
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 10000000, 7, 10000000) == 625152);
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 10000000, 81, 10000000) == 103424);
    CHECK(mpcgi_gather_ooc_chunk_threads(0, 0, 1000000, 7, 1000000) == 75008);
    /* the model's pipeline: one chunk runs its stages in a row (x 1, values 1, gather 4 after
     * x, gathered x 1, kernel 0.5: 6.5 ms); four copy-bound chunks take the link's 16 ms and
     * one kernel */
    mpcgi_gather_ooc_timing m = {
        .link_gbs = 1, .x_ms = 1, .gather_ms = 4, .kernel_ms = 0.5, .copy_bytes = 2e6, .chunks = 1};
    CHECK(fabs(mpcgi_gather_ooc_predict(&m) - 6.5) < 1e-12);
    m = (mpcgi_gather_ooc_timing){
        .link_gbs = 1, .x_ms = 0, .gather_ms = 4, .kernel_ms = 2, .copy_bytes = 16e6, .chunks = 4};
    CHECK(fabs(mpcgi_gather_ooc_predict(&m) - 16.5) < 1e-12);
    int64_t rp[2] = {0, 0};
    mpcgi_csr A = {.n = 1, .nnz = 0, .row_ptr = rp};
    const char *const kv[] = {"gather.ooc=on", NULL};
    mpcgi_options o;
    mpcgi_spmv_plan *plan = NULL;
    options_of(kv, &o);
    CHECK_STATUS(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP32, &o, &plan),
                 MPCG_ERR_NOT_SUPPORTED);
    CHECK(plan == NULL && strstr(mpcg_last_error(cpu), "gather.ooc=on runs fp64 only"));
    mpcg_clear_error(cpu);
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o, &plan));
    mpcgi_spmv_plan_destroy(cpu, plan);
}

/* One out-of-core plan (GPU) of A against fold's emulation: apply twice into poisoned y (fold's
 * bits), apply_dot (apply's y; the dot close to x.y and the in-core plan's apply_dot dot, bit for
 * bit), then new values (A's scaled and shifted: the pinned tiles rewritten) and apply again.
 * With gather.model=on the description carries the model. */
static void ooc_case(mpcgi_csr *A, const char *const *kv, int model, mpcgi_rng *g)
{
    const size_t b = (size_t)A->n * 8;
    double *x = NULL, *want = NULL, *got = NULL, *dx = NULL, *dy = NULL, *ddot = NULL, dot = 0;
    mpcgi_spmv_plan *emu = NULL, *plan = NULL, *incore = NULL;
    double dot_in = 0;
    mpcgi_options o;
    options_of(kv, &o);
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &x));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &want));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, b, &got));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dx));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, b, &dy));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 8, &ddot));
    CHECK_OK(cpu, mpcgi_spmv_plan_create(cpu, &mpcgi_spmv_fold, A, MPCG_CAP_FP64, NULL, &emu));
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, A, MPCG_CAP_FP64, &o, &plan));
    CHECK_OK(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, A, MPCG_CAP_FP64, NULL, &incore));
    if (!(x && want && got && dx && dy && ddot && emu && plan && incore)) goto done;
    for (int64_t i = 0; i < A->n; i++)
        x[i] = 2 * mpcgi_rng_uniform(g) - 1;
    CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, want));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, dx, x, b, MPCGI_H2D));
    for (int rep = 0; rep < 3; rep++) {
        if (rep == 2) { /* new values, the same pattern */
            for (int64_t k = 0; k < A->nnz; k++)
                A->val[k] = 0.25 - 1.5 * A->val[k];
            CHECK_OK(cpu, mpcgi_spmv_plan_update_values(cpu, emu, A));
            CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, plan, A));
            CHECK_OK(cpu, mpcgi_spmv_apply(cpu, emu, MPCG_PRECISION_FP64, x, want));
        }
        CHECK_OK(gpu,
                 MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
        CHECK_OK(gpu, mpcgi_spmv_apply(gpu, plan, MPCG_PRECISION_FP64, dx, dy));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, got, dy, b, MPCGI_D2H));
        CHECK(memcmp(got, want, b) == 0);
    }
    CHECK_OK(gpu, mpcgi_spmv_plan_update_values(gpu, incore, A));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, incore, dx, dy, ddot, NULL));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dot_in, ddot, 8, MPCGI_D2H));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(dy, 0xff, b, mpcg_context_stream(gpu))));
    CHECK_OK(gpu, MPCGI_CUDA_STATUS(gpu, cudaMemsetAsync(ddot, 0xff, 8, mpcg_context_stream(gpu))));
    CHECK_OK(gpu, mpcgi_spmv_apply_dot(gpu, plan, dx, dy, ddot, NULL));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, got, dy, b, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, &dot, ddot, 8, MPCGI_D2H));
    CHECK(memcmp(got, want, b) == 0);
    long double ref = 0, sc = 0;
    for (int64_t i = 0; i < A->n; i++)
        ref += (long double)x[i] * want[i], sc += fabsl((long double)x[i] * want[i]);
    CHECK(fabsl(dot - ref) <= (long double)(A->n + 2) * DBL_EPSILON * sc);
    CHECK(memcmp(&dot, &dot_in, 8) == 0);
    char d[768];
    mpcgi_spmv_describe(plan, d, sizeof d);
    CHECK(strstr(d, "out-of-core") && !strstr(d, "predicted") == !model);
done:
    mpcgi_spmv_plan_destroy(gpu, plan), mpcgi_spmv_plan_destroy(cpu, emu);
    mpcgi_spmv_plan_destroy(gpu, incore);
    mpcgi_device_free(gpu, dx), mpcgi_device_free(gpu, dy), mpcgi_device_free(gpu, ddot);
    mpcgi_host_free(x), mpcgi_host_free(want), mpcgi_host_free(got);
}

/* Out-of-core (GPU): chunks of 256 threads (a folded row's pieces across a chunk boundary, the
 * last chunk partial), with and without the model; a device-memory limit with no room for one chunk
 * is refused when the plan is set up. */
static void test_ooc(mpcgi_rng *g)
{
    int64_t len[2000];
    mpcgi_csr A;
    for (int i = 0; i < 2000; i++)
        len[i] = 1 + (int64_t)mpcgi_rng_below(g, 9);
    len[10] = 700, len[1999] = 300, len[500] = 0;
    if (!gpu || spmv_check_skew_csr(g, 2000, len, &A) != 0) return;
    const char *const kv[] = {"gather.ooc=on", "gather.chunk=256", NULL};
    const char *const kvm[] = {"gather.ooc=on", "gather.chunk=256", "gather.model=on", NULL};
    ooc_case(&A, kv, 0, g);
    ooc_case(&A, kvm, 1, g);
    mpcgi_spmv_plan *plan = NULL;
    mpcgi_options o;
    const char *const kv2[] = {"gather.ooc=on", NULL};
    options_of(kv2, &o);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, 64 * 1024));
    CHECK_STATUS(gpu, mpcgi_spmv_plan_create(gpu, &mpcgi_spmv_gather, &A, MPCG_CAP_FP64, &o, &plan),
                 MPCG_ERR_DEVICE_ALLOC);
    CHECK(plan == NULL && strstr(mpcg_last_error(gpu), "leaves no room for one out-of-core chunk"));
    mpcg_clear_error(gpu);
    CHECK_OK(gpu, mpcg_context_set_device_memory_limit(gpu, 0));
    mpcgi_csr_free(&A);
    /* rows of one length: nothing folded, the fixups only sum the blocks' parts (in-core after
     * the SpMV, out-of-core after the last chunk): the same bits */
    for (int i = 0; i < 2000; i++)
        len[i] = 5;
    if (spmv_check_skew_csr(g, 2000, len, &A) != 0) return;
    ooc_case(&A, kv, 0, g);
    mpcgi_csr_free(&A);
}

int main(void)
{
    mpcgi_rng g;
    if (spmv_check_start("test_spmv_gather", &g) != 0) return test_finish("test_spmv_gather");
    test_tiles(&g);
    test_ooc_rules();
    /* gather is fold with x pre-gathered: fold's bits, at fold's default width */
    spmv_check_target gather = {&mpcgi_spmv_gather, 1};
    spmv_check_fold_shapes(&g, spmv_check_with_defaults, &gather);
    test_gather_steps(&g);
    test_ooc(&g);
    return spmv_check_finish("test_spmv_gather");
}
