/* solver/cg_persistent.h: the persistent CG loops over a backend's rows (plain C, no CUDA types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CG_PERSISTENT_H
#define MPCG_SOLVER_CG_PERSISTENT_H

#include <stdint.h>

#include "core/cg_kernels.h"
#include "precond/precond.h"
#include "spmv/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The two persistent loops of solver/cg_persistent.cu, instantiated on the row functor a plan
 * exports (spmv/rows.h: MPCGI_ROWS_CSR -> spmv/csr_rows.cuh, MPCGI_ROWS_ADAPTIVE ->
 * spmv/adaptive/rows.cuh). Both run up to c->iters iterations of one window in one cooperative
 * launch, with the state and stop tests of core/cg_kernels.h (mpcgi_cg_loop):
 *   - the two-barrier loop: the direction formed inside the SpMV, two grid barriers an iteration;
 *   - the single-reduction loop (Chronopoulos-Gear): one SpMV w = A r and one barrier an
 *     iteration, the rows' entries and vectors kept in shared memory.
 * Each runs in one of three precisions (`prec`), with the arithmetic of core/cg_kernels.cu's
 * kernels of that precision: sums in double, scalars in double, alpha and beta rounded to float
 * where they multiply an fp32 vector, x += alpha (double)p with alpha unrounded in a mixed solve.
 */

/* The loops' precision: the vectors' and the matrix values' type, and the iterate's. */
enum {
    MPCGI_LOOP_FP64 = 0, /* double vectors and values (rows->val), the iterate st->x */
    MPCGI_LOOP_FP32 = 1, /* float vectors and values (rows->val32), the iterate st->x32 */
    MPCGI_LOOP_MIXED = 2 /* float vectors and values (rows->val32: hi), the fp64 iterate st->x */
};

/* Why a loop cannot run (the grid queries below return one of these, negated, or the grid). */
enum {
    MPCGI_LOOP_OK = 0,
    MPCGI_LOOP_NO_COOP = 1,     /* the device has no cooperative launch, or a query failed */
    MPCGI_LOOP_NO_FUNCTOR = 2,  /* the rows' kind or layout has no instance of this loop */
    MPCGI_LOOP_NOT_UNIFORM = 3, /* two-barrier, adaptive rows: only the uniform path */
    MPCGI_LOOP_NO_FIT = 4,      /* single-reduction: the rows do not fit in shared memory */
    MPCGI_LOOP_CHAIN = 5,       /* single-reduction: a thread would sum too many entries */
    MPCGI_LOOP_NO_PC = 6        /* two-barrier: the preconditioner has no fused form */
};

/* One line for a MPCGI_LOOP_* code ("the rows do not fit in shared memory"). */
const char *mpcgi_loop_why(int code);

/* Blocks of the two-barrier loop on `device` in precision prec (MPCGI_LOOP_FP64 ...) with the
 * preconditioner's fused form pk (MPCGI_PC_FUSED_NONE, _DIAG or _BLOCKS; precond/precond.h),
 * blocks_per_sm per SM at most, at most `most`, or -MPCGI_LOOP_* when it cannot run. */
int mpcgi_cg_loop2_grid(const mpcgi_rows *rows, int prec, int pk, int device, int blocks_per_sm,
                        int most);
/* c->partial: at least 3 grid doubles. M: the preconditioner's fused form in the loop's
 * precision (NULL: none) and z its n values (PCG: core/cg_kernels.h's state with rr = r.z; the
 * diagonal keeps z in r's place). Returns the launch's cudaError_t. */
int mpcgi_cg_loop2(void *stream, const mpcgi_rows *rows, int prec, int grid, const mpcgi_cg_loop *c,
                   const mpcgi_pc_fused *M, void *z);

/* Blocks of the single-reduction loop in precision prec (one per SM), its rows per block *rb
 * and entries per row *width, or -MPCGI_LOOP_*. any_chain: no bound on the entries a thread
 * sums (the loop was asked for by name). */
int mpcgi_cg_loop1_grid(const mpcgi_rows *rows, int prec, int device, int any_chain, int *rb,
                        int *width);
/* c->rws: 8 n values of the vectors' type; c->partial: 4 grid doubles. Returns the launch's
 * cudaError_t. */
int mpcgi_cg_loop1(void *stream, const mpcgi_rows *rows, int prec, int grid, int rb, int width,
                   const mpcgi_cg_loop *c);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SOLVER_CG_PERSISTENT_H */
