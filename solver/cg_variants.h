/* solver/cg_variants.h: the table of CG variants and the one function that chooses among them */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_CG_VARIANTS_H
#define MPCG_SOLVER_CG_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include "solver/solver.h"

/*
 * How the CG iterations run (docs/solver.md, "CG variants"), one entry per cg.variant word, in
 * the order of solver/options.h's MPCGI_VARIANT_* (hypre's and PETSc's shape: a table of
 * callbacks the solver calls, written once):
 *   host                    solver/cg.c: the host takes every scalar (vector kernels of the
 *                           context: OpenMP on the CPU, CUDA on a GPU)
 *   launched                solver/cg_fused.c: three kernels an iteration, scalars on the device,
 *                           the host reading them once a window
 *   graph                   the same kernels captured as a CUDA graph of a window
 *   persistent-single       solver/cg_loops.c: the single-reduction loop over the plan's rows
 *   persistent-two-barrier  the two-barrier loop over the plan's rows
 */
typedef struct mpcgi_cg_variant {
    const char *name;
    /* 1 if the variant can run the solver's set-up problem (plan made, work vectors and the
     * device state allocated); else 0 and why in `why` ("graph needs a GPU context ...").
     * `asked`: the variant was named by cg.variant (lifts rules that are only preferences). It
     * may keep what it measured (grids) in the solver for setup. */
    int (*wanted)(mpcg_solver *s, int asked, char *why, size_t size);
    /* allocate and prepare (after wanted said yes) */
    mpcg_status (*setup)(mpcg_solver *s);
    /* after new matrix values: redo what holds the plan's launches (NULL: nothing) */
    mpcg_status (*refresh)(mpcg_solver *s);
    /* the solve (solver/cg.c's loop or the fused loop around `enqueue`) */
    mpcg_status (*run)(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info);
    /* GPU variants: queue `iters` iterations of segment g on the context's stream (no wait) */
    mpcg_status (*enqueue)(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters);
    /* 1 where a window's iterations past the stop cost nothing (a persistent loop leaves at
     * the stop; queued kernels run empty): its adaptive windows need not close in on the stop */
    int stops_itself;
    /* GPU variants: go on after the host replaced the residual at a stop (r = b - A x, rr = r.r),
     * or at the start of a segment that resumes the one before: the next direction is r + beta
     * p_k, p_k the direction of the last iteration (beta = 0: p = r, a restart), the stop
     * threshold `threshold`; the state running again */
    mpcg_status (*resume)(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, double beta,
                          double threshold);
    /* vector bytes per row of one iteration beside the matrix (info.bytes_per_iteration) */
    double (*vector_bytes)(const mpcg_solver *s);
    /* release what setup made (accepts a solver without it) */
    void (*teardown)(mpcg_solver *s);
} mpcgi_cg_variant;

/* The entries (solver/cg_variants.c: host; solver/cg_fused.c: launched, graph;
 * solver/cg_loops.c: the persistent loops; solver/cg_fused_stub.c in a CPU-only build). */
extern const mpcgi_cg_variant mpcgi_cg_host, mpcgi_cg_launched, mpcgi_cg_graph,
    mpcgi_cg_persistent_single, mpcgi_cg_persistent_two_barrier;

/* Choose the variant from cg.variant, the problem (n, the context's device) and the plan's
 * capabilities, set it up, and record it and why in s->variant / s->variant_reason. A variant
 * asked for by name that cannot run: MPCG_ERR_NOT_SUPPORTED naming it and why (no fallback). */
mpcg_status mpcgi_cg_variant_setup(mpcg_solver *s);

/* 1 when the solve will run a persistent loop over the plan's rows: cg.variant names one, or
 * auto on a GPU without a preconditioner and n <= cg.small_n (the rule of docs/solver.md). Known
 * before the plan (s->pc_type resolved), so auto's trial ranks only the backends that export
 * rows (spmv/auto/auto.h, need_rows). */
int mpcgi_cg_variant_needs_rows(const mpcg_solver *s);

/* 1 when the solve's iteration will form q = A p and p.q in one pass where the plan can
 * (solver/cg_fused.c: apply_dot): fp64 on a GPU, no block solve, no preconditioner or Jacobi,
 * cg.variant auto, launched or graph, and no persistent loop ahead. Known before the plan, so
 * auto's trial times that product (spmv/auto/auto.h, fused_dot). */
int mpcgi_cg_variant_fuses_dot(const mpcg_solver *s);

/* The launched variant's enqueue (solver/cg_fused.c): `iters` iterations of the fused kernels
 * in the segment's precision. The graph and the persistent loops run it for a segment in
 * another precision than their own iterations were prepared in (a mixed solve's fp64 head and
 * finish). */
mpcg_status mpcgi_cg_launched_enqueue(mpcg_solver *s, const mpcgi_cg_seg *g, int64_t iters);

/* The resume of launched and graph (solver/cg_fused.c): p = r + beta p in s->p with V, the
 * state restarted from p (beta = 0, par = 0). */
mpcg_status mpcgi_cg_fused_resume(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, double beta,
                                  double threshold);
/* The resume of the persistent loops (solver/cg_fused.c): the state only (rr, the threshold,
 * beta, running, primed = 0), par and p left alone, so the loop forms r + beta p_k itself from
 * the direction of its last iteration (core/cg_kernels.h, mpcgi_cg_loop). */
mpcg_status mpcgi_cg_loop_resume(mpcg_solver *s, const mpcgi_cg_seg *g, double rr, double beta,
                                 double threshold);

/* Release the chosen variant's setup state (accepts a solver without one). */
void mpcgi_cg_variant_teardown(mpcg_solver *s);

#endif /* MPCG_SOLVER_CG_VARIANTS_H */
