/* core/block_cuda.h: the device tables of core/block.h and the tall-skinny GEMM's modes
 * (core/block_cuda.c, kernels in core/block_cuda.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_BLOCK_CUDA_H
#define MPCG_CORE_BLOCK_CUDA_H

#include "core/block.h"

extern const mpcgi_block_ops mpcgi_block_cuda, mpcgi_block_cuda_f32;

/* How C = X^T Y combines the partial products of the blocks that split k (= n): DETERMINISTIC,
 * each block's s x t partial to the workspace and the last block to finish sums them in a fixed
 * order (one launch, the same bits every run); ATOMIC, seed 004's way: C zeroed, then every
 * block atomicAdds its partial into C (the order, and so the last bits, vary from run to run). */
typedef enum { MPCGI_TSGEMM_DETERMINISTIC, MPCGI_TSGEMM_ATOMIC } mpcgi_tsgemm_mode;

/* C = X^T Y with C (s x t, row-major, double) left on the device: the table's xty without the
 * copy to the host, in either mode (the benchmark measures both). ws: xty_workspace bytes. */
mpcg_status mpcgi_block_cuda_xty_dev(mpcg_context *ctx, mpcg_precision prec,
                                     mpcgi_tsgemm_mode mode, void *ws, int64_t n, int s, int t,
                                     const void *X, const void *Y, double *C_dev);

#endif /* MPCG_CORE_BLOCK_CUDA_H */
