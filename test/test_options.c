/* test/test_options.c: option keys: checking values, the store, the public listing, the solver
 * call and MPCG_OPTIONS */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "solver/options.h"
#include "solver/solver.h"
#include "testutil.h"

static mpcg_context *ctx;

static const char *const colours[] = {"red", "green", NULL};
static const mpcgi_option_key keys[] = {
    {"t.n", MPCGI_OPTION_INT, 4, 1, 32, 1, 0, NULL, "a power of two"},
    {"t.a", MPCGI_OPTION_INT, MPCGI_OPTION_AUTO, 0, 100, 0, 1, NULL, "auto or a number"},
    {"t.c", MPCGI_OPTION_WORD, 1, 0, 0, 0, 0, colours, "a word"},
};
static const mpcgi_option_table table = {keys, 3};

/* Each value against its key: the number, the word's index, auto, and the refusals. */
static void test_parse(void)
{
    long v = -1;

    CHECK_OK(ctx, mpcgi_option_parse(ctx, &keys[0], "16", &v));
    CHECK(v == 16);
    CHECK_OK(ctx, mpcgi_option_parse(ctx, &keys[1], "auto", &v));
    CHECK(v == MPCGI_OPTION_AUTO);
    CHECK_OK(ctx, mpcgi_option_parse(ctx, &keys[1], "0", &v));
    CHECK(v == 0);
    CHECK_OK(ctx, mpcgi_option_parse(ctx, &keys[2], "red", &v));
    CHECK(v == 0);

    const char *bad_n[] = {"3", "0", "64", "", "4x", "auto", " 4", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_n / sizeof bad_n[0]; i++) {
        mpcg_clear_error(ctx);
        CHECK_STATUS(ctx, mpcgi_option_parse(ctx, &keys[0], bad_n[i], &v), MPCG_ERR_INVALID_ARG);
        CHECK(strstr(mpcg_last_error(ctx), "t.n") != NULL);
        CHECK(strstr(mpcg_last_error(ctx), "1 .. 32, a power of two") != NULL);
    }
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_option_parse(ctx, &keys[2], "blue", &v), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "expected one of red, green") != NULL);
    mpcg_clear_error(ctx);
}

/* The store keeps the last value of a key; unset keys give their defaults. */
static void test_store(void)
{
    mpcgi_options o = {0};

    CHECK_OK(ctx, mpcgi_options_put(ctx, &o, &keys[0], 8));
    CHECK_OK(ctx, mpcgi_options_put(ctx, &o, &keys[0], 2));

    CHECK(o.count == 1);
    CHECK(mpcgi_options_get(&o, &keys[0]) == 2);
    CHECK(mpcgi_options_is_set(&o, &keys[0]) && !mpcgi_options_is_set(&o, &keys[2]));
    CHECK(mpcgi_options_get(&o, &keys[2]) == 1);
    CHECK(mpcgi_options_get(NULL, &keys[1]) == MPCGI_OPTION_AUTO);
    CHECK(mpcgi_option_table_find(&table, "t.c") == &keys[2]);
    CHECK(mpcgi_option_table_find(&table, "t.x") == NULL);
    char buf[64];
    mpcgi_option_default_text(&keys[2], buf, sizeof buf);
    CHECK(strcmp(buf, "green") == 0);
    mpcgi_option_range_text(&keys[1], buf, sizeof buf);
    CHECK(strcmp(buf, "auto or 0 .. 100") == 0);
}

/* The build's listing: every key once, with a default, a range and a description. */
static void test_listing(void)
{
    int count = mpcg_option_count(), found = 0;
    mpcg_option_info info;

    CHECK(count >= MPCGI_OPT_CG_COUNT);
    for (int i = 0; i < count; i++) {
        CHECK_OK(NULL, mpcg_option_get(i, &info));
        CHECK(info.key && strchr(info.key, '.') && info.description && *info.range &&
              *info.default_value);
        CHECK(mpcgi_option_find(info.key) != NULL);
        for (int j = 0; j < i; j++) {
            mpcg_option_info other;
            CHECK_OK(NULL, mpcg_option_get(j, &other));
            CHECK(strcmp(other.key, info.key) != 0);
        }
        found += strcmp(info.key, "cg.variant") == 0;
    }
    CHECK(found == 1);
    CHECK_STATUS(NULL, mpcg_option_get(count, &info), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, mpcg_option_get(-1, &info), MPCG_ERR_INVALID_ARG);
}

/* Lists as MPCG_OPTIONS holds them, and the messages of bad ones. */
static void test_lists(void)
{
    mpcgi_options o = {0};
    const mpcgi_option_key *ci = mpcgi_option_find("cg.check_interval");

    CHECK_OK(ctx, mpcgi_options_set_list(ctx, &o, " cg.check_interval=8 ,, cg.variant=host ", "L"));

    CHECK(ci && mpcgi_options_get(&o, ci) == 8);
    CHECK(mpcgi_options_get(&o, mpcgi_option_find("cg.variant")) == MPCGI_VARIANT_HOST);
    CHECK_STATUS(ctx, mpcgi_options_set_list(ctx, &o, "cg.variant", "L"), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "L: 'cg.variant' is not key=value") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_options_set_list(ctx, &o, "cg.nope=1", "L"), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "unknown option 'cg.nope'") != NULL);
    CHECK(strstr(mpcg_last_error(ctx), "cg.variant") != NULL); /* the valid keys are listed */
    mpcg_clear_error(ctx);
}

/* mpcg_solver_set_option, and MPCG_OPTIONS applied when the solver is created. */
static void test_solver(void)
{
    mpcg_matrix *A;
    mpcg_solver *s = NULL;
    mpcg_info info;
    double b[16], x[16];
    for (int i = 0; i < 16; i++) b[i] = 1.0 + i;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson2d:4", &A));

    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &s));
    CHECK_STATUS(ctx, mpcg_solver_set_option(s, "cg.variant", "sideways"), MPCG_ERR_INVALID_ARG);
    CHECK(strstr(mpcg_last_error(ctx), "persistent-single") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcg_solver_set_option(s, "no.such", "1"), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_STATUS(NULL, mpcg_solver_set_option(NULL, "cg.variant", "host"), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(ctx, mpcg_solver_set_option(s, NULL, "host"), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK_OK(ctx, mpcg_solver_set_option(s, "cg.variant", "host"));
    CHECK_OK(ctx, mpcg_solve(s, b, x, &info));
    CHECK(info.converged);
    mpcg_solver_destroy(s);

    setenv("MPCG_OPTIONS", "cg.variant=bogus", 1);
    s = (mpcg_solver *)1;
    CHECK_STATUS(ctx, mpcg_solver_create(ctx, A, &s), MPCG_ERR_INVALID_ARG);
    CHECK(s == NULL);
    CHECK(strstr(mpcg_last_error(ctx), "cg.variant=bogus") != NULL);
    mpcg_clear_error(ctx);
    setenv("MPCG_OPTIONS", "cg.check_interval=3", 1);
    CHECK_OK(ctx, mpcg_solver_create(ctx, A, &s));
    unsetenv("MPCG_OPTIONS");
    if (s) { /* the environment's value is the solver's, before any set_option */
        CHECK(mpcgi_options_get(&s->opts, mpcgi_option_find("cg.check_interval")) == 3);
        mpcg_solver_destroy(s);
    }
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_options");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    test_parse();
    test_store();
    test_listing();
    test_lists();
    test_solver();
    mpcg_context_destroy(ctx);
    return test_finish("test_options");
}
