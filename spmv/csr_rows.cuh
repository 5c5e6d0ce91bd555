/* spmv/csr_rows.cuh: the row functor of plain CSR (int32 row pointers and columns, fp64 or fp32
 * values) for the solver's persistent CG loops: serves cusparse and any CSR backend */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_CSR_ROWS_CUH
#define MPCG_SPMV_CSR_ROWS_CUH

#include <stdint.h>

/*
 * What the loops of solver/cg_persistent.cu ask of a functor (spmv/adaptive/rows.cuh has the
 * same members):
 *   - entries, for the single-reduction loop, which copies a block's rows into shared memory
 *     once per launch: begin(i), end(i) of row i, col(k, i) and val(k) of its entry k;
 *   - rows(src, q, dacc), for the two-barrier loop: this block's share of the rows (a grid-stride
 *     walk; every thread of the block calls it), q_i = sum_j a_ij src(j), then src.keep(i,
 *     src(i)) and dacc += src(i) q_i in the thread that owns row i.
 * T (value_type) is the type of the values, of src(j), of q and of the row sums; dacc is double
 * (the products of fp32 values widened, as core/cg_kernels.cu's fp32 sums).
 * Bytes per row sum: 12 per nonzero (8 with fp32 values) + 4 per row (row pointers), x
 * gathered, 8 (4) per row for q.
 *
 * The CSR row sum takes NT lanes of a warp per row (NT = 1 ... 32, a power of two, chosen by
 * the host from the mean row length): lane l adds entries l, l + NT, ... with fused
 * multiply-adds from 0 in T, and a butterfly over the NT lanes leaves the sum in every lane.
 */
template <int NT, typename T> struct mpcgi_csr_rows {
    using value_type = T;
    int64_t n;
    const int32_t *__restrict__ row_ptr;
    const int32_t *__restrict__ col_idx;
    const T *__restrict__ v;

    __device__ __forceinline__ int begin(int64_t i) const { return __ldg(row_ptr + i); }
    __device__ __forceinline__ int end(int64_t i) const { return __ldg(row_ptr + i + 1); }
    __device__ __forceinline__ int col(int k, int) const { return __ldg(col_idx + k); }
    __device__ __forceinline__ T val(int k) const { return __ldg(v + k); }

    template <typename S>
    __device__ __forceinline__ void rows(const S &src, T *__restrict__ q, double &dacc) const
    {
        const int groups = blockDim.x / NT, lane = threadIdx.x & (NT - 1);
        const int64_t step = (int64_t)gridDim.x * groups;
        for (int64_t base = (int64_t)blockIdx.x * groups; base < n; base += step) {
            const int64_t i = base + threadIdx.x / NT;
            int b = 0, e = 0;
            if (i < n) b = begin(i), e = end(i);
            T acc = 0;
            for (int k = b + lane; k < e; k += NT)
                acc = fma(val(k), src(col(k, 0)), acc);
#pragma unroll
            for (int s = NT / 2; s > 0; s >>= 1)
                acc += __shfl_xor_sync(0xffffffffu, acc, s, NT);
            if (lane == 0 && i < n) {
                q[i] = acc;
                const T xi = src((int)i);
                src.keep((int)i, xi);
                dacc = fma((double)xi, (double)acc, dacc);
            }
        }
    }
};

#endif /* MPCG_SPMV_CSR_ROWS_CUH */
