/* spmv/segscan.c: the segscan backend (seed 001): nonzero segments of L entries on the CSR
 * arrays as they are, a segmented reduction per segment, carries for rows that cross; the ops
 * glue, the options, and the CPU emulation */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/device_cuda.h"
#include "spmv/segscan_kernels.h"
#include "spmv/spmv.h"

/*
 * Layout: A's CSR arrays unchanged (int64 row pointers, int32 columns, fp64 and/or fp32 values)
 * and, built on the GPU at upload (spmv/segscan.cu): hb, the first row with its head in each
 * segment (nseg + 1 int64), and with segscan.reduce=index the seed's per-nonzero run offsets
 * (uint16). The workspace holds one carry per segment.
 *
 * Bytes per SpMV: 12 per nonzero with fp64 values (8 with fp32), + 2 with the index reduction,
 * + 8 per row (row pointers, read once for the heads and once for the ends: the second from
 * cache), + 8 per segment; x gathered, y written once per row.
 */

enum { REDUCE_SHUFFLE, REDUCE_INDEX };
static const char *const reduce_words[] = {"shuffle", "index", NULL};

static const mpcgi_option_key segscan_keys[] = {
    {"segscan.segment", MPCGI_OPTION_INT, 256, 128, 1024, 1, 0, NULL,
     "nonzeros per segment (one block of as many threads; seed 001: 256)"},
    {"segscan.reduce", MPCGI_OPTION_WORD, REDUCE_SHUFFLE, 0, 0, 0, 0, reduce_words,
     "the in-segment reduction: a warp-shuffle segmented scan, or the seed's index-based tree "
     "(a 2-byte run offset per nonzero)"},
};
static const mpcgi_option_table segscan_options = {segscan_keys, 2};

typedef struct segscan_plan {
    const mpcgi_csr *A;
    int L, index;
    int64_t nseg;
    int fp64, fp32;          /* value precisions asked */
    int64_t *hb;             /* host (emulation) */
    uint16_t *idx;           /* host (emulation, index only) */
    int64_t *d_row_ptr, *d_hb;
    int32_t *d_col;
    double *d_val;
    float *d_val32;
    uint16_t *d_idx;
} segscan_plan;

static void segscan_destroy(mpcg_context *ctx, void *impl)
{
    segscan_plan *p = impl;
    mpcgi_device_free(ctx, p->d_row_ptr), mpcgi_device_free(ctx, p->d_hb);
    mpcgi_device_free(ctx, p->d_col), mpcgi_device_free(ctx, p->d_val);
    mpcgi_device_free(ctx, p->d_val32), mpcgi_device_free(ctx, p->d_idx);
    mpcgi_host_free(p->hb), mpcgi_host_free(p->idx);
    mpcgi_host_free(p);
}

/* hb[s]: the first row whose head is >= s L (n if none), hb[nseg] = n: the kernel's definition
 * (segscan_heads_kernel), for the emulation. */
static void host_heads(const segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    int64_t r = 0;
    for (int64_t s = 0; s < p->nseg; s++) {
        while (r < A->n && A->row_ptr[r] < s * p->L) r++;
        p->hb[s] = r;
    }
    p->hb[p->nseg] = A->n;
}

/* idx[k] = k's offset in its run (segscan_index_kernel), for the emulation. */
static void host_index(const segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    for (int64_t r = 0; r < A->n; r++)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
            int64_t seg0 = k / p->L * p->L, start = A->row_ptr[r] > seg0 ? A->row_ptr[r] : seg0;
            p->idx[k] = (uint16_t)(k - start);
        }
}

static mpcg_status segscan_analyze(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                                   const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes)
{
    mpcg_status st = MPCG_SUCCESS;
    segscan_plan *p = NULL;
    MPCG_ENSURE(ctx, !(precisions & MPCGI_PREC_MIXED_STORE), MPCG_ERR_NOT_SUPPORTED,
                "backend segscan: no mixed (hi + lo) storage in this version");
    MPCG_TRY(ctx, st, mpcgi_host_calloc(ctx, 1, sizeof *p, &p));
    p->A = A;
    p->L = (int)mpcgi_options_get(opts, &segscan_keys[0]);
    p->index = mpcgi_options_get(opts, &segscan_keys[1]) == REDUCE_INDEX;
    p->nseg = A->nnz > 0 ? (A->nnz + p->L - 1) / p->L : 1; /* one segment writes y = 0 */
    p->fp64 = (precisions & MPCG_CAP_FP64) != 0;
    p->fp32 = (precisions & MPCG_CAP_FP32) != 0;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->nseg + 1, sizeof *p->hb, &p->hb));
    host_heads(p);
    if (p->index) {
        MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)A->nnz + 1, sizeof *p->idx,
                                                 &p->idx));
        host_index(p);
    }
    size_t per_nz = (p->fp64 ? 8 : 4) + 4 + (p->index ? 2 : 0);
    sizes->bytes_matrix = (size_t)A->nnz * per_nz + ((size_t)A->n + 1) * 8 +
                          ((size_t)p->nseg + 1) * 8;
    sizes->bytes_matrix32 =
        p->fp32 ? (size_t)A->nnz * (8 + (p->index ? 2 : 0)) + ((size_t)A->n + 1) * 8 +
                      ((size_t)p->nseg + 1) * 8
                : 0;
    sizes->bytes_workspace = (size_t)p->nseg * sizeof(double); /* the carries */
    sizes->padding_ratio = 1.0;
    *impl = p;
done:
    if (st != MPCG_SUCCESS && p) segscan_destroy(ctx, p);
    return st;
}

static mpcgi_segscan_args args_of(mpcg_context *ctx, const segscan_plan *p, int fp32)
{
    return (mpcgi_segscan_args){.stream = mpcgi_device_stream(ctx), .n = p->A->n,
                                .nnz = p->A->nnz, .nseg = p->nseg, .L = p->L, .index = p->index,
                                .row_ptr = p->d_row_ptr, .col = p->d_col,
                                .val = fp32 ? (const void *)p->d_val32 : (const void *)p->d_val,
                                .idx = p->d_idx, .hb = p->d_hb};
}

static mpcg_status upload_values(mpcg_context *ctx, segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    if (p->d_val)
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_val, A->val, (size_t)A->nnz * 8, MPCGI_H2D));
    if (p->d_val32)
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_val32, A->val32, (size_t)A->nnz * 4,
                                          MPCGI_H2D));
    return MPCG_SUCCESS;
}

/* The arrays to the device; hb and idx are built there (spmv/segscan.cu). */
static mpcg_status segscan_upload(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes)
{
    segscan_plan *p = impl;
    const mpcgi_csr *A = p->A;
    size_t nz = (size_t)A->nnz;
    (void)sizes;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)A->n + 1) * 8, &p->d_row_ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)p->nseg + 1) * 8, &p->d_hb));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4 + 4, &p->d_col));
    if (p->fp64) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 8 + 8, &p->d_val));
    if (p->fp32) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4 + 4, &p->d_val32));
    if (p->index) MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 2 + 2, &p->d_idx));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_row_ptr, A->row_ptr, ((size_t)A->n + 1) * 8,
                                      MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->d_col, A->col_idx, nz * 4, MPCGI_H2D));
    MPCG_CHECK(ctx, upload_values(ctx, p));
    mpcgi_segscan_args a = args_of(ctx, p, 0);
    MPCG_LAUNCH(ctx, mpcgi_segscan_setup(&a, p->d_hb, p->d_idx));
    return MPCG_SUCCESS;
}

static mpcg_status segscan_update_values(mpcg_context *ctx, void *impl, const mpcgi_csr *A)
{
    segscan_plan *p = impl;
    p->A = A; /* same pattern: hb and idx stand */
    return upload_values(ctx, p);
}

static mpcg_status segscan_apply(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                 const void *x, void *y, void *ws)
{
    segscan_plan *p = impl;
    const int fp32 = prec == MPCG_PRECISION_FP32;
    mpcgi_segscan_args a = args_of(ctx, p, fp32);
    MPCG_LAUNCH(ctx, mpcgi_segscan_apply(&a, fp32, x, y, ws));
    return MPCG_SUCCESS;
}


/* The end (segment-relative, exclusive) of the first run when it continues a row from an earlier
 * segment, else 0 (continued_end in spmv/segscan.cu). */
static int continued_end(const segscan_plan *p, int64_t base, int64_t r0)
{
    const mpcgi_csr *A = p->A;
    const int64_t next = r0 < A->n ? A->row_ptr[r0] : A->nnz;
    if (base == 0 || next == base) return 0;
    int64_t e = next - base;
    if (e > p->L) e = p->L;
    if (e > A->nnz - base) e = A->nnz - base;
    return (int)e;
}

/* The seed's index tree (segscan_kernel, INDEX): for c = L/2 .. 1, each element with
 * c <= idx < 2c adds itself to the element c before it; receivers never send in the same step,
 * so the sequential loop is the parallel one. */
#define SEGSCAN_INDEX_TREE(T)                                                                     \
    static void index_tree_##T(const segscan_plan *p, int64_t base, T *sh)                       \
    {                                                                                            \
        for (int c = p->L / 2; c >= 1; c /= 2)                                                   \
            for (int t = c; t < p->L; t++) {                                                     \
                const int i = base + t < p->A->nnz ? p->idx[base + t] : p->L;                    \
                if (i >= c && i < 2 * c) sh[t - c] = sh[t - c] + sh[t];                          \
            }                                                                                    \
    }

/* The shuffle scan (block_segscan): Hillis-Steele in each warp of 32 on the old values, then
 * the warps' totals scanned in order by thread 0 and added where no head precedes in the warp. */
#define SEGSCAN_SHUFFLE_SCAN(T)                                                                   \
    static void shuffle_scan_##T(const segscan_plan *p, int64_t base, int64_t r0, int64_t r1,    \
                                 T *sh)                                                          \
    {                                                                                            \
        const int L = p->L;                                                                      \
        unsigned char head[1024], f[1024], fo[32];                                               \
        T vo[32], wtot[32];                                                                      \
        int wflag[32];                                                                           \
        memset(head, 0, (size_t)L);                                                              \
        head[0] = 1;                                                                             \
        for (int64_t r = r0; r < r1; r++)                                                        \
            if (p->A->row_ptr[r] - base < L) head[p->A->row_ptr[r] - base] = 1;                  \
        for (int t = 0; t < L; t++) f[t] = head[t];                                              \
        for (int w = 0; w < L / 32; w++) {                                                       \
            T *v = sh + 32 * w;                                                                  \
            unsigned char *fl = f + 32 * w;                                                      \
            for (int d = 1; d < 32; d *= 2) {                                                    \
                memcpy(vo, v, sizeof vo), memcpy(fo, fl, sizeof fo);                             \
                for (int l = d; l < 32; l++) {                                                   \
                    if (!fo[l]) v[l] = vo[l - d] + vo[l];                                        \
                    fl[l] = fo[l] | fo[l - d];                                                   \
                }                                                                                \
            }                                                                                    \
            wtot[w] = v[31], wflag[w] = fl[31];                                                  \
        }                                                                                        \
        T run = wtot[0];                                                                         \
        for (int k = 1; k < L / 32; k++) {                                                       \
            const T tot = wtot[k];                                                               \
            const int fk = wflag[k];                                                             \
            wtot[k] = run;                                                                       \
            run = fk ? tot : run + tot;                                                          \
        }                                                                                        \
        for (int t = 32; t < L; t++)                                                             \
            if (!f[t]) sh[t] = wtot[t / 32] + sh[t];                                             \
    }

SEGSCAN_INDEX_TREE(double)
SEGSCAN_INDEX_TREE(float)
SEGSCAN_SHUFFLE_SCAN(double)
SEGSCAN_SHUFFLE_SCAN(float)

/* The emulation of one precision: the kernels' operations in their order (spmv/segscan.cu). */
#define SEGSCAN_EMULATE(NAME, T, VAL)                                                            \
    static void NAME(const segscan_plan *p, const T *x, T *y, T *sh, T *carry)                   \
    {                                                                                            \
        const mpcgi_csr *A = p->A;                                                               \
        const int L = p->L;                                                                      \
        for (int64_t s = 0; s < p->nseg; s++) {                                                  \
            const int64_t base = s * L, r0 = p->hb[s], r1 = p->hb[s + 1];                        \
            for (int t = 0; t < L; t++) { /* products, rounded as __dmul_rn / __fmul_rn */       \
                volatile T prod = base + t < A->nnz                                              \
                                      ? (T)(VAL[base + t] * x[A->col_idx[base + t]])             \
                                      : (T)0;                                                    \
                sh[t] = prod;                                                                    \
            }                                                                                    \
            if (p->index) index_tree_##T(p, base, sh);                                           \
            else shuffle_scan_##T(p, base, r0, r1, sh);                                          \
            for (int64_t r = r0; r < r1; r++) {                                                  \
                int64_t b = A->row_ptr[r] - base, e = A->row_ptr[r + 1] - base;                  \
                if (e > L) e = L;                                                                \
                y[r] = e > b ? sh[p->index ? b : e - 1] : (T)0;                                  \
            }                                                                                    \
            int e = continued_end(p, base, r0);                                                  \
            carry[s] = e > 0 ? sh[p->index ? 0 : e - 1] : (T)0;                                  \
        }                                                                                        \
        for (int64_t s = 1; s < p->nseg; s++) { /* segscan_fixup_kernel: one warp a leader */    \
            const int64_t base = s * L, r = p->hb[s] - 1;                                        \
            if (continued_end(p, base, p->hb[s]) == 0 || A->row_ptr[r] < base - L) continue;     \
            const int64_t end = (A->row_ptr[r + 1] + L - 1) / L;                                 \
            T lane[32];                                                                          \
            for (int l = 0; l < 32; l++) {                                                       \
                T acc = 0;                                                                       \
                for (int64_t j = s + l; j < end; j += 32) acc = acc + carry[j];                  \
                lane[l] = acc;                                                                   \
            }                                                                                    \
            for (int off = 16; off >= 1; off /= 2) /* shfl_down: lanes >= 32 - off keep theirs */ \
                for (int l = 0; l < 32; l++) lane[l] = lane[l] + (l + off < 32 ? lane[l + off]   \
                                                                              : lane[l]);       \
            y[r] = y[r] + lane[0];                                                               \
        }                                                                                        \
    }

SEGSCAN_EMULATE(emulate64, double, A->val)
SEGSCAN_EMULATE(emulate32, float, A->val32)

static mpcg_status segscan_apply_host(mpcg_context *ctx, void *impl, mpcg_precision prec,
                                      const void *x, void *y)
{
    segscan_plan *p = impl;
    mpcg_status st = MPCG_SUCCESS;
    void *sh = NULL, *carry = NULL;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->L, sizeof(double), &sh));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)p->nseg, sizeof(double), &carry));
    if (prec == MPCG_PRECISION_FP32) emulate32(p, x, y, sh, carry);
    else emulate64(p, x, y, sh, carry);
done:
    mpcgi_host_free(sh), mpcgi_host_free(carry);
    return st;
}

static void segscan_describe(const void *impl, char *buf, size_t size)
{
    const segscan_plan *p = impl;
    snprintf(buf, size, "CSR in %lld segments of %d nonzeros, %s reduction", (long long)p->nseg,
             p->L, p->index ? "the seed's index-tree" : "warp-shuffle segmented-scan");
}

const struct mpcgi_spmv_ops mpcgi_spmv_segscan = {
    .name = "segscan",
    .description = "nonzero-balanced segmented-scan CSR (seed 001): fixed segments of "
                   "nonzeros, insensitive to row skew",
    .caps = MPCG_CAP_FP64 | MPCG_CAP_FP32 | MPCG_CAP_NEEDS_DEVICE | MPCG_CAP_CPU_EMULATION |
            MPCG_CAP_DETERMINISTIC,
    .options = &segscan_options,
    .analyze = segscan_analyze,
    .update_values = segscan_update_values,
    .upload = segscan_upload,
    .apply = segscan_apply,
    .apply_host = segscan_apply_host,
    .destroy = segscan_destroy,
    .describe = segscan_describe,
};
