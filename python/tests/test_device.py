# python/tests/test_device.py: device (GPU) inputs of the mpcg package: CuPy sparse matrices and
# vectors used in place (run by test/test_python.sh)
# SPDX-License-Identifier: BSD-3-Clause
"""Plain unittest: python3 python/tests/test_device.py [-v]

TestDuckTyping runs everywhere: it recognises a device matrix by __cuda_array_interface__ alone
(no CuPy), and the C library refuses what it cannot take. TestCuPy needs CuPy and a GPU (and a
CUDA build of libmpcg); it is skipped otherwise, with the reason printed."""
import os
import sys
import unittest

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mpcg  # noqa: E402
from mpcg import _device  # noqa: E402


def laplacian2d(m):
    T = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return scipy.sparse.kronsum(T, T, format="csr")


class FakeDeviceArray:
    """A host NumPy array that claims to be a device array (its address in the interface)."""

    def __init__(self, a):
        self.a = np.ascontiguousarray(a)
        self.__cuda_array_interface__ = {"shape": self.a.shape, "typestr": self.a.dtype.str,
                                         "data": (self.a.ctypes.data, False), "version": 3,
                                         "strides": None, "stream": None}


class FakeDeviceCSR:
    def __init__(self, A):
        self.shape = A.shape
        self.data, self.indices, self.indptr = (FakeDeviceArray(A.data),
                                                FakeDeviceArray(A.indices),
                                                FakeDeviceArray(A.indptr))


def cupy_gpu():
    """(cupy, None) when the CuPy tests can run, else (None, why not)."""
    if mpcg.device_count() == 0:
        return None, "no usable GPU for libmpcg (or a build without CUDA)"
    try:
        import cupy
        import cupyx.scipy.sparse  # noqa: F401
        cupy.zeros(1).sum().item()
    except Exception as e:  # not installed, or no CUDA for it
        return None, f"CuPy unavailable ({type(e).__name__}: {e})"
    return cupy, None


class TestDuckTyping(unittest.TestCase):
    def test_recognised_without_cupy(self):
        A = laplacian2d(4)
        F = FakeDeviceCSR(A)
        self.assertTrue(_device.is_device_sparse(F))
        self.assertFalse(_device.is_device_sparse(A))
        d = _device.DeviceCSR(F)
        self.assertEqual((d.n, d.nnz, d.copies), (16, A.nnz, []))
        self.assertEqual(d.pointers()[2], A.data.ctypes.data)  # the caller's, no copy

    def test_refused_by_the_library(self):
        F = FakeDeviceCSR(laplacian2d(4))
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.Solver(F, device="cuda")
        # no GPU: the context; a GPU: the host pointers ("... is host memory ...")
        self.assertIn(e.exception.status, ("MPCG_ERR_NO_DEVICE", "MPCG_ERR_INVALID_ARG"))
        if e.exception.status == "MPCG_ERR_INVALID_ARG":
            self.assertIn("host memory", e.exception.message)
        print("\nhost arrays posing as device arrays:", e.exception.brief)

    def test_conversions_need_cupy(self):
        A = laplacian2d(4)
        F = FakeDeviceCSR(A)
        F.data = FakeDeviceArray(A.data.astype(np.float32))
        with self.assertRaises(TypeError):
            _device.DeviceCSR(F)  # a non-CuPy producer's float32 values: not converted


class TestCuPy(unittest.TestCase):
    def setUp(self):
        self.cp, why = cupy_gpu()
        if self.cp is None:
            self.skipTest(why)
        import cupyx.scipy.sparse as csp
        self.csp = csp

    def test_cg_in_place(self):
        cp, A = self.cp, laplacian2d(30)
        Ad = self.csp.csr_matrix(A)
        b = cp.asarray(np.random.default_rng(1).standard_normal(A.shape[0]))
        x, info = mpcg.cg(Ad, b, rtol=1e-10, spmv="cusparse")  # the backend that reads in place
        self.assertIsInstance(x, cp.ndarray)
        self.assertTrue(info.converged)
        r = float(cp.linalg.norm(b - Ad @ x) / cp.linalg.norm(b))
        self.assertLessEqual(r, 1.1e-10)
        self.assertIn("the caller's arrays read in place", info.spmv_describe)
        xh, ih = mpcg.cg(A, b.get(), rtol=1e-10, spmv="cusparse",
                         device="cuda:%d" % cp.cuda.Device().id)
        # the same plan and arithmetic (||b|| comes from the device in one, the host in the
        # other: the stop test may move by one iteration)
        self.assertLessEqual(abs(ih.iterations - info.iterations), 1)
        np.testing.assert_allclose(x.get(), xh, rtol=1e-8, atol=1e-12)

    def test_solver_update_values(self):
        cp, A = self.cp, laplacian2d(20)
        Ad = self.csp.csr_matrix(A)
        b = cp.ones(A.shape[0])
        with mpcg.Solver(Ad, rtol=1e-10, M="jacobi") as s:
            x1, i1 = s.solve(b)
            s.update_values(2 * Ad)          # a device matrix of the same pattern
            x2, _ = s.solve(b)
            cp.testing.assert_allclose(x2, x1 / 2, rtol=1e-8)
            s.update_values(Ad.data * 4)     # nnz device values
            x4, _ = s.solve(b)
            cp.testing.assert_allclose(x4, x1 / 4, rtol=1e-8)
            with self.assertRaises(ValueError):
                s.update_values(cp.ones(3))
            with self.assertRaises(ValueError):
                s.update_values(self.csp.csr_matrix(laplacian2d(5)))

    def test_conversions_and_streams(self):
        cp, A = self.cp, laplacian2d(12)
        C = A.tocoo()
        perm = np.random.default_rng(2).permutation(C.nnz)   # unsorted entries
        U = scipy.sparse.csr_matrix((C.data[perm].astype(np.float32), (C.row[perm], C.col[perm])),
                                    shape=A.shape)
        U.has_sorted_indices = False
        Ud = self.csp.csr_matrix(U)
        d = _device.DeviceCSR(Ud)
        self.assertTrue(d.copies)  # float32 values (and maybe order): device copies, listed
        b = cp.ones(A.shape[0])
        with cp.cuda.Stream(non_blocking=True):
            x, info = mpcg.cg(Ud, b, rtol=1e-8)  # ordered on the current stream
            r = float(cp.linalg.norm(b - self.csp.csr_matrix(A) @ x) / cp.linalg.norm(b))
        self.assertTrue(info.converged)
        self.assertLessEqual(r, 1e-6)  # A's values were rounded to float32

    def test_host_rhs_with_device_matrix(self):
        cp, A = self.cp, laplacian2d(10)
        x, info = mpcg.cg(self.csp.csr_matrix(A), np.ones(100), rtol=1e-10)
        self.assertIsInstance(x, np.ndarray)  # b on the host: x on the host
        self.assertTrue(info.converged)


if __name__ == "__main__":
    unittest.main(verbosity=2 if "-v" in sys.argv else 1,
                  argv=[a for a in sys.argv if a != "-v"])
