/* io/generate.h: generator functions shared between the generator files */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_IO_GENERATE_H
#define MPCG_IO_GENERATE_H

#include "core/csr.h"
#include "mpcg.h"

/* Each builds the CSR of `spec` from `args` (the text after "NAME:"); param is unused. */

/* replicate:FILE:K[:perm]: K diagonal copies of the matrix in FILE, optionally permuted by a
 * random symmetric permutation (fixed seed) that destroys locality. */
mpcg_status mpcgi_gen_replicate(mpcg_context *ctx, const char *spec, const char *args,
                                const void *param, mpcgi_csr *out);

/* powerlaw:N:DEG: graph Laplacian + a diagonal shift in [0.5, 1.5) of a random graph with power-law degrees
 * (mean about DEG nonzeros per row, SPD, heavily skewed rows; fixed seed). */
mpcg_status mpcgi_gen_powerlaw(mpcg_context *ctx, const char *spec, const char *args,
                               const void *param, mpcgi_csr *out);

/* biased:N: the "excessively biased" SpMV stress matrix: row 0 holds all N columns, every other
 * row only its diagonal (nnz = 2N - 1); upper triangular, not symmetric. */
mpcg_status mpcgi_gen_biased(mpcg_context *ctx, const char *spec, const char *args,
                             const void *param, mpcgi_csr *out);

#endif /* MPCG_IO_GENERATE_H */
