/* bench/spmvbench_auto.h: spmvbench's auto row: auto's trial on the matrix, the backend it keeps,
 * and how that backend's row compares with the fastest row */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_SPMVBENCH_AUTO_H
#define MPCG_BENCH_SPMVBENCH_AUTO_H

#include "bench/common.h"

/* One trial: the backend kept, the whole choice, and the trial's wall time (the kept plan's
 * setup included). */
typedef struct bench_auto {
    const struct mpcgi_spmv_ops *chosen;
    const char *precision; /* "fp64" or "fp32" */
    mpcg_backend_choice choice;
    double setup_ms;
} bench_auto;

/* auto's trial in precision prec with the run's options (opts), without a cache (every run
 * times the candidates, as a first run would). The kept plan is freed: the auto row rebuilds
 * the chosen backend's plans by the protocol of every row. */
mpcg_status bench_auto_trial(mpcg_context *ctx, mpcgi_csr *A, mpcg_precision prec,
                             const mpcgi_options *opts, bench_auto *a);
/* The auto fields of the row r (backend "auto"): the kept backend, the trial's cost. */
void bench_auto_record(const bench_auto *a, bench_record *r);
/* After the table, one "auto: " line per trial: the candidates' trial times, and the kept
 * backend's row against the fastest row of the same precision in list. */
void bench_auto_report(const bench_auto *a, int count, const bench_records *list);

#endif /* MPCG_BENCH_SPMVBENCH_AUTO_H */
