/* core/csr_view_kernels.h: the kernels of device CSR views (core/csr_view.cu; plain C) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CSR_VIEW_KERNELS_H
#define MPCG_CORE_CSR_VIEW_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the structure check found, zeroed before the launch. Each "first" field holds
 * limit - k for the first offending k (0: none), so that an atomicMax over zeroed memory finds
 * the smallest k: bad_rp over row pointers (limit n + 1: the first i whose row_ptr[i] breaks
 * row_ptr[0] = 0, row_ptr[n] = nnz, 0 <= row_ptr[i] <= row_ptr[i + 1] <= nnz), the others over
 * entries (limit nnz) of rows whose pointers are sound: a column outside [0, n), a column not
 * above the one before it in its row, a value that is not finite.
 */
typedef struct mpcgi_view_check_result {
    unsigned long long bad_rp, bad_col, bad_order, bad_val;
    unsigned long long max_len; /* the longest sound row */
} mpcgi_view_check_result;

/* Every launcher queues on `stream` and returns cudaGetLastError() as an int. rp64: row_ptr
 * is int64 (else int32). */
int mpcgi_view_check(void *stream, int64_t n, int64_t nnz, const void *row_ptr, int rp64,
                     const int32_t *col, const double *val, int check_values,
                     mpcgi_view_check_result *r);
/* out[i] = in[i], i < count (row pointers of the other width; narrowing needs values that fit) */
int mpcgi_view_widen(void *stream, int64_t count, const int32_t *in, int64_t *out);
int mpcgi_view_narrow(void *stream, int64_t count, const int64_t *in, int32_t *out);
/* out[k] = (float)in[k] (round to nearest, as the host's cast) */
int mpcgi_view_to_f32(void *stream, int64_t count, const double *in, float *out);
/* out[k] = (float)(in[k] - (double)(float)in[k]), the low halves of the mixed storage */
int mpcgi_view_lo32(void *stream, int64_t count, const double *in, float *out);
/* *rev = count - k for the first k whose hi + lo split is not exact (mpcgi_split_problem's
 * rules); *rev must be zeroed before (and stays 0 where every split is exact) */
int mpcgi_view_split_scan(void *stream, int64_t count, const double *in,
                           unsigned long long *rev);
/* diag[i] = a_ii, has[i] = 1; or diag[i] = 0, has[i] = 0 where row i stores no a_ii (binary
 * search: sorted columns) */
int mpcgi_view_diag_scan(void *stream, int64_t n, const void *row_ptr, int rp64, const int32_t *col,
                    const double *val, double *diag, unsigned char *has);
/* The pattern sample of core/cache.h (mpcgi_pattern_sample): for k < rows, row i = k n / rows:
 * k01[2 k], k01[2 k + 1] its row pointers; cols[2 end k ...] its columns, all of them when the
 * row has at most 2 end, else its first and its last `end` */
int mpcgi_view_sample(void *stream, int64_t n, const void *row_ptr, int rp64, const int32_t *col,
                      int64_t rows, int end, int64_t *k01, int32_t *cols);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_CORE_CSR_VIEW_KERNELS_H */
