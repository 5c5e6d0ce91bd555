/* io/lines.c: a buffered line reader over a plain file or a gzip stream */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* dup, fileno, lseek */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "core/alloc.h"
#include "core/error.h"
#include "io/lines.h"

/* The only conditional of io/: without zlib, gzip data is refused at open. */
#ifndef MPCG_HAVE_ZLIB
#define MPCG_HAVE_ZLIB 0
#endif
#if MPCG_HAVE_ZLIB
#include <zlib.h>

/* Read up to want bytes; *got < want means the end of the stream. A truncated stream is an
 * error (zlib reports Z_BUF_ERROR, "unexpected end of file"), not a short file. */
static mpcg_status gz_read(const mpcgi_lines *r, char *buf, size_t want, size_t *got)
{
    int n = gzread((gzFile)r->gz, buf, (unsigned)want);
    int err = Z_OK;
    const char *msg = gzerror((gzFile)r->gz, &err);
    *got = n > 0 ? (size_t)n : 0;
    if (n >= 0 && err == Z_OK) return MPCG_SUCCESS;
    size_t plen = strlen(r->path); /* zlib's message starts with "PATH: " */
    if (strncmp(msg, r->path, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0) msg += plen + 2;
    MPCG_FAIL(r->ctx, MPCG_ERR_IO, "%s:%lld: cannot read: %s%s", r->path, (long long)r->line + 1,
              err == Z_ERRNO ? strerror(errno) : msg,
              err == Z_BUF_ERROR ? " (truncated gzip data)" : "");
}

static void gz_close(void *gz)
{
    gzclose_r((gzFile)gz);
}

/* The first block showed gzip data: read the file again from its start through zlib. The FILE
 * is closed first (POSIX lets fclose move the offset it shares with the duplicate), then a
 * duplicate of its descriptor is rewound and handed to gzdopen. A pipe cannot be rewound. */
static mpcg_status gz_switch(mpcgi_lines *r)
{
    int fd = dup(fileno(r->file));
    MPCG_ENSURE(r->ctx, fd >= 0, MPCG_ERR_IO, "%s:1: cannot read: %s", r->path, strerror(errno));
    fclose(r->file);
    r->file = NULL;
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        MPCG_FAIL(r->ctx, MPCG_ERR_IO,
                  "%s:1: cannot read: gzip data from a stream that cannot be rewound (a pipe?): "
                  "decompress it first",
                  r->path);
    }
    gzFile g = gzdopen(fd, "rb");
    if (!g) {
        close(fd);
        MPCG_FAIL(r->ctx, MPCG_ERR_IO, "cannot open %s: zlib could not allocate its state",
                  r->path);
    }
    gzbuffer(g, 1u << 18);
    r->gz = g;
    return MPCG_SUCCESS;
}
#else
static mpcg_status gz_read(const mpcgi_lines *r, char *buf, size_t want, size_t *got)
{
    (void)buf, (void)want;
    *got = 0;
    MPCG_FAIL(r->ctx, MPCG_ERR_INTERNAL, "gz_read without zlib");
}

static void gz_close(void *gz)
{
    (void)gz;
}

static mpcg_status gz_switch(mpcgi_lines *r)
{
    MPCG_FAIL(r->ctx, MPCG_ERR_NOT_SUPPORTED,
              "cannot read %s: the file is gzip-compressed, and reading .gz needs zlib (rebuild "
              "without --without-zlib)",
              r->path);
}
#endif

int mpcgi_path_is_gz(const char *path)
{
    size_t len = strlen(path);
    return len >= 3 && path[len - 3] == '.' && (path[len - 2] | 0x20) == 'g' &&
           (path[len - 1] | 0x20) == 'z';
}

/* Forget the buffer's data and the remembered line ends. */
static void reset(mpcgi_lines *r)
{
    r->pos = r->len = 0;
    r->eof = 0;
    r->next_lf = r->next_cr = SIZE_MAX;
}

static mpcg_status refill(mpcgi_lines *r);

/* Compressed data this reader does not decompress, by its magic bytes (bzip2 "BZh1" to
 * "BZh9", xz FD "7zXZ" 00, zstd 28 B5 2F FD): its name and the program that decompresses it. */
typedef struct compression {
    const char *magic;
    size_t len;
    const char *name, *tool;
} compression;

static const compression *other_compression(const mpcgi_lines *r)
{
    static const compression kinds[] = {
        {"BZh", 3, "bzip2", "bunzip2"},
        {"\xfd\x37zXZ\0", 6, "xz", "unxz"},
        {"\x28\xb5\x2f\xfd", 4, "zstd", "unzstd"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (r->len >= kinds[k].len && memcmp(r->buf, kinds[k].magic, kinds[k].len) == 0 &&
            (k != 0 || (r->len > 3 && r->buf[3] >= '1' && r->buf[3] <= '9')))
            return &kinds[k];
    return NULL;
}

mpcg_status mpcgi_lines_open(const mpcg_context *ctx, const char *path, mpcgi_lines *r)
{
    mpcg_status st = MPCG_SUCCESS;
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->path = path;
    reset(r);
    errno = 0;
    r->file = fopen(path, "rb");
    MPCG_ENSURE_GOTO(ctx, st, r->file, MPCG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, MPCGI_LINES_BLOCK, &r->buf));
    r->cap = MPCGI_LINES_BLOCK;
    /* gzip is recognised by its magic bytes 1f 8b, whatever the name; a Matrix Market file
     * starts with '%' */
    MPCG_TRY(ctx, st, refill(r));
    if (r->len >= 2 && (unsigned char)r->buf[0] == 0x1f && (unsigned char)r->buf[1] == 0x8b) {
        reset(r);
        MPCG_TRY(ctx, st, gz_switch(r));
    }
    const compression *other = other_compression(r);
    if (other)
        MPCG_FAIL_GOTO(ctx, st, MPCG_ERR_NOT_SUPPORTED,
                       "%s is %s-compressed: decompress it first (%s)%s",
                       path, other->name, other->tool, MPCG_HAVE_ZLIB ? ", or use .gz" : "");
done:
    if (st != MPCG_SUCCESS) mpcgi_lines_close(r);
    return st;
}

void mpcgi_lines_close(mpcgi_lines *r)
{
    if (r->file) fclose(r->file);
    if (r->gz) gz_close(r->gz);
    mpcgi_host_free(r->buf);
    r->file = NULL;
    r->gz = NULL;
    r->buf = NULL;
    r->cap = r->pos = r->len = 0;
}

/* Move the partial line to the front (growing the buffer if it fills it) and read more. */
static mpcg_status refill(mpcgi_lines *r)
{
    size_t keep = r->len - r->pos;
    if (r->pos > 0) memmove(r->buf, r->buf + r->pos, keep);
    r->pos = 0;
    r->len = keep;
    r->next_lf = r->next_cr = SIZE_MAX;
    if (keep == r->cap) {
        if (r->cap >= MPCGI_LINES_MAX)
            return mpcgi_error_set(r->ctx, MPCG_ERR_PARSE, __FILE__, __LINE__, __func__,
                                   "%s:%lld: line longer than %zu bytes", r->path,
                                   (long long)r->line + 1, MPCGI_LINES_MAX);
        MPCG_CHECK(r->ctx, mpcgi_host_realloc(r->ctx, 2 * r->cap, &r->buf));
        r->cap *= 2;
    }
    size_t want = r->cap - r->len, got = 0;
    if (r->gz) {
        MPCG_CHECK(r->ctx, gz_read(r, r->buf + r->len, want, &got));
    } else {
        errno = 0;
        got = fread(r->buf + r->len, 1, want, r->file);
        if (got < want && ferror(r->file))
            MPCG_FAIL(r->ctx, MPCG_ERR_IO, "%s:%lld: cannot read: %s", r->path,
                      (long long)r->line + 1, errno ? strerror(errno) : "read error");
    }
    r->len += got;
    if (got < want) r->eof = 1;
    return MPCG_SUCCESS;
}

/* Offset of the first c in buf[pos, len), or len if there is none. *hint keeps the answer of an
 * earlier search from a pos' <= pos, which stays right while it is >= pos and the buffer is
 * unchanged (refill resets it): without it, each line of a CR-only file would search the rest of
 * the block for a '\n' that never comes (quadratic), and of an LF file for a '\r'. */
static size_t find(const mpcgi_lines *r, size_t *hint, char c)
{
    if (*hint == SIZE_MAX || *hint < r->pos) {
        const char *p = memchr(r->buf + r->pos, c, r->len - r->pos);
        *hint = p ? (size_t)(p - r->buf) : r->len;
    }
    return *hint;
}

mpcg_status mpcgi_lines_next(mpcgi_lines *r, char **begin, char **end)
{
    for (;;) {
        size_t lf = find(r, &r->next_lf, '\n'), cr = find(r, &r->next_cr, '\r');
        size_t e = lf < cr ? lf : cr, next = e + 1; /* the line is [pos, e) */
        if (e < r->len && e == cr) {
            /* CR alone or CR LF: which one shows only once the byte after the CR is read */
            if (next == r->len && !r->eof) {
                MPCG_CHECK(r->ctx, refill(r));
                continue;
            }
            if (next < r->len && r->buf[next] == '\n') next++;
        }
        if (e == r->len) {
            if (!r->eof) {
                MPCG_CHECK(r->ctx, refill(r));
                continue;
            }
            if (r->pos == r->len) { /* the end */
                if (!r->ended) r->line++;
                r->ended = 1;
                *begin = *end = NULL;
                return MPCG_SUCCESS;
            }
            next = r->len; /* a last line without a line end */
        }
        *begin = r->buf + r->pos;
        *end = r->buf + e;
        r->pos = next;
        r->line++;
        return MPCG_SUCCESS;
    }
}
