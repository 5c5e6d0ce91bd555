/* bench/spmvbench_block.h: spmvbench --block=S: the block product Y = A X of each backend beside
 * cuSPARSE's SpMM and beside S single SpMVs */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_SPMVBENCH_BLOCK_H
#define MPCG_BENCH_SPMVBENCH_BLOCK_H

#include "bench/common.h"

/* What one --block run measures: the backends (cusparse, whose block product is cusparseSpMM,
 * first), the block size and the single-SpMV run's settings. */
typedef struct bench_block_args {
    mpcg_context *ctx;
    mpcgi_csr *A;
    const char *matrix;
    const struct mpcgi_spmv_ops *const *ops;
    int count;
    int s;
    uint64_t seed;
    int per_group;
    const mpcgi_options *opts;
    const char *opt_all;
    const bench_device *dev;
    bench_records *records; /* one record ("spmm") per backend measured */
} bench_block_args;

/* The protocol's line for blocks of s vectors and the table's header. */
void bench_block_header(int s);
/* Every backend with a block product in precision prec: checked, timed, printed and recorded.
 * *failed is set where a case failed or was wrong; an error that stops the run (message in
 * ctx) is returned. */
mpcg_status bench_block_run(const bench_block_args *a, mpcg_precision prec, int *failed);

#endif /* MPCG_BENCH_SPMVBENCH_BLOCK_H */
