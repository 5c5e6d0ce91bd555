/* core/alloc.c: host allocation with a live counter and a test-only failure hook */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

static int64_t fail_at = -1;
static int64_t attempts;
static int64_t live;
static int64_t device_attempts;

void mpcgi_alloc_fail_at(int64_t n)
{
    fail_at = n;
    attempts = 0;
}

int64_t mpcgi_alloc_live(void) { return live; }
int64_t mpcgi_alloc_attempts(void) { return attempts; }
int64_t mpcgi_alloc_device_attempts(void) { return device_attempts; }
void mpcgi_alloc_track(int delta) { live += delta; }
void mpcgi_alloc_count_device(void) { device_attempts++; }

int mpcgi_alloc_should_fail(void)
{
    int64_t k = attempts++;
    return fail_at >= 0 && k == fail_at;
}

mpcg_status mpcgi_host_alloc(const mpcg_context *ctx, size_t bytes, void *pptr)
{
    void **out = (void **)pptr;
    *out = NULL;
    void *p = mpcgi_alloc_should_fail() ? NULL : malloc(bytes ? bytes : 1);
    if (!p) MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "cannot allocate %zu bytes of host memory", bytes);
    live++;
    *out = p;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_host_alloc_array(const mpcg_context *ctx, size_t count, size_t size, void *pptr)
{
    *(void **)pptr = NULL;
    if (size && count > SIZE_MAX / size)
        MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "array of %zu x %zu bytes overflows size_t", count,
                  size);
    MPCG_CHECK(ctx, mpcgi_host_alloc(ctx, count * size, pptr));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_host_calloc(const mpcg_context *ctx, size_t count, size_t size, void *pptr)
{
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, count, size, pptr));
    memset(*(void **)pptr, 0, count * size);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_host_realloc(const mpcg_context *ctx, size_t bytes, void *pptr)
{
    void **io = (void **)pptr;
    if (!*io) return mpcgi_host_alloc(ctx, bytes, pptr);
    void *p = mpcgi_alloc_should_fail() ? NULL : realloc(*io, bytes ? bytes : 1);
    if (!p) MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "cannot grow a block to %zu bytes", bytes);
    *io = p;
    return MPCG_SUCCESS;
}

void mpcgi_host_free(void *p)
{
    if (!p) return;
    live--;
    free(p);
}

void mpcg_free(void *p) { mpcgi_host_free(p); }
