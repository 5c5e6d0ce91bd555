/* io/lines.h: a buffered line reader over a plain file or a gzip stream */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_IO_LINES_H
#define MPCG_IO_LINES_H

#include <stdint.h>
#include <stdio.h>

#include "mpcg.h"

/*
 * Reads blocks of MPCGI_LINES_BLOCK bytes (fread, or gzread when the file starts with the gzip
 * magic bytes 1f 8b, whatever its name) and hands out one line at a time as a [begin, end) range
 * inside its buffer, without its line end. A line ends at LF, CR LF or a CR alone (old Mac
 * files), in any mix: each is one line end, so line numbers count them. A line is valid until
 * the next call. Lines longer than MPCGI_LINES_MAX are an error (MPCG_ERR_PARSE); a file of text
 * has no such lines.
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
    size_t next_lf, next_cr; /* offsets of the next '\n' and '\r' at or after pos (len: none in
                                the buffer; SIZE_MAX: not searched yet) */
    int eof;                 /* the stream has no more data */
    int ended;               /* mpcgi_lines_next has reported the end */
    int64_t line;            /* 1-based number of the last line handed out; after the end, the
                                number of lines + 1 (where more data was expected) */
} mpcgi_lines;

/* Open path for reading and read its first block. MPCG_ERR_IO "cannot open PATH: reason" (or
 * "PATH:1: cannot read: reason", also for gzip data from a pipe, which cannot be read twice);
 * MPCG_ERR_NOT_SUPPORTED for gzip data without zlib; MPCG_ERR_HOST_ALLOC. On failure nothing
 * stays open. */
mpcg_status mpcgi_lines_open(const mpcg_context *ctx, const char *path, mpcgi_lines *r);

/* Next line as [*begin, *end); *begin = NULL at the end of the file. MPCG_ERR_IO if reading
 * fails (also a truncated gzip stream), MPCG_ERR_PARSE for an overlong line. */
mpcg_status mpcgi_lines_next(mpcgi_lines *r, char **begin, char **end);

/* Close and free; accepts a zeroed or already closed reader. */
void mpcgi_lines_close(mpcgi_lines *r);

/* 1 if path ends in ".gz" (the writer refuses such paths; names drop the suffix). */
int mpcgi_path_is_gz(const char *path);

#endif /* MPCG_IO_LINES_H */
