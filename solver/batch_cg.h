/* solver/batch_cg.h: batched CG, one system's iteration written once for the host and the
 * device (solver/batch_cg.c, solver/batch_cg.cu; docs/batched.md) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_BATCH_CG_H
#define MPCG_SOLVER_BATCH_CG_H

#include <stddef.h>
#include <stdint.h>

#include "mpcg.h"

/* Settings of a batched solve, the same for every system. */
typedef struct mpcgi_batch_settings {
    double tol;
    int64_t maxit; /* -1: max(100, 10 n_i) */
    int jacobi;
    int replacements; /* most residual replacements of a system before STAGNATION */
} mpcgi_batch_settings;

#define MPCGI_BATCH_REPLACEMENTS 20

#ifdef __cplusplus
extern "C" {
#endif

/* The device solve (solver/batch_cg.cu): every system of the device arrays in one launch (a
 * thread block a system), b and x device arrays of `rows` values, results to res_dev (k
 * entries); work: mpcgi_batch_cg_workspace(rows) bytes. max_n, max_nnz: the most rows and
 * entries of a system (they decide what stays in shared memory). Returns a cudaError_t as int. */
typedef struct mpcgi_batch_dev {
    int64_t k, max_n, max_nnz;
    const int64_t *off, *ptr;
    const int32_t *col;
    const double *val;
} mpcgi_batch_dev;

#define MPCGI_BATCH_VECTORS 6 /* x, r, z, p, q, 1/diag */

/* Bytes of the device solve's workspace: every vector of every system (used where they do not
 * fit in shared memory). */
static inline size_t mpcgi_batch_cg_workspace(int64_t rows)
{
    return (size_t)MPCGI_BATCH_VECTORS * (size_t)(rows > 0 ? rows : 1) * sizeof(double);
}
int mpcgi_batch_cg_launch(void *stream, const mpcgi_batch_dev *A, const double *b, double *x,
                          mpcgi_batch_settings st, mpcg_batch_result *res_dev, void *work);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SOLVER_BATCH_CG_H */
