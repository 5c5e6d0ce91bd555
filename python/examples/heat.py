#!/usr/bin/env python3
# python/examples/heat.py: implicit heat equation on a square, one CG solve per time step: the
# Python twin of examples/heat.c (the same matrix, steps and output)
# SPDX-License-Identifier: BSD-3-Clause
"""usage: heat.py [N [STEPS [DEVICE]]]   (defaults 64, 10, auto)

u_t = Laplace(u) on the unit square with u = 0 on the boundary, backward Euler:
    (I + dt L) u_new = u_old,   L = the 5-point Laplacian / h^2 (SPD).
The matrix is assembled once as SciPy CSR; every step solves with the same mpcg.Solver (setup
once), the old state as the initial guess, and halfway the time step doubles, so the values are
replaced through Solver.update_values (same pattern, no new analysis).
Runs from a build tree as it is (the package beside it, libmpcg from ../../.libs unless
MPCG_LIBRARY is set) or with the package installed (pip install ./python)."""
import os
import sys

import numpy as np
import scipy.sparse

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
if "MPCG_LIBRARY" not in os.environ and os.path.exists(os.path.join(TOP, ".libs", "libmpcg.so")):
    os.environ["MPCG_LIBRARY"] = os.path.join(TOP, ".libs", "libmpcg.so")
sys.path.insert(0, os.path.dirname(HERE))  # python/: the package of this tree first
import mpcg  # noqa: E402


def assemble(N, dt):
    """I + dt L on the N x N interior grid: rows in order, columns sorted (r - N, r - 1, r,
    r + 1, r + N where they exist), as examples/heat.c lays them out."""
    h2 = 1.0 / ((N + 1.0) * (N + 1.0))
    off, diag = -dt / h2, 1.0 + 4.0 * dt / h2
    n = N * N
    r = np.arange(n)
    i, j = r // N, r % N
    rows, cols, vals = [], [], []
    for keep, c, v in ((i > 0, r - N, off), (j > 0, r - 1, off), (np.ones(n, bool), r, diag),
                       (j < N - 1, r + 1, off), (i < N - 1, r + N, off)):
        rows.append(r[keep])
        cols.append(c[keep])
        vals.append(np.full(int(keep.sum()), v))
    A = scipy.sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                        np.concatenate(cols))), shape=(n, n))
    A.sort_indices()
    return A


def main(argv):
    try:
        N = int(argv[1]) if len(argv) > 1 else 64
        steps = int(argv[2]) if len(argv) > 2 else 10
    except ValueError:
        N = steps = 0
    device = argv[3] if len(argv) > 3 else "auto"
    if N < 2 or steps < 1:
        print("usage: heat.py [N >= 2 [STEPS >= 1 [DEVICE]]]", file=sys.stderr)
        return 2
    r = np.arange(N * N)  # initial temperature: a hot square around the center
    xr, yr = (r % N + 1) / (N + 1), (r // N + 1) / (N + 1)
    u = np.where((np.abs(xr - 0.45) < 0.2) & (np.abs(yr - 0.55) < 0.2), 1.0, 0.0)
    dt = 1e-4
    try:
        with mpcg.Solver(assemble(N, dt), rtol=1e-10, device=device) as s:
            print(f"heat: {N} x {N} grid, {steps} steps on {s.device_name}")
            for step in range(steps):
                if step == steps // 2:  # a new time step: new values, same pattern
                    dt *= 2
                    s.update_values(assemble(N, dt))
                x, info = s.solve(u, x0=u)  # the old state is the guess
                if not info.converged:
                    print(f"heat: step {step}: {info.reason_string}", file=sys.stderr)
                    return 1
                u = x
                print(f"step {step:3d}  dt {dt:.1e}  iterations {info.iterations:3d}  "
                      f"true relres {info.true_relres:.2e}  u(center) {u[(N // 2) * N + N // 2]:.6f}")
    except mpcg.MpcgError as e:
        print(f"heat: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
