#!/usr/bin/env python3
# bench/cg_variants.py: iteration counts of the textbook CG against the single-reduction CG of
# Chronopoulos and Gear (r.r and (A r).r reduced together, one global reduction per iteration),
# in numpy on the CPU, on the bundled SPD matrices and poisson3d:46, for b = ones and three
# random b (uniform in [-1, 1), numpy seed 1); tol 1e-8 relative, x0 = 0.
# SPDX-License-Identifier: BSD-3-Clause
#
# usage: bench/cg_variants.py [DATADIR]   (default: test/data of the source tree)
# Needs numpy and scipy. It answers one question before any kernel is written: does the
# single-reduction recurrence keep the iteration counts of the plain CG (docs/solver.md)?
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def poisson3d(m):
    e = np.ones(m)
    t = sp.diags([-e[:-1], 2 * e, -e[:-1]], [-1, 0, 1])
    i = sp.identity(m)
    return (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t)).tocsr()


def cg(a, b, tol, maxit):
    """The iteration of solver/cg.c (without the true-residual check): counts, true relres."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = r @ r
    nb = np.linalg.norm(b)
    for k in range(1, maxit + 1):
        q = a @ p
        alpha = rr / (p @ q)
        x += alpha * p
        r -= alpha * q
        rn = r @ r
        if np.sqrt(rn) <= tol * nb:
            return k, np.linalg.norm(b - a @ x) / nb
        p = r + (rn / rr) * p
        rr = rn
    return maxit, np.linalg.norm(b - a @ x) / nb


def cg_single_reduction(a, b, tol, maxit):
    """Chronopoulos and Gear: s = A p kept by recurrence, w = A r the one SpMV, gamma = r.r and
    delta = w.r in one reduction, alpha = gamma / (delta - beta gamma / alpha_old)."""
    x = np.zeros_like(b)
    r = b.copy()
    w = a @ r
    nb = np.linalg.norm(b)
    gamma, delta = r @ r, w @ r
    p = np.zeros_like(b)
    s = np.zeros_like(b)
    alpha, beta = gamma / delta, 0.0
    for k in range(1, maxit + 1):
        p = r + beta * p
        s = w + beta * s
        x += alpha * p
        r -= alpha * s
        w = a @ r
        gn, delta = r @ r, w @ r
        if np.sqrt(gn) <= tol * nb:
            return k, np.linalg.norm(b - a @ x) / nb
        beta = gn / gamma
        alpha = gn / (delta - beta * gn / alpha)
        gamma = gn
    return maxit, np.linalg.norm(b - a @ x) / nb


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "test", "data")
    names = ["mesh2em5", "gr_30_30", "fv1", "nos4", "Trefethen_500", "bcsstk05"]
    mats = {n: scipy.io.mmread(os.path.join(data, n + ".mtx")).tocsr() for n in names}
    mats["poisson3d:46"] = poisson3d(46)
    rng = np.random.default_rng(1)
    print("matrix          n       CG / single-reduction iterations (true relres) for b = ones, "
          "then three random b")
    for name, a in mats.items():
        a = a.astype(np.float64)
        cells = []
        for t in range(4):
            b = rng.uniform(-1, 1, a.shape[0]) if t else np.ones(a.shape[0])
            k1, r1 = cg(a, b, 1e-8, 10 * a.shape[0])
            k2, r2 = cg_single_reduction(a, b, 1e-8, 10 * a.shape[0])
            cells.append("%d/%d (%.1e/%.1e)" % (k1, k2, r1, r2))
        print("%-14s %6d  %s" % (name, a.shape[0], "  ".join(cells)))


if __name__ == "__main__":
    main()
