/* bench/cgbench_block.h: cgbench --rhs=S: S right-hand sides solved one after another (fused CG),
 * as one block CG solve and as S independent CGs sharing the SpMM */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_CGBENCH_BLOCK_H
#define MPCG_BENCH_CGBENCH_BLOCK_H

#include "bench/common.h"

/* Most right-hand sides (mpcg_solve_block's nrhs) and most timed solves per row. */
#define CGBENCH_BLOCK_MAX_RHS 64
#define CGBENCH_BLOCK_MAX_RUNS 100

/* What one --rhs run measures: the backends, the S columns and the settings of every solver
 * (fp64 always). */
typedef struct cgbench_block_args {
    mpcg_context *ctx;
    mpcg_matrix *A;
    const char *matrix;
    const struct mpcgi_spmv_ops *const *ops;
    int count;
    int nrhs;            /* S, 1 .. CGBENCH_BLOCK_MAX_RHS */
    uint64_t seed;       /* of the right-hand sides */
    const bench_opts *c; /* runs, the -O options */
    double tol;
    long maxit;             /* -1: the library's default */
    int64_t maxit_resolved; /* for the records */
    mpcg_precond precond;
    const bench_device *dev;
    bench_records *records; /* three records ("cg-block") per backend measured */
} cgbench_block_args;

/* Every backend with a block product: the S random columns solved sequentially, as a block and
 * independently; timed, recorded, then the table and the block / sequential ratios printed.
 * *failed is set where a solve failed; an error that stops the run (message in ctx) is
 * returned. */
mpcg_status cgbench_block_run(const cgbench_block_args *a, int *failed);

#endif /* MPCG_BENCH_CGBENCH_BLOCK_H */
