/* core/cache.h: a fingerprint of a CSR pattern, and small text files kept in a cache directory */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CACHE_H
#define MPCG_CORE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"

/* The start of every hash (FNV-1a's 64-bit offset basis). */
#define MPCGI_HASH_SEED 0xcbf29ce484222325ull

/*
 * A 64-bit hash in the manner of FNV-1a, over 8-byte words instead of bytes (eight times fewer
 * multiplications): each word w does h = (h ^ w) * FNV's prime, h ^= h >> 29. Both steps are
 * bijections of h, so two inputs that differ in one word always hash differently. The tail of
 * `bytes` that is not a whole word is zero-padded into one last word, followed by its length.
 * Words are read in the host's byte order (a cache is per machine). Not cryptographic.
 */
uint64_t mpcgi_hash_bytes(uint64_t h, const void *data, size_t bytes);
/* mpcgi_hash_bytes over the characters of s (without its NUL). */
uint64_t mpcgi_hash_str(uint64_t h, const char *s);

/*
 * The hash of A's pattern: n, nnz, row pointers and columns (never the values, which
 * mpcg_matrix_update_values changes without changing what the SpMV backends do with A).
 *   full = 1: every row pointer and every column, in 64 fixed slices of rows hashed in parallel
 *             and combined in slice order (the same value whatever the thread count);
 *   full = 0: a sample: 256 rows spread evenly over A (all rows when n is smaller), each with
 *             its index, its two row pointers and its first and last 8 columns. The row pointers
 *             are cumulative, so a changed length of any row before a sampled one changes the
 *             hash too; a pattern that differs only inside unsampled rows, with the same n, nnz
 *             and row lengths, hashes the same.
 */
uint64_t mpcgi_csr_pattern_hash(const mpcgi_csr *A, int full);

/* The sampled hash's rows and the columns it reads from each end of a row. */
#define MPCGI_SAMPLE_ROWS 256
#define MPCGI_SAMPLE_END 8

/* What the sampled hash reads of one row: its two row pointers and its columns, all of them
 * when it has at most 2 MPCGI_SAMPLE_END (col[0 .. k1 - k0)), else the first and the last
 * MPCGI_SAMPLE_END (col[0 .. END), col[END .. 2 END)). */
typedef struct mpcgi_pattern_sample {
    int64_t k0, k1;
    int32_t col[2 * MPCGI_SAMPLE_END];
} mpcgi_pattern_sample;

/* The sampled rows of an n-row matrix: min(n, MPCGI_SAMPLE_ROWS); sample k is row k n / count. */
int64_t mpcgi_pattern_sample_count(int64_t n);
/* The sampled hash (full = 0 above) from the samples of A's rows, wherever they were read
 * (host CSR, or a device view: mpcgi_view_pattern_samples); the same value either way. */
uint64_t mpcgi_pattern_hash_samples(int64_t n, int64_t nnz, const mpcgi_pattern_sample *s);

/*
 * Read the file dir/name into buf (NUL-terminated). Returns 1 when read, 0 when there is no such
 * file (a cache miss, not an error), -1 when it exists but cannot be read or holds size - 1 bytes
 * or more; `why` then says which (it is not an error of the context: a cache is optional).
 */
int mpcgi_cache_read(const char *dir, const char *name, char *buf, size_t size, char *why,
                     size_t why_size);

/*
 * Write `text` as dir/name atomically: the directory is created if missing (with its parents,
 * mode 0700), the text goes to a new temporary file beside the target (mkstemp), is flushed to
 * disk and renamed over dir/name. A reader sees the old file or the new one whole, never a part,
 * and writers racing on the same name leave one of their files. On failure nothing is left
 * behind and MPCG_ERR_IO names the path and the reason.
 */
mpcg_status mpcgi_cache_write(const mpcg_context *ctx, const char *dir, const char *name,
                              const char *text);

#endif /* MPCG_CORE_CACHE_H */
