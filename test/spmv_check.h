/* test/spmv_check.h: the checks every device SpMV backend's test runs: its CPU emulation against
 * a long double reference, the GPU bit for bit against the emulation (outputs poisoned with NaN
 * first, twice), and the fused dot */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_TEST_SPMV_CHECK_H
#define MPCG_TEST_SPMV_CHECK_H

#include "core/rng.h"
#include "solver/options.h"
#include "spmv/spmv.h"

/* The contexts of the checks (gpu NULL: the GPU checks are skipped); set by the test's main. */
extern mpcg_context *spmv_check_cpu, *spmv_check_gpu;

/* A CSR of order n with the given row lengths (columns spread over [0, n), sorted, values in
 * [-1, 1), fp32 copies made); len may hold zeros. 0, or -1 on failure. */
int spmv_check_skew_csr(mpcgi_rng *g, int64_t n, const int64_t *len, mpcgi_csr *A);
/* Rows of y (fp32: float, else double) off the long double sum by more than (len + 2) eps
 * sum |a x| (the first three printed). */
int64_t spmv_check_reference(const mpcgi_csr *A, const double *x, const void *y, int fp32);
/* The start of a backend test's main: its seed, the CPU context and, where a GPU is usable, the
 * GPU's (else a line saying the GPU checks are skipped); g seeded. 0, or -1 without a CPU context
 * (return test_finish then). */
int spmv_check_start(const char *test, mpcgi_rng *g);
/* The end of it: both contexts destroyed; the exit status (TEST_SKIP where the CPU checks passed
 * and there was no GPU for the rest). */
int spmv_check_finish(const char *test);
/* Options from "key=value" words (NULL-terminated; kv may be NULL), each set through
 * mpcgi_options_set_text (a refused one fails the test). */
void spmv_check_options(const char *const *kv, mpcgi_options *o);
/* A check of one matrix A with a random x (outputs of the check's own). */
typedef void spmv_check_fn(const char *what, mpcgi_csr *A, const double *x, void *arg);
/* check(what, A, x, arg) on the shapes fold's layout is checked on, and the backends on that
 * layout, each with a fresh random x: random rows with empty ones (n = 1001, not a multiple of
 * 32); skew (n = 3001: rows far longer than 10 F at F about 3, empty rows between, rows of 1 - 3);
 * no nonzeros (n = 77). */
void spmv_check_fold_shapes(mpcgi_rng *g, spmv_check_fn *check, void *arg);
/* A backend and how its GPU result must match (spmv_check_backend's exact). */
typedef struct {
    const struct mpcgi_spmv_ops *ops;
    int exact;
} spmv_check_target;
/* An spmv_check_fn: spmv_check_backend with the default options of the target (arg) named by
 * `what` and the backend's name. */
void spmv_check_with_defaults(const char *what, mpcgi_csr *A, const double *x, void *arg);
/* The backend ops with options opts on A and x, named `name` in messages: fp64 and fp32, the
 * emulation against the reference, the GPU against the emulation twice (exact: bit for bit;
 * else the GPU against the reference), and apply_dot where the backend has it (y bitwise equal
 * to apply's, the same dot twice and close to x^T y in long double, nothing written with the
 * skip flag set). */
void spmv_check_backend(const struct mpcgi_spmv_ops *ops, const char *name, mpcgi_csr *A,
                        const mpcgi_options *opts, const double *x, int exact);

#endif /* MPCG_TEST_SPMV_CHECK_H */
