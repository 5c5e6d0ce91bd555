/* examples/heat.c: implicit heat equation on a square, one CG solve per time step */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * u_t = Laplace(u) on the unit square with u = 0 on the boundary, backward Euler:
 *     (I + dt L) u_new = u_old,   L = the 5-point Laplacian / h^2 (SPD).
 * The matrix is assembled once as CSR; every step solves with the same solver (setup once),
 * and halfway the time step changes, so the values are replaced through
 * mpcg_matrix_update_values (same pattern, no re-analysis) - the pattern of a simulation that
 * solves thousands of times with changing values. Usage: heat [N [STEPS [DEVICE]]].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpcg.h"

/* Fill values of I + dt L on the N x N interior grid (pattern fixed: diagonal + 4 neighbours). */
static int64_t assemble(int N, double dt, int64_t *rp, int32_t *col, double *val)
{
    double h2 = 1.0 / ((N + 1.0) * (N + 1.0)), off = -dt / h2, diag = 1.0 + 4.0 * dt / h2;
    int64_t k = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int r = i * N + j;
            rp[r] = k;
            if (i > 0) col[k] = r - N, val[k++] = off;
            if (j > 0) col[k] = r - 1, val[k++] = off;
            col[k] = r, val[k++] = diag;
            if (j < N - 1) col[k] = r + 1, val[k++] = off;
            if (i < N - 1) col[k] = r + N, val[k++] = off;
        }
    rp[N * N] = k;
    return k;
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 10;
    const char *device = argc > 3 ? argv[3] : "auto";
    if (N < 2 || steps < 1) {
        fprintf(stderr, "usage: heat [N >= 2 [STEPS >= 1 [DEVICE]]]\n");
        return 2;
    }
    int64_t n = (int64_t)N * N;
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int32_t *col = malloc((size_t)(5 * n) * sizeof *col);
    double *val = malloc((size_t)(5 * n) * sizeof *val), *u = malloc((size_t)n * sizeof *u);
    double *unew = malloc((size_t)n * sizeof *unew);
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    int rc = 1;
    if (!rp || !col || !val || !u || !unew) goto done;
    for (int64_t r = 0; r < n; r++) { /* initial temperature: a hot square around the center */
        double xr = (double)(r % N + 1) / (N + 1), yr = (double)(r / N + 1) / (N + 1);
        u[r] = fabs(xr - 0.45) < 0.2 && fabs(yr - 0.55) < 0.2 ? 1.0 : 0.0;
    }
    double dt = 1e-4;
    assemble(N, dt, rp, col, val);
    if (mpcg_context_create(device, &ctx) || mpcg_matrix_create_csr(ctx, n, rp, col, val, &A) ||
        mpcg_solver_create(ctx, A, &S) || mpcg_solver_set_tol(S, 1e-10) ||
        mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED) || mpcg_solver_setup(S))
        goto done;
    printf("heat: %d x %d grid, %d steps on %s\n", N, N, steps, mpcg_context_device_name(ctx));
    for (int s = 0; s < steps; s++) {
        if (s == steps / 2) { /* a new time step: new values, same pattern */
            dt *= 2;
            assemble(N, dt, rp, col, val);
            if (mpcg_matrix_update_values(A, val)) goto done;
        }
        mpcg_info info;
        for (int64_t r = 0; r < n; r++) unew[r] = u[r]; /* the old state is the guess */
        if (mpcg_solve(S, u, unew, &info) || !info.converged) {
            fprintf(stderr, "heat: step %d: %s\n", s, mpcg_reason_string(info.reason));
            goto done;
        }
        double *t = u;
        u = unew, unew = t;
        printf("step %3d  dt %.1e  iterations %3lld  true relres %.2e  u(center) %.6f\n", s, dt,
               (long long)info.iterations, info.true_relres, u[(N / 2) * N + N / 2]);
    }
    rc = 0;
done:
    if (rc) { /* the message alone; mpcg_last_error adds the source location and call frames */
        char msg[512];
        mpcg_last_error_message(ctx, msg, sizeof msg); /* ctx NULL: this thread's last error */
        fprintf(stderr, "heat: %s\n", msg);
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    free(rp), free(col), free(val), free(u), free(unew);
    return rc;
}
