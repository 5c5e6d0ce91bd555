# bench/cupy_pcg.py: CuPy's cg with a diagonal (Jacobi) LinearOperator on the GPU: the peer row of
# the preconditioner comparison (docs/preconditioners.md)
# SPDX-License-Identifier: BSD-3-Clause
"""usage: cupy_pcg.py [--tol T] [--maxit N] [--runs R] [--precond none|jacobi] MATRIX...

MATRIX: a Matrix Market file (coordinate, real/integer/pattern, general or symmetric) or
poisson3d:N (the 7-point stencil cgsolve --generate makes). Solves A x = ones with
cupyx.scipy.sparse.linalg.cg (zero guess, relative tolerance T on the unpreconditioned residual,
no absolute tolerance), M = diag(A)^-1 as a LinearOperator for jacobi. One warm-up solve, then R
timed solves (wall clock around the call, the device synchronized), the median reported with the
iteration count and the true relative residual. One line per matrix:
  cupy_pcg MATRIX n nnz precond iterations ms true_relres"""
import argparse
import gzip
import inspect
import statistics
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import numpy as np


def read_mm(path):
    """The CSR arrays of a coordinate Matrix Market file (symmetric expanded)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        banner = f.readline().lower().split()
        if len(banner) < 5 or banner[2] != "coordinate":
            raise SystemExit(f"{path}: only coordinate Matrix Market files")
        field, sym = banner[3], banner[4]
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        n, m, nnz = (int(t) for t in line.split())
        data = np.loadtxt(f, ndmin=2, max_rows=nnz)
    i = data[:, 0].astype(np.int64) - 1
    j = data[:, 1].astype(np.int64) - 1
    v = np.ones(nnz) if field == "pattern" else data[:, 2]
    if sym == "symmetric":
        off = i != j
        i, j, v = np.concatenate([i, j[off]]), np.concatenate([j, i[off]]), np.concatenate([v, v[off]])
    return csp.csr_matrix((cp.asarray(v), (cp.asarray(i), cp.asarray(j))), shape=(n, m))


def poisson3d(N):
    """The 7-point Laplacian on an N^3 grid (6 on the diagonal, -1 to each neighbour)."""
    n = N ** 3
    idx = np.arange(n)
    x, y, z = idx % N, (idx // N) % N, idx // (N * N)
    rows, cols, vals = [idx], [idx], [np.full(n, 6.0)]
    for d, c in ((1, x), (N, y), (N * N, z)):
        for sgn, ok in ((-1, c > 0), (1, c < N - 1)):
            rows.append(idx[ok])
            cols.append(idx[ok] + sgn * d)
            vals.append(np.full(ok.sum(), -1.0))
    r, c, v = (np.concatenate(a) for a in (rows, cols, vals))
    return csp.csr_matrix((cp.asarray(v), (cp.asarray(r), cp.asarray(c))), shape=(n, n))


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxit", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--precond", choices=["none", "jacobi"], default="jacobi")
    ap.add_argument("matrices", nargs="+")
    a = ap.parse_args()
    for spec in a.matrices:
        A = poisson3d(int(spec.split(":")[1])) if spec.startswith("poisson3d:") else read_mm(spec)
        A.sum_duplicates()
        n = A.shape[0]
        b = cp.ones(n)
        M = None
        if a.precond == "jacobi":
            dinv = 1.0 / A.diagonal()
            M = cla.LinearOperator((n, n), matvec=lambda r: dinv * r)
        count = [0]
        params = inspect.signature(cla.cg).parameters
        kw = {"rtol": a.tol} if "rtol" in params else {"tol": a.tol}

        def solve():
            count[0] = 0
            x, info = cla.cg(A, b, atol=0.0, maxiter=a.maxit, M=M, **kw,
                             callback=lambda _x: count.__setitem__(0, count[0] + 1))
            cp.cuda.Device().synchronize()
            return x, info

        solve()
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            x, info = solve()
            times.append(1e3 * (time.perf_counter() - t0))
        rel = float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))
        print(f"cupy_pcg {spec} {n} {A.nnz} {a.precond} {count[0]} "
              f"{statistics.median(times):.3f} {rel:.3e}" + ("" if info == 0 else f" info={info}"))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
