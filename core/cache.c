/* core/cache.c: the pattern hash, and reading and atomically writing files of a cache directory */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync, fileno */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cache.h"
#include "core/error.h"

#define FNV_PRIME 0x100000001b3ull
#define SLICES 64       /* full hash: fixed slices of rows, combined in order */

/* One word into h: both steps are bijections of h (an odd multiplier, an xorshift). */
static inline uint64_t step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * FNV_PRIME;
    return h ^ (h >> 29);
}

uint64_t mpcgi_hash_bytes(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        h = step(h, w);
    }
    if (bytes % 8) { /* the tail, then its length: "ab" and "ab\0" differ */
        uint64_t w = 0;
        memcpy(&w, p + 8 * words, bytes % 8);
        h = step(step(h, w), bytes % 8);
    }
    return h;
}

uint64_t mpcgi_hash_str(uint64_t h, const char *s)
{
    return mpcgi_hash_bytes(h, s, strlen(s));
}

/* mpcgi_hash_bytes's steps in four independent lanes (words 0, 4, 8, ... in lane 0, and so on),
 * combined at the end: four times the throughput of one dependent chain of multiplications,
 * and still a different hash for any one word changed (each lane and the combination are
 * bijections). */
static uint64_t hash_lanes(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3};
    size_t blocks = bytes / 32;
    for (size_t i = 0; i < blocks; i++)
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + 32 * i + 8 * l, 8);
            lane[l] = step(lane[l], w);
        }
    for (int l = 0; l < 4; l++)
        h = step(h, lane[l]);
    return mpcgi_hash_bytes(h, p + 32 * blocks, bytes % 32);
}

/* Rows [r0, r1): their row pointers r0 .. r1 and their columns. */
static uint64_t hash_rows(const mpcgi_csr *A, int64_t r0, int64_t r1)
{
    uint64_t h =
        hash_lanes(MPCGI_HASH_SEED, A->row_ptr + r0, (size_t)(r1 - r0 + 1) * sizeof *A->row_ptr);
    int64_t k0 = A->row_ptr[r0], k1 = A->row_ptr[r1];
    return hash_lanes(h, A->col_idx + k0, (size_t)(k1 - k0) * sizeof *A->col_idx);
}

int64_t mpcgi_pattern_sample_count(int64_t n)
{
    return n < MPCGI_SAMPLE_ROWS ? (n > 0 ? n : 0) : MPCGI_SAMPLE_ROWS;
}

/* One sampled row i: its index, its row pointers, its columns (all, or the first and last
 * MPCGI_SAMPLE_END). */
static uint64_t hash_sample(uint64_t h, int64_t i, const mpcgi_pattern_sample *s)
{
    const int64_t len = s->k1 - s->k0;
    const size_t end = MPCGI_SAMPLE_END * sizeof *s->col;
    h = step(h, (uint64_t)i);
    h = step(h, (uint64_t)s->k0);
    h = step(h, (uint64_t)s->k1);
    if (len <= 2 * MPCGI_SAMPLE_END) return mpcgi_hash_bytes(h, s->col, (size_t)len * sizeof *s->col);
    h = mpcgi_hash_bytes(h, s->col, end);
    return mpcgi_hash_bytes(h, s->col + MPCGI_SAMPLE_END, end);
}

uint64_t mpcgi_pattern_hash_samples(int64_t n, int64_t nnz, const mpcgi_pattern_sample *s)
{
    uint64_t h = step(step(MPCGI_HASH_SEED, (uint64_t)n), (uint64_t)nnz);
    const int64_t rows = mpcgi_pattern_sample_count(n);
    for (int64_t k = 0; k < rows; k++)
        h = hash_sample(h, k * n / rows, &s[k]);
    return h;
}

/* Sample of host row i (the device's is core/csr_view.cu's sample_kernel). */
static void sample_row(const mpcgi_csr *A, int64_t i, mpcgi_pattern_sample *s)
{
    const int64_t k0 = A->row_ptr[i], k1 = A->row_ptr[i + 1], len = k1 - k0;
    s->k0 = k0, s->k1 = k1;
    if (len <= 2 * MPCGI_SAMPLE_END) {
        if (len > 0) memcpy(s->col, A->col_idx + k0, (size_t)len * sizeof *s->col);
        return;
    }
    memcpy(s->col, A->col_idx + k0, MPCGI_SAMPLE_END * sizeof *s->col);
    memcpy(s->col + MPCGI_SAMPLE_END, A->col_idx + k1 - MPCGI_SAMPLE_END,
           MPCGI_SAMPLE_END * sizeof *s->col);
}

uint64_t mpcgi_csr_pattern_hash(const mpcgi_csr *A, int full)
{
    if (!full) {
        mpcgi_pattern_sample s[MPCGI_SAMPLE_ROWS];
        const int64_t rows = mpcgi_pattern_sample_count(A->n);
        for (int64_t k = 0; k < rows; k++)
            sample_row(A, k * A->n / rows, &s[k]);
        return mpcgi_pattern_hash_samples(A->n, A->nnz, s);
    }
    uint64_t h = step(step(MPCGI_HASH_SEED, (uint64_t)A->n), (uint64_t)A->nnz);
    if (A->n <= 0) return h;
    uint64_t part[SLICES];
#pragma omp parallel for schedule(dynamic, 1)
    for (int s = 0; s < SLICES; s++)
        part[s] = hash_rows(A, A->n * s / SLICES, A->n * (s + 1) / SLICES);
    for (int s = 0; s < SLICES; s++)
        h = step(h, part[s]);
    return h;
}

int mpcgi_cache_read(const char *dir, const char *name, char *buf, size_t size, char *why,
                     size_t why_size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(why, why_size, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t got = fread(buf, 1, size - 1, f);
    int err = ferror(f), more = !err && fgetc(f) != EOF;
    fclose(f);
    buf[got] = '\0';
    if (err || more) {
        snprintf(why, why_size, "%s: %s", path,
                 err ? "read error" : "longer than a cache record can be");
        return -1;
    }
    return 1;
}

/* mkdir -p dir, mode 0700 for what it creates. */
static int make_dirs(const char *dir)
{
    char p[2048];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) return -1;
        if (c == '\0') break;
        *s = c;
    }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

mpcg_status mpcgi_cache_write(const mpcg_context *ctx, const char *dir, const char *name,
                              const char *text)
{
    char path[2048], tmp[2048];
    MPCG_ENSURE(ctx, dir && dir[0] && name && name[0] && !strchr(name, '/'), MPCG_ERR_INVALID_ARG,
                "cache: a directory and a plain file name are needed");
    MPCG_ENSURE(ctx, strlen(dir) + strlen(name) + 16 < sizeof path, MPCG_ERR_INVALID_ARG,
                "cache directory %.64s... is too long", dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name);
    MPCG_ENSURE(ctx, make_dirs(dir) == 0, MPCG_ERR_IO, "cannot create the cache directory %s: %s",
                dir, strerror(errno));
    int fd = mkstemp(tmp);
    MPCG_ENSURE(ctx, fd >= 0, MPCG_ERR_IO, "cannot create a file in %s: %s", dir, strerror(errno));
    FILE *f = fdopen(fd, "wb");
    int ok = f != NULL;
    if (!f) close(fd);
    ok = ok && fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int saved = errno;
    if (f && fclose(f) != 0) ok = 0;
    if (ok && rename(tmp, path) != 0) ok = 0, saved = errno;
    if (!ok) unlink(tmp);
    MPCG_ENSURE(ctx, ok, MPCG_ERR_IO, "cannot write %s: %s", path, strerror(saved));
    return MPCG_SUCCESS;
}
