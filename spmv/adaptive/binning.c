/* spmv/adaptive/binning.c: the adaptive backend's row binning, on the host and on the GPU */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "core/timer.h"
#include "spmv/adaptive/plan.h"

/* ---------------------------------------------------------------- CPU plan */

/* The binning's totals on the host (those of setup_count_kernel). */
static void host_counts(const mpcgi_csr *A, mpcgi_adaptive_binning bin, int64_t *counts,
                        int64_t *max_len)
{
    memset(counts, 0, MPCGI_ADAPTIVE_QUANTITIES * sizeof *counts);
    *max_len = 0;
    for (int64_t r = 0; r < A->n; r++) {
        int64_t len = A->row_ptr[r + 1] - A->row_ptr[r];
        int b = mpcgi_adaptive_bin_of(len, bin);
        counts[b]++;
        if (b == MPCGI_ADAPTIVE_LONG) {
            counts[MPCGI_ADAPTIVE_CHUNKS] += mpcgi_adaptive_chunks(len, bin);
            counts[MPCGI_ADAPTIVE_LONG_NNZ] += len;
        }
        if (len > *max_len) *max_len = len;
    }
}

/* Whether the plan is wide: some |col - row| exceeds both INT16_MAX and n / 4. */
static int host_wide(const mpcgi_csr *A)
{
    int64_t span = 0;
    for (int64_t r = 0; r < A->n; r++)
        if (A->row_ptr[r + 1] > A->row_ptr[r]) {
            int64_t off = mpcgi_adaptive_row_span(r, A->col_idx[A->row_ptr[r]],
                                                  A->col_idx[A->row_ptr[r + 1] - 1]);
            if (off > span) span = off;
        }
    return span > INT16_MAX && span > A->n / 4;
}

/* The row list (rows by bin; split and tiles: the long rows) and the long rows' chunk offsets. */
static mpcg_status host_list(mpcg_context *ctx, adaptive_plan *p)
{
    const mpcgi_csr *A = p->A;
    const mpcgi_adaptive_launch *L = &p->L;
    adaptive_host *h = &p->h;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)mpcgi_adaptive_list_length(L),
                                           sizeof *h->rows, &h->rows));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)L->n_long + 1, sizeof *h->long_start,
                                           &h->long_start));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)L->long_blocks, sizeof *h->part, &h->part));
    int64_t next[MPCGI_ADAPTIVE_BINS];
    int32_t chunks = 0;
    for (int b = 0; b < MPCGI_ADAPTIVE_BINS; b++)
        next[b] = L->row_start[b];
    for (int64_t r = 0; r < A->n; r++) {
        int64_t len = A->row_ptr[r + 1] - A->row_ptr[r];
        int b = mpcgi_adaptive_bin_of(len, p->par.bin);
        if (b == MPCGI_ADAPTIVE_LONG) {
            h->long_start[next[b]] = chunks;
            chunks += (int32_t)mpcgi_adaptive_chunks(len, p->par.bin);
        } else if (L->path != MPCGI_ADAPTIVE_BINNED) {
            continue; /* the list holds the long rows only */
        }
        h->rows[next[b]++] = (int32_t)r;
    }
    h->long_start[L->n_long] = chunks;
    return MPCG_SUCCESS;
}

/* The CPU plan: statistics, layout, row list and chunk offsets on the host. */
mpcg_status mpcgi_adaptive_host_binning(mpcg_context *ctx, adaptive_plan *p)
{
    const mpcgi_csr *A = p->A;
    int64_t counts[MPCGI_ADAPTIVE_QUANTITIES], max_len;
    host_counts(A, p->par.bin, counts, &max_len);
    p->st.wide = host_wide(A);
    if (mpcgi_adaptive_want_tiles(p, max_len)) { /* its long rows */
        MPCG_CHECK(ctx, mpcgi_adaptive_tiling_start(ctx, p, DEFAULT_TILE_WAVE));
        host_counts(A, p->par.bin, counts, &max_len);
    }
    MPCG_CHECK(ctx, mpcgi_adaptive_plan_layout(ctx, p, counts, max_len));
    if (p->L.path == MPCGI_ADAPTIVE_UNIFORM) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, host_list(ctx, p));
    if (p->L.path == MPCGI_ADAPTIVE_TILES) MPCG_CHECK(ctx, mpcgi_adaptive_tiling_host(ctx, p));
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- device plan */

/* The 16-bit column offsets col - row where all of them fit (span 0, from the count): they
 * replace the 32-bit columns on the device, 2 bytes less per nonzero that every SpMV reads (10
 * instead of 12 per fp64 nonzero), unless adaptive.index=32 or the tiles path (which reads
 * 32-bit columns) was taken. The allocation of the offsets, their kernel and the release of the
 * 32-bit columns, timed on the host into p->ms.columns_ms (0 where nothing is narrowed). */
static mpcg_status columns16(mpcg_context *ctx, adaptive_plan *p, int32_t span)
{
    mpcg_status st = MPCG_SUCCESS;
    if (p->A->nnz == 0 || span || p->par.index32 || p->L.path == MPCGI_ADAPTIVE_TILES)
        return MPCG_SUCCESS;
    double t0 = mpcgi_wtime();
    if (p->d.col16_room) /* a small plan: its block has the room, and keeps the 32-bit columns */
        p->d.col16 = p->d.col16_room;
    else
        MPCG_TRY(ctx, st,
                 mpcgi_device_alloc(ctx, (size_t)p->A->nnz * sizeof(int16_t), &p->d.col16));
    MPCG_CUDA_GOTO(ctx, st,
                   (cudaError_t)mpcgi_adaptive_setup_col16(mpcgi_device_stream(ctx), p->A->n,
                                                           p->d.row_ptr, p->d.col_idx,
                                                           p->d.col16));
    if (!p->d.block) {
        MPCG_TRY(ctx, st, mpcgi_device_sync(ctx)); /* the offsets are written: the columns go */
        mpcgi_device_free(ctx, p->d.col_idx);
    }
    p->d.col_idx = NULL;
    p->ms.columns_ms = (mpcgi_wtime() - t0) * 1e3;
done:
    if (st != MPCG_SUCCESS) {
        if (!p->d.block) mpcgi_device_free(ctx, p->d.col16);
        p->d.col16 = NULL;
    }
    return st;
}

/* The device binning's scratch: the 64-bit row pointers, the tiles' counts and maxima, the
 * totals (the caller's scratch, tmp). */
typedef struct binning_scratch {
    char *tmp;
    int64_t *rp64;
    int32_t *counts, *tile_max, *d_totals;
    int32_t totals[MPCGI_ADAPTIVE_QUANTITIES + 2]; /* on the host; the ticket stays on the device */
} binning_scratch;

/* The count (again with the tiles' long rows where the tiles path is taken), its totals to the
 * host and the layout from them. */
static mpcg_status device_count(mpcg_context *ctx, adaptive_plan *p, binning_scratch *b)
{
    void *s = mpcgi_device_stream(ctx);
    const int64_t n = p->A->n;
    int64_t c64[MPCGI_ADAPTIVE_QUANTITIES];
    for (int pass = 0; pass < 2; pass++) {
        MPCG_CUDA(ctx, (cudaError_t)mpcgi_adaptive_setup_count(s, n, b->rp64, p->d.row_ptr,
                                                               p->d.col_idx, &p->par.bin,
                                                               b->counts, b->tile_max,
                                                               b->d_totals));
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, b->totals, b->d_totals, sizeof b->totals,
                                          MPCGI_D2H));
        if (pass == 1) break;
        p->st.wide = b->totals[MPCGI_ADAPTIVE_QUANTITIES + 1] > n / 4; /* 0 or above INT16_MAX */
        if (!mpcgi_adaptive_want_tiles(p, b->totals[MPCGI_ADAPTIVE_QUANTITIES]))
            break;
        MPCG_CHECK(ctx, mpcgi_adaptive_tiling_start(ctx, p,
                                                    mpcgi_gpu_of(ctx)->props.multiProcessorCount));
    }
    for (int q = 0; q < MPCGI_ADAPTIVE_QUANTITIES; q++)
        c64[q] = b->totals[q];
    MPCG_CHECK(ctx, mpcgi_adaptive_plan_layout(ctx, p, c64, b->totals[MPCGI_ADAPTIVE_QUANTITIES]));
    return MPCG_SUCCESS;
}

/* The row list, then the chunk offsets (small plans: in the row pointers' block). */
static mpcg_status device_list(mpcg_context *ctx, adaptive_plan *p, const binning_scratch *b)
{
    const int64_t n = p->A->n;
    const mpcgi_adaptive_launch *L = &p->L;
    int64_t region[MPCGI_ADAPTIVE_BINS];
    const size_t len = (size_t)mpcgi_adaptive_list_length(L), need = len + (size_t)L->n_long + 1;
    if (need <= p->d.rows_reserved)
        p->d.rows = p->d.row_ptr + n + 1;
    else
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, need * sizeof *p->d.rows, &p->d.rows));
    p->d.long_start = p->d.rows + len;
    for (int q = 0; q < MPCGI_ADAPTIVE_BINS; q++)
        region[q] = L->row_start[q];
    if (len > 0)
        MPCG_CUDA(ctx, (cudaError_t)mpcgi_adaptive_setup_scatter(
                           mpcgi_device_stream(ctx), n, p->d.row_ptr, &p->par.bin, b->counts,
                           b->d_totals, region, L->path != MPCGI_ADAPTIVE_BINNED, p->d.rows,
                           p->d.long_start));
    else /* split without long rows: nothing to place, no chunks */
        MPCG_CUDA(ctx, cudaMemsetAsync(p->d.long_start, 0, sizeof(int32_t),
                                       mpcgi_gpu_of(ctx)->stream));
    return MPCG_SUCCESS;
}

/* Milliseconds between two recorded events, once the second is done. */
static mpcg_status elapsed(mpcg_context *ctx, cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float f = 0;
    MPCG_CUDA(ctx, cudaEventSynchronize(b));
    MPCG_CUDA(ctx, cudaEventElapsedTime(&f, a, b));
    *ms = f;
    return MPCG_SUCCESS;
}

/* The scratch of the device binning of n rows: the 64-bit row pointers, the tiles' counts and
 * maxima, the totals. */
size_t mpcgi_adaptive_binning_bytes(int64_t n)
{
    const int64_t ntiles = mpcgi_adaptive_setup_tiles(n);
    return ((size_t)n + 1) * sizeof(int64_t) +
           (size_t)ntiles * (MPCGI_ADAPTIVE_QUANTITIES + 2) * sizeof(int32_t) +
           MPCGI_ADAPTIVE_TOTALS * sizeof(int32_t);
}

/* The binning on the GPU: one launch counts, finds the longest row and the span of the columns
 * (whether the plan is wide) and scans; one copy of the totals to the host, the decision there,
 * then the scatter into the row list, which also writes the list's last chunk offset. Timed with
 * events from the count to the end, the copies, the decision and the row list's allocation
 * (small plans: none, ROWS_RESERVE) included. After it, each timed apart: the tiles' layout on
 * the tiles path, the 16-bit columns (columns16). `scratch`: mpcgi_adaptive_binning_bytes(n)
 * bytes of the caller's, free once the work queued here is done. */
mpcg_status mpcgi_adaptive_device_binning(mpcg_context *ctx, adaptive_plan *p, void *scratch)
{
    mpcg_status st = MPCG_SUCCESS;
    cudaStream_t cs = mpcgi_gpu_of(ctx)->stream;
    const int64_t n = p->A->n, ntiles = mpcgi_adaptive_setup_tiles(n);
    binning_scratch b = {0};
    cudaEvent_t t0 = NULL, t1 = NULL, t2 = NULL;
    const size_t rp_bytes = ((size_t)n + 1) * sizeof *b.rp64;
    const size_t totb = MPCGI_ADAPTIVE_TOTALS * sizeof *b.d_totals;
    b.tmp = scratch;
    b.rp64 = (int64_t *)b.tmp;
    b.counts = (int32_t *)(b.tmp + rp_bytes);
    b.tile_max = b.counts + (size_t)ntiles * MPCGI_ADAPTIVE_QUANTITIES;
    b.d_totals = b.tile_max + (size_t)ntiles * 2;
    MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, p->A, MPCGI_PART_ROW_PTR64, b.rp64));
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(b.d_totals, 0, totb, cs));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t0));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t1));
    MPCG_CUDA_GOTO(ctx, st, cudaEventCreate(&t2));
    MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t0, cs));
    MPCG_TRY(ctx, st, device_count(ctx, p, &b));
    if (p->L.path != MPCGI_ADAPTIVE_UNIFORM) MPCG_TRY(ctx, st, device_list(ctx, p, &b));
    MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t1, cs));
    if (p->L.path == MPCGI_ADAPTIVE_TILES) { /* timed apart, from the end of the binning */
        MPCG_TRY(ctx, st, mpcgi_adaptive_tiling_device(ctx, p));
        MPCG_CUDA_GOTO(ctx, st, cudaEventRecord(t2, cs));
        MPCG_TRY(ctx, st, elapsed(ctx, t1, t2, &p->ms.tiles_ms));
    }
    MPCG_TRY(ctx, st, elapsed(ctx, t0, t1, &p->ms.setup_ms));
    MPCG_TRY(ctx, st, columns16(ctx, p, b.totals[MPCGI_ADAPTIVE_QUANTITIES + 1]));
done:
    /* teardown cannot report failures: destroying valid events does not fail */
    if (t0) (void)cudaEventDestroy(t0);
    if (t1) (void)cudaEventDestroy(t1);
    if (t2) (void)cudaEventDestroy(t2);
    return st;
}
