/* core/matrix.h: the matrix object (host CSR, name, value version) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_MATRIX_H
#define MPCG_CORE_MATRIX_H

#include <stdint.h>

#include "core/csr.h"
#include "core/csr_view.h"
#include "mpcg.h"

#define MPCGI_MATRIX_MAGIC 0x6d61747a

struct mpcg_matrix {
    unsigned magic;
    mpcg_context *ctx;
    mpcgi_csr csr;
    char name[256];          /* file base name or generator spec, for reports */
    uint64_t values_version; /* incremented by mpcg_matrix_update_values */
    /* the Matrix Market banner's words and entry count when read from a file
     * (mpcgi_matrix_set_file; mpcg_matrix_describe); format[0] == '\0' otherwise */
    char file_format[16], file_field[16], file_symmetry[16];
    int64_t file_entries;
    /* a device view (mpcg_matrix_view_device_csr): csr.dev points here */
    mpcgi_csr_view view;
    /* a view's diagonal on the host as CSR (one entry a row, none where a_ii is not stored), for
     * the preconditioners that read only the diagonal (mpcgi_matrix_diag); made for the values
     * of diag_version */
    mpcgi_csr diag;
    uint64_t diag_version;
};

int mpcgi_matrix_valid(const mpcg_matrix *A);

/* Wrap *csr (ownership moves into the matrix, *csr is zeroed) as a new matrix named `name`.
 * On failure *csr is freed. */
mpcg_status mpcgi_matrix_wrap(mpcg_context *ctx, mpcgi_csr *csr, const char *name,
                              mpcg_matrix **out);

/* A's host CSR with at least `level` of a device view copied there (MPCGI_MIRROR_*; a no-op for
 * host CSR). The copy is kept and its values follow mpcg_matrix_update_values_device. */
mpcg_status mpcgi_matrix_mirror(const mpcg_matrix *A, int level);
/* The matrix a preconditioner that reads only A's diagonal is built from: A's host CSR, or for a
 * device view the host CSR of its diagonal (A->diag, refreshed after new values). */
mpcg_status mpcgi_matrix_diag(mpcg_matrix *A, const mpcgi_csr **out);

/* Record the file facts A was read from: the banner's format, field and symmetry words and the
 * entries listed in the file (core/describe.c). */
void mpcgi_matrix_set_file(mpcg_matrix *A, const char *format, const char *field,
                           const char *symmetry, int64_t entries);

#endif /* MPCG_CORE_MATRIX_H */
