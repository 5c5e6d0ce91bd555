/* core/csr.h: host CSR storage (int64 row pointers, int32 sorted columns, double values) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CSR_H
#define MPCG_CORE_CSR_H

#include <stddef.h>
#include <stdint.h>

#include "mpcg.h"

struct mpcgi_csr_view; /* core/csr_view.h */

typedef struct mpcgi_csr {
    int64_t n;        /* rows = columns */
    int64_t nnz;      /* row_ptr[n] */
    /* A device view (mpcg_matrix_view_device_csr): the caller's device arrays, owned by the
     * matrix; NULL for host CSR. With a view, the host arrays below are NULL or a copy of the
     * view (mirror: MPCGI_MIRROR_*, core/csr_view.h); val32 and lo32 are made on the host only
     * for backends that build their layout there. */
    struct mpcgi_csr_view *dev;
    int mirror;
    int64_t *row_ptr; /* n + 1 */
    int32_t *col_idx; /* nnz, strictly increasing within each row */
    double *val;      /* nnz */
    float *val32;     /* nnz: (float)val, made once when a plan first needs fp32 values
                         (mpcgi_csr_fill_val32) and refreshed with the values; NULL before */
    float *lo32;      /* nnz: (float)(val - (double)val32), the low half of the mixed storage
                         (hi = val32), made once when a plan first asks for mixed storage
                         (mpcgi_csr_fill_lo32) and refreshed with the values; NULL before */
} mpcgi_csr;

/* Diagonal statistics of mpcgi_csr_diag_stats. */
typedef struct mpcgi_diag_stats {
    int64_t missing, zero, negative;
    int64_t first_missing, first_zero, first_negative; /* 0-based rows, -1 if none */
} mpcgi_diag_stats;

/* How A relates to its transpose (a missing entry counts as zero), from mpcgi_csr_symmetry. */
typedef struct mpcgi_symmetry {
    int symmetric;            /* A(i,j) == A(j,i) for all i, j */
    int skew;                 /* A(i,j) == -A(j,i) for all i, j (so a zero diagonal) */
    int structural;           /* (i,j) stored iff (j,i) stored */
    int64_t mismatched;       /* stored entries with A(i,j) != A(j,i) */
    int64_t first_i, first_j; /* the first of them in row order (0-based), -1 if none */
} mpcgi_symmetry;

/* Why the hi + lo split of value a is not exact (mpcgi_csr_split_exact), or NULL if it is. */
const char *mpcgi_split_problem(double a);
/* mpcgi_csr_split_exact's words for value k (0-based), a, whose split is not exact. */
void mpcgi_split_why(int64_t k, double a, char *why, size_t size);

/* Largest n the library accepts: column indices are int32. */
#define MPCGI_MAX_N INT32_MAX

/* Allocate arrays for n rows and nnz entries (contents undefined). *A is zeroed on failure. */
mpcg_status mpcgi_csr_alloc(const mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr *A);
/* The fp32 copy of the values, A->val32 = (float)A->val: allocated at the first call, refilled
 * at every call (after new values). The one place fp32 values are made for every backend. */
mpcg_status mpcgi_csr_fill_val32(const mpcg_context *ctx, mpcgi_csr *A);
/* The split of every value a into hi = (float)a and lo = (float)(a - (double)hi) for the mixed
 * storage: 1 if both halves of every value are normal fp32 numbers or zero, so that
 * |(double)hi + (double)lo - a| <= 2^-48 |a| (exact for values of at most 48 significant bits;
 * the precision model of docs/precision.md), else 0 with the first offender in `why` (a value
 * beyond fp32's range, hi overflowing, |a| below FLT_MIN, or a denormal lo). Reads A->val. */
int mpcgi_csr_split_exact(const mpcgi_csr *A, char *why, size_t size);
/* The low halves, A->lo32 = (float)(A->val - (double)(float)A->val): allocated at the first
 * call, refilled at every call (with new values; A->val32 is refilled by the caller). */
mpcg_status mpcgi_csr_fill_lo32(const mpcg_context *ctx, mpcgi_csr *A);
/* Free the arrays and zero *A; accepts a zeroed struct. */
void mpcgi_csr_free(mpcgi_csr *A);

/* Build CSR from coordinate triplets (0-based, all in range, any order). Duplicate entries are
 * summed in the order they appear; columns end up sorted. The triplet arrays are not changed. */
mpcg_status mpcgi_csr_from_coo(const mpcg_context *ctx, int64_t n, int64_t nnz, const int32_t *ri,
                               const int32_t *ci, const double *v, mpcgi_csr *out);

/* Copy user arrays into *out, validating everything (message names the first offending entry,
 * MPCG_ERR_INVALID_ARG) and sorting unsorted rows; duplicates are rejected. */
mpcg_status mpcgi_csr_from_user(const mpcg_context *ctx, int64_t n, const int64_t *row_ptr,
                                const int32_t *col_idx, const double *val, mpcgi_csr *out);

/* Sort one row by column, values following (insertion sort: rows are short or nearly sorted). */
void mpcgi_csr_sort_row(int32_t *col, double *val, int64_t len);

/* MPCG_ERR_INVALID_ARG naming the first non-finite value. */
mpcg_status mpcgi_csr_check_finite(const mpcg_context *ctx, const mpcgi_csr *A);
/* Position of column j in row i (columns sorted), or -1 if A(i, j) is not stored. */
int64_t mpcgi_csr_find(const mpcgi_csr *A, int64_t i, int32_t j);
/* The one symmetry scan (mpcg_matrix_check and mpcg_matrix_describe): exact comparisons of each
 * stored A(i,j) with A(j,i). full = 0 stops at the first mismatch (then only symmetric, first_i
 * and first_j are meaningful); full = 1 scans everything and fills every field. */
void mpcgi_csr_symmetry(const mpcgi_csr *A, int full, mpcgi_symmetry *s);
/* MPCG_ERR_INVALID_ARG naming the first entry with A(i,j) != A(j,i) (exact comparison). */
mpcg_status mpcgi_csr_check_symmetric(const mpcg_context *ctx, const mpcgi_csr *A);
/* Count missing, zero and negative diagonal entries. */
void mpcgi_csr_diag_stats(const mpcgi_csr *A, mpcgi_diag_stats *s);

#endif /* MPCG_CORE_CSR_H */
