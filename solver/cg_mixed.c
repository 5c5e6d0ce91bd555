/* solver/cg_mixed.c: mixed precision, a driver over CG segments: the fp64 head, an fp32 CG
 * brought back to the fp64 true residual as it falls (reliable updates or iterative
 * refinement), and the fp64 finish */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/context.h"
#include "core/error.h"
#include "core/matrix.h"
#include "solver/options.h"
#include "solver/solver.h"

/*
 * A mixed solve runs the fp32 CG of an fp32 solve (the same variants, kernels and graphs) on the
 * fp32 values hi, except that x is the fp64 iterate, updated from the fp32 directions (an fp32
 * iterate's rounding, eps32 kappa relative to the residual, would make every true residual
 * disagree with the recurrence's). The device stops a segment when the recurrence residual
 * reaches tr->threshold; mpcgi_mixed_update then forms b - A x with the hi + lo values (fp64
 * accuracy) and replaces r by it, and the iteration goes on (docs/precision.md):
 *   reliable    the direction is kept, p = r + beta p with beta = r.r / rr_old (the van der
 *               Vorst-Ye / QUDA reliable update): one CG, its superlinear convergence intact;
 *               the next update when the residual has dropped by mixed.reliable_drop;
 *   refinement  p = r, a restart: each segment is an fp32 CG on A d = r to the relative
 *               tolerance eta, x += d (iterative refinement); eta starts at INITIAL_ETA and
 *               rises to what fp32 reached when that is less.
 * Either way the last segment stops at the target max(tol ||b||, atol), and converged means the
 * fp64 true residual is at or below it. The solve goes on in fp64 from x (the finish) when a
 * segment improves the true residual by less than PROGRESS (kappa beyond fp32's reach), when
 * the fp32 iteration breaks down (p.q <= 0 or not finite: the fp32 values may make an SPD
 * matrix singular or indefinite), and from the start when the matrix is held in fp64 values.
 *
 * Each of the head, the fp32 segment and the finish is one run of the chosen variant with its
 * own segment arguments (mpcgi_cg_seg: precision, vector kernels, stop rule, start); the solver
 * is not changed between them, so the launched kernels, the graph and the persistent loops run
 * every segment in the precision it names (a variant prepared for fp32 runs an fp64 segment on
 * the launched kernels).
 */

/* The true residual must fall at least by this factor from one update to the next. */
#define PROGRESS 0.5
/* The stall rule: the best recurrence residual of a segment must fall at least by this factor
 * in every mixed.stall_window iterations. */
#define STALL_FALL 0.5
/* ... and at least at this fraction of the rate (decades an iteration) of the solve's fastest
 * window so far. */
#define STALL_RATE 0.25
/* Stalled segments in a row (no threshold reached between them) before the fp64 finish. */
#define MAX_STALLS 2
/* Systems of fewer rows run the whole mixed solve in fp64 (the head to the end; with
 * mixed.fp64_head=0 too they run fp32): their solves are latency-bound, fp32 saves no time,
 * and its rounding noise costs a fixed number of iterations that a short solve cannot hide. */
#define SMALL_ROWS 2048
/* refinement: the first inner solves' relative tolerance */
#define INITIAL_ETA 1e-5

static int reliable(const mpcg_solver *s)
{
    return mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_MIXED_STRATEGY]) ==
           MPCGI_MIXED_RELIABLE;
}

/* The threshold of the segment that starts from a true residual of norm rnorm. */
static double next_threshold(const mpcg_solver *s, const mpcgi_cg_args *a, double rnorm,
                             const mpcgi_cg_track *tr)
{
    double final = mpcgi_cg_target(s, a->bnorm), level;
    if (reliable(s)) {
        long drop =
            mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_MIXED_RELIABLE_DROP]);
        level = rnorm / (double)drop;
    } else {
        level = tr->eta * rnorm;
        /* the last inner solve aims below tol, so rounding does not cost another restart */
        if (level < final) final *= 0.5;
    }
    return level > final ? level : final;
}

/* A new segment from the true residual rnorm at iteration k: the stall rule's reference. */
static void segment_begin(mpcgi_cg_track *tr, int64_t k, double rnorm)
{
    tr->stall_k = k;
    tr->stall_r = tr->stall_best = rnorm;
}

void mpcgi_mixed_begin(const mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rnorm,
                       mpcgi_cg_track *tr)
{
    segment_begin(tr, k, rnorm);
    tr->stall_window =
        mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_MIXED_STALL_WINDOW]);
    tr->last_true = rnorm;
    tr->eta = INITIAL_ETA;
    tr->threshold = next_threshold(s, a, rnorm, tr);
}

/*
 * The fp64 head. fp32 rounding adds to the residual a broad noise of about eps32 times the
 * residual of the moment, in every eigendirection; started at ||b||, CG then has to bring that
 * noise down to tol, which costs the iterations of a random right-hand side even when b is
 * smooth (b = ones: 42% more iterations than fp64 on poisson3d:64). Started at tol 10^D ||b||
 * (D = mixed.fp64_head, eps32 ~ 1e-7 < 10^-D), the noise lies at or below tol and costs little:
 * the first iterations run in fp64 on the hi + lo values, then r and p become fp32 and the
 * direction is kept. The head's level (absolute), or 0 where there is no head.
 */
static double head_level(const mpcg_solver *s, const mpcgi_cg_args *a)
{
    long digits = mpcgi_options_get(&s->opts, &mpcgi_cg_options.keys[MPCGI_OPT_MIXED_FP64_HEAD]);
    double level = s->tol * pow(10.0, (double)digits);
    if (s->A->csr.n < SMALL_ROWS) level = s->tol; /* small: fp64 to the end */
    if (digits == 0 || level >= 1.0) return 0.0;
    return level * a->bnorm > s->atol ? level * a->bnorm : s->atol;
}

/* v (n doubles) = the same n values as floats, in place through t */
static mpcg_status demote_in_place(mpcg_solver *s, const mpcgi_vec_ops *V32, void *v)
{
    int64_t n = s->A->csr.n;
    MPCG_CHECK(s->ctx, s->V64->copy(s->ctx, n, v, s->t));
    MPCG_CHECK(s->ctx, V32->demote(s->ctx, n, s->t, v));
    return MPCG_SUCCESS;
}

/* The head's check: the true residual (fp64) decides, converged, or the head ends here and
 * the driver goes on in fp32 from r = b - A x with the direction of the last iteration. */
mpcg_status mpcgi_mixed_head_end(mpcg_solver *s, const mpcgi_cg_args *a, double rr_old,
                                 mpcgi_cg_track *tr, mpcg_info *info, mpcg_reason *reason)
{
    double tnorm;
    MPCG_CHECK(s->ctx, mpcgi_cg_measure(s, a, &tnorm, info, reason)); /* r = b - A x (fp64) */
    if (*reason != MPCG_REASON_NONE) return MPCG_SUCCESS;
    tr->next = MPCGI_SEG_HEAD_REACHED;
    a->end->rr = tnorm * tnorm;
    a->end->rr_old = rr_old;
    return MPCG_SUCCESS;
}

/*
 * The stall rule. An fp32 recurrence can stop converging long before its threshold (fp32
 * rounding in the directions of an ill-conditioned A: CG decays towards steepest descent) while
 * it still falls a little, so the true residual is never looked at and the solve runs to its
 * limit. The rule watches the best recurrence residual of the running segment, sampled where
 * the host reads it (every iteration of the host loop, every window of the GPU variants): when
 * mixed.stall_window iterations pass without it falling by STALL_FALL, or it falls at less than
 * STALL_RATE of the solve's fastest rate, the segment has stalled, and the true residual
 * decides as at a threshold (mpcgi_mixed_update, tr->forced). Sampled every K iterations (a GPU
 * window), the test waits for a span k - stall_k >= window and takes the rate over that span, so
 * a stall is found at most K - 1 iterations after the host loop's every-iteration sampling
 * would, and a steady fall is never one (test_solver_mixed: test_stall_sampling, K = 1 .. 64).
 */
int mpcgi_mixed_stalled(const mpcgi_cg_args *a, mpcgi_cg_track *tr, int64_t k, double rnorm)
{
    const int64_t window = tr->stall_window;
    if (a->seg.kind != MPCGI_SEG_MIXED || window == 0) return 0;
    if (rnorm < tr->stall_best) tr->stall_best = rnorm;
    const int64_t span = k - tr->stall_k; /* a GPU window can end past the stall window */
    if (span < window) return 0;
    double rate = log10(tr->stall_r / tr->stall_best) / (double)span; /* decades an iteration */
    if (rate < -log10(STALL_FALL) / (double)window || rate < STALL_RATE * tr->stall_rate) {
        tr->forced = 1;
        return 1;
    }
    if (rate > tr->stall_rate) tr->stall_rate = rate;
    tr->stall_k = k, tr->stall_r = tr->stall_best;
    return 0;
}

int mpcgi_mixed_stop_to_fp64(const mpcgi_cg_args *a, mpcg_reason reason)
{
    return a->seg.kind == MPCGI_SEG_MIXED &&
           (reason == MPCG_DIVERGED_NAN || reason == MPCG_DIVERGED_INDEFINITE_MATRIX ||
            reason == MPCG_DIVERGED_BREAKDOWN);
}

mpcg_status mpcgi_mixed_update(mpcg_solver *s, const mpcgi_cg_args *a, int64_t k, double rr_old,
                               double *rr, double *beta, mpcgi_cg_track *tr, mpcg_info *info,
                               mpcg_reason *reason)
{
    double tnorm, wanted = tr->threshold / tr->last_true;
    const int forced = tr->forced;
    tr->forced = 0;
    MPCG_CHECK(s->ctx, mpcgi_cg_measure(s, a, &tnorm, info, reason)); /* r = b - A x */
    *beta = 0.0;
    if (*reason != MPCG_REASON_NONE) return MPCG_SUCCESS;
    double fell = tnorm / tr->last_true;
    tr->stalls = forced ? tr->stalls + 1 : 0;
    if (fell > PROGRESS || tr->stalls >= MAX_STALLS) {
        tr->next = MPCGI_SEG_FALLBACK; /* the segment ends; the driver goes on in fp64 */
        mpcgi_log(s->ctx, MPCG_LOG_INFO,
                  "mixed: %s at iteration %lld (the true residual fell by %.3g to %.3e since "
                  "the last update): fp32 stopped improving, the solve goes on in fp64",
                  forced ? "the fp32 segment stalled" : "the update", (long long)(a->seg.k0 + k),
                  fell, tnorm / a->bnorm);
        return MPCG_SUCCESS;
    }
    if (forced)
        mpcgi_log(s->ctx, MPCG_LOG_INFO,
                  "mixed: the fp32 segment stalled at iteration %lld: r replaced by the true "
                  "residual (%.3e), CG restarts",
                  (long long)(a->seg.k0 + k), tnorm / a->bnorm);
    info->residual_replacements++;
    if (fell > 10.0 * wanted && fell > tr->eta) tr->eta = fell; /* what fp32 reaches here */
    tr->last_true = tnorm;
    *rr = tnorm * tnorm;
    if (reliable(s) && !forced) *beta = *rr / rr_old; /* a stalled segment restarts */
    tr->threshold = next_threshold(s, a, tnorm, tr);
    segment_begin(tr, k, tnorm);
    return MPCG_SUCCESS;
}

/*
 * The driver: the fp64 head (where it runs), the fp32 segment, resumed from the head's r and
 * direction (r and p demoted in place; the reliable strategy keeps the direction with beta =
 * r.r_true / r.r_old), and the fp64 finish from x where fp32 stopped improving (from the start
 * where the matrix is held in fp64 values). Each is one run of `run` (the chosen variant's).
 */
mpcg_status mpcgi_mixed_run(mpcg_solver *s, const mpcgi_cg_args *a, mpcg_info *info,
                            mpcg_status (*run)(mpcg_solver *, const mpcgi_cg_args *, mpcg_info *))
{
    const mpcgi_vec_ops *V32 = s->V;
    const double level = head_level(s, a);
    mpcgi_cg_seg_end end = {0};
    mpcgi_cg_args g = *a;
    int64_t k = 0;
    g.end = &end;
    /* fp64 storage (a value beyond fp32's range, ...): the fp32 values cannot iterate, the
     * whole solve runs in fp64 (info.storage_fallback says why) */
    if (!mpcgi_spmv_mixed_fallback(s->plan)) {
        g.seg = mpcgi_cg_seg_plain(s, MPCG_PRECISION_FP32);
        g.seg.kind = MPCGI_SEG_MIXED;
        if (level > 0.0) {
            mpcgi_cg_args h = g;
            h.seg = mpcgi_cg_seg_plain(s, MPCG_PRECISION_FP64);
            h.seg.kind = MPCGI_SEG_HEAD;
            h.seg.level = level;
            MPCG_CHECK(s->ctx, run(s, &h, info));
            if (end.next != MPCGI_SEG_HEAD_REACHED) {
                info->mixed_head_iterations = info->iterations; /* ended in the head */
                return MPCG_SUCCESS;
            }
            k = info->mixed_head_iterations = end.k;
            MPCG_CHECK(s->ctx, demote_in_place(s, V32, s->r));
            MPCG_CHECK(s->ctx, demote_in_place(s, V32, s->p));
            g.seg.resume = 1;
            g.seg.rr = end.rr;
            g.seg.rz = end.rz;
            g.seg.beta = reliable(s) ? end.rr / end.rr_old : 0.0; /* reliable: p kept */
            g.seg.k0 = k;
            g.maxit = a->maxit - k;
            g.x_is_zero = 0;
            end.next = MPCGI_SEG_DONE;
        }
        MPCG_CHECK(s->ctx, run(s, &g, info));
        if (end.next != MPCGI_SEG_FALLBACK) return MPCG_SUCCESS;
        k += end.k;
    }
    /* the finish: fp64 from x, its own replacement limit */
    const int64_t updates = info->residual_replacements;
    g.seg = mpcgi_cg_seg_plain(s, MPCG_PRECISION_FP64);
    g.seg.k0 = k;
    g.maxit = a->maxit - k;
    g.x_is_zero = a->x_is_zero && k == 0;
    info->precision_fallback = 1;
    info->fallback_iteration = k;
    info->residual_replacements = 0;
    MPCG_CHECK(s->ctx, run(s, &g, info));
    info->residual_replacements += updates;
    return MPCG_SUCCESS;
}
