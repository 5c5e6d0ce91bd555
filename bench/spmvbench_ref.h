/* bench/spmvbench_ref.h: spmvbench's check: x and the CPU reference every row is compared to */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_BENCH_SPMVBENCH_REF_H
#define MPCG_BENCH_SPMVBENCH_REF_H

#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"

/* x on the host in the precision, and per row the reference value and its tolerance. */
typedef struct reference {
    mpcg_precision prec;
    void *x;     /* n doubles or floats */
    double *ref; /* sum_j a_ij x_j from the precision's values of A and x, in long double */
    double *tol; /* (len + 2) eps sum_j |a_ij x_j| (plus the subnormal spacing per term) */
} reference;

void spmv_reference_free(reference *R);
/* x uniform in [-1, 1) from seed; the reference computed from the values the backend sees (A's
 * values and x rounded to fp32 for fp32). */
mpcg_status spmv_reference_make(mpcg_context *ctx, const mpcgi_csr *A, mpcg_precision prec,
                                uint64_t seed, reference *R);
/* The rows of y (host, the precision's type) off the reference (the first ones printed). */
int64_t spmv_reference_compare(const char *what, const reference *R, const void *y, int64_t n);

#endif /* MPCG_BENCH_SPMVBENCH_REF_H */
