/* precond/bjacobi.c: block-Jacobi: the blocks (fixed size or detected node blocks) and their
 * tiles, the inverses of the diagonal blocks (LAPACKE Cholesky), the host apply in fp64 and
 * fp32, and the kind's table */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/error.h"
#include "precond/precond_impl.h"

#ifdef MPCG_HAVE_LAPACKE
#include <lapacke.h>

#define HAVE_INVERSE 1
/* a := a^-1 for an SPD block of order nb (both triangles set on entry and exit); LAPACK's info:
 * 0, or > 0 where the block is not positive definite (a is then garbage). The block is
 * symmetric, so its row-major storage is also its column-major storage: LAPACK works in place
 * without LAPACKE's transposed copy. */
static int invert_spd(double *a, int nb)
{
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nb, a, nb);
    if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', nb, a, nb);
    if (info != 0) return (int)info;
    for (int j = 0; j < nb; j++) /* the lower triangle (column-major) holds the inverse */
        for (int i = j + 1; i < nb; i++)
            a[(size_t)i * nb + j] = a[(size_t)j * nb + i];
    return 0;
}

/* a := L, the Cholesky factor of the SPD block a = L L^T, row-major: L[i][j] at a[i nb + j] for
 * j <= i, zeros above; the info of invert_spd. */
static int factor_spd(double *a, int nb)
{
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nb, a, nb);
    if (info != 0) return (int)info;
    for (int j = 0; j < nb; j++) /* column-major lower (i >= j at a[j nb + i]) to row-major */
        for (int i = j + 1; i < nb; i++) {
            a[(size_t)i * nb + j] = a[(size_t)j * nb + i];
            a[(size_t)j * nb + i] = 0.0;
        }
    return 0;
}
#else
#define HAVE_INVERSE 0
static int invert_spd(double *a, int nb)
{
    (void)a, (void)nb;
    return -1;
}
static int factor_spd(double *a, int nb)
{
    (void)a, (void)nb;
    return -1;
}
#endif

/* 1 if rows i and j store the same columns. */
static int same_pattern(const mpcgi_csr *A, int64_t i, int64_t j)
{
    const int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
    return len == A->row_ptr[j + 1] - A->row_ptr[j] &&
           memcmp(A->col_idx + A->row_ptr[i], A->col_idx + A->row_ptr[j],
                  (size_t)len * sizeof *A->col_idx) == 0;
}

/* The blocks, as PETSc's inodes find them where B = 0: maximal runs of consecutive rows with
 * the same columns (the dofs of one node of a FEM mesh), at most MPCGI_PRECOND_MAX_BLOCK rows;
 * else runs of B rows. Their count; with bstart, also bstart[0..count]. */
static int64_t find_blocks(const mpcgi_csr *A, int B, int64_t *bstart)
{
    int64_t nblocks = 0;
    for (int64_t i = 0; i < A->n;) {
        int64_t nb = 1;
        if (B > 0)
            nb = A->n - i < B ? A->n - i : B;
        else
            while (i + nb < A->n && nb < MPCGI_PRECOND_MAX_BLOCK && same_pattern(A, i, i + nb))
                nb++;
        if (bstart) bstart[nblocks] = i;
        nblocks++;
        i += nb;
    }
    if (bstart) bstart[nblocks] = A->n;
    return nblocks;
}

/* The parameters bjacobi reads (MPCG_ERR_INVALID_ARG), and LAPACKE (MPCG_ERR_NOT_SUPPORTED). */
static mpcg_status check_params(mpcg_context *ctx, const mpcgi_precond_params *p)
{
    MPCG_ENSURE(
        ctx,
        p->block_apply == MPCGI_BLOCK_APPLY_INVERSE || p->block_apply == MPCGI_BLOCK_APPLY_CHOLESKY,
        MPCG_ERR_INVALID_ARG, "precond bjacobi: block apply %d is not inverse (0) or cholesky (1)",
        p->block_apply);
    MPCG_ENSURE(ctx, p->block_size >= 0 && p->block_size <= MPCGI_PRECOND_MAX_BLOCK,
                MPCG_ERR_INVALID_ARG,
                "precond bjacobi: block size %d out of range [0, %d] (0: detected)", p->block_size,
                MPCGI_PRECOND_MAX_BLOCK);
    MPCG_ENSURE(ctx, HAVE_INVERSE, MPCG_ERR_NOT_SUPPORTED,
                "precond bjacobi: this build has no LAPACKE (configure without "
                "--without-lapacke)");
    return MPCG_SUCCESS;
}

/* The blocks of pc->params.block_size rows (0: detected): pc->nblocks, bstart, boff (host),
 * block_max, detected. */
static mpcg_status blocks(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc)
{
    const int B = pc->params.block_size;
    pc->detected = B == 0;
    pc->nblocks = find_blocks(A, B, NULL);
    const size_t nb = (size_t)pc->nblocks;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nb + 1, sizeof *pc->bstart, &pc->bstart));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nb + 1, sizeof *pc->boff, &pc->boff));
    (void)find_blocks(A, B, pc->bstart);
    pc->block_max = 0;
    pc->boff[0] = 0;
    for (int64_t b = 0; b < pc->nblocks; b++) {
        const int64_t len = pc->bstart[b + 1] - pc->bstart[b];
        if (len > pc->block_max) pc->block_max = (int)len;
        pc->boff[b + 1] = pc->boff[b] + len * len;
    }
    return MPCG_SUCCESS;
}

int64_t mpcgi_bjacobi_tiles(int64_t nblocks, const int64_t *bstart, int64_t *tile_row,
                            int64_t *tile_block)
{
    int64_t ntiles = 0;
    for (int64_t b = 0; b < nblocks;) {
        /* a block has at most MPCGI_PRECOND_MAX_BLOCK <= MPCGI_PC_TILE_ROWS rows: each tile
         * takes at least one */
        int64_t end = b + 1;
        while (end < nblocks && bstart[end + 1] - bstart[b] <= MPCGI_PC_TILE_ROWS)
            end++;
        if (tile_row) tile_row[ntiles] = bstart[b], tile_block[ntiles] = b;
        ntiles++;
        b = end;
    }
    if (tile_row) tile_row[ntiles] = bstart[nblocks], tile_block[ntiles] = nblocks;
    return ntiles;
}

/* A host array of count indices copied to a new device array *d. */
static mpcg_status upload_index(mpcg_context *ctx, size_t count, const int64_t *h, int64_t **d)
{
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, count * sizeof *h, d));
    return mpcgi_device_copy(ctx, *d, h, count * sizeof *h, MPCGI_H2D);
}

/* The fused form's tiles (block_apply inverse): host, and device where pc->on_device. */
static mpcg_status tiles(mpcg_context *ctx, mpcgi_precond *pc)
{
    pc->ntiles = mpcgi_bjacobi_tiles(pc->nblocks, pc->bstart, NULL, NULL);
    const size_t nt = (size_t)pc->ntiles + 1;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nt, sizeof *pc->tile_row, &pc->tile_row));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nt, sizeof *pc->tile_block, &pc->tile_block));
    (void)mpcgi_bjacobi_tiles(pc->nblocks, pc->bstart, pc->tile_row, pc->tile_block);
    if (!pc->on_device) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, upload_index(ctx, nt, pc->tile_row, &pc->d_tile_row));
    return upload_index(ctx, nt, pc->tile_block, &pc->d_tile_block);
}

static mpcg_status bjacobi_setup(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A)
{
    MPCG_CHECK(ctx, check_params(ctx, &pc->params));
    pc->first_diag_block = -1;
    MPCG_CHECK(ctx, blocks(ctx, A, pc));
    const size_t nb = (size_t)pc->nblocks + 1;
    MPCG_CHECK(ctx, mpcgi_precond_vals_alloc(ctx, pc, (size_t)pc->boff[pc->nblocks], &pc->binv,
                                             &pc->binv32, &pc->d_binv, &pc->d_binv32));
    if (pc->params.block_apply == MPCGI_BLOCK_APPLY_INVERSE) MPCG_CHECK(ctx, tiles(ctx, pc));
    if (!pc->on_device) return MPCG_SUCCESS;
    MPCG_CHECK(ctx, upload_index(ctx, nb, pc->bstart, &pc->d_bstart));
    return upload_index(ctx, nb, pc->boff, &pc->d_boff);
}

/* a (nb x nb, row-major) = A[start:start+nb, start:start+nb] from the CSR rows. */
static void dense_block(const mpcgi_csr *A, int64_t start, int nb, double *a)
{
    memset(a, 0, (size_t)nb * (size_t)nb * sizeof *a);
    for (int i = 0; i < nb; i++)
        for (int64_t k = A->row_ptr[start + i]; k < A->row_ptr[start + i + 1]; k++) {
            const int64_t j = A->col_idx[k] - start;
            if (j >= 0 && j < nb) a[(size_t)i * nb + (size_t)j] = A->val[k];
        }
}

/* A block that is not SPD: M's block is its diagonal (positive: checked before), stored as its
 * inverse or as its Cholesky factor (sqrt a_ii). */
static void diagonal_block(const mpcgi_csr *A, int64_t start, int nb, int cholesky, double *a)
{
    memset(a, 0, (size_t)nb * (size_t)nb * sizeof *a);
    for (int i = 0; i < nb; i++) {
        const double d = A->val[mpcgi_csr_find(A, start + i, (int32_t)(start + i))];
        a[(size_t)i * nb + (size_t)i] = cholesky ? sqrt(d) : 1.0 / d;
    }
}

/* pc->binv = the blocks' inverses (or factors) from A's values; diag_blocks and
 * first_diag_block count the blocks that fell back to their diagonal. */
static mpcg_status factor(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc)
{
    const int cholesky = pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY;
    pc->diag_blocks = 0;
    pc->first_diag_block = -1;
    /* One block after the other: LAPACK's thread safety depends on how the system's library was
     * built, and the blocks are small (a 3 x 3 Cholesky and inverse is well under a microsecond,
     * so a million rows take a fraction of a second). */
    for (int64_t b = 0; b < pc->nblocks; b++) {
        const int64_t start = pc->bstart[b];
        const int nb = (int)(pc->bstart[b + 1] - start);
        double *a = pc->binv + pc->boff[b];
        dense_block(A, start, nb, a);
        const int info = cholesky ? factor_spd(a, nb) : invert_spd(a, nb);
        MPCG_ENSURE(ctx, info >= 0, MPCG_ERR_INTERNAL,
                    "precond bjacobi: LAPACKE_dpotrf/dpotri rejected argument %d of block %lld",
                    -info, (long long)b);
        if (info > 0) {
            diagonal_block(A, start, nb, cholesky, a);
            if (!pc->diag_blocks++) pc->first_diag_block = b;
        }
    }
    if (pc->diag_blocks)
        mpcgi_log(ctx, MPCG_LOG_WARN,
                  "precond bjacobi: %lld of %lld blocks are not SPD and use their diagonal "
                  "(first: rows %lld-%lld)",
                  (long long)pc->diag_blocks, (long long)pc->nblocks,
                  (long long)pc->bstart[pc->first_diag_block] + 1,
                  (long long)pc->bstart[pc->first_diag_block + 1]);
    return MPCG_SUCCESS;
}

static mpcg_status bjacobi_refresh(mpcg_context *ctx, mpcgi_precond *pc, const mpcgi_csr *A,
                                   mpcgi_precond_spmv_fn spmv, void *user)
{
    (void)spmv, (void)user;
    MPCG_CHECK(ctx, mpcgi_precond_diag(ctx, A, pc->ops->name, NULL));
    MPCG_CHECK(ctx, factor(ctx, A, pc));
    return mpcgi_precond_vals_sync(ctx, pc, (size_t)pc->boff[pc->nblocks], pc->binv, pc->binv32,
                                   pc->d_binv, pc->d_binv32);
}

static void bjacobi_describe(const mpcgi_precond *pc, char *buf, size_t size)
{
    const long long nb = pc->nblocks, f = pc->first_diag_block;
    const long long last = nb ? pc->bstart[nb] - pc->bstart[nb - 1] : 0;
    const char *blocks = nb == 1 ? "block" : "blocks", *rows = pc->block_max == 1 ? "row" : "rows";
    char tail[128] = "";
    int len = 0;
    if (pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY)
        len = snprintf(tail, sizeof tail, ", Cholesky factors");
    if (pc->diag_blocks)
        snprintf(tail + len, sizeof tail - (size_t)len,
                 "; %lld not SPD, their diagonal used (first: rows %lld-%lld)",
                 (long long)pc->diag_blocks, (long long)pc->bstart[f] + 1,
                 (long long)pc->bstart[f + 1]);
    if (pc->detected)
        snprintf(buf, size, "bjacobi, %lld %s of up to %d %s (detected node blocks)%s", nb, blocks,
                 pc->block_max, rows, tail);
    else if (last == pc->block_max)
        snprintf(buf, size, "bjacobi, %lld %s of %d %s%s", nb, blocks, pc->block_max, rows, tail);
    else
        snprintf(buf, size, "bjacobi, %lld %s of %d %s, the last of %lld%s", nb, blocks,
                 pc->block_max, rows, last, tail);
}

#define T double
#define SUFFIX f64
#include "precond/bjacobi_impl.h"
#undef T
#undef SUFFIX
#define T float
#define SUFFIX f32
#include "precond/bjacobi_impl.h"
#undef T
#undef SUFFIX

void mpcgi_bjacobi_apply_host(const mpcgi_precond *pc, mpcg_precision prec, const void *r, void *z)
{
    if (prec == MPCG_PRECISION_FP32)
        apply_blocks_f32(pc, pc->binv32, r, z);
    else
        apply_blocks_f64(pc, pc->binv, r, z);
}

static mpcg_status bjacobi_apply(mpcg_context *ctx, const mpcgi_precond *pc, mpcg_precision prec,
                                 const mpcgi_vec_ops *V, mpcgi_precond_spmv_fn spmv, void *user,
                                 const void *r, void *z, void *work)
{
    (void)V, (void)spmv, (void)user, (void)work;
    if (pc->on_device) return mpcgi_precond_device_blocks(ctx, pc, prec, r, z);
    mpcgi_bjacobi_apply_host(pc, prec, r, z);
    return MPCG_SUCCESS;
}

/* The explicit inverses in tiles; the Cholesky factors have no fused form. */
static void bjacobi_fused(const mpcgi_precond *pc, mpcg_precision prec, mpcgi_pc_fused *out)
{
    if (pc->params.block_apply != MPCGI_BLOCK_APPLY_INVERSE) {
        out->kind = MPCGI_PC_FUSED_APPLY;
        return;
    }
    out->kind = MPCGI_PC_FUSED_BLOCKS;
    out->ntiles = pc->ntiles;
    out->tile_row = pc->d_tile_row;
    out->tile_block = pc->d_tile_block;
    out->bstart = pc->d_bstart;
    out->boff = pc->d_boff;
    out->binv = prec == MPCG_PRECISION_FP32 ? (const void *)pc->d_binv32 : pc->d_binv;
    out->max_block = pc->block_max;
}

static void bjacobi_destroy(mpcg_context *ctx, mpcgi_precond *pc)
{
    mpcgi_precond_vals_free(ctx, pc, pc->binv, pc->binv32, pc->d_binv, pc->d_binv32);
    mpcgi_host_free(pc->bstart);
    mpcgi_host_free(pc->boff);
    mpcgi_host_free(pc->tile_row);
    mpcgi_host_free(pc->tile_block);
    if (!pc->on_device) return;
    mpcgi_device_free(ctx, pc->d_bstart);
    mpcgi_device_free(ctx, pc->d_boff);
    mpcgi_device_free(ctx, pc->d_tile_row);
    mpcgi_device_free(ctx, pc->d_tile_block);
}

const struct mpcgi_precond_ops mpcgi_precond_bjacobi = {
    .name = "bjacobi",
    .type = MPCG_PRECOND_BJACOBI,
    .caps = MPCGI_PC_CAP_FP32,
    .setup = bjacobi_setup,
    .refresh = bjacobi_refresh,
    .apply = bjacobi_apply,
    .fused = bjacobi_fused,
    .describe = bjacobi_describe,
    .destroy = bjacobi_destroy,
};
