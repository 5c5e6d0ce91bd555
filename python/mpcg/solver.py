# python/mpcg/solver.py: mpcg.cg and mpcg.Solver over the C API
# SPDX-License-Identifier: BSD-3-Clause
"""CG solves of sparse SPD systems through libmpcg (ctypes)."""
import ctypes
import math
import os
import sys
import warnings

import numpy as np

from . import _api, _block, _context, _device
from ._callbacks import Callbacks, precond_spec
from ._info import History, Info

__all__ = ["MpcgError", "Info", "History", "Solver", "cg"]  # Info, History: mpcg/_info.py


class MpcgError(RuntimeError):
    """A libmpcg call returned a status other than MPCG_SUCCESS.

    status:  the status name, e.g. "MPCG_ERR_INVALID_ARG" (mpcg_status_name)
    message: mpcg_last_error()'s text, "<file>:<line>: <function>: <message>" plus "called
             from" frames (for the few checks the binding makes itself, because the C API
             cannot see them, a message starting "mpcg (python): ")
    brief:   the message alone, without location and frames (mpcg_last_error_message)
    code:    the numeric status
    """

    def __init__(self, status, message, brief=None, code=None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.brief = brief if brief is not None else message
        self.code = code


def _c_str(p):
    return p.decode("utf-8", "replace") if p is not None else ""


def _raise(st, ctx, what=""):
    """Raise MpcgError for status st with the error recorded in ctx (None: the thread's)."""
    name = _c_str(_api.status_name(st))
    full = _c_str(_api.last_error(ctx))
    size = _api.last_error_message(ctx, None, 0)
    buf = ctypes.create_string_buffer(size + 1)
    _api.last_error_message(ctx, buf, size + 1)
    brief = _c_str(buf.value)
    _api.clear_error(ctx)
    if not full:
        full = f"{what}: {_c_str(_api.status_string(st))}" if what else \
            _c_str(_api.status_string(st))
    raise MpcgError(name, full, brief or full, st)


def _binding_error(status, text):
    return MpcgError(status, "mpcg (python): " + text, text,
                     _api.STATUS_NAMES.index(status))


# ------------------------------------------------------------------ inputs

def _cupy():
    try:
        import cupy  # noqa: F401
        return cupy
    except Exception:  # not installed, or no usable CUDA: the device path is unavailable
        return None


def _is_cupy_array(a):
    return type(a).__module__.startswith("cupy") and hasattr(a, "__cuda_array_interface__")


def _is_cupy_sparse(A):
    return type(A).__module__.startswith("cupyx.scipy.sparse")


def _gpu_device(A, b=None):
    """The context for device inputs under device='auto': CuPy's current GPU, else GPU 0."""
    if _device.is_cupy(A) or (b is not None and _device.is_cupy(b)):
        return "cuda:%d" % _device.cupy_module().cuda.Device().id
    return "cuda"


def _canonical_csr(A):
    """(n, indptr int64, indices int32, data float64) of a square sparse A, host arrays, sorted
    column indices without duplicates, and whether A lived on a GPU (CuPy)."""
    on_gpu = False
    if _is_cupy_sparse(A):
        on_gpu = True
        C = A.tocsr()
        if C is A:
            C = C.copy()
        C.sum_duplicates()          # also sorts the indices
        shape = C.shape
        indptr, indices, data = C.indptr.get(), C.indices.get(), C.data.get()
    else:
        if not hasattr(A, "tocsr"):
            if isinstance(A, np.ndarray) and A.ndim == 2:
                import scipy.sparse
                A = scipy.sparse.csr_matrix(A)
            else:
                raise TypeError("mpcg: A must be a scipy.sparse matrix or array (or a CuPy sparse "
                                f"matrix, or a 2-D NumPy array), not {type(A).__name__}")
        C = A.tocsr()
        if not C.has_canonical_format:
            C = C.copy() if C is A else C
            C.sum_duplicates()      # sorts the indices too
        shape = C.shape
        indptr, indices, data = C.indptr, C.indices, C.data
    if len(shape) != 2 or shape[0] != shape[1]:
        raise _binding_error("MPCG_ERR_INVALID_ARG",
                             f"A is {shape[0]} x {shape[1]}: mpcg solves square systems "
                             "(mpcg_matrix_create_csr takes one n, so the binding checks this)")
    if np.iscomplexobj(data):
        raise TypeError("mpcg: A has complex values; mpcg solves real systems")
    n = shape[0]
    if n < 1 or n > 2**31 - 1:
        raise _binding_error("MPCG_ERR_INVALID_ARG", f"n = {n} is outside 1 .. 2^31 - 1")
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    data = np.ascontiguousarray(data, dtype=np.float64)
    return n, indptr, indices, data, on_gpu


def _word(value, table, what):
    if value is None:
        value = "none"
    key = str(value).lower()
    if key not in table:
        raise ValueError(f"mpcg: {what} must be one of {', '.join(table)}, not {value!r}")
    return table[key]


# ------------------------------------------------------------------ Solver

class Solver:
    """A CG solver for one matrix: context, matrix and solver of the C API, set up once and
    reused by every solve.

    Solver(A, rtol=1e-8, atol=0.0, maxiter=None, M=None, precision='fp64', spmv='auto',
           device='auto', options=None, history=False, cache_dir=None, callback=None)

    A:         scipy.sparse matrix/array of any format, or a device matrix: a CuPy sparse
               matrix (cupyx.scipy.sparse), or any CSR object whose data, indices and indptr
               expose __cuda_array_interface__, read in place on the GPU
               (mpcg_matrix_view_device_csr; kept alive by the solver; with device='cpu' a
               CuPy matrix is copied to the host instead)
    rtol:      stop when ||b - A x|| <= rtol ||b|| (0 < rtol < 1)
    atol:      absolute tolerance >= 0: converged when the true ||b - A x|| <=
               max(rtol ||b||, atol), as SciPy's cg (mpcg_solver_set_atol; reason
               "MPCG_CONVERGED_ATOL" where atol decided)
    maxiter:   None: the library's default max(100, 10 n)
    M:         M ~ A^-1 as in SciPy (z = M r): None (mpcg's default, 'auto'), a name of
               cgsolve --precond ('none', 'jacobi', 'bjacobi[:B]', 'chebyshev[:D]', 'auto':
               mpcg_precond_parse), a 1-D array d (z = d * r), a matrix or a LinearOperator
               (applied on the host each iteration: mpcg/_callbacks.py)
    precision: 'fp64', 'fp32' or 'mixed'
    spmv:      an SpMV backend name ('auto', 'cpu', 'cusparse', ...)
    device:    'auto', 'cpu', 'cuda' or 'cuda:N'
    options:   a dict of tuning options, {"cg.variant": "graph", ...} (mpcg_solver_set_option)
    history:   record the residual history of every solve: info.history (a History), else None
    cache_dir: where spmv='auto' keeps its timed decisions (mpcg_context_set_cache_dir): None
               for cgsolve's directory ($XDG_CACHE_HOME/mpcg, else ~/.cache/mpcg), "" for none
    callback:  callback(xk) after every iteration of every solve (a copy of x_k)

    A not symmetric gives a warning (RuntimeWarning), as cgsolve does. close() (or a with block)
    releases the C objects; a closed solver raises ValueError.
    """

    def __init__(self, A, rtol=1e-8, atol=0.0, maxiter=None, M="auto", precision="fp64",
                 spmv="auto", device="auto", options=None, history=False, cache_dir=None,
                 callback=None, _borrowed_context=None):
        # cg()'s kept context (mpcg/_context.py), borrowed: not destroyed by close()
        self._ctx = self._mat = self._solver = None
        self._own_ctx = _borrowed_context is None
        if not (0.0 < rtol < 1.0):
            raise ValueError(f"mpcg: rtol must be in (0, 1), not {rtol!r}")
        _check_atol(atol)
        precond = precond_spec(M if M is None or isinstance(M, str) else "none")
        prec = _word(precision, _api.PRECISION, "precision")
        device = "auto" if device is None else str(device)
        self._stream = None  # the context's stream as this solver set it (None: its own)
        self._dev = None  # the device matrix's arrays (a view: kept alive here)
        if _device.is_device_sparse(A) and device != "cpu":
            self._dev = _device.DeviceCSR(A)
            n, indptr, indices = self._dev.n, self._dev.indptr, self._dev.indices
            if device == "auto":
                device = _gpu_device(A)
        else:
            n, indptr, indices, data, _ = _canonical_csr(A)
        self._callbacks = Callbacks(M, callback, n)
        if self._own_ctx:
            self._ctx = _context.create(device, cache_dir, _raise)
        else:
            self._ctx = _borrowed_context  # on its own stream: close() puts it back there
            _api.clear_error(self._ctx)
        try:
            mat = ctypes.c_void_p()
            if self._dev is not None:
                self._view(mat)
            else:
                self._check(_api.matrix_create_csr(self._ctx, n, indptr.ctypes.data,
                                                   indices.ctypes.data, data.ctypes.data,
                                                   ctypes.byref(mat)))
            self._mat = mat.value
            if self._dev is None:
                self._warn_asymmetric()
            sol = ctypes.c_void_p()
            self._check(_api.solver_create(self._ctx, self._mat, ctypes.byref(sol)))
            self._solver = sol.value
            self._check(_api.solver_set_spmv(self._solver, str(spmv).encode()))
            self._check(_api.solver_set_precision(self._solver, prec))
            self._check(_api.solver_set_precond_spec(self._solver, precond))
            self._check(_api.solver_set_tol(self._solver, float(rtol)))
            self._check(_api.solver_set_atol(self._solver, float(atol)))
            self._check(_api.solver_set_history(self._solver, 1 if history else 0))
            self._callbacks.install(self._solver, self._check)
            if maxiter is not None:
                self._check(_api.solver_set_maxit(self._solver, int(maxiter)))
            for k, v in (options or {}).items():
                self._check(_api.solver_set_option(self._solver, str(k).encode(),
                                                   str(v).encode()))
            self._check(_api.solver_setup(self._solver))
        except BaseException:
            self.close()
            raise
        self.n = n
        self.indptr, self.indices = indptr, indices  # the pattern, for update_values
        self.nnz = self._dev.nnz if self._dev is not None else len(indices)
        self.device_kind = "cuda" if _api.context_device_kind(self._ctx) == _api.DEVICE_CUDA \
            else "cpu"
        self.device_name = _c_str(_api.context_device_name(self._ctx))
        self._guess = _api.GUESS_ZERO
        self._cinfo = _api.InfoBuffer()
        self._cinfo_ref = ctypes.addressof(self._cinfo)
        self._history = bool(history)
        self.precision = str(precision).lower()

    # ---------------------------------------------------------------- lifetime
    def _check(self, st):
        if st != _api.MPCG_SUCCESS:
            _raise(st, self._ctx)

    def close(self):
        """Destroy the solver, matrix and context (idempotent)."""
        try:
            if self._ctx is not None and not self._own_ctx and self._stream is not None:
                # a kept context goes back to its own stream while the caller's is alive (a
                # later call must not find a stream that is gone); failing that it is dropped
                if _api.context_set_stream(self._ctx, None) != _api.MPCG_SUCCESS:
                    _api.clear_error(self._ctx)
                    _context.discard(self._ctx)
                self._stream = None
            if self._solver is not None:
                _api.solver_destroy(self._solver)
            if self._mat is not None:
                _api.matrix_destroy(self._mat)
            if self._ctx is not None and self._own_ctx:
                _api.context_destroy(self._ctx)
        finally:
            self._solver = self._mat = self._ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the module globals may be gone already
            pass

    def _live(self):
        if self._solver is None:
            raise ValueError("mpcg: this Solver is closed")

    def _view(self, mat):
        """The matrix as a view of the device arrays (mpcg_matrix_view_device_csr), checked by
        libmpcg on the device after the producer's work on them (_bind_stream)."""
        if _api.matrix_view_device_csr is None:
            raise _binding_error("MPCG_ERR_NOT_SUPPORTED", "the loaded libmpcg has no "
                                 "mpcg_matrix_view_device_csr (older than this binding)")
        d = self._dev
        self._bind_stream(d.cupy, (d.indptr, d.indices, d.data))
        rp, ci, va = d.pointers()
        self._check(_api.matrix_view_device_csr(self._ctx, d.n, d.nnz, rp, d.rp_type, ci, va,
                                                ctypes.byref(mat)))

    def _bind_stream(self, cupy_inputs, arrays=()):
        """Order libmpcg's work after the producer's: CuPy's current stream becomes the
        context's (its legacy default stream, pointer 0, is waited for instead: NULL means the
        context's own); another producer's arrays name their stream in their interface (v3),
        which the context takes; without one the caller has synchronised."""
        if cupy_inputs:
            stream = _device.cupy_module().cuda.get_current_stream()
            ptr = stream.ptr or None
        else:
            stream, ptr = None, _device.stream_of(arrays)
        if ptr != self._stream:
            self._check(_api.context_set_stream(self._ctx, ptr))
            self._stream = ptr
        if stream is not None and not stream.ptr:
            stream.synchronize()

    # ---------------------------------------------------------------- use
    def update_values(self, data):
        """Replace A's values, keeping its pattern (mpcg_matrix_update_values): `data` is a
        sparse matrix with the same pattern, or the nnz values in the canonical CSR order of
        the solver (sorted column indices per row: self.indptr, self.indices)."""
        self._live()
        if self._dev is not None:
            return self._update_device(data)
        if hasattr(data, "tocsr"):
            n, indptr, indices, vals, _ = _canonical_csr(data)
            if n != self.n or not (np.array_equal(indptr, self.indptr)
                                   and np.array_equal(indices, self.indices)):
                raise ValueError("mpcg: update_values needs the pattern of the solver's matrix")
        else:
            if _is_cupy_array(data):
                data = data.get()
            vals = np.ascontiguousarray(data, dtype=np.float64).ravel()
            if vals.shape[0] != self.nnz:
                raise ValueError(f"mpcg: update_values needs {self.nnz} values, "
                                 f"got {vals.shape[0]}")
        self._check(_api.matrix_update_values(self._mat, vals.ctypes.data))

    def _update_device(self, data):
        """New values of a device view (mpcg_matrix_update_values_device): a device matrix of
        the same pattern (checked on the device unless it shares the solver's arrays), or nnz
        values (a device array used in place, or converted / copied there by CuPy). The array
        is kept alive; libmpcg reads it at the next solve."""
        d = self._dev
        if _device.is_device_sparse(data):
            new = _device.DeviceCSR(data)
            same = new.indptr is d.indptr and new.indices is d.indices
            if not same:
                cp = _device.cupy_module()
                same = new.n == d.n and new.nnz == d.nnz and \
                    bool(cp.array_equal(cp.asarray(new.indptr), cp.asarray(d.indptr))) and \
                    bool(cp.array_equal(cp.asarray(new.indices), cp.asarray(d.indices)))
            if not same:
                raise ValueError("mpcg: update_values needs the pattern of the solver's matrix")
            vals = new.data
        else:
            vals = _device.device_values(data, d.nnz)
        self._bind_stream(d.cupy or _device.is_cupy(vals), (vals,))
        self._check(_api.matrix_update_values_device(
            self._mat, vals.__cuda_array_interface__["data"][0]))
        d.data = vals

    def _get_history(self):
        """The last solve's history as a History of copied arrays, or None when off."""
        if not self._history:
            return None
        count = ctypes.c_int64()
        it = ctypes.POINTER(ctypes.c_int64)()
        rel, tru, t = (ctypes.POINTER(ctypes.c_double)() for _ in range(3))
        self._check(_api.solver_get_history(self._solver, ctypes.byref(count), ctypes.byref(it),
                                            ctypes.byref(rel), ctypes.byref(tru),
                                            ctypes.byref(t)))
        n = count.value

        def arr(p, dtype):
            if n == 0:
                return np.empty(0, dtype=dtype)
            return np.ctypeslib.as_array(p, shape=(n,)).astype(dtype, copy=True)
        return History(arr(it, np.int64), arr(rel, np.float64), arr(tru, np.float64),
                       arr(t, np.float64))

    def _info(self):
        return Info._from_c(self._cinfo.info, self._get_history())

    def _set_guess(self, provided):
        g = _api.GUESS_PROVIDED if provided else _api.GUESS_ZERO
        if g != self._guess:
            self._check(_api.solver_set_initial_guess(self._solver, g))
            self._guess = g

    def _warn_asymmetric(self):
        """A warning (RuntimeWarning, as cgsolve's) where A is not symmetric: CG may fail or
        return a wrong x (mpcg_matrix_check with MPCG_CHECK_SYMMETRY; O(nnz log))."""
        if _api.matrix_check(self._mat, _api.MPCG_CHECK_SYMMETRY) == _api.MPCG_SUCCESS:
            return
        buf = ctypes.create_string_buffer(300)
        _api.last_error_message(self._ctx, buf, len(buf))
        _api.clear_error(self._ctx)
        warnings.warn(f"mpcg: {buf.value.decode(errors='replace')}: CG may fail or return a "
                      "wrong x", RuntimeWarning, stacklevel=_user_stacklevel())

    def _status(self, st):
        """Raise for a solve's status: the exception of M or callback where one raised."""
        if st == _api.MPCG_SUCCESS:
            return
        if self._callbacks.error is not None:
            _api.clear_error(self._ctx)
            self._callbacks.reraise()
        _raise(st, self._ctx)

    def solve(self, b, x0=None):
        """Solve A x = b; returns (x, info), info an Info (SciPy's code: 0 converged). b a
        vector of n entries, (n,) or (n, 1), or a block (n, k) of k right-hand sides (block CG:
        mpcg_solve_block; x is (n, k) and info.columns has an Info per column). NumPy b: the host
        path (mpcg_solve), x a NumPy array; CuPy b: the device path (mpcg_solve_device, on a GPU
        context), x a CuPy array. x0: initial guess of b's shape, or None (zero). Not converging
        is not an error: see info (> 0), info.converged, info.reason."""
        self._live()
        cupy = _is_cupy_array(b)
        if cupy and self.device_kind != "cuda":
            raise ValueError("mpcg: b is a CuPy array but the solver's context is on the CPU "
                             "(device='cpu', or no usable GPU): pass a NumPy array")
        xp = _cupy() if cupy else np
        _real("b", b)
        _real("x0", x0)
        b = xp.ascontiguousarray(xp.asarray(b), dtype=xp.float64)
        shape = b.shape
        if b.ndim not in (1, 2) or shape[0] != self.n or 0 in shape:
            raise ValueError(f"mpcg: b has shape {shape}; A has {self.n} rows: b must be "
                             f"({self.n},) or ({self.n}, k)")
        x = None
        if x0 is not None:
            x = xp.array(xp.asarray(x0), dtype=xp.float64, order="C", copy=True)
            if x.size != b.size:
                raise ValueError(f"mpcg: x0 has shape {x.shape}; b has shape {shape}")
            x = x.reshape(shape)
        self._callbacks.cupy_out = cupy
        if b.ndim == 2 and shape[1] > 1:
            return _block.solve(self, b, x, xp)
        return self._solve1(b, x, xp)

    def _solve1(self, b, x, xp):
        """One right-hand side: b contiguous float64, x None (zero guess) or the guess (a
        contiguous float64 array of b's shape, overwritten)."""
        self._set_guess(x is not None)
        if x is None:
            x = xp.empty_like(b)
        if xp is np:
            st = _api.solve(self._solver, b.ctypes.data, x.ctypes.data, self._cinfo_ref)
        else:
            self._bind_stream(True)  # after CuPy's work on b (and on A's values)
            st = _api.solve_device(self._solver, b.data.ptr, x.data.ptr, self._cinfo_ref)
        self._status(st)
        return x, self._info()


def _user_stacklevel():
    """warnings.warn's stacklevel of the first frame outside this package (the user's call)."""
    f, level = sys._getframe(1), 1
    here = os.path.dirname(os.path.abspath(__file__))
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f, level = f.f_back, level + 1
    return level


def _real(what, a):
    """TypeError for complex input (mpcg solves real systems; SciPy's cg would solve it)."""
    if a is None:
        return
    dtype = getattr(a, "dtype", None)
    if dtype is None:
        dtype = np.asarray(a).dtype
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        raise TypeError(f"mpcg: {what} is complex ({np.dtype(dtype)}); mpcg solves real systems")


def _check_atol(atol):
    """atol as the C API takes it: a finite number >= 0 (mpcg_solver_set_atol)."""
    try:
        ok = float(atol) >= 0.0 and math.isfinite(float(atol))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"mpcg: atol must be a finite number >= 0, not {atol!r}")


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None,
       precision="fp64", spmv="auto", device="auto", history=False):
    """Solve A x = b by (preconditioned) CG, as scipy.sparse.linalg.cg; returns (x, info).

    SciPy's signature and defaults (rtol=1e-5, atol=0.0), and its info: an int, 0 converged,
    > 0 the iterations when not converged, < 0 a breakdown; the full report of the solve is on
    info as attributes (an Info: info.iterations, info.reason, info.true_relres, ...). Converged
    means the true ||b - A x|| <= max(rtol ||b||, atol). Where mpcg differs by design:
    M=None is mpcg's default preconditioner ('auto': Jacobi unless A's diagonal is constant;
    M='none' is SciPy's plain CG); maxiter=None is max(100, 10 n); x is float64; a 2-D b (n, k)
    solves the block. M: a name, a 1-D array (z = M * r), a matrix or a LinearOperator (M ~
    A^-1). callback(xk) after each iteration. CuPy inputs give CuPy outputs. A not symmetric
    warns; complex input raises TypeError. The keywords after callback are mpcg's (Solver's).

    cg() keeps one context per device and thread between calls (with the decision cache of
    spmv='auto' in cgsolve's directory: mpcg/_context.py) and creates and destroys a matrix and
    solver on every call; for several right-hand sides with one matrix, or new values of one
    pattern, build a Solver once."""
    _check_atol(atol)  # before any C object exists
    _real("b", b)
    _real("x0", x0)
    device = "auto" if device is None else str(device)
    if device == "auto" and _device.is_device_sparse(A):
        device = _gpu_device(A)  # Solver's choice, made here to name the kept context
    elif device == "auto" and _is_cupy_array(b):
        device = _gpu_device(A, b)
    ctx = _context.shared(device, _raise)
    with Solver(A, rtol=rtol, atol=atol, maxiter=maxiter, M=M, precision=precision, spmv=spmv,
                device=device, history=history, callback=callback,
                _borrowed_context=ctx) as s:
        return s.solve(b, x0)
