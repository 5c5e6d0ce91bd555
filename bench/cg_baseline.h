/* bench/cg_baseline.h: the plain cuSPARSE + cuBLAS CG loop that cgbench compares mpcg with */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_CG_BASELINE_H
#define MPCG_BENCH_CG_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"

/* What the baseline did: its last timed run and the median time over the timed runs. */
typedef struct bench_cg_result {
    int64_t iterations;        /* iterations of a run (the same in every run) */
    int converged;             /* 1: the recurrence residual reached tol before the limit */
    double ms, ms_min, ms_max; /* time of a run: median, fastest, slowest */
    double ms_per_iter;        /* ms / iterations */
    double recurrence_relres;  /* ||r_k|| / ||b|| of the recurrence at exit */
    double true_relres;        /* ||b - A x|| / ||b||, recomputed after the last run */
    double bytes_matrix;       /* 12 nnz + 4 (n + 1): fp64 values, int32 indices */
    double bytes_per_iter;     /* bytes_matrix + 128 n: the loop's memory traffic */
} bench_cg_result;

/*
 * CG on A x = b as a user writes it from the cuSPARSE documentation and NVIDIA's
 * conjugateGradient sample: its own cuSPARSE and cuBLAS handles on the context's stream,
 * cusparseSpMV on 32-bit-index CSR with CUSPARSE_SPMV_ALG_DEFAULT, cublasDdot/Daxpy/Dscal/Dcopy
 * with host pointer mode, x0 = 0, and the recurrence residual tested every iteration:
 * it stops when ||r_k|| <= tol ||b|| or after maxit iterations. One untimed run, then `runs`
 * runs timed with CUDA events on the context's stream.
 * @param[in] b_dev  n doubles on the context's GPU.
 * @return MPCG_SUCCESS; MPCG_ERR_NOT_SUPPORTED (nnz > 2^31 - 1); MPCG_ERR_INVALID_ARG;
 *         MPCG_ERR_HOST_ALLOC, MPCG_ERR_DEVICE_ALLOC, MPCG_ERR_CUDA/CUSPARSE/CUBLAS.
 */
mpcg_status bench_cg_baseline(mpcg_context *ctx, const mpcgi_csr *A, const double *b_dev,
                              double tol, int64_t maxit, int runs, bench_cg_result *res);

#endif /* MPCG_BENCH_CG_BASELINE_H */
