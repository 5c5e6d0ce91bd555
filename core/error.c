/* core/error.c: status and reason strings, error recording, logging */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/error.h"

#define MAX_FRAMES 4

/* Message of a failure that has no context to hold it (mpcg_context_create). */
static _Thread_local char thread_err[MPCGI_ERR_LEN];
static _Thread_local int thread_err_set;
static _Thread_local int thread_err_frames;

static const struct {
    const char *name;
    const char *text;
} status_table[MPCG_STATUS_COUNT] = {
    [MPCG_SUCCESS] = {"MPCG_SUCCESS", "success"},
    [MPCG_ERR_INVALID_ARG] = {"MPCG_ERR_INVALID_ARG", "invalid argument"},
    [MPCG_ERR_INVALID_STATE] = {"MPCG_ERR_INVALID_STATE", "invalid state or call order"},
    [MPCG_ERR_NOT_SUPPORTED] = {"MPCG_ERR_NOT_SUPPORTED", "combination not supported"},
    [MPCG_ERR_HOST_ALLOC] = {"MPCG_ERR_HOST_ALLOC", "host memory allocation failed"},
    [MPCG_ERR_DEVICE_ALLOC] = {"MPCG_ERR_DEVICE_ALLOC", "device memory allocation failed"},
    [MPCG_ERR_NO_DEVICE] = {"MPCG_ERR_NO_DEVICE", "no usable GPU"},
    [MPCG_ERR_CUDA] = {"MPCG_ERR_CUDA", "CUDA runtime error"},
    [MPCG_ERR_CUSPARSE] = {"MPCG_ERR_CUSPARSE", "cuSPARSE error"},
    [MPCG_ERR_CUBLAS] = {"MPCG_ERR_CUBLAS", "cuBLAS error"},
    [MPCG_ERR_IO] = {"MPCG_ERR_IO", "file input/output error"},
    [MPCG_ERR_PARSE] = {"MPCG_ERR_PARSE", "malformed Matrix Market file"},
    [MPCG_ERR_NOT_CONVERGED] = {"MPCG_ERR_NOT_CONVERGED", "the solver did not converge"},
    [MPCG_ERR_INTERNAL] = {"MPCG_ERR_INTERNAL", "internal error (a bug in mpcg)"},
};

const char *mpcg_status_name(mpcg_status s)
{
    if ((int)s < 0 || s >= MPCG_STATUS_COUNT) return "MPCG_STATUS_UNKNOWN";
    return status_table[s].name;
}

const char *mpcg_status_string(mpcg_status s)
{
    if ((int)s < 0 || s >= MPCG_STATUS_COUNT) return "unknown status";
    return status_table[s].text;
}

/* The one table of preconditioner names (mpcg_precond_name, mpcg_precond_parse: cgsolve
 * --precond, Python's M, Fortran's specs) and the option that takes a name's number. */
static const struct {
    const char *name;
    mpcg_precond type;
    const char *param_key; /* NULL: the name takes no number */
} precond_names[] = {
    {"none", MPCG_PRECOND_NONE, NULL},
    {"jacobi", MPCG_PRECOND_JACOBI, NULL},
    {"bjacobi", MPCG_PRECOND_BJACOBI, "precond.block_size"},
    {"chebyshev", MPCG_PRECOND_CHEBYSHEV, "precond.degree"},
    {"auto", MPCG_PRECOND_AUTO, NULL},
};
enum { PRECOND_NAMES = sizeof precond_names / sizeof precond_names[0] };

const char *mpcg_precond_name(mpcg_precond p)
{
    for (int i = 0; i < PRECOND_NAMES; i++)
        if (precond_names[i].type == p) return precond_names[i].name;
    return "unknown";
}

const char *mpcgi_precond_param_key(mpcg_precond p)
{
    for (int i = 0; i < PRECOND_NAMES; i++)
        if (precond_names[i].type == p) return precond_names[i].param_key;
    return NULL;
}

mpcg_status mpcg_precond_parse(const char *spec, mpcg_precond *type, int64_t *param)
{
    return mpcgi_precond_parse(NULL, spec, type, param);
}

mpcg_status mpcgi_precond_parse(mpcg_context *ctx, const char *spec, mpcg_precond *type,
                                int64_t *param)
{
    MPCG_ENSURE(ctx, spec, MPCG_ERR_INVALID_ARG, "preconditioner name must not be NULL");
    const char *colon = strchr(spec, ':');
    const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    for (int i = 0; i < PRECOND_NAMES; i++) {
        if (strlen(precond_names[i].name) != len || strncmp(spec, precond_names[i].name, len))
            continue;
        const char *num = colon ? colon + 1 : NULL;
        MPCG_ENSURE(ctx, !num || precond_names[i].param_key, MPCG_ERR_INVALID_ARG,
                    "preconditioner \"%s\": %s takes no number", spec, precond_names[i].name);
        MPCG_ENSURE(
            ctx, !num || (num[0] && strlen(num) <= 12 && strspn(num, "0123456789") == strlen(num)),
            MPCG_ERR_INVALID_ARG,
            "preconditioner \"%s\": expected %s:N, N a whole number of at most 12 "
            "digits",
            spec, precond_names[i].name);
        if (type) *type = precond_names[i].type;
        if (param) *param = num ? (int64_t)strtoll(num, NULL, 10) : -1;
        return MPCG_SUCCESS;
    }
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG,
              "unknown preconditioner \"%s\": expected auto, none, jacobi, bjacobi[:B] or "
              "chebyshev[:D] (B, D whole numbers)",
              spec);
}

const char *mpcg_precision_name(mpcg_precision p)
{
    switch (p) {
    case MPCG_PRECISION_FP64: return "fp64";
    case MPCG_PRECISION_FP32: return "fp32";
    case MPCG_PRECISION_MIXED: return "mixed";
    }
    return "unknown";
}

const char *mpcg_reason_name(mpcg_reason r)
{
    switch (r) {
    case MPCG_REASON_NONE: return "MPCG_REASON_NONE";
    case MPCG_CONVERGED_RTOL: return "MPCG_CONVERGED_RTOL";
    case MPCG_CONVERGED_ZERO_RHS: return "MPCG_CONVERGED_ZERO_RHS";
    case MPCG_CONVERGED_ATOL: return "MPCG_CONVERGED_ATOL";
    case MPCG_DIVERGED_MAX_ITER: return "MPCG_DIVERGED_MAX_ITER";
    case MPCG_DIVERGED_BREAKDOWN: return "MPCG_DIVERGED_BREAKDOWN";
    case MPCG_DIVERGED_INDEFINITE_MATRIX: return "MPCG_DIVERGED_INDEFINITE_MATRIX";
    case MPCG_DIVERGED_NAN: return "MPCG_DIVERGED_NAN";
    case MPCG_DIVERGED_STAGNATION: return "MPCG_DIVERGED_STAGNATION";
    case MPCG_DIVERGED_INDEFINITE_PC: return "MPCG_DIVERGED_INDEFINITE_PC";
    }
    return "MPCG_REASON_UNKNOWN";
}

const char *mpcg_reason_string(mpcg_reason r)
{
    switch (r) {
    case MPCG_REASON_NONE: return "no solve has run";
    case MPCG_CONVERGED_RTOL: return "converged: relative residual below tol";
    case MPCG_CONVERGED_ZERO_RHS: return "converged: b = 0, so x = 0";
    case MPCG_CONVERGED_ATOL: return "converged: residual below the absolute tolerance atol";
    case MPCG_DIVERGED_MAX_ITER: return "diverged: maximum number of iterations reached";
    case MPCG_DIVERGED_BREAKDOWN: return "diverged: breakdown, p^T A p = 0 for p != 0";
    case MPCG_DIVERGED_INDEFINITE_MATRIX:
        return "diverged: p^T A p < 0, the matrix is not positive definite";
    case MPCG_DIVERGED_NAN: return "diverged: NaN or Inf in the iteration";
    case MPCG_DIVERGED_STAGNATION:
        return "diverged: true residual stagnates above tol (loss of accuracy)";
    case MPCG_DIVERGED_INDEFINITE_PC:
        return "diverged: r^T M^-1 r <= 0, the preconditioner is not positive definite";
    }
    return "unknown reason";
}

static void slot(const mpcg_context *ctx, char **buf, int **set, int **frames)
{
    /* The message buffer is logically mutable state of a const object (like errno). */
    mpcg_context *c = (mpcg_context *)(uintptr_t)ctx;
    if (c) {
        *buf = c->err;
        *set = &c->err_set;
        *frames = &c->err_frames;
    } else {
        *buf = thread_err;
        *set = &thread_err_set;
        *frames = &thread_err_frames;
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

mpcg_status mpcgi_error_set(const mpcg_context *ctx, mpcg_status code, const char *file, int line,
                            const char *func, const char *fmt, ...)
{
    char *buf;
    int *set, *frames;
    slot(ctx, &buf, &set, &frames);
    if (*set) return code; /* the first failure wins */
    int k = snprintf(buf, MPCGI_ERR_LEN, "%s:%d: %s: ", base_name(file), line, func);
    if (k < 0) k = 0;
    if (k < MPCGI_ERR_LEN) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + k, (size_t)(MPCGI_ERR_LEN - k), fmt, ap);
        va_end(ap);
    }
    *set = 1;
    *frames = 0;
    mpcgi_log(ctx, MPCG_LOG_ERROR, "%s", buf);
    return code;
}

void mpcgi_error_frame(const mpcg_context *ctx, const char *file, int line, const char *func)
{
    char *buf;
    int *set, *frames;
    slot(ctx, &buf, &set, &frames);
    if (!*set || *frames >= MAX_FRAMES) return;
    size_t len = strlen(buf);
    if (len + 1 < MPCGI_ERR_LEN)
        snprintf(buf + len, MPCGI_ERR_LEN - len, "\n  called from %s:%d: %s", base_name(file),
                 line, func);
    (*frames)++;
}

void mpcgi_error_to_thread(const mpcg_context *ctx)
{
    if (!ctx->err_set || thread_err_set) return;
    snprintf(thread_err, sizeof thread_err, "%s", ctx->err);
    thread_err_set = 1;
    thread_err_frames = ctx->err_frames;
}

const char *mpcg_last_error(const mpcg_context *ctx)
{
    if (ctx && !mpcgi_context_valid(ctx)) return "invalid context";
    char *buf;
    int *set, *frames;
    slot(ctx, &buf, &set, &frames);
    return *set ? buf : "";
}

size_t mpcg_last_error_message(const mpcg_context *ctx, char *buf, size_t size)
{
    /* mpcgi_error_set wrote "<file>:<line>: <function>: <message>"; frames follow a newline */
    const char *msg = mpcg_last_error(ctx), *text = msg;
    if (ctx && !mpcgi_context_valid(ctx)) text = msg; /* "invalid context": no location */
    else if (*msg) {
        const char *p = strstr(msg, ": ");
        p = p ? strstr(p + 2, ": ") : NULL;
        text = p ? p + 2 : msg;
    }
    size_t len = strcspn(text, "\n");
    if (buf && size > 0) snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), text);
    return len;
}

void mpcg_clear_error(mpcg_context *ctx)
{
    char *buf;
    int *set, *frames;
    if (ctx && !mpcgi_context_valid(ctx)) return;
    slot(ctx, &buf, &set, &frames);
    *set = 0;
    *frames = 0;
    buf[0] = '\0';
}

void mpcgi_log(const mpcg_context *ctx, mpcg_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log_fn || level > ctx->log_level) return;
    char msg[MPCGI_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->log_fn(level, msg, ctx->log_user);
}
