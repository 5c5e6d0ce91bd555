/* test/test_spmv_auto.c: "auto" without a GPU: the rule, the expected SpMVs, the budget, the
 * fingerprint, the cache record (round trip, corrupted, disabled), the trial on CPU plans, and
 * auto on a CPU context (the cpu backend, no trial) */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cache.h"
#include "core/context.h"
#include "core/matrix.h"
#include "solver/options.h"
#include "spmv/auto/auto.h"
#include "testutil.h"

static mpcg_context *ctx;

static mpcg_backend_candidate cand(const char *name, int skipped, double setup_s, double spmv_s)
{
    mpcg_backend_candidate c = {
        .backend = name, .skipped = skipped, .setup_s = setup_s, .spmv_s = spmv_s};
    return c;
}

/* setup + E x SpMV, the smallest wins, skipped ones never, ties to the earlier. */
static void test_decide(void)
{
    mpcg_backend_candidate c[4] = {cand("a", 0, 1.0, 0.010), cand("b", 0, 2.0, 0.005),
                                   cand("c", 1, 0.0, 0.0), cand("d", 0, 0.5, 0.020)};

    CHECK(mpcgi_auto_decide(c, 4, 0.0) == 3); /* no SpMVs expected: the cheapest setup */
    CHECK(c[3].score_s == 0.5 && c[2].score_s == 0.0);
    CHECK(mpcgi_auto_decide(c, 4, 100.0) == 0); /* 2.0, 2.5, -, 2.5 */
    CHECK(c[0].score_s == 2.0 && c[1].score_s == 2.5);
    CHECK(mpcgi_auto_decide(c, 4, 1000.0) == 1); /* 11, 7, -, 20.5: the fastest SpMV */
    c[1].setup_s = 1.5;
    CHECK(mpcgi_auto_decide(c, 4, 100.0) == 0); /* 2.0 = 2.0: the earlier */
    c[0].skipped = c[1].skipped = c[3].skipped = 1;
    CHECK(mpcgi_auto_decide(c, 4, 100.0) == -1);
    CHECK(mpcgi_auto_decide(c, 0, 100.0) == -1);
}

/* min(maxit, max(100, sqrt(n))), or auto.iterations. */
static void test_expected(void)
{
    mpcgi_options o = {0};

    CHECK(mpcgi_auto_expected_spmvs(NULL, 1000000, 10000000) == 1000.0);
    CHECK(mpcgi_auto_expected_spmvs(NULL, 400, 4000) == 100.0);
    CHECK(mpcgi_auto_expected_spmvs(NULL, 1000000, 50) == 50.0);
    CHECK(mpcgi_auto_expected_spmvs(NULL, 1000000, 0) == 0.0);
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &o, "auto.iterations", "7"));
    CHECK(mpcgi_auto_expected_spmvs(&o, 1000000, 50) == 7.0);
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &o, "auto.iterations", "auto"));
    CHECK(mpcgi_auto_expected_spmvs(&o, 1000000, 5000) == 1000.0);
    CHECK_STATUS(ctx, mpcgi_options_set_text(ctx, &o, "auto.iterations", "-1"),
                 MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_options_set_text(ctx, &o, "auto.cache", "maybe"), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "on, off") != NULL);
    mpcg_clear_error(ctx);
}

/* spent + predicted + (1 + reps) t_best <= budget t_best; no cap for budget < 0. */
static void test_budget(void)
{
    CHECK(mpcgi_auto_fits(-1, 1e9, 1e9, 1e-3, 4));
    CHECK(mpcgi_auto_fits(20, 0.005, 0.010, 1e-3, 4));  /* 5 + 10 + 4 = 19 */
    CHECK(!mpcgi_auto_fits(20, 0.005, 0.012, 1e-3, 4)); /* 21 */
    CHECK(!mpcgi_auto_fits(20, 0.005, 0.010, 1e-3, 6)); /* 5 + 10 + 6 = 21: a GPU's 2 + 4 */
    CHECK(!mpcgi_auto_fits(0, 0, 0, 1e-3, 2));
}

/* A request of an fp64 solve with options o. */
static mpcgi_auto_request request(const mpcgi_options *o, mpcg_precision p)
{
    mpcgi_auto_request r = {.precision = p,
                            .precisions = p == MPCG_PRECISION_FP64 ? MPCG_CAP_FP64
                                          : p == MPCG_PRECISION_FP32
                                              ? MPCG_CAP_FP64 | MPCG_CAP_FP32
                                              : MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE,
                            .apply = p == MPCG_PRECISION_FP64 ? p : MPCG_PRECISION_FP32,
                            .opts = o,
                            .maxit = 1000};
    return r;
}

/* The fingerprint: stable, and changed by the pattern, the precision, a block product and the
 * options (not by auto.cache, nor by the values). */
static void test_key(mpcg_matrix *M)
{
    mpcgi_options o = {0}, off = {0};
    mpcgi_auto_request r = request(&o, MPCG_PRECISION_FP64);
    mpcgi_auto_key k1, k2, k;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k1));
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k2));

    CHECK(strcmp(k1.text, k2.text) == 0 && strcmp(k1.file, k2.file) == 0);
    CHECK(strncmp(k1.file, "auto-", 5) == 0 && strlen(k1.file) == 25);
    CHECK(strstr(k1.text, "pattern sampled ") && strstr(k1.text, "precision fp64\n"));
    M->csr.val[0] += 1.0;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) == 0);
    M->csr.val[0] -= 1.0;
    int32_t c0 = M->csr.col_idx[0];
    M->csr.col_idx[0] = c0 + 1;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0);
    M->csr.col_idx[0] = c0;
    r = request(&o, MPCG_PRECISION_FP32);
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0);
    r = request(&o, MPCG_PRECISION_FP64);
    r.need_block = 1;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0);
    r = request(&o, MPCG_PRECISION_FP64);
    r.need_rows = 1;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0 && strstr(k.text, "rows 1\n"));
    r = request(&o, MPCG_PRECISION_FP64);
    r.fused_dot = 1; /* the trial timed another product: another decision */
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0 && strstr(k.text, "dot 1\n"));
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &off, "auto.cache", "off"));
    r = request(&off, MPCG_PRECISION_FP64);
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) == 0);
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &o, "auto.fingerprint", "full"));
    r = request(&o, MPCG_PRECISION_FP64);
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &k));
    CHECK(strcmp(k.file, k1.file) != 0 && strstr(k.text, "pattern full "));
}

/* The trial on a CPU context, over the CPU plans and emulations: every ranked candidate timed
 * or skipped with a reason, the kept plan the chosen one, the rule respected. */
static void test_trial(mpcg_matrix *M, mpcg_backend_choice *choice)
{
    mpcgi_options o = {0};
    mpcgi_auto_request r = request(&o, MPCG_PRECISION_FP64);
    mpcgi_spmv_plan *plan = NULL;

    CHECK_OK(ctx, mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, choice, NULL));

    CHECK(plan && strcmp(plan->ops->name, choice->chosen) == 0);
    CHECK(choice->ncandidates == mpcgi_spmv_count());
    CHECK(choice->expected_spmvs == 100.0);
    int timed = 0, best = mpcgi_auto_decide(choice->candidates, choice->ncandidates, 100.0);
    for (int i = 0; i < choice->ncandidates; i++) {
        const mpcg_backend_candidate *c = &choice->candidates[i];
        printf("  trial: %-12s %s setup %.3g s, SpMV %.3g s %s\n", c->backend,
               c->skipped ? "skipped" : "timed", c->setup_s, c->spmv_s, c->reason);
        CHECK(c->skipped ? c->reason[0] && c->spmv_s == 0 : !c->reason[0] && c->spmv_s > 0);
        timed += !c->skipped;
    }
    CHECK(timed >= 1 && best >= 0 && strcmp(choice->candidates[best].backend, choice->chosen) == 0);
    mpcgi_spmv_plan_destroy(ctx, plan);

    /* a budget of 0 SpMVs: the first candidate only */
    mpcg_backend_choice b;
    memset(&b, 0, sizeof b);
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &o, "auto.budget", "0"));
    CHECK_OK(ctx, mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, &b, NULL));
    CHECK(plan && strcmp(b.chosen, b.candidates[0].backend) == 0);
    for (int i = 1; i < b.ncandidates && timed > 1; i++)
        CHECK(b.candidates[i].skipped);
    CHECK(timed < 2 || strstr(b.candidates[1].reason, "over the budget") != NULL);
    mpcgi_spmv_plan_destroy(ctx, plan);
}

/* A persistent loop ahead (need_rows): only backends that export rows are timed, the others
 * listed with the reason (a CPU-only build has none: the trial then fails, and says why). */
static void test_trial_rows(mpcg_matrix *M)
{
    mpcgi_spmv_plan *plan = NULL;
    mpcg_backend_choice b;
    mpcgi_auto_request r;
    memset(&b, 0, sizeof b);
    int have_rows = 0;
    for (int i = 0; i < mpcgi_spmv_count(); i++) have_rows |= mpcgi_spmv_get(i)->rows != NULL;
    if (!have_rows) {
        mpcgi_options o3 = {0};
        r = request(&o3, MPCG_PRECISION_FP64);
        r.need_rows = 1;
        CHECK_STATUS(ctx, mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, &b, NULL),
                     MPCG_ERR_NOT_SUPPORTED);
        CHECK(plan == NULL && strstr(mpcg_last_error(ctx), "exports no rows") != NULL);
        mpcg_clear_error(ctx);
        printf("  rows needed: no backend of this build exports rows; the trial refuses\n");
        return;
    }
    mpcgi_options o2 = {0};
    r = request(&o2, MPCG_PRECISION_FP64);
    r.need_rows = 1;
    CHECK_OK(ctx, mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, &b, NULL));
    CHECK(plan && plan->ops->rows != NULL && strcmp(plan->ops->name, b.chosen) == 0);
    int norows = 0;
    for (int i = 0; i < b.ncandidates; i++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(b.candidates[i].backend);
        CHECK(ops != NULL);
        if (ops && !ops->rows) { /* skipped: for this, or never tried (cusparsesell, gather) */
            CHECK(b.candidates[i].skipped);
            norows += strstr(b.candidates[i].reason, "exports no rows") != NULL;
        }
    }
    CHECK(norows > 0);
    mpcgi_spmv_plan_destroy(ctx, plan);
}

/* An allocation failure at every step of the trial: the failing candidate is skipped (its
 * error not kept) and the trial goes on, or the trial fails with MPCG_ERR_HOST_ALLOC; nothing
 * leaks either way. */
static void test_trial_oom(mpcg_matrix *M)
{
    mpcgi_options o = {0};
    mpcgi_auto_request r = request(&o, MPCG_PRECISION_FP64);
    mpcgi_spmv_plan *plan = NULL;
    mpcg_backend_choice c;
    const int64_t live = mpcgi_alloc_live();
    int skipped = 0, failed = 0;
    mpcgi_alloc_fail_at(-1);
    CHECK_OK(ctx, mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, &c, NULL));
    mpcgi_spmv_plan_destroy(ctx, plan);
    const int64_t attempts = mpcgi_alloc_attempts();
    for (int64_t k = 0; k < attempts; k++) {
        memset(&c, 0, sizeof c);
        mpcgi_alloc_fail_at(k);

        mpcg_status st = mpcgi_spmv_auto_trial(ctx, &M->csr, &r, &plan, &c, NULL);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) {
            CHECK(plan != NULL && mpcg_last_error(ctx)[0] == '\0');
            for (int i = 0; i < c.ncandidates; i++)
                skipped += strstr(c.candidates[i].reason, "failed:") != NULL;
            mpcgi_spmv_plan_destroy(ctx, plan);
        } else {
            CHECK(st == MPCG_ERR_HOST_ALLOC && plan == NULL);
            failed++;
            mpcg_clear_error(ctx);
        }
        CHECK(mpcgi_alloc_live() == live);
    }
    printf("  trial allocation sweep: %lld attempts, %d candidates skipped, %d trials failed\n",
           (long long)attempts, skipped, failed);
    CHECK(failed > 0 && (skipped > 0 || mpcgi_spmv_count() == 1));
}

/* Format and parse back; every corruption refused with a reason; the cache directory's round
 * trip; a corrupted file ignored with a note. */
static void test_record(mpcg_matrix *M, const mpcg_backend_choice *choice)
{
    mpcgi_options o = {0};
    mpcgi_auto_request r = request(&o, MPCG_PRECISION_FP64);
    mpcgi_auto_key key, other;
    mpcg_backend_choice back;
    char text[8192], bad[8192], why[200];
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &key));
    r.need_block = 1;
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &other));
    memset(&back, 0, sizeof back);

    mpcgi_auto_record_format(&key, choice, text, sizeof text);
    CHECK(mpcgi_auto_record_parse(text, &key, &back, why, sizeof why));

    CHECK(strcmp(back.chosen, choice->chosen) == 0 && back.ncandidates == choice->ncandidates);
    CHECK(back.expected_spmvs == choice->expected_spmvs);
    for (int i = 0; i < back.ncandidates; i++) {
        const mpcg_backend_candidate *a = &choice->candidates[i], *b = &back.candidates[i];
        CHECK(a->backend == b->backend && a->skipped == b->skipped);
        CHECK(strcmp(a->reason, b->reason) == 0);
        CHECK(test_close(a->setup_s, b->setup_s, 1e-8, 0) &&
              test_close(a->spmv_s, b->spmv_s, 1e-8, 0));
    }
    CHECK(!mpcgi_auto_record_parse(text, &other, &back, why, sizeof why));
    CHECK(strstr(why, "another fingerprint") != NULL);
    CHECK(!mpcgi_auto_record_parse("hello\n", &key, &back, why, sizeof why));
    CHECK(strstr(why, "not an mpcg auto cache record") != NULL);
    const char *edits[][2] = {{"chosen ", "chosen nosuch"},
                              {"expected_spmvs ", "expected_spmvs -1"},
                              {"candidate ", "candidate nosuch 0 1 0 1 -"},
                              {"candidate ", "candidate cpu 2 1 0 1 -"},
                              {"candidate ", "candidate cpu 0 1 0"},
                              {"candidate ", "candidate cpu 0 1 0 0 -"}};
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        /* the line that starts with edits[e][0] replaced by edits[e][1] */
        char *at = strstr(text, edits[e][0]), *end = strchr(at, '\n');
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - text), text, edits[e][1], end);
        why[0] = '\0';
        CHECK(!mpcgi_auto_record_parse(bad, &key, &back, why, sizeof why));
        CHECK(why[0] != '\0');
    }
    snprintf(bad, sizeof bad, "%.*s", (int)strlen(text) - 1, text); /* no final newline */
    CHECK(!mpcgi_auto_record_parse(bad, &key, &back, why, sizeof why));
}

/* The cache directory: store then load; a corrupted file ignored with a note (the next trial
 * replaces it); auto.cache=off or no directory: the cache is not used. */
static void test_cache_dir(mpcg_matrix *M, const mpcg_backend_choice *choice)
{
    char dir[] = "/tmp/mpcg-test-auto-XXXXXX", cmd[128];
    mpcgi_options o = {0};
    mpcgi_auto_request r = request(&o, MPCG_PRECISION_FP64);
    mpcgi_auto_key key;
    mpcg_backend_choice back;
    CHECK(mkdtemp(dir) != NULL);
    CHECK_OK(ctx, mpcgi_auto_key_make(ctx, &M->csr, &r, &key));
    memset(&back, 0, sizeof back);

    CHECK(!mpcgi_auto_cache_load(dir, &key, &back) && back.note[0] == '\0'); /* a miss */
    CHECK_OK(ctx, mpcgi_auto_cache_store(ctx, dir, &key, choice));
    CHECK(mpcgi_auto_cache_load(dir, &key, &back));
    CHECK(strcmp(back.chosen, choice->chosen) == 0 && back.ncandidates == choice->ncandidates);

    CHECK_OK(ctx, mpcgi_cache_write(ctx, dir, key.file, "mpcg-auto-cache 1\ngarbage\n"));
    memset(&back, 0, sizeof back);
    CHECK(!mpcgi_auto_cache_load(dir, &key, &back));
    CHECK(strstr(back.note, "ignored") && strstr(back.note, key.file) &&
          strstr(back.note, "another fingerprint"));

    CHECK(mpcgi_auto_cache_enabled(ctx, &o) == 0); /* no directory on the context */
    CHECK_OK(ctx, mpcg_context_set_cache_dir(ctx, dir));
    CHECK(mpcgi_auto_cache_enabled(ctx, &o) == 1);
    CHECK_OK(ctx, mpcgi_options_set_text(ctx, &o, "auto.cache", "off"));
    CHECK(mpcgi_auto_cache_enabled(ctx, &o) == 0);
    CHECK_OK(ctx, mpcg_context_set_cache_dir(ctx, NULL));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* Through the public API on a CPU context: auto is the cpu backend, no trial; a named backend is
 * "fixed"; no choice before the setup. */
static void test_public(mpcg_matrix *M)
{
    mpcg_solver *S = NULL;
    mpcg_backend_choice c;
    char long_dir[1100];
    CHECK_OK(ctx, mpcg_solver_create(ctx, M, &S));

    CHECK_STATUS(ctx, mpcg_solver_backend_choice(S, &c), MPCG_ERR_INVALID_STATE);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_setup(S));
    CHECK_OK(ctx, mpcg_solver_backend_choice(S, &c));
    CHECK(strcmp(c.chosen, "cpu") == 0 && strcmp(c.source, "cpu") == 0 && c.ncandidates == 0);
    CHECK_OK(ctx, mpcg_solver_set_spmv(S, "cpu"));
    CHECK_OK(ctx, mpcg_solver_setup(S));
    CHECK_OK(ctx, mpcg_solver_backend_choice(S, &c));
    CHECK(strcmp(c.chosen, "cpu") == 0 && strcmp(c.source, "fixed") == 0);
    CHECK_STATUS(ctx, mpcg_solver_backend_choice(S, NULL), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    memset(long_dir, 'd', sizeof long_dir - 1);
    long_dir[sizeof long_dir - 1] = '\0';
    CHECK_STATUS(ctx, mpcg_context_set_cache_dir(ctx, long_dir), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK(strcmp(mpcg_backend_auto(MPCG_DEVICE_CPU), "cpu") == 0);
    mpcg_solver_destroy(S);
}

int main(void)
{
    mpcg_matrix *M = NULL;
    mpcg_backend_choice choice;
    memset(&choice, 0, sizeof choice);
    test_init_seed("test_spmv_auto");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:40", &M));
    if (!M) return test_finish("test_spmv_auto");
    test_decide();
    test_expected();
    test_budget();
    test_key(M);
    test_trial(M, &choice);
    test_trial_rows(M);
    test_trial_oom(M);
    test_record(M, &choice);
    test_cache_dir(M, &choice);
    test_public(M);
    mpcg_matrix_destroy(M);
    mpcg_context_destroy(ctx);
    return test_finish("test_spmv_auto");
}
