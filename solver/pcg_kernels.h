/* solver/pcg_kernels.h: the fused PCG kernels of the preconditioners with a fused form (a
 * diagonal, small dense diagonal blocks), plain C, no CUDA types */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_PCG_KERNELS_H
#define MPCG_SOLVER_PCG_KERNELS_H

#include <stdint.h>

#include "core/cg_kernels.h"
#include "precond/precond.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The preconditioner inside the residual update (core/cg_kernels.h, "PCG", for the state's rr =
 * r.z and rr_new = r.r), for M->kind MPCGI_PC_FUSED_DIAG or _BLOCKS; f32: float vectors and M
 * of fp32 values (else double). Deterministic sums, as every fused CG kernel's.
 *
 * update: after q = A p and p.q: the curvature test, alpha = r.z / p.q, the residual update,
 *   z = M^-1 r, r.z and r.r, their tests and beta (mpcgi_pcg_finish_update), alpha and xpend = 1
 *   left for mpcgi_cg_update_p(z, p) to add alpha p to x.
 *     DIAG: the iteration keeps z = D^-1 r alone: z -= alpha dinv q with r_i = z_i / dinv_i
 *       formed in registers for both sums (r is not written): reads z, q, dinv, writes z;
 *     BLOCKS: one CUDA block a tile of whole diagonal blocks: r -= alpha q into shared memory
 *       and r, then z_i = binv_b(i, :) r_b from shared memory: reads r, q and nb values of binv
 *       a row, writes r and z.
 * restart: a start or resume from r (the host's r = b - A x): z = M^-1 r, r.z and r.r
 *   (mpcgi_pcg_finish_restart), p = z unless st->keep (then mpcgi_cg_update_p(z, p) after it).
 * Each returns the launch's cudaError_t.
 */
int mpcgi_pcg_fused_update(void *stream, int f32, const mpcgi_pc_fused *M, const void *q, void *r,
                           void *z, mpcgi_cg_state *st, double *partial);
int mpcgi_pcg_fused_restart(void *stream, int f32, const mpcgi_pc_fused *M, const void *r, void *z,
                            void *p, mpcgi_cg_state *st, double *partial);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_SOLVER_PCG_KERNELS_H */
