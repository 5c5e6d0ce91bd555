/* core/matrix_view.c: matrices over the caller's device CSR arrays (mpcg_matrix_view_device_csr):
 * creation, new values, host copies and the diagonal */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"

/*
 * A view's mpcgi_csr has n, nnz and dev; its host arrays are NULL until something asks for a host
 * copy (core/csr_view.h). The arguments are checked here, in every build; the device layer
 * (core/csr_view.c, or core/device_stub.c without CUDA) checks the pointers and the structure.
 */

mpcg_status mpcg_matrix_view_device_csr(mpcg_context *ctx, int64_t n, int64_t nnz,
                                        const void *row_ptr_dev, mpcg_index_type row_ptr_type,
                                        const int32_t *col_idx_dev, const double *val_dev,
                                        mpcg_matrix **out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcg_matrix *A = NULL;
    if (out) *out = NULL;
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    MPCG_ENSURE(ctx, n >= 1 && n <= MPCGI_MAX_N, MPCG_ERR_INVALID_ARG,
                "n = %lld out of range [1, %d]", (long long)n, MPCGI_MAX_N);
    MPCG_ENSURE(ctx, row_ptr_type == MPCG_INDEX_INT32 || row_ptr_type == MPCG_INDEX_INT64,
                MPCG_ERR_INVALID_ARG, "row_ptr_type %d is not MPCG_INDEX_INT32 (0) or "
                "MPCG_INDEX_INT64 (1)", (int)row_ptr_type);
    MPCG_ENSURE(ctx, nnz >= 0 && (row_ptr_type == MPCG_INDEX_INT64 || nnz <= INT32_MAX),
                MPCG_ERR_INVALID_ARG, "nnz = %lld out of range [0, %lld] for %s row pointers",
                (long long)nnz, row_ptr_type == MPCG_INDEX_INT64 ? (long long)INT64_MAX
                                                                 : (long long)INT32_MAX,
                row_ptr_type == MPCG_INDEX_INT64 ? "int64" : "int32");
    MPCG_ENSURE(ctx, row_ptr_dev && (nnz == 0 || (col_idx_dev && val_dev)),
                MPCG_ERR_INVALID_ARG,
                "row_ptr_dev, col_idx_dev and val_dev must not be NULL (the last two may be "
                "where nnz = 0)");
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *A, &A));
    A->magic = MPCGI_MATRIX_MAGIC;
    A->ctx = ctx;
    A->view = (mpcgi_csr_view){.row_ptr = row_ptr_dev, .rp64 = row_ptr_type == MPCG_INDEX_INT64,
                               .col_idx = col_idx_dev, .val = val_dev};
    MPCG_TRY(ctx, st, mpcgi_view_open(ctx, n, nnz, &A->view));
    A->csr.n = n;
    A->csr.nnz = nnz;
    A->csr.dev = &A->view;
    snprintf(A->name, sizeof A->name, "device-csr");
    *out = A;
    A = NULL;
done:
    if (A) A->magic = 0;
    mpcgi_host_free(A);
    return st;
}

mpcg_status mpcg_matrix_update_values_device(mpcg_matrix *A, const double *val_dev)
{
    MPCG_ENSURE(NULL, mpcgi_matrix_valid(A), MPCG_ERR_INVALID_ARG, "invalid matrix");
    MPCG_ENSURE(A->ctx, A->csr.dev, MPCG_ERR_INVALID_STATE,
                "matrix %s holds host CSR: its new values go through mpcg_matrix_update_values "
                "(mpcg_matrix_update_values_device takes the values of a device view)", A->name);
    MPCG_ENSURE(A->ctx, val_dev || A->csr.nnz == 0, MPCG_ERR_INVALID_ARG,
                "val_dev must not be NULL");
    if (A->csr.nnz > 0) MPCG_CHECK(A->ctx, mpcgi_view_check_pointer(A->ctx, val_dev, 8, "val_dev"));
    A->view.val = val_dev;
    A->values_version++;
    MPCG_CHECK(A->ctx, mpcgi_view_mirror_values(A->ctx, &A->csr)); /* if there is a copy */
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_matrix_mirror(const mpcg_matrix *A, int level)
{
    if (!A->csr.dev) return MPCG_SUCCESS;
    mpcg_matrix *M = (mpcg_matrix *)A; /* the copy is a cache: A does not change */
    MPCG_CHECK(A->ctx, mpcgi_view_mirror(M->ctx, &M->csr, level));
    return MPCG_SUCCESS;
}

/* The host CSR of the view's diagonal: row i holds (i, a_ii), or nothing. */
static mpcg_status make_diag(mpcg_matrix *A)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_csr *D = &A->diag;
    const int64_t n = A->csr.n;
    double *d = NULL;
    unsigned char *has = NULL;
    A->diag_version = A->values_version - 1; /* not made, until it is */
    if (!D->row_ptr) MPCG_TRY(A->ctx, st, mpcgi_csr_alloc(A->ctx, n, n, D));
    MPCG_TRY(A->ctx, st, mpcgi_host_alloc_array(A->ctx, (size_t)n, sizeof *d, &d));
    MPCG_TRY(A->ctx, st, mpcgi_host_alloc(A->ctx, (size_t)n, &has));
    MPCG_TRY(A->ctx, st, mpcgi_view_diag(A->ctx, &A->csr, d, has));
    D->row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t k = D->row_ptr[i];
        if (has[i]) D->col_idx[k] = (int32_t)i, D->val[k] = d[i];
        D->row_ptr[i + 1] = k + (has[i] != 0);
    }
    D->nnz = D->row_ptr[n];
    A->diag_version = A->values_version;
done:
    mpcgi_host_free(d);
    mpcgi_host_free(has);
    return st;
}

mpcg_status mpcgi_matrix_diag(mpcg_matrix *A, const mpcgi_csr **out)
{
    *out = &A->csr;
    if (!A->csr.dev) return MPCG_SUCCESS;
    if (!A->diag.row_ptr || A->diag_version != A->values_version)
        MPCG_CHECK(A->ctx, make_diag(A));
    *out = &A->diag;
    return MPCG_SUCCESS;
}
