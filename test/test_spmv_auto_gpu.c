/* test/test_spmv_auto_gpu.c: "auto" on a GPU: the trial's report, the cache (a second setup
 * reads the decision, a corrupted file is timed again, auto.cache=off), the chosen plan's solve
 * against the fixed backend's bit for bit, block CG, allocation failures, a device view's
 * fingerprint (read on the device, the host CSR's); skips (77) without a GPU */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/matrix.h"
#include "spmv/auto/auto.h"
#include "testutil.h"

static mpcg_context *gpu;
static char dir[] = "/tmp/mpcg-test-auto-gpu-XXXXXX";

/* The cache files of dir ("auto-*.txt"): how many, and the path of the last one. */
static int cache_files(char *last, size_t size)
{
    int count = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, "auto-", 5) == 0) {
            count++;
            if (last) snprintf(last, size, "%s/%s", dir, e->d_name);
        }
    if (d) closedir(d);
    return count;
}

/* Set up and solve A x = b with backend `spmv` in precision p (options: "key=value" or NULL);
 * the choice and the info. */
static void run(mpcg_matrix *A, const char *spmv, mpcg_precision p, const char *option,
                const double *b, double *x, mpcg_backend_choice *choice, mpcg_info *info)
{
    mpcg_solver *S = NULL;
    memset(choice, 0, sizeof *choice);
    memset(info, 0, sizeof *info);
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++)
        x[i] = NAN;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    if (!S) return;
    CHECK_OK(gpu, mpcg_solver_set_spmv(S, spmv));
    CHECK_OK(gpu, mpcg_solver_set_precision(S, p));
    CHECK_OK(gpu, mpcg_solver_set_tol(S, p == MPCG_PRECISION_FP32 ? 1e-5 : 1e-8));
    if (option) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s", option);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        CHECK_OK(gpu, mpcg_solver_set_option(S, kv, eq + 1));
    }
    CHECK_OK(gpu, mpcg_solver_setup(S));
    CHECK_OK(gpu, mpcg_solver_backend_choice(S, choice));
    const int64_t before = mpcgi_alloc_device_attempts();
    CHECK_OK(gpu, mpcg_solve(S, b, x, info));
    CHECK(mpcgi_alloc_device_attempts() == before); /* the trial left nothing for the solve */
    /* fp64 converges; fp32 may stop on stagnation (bcsstk05 at 1e-5), the same way each run */
    CHECK((info->converged || p == MPCG_PRECISION_FP32) && info->reason != MPCG_REASON_NONE);
    CHECK(strcmp(info->backend, choice->chosen) == 0);
    mpcg_solver_destroy(S);
}

/* A trial's report: every backend of the build listed; the timed ones with their times and
 * score, the others with a reason; the chosen one the least score; the cost accounted. */
static void check_trial(const char *name, const mpcg_backend_choice *c)
{
    int timed = 0, chosen = -1;
    printf("  %s: %s (%s), %.0f expected SpMVs, cost %.4f s (%.1f SpMVs; H2D %.4f s, hash "
           "%.2g s); %s\n",
           name, c->chosen, c->source, c->expected_spmvs, c->trial_s,
           c->trial_cost_spmv_equivalents, c->trial_h2d_s, c->hash_s, c->note);
    CHECK(strcmp(c->source, "trial") == 0 && c->ncandidates == mpcg_backend_count());
    for (int i = 0; i < c->ncandidates; i++) {
        const mpcg_backend_candidate *k = &c->candidates[i];
        printf("    %-12s %s setup %.3g s (H2D %.3g), SpMV %.3g s, score %.3g %s\n", k->backend,
               k->skipped ? "skipped" : "timed  ", k->setup_s, k->setup_h2d_s, k->spmv_s,
               k->score_s, k->reason);
        if (k->skipped) {
            CHECK(k->reason[0] != '\0');
            continue;
        }
        timed++;
        CHECK(k->setup_s > 0 && k->spmv_s > 0 && k->setup_h2d_s <= k->setup_s);
        CHECK(test_close(k->score_s, k->setup_s + c->expected_spmvs * k->spmv_s, 1e-12, 0));
        if (!strcmp(k->backend, c->chosen)) chosen = i;
    }
    CHECK(timed >= 2 && chosen >= 0); /* adaptive and cusparse can run it (and fold, segscan) */
    for (int i = 0; chosen >= 0 && i < c->ncandidates; i++)
        CHECK(c->candidates[i].skipped ||
              c->candidates[i].score_s >= c->candidates[chosen].score_s);
    CHECK(c->trial_s > 0 && c->trial_h2d_s >= 0 && c->trial_h2d_s <= c->trial_s);
    /* a host matrix, two candidates or more: built from one device copy (spmv/auto/copy.c) */
    printf("    one device copy for the candidates: %.3g s\n", c->copy_s);
    CHECK(c->copy_s > 0);
    CHECK(chosen < 0 || test_close(c->trial_cost_spmv_equivalents,
                                   c->trial_s / c->candidates[chosen].spmv_s, 1e-12, 0));
    for (int i = 0; i < c->ncandidates; i++) /* refused by its caps or by auto's list */
        if (!strcmp(c->candidates[i].backend, "cpu") || !strcmp(c->candidates[i].backend, "gather"))
            CHECK(c->candidates[i].skipped);
}

/* 1 if x and y hold the same bits. */
static int same_bits(const double *x, const double *y, int64_t n)
{
    return memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

/* 1 if the backend's products are bit-identical from run to run (MPCG_CAP_DETERMINISTIC). */
static int deterministic(const char *name)
{
    mpcg_backend_info bi;
    for (int k = 0; k < mpcg_backend_count(); k++)
        if (mpcg_backend_get(k, &bi) == MPCG_SUCCESS && !strcmp(bi.name, name))
            return (bi.caps & MPCG_CAP_DETERMINISTIC) != 0;
    return 0;
}

/* Two solves with the same backend: the same x to the bit where it is deterministic, else the
 * same reason and iteration counts within one. */
static void check_same(const char *what, const char *backend, const mpcg_info *a, const double *xa,
                       const mpcg_info *b, const double *xb, int64_t n)
{
    if (deterministic(backend)) {
        if (a->iterations != b->iterations || !same_bits(xa, xb, n))
            fprintf(stderr, "  %s: %s: %lld against %lld iterations, or other bits\n", what,
                    backend, (long long)a->iterations, (long long)b->iterations);
        CHECK(a->iterations == b->iterations && same_bits(xa, xb, n));
    } else {
        CHECK(a->reason == b->reason && llabs(a->iterations - b->iterations) <= 1);
    }
}

/* First setup: the trial, written to the cache; second: read back, the same choice, the same
 * x to the bit; the fixed backend's solve: the same x to the bit where the backend is
 * deterministic. */
static void check_twice(const char *name, mpcg_matrix *A, mpcg_precision p)
{
    const int64_t n = mpcg_matrix_n(A);
    double *b = calloc((size_t)n, sizeof *b), *x1 = calloc((size_t)n, sizeof *x1),
           *x2 = calloc((size_t)n, sizeof *x2), *x3 = calloc((size_t)n, sizeof *x3);
    mpcg_backend_choice c1, c2, c3;
    mpcg_info i1, i2, i3;
    char what[96];
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0 + 0.5 * sin((double)i);
    const int files = cache_files(NULL, 0);
    snprintf(what, sizeof what, "%s %s", name, mpcg_precision_name(p));

    run(A, "auto", p, NULL, b, x1, &c1, &i1);
    run(A, "auto", p, NULL, b, x2, &c2, &i2);
    run(A, c1.chosen, p, NULL, b, x3, &c3, &i3);

    check_trial(what, &c1);
    /* no preconditioner on a small system: a persistent loop ahead, so auto timed only backends
     * that export rows (mpcgi_cg_variant_needs_rows) */
    printf("  %s: precond %s, variant %s (%s)\n", what, i1.precond, i1.variant, i1.variant_reason);
    for (int i = 0; !strcmp(i1.precond, "none") && i < c1.ncandidates; i++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(c1.candidates[i].backend);
        CHECK(ops && (c1.candidates[i].skipped || ops->rows));
    }
    CHECK(strstr(c1.note, "wrote") != NULL && cache_files(NULL, 0) == files + 1);
    printf("  %s again: %s (%s), cost %.4f s (%.2f SpMVs), hash %.2g s; %s\n", what, c2.chosen,
           c2.source, c2.trial_s, c2.trial_cost_spmv_equivalents, c2.hash_s, c2.note);
    CHECK(strcmp(c2.source, "cache") == 0 && strcmp(c2.chosen, c1.chosen) == 0);
    CHECK(strstr(c2.note, "read") != NULL && c2.ncandidates == c1.ncandidates);
    for (int i = 0; i < c2.ncandidates; i++)
        CHECK(!strcmp(c2.candidates[i].backend, c1.candidates[i].backend) &&
              c2.candidates[i].skipped == c1.candidates[i].skipped);
    CHECK(c2.trial_s >= c2.hash_s && c2.trial_s < c1.trial_s);
    CHECK(strcmp(c3.source, "fixed") == 0 && strcmp(c3.chosen, c1.chosen) == 0);
    check_same("trial, cache", c1.chosen, &i1, x1, &i2, x2, n);
    check_same("trial, fixed", c1.chosen, &i1, x1, &i3, x3, n);
    free(b), free(x1), free(x2), free(x3);
}

/* A corrupted cache file is ignored (noted), timed again and replaced; auto.cache=off neither
 * reads nor writes; another precision is another fingerprint. */
static void check_cache_paths(mpcg_matrix *A)
{
    const int64_t n = mpcg_matrix_n(A);
    double *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
    mpcg_backend_choice c;
    mpcg_info info;
    char path[512];
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    run(A, "auto", MPCG_PRECISION_FP64, NULL, b, x, &c, &info); /* read: check_twice wrote it */
    const int files = cache_files(NULL, 0);
    const char *at = strstr(c.note, dir); /* "read DIR/FILE" */
    snprintf(path, sizeof path, "%.*s", at ? (int)strcspn(at, ";") : 0, at ? at : "");
    CHECK(strcmp(c.source, "cache") == 0 && at != NULL);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs("mpcg-auto-cache 1\nnot what it should be\n", f), fclose(f);

    run(A, "auto", MPCG_PRECISION_FP64, NULL, b, x, &c, &info);
    printf("  corrupted: %s (%s); %s\n", c.chosen, c.source, c.note);
    CHECK(strcmp(c.source, "trial") == 0 && strstr(c.note, "ignored") && strstr(c.note, "wrote"));
    run(A, "auto", MPCG_PRECISION_FP64, NULL, b, x, &c, &info);
    CHECK(strcmp(c.source, "cache") == 0);
    run(A, "auto", MPCG_PRECISION_FP64, "auto.cache=off", b, x, &c, &info);
    CHECK(strcmp(c.source, "trial") == 0 && c.note[0] == '\0' && cache_files(NULL, 0) == files);
    run(A, "auto", MPCG_PRECISION_FP64, "auto.budget=0", b, x, &c, &info);
    CHECK(strcmp(c.source, "trial") == 0 && strcmp(c.chosen, c.candidates[0].backend) == 0);
    CHECK(c.candidates[1].skipped && strstr(c.candidates[1].reason, "over the budget"));
    free(b), free(x);
}

/* Block CG under auto: the setup is redone among the backends with a block product. */
static void check_block(mpcg_matrix *A)
{
    const int64_t n = mpcg_matrix_n(A);
    double *B = calloc((size_t)(2 * n), sizeof *B), *X = calloc((size_t)(2 * n), sizeof *X);
    mpcg_info infos[2];
    mpcg_solver *S = NULL;
    mpcg_backend_choice c;
    for (int64_t i = 0; i < 2 * n; i++)
        B[i] = 1.0 + (double)(i % 7);
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    if (!S) return;

    CHECK_OK(gpu, mpcg_solve_block(S, 2, B, X, infos));
    CHECK_OK(gpu, mpcg_solver_backend_choice(S, &c));

    printf("  block CG: %s (%s)\n", c.chosen, c.source);
    CHECK(infos[0].converged && infos[1].converged && strcmp(infos[0].backend, c.chosen) == 0);
    CHECK(!strcmp(c.chosen, "adaptive") || !strcmp(c.chosen, "cusparse")); /* those with SpMM */
    mpcg_solver_destroy(S);
    free(B), free(X);
}

/* b = 1 and x = 0, n doubles each (calloc: the caller frees both). */
static void ones_and_zeros(int64_t n, double **b, double **x)
{
    *b = calloc((size_t)n, sizeof **b), *x = calloc((size_t)n, sizeof **x);
    CHECK(*b && *x);
    for (int64_t i = 0; *b && i < n; i++)
        (*b)[i] = 1.0;
}

/* An fp64 solve that fuses the dot into its product (launched kernels) has that product timed;
 * an fp32 one, or one with a persistent loop ahead, the plain SpMV. Each is its own fingerprint
 * (a trial, not the cache of check_twice). */
static void check_timed_dot(mpcg_matrix *A)
{
    double *b = NULL, *x = NULL;
    ones_and_zeros(mpcg_matrix_n(A), &b, &x);
    mpcg_backend_choice c;
    mpcg_info info;
    run(A, "auto", MPCG_PRECISION_FP64, "cg.variant=launched", b, x, &c, &info);
    printf("  launched, fp64: %s (%s), timed_dot %d\n", c.chosen, c.source, c.timed_dot);
    CHECK(strcmp(c.source, "trial") == 0 && c.timed_dot == 1);
    run(A, "auto", MPCG_PRECISION_FP32, "cg.variant=launched", b, x, &c, &info);
    CHECK(strcmp(c.source, "trial") == 0 && c.timed_dot == 0);
    run(A, "auto", MPCG_PRECISION_FP64, "cg.variant=persistent-single", b, x, &c, &info);
    CHECK(c.timed_dot == 0);
    free(b), free(x);
}

/* The last close call of a trial (its INFO log line): the two backends and their times again. */
static struct {
    int count;
    char first[32], second[32];
    double ms[2];
} close_call;

static void close_log(mpcg_log_level level, const char *msg, void *user)
{
    (void)user;
    char a[32], b[32];
    double ta, tb;
    if (level != MPCG_LOG_INFO || !strstr(msg, "timed again")) return;
    const char *at = strstr(msg, "SpMVs each: ");
    if (sscanf(msg, "auto: %31s and %31s within", a, b) != 2 || !at ||
        sscanf(at, "SpMVs each: %lf and %lf ms", &ta, &tb) != 2)
        return;
    close_call.count++;
    snprintf(close_call.first, sizeof close_call.first, "%s", a);
    snprintf(close_call.second, sizeof close_call.second, "%s", b);
    close_call.ms[0] = ta, close_call.ms[1] = tb;
}

/* A close call times the two candidates again and the report carries the second medians.
 * auto.close_pct=100000 makes every candidate after the first a close call with the kept plan
 * (a log line each; the last one's times are the two candidates' spmv_s); 0 makes none. */
static void check_close_call(mpcg_matrix *A)
{
    double *b = NULL, *x = NULL;
    ones_and_zeros(mpcg_matrix_n(A), &b, &x);
    mpcg_backend_choice c;
    mpcg_info info;
    for (int all = 1; all >= 0; all--) {
        memset(&close_call, 0, sizeof close_call);
        CHECK_OK(gpu, mpcg_context_set_log(gpu, MPCG_LOG_INFO, close_log, NULL));
        run(A, "auto", MPCG_PRECISION_FP64, all ? "auto.close_pct=100000" : "auto.close_pct=0", b,
            x, &c, &info);
        CHECK_OK(gpu, mpcg_context_set_log(gpu, MPCG_LOG_WARN, NULL, NULL));
        int timed = 0;
        for (int i = 0; i < c.ncandidates; i++)
            timed += !c.candidates[i].skipped;
        printf("  auto.close_pct=%s: %d close calls over %d timed; the last %s %.4g ms and %s "
               "%.4g ms\n",
               all ? "100000" : "0", close_call.count, timed, close_call.first, close_call.ms[0],
               close_call.second, close_call.ms[1]);
        CHECK(strcmp(c.source, "trial") == 0);
        CHECK(close_call.count == (all ? timed - 1 : 0));
        for (int i = 0; close_call.count && i < c.ncandidates; i++)
            for (int w = 0; w < 2; w++)
                if (!strcmp(c.candidates[i].backend, w ? close_call.second : close_call.first))
                    CHECK(test_close(c.candidates[i].spmv_s * 1e3, close_call.ms[w], 1e-3, 0));
    }
    free(b), free(x);
}

/* An allocation failure at every step of auto's setup: a candidate that fails is skipped and the
 * trial goes on, or the setup fails with an allocation status; nothing leaks either way. */
static void check_oom_sweep(mpcg_matrix *A)
{
    mpcg_solver *S = NULL;
    mpcg_backend_choice c;
    int64_t live = mpcgi_alloc_live(), skipped = 0, failed = 0;
    CHECK_OK(gpu, mpcg_solver_create(gpu, A, &S));
    CHECK_OK(gpu, mpcg_solver_set_precond(S, MPCG_PRECOND_NONE)); /* plain CG */
    if (!S) return;
    CHECK_OK(gpu, mpcg_solver_set_option(S, "auto.cache", "off"));
    mpcgi_alloc_fail_at(-1);
    CHECK_OK(gpu, mpcg_solver_setup(S));
    const int64_t attempts = mpcgi_alloc_attempts();
    for (int64_t k = 0; k < attempts; k++) {
        mpcgi_alloc_fail_at(k);

        mpcg_status st = mpcg_solver_setup(S);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) {
            CHECK_OK(gpu, mpcg_solver_backend_choice(S, &c));
            CHECK(mpcg_last_error(gpu)[0] == '\0'); /* a skipped candidate's error is not kept */
            for (int i = 0; i < c.ncandidates; i++)
                skipped += strstr(c.candidates[i].reason, "failed:") != NULL;
        } else {
            CHECK(st == MPCG_ERR_DEVICE_ALLOC || st == MPCG_ERR_HOST_ALLOC);
            failed++;
            mpcg_clear_error(gpu);
        }
    }
    mpcg_solver_destroy(S);
    printf("  allocation sweep: %lld attempts, %lld candidates skipped, %lld setups failed\n",
           (long long)attempts, (long long)skipped, (long long)failed);
    CHECK(skipped > 0 && failed > 0 && mpcgi_alloc_live() == live);
}

/* A device view of A: its sampled fingerprint is read on the device (no host copy of the
 * matrix) and equals A's, so the view's setup reads the decision check_twice stored for A, and
 * solves as A's plan does. */
static void check_view(mpcg_matrix *A)
{
    const int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    void *d_rp = NULL, *d_ci = NULL, *d_va = NULL;
    mpcg_matrix *V = NULL;
    CHECK_OK(gpu, mpcg_matrix_csr(A, &rp, &ci, &va));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, (size_t)(n + 1) * 8, &d_rp));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, (size_t)nnz * 4, &d_ci));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, (size_t)nnz * 8, &d_va));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_rp, rp, (size_t)(n + 1) * 8, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_ci, ci, (size_t)nnz * 4, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_va, va, (size_t)nnz * 8, MPCGI_H2D));
    CHECK_OK(gpu, mpcg_matrix_view_device_csr(gpu, n, nnz, d_rp, MPCG_INDEX_INT64, d_ci, d_va,
                                              &V));
    if (V) {
        const mpcgi_auto_request r = {.precision = MPCG_PRECISION_FP64,
                                      .precisions = MPCG_CAP_FP64,
                                      .apply = MPCG_PRECISION_FP64,
                                      .opts = NULL,
                                      .maxit = 1000};
        mpcgi_auto_key kh, kv;
        CHECK_OK(gpu, mpcgi_auto_key_make(gpu, &A->csr, &r, &kh));
        CHECK_OK(gpu, mpcgi_auto_key_make(gpu, &V->csr, &r, &kv));
        CHECK(strcmp(kh.text, kv.text) == 0 && strcmp(kh.file, kv.file) == 0);
        CHECK(V->csr.mirror < MPCGI_MIRROR_FULL); /* no host copy of the matrix for it */
        double *b = calloc((size_t)n, sizeof *b), *xa = calloc((size_t)n, sizeof *xa),
               *xv = calloc((size_t)n, sizeof *xv);
        mpcg_backend_choice ca, cv;
        mpcg_info ia, iv;
        for (int64_t i = 0; i < n; i++)
            b[i] = 1.0 + 0.5 * sin((double)i);
        run(A, "auto", MPCG_PRECISION_FP64, NULL, b, xa, &ca, &ia);
        run(V, "auto", MPCG_PRECISION_FP64, NULL, b, xv, &cv, &iv);
        printf("  view: %s (%s), host CSR: %s (%s); %s\n", cv.chosen, cv.source, ca.chosen,
               ca.source, cv.note);
        CHECK(strcmp(cv.source, "cache") == 0 && strcmp(cv.chosen, ca.chosen) == 0);
        CHECK(iv.converged && test_iterations_close("view", iv.iterations, ia.iterations));
        free(b), free(xa), free(xv);
    }
    mpcg_matrix_destroy(V);
    mpcgi_device_free(gpu, d_rp);
    mpcgi_device_free(gpu, d_ci);
    mpcgi_device_free(gpu, d_va);
}

int main(void)
{
    test_init_seed("test_spmv_auto_gpu");
    if (mpcg_device_count() == 0) {
        printf("test_spmv_auto_gpu: no usable GPU, skipped\n");
        return TEST_SKIP;
    }
    CHECK(mkdtemp(dir) != NULL);
    CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    if (!gpu) return test_finish("test_spmv_auto_gpu");
    CHECK_OK(gpu, mpcg_context_set_cache_dir(gpu, dir));
    const char *files[] = {"bcsstk05.mtx", "gr_30_30.mtx"};
    for (int f = 0; f < 2; f++) {
        mpcg_matrix *A = NULL;
        CHECK_OK(gpu, mpcg_matrix_read_mm(gpu, test_data(files[f]), &A));
        if (!A) continue;
        check_twice(files[f], A, MPCG_PRECISION_FP64);
        check_twice(files[f], A, MPCG_PRECISION_FP32);
        if (f == 1) check_cache_paths(A), check_view(A), check_block(A), check_oom_sweep(A);
        if (f == 1) check_timed_dot(A), check_close_call(A);
        mpcg_matrix_destroy(A);
    }
    mpcg_context_destroy(gpu);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return test_finish("test_spmv_auto_gpu");
}
