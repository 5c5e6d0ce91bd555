/* core/cuda_check.h: mapping CUDA runtime, cuSPARSE and cuBLAS statuses to mpcg_status */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CUDA_CHECK_H
#define MPCG_CORE_CUDA_CHECK_H

/* Only .c files of a CUDA build include this header (it needs the CUDA headers). cuSPARSE marks
 * its legacy API deprecated; we use only the generic API, and the warnings would fail -Werror. */
#ifndef DISABLE_CUSPARSE_DEPRECATED
#define DISABLE_CUSPARSE_DEPRECATED
#endif
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "core/error.h"

/*
 * Each mapping records "<call>: <library error name>: <library error string>" in ctx (the
 * call's text up to its first parenthesis, e.g. "cudaMalloc: cudaErrorMemoryAllocation: out of
 * memory") and returns the status:
 *   cudaErrorMemoryAllocation -> MPCG_ERR_DEVICE_ALLOC, other CUDA errors -> MPCG_ERR_CUDA,
 *   any cuSPARSE failure -> MPCG_ERR_CUSPARSE, any cuBLAS failure -> MPCG_ERR_CUBLAS.
 * Success maps to MPCG_SUCCESS and records nothing. After a CUDA error the runtime's last-error
 * slot is cleared, so a recorded non-sticky error is not reported again by the next launch.
 */
mpcg_status mpcgi_cuda_status(const mpcg_context *ctx, cudaError_t e, const char *call,
                              const char *file, int line, const char *func);
mpcg_status mpcgi_cusparse_status(const mpcg_context *ctx, cusparseStatus_t e, const char *call,
                                  const char *file, int line, const char *func);
mpcg_status mpcgi_cublas_status(const mpcg_context *ctx, cublasStatus_t e, const char *call,
                                const char *file, int line, const char *func);

#define MPCGI_CUDA_STATUS(ctx, call) \
    mpcgi_cuda_status((ctx), (call), #call, __FILE__, __LINE__, __func__)
#define MPCGI_CUSPARSE_STATUS(ctx, call) \
    mpcgi_cusparse_status((ctx), (call), #call, __FILE__, __LINE__, __func__)
#define MPCGI_CUBLAS_STATUS(ctx, call) \
    mpcgi_cublas_status((ctx), (call), #call, __FILE__, __LINE__, __func__)

/* Return the mapped status from the enclosing function if the call failed. */
#define MPCGI_RETURN_IF(expr)                        \
    do {                                             \
        mpcg_status mpcg_c_ = (expr);                \
        if (mpcg_c_ != MPCG_SUCCESS) return mpcg_c_; \
    } while (0)

#define MPCG_CUDA(ctx, call) MPCGI_RETURN_IF(MPCGI_CUDA_STATUS(ctx, call))
#define MPCG_CUSPARSE(ctx, call) MPCGI_RETURN_IF(MPCGI_CUSPARSE_STATUS(ctx, call))
#define MPCG_CUBLAS(ctx, call) MPCGI_RETURN_IF(MPCGI_CUBLAS_STATUS(ctx, call))

/* A kernel launcher (core/vec_cuda.h and the like): it returns cudaGetLastError() as an int. */
#define MPCG_LAUNCH(ctx, launcher_call) \
    MPCGI_RETURN_IF(mpcgi_cuda_status((ctx), (cudaError_t)(launcher_call), #launcher_call, \
                                      __FILE__, __LINE__, __func__))

/* goto-style variants for functions with one exit label `done` (core/error.h) */
#define MPCG_CUDA_GOTO(ctx, st, call)                                           \
    do {                                                                        \
        if (((st) = MPCGI_CUDA_STATUS(ctx, call)) != MPCG_SUCCESS) goto done;   \
    } while (0)
#define MPCG_CUSPARSE_GOTO(ctx, st, call)                                         \
    do {                                                                          \
        if (((st) = MPCGI_CUSPARSE_STATUS(ctx, call)) != MPCG_SUCCESS) goto done; \
    } while (0)
#define MPCG_CUBLAS_GOTO(ctx, st, call)                                         \
    do {                                                                        \
        if (((st) = MPCGI_CUBLAS_STATUS(ctx, call)) != MPCG_SUCCESS) goto done; \
    } while (0)

#endif /* MPCG_CORE_CUDA_CHECK_H */
