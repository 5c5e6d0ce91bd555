/* bench/batchbench.h: batchbench's options, generated batch and run state (docs/benchmarks.md,
 * "batchbench") */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_BATCHBENCH_H
#define MPCG_BENCH_BATCHBENCH_H

#include "bench/common.h"
#include "core/device_cuda.h"
#include "core/rng.h"

#define BB_MAX_GRID 128  /* g^2 <= MPCG_BATCH_MAX_ROWS */
#define BB_MAX_RUNS 1000 /* --runs */
#define BB_MAX_COPIES 16 /* spmm: batches cycled so that the timed calls miss L2 */
#define BB_L2_MULTIPLE 4 /* ... covering this many L2 sizes (spmvbench's rotation) */
#define BB_SHOW_WRONG 5  /* wrong entries printed */

enum { BB_BOTH, BB_SPMM, BB_CG };

typedef struct bb_opts {
    bench_opts c; /* prog, usage, json, device */
    int only;     /* BB_BOTH, BB_SPMM or BB_CG */
    long k;       /* -1: the scenario's default */
    long grid[2]; /* -1: the scenario's default */
    long s, runs; /* runs -1: the scenario's default */
    long loop;    /* cg: systems the loop times (0: all) */
    long seed;
    double tol;
    mpcg_precond precond;
} bb_opts;

/*
 * The generated batch (docs/benchmarks.md gives the rule; bench/cupy_batch_cg.py repeats it):
 * one splitmix64 stream (core/rng.h) from the seed. The first K draws pick the grids, g_i =
 * G1 + u64 % (G2 - G1 + 1); then one draw per row, system after system, row r = x + g y in
 * order: its diagonal 4 (1 + 0.5 u), u = (u64 >> 11) 2^-53; every neighbour inside the grid
 * -1, columns sorted. X (spmm, row-major) or b (cg) are the next draws, 2 u - 1 each.
 */
typedef struct bb_gen {
    int64_t k, rows, nnz;
    int g1, g2;
    int *grid;          /* g_i */
    int64_t *off, *ptr; /* k + 1 system offsets, rows + 1 row pointers (global) */
    int32_t *col;       /* local columns */
    double *val;
    mpcgi_rng rng; /* the stream after the matrices */
    char name[64]; /* "laplace2d-batch:K:G" or "...:K:G1:G2" */
} bb_gen;

typedef struct bb_run {
    const bb_opts *o;
    mpcg_context *ctx;
    bench_device dev;
    bench_records records;
    int failed; /* a case failed or was wrong */
} bb_run;

/* The generated batch of K systems with grids in [g1, g2] from seed (printed: its name, sizes
 * and the checksum of the values). */
mpcg_status bb_gen_make(mpcg_context *ctx, int64_t k, int g1, int g2, uint64_t seed, bb_gen *G);
/* The next count draws of G's stream, 2 u - 1 each, into a new host array. */
mpcg_status bb_gen_vector(mpcg_context *ctx, bb_gen *G, int64_t count, double **out);
void bb_gen_free(bb_gen *G);
/* The sum of the 64-bit patterns of v[0..count), modulo 2^64 (cupy_batch_cg.py prints the same). */
uint64_t bb_checksum(const double *v, int64_t count);

/* A record of kind for G's batch: backend, fp64, the seed, batch_k. */
void bb_record(const bb_run *run, const bb_gen *G, const char *kind, const char *backend,
               bench_record *r);
/* "target: WHAT >= Tx: Sx, met" (or MISSED, or not measured). */
void bb_target(const char *what, double speedup, double target);
/* The median of v[0..n) (v untouched), the smallest and largest in *lo, *hi (may be NULL). */
double bb_median_of(const double *v, int n, double *lo, double *hi);

/* The scenarios: printed, recorded in run->records, run->failed set where a case failed or was
 * wrong; an error that stops the run (message in the context) is returned. */
mpcg_status bb_spmm(bb_run *run);
mpcg_status bb_cg(bb_run *run);

#endif /* MPCG_BENCH_BATCHBENCH_H */
