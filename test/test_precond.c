/* test/test_precond.c: the preconditioners (none, jacobi, bjacobi, chebyshev) against
 * independent references on hand-made, bundled and generated SPD matrices; their rejections; the
 * kinds' table, bjacobi's tiles, the fp32 applies against the fp64 ones, the fused forms; the
 * GPU applies (fp64 and fp32) against the host's (skipped without a GPU) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/matrix.h"
#include "precond/precond_impl.h"
#include "solver/options.h"
#include "solver/solver.h"
#include "spmv/spmv.h"
#include "test/testutil.h"

static mpcg_context *cpu, *gpu;

/* bjacobi needs LAPACKE; without it its create fails (test_hand) and its checks are skipped */
#ifdef MPCG_HAVE_LAPACKE
#define HAVE_LAPACKE 1
#else
#define HAVE_LAPACKE 0
#endif

/* ---------------------------------------------------------------- helpers */

/* The preconditioner's SpMV callback: user is an SpMV plan of the same context (of the
 * precision asked). */
static mpcg_status plan_spmv(mpcg_context *ctx, void *user, mpcg_precision prec, const void *x,
                             void *y)
{
    return mpcgi_spmv_apply(ctx, user, prec, x, y);
}

/* A plan for the precisions asked (MPCG_CAP_FP64, with MPCG_CAP_FP32: A's val32 made too). */
static mpcgi_spmv_plan *make_plan_for(mpcg_context *ctx, mpcgi_csr *A, unsigned precisions)
{
    const struct mpcgi_spmv_ops *ops = NULL;
    mpcgi_spmv_plan *plan = NULL;
    /* cusparse on a GPU, as when these checks were measured ("auto" names the first candidate
     * of its trial there) */
    CHECK_OK(ctx, mpcgi_spmv_lookup(
                      ctx, mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA ? "cusparse" : "auto",
                      &ops));
    if (ops) CHECK_OK(ctx, mpcgi_spmv_plan_create(ctx, ops, A, precisions, NULL, &plan));
    return plan;
}

static mpcgi_spmv_plan *make_plan(mpcg_context *ctx, mpcgi_csr *A)
{
    return make_plan_for(ctx, A, MPCG_CAP_FP64);
}

static mpcgi_precond_params params(mpcg_precond type, int block_size, int degree)
{
    return (mpcgi_precond_params){type, block_size, degree, 0.1, MPCGI_BLOCK_APPLY_INVERSE, 0};
}

static double *vec(int64_t n)
{
    double *v = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n, sizeof *v, &v));
    return v;
}

static void random_vec(mpcgi_rng *g, int64_t n, double *v)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = 2 * mpcgi_rng_uniform(g) - 1;
}

/* y = A x, in the test's own loop */
static void csr_mv(const mpcgi_csr *A, const double *x, double *y)
{
    for (int64_t i = 0; i < A->n; i++) {
        double s = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            s += A->val[k] * x[A->col_idx[k]];
        y[i] = s;
    }
}

static double diag_of(const mpcgi_csr *A, int64_t i)
{
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        if (A->col_idx[k] == i) return A->val[k];
    return NAN;
}

static double max_abs(int64_t n, const double *x)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* ||x - y||_inf <= tol ||y||_inf, NaN failing */
static int vec_close(int64_t n, const double *x, const double *y, double tol)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++)
        d = isnan(x[i]) ? INFINITY : fmax(d, fabs(x[i] - y[i]));
    return d <= tol * max_abs(n, y);
}

/* vec_close for float vectors (compared in double) */
static int vec_close_f32(int64_t n, const float *x, const float *y, double tol)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        d = isnan(x[i]) ? INFINITY : fmax(d, fabs((double)x[i] - (double)y[i]));
        m = fmax(m, fabs((double)y[i]));
    }
    return d <= tol * m;
}

static double dot(int64_t n, const double *x, const double *y)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* Create a preconditioner on the CPU and apply it to r (work allocated here). */
static mpcgi_precond *cpu_apply(mpcgi_csr *A, mpcgi_spmv_plan *plan, mpcgi_precond_params p,
                                const double *r, double *z)
{
    mpcgi_precond *pc = NULL;
    double *work = vec(2 * A->n + 1);
    CHECK_OK(cpu, mpcgi_precond_create(cpu, A, &p, plan_spmv, plan, &pc));
    if (pc)
        CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host, plan_spmv,
                                          plan, r, z, work));
    mpcgi_host_free(work);
    return pc;
}

/* ---------------------------------------------------------------- hand-checked */

static void test_tridiag(void)
{
    const double a2[] = {2, 2}, b2[] = {1}, a3[] = {2, 2, 2}, b3[] = {-1, -1}, a1[] = {5};
    CHECK(test_close(mpcgi_tridiag_lmax(2, a2, b2), 3, 1e-14, 0));
    CHECK(test_close(mpcgi_tridiag_lmax(3, a3, b3), 2 + sqrt(2.0), 1e-14, 0));
    CHECK(test_close(mpcgi_tridiag_lmax(1, a1, NULL), 5, 1e-14, 0));
}

/* diag(4, 2) with a 1 off the diagonal: M^-1 of each kind by hand */
static void test_hand(void)
{
    const int64_t rp[] = {0, 2, 4};
    const int32_t col[] = {0, 1, 0, 1};
    const double val[] = {4, 1, 1, 2}, r[] = {1, 3};
    mpcgi_csr A = {.n = 2,
                   .nnz = 4,
                   .row_ptr = (int64_t *)rp,
                   .col_idx = (int32_t *)col,
                   .val = (double *)val};
    double z[2] = {NAN, NAN};
    mpcgi_precond *pc = cpu_apply(&A, NULL, params(MPCG_PRECOND_NONE, 0, 0), r, z);
    CHECK(pc && z[0] == 1 && z[1] == 3 && pc->apply_spmvs == 0 && !strcmp(pc->describe, "none"));
    mpcgi_precond_destroy(cpu, pc);

    pc = cpu_apply(&A, NULL, params(MPCG_PRECOND_JACOBI, 0, 0), r, z);
    CHECK(pc && z[0] == 0.25 && z[1] == 1.5 && pc->apply_spmvs == 0);
    mpcgi_precond_destroy(cpu, pc);
    if (!HAVE_LAPACKE) {
        mpcgi_precond_params p = params(MPCG_PRECOND_BJACOBI, 2, 0);
        pc = NULL;
        CHECK_STATUS(cpu, mpcgi_precond_create(cpu, &A, &p, NULL, NULL, &pc),
                     MPCG_ERR_NOT_SUPPORTED);
        CHECK(!pc && strstr(mpcg_last_error(cpu), "this build has no LAPACKE"));
        mpcg_clear_error(cpu);
        return;
    }
    /* the whole matrix is one block: A^-1 = [[2, -1], [-1, 4]] / 7 */
    pc = cpu_apply(&A, NULL, params(MPCG_PRECOND_BJACOBI, 2, 0), r, z);
    CHECK(pc && test_close(z[0], -1.0 / 7, 1e-15, 0) && test_close(z[1], 11.0 / 7, 1e-15, 0));
    CHECK(pc && pc->nblocks == 1 && pc->block_max == 2 && !pc->detected && !pc->diag_blocks);
    if (pc) printf("  hand: %s\n", pc->describe);
    mpcgi_precond_destroy(cpu, pc);
}

/* A zero, a negative and a missing diagonal entry in row 2 (1-based); bad parameters */
static void test_rejections(void)
{
    const int64_t rp[] = {0, 2, 4, 5}, rp_missing[] = {0, 2, 3, 4};
    const int32_t col[] = {0, 1, 0, 1, 2}, col_missing[] = {0, 1, 0, 2};
    double val[] = {4, 1, 1, 0, 3};
    mpcgi_csr A = {
        .n = 3, .nnz = 5, .row_ptr = (int64_t *)rp, .col_idx = (int32_t *)col, .val = val};
    mpcgi_csr M = {.n = 3,
                   .nnz = 4,
                   .row_ptr = (int64_t *)rp_missing,
                   .col_idx = (int32_t *)col_missing,
                   .val = val};
    const struct {
        mpcg_precond type;
        const char *name;
    } kinds[] = {{MPCG_PRECOND_JACOBI, "jacobi"},
                 {MPCG_PRECOND_BJACOBI, "bjacobi"},
                 {MPCG_PRECOND_CHEBYSHEV, "chebyshev"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        mpcgi_precond_params p = params(kinds[k].type, 0, 2);
        mpcgi_precond *pc = NULL;
        char want[128];
        if (!HAVE_LAPACKE && kinds[k].type == MPCG_PRECOND_BJACOBI) continue;
        const double bad[] = {0, -2};
        for (int b = 0; b < 2; b++) {
            val[3] = bad[b];
            CHECK_STATUS(cpu, mpcgi_precond_create(cpu, &A, &p, plan_spmv, NULL, &pc),
                         MPCG_ERR_INVALID_ARG);
            snprintf(want, sizeof want, "precond %s: row 2: diagonal entry %g <= 0 (A is not SPD)",
                     kinds[k].name, bad[b]);
            CHECK(!pc && strstr(mpcg_last_error(cpu), want));
            mpcg_clear_error(cpu);
        }
        CHECK_STATUS(cpu, mpcgi_precond_create(cpu, &M, &p, plan_spmv, NULL, &pc),
                     MPCG_ERR_INVALID_ARG);
        CHECK(!pc && strstr(mpcg_last_error(cpu), "row 2: no diagonal entry"));
        mpcg_clear_error(cpu);
    }
    val[3] = 2;
    const mpcgi_precond_params bad[] = {
        params(MPCG_PRECOND_BJACOBI, MPCGI_PRECOND_MAX_BLOCK + 1, 0),
        params(MPCG_PRECOND_BJACOBI, -1, 0),
        params(MPCG_PRECOND_CHEBYSHEV, 0, 0),
        {MPCG_PRECOND_CHEBYSHEV, 0, 2, 1.0, 0, 0},
        {MPCG_PRECOND_CHEBYSHEV, 0, 2, 0.0, 0, 0},
        {MPCG_PRECOND_BJACOBI, 2, 0, 0.1, 2, 0},
        {MPCG_PRECOND_AUTO, 0, 0, 0, 0, 0},
        {(mpcg_precond)7, 0, 0, 0, 0, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mpcgi_precond *pc = NULL;
        CHECK_STATUS(cpu, mpcgi_precond_create(cpu, &A, &bad[k], plan_spmv, NULL, &pc),
                     MPCG_ERR_INVALID_ARG);
        CHECK(!pc);
        mpcg_clear_error(cpu);
    }
    mpcgi_precond_params p = params(MPCG_PRECOND_CHEBYSHEV, 0, 2);
    mpcgi_precond *pc = NULL;
    CHECK_STATUS(cpu, mpcgi_precond_create(cpu, &A, &p, NULL, NULL, &pc), MPCG_ERR_INVALID_ARG);
    CHECK(!pc && strstr(mpcg_last_error(cpu), "no SpMV callback"));
    mpcg_clear_error(cpu);
}

/* ---------------------------------------------------------------- block-Jacobi */

/* A_bb z_b == r_b for every block b of pc (that is not a diagonal fallback), multiplied back
 * with A's own entries inside the block */
static void check_blocks(const char *name, const mpcgi_csr *A, const mpcgi_precond *pc,
                         const double *r, const double *z)
{
    int bad = 0;
    CHECK(pc->bstart[0] == 0 && pc->bstart[pc->nblocks] == A->n);
    for (int64_t b = 0; b < pc->nblocks; b++) {
        const int64_t s = pc->bstart[b], e = pc->bstart[b + 1];
        CHECK(e > s && e - s <= pc->block_max);
        for (int64_t i = s; i < e; i++) {
            double y = 0, scale = fabs(r[i]);
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                if (A->col_idx[k] >= s && A->col_idx[k] < e) {
                    y += A->val[k] * z[A->col_idx[k]];
                    scale = fmax(scale, fabs(A->val[k] * z[A->col_idx[k]]));
                }
            bad += !(fabs(y - r[i]) <= 1e-10 * scale);
        }
    }
    if (bad) fprintf(stderr, "%s: %s: %d rows with A_bb z_b != r_b\n", name, pc->describe, bad);
    CHECK(bad == 0);
}

/* 7 nodes of 3 dofs in a chain: the rows of a node share their columns (those of the node and
 * its neighbours), so the detected blocks are the nodes */
static void test_detect_nodes(void)
{
    enum { NODES = 7, DOF = 3, N = NODES * DOF, MAXNZ = N * 3 * DOF };
    int32_t ri[MAXNZ], ci[MAXNZ];
    double v[MAXNZ];
    int64_t nz = 0;
    for (int I = 0; I < NODES; I++)
        for (int J = I - 1; J <= I + 1; J++)
            for (int a = 0; J >= 0 && J < NODES && a < DOF; a++)
                for (int b = 0; b < DOF; b++) {
                    ri[nz] = I * DOF + a, ci[nz] = J * DOF + b;
                    v[nz++] = I != J ? -1.0 : a == b ? 10.0 : 0.5;
                }
    mpcgi_csr A;
    CHECK_OK(cpu, mpcgi_csr_from_coo(cpu, N, nz, ri, ci, v, &A));
    double r[N], z[N];
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 3);
    random_vec(&g, N, r);
    mpcgi_precond *pc = cpu_apply(&A, NULL, params(MPCG_PRECOND_BJACOBI, 0, 0), r, z);
    CHECK(pc && pc->detected && pc->nblocks == NODES && pc->block_max == DOF);
    for (int64_t b = 0; pc && b <= pc->nblocks; b++)
        CHECK(pc->bstart[b] == DOF * b);
    CHECK(pc && !strcmp(pc->describe, "bjacobi, 7 blocks of up to 3 rows (detected node blocks)"));
    if (pc) check_blocks("3-dof chain", &A, pc, r, z);
    mpcgi_precond_destroy(cpu, pc);
    mpcgi_csr_free(&A);
}

/* A dense 100 x 100 matrix: one pattern, cut into blocks of 64 and 36 rows */
static void test_detect_cap(void)
{
    enum { N = 100 };
    static int32_t ri[N * N], ci[N * N];
    static double v[N * N], r[N], z[N];
    for (int i = 0; i < N * N; i++)
        ri[i] = i / N, ci[i] = i % N, v[i] = ri[i] == ci[i] ? 200 : 1;
    mpcgi_csr A;
    CHECK_OK(cpu, mpcgi_csr_from_coo(cpu, N, N * N, ri, ci, v, &A));
    for (int i = 0; i < N; i++)
        r[i] = 1 + i % 3;
    mpcgi_precond *pc = cpu_apply(&A, NULL, params(MPCG_PRECOND_BJACOBI, 0, 0), r, z);
    CHECK(pc && pc->nblocks == 2 && pc->bstart[1] == MPCGI_PRECOND_MAX_BLOCK);
    CHECK(pc && pc->block_max == MPCGI_PRECOND_MAX_BLOCK && pc->boff[2] == 64 * 64 + 36 * 36);
    if (pc) check_blocks("dense 100", &A, pc, r, z);
    mpcgi_precond_destroy(cpu, pc);
    mpcgi_csr_free(&A);
}

/* [[1, 2], [2, 1]] is not SPD (its diagonal is): that block falls back to its diagonal */
static void test_not_spd_block(void)
{
    const int64_t rp[] = {0, 2, 4, 6, 8};
    const int32_t col[] = {0, 1, 0, 1, 2, 3, 2, 3};
    const double val[] = {1, 2, 2, 1, 4, 1, 1, 3}, r[] = {1, 2, 3, 4};
    mpcgi_csr A = {.n = 4,
                   .nnz = 8,
                   .row_ptr = (int64_t *)rp,
                   .col_idx = (int32_t *)col,
                   .val = (double *)val};
    for (int k = 0; k < 4; k++) { /* B = 0 (detected: the same two blocks) or 2; both applies */
        double z[4] = {NAN, NAN, NAN, NAN};
        mpcgi_precond_params p = params(MPCG_PRECOND_BJACOBI, 2 * (k & 1), 0);
        p.block_apply = k >> 1 ? MPCGI_BLOCK_APPLY_CHOLESKY : MPCGI_BLOCK_APPLY_INVERSE;
        mpcgi_precond *pc = cpu_apply(&A, NULL, p, r, z);
        CHECK(pc && pc->nblocks == 2 && pc->diag_blocks == 1 && pc->first_diag_block == 0);
        CHECK(pc && strstr(pc->describe, "1 not SPD, their diagonal used (first: rows 1-2)"));
        /* block 0: r / diag; block 1: [[4, 1], [1, 3]]^-1 [3, 4] = [5, 13] / 11 */
        CHECK(test_close(z[0], 1.0, 1e-15, 0) && test_close(z[1], 2.0, 1e-15, 0));
        CHECK(test_close(z[2], 5.0 / 11, 1e-15, 0) && test_close(z[3], 13.0 / 11, 1e-15, 0));
        if (pc) printf("  not SPD: %s\n", pc->describe);
        mpcgi_precond_destroy(cpu, pc);
    }
}

/* ---------------------------------------------------------------- the table */

/* Every mpcg_precond but AUTO has exactly one entry, named as mpcg_precond_name names it, with
 * every slot set; AUTO and unknown types have none */
static void test_table(void)
{
    CHECK(mpcgi_precond_count() == 4 && !mpcgi_precond_get(-1) && !mpcgi_precond_get(4));
    for (mpcg_precond t = MPCG_PRECOND_NONE; t <= MPCG_PRECOND_AUTO; t++) {
        int entries = 0;
        for (int i = 0; i < mpcgi_precond_count(); i++) {
            const struct mpcgi_precond_ops *ops = mpcgi_precond_get(i);
            if (!ops || ops->type != t) continue;
            entries++;
            CHECK(strcmp(ops->name, mpcg_precond_name(t)) == 0 && mpcgi_precond_ops_of(t) == ops);
            CHECK(ops->setup && ops->refresh && ops->apply && ops->fused && ops->describe &&
                  ops->destroy && (ops->caps & MPCGI_PC_CAP_FP32));
            CHECK(!(ops->caps & MPCGI_PC_CAP_SPMV) == (t != MPCG_PRECOND_CHEBYSHEV));
        }
        CHECK(entries == (t == MPCG_PRECOND_AUTO ? 0 : 1));
    }
    CHECK(!mpcgi_precond_ops_of(MPCG_PRECOND_AUTO) && !mpcgi_precond_ops_of((mpcg_precond)7));
}

/* mpcgi_precond_diag_rows (jacobi's and batched CG's diagonal): 1 / a_ii, or the first row whose
 * diagonal entry is missing, <= 0 or not finite */
static void test_diag_rows(void)
{
    const int64_t rp[] = {0, 2, 4, 5};
    const int32_t col[] = {0, 1, 0, 1, 2}, col_missing[] = {0, 1, 0, 2, 2};
    double val[] = {4, 1, 1, 2, 8}, dinv[3] = {NAN, NAN, NAN};
    CHECK(mpcgi_precond_diag_rows(3, rp, col, val, dinv) == 3);
    CHECK(dinv[0] == 0.25 && dinv[1] == 0.5 && dinv[2] == 0.125);
    CHECK(mpcgi_precond_diag_rows(3, rp, col_missing, val, NULL) == 1);
    const double bad[] = {0, -1, INFINITY, NAN};
    for (int k = 0; k < 4; k++) {
        val[4] = bad[k];
        CHECK(mpcgi_precond_diag_rows(3, rp, col, val, dinv) == 2);
    }
    CHECK(mpcgi_precond_diag_rows(0, rp, col, val, NULL) == 0);
}

/* The tiles' invariants over bstart (nblocks blocks): they cover 0..n exactly, start on block
 * boundaries, hold at most MPCGI_PC_TILE_ROWS rows, and each is as long as the greedy walk makes
 * it (the next block would not fit) */
static int tiles_ok(int64_t nblocks, const int64_t *bstart, int64_t ntiles, const int64_t *row,
                    const int64_t *blk)
{
    int ok = ntiles == mpcgi_bjacobi_tiles(nblocks, bstart, NULL, NULL);
    ok &= row[0] == 0 && blk[0] == 0 && row[ntiles] == bstart[nblocks] && blk[ntiles] == nblocks;
    ok &= nblocks == 0 ? ntiles == 0 : ntiles >= 1;
    for (int64_t t = 0; t < ntiles; t++) {
        ok &= blk[t] < blk[t + 1] && row[t] == bstart[blk[t]] && row[t + 1] == bstart[blk[t + 1]];
        ok &= row[t + 1] - row[t] <= MPCGI_PC_TILE_ROWS;
        if (t + 1 < ntiles) ok &= bstart[blk[t + 1] + 1] - row[t] > MPCGI_PC_TILE_ROWS;
    }
    return ok;
}

/* Tiles of random blocks of 1 to 64 rows, of 64-row blocks, of 1-row blocks and of none */
static void test_tiles(void)
{
    enum { MAXB = 2000 };
    static int64_t bstart[MAXB + 1], row[MAXB + 1], blk[MAXB + 1];
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 11);
    for (int trial = 0; trial < 40; trial++) {
        const int64_t nblocks = trial == 0 ? 0 : (int64_t)mpcgi_rng_below(&g, MAXB) + 1;
        bstart[0] = 0;
        for (int64_t b = 0; b < nblocks; b++) {
            int64_t nb = 1 + (int64_t)mpcgi_rng_below(&g, MPCGI_PRECOND_MAX_BLOCK);
            if (trial == 1) nb = MPCGI_PRECOND_MAX_BLOCK;
            if (trial == 2) nb = 1;
            bstart[b + 1] = bstart[b] + nb;
        }
        const int64_t nt = mpcgi_bjacobi_tiles(nblocks, bstart, row, blk);
        CHECK(tiles_ok(nblocks, bstart, nt, row, blk));
        if (trial == 1) CHECK(nt == (nblocks + 3) / 4); /* four blocks of 64 a tile */
        if (trial == 2) CHECK(nt == (nblocks + 255) / 256);
    }
}

/* ---------------------------------------------------------------- fp32 and fused forms */

/* The kinds of the fp32 checks and the fused form each gives */
static const struct {
    mpcg_precond type;
    int block_apply, fused;
} fp32_kinds[] = {
    {MPCG_PRECOND_NONE, 0, MPCGI_PC_FUSED_NONE},
    {MPCG_PRECOND_JACOBI, 0, MPCGI_PC_FUSED_DIAG},
    {MPCG_PRECOND_BJACOBI, MPCGI_BLOCK_APPLY_INVERSE, MPCGI_PC_FUSED_BLOCKS},
    {MPCG_PRECOND_BJACOBI, MPCGI_BLOCK_APPLY_CHOLESKY, MPCGI_PC_FUSED_APPLY},
    {MPCG_PRECOND_CHEBYSHEV, 0, MPCGI_PC_FUSED_APPLY},
};
enum { FP32_KINDS = sizeof fp32_kinds / sizeof fp32_kinds[0] };
/* fp32 applies against fp64 ones: ||z32 - z64||_inf <= FP32_TOL ||z64||_inf (the bundled
 * matrices give 1e-7 to 2e-7); a GPU's fp32 apply against the host's fp32 apply to
 * FP32_GPU_TOL (their sums run in other orders: the GPU's SpMV, fused multiply-adds) */
#define FP32_TOL 1e-6
#define FP32_GPU_TOL 1e-5

static mpcgi_precond_params fp32_params(size_t k)
{
    mpcgi_precond_params p = params(fp32_kinds[k].type, 0, 3);
    p.block_apply = fp32_kinds[k].block_apply;
    p.fp32 = 1;
    return p;
}

/* ||z32 - z64||_inf / ||z64||_inf (NaN: infinite) */
static double rel_diff_f32(int64_t n, const float *z32, const double *z64)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++)
        d = isnan(z32[i]) ? INFINITY : fmax(d, fabs((double)z32[i] - z64[i]));
    const double m = max_abs(n, z64);
    return m > 0 ? d / m : d;
}

/* z64 = M^-1 r and z32 = M^-1 (float)r on the host; their relative difference */
static double apply_both(mpcgi_precond *pc, mpcgi_spmv_plan *plan, const double *r, double *z64,
                         float *r32, float *z32, void *work)
{
    for (int64_t i = 0; i < pc->n; i++)
        r32[i] = (float)r[i], z32[i] = NAN;
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host, plan_spmv,
                                      plan, r, z64, work));
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP32, &mpcgi_vec_host_f32, plan_spmv,
                                      plan, r32, z32, work));
    return rel_diff_f32(pc->n, z32, z64);
}

/* The fp32 arrays hold the fp64 ones rounded once */
static int fp32_arrays_ok(const mpcgi_precond *pc)
{
    int ok = 1;
    for (int64_t i = 0; pc->dinv && i < pc->n; i++)
        ok &= pc->dinv32[i] == (float)pc->dinv[i];
    for (int64_t k = 0; pc->binv && k < pc->boff[pc->nblocks]; k++)
        ok &= pc->binv32[k] == (float)pc->binv[k];
    return ok && (!pc->dinv == !pc->dinv32) && (!pc->binv == !pc->binv32);
}

/* The fused form on a CPU context: the dispatcher refuses (no device arrays), the kind's slot
 * says which form it is */
static void check_fused_host(const mpcgi_precond *pc, int want)
{
    mpcgi_pc_fused f;
    mpcg_clear_error(NULL);
    CHECK_STATUS(NULL, mpcgi_precond_fused(pc, MPCG_PRECISION_FP64, &f), MPCG_ERR_INVALID_STATE);
    CHECK(strstr(mpcg_last_error(NULL), "no fused form on a CPU context"));
    mpcg_clear_error(NULL);
    f = (mpcgi_pc_fused){.kind = -1};
    pc->ops->fused(pc, MPCG_PRECISION_FP32, &f);
    CHECK(f.kind == want);
    if (want == MPCGI_PC_FUSED_BLOCKS)
        CHECK(f.ntiles == pc->ntiles && f.max_block == pc->block_max);
}

/* New values 3 A: the fp32 arrays follow the refresh, and the fp32 apply the fp64 one */
static void check_fp32_refresh(const char *name, mpcgi_csr *A, mpcgi_precond *pc,
                               mpcgi_spmv_plan *plan, const double *r, double *z64, float *r32,
                               float *z32, void *work)
{
    double *val = vec(A->nnz);
    memcpy(val, A->val, (size_t)A->nnz * sizeof *val);
    for (int64_t k = 0; k < A->nnz; k++)
        A->val[k] = 3 * val[k];
    CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, A)); /* the plan's fp32 values */
    CHECK_OK(cpu, mpcgi_precond_refresh(cpu, pc, A, plan_spmv, plan));
    CHECK(fp32_arrays_ok(pc));
    const double d = apply_both(pc, plan, r, z64, r32, z32, work);
    if (!(d <= FP32_TOL))
        fprintf(stderr, "%s: %s: refreshed fp32 apply %.3g from fp64\n", name, pc->describe, d);
    CHECK(d <= FP32_TOL);
    memcpy(A->val, val, (size_t)A->nnz * sizeof *val);
    CHECK_OK(cpu, mpcgi_csr_fill_val32(cpu, A));
    mpcgi_host_free(val);
}

static void gpu_compare_f32(const char *name, mpcgi_csr *A, size_t k, const mpcgi_precond *host,
                            mpcgi_spmv_plan *host_plan, mpcgi_rng *g);

/* Every kind built with fp32 arrays: the fp32 host apply against the fp64 one, the arrays, the
 * refresh, the fused form; without them an fp32 apply is refused; the GPU's fp32 applies against
 * the host's */
static void check_fp32(const char *name, mpcgi_csr *A, mpcgi_rng *g)
{
    mpcgi_spmv_plan *plan = make_plan_for(cpu, A, MPCG_CAP_FP64 | MPCG_CAP_FP32);
    double *r = vec(A->n), *z64 = vec(A->n), *work = vec(2 * A->n + 1), worst = 0;
    float *r32 = NULL, *z32 = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *r32, &r32));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)A->n + 1, sizeof *z32, &z32));
    for (size_t k = 0; plan && k < FP32_KINDS; k++) {
        if (!HAVE_LAPACKE && fp32_kinds[k].type == MPCG_PRECOND_BJACOBI) continue;
        mpcgi_precond_params p = fp32_params(k);
        mpcgi_precond *pc = NULL;
        CHECK_OK(cpu, mpcgi_precond_create(cpu, A, &p, plan_spmv, plan, &pc));
        if (!pc) continue;
        CHECK(fp32_arrays_ok(pc));
        random_vec(g, A->n, r);
        const double d = apply_both(pc, plan, r, z64, r32, z32, work);
        if (!(d <= FP32_TOL))
            fprintf(stderr, "%s: %s: fp32 apply %.3g from fp64\n", name, pc->describe, d);
        CHECK(d <= FP32_TOL);
        worst = fmax(worst, d);
        check_fused_host(pc, fp32_kinds[k].fused);
        if (gpu) gpu_compare_f32(name, A, k, pc, plan, g);
        check_fp32_refresh(name, A, pc, plan, r, z64, r32, z32, work);
        mpcgi_precond_destroy(cpu, pc);
        p.fp32 = 0; /* without the fp32 arrays: refused */
        CHECK_OK(cpu, mpcgi_precond_create(cpu, A, &p, plan_spmv, plan, &pc));
        if (pc)
            CHECK_STATUS(cpu,
                         mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP32, &mpcgi_vec_host_f32,
                                             plan_spmv, plan, r32, z32, work),
                         MPCG_ERR_INVALID_STATE);
        CHECK(!pc || (!pc->dinv32 && !pc->binv32));
        mpcg_clear_error(cpu);
        mpcgi_precond_destroy(cpu, pc);
    }
    printf("  %s: fp32 applies within %.2g of fp64\n", name, worst);
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_host_free(r), mpcgi_host_free(z64), mpcgi_host_free(work);
    mpcgi_host_free(r32), mpcgi_host_free(z32);
}

/* none copies r to z in both precisions, bit for bit */
static void test_none_copies(void)
{
    const int64_t rp[] = {0, 1, 2, 3};
    const int32_t col[] = {0, 1, 2};
    const double val[] = {2, 3, 4}, r[] = {0.1, -7, 1e300};
    const float r32[] = {0.1f, -7, 3e38f};
    double z[3] = {NAN, NAN, NAN};
    float z32[3] = {NAN, NAN, NAN};
    mpcgi_csr A = {.n = 3,
                   .nnz = 3,
                   .row_ptr = (int64_t *)rp,
                   .col_idx = (int32_t *)col,
                   .val = (double *)val};
    mpcgi_precond_params p = params(MPCG_PRECOND_NONE, 0, 0);
    p.fp32 = 1;
    mpcgi_precond *pc = NULL;
    CHECK_OK(cpu, mpcgi_precond_create(cpu, &A, &p, NULL, NULL, &pc));
    if (!pc) return;
    CHECK(pc->ops == &mpcgi_precond_none && !strcmp(pc->describe, "none"));
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host, NULL, NULL, r,
                                      z, NULL));
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP32, &mpcgi_vec_host_f32, NULL, NULL,
                                      r32, z32, NULL));
    CHECK(!memcmp(z, r, sizeof z) && !memcmp(z32, r32, sizeof z32));
    /* the table must be of the vectors' precision */
    CHECK_STATUS(cpu,
                 mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP32, &mpcgi_vec_host, NULL, NULL, r32,
                                     z32, NULL),
                 MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(cpu);
    CHECK_STATUS(cpu,
                 mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_MIXED, NULL, NULL, NULL, r, z, NULL),
                 MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(cpu);
    mpcgi_precond_destroy(cpu, pc);
}

/* ---------------------------------------------------------------- chebyshev references */

/* lambda_max of D^-1 A (that of D^-1/2 A D^-1/2): 200 power iterations from a random vector,
 * the last Rayleigh quotient (a lower bound that the iterations bring close) */
static double power_lmax(const mpcgi_csr *A, mpcgi_rng *g)
{
    const int64_t n = A->n;
    double *x = vec(n), *y = vec(n), *s = vec(n), lam = 0;
    for (int64_t i = 0; i < n; i++)
        s[i] = 1 / sqrt(diag_of(A, i));
    random_vec(g, n, x);
    for (int it = 0; it < 200; it++) {
        double nx = sqrt(dot(n, x, x));
        for (int64_t i = 0; i < n; i++)
            x[i] *= s[i] / nx;
        csr_mv(A, x, y);
        for (int64_t i = 0; i < n; i++)
            y[i] *= s[i], x[i] /= s[i];
        lam = dot(n, x, y) / dot(n, x, x);
        memcpy(x, y, (size_t)n * sizeof *x);
    }
    mpcgi_host_free(x), mpcgi_host_free(y), mpcgi_host_free(s);
    return lam;
}

/* Saad's Alg. 12.1 as printed (the residual updated by A d, not formed from x) preconditioned
 * by D, from x = 0, `degree` steps: the reference for z = p(D^-1 A) D^-1 r */
static void cheb_reference(const mpcgi_csr *A, double lmin, double lmax, int degree,
                           const double *b, double *x)
{
    const int64_t n = A->n;
    const double theta = (lmax + lmin) / 2, delta = (lmax - lmin) / 2, sigma1 = theta / delta;
    double *res = vec(n), *d = vec(n), *Ad = vec(n), rho = 1 / sigma1;
    for (int64_t i = 0; i < n; i++)
        res[i] = b[i], d[i] = b[i] / diag_of(A, i) / theta, x[i] = 0;
    for (int k = 0; k < degree; k++) {
        for (int64_t i = 0; i < n; i++)
            x[i] += d[i];
        if (k == degree - 1) break;
        csr_mv(A, d, Ad);
        const double rho1 = 1 / (2 * sigma1 - rho);
        for (int64_t i = 0; i < n; i++) {
            res[i] -= Ad[i];
            d[i] = rho1 * rho * d[i] + 2 * rho1 / delta * res[i] / diag_of(A, i);
        }
        rho = rho1;
    }
    mpcgi_host_free(res), mpcgi_host_free(d), mpcgi_host_free(Ad);
}

/* ---------------------------------------------------------------- GPU against the host */

/* The same preconditioner on cuda:0 with device vectors (z poisoned with NaN) against the host's
 * z_host, to 1e-12; then a refresh with the same values gives the same z again */
static void gpu_compare(const char *name, mpcgi_csr *A, mpcgi_precond_params p, const double *r,
                        const double *z_host, const mpcgi_precond *host)
{
    const int64_t n = A->n;
    const size_t bytes = (size_t)n * sizeof(double);
    const mpcgi_vec_ops *V = mpcgi_vec_ops_for(MPCG_DEVICE_CUDA, MPCG_PRECISION_FP64);
    mpcgi_spmv_plan *plan = make_plan(gpu, A);
    mpcgi_precond *pc = NULL;
    double *d_r = NULL, *d_z = NULL, *d_w = NULL, *z = vec(n);
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_r));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_z));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 2 * bytes, &d_w));
    CHECK_OK(gpu, mpcgi_precond_create(gpu, A, &p, plan_spmv, plan, &pc));
    if (!pc || !plan || !d_r || !d_z || !d_w) goto done;
    CHECK(pc->on_device && pc->nblocks == host->nblocks && pc->diag_blocks == host->diag_blocks);
    CHECK(test_close(pc->lmax, host->lmax, 1e-12, 0) && pc->setup_spmvs == host->setup_spmvs);
    mpcgi_pc_fused f;
    CHECK_STATUS(NULL, mpcgi_precond_fused(pc, MPCG_PRECISION_FP32, &f), MPCG_ERR_INVALID_STATE);
    mpcg_clear_error(NULL);
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_r, r, bytes, MPCGI_H2D));
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < n; i++)
            z[i] = NAN;
        CHECK_OK(gpu, mpcgi_device_copy(gpu, d_z, z, bytes, MPCGI_H2D));
        CHECK_OK(gpu, mpcgi_precond_apply(gpu, pc, MPCG_PRECISION_FP64, V, plan_spmv, plan, d_r,
                                          d_z, d_w));
        CHECK_OK(gpu, mpcgi_device_copy(gpu, z, d_z, bytes, MPCGI_D2H));
        if (!vec_close(n, z, z_host, 1e-12))
            fprintf(stderr, "%s: %s: GPU z differs from the host's (pass %d)\n", name, pc->describe,
                    pass);
        CHECK(vec_close(n, z, z_host, 1e-12));
        CHECK_OK(gpu, mpcgi_precond_refresh(gpu, pc, A, plan_spmv, plan));
    }
done:
    mpcgi_precond_destroy(gpu, pc);
    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_device_free(gpu, d_r), mpcgi_device_free(gpu, d_z), mpcgi_device_free(gpu, d_w);
    mpcgi_host_free(z);
}

/* The fused form of a GPU preconditioner in both precisions: the kind asked and pc's device
 * arrays of that precision; the tiles on the device are the host's */
static void check_fused_gpu(const mpcgi_precond *pc, int want)
{
    for (int k = 0; k < 2; k++) {
        const int fp32 = k == 1;
        mpcgi_pc_fused f = {.kind = -1};
        CHECK_OK(NULL,
                 mpcgi_precond_fused(pc, fp32 ? MPCG_PRECISION_FP32 : MPCG_PRECISION_FP64, &f));
        CHECK(f.kind == want && f.n == pc->n);
        if (want == MPCGI_PC_FUSED_DIAG)
            CHECK(f.dinv && f.dinv == (fp32 ? (const void *)pc->d_dinv32 : pc->d_dinv));
        if (want != MPCGI_PC_FUSED_BLOCKS) continue;
        CHECK(f.ntiles == pc->ntiles && f.tile_row == pc->d_tile_row &&
              f.tile_block == pc->d_tile_block && f.bstart == pc->d_bstart &&
              f.boff == pc->d_boff && f.max_block == pc->block_max);
        CHECK(f.binv && f.binv == (fp32 ? (const void *)pc->d_binv32 : pc->d_binv));
    }
    if (want != MPCGI_PC_FUSED_BLOCKS) return;
    const size_t ib = (size_t)(pc->ntiles + 1) * sizeof(int64_t);
    int64_t *row = NULL, *blk = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, ib, &row));
    CHECK_OK(cpu, mpcgi_host_alloc(cpu, ib, &blk));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, row, pc->d_tile_row, ib, MPCGI_D2H));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, blk, pc->d_tile_block, ib, MPCGI_D2H));
    CHECK(row && blk && !memcmp(row, pc->tile_row, ib) && !memcmp(blk, pc->tile_block, ib));
    CHECK(row && blk && tiles_ok(pc->nblocks, pc->bstart, pc->ntiles, row, blk));
    mpcgi_host_free(row), mpcgi_host_free(blk);
}

/* The fp32 apply of fp32_kinds[k] on cuda:0 with device vectors (fresh random r, z poisoned with
 * NaN) against the host's fp32 apply (host: the same kind on the CPU, host_plan its products),
 * every element, to FP32_GPU_TOL; then its fused form */
static void gpu_compare_f32(const char *name, mpcgi_csr *A, size_t k, const mpcgi_precond *host,
                            mpcgi_spmv_plan *host_plan, mpcgi_rng *g)
{
    const int64_t n = A->n;
    const size_t bytes = (size_t)n * sizeof(float);
    const mpcgi_vec_ops *V = mpcgi_vec_ops_for(MPCG_DEVICE_CUDA, MPCG_PRECISION_FP32);
    mpcgi_spmv_plan *plan = make_plan_for(gpu, A, MPCG_CAP_FP64 | MPCG_CAP_FP32);
    mpcgi_precond_params p = fp32_params(k);
    mpcgi_precond *pc = NULL;
    float *r = NULL, *z = NULL, *zg = NULL, *work = NULL;
    void *d_r = NULL, *d_z = NULL, *d_w = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *r, &r));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *z, &z));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)n + 1, sizeof *zg, &zg));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, 2 * (size_t)n + 1, sizeof *work, &work));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_r));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_z));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, 2 * bytes, &d_w));
    CHECK_OK(gpu, mpcgi_precond_create(gpu, A, &p, plan_spmv, plan, &pc));
    if (!pc || !plan || !r || !z || !zg || !work || !d_r || !d_z || !d_w) goto done;
    for (int64_t i = 0; i < n; i++)
        r[i] = (float)(2 * mpcgi_rng_uniform(g) - 1), zg[i] = NAN;
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, host, MPCG_PRECISION_FP32, &mpcgi_vec_host_f32,
                                      plan_spmv, host_plan, r, z, work));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_r, r, bytes, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_z, zg, bytes, MPCGI_H2D));
    CHECK_OK(gpu,
             mpcgi_precond_apply(gpu, pc, MPCG_PRECISION_FP32, V, plan_spmv, plan, d_r, d_z, d_w));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, zg, d_z, bytes, MPCGI_D2H));
    if (!vec_close_f32(n, zg, z, FP32_GPU_TOL))
        fprintf(stderr, "%s: %s: GPU fp32 z differs from the host's\n", name, pc->describe);
    CHECK(vec_close_f32(n, zg, z, FP32_GPU_TOL));
    check_fused_gpu(pc, fp32_kinds[k].fused);
done:
    mpcgi_precond_destroy(gpu, pc);
    mpcgi_spmv_plan_destroy(gpu, plan);
    mpcgi_device_free(gpu, d_r), mpcgi_device_free(gpu, d_z), mpcgi_device_free(gpu, d_w);
    mpcgi_host_free(r), mpcgi_host_free(z), mpcgi_host_free(zg), mpcgi_host_free(work);
}

/* The fp32 block kernels on pc's blocks (device index arrays set): fresh random r, binv32 the
 * fp64 values rounded, against the host's fp32 apply (both sum in float; the device may fuse
 * multiply-adds) */
static void gpu_blocks_kernel_f32(mpcgi_precond *pc, mpcgi_rng *g)
{
    const size_t nv = (size_t)pc->boff[pc->nblocks], bytes = (size_t)pc->n * sizeof(float);
    float *r = NULL, *z = NULL, *zg = NULL, *d_r = NULL, *d_z = NULL;
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)pc->n, sizeof *r, &r));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)pc->n, sizeof *z, &z));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, (size_t)pc->n, sizeof *zg, &zg));
    CHECK_OK(cpu, mpcgi_host_alloc_array(cpu, nv, sizeof *pc->binv32, &pc->binv32));
    for (int64_t i = 0; i < pc->n; i++)
        r[i] = (float)(2 * mpcgi_rng_uniform(g) - 1), zg[i] = NAN;
    for (size_t k = 0; k < nv; k++)
        pc->binv32[k] = (float)pc->binv[k];
    mpcgi_bjacobi_apply_host(pc, MPCG_PRECISION_FP32, r, z);
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, nv * sizeof(float), &pc->d_binv32));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_r));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_z));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, pc->d_binv32, pc->binv32, nv * sizeof(float), MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_r, r, bytes, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_z, zg, bytes, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_precond_device_blocks(gpu, pc, MPCG_PRECISION_FP32, d_r, d_z));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, zg, d_z, bytes, MPCGI_D2H));
    CHECK(vec_close_f32(pc->n, zg, z, 1e-5));
    mpcgi_device_free(gpu, pc->d_binv32), mpcgi_device_free(gpu, d_r), mpcgi_device_free(gpu, d_z);
    mpcgi_host_free(r), mpcgi_host_free(z), mpcgi_host_free(zg), mpcgi_host_free(pc->binv32);
    pc->binv32 = NULL, pc->d_binv32 = NULL;
}

/* The block kernels alone, on blocks of 1 to 64 rows with random inverses (apply inverse) or
 * random lower factors with a dominant diagonal (apply cholesky), against the host apply, in
 * fp64 then fp32: they run without LAPACKE too (the GPU test machine has none) */
static void gpu_blocks_kernel(int apply)
{
    mpcgi_precond pc = {.n = 0, .on_device = 1, .params.block_apply = apply};
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed + 5);
    int64_t start[200], off[200];
    start[0] = off[0] = 0;
    for (pc.nblocks = 0; pc.nblocks < 150; pc.nblocks++) {
        const int64_t nb = 1 + (int64_t)mpcgi_rng_below(&g, MPCGI_PRECOND_MAX_BLOCK);
        start[pc.nblocks + 1] = start[pc.nblocks] + nb;
        off[pc.nblocks + 1] = off[pc.nblocks] + nb * nb;
    }
    pc.n = start[pc.nblocks], pc.bstart = start, pc.boff = off;
    const size_t nv = (size_t)off[pc.nblocks], bytes = (size_t)pc.n * sizeof(double);
    const size_t ib = (size_t)(pc.nblocks + 1) * sizeof(int64_t);
    double *r = vec(pc.n), *z = vec(pc.n), *zg = vec(pc.n), *d_r = NULL, *d_z = NULL;
    pc.binv = vec((int64_t)nv);
    random_vec(&g, pc.n, r), random_vec(&g, (int64_t)nv, pc.binv);
    for (int64_t b = 0; apply == MPCGI_BLOCK_APPLY_CHOLESKY && b < pc.nblocks; b++) {
        const int64_t nb = start[b + 1] - start[b];
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = i; j < nb; j++) /* L: lower, its diagonal in [nb, 2 nb] */
                pc.binv[off[b] + i * nb + j] = j > i ? 0.0 : (double)nb * (1.5 + 0.5 * r[0]);
    }
    mpcgi_bjacobi_apply_host(&pc, MPCG_PRECISION_FP64, r, z);
    for (int64_t i = 0; i < pc.n; i++)
        zg[i] = NAN;
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, ib, &pc.d_bstart));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, ib, &pc.d_boff));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, nv * sizeof(double), &pc.d_binv));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_r));
    CHECK_OK(gpu, mpcgi_device_alloc(gpu, bytes, &d_z));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, pc.d_bstart, start, ib, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, pc.d_boff, off, ib, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, pc.d_binv, pc.binv, nv * sizeof(double), MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_r, r, bytes, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, d_z, zg, bytes, MPCGI_H2D));
    CHECK_OK(gpu, mpcgi_precond_device_blocks(gpu, &pc, MPCG_PRECISION_FP64, d_r, d_z));
    CHECK_OK(gpu, mpcgi_device_copy(gpu, zg, d_z, bytes, MPCGI_D2H));
    CHECK(vec_close(pc.n, zg, z, 1e-12));
    gpu_blocks_kernel_f32(&pc, &g);
    mpcgi_device_free(gpu, pc.d_bstart), mpcgi_device_free(gpu, pc.d_boff);
    mpcgi_device_free(gpu, pc.d_binv), mpcgi_device_free(gpu, d_r), mpcgi_device_free(gpu, d_z);
    mpcgi_host_free(r), mpcgi_host_free(z), mpcgi_host_free(zg), mpcgi_host_free(pc.binv);
}

/* ---------------------------------------------------------------- each matrix */

static void check_jacobi_bjacobi(const char *name, mpcgi_csr *A, const double *r, double *z)
{
    mpcgi_precond *pc = cpu_apply(A, NULL, params(MPCG_PRECOND_JACOBI, 0, 0), r, z);
    int ok = pc != NULL;
    for (int64_t i = 0; i < A->n; i++)
        ok &= test_close(z[i], r[i] / diag_of(A, i), 3e-16, 0);
    CHECK(ok);
    if (pc && gpu) gpu_compare(name, A, pc->params, r, z, pc);
    mpcgi_precond_destroy(cpu, pc);
    for (int B = 4; HAVE_LAPACKE && B >= 0; B -= 4) {
        pc = cpu_apply(A, NULL, params(MPCG_PRECOND_BJACOBI, B, 0), r, z);
        CHECK(pc && pc->diag_blocks == 0 && pc->first_diag_block == -1);
        if (pc) check_blocks(name, A, pc, r, z);
        if (pc) CHECK(tiles_ok(pc->nblocks, pc->bstart, pc->ntiles, pc->tile_row, pc->tile_block));
        if (pc) printf("  %s: %s\n", name, pc->describe);
        if (pc && gpu) gpu_compare(name, A, pc->params, r, z, pc);
        /* the Cholesky factors give the same z to rounding */
        mpcgi_precond_params p = params(MPCG_PRECOND_BJACOBI, B, 0);
        p.block_apply = MPCGI_BLOCK_APPLY_CHOLESKY;
        double *zc = vec(A->n);
        mpcgi_precond *pcc = cpu_apply(A, NULL, p, r, zc);
        CHECK(pcc && strstr(pcc->describe, "Cholesky factors") && vec_close(A->n, zc, z, 1e-10));
        CHECK(pcc && pcc->ntiles == 0 && !pcc->tile_row && !pcc->tile_block);
        if (pcc && gpu) gpu_compare(name, A, pcc->params, r, zc, pcc);
        mpcgi_precond_destroy(cpu, pcc);
        mpcgi_host_free(zc);
        mpcgi_precond_destroy(cpu, pc);
    }
}

/* x^T M^-1 y == y^T M^-1 x and r^T M^-1 r > 0 (M^-1 is SPD) */
static void check_spd(const char *name, mpcgi_precond *pc, mpcgi_spmv_plan *plan, const double *r,
                      const double *z, mpcgi_rng *g)
{
    const int64_t n = pc->n;
    double *y = vec(n), *zy = vec(n), *work = vec(2 * n);
    random_vec(g, n, y);
    CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host, plan_spmv,
                                      plan, y, zy, work));
    const double ryz = dot(n, r, zy), yrz = dot(n, y, z);
    const double scale = sqrt(dot(n, r, r) * dot(n, zy, zy) + dot(n, y, y) * dot(n, z, z));
    if (!(fabs(ryz - yrz) <= 1e-10 * scale) || !(dot(n, r, z) > 0))
        fprintf(stderr, "%s: %s: r^T M^-1 y %.17g, y^T M^-1 r %.17g, r^T M^-1 r %g\n", name,
                pc->describe, ryz, yrz, dot(n, r, z));
    CHECK(fabs(ryz - yrz) <= 1e-10 * scale && dot(n, r, z) > 0);
    mpcgi_host_free(y), mpcgi_host_free(zy), mpcgi_host_free(work);
}

static void check_chebyshev(const char *name, mpcgi_csr *A, const double *r, double *z,
                            mpcgi_rng *g)
{
    mpcgi_spmv_plan *plan = make_plan(cpu, A);
    double *ref = vec(A->n);
    const double lam = power_lmax(A, g);
    const int degrees[] = {1, 2, 3, 5};
    for (size_t k = 0; plan && k < sizeof degrees / sizeof degrees[0]; k++) {
        const int deg = degrees[k];
        mpcgi_precond *pc = cpu_apply(A, plan, params(MPCG_PRECOND_CHEBYSHEV, 0, deg), r, z);
        if (!pc) continue;
        if (!(pc->lmax >= lam && pc->lmax <= 1.5 * lam))
            fprintf(stderr, "%s: lmax %.6g against %.6g by power iterations\n", name, pc->lmax,
                    lam);
        CHECK(pc->lmax >= lam && pc->lmax <= 1.5 * lam && pc->lmin == 0.1 * pc->lmax);
        CHECK(pc->lanczos_steps == (A->n < 10 ? pc->lanczos_steps : 10));
        CHECK(pc->setup_spmvs == pc->lanczos_steps && pc->apply_spmvs == deg - 1);
        cheb_reference(A, pc->lmin, pc->lmax, deg, r, ref);
        if (!vec_close(A->n, z, ref, 1e-10))
            fprintf(stderr, "%s: %s: z differs from the reference\n", name, pc->describe);
        CHECK(vec_close(A->n, z, ref, 1e-10));
        check_spd(name, pc, plan, r, z, g);
        int ok = 1; /* degree 1: Jacobi scaled by 1 / theta */
        for (int64_t i = 0; deg == 1 && i < A->n; i++)
            ok &= test_close(z[i], 2 / (pc->lmax + pc->lmin) * r[i] / diag_of(A, i), 1e-15, 0);
        CHECK(ok);
        if (deg == 3) printf("  %s: %s (power iterations: %.4g)\n", name, pc->describe, lam);
        if (gpu) gpu_compare(name, A, pc->params, r, z, pc);
        mpcgi_precond_destroy(cpu, pc);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_host_free(ref);
}

/* New values 3 A (the pattern kept): jacobi's z is a third, chebyshev's lmax that of the same
 * D^-1 A, bjacobi's blocks are those of 3 A */
static void check_refresh(const char *name, mpcgi_csr *A, const double *r, double *z)
{
    mpcgi_spmv_plan *plan = make_plan(cpu, A);
    double *z3 = vec(A->n), *work = vec(2 * A->n), *val = vec(A->nnz);
    memcpy(val, A->val, (size_t)A->nnz * sizeof *val);
    const mpcg_precond types[] = {MPCG_PRECOND_JACOBI, MPCG_PRECOND_BJACOBI,
                                  MPCG_PRECOND_CHEBYSHEV};
    for (size_t t = 0; plan && t < sizeof types / sizeof types[0]; t++) {
        if (!HAVE_LAPACKE && types[t] == MPCG_PRECOND_BJACOBI) continue;
        mpcgi_precond *pc = cpu_apply(A, plan, params(types[t], 0, 3), r, z);
        const double lmax = pc ? pc->lmax : NAN;
        for (int64_t k = 0; k < A->nnz; k++)
            A->val[k] = 3 * val[k];
        if (pc) CHECK_OK(cpu, mpcgi_precond_refresh(cpu, pc, A, plan_spmv, plan));
        if (pc)
            CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host,
                                              plan_spmv, plan, r, z3, work));
        for (int64_t i = 0; pc && i < A->n; i++)
            z[i] /= 3;
        CHECK(pc && vec_close(A->n, z3, z, 1e-10) && test_close(pc->lmax, lmax, 1e-10, 0));
        if (pc && types[t] == MPCG_PRECOND_BJACOBI) check_blocks(name, A, pc, r, z3);
        memcpy(A->val, val, (size_t)A->nnz * sizeof *val);
        mpcgi_precond_destroy(cpu, pc);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
    mpcgi_host_free(z3), mpcgi_host_free(work), mpcgi_host_free(val);
}

static void check_matrix(const char *name, mpcgi_csr *A)
{
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed ^ (uint64_t)A->n);
    double *r = vec(A->n), *z = vec(A->n);
    random_vec(&g, A->n, r);
    check_jacobi_bjacobi(name, A, r, z);
    check_chebyshev(name, A, r, z, &g);
    check_refresh(name, A, r, z);
    check_fp32(name, A, &g);
    mpcgi_host_free(r), mpcgi_host_free(z);
}

static void check_file(const char *name, const char *path, void *user)
{
    (void)user;
    mpcg_matrix *M = NULL;
    CHECK_OK(cpu, mpcg_matrix_read_mm(cpu, path, &M));
    if (M) check_matrix(name, &M->csr);
    mpcg_matrix_destroy(M);
}

/* ---------------------------------------------------------------- robustness */

/* Every allocation of each create failing in turn: the host allocation status, nothing half
 * made, nothing leaked */
static void test_alloc_sweep(mpcgi_csr *A)
{
    mpcgi_spmv_plan *plan = make_plan(cpu, A);
    for (mpcg_precond t = MPCG_PRECOND_NONE; plan && t <= MPCG_PRECOND_CHEBYSHEV; t++) {
        if (!HAVE_LAPACKE && t == MPCG_PRECOND_BJACOBI) continue;
        mpcgi_precond_params p = params(t, 0, 3);
        const int64_t live = mpcgi_alloc_live();
        mpcg_status st = MPCG_ERR_HOST_ALLOC;
        for (int64_t fail = 0; st != MPCG_SUCCESS && fail < 100; fail++) {
            mpcgi_precond *pc = NULL;
            mpcgi_alloc_fail_at(fail);
            st = mpcgi_precond_create(cpu, A, &p, plan_spmv, plan, &pc);
            mpcgi_alloc_fail_at(-1);
            CHECK(st == MPCG_SUCCESS ? pc != NULL : st == MPCG_ERR_HOST_ALLOC && pc == NULL);
            mpcgi_precond_destroy(cpu, pc);
            CHECK(mpcgi_alloc_live() == live);
            mpcg_clear_error(cpu);
        }
        CHECK(st == MPCG_SUCCESS);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
}

/* n = 0: every kind sets up and applies to nothing */
static void test_empty(void)
{
    int64_t rp[] = {0};
    mpcgi_csr A = {.n = 0, .nnz = 0, .row_ptr = rp};
    mpcgi_spmv_plan *plan = make_plan(cpu, &A);
    for (mpcg_precond t = MPCG_PRECOND_NONE; plan && t <= MPCG_PRECOND_CHEBYSHEV; t++) {
        if (!HAVE_LAPACKE && t == MPCG_PRECOND_BJACOBI) continue;
        mpcgi_precond_params p = params(t, 0, 3);
        mpcgi_precond *pc = NULL;
        CHECK_OK(cpu, mpcgi_precond_create(cpu, &A, &p, plan_spmv, plan, &pc));
        if (pc)
            CHECK_OK(cpu, mpcgi_precond_apply(cpu, pc, MPCG_PRECISION_FP64, &mpcgi_vec_host,
                                              plan_spmv, plan, NULL, NULL, NULL));
        mpcgi_precond_destroy(cpu, pc);
    }
    mpcgi_spmv_plan_destroy(cpu, plan);
}

/* The library's table of preconditioner names (mpcg_precond_parse, mpcg_precond_name) and a
 * solver set from a name (mpcg_solver_set_precond_spec): every name, its number, the refusals
 * with their messages, and a failed name that changes nothing. */
static void test_names(void)
{
    static const struct {
        const char *spec;
        mpcg_precond type;
        int64_t param;
    } ok[] = {
        {"none", MPCG_PRECOND_NONE, -1},
        {"jacobi", MPCG_PRECOND_JACOBI, -1},
        {"bjacobi", MPCG_PRECOND_BJACOBI, -1},
        {"chebyshev", MPCG_PRECOND_CHEBYSHEV, -1},
        {"auto", MPCG_PRECOND_AUTO, -1},
        {"bjacobi:24", MPCG_PRECOND_BJACOBI, 24},
        {"bjacobi:0", MPCG_PRECOND_BJACOBI, 0},
        {"chebyshev:007", MPCG_PRECOND_CHEBYSHEV, 7},
        {"chebyshev:999999999999", MPCG_PRECOND_CHEBYSHEV, 999999999999},
    };
    static const struct {
        const char *spec, *why;
    } bad[] = {
        {"", "unknown preconditioner"},
        {"ilu", "unknown preconditioner \"ilu\""},
        {"Jacobi", "unknown preconditioner"},
        {"jacobi:3", "jacobi takes no number"},
        {"auto:1", "auto takes no number"},
        {"bjacobi:", "expected bjacobi:N"},
        {"bjacobi:x", "expected bjacobi:N"},
        {"bjacobi:-1", "expected bjacobi:N"},
        {"chebyshev:1234567890123", "at most 12 digits"},
        {":4", "unknown preconditioner"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        mpcg_precond type = (mpcg_precond)-1;
        int64_t param = -2;
        CHECK_OK(NULL, mpcg_precond_parse(ok[i].spec, &type, &param));
        CHECK(type == ok[i].type && param == ok[i].param);
        if (ok[i].param < 0) CHECK(strcmp(mpcg_precond_name(type), ok[i].spec) == 0);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mpcg_clear_error(NULL);
        CHECK_STATUS(NULL, mpcg_precond_parse(bad[i].spec, NULL, NULL), MPCG_ERR_INVALID_ARG);
        if (!strstr(mpcg_last_error(NULL), bad[i].why))
            printf("  %s: %s\n", bad[i].spec, mpcg_last_error(NULL));
        CHECK(strstr(mpcg_last_error(NULL), bad[i].why) != NULL);
    }
    mpcg_clear_error(NULL);
    CHECK_STATUS(NULL, mpcg_precond_parse(NULL, NULL, NULL), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(NULL);
    CHECK(strcmp(mpcg_precond_name((mpcg_precond)99), "unknown") == 0);

    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson2d:6", &A));
    if (A) CHECK_OK(cpu, mpcg_solver_create(cpu, A, &S));
    if (S) {
        const mpcgi_option_key *bs = &mpcgi_cg_options.keys[MPCGI_OPT_PRECOND_BLOCK_SIZE];
        const mpcgi_option_key *deg = &mpcgi_cg_options.keys[MPCGI_OPT_PRECOND_DEGREE];
        CHECK_OK(cpu, mpcg_solver_set_precond_spec(S, "bjacobi:24"));
        CHECK(S->precond == MPCG_PRECOND_BJACOBI && mpcgi_options_get(&S->opts, bs) == 24);
        const long degree = mpcgi_options_get(&S->opts, deg);
        CHECK_STATUS(cpu, mpcg_solver_set_precond_spec(S, "chebyshev:99"), MPCG_ERR_INVALID_ARG);
        CHECK(strstr(mpcg_last_error(cpu), "precond.degree=99"));
        mpcg_clear_error(cpu);
        CHECK(S->precond == MPCG_PRECOND_BJACOBI && mpcgi_options_get(&S->opts, deg) == degree);
        CHECK_STATUS(cpu, mpcg_solver_set_precond_spec(S, "ilu"), MPCG_ERR_INVALID_ARG);
        CHECK(strstr(mpcg_last_error(cpu), "unknown preconditioner \"ilu\""));
        mpcg_clear_error(cpu);
        CHECK(S->precond == MPCG_PRECOND_BJACOBI);
        CHECK_OK(cpu, mpcg_solver_set_precond_spec(S, "chebyshev:4"));
        CHECK(S->precond == MPCG_PRECOND_CHEBYSHEV && mpcgi_options_get(&S->opts, deg) == 4);
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
}

int main(void)
{
    test_init_seed("test_precond");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (mpcgi_device_count() > 0)
        CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else
        printf("test_precond: no usable GPU, the GPU comparisons are skipped\n");
    if (!cpu) return test_finish("test_precond");
    test_names();
    test_table();
    test_diag_rows();
    test_tiles();
    test_none_copies();
    test_tridiag();
    test_hand();
    test_rejections();
    if (HAVE_LAPACKE) {
        test_detect_nodes();
        test_detect_cap();
        test_not_spd_block();
    }
    test_empty();
    if (gpu) gpu_blocks_kernel(MPCGI_BLOCK_APPLY_INVERSE);
    if (gpu) gpu_blocks_kernel(MPCGI_BLOCK_APPLY_CHOLESKY);
    mpcg_matrix *M = NULL;
    CHECK_OK(cpu, mpcg_matrix_generate(cpu, "poisson3d:8", &M));
    if (M) check_matrix("poisson3d:8", &M->csr);
    if (M) test_alloc_sweep(&M->csr);
    mpcg_matrix_destroy(M);
    CHECK(test_each_mtx(check_file, NULL) == 0);
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return test_finish("test_precond");
}
