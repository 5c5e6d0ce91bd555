/* solver/cg_fused.h: the device state of the fused CG loop, shared by its variants' files */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CG_FUSED_H
#define MPCG_SOLVER_CG_FUSED_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cg_kernels.h"
#include "precond/precond.h"

/* Made by mpcgi_cg_fused_setup; the variants add their parts (the graph, the loops' records). */
struct mpcgi_cg_fused {
    mpcgi_cg_state *st;     /* device state, followed by the partials */
    double *partial;        /* 2 MPCGI_CG_BLOCKS doubles on the device (Jacobi PCG: 2 sums) */
    mpcgi_cg_state *mirror; /* pinned host copy of *st as of the last check */
    int fused_dot;          /* the backend has apply_dot */
    cudaGraphExec_t graph;  /* graph: graph_iters iterations, or NULL */
    int64_t graph_iters;
    int graph_work;        /* the mpcg_precision its iterations run in (a mixed solve's fp64
                              head is launched) */
    void *rws;             /* persistent loops: 8 n values (the vectors' type) of records,
                              then p2 (n) */
    void *p2;              /* the two-barrier loop's second direction buffer */
    mpcgi_pc_fused pcf[2]; /* the preconditioner's fused form in fp64 [0] and fp32 [1] (kind
                              MPCGI_PC_FUSED_NONE without one, or where that precision never
                              iterates) */
    int64_t pc_starts;     /* z = M^-1 r from r queued by a start or resume in the running solve
                              (each one apply, as every iteration's) */
};

struct mpcg_solver;
/* The GPU variants' common test: 1 on a GPU context, else 0 and why. */
int mpcgi_cg_gpu_wanted(struct mpcg_solver *s, int asked, char *why, size_t size);

#endif /* MPCG_SOLVER_CG_FUSED_H */
