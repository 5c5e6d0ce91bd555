# python/mpcg/_block.py: Solver.solve with a block b (n, k): block CG (mpcg_solve_block), or one
# solve a column where block CG cannot run
# SPDX-License-Identifier: BSD-3-Clause
"""Several right-hand sides at once.

A 2-D b of k > 1 columns takes mpcg_solve_block (mpcg_solve_block_device for CuPy), 64 columns
(the C API's largest nrhs) a call, on column-major copies of b and x. Where block CG does not
run (a callback M or callback(xk), precision other than fp64: include/mpcg.h) the columns are
solved one after another with mpcg_solve, callback(xk) seeing each column's iterates. info is
Info._combine of the columns' Infos (info.columns).
"""
import ctypes

import numpy as np

from . import _api
from ._info import Info


def _infos(m):
    """m struct mpcg_info in a row, then spare bytes (a newer library's larger struct would still
    be misread: test/test_python.sh checks the layout against the header)."""
    class Buffer(ctypes.Structure):
        _fields_ = [("infos", _api.Info * m), ("_spare", ctypes.c_char * 4096)]
    return Buffer()


def _by_column(s, B, X, xp):
    k = B.shape[1]
    out = xp.empty_like(B)
    infos = []
    for j in range(k):
        guess = None if X is None else xp.ascontiguousarray(X[:, j])
        x, info = s._solve1(xp.ascontiguousarray(B[:, j]), guess, xp)
        out[:, j] = x
        infos.append(info)
    return out, Info._combine(infos)


def solve(s, B, X, xp):
    """x, info of A X = B (B (n, k) float64, X None or the guess of B's shape)."""
    cb = s._callbacks
    if cb.pc_fn is not None or cb.it_fn is not None or s.precision != "fp64":
        return _by_column(s, B, X, xp)
    n, k = B.shape
    Bf = xp.asfortranarray(B)
    Xf = xp.empty(B.shape, dtype=xp.float64, order="F") if X is None else xp.asfortranarray(X)
    s._set_guess(X is not None)
    if xp is not np:
        s._bind_stream(True)
    infos = []
    step = n * 8  # bytes of one column
    for j in range(0, k, _api.BLOCK_MAX):
        m = min(_api.BLOCK_MAX, k - j)
        buf = _infos(m)
        if xp is np:
            st = _api.solve_block(s._solver, m, Bf.ctypes.data + j * step,
                                  Xf.ctypes.data + j * step, ctypes.addressof(buf))
        else:
            st = _api.solve_block_device(s._solver, m, Bf.data.ptr + j * step,
                                         Xf.data.ptr + j * step, ctypes.addressof(buf))
        s._status(st)
        infos += [Info._from_c(c) for c in buf.infos]
    return xp.ascontiguousarray(Xf), Info._combine(infos)
