# bench/python_cupy_cg.py: mpcg.cg on CuPy inputs (the device view, no host copies) against
# cupyx.scipy.sparse.linalg.cg and cgsolve on poisson3d:N
# SPDX-License-Identifier: BSD-3-Clause
"""usage: python_cupy_cg.py [--n N] [--tol T] [--runs R] [--maxit M] [--cgsolve PATH]

Solves A x = ones, A = poisson3d:N (default 128: the 7-point Laplacian, n = N^3, built here on the
GPU as a CuPy CSR matrix by bench/cupy_pcg.py's generator), relative tolerance T (default 1e-8, no
preconditioner: cgsolve's auto is none on this matrix), with
  mpcg.cg       the whole call on the CuPy inputs: device view of A (no copy), setup, solve, x
                a CuPy array, on the context cg() keeps between calls; its first call apart
                (the context made, auto's trial or its cache file read);
  Solver.solve  a solve of an mpcg.Solver made once (setup done): the wall time of the call and
                the library's info.solve_time_s;
  cupyx cg      cupyx.scipy.sparse.linalg.cg (same tolerance, atol 0; no callback while timed);
  cgsolve       cgsolve --generate=poisson3d:N --tol=T --json=- (one process a run): its
                time.solve_s (b and x copied, the iteration, the true residual; no setup).
One warm-up of each, then R timed runs (time.perf_counter around the call, the device
synchronized before and after), medians. Prints iterations, true relative residual and time of
each, and the ratios of mpcg.cg to cgsolve's solve time and to cupyx cg's.

Runs as it is from a build tree: the package from python/ beside it, libmpcg from .libs/ (unless
MPCG_LIBRARY is set), cgsolve from the tree's root (or --cgsolve)."""
import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "python"))
if "MPCG_LIBRARY" not in os.environ and os.path.exists(os.path.join(TOP, ".libs", "libmpcg.so")):
    os.environ["MPCG_LIBRARY"] = os.path.join(TOP, ".libs", "libmpcg.so")

import cupy as cp  # noqa: E402
import cupyx.scipy.sparse.linalg as cla  # noqa: E402

import mpcg  # noqa: E402
from cupy_pcg import poisson3d  # noqa: E402  (bench/cupy_pcg.py)


def timed(fn, runs, first=None):
    """fn() once to warm up, then `runs` times with the device synchronized around each: the
    median wall time in ms and the last result; first (a list): gets the warm-up's ms."""
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    fn()
    cp.cuda.Device().synchronize()
    if first is not None:
        first.append(1e3 * (time.perf_counter() - t0))
    times, out = [], None
    for _ in range(runs):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        out = fn()
        cp.cuda.Device().synchronize()
        times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times), out


def relres(A, x, b):
    return float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))


def bench_mpcg(A, b, a):
    first = []
    # M="none": plain CG, as cupyx's cg without M (mpcg's default M is auto)
    ms_cg, (x, info) = timed(lambda: mpcg.cg(A, b, rtol=a.tol, maxiter=a.maxit, M="none"), a.runs,
                             first)
    rows = [("mpcg.cg", info.iterations, relres(A, x, b), ms_cg),
            ("  its first call", info.iterations, relres(A, x, b), first[0])]
    with mpcg.Solver(A, rtol=a.tol, maxiter=a.maxit, M="none") as s:
        inner = []

        def solve():
            x, info = s.solve(b)
            inner.append(1e3 * info.solve_time_s)
            return x, info
        ms_solve, (x, info) = timed(solve, a.runs)
        rows.append(("Solver.solve", info.iterations, relres(A, x, b), ms_solve))
        rows.append(("  info.solve_time_s", info.iterations, info.true_relres,
                     statistics.median(inner[1:])))
    print(f"mpcg plan: {info.backend}, {info.variant}; {info.spmv_describe}")
    return rows


def bench_cupyx(A, b, a):
    kw = {"rtol": a.tol} if "rtol" in inspect.signature(cla.cg).parameters else {"tol": a.tol}
    count = [0]

    def step(_x):
        count[0] += 1
    cla.cg(A, b, atol=0.0, maxiter=a.maxit, callback=step, **kw)  # the iterations, apart
    ms, (x, _) = timed(lambda: cla.cg(A, b, atol=0.0, maxiter=a.maxit, **kw), a.runs)
    return [("cupyx cg", count[0], relres(A, x, b), ms)]


def bench_cgsolve(a):
    path = a.cgsolve or os.path.join(TOP, "cgsolve")
    if not os.path.exists(path):
        print(f"cgsolve: not found at {path} (--cgsolve PATH); its row is skipped")
        return []
    cmd = [path, f"--generate=poisson3d:{a.n}", f"--tol={a.tol}", f"--maxit={a.maxit}",
           "--json=-"]
    reports = []
    for _ in range(a.runs + 1):  # the first is the warm-up
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            print(f"cgsolve failed ({p.returncode}): {p.stderr.strip()}")
            return []
        reports.append(json.loads(p.stdout))
    r = reports[-1]
    ms = statistics.median(1e3 * q["time"]["solve_s"] for q in reports[1:])
    return [("cgsolve", r["result"]["iterations"], r["result"]["true_relres"], ms)]


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--maxit", type=int, default=20000)
    ap.add_argument("--cgsolve")
    a = ap.parse_args()
    A = poisson3d(a.n)
    A.sum_duplicates()
    b = cp.ones(A.shape[0])
    print(f"poisson3d:{a.n}: n {A.shape[0]}, nnz {A.nnz}, tol {a.tol:g}, {a.runs} timed runs "
          f"(medians); {cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)['name']}")
    rows = bench_mpcg(A, b, a) + bench_cupyx(A, b, a) + bench_cgsolve(a)
    for name, its, rel, ms in rows:
        print(f"{name:22s} iterations {its:6d}  true relres {rel:.2e}  {ms:10.3f} ms")
    t = {name.strip(): ms for name, _, _, ms in rows}
    if "cgsolve" in t:
        for k in ("mpcg.cg", "Solver.solve", "info.solve_time_s"):
            print(f"{k} / cgsolve solve time: {t[k] / t['cgsolve']:.3f} (target <= 1.05)")
    for k in ("mpcg.cg", "Solver.solve"):
        print(f"cupyx cg / {k}: {t['cupyx cg'] / t[k]:.2f}x (target >= 2)")


if __name__ == "__main__":
    main()
