/* core/batch.h: the batch object (many small independent systems, one concatenated CSR;
 * docs/batched.md) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_BATCH_H
#define MPCG_CORE_BATCH_H

#include <stdint.h>

#include "mpcg.h"

#define MPCGI_BATCH_MAGIC 0x62617463

/* The arrays of a batch in one place (host or device): system i has rows off[i] .. off[i + 1]
 * - 1 of the concatenation, their entries ptr[row] .. ptr[row + 1] - 1 of col (local columns)
 * and val. */
typedef struct mpcgi_batch_arrays {
    int64_t *off, *ptr;
    int32_t *col;
    double *val;
} mpcgi_batch_arrays;

struct mpcg_batch {
    unsigned magic;
    mpcg_context *ctx;
    int64_t k, rows, nnz;
    int64_t max_n, max_row_nnz; /* the largest system, the longest row */
    int64_t max_nnz;            /* the most entries of a system */
    mpcgi_batch_arrays host;
    mpcgi_batch_arrays dev; /* on a GPU context, else all NULL */
    double tol;
    int64_t maxit;        /* -1: max(100, 10 n_i) */
    mpcg_precond precond; /* NONE, JACOBI or AUTO (resolved at each solve) */
    void *work;           /* device workspace of the solves and products, kept */
    size_t work_bytes;
};

/* The batch's device workspace, at least `bytes` (grown, kept until destroy). */
mpcg_status mpcgi_batch_work(mpcg_batch *b, size_t bytes, void **out);

int mpcgi_batch_valid(const mpcg_batch *b);

/* System i's iteration cap. */
static inline int64_t mpcgi_batch_maxit(const mpcg_batch *b, int64_t n)
{
    return b->maxit >= 0 ? b->maxit : (10 * n > 100 ? 10 * n : 100);
}

#endif /* MPCG_CORE_BATCH_H */
