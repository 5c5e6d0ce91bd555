# bench/cupy_batch_cg.py: batchbench's cg systems solved one after another with CuPy's cg on the
# GPU: the CuPy row of the batched CG comparison (docs/benchmarks.md, "batchbench")
# SPDX-License-Identifier: BSD-3-Clause
"""usage: cupy_batch_cg.py [--k K] [--grid G|G1:G2] [--seed S] [--tol T] [--maxit N]
                        [--precond none|jacobi] [--loop-count L] [--runs R] [--generate-only]

Makes the systems batchbench's cg scenario makes, bit for bit: one splitmix64 stream from the
seed (mpcg's core/rng.h), its first K draws the grids (g_i = G1 + u64 mod (G2 - G1 + 1)), then
one draw per row for its diagonal 4 (1 + 0.5 u), then one per row for b (2 u - 1), u = (u64 >>
11) 2^-53; the 5-point stencil's neighbours -1 (docs/benchmarks.md, "batchbench"). Defaults as
batchbench's cg: K = 10000, grid 10, seed 24.

Solves the first L of the K systems (--loop-count, default 1000; 0: all K) one after another
with cupyx.scipy.sparse.linalg.cg: zero guess, relative tolerance T (default 1e-8) on its
recurrence residual, no absolute tolerance, maxiter max(100, 10 n_i) unless --maxit, and for
jacobi M = diag(A_i)^-1 as a LinearOperator. Every A_i and b_i is on the GPU before the timing.
One untimed pass over the first min(L, 10) systems (CuPy compiles its kernels), then R timed
passes (default 3) over the L systems, each timed by wall clock with the device synchronized at
its end; the median is scaled by K / L. An untimed pass with a callback then counts the
iterations, and the true residuals are recomputed. One line:
  cupy_batch_cg NAME K rows nnz precond L iterations_max iterations_median not_converged
      ms_all_K max_true_relres
--generate-only prints the checksums batchbench prints (the sum of the values' and of b's 64-bit
patterns modulo 2^64) and needs neither CuPy nor a GPU."""
import argparse
import inspect
import statistics
import sys
import time

import numpy as np

GAMMA = np.uint64(0x9E3779B97F4A7C15)


def draws(seed, start, count):
    """Draws start + 1 .. start + count of mpcg's splitmix64 stream from seed (core/rng.h)."""
    with np.errstate(over="ignore"):
        j = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        z = np.uint64(seed) + j * GAMMA
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform(u64):
    """mpcgi_rng_uniform: 53 random bits in [0, 1)."""
    return (u64 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def template(g):
    """The g x g 5-point pattern: row pointers, columns (sorted), positions of the diagonal."""
    ptr, col, diag = [0], [], []
    for r in range(g * g):
        x, y = r % g, r // g
        for c, inside in ((r - g, y > 0), (r - 1, x > 0), (r, True), (r + 1, x < g - 1),
                          (r + g, y < g - 1)):
            if inside:
                if c == r:
                    diag.append(len(col))
                col.append(c)
        ptr.append(len(col))
    return np.array(ptr, dtype=np.int32), np.array(col, dtype=np.int32), np.array(diag)


def generate(k, g1, g2, seed):
    """The batch: per system (grid, ptr, col, val), the concatenated values, b, offsets."""
    grid = (np.uint64(g1) + draws(seed, 0, k) % np.uint64(g2 - g1 + 1)).astype(np.int64)
    off = np.concatenate([[0], np.cumsum(grid * grid)])
    rows = int(off[-1])
    d = 4.0 * (1.0 + 0.5 * uniform(draws(seed, k, rows)))
    b = 2.0 * uniform(draws(seed, k + rows, rows)) - 1.0
    pats, systems = {}, []
    for i in range(k):
        g = int(grid[i])
        if g not in pats:
            pats[g] = template(g)
        ptr, col, diag = pats[g]
        val = np.full(len(col), -1.0)
        val[diag] = d[off[i]:off[i + 1]]
        systems.append((g, ptr, col, val))
    vals = np.concatenate([s[3] for s in systems])
    return systems, vals, b, off


def checksum(v):
    return int(np.sum(v.view(np.uint64), dtype=np.uint64))


def parse_grid(text):
    parts = [int(t) for t in text.split(":")]
    if len(parts) not in (1, 2) or not 1 <= parts[0] <= parts[-1] <= 128:
        raise argparse.ArgumentTypeError(f"expected G or G1:G2 with 1 <= G1 <= G2 <= 128: {text}")
    return parts[0], parts[-1]


def solve_all(cla, problems, count, kw, callback=None):
    """cg on the first count problems, one after another; their (x, info)."""
    out = []
    for A, b, M, maxit in problems[:count]:
        out.append(cla.cg(A, b, atol=0.0, maxiter=maxit, M=M, callback=callback, **kw))
    return out


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--k", type=int, default=10000)
    ap.add_argument("--grid", type=parse_grid, default=(10, 10))
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxit", type=int, default=-1)
    ap.add_argument("--precond", choices=["none", "jacobi"], default="none")
    ap.add_argument("--loop-count", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--generate-only", action="store_true")
    a = ap.parse_args()
    if a.k < 1 or a.runs < 1 or a.loop_count < 0 or not 0 < a.tol < 1:
        ap.error("--k >= 1, --runs >= 1, --loop-count >= 0, 0 < --tol < 1")
    g1, g2 = a.grid
    name = f"laplace2d-batch:{a.k}:{g1}" + ("" if g1 == g2 else f":{g2}")
    systems, vals, b, off = generate(a.k, g1, g2, a.seed)
    rows, nnz = int(off[-1]), len(vals)
    if a.generate_only:
        print(f"{name}: K = {a.k}, {rows} rows, nnz = {nnz}, seed {a.seed}; values checksum "
              f"{checksum(vals):016x}, b checksum {checksum(b):016x}")
        return
    import cupy as cp
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cla

    L = a.k if a.loop_count == 0 else min(a.loop_count, a.k)
    problems = []
    for i, (g, ptr, col, val) in enumerate(systems[:L]):
        n = g * g
        A = csp.csr_matrix((cp.asarray(val), cp.asarray(col), cp.asarray(ptr)), shape=(n, n))
        M = None
        if a.precond == "jacobi":
            dinv = 1.0 / A.diagonal()
            M = cla.LinearOperator((n, n), matvec=lambda r, dinv=dinv: dinv * r)
        maxit = a.maxit if a.maxit >= 0 else max(100, 10 * n)
        problems.append((A, cp.asarray(b[off[i]:off[i + 1]]), M, maxit))
    kw = {"rtol": a.tol} if "rtol" in inspect.signature(cla.cg).parameters else {"tol": a.tol}
    solve_all(cla, problems, min(L, 10), kw)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        solve_all(cla, problems, L, kw)
        cp.cuda.Device().synchronize()
        times.append(1e3 * (time.perf_counter() - t0))
    count = [0]
    iters, rel, bad = [], [], 0

    def tick(_x):
        count[0] += 1

    for (A, bi, M, maxit) in problems:
        count[0] = 0
        x, info = solve_all(cla, [(A, bi, M, maxit)], 1, kw, tick)[0]
        iters.append(count[0])
        bad += info != 0
        rel.append(float(cp.linalg.norm(bi - A @ x) / cp.linalg.norm(bi)))
    ms = statistics.median(times) * a.k / L
    print(f"cupy_batch_cg {name} {a.k} {rows} {nnz} {a.precond} {L} {max(iters)} "
          f"{statistics.median(iters):g} {bad} {ms:.3f} {max(rel):.3e}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
