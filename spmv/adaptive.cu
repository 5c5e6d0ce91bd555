/* spmv/adaptive.cu: CSR-vector kernels with NT threads per row (seed 003), row binning on the GPU
 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <climits>
#include <cuda_runtime.h>

#include "spmv/adaptive_kernels.h"

/*
 * Every row sum is formed the same way wherever it runs (spmv/adaptive.c emulates it):
 *   - a short row is summed by a group of NT lanes of one warp (NT = 1 ... 32): lane l adds
 *     entries start + l, start + l + NT, ... with fused multiply-adds from 0, then a butterfly
 *     a_l <- a_l + a_(l xor s), s = NT/2 ... 1, leaves the sum in every lane;
 *   - a long row is cut into chunks of `chunk` nonzeros, one virtual block each: thread t adds
 *     entries t, t + blockDim, ... of its chunk, a 32-lane butterfly per warp, thread 0 adds the
 *     warp sums in warp order, and the chunk sums are added in chunk order by the block that
 *     finishes last (an integer counter says which; no floating-point atomics anywhere).
 * Bytes per fp64 SpMV: 12 per nonzero (value + column), 4 per row pointer, 8 per row for y, x
 * gathered through the read-only path; the binned kernel adds 4 per row for the row list.
 */

#define FULL_MASK 0xffffffffu
#define WARPS_MAX (MPCGI_ADAPTIVE_MAX_BLOCK / 32)
#define SETUP_THREADS 256
#define SETUP_WARPS (SETUP_THREADS / 32)
#define SCAN_THREADS 1024
#define DOT_THREADS 1024

static_assert(MPCGI_ADAPTIVE_TILE % SETUP_THREADS == 0, "a tile is whole rounds of rows");

static __device__ __forceinline__ double fmadd(double a, double b, double c)
{
    return fma(a, b, c);
}
static __device__ __forceinline__ float fmadd(float a, float b, float c)
{
    return fmaf(a, b, c);
}

/* Matrix data is read once per SpMV: evict-first (streaming) loads keep x in the caches. */
template <bool STREAM, typename T> static __device__ __forceinline__ T load_matrix(const T *p)
{
    if (STREAM) return __ldcs(p);
    return __ldg(p);
}

/* R rows at once by a group of NT lanes (see the top comment): lane l adds the entries l,
 * l + NT, ... of each row in order, two strides per round with every load of the round issued
 * before its multiply-adds (R x 2 independent loads in flight per lane); a butterfly per row
 * then leaves the sums in every lane. All 32 lanes of the warp call it; a group without a row
 * passes len = 0. An entry past a row's end is skipped, not added as 0 (that keeps -0 sums). */
template <int NT, int R, bool STREAM, typename T>
static __device__ __forceinline__ void
rows_sum(const int (&start)[R], const int (&len)[R], int lane, const int32_t *__restrict__ col,
         const T *__restrict__ val, const T *__restrict__ x, T (&acc)[R])
{
    int most = 0;
#pragma unroll
    for (int r = 0; r < R; r++)
        acc[r] = 0, most = len[r] > most ? len[r] : most;
    for (int o = lane; o < most; o += 2 * NT) {
        T a[R][2], b[R][2];
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int k = o + u * NT;
                a[r][u] = 0, b[r][u] = 0;
                if (k < len[r]) {
                    a[r][u] = load_matrix<STREAM>(val + start[r] + k);
                    b[r][u] = __ldg(x + load_matrix<STREAM>(col + start[r] + k));
                }
            }
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int r = 0; r < R; r++)
                if (o + u * NT < len[r]) acc[r] = fmadd(a[r][u], b[r][u], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int s = NT / 2; s > 0; s >>= 1)
            acc[r] += __shfl_xor_sync(FULL_MASK, acc[r], s, NT);
}

/* v summed over the block: a butterfly in each warp, then thread 0 adds the warp sums in warp
 * order. The result is valid in thread 0. Every thread of the block calls it. */
template <typename T> static __device__ T block_sum(T v, T *sh)
{
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, s);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    T p = 0;
    if (threadIdx.x == 0) {
        p = sh[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); w++)
            p += sh[w];
    }
    __syncthreads();
    return p;
}

/* Virtual block v < long_blocks: one chunk of a long row. part: the chunk partials (ws);
 * dlong: the long rows' terms x_r y_r of the dot. */
template <bool STREAM, bool DOT, typename T>
static __device__ void long_chunk(const mpcgi_adaptive_launch &L, int64_t v,
                                  const T *__restrict__ val, const T *__restrict__ x,
                                  T *__restrict__ y, T *part, double *dlong, T *sh)
{
    int lo = 0, hi = L.n_long; /* long_start[lo] <= v < long_start[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (L.long_start[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    const int first = L.long_start[lo], nblk = L.long_start[lo + 1] - first;
    const int r = L.rows[lo]; /* the long rows open the row list */
    const int64_t row_end = L.row_ptr[r + 1];
    const int64_t start = L.row_ptr[r] + (v - first) * (int64_t)L.chunk;
    const int end = (int)(start + L.chunk < row_end ? start + L.chunk : row_end);
    T acc = 0;
#pragma unroll 4
    for (int k = (int)start + (int)threadIdx.x; k < end; k += (int)blockDim.x)
        acc =
            fmadd(load_matrix<STREAM>(val + k), __ldg(x + load_matrix<STREAM>(L.col_idx + k)), acc);
    T p = block_sum(acc, sh);
    if (threadIdx.x == 0) {
        bool finish = nblk == 1;
        if (!finish) {
            part[v] = p;
            __threadfence();
            finish = atomicAdd(&L.counters[lo], 1) == nblk - 1; /* the last chunk done */
            if (finish) {
                __threadfence();
                p = __ldcg(part + first);
                for (int c = 1; c < nblk; c++)
                    p += __ldcg(part + first + c);
                L.counters[lo] = 0; /* ready for the next SpMV */
            }
        }
        if (finish) {
            y[r] = p;
            if constexpr (DOT) dlong[lo] = (double)__ldg(x + r) * (double)p;
        }
    }
}

/* The rows of one virtual block (R x blockDim / NT of them): group g takes row(g + r groups),
 * r < R, where row(i) is i itself (uniform) or rows[i] (binned), i < count; rows longer than
 * skip_len are left to the long-row chunks. */
template <int NT, int R, bool STREAM, bool DOT, bool LIST, typename T>
static __device__ __forceinline__ void
vblock_rows(const mpcgi_adaptive_launch &L, int64_t first, int64_t count, const int32_t *list,
            const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, double &dacc)
{
    const int groups = blockDim.x / NT, lane = threadIdx.x & (NT - 1);
    int row[R], start[R], len[R];
    T sum[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t i = first + r * groups + threadIdx.x / NT;
        row[r] = -1, start[r] = 0, len[r] = 0;
        if (i < count) {
            const int q = LIST ? __ldg(list + i) : (int)i;
            const int b = __ldg(L.row_ptr + q), e = __ldg(L.row_ptr + q + 1);
            if (LIST || e - b <= L.skip_len) row[r] = q, start[r] = b, len[r] = e - b;
        }
    }
    /* Streaming loads only for groups of 8 lanes or more: narrower groups read each row's
     * entries over several loads, and the lines must stay in L1 in between (one lane per row
     * streamed ran at 0.37 of the copy bandwidth on poisson3d:256, cached at 0.99) */
    rows_sum<NT, R, STREAM && NT >= 8>(start, len, lane, L.col_idx, val, x, sum);
    if (lane == 0)
#pragma unroll
        for (int r = 0; r < R; r++)
            if (row[r] >= 0) {
                y[row[r]] = sum[r];
                if constexpr (DOT) dacc = fma((double)__ldg(x + row[r]), (double)sum[r], dacc);
            }
}

/* The dot's first level: each block's partial (its threads' terms in block_sum order) goes to
 * ws; dot_reduce_kernel, launched after, adds them. A second launch instead of the last block
 * finishing the sum: the per-block __threadfence and atomic counter that needs made the fused
 * SpMV + dot up to 1.6 times slower than the SpMV alone on small virtual blocks. */
static __device__ void block_partial(const mpcgi_adaptive_launch &L, double *ws, double dacc,
                                     double *sh)
{
    double p = block_sum(dacc, sh);
    if (threadIdx.x == 0) ws[L.long_blocks + L.n_long + blockIdx.x] = p;
}

/* The dot: the `parts` block partials, then the long rows' terms, in a fixed order: thread t
 * adds partials t, t + DOT_THREADS, ... in four interleaved running sums (independent loads in
 * flight) added in order, then block_sum. One block. */
static __global__ void __launch_bounds__(DOT_THREADS)
    dot_reduce_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const double *ws, int parts,
                      double *dot, const int *skip)
{
    __shared__ double sh[DOT_THREADS / 32];
    if (skip && *skip) return;
    const double *dlong = ws + L.long_blocks, *part = dlong + L.n_long;
    double a[4] = {0, 0, 0, 0};
    int b = threadIdx.x;
    for (; b + 3 * DOT_THREADS < parts; b += 4 * DOT_THREADS)
#pragma unroll
        for (int u = 0; u < 4; u++)
            a[u] += part[b + u * DOT_THREADS];
    for (int u = 0; b < parts; b += DOT_THREADS, u++)
        a[u] += part[b];
    double t = (a[0] + a[1]) + (a[2] + a[3]);
    for (int j = threadIdx.x; j < L.n_long; j += DOT_THREADS)
        t += dlong[j];
    t = block_sum(t, sh);
    if (threadIdx.x == 0) *dot = t;
}

/* Virtual block v of the binned path: its bin (uniform per block, so the switch does not
 * diverge), then bin B's rows with NT = 64 >> B lanes each. */
template <int B, int R, bool STREAM, bool DOT, typename T>
static __device__ __forceinline__ void
bin_vblock(const mpcgi_adaptive_launch &L, int64_t v, const T *__restrict__ val,
           const T *__restrict__ x, T *__restrict__ y, double &dacc)
{
    constexpr int NT = 64 >> B;
    const int64_t per = (int64_t)R * (blockDim.x / NT);
    vblock_rows<NT, R, STREAM, DOT, true>(L, (v - L.vb_start[B - 1]) * per, L.row_count[B],
                                          L.rows + L.row_start[B], val, x, y, dacc);
}

template <int R, bool STREAM, bool DOT, typename T>
static __device__ __forceinline__ void
binned_vblock(const mpcgi_adaptive_launch &L, int64_t v, const T *__restrict__ val,
              const T *__restrict__ x, T *__restrict__ y, double &dacc)
{
    int b = 1 + (v >= L.vb_start[1]) + (v >= L.vb_start[2]) + (v >= L.vb_start[3]) +
            (v >= L.vb_start[4]) + (v >= L.vb_start[5]);
    switch (b) {
    case 1: bin_vblock<1, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    case 2: bin_vblock<2, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    case 3: bin_vblock<3, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    case 4: bin_vblock<4, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    case 5: bin_vblock<5, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    default: bin_vblock<6, R, STREAM, DOT>(L, v, val, x, y, dacc); break;
    }
}

/* The one SpMV kernel. Virtual blocks [0, long_blocks) are long-row chunks; the others hold
 * rows: with NT > 0 consecutive rows, NT lanes each (the seed's kernel: the uniform and split
 * paths), with NT = 0 the bins of the row list (binned path). Blocks stride over the virtual
 * blocks. */
template <int NT, int R, bool STREAM, bool DOT, typename T>
static __global__ void __launch_bounds__(MPCGI_ADAPTIVE_MAX_BLOCK)
    spmv_kernel(const __grid_constant__ mpcgi_adaptive_launch L, const T *__restrict__ val,
                const T *__restrict__ x, T *__restrict__ y, double *ws, double *dot,
                const int *skip)
{
    __shared__ T sh[WARPS_MAX];
    __shared__ double shd[WARPS_MAX];
    if (DOT && skip && *skip) return;
    double dacc = 0;
    for (int64_t v = blockIdx.x; v < L.vblocks; v += gridDim.x) {
        if (v < L.long_blocks) {
            long_chunk<STREAM, DOT>(L, v, val, x, y, (T *)ws, ws + L.long_blocks, sh);
        } else if constexpr (NT > 0) {
            const int64_t per = (int64_t)R * (blockDim.x / NT);
            vblock_rows<NT, R, STREAM, DOT, false>(L, (v - L.long_blocks) * per, L.n, nullptr, val,
                                                   x, y, dacc);
        } else {
            binned_vblock<R, STREAM, DOT>(L, v, val, x, y, dacc);
        }
    }
    if constexpr (DOT) block_partial(L, ws, dacc, shd);
}

/* ---------------------------------------------------------------- launchers of the SpMV */

/* Every SpMV kernel of value type T has this signature. */
template <typename T>
using kernel_fn = void (*)(const mpcgi_adaptive_launch, const T *, const T *, T *, double *,
                           double *, const int *);

template <int R, bool STREAM, bool DOT, typename T>
static kernel_fn<T> pick_path(const mpcgi_adaptive_launch *L)
{
    if (L->path == MPCGI_ADAPTIVE_BINNED) return spmv_kernel<0, R, STREAM, DOT, T>;
    switch (L->nt) {
    case 1: return spmv_kernel<1, R, STREAM, DOT, T>;
    case 2: return spmv_kernel<2, R, STREAM, DOT, T>;
    case 4: return spmv_kernel<4, R, STREAM, DOT, T>;
    case 8: return spmv_kernel<8, R, STREAM, DOT, T>;
    case 16: return spmv_kernel<16, R, STREAM, DOT, T>;
    default: return spmv_kernel<32, R, STREAM, DOT, T>;
    }
}

template <bool STREAM, bool DOT, typename T>
static kernel_fn<T> pick_rows(const mpcgi_adaptive_launch *L)
{
    switch (L->rows_per_group) {
    case 1: return pick_path<1, STREAM, DOT, T>(L);
    case 2: return pick_path<2, STREAM, DOT, T>(L);
    default: return pick_path<4, STREAM, DOT, T>(L);
    }
}

/* The kernel of a plan. */
template <bool DOT, typename T> static kernel_fn<T> pick(const mpcgi_adaptive_launch *L)
{
    return L->stream_loads ? pick_rows<true, DOT, T>(L) : pick_rows<false, DOT, T>(L);
}

/* Blocks of one launch: apply one per virtual block (or L->grid, striding), apply_dot the
 * plan's fixed dot grid (at most one per virtual block; its partials are summed in a fixed
 * order). */
template <bool DOT, typename T>
static int spmv(void *stream, const mpcgi_adaptive_launch *L, const T *val, const T *x, T *y,
                double *ws, double *dot, const int *skip)
{
    int64_t grid = DOT ? L->dot_grid : L->grid > 0 ? L->grid : L->vblocks;
    if (grid > L->vblocks) grid = L->vblocks;
    if (grid > INT_MAX) grid = INT_MAX;
    if (grid < 1) {
        if (!DOT) return (int)cudaSuccess; /* no rows */
        grid = 1;                          /* still writes dot = 0 */
    }
    pick<DOT, T>(L)<<<(unsigned)grid, L->block, 0, (cudaStream_t)stream>>>(*L, val, x, y, ws, dot,
                                                                           skip);
    if constexpr (DOT)
        dot_reduce_kernel<<<1, DOT_THREADS, 0, (cudaStream_t)stream>>>(*L, ws, (int)grid, dot,
                                                                       skip);
    return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------- setup: binning on the GPU */

/* Per tile of MPCGI_ADAPTIVE_TILE rows: narrow the row pointers, count the rows of each bin and
 * the chunks of the long rows, find the longest row. Integer shared atomics: order-free. */
static __global__ void __launch_bounds__(SETUP_THREADS)
    setup_count_kernel(int64_t n, int64_t ntiles, const int64_t *__restrict__ rp64,
                       int32_t *__restrict__ rp32, const mpcgi_adaptive_binning bin,
                       int32_t *__restrict__ counts, int32_t *__restrict__ tile_max)
{
    __shared__ int c[MPCGI_ADAPTIVE_QUANTITIES];
    __shared__ int longest;
    if (threadIdx.x < MPCGI_ADAPTIVE_QUANTITIES) c[threadIdx.x] = 0;
    if (threadIdx.x == 0) longest = 0;
    __syncthreads();
    const int64_t base = (int64_t)blockIdx.x * MPCGI_ADAPTIVE_TILE;
    for (int i = threadIdx.x; i < MPCGI_ADAPTIVE_TILE; i += SETUP_THREADS) {
        const int64_t r = base + i;
        if (r > n) break;
        const int64_t a = rp64[r];
        rp32[r] = (int32_t)a; /* a <= nnz < 2^31, checked by analyze */
        if (r == n) break;
        const int64_t len = rp64[r + 1] - a;
        const int b = mpcgi_adaptive_bin_of(len, bin);
        atomicAdd(&c[b], 1);
        if (b == MPCGI_ADAPTIVE_LONG) {
            atomicAdd(&c[MPCGI_ADAPTIVE_CHUNKS], (int)mpcgi_adaptive_chunks(len, bin));
            atomicAdd(&c[MPCGI_ADAPTIVE_LONG_NNZ], (int)len);
        }
        atomicMax(&longest, (int)len);
    }
    __syncthreads();
    if (threadIdx.x < MPCGI_ADAPTIVE_QUANTITIES)
        counts[threadIdx.x * ntiles + blockIdx.x] = c[threadIdx.x];
    if (threadIdx.x == 0) tile_max[blockIdx.x] = longest;
}

/* Inclusive prefix sum of v over the block (Hillis-Steele in shared memory). */
static __device__ int block_inclusive_scan(int v, int *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int o = 1; o < (int)blockDim.x; o <<= 1) {
        int u = threadIdx.x >= (unsigned)o ? sh[threadIdx.x - o] : 0;
        __syncthreads();
        sh[threadIdx.x] += u;
        __syncthreads();
    }
    return sh[threadIdx.x];
}

/* One block: each quantity's tile counts become exclusive prefixes; totals of each, then the
 * longest row. Thread t owns a contiguous run of tiles. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    setup_scan_kernel(int64_t ntiles, int32_t *__restrict__ counts,
                      const int32_t *__restrict__ tile_max, int32_t *__restrict__ totals)
{
    __shared__ int sh[SCAN_THREADS];
    const int64_t per = (ntiles + SCAN_THREADS - 1) / SCAN_THREADS;
    const int64_t lo = threadIdx.x * per < ntiles ? threadIdx.x * per : ntiles;
    const int64_t hi = lo + per < ntiles ? lo + per : ntiles;
    for (int q = 0; q < MPCGI_ADAPTIVE_QUANTITIES; q++) {
        int32_t *cq = counts + q * ntiles;
        int s = 0;
        for (int64_t t = lo; t < hi; t++)
            s += cq[t];
        int run = block_inclusive_scan(s, sh) - s;
        for (int64_t t = lo; t < hi; t++) {
            int c = cq[t];
            cq[t] = run;
            run += c;
        }
        if (threadIdx.x == SCAN_THREADS - 1) totals[q] = run;
        __syncthreads();
    }
    int m = 0;
    for (int64_t t = lo; t < hi; t++)
        m = tile_max[t] > m ? tile_max[t] : m;
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int w = SCAN_THREADS / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w && sh[threadIdx.x + w] > sh[threadIdx.x])
            sh[threadIdx.x] = sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) totals[MPCGI_ADAPTIVE_QUANTITIES] = sh[0];
}

/* Where each bin's rows start in the row list (passed by value). */
struct regions {
    int64_t start[MPCGI_ADAPTIVE_BINS];
};

/* Per tile, in rounds of SETUP_THREADS rows: each row's place in its bin (stable: ranks by
 * ballot within the warp, warp counts added in warp order, tiles in tile order), and for a long
 * row the index of its first chunk. */
static __global__ void __launch_bounds__(SETUP_THREADS)
    setup_scatter_kernel(int64_t n, int64_t ntiles, const int32_t *__restrict__ rp32,
                         const mpcgi_adaptive_binning bin, const int32_t *__restrict__ counts,
                         const __grid_constant__ regions reg, int long_only,
                         int32_t *__restrict__ rows, int32_t *__restrict__ long_start)
{
    __shared__ int wcount[SETUP_WARPS][MPCGI_ADAPTIVE_BINS]; /* rows per bin of each warp */
    __shared__ int wchunks[SETUP_WARPS];                     /* long-row chunks of each warp */
    __shared__ int64_t base[MPCGI_ADAPTIVE_BINS];            /* next place of each bin */
    __shared__ int chunk_base;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x < MPCGI_ADAPTIVE_BINS)
        base[threadIdx.x] = reg.start[threadIdx.x] + counts[threadIdx.x * ntiles + blockIdx.x];
    if (threadIdx.x == 0) chunk_base = counts[MPCGI_ADAPTIVE_CHUNKS * ntiles + blockIdx.x];
    for (int round = 0; round < MPCGI_ADAPTIVE_TILE / SETUP_THREADS; round++) {
        const int64_t r =
            (int64_t)blockIdx.x * MPCGI_ADAPTIVE_TILE + round * SETUP_THREADS + threadIdx.x;
        const bool ok = r < n;
        const int64_t len = ok ? (int64_t)rp32[r + 1] - rp32[r] : 0;
        const int b = ok ? mpcgi_adaptive_bin_of(len, bin) : MPCGI_ADAPTIVE_BINS;
        const int ch = b == MPCGI_ADAPTIVE_LONG ? (int)mpcgi_adaptive_chunks(len, bin) : 0;
        const unsigned same = __match_any_sync(FULL_MASK, b);
        const int rank = __popc(same & ((1u << lane) - 1));
        int incl = ch; /* chunks of this warp's long rows up to this lane */
        for (int o = 1; o < 32; o <<= 1) {
            int u = __shfl_up_sync(FULL_MASK, incl, o);
            if (lane >= o) incl += u;
        }
        if (threadIdx.x < SETUP_WARPS * MPCGI_ADAPTIVE_BINS) (&wcount[0][0])[threadIdx.x] = 0;
        __syncthreads();
        if (ok && rank == 0) wcount[warp][b] = __popc(same);
        if (lane == 31) wchunks[warp] = incl;
        __syncthreads();
        if (ok && (b == MPCGI_ADAPTIVE_LONG || !long_only)) {
            int64_t pos = base[b] + rank;
            for (int w = 0; w < warp; w++)
                pos += wcount[w][b];
            rows[pos] = (int32_t)r;
            if (b == MPCGI_ADAPTIVE_LONG) { /* the long region starts at 0 */
                int c = chunk_base + incl - ch;
                for (int w = 0; w < warp; w++)
                    c += wchunks[w];
                long_start[pos] = c;
            }
        }
        __syncthreads();
        if (threadIdx.x < MPCGI_ADAPTIVE_BINS)
            for (int w = 0; w < SETUP_WARPS; w++)
                base[threadIdx.x] += wcount[w][threadIdx.x];
        if (threadIdx.x == 0)
            for (int w = 0; w < SETUP_WARPS; w++)
                chunk_base += wchunks[w];
        __syncthreads();
    }
}

static __global__ void to_f32_kernel(int64_t nnz, const double *__restrict__ v64,
                                     float *__restrict__ v32)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
        v32[k] = (float)v64[k];
}

static int64_t tiles_of(int64_t n)
{
    return n / MPCGI_ADAPTIVE_TILE + 1;
} /* rows 0 ... n */

extern "C" {

int mpcgi_adaptive_setup_count(void *stream, int64_t n, const int64_t *row_ptr64,
                               int32_t *row_ptr32, const mpcgi_adaptive_binning *bin,
                               int32_t *counts, int32_t *tile_max)
{
    int64_t ntiles = tiles_of(n);
    setup_count_kernel<<<(unsigned)ntiles, SETUP_THREADS, 0, (cudaStream_t)stream>>>(
        n, ntiles, row_ptr64, row_ptr32, *bin, counts, tile_max);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_setup_scan(void *stream, int64_t ntiles, int32_t *counts,
                              const int32_t *tile_max, int32_t *totals)
{
    setup_scan_kernel<<<1, SCAN_THREADS, 0, (cudaStream_t)stream>>>(ntiles, counts, tile_max,
                                                                    totals);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_setup_scatter(void *stream, int64_t n, const int32_t *row_ptr32,
                                 const mpcgi_adaptive_binning *bin, const int32_t *counts,
                                 const int64_t *region, int long_only, int32_t *rows,
                                 int32_t *long_start)
{
    regions reg;
    for (int q = 0; q < MPCGI_ADAPTIVE_BINS; q++)
        reg.start[q] = region[q];
    int64_t ntiles = tiles_of(n);
    setup_scatter_kernel<<<(unsigned)ntiles, SETUP_THREADS, 0, (cudaStream_t)stream>>>(
        n, ntiles, row_ptr32, *bin, counts, reg, long_only, rows, long_start);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_to_f32(void *stream, int64_t nnz, const double *v64, float *v32)
{
    int64_t blocks = (nnz + 255) / 256;
    if (blocks > 65536) blocks = 65536;
    if (blocks < 1) return (int)cudaSuccess;
    to_f32_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(nnz, v64, v32);
    return (int)cudaGetLastError();
}

int mpcgi_adaptive_spmv_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                            const double *x, double *y, double *ws)
{
    return spmv<false>(stream, L, val, x, y, ws, (double *)nullptr, (const int *)nullptr);
}

int mpcgi_adaptive_spmv_f32(void *stream, const mpcgi_adaptive_launch *L, const float *val,
                            const float *x, float *y, double *ws)
{
    return spmv<false>(stream, L, val, x, y, ws, (double *)nullptr, (const int *)nullptr);
}

int mpcgi_adaptive_spmv_dot_f64(void *stream, const mpcgi_adaptive_launch *L, const double *val,
                                const double *x, double *y, double *ws, double *dot,
                                const int *skip)
{
    return spmv<true>(stream, L, val, x, y, ws, dot, skip);
}

} /* extern "C" */
