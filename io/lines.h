/* io/lines.h: a buffered line reader over a plain file or a gzip stream */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_IO_LINES_H
#define MPCG_IO_LINES_H

#include <stdint.h>
#include <stdio.h>

#include "mpcg.h"

/*
 * Reads blocks of MPCGI_LINES_BLOCK bytes (fread, or gzread for a path ending in ".gz") and hands
 * out one line at a time as a [begin, end) range inside its buffer, without the '\n' and without
 * a trailing '\r'. A line is valid until the next call. Lines longer than MPCGI_LINES_MAX are an
 * error (MPCG_ERR_PARSE); a file of text has no such lines.
 */
#define MPCGI_LINES_BLOCK ((size_t)1 << 20)
#define MPCGI_LINES_MAX ((size_t)1 << 24)

typedef struct mpcgi_lines {
    const mpcg_context *ctx; /* where errors are recorded */
    const char *path;        /* for messages */
    FILE *file;              /* plain file, or NULL */
    void *gz;                /* gzFile, or NULL */
    char *buf;               /* unread data is buf[pos, len) */
    size_t cap, pos, len;
    int eof;      /* the stream has no more data */
    int ended;    /* mpcgi_lines_next has reported the end */
    int64_t line; /* 1-based number of the last line handed out; after the end, the
                     number of lines + 1 (where more data was expected) */
} mpcgi_lines;

/* Open path for reading. MPCG_ERR_IO "cannot open PATH: reason"; MPCG_ERR_NOT_SUPPORTED for .gz
 * without zlib; MPCG_ERR_HOST_ALLOC. On failure nothing stays open. */
mpcg_status mpcgi_lines_open(const mpcg_context *ctx, const char *path, mpcgi_lines *r);

/* Next line as [*begin, *end); *begin = NULL at the end of the file. MPCG_ERR_IO if reading
 * fails (also a truncated gzip stream), MPCG_ERR_PARSE for an overlong line. */
mpcg_status mpcgi_lines_next(mpcgi_lines *r, char **begin, char **end);

/* Close and free; accepts a zeroed or already closed reader. */
void mpcgi_lines_close(mpcgi_lines *r);

/* 1 if path ends in ".gz". */
int mpcgi_path_is_gz(const char *path);

#endif /* MPCG_IO_LINES_H */
