# python/mpcg/_callbacks.py: SciPy's M (a name, a diagonal, a matrix or a LinearOperator) and
# callback(xk) as libmpcg's preconditioner and iterate callbacks
# SPDX-License-Identifier: BSD-3-Clause
"""M and callback for libmpcg.

M approximates A^-1, as in SciPy: z = M r.

- a string: a preconditioner of the library, by the one table of names (mpcg_precond_parse:
  "none", "jacobi", "bjacobi:24", "chebyshev:4", "auto"); None is "auto", mpcg's default
  everywhere (cgsolve's too). SciPy's default, no preconditioner, is M="none".
- a 1-D array d of n entries: z = d * r (d is the diagonal of M, e.g. 1 / diag(A) for Jacobi)
- a matrix (scipy.sparse, or a 2-D NumPy array) or a LinearOperator (anything with matvec):
  z = M @ r

Arrays, matrices and operators run on the host, once an iteration, through
mpcg_solver_set_precond_callback (the host variant, fp64). A CuPy M (array, sparse matrix, or an
operator of cupyx) is applied with CuPy on copies of r and z. callback(xk) is
mpcg_solver_set_iterate_callback: called after every iteration with a copy of x_k (a CuPy array
when the solve's inputs are CuPy's).
"""
import ctypes

import numpy as np

from . import _api, _device

__all__ = ["precond_spec", "Callbacks"]

_M_TYPES = ("a preconditioner name ('jacobi', 'bjacobi:24', 'chebyshev:4', 'auto', 'none'), "
            "None, a 1-D array (the diagonal of M ~ A^-1), a matrix or a LinearOperator")


def precond_spec(M):
    """M as the library's preconditioner name (bytes), checked by mpcg_precond_parse before any
    C object exists: ValueError with the library's message otherwise."""
    spec = "auto" if M is None else M.lower()
    _api.clear_error(None)  # the thread's message slot keeps its first failure
    if _api.precond_parse(spec.encode(), None, None) != _api.MPCG_SUCCESS:
        buf = ctypes.create_string_buffer(512)
        _api.last_error_message(None, buf, len(buf))
        raise ValueError(f"mpcg: M: {buf.value.decode(errors='replace')}")
    return spec.encode()


def _real(kind, dtype):
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        raise TypeError(f"mpcg: M is a complex {kind}; mpcg solves real systems")


def _cupy_operator(M, n):
    """z = M r for a CuPy M, on the device, from and to host arrays."""
    cp = _device.cupy_module()
    if hasattr(M, "matvec"):
        apply = M.matvec
    elif getattr(M, "ndim", 2) == 1:
        d = cp.asarray(M, dtype=cp.float64)
        def apply(r):
            return d * r
    else:
        apply = M.dot
    def op(r, z):
        z[:] = cp.asnumpy(apply(cp.asarray(r))).reshape(n)
    return op


def _operator(M, n):
    """z[:] = M r as a function op(r, z) of host arrays; TypeError/ValueError for what is not an
    M of n rows."""
    shape = tuple(getattr(M, "shape", ()))
    if _device.is_cupy(M) or _device.is_device_array(M):
        if len(shape) not in (1, 2) or shape[0] != n or (len(shape) == 2 and shape[1] != n):
            raise ValueError(f"mpcg: M has shape {shape}; A has {n} rows")
        _real("matrix", getattr(M, "dtype", np.float64))
        return _cupy_operator(M, n)
    if isinstance(M, np.ndarray) and M.ndim == 1:
        if M.shape[0] != n:
            raise ValueError(f"mpcg: M is a diagonal of {M.shape[0]} entries; A has {n} rows")
        _real("diagonal", M.dtype)
        d = np.ascontiguousarray(M, dtype=np.float64)
        return lambda r, z: np.multiply(d, r, out=z)
    if hasattr(M, "matvec") or hasattr(M, "tocsr") or isinstance(M, np.ndarray):
        if shape != (n, n):
            raise ValueError(f"mpcg: M has shape {shape}; A is {n} x {n}")
        _real("matrix", getattr(M, "dtype", None) or np.float64)
        if hasattr(M, "tocsr"):
            C = M.tocsr()
            def op(r, z):
                z[:] = C @ r
            return op
        if isinstance(M, np.ndarray):
            D = np.ascontiguousarray(M, dtype=np.float64)
            return lambda r, z: np.dot(D, r, out=z)
        def op(r, z):
            y = np.asarray(M.matvec(r))
            if np.iscomplexobj(y):
                raise TypeError("mpcg: M.matvec returned complex values")
            z[:] = y.reshape(n)
        return op
    raise TypeError(f"mpcg: M must be {_M_TYPES}; not a {type(M).__name__}")


class Callbacks:
    """The C callbacks of one solver: M's (z = M r) and callback's (x_k), as ctypes function
    pointers kept alive here; an exception raised inside is kept (the callback returns 1, the
    solve stops) and raised again by check() after the solve."""

    def __init__(self, M, callback, n, cupy_out=False):
        if callback is not None and not callable(callback):
            raise TypeError(f"mpcg: callback must be callable, not a {type(callback).__name__}")
        self.n = n
        self.error = None
        self.cupy_out = cupy_out
        self.op = None if M is None or isinstance(M, str) else _operator(M, n)
        self.callback = callback
        self.pc_fn = _api.PRECOND_FN(self._precond) if self.op is not None else None
        self.it_fn = _api.ITERATE_FN(self._iterate) if callback is not None else None

    def _array(self, ptr):
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_double)),
                                     shape=(self.n,))

    def _precond(self, r, z, _user):
        try:
            self.op(self._array(r), self._array(z))
            return 0
        except BaseException as e:  # noqa: B902 (KeyboardInterrupt too: the solve stops)
            self.error = e
            return 1

    def _iterate(self, _k, x, _user):
        try:
            xk = self._array(x).copy()
            self.callback(_device.cupy_module().asarray(xk) if self.cupy_out else xk)
            return 0
        except BaseException as e:  # noqa: B902
            self.error = e
            return 1

    def install(self, solver, check):
        """Set them on the C solver (before its setup); check(status) raises on failure."""
        if self.pc_fn is None and self.it_fn is None:
            return
        if _api.solver_set_precond_callback is None:
            raise TypeError("mpcg: the loaded libmpcg predates mpcg_solver_set_precond_callback: "
                            "M can only be a preconditioner name, and callback is not available")
        if self.pc_fn is not None:
            check(_api.solver_set_precond_callback(solver, self.pc_fn, None))
        if self.it_fn is not None:
            check(_api.solver_set_iterate_callback(solver, self.it_fn, None))

    def reraise(self):
        """Raise the exception a callback raised during the last solve, if any."""
        e, self.error = self.error, None
        if e is not None:
            raise e
