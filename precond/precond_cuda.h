/* precond/precond_cuda.h: launchers of the preconditioner's device kernels (plain C, no CUDA
 * types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_PRECOND_PRECOND_CUDA_H
#define MPCG_PRECOND_PRECOND_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kernels of precond/precond_kernels.cu, one template per kernel instantiated for double (_f64)
 * and float (_f32). Arrays are device arrays; `stream` is the context's cudaStream_t. Each
 * launcher queues its kernel, never synchronises, and returns cudaGetLastError() (callers wrap
 * it in MPCG_LAUNCH).
 */

/* y = alpha dinv .* x, y may be x (reads 2 n values, writes n; _f32: alpha rounded to float) */
int mpcgi_precond_scale_f64(void *stream, int64_t n, double alpha, const double *dinv,
                            const double *x, double *y);
int mpcgi_precond_scale_f32(void *stream, int64_t n, double alpha, const float *dinv,
                            const float *x, float *y);

/* z[block b] = binv_b r[block b] for the blocks [bstart[b], bstart[b + 1]) of at most
 * MPCGI_PRECOND_MAX_BLOCK rows, binv_b row-major at binv + boff[b]; z must not alias r (reads
 * nb^2 + nb values, writes nb per block of nb rows) */
int mpcgi_precond_blocks_f64(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                             const int64_t *boff, const double *binv, const double *r, double *z);
int mpcgi_precond_blocks_f32(void *stream, int64_t n, int64_t nblocks, const int64_t *bstart,
                             const int64_t *boff, const float *binv, const float *r, float *z);

/* z = L^-T L^-1 r block by block (bjacobi's Cholesky factors; one thread a block) */
int mpcgi_precond_cholesky_f64(void *stream, int64_t nblocks, const int64_t *bstart,
                               const int64_t *boff, const double *fac, const double *r, double *z);
int mpcgi_precond_cholesky_f32(void *stream, int64_t nblocks, const int64_t *bstart,
                               const int64_t *boff, const float *fac, const float *r, float *z);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_PRECOND_PRECOND_CUDA_H */
