/* solver/cg_rows_dispatch.cuh: the persistent CG loops' functors from a plan's rows descriptor
 * (spmv/rows.h), for each precision of the loops (solver/cg_persistent.h, mpcgi_loop_prec) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CG_ROWS_DISPATCH_CUH
#define MPCG_SOLVER_CG_ROWS_DISPATCH_CUH

#include "solver/cg_persistent.h"
#include "spmv/adaptive/rows.cuh"
#include "spmv/csr_rows.cuh"

/*
 * with_prec(prec, v) calls v(T(), X()) with T the type of the vectors and the matrix values and
 * X the iterate's; with_rows_functor<T> / with_entries_functor<T> then call v(functor) with the
 * functor over R's values of type T (R->val for double, R->val32 for float).
 */

template <typename V> static int with_prec(int prec, V &&v)
{
    switch (prec) {
    case MPCGI_LOOP_FP32: return v(float(), float());
    case MPCGI_LOOP_MIXED: return v(float(), double());
    default: return v(double(), double());
    }
}

/* R's values of type T. */
template <typename T> static const T *rows_val(const mpcgi_rows *R);
template <> const double *rows_val<double>(const mpcgi_rows *R) { return R->val; }
template <> const float *rows_val<float>(const mpcgi_rows *R) { return R->val32; }

/* NT of the CSR row sums: the smallest power of two at least the mean row length, at most 32. */
static int csr_nt(const mpcgi_rows *R)
{
    const int64_t mean = R->n > 0 ? (R->nnz + R->n - 1) / R->n : 1;
    int nt = 1;
    while (nt < 32 && nt < mean)
        nt <<= 1;
    return nt;
}

template <int NT, typename T> static mpcgi_csr_rows<NT, T> csr_functor(const mpcgi_rows *R)
{
    return mpcgi_csr_rows<NT, T>{R->n, R->row_ptr, R->col_idx, rows_val<T>(R)};
}

template <int NT, int RR, bool C16, typename T>
static mpcgi_adaptive_rows<NT, RR, C16, T> adaptive_functor(const mpcgi_rows *R)
{
    return mpcgi_adaptive_rows<NT, RR, C16, T>{*(const mpcgi_adaptive_launch *)R->layout,
                                               rows_val<T>(R)};
}

/* v(functor) for the two-barrier loop's row sums of R (its instances: CSR with NT = 1 ... 32;
 * the adaptive uniform path's NT, R and column width; the fp32 values take the plan's fp32 NT,
 * R->nt32). R is known to have one. */
template <int RR, bool C16, typename T, typename V>
static int adaptive_nt(const mpcgi_rows *R, int nt, V &&v)
{
    switch (nt) {
    case 1: return v(adaptive_functor<1, RR, C16, T>(R));
    case 2: return v(adaptive_functor<2, RR, C16, T>(R));
    case 4: return v(adaptive_functor<4, RR, C16, T>(R));
    case 8: return v(adaptive_functor<8, RR, C16, T>(R));
    case 16: return v(adaptive_functor<16, RR, C16, T>(R));
    default: return v(adaptive_functor<32, RR, C16, T>(R));
    }
}

template <bool C16, typename T, typename V> static int adaptive_rr(const mpcgi_rows *R, V &&v)
{
    const mpcgi_adaptive_launch *L = (const mpcgi_adaptive_launch *)R->layout;
    const int nt = sizeof(T) == sizeof(double) ? L->nt : R->nt32;
    switch (L->rows_per_group) {
    case 1: return adaptive_nt<1, C16, T>(R, nt, v);
    case 2: return adaptive_nt<2, C16, T>(R, nt, v);
    default: return adaptive_nt<4, C16, T>(R, nt, v);
    }
}

template <typename T, typename V> static int with_rows_functor(const mpcgi_rows *R, V &&v)
{
    if (R->kind == MPCGI_ROWS_ADAPTIVE)
        return R->col16 ? adaptive_rr<true, T>(R, v) : adaptive_rr<false, T>(R, v);
    switch (csr_nt(R)) {
    case 1: return v(csr_functor<1, T>(R));
    case 2: return v(csr_functor<2, T>(R));
    case 4: return v(csr_functor<4, T>(R));
    case 8: return v(csr_functor<8, T>(R));
    case 16: return v(csr_functor<16, T>(R));
    default: return v(csr_functor<32, T>(R));
    }
}

/* v(functor) for the single-reduction loop's entries (the row sums' NT and R do not matter). */
template <typename T, typename V> static int with_entries_functor(const mpcgi_rows *R, V &&v)
{
    if (R->kind == MPCGI_ROWS_ADAPTIVE)
        return R->col16 ? v(adaptive_functor<1, 1, true, T>(R))
                        : v(adaptive_functor<1, 1, false, T>(R));
    return v(csr_functor<1, T>(R));
}

/* Whether the loops have a functor for R in precision prec at all (a known kind, the values of
 * that precision, a layout). */
static bool rows_usable(const mpcgi_rows *R, int prec)
{
    if (!R || !(prec == MPCGI_LOOP_FP64 ? (const void *)R->val : (const void *)R->val32) ||
        !R->row_ptr || R->n < 1)
        return false;
    if (R->kind == MPCGI_ROWS_CSR) return R->col_idx != nullptr;
    if (prec != MPCGI_LOOP_FP64 && (R->nt32 < 1 || R->nt32 > 32)) return false;
    return R->kind == MPCGI_ROWS_ADAPTIVE && R->layout && (R->col_idx || R->col16);
}

#endif /* MPCG_SOLVER_CG_ROWS_DISPATCH_CUH */
