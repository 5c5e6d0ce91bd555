/* core/cg_kernels.h: the fused CG iteration's device kernels and state (plain C, no CUDA types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CG_KERNELS_H
#define MPCG_CORE_CG_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The scalars of a CG solve live on the device (solver/cg_fused.c), so iterations can be queued
 * without the host reading alpha or beta. Every kernel here first reads `stop` and does nothing
 * once it is set: iterations queued past the stopping one leave x, r, p and the scalars alone.
 *
 * Reductions are deterministic: a grid that depends only on n (at most MPCGI_CG_BLOCKS blocks of
 * 256 threads, each summing a fixed strided subset in a fixed tree), per-block partials, then
 * one pass over the partials in a fixed tree by the block that finishes last (an integer counter
 * finds it; no floating-point atomics). The same input gives bit-identical scalars on every run.
 */
#define MPCGI_CG_BLOCKS 1024

/* Why the device stopped (`stop`); 0 while running. */
enum {
    MPCGI_CG_RUNNING = 0,
    MPCGI_CG_STOP_CONVERGED = 1,    /* sqrt(rr) <= threshold: the host checks the true residual */
    MPCGI_CG_STOP_MAX_ITER = 2,     /* k reached kmax */
    MPCGI_CG_STOP_NAN = 3,          /* p.q or r.r not finite */
    MPCGI_CG_STOP_INDEFINITE = 4,   /* p.q < 0 */
    MPCGI_CG_STOP_BREAKDOWN = 5,    /* p.q = 0 */
    MPCGI_CG_STOP_INDEFINITE_PC = 6 /* r.z <= 0: the preconditioner is not positive definite */
};

/* The device scalars of one solve (one device block, mirrored in pinned host memory). */
typedef struct mpcgi_cg_state {
    union {
        double *x;  /* the iterate, set per solve: a captured graph serves any x */
        float *x32; /* the same, of an fp32 solve (its working copy of x) */
    };
    double rr;        /* r.r of the current residual (alpha = rr / pq) */
    double rr_new;    /* r.r after the last update (the monitor's value; NaN stays here) */
    double pq;        /* p.q of the current direction */
    double beta;      /* rr_new / rr of the last update */
    double alpha;     /* rr / pq of the last update (mpcgi_cg_update_r: x += alpha p pending) */
    double threshold; /* max(max(tol, eps) ||b||, atol) (mpcgi_cg_threshold): stop when
                         sqrt(rr_new) <= threshold, and the host's true residual decides
                         (stagnation below what fp64 reaches) */
    int64_t k;        /* iterations done: updates of x */
    int64_t kmax;     /* iteration limit */
    int stop;         /* MPCGI_CG_RUNNING or a MPCGI_CG_STOP_* code (apply_dot's skip flag) */
    unsigned arrived; /* blocks done in the running reduction; 0 between kernels */
    int par;          /* the persistent loop (mpcgi_cg_loop): the direction is p[par] */
    int xpend;        /* mpcgi_cg_update_r did not add alpha p to x: mpcgi_cg_update_p does */
    double delta;     /* the single-reduction loop: w.r with w = A r of the current residual */
    int primed;       /* the single-reduction loop: w, delta and rws[par] are set (0 at a start
                         or resume: the loop forms w = A r first; 2: pq holds the p.q of the
                         next iteration, summed by that start) */
    int keep;         /* PCG start or resume: 1 keeps the direction (beta = r.z / the r.z in rr),
                         0 restarts from p = z; it also keeps the size a multiple of 8 */
} mpcgi_cg_state;

/*
 * What the persistent loops work on (solver/cg_persistent.h), for up to
 * `iters` iterations or until it stops, with the stop tests and state of the kernels below;
 * partials: MPCGI_CG_BLOCKS doubles. The vectors are of the loop's type (double, or float in an
 * fp32 or mixed solve: solver/cg_persistent.h's `prec`). The solver runs one of two loops:
 *   - the two-barrier loop: every iteration forms the direction p[par ^ 1] = r + beta p[par] on
 *     the fly inside the SpMV (at a start the host sets beta = 0, par = 0 with p[0] = r), q =
 *     A p[par ^ 1] and p.q, then x, r and r.r as mpcgi_cg_update_xr, with a grid-wide barrier
 *     after each of the two sums; after an iteration p[par] is the direction it used;
 *   - the single-reduction loop (Chronopoulos-Gear, docs/solver.md): w = A r and the two sums
 *     r.r, w.r together, one grid-wide barrier per iteration. It keeps r, w = A r and s = A p of
 *     every row in `rws`, two sets of n records (r, w, s, unused) of 4 values; between windows
 *     p (the direction of the last iteration) lives in p[0] and r in r. q and p[1] are not used.
 * Resuming after the host replaced r by the true residual (solver/cg_variants.h's resume), with
 * the next direction r + beta p_k, p_k the direction of the last iteration: the host sets rr,
 * beta, stop = 0 and primed = 0 and leaves par and the vectors p alone. The two-barrier loop
 * then forms r + beta p[par] itself; the single-reduction loop starts again from r (primed = 0:
 * w = A r and, where beta != 0, s_k = A p_k of p_k in p[0], and the first p.q summed exactly).
 * beta = 0 is a restart, p = r, in both. The kernels above leave the same state, so a loop may
 * take over from them: a mixed solve's fp64 head runs them (par stays 0, p_k in p[0] as the
 * kernel that stopped left it), and the head's end resumes the loop in fp32 the same way.
 */
typedef struct mpcgi_cg_loop {
    void *p[2];
    void *q, *r;
    void *rws; /* 8 n values: the single-reduction loop's records */
    mpcgi_cg_state *st;
    double *partial;
    int64_t iters;
} mpcgi_cg_loop;

/*
 * Launchers: `stream` is the context's cudaStream_t, st the device state, partial a device array
 * of MPCGI_CG_BLOCKS doubles. Each queues one kernel, never synchronises and returns
 * cudaGetLastError() (callers wrap it in MPCG_LAUNCH).
 */

/* st->pq = p.q (reads 16 B per row): the dot of a backend without a fused apply_dot. */
int mpcgi_cg_dot_pq(void *stream, int64_t n, const double *p, const double *q, mpcgi_cg_state *st,
                    double *partial);

/* alpha = rr / pq after the curvature test (pq <= 0 or not finite: stop before touching x);
 * x += alpha p; r -= alpha q; rr_new = r.r; k += 1; then the stop tests of solver/cg.c
 * (rr_new not finite, sqrt(rr_new) <= threshold, k = kmax), beta = rr_new / rr, rr = rr_new.
 * Reads x, p, r, q and writes x, r: 48 B per row. */
int mpcgi_cg_update_xr(void *stream, int64_t n, const double *p, const double *q, double *r,
                       mpcgi_cg_state *st, double *partial);

/* mpcgi_cg_update_xr without x: alpha and xpend = 1 are left in the state, and the
 * mpcgi_cg_update_p that follows adds alpha p to x (it reads p anyway). Reads r, q and writes
 * r: 24 B per row. */
int mpcgi_cg_update_r(void *stream, int64_t n, const double *q, double *r, mpcgi_cg_state *st,
                      double *partial);

/* x += alpha p if xpend (the update before it was mpcgi_cg_update_r and ran, whether or not it
 * stopped), then p = r + beta p unless stopped: reads r, p, x and writes p, x, 40 B per row (24
 * B when x is not pending). */
int mpcgi_cg_update_p(void *stream, int64_t n, const double *r, double *p,
                      const mpcgi_cg_state *st);

/*
 * PCG (solver/pcg_kernels.cu for the fused preconditioners, these for any): the state's rr holds
 * r.z (alpha = rr / pq, beta = r.z_new / r.z) and rr_new holds r.r (the stop test and the monitor
 * stay on the unpreconditioned residual). Where the preconditioner has no fused form, an
 * iteration is q = A p and p.q, then
 *   mpcgi_pcg_update_r: mpcgi_cg_update_r's r -= alpha q and r.r with its stop tests, but beta
 *     and rr wait for r.z;
 *   z = M^-1 r (the preconditioner's own apply, queued by the solver);
 *   mpcgi_pcg_dot_rz: r.z, the preconditioner's tests (r.z <= 0: MPCGI_CG_STOP_INDEFINITE_PC),
 *     beta and rr;
 *   mpcgi_cg_update_p(z, p): x += alpha p, p = z + beta p.
 * A start or resume: z = M^-1 r, then mpcgi_pcg_restart_dot: r.z, r.r, p = z (keep = 0) or beta
 * = r.z / r.z_old for a following mpcgi_cg_update_p (keep = 1). f32: the vectors are float
 * (else double); sums and scalars are double.
 */
int mpcgi_pcg_update_r(void *stream, int f32, int64_t n, const void *q, void *r, mpcgi_cg_state *st,
                       double *partial);
int mpcgi_pcg_dot_rz(void *stream, int f32, int64_t n, const void *r, const void *z,
                     mpcgi_cg_state *st, double *partial);
int mpcgi_pcg_restart_dot(void *stream, int f32, int64_t n, const void *r, const void *z, void *p,
                          mpcgi_cg_state *st, double *partial);

/* The same kernels on fp32 vectors (an fp32 solve: x in st->x32): the scalars stay double
 * (alpha and beta rounded to float where they multiply a vector) and the sums are accumulated
 * in double. Half the bytes per row of the fp64 kernels above. */
int mpcgi_cg_dot_pq_f32(void *stream, int64_t n, const float *p, const float *q, mpcgi_cg_state *st,
                        double *partial);
int mpcgi_cg_update_r_f32(void *stream, int64_t n, const float *q, float *r, mpcgi_cg_state *st,
                          double *partial);
int mpcgi_cg_update_p_f32(void *stream, int64_t n, const float *r, float *p,
                          const mpcgi_cg_state *st);
/* The p update of a mixed solve: fp32 r and p, the fp64 iterate st->x (x += alpha (double)p
 * with alpha unrounded): 28 B per row with x pending. */
int mpcgi_cg_update_p_f32x64(void *stream, int64_t n, const float *r, float *p,
                             const mpcgi_cg_state *st);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_CORE_CG_KERNELS_H */
