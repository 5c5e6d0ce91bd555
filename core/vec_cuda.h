/* core/vec_cuda.h: launchers of the device vector kernels (plain C, no CUDA types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_VEC_CUDA_H
#define MPCG_CORE_VEC_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kernels of core/vec_cuda.cu. Vectors are device arrays of n entries; `stream` is the context's
 * cudaStream_t. Each launcher queues its kernels on the stream, never synchronises, and returns
 * cudaGetLastError() (callers wrap it in MPCG_LAUNCH).
 *
 * The dot product is deterministic: the grid of partial sums depends only on n (at most
 * MPCGI_DOT_BLOCKS blocks, each summing a fixed strided subset of the entries and reducing it in
 * a fixed tree), then one single-block pass adds the partials in a fixed tree. No atomics, so the
 * same inputs give bit-identical results on every run and every GPU of the same architecture.
 * Sums are accumulated in double for both value types.
 */
#define MPCGI_DOT_BLOCKS 1024
/* Device workspace of a dot, in doubles: the partials, then the result at ws[MPCGI_DOT_BLOCKS]. */
#define MPCGI_DOT_WORKSPACE_DOUBLES (MPCGI_DOT_BLOCKS + 1)

/* ws[MPCGI_DOT_BLOCKS] = x^T y (reads 2 n values) */
int mpcgi_vec_dot_f64(void *stream, int64_t n, const double *x, const double *y, double *ws);
int mpcgi_vec_dot_f32(void *stream, int64_t n, const float *x, const float *y, double *ws);

/* y += a x (reads 2 n values, writes n) */
int mpcgi_vec_axpy_f64(void *stream, int64_t n, double a, const double *x, double *y);
int mpcgi_vec_axpy_f32(void *stream, int64_t n, float a, const float *x, float *y);
int mpcgi_vec_axpy_wide_f32(void *stream, int64_t n, double a, const float *x, double *y);

/* y = x + a y (reads 2 n values, writes n) */
int mpcgi_vec_xpay_f64(void *stream, int64_t n, const double *x, double a, double *y);
int mpcgi_vec_xpay_f32(void *stream, int64_t n, const float *x, float a, float *y);

/* y = (float)x, y = (double)x (reads n values, writes n): the fp32 solve's entry and exit */
int mpcgi_vec_demote_f32(void *stream, int64_t n, const double *x, float *y);
int mpcgi_vec_promote_f32(void *stream, int64_t n, const float *x, double *y);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_CORE_VEC_CUDA_H */
