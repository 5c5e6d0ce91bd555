/* cli/cgsolve.h: options and reports of the cgsolve command */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CGSOLVE_H
#define MPCG_SOLVER_CGSOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpcg.h"

/* Exit statuses (documented in --help and cgsolve.1). */
enum {
    EXIT_CONVERGED = 0,
    EXIT_NOT_CONVERGED = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_FAILURE_OTHER = 4
};

#define CGSOLVE_MAX_SET 64 /* -O key=value options per run */

typedef struct options {
    const char *matrix, *generate, *rhs_file, *rhs_kind, *x0_file, *out_file, *json_file;
    const char *spmv, *device;
    const char *history_file, *plot_file; /* --history=FILE.csv, --plot=FILE.svg */
    const char *batch;          /* --batch: a directory or a comma-separated list of files */
    /* --cache-dir: auto's cache ("": none); NULL: $XDG_CACHE_HOME/mpcg, else ~/.cache/mpcg */
    const char *cache_dir;
    double tol;
    double atol;   /* --atol: mpcg_solver_set_atol (0: none) */
    int64_t maxit; /* -1: the library default */
    int64_t monitor;
    int64_t check_interval;     /* --check-interval: K of mpcg_solver_set_check_interval (0) */
    int check_interval_set;     /* --check-interval given */
    uint64_t seed;
    int nrhs;                   /* --rhs=KIND:S: S columns (0 or 1: one) */
    int quiet, check_symmetry;
    int info;                   /* --info: read, validate and describe A; no solve */
    int verbose;                /* --verbose: full library error messages, the CG variant */
    int memory_limit_set;       /* --device-memory-limit given */
    size_t device_memory_limit; /* its value in bytes (0: no limit) */
    int precision_set;          /* --precision given */
    mpcg_precision precision;   /* its value (passed to mpcg_solver_set_precision) */
    int precond_set;            /* --precond given */
    mpcg_precond precond;       /* its type (mpcg_solver_set_precond) */
    const char *precond_spec;   /* --precond's word as given ("chebyshev:4"), or NULL */
    int threads;                /* --threads: OpenMP threads of the CPU path; 0: not given */
    int ooc;                    /* --ooc: SPMV.ooc=on, before the -O options */
    int nset;                   /* -O key=value, applied in order with mpcg_solver_set_option */
    const char *set[CGSOLVE_MAX_SET];
} options;

/* What cgsolve found about A beyond the library's checks (reported in the JSON). */
typedef struct cgsolve_checks {
    int symmetric;       /* 1 if A equals its transpose exactly */
    char warning[400];   /* the non-symmetry warning printed on stderr, "" if none */
} cgsolve_checks;

/* Print a failed library call's message ("cgsolve: TEXT"; with --verbose the full message with
 * source location and call frames) and return the exit status for st. */
int cgsolve_fail(const mpcg_context *ctx, const options *o, mpcg_status st, const char *what);

/* Parse the command line (cli/args.c): -1 to go on, else the exit status (--help,
 * --version, --list-backends, --help-options, or a usage error, already printed). */
int cgsolve_parse_args(int argc, char **argv, options *o);

/* Apply --precision and every -O key=value to S, in order; the exit status of the first that
 * fails (its message printed: 2 for a bad option), or -1. */
int cgsolve_apply_options(mpcg_context *ctx, mpcg_solver *S, const options *o);

/* Check that an output path can be written, before anything is solved, without changing it: an
 * existing file is opened for writing (not truncated), a missing one is created and removed.
 * -1 if it can, else EXIT_INPUT (message printed). */
int cgsolve_check_writable(const char *option, const char *path);

/* The context of --device, with the notes of --device=auto and --device-memory-limit: -1, or
 * the exit status (message printed). */
int cgsolve_open_context(const options *o, mpcg_context **ctx);

/* splitmix64: uniform in [0, 1) with 53 bits, the stream going on in *s (--rhs=random). */
double cgsolve_uniform(uint64_t *s);

/* Read or generate A (o->matrix or o->generate) with the library's status in *st: -1, or the
 * exit status (message printed; 2 for a generator spec the library does not know). */
int cgsolve_load_matrix(mpcg_context *ctx, const options *o, mpcg_matrix **A, mpcg_status *st);

/* The matrix name for reports: the file's base name, or the generator spec. */
const char *cgsolve_matrix_label(const options *o);

/* The human summary on stdout (stderr when the JSON report or x goes to stdout); with
 * --verbose also how the backend was chosen (choice); after an fp32 stagnation, fp32's floor. */
void cgsolve_print_summary(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                           const mpcg_info *info, const mpcg_backend_choice *choice);

/* The iteration limit of the solve: --maxit, else the library's default max(100, 10 n). */
int64_t cgsolve_maxit(const options *o, const mpcg_matrix *A);

/* Where the human output goes: stderr when the JSON report or x goes to stdout (--json=-,
 * -o -). */
FILE *cgsolve_human_stream(const options *o);

/* The JSON report (docs/json-report.md) to o->json_file ("-": stdout). 0 on a write error
 * (message printed). */
/* nrhs > 1 (block CG): info is the columns' aggregate (cgsolve_block_aggregate) and the report
 * has "block" with infos, one per column. */
int cgsolve_write_json(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                       const cgsolve_checks *checks, const mpcg_info *info, int nrhs,
                       const mpcg_info *infos, const mpcg_backend_choice *choice);
/* How the backend was chosen (cli/choice.c): the -v lines, the JSON value of
 * solver.backend_choice; the cache directory auto uses (--cache-dir, else $XDG_CACHE_HOME/mpcg,
 * else $HOME/.cache/mpcg; "" when none applies). */
void cgsolve_print_choice(FILE *f, const mpcg_backend_choice *c);
void cgsolve_json_choice(FILE *f, const mpcg_backend_choice *c);
void cgsolve_cache_dir(const options *o, char *buf, size_t size);
/* Several right-hand sides (cli/block.c): the aggregate (converged if every column
 * did; the first failing column's reason, else that of the column with the most iterations;
 * the most iterations; the largest residuals), the
 * summary's line per column, the JSON report's "block" value. */
void cgsolve_block_aggregate(int nrhs, const mpcg_info *infos, mpcg_info *all);
void cgsolve_print_columns(const options *o, int nrhs, const mpcg_info *infos);
void cgsolve_json_block(FILE *f, int nrhs, const mpcg_info *infos);

/* JSON pieces shared by the reports: a string with the required escapes, a number or null
 * (NaN/Inf). */
void cgsolve_json_str(FILE *f, const char *s);
void cgsolve_json_num(FILE *f, double v);
/* Open o->json_file ("-": stdout) and write the report's first fields (version, mode); NULL
 * on failure (message printed). Close writes the final brace: 0 on a write error (printed). */
FILE *cgsolve_json_open(const options *o, const char *mode);
int cgsolve_json_close(const options *o, FILE *f);
/* The report's "device" member (kind, name, memory_limit), with its trailing comma. */
void cgsolve_json_device(FILE *f, const mpcg_context *ctx, const options *o);

/* A residual history as mpcg_solver_get_history gives it. */
typedef struct cgsolve_history {
    int64_t count;
    const int64_t *iteration;
    const double *relres, *true_relres, *time_s;
} cgsolve_history;

/* The words and the level of a plot: title (matrix, backend, precision), subtitle (result),
 * the relative residual the solve stops at, and why an empty history is empty. */
typedef struct cgsolve_plot_text {
    const char *title, *subtitle, *empty_why;
    double level;
} cgsolve_plot_text;

/* The SVG of nh histories (cli/plot.c) to f: one, or a block solve's columns, each in its
 * colour; 0 on a write error. */
int cgsolve_write_svg(FILE *f, const cgsolve_history *h, int nh, const cgsolve_plot_text *t);

/* The relative residual a solve stops at, max(tol, atol / ||b||) (the plot's dashed line, the
 * progress line's target). */
double cgsolve_stop_level(const options *o, double bnorm);

/* --history and --plot (cli/history.c): the solver's history as CSV and SVG (with nrhs > 1
 * every column's: the CSV's first field the column, a curve per column); bnorm = ||b|| (of the
 * first column) for the stopping level max(tol, atol / ||b||). -1, or the exit status of a file that
 * could not be written (message printed). */
int cgsolve_write_history(const mpcg_solver *S, const mpcg_matrix *A, const options *o,
                          const mpcg_info *info, int nrhs, double bnorm);

/* The progress line on a terminal (cli/progress.c): the rate over the last WINDOW
 * residuals the solve read, a line at most every INTERVAL seconds (none before the first). */
#define CGSOLVE_PROGRESS_WINDOW 32
#define CGSOLVE_PROGRESS_INTERVAL 0.25
typedef struct cgsolve_progress {
    FILE *out;
    double target;   /* the relative residual the solve stops at: max(tol, atol / ||b||) */
    double t_last;   /* clock (seconds) of the last line, or of the start */
    double interval; /* seconds between lines */
    int shown;       /* a line is on the screen */
    int n, head;     /* points in the ring, the oldest's slot */
    int64_t it[CGSOLVE_PROGRESS_WINDOW];
    double lr[CGSOLVE_PROGRESS_WINDOW]; /* log10 relres */
} cgsolve_progress;

/* Start: no line yet; the first may come after one interval. */
void cgsolve_progress_init(cgsolve_progress *p, FILE *out, double target);
/* The progress callback (mpcg_monitor_fn; user: the cgsolve_progress). */
void cgsolve_progress_note(int64_t it, double relres, void *user);
/* The note at clock `now` (seconds): keep the point, draw the line if an interval has passed. */
void cgsolve_progress_step(cgsolve_progress *p, int64_t it, double relres, double now);
/* Erase the line if one is shown. */
void cgsolve_progress_end(cgsolve_progress *p);
/* The geometric mean reduction of relres per iteration over the points kept; NaN with fewer
 * than two points or no iteration between them. */
double cgsolve_progress_rate(const cgsolve_progress *p);
/* Iterations from relres to target at that rate (0 if there; -1 if unknown: the residual does
 * not fall). */
double cgsolve_progress_left(double relres, double rate, double target);
/* "cgsolve: iteration K  relres R  rate Q/it  ~L left", the rate and the estimate left out
 * where unknown (rate NaN, left < 0). */
int cgsolve_progress_line(char *buf, size_t size, int64_t it, double relres, double rate,
                          double left);

/* cgsolve --info (cli/info.c): read or generate A on the CPU, validate it and
 * describe it (size, symmetry, diagonal, row lengths, each backend's storage) on stdout and in
 * the JSON report; returns the exit status. */
int cgsolve_info(const options *o);

/* cgsolve --batch (cli/batch.c): read every matrix of a directory or a list, solve
 * them together with batched CG (docs/batched.md), report the summary, one line per system with
 * -v, and the JSON report's "batch"; returns the exit status (1 if any system did not converge). */
int cgsolve_batch(const options *o);

#endif /* MPCG_SOLVER_CGSOLVE_H */
