/* core/alloc.c: host allocation with a live counter and a test-only failure hook */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* getrlimit */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/alloc.h"
#include "core/error.h"

/* Atomic: allocations happen on any thread (OpenMP regions, several contexts at once), and a
 * plain counter would be a data race. Relaxed order: they count, they order nothing. */
static _Atomic int64_t fail_at = -1;
static _Atomic int64_t attempts;
static _Atomic int64_t live;
static _Atomic int64_t device_attempts;

#define RELAXED memory_order_relaxed

void mpcgi_alloc_fail_at(int64_t n)
{
    atomic_store_explicit(&attempts, 0, RELAXED);
    atomic_store_explicit(&fail_at, n, RELAXED);
}

int64_t mpcgi_alloc_live(void) { return atomic_load_explicit(&live, RELAXED); }
int64_t mpcgi_alloc_attempts(void) { return atomic_load_explicit(&attempts, RELAXED); }
int64_t mpcgi_alloc_device_attempts(void)
{
    return atomic_load_explicit(&device_attempts, RELAXED);
}
void mpcgi_alloc_track(int delta) { atomic_fetch_add_explicit(&live, delta, RELAXED); }
void mpcgi_alloc_count_device(void) { atomic_fetch_add_explicit(&device_attempts, 1, RELAXED); }

int mpcgi_alloc_should_fail(void)
{
    int64_t k = atomic_fetch_add_explicit(&attempts, 1, RELAXED);
    int64_t at = atomic_load_explicit(&fail_at, RELAXED);
    return at >= 0 && k == at;
}

mpcg_status mpcgi_host_alloc(const mpcg_context *ctx, size_t bytes, void *pptr)
{
    void **out = (void **)pptr;
    *out = NULL;
    void *p = mpcgi_alloc_should_fail() ? NULL : malloc(bytes ? bytes : 1);
    if (!p) MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "cannot allocate %zu bytes of host memory", bytes);
    mpcgi_alloc_track(+1);
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
    /* calloc, not malloc and memset: a large block comes as zero pages that cost nothing until
     * they are written */
    void **out = (void **)pptr;
    *out = NULL;
    if (size && count > SIZE_MAX / size)
        MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "array of %zu x %zu bytes overflows size_t", count,
                  size);
    void *p = mpcgi_alloc_should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
    if (!p)
        MPCG_FAIL(ctx, MPCG_ERR_HOST_ALLOC, "cannot allocate %zu bytes of host memory",
                  count * size);
    mpcgi_alloc_track(+1);
    *out = p;
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
    mpcgi_alloc_track(-1);
    free(p);
}

void mpcg_free(void *p) { mpcgi_host_free(p); }

/* MemAvailable + SwapFree of /proc/meminfo in bytes; -1 where there is no such file. */
static int64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    long long kb, avail = -1, swap = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) avail = kb;
        if (sscanf(line, "SwapFree: %lld kB", &kb) == 1) swap = kb;
    }
    fclose(f);
    return avail < 0 ? -1 : (int64_t)(avail + swap) * 1024;
}

int64_t mpcgi_host_available(void)
{
    int64_t avail = meminfo_available();
    if (avail < 0) avail = INT64_MAX;
    static const int limits[] = {RLIMIT_AS, RLIMIT_DATA};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        struct rlimit rl;
        if (getrlimit(limits[k], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            rl.rlim_cur < (rlim_t)avail)
            avail = (int64_t)rl.rlim_cur;
    }
    return avail;
}
