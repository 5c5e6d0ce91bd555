/* precond/bjacobi.c: block-Jacobi: the blocks (fixed size or detected node blocks), the
 * inverses of the diagonal blocks (LAPACKE Cholesky), and the host apply */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/alloc.h"
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
        for (int i = j + 1; i < nb; i++) a[(size_t)i * nb + j] = a[(size_t)j * nb + i];
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
        if (B > 0) nb = A->n - i < B ? A->n - i : B;
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

mpcg_status mpcgi_bjacobi_blocks(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc)
{
    MPCG_ENSURE(ctx, HAVE_INVERSE, MPCG_ERR_NOT_SUPPORTED,
                "precond bjacobi: this build has no LAPACKE (configure without "
                "--without-lapacke)");
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

mpcg_status mpcgi_bjacobi_factor(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_precond *pc)
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
                  "(first: rows %lld-%lld)", (long long)pc->diag_blocks, (long long)pc->nblocks,
                  (long long)pc->bstart[pc->first_diag_block] + 1,
                  (long long)pc->bstart[pc->first_diag_block + 1]);
    return MPCG_SUCCESS;
}

void mpcgi_bjacobi_describe(const mpcgi_precond *pc, char *buf, size_t size)
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

/* z = L^-T L^-1 r for one block of nb rows (L row-major lower): forward, then backward
 * substitution in z; the GPU kernel sums in the same order. */
static void cholesky_solve(const double *L, int64_t nb, const double *r, double *z)
{
    for (int64_t i = 0; i < nb; i++) {
        double s = r[i];
        for (int64_t j = 0; j < i; j++) s -= L[i * nb + j] * z[j];
        z[i] = s / L[i * nb + i];
    }
    for (int64_t i = nb - 1; i >= 0; i--) {
        double s = z[i];
        for (int64_t j = i + 1; j < nb; j++) s -= L[j * nb + i] * z[j];
        z[i] = s / L[i * nb + i];
    }
}

void mpcgi_bjacobi_apply_host(const mpcgi_precond *pc, const double *r, double *z)
{
    const int cholesky = pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY;
    /* reads nb^2 + nb values and writes nb per block of nb rows (cholesky: half of the nb^2) */
#pragma omp parallel for schedule(static) if (pc->n > 16384)
    for (int64_t b = 0; b < pc->nblocks; b++) {
        const int64_t start = pc->bstart[b];
        const int64_t nb = pc->bstart[b + 1] - start;
        const double *a = pc->binv + pc->boff[b];
        if (cholesky) {
            cholesky_solve(a, nb, r + start, z + start);
            continue;
        }
        for (int64_t i = 0; i < nb; i++) {
            double s = 0.0;
            for (int64_t j = 0; j < nb; j++) s += a[i * nb + j] * r[start + j];
            z[start + i] = s;
        }
    }
}
