/* core/csr.c: building and validating host CSR */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/csr.h"
#include "core/error.h"

mpcg_status mpcgi_csr_alloc(const mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr *A)
{
    mpcg_status st = MPCG_SUCCESS;
    memset(A, 0, sizeof *A);
    MPCG_ENSURE(ctx, n >= 0 && n <= MPCGI_MAX_N, MPCG_ERR_INVALID_ARG,
                "n = %lld out of range [0, %d]", (long long)n, MPCGI_MAX_N);
    MPCG_ENSURE(ctx, nnz >= 0, MPCG_ERR_INVALID_ARG, "nnz = %lld is negative", (long long)nnz);
    A->n = n;
    A->nnz = nnz;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)n + 1, sizeof *A->row_ptr, &A->row_ptr));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nnz, sizeof *A->col_idx, &A->col_idx));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nnz, sizeof *A->val, &A->val));
done:
    if (st != MPCG_SUCCESS) mpcgi_csr_free(A);
    return st;
}

void mpcgi_csr_free(mpcgi_csr *A)
{
    mpcgi_host_free(A->row_ptr);
    mpcgi_host_free(A->col_idx);
    mpcgi_host_free(A->val);
    mpcgi_host_free(A->val32);
    mpcgi_host_free(A->lo32);
    memset(A, 0, sizeof *A);
}

mpcg_status mpcgi_csr_fill_val32(const mpcg_context *ctx, mpcgi_csr *A)
{
    if (!A->val32 && A->nnz > 0)
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)A->nnz, sizeof *A->val32, &A->val32));
    for (int64_t k = 0; k < A->nnz; k++)
        A->val32[k] = (float)A->val[k];
    return MPCG_SUCCESS;
}

const char *mpcgi_split_problem(double a)
{
    if (a == 0) return NULL; /* hi = lo = 0 (a -0 keeps its sign in hi) */
    const float hi = (float)a;
    const float lo = (float)(a - (double)hi);
    if (fabs(a) > FLT_MAX || isinf(hi)) return "is beyond fp32's range";
    if (fabs(a) < FLT_MIN) return "is below fp32's normal range";
    if (lo != 0 && fabsf(lo) < FLT_MIN) return "has a denormal low half";
    return NULL;
}

void mpcgi_split_why(int64_t k, double a, char *why, size_t size)
{
    const char *what = mpcgi_split_problem(a);
    snprintf(why, size, "value %lld (%.17g) %s", (long long)k + 1, a, what ? what : "splits");
}

int mpcgi_csr_split_exact(const mpcgi_csr *A, char *why, size_t size)
{
    for (int64_t k = 0; k < A->nnz; k++) {
        const double a = A->val[k];
        const char *what = mpcgi_split_problem(a);
        if (what) {
            mpcgi_split_why(k, a, why, size);
            return 0;
        }
    }
    return 1;
}

mpcg_status mpcgi_csr_fill_lo32(const mpcg_context *ctx, mpcgi_csr *A)
{
    if (!A->lo32 && A->nnz > 0)
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)A->nnz, sizeof *A->lo32, &A->lo32));
    for (int64_t k = 0; k < A->nnz; k++)
        A->lo32[k] = (float)(A->val[k] - (double)(float)A->val[k]);
    return MPCG_SUCCESS;
}

/* Sum consecutive duplicates of each (sorted) row in place and rebuild row_ptr. */
static void compact_duplicates(mpcgi_csr *A)
{
    int64_t w = 0, start = 0;
    for (int64_t i = 0; i < A->n; i++) {
        int64_t end = A->row_ptr[i + 1], row_start = w;
        for (int64_t k = start; k < end; k++) {
            if (w > row_start && A->col_idx[w - 1] == A->col_idx[k]) {
                A->val[w - 1] += A->val[k];
            } else {
                A->col_idx[w] = A->col_idx[k];
                A->val[w] = A->val[k];
                w++;
            }
        }
        start = end;
        A->row_ptr[i + 1] = w;
    }
    A->nnz = w;
}

/* The counting half of a stable counting sort of nnz keys in [0, n), in rp (n + 1 entries, no
 * other array of n): the count of key c goes to rp[c + 2], so that after the prefix sum
 * rp[c + 1] is where key c starts. The caller hands out the positions p = rp[key + 1]++, which
 * leaves rp[c + 1] at the end of key c and rp[0] = 0: row pointers when the keys are rows. */
static void count_starts(int64_t n, int64_t nnz, const int32_t *key, int64_t *rp)
{
    memset(rp, 0, ((size_t)n + 1) * sizeof *rp);
    for (int64_t k = 0; k < nnz; k++)
        if (key[k] + 2 <= n) rp[key[k] + 2]++;
    for (int64_t j = 1; j <= n; j++) rp[j] += rp[j - 1];
}

mpcg_status mpcgi_csr_from_coo(const mpcg_context *ctx, int64_t n, int64_t nnz, const int32_t *ri,
                               const int32_t *ci, const double *v, mpcgi_csr *out)
{
    /* Two stable counting sorts (by column, then by row) give sorted rows in O(n + nnz) and keep
     * duplicates in file order, so they are summed deterministically. Both count in A.row_ptr:
     * besides the n + 1 row pointers nothing of size n is allocated (a file that declares many
     * rows and holds few entries costs 8 bytes a row). */
    mpcg_status st = MPCG_SUCCESS;
    int32_t *tr = NULL, *tc = NULL;
    double *tv = NULL;
    mpcgi_csr A = {0};
    MPCG_TRY(ctx, st, mpcgi_csr_alloc(ctx, n, nnz, &A));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nnz, sizeof *tr, &tr));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nnz, sizeof *tc, &tc));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)nnz, sizeof *tv, &tv));

    count_starts(n, nnz, ci, A.row_ptr);
    for (int64_t k = 0; k < nnz; k++) {
        int64_t p = A.row_ptr[ci[k] + 1]++;
        tr[p] = ri[k];
        tc[p] = ci[k];
        tv[p] = v[k];
    }
    count_starts(n, nnz, tr, A.row_ptr);
    for (int64_t k = 0; k < nnz; k++) {
        int64_t p = A.row_ptr[tr[k] + 1]++;
        A.col_idx[p] = tc[k];
        A.val[p] = tv[k];
    }
    compact_duplicates(&A);
    *out = A;
done:
    mpcgi_host_free(tr);
    mpcgi_host_free(tc);
    mpcgi_host_free(tv);
    if (st != MPCG_SUCCESS) mpcgi_csr_free(&A);
    return st;
}

void mpcgi_csr_sort_row(int32_t *col, double *val, int64_t len)
{
    for (int64_t k = 1; k < len; k++) {
        int32_t c = col[k];
        double x = val[k];
        int64_t m = k - 1;
        while (m >= 0 && col[m] > c) {
            col[m + 1] = col[m];
            val[m + 1] = val[m];
            m--;
        }
        col[m + 1] = c;
        val[m + 1] = x;
    }
}

mpcg_status mpcgi_csr_from_user(const mpcg_context *ctx, int64_t n, const int64_t *row_ptr,
                                const int32_t *col_idx, const double *val, mpcgi_csr *out)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_csr A = {0};
    MPCG_ENSURE(ctx, n >= 1 && n <= MPCGI_MAX_N, MPCG_ERR_INVALID_ARG,
                "n = %lld out of range [1, %d]", (long long)n, MPCGI_MAX_N);
    MPCG_ENSURE(ctx, row_ptr && col_idx && val, MPCG_ERR_INVALID_ARG,
                "row_ptr, col_idx and val must not be NULL");
    MPCG_ENSURE(ctx, row_ptr[0] == 0, MPCG_ERR_INVALID_ARG, "row_ptr[0] = %lld must be 0",
                (long long)row_ptr[0]);
    for (int64_t i = 0; i < n; i++)
        MPCG_ENSURE(ctx, row_ptr[i + 1] >= row_ptr[i], MPCG_ERR_INVALID_ARG,
                    "row_ptr[%lld] = %lld < row_ptr[%lld] = %lld (must not decrease)",
                    (long long)(i + 1), (long long)row_ptr[i + 1], (long long)i,
                    (long long)row_ptr[i]);
    int64_t nnz = row_ptr[n];
    for (int64_t k = 0; k < nnz; k++) {
        MPCG_ENSURE(ctx, col_idx[k] >= 0 && col_idx[k] < n, MPCG_ERR_INVALID_ARG,
                    "col_idx[%lld] = %d out of range [0, %lld)", (long long)k, col_idx[k],
                    (long long)n);
        MPCG_ENSURE(ctx, isfinite(val[k]), MPCG_ERR_INVALID_ARG, "val[%lld] = %g is not finite",
                    (long long)k, val[k]);
    }
    MPCG_TRY(ctx, st, mpcgi_csr_alloc(ctx, n, nnz, &A));
    memcpy(A.row_ptr, row_ptr, ((size_t)n + 1) * sizeof *row_ptr);
    memcpy(A.col_idx, col_idx, (size_t)nnz * sizeof *col_idx);
    memcpy(A.val, val, (size_t)nnz * sizeof *val);
    for (int64_t i = 0; i < n; i++) {
        int64_t b = A.row_ptr[i], e = A.row_ptr[i + 1];
        mpcgi_csr_sort_row(A.col_idx + b, A.val + b, e - b);
        for (int64_t k = b + 1; k < e; k++)
            MPCG_ENSURE_GOTO(ctx, st, A.col_idx[k] != A.col_idx[k - 1], MPCG_ERR_INVALID_ARG,
                             "row %lld has column %d twice (duplicates are not allowed)",
                             (long long)i, A.col_idx[k]);
    }
    *out = A;
done:
    if (st != MPCG_SUCCESS) mpcgi_csr_free(&A);
    return st;
}

mpcg_status mpcgi_csr_check_finite(const mpcg_context *ctx, const mpcgi_csr *A)
{
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            MPCG_ENSURE(ctx, isfinite(A->val[k]), MPCG_ERR_INVALID_ARG,
                        "A(%lld, %d) = %g is not finite (1-based: row %lld)", (long long)i,
                        A->col_idx[k], A->val[k], (long long)i + 1);
    return MPCG_SUCCESS;
}

int64_t mpcgi_csr_find(const mpcgi_csr *A, int64_t i, int32_t j)
{
    int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->col_idx[mid] == j) return mid;
        if (A->col_idx[mid] < j) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

void mpcgi_csr_symmetry(const mpcgi_csr *A, int full, mpcgi_symmetry *s)
{
    *s = (mpcgi_symmetry){1, 1, 1, 0, -1, -1};
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            int64_t t = mpcgi_csr_find(A, j, (int32_t)i);
            double a = A->val[k], at = t < 0 ? 0.0 : A->val[t];
            if (t < 0) s->structural = 0;
            if (a != -at) s->skew = 0;
            if (a != at) {
                s->symmetric = 0;
                if (!s->mismatched++) s->first_i = i, s->first_j = j;
                if (!full) return;
            }
        }
}

mpcg_status mpcgi_csr_check_symmetric(const mpcg_context *ctx, const mpcgi_csr *A)
{
    mpcgi_symmetry s;
    mpcgi_csr_symmetry(A, 0, &s);
    if (s.symmetric) return MPCG_SUCCESS;
    int64_t i = s.first_i, t = mpcgi_csr_find(A, i, (int32_t)s.first_j);
    int32_t j = (int32_t)s.first_j;
    int64_t u = mpcgi_csr_find(A, j, (int32_t)i);
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG,
              "matrix is not symmetric: A(%lld, %d) = %.17g but A(%d, %lld) = %.17g (1-based)",
              (long long)i + 1, j + 1, A->val[t], j + 1, (long long)i + 1,
              u < 0 ? 0.0 : A->val[u]);
}

void mpcgi_csr_diag_stats(const mpcgi_csr *A, mpcgi_diag_stats *s)
{
    memset(s, 0, sizeof *s);
    s->first_missing = s->first_zero = s->first_negative = -1;
    for (int64_t i = 0; i < A->n; i++) {
        int64_t t = mpcgi_csr_find(A, i, (int32_t)i);
        if (t < 0) {
            if (!s->missing++) s->first_missing = i;
        } else if (A->val[t] == 0.0) {
            if (!s->zero++) s->first_zero = i;
        } else if (A->val[t] < 0.0) {
            if (!s->negative++) s->first_negative = i;
        }
    }
}
