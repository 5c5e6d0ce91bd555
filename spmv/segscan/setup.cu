/* spmv/segscan/setup.cu: the segscan backend's index arrays, built on the GPU at upload: the
 * first row of each segment (hb) and the paper's per-nonzero run offsets (idx) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>
#include <stdint.h>

#include "spmv/segscan/kernels.h"

/* hb[s] = the first row r in [0, n) with row_ptr[r] >= s L (n if none), s = 0 .. nseg - 1;
 * hb[nseg] = n. One thread a segment, a binary search over row_ptr. */
static __global__ void segscan_heads_kernel(int64_t n, int64_t nseg, int L,
                                            const int64_t *__restrict__ row_ptr,
                                            int64_t *__restrict__ hb)
{
    const int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s > nseg) return;
    if (s == nseg) {
        hb[s] = n;
        return;
    }
    const int64_t want = s * L;
    int64_t lo = 0, hi = n; /* the first r in [0, n) with row_ptr[r] >= want, or n */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (__ldg(row_ptr + mid) < want) lo = mid + 1;
        else hi = mid;
    }
    hb[s] = lo;
}

/* idx[k] = k's offset in its run (0 at a row head or at the segment's start): the heads of the
 * segment's rows marked, then an inclusive max-scan gives each position its run's start. */
template <int L>
static __global__ void __launch_bounds__(L)
    segscan_index_kernel(int64_t nnz, const int64_t *__restrict__ row_ptr,
                         const int64_t *__restrict__ hb, uint16_t *__restrict__ idx)
{
    __shared__ int start[L];
    const int t = threadIdx.x;
    const int64_t s = blockIdx.x, base = s * L, k = base + t;
    start[t] = 0;
    __syncthreads();
    for (int64_t r = hb[s] + t; r < hb[s + 1]; r += L)
        if (row_ptr[r] - base < L) atomicMax(&start[row_ptr[r] - base], (int)(row_ptr[r] - base));
    __syncthreads();
    for (int d = 1; d < L; d *= 2) { /* the last run start at or before t */
        const int v = t >= d ? start[t - d] : 0;
        __syncthreads();
        if (v > start[t]) start[t] = v;
        __syncthreads();
    }
    if (k < nnz) idx[k] = (uint16_t)(t - start[t]);
}

template <int L>
static void index_launch(const mpcgi_segscan_args *a, const int64_t *hb, uint16_t *idx)
{
    segscan_index_kernel<L><<<(unsigned)a->nseg, L, 0, (cudaStream_t)a->stream>>>(
        a->nnz, a->row_ptr, hb, idx);
}

extern "C" int mpcgi_segscan_setup(const mpcgi_segscan_args *a, int64_t *hb, uint16_t *idx)
{
    cudaStream_t st = (cudaStream_t)a->stream;
    segscan_heads_kernel<<<(unsigned)((a->nseg + 1 + 255) / 256), 256, 0, st>>>(
        a->n, a->nseg, a->L, a->row_ptr, hb);
    if (idx && a->nseg > 0) {
        switch (a->L) {
        case 128: index_launch<128>(a, hb, idx); break;
        case 256: index_launch<256>(a, hb, idx); break;
        case 512: index_launch<512>(a, hb, idx); break;
        case 1024: index_launch<1024>(a, hb, idx); break;
        default: return (int)cudaErrorInvalidValue;
        }
    }
    return (int)cudaGetLastError();
}
