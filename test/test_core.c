/* test/test_core.c: statuses, reasons, contexts, error messages, logging, the backend registry */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static void test_status_strings(void)
{
    for (int s = 0; s < MPCG_STATUS_COUNT; s++) {
        const char *name = mpcg_status_name((mpcg_status)s), *text = mpcg_status_string(s);

        CHECK(name && strncmp(name, "MPCG_", 5) == 0);
        CHECK(text && *text && strcmp(text, "unknown status") != 0);
        for (int t = 0; t < s; t++) CHECK(strcmp(name, mpcg_status_name((mpcg_status)t)) != 0);
    }
    CHECK(strcmp(mpcg_status_name(MPCG_STATUS_COUNT), "MPCG_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(mpcg_status_name((mpcg_status)-1), "MPCG_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(mpcg_status_string(MPCG_ERR_PARSE), "malformed Matrix Market file") == 0);
}

static void test_reason_strings(void)
{
    const mpcg_reason all[] = {MPCG_REASON_NONE, MPCG_CONVERGED_RTOL, MPCG_CONVERGED_ZERO_RHS,
                               MPCG_CONVERGED_ATOL, MPCG_DIVERGED_MAX_ITER,
                               MPCG_DIVERGED_BREAKDOWN, MPCG_DIVERGED_INDEFINITE_MATRIX,
                               MPCG_DIVERGED_NAN, MPCG_DIVERGED_STAGNATION,
                               MPCG_DIVERGED_INDEFINITE_PC};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK(strncmp(mpcg_reason_name(all[i]), "MPCG_", 5) == 0);
        CHECK(strstr(mpcg_reason_name(all[i]), "UNKNOWN") == NULL);
        CHECK(strcmp(mpcg_reason_string(all[i]), "unknown reason") != 0);
        /* sign convention: converged > 0, diverged < 0 */
        CHECK((all[i] > 0) == (strstr(mpcg_reason_name(all[i]), "CONVERGED") != NULL));
    }
    CHECK(strcmp(mpcg_reason_name((mpcg_reason)77), "MPCG_REASON_UNKNOWN") == 0);
}

/* The precision words the CLI, the JSON report and cgbench share. */
static void test_precision_names(void)
{
    CHECK(strcmp(mpcg_precision_name(MPCG_PRECISION_FP64), "fp64") == 0);
    CHECK(strcmp(mpcg_precision_name(MPCG_PRECISION_FP32), "fp32") == 0);
    CHECK(strcmp(mpcg_precision_name(MPCG_PRECISION_MIXED), "mixed") == 0);
    CHECK(strcmp(mpcg_precision_name((mpcg_precision)7), "unknown") == 0);
}

static void test_version(void)
{
    int v[3] = {-1, -1, -1};

    mpcg_version(v);
    mpcg_version(NULL);

    CHECK(v[0] == MPCG_VERSION_MAJOR && v[1] == MPCG_VERSION_MINOR && v[2] == MPCG_VERSION_PATCH);
}

static void test_context_create(void)
{
    mpcg_context *ctx = (mpcg_context *)1;

    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));

    CHECK(ctx && mpcg_context_device_kind(ctx) == MPCG_DEVICE_CPU);
    CHECK(strncmp(mpcg_context_device_name(ctx), "cpu", 3) == 0);
    CHECK(strcmp(mpcg_last_error(ctx), "") == 0);
    mpcg_context_destroy(ctx);
    mpcg_context_destroy(NULL);

    /* auto always gives a context: a GPU if one is usable, else the CPU */
    CHECK_OK(NULL, mpcg_context_create(NULL, &ctx));
    CHECK(mpcg_context_device_kind(ctx) == (mpcgi_device_count() > 0 ? MPCG_DEVICE_CUDA : MPCG_DEVICE_CPU));
    mpcg_context_destroy(ctx);
}

static void test_context_bad_device(void)
{
    const char *bad[] = {"", "gpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "CPU", "cuda:99999",
                         "cuda: 1", "cuda:+1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mpcg_context *ctx = (mpcg_context *)1;

        mpcg_status st = mpcg_context_create(bad[i], &ctx);

        CHECK(st == MPCG_ERR_INVALID_ARG);
        CHECK(ctx == NULL);
        CHECK(strstr(mpcg_last_error(NULL), "is not one of auto, cpu, cuda, cuda:N") != NULL);
    }
    CHECK_STATUS(NULL, mpcg_context_create("cpu", NULL), MPCG_ERR_INVALID_ARG);
    /* a GPU that does not exist: no device (there are not 1000 GPUs here) */
    mpcg_context *ctx = NULL;
    CHECK_STATUS(NULL, mpcg_context_create("cuda:1023", &ctx), MPCG_ERR_NO_DEVICE);
    CHECK(ctx == NULL && strlen(mpcg_last_error(NULL)) > 0);
}

static int log_calls;
static char log_last[512];
static void log_fn(mpcg_log_level level, const char *msg, void *user)
{
    (void)level;
    CHECK(user == &log_calls);
    log_calls++;
    snprintf(log_last, sizeof log_last, "%s", msg);
}

static void test_errors_and_log(void)
{
    mpcg_context *ctx;
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    CHECK_OK(ctx, mpcg_context_set_log(ctx, MPCG_LOG_DEBUG, log_fn, &log_calls));

    mpcg_status a = mpcgi_error_set(ctx, MPCG_ERR_IO, "dir/file.c", 12, "fn", "first %d", 1);
    mpcgi_error_frame(ctx, "x/caller.c", 30, "caller");
    mpcg_status b = mpcgi_error_set(ctx, MPCG_ERR_PARSE, "file.c", 13, "fn", "second");

    CHECK(a == MPCG_ERR_IO && b == MPCG_ERR_PARSE);
    CHECK(strncmp(mpcg_last_error(ctx), "file.c:12: fn: first 1", 22) == 0);
    CHECK(strstr(mpcg_last_error(ctx), "called from caller.c:30: caller") != NULL);
    CHECK(strstr(mpcg_last_error(ctx), "second") == NULL); /* the first failure wins */
    CHECK(log_calls == 1 && strstr(log_last, "first 1") != NULL);
    mpcg_clear_error(ctx);
    CHECK(strcmp(mpcg_last_error(ctx), "") == 0);
    CHECK_STATUS(ctx, mpcg_context_set_log(ctx, (mpcg_log_level)9, NULL, NULL),
                 MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcg_context_set_log(NULL, MPCG_LOG_WARN, NULL, NULL),
                 MPCG_ERR_INVALID_ARG);
    mpcg_context_destroy(ctx);
}

static void test_alloc_sweep_context(void)
{
    int64_t live = mpcgi_alloc_live();
    int ok = 0;
    for (int64_t n = 0; n < 20 && !ok; n++) {
        mpcg_context *ctx = NULL;
        mpcgi_alloc_fail_at(n);

        mpcg_status st = mpcg_context_create("cpu", &ctx);

        mpcgi_alloc_fail_at(-1);
        if (st == MPCG_SUCCESS) {
            ok = 1;
            mpcg_context_destroy(ctx);
        } else {
            CHECK(st == MPCG_ERR_HOST_ALLOC && ctx == NULL);
        }
        CHECK(mpcgi_alloc_live() == live);
    }
    CHECK(ok);
}

/* The counters are atomic: allocations on many threads at once leave the live count and the
 * attempts exact, and the failure hook fails exactly the one attempt it names. (With plain
 * counters, increments were lost under contention; helgrind or TSan called it a race.) */
static void test_alloc_threads(void)
{
#ifdef _OPENMP
    enum { THREADS = 8, ROUNDS = 20000 };
    int64_t live = mpcgi_alloc_live();
    int failed = 0;
    mpcgi_alloc_fail_at(THREADS * ROUNDS / 2);
#pragma omp parallel for num_threads(THREADS) reduction(+ : failed)
    for (int t = 0; t < THREADS; t++) {
        for (int k = 0; k < ROUNDS; k++) {
            void *p = NULL;
            if (mpcgi_host_alloc(NULL, 16, &p) != MPCG_SUCCESS) failed++;
            mpcgi_host_free(p);
        }
    }
    CHECK(mpcgi_alloc_attempts() == THREADS * ROUNDS);
    mpcgi_alloc_fail_at(-1);
    CHECK(failed == 1);
    CHECK(mpcgi_alloc_live() == live);
    mpcg_clear_error(NULL);
#endif
}

static void test_registry(void)
{
    int n = mpcg_backend_count();
    CHECK(n >= 1);
    for (int i = 0; i < n; i++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_get(i);
        mpcg_backend_info info;

        CHECK_OK(NULL, mpcg_backend_get(i, &info));

        CHECK(ops && ops->name && strcmp(info.name, ops->name) == 0);
        for (const char *c = ops->name; *c; c++) CHECK(islower((unsigned char)*c) || isdigit(*c));
        CHECK(strcmp(ops->name, "auto") != 0);
        for (int j = 0; j < i; j++) CHECK(strcmp(ops->name, mpcgi_spmv_get(j)->name) != 0);
        CHECK(ops->description && *ops->description);
        CHECK(ops->analyze && ops->apply_host && ops->destroy);
        CHECK(ops->caps & (MPCG_CAP_FP64 | MPCG_CAP_FP32));
        if (ops->caps & MPCG_CAP_NEEDS_DEVICE) CHECK(ops->apply && ops->upload);
    }
    mpcg_backend_info info;
    CHECK_STATUS(NULL, mpcg_backend_get(n, &info), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcg_backend_get(0, NULL), MPCG_ERR_INVALID_ARG);
    CHECK(mpcgi_spmv_get(-1) == NULL);
}

int main(void)
{
    test_init_seed("test_core");
    test_status_strings();
    test_reason_strings();
    test_precision_names();
    test_version();
    test_context_create();
    test_context_bad_device();
    test_errors_and_log();
    test_alloc_sweep_context();
    test_alloc_threads();
    test_registry();
    return test_finish("test_core");
}
