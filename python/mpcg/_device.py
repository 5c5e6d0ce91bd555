# python/mpcg/_device.py: GPU inputs (CuPy, or any __cuda_array_interface__ producer) for libmpcg's
# device-view API, without copies to the host
# SPDX-License-Identifier: BSD-3-Clause
"""Device inputs: sparse matrices and vectors whose arrays live in GPU memory.

A matrix is taken as a device matrix when it is a ``cupyx.scipy.sparse`` matrix, or when its
``data``, ``indices`` and ``indptr`` attributes all expose ``__cuda_array_interface__`` (duck
typing: no import of CuPy is needed to recognise one). Its CSR arrays are passed to
``mpcg_matrix_view_device_csr`` by address: libmpcg reads them where they are. CuPy is imported
only when an input is a CuPy object (to convert what the view cannot take as it is, to find the
current device and stream, and to return x as a CuPy array).
"""
import numpy as np

from . import _api


def is_device_array(a):
    return hasattr(a, "__cuda_array_interface__")


def is_cupy(obj):
    return type(obj).__module__.split(".")[0] in ("cupy", "cupyx")


def is_device_sparse(A):
    """A CuPy sparse matrix, or a CSR-like object whose three arrays are device arrays."""
    if type(A).__module__.startswith("cupyx.scipy.sparse"):
        return True
    return hasattr(A, "shape") and all(is_device_array(getattr(A, k, None))
                                       for k in ("data", "indices", "indptr"))


def cupy_module():
    """CuPy, imported on first use (only for CuPy inputs)."""
    import cupy
    return cupy


def _interface(a):
    cai = a.__cuda_array_interface__
    shape = tuple(cai["shape"])
    itemsize = np.dtype(cai["typestr"]).itemsize
    contiguous = cai.get("strides") is None or tuple(cai["strides"]) == (itemsize,)
    return cai, shape, np.dtype(cai["typestr"]), contiguous


def _as(a, dtype, what, copies):
    """a as a contiguous 1-D device array of dtype: itself, or (CuPy) a converted device copy."""
    cai, shape, dt, contiguous = _interface(a)
    if len(shape) != 1:
        raise ValueError(f"mpcg: {what} must be 1-D, not of shape {shape}")
    if dt == dtype and contiguous:
        return a
    if not is_cupy(a):
        raise TypeError(f"mpcg: {what} is a {dt} device array (strides {cai.get('strides')}); "
                        f"the device view takes contiguous {np.dtype(dtype)} arrays (CuPy inputs "
                        "are converted; convert other producers' arrays before the call)")
    if np.issubdtype(dt, np.complexfloating):
        raise TypeError("mpcg: A has complex values; mpcg solves real systems")
    copies.append(f"{what} {dt} -> {np.dtype(dtype)}" if dt != dtype else f"{what} made "
                  "contiguous")
    return cupy_module().ascontiguousarray(a, dtype=dtype)


class DeviceCSR:
    """The CSR arrays of a device matrix as the view takes them, and what had to be copied."""

    def __init__(self, A):
        self.copies = []  # device-side conversions made (a CuPy copy each); [] when none
        fmt = getattr(A, "format", "csr")
        if fmt != "csr":
            if not hasattr(A, "tocsr"):
                raise TypeError(f"mpcg: a device matrix in format {fmt!r} without tocsr()")
            A = A.tocsr()
            self.copies.append(f"{fmt} -> csr")
        if getattr(A, "has_canonical_format", True) is False:
            A = A.copy()
            A.sum_duplicates()  # sorts each row's indices too (CuPy, on the device)
            self.copies.append("sorted indices, duplicates summed")
        shape = tuple(A.shape)
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"mpcg: A is {' x '.join(map(str, shape))}: mpcg solves square "
                             "systems")
        self.n = int(shape[0])
        self.indptr = A.indptr
        if _interface(self.indptr)[2] not in (np.dtype(np.int32), np.dtype(np.int64)):
            self.indptr = _as(self.indptr, np.int64, "indptr", self.copies)
        self.indptr = _as(self.indptr, _interface(self.indptr)[2], "indptr", self.copies)
        self.indices = _as(A.indices, np.int32, "indices", self.copies)
        self.data = _as(A.data, np.float64, "data", self.copies)
        self.nnz = int(_interface(self.data)[1][0])
        if _interface(self.indptr)[1][0] != self.n + 1 or \
                _interface(self.indices)[1][0] != self.nnz:
            raise ValueError("mpcg: indptr must have n + 1 entries, indices and data nnz")
        self.rp_type = (_api.INDEX_INT64 if _interface(self.indptr)[2] == np.int64
                        else _api.INDEX_INT32)
        self.cupy = any(is_cupy(a) for a in (A, self.data))

    def pointers(self):
        return tuple(a.__cuda_array_interface__["data"][0]
                     for a in (self.indptr, self.indices, self.data))


def device_values(data, nnz):
    """New values for a view: a device array of nnz float64 values (converted by CuPy where
    needed; host values are copied to the device with CuPy)."""
    copies = []
    if not is_device_array(data):
        data = cupy_module().asarray(np.ascontiguousarray(data, dtype=np.float64).ravel())
    data = _as(data, np.float64, "values", copies)
    if _interface(data)[1][0] != nnz:
        raise ValueError(f"mpcg: update_values needs {nnz} values, got {_interface(data)[1][0]}")
    return data


def stream_of(arrays):
    """The stream a non-CuPy producer names in its interface (v3 "stream"), or None."""
    for a in arrays:
        s = a.__cuda_array_interface__.get("stream")
        if s:
            return int(s)
    return None
