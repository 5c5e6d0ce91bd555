/* solver/cgsolve.h: options and reports of the cgsolve command */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CGSOLVE_H
#define MPCG_SOLVER_CGSOLVE_H

#include <stdint.h>

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
    uint64_t seed;
    int quiet, check_symmetry;
} options;

/* The human summary on stdout (stderr when the JSON report goes to stdout). */
void cgsolve_print_summary(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                           const mpcg_info *info);

/* The JSON report (docs/json-report.md) to o->json_file ("-": stdout). 0 on a write error
 * (message printed). */
int cgsolve_write_json(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                       const mpcg_info *info);

#endif /* MPCG_SOLVER_CGSOLVE_H */
