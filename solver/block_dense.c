/* solver/block_dense.c: the small dense algebra of block CG on the host (s x s, s <= 64):
 * pivoted Cholesky that reveals the rank of a Gram matrix, Cholesky solves */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "solver/block_cg.h"

/*
 * G = W^T W (m x m, row-major). The pivoted Cholesky G = Pi L L^T Pi^T takes at each step the
 * column whose part orthogonal to the chosen ones is largest relative to its own norm, and stops
 * when that part is below rel of the norm (squared: d_j <= rel^2 G_jj) or G_jj = 0. Then
 * P = W T with T (m x r) = Pi_r L_r^-T has orthonormal columns (in exact arithmetic) spanning the
 * chosen columns of W. Returns r; T row-major m x r.
 */
int mpcgi_block_orth_factor(const double *G, int m, double rel, double *T)
{
    double L[MPCGI_BLOCK_MAX][MPCGI_BLOCK_MAX] = {{0}}, d[MPCGI_BLOCK_MAX];
    int piv[MPCGI_BLOCK_MAX], used[MPCGI_BLOCK_MAX] = {0}, r = 0;
    for (int j = 0; j < m; j++) d[j] = G[j * m + j];
    for (; r < m; r++) {
        int best = -1;
        double ratio = rel * rel;
        for (int j = 0; j < m; j++)
            if (!used[j] && G[j * m + j] > 0 && d[j] / G[j * m + j] > ratio)
                best = j, ratio = d[j] / G[j * m + j];
        if (best < 0) break;
        used[best] = 1, piv[r] = best;
        const double lkk = sqrt(d[best]);
        /* column r of L over the rows still unused: L[j][r] = (G[j][best] - sum L[j][l] L[best][l]) / lkk */
        for (int j = 0; j < m; j++) {
            if (used[j]) continue;
            double v = G[j * m + best];
            for (int l = 0; l < r; l++) v -= L[j][l] * L[best][l];
            L[j][r] = v / lkk;
            d[j] -= L[j][r] * L[j][r];
        }
        L[best][r] = lkk;
    }
    /* Ls[k][l] = L[piv[k]][l] (k, l < r) is lower triangular; T[piv[k]][c] = (Ls^-T)[k][c] */
    memset(T, 0, (size_t)m * (size_t)(r > 0 ? r : 1) * sizeof *T);
    for (int c = 0; c < r; c++) { /* column c of Ls^-T: solve Ls^T u = e_c (back substitution) */
        double u[MPCGI_BLOCK_MAX];
        for (int k = r - 1; k >= 0; k--) {
            double v = k == c ? 1.0 : 0.0;
            for (int l = k + 1; l < r; l++) v -= L[piv[l]][k] * u[l];
            u[k] = v / L[piv[k]][k];
        }
        for (int k = 0; k < r; k++) T[piv[k] * r + c] = u[k];
    }
    return r;
}

/* M (r x r, SPD, row-major) = C C^T in place (lower triangle); 0, or -1 at a pivot <= 0 or not
 * finite (M not positive definite in floating point). */
int mpcgi_block_cholesky(double *M, int r)
{
    for (int k = 0; k < r; k++) {
        double v = M[k * r + k];
        for (int l = 0; l < k; l++) v -= M[k * r + l] * M[k * r + l];
        if (!(v > 0) || !isfinite(v)) return -1;
        M[k * r + k] = sqrt(v);
        for (int j = k + 1; j < r; j++) {
            double w = M[j * r + k];
            for (int l = 0; l < k; l++) w -= M[j * r + l] * M[k * r + l];
            M[j * r + k] = w / M[k * r + k];
        }
    }
    return 0;
}

/* Y (r x m, row-major) = (C C^T)^-1 Y with C from mpcgi_block_cholesky. */
void mpcgi_block_cholesky_solve(const double *C, int r, double *Y, int m)
{
    for (int c = 0; c < m; c++) {
        for (int k = 0; k < r; k++) { /* C u = y */
            double v = Y[k * m + c];
            for (int l = 0; l < k; l++) v -= C[k * r + l] * Y[l * m + c];
            Y[k * m + c] = v / C[k * r + k];
        }
        for (int k = r - 1; k >= 0; k--) { /* C^T y = u */
            double v = Y[k * m + c];
            for (int l = k + 1; l < r; l++) v -= C[l * r + k] * Y[l * m + c];
            Y[k * m + c] = v / C[k * r + k];
        }
    }
}
