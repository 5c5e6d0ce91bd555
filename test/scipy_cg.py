# test/scipy_cg.py: solve with scipy.sparse.linalg.cg and compare with cgsolve's result
# SPDX-License-Identifier: BSD-3-Clause
"""usage: scipy_cg.py A.mtx X_MPCG.mtx ITERATIONS_MPCG TOL [PRECOND]

Runs SciPy's CG on A x = ones (zero initial guess, relative tolerance TOL, no absolute
tolerance; PRECOND none (default), jacobi or bjacobi:B, the same M as cgsolve --precond builds:
diag(A)^-1, or the inverses of A's diagonal blocks of B consecutive rows) and checks against
mpcg's solution and iteration count:
  * iterations: |it_mpcg - it_scipy| <= max(1, 2% of it_scipy);
  * both solutions have a true relative residual ||b - A x|| / ||b|| <= TOL (computed here);
  * the two solutions agree: ||x_mpcg - x_scipy|| / ||x_scipy|| <= 1e3 * TOL.
Exit 0 on agreement, 1 otherwise."""
import inspect
import sys

import numpy as np
import scipy.io
import scipy.sparse
import scipy.sparse.linalg


def preconditioner(A, spec):
    """M^-1 as a LinearOperator (None for none)."""
    n = A.shape[0]
    if spec == "none":
        return None
    if spec == "jacobi":
        dinv = 1.0 / A.diagonal()
        return scipy.sparse.linalg.LinearOperator((n, n), matvec=lambda r: dinv * r.ravel())
    kind, _, size = spec.partition(":")
    if kind != "bjacobi" or not size.isdigit() or int(size) < 1:
        raise SystemExit(f"scipy_cg.py: unknown preconditioner {spec}")
    B = int(size)
    blocks = []
    for s in range(0, n, B):
        e = min(n, s + B)
        blk = A[s:e, s:e].toarray()
        try:
            np.linalg.cholesky(blk)
            blocks.append(np.linalg.inv(blk))
        except np.linalg.LinAlgError:  # not SPD: its diagonal, as mpcg does
            blocks.append(np.diag(1.0 / np.diag(blk)))
    Minv = scipy.sparse.block_diag(blocks, format="csr")
    return scipy.sparse.linalg.LinearOperator((n, n), matvec=lambda r: Minv @ r.ravel())


def main():
    path, xpath, it_mpcg, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    spec = sys.argv[5] if len(sys.argv) > 5 else "none"
    A = scipy.sparse.csr_matrix(scipy.io.mmread(path))
    b = np.ones(A.shape[0])
    count = [0]

    def callback(_xk):
        count[0] += 1

    params = inspect.signature(scipy.sparse.linalg.cg).parameters
    kw = {"rtol": tol} if "rtol" in params else {"tol": tol}
    x_sp, info = scipy.sparse.linalg.cg(A, b, atol=0.0, maxiter=100 * A.shape[0],
                                        callback=callback, M=preconditioner(A, spec), **kw)
    x_mp = np.asarray(scipy.io.mmread(xpath)).ravel()
    bn = np.linalg.norm(b)
    res_sp = np.linalg.norm(b - A @ x_sp) / bn
    res_mp = np.linalg.norm(b - A @ x_mp) / bn
    diff = np.linalg.norm(x_mp - x_sp) / np.linalg.norm(x_sp)
    it_sp = count[0]
    ok_it = abs(it_mpcg - it_sp) <= max(1, 0.02 * it_sp)
    # SciPy stops on its recurrence residual; allow it the rounding gap mpcg closes itself
    ok_res = res_mp <= tol and res_sp <= 10 * tol
    ok_x = diff <= 1e3 * tol
    print(f"{path} ({spec}): iterations mpcg {it_mpcg} scipy {it_sp} ({'ok' if ok_it else 'DIFFER'}); "
          f"true relres mpcg {res_mp:.3e} scipy {res_sp:.3e} ({'ok' if ok_res else 'BAD'}); "
          f"|x_mpcg - x_scipy|/|x_scipy| {diff:.3e} ({'ok' if ok_x else 'DIFFER'}); "
          f"scipy info {info}")
    return 0 if ok_it and ok_res and ok_x and info == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
