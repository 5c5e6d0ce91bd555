/* io/lines.c: a buffered line reader over a plain file or a gzip stream */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/alloc.h"
#include "core/error.h"
#include "io/lines.h"

/* The only conditional of io/: without zlib, .gz paths are refused at open. */
#if MPCG_HAVE_ZLIB
#include <zlib.h>

static mpcg_status gz_open(const mpcg_context *ctx, const char *path, void **gz)
{
    errno = 0;
    gzFile g = gzopen(path, "rb");
    if (!g)
        MPCG_FAIL(ctx, MPCG_ERR_IO, "cannot open %s: %s", path,
                  errno ? strerror(errno) : "zlib could not allocate its state");
    gzbuffer(g, 1u << 18);
    *gz = g;
    return MPCG_SUCCESS;
}

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
#else
static mpcg_status gz_open(const mpcg_context *ctx, const char *path, void **gz)
{
    *gz = NULL;
    MPCG_FAIL(ctx, MPCG_ERR_NOT_SUPPORTED,
              "cannot read %s: reading .gz needs zlib (rebuild without --without-zlib)", path);
}

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
#endif

int mpcgi_path_is_gz(const char *path)
{
    size_t len = strlen(path);
    return len >= 3 && path[len - 3] == '.' && (path[len - 2] | 0x20) == 'g' &&
           (path[len - 1] | 0x20) == 'z';
}

mpcg_status mpcgi_lines_open(const mpcg_context *ctx, const char *path, mpcgi_lines *r)
{
    mpcg_status st = MPCG_SUCCESS;
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->path = path;
    if (mpcgi_path_is_gz(path)) {
        MPCG_TRY(ctx, st, gz_open(ctx, path, &r->gz));
    } else {
        errno = 0;
        r->file = fopen(path, "rb");
        MPCG_ENSURE_GOTO(ctx, st, r->file, MPCG_ERR_IO, "cannot open %s: %s", path,
                         strerror(errno));
    }
    MPCG_TRY(ctx, st, mpcgi_host_alloc(ctx, MPCGI_LINES_BLOCK, &r->buf));
    r->cap = MPCGI_LINES_BLOCK;
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

mpcg_status mpcgi_lines_next(mpcgi_lines *r, char **begin, char **end)
{
    for (;;) {
        char *s = r->buf + r->pos;
        size_t avail = r->len - r->pos;
        char *nl = avail ? memchr(s, '\n', avail) : NULL;
        if (nl || (r->eof && avail)) {
            char *e = nl ? nl : r->buf + r->len;
            r->pos = (size_t)(e - r->buf) + (nl != NULL);
            if (e > s && e[-1] == '\r') e--;
            r->line++;
            *begin = s;
            *end = e;
            return MPCG_SUCCESS;
        }
        if (r->eof) {
            if (!r->ended) r->line++;
            r->ended = 1;
            *begin = *end = NULL;
            return MPCG_SUCCESS;
        }
        MPCG_CHECK(r->ctx, refill(r));
    }
}
