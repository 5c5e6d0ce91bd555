/* spmv/fold/layout.c: the fold backend's layout (the Fold method) built on the host, its
 * values scattered into slot order, and the CPU emulation of its kernels */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "spmv/fold/impl.h"
#include "spmv/warp_emulate.h"

/* The row statistics and the piece counts run over CHUNKS fixed slices of the rows (in parallel
 * where OpenMP is on), combined in slice order: the same sums whatever the thread count. */
#define CHUNKS 64

int mpcgi_fold_width(const mpcgi_csr *A, long q_pct, long r_pct, mpcgi_fold_layout *L)
{
    const int64_t n = A->n;
    const double mean = n > 0 ? (double)A->nnz / (double)n : 0;
    double ss[CHUNKS];
    int64_t mx[CHUNKS];
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int c = 0; c < CHUNKS; c++) {
        double s = 0;
        int64_t m = 0;
        for (int64_t i = n * c / CHUNKS; i < n * (c + 1) / CHUNKS; i++) {
            const int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
            const double d = (double)len - mean;
            s += d * d;
            if (len > m) m = len;
        }
        ss[c] = s, mx[c] = m;
    }
    double s = 0;
    int64_t max_len = 0;
    for (int c = 0; c < CHUNKS; c++) {
        s += ss[c];
        if (mx[c] > max_len) max_len = mx[c];
    }
    L->mean = mean;
    L->sigma = n > 0 ? sqrt(s / (double)n) : 0;
    L->max_len = max_len;
    double w = ceil((double)q_pct / 100.0 * mean + (double)r_pct / 100.0 * L->sigma - 1e-9);
    if (w > (double)max_len) w = (double)max_len; /* wider only pads */
    if (w < 1) w = 1;
    return (int)w;
}

/* Pieces of a row of len entries at width F: the entries past the first F, F at a time. */
static int64_t pieces_of(int64_t len, int F)
{
    return len > F ? (len - 1) / F : 0;
}

void mpcgi_fold_count(const mpcgi_csr *A, mpcgi_fold_layout *L)
{
    const int64_t n = A->n;
    const int F = L->F;
    int64_t pieces = 0, folded = 0;
#pragma omp parallel for schedule(static) reduction(+ : pieces, folded) if (n > 65536)
    for (int64_t i = 0; i < n; i++) {
        const int64_t pc = pieces_of(A->row_ptr[i + 1] - A->row_ptr[i], F);
        pieces += pc;
        folded += pc > 0;
    }
    L->n = n, L->nnz = A->nnz, L->pieces = pieces, L->folded = folded;
    L->np = (n + pieces + 31) / 32 * 32;
    if (L->np == 0) L->np = 32;
}

void mpcgi_fold_layout_free(mpcgi_fold_layout *L)
{
    mpcgi_host_free(L->col), mpcgi_host_free(L->fbits);
    mpcgi_host_free(L->fold_row), mpcgi_host_free(L->fold_ptr);
    L->col = NULL, L->fbits = NULL, L->fold_row = NULL, L->fold_ptr = NULL;
}

/* For every entry of A, in CSR order: `nz` its index in A's arrays, `at` its slot (k np +
 * thread), the layout's rule; BODY runs with both (and t_, k_: the thread, the entry's index in
 * its row, whose slot is k_ % F). */
#define FOLD_WALK(L, A, BODY)                                                                   \
    do {                                                                                         \
        int64_t next_ = 0; /* the row's first piece, relative to n */                           \
        for (int64_t i_ = 0; i_ < (A)->n; i_++) {                                                \
            const int64_t b_ = (A)->row_ptr[i_], len_ = (A)->row_ptr[i_ + 1] - b_;               \
            for (int64_t k_ = 0; k_ < len_; k_++) {                                              \
                const int64_t t_ = k_ < (L)->F ? i_ : (L)->n + next_ + k_ / (L)->F - 1;          \
                const size_t at = (size_t)(k_ % (L)->F) * (size_t)(L)->np + (size_t)t_;         \
                const int64_t nz = b_ + k_;                                                      \
                BODY;                                                                            \
            }                                                                                    \
            next_ += pieces_of(len_, (L)->F);                                                    \
        }                                                                                        \
    } while (0)

mpcg_status mpcgi_fold_layout_build(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_fold_layout *L)
{
    const int64_t n = A->n;
    const int F = L->F;
    mpcgi_fold_count(A, L);
    const int64_t folded = L->folded;
    const size_t slots = (size_t)F * (size_t)L->np;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *L->col, &L->col));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)(n + 31) / 32 + 1, sizeof *L->fbits, &L->fbits));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)folded + 1, sizeof *L->fold_row,
                                           &L->fold_row));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)folded + 1, sizeof *L->fold_ptr,
                                           &L->fold_ptr));
    int64_t j = 0, next = 0;
    L->fold_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t pc = pieces_of(A->row_ptr[i + 1] - A->row_ptr[i], F);
        if (pc == 0) continue;
        L->fbits[i >> 5] |= 1u << (i & 31);
        L->fold_row[j] = i;
        next += pc;
        L->fold_ptr[++j] = next;
    }
    /* the entries, then each thread's unused slots: the column of its last entry (a thread
     * fills its slots from 0 up, so that is the slot before the first unused one) */
    for (size_t k = 0; k < slots; k++) L->col[k] = -1;
    FOLD_WALK(L, A, L->col[at] = A->col_idx[nz]);
    for (int64_t p = 0; p < L->np; p++) {
        int32_t c = p < n ? (int32_t)p : 0;
        for (int k = 0; k < F; k++) {
            const size_t at = (size_t)k * (size_t)L->np + (size_t)p;
            if (L->col[at] < 0) L->col[at] = c;
            c = L->col[at];
        }
    }
    return MPCG_SUCCESS;
}

void mpcgi_fold_scatter_f64(const mpcgi_fold_layout *L, const mpcgi_csr *A, const double *src,
                            double *dst)
{
    memset(dst, 0, (size_t)L->F * (size_t)L->np * sizeof *dst);
    FOLD_WALK(L, A, dst[at] = src[nz]);
}

void mpcgi_fold_scatter_f32(const mpcgi_fold_layout *L, const mpcgi_csr *A, const float *src,
                            float *dst)
{
    memset(dst, 0, (size_t)L->F * (size_t)L->np * sizeof *dst);
    FOLD_WALK(L, A, dst[at] = src[nz]);
}

size_t mpcgi_fold_tile_at(int F, int64_t C, int64_t t, int k)
{
    return (size_t)(t / C) * (size_t)F * (size_t)C + (size_t)k * (size_t)C + (size_t)(t % C);
}

int64_t mpcgi_fold_tiles(const mpcgi_fold_layout *L, int64_t C)
{
    return (L->np + C - 1) / C;
}

void mpcgi_fold_tile_cols(const mpcgi_fold_layout *L, int64_t C, int32_t *dst)
{
    const size_t all = (size_t)mpcgi_fold_tiles(L, C) * (size_t)L->F * (size_t)C;
    memset(dst, 0, all * sizeof *dst); /* threads past np: column 0 */
    for (int64_t t = 0; t < L->np; t++)
        for (int k = 0; k < L->F; k++)
            dst[mpcgi_fold_tile_at(L->F, C, t, k)] = L->col[(size_t)k * (size_t)L->np + (size_t)t];
}

void mpcgi_fold_tile_f64(const mpcgi_fold_layout *L, const mpcgi_csr *A, int64_t C,
                         const double *src, double *dst)
{
    const size_t all = (size_t)mpcgi_fold_tiles(L, C) * (size_t)L->F * (size_t)C;
    memset(dst, 0, all * sizeof *dst);
    FOLD_WALK(L, A, (void)at; dst[mpcgi_fold_tile_at(L->F, C, t_, (int)(k_ % L->F))] = src[nz]);
}

/* fold_kernel, thread by thread (C's fma is the kernels' __fma_rn / __fmaf_rn), then
 * fold_fixup_kernel's warps (spmv/warp_emulate.h). VAL(i): slot i's value in T. */
#define FOLD_EMULATION(SFX, T, FMA, VAL, WSUM)                                                  \
    static void emulate_##SFX(const mpcgi_fold_plan *p, const T *x, T *y, T *piece)             \
    {                                                                                            \
        const mpcgi_fold_layout *L = &p->L;                                                      \
        for (int64_t t = 0; t < L->np; t++) {                                                    \
            T acc = 0;                                                                           \
            for (int k = 0; k < L->F; k++) {                                                     \
                const size_t i = (size_t)k * (size_t)L->np + (size_t)t;                          \
                acc = FMA(VAL(i), x[L->col[i]], acc);                                            \
            }                                                                                    \
            if (t < L->n) y[t] = acc;                                                            \
            else if (t < L->n + L->pieces) piece[t - L->n] = acc;                               \
        }                                                                                        \
        for (int64_t j = 0; j < L->folded; j++) {                                                \
            const int64_t i = L->fold_row[j];                                                    \
            y[i] = y[i] + WSUM(piece, L->fold_ptr[j], L->fold_ptr[j + 1]);                       \
        }                                                                                        \
    }

/* hi + lo in fp64, rounded before the multiply-add (fold::value<double, float, true>). */
static double mixed_value(const mpcgi_fold_plan *p, size_t i)
{
    volatile double a = (double)p->val32[i] + (double)p->lo32[i];
    return a;
}

#define VAL_F64(i) p->val64[i]
#define VAL_F32(i) p->val32[i]
#define VAL_MIXED(i) mixed_value(p, i)

FOLD_EMULATION(f64, double, fma, VAL_F64, mpcgi_warp_strided_sum_f64)
FOLD_EMULATION(f32, float, fmaf, VAL_F32, mpcgi_warp_strided_sum_f32)
FOLD_EMULATION(mixed, double, fma, VAL_MIXED, mpcgi_warp_strided_sum_f64)

/* The host layout, the pieces' scratch and the values in slot order, made at the first product
 * and refreshed as the plan's values stand. */
static mpcg_status host_values(mpcg_context *ctx, mpcgi_fold_plan *p)
{
    const size_t slots = (size_t)p->L.F * (size_t)p->L.np;
    if (!p->L.col) MPCG_CHECK(ctx, mpcgi_fold_layout_build(ctx, p->A, &p->L));
    if (!p->piece)
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)p->L.pieces + 1, sizeof(double),
                                               &p->piece));
    if (p->fp64 && !p->val64) {
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *p->val64, &p->val64));
        p->host_stale = 1;
    }
    if (p->fp32 && !p->val32) {
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *p->val32, &p->val32));
        p->host_stale = 1;
    }
    if (p->mixed && !p->lo32) {
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, slots, sizeof *p->lo32, &p->lo32));
        p->host_stale = 1;
    }
    if (!p->host_stale) return MPCG_SUCCESS;
    if (p->val64) mpcgi_fold_scatter_f64(&p->L, p->A, p->A->val, p->val64);
    if (p->val32) mpcgi_fold_scatter_f32(&p->L, p->A, p->A->val32, p->val32);
    if (p->lo32) mpcgi_fold_scatter_f32(&p->L, p->A, p->A->lo32, p->lo32);
    p->host_stale = 0;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_fold_emulate(mpcg_context *ctx, mpcgi_fold_plan *p, mpcg_precision prec,
                               const void *x, void *y)
{
    MPCG_CHECK(ctx, host_values(ctx, p));
    if (prec == MPCG_PRECISION_FP32) emulate_f32(p, x, y, (float *)p->piece);
    else if (prec == MPCG_PRECISION_MIXED) emulate_mixed(p, x, y, p->piece);
    else emulate_f64(p, x, y, p->piece);
    return MPCG_SUCCESS;
}
