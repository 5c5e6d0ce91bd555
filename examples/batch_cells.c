/* examples/batch_cells.c: 10^4 small implicit heat problems per time step, one batched solve */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C independent cells, each a 2-D heat problem u_t = kappa_i(t) Laplace(u) + f on its own
 * g_i x g_i interior grid of the unit square (u = 0 on the boundary), g_i in [g - 2, g + 2]
 * chosen from the cell's index so the sizes differ. Backward Euler, per cell and step:
 *     (I/dt + kappa_i(t) L_i) u^{n+1} = u^n / dt + f,   kappa_i(t) = 1 + 0.5 sin(t + i),
 * with L_i the 5-point Laplacian / h_i^2 (SPD). The conductivity changes every step, so the
 * values change and the pattern does not: the concatenated CSR (local columns) is assembled
 * and handed to mpcg_batch_create once; each step refills the values, passes them through
 * mpcg_batch_update_values and solves all C systems with one mpcg_batch_solve (Jacobi, tol
 * 1e-10). The example checks what it got: every system converged, its residual recomputed here
 * in fp64 with the example's own CSR loops is <= 1e-9 relative, and with f = 0 (the default)
 * and u^0 > 0 every cell's maximum decreases strictly each step (maximum principle).
 * Exit status: 0 all checks passed, 1 a check or a library call failed, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpcg.h"

#define CHECK_RELRES 1e-9

typedef struct options {
    long cells, grid, steps;
    double dt, source;
    const char *device;
} options;

/* The cells' concatenated CSR: cell i owns rows off[i] .. off[i + 1] - 1, its grid is g[i]. */
typedef struct cells {
    int64_t k;
    int *g;
    int64_t *off, *rp;
    int32_t *col;
    double *val;
} cells;

/* What the time loop works on: the state u, the right-hand sides b, the cells' maxima, the
 * batch's results, and the solve time so far over the steps run. */
typedef struct work {
    double *u, *b, *mx;
    mpcg_batch_result *res;
    double total_ms;
    long ran;
} work;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: batch_cells [--cells=C] [--grid=G] [--steps=S] [--dt=DT] [--source=F]\n"
               "                   [--device=cpu|cuda|cuda:N|auto] [-h|--help]\n"
               "  C independent cells (default 10000), each a heat problem on a g_i x g_i grid,\n"
               "  g_i in [G-2, G+2] (default G = 10, 3 <= G <= 100), S implicit Euler steps\n"
               "  (default 10) of size DT (default 0.1), heat source F (default 0: the maximum\n"
               "  principle is checked).\n"
               "  Exit: 0 all checks passed, 1 a check or a call failed, 2 bad usage.\n");
}

/* "--name=value" into *out (a positive long, or a finite double if dbl); 1 if arg matched. */
static int parse_opt(const char *arg, const char *name, long *out, double *dbl, int *bad)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || arg[n] != '=') return 0;
    char *end;
    if (dbl)
        *dbl = strtod(arg + n + 1, &end);
    else
        *out = strtol(arg + n + 1, &end, 10);
    if (end == arg + n + 1 || *end || (dbl ? !isfinite(*dbl) : *out < 1)) *bad = 1;
    return 1;
}

/* 0 to run, 1 after --help, 2 for bad usage. */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){10000, 10, 10, 0.1, 0.0, "auto"};
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        int bad = 0;
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) return usage(stdout), 1;
        if (!strncmp(s, "--device=", 9))
            o->device = s + 9;
        else if (!parse_opt(s, "--cells", &o->cells, NULL, &bad) &&
                 !parse_opt(s, "--grid", &o->grid, NULL, &bad) &&
                 !parse_opt(s, "--steps", &o->steps, NULL, &bad) &&
                 !parse_opt(s, "--dt", NULL, &o->dt, &bad) &&
                 !parse_opt(s, "--source", NULL, &o->source, &bad))
            bad = 1;
        if (bad || o->grid < 3 || o->grid > 100 || o->dt <= 0 || o->cells > 100000000) {
            fprintf(stderr, "batch_cells: bad argument '%s'\n", s);
            return usage(stderr), 2;
        }
    }
    return 0;
}

static double kappa(int64_t i, double t)
{
    return 1.0 + 0.5 * sin(t + (double)i);
}

/* Grid of cell i: g - 2 .. g + 2, scattered over the indices by a multiplicative hash. */
static int cell_grid(int64_t i, int g)
{
    return g - 2 + (int)(((uint32_t)i * 2654435761u >> 16) % 5);
}

static void cells_free(cells *c)
{
    free(c->g), free(c->off), free(c->rp), free(c->col), free(c->val);
}

/* The pattern, once: per cell its rows, each row's up/left/self/right/down neighbours (sorted). */
static int cells_build(cells *c, int64_t k, int g)
{
    *c = (cells){.k = k, .g = malloc((size_t)k * sizeof *c->g)};
    c->off = malloc((size_t)(k + 1) * sizeof *c->off);
    if (!c->g || !c->off) return 1;
    c->off[0] = 0;
    for (int64_t i = 0; i < k; i++) {
        c->g[i] = cell_grid(i, g);
        c->off[i + 1] = c->off[i] + (int64_t)c->g[i] * c->g[i];
    }
    int64_t rows = c->off[k];
    c->rp = malloc((size_t)(rows + 1) * sizeof *c->rp);
    c->col = malloc((size_t)(5 * rows) * sizeof *c->col);
    c->val = malloc((size_t)(5 * rows) * sizeof *c->val);
    if (!c->rp || !c->col || !c->val) return 1;
    int64_t p = 0;
    for (int64_t i = 0; i < k; i++) {
        int n = c->g[i];
        for (int r = 0; r < n * n; r++) {
            c->rp[c->off[i] + r] = p;
            if (r >= n) c->col[p++] = r - n;
            if (r % n > 0) c->col[p++] = r - 1;
            c->col[p++] = r;
            if (r % n < n - 1) c->col[p++] = r + 1;
            if (r < n * n - n) c->col[p++] = r + n;
        }
    }
    c->rp[rows] = p;
    return 0;
}

/* The values at time t: I/dt + kappa_i(t) L_i, written by column into the fixed pattern. */
static void cells_fill(cells *c, double t, double dt)
{
    for (int64_t i = 0; i < c->k; i++) {
        double h = 1.0 / (c->g[i] + 1.0), kh = kappa(i, t) / (h * h);
        for (int64_t r = c->off[i]; r < c->off[i + 1]; r++)
            for (int64_t p = c->rp[r]; p < c->rp[r + 1]; p++)
                c->val[p] = c->col[p] == r - c->off[i] ? 1.0 / dt + 4.0 * kh : -kh;
    }
}

/* ||b_i - A_i x_i|| / ||b_i|| of cell i, in fp64 with our own loops (0 for b_i = 0). */
static double cell_relres(const cells *c, int64_t i, const double *x, const double *b)
{
    const double *xi = x + c->off[i];
    double rr = 0, bb = 0;
    for (int64_t r = c->off[i]; r < c->off[i + 1]; r++) {
        double s = b[r];
        for (int64_t p = c->rp[r]; p < c->rp[r + 1]; p++)
            s -= c->val[p] * xi[c->col[p]];
        rr += s * s, bb += b[r] * b[r];
    }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

/* u^0 >= 0.7 > 0: a lopsided bump (no grid symmetry for CG to exploit) that depends on the cell. */
static void cells_initial(const cells *c, double *u)
{
    for (int64_t i = 0; i < c->k; i++) {
        int n = c->g[i];
        for (int r = 0; r < n * n; r++) {
            double x = (r % n + 1.0) / (n + 1.0), y = (r / n + 1.0) / (n + 1.0);
            u[c->off[i] + r] = 1.0 + (1.0 + (double)(i % 7)) * 4.0 * x * (1.0 - x) * y * y +
                               0.3 * sin(7.0 * x + 3.0 * y + (double)i);
        }
    }
}

static double cell_max(const cells *c, int64_t i, const double *u)
{
    double m = -INFINITY;
    for (int64_t r = c->off[i]; r < c->off[i + 1]; r++)
        m = u[r] > m ? u[r] : m;
    return m;
}

/* Per-step checks over all cells: own residual and (f = 0) a strictly falling maximum.
 * Updates mx[i] to the new maxima; returns the failures, *worst the largest own residual. */
static int64_t check_step(const cells *c, const double *x, const double *b, double *mx,
                          int maxprinciple, double *worst)
{
    int64_t bad = 0;
    *worst = 0;
    for (int64_t i = 0; i < c->k; i++) {
        double rel = cell_relres(c, i, x, b), m = cell_max(c, i, x);
        *worst = rel > *worst ? rel : *worst;
        if (!(rel <= CHECK_RELRES)) bad++;
        if (maxprinciple && !(m < mx[i])) bad++;
        mx[i] = m;
    }
    return bad;
}

/* The time loop: values, right-hand sides, one batched solve, checks.
 * 0 all passed, 1 a check failed, -1 a library call failed. */
static int simulate(mpcg_batch *B, cells *c, const options *o, work *w)
{
    int fail = 0;
    for (int64_t i = 0; i < c->k; i++)
        w->mx[i] = cell_max(c, i, w->u);
    for (long s = 1; s <= o->steps && !fail; s++) {
        double t = s * o->dt;
        cells_fill(c, t, o->dt);
        if (mpcg_batch_update_values(B, c->val)) return -1;
        for (int64_t r = 0; r < c->off[c->k]; r++)
            w->b[r] = w->u[r] / o->dt + o->source;
        double t0 = now();
        if (mpcg_batch_solve(B, w->b, w->u, w->res)) return -1;
        double ms = 1e3 * (now() - t0), relres = 0, own;
        w->total_ms += ms, w->ran = s;
        int64_t conv = 0, itmax = 0;
        for (int64_t i = 0; i < c->k; i++) {
            mpcg_batch_result *q = &w->res[i];
            conv += q->reason == MPCG_CONVERGED_RTOL || q->reason == MPCG_CONVERGED_ZERO_RHS;
            itmax = q->iterations > itmax ? q->iterations : itmax;
            relres = q->true_relres > relres ? q->true_relres : relres;
        }
        int64_t bad = check_step(c, w->u, w->b, w->mx, o->source == 0, &own);
        printf("step %3ld  t %.3f  converged %lld/%lld  iterations max %3lld  true relres max "
               "%.2e  check relres max %.2e  solve %8.2f ms\n",
               s, t, (long long)conv, (long long)c->k, (long long)itmax, relres, own, ms);
        if (conv != c->k) {
            fprintf(stderr, "batch_cells: step %ld: %lld systems did not converge\n", s,
                    (long long)(c->k - conv));
            fail = 1;
        }
        if (bad) {
            fprintf(stderr, "batch_cells: step %ld: %lld cell checks failed\n", s, (long long)bad);
            fail = 1;
        }
    }
    return fail;
}

/* The failed call's message alone (mpcg_last_error adds the source location and call frames). */
static void report(const mpcg_context *ctx)
{
    char msg[512];
    mpcg_last_error_message(ctx, msg, sizeof msg); /* ctx NULL: this thread's last error */
    fprintf(stderr, "batch_cells: %s\n", msg);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : 2;
    cells c;
    work w = {0};
    mpcg_context *ctx = NULL;
    mpcg_batch *B = NULL;
    int64_t rows = 0;
    rc = 1;
    if (cells_build(&c, o.cells, (int)o.grid)) goto nomem;
    rows = c.off[c.k];
    w.u = malloc((size_t)rows * sizeof *w.u), w.b = malloc((size_t)rows * sizeof *w.b);
    w.mx = malloc((size_t)c.k * sizeof *w.mx), w.res = malloc((size_t)c.k * sizeof *w.res);
    if (!w.u || !w.b || !w.mx || !w.res) goto nomem;
    cells_initial(&c, w.u);
    cells_fill(&c, 0.0, o.dt);
    if (mpcg_context_create(o.device, &ctx)) {
        report(NULL);
        goto done;
    }
    if (mpcg_batch_create(ctx, c.k, c.off, c.rp, c.col, c.val, &B) ||
        mpcg_batch_set_tol(B, 1e-10) || mpcg_batch_set_precond(B, MPCG_PRECOND_JACOBI))
        goto failed;
    printf("batch_cells: %lld cells, grids %ld..%ld (%lld rows, %lld nonzeros), %ld steps of "
           "%g on %s\n",
           (long long)c.k, o.grid - 2, o.grid + 2, (long long)rows, (long long)c.rp[rows], o.steps,
           o.dt, mpcg_context_device_name(ctx));
    rc = simulate(B, &c, &o, &w);
    if (rc < 0) goto failed;
    printf("total solve %.2f ms, %.3f us per system per step\n", w.total_ms,
           1e3 * w.total_ms / ((double)c.k * (double)w.ran));
    printf(rc ? "CHECKS FAILED\n" : "all checks passed\n");
    goto done;
nomem:
    fprintf(stderr, "batch_cells: out of memory\n");
    goto done;
failed:
    report(ctx);
    rc = 1;
done:
    mpcg_batch_destroy(B);
    mpcg_context_destroy(ctx);
    cells_free(&c), free(w.u), free(w.b), free(w.mx), free(w.res);
    return rc;
}
