/* spmv/adaptive/adaptive.c: the adaptive backend's ops table: CSR-vector with NT threads per row,
 * binning */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/context.h"
#include "core/csr_view.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "core/error.h"
#include "spmv/adaptive/adaptive.h"
#include "spmv/adaptive/plan.h"
#include "spmv/spmv.h"

/*
 * The plan (spmv/adaptive/plan.h) is built by analyze: the knobs from the options (rules.c),
 * then on a CPU context the binning and the layout on the host (binning.c, tiles_setup.c); on a
 * GPU context only a provisional layout, the binning runs at upload on the device. The kernels
 * are in spmv.cuh (SpMV), setup.cu (binning) and tiles.cu (the tiles' setup).
 */

static void adaptive_destroy(mpcg_context *ctx, void *impl)
{
    adaptive_plan *p = impl;
    mpcgi_host_free(p->h.rows);
    mpcgi_host_free(p->h.long_start);
    mpcgi_host_free(p->h.part);
    if (!p->d.row_ptr || p->d.rows != p->d.row_ptr + p->A->n + 1) /* not in its block */
        mpcgi_device_free(ctx, p->d.rows);
    if (p->d.block) { /* every array below */
        mpcgi_device_free(ctx, p->d.block);
    } else {
        mpcgi_device_free(ctx, p->d.row_ptr);
        mpcgi_device_free(ctx, p->d.col_idx);
        mpcgi_device_free(ctx, p->d.col16);
        mpcgi_device_free(ctx, p->d.counters);
        mpcgi_device_free(ctx, p->d.val64);
        mpcgi_device_free(ctx, p->d.val32);
        mpcgi_device_free(ctx, p->d.lo32);
    }
    mpcgi_device_free(ctx, p->d.row_ptr64);
    mpcgi_device_free(ctx, p->d.col_block);
    mpcgi_host_free(p->t.tile_row), mpcgi_host_free(p->t.tile_long), mpcgi_host_free(p->t.tile_off);
    mpcgi_host_free(p->t.slot_col), mpcgi_host_free(p->t.slot_row), mpcgi_host_free(p->t.slot_perm);
    mpcgi_device_free(ctx, p->t.d_tile_off); /* with d_tile_row and d_tile_long */
    mpcgi_device_free(ctx, p->t.d_slots);
    mpcgi_host_free(p);
}

/* On a GPU context the statistics and the row list are built at upload, on the device; the
 * sizes reported here are the uniform path's and are corrected there. A CPU plan reads the
 * matrix's fp32 values (A->val32) where it has fp32. */
static mpcg_status adaptive_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                    const mpcgi_options *opts, void **impl,
                                    mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    adaptive_plan *p = NULL;
    MPCG_ENSURE(ctx, A->nnz <= (int64_t)INT32_MAX - MPCGI_ADAPTIVE_MAX_BLOCK,
                MPCG_ERR_NOT_SUPPORTED,
                "backend adaptive: %lld nonzeros exceed its 32-bit indices (at most %d)",
                (long long)A->nnz, INT32_MAX - MPCGI_ADAPTIVE_MAX_BLOCK);
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->use64 = (precisions & MPCG_CAP_FP64) != 0;
    p->mixed = (precisions & MPCGI_PREC_MIXED_STORE) != 0;
    p->use32 = (precisions & MPCG_CAP_FP32) != 0 || p->mixed;
    MPCG_TRY(ctx, st, mpcgi_adaptive_params(ctx, opts, A->nnz, &p->par));
    if (ctx->kind == MPCG_DEVICE_CUDA) {
        int64_t counts[MPCGI_ADAPTIVE_QUANTITIES] = {0};
        /* provisional: no statistics yet */
        MPCG_TRY(ctx, st, mpcgi_adaptive_plan_layout(ctx, p, counts, 0));
    } else {
        MPCG_TRY(ctx, st, mpcgi_adaptive_host_binning(ctx, p));
    }
    sizes->bytes_matrix = mpcgi_adaptive_bytes_matrix(p);
    sizes->bytes_matrix32 = mpcgi_adaptive_bytes_matrix32(p);
    sizes->bytes_workspace = 0; /* device plans: set at upload */
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) adaptive_destroy(ctx, p);
    return st;
}

/* Device values of the precisions in use; fp32 converted on the device from the fp64 upload
 * (the same rounding as the host's (float)a: hi), the mixed storage's low halves copied. A plan
 * without fp64 values uploads them to `room` (nnz doubles of the caller's), or where that is NULL
 * to a temporary of its own. */
static mpcg_status upload_values(mpcg_context *ctx, adaptive_plan *p, double *room)
{
    mpcg_status st = MPCG_SUCCESS;
    void *s = mpcgi_device_stream(ctx);
    size_t nnz = (size_t)p->A->nnz;
    double *v64 = p->use64 ? p->d.val64 : room;
    if (!v64) MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, nnz * sizeof(double), &v64));
    MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, p->A, MPCGI_PART_VAL, v64));
    if (p->use32)
        MPCG_CUDA_GOTO(ctx, st,
                       (cudaError_t)mpcgi_adaptive_to_f32(s, (int64_t)nnz, v64, p->d.val32));
    if (p->mixed)
        MPCG_TRY(ctx, st, mpcgi_csr_to_device(ctx, p->A, MPCGI_PART_LO32, p->d.lo32));
    if (p->t.d_tval64) /* the tiles path: the values in slot order too */
        MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_values_f64(
                                    s, p->t.n_slots, p->t.d_slot_perm, v64, p->t.d_tval64));
    if (p->t.d_tval32)
        MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_adaptive_tiles_values_f32(
                                    s, p->t.n_slots, p->t.d_slot_perm, v64, p->t.d_tval32));
done:
    if (v64 != p->d.val64) {
        /* the conversion must finish before the temporary goes */
        if (st == MPCG_SUCCESS) st = mpcgi_device_sync(ctx);
        if (v64 != room) mpcgi_device_free(ctx, v64);
    }
    return st;
}

const char *mpcgi_adaptive_path_name(int path)
{
    return path == MPCGI_ADAPTIVE_UNIFORM ? "uniform"
           : path == MPCGI_ADAPTIVE_SPLIT ? "split"
           : path == MPCGI_ADAPTIVE_TILES ? "tiles"
                                          : "binned";
}

/* The plan's choices, one log line. */
static void log_plan(mpcg_context *ctx, const adaptive_plan *p)
{
    const mpcgi_adaptive_launch *L = &p->L;
    const int64_t *b = p->st.bin_rows;
    mpcgi_log(ctx, MPCG_LOG_INFO,
              "adaptive: n %lld, nnz %lld, longest row %lld: %s (NT %d, R %d, %d-bit columns), "
              "rows per bin long %lld (%d chunks), NT32 %lld, NT16 %lld, NT8 %lld, NT4 %lld, "
              "NT2 %lld, NT1 %lld; binning on the GPU %.3f ms, tiles %.3f ms, "
              "16-bit columns %.3f ms",
              (long long)p->A->n, (long long)p->A->nnz, (long long)p->st.max_len,
              mpcgi_adaptive_path_name(L->path), L->nt, L->rows_per_group, p->d.col16 ? 16 : 32,
              (long long)b[0], L->long_blocks, (long long)b[1], (long long)b[2], (long long)b[3],
              (long long)b[4], (long long)b[5], (long long)b[6], p->ms.setup_ms, p->ms.tiles_ms,
              p->ms.columns_ms);
}

/* A region of `bytes` at *at of a block being laid out (base NULL: only counted), aligned as a
 * cudaMalloc is. */
static void *region(char *base, size_t *at, size_t bytes)
{
    void *r = base ? base + *at : NULL;
    *at += (bytes + 255) / 256 * 256;
    return r;
}

/* The row pointers (with the row list's room where rows_reserved), the 32-bit columns and the
 * values: a small plan's in one block (BLOCK_NNZ) with the counters' and the 16-bit columns'
 * rooms, a larger plan's each its own. */
static mpcg_status alloc_arrays(mpcg_context *ctx, adaptive_plan *p)
{
    const size_t n = (size_t)p->A->n, nnz = (size_t)p->A->nnz;
    /* 256 bytes more: the tiles' setup keeps its sort keys there before the values */
    const size_t rp = (n + 1 + p->d.rows_reserved) * sizeof(int32_t), ci = nnz * sizeof(int32_t),
                 v64 = nnz * sizeof(double) + 256, v32 = nnz * sizeof(float);
    if (p->A->n >= ROWS_RESERVE || p->A->nnz > BLOCK_NNZ) {
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, rp, &p->d.row_ptr));
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ci, &p->d.col_idx));
        if (p->use64) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, v64, &p->d.val64));
        if (p->use32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, v32, &p->d.val32));
        if (p->mixed) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, v32, &p->d.lo32));
        return MPCG_SUCCESS;
    }
    /* count, then place; a region of 0 bytes (no nonzeros) is there all the same: its pointer
     * says which arrays the plan has */
    for (int pass = 0; pass < 2; pass++) {
        char *b = p->d.block;
        size_t at = 0;
        p->d.row_ptr = region(b, &at, rp);
        p->d.counters_room = region(b, &at, (n + 1) * sizeof(int));
        p->d.col_idx = region(b, &at, ci);
        p->d.col16_room = region(b, &at, nnz * sizeof(int16_t));
        p->d.val64 = p->use64 ? region(b, &at, v64) : NULL;
        p->d.val32 = p->use32 ? region(b, &at, v32) : NULL;
        p->d.lo32 = p->mixed ? region(b, &at, v32) : NULL;
        if (pass == 0) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, at, &p->d.block));
    }
    return MPCG_SUCCESS;
}

/* The binning's scratch, which then serves a plan without fp64 values as the room of their
 * upload (the binning is done with it by then: one stream). */
static size_t scratch_bytes(const adaptive_plan *p)
{
    const size_t b = mpcgi_adaptive_binning_bytes(p->A->n);
    const size_t v = p->use64 ? 0 : (size_t)p->A->nnz * sizeof(double);
    return b > v ? b : v;
}

/* On failure the dispatcher destroys the plan, which releases what was created here. */
static mpcg_status adaptive_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    adaptive_plan *p = impl;
    const mpcgi_csr *A = p->A;
    mpcgi_adaptive_launch *L = &p->L;
    size_t n = (size_t)A->n;
    void *scratch = NULL;
    mpcg_status st = MPCG_SUCCESS;
    /* small plans: the row pointers and room for any row list in one allocation (below) */
    p->d.rows_reserved = A->n < ROWS_RESERVE ? 2 * n + 1 : 0;
    MPCG_CHECK(ctx, alloc_arrays(ctx, p));
    MPCG_CHECK(ctx, mpcgi_csr_to_device(ctx, A, MPCGI_PART_COL, p->d.col_idx));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, scratch_bytes(p), &scratch));
    MPCG_TRY(ctx, st, mpcgi_adaptive_device_binning(ctx, p, scratch));
    /* after the binning: the tiles' slot order */
    MPCG_TRY(ctx, st, upload_values(ctx, p, p->use64 ? NULL : scratch));
done:
    mpcgi_device_free(ctx, scratch);
    if (st != MPCG_SUCCESS) return st;
    /* the dot's grid: one block per virtual block like apply (a grid-stride loop over a wave
     * of resident blocks is slower: docs/backends/adaptive.md, "`apply_dot` (fused SpMV + dot,
     * fp64)"), at most DOT_GRID_MAX; fixed per plan, so the dot's order is too */
    L->dot_grid = L->path == MPCGI_ADAPTIVE_TILES ? L->tiles /* a partial per warp of each */
                  : L->staged_rows > 0 ? (int)(L->vblocks < 1 ? 1 : L->vblocks) /* a block a tile */
                  : p->par.dot_grid                   ? p->par.dot_grid
                  : L->vblocks < 1                    ? 1
                  : L->vblocks > DOT_GRID_MAX         ? DOT_GRID_MAX
                                                      : (int)L->vblocks;
    size_t counters = ((size_t)L->n_long + 1) * sizeof(int);
    if (p->d.counters_room) /* a small plan: n_long <= n */
        p->d.counters = p->d.counters_room;
    else
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, counters, &p->d.counters));
    MPCG_CUDA(ctx, cudaMemsetAsync(p->d.counters, 0, counters, mpcgi_gpu_of(ctx)->stream));
    L->row_ptr = p->d.row_ptr;
    L->col_idx = p->d.col_idx; /* one of the two, the other NULL */
    L->col16 = p->d.col16;
    L->rows = p->d.rows;
    L->long_start = p->d.long_start;
    L->counters = p->d.counters;
    sizes->bytes_matrix = mpcgi_adaptive_bytes_matrix(p);
    sizes->bytes_matrix32 = mpcgi_adaptive_bytes_matrix32(p);
    sizes->bytes_workspace = (size_t)mpcgi_adaptive_ws_doubles(L) * sizeof(double);
    log_plan(ctx, p);
    return MPCG_SUCCESS;
}

/* A CPU plan reads A's values (and A->val32) as they are; a device plan copies them again. */
static mpcg_status adaptive_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    adaptive_plan *p = impl;
    p->A = A;
    if (p->d.row_ptr) MPCG_CHECK(ctx, upload_values(ctx, p, NULL)); /* uploaded: a device plan */
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                                  void *y, void *ws)
{
    const adaptive_plan *p = impl;
    void *s = mpcgi_device_stream(ctx);
    mpcgi_adaptive_launch l32;
    if (prec == MPCG_PRECISION_FP64) {
        MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_f64(s, &p->L, p->d.val64, x, y, ws));
    } else if (prec == MPCG_PRECISION_MIXED) {
        MPCG_CHECK(ctx, mpcgi_adaptive_mixed_supported(ctx, p));
        MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_mixed(s, &p->L, p->d.val32, p->d.lo32, x, y, ws));
    } else {
        mpcgi_adaptive_fp32_launch(p, &l32);
        MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_f32(s, &l32, p->d.val32, x, y, ws));
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_adaptive_mixed_supported(mpcg_context *ctx, const adaptive_plan *p)
{
    MPCG_ENSURE(ctx, p->L.path != MPCGI_ADAPTIVE_TILES, MPCG_ERR_NOT_SUPPORTED,
                "backend adaptive does not support precision mixed on its tiles path (this "
                "matrix's layout; adaptive.mode=binned avoids it)");
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply_dot(mpcg_context *ctx, void *impl, const double *x, double *y,
                                      double *dot_dev, const int *skip_dev, void *ws)
{
    const adaptive_plan *p = impl;
    MPCG_LAUNCH(ctx, mpcgi_adaptive_spmv_dot_f64(mpcgi_device_stream(ctx), &p->L, p->d.val64, x, y,
                                                 ws, dot_dev, skip_dev));
    return MPCG_SUCCESS;
}

static mpcg_status adaptive_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                       const void *x, void *y)
{
    return mpcgi_adaptive_emulate(ctx, impl, prec, x, y);
}

/* The row-sum functor of the solver's persistent loops (spmv/rows.h): uploaded plans off the
 * tiles path (the loops do not walk tiles), their fp64 and/or fp32 values (hi with mixed
 * storage); the fp32 row sums take the NT of the plan's fp32 launch, as its fp32 SpMV does. */
static mpcg_status adaptive_rows(const void *impl, mpcgi_rows *out)
{
    const adaptive_plan *p = impl;
    mpcgi_adaptive_launch l32;
    if (!p->d.row_ptr || (!p->d.val64 && !p->d.val32) || p->L.path == MPCGI_ADAPTIVE_TILES)
        return MPCG_ERR_NOT_SUPPORTED; /* a question, not an error */
    mpcgi_adaptive_fp32_launch(p, &l32);
    *out = (mpcgi_rows){
        .kind = MPCGI_ROWS_ADAPTIVE,
        .n = p->A->n,
        .nnz = p->A->nnz,
        .max_len = p->st.max_len,
        .row_ptr = p->d.row_ptr,
        .col_idx = p->d.col_idx,
        .col16 = p->d.col16,
        .val = p->d.val64,
        .val32 = p->d.val32,
        .layout = &p->L,
        .nt32 = l32.nt,
    };
    return MPCG_SUCCESS;
}

/* The storage, in words (cgsolve --info). */
static void adaptive_describe(const void *impl, char *buf, size_t size)
{
    const adaptive_plan *p = impl;
    const mpcgi_adaptive_launch *L = &p->L;
    const long long n_long = (long long)p->st.bin_rows[MPCGI_ADAPTIVE_LONG];
    const char *s = n_long == 1 ? "" : "s";
    if (L->path == MPCGI_ADAPTIVE_UNIFORM && L->staged_rows > 0) {
        snprintf(buf, size,
                 "CSR, uniform path staged: tiles of %d rows copied to shared memory, 1 thread "
                 "per row",
                 L->staged_rows);
    } else if (L->path == MPCGI_ADAPTIVE_UNIFORM) {
        snprintf(buf, size, "CSR, uniform path: %d thread%s per row", L->nt, L->nt == 1 ? "" : "s");
    } else if (L->path == MPCGI_ADAPTIVE_SPLIT) {
        snprintf(buf, size,
                 "CSR, split path: %lld long row%s in chunks of %d, the other rows "
                 "with %d thread%s each",
                 n_long, s, L->chunk, L->nt, L->nt == 1 ? "" : "s");
    } else if (L->path == MPCGI_ADAPTIVE_TILES) {
        snprintf(buf, size,
                 "CSR, tiles path: %d tiles of at most %d rows walked in column order "
                 "(%lld slots), %lld long row%s summed whole",
                 L->tiles, L->tile_max_rows, (long long)p->t.n_slots, n_long, s);
    } else {
        int len = snprintf(buf, size, "CSR, binned path: %lld long rows in chunks of %d", n_long,
                           L->chunk);
        for (int b = 1; b < MPCGI_ADAPTIVE_BINS && len > 0 && (size_t)len < size; b++)
            len += snprintf(buf + len, size - (size_t)len, ", %lld with %d",
                            (long long)p->st.bin_rows[b], mpcgi_adaptive_bin_nt(b));
        if (len > 0 && (size_t)len < size)
            snprintf(buf + len, size - (size_t)len, " threads per row");
    }
}

void mpcgi_spmv_adaptive_info(const void *impl, mpcgi_adaptive_info *info)
{
    const adaptive_plan *p = impl;
    const mpcgi_adaptive_launch *L = &p->L;
    const int dev = p->d.row_ptr != NULL;
    mpcgi_adaptive_launch l32;
    memset(info, 0, sizeof *info);
    info->path = L->path;
    info->nt = L->nt;
    mpcgi_adaptive_fp32_launch(p, &l32);
    info->nt_fp32 = l32.nt;
    info->rows_per_group = L->rows_per_group;
    info->staged_rows = L->staged_rows;
    info->list_length = mpcgi_adaptive_list_length(L);
    info->block = L->block;
    info->chunk = L->chunk;
    info->long_min = p->par.bin.long_min;
    memcpy(info->bin_rows, p->st.bin_rows, sizeof info->bin_rows);
    info->long_blocks = L->long_blocks;
    info->max_len = p->st.max_len;
    info->vblocks = L->vblocks;
    info->setup_ms = p->ms.setup_ms;
    info->tiles_ms = p->ms.tiles_ms;
    info->columns_ms = p->ms.columns_ms;
    info->rows = dev ? p->d.rows : p->h.rows;
    info->long_start = dev ? p->d.long_start : p->h.long_start;
    info->index_bits = p->d.col16 ? 16 : 32;
    info->tiles = L->tiles;
    info->tile_rows = L->tile_max_rows;
    info->slots = p->t.n_slots;
    info->slot_perm = dev ? p->t.d_slot_perm : p->t.slot_perm;
}

const struct mpcgi_spmv_ops mpcgi_spmv_adaptive = {
    .name = "adaptive",
    .description = "CSR-vector with NT threads per row, rows binned by length",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_MIXED_STORE | MPCG_CAP_NEEDS_DEVICE |
            MPCG_CAP_CPU_EMULATION | MPCG_CAP_DETERMINISTIC,
    .view = MPCGI_VIEW_DEVICE,
    .options = &mpcgi_adaptive_options,
    .analyze = adaptive_analyze,
    .update_values = adaptive_update_values,
    .upload = adaptive_upload,
    .apply = adaptive_apply,
    .apply_host = adaptive_apply_host,
    .destroy = adaptive_destroy,
    .describe = adaptive_describe,
    .apply_dot = adaptive_apply_dot,
    .rows = adaptive_rows,
    .apply_block = mpcgi_adaptive_apply_block,
    .apply_block_host = mpcgi_adaptive_apply_block_host,
};
