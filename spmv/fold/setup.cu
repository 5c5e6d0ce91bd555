/* spmv/fold/setup.cu: the fold backend's layout built on the GPU from the device CSR: the
 * pieces of each row (scans), the slot-major columns and the padding, the folded rows' map, and
 * the values scattered into slot order (at upload and at each value update) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "spmv/fold/setup.h"

/* The rule of spmv/fold/layout.c (mpcgi_fold_layout_build), which the CPU emulation uses:
 * entry k of row i sits at slot k % F of thread (k < F ? i : n + pbase[i] + k / F - 1), where
 * pbase[i] counts the pieces of the rows before i; a thread's unused slots repeat its last
 * column (an empty row: its own index; the padding threads: 0) and hold the value 0. */

static __global__ void count_kernel(int64_t n, int F, const int64_t *__restrict__ row_ptr,
                                    int64_t *__restrict__ pieces, int64_t *__restrict__ folded)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    int64_t pc = 0;
    if (i < n) {
        const int64_t len = row_ptr[i + 1] - row_ptr[i];
        pc = len > F ? (len - 1) / F : 0;
    }
    pieces[i] = pc;
    folded[i] = pc > 0;
}

/* One warp a row: lane l places the row's entries l, l + 32, ... (columns, or values with
 * VALUES). */
template <bool VALUES, typename E>
static __global__ void scatter_kernel(int64_t n, int64_t np, int F,
                                      const int64_t *__restrict__ row_ptr,
                                      const int64_t *__restrict__ pbase,
                                      const E *__restrict__ src, E *__restrict__ dst)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (w >= n) return;
    const int64_t b = row_ptr[w], len = row_ptr[w + 1] - b, pb = pbase[w];
    for (int64_t k = lane; k < len; k += 32) {
        const int64_t t = k < F ? w : n + pb + k / F - 1;
        dst[(k % F) * np + t] = src[b + k];
    }
}

/* Thread p: its unused slots get its last column; the folded rows' map and bits. */
static __global__ void pad_kernel(int64_t n, int64_t np, int64_t pieces, int F,
                                  const int64_t *__restrict__ row_ptr,
                                  const int64_t *__restrict__ pbase,
                                  const int64_t *__restrict__ fidx, int32_t *__restrict__ col,
                                  uint32_t *__restrict__ fbits, int64_t *__restrict__ fold_row,
                                  int64_t *__restrict__ fold_ptr)
{
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n + pieces) return;
    int64_t count;
    int32_t c;
    if (p < n) {
        const int64_t len = row_ptr[p + 1] - row_ptr[p];
        count = len < F ? len : F;
        c = (int32_t)p;
        const int64_t pc = pbase[p + 1] - pbase[p];
        if (pc > 0) {
            const int64_t j = fidx[p];
            fold_row[j] = p;
            fold_ptr[j + 1] = pbase[p + 1];
            atomicOr(&fbits[p >> 5], 1u << (p & 31));
        }
        if (p == 0) fold_ptr[0] = 0;
    } else { /* a piece: its row by a binary search of pbase, then its entries */
        const int64_t q = p - n;
        int64_t lo = 0, hi = n - 1; /* the last row i with pbase[i] <= q */
        while (lo < hi) {
            const int64_t mid = hi - (hi - lo) / 2;
            if (pbase[mid] <= q) lo = mid;
            else hi = mid - 1;
        }
        const int64_t len = row_ptr[lo + 1] - row_ptr[lo], first = F * (q - pbase[lo] + 1);
        count = len - first < F ? len - first : F;
        c = 0;
    }
    if (count > 0) c = col[(count - 1) * np + p];
    for (int64_t k = count; k < F; k++) col[k * np + p] = c;
}

extern "C" int mpcgi_fold_build_pattern(void *stream, int64_t n, int64_t np, int64_t pieces,
                                        int F, const int64_t *row_ptr, const int32_t *csr_col,
                                        int64_t *pbase, int64_t *fidx, int64_t *scratch,
                                        void *tmp, size_t *tmp_bytes, int32_t *col,
                                        uint32_t *fbits, int64_t *fold_row, int64_t *fold_ptr)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (!tmp) { /* the scans' temporary storage */
        size_t b = 0;
        cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, b, scratch, pbase, n + 1, st);
        *tmp_bytes = b;
        return (int)e;
    }
    const unsigned T = 256;
    count_kernel<<<(unsigned)((n + 1 + T - 1) / T), T, 0, st>>>(n, F, row_ptr, scratch,
                                                               scratch + n + 1);
    cudaError_t e = cub::DeviceScan::ExclusiveSum(tmp, *tmp_bytes, scratch, pbase, n + 1, st);
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(tmp, *tmp_bytes, scratch + n + 1, fidx, n + 1, st);
    if (e != cudaSuccess) return (int)e;
    if ((e = cudaMemsetAsync(col, 0, (size_t)F * (size_t)np * sizeof *col, st)) != cudaSuccess ||
        (e = cudaMemsetAsync(fbits, 0, (size_t)(n + 31) / 32 * sizeof *fbits, st)) != cudaSuccess)
        return (int)e;
    if (n > 0) {
        scatter_kernel<false, int32_t><<<(unsigned)((n * 32 + T - 1) / T), T, 0, st>>>(
            n, np, F, row_ptr, pbase, csr_col, col);
        pad_kernel<<<(unsigned)((n + pieces + T - 1) / T), T, 0, st>>>(
            n, np, pieces, F, row_ptr, pbase, fidx, col, fbits, fold_row, fold_ptr);
    } else {
        e = cudaMemsetAsync(fold_ptr, 0, sizeof *fold_ptr, st);
    }
    return e != cudaSuccess ? (int)e : (int)cudaGetLastError();
}

template <typename E>
static int values(void *stream, int64_t n, int64_t np, int F, const int64_t *row_ptr,
                  const int64_t *pbase, const E *src, E *dst)
{
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e = cudaMemsetAsync(dst, 0, (size_t)F * (size_t)np * sizeof *dst, st);
    if (e != cudaSuccess) return (int)e;
    if (n > 0)
        scatter_kernel<true, E><<<(unsigned)((n * 32 + 255) / 256), 256, 0, st>>>(
            n, np, F, row_ptr, pbase, src, dst);
    return (int)cudaGetLastError();
}

extern "C" int mpcgi_fold_build_values_f64(void *stream, int64_t n, int64_t np, int F,
                                           const int64_t *row_ptr, const int64_t *pbase,
                                           const double *src, double *dst)
{
    return values(stream, n, np, F, row_ptr, pbase, src, dst);
}

extern "C" int mpcgi_fold_build_values_f32(void *stream, int64_t n, int64_t np, int F,
                                           const int64_t *row_ptr, const int64_t *pbase,
                                           const float *src, float *dst)
{
    return values(stream, n, np, F, row_ptr, pbase, src, dst);
}
