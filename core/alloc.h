/* core/alloc.h: host allocation with a live counter and a test-only failure hook */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_ALLOC_H
#define MPCG_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "mpcg.h"

/* *(void **)pptr = malloc(bytes) (at least 1 byte); MPCG_ERR_HOST_ALLOC with a message
 * naming the size on failure (*pptr is then NULL). */
mpcg_status mpcgi_host_alloc(const mpcg_context *ctx, size_t bytes, void *pptr);
/* count * size bytes, with the multiplication checked for overflow. */
mpcg_status mpcgi_host_alloc_array(const mpcg_context *ctx, size_t count, size_t size, void *pptr);
/* As above but zero-filled. */
mpcg_status mpcgi_host_calloc(const mpcg_context *ctx, size_t count, size_t size, void *pptr);
/* Grow or shrink; on failure the old block is kept and still owned by the caller. */
mpcg_status mpcgi_host_realloc(const mpcg_context *ctx, size_t bytes, void *pptr);
/* Free; accepts NULL. */
void mpcgi_host_free(void *p);

/* Bytes a new allocation may take without pushing the system into its OOM killer: Linux's
 * MemAvailable + SwapFree, bounded by the soft RLIMIT_AS and RLIMIT_DATA; INT64_MAX if unknown.
 * An estimate, for refusing sizes that cannot fit before anything is allocated. */
int64_t mpcgi_host_available(void);

/* Test hooks (allocation-failure sweeps, leak checks). The counters are atomic, so allocations
 * on any thread count correctly; mpcgi_alloc_fail_at is meant to be called while no other thread
 * allocates. Host and device allocations share one counter of attempts. */
void mpcgi_alloc_fail_at(int64_t n); /* fail the n-th attempt from now (0-based); -1 = never */
int64_t mpcgi_alloc_live(void);      /* host + device blocks currently allocated */
int64_t mpcgi_alloc_attempts(void);  /* attempts since the last mpcgi_alloc_fail_at() */
int64_t mpcgi_alloc_device_attempts(void); /* device attempts since the process started */
/* 1 if this attempt must fail (consumes one attempt); used by the device allocator too. */
int mpcgi_alloc_should_fail(void);
void mpcgi_alloc_track(int delta);   /* live-block bookkeeping for the device allocator */
void mpcgi_alloc_count_device(void);

#endif /* MPCG_CORE_ALLOC_H */
