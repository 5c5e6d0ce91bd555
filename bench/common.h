/* bench/common.h: shared parts of the GPU benchmarks: options, device, timing, JSON records */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_COMMON_H
#define MPCG_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/csr.h"
#include "mpcg.h"
#include "spmv/spmv.h"

/*
 * spmvbench and cgbench share: option parsing, the device facts (name, CUDA versions, L2 size)
 * and the measured copy bandwidth, the event-timing protocol (docs/benchmarks.md), matrix
 * loading by file or generator spec, the list of GPU backends, and the JSON record writer.
 * Each function that can fail returns mpcg_status with the message in the context, as the
 * library does; the programs print mpcg_last_error(ctx).
 */

/* Exit statuses of both programs (docs/benchmarks.md). */
#define BENCH_EXIT_OK 0
#define BENCH_EXIT_FAILED 1 /* a measurement failed or a result was wrong */
#define BENCH_EXIT_USAGE 2
#define BENCH_EXIT_NO_GPU 77 /* no usable CUDA GPU (automake's SKIP) */

/* Most backends a run measures; most -O options. */
#define BENCH_MAX_BACKENDS 16
#define BENCH_MAX_OPTIONS 16

/* ---------------------------------------------------------------- options */

/* Options both programs take. */
typedef struct bench_opts {
    const char *prog;     /* program name for messages */
    const char *usage;    /* the --help text */
    const char *matrix;   /* Matrix Market file, or NULL */
    const char *generate; /* generator spec, or NULL */
    const char *spmv;     /* comma-separated backend names, NULL: every GPU backend */
    const char *json;     /* --json FILE, or NULL */
    const char *device;   /* "cuda" or "cuda:N" */
    long runs;            /* spmvbench: calls per timed group; cgbench: timed solves */
    /* -O KEY=VALUE, in order: checked against the build's keys when parsed; cgbench gives them
     * to every solver, spmvbench to every plan */
    int nopt;
    const char *opt_key[BENCH_MAX_OPTIONS], *opt_value[BENCH_MAX_OPTIONS];
    char opt_text[BENCH_MAX_OPTIONS][128];
    char opt_all[BENCH_MAX_OPTIONS * 128]; /* "KEY=VALUE KEY=VALUE", for the reports */
} bench_opts;

/* argv[*i] is "--name=VALUE" or "--name" followed by VALUE: returns 1 and sets *val (advancing
 * *i past a separate value); 0 if argv[*i] is another argument; -1 (message printed) if
 * "--name" has no value. */
int bench_option(const char *prog, int argc, char **argv, int *i, const char *name,
                 const char **val);

/* Whole-string integer in [lo, hi] / finite number in (lo, hi); 0 on success, else -1 with a
 * message naming the option. */
int bench_parse_long(const char *prog, const char *opt, const char *s, long lo, long hi, long *out);
int bench_parse_double(const char *prog, const char *opt, const char *s, double lo, double hi,
                       double *out);

/* Parse argv[*i] if it is one of the shared options (-O among them) or the matrix file: 1
 * consumed, 0 not a shared option (an unknown "-..." argument), -1 malformed (message
 * printed). */
int bench_parse_common(bench_opts *o, int argc, char **argv, int *i);

/* 1 (after printing the usage text to stdout) if a is -h or --help, else 0. */
int bench_help(const bench_opts *o, const char *a);

/* After parsing: exactly one matrix source; 0 or -1 (message printed). */
int bench_check_matrix_source(const bench_opts *o);

/* Print "PROG: MESSAGE\nTry 'PROG --help'." to stderr; returns BENCH_EXIT_USAGE. */
int bench_usage_error(const char *prog, const char *message, const char *arg);

/* ---------------------------------------------------------------- device */

/* Facts about the GPU and the run, repeated in every JSON record. */
typedef struct bench_device {
    char name[256];    /* the GPU's name, e.g. "NVIDIA H100 80GB HBM3" */
    char cuda[16];     /* CUDA runtime version, "13.0" */
    char driver[16];   /* CUDA version the driver supports, "13.0" */
    size_t l2_bytes;   /* L2 cache size */
    double copy_gbs;   /* measured device copy bandwidth, (read + written bytes) / s / 1e9 */
    size_t copy_bytes; /* size of one timed copy */
    int copy_reps;     /* timed copies (the median is reported) */
    double h2d_gbs;    /* measured pinned host-to-device bandwidth (one way); 0: not measured */
    size_t h2d_bytes;
    char date[16]; /* UTC date of the run, YYYY-MM-DD */
} bench_device;

/* dev->h2d_gbs: cudaMemcpyAsync of 256 MiB from pinned host memory, median of the copy
 * protocol (the out-of-core gather's link). */
mpcg_status bench_h2d_bandwidth(mpcg_context *ctx, bench_device *dev);

/* BENCH_EXIT_NO_GPU with a message on stderr if no usable CUDA GPU is found, else 0. */
int bench_require_gpu(const char *prog);

/* Open the context on o->device, fill dev (everything but the copy bandwidth). On failure the
 * message is printed and *ctx is NULL. */
mpcg_status bench_open(const bench_opts *o, mpcg_context **ctx, bench_device *dev);

/* Measure the device copy bandwidth into dev: cudaMemcpyAsync device to device of 1 GiB (or the
 * largest power-of-two size that fits), warm-up, median of the event-timed copies. */
mpcg_status bench_copy_bandwidth(mpcg_context *ctx, bench_device *dev);

/* The lines every program prints first: device, CUDA versions, copy bandwidth. */
void bench_print_device(const char *prog, const mpcg_context *ctx, const bench_device *dev);

/* ---------------------------------------------------------------- timing */

/* One timed call: call number i (0, 1, 2, ... across warm-up and groups). */
typedef mpcg_status (*bench_call_fn)(mpcg_context *ctx, void *arg, int64_t i);

/* The timing protocol of docs/benchmarks.md (ISpMV's; docs/roofline.md). */
typedef struct bench_protocol {
    int warmup;    /* untimed calls first (100) */
    int groups;    /* timed groups (3) */
    int per_group; /* calls per group (50, --runs) */
    int untimed;   /* untimed calls before each group (10) */
} bench_protocol;

/* Per-call times of the groups: the median group, the fastest and the slowest. */
typedef struct bench_timing {
    double ms, ms_min, ms_max;
} bench_timing;

/* Run the protocol on the context's stream, each group timed with CUDA events. */
mpcg_status bench_time_calls(mpcg_context *ctx, const bench_protocol *p, bench_call_fn fn,
                             void *arg, bench_timing *t);

/* Median of v[0..n) (v is sorted in place); NAN for n = 0. */
double bench_median(double *v, int n);

/* ---------------------------------------------------------------- matrix and backends */

/* Read o->matrix or generate o->generate on ctx; name gets a short display name (a generator
 * spec with directories removed from its fields, or the file's base name). Prints the size and
 * the load time. */
mpcg_status bench_load_matrix(mpcg_context *ctx, const bench_opts *o, mpcg_matrix **A, char *name,
                              size_t name_size);

/* The host CSR of a matrix. */
mpcgi_csr *bench_csr(mpcg_matrix *A);

/* The backends of `list` (comma-separated registry names; NULL: every backend that runs on the
 * GPU), each checked to run on the GPU. MPCG_ERR_INVALID_ARG with a message otherwise. */
mpcg_status bench_backends(mpcg_context *ctx, const char *list,
                           const struct mpcgi_spmv_ops *out[BENCH_MAX_BACKENDS], int *count);
/* 1 if the run has an auto row: list is NULL (every backend, and auto) or names "auto" (which
 * bench_backends leaves out of its list: auto is a policy, not a backend). */
int bench_with_auto(const char *list);

/* A new solver of A with the settings every CG row shares: backend, precision, preconditioner,
 * the run's -O options in order, tol, and maxit (-1: the library's default). */
mpcg_status bench_solver_create(mpcg_context *ctx, mpcg_matrix *A, const bench_opts *o,
                                const char *spmv, mpcg_precision prec, mpcg_precond precond,
                                double tol, long maxit, mpcg_solver **out);

/* ---------------------------------------------------------------- JSON records */

/*
 * One row of a report. Doubles that do not apply are NAN and integers -1; both are written as
 * null. The keys and their meaning are listed in docs/benchmarks.md.
 */
typedef struct bench_record {
    const char *kind;   /* "spmv", "spmm" (spmvbench --block), "cg" or "cg-block" (cgbench
                           --rhs), "batch-spmm" or "batch-cg" (batchbench) */
    const char *status; /* "ok", "wrong" (result check failed) or "failed" (an error) */
    char matrix[256];
    int64_t n, nnz;
    char backend[32];
    const char *precision; /* "fp64", "fp32", "mixed-reliable" or "mixed-refinement" */
    double ms;             /* spmv: per call; cg: time to solution */
    double gbs, frac_copy, speedup_vs_cusparse;
    double ms_per_iter;
    int64_t iterations;
    double true_relres, roofline_ratio;
    /* extra keys */
    double gflops;             /* spmv: 2 nnz / time */
    double bytes;              /* spmv: bytes per call; cg: modelled bytes per iteration */
    double bytes_matrix;       /* bytes one SpMV reads of the matrix (the backend's plan) */
    double setup_ms;           /* spmv: plan analyze + upload; cg: mpcg_solver_setup */
    double first_ms;           /* cg: the first solve after the setup (the warm-up; wall time) */
    double setup_spmvs;        /* spmv: setup_ms / ms */
    double setup_h2d_ms;       /* spmv: of setup_ms, the host-to-device copies */
    double setup_device_spmvs; /* spmv: (setup_ms - setup_h2d_ms) / ms */
    double first_apply_ms;     /* spmv: the first SpMV of a new plan, with its lazy preprocessing */
    double ms_min, ms_max;     /* spmv: fastest and slowest group, per call; cg: fastest, slowest
                                  timed solve */
    int64_t rotation;          /* spmv: matrix copies cycled through (1: none) */
    uint64_t seed;             /* spmv: seed of x */
    int seed_set;
    double roofline_ms;         /* cg: (bytes_matrix + 88 n) / copy bandwidth, per iteration */
    double roofline_unfused_ms; /* cg: (bytes_matrix + 112 n) / copy bandwidth */
    char reason[40];            /* cg: the stop reason */
    char precond[16];           /* cg: the preconditioner used (mpcg_info.precond; "" for spmv) */
    char variant[32];           /* cg: the CG variant that ran (mpcg_info.variant) */
    const char *options;        /* the run's -O options ("KEY=VALUE ..."); "" or NULL: none */
    char storage[768];          /* spmv: the plan's layout in words (mpcgi_spmv_describe) */
    int nphases;                /* spmv: steps of the apply timed apart (the phases slot) */
    const char *phase_name[4];
    double phase_ms[4];        /* spmv: each step alone, per call (the protocol of ms) */
    int64_t maxit;             /* cg: the iteration cap */
    double tol;                /* cg: the tolerance */
    int64_t runs;              /* spmv: calls per group; cg: timed solves */
    int64_t spmvs, spmvs_fp64; /* cg: products with A (mpcg_info.spmvs), of them with fp64
                                  values */
    double speedup_vs_fp64;    /* cg: time to solution of the same backend in fp64 / this */
    int precision_fallback;    /* cg: mixed finished in fp64 (1), did not (0); -1: n/a */
    /* spmm (spmvbench --block=S): the block size (0: not a block record), S single SpMVs of
     * the same backend per call, their time / the block product's */
    int block_s;
    double spmvs_ms, speedup_vs_spmvs;
    double speedup_vs_cublas; /* tsbench: cuBLAS's time / this (written only when set) */
    /* cg-block (cgbench --rhs=S): how the S columns were solved ("sequential", "block",
     * "independent"; NULL: not a cg-block record, and these keys are not written), S, and the
     * sequential time of the same backend / this */
    const char *method;
    int nrhs;
    double speedup_vs_sequential;
    /* batch-spmm, batch-cg (batchbench): the systems in the batch (0: not a batch record, and
     * these keys are not written), X's columns (spmm), the systems the row timed (cg: the loop
     * times L of them and scales its ms to all K), the loop's ms / this ms, the median
     * iterations and the systems that did not converge (cg) */
    int64_t batch_k, batch_s, loop_systems, iterations_median, not_converged;
    double speedup_vs_loop;
    /* the auto rows (spmvbench, cgbench with auto in --spmv): the backend auto kept ("" in other
     * rows, and these keys are not written), what its trial cost beyond that plan's setup (ms,
     * and in SpMVs of the kept backend), and how many backends it timed */
    char auto_chosen[32];
    double auto_trial_ms, auto_trial_spmvs;
    int auto_timed;
} bench_record;

/* A record of kind with every value "not applicable". */
void bench_record_init(bench_record *r, const char *kind, const char *matrix, const mpcgi_csr *A);

/* A growing list of records. */
typedef struct bench_records {
    bench_record *v;
    int count, cap;
} bench_records;

mpcg_status bench_records_add(mpcg_context *ctx, bench_records *list, const bench_record *r);
void bench_records_free(bench_records *list);

/* Write the records as a JSON list to path, or append them to the list already there (the file
 * is rewritten through a temporary file). 0, or -1 with a message on stderr. */
int bench_json_write(const char *prog, const char *path, const bench_records *list,
                     const bench_device *dev);

/* Print `count` markdown table cells " V |", from (const char *fmt, double v) argument pairs;
 * "-" for a NAN. */
void bench_print_cells(int count, ...);

#endif /* MPCG_BENCH_COMMON_H */
