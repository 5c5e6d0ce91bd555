/* core/csr_view.cu: kernels of device CSR views: the structure check, row pointers of the other
 * width, fp32 values and low halves, the split test, the diagonal, the pattern sample */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cfloat>
#include <climits>
#include <cuda_runtime.h>

#include "core/csr_view_kernels.h"

#define THREADS 256
#define MAX_GRID 65536

/* Blocks for `count` items (each thread strides over the rest past MAX_GRID blocks). */
static unsigned grid_for(int64_t count)
{
    const int64_t g = (count + THREADS - 1) / THREADS;
    return (unsigned)(g < 1 ? 1 : g > MAX_GRID ? MAX_GRID : g);
}

#define FOR_EACH(i, count)                                                                  \
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < (count);              \
         i += (int64_t)gridDim.x * THREADS)

/* Row i's pointers, -1 for both where they break the rules (the check reports that row). */
template <typename RP>
static __device__ void row_bounds(const RP *rp, int64_t i, int64_t nnz, int64_t *b, int64_t *e)
{
    const int64_t lo = (int64_t)rp[i], hi = (int64_t)rp[i + 1];
    const bool sound = lo >= 0 && lo <= hi && hi <= nnz;
    *b = sound ? lo : -1;
    *e = sound ? hi : -1;
}

/* Thread i in [0, n]: row pointer i, then (i < n) the entries of row i. */
template <typename RP>
static __global__ void check_kernel(int64_t n, int64_t nnz, const RP *__restrict__ rp,
                                    const int32_t *__restrict__ col,
                                    const double *__restrict__ val, int check_values,
                                    mpcgi_view_check_result *r)
{
    FOR_EACH(i, n + 1)
    {
        const int64_t p = (int64_t)rp[i];
        const bool bad = p < 0 || p > nnz || (i == 0 && p != 0) || (i == n && p != nnz) ||
                         (i > 0 && p < (int64_t)rp[i - 1]);
        if (bad) atomicMax(&r->bad_rp, (unsigned long long)(n + 1 - i));
        if (i == n) continue;
        int64_t b, e;
        row_bounds(rp, i, nnz, &b, &e);
        if (b < 0) continue;
        atomicMax(&r->max_len, (unsigned long long)(e - b));
        int64_t first_col = -1, first_order = -1, first_val = -1;
        for (int64_t k = b; k < e; k++) {
            const int32_t c = col[k];
            if ((c < 0 || c >= n) && first_col < 0) first_col = k;
            if (k > b && c <= col[k - 1] && first_order < 0) first_order = k;
            if (check_values && !isfinite(val[k]) && first_val < 0) first_val = k;
        }
        if (first_col >= 0) atomicMax(&r->bad_col, (unsigned long long)(nnz - first_col));
        if (first_order >= 0) atomicMax(&r->bad_order, (unsigned long long)(nnz - first_order));
        if (first_val >= 0) atomicMax(&r->bad_val, (unsigned long long)(nnz - first_val));
    }
}

extern "C" int mpcgi_view_check(void *stream, int64_t n, int64_t nnz, const void *row_ptr,
                                int rp64, const int32_t *col, const double *val,
                                int check_values, mpcgi_view_check_result *r)
{
    const cudaStream_t s = (cudaStream_t)stream;
    if (rp64)
        check_kernel<<<grid_for(n + 1), THREADS, 0, s>>>(n, nnz, (const int64_t *)row_ptr, col,
                                                         val, check_values, r);
    else
        check_kernel<<<grid_for(n + 1), THREADS, 0, s>>>(n, nnz, (const int32_t *)row_ptr, col,
                                                         val, check_values, r);
    return (int)cudaGetLastError();
}

template <typename In, typename Out>
static __global__ void convert_kernel(int64_t count, const In *__restrict__ in,
                                      Out *__restrict__ out)
{
    FOR_EACH(i, count) out[i] = (Out)in[i];
}

extern "C" int mpcgi_view_widen(void *stream, int64_t count, const int32_t *in, int64_t *out)
{
    if (count > 0)
        convert_kernel<<<grid_for(count), THREADS, 0, (cudaStream_t)stream>>>(count, in, out);
    return (int)cudaGetLastError();
}

extern "C" int mpcgi_view_narrow(void *stream, int64_t count, const int64_t *in, int32_t *out)
{
    if (count > 0)
        convert_kernel<<<grid_for(count), THREADS, 0, (cudaStream_t)stream>>>(count, in, out);
    return (int)cudaGetLastError();
}

extern "C" int mpcgi_view_to_f32(void *stream, int64_t count, const double *in, float *out)
{
    if (count > 0)
        convert_kernel<<<grid_for(count), THREADS, 0, (cudaStream_t)stream>>>(count, in, out);
    return (int)cudaGetLastError();
}

static __global__ void lo32_kernel(int64_t count, const double *__restrict__ in,
                                   float *__restrict__ out)
{
    FOR_EACH(k, count)
    {
        const double a = in[k];
        out[k] = __double2float_rn(a - (double)__double2float_rn(a));
    }
}

extern "C" int mpcgi_view_lo32(void *stream, int64_t count, const double *in, float *out)
{
    if (count > 0)
        lo32_kernel<<<grid_for(count), THREADS, 0, (cudaStream_t)stream>>>(count, in, out);
    return (int)cudaGetLastError();
}

/* mpcgi_split_problem (core/csr.c) on the device: the same tests in the same order. */
static __device__ bool split_inexact(double a)
{
    if (a == 0) return false;
    const float hi = __double2float_rn(a);
    const float lo = __double2float_rn(a - (double)hi);
    if (fabs(a) > FLT_MAX || isinf(hi)) return true;
    if (fabs(a) < FLT_MIN) return true;
    return lo != 0 && fabsf(lo) < FLT_MIN;
}

static __global__ void split_kernel(int64_t count, const double *__restrict__ in,
                                    unsigned long long *rev)
{
    FOR_EACH(k, count)
    if (split_inexact(in[k])) atomicMax(rev, (unsigned long long)(count - k));
}

extern "C" int mpcgi_view_split_scan(void *stream, int64_t count, const double *in,
                                      unsigned long long *rev)
{
    if (count > 0)
        split_kernel<<<grid_for(count), THREADS, 0, (cudaStream_t)stream>>>(count, in, rev);
    return (int)cudaGetLastError();
}

template <typename RP>
static __global__ void diag_kernel(int64_t n, const RP *__restrict__ rp,
                                   const int32_t *__restrict__ col,
                                   const double *__restrict__ val, double *__restrict__ diag,
                                   unsigned char *__restrict__ has)
{
    FOR_EACH(i, n)
    {
        int64_t lo = (int64_t)rp[i], hi = (int64_t)rp[i + 1] - 1, at = -1;
        while (lo <= hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const int32_t c = col[mid];
            if (c == i) {
                at = mid;
                break;
            }
            if (c < i) lo = mid + 1;
            else hi = mid - 1;
        }
        diag[i] = at < 0 ? 0.0 : val[at];
        has[i] = at >= 0;
    }
}

extern "C" int mpcgi_view_diag_scan(void *stream, int64_t n, const void *row_ptr, int rp64,
                               const int32_t *col, const double *val, double *diag,
                               unsigned char *has)
{
    const cudaStream_t s = (cudaStream_t)stream;
    if (n < 1) return (int)cudaGetLastError();
    if (rp64)
        diag_kernel<<<grid_for(n), THREADS, 0, s>>>(n, (const int64_t *)row_ptr, col, val, diag,
                                                    has);
    else
        diag_kernel<<<grid_for(n), THREADS, 0, s>>>(n, (const int32_t *)row_ptr, col, val, diag,
                                                    has);
    return (int)cudaGetLastError();
}

/* Thread k < rows: sampled row k n / rows (core/cache.c's sample_row on the host). */
template <typename RP>
static __global__ void sample_kernel(int64_t n, const RP *__restrict__ rp,
                                     const int32_t *__restrict__ col, int64_t rows, int end,
                                     int64_t *k01, int32_t *cols)
{
    FOR_EACH(k, rows) {
        const int64_t i = k * n / rows, k0 = (int64_t)rp[i], k1 = (int64_t)rp[i + 1];
        int32_t *c = cols + 2 * end * k;
        k01[2 * k] = k0;
        k01[2 * k + 1] = k1;
        if (k1 - k0 <= 2 * end) { /* the rest written too: every copied byte is defined */
            for (int j = 0; j < 2 * end; j++) c[j] = k0 + j < k1 ? col[k0 + j] : 0;
        } else {
            for (int j = 0; j < end; j++) {
                c[j] = col[k0 + j];
                c[end + j] = col[k1 - end + j];
            }
        }
    }
}

extern "C" int mpcgi_view_sample(void *stream, int64_t n, const void *row_ptr, int rp64,
                                 const int32_t *col, int64_t rows, int end, int64_t *k01,
                                 int32_t *cols)
{
    const cudaStream_t s = (cudaStream_t)stream;
    if (rows < 1) return (int)cudaGetLastError();
    if (rp64)
        sample_kernel<<<grid_for(rows), THREADS, 0, s>>>(n, (const int64_t *)row_ptr, col, rows,
                                                         end, k01, cols);
    else
        sample_kernel<<<grid_for(rows), THREADS, 0, s>>>(n, (const int32_t *)row_ptr, col, rows,
                                                         end, k01, cols);
    return (int)cudaGetLastError();
}
