/* solver/cgsolve.h: options and reports of the cgsolve command */
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

typedef struct options {
    const char *matrix, *generate, *rhs_file, *rhs_kind, *x0_file, *out_file, *json_file;
    const char *spmv, *device;
    double tol;
    int64_t maxit; /* -1: the library default */
    int64_t monitor;
    int64_t check_interval;     /* --check-interval: K of mpcg_solver_set_check_interval (0) */
    uint64_t seed;
    int quiet, check_symmetry;
    int info;                   /* --info: read, validate and describe A; no solve */
    int verbose;                /* --verbose: full library error messages */
    int memory_limit_set;       /* --device-memory-limit given */
    size_t device_memory_limit; /* its value in bytes (0: no limit) */
} options;

/* What cgsolve found about A beyond the library's checks (reported in the JSON). */
typedef struct cgsolve_checks {
    int symmetric;       /* 1 if A equals its transpose exactly */
    char warning[400];   /* the non-symmetry warning printed on stderr, "" if none */
} cgsolve_checks;

/* Print a failed library call's message ("cgsolve: TEXT"; with --verbose the full message with
 * source location and call frames) and return the exit status for st. */
int cgsolve_fail(const mpcg_context *ctx, const options *o, mpcg_status st, const char *what);

/* The text of a library message without its "<file>:<line>: <function>: " prefix and without
 * the "called from" frames: *len characters from the returned pointer. */
const char *cgsolve_error_text(const char *msg, int *len);

/* The matrix name for reports: the file's base name, or the generator spec. */
const char *cgsolve_matrix_label(const options *o);

/* The human summary on stdout (stderr when the JSON report goes to stdout). */
void cgsolve_print_summary(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                           const mpcg_info *info);

/* The JSON report (docs/json-report.md) to o->json_file ("-": stdout). 0 on a write error
 * (message printed). */
int cgsolve_write_json(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                       const cgsolve_checks *checks, const mpcg_info *info);

/* JSON pieces shared by the reports: a string with the required escapes, a number or null
 * (NaN/Inf). */
void cgsolve_json_str(FILE *f, const char *s);
void cgsolve_json_num(FILE *f, double v);
/* Open o->json_file ("-": stdout) and write the report's first fields (version, mode); NULL
 * on failure (message printed). Close writes the final brace: 0 on a write error (printed). */
FILE *cgsolve_json_open(const options *o, const char *mode);
int cgsolve_json_close(const options *o, FILE *f);

/* cgsolve --info (solver/cgsolve_info.c): read or generate A on the CPU, validate it and
 * describe it (size, symmetry, diagonal, row lengths, each backend's storage) on stdout and in
 * the JSON report; returns the exit status. */
int cgsolve_info(const options *o);

#endif /* MPCG_SOLVER_CGSOLVE_H */
