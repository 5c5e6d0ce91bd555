/* bench/batchbench.c: many small SPD systems (docs/batched.md): the batched SpMM beside a loop of
 * cusparseSpMM calls and cuSPARSE's strided batch, the batched CG beside one mpcg solver per
 * system (docs/benchmarks.md, "batchbench") */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/batchbench.h"
#include "core/alloc.h"
#include "core/device.h"
#include "core/timer.h"

static const char usage_text[] =
    "usage: batchbench [options]\n"
    "Many small SPD systems on the GPU (docs/batched.md): 2-D 5-point Laplacians of g x g grids\n"
    "(n_i = g^2), each diagonal entry 4 f with f uniform in [1, 1.5), from a seeded generator\n"
    "that bench/cupy_batch_cg.py repeats (docs/benchmarks.md, \"batchbench\"). The copy\n"
    "bandwidth is measured first, in the same run. Two scenarios, one after the other:\n"
    "  spmm  Y_i = A_i X_i, X_i of s columns: mpcg_batch_spmm_device (one launch) beside a loop\n"
    "        of K cusparseSpMM calls and, when every system has the same size, cuSPARSE's\n"
    "        strided batched SpMM; every result checked first (default K = 1000, grid 6:16)\n"
    "  cg    A_i x_i = b_i, b uniform in [-1, 1): mpcg_batch_solve_device (one launch) beside\n"
    "        one mpcg solver per system (mpcg_solve_device, the library's fused CG), the loop\n"
    "        timed on the first --loop-count systems and scaled to K (default K = 10000,\n"
    "        grid 10)\n"
    "\n"
    "  --only=spmm|cg      run one scenario (default: both)\n"
    "  --k=K               systems, 1 .. 10000000 (default: 1000 for spmm, 10000 for cg)\n"
    "  --grid=G | G1:G2    grid side g, fixed or uniform in [G1, G2], 1 .. 128 (n_i <= 16384)\n"
    "                      (default: 6:16 for spmm, 10 for cg)\n"
    "  --s=S               spmm: columns of X, 1 .. 64 (default 8)\n"
    "  --runs=N            spmm: calls per timed group (default 50); cg: timed solves of the\n"
    "                      batch and timed passes of the loop (default 3); 1 .. 1000\n"
    "  --loop-count=L      cg: systems the one-by-one loop sets up and times (default 1000;\n"
    "                      0: all K); its time is scaled by K / L\n"
    "  --tol=T             cg: relative tolerance of every system (default 1e-8)\n"
    "  --precond=P         cg: none (default) or jacobi, for the batch and the loop alike\n"
    "  --seed=N            generator seed (default 24)\n"
    "  --json FILE         write the records (batch-spmm, batch-cg) as a JSON list, appending to\n"
    "                      a list already there\n"
    "  --device=cuda:N     the GPU (default cuda, GPU 0)\n"
    "  -h, --help          this text\n"
    "\n"
    "A system that stops without converging is counted and reported, not an error.\n"
    "exit status: 0 all measured and correct, 1 a measurement failed or a result was wrong,\n"
    "2 bad usage, 77 no usable CUDA GPU.\n";

/* ---------------------------------------------------------------- options */

/* --grid=G or G1:G2 into g[0..1]; 0 or -1 (message printed). */
static int parse_grid(const char *v, long g[2])
{
    char a[32];
    const char *colon = strchr(v, ':');
    const size_t len = colon ? (size_t)(colon - v) : strlen(v);
    snprintf(a, sizeof a, "%.*s", (int)(len < 31 ? len : 31), v);
    if (bench_parse_long("batchbench", "--grid", a, 1, BB_MAX_GRID, &g[0]) != 0) return -1;
    g[1] = g[0];
    if (colon && bench_parse_long("batchbench", "--grid", colon + 1, 1, BB_MAX_GRID, &g[1]) != 0)
        return -1;
    if (g[1] < g[0]) {
        bench_usage_error("batchbench", "--grid=G1:G2 needs G1 <= G2, got ", v);
        return -1;
    }
    return 0;
}

/* The options with a value that is a number: name, range, destination. */
static int parse_number(bb_opts *o, int argc, char **argv, int *i)
{
    const struct {
        const char *name;
        long lo, hi;
        long *dst;
    } longs[] = {{"--k", 1, 10000000, &o->k},
                 {"--s", 1, 64, &o->s},
                 {"--runs", 1, BB_MAX_RUNS, &o->runs},
                 {"--loop-count", 0, 10000000, &o->loop},
                 {"--seed", 0, 2147483647L, &o->seed}};
    const char *v;
    for (size_t k = 0; k < sizeof longs / sizeof longs[0]; k++) {
        const int r = bench_option("batchbench", argc, argv, i, longs[k].name, &v);
        if (r == 0) continue;
        if (r < 0 || bench_parse_long("batchbench", longs[k].name, v, longs[k].lo, longs[k].hi,
                                      longs[k].dst) != 0)
            return -1;
        return 1;
    }
    const int r = bench_option("batchbench", argc, argv, i, "--tol", &v);
    if (r <= 0) return r;
    return bench_parse_double("batchbench", "--tol", v, 0.0, 1.0, &o->tol) == 0 ? 1 : -1;
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, bb_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (bench_help(&o->c, a)) return BENCH_EXIT_OK;
        if ((r = parse_number(o, argc, argv, &i)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
        } else if ((r = bench_option("batchbench", argc, argv, &i, "--grid", &v)) != 0) {
            if (r < 0 || parse_grid(v, o->grid) != 0) return BENCH_EXIT_USAGE;
        } else if ((r = bench_option("batchbench", argc, argv, &i, "--only", &v)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
            o->only = strcmp(v, "spmm") == 0 ? BB_SPMM : strcmp(v, "cg") == 0 ? BB_CG : -1;
            if (o->only < 0)
                return bench_usage_error("batchbench", "--only: expected spmm or cg, got ", v);
        } else if ((r = bench_option("batchbench", argc, argv, &i, "--precond", &v)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
            if (strcmp(v, "none") != 0 && strcmp(v, "jacobi") != 0)
                return bench_usage_error("batchbench", "--precond: expected none or jacobi, got ",
                                         v);
            o->precond = strcmp(v, "jacobi") == 0 ? MPCG_PRECOND_JACOBI : MPCG_PRECOND_NONE;
        } else if ((strncmp(a, "--json", 6) == 0 || strncmp(a, "--device", 8) == 0) &&
                   (r = bench_parse_common(&o->c, argc, argv, &i)) != 0) {
            if (r < 0) return BENCH_EXIT_USAGE;
        } else {
            return bench_usage_error("batchbench", "unknown option ", a);
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- the generator */

uint64_t bb_checksum(const double *v, int64_t count)
{
    uint64_t sum = 0, bits;
    for (int64_t i = 0; i < count; i++) {
        memcpy(&bits, &v[i], sizeof bits);
        sum += bits;
    }
    return sum;
}

/* Row r = x + g y of a g x g grid: its entries from e on, columns sorted; the diagonal is the
 * next draw. Returns the new e. */
static int64_t gen_row(bb_gen *G, int64_t g, int64_t r, int64_t e)
{
    const int64_t x = r % g, y = r / g;
    const double d = 4.0 * (1.0 + 0.5 * mpcgi_rng_uniform(&G->rng));
    const int64_t nb[5] = {r - g, r - 1, r, r + 1, r + g};
    const int in[5] = {y > 0, x > 0, 1, x < g - 1, y < g - 1};
    for (int k = 0; k < 5; k++)
        if (in[k]) G->col[e] = (int32_t)nb[k], G->val[e++] = k == 2 ? d : -1.0;
    return e;
}

mpcg_status bb_gen_make(mpcg_context *ctx, int64_t k, int g1, int g2, uint64_t seed, bb_gen *G)
{
    memset(G, 0, sizeof *G);
    G->k = k, G->g1 = g1, G->g2 = g2;
    mpcgi_rng_seed(&G->rng, seed);
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)k + 1, sizeof *G->off, &G->off));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)k + 1, sizeof *G->grid, &G->grid));
    G->off[0] = 0;
    for (int64_t i = 0; i < k; i++) { /* first K draws: the grids */
        const int64_t g = g1 + (int64_t)mpcgi_rng_below(&G->rng, (uint64_t)(g2 - g1 + 1));
        G->grid[i] = (int)g;
        G->off[i + 1] = G->off[i] + g * g;
        G->nnz += 5 * g * g - 4 * g;
    }
    G->rows = G->off[k];
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)G->rows + 1, sizeof *G->ptr, &G->ptr));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)G->nnz + 1, sizeof *G->col, &G->col));
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)G->nnz + 1, sizeof *G->val, &G->val));
    G->ptr[0] = 0;
    for (int64_t i = 0, e = 0; i < k; i++) /* then one draw per row: its diagonal */
        for (int64_t r = 0; r < G->off[i + 1] - G->off[i]; r++) {
            e = gen_row(G, G->grid[i], r, e);
            G->ptr[G->off[i] + r + 1] = e;
        }
    if (g1 == g2)
        snprintf(G->name, sizeof G->name, "laplace2d-batch:%lld:%d", (long long)k, g1);
    else
        snprintf(G->name, sizeof G->name, "laplace2d-batch:%lld:%d:%d", (long long)k, g1, g2);
    printf("\n%s: K = %lld systems, grid %d..%d (n_i = %lld..%lld rows), %lld rows, nnz = %lld, "
           "seed %llu; values checksum %016llx\n",
           G->name, (long long)k, g1, g2, (long long)g1 * g1, (long long)g2 * g2,
           (long long)G->rows, (long long)G->nnz, (unsigned long long)seed,
           (unsigned long long)bb_checksum(G->val, G->nnz));
    return MPCG_SUCCESS;
}

mpcg_status bb_gen_vector(mpcg_context *ctx, bb_gen *G, int64_t count, double **out)
{
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, (size_t)count + 1, sizeof **out, out));
    for (int64_t i = 0; i < count; i++)
        (*out)[i] = 2.0 * mpcgi_rng_uniform(&G->rng) - 1.0;
    return MPCG_SUCCESS;
}

void bb_gen_free(bb_gen *G)
{
    mpcgi_host_free(G->off), mpcgi_host_free(G->grid), mpcgi_host_free(G->ptr);
    mpcgi_host_free(G->col), mpcgi_host_free(G->val);
    memset(G, 0, sizeof *G);
}

/* ---------------------------------------------------------------- shared */

void bb_record(const bb_run *run, const bb_gen *G, const char *kind, const char *backend,
               bench_record *r)
{
    mpcgi_csr shape = {.n = G->rows, .nnz = G->nnz};
    bench_record_init(r, kind, G->name, &shape);
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->precision = "fp64";
    r->seed = (uint64_t)run->o->seed, r->seed_set = 1;
    r->batch_k = G->k;
}

void bb_target(const char *what, double speedup, double target)
{
    if (isfinite(speedup))
        printf("target: %s >= %gx: %.1fx, %s\n", what, target, speedup,
               speedup >= target ? "met" : "MISSED");
    else
        printf("target: %s >= %gx: not measured\n", what, target);
}

double bb_median_of(const double *v, int n, double *lo, double *hi)
{
    double t[BB_MAX_RUNS];
    memcpy(t, v, (size_t)n * sizeof *t);
    const double m = bench_median(t, n); /* sorts t */
    if (lo) *lo = t[0];
    if (hi) *hi = t[n - 1];
    return m;
}

/* ---------------------------------------------------------------- main */

/* The scenarios: open the GPU, the copy bandwidth, spmm and/or cg, the JSON. */
static int run_all(bb_opts *o)
{
    bb_run run = {.o = o};
    int status = BENCH_EXIT_FAILED;
    if (bench_open(&o->c, &run.ctx, &run.dev) != MPCG_SUCCESS) return BENCH_EXIT_FAILED;
    if (bench_copy_bandwidth(run.ctx, &run.dev) != MPCG_SUCCESS) goto fail;
    bench_print_device("batchbench", run.ctx, &run.dev);
    if (o->only != BB_CG && bb_spmm(&run) != MPCG_SUCCESS) goto fail;
    if (o->only != BB_SPMM && bb_cg(&run) != MPCG_SUCCESS) goto fail;
    status = run.failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
    goto out;
fail:
    fprintf(stderr, "batchbench: %s\n", mpcg_last_error(run.ctx));
out:
    if (o->c.json && run.records.count > 0 &&
        bench_json_write("batchbench", o->c.json, &run.records, &run.dev) != 0)
        status = BENCH_EXIT_FAILED;
    bench_records_free(&run.records);
    mpcg_context_destroy(run.ctx);
    return status;
}

int main(int argc, char **argv)
{
    bb_opts o = {.c = {.prog = "batchbench", .usage = usage_text, .device = "cuda"},
                 .k = -1,
                 .grid = {-1, -1},
                 .s = 8,
                 .runs = -1,
                 .loop = 1000,
                 .seed = 24,
                 .tol = 1e-8,
                 .precond = MPCG_PRECOND_NONE};
    const int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    const int gpu = bench_require_gpu("batchbench");
    if (gpu != 0) return gpu;
    return run_all(&o);
}
