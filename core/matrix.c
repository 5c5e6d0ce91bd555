/* core/matrix.c: creating, inspecting, checking and updating matrices */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"

int mpcgi_matrix_valid(const mpcg_matrix *A) { return A && A->magic == MPCGI_MATRIX_MAGIC; }

mpcg_status mpcgi_matrix_wrap(mpcg_context *ctx, mpcgi_csr *csr, const char *name,
                              mpcg_matrix **out)
{
    mpcg_matrix *A = NULL;
    mpcg_status st = mpcgi_host_calloc(ctx, 1, sizeof *A, &A);
    if (st != MPCG_SUCCESS) {
        mpcgi_csr_free(csr);
        MPCG_CHECK(ctx, st);
    }
    A->magic = MPCGI_MATRIX_MAGIC;
    A->ctx = ctx;
    A->csr = *csr;
    memset(csr, 0, sizeof *csr);
    snprintf(A->name, sizeof A->name, "%s", name ? name : "");
    *out = A;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_matrix_create_csr(mpcg_context *ctx, int64_t n, const int64_t *row_ptr,
                                   const int32_t *col_idx, const double *val, mpcg_matrix **out)
{
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    mpcgi_csr csr;
    MPCG_CHECK(ctx, mpcgi_csr_from_user(ctx, n, row_ptr, col_idx, val, &csr));
    MPCG_CHECK(ctx, mpcgi_matrix_wrap(ctx, &csr, "csr", out));
    return MPCG_SUCCESS;
}

void mpcg_matrix_destroy(mpcg_matrix *A)
{
    if (!mpcgi_matrix_valid(A)) return;
    if (A->csr.dev) mpcgi_view_release(A->ctx, A->csr.dev);
    mpcgi_csr_free(&A->csr);
    mpcgi_csr_free(&A->diag);
    A->magic = 0;
    mpcgi_host_free(A);
}

int64_t mpcg_matrix_n(const mpcg_matrix *A) { return mpcgi_matrix_valid(A) ? A->csr.n : 0; }
int64_t mpcg_matrix_nnz(const mpcg_matrix *A) { return mpcgi_matrix_valid(A) ? A->csr.nnz : 0; }

mpcg_status mpcg_matrix_csr(const mpcg_matrix *A, const int64_t **row_ptr, const int32_t **col_idx,
                            const double **val)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_CHECK(A->ctx, mpcgi_matrix_mirror(A, MPCGI_MIRROR_FULL)); /* a device view's copy */
    if (row_ptr) *row_ptr = A->csr.row_ptr;
    if (col_idx) *col_idx = A->csr.col_idx;
    if (val) *val = A->csr.val;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_matrix_update_values(mpcg_matrix *A, const double *val)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_ENSURE(A->ctx, !A->csr.dev, MPCG_ERR_INVALID_STATE,
                "matrix %s is a view of device arrays: write its new values on the device and "
                "call mpcg_matrix_update_values_device", A->name);
    MPCG_ENSURE(A->ctx, val, MPCG_ERR_INVALID_ARG, "val must not be NULL");
    for (int64_t k = 0; k < A->csr.nnz; k++)
        MPCG_ENSURE(A->ctx, isfinite(val[k]), MPCG_ERR_INVALID_ARG,
                    "val[%lld] = %g is not finite", (long long)k, val[k]);
    memcpy(A->csr.val, val, (size_t)A->csr.nnz * sizeof *val);
    if (A->csr.val32) MPCG_CHECK(A->ctx, mpcgi_csr_fill_val32(A->ctx, &A->csr)); /* no alloc */
    /* the mixed storage's low halves; whether the split is still exact is the plans' question
     * (mpcgi_spmv_plan_update_values) */
    if (A->csr.lo32) MPCG_CHECK(A->ctx, mpcgi_csr_fill_lo32(A->ctx, &A->csr)); /* no alloc */
    A->values_version++;
    return MPCG_SUCCESS;
}

mpcg_status mpcg_matrix_check(const mpcg_matrix *A, unsigned flags)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    if (A->csr.dev) MPCG_CHECK(A->ctx, mpcgi_view_validate(A->ctx, &A->csr)); /* on the device */
    if (A->csr.dev && !(flags & (MPCG_CHECK_DIAGONAL | MPCG_CHECK_SYMMETRY))) return MPCG_SUCCESS;
    MPCG_CHECK(A->ctx, mpcgi_matrix_mirror(A, MPCGI_MIRROR_FULL));
    MPCG_CHECK(A->ctx, mpcgi_csr_check_finite(A->ctx, &A->csr));
    if (flags & MPCG_CHECK_DIAGONAL) {
        mpcgi_diag_stats d;
        mpcgi_csr_diag_stats(&A->csr, &d);
        if (d.missing)
            mpcgi_log(A->ctx, MPCG_LOG_WARN, "%lld diagonal entries missing (first: row %lld)",
                      (long long)d.missing, (long long)d.first_missing + 1);
        if (d.zero)
            mpcgi_log(A->ctx, MPCG_LOG_WARN, "%lld diagonal entries are zero (first: row %lld)",
                      (long long)d.zero, (long long)d.first_zero + 1);
        if (d.negative)
            mpcgi_log(A->ctx, MPCG_LOG_WARN,
                      "%lld diagonal entries are negative (first: row %lld): not SPD",
                      (long long)d.negative, (long long)d.first_negative + 1);
    }
    if (flags & MPCG_CHECK_SYMMETRY) MPCG_CHECK(A->ctx, mpcgi_csr_check_symmetric(A->ctx, &A->csr));
    return MPCG_SUCCESS;
}

void mpcgi_matrix_set_file(mpcg_matrix *A, const char *format, const char *field,
                           const char *symmetry, int64_t entries)
{
    snprintf(A->file_format, sizeof A->file_format, "%s", format);
    snprintf(A->file_field, sizeof A->file_field, "%s", field);
    snprintf(A->file_symmetry, sizeof A->file_symmetry, "%s", symmetry);
    A->file_entries = entries;
}
