/* spmv/segscan/emulate.c: the segscan backend's CPU emulation: the kernels of
 * spmv/segscan/segscan.cuh replayed on the host, operation for operation, so that `--device=cpu
 * --spmv=segscan` gives the GPU's bits */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "spmv/segscan/impl.h"
#include "spmv/warp_emulate.h"

/* hb[s]: the first row whose head is >= s L (n if none), hb[nseg] = n (segscan_heads_kernel). */
static void host_heads(const mpcgi_segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    int64_t r = 0;
    for (int64_t s = 0; s < p->nseg; s++) {
        while (r < A->n && A->row_ptr[r] < s * p->L) r++;
        p->hb[s] = r;
    }
    p->hb[p->nseg] = A->n;
}

/* idx[k] = k's offset in its run (segscan_index_kernel). */
static void host_index(const mpcgi_segscan_plan *p)
{
    const mpcgi_csr *A = p->A;
    for (int64_t r = 0; r < A->n; r++)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
            int64_t seg0 = k / p->L * p->L, start = A->row_ptr[r] > seg0 ? A->row_ptr[r] : seg0;
            p->idx[k] = (uint16_t)(k - start);
        }
}

/* The end (segment-relative, exclusive) of the first run when it continues a row from an earlier
 * segment, else 0 (continued_end in spmv/segscan/segscan.cuh). */
static int continued_end(const mpcgi_segscan_plan *p, int64_t base, int64_t r0)
{
    const mpcgi_csr *A = p->A;
    const int64_t next = r0 < A->n ? A->row_ptr[r0] : A->nnz;
    if (base == 0 || next == base) return 0;
    int64_t e = next - base;
    if (e > p->L) e = p->L;
    if (e > A->nnz - base) e = A->nnz - base;
    return (int)e;
}

/* Scratch of one segment: products / run sums, heads, and the per-thread scan values. */
typedef struct scratch {
    void *sh;               /* L values */
    unsigned char *head;    /* L + 1 */
    void *v, *ev;           /* NT values: the inclusive scan, the exclusive one */
    unsigned char *f, *ef;  /* NT flags */
} scratch;

/*
 * The kernels per value type T. VALUE(k): nonzero k's value in T's arithmetic (hi + lo for the
 * mixed storage); products are stored through a volatile so that no multiply is contracted into
 * the add after it (the kernels use __dmul_rn / __fmul_rn).
 *   warp_scan: warp_segscan, 32 lanes at v[0 .. 31], f (Hillis-Steele on the old values);
 *   index_tree: index_reduce (receivers never send in the same step: the sequential loop is the
 *     parallel one);
 *   scan: scan_reduce for all threads of the segment;
 *   segment: scan_kernel for segment s (y of its rows, its carry);
 *   fixup: fixup_kernel (a leader's warp: WSUM, spmv/warp_emulate.h's strided sum in T).
 */
#define SEGSCAN_EMULATION(SFX, T, VALUE, WSUM)                                                   \
    static void warp_scan_##SFX(T *v, unsigned char *f)                                          \
    {                                                                                            \
        T vo[32];                                                                                \
        unsigned char fo[32];                                                                    \
        for (int d = 1; d < 32; d *= 2) {                                                        \
            memcpy(vo, v, sizeof vo), memcpy(fo, f, sizeof fo);                                  \
            for (int l = d; l < 32; l++) {                                                       \
                if (!fo[l]) v[l] = vo[l - d] + vo[l];                                            \
                f[l] = fo[l] | fo[l - d];                                                        \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void index_tree_##SFX(const mpcgi_segscan_plan *p, int64_t base, T *sh)               \
    {                                                                                            \
        for (int c = p->L / 2; c >= 1; c /= 2)                                                   \
            for (int t = c; t < p->L; t++) {                                                     \
                const int i = base + t < p->A->nnz ? p->idx[base + t] : p->L;                    \
                if (i >= c && i < 2 * c) sh[t - c] = sh[t - c] + sh[t];                          \
            }                                                                                    \
    }                                                                                            \
                                                                                                 \
    static void scan_##SFX(const mpcgi_segscan_plan *p, const scratch *w, T *p_, T *sh)          \
    {                                                                                            \
        const int V = p->V, NT = p->L / p->V, NW = NT / 32;                                      \
        const unsigned char *head = w->head;                                                     \
        T *v = w->v, *ev = w->ev, u[32];                                                         \
        unsigned char *f = w->f, *ef = w->ef, g[32];                                             \
        for (int t = 0; t < NT; t++) { /* tails */                                               \
            const T *pt = p_ + t * V;                                                            \
            T tail = pt[0];                                                                      \
            int any = head[t * V];                                                               \
            for (int j = 1; j < V; j++) {                                                        \
                tail = head[t * V + j] ? pt[j] : tail + pt[j];                                   \
                any |= head[t * V + j];                                                          \
            }                                                                                    \
            v[t] = tail, f[t] = (unsigned char)any;                                              \
        }                                                                                        \
        for (int wi = 0; wi < NW; wi++) warp_scan_##SFX(v + 32 * wi, f + 32 * wi);              \
        for (int t = 0; t < NT; t++)                                                             \
            if (t % 32) ev[t] = v[t - 1], ef[t] = f[t - 1];                                      \
        for (int l = 0; l < 32; l++) {                                                           \
            u[l] = l < NW ? v[32 * l + 31] : (T)0;                                               \
            g[l] = l < NW ? f[32 * l + 31] : 0;                                                  \
        }                                                                                        \
        warp_scan_##SFX(u, g); /* eu[wi] = u[wi - 1] */                                          \
        for (int t = 0; t < NT; t++) {                                                           \
            const int lane = t % 32, wi = t / 32;                                                \
            const T *pt = p_ + t * V;                                                            \
            T cin = 0;                                                                           \
            if (t > 0) cin = lane == 0 ? u[wi - 1] : ef[t] || wi == 0 ? ev[t] : u[wi - 1] + ev[t]; \
            T run = head[t * V] || t == 0 ? pt[0] : cin + pt[0];                                 \
            for (int j = 0; j < V; j++) {                                                        \
                if (j > 0) run = head[t * V + j] ? pt[j] : run + pt[j];                          \
                if (head[t * V + j + 1]) sh[t * V + j] = run;                                    \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void segment_##SFX(const mpcgi_segscan_plan *p, const scratch *w, int64_t s,         \
                              const T *x, T *y, T *carry)                                        \
    {                                                                                            \
        const mpcgi_csr *A = p->A;                                                               \
        const int L = p->L;                                                                      \
        const int64_t base = s * L, r0 = p->hb[s], r1 = p->hb[s + 1];                            \
        T *sh = w->sh, *prod = (T *)w->v + L / p->V;                                             \
        if (p->index) prod = sh;                                                                 \
        for (int t = 0; t < L; t++) {                                                            \
            const int64_t k = base + t;                                                          \
            volatile T pr = k < A->nnz ? (T)((VALUE(k)) * x[A->col_idx[k]]) : (T)0;              \
            prod[t] = pr;                                                                        \
        }                                                                                        \
        if (p->index) {                                                                          \
            index_tree_##SFX(p, base, sh);                                                       \
        } else {                                                                                 \
            memset(w->head, 0, (size_t)L);                                                       \
            w->head[L] = 1;                                                                      \
            for (int64_t r = r0; r <= r1; r++) /* row_ptr[n] = nnz ends the last run */         \
                if (A->row_ptr[r] - base < L) w->head[A->row_ptr[r] - base] = 1;                 \
            scan_##SFX(p, w, prod, sh);                                                          \
        }                                                                                        \
        for (int64_t r = r0; r < r1; r++) {                                                      \
            int64_t b = A->row_ptr[r] - base, e = A->row_ptr[r + 1] - base;                      \
            if (e > L) e = L;                                                                    \
            y[r] = e > b ? sh[p->index ? b : e - 1] : (T)0;                                      \
        }                                                                                        \
        const int e = continued_end(p, base, r0);                                                \
        carry[s] = e > 0 ? sh[p->index ? 0 : e - 1] : (T)0;                                      \
    }                                                                                            \
                                                                                                 \
    static void fixup_##SFX(const mpcgi_segscan_plan *p, const T *carry, T *y)                   \
    {                                                                                            \
        const mpcgi_csr *A = p->A;                                                               \
        const int64_t L = p->L;                                                                  \
        for (int64_t s = 1; s < p->nseg; s++) {                                                  \
            const int64_t base = s * L, r = p->hb[s] - 1;                                        \
            if (continued_end(p, base, p->hb[s]) == 0 || A->row_ptr[r] < base - L) continue;     \
            const int64_t end = (A->row_ptr[r + 1] + L - 1) / L;                                 \
            y[r] = y[r] + WSUM(carry, s, end);                                                   \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void emulate_##SFX(const mpcgi_segscan_plan *p, const scratch *w, const T *x, T *y,   \
                              T *carry)                                                          \
    {                                                                                            \
        for (int64_t s = 0; s < p->nseg; s++) segment_##SFX(p, w, s, x, y, carry);              \
        fixup_##SFX(p, carry, y);                                                                \
    }

#define VALUE_F64(k) A->val[k]
#define VALUE_F32(k) A->val32[k]
#define VALUE_MIXED(k) mixed_value(A, k)

/* hi + lo in fp64, rounded before the multiply (value<double, float, true> in the kernels). */
static double mixed_value(const mpcgi_csr *A, int64_t k)
{
    volatile double a = (double)A->val32[k] + (double)A->lo32[k];
    return a;
}

SEGSCAN_EMULATION(f64, double, VALUE_F64, mpcgi_warp_strided_sum_f64)
SEGSCAN_EMULATION(f32, float, VALUE_F32, mpcgi_warp_strided_sum_f32)
SEGSCAN_EMULATION(mixed, double, VALUE_MIXED, mpcgi_warp_strided_sum_f64)

mpcg_status mpcgi_segscan_emulate(mpcg_context *ctx, mpcgi_segscan_plan *p, mpcg_precision prec,
                                  const void *x, void *y)
{
    const size_t L = (size_t)p->L, NT = L / (size_t)p->V, d = sizeof(double);
    /* the plan's scratch, one block made at the first product: the doubles (sh, the scan
     * values and products, ev, the carries), then the flags (head, f, ef) */
    const size_t doubles = L + (NT + L) + NT + (size_t)p->nseg, flags = (L + 1) + 2 * NT;
    if (!p->hb) { /* the index arrays, once (a GPU plan builds them on the device) */
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)p->nseg + 1, sizeof *p->hb, &p->hb));
        host_heads(p);
    }
    if (p->index && !p->idx) {
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)p->A->nnz + 1, sizeof *p->idx,
                                               &p->idx));
        host_index(p);
    }
    if (!p->scratch) MPCG_CHECK(ctx, mpcgi_host_alloc(ctx, doubles * d + flags, &p->scratch));
    double *b = p->scratch;
    unsigned char *fl = (unsigned char *)(b + doubles);
    const scratch w = {.sh = b, .v = b + L, .ev = b + L + NT + L, .head = fl, .f = fl + L + 1,
                       .ef = fl + L + 1 + NT};
    void *carry = b + L + NT + L + NT;
    if (prec == MPCG_PRECISION_FP32) emulate_f32(p, &w, x, y, carry);
    else if (prec == MPCG_PRECISION_MIXED) emulate_mixed(p, &w, x, y, carry);
    else emulate_f64(p, &w, x, y, carry);
    return MPCG_SUCCESS;
}
