/* spmv/adaptive/impl.h: the CPU emulation of the adaptive kernels for one value type */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Included three times by spmv/adaptive/emulate.c, with EMU_T the compute type (double, float),
 * EMU_FMA its fused multiply-add (fma, fmaf), EMU_VALS the values' type (const EMU_T *, or the
 * mixed storage's emu_split), EMU_VAL(val, k) value k as EMU_T, and EMU(name) the suffixed
 * name; EMU_NO_TILES leaves out the tiles path (the mixed storage has none). Each function
 * repeats the operations of spmv/adaptive/spmv.cuh in the same order, so fp64, fp32 and mixed
 * results are bit-identical.
 */

/* The butterfly a_l <- a_l + a_(l xor s), s = nt/2 ... 1, seen from lane 0 (every lane ends with
 * the same value: addition is commutative). */
static EMU_T EMU(butterfly)(EMU_T *a, int nt)
{
    for (int s = nt / 2; s > 0; s /= 2)
        for (int l = 0; l < s; l++)
            a[l] = a[l] + a[l + s];
    return a[0];
}

/* the row sums of spmv/adaptive/device.cuh: nt lanes stride over [start, end), then the butterfly.
 * */
static EMU_T EMU(row_sum)(const int32_t *col, EMU_VALS val, const EMU_T *x, int64_t start,
                          int64_t end, int nt)
{
    EMU_T a[32];
    for (int l = 0; l < nt; l++) {
        EMU_T acc = 0;
        for (int64_t k = start + l; k < end; k += nt)
            acc = EMU_FMA(EMU_VAL(val, k), x[col[k]], acc);
        a[l] = acc;
    }
    return EMU(butterfly)(a, nt);
}

/* One long-row chunk [start, end) on a block of `block` threads: thread t strides by block, a
 * butterfly per warp, then the warp sums in warp order (block_sum of spmv/adaptive/device.cuh). */
static EMU_T EMU(chunk_sum)(const int32_t *col, EMU_VALS val, const EMU_T *x, int64_t start,
                            int64_t end, int block)
{
    EMU_T p = 0;
    for (int w = 0; w < block / 32; w++) {
        EMU_T a[32];
        for (int l = 0; l < 32; l++) {
            EMU_T acc = 0;
            for (int64_t k = start + 32 * w + l; k < end; k += block)
                acc = EMU_FMA(EMU_VAL(val, k), x[col[k]], acc);
            a[l] = acc;
        }
        EMU_T s = EMU(butterfly)(a, 32);
        p = w == 0 ? s : p + s;
    }
    return p;
}

/* y = A x as the device computes it with layout L (the plan's, or mpcgi_adaptive_fp32_launch's);
 * part: the plan's long_blocks chunk partials. */
static void EMU(emulate)(const adaptive_plan *p, const mpcgi_adaptive_launch *L, EMU_VALS val,
                         const EMU_T *x, EMU_T *y, EMU_T *part)
{
    const int64_t *rp = p->A->row_ptr;
    const int32_t *col = p->A->col_idx;
    const int big = p->A->nnz > 65536;
    /* long rows: every chunk (virtual block v of long row j), then the chunk sums in order */
#pragma omp parallel for schedule(dynamic, 16) if (big)
    for (int j = 0; j < L->n_long; j++) {
        int64_t r = p->h.rows[j], end = rp[r + 1], v0 = p->h.long_start[j], v1 = p->h.long_start[j + 1];
        for (int64_t v = v0; v < v1; v++) {
            int64_t start = rp[r] + (v - v0) * L->chunk;
            int64_t stop = start + L->chunk < end ? start + L->chunk : end;
            part[v] = EMU(chunk_sum)(col, val, x, start, stop, L->block);
        }
        EMU_T s = part[v0];
        for (int64_t v = v0 + 1; v < v1; v++)
            s = s + part[v];
        y[r] = s;
    }
    if (L->path != MPCGI_ADAPTIVE_BINNED) { /* one NT for every row not long */
#pragma omp parallel for schedule(static) if (big)
        for (int64_t r = 0; r < L->n; r++)
            if (rp[r + 1] - rp[r] <= L->skip_len)
                y[r] = EMU(row_sum)(col, val, x, rp[r], rp[r + 1], L->nt);
        return;
    }
    for (int b = 1; b < MPCGI_ADAPTIVE_BINS; b++) { /* short bins: NT lanes per row */
        const int32_t *rows = p->h.rows + L->row_start[b];
        int nt = mpcgi_adaptive_bin_nt(b);
#pragma omp parallel for schedule(static) if (big)
        for (int64_t i = 0; i < L->row_count[b]; i++)
            y[rows[i]] = EMU(row_sum)(col, val, x, rp[rows[i]], rp[rows[i] + 1], nt);
    }
}

/* y = A x as the tiles kernel computes it (tile_kernel of spmv/adaptive/spmv.cuh): per tile, y of
 * the tile from 0, its long rows (row_sum with 32 lanes, or chunk_sum over the whole row with the
 * block beyond TILE_BLOCK_ROW), then its slots in order (a row's entries in round order). */
#ifndef EMU_NO_TILES
static mpcg_status EMU(emulate_tiles)(mpcg_context *ctx, const adaptive_plan *p, EMU_VALS val,
                                      const EMU_T *x, EMU_T *y)
{
    const int64_t *rp = p->A->row_ptr;
    const int32_t *col = p->A->col_idx;
    EMU_T *ys;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)p->L.tile_max_rows + 1, sizeof *ys, &ys));
    for (int t = 0; t < p->L.tiles; t++) {
        const int64_t r0 = p->t.tile_row[t], rows = p->t.tile_row[t + 1] - r0;
        for (int64_t i = 0; i < rows; i++)
            ys[i] = 0;
        for (int j = p->t.tile_long[t]; j < p->t.tile_long[t + 1]; j++) {
            const int64_t r = p->h.rows[j], b = rp[r], e = rp[r + 1];
            ys[r - r0] = e - b > MPCGI_ADAPTIVE_TILE_BLOCK_ROW
                             ? EMU(chunk_sum)(col, val, x, b, e, MPCGI_ADAPTIVE_TILE_BLOCK)
                             : EMU(row_sum)(col, val, x, b, e, 32);
        }
        for (int64_t s = p->t.tile_off[t]; s < p->t.tile_off[t + 1]; s++) {
            const int32_t k = p->t.slot_perm[s];
            if (k < 0) continue;
            const int l = p->t.slot_row[s];
            ys[l] = EMU_FMA(EMU_VAL(val, k), x[col[k]], ys[l]);
        }
        for (int64_t i = 0; i < rows; i++)
            y[r0 + i] = ys[i];
    }
    mpcgi_host_free(ys);
    return MPCG_SUCCESS;
}
#endif /* EMU_NO_TILES */
