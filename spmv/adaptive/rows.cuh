/* spmv/adaptive/rows.cuh: the row functor of the adaptive layout for the solver's persistent CG
 * loops (the uniform path's row sums; the entries of any path's CSR) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_ROWS_CUH
#define MPCG_SPMV_ADAPTIVE_ROWS_CUH

#include <stdint.h>

#include "spmv/adaptive/device.cuh"
#include "spmv/adaptive/kernels.h"

/*
 * The members spmv/csr_rows.cuh describes, over the plan's mpcgi_adaptive_launch:
 *   - entries: the plan's CSR row pointers, its 32-bit columns or (C16) 16-bit offsets col - row
 *     (mpcgi_cols), its values of type T (fp64, or fp32: the plan's fp32 values, hi with mixed
 *     storage): what the single-reduction loop copies to shared memory;
 *   - rows: the uniform path's row sums (vblock_rows: NT lanes, R rows a group, virtual blocks
 *     of R blockDim / NT rows strided over the grid, sums in T), so q is the backend's A d to the
 *     bit when NT is the backend's NT of that precision (spmv/rows.h: nt32 for fp32).
 * Bytes per row sum: 12 per nonzero (10 with C16; 4 less with fp32 values) + 4 per row, x
 * gathered, 8 (4) per row for q.
 */
template <int NT, int R, bool C16, typename T> struct mpcgi_adaptive_rows {
    using value_type = T;
    mpcgi_adaptive_launch L;
    const T *__restrict__ v;

    __device__ __forceinline__ int begin(int64_t i) const { return __ldg(L.row_ptr + i); }
    __device__ __forceinline__ int end(int64_t i) const { return __ldg(L.row_ptr + i + 1); }
    __device__ __forceinline__ int col(int k, int i) const
    {
        return mpcgi_cols<C16>{L.col_idx, L.col16}.template col<false>(k, i);
    }
    __device__ __forceinline__ T val(int k) const { return __ldg(v + k); }

    template <typename S>
    __device__ __forceinline__ void rows(const S &src, T *__restrict__ q, double &dacc) const
    {
        const int64_t per = (int64_t)R * (blockDim.x / NT);
        const int64_t vblocks = (L.n + per - 1) / per;
        for (int64_t b = blockIdx.x; b < vblocks; b += gridDim.x)
            vblock_rows<NT, R, false, true, false, C16>(L, b * per, L.n, nullptr, v, src, q,
                                                        dacc);
    }
};

#endif /* MPCG_SPMV_ADAPTIVE_ROWS_CUH */
