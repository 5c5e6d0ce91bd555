/* spmv/rows.h: what a device plan exports for the solver's persistent CG loops (plain C) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ROWS_H
#define MPCG_SPMV_ROWS_H

#include <stdint.h>

/*
 * The persistent CG loops (solver/cg_persistent.cu) are solver code templated on a device
 * row-sum functor; a backend exports the arrays its functor reads through the `rows` slot of
 * its ops table, tagged with the functor's kind. The solver's dispatcher turns the descriptor
 * into the functor (spmv/csr_rows.cuh for MPCGI_ROWS_CSR; spmv/adaptive/rows.cuh for
 * MPCGI_ROWS_ADAPTIVE) and instantiates the loops on it. Every pointer is device memory of the
 * plan, valid until the plan is destroyed. A backend fills in the values it holds: fp64 (val),
 * fp32 (val32: the matrix's A->val32, hi with the mixed storage), or both; mpcgi_spmv_rows
 * answers a request for one precision and clears the other pointer, so the functor the loops
 * build reads exactly the values of the requested precision.
 */
enum {
    MPCGI_ROWS_CSR = 1,     /* plain CSR: int32 row pointers and columns */
    MPCGI_ROWS_ADAPTIVE = 2 /* the adaptive layout's uniform path (NT lanes, R rows a group) */
};

typedef struct mpcgi_rows {
    int kind;                /* MPCGI_ROWS_* */
    int64_t n, nnz;
    int64_t max_len;         /* the longest row */
    const int32_t *row_ptr;  /* n + 1 */
    const int32_t *col_idx;  /* nnz columns, or NULL where col16 holds them */
    const int16_t *col16;    /* nnz offsets col - row (MPCGI_ROWS_ADAPTIVE), or NULL */
    const double *val;       /* nnz fp64 values, or NULL */
    const float *val32;      /* nnz fp32 values, or NULL */
    const void *layout;      /* MPCGI_ROWS_ADAPTIVE: the plan's mpcgi_adaptive_launch */
    int nt32;                /* MPCGI_ROWS_ADAPTIVE: NT of the fp32 row sums (the plan's fp32
                                launch may take fewer lanes per row than layout's nt) */
} mpcgi_rows;

#endif /* MPCG_SPMV_ROWS_H */
