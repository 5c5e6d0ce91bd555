/* bench/batchbench_spmm.c: batchbench's spmm scenario: mpcg_batch_spmm_device beside a loop of
 * cusparseSpMM calls and cuSPARSE's strided batched SpMM (docs/benchmarks.md, "batchbench") */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bench/batchbench.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/timer.h"

/* ---------------------------------------------------------------- spmm */

enum { M_BATCH, M_LOOP, M_CUBATCH, NMETHODS };
static const char *const method_name[NMETHODS] = {"mpcg-batch", "cusparse-loop",
                                                  "cusparse-batched"};
static const double one = 1.0, zero = 0.0;
#define NOT CUSPARSE_OPERATION_NON_TRANSPOSE

/* One copy of the batch on the device: the mpcg batch, X and Y (row-major, as the batch's rows),
 * cuSPARSE's arrays (int32 local row pointers, system i's n_i + 1 from offsets[i] + i; columns;
 * values) and, when all systems have one size, the strided-batch descriptors over them. */
typedef struct spmm_copy {
    mpcg_batch *batch;
    double *X, *Y, *val;
    int32_t *ptr, *col;
    cusparseSpMatDescr_t A;
    cusparseDnMatDescr_t DX, DY;
} spmm_copy;

typedef struct spmm_run {
    bb_run *run;
    bb_gen G;
    int s, R, method, uniform, runs;
    spmm_copy cp[BB_MAX_COPIES];
    cusparseSpMatDescr_t *LA; /* the loop's descriptors, one per system, over copy 0 */
    cusparseDnMatDescr_t *LX, *LY;
    void *buf; /* cuSPARSE's workspace, the largest any call asked for */
    size_t buf_bytes;
    cusparseSpMMAlg_t alg;        /* the strided batch's */
    double *X, *ref, *tol, *host; /* host: X, the reference Y and its tolerance, a result */
    int32_t *lptr;                /* host: the local row pointers */
} spmm_run;

/* One product of the current method on copy c (the loop: K cusparseSpMM calls on copy 0). */
static mpcg_status spmm_call(spmm_run *S, int c)
{
    mpcg_context *ctx = S->run->ctx;
    cusparseHandle_t h = mpcgi_gpu_of(ctx)->cusparse;
    spmm_copy *p = &S->cp[c];
    if (S->method == M_BATCH) return mpcg_batch_spmm_device(p->batch, S->s, p->X, p->Y);
    if (S->method == M_CUBATCH) {
        MPCG_CUSPARSE(ctx, cusparseSpMM(h, NOT, NOT, &one, p->A, p->DX, &zero, p->DY, CUDA_R_64F,
                                        S->alg, S->buf));
        return MPCG_SUCCESS;
    }
    for (int64_t i = 0; i < S->G.k; i++)
        MPCG_CUSPARSE(ctx, cusparseSpMM(h, NOT, NOT, &one, S->LA[i], S->LX[i], &zero, S->LY[i],
                                        CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, S->buf));
    return MPCG_SUCCESS;
}

/* Call i of the protocol: the batched methods cycle through the copies, the loop stays on 0. */
static mpcg_status spmm_timed(mpcg_context *ctx, void *arg, int64_t i)
{
    spmm_run *S = arg;
    (void)ctx;
    return spmm_call(S, S->method == M_LOOP ? 0 : (int)(i % S->R));
}

/* The workspace grown to what cusparseSpMM asks for A, X, Y with alg. */
static mpcg_status spmm_buffer(spmm_run *S, cusparseSpMatDescr_t A, cusparseDnMatDescr_t X,
                               cusparseDnMatDescr_t Y, cusparseSpMMAlg_t alg)
{
    mpcg_context *ctx = S->run->ctx;
    size_t need = 0;
    MPCG_CUSPARSE(ctx, cusparseSpMM_bufferSize(mpcgi_gpu_of(ctx)->cusparse, NOT, NOT, &one, A, X,
                                               &zero, Y, CUDA_R_64F, alg, &need));
    if (S->buf && need <= S->buf_bytes) return MPCG_SUCCESS;
    mpcgi_device_free(ctx, S->buf);
    S->buf = NULL, S->buf_bytes = 0;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, need + 256, &S->buf));
    S->buf_bytes = need + 256;
    return MPCG_SUCCESS;
}

/* Host: the long double reference of every Y entry and its tolerance (len + 2) eps sum |a x|
 * (plus the subnormal spacing per term), as spmvbench --block checks. */
static void spmm_reference(spmm_run *S)
{
    const bb_gen *G = &S->G;
    const int s = S->s;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < G->k; i++)
        for (int64_t r = G->off[i]; r < G->off[i + 1]; r++) {
            const double len = (double)(G->ptr[r + 1] - G->ptr[r]);
            for (int j = 0; j < s; j++) {
                long double sum = 0, scale = 0;
                for (int64_t e = G->ptr[r]; e < G->ptr[r + 1]; e++) {
                    const long double t =
                        (long double)G->val[e] * S->X[(G->off[i] + G->col[e]) * s + j];
                    sum += t, scale += fabsl(t);
                }
                S->ref[r * s + j] = (double)sum;
                S->tol[r * s + j] =
                    (len + 2.0) * DBL_EPSILON * (double)scale + (len + 1.0) * DBL_TRUE_MIN;
            }
        }
}

/* Y of copy c poisoned with NaN, one product, every entry compared: *wrong entries off. */
static mpcg_status spmm_check(spmm_run *S, int c, int64_t *wrong)
{
    mpcg_context *ctx = S->run->ctx;
    const int64_t count = S->G.rows * S->s;
    const size_t bytes = (size_t)count * sizeof(double);
    MPCG_CUDA(ctx, cudaMemsetAsync(S->cp[c].Y, 0xff, bytes, mpcgi_gpu_of(ctx)->stream));
    MPCG_CHECK(ctx, spmm_call(S, c));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, S->host, S->cp[c].Y, bytes, MPCGI_D2H));
    *wrong = 0;
    for (int64_t e = 0; e < count; e++) {
        if (fabs(S->host[e] - S->ref[e]) <= S->tol[e]) continue; /* NaN fails */
        if ((*wrong)++ < BB_SHOW_WRONG)
            fprintf(stderr,
                    "batchbench: %s, copy %d: Y[%lld, %d] = %.17g, reference %.17g, "
                    "tolerance %.3g\n",
                    method_name[S->method], c, (long long)(e / S->s), (int)(e % S->s), S->host[e],
                    S->ref[e], S->tol[e]);
    }
    return MPCG_SUCCESS;
}

/* Copy c: the batch (copy 0: its creation, to a device sync, in *setup_ms), X, Y, cuSPARSE's
 * arrays and its strided-batch descriptors. */
static mpcg_status copy_setup(spmm_run *S, int c, double *setup_ms)
{
    mpcg_context *ctx = S->run->ctx;
    const bb_gen *G = &S->G;
    spmm_copy *p = &S->cp[c];
    const size_t xb = (size_t)(G->rows * S->s) * sizeof(double), nz = (size_t)G->nnz;
    const double t0 = mpcgi_wtime();
    MPCG_CHECK(ctx, mpcg_batch_create(ctx, G->k, G->off, G->ptr, G->col, G->val, &p->batch));
    MPCG_CHECK(ctx, mpcgi_device_sync(ctx));
    if (c == 0) *setup_ms = (mpcgi_wtime() - t0) * 1e3;
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, xb, &p->X));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, xb, &p->Y));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, (size_t)(G->rows + G->k) * 4, &p->ptr));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 4 + 4, &p->col));
    MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, nz * 8 + 8, &p->val));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->X, S->X, xb, MPCGI_H2D));
    MPCG_CHECK(ctx,
               mpcgi_device_copy(ctx, p->ptr, S->lptr, (size_t)(G->rows + G->k) * 4, MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->col, G->col, nz * 4, MPCGI_H2D));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p->val, G->val, nz * 8, MPCGI_H2D));
    if (!S->uniform) return MPCG_SUCCESS;
    const int64_t n = G->off[1], nzi = G->ptr[n];
    MPCG_CUSPARSE(ctx,
                  cusparseCreateCsr(&p->A, n, n, nzi, p->ptr, p->col, p->val, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    MPCG_CUSPARSE(ctx, cusparseCsrSetStridedBatch(p->A, (int)G->k, n + 1, nzi));
    MPCG_CUSPARSE(ctx,
                  cusparseCreateDnMat(&p->DX, n, S->s, S->s, p->X, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    MPCG_CUSPARSE(ctx, cusparseDnMatSetStridedBatch(p->DX, (int)G->k, n * S->s));
    MPCG_CUSPARSE(ctx,
                  cusparseCreateDnMat(&p->DY, n, S->s, S->s, p->Y, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    MPCG_CUSPARSE(ctx, cusparseDnMatSetStridedBatch(p->DY, (int)G->k, n * S->s));
    return MPCG_SUCCESS;
}

/* The loop's K descriptors over copy 0 and their workspace; the wall time in *setup_ms. */
static mpcg_status loop_setup(spmm_run *S, double *setup_ms)
{
    mpcg_context *ctx = S->run->ctx;
    const bb_gen *G = &S->G;
    const spmm_copy *p = &S->cp[0];
    const double t0 = mpcgi_wtime();
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)G->k, sizeof *S->LA, &S->LA));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)G->k, sizeof *S->LX, &S->LX));
    MPCG_CHECK(ctx, mpcgi_host_calloc(ctx, (size_t)G->k, sizeof *S->LY, &S->LY));
    for (int64_t i = 0; i < G->k; i++) {
        const int64_t o = G->off[i], n = G->off[i + 1] - o, e0 = G->ptr[o];
        MPCG_CUSPARSE(ctx,
                      cusparseCreateCsr(&S->LA[i], n, n, G->ptr[o + n] - e0, p->ptr + o + i,
                                        p->col + e0, p->val + e0, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        MPCG_CUSPARSE(ctx, cusparseCreateDnMat(&S->LX[i], n, S->s, S->s, p->X + o * S->s,
                                               CUDA_R_64F, CUSPARSE_ORDER_ROW));
        MPCG_CUSPARSE(ctx, cusparseCreateDnMat(&S->LY[i], n, S->s, S->s, p->Y + o * S->s,
                                               CUDA_R_64F, CUSPARSE_ORDER_ROW));
        MPCG_CHECK(ctx, spmm_buffer(S, S->LA[i], S->LX[i], S->LY[i], CUSPARSE_SPMM_ALG_DEFAULT));
    }
    *setup_ms = (mpcgi_wtime() - t0) * 1e3;
    return MPCG_SUCCESS;
}

/* The strided batch's algorithm: the first of default, CSR_ALG1, CSR_ALG2 that cuSPARSE takes
 * (workspace and one product); *ok = 0 (the refusals printed) if none does. */
static void cubatch_pick(spmm_run *S, int *ok)
{
    mpcg_context *ctx = S->run->ctx;
    const cusparseSpMMAlg_t algs[3] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1,
                                       CUSPARSE_SPMM_CSR_ALG2};
    S->method = M_CUBATCH;
    for (int k = 0; k < 3; k++) {
        S->alg = algs[k];
        mpcg_status st = spmm_buffer(S, S->cp[0].A, S->cp[0].DX, S->cp[0].DY, algs[k]);
        if (st == MPCG_SUCCESS) st = spmm_call(S, 0);
        if (st == MPCG_SUCCESS) st = mpcgi_device_sync(ctx);
        if ((*ok = st == MPCG_SUCCESS)) return;
        fprintf(stderr, "batchbench: cuSPARSE's strided batch with algorithm %d: %s\n",
                (int)algs[k], mpcg_last_error(ctx));
        mpcg_clear_error(ctx);
    }
}

/* Method m: every copy it uses checked, then timed into r (status "wrong" without a time). */
static mpcg_status spmm_measure(spmm_run *S, int m, bench_record *r)
{
    mpcg_context *ctx = S->run->ctx;
    const bench_protocol p = {.warmup = 100, .groups = 3, .per_group = (int)r->runs, .untimed = 10};
    int64_t wrong = 0, w = 0;
    bench_timing t;
    S->method = m;
    for (int c = 0; c < (int)r->rotation; c++) {
        MPCG_CHECK(ctx, spmm_check(S, c, &w));
        wrong += w;
    }
    if (wrong) {
        fprintf(stderr, "batchbench: %s: %lld wrong entries: no time is reported\n", method_name[m],
                (long long)wrong);
        r->status = "wrong";
        return MPCG_SUCCESS;
    }
    MPCG_CHECK(ctx, bench_time_calls(ctx, &p, spmm_timed, S, &t));
    r->ms = t.ms, r->ms_min = t.ms_min, r->ms_max = t.ms_max;
    r->gbs = r->bytes / (t.ms * 1e-3) * 1e-9;
    r->frac_copy = r->gbs / S->run->dev.copy_gbs;
    r->gflops = 2.0 * (double)S->G.nnz * S->s / (t.ms * 1e-3) * 1e-9;
    return MPCG_SUCCESS;
}

static void spmm_header(const spmm_run *S, double ws)
{
    printf("spmm: X_i n_i x %d row-major, the %lld draws after the matrices (2 u - 1; checksum "
           "%016llx); Y poisoned with NaN, one product, every entry within (len + 2) eps sum "
           "|a x| of a long double reference, on every copy; timing: 100 warm-up calls, 3 groups "
           "of %d calls timed with CUDA events, each after 10 untimed calls, ms = median group "
           "/ %d; %d copies of the batch cycled (%.1f MiB each, %d x L2) by the batched methods, "
           "the loop on one copy; bytes: values + columns of all A_i (12 nnz) + X read + Y "
           "written (16 rows s), row pointers not counted; vs loop = loop ms / ms\n",
           S->s, (long long)(S->G.rows * S->s),
           (unsigned long long)bb_checksum(S->X, S->G.rows * S->s), S->runs, S->runs, S->R,
           ws / 1048576.0, BB_L2_MULTIPLE);
    printf("| method | calls | setup ms | ms | GB/s | of copy | GFLOP/s | vs loop |\n"
           "|---|--:|--:|--:|--:|--:|--:|--:|\n");
}

static void spmm_row(const bench_record *r, int64_t calls)
{
    printf("| %s | %lld |", r->backend, (long long)calls);
    bench_print_cells(1, "%.4g", r->setup_ms);
    if (strcmp(r->status, "ok") != 0)
        printf(" %s |", strcmp(r->status, "wrong") == 0 ? "WRONG" : "FAILED");
    else
        bench_print_cells(1, "%.4g", r->ms);
    bench_print_cells(4, "%.1f", r->gbs, "%.3f", r->frac_copy, "%.1f", r->gflops, "%.1f",
                      r->speedup_vs_loop);
    printf("\n");
}

/* Set up, check and time the methods; print the table and the target; keep the records. */
static mpcg_status spmm_methods(spmm_run *S, double ws)
{
    bb_run *run = S->run;
    bench_record r[NMETHODS];
    int measured[NMETHODS] = {1, 1, 0};
    for (int m = 0; m < NMETHODS; m++) {
        bb_record(run, &S->G, "batch-spmm", method_name[m], &r[m]);
        r[m].batch_s = S->s, r[m].runs = S->runs;
        r[m].bytes_matrix = 12.0 * (double)S->G.nnz;
        r[m].bytes = r[m].bytes_matrix + 16.0 * (double)(S->G.rows * S->s);
        r[m].rotation = m == M_LOOP ? 1 : S->R;
    }
    for (int c = 0; c < S->R; c++)
        MPCG_CHECK(run->ctx, copy_setup(S, c, &r[M_BATCH].setup_ms));
    MPCG_CHECK(run->ctx, loop_setup(S, &r[M_LOOP].setup_ms));
    if (S->uniform) cubatch_pick(S, &measured[M_CUBATCH]);
    spmm_header(S, ws);
    for (int m = 0; m < NMETHODS; m++) {
        if (!measured[m]) continue;
        if (spmm_measure(S, m, &r[m]) != MPCG_SUCCESS) {
            fprintf(stderr, "batchbench: %s failed: %s\n", method_name[m],
                    mpcg_last_error(run->ctx));
            mpcg_clear_error(run->ctx);
            r[m].status = "failed";
        }
        if (strcmp(r[m].status, "ok") != 0) run->failed = 1;
    }
    for (int m = 0; m < NMETHODS; m++) {
        if (!measured[m]) continue;
        r[m].speedup_vs_loop = r[M_LOOP].ms / r[m].ms;
        if (measured[M_CUBATCH]) r[m].speedup_vs_cusparse = r[M_CUBATCH].ms / r[m].ms;
        spmm_row(&r[m], m == M_LOOP ? S->G.k : 1);
        MPCG_CHECK(run->ctx, bench_records_add(run->ctx, &run->records, &r[m]));
    }
    if (!S->uniform)
        printf("cusparse batched: not applicable (sizes differ)\n");
    else if (!measured[M_CUBATCH])
        printf("cusparse batched: refused by cuSPARSE (stderr)\n");
    else
        printf("cusparse batched: algorithm %d (cusparseSpMMAlg_t); mpcg-batch vs it: %.2fx\n",
               (int)S->alg, r[M_BATCH].speedup_vs_cusparse);
    bb_target("mpcg-batch vs the cusparseSpMM loop", r[M_BATCH].speedup_vs_loop, 25.0);
    return MPCG_SUCCESS;
}

static void spmm_free(spmm_run *S)
{
    mpcg_context *ctx = S->run->ctx;
    for (int64_t i = 0; S->LA && i < S->G.k; i++) {
        if (S->LA[i]) (void)cusparseDestroySpMat(S->LA[i]);
        if (S->LX[i]) (void)cusparseDestroyDnMat(S->LX[i]);
        if (S->LY[i]) (void)cusparseDestroyDnMat(S->LY[i]);
    }
    for (int c = 0; c < BB_MAX_COPIES; c++) {
        spmm_copy *p = &S->cp[c];
        if (p->A) (void)cusparseDestroySpMat(p->A);
        if (p->DX) (void)cusparseDestroyDnMat(p->DX);
        if (p->DY) (void)cusparseDestroyDnMat(p->DY);
        mpcg_batch_destroy(p->batch);
        mpcgi_device_free(ctx, p->X), mpcgi_device_free(ctx, p->Y), mpcgi_device_free(ctx, p->ptr);
        mpcgi_device_free(ctx, p->col), mpcgi_device_free(ctx, p->val);
    }
    mpcgi_device_free(ctx, S->buf);
    mpcgi_host_free(S->LA), mpcgi_host_free(S->LX), mpcgi_host_free(S->LY);
    mpcgi_host_free(S->X), mpcgi_host_free(S->ref), mpcgi_host_free(S->lptr); /* ref: tol, host */
    bb_gen_free(&S->G);
}

/* Scenario 1: generate, copies to cover BB_L2_MULTIPLE x L2, the reference, the methods. */
mpcg_status bb_spmm(bb_run *run)
{
    mpcg_context *ctx = run->ctx;
    const bb_opts *o = run->o;
    mpcg_status st = MPCG_SUCCESS;
    spmm_run S = {.run = run, .s = (int)o->s, .runs = o->runs > 0 ? (int)o->runs : 50};
    bb_gen *G = &S.G;
    const int64_t k = o->k > 0 ? o->k : 1000;
    const int g1 = o->grid[0] > 0 ? (int)o->grid[0] : 6, g2 = o->grid[0] > 0 ? (int)o->grid[1] : 16;
    MPCG_TRY(ctx, st, bb_gen_make(ctx, k, g1, g2, (uint64_t)o->seed, G));
    const int64_t count = G->rows * S.s;
    MPCG_TRY(ctx, st, bb_gen_vector(ctx, G, count, &S.X));
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)count, 3 * sizeof(double), &S.ref));
    S.tol = S.ref + count, S.host = S.tol + count;
    MPCG_TRY(ctx, st, mpcgi_host_alloc_array(ctx, (size_t)(G->rows + k), 4, &S.lptr));
    S.uniform = 1;
    for (int64_t i = 0; i < k; i++) {
        const int64_t o0 = G->off[i], n = G->off[i + 1] - o0;
        for (int64_t r = 0; r <= n; r++)
            S.lptr[o0 + i + r] = (int32_t)(G->ptr[o0 + r] - G->ptr[o0]);
        S.uniform &= n == G->off[1] && G->ptr[o0 + n] - G->ptr[o0] == G->ptr[G->off[1]];
    }
    spmm_reference(&S);
    const double ws = 12.0 * (double)G->nnz + 16.0 * (double)count;
    S.R = (int)ceil(BB_L2_MULTIPLE * (double)run->dev.l2_bytes / ws);
    S.R = S.R < 1 ? 1 : S.R > BB_MAX_COPIES ? BB_MAX_COPIES : S.R;
    MPCG_TRY(ctx, st, spmm_methods(&S, ws));
done:
    spmm_free(&S);
    return st;
}
