/* spmv/spmv.h: the SpMV backend table, its dispatcher and the registry */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_SPMV_H
#define MPCG_SPMV_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"
#include "core/options.h"
#include "mpcg.h"
#include "spmv/rows.h"

/*
 * Value precisions a plan is asked for (the `precisions` of analyze and plan_create): the
 * MPCG_CAP_* value bits. MPCGI_PREC_MIXED_STORE asks for the mixed storage: the matrix's
 * A->val32 (hi = (float)a) and A->lo32 (lo = (float)(a - (double)hi)), made by the dispatcher.
 * Such a plan serves two applies (with or without FP32/FP64 in the request):
 *   - apply(MPCG_PRECISION_FP32, float x, float y): y = hi x in fp32, reading hi only (4 bytes
 *     of values per nonzero, the backend's column format), exactly the FP32 apply;
 *   - apply(MPCG_PRECISION_MIXED, double x, double y): y = (hi + lo) x in fp64 arithmetic, each
 *     value reconstructed as (double)hi + (double)lo (exactly a where the split is exact) and
 *     used in the fp64 apply's order; reads 8 bytes of values per nonzero, as fp64 CSR does.
 * Where the split is not exact for some value (mpcgi_csr_split_exact), the dispatcher falls back
 * to fp64 storage for the whole matrix: analyze gets FP64 | FP32 instead of MIXED_STORE (the
 * plan holds fp64 and fp32 values, no low halves), a MIXED apply runs the FP64 apply on the
 * same vectors, and mpcgi_spmv_mixed_fallback says why (also logged at INFO).
 */
#define MPCGI_PREC_MIXED_STORE MPCG_CAP_MIXED_STORE

/* What a backend's layout costs, reported by analyze. */
typedef struct mpcgi_spmv_sizes {
    size_t bytes_matrix;    /* bytes one SpMV reads of the matrix (per precision in use: the
                               fp64 values, or hi + lo, where the plan has them) */
    size_t bytes_matrix32;  /* bytes one fp32 SpMV reads (the fp32 values, hi); 0 without */
    size_t bytes_workspace; /* workspace apply needs (allocated once by the dispatcher) */
    double padding_ratio;   /* stored entries / nnz (1 for CSR) */
    int host_driven;        /* apply waits for the host inside (gather out-of-core): it cannot be
                               captured in a CUDA graph */
} mpcgi_spmv_sizes;

/*
 * How a plan on a device view (mpcg_matrix_view_device_csr; A->dev) is built: the `view` field
 * of a table (docs/backends.md, "Device views"); the dispatcher makes the host copy the level
 * needs and appends what it did to the plan's description.
 *   MPCGI_VIEW_HOST    (0, the default) the layout is built on the host: the dispatcher copies
 *                      the whole view to the host (A's host arrays, refreshed with its values),
 *                      and the backend runs as on host CSR;
 *   MPCGI_VIEW_DEVICE  the layout is built on the device from the view's arrays (its uploads go
 *                      through mpcgi_csr_to_device, core/csr_view.h); analyze may read A's host
 *                      row pointers (copied there once), nothing else of A's host arrays;
 *   MPCGI_VIEW_DIRECT  the plan reads the view's arrays in place; analyze reads nothing of A's
 *                      host arrays (A->dev->max_len is there).
 * DEVICE and DIRECT plans get no host fp32 values (A->val32, A->lo32): they make theirs on the
 * device (MPCGI_PART_VAL32, MPCGI_PART_LO32).
 */
enum { MPCGI_VIEW_HOST = 0, MPCGI_VIEW_DEVICE = 1, MPCGI_VIEW_DIRECT = 2 };

/*
 * One const table per backend, listed in spmv/registry.c. Required: analyze, apply_host (the CPU
 * implementation or the CPU emulation of the device layout: same arrays, same traversal) and
 * destroy; apply and upload are required with MPCG_CAP_NEEDS_DEVICE. update_values may be NULL
 * (the dispatcher re-runs analyze). The dispatcher validates; backends do not validate again.
 */
struct mpcgi_spmv_ops {
    const char *name;        /* registry name = CLI value = JSON value; lower-case, one word */
    const char *description; /* one line for --list-backends */
    unsigned caps;           /* MPCG_CAP_* */
    int view; /* MPCGI_VIEW_*: how a plan on a device view is built */
    /* the backend's option keys ("<name>.<knob>"), or NULL; read in analyze from `opts` */
    const mpcgi_option_table *options;
    /* host: build the layout of A for the value precisions in `precisions` (MPCG_CAP_FP64,
     * MPCG_CAP_FP32, MPCGI_PREC_MIXED_STORE; with FP32, A->val32 holds the fp32 values, with
     * MIXED_STORE also A->lo32 the low halves). A outlives the plan. opts: the solver's options
     * (NULL: every default). */
    mpcg_status (*analyze)(mpcg_context *ctx, const mpcgi_csr *A, unsigned precisions,
                           const mpcgi_options *opts, void **impl, mpcgi_spmv_sizes *sizes);
    /* A's values changed, its pattern did not (device copies are refreshed too if uploaded) */
    mpcg_status (*update_values)(mpcg_context *ctx, void *impl, const mpcgi_csr *A);
    /* copy the layout to the device; may raise sizes->bytes_workspace (library workspaces known
     * only once the device layout exists, e.g. cusparseSpMV_bufferSize) */
    mpcg_status (*upload)(mpcg_context *ctx, void *impl, mpcgi_spmv_sizes *sizes);
    /* y = A x with device vectors of the precision's type (MIXED: double vectors, hi + lo
     * values, see MPCGI_PREC_MIXED_STORE; only on mixed-storage plans); ws: bytes_workspace on
     * the device */
    mpcg_status (*apply)(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                         void *y, void *ws);
    /* y = A x with host vectors (CPU implementation or emulation) */
    mpcg_status (*apply_host)(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                              void *y);
    void (*destroy)(mpcg_context *ctx, void *impl);
    /* Optional: the storage the analysis chose, in words, for `cgsolve --info` and
     * mpcg_backend_describe (e.g. "CSR, uniform path: 4 threads per row"); NULL: the
     * description. */
    void (*describe)(const void *impl, char *buf, size_t size);
    /* Optional (fused CG, capability of the plan): y = A x and *dot_dev = x^T y in one pass over
     * the matrix, on the device, fp64 only. dot_dev is a device double; the reduction is
     * deterministic (fixed order, no floating-point atomics). The partials live in ws (counted in
     * bytes_workspace). When `skip_dev` is not NULL and *skip_dev != 0 (a device int), nothing is
     * computed: the fused CG sets it once it has stopped, so queued iterations leave y and
     * *dot_dev untouched. */
    mpcg_status (*apply_dot)(mpcg_context *ctx, void *impl, const double *x, double *y,
                             double *dot_dev, const int *skip_dev, void *ws);
    /* Optional (the solver's persistent CG loops, spmv/rows.h): the device arrays of the plan's
     * row-sum functor. MPCG_ERR_NOT_SUPPORTED, without recording an error, where this plan's
     * layout has no functor (e.g. a path the loops do not walk). Device plans only; it fills
     * in the values it holds (val, val32: spmv/rows.h), the dispatcher picks one. */
    mpcg_status (*rows)(const void *impl, mpcgi_rows *out);
    /* Optional (the benchmarks): the device apply in `phases` steps named phase_names[i];
     * apply_phase(i) runs step i alone, with apply's arguments (a step reads what the steps
     * before it left in ws: steps 0 .. phases - 1 in order are apply). */
    int phases;
    const char *const *phase_names;
    mpcg_status (*apply_phase)(mpcg_context *ctx, void *impl, mpcg_precision prec, const void *x,
                               void *y, void *ws, int phase);
    /* Optional (block CG): the SpMM Y = A X for s vectors at once, 1 <= s <= MPCGI_BLOCK_MAX
     * (core/block.h), X and Y n x s row-major (row i's s values contiguous: X[i s + j]), device
     * arrays of the precision's type, FP64 or FP32 only (the dispatcher refuses MIXED). ws: the
     * plan's workspace (bytes_workspace); a backend that needs more for SpMM keeps it in its
     * plan, grown on demand. apply_block_host: the same on host arrays (the CPU implementation
     * or the emulation of apply_block's sums); a backend with apply_block has both. */
    mpcg_status (*apply_block)(mpcg_context *ctx, void *impl, mpcg_precision prec, int s,
                               const void *X, void *Y, void *ws);
    mpcg_status (*apply_block_host)(mpcg_context *ctx, void *impl, mpcg_precision prec, int s,
                                    const void *X, void *Y);
};

/* A backend bound to one matrix, on the host or on the device. */
typedef struct mpcgi_spmv_plan {
    const struct mpcgi_spmv_ops *ops;
    void *impl;
    int on_device;       /* 1: apply on device vectors; 0: apply_host on host vectors */
    unsigned precisions; /* value precisions prepared (as analyze got them) */
    int mixed;           /* asked for MIXED_STORE: MIXED applies are served */
    char mixed_fallback[160]; /* why the mixed storage fell back to fp64; "" if it did not */
    char view_note[256];      /* on a device view: how the plan was built from it; else "" */
    const mpcgi_options *opts; /* the options analyze read (owned by the caller, which keeps
                                  them while the plan lives: value updates analyze again) */
    int64_t n;
    mpcgi_spmv_sizes sizes;
    void *ws; /* workspace (device if on_device) */
} mpcgi_spmv_plan;

/* The registry (spmv/registry.c). */
int mpcgi_spmv_count(void);
const struct mpcgi_spmv_ops *mpcgi_spmv_get(int i);
/* Resolve a name ("auto" included) for a context; MPCG_ERR_INVALID_ARG for an unknown name,
 * with the known names in the message. */
mpcg_status mpcgi_spmv_lookup(mpcg_context *ctx, const char *name,
                              const struct mpcgi_spmv_ops **out);
/* The backend registered as `name` ("auto" is not one), or NULL; records no error. */
const struct mpcgi_spmv_ops *mpcgi_spmv_find(const char *name);
/* 1 if name is "auto", the policy (spmv/auto/auto.h) rather than a backend. */
int mpcgi_spmv_is_auto(const char *name);
/* auto's trial order for ops (1 first, 2 next, ...), or 0 when auto never times it: *skip then
 * says why (NULL for a ranked backend). The trial also drops ranked backends the solve does not
 * allow (spmv/auto/auto.c). */
int mpcgi_spmv_auto_rank(const struct mpcgi_spmv_ops *ops, const char **skip);

/* The dispatcher (spmv/spmv.c). */
/* opts: option values for the backend's keys (NULL: the defaults). With MPCG_CAP_FP32 in
 * precisions, A's fp32 copy is made here if it is not there yet (mpcgi_csr_fill_val32): the
 * matrix owns it, every plan reads it. With MPCGI_PREC_MIXED_STORE (the backend must have the
 * cap) also A->lo32 (mpcgi_csr_fill_lo32), or the fp64 fallback (see MPCGI_PREC_MIXED_STORE).
 * update_values checks the split again and re-analyzes where its outcome changed. */
mpcg_status mpcgi_spmv_plan_create(mpcg_context *ctx, const struct mpcgi_spmv_ops *ops,
                                   mpcgi_csr *A, unsigned precisions,
                                   const mpcgi_options *opts, mpcgi_spmv_plan **out);
mpcg_status mpcgi_spmv_plan_update_values(mpcg_context *ctx, mpcgi_spmv_plan *plan,
                                          const mpcgi_csr *A);
/* A device plan built while A had a device view attached for a while (auto's copy of a host
 * matrix, spmv/auto/copy.c; the view now detached) goes on as a plan of A's host arrays: A gets
 * the host fp32 copies a plan built on it would have made (its value updates refresh from them),
 * and the plan's view note is cleared. Only for MPCGI_VIEW_DEVICE plans, whose layout is their
 * own. */
mpcg_status mpcgi_spmv_plan_rehome(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcgi_csr *A);
mpcg_status mpcgi_spmv_apply(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                             const void *x, void *y);
void mpcgi_spmv_plan_destroy(mpcg_context *ctx, mpcgi_spmv_plan *plan);
/* NULL if the plan has no mixed storage or has it as asked; else why it holds fp64 values for
 * the whole matrix instead (the first value whose hi + lo split is not exact). */
const char *mpcgi_spmv_mixed_fallback(const mpcgi_spmv_plan *plan);
/* Step `phase` of a device plan's apply (the phases slot); MPCG_ERR_NOT_SUPPORTED where the
 * backend has no steps or phase is out of range. */
mpcg_status mpcgi_spmv_apply_phase(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                                   const void *x, void *y, int phase);

/* 1 if the plan has a block product (apply_block on the device, apply_block_host on the host). */
int mpcgi_spmv_has_block(const mpcgi_spmv_plan *plan);
/* Y = A X for s vectors (row-major n x s, see apply_block), where the plan computes (device or
 * host arrays); MPCG_ERR_NOT_SUPPORTED naming the backend where it has no block product. */
mpcg_status mpcgi_spmv_apply_block(mpcg_context *ctx, mpcgi_spmv_plan *plan, mpcg_precision prec,
                                   int s, const void *X, void *Y);
/* 1 if the plan's apply waits for the host inside (no CUDA graph can hold it). */
int mpcgi_spmv_host_driven(const mpcgi_spmv_plan *plan);
/* 1 if the plan runs on the device and its backend fuses the dot (apply_dot). */
int mpcgi_spmv_has_apply_dot(const mpcgi_spmv_plan *plan);
/* y = A x and *dot_dev = x^T y on the device (fp64), see apply_dot; MPCG_ERR_NOT_SUPPORTED if
 * the backend has no apply_dot (the caller then runs apply and a separate dot). */
mpcg_status mpcgi_spmv_apply_dot(mpcg_context *ctx, mpcgi_spmv_plan *plan, const double *x,
                                 double *y, double *dot_dev, const int *skip_dev);

/* The plan's row-sum functor for the persistent CG loops (the rows slot) over the values of
 * `prec` (FP64: out->val, out->val32 = NULL; FP32: out->val32, out->val = NULL; a mixed-storage
 * plan has FP32, its hi): MPCG_SUCCESS and *out, or MPCG_ERR_NOT_SUPPORTED without recording an
 * error (no slot, a host plan, the plan was not set up for prec, or a layout without a
 * functor). */
mpcg_status mpcgi_spmv_rows(const mpcgi_spmv_plan *plan, mpcg_precision prec, mpcgi_rows *out);
/* The storage of the plan in words (the describe slot, else the backend's description), and on
 * a device view how the plan was built from it. */
void mpcgi_spmv_describe(const mpcgi_spmv_plan *plan, char *buf, size_t size);

/* The tables. */
extern const struct mpcgi_spmv_ops mpcgi_spmv_cpu;
extern const struct mpcgi_spmv_ops mpcgi_spmv_cusparse; /* CUDA builds only */
extern const struct mpcgi_spmv_ops mpcgi_spmv_adaptive;
extern const struct mpcgi_spmv_ops mpcgi_spmv_segscan; /* CUDA builds only */
extern const struct mpcgi_spmv_ops mpcgi_spmv_fold;    /* CUDA builds only */
extern const struct mpcgi_spmv_ops mpcgi_spmv_cusparse_sell; /* CUDA builds only */
extern const struct mpcgi_spmv_ops mpcgi_spmv_gather;        /* CUDA builds only */

#endif /* MPCG_SPMV_SPMV_H */
