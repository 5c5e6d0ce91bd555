/* core/error.h: recording errors in the context and propagating statuses */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_ERROR_H
#define MPCG_CORE_ERROR_H

#include "mpcg.h"

/*
 * Every internal function that can fail returns mpcg_status. The first failure records its
 * message in the context ("file:line: function: message"); callers that pass the status up
 * append a short "called from" frame. A function that owns resources has one exit:
 *
 *     mpcg_status st = MPCG_SUCCESS;
 *     MPCG_TRY(ctx, st, step());
 *     MPCG_ENSURE_GOTO(ctx, st, n > 0, MPCG_ERR_INVALID_ARG, "n = %lld must be >= 1", n);
 * done:
 *     free...; return st;
 */

/* Record code with a printf-style message (first failure wins); returns code. ctx may be NULL
 * (the message then goes to the thread's slot read by mpcg_last_error(NULL)). */
mpcg_status mpcgi_error_set(const mpcg_context *ctx, mpcg_status code, const char *file, int line,
                            const char *func, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Append a "called from file:line: function" frame (a few at most). */
void mpcgi_error_frame(const mpcg_context *ctx, const char *file, int line, const char *func);

/* Move ctx's recorded message to the thread's slot (for a context about to be destroyed). */
void mpcgi_error_to_thread(const mpcg_context *ctx);

/* The option that takes the number of a preconditioner's name ("precond.block_size" for
 * bjacobi:B, "precond.degree" for chebyshev:D), or NULL where the name takes none. */
const char *mpcgi_precond_param_key(mpcg_precond p);
/* mpcg_precond_parse with its failure recorded in ctx (NULL: the thread's slot). */
mpcg_status mpcgi_precond_parse(mpcg_context *ctx, const char *spec, mpcg_precond *type,
                                int64_t *param);

/* Log through the context's callback, if any. ctx may be NULL (then nothing happens). */
void mpcgi_log(const mpcg_context *ctx, mpcg_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define MPCG_FAIL(ctx, code, ...) \
    return mpcgi_error_set((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define MPCG_ENSURE(ctx, cond, code, ...)       \
    do {                                        \
        if (!(cond)) MPCG_FAIL(ctx, code, __VA_ARGS__); \
    } while (0)

#define MPCG_CHECK(ctx, expr)                                         \
    do {                                                              \
        mpcg_status mpcg_s_ = (expr);                                 \
        if (mpcg_s_ != MPCG_SUCCESS) {                                \
            mpcgi_error_frame((ctx), __FILE__, __LINE__, __func__);   \
            return mpcg_s_;                                           \
        }                                                             \
    } while (0)

/* goto-style variants for functions with one exit label `done` */
#define MPCG_TRY(ctx, st, expr)                                       \
    do {                                                              \
        if (((st) = (expr)) != MPCG_SUCCESS) {                        \
            mpcgi_error_frame((ctx), __FILE__, __LINE__, __func__);   \
            goto done;                                                \
        }                                                             \
    } while (0)

#define MPCG_FAIL_GOTO(ctx, st, code, ...)                                            \
    do {                                                                              \
        (st) = mpcgi_error_set((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__); \
        goto done;                                                                    \
    } while (0)

#define MPCG_ENSURE_GOTO(ctx, st, cond, code, ...)                  \
    do {                                                            \
        if (!(cond)) MPCG_FAIL_GOTO(ctx, st, code, __VA_ARGS__);    \
    } while (0)

/* Internal invariants only (never user input); compiled away with NDEBUG. */
#ifdef NDEBUG
#define MPCG_ASSERT(cond) ((void)0)
#else
#include <assert.h>
#define MPCG_ASSERT(cond) assert(cond)
#endif

#endif /* MPCG_CORE_ERROR_H */
