# python/mpcg/__init__.py: conjugate gradient for sparse SPD systems (libmpcg over ctypes)
# SPDX-License-Identifier: BSD-3-Clause
"""mpcg: CG for sparse symmetric positive definite systems on NVIDIA GPUs and CPUs.

    import mpcg
    x, info = mpcg.cg(A, b, rtol=1e-8, M="jacobi", device="cpu")   # as scipy.sparse.linalg.cg
    if info == 0: ...                                                # info.iterations, ...
    with mpcg.Solver(A, device="cpu") as s:
        x1, info1 = s.solve(b1)
        x2, info2 = s.solve(b2, x0=x1)

A pure-Python binding: it loads the installed libmpcg (the install it came with, MPCG_LIBRARY,
pkg-config, the linker's search path, or common prefixes; see mpcg._lib) and builds nothing.
"""
from . import _api
from ._info import History, Info
from .solver import MpcgError, Solver, cg

__version__ = "0.1.0"
library_path = _api.library_path
library_version = _api.library_version()


def device_count():
    """Usable GPUs (0 in a build of libmpcg without CUDA)."""
    return _api.device_count()


__all__ = ["cg", "Solver", "Info", "History", "MpcgError", "device_count", "library_path",
           "library_version"]
