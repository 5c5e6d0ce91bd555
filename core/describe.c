/* core/describe.c: what a matrix is (size, symmetry, diagonal, row lengths, file banner) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/csr.h"
#include "core/device.h"
#include "core/error.h"
#include "core/matrix.h"

/* Nonzeros per row: smallest, largest, empty rows, mean and population standard deviation. */
static void row_lengths(const mpcgi_csr *A, mpcg_matrix_facts *f)
{
    double sum = 0.0, sq = 0.0;
    f->row_nnz_min = A->n > 0 ? INT64_MAX : 0;
    f->row_nnz_max = f->empty_rows = 0;
    for (int64_t i = 0; i < A->n; i++) {
        int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
        if (len < f->row_nnz_min) f->row_nnz_min = len;
        if (len > f->row_nnz_max) f->row_nnz_max = len;
        f->empty_rows += len == 0;
        sum += (double)len;
    }
    f->row_nnz_mean = A->n > 0 ? sum / (double)A->n : 0.0;
    for (int64_t i = 0; i < A->n; i++) {
        double d = (double)(A->row_ptr[i + 1] - A->row_ptr[i]) - f->row_nnz_mean;
        sq += d * d;
    }
    f->row_nnz_stddev = A->n > 0 ? sqrt(sq / (double)A->n) : 0.0;
}

mpcg_status mpcg_matrix_describe(const mpcg_matrix *A, mpcg_matrix_facts *out)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_ENSURE(A->ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    MPCG_CHECK(A->ctx, mpcgi_matrix_mirror(A, MPCGI_MIRROR_FULL)); /* a device view's copy */
    const mpcgi_csr *csr = &A->csr;
    memset(out, 0, sizeof *out);
    out->n = csr->n;
    out->nnz = csr->nnz;
    out->from_file = A->file_format[0] != '\0';
    out->nnz_stored = out->from_file ? A->file_entries : csr->nnz;
    snprintf(out->format, sizeof out->format, "%s", A->file_format);
    snprintf(out->field, sizeof out->field, "%s", A->file_field);
    snprintf(out->declared_symmetry, sizeof out->declared_symmetry, "%s", A->file_symmetry);

    mpcgi_symmetry s;
    mpcgi_csr_symmetry(csr, 1, &s);
    out->symmetric = s.symmetric;
    out->skew_symmetric = s.skew;
    out->structurally_symmetric = s.structural;
    out->asymmetric_entries = s.mismatched;
    out->first_asymmetric_row = s.first_i;
    out->first_asymmetric_col = s.first_j;

    mpcgi_diag_stats d;
    mpcgi_csr_diag_stats(csr, &d);
    out->diag_missing = d.missing;
    out->diag_zero = d.zero;
    out->diag_negative = d.negative;
    out->diag_positive = csr->n - d.missing - d.zero - d.negative;
    out->first_missing = d.first_missing;
    out->first_zero = d.first_zero;
    out->first_negative = d.first_negative;

    row_lengths(csr, out);
    return MPCG_SUCCESS;
}

int mpcg_device_count(void) { return mpcgi_device_count(); }
