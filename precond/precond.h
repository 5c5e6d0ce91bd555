/* precond/precond.h: preconditioners M ~ A for PCG (none, Jacobi, block-Jacobi, Chebyshev)
 * behind one ops table per kind: the setup on the host from the CSR matrix, z = M^-1 r on the
 * host (the reference) or on the GPU in fp64 or fp32, and what a kind contributes to a fused GPU
 * iteration */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_PRECOND_PRECOND_H
#define MPCG_PRECOND_PRECOND_H

#include <stdint.h>

#include "core/csr.h"
#include "core/vec.h"
#include "mpcg.h"

/* The largest bjacobi block: its inverse is dense (nb^2 values per block, nb per row) and the
 * device apply gives each row one thread that sums nb products. */
#define MPCGI_PRECOND_MAX_BLOCK 64

/* What the solver asks for (mpcg_solver_set_precond and the precond.* options). */
typedef struct mpcgi_precond_params {
    mpcg_precond type;
    int block_size;    /* bjacobi: rows per block, [1, MPCGI_PRECOND_MAX_BLOCK]; 0: detected from
                          the pattern (node blocks of at most MPCGI_PRECOND_MAX_BLOCK rows) */
    int degree;        /* chebyshev: the polynomial's degree (>= 1) */
    double lmin_ratio; /* chebyshev: lambda_min = lmax * lmin_ratio, in (0, 1) */
    int block_apply;   /* bjacobi: MPCGI_BLOCK_APPLY_INVERSE or _CHOLESKY */
    int fp32;          /* 1: create and refresh also build fp32 copies of the arrays (host, and
                          device on a GPU context), each value rounded once from fp64, so that an
                          fp32 apply reads fp32 data; 0: fp32 applies fail */
} mpcgi_precond_params;

/* bjacobi's blocks: their explicit inverses (z_b = Ainv_b r_b, a dense product) or their
 * Cholesky factors L_b (z_b = L_b^-T L_b^-1 r_b, two triangular solves). */
enum { MPCGI_BLOCK_APPLY_INVERSE, MPCGI_BLOCK_APPLY_CHOLESKY };

/* The products with A a preconditioner needs (chebyshev): y = A x where ctx computes, vectors
 * of precision prec (MPCG_PRECISION_FP64: double, MPCG_PRECISION_FP32: float). */
typedef mpcg_status (*mpcgi_precond_spmv_fn)(mpcg_context *ctx, void *user, mpcg_precision prec,
                                             const void *x, void *y);

typedef struct mpcgi_precond {
    const struct mpcgi_precond_ops *ops; /* the kind's table (precond/registry.c) */
    mpcgi_precond_params params;
    int64_t n;
    int on_device; /* the d_ arrays below hold device copies */
    /* jacobi and chebyshev: 1 / a_ii (host; device copy), and with params.fp32 their fp32
     * copies (host; device) */
    double *dinv, *d_dinv;
    float *dinv32, *d_dinv32;
    /* bjacobi: block b holds rows [bstart[b], bstart[b + 1]); its inverse (the explicit inverse
     * of the Cholesky-factored block, row-major, nb x nb; block_apply cholesky: its factor L,
     * zeros above the diagonal) at binv + boff[b]; with params.fp32, binv32 and d_binv32 */
    int64_t nblocks;
    int64_t *bstart, *boff;
    double *binv;
    float *binv32;
    int64_t *d_bstart, *d_boff;
    double *d_binv;
    float *d_binv32;
    /* bjacobi (block_apply inverse): the tiles of the fused form (mpcgi_pc_fused; host and
     * device; ntiles 0 and NULL with block_apply cholesky) */
    int64_t ntiles;
    int64_t *tile_row, *tile_block, *d_tile_row, *d_tile_block;
    int block_max;            /* the largest block */
    int detected;             /* 1: the blocks were detected from the pattern */
    int64_t diag_blocks;      /* blocks that were not SPD and fell back to their diagonal */
    int64_t first_diag_block; /* the first of them (-1: none) */
    /* chebyshev on the Jacobi-scaled matrix D^-1 A: its eigenvalue bounds and the products the
     * setup spent estimating lmax */
    double lmin, lmax;
    int64_t setup_spmvs; /* of the last create or refresh */
    int lanczos_steps;   /* the steps the estimate ran (fewer than 10 where the Krylov space
                            of its start vector was exhausted) */
    int64_t apply_spmvs; /* products with A per apply (chebyshev: degree - 1; others 0) */
    double setup_time_s;
    char describe[200]; /* one line for the reports: "bjacobi, 1806 blocks of up to 3 rows
                           (detected node blocks)" */
} mpcgi_precond;

/* clang-format off */
/* What a preconditioner contributes to a fused GPU iteration (the solver's kernels read it). */
enum { MPCGI_PC_FUSED_NONE = 0,  /* z = r */
       MPCGI_PC_FUSED_DIAG = 1,  /* z = dinv .* r */
       MPCGI_PC_FUSED_BLOCKS = 2,/* z_b = binv_b r_b, explicit inverses of small diagonal blocks, grouped in tiles */
       MPCGI_PC_FUSED_APPLY = 3  /* no fused form: the solver calls mpcgi_precond_apply (chebyshev: a polynomial in D^-1 A; bjacobi with block_apply=cholesky) */ };
#define MPCGI_PC_TILE_ROWS 256   /* most rows of a BLOCKS tile (one CUDA block of 256 threads, a thread a row) */
typedef struct mpcgi_pc_fused {
    int kind;
    int64_t n;
    const void *dinv;          /* DIAG: n values of the precision asked, device */
    int64_t ntiles;            /* BLOCKS: consecutive whole blocks, at most MPCGI_PC_TILE_ROWS rows a tile */
    const int64_t *tile_row;   /* device, ntiles + 1 entries: first row of tile t; tile_row[ntiles] = n */
    const int64_t *tile_block; /* device, ntiles + 1 entries: first block of tile t; tile_block[ntiles] = nblocks */
    const int64_t *bstart;     /* device, nblocks + 1: block b holds rows [bstart[b], bstart[b+1]) */
    const int64_t *boff;       /* device, nblocks + 1: binv_b (row-major nb x nb) at binv + boff[b] */
    const void *binv;          /* device, values of the precision asked */
    int max_block;             /* the largest block's rows */
} mpcgi_pc_fused;
/* clang-format on */

/* Capabilities of a kind (mpcgi_precond_ops.caps). */
enum {
    MPCGI_PC_CAP_SPMV = 1u << 0, /* setup and apply take products with A: spmv must be given */
    MPCGI_PC_CAP_FP32 = 1u << 1, /* applies in fp32 (with params.fp32) */
};

/*
 * One kind of preconditioner: one const table with designated initialisers at the bottom of its
 * file (precond/none.c, jacobi.c, bjacobi.c, chebyshev.c), listed once in precond/registry.c.
 * The dispatcher (precond/precond.c) validates and times; the slots compute. Every slot is
 * required.
 */
struct mpcgi_precond_ops {
    const char *name; /* mpcg_precond_name(type) */
    mpcg_precond type;
    unsigned caps; /* MPCGI_PC_CAP_* */
    /* The checks of pc->params that concern the kind (MPCG_ERR_INVALID_ARG), the pattern's
     * analysis (bjacobi's blocks and tiles), the arrays' allocation (host, and device where
     * pc->on_device; their fp32 twins with params.fp32) and the sizes known without values
     * (apply_spmvs). pc is zeroed but for ops, params, n, on_device; on failure the dispatcher
     * calls destroy. */
    mpcg_status (*setup)(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A);
    /* The numeric step from A's values (the same pattern as at setup): the arrays, their fp32
     * copies and device copies; chebyshev's estimate (its products through spmv, counted in
     * pc->setup_spmvs, which the dispatcher zeroes before). */
    mpcg_status (*refresh)(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                           mpcgi_precond_spmv_fn spmv, void *user);
    /* z = M^-1 r as mpcgi_precond_apply says, its arguments checked. */
    mpcg_status (*apply)(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                         const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                         const void *r, void *z, void *work);
    /* *out (zeroed, n set by the dispatcher): the kind and its device arrays in precision prec
     * (pc on a GPU, fp32 arrays present where prec is fp32: checked by the dispatcher). */
    void (*fused)(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out);
    /* One line for the reports into buf (pc->describe). */
    void (*describe)(const mpcgi_precond *pc, char *buf, size_t size);
    /* Free the kind's arrays (any of them may be NULL: a setup that failed half way). */
    void (*destroy)(mpcg_context *ctx, mpcgi_precond *pc);
};

/* precond/registry.c: the one table of kinds, every mpcg_precond but AUTO once. */
int mpcgi_precond_count(void);
const struct mpcgi_precond_ops *mpcgi_precond_get(int i);                /* NULL out of range */
const struct mpcgi_precond_ops *mpcgi_precond_ops_of(mpcg_precond type); /* NULL: no kind */
extern const struct mpcgi_precond_ops mpcgi_precond_none, mpcgi_precond_jacobi,
    mpcgi_precond_bjacobi, mpcgi_precond_chebyshev;

/* The preconditioner to build for `asked`: itself, or for MPCG_PRECOND_AUTO Jacobi, unless
 * every diagonal entry of A is the same value (then none: D^-1 = I / d would scale CG's iterates
 * and nothing else, and cost 8 B a row); why: the choice in words ("" when not auto). */
mpcg_precond mpcgi_precond_resolve(const mpcgi_csr *A, mpcg_precond asked, char *why, size_t size);

/* dinv[i] = 1 / a_ii for the n rows of a CSR whose row i holds entries ptr[i] .. ptr[i + 1] - 1
 * of col and val, columns strictly increasing in a row (the diagonal of row i is column i);
 * dinv may be NULL (the check alone). Returns the first row whose diagonal entry is missing,
 * not finite or <= 0, or n where there is none (dinv[i] is then set for every row). The one
 * diagonal builder of the host: jacobi and chebyshev (mpcgi_precond_diag) and batched CG. */
int64_t mpcgi_precond_diag_rows(int64_t n, const int64_t *ptr, const int32_t *col,
                                const double *val, double *dinv);

/* Build M from A on the host (checks: a diagonal entry <= 0 or missing fails jacobi, bjacobi and
 * chebyshev with MPCG_ERR_INVALID_ARG naming the row; on a GPU context the arrays are copied to
 * the device). spmv/user: A's product where ctx computes, for chebyshev's lmax estimate (the
 * others may pass NULL). MPCG_PRECOND_NONE gives M = I (apply copies). Parameters out of range
 * fail with MPCG_ERR_INVALID_ARG; bjacobi without LAPACKE with MPCG_ERR_NOT_SUPPORTED. *out is
 * NULL on failure. */
mpcg_status mpcgi_precond_create(mpcg_context *ctx, const mpcgi_csr *A,
                                 const mpcgi_precond_params *p, mpcgi_precond_spmv_fn spmv,
                                 void *user, mpcgi_precond **out);
/* New values of A (same pattern): the numeric setup again, blocks and sizes kept. On failure
 * pc keeps its arrays but must not be applied before a refresh that succeeds. */
mpcg_status mpcgi_precond_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                  mpcgi_precond_spmv_fn spmv, void *user);
void mpcgi_precond_destroy(mpcg_context *ctx, mpcgi_precond *pc);

/* z = M^-1 r where ctx computes (host arrays on a CPU context, device arrays on a GPU one),
 * vectors of precision prec (MPCG_PRECISION_FP64: double, MPCG_PRECISION_FP32: float; fp32
 * needs params.fp32 at create, else MPCG_ERR_INVALID_STATE); z must not alias r. V: the vector
 * table of that precision and place (mpcgi_vec_ops_for(ctx->kind, prec); none and chebyshev
 * use it), work: 2 n values of prec there (chebyshev of degree >= 2; the others may pass NULL),
 * spmv/user as at create (called with prec). */
mpcg_status mpcgi_precond_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                const void *r, void *z, void *work);

/* pc's contribution in precision prec (FP64 or FP32; FP32 needs params.fp32) on a GPU context:
 * fills *out; MPCG_ERR_INVALID_STATE on a CPU context or where the fp32 arrays were not built. */
mpcg_status mpcgi_precond_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out);

#endif /* MPCG_PRECOND_PRECOND_H */
