# python/tests/test_cg.py: the mpcg Python package against SciPy (run by test/test_python.sh)
# SPDX-License-Identifier: BSD-3-Clause
"""Plain unittest, no pytest needed: python3 python/tests/test_cg.py [-v]

Environment: MPCG_LIBRARY (the libmpcg to test), MPCG_TEST_DATA (test/data),
MPCG_INFO_LAYOUT (optional: "name offset size" lines of struct mpcg_info from the C compiler,
checked against the ctypes mirror)."""
import glob
import inspect
import os
import statistics
import sys
import time
import unittest

import numpy as np
import scipy.io
import scipy.sparse
import scipy.sparse.linalg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mpcg  # noqa: E402
from mpcg import _api  # noqa: E402

DATA = os.environ.get("MPCG_TEST_DATA") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data")
TOL = 1e-8


def spd_matrices():
    """The bundled SPD matrices (test/data/README.md: every *.mtx there is SPD)."""
    out = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.mtx"))):
        A = scipy.sparse.csr_matrix(scipy.io.mmread(path))
        out.append((os.path.basename(path)[:-4], A))
    return out


def scipy_cg(A, b):
    count = [0]

    def cb(_xk):
        count[0] += 1
    kw = {"rtol": TOL} if "rtol" in inspect.signature(scipy.sparse.linalg.cg).parameters \
        else {"tol": TOL}
    x, info = scipy.sparse.linalg.cg(A, b, atol=0.0, maxiter=100 * A.shape[0], callback=cb, **kw)
    return x, info, count[0]


def relres(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def laplacian2d(m):
    T = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return scipy.sparse.kronsum(T, T, format="csr")


class TestLayout(unittest.TestCase):
    def test_info_layout_matches_c(self):
        path = os.environ.get("MPCG_INFO_LAYOUT")
        if not path:
            self.skipTest("MPCG_INFO_LAYOUT not set (no C compiler in the test script)")
        rows = [line.split() for line in open(path) if line.strip()]
        size = [int(r[1]) for r in rows if r[0] == "sizeof"][0]
        fields = [(r[0], int(r[1]), int(r[2])) for r in rows if r[0] != "sizeof"]
        self.assertEqual([f[0] for f in _api.Info._fields_], [f[0] for f in fields])
        for name, off, sz in fields:
            d = getattr(_api.Info, name)
            self.assertEqual((d.offset, d.size), (off, sz), name)
        self.assertEqual(_api.ctypes.sizeof(_api.Info), size)


class TestAgainstScipy(unittest.TestCase):
    def test_bundled_matrices(self):
        rows = []
        for name, A in spd_matrices():
            b = np.ones(A.shape[0])
            x, info = mpcg.cg(A, b, rtol=TOL, M="none", device="cpu", maxiter=100 * A.shape[0])
            xs, sinfo, its = scipy_cg(A, b)
            rows.append((name, A.shape[0], A.nnz, info.iterations, its, relres(A, x, b),
                         relres(A, xs, b)))
            with self.subTest(matrix=name):
                self.assertEqual(sinfo, 0, "scipy did not converge")
                self.assertTrue(info.converged, info.reason)
                self.assertEqual(info.reason, "MPCG_CONVERGED_RTOL")
                self.assertLessEqual(abs(info.iterations - its), 0.02 * its + 1)
                self.assertLessEqual(relres(A, x, b), TOL)
                self.assertAlmostEqual(info.true_relres, relres(A, x, b),
                                       delta=1e-3 * TOL + 1e-2 * info.true_relres)
        print("\n%-14s %6s %7s %10s %10s %12s %12s" % ("matrix", "n", "nnz", "it mpcg",
                                                       "it scipy", "relres mpcg",
                                                       "relres scipy"))
        for r in rows:
            print("%-14s %6d %7d %10d %10d %12.3e %12.3e" % r)

    def test_any_sparse_format_and_unsorted(self):
        A = laplacian2d(6)
        b = np.arange(1.0, 37.0)
        x_ref, _ = mpcg.cg(A, b, device="cpu")
        for fmt in ("coo", "csc", "lil", "dok", "bsr"):
            x, info = mpcg.cg(A.asformat(fmt), b, device="cpu")
            self.assertTrue(info.converged, fmt)
            np.testing.assert_allclose(x, x_ref, rtol=1e-12, atol=1e-12)
        # unsorted columns and duplicate entries (summed), int32/float32 inputs
        C = A.tocoo()
        perm = np.random.default_rng(1).permutation(C.nnz)
        row = np.concatenate([C.row[perm], C.row[:5]])
        col = np.concatenate([C.col[perm], C.col[:5]])
        val = np.concatenate([C.data[perm] / 2, C.data[:5] * 0]).astype(np.float32)
        D = scipy.sparse.coo_matrix((val, (row, col)), shape=A.shape)
        D = D + D  # (A / 2) * 2 with a few zero duplicates
        x, info = mpcg.cg(D, b, device="cpu")
        np.testing.assert_allclose(x, x_ref, rtol=1e-12, atol=1e-12)

    def test_precond_and_info(self):
        name, A = spd_matrices()[0]
        b = np.ones(A.shape[0])
        for M in ("jacobi", "chebyshev", "chebyshev:4", "auto"):
            x, info = mpcg.cg(A, b, rtol=TOL, M=M, device="cpu")
            self.assertTrue(info.converged, (M, info.reason))
            self.assertLessEqual(relres(A, x, b), TOL)
            self.assertIn(info.precond, ("jacobi", "chebyshev", "none"))
        d = info.as_dict()
        self.assertEqual(d["result"]["iterations"], info.iterations)
        self.assertEqual(d["solver"]["backend"], "cpu")
        self.assertEqual(info.precision, "fp64")

    def test_x0_maxiter(self):
        A = laplacian2d(10)
        b = np.linspace(1.0, 2.0, 100)
        x, info = mpcg.cg(A, b, device="cpu")
        x2, info2 = mpcg.cg(A, b, x0=x, device="cpu")
        self.assertTrue(info2.converged)
        self.assertLessEqual(info2.iterations, 1)
        x3, info3 = mpcg.cg(A, b, maxiter=2, device="cpu")
        self.assertFalse(info3.converged)
        self.assertEqual(info3.reason, "MPCG_DIVERGED_MAX_ITER")
        self.assertEqual(info3.iterations, 2)

    def test_fp32_mixed(self):
        A = laplacian2d(10)
        b = np.linspace(1.0, 2.0, 100)
        x, info = mpcg.cg(A, b, precision="mixed", device="cpu")
        self.assertTrue(info.converged)
        self.assertEqual(info.precision, "mixed")
        x, info = mpcg.cg(A, b, precision="fp32", rtol=1e-5, device="cpu")
        self.assertEqual(info.precision, "fp32")
        self.assertLessEqual(relres(A, x, b), 1e-5)


class TestAtol(unittest.TestCase):
    def test_atol_against_scipy(self):
        """||b - A x|| <= max(rtol ||b||, atol), SciPy's criterion: with rtol tiny, atol decides
        (reason ATOL) and the iterations are SciPy's; atol = 0 is rtol alone."""
        A = laplacian2d(20)
        b = np.sin(np.arange(1.0, 401.0))
        bn = np.linalg.norm(b)
        atol = 1e-5 * bn
        x, info = mpcg.cg(A, b, rtol=1e-12, atol=atol, device="cpu")
        self.assertTrue(info.converged)
        self.assertEqual(info.reason, "MPCG_CONVERGED_ATOL")
        self.assertLessEqual(np.linalg.norm(b - A @ x), atol)
        count = [0]

        def cb(_xk):
            count[0] += 1
        kw = {"rtol": 1e-12} if "rtol" in inspect.signature(
            scipy.sparse.linalg.cg).parameters else {"tol": 1e-12}
        xs, sinfo = scipy.sparse.linalg.cg(A, b, atol=atol, callback=cb, **kw)
        self.assertEqual(sinfo, 0)
        self.assertLessEqual(abs(info.iterations - count[0]), 0.02 * count[0] + 1)
        # the same stop as rtol = 1e-5: the iterates of that solve
        x5, info5 = mpcg.cg(A, b, rtol=1e-5, device="cpu")
        self.assertEqual(info5.reason, "MPCG_CONVERGED_RTOL")
        self.assertEqual(info5.iterations, info.iterations)
        np.testing.assert_allclose(x, x5, rtol=1e-13, atol=0)
        x0, info0 = mpcg.cg(A, b, rtol=1e-12, atol=0.0, device="cpu")
        self.assertEqual(info0.reason, "MPCG_CONVERGED_RTOL")
        self.assertGreater(info0.iterations, info.iterations)

    def test_zero_and_small_b(self):
        A = laplacian2d(6)
        x, info = mpcg.cg(A, np.zeros(36), atol=1.0, device="cpu")
        self.assertEqual(info.reason, "MPCG_CONVERGED_ZERO_RHS")
        self.assertTrue(np.all(x == 0))
        x, info = mpcg.cg(A, np.full(36, 1e-9), atol=1e-6, device="cpu")
        self.assertEqual((info.reason, info.iterations), ("MPCG_CONVERGED_ATOL", 0))


class TestHistory(unittest.TestCase):
    def test_history(self):
        A = laplacian2d(12)
        b = np.linspace(-1.0, 2.0, 144)
        with mpcg.Solver(A, device="cpu", history=True, M=None) as s:
            x, info = s.solve(b)
            h = info.history
            self.assertIsInstance(h, mpcg.History)
            self.assertEqual(len(h), info.iterations + 1)
            np.testing.assert_array_equal(h.iteration, np.arange(info.iterations + 1))
            self.assertEqual(h.true_relres[0], 1.0)           # b - A 0 = b
            self.assertAlmostEqual(h.relres[0], 1.0, places=12)
            self.assertEqual(h.relres[-1], info.recurrence_relres)
            self.assertEqual(h.true_relres[-1], info.true_relres)
            self.assertTrue(np.all(np.isnan(h.true_relres[1:-1])))   # no replacement here
            self.assertTrue(np.all(np.diff(h.time_s) >= 0) and h.time_s[0] >= 0)
            self.assertLessEqual(h.time_s[-1], info.solve_time_s)
            rows = list(h)
            self.assertEqual(rows[0][:2], (0, h.relres[0]))
            # the arrays are copies: the next solve does not change them
            first = h.relres.copy()
            _, info2 = s.solve(2 * b)
            np.testing.assert_array_equal(h.relres, first)
            self.assertEqual(len(info2.history), info2.iterations + 1)
        _, info = mpcg.cg(A, b, device="cpu")
        self.assertIsNone(info.history)
        _, info = mpcg.cg(A, b, device="cpu", history=True, maxiter=3)
        self.assertEqual(len(info.history), 4)
        self.assertEqual(info.history.true_relres[-1], info.true_relres)


class TestSolver(unittest.TestCase):
    def test_reuse_and_update_values(self):
        A = laplacian2d(10)
        b1, b2 = np.ones(100), np.linspace(-1.0, 1.0, 100)
        with mpcg.Solver(A, device="cpu") as s:
            x1, i1 = s.solve(b1)
            x2, i2 = s.solve(b2)
            self.assertTrue(i1.converged and i2.converged)
            self.assertLessEqual(relres(A, x1, b1), TOL)
            self.assertLessEqual(relres(A, x2, b2), TOL)
            s.update_values(2 * A)  # a sparse matrix with the same pattern
            y1, j1 = s.solve(b1)
            np.testing.assert_allclose(y1, x1 / 2, rtol=1e-7, atol=1e-12)
            C = A.copy()
            C.sum_duplicates()  # canonical CSR: the order of s.indptr / s.indices
            np.testing.assert_array_equal(C.indices, s.indices)
            s.update_values(3 * C.data)  # values in that order
            y2, _ = s.solve(b2)
            np.testing.assert_allclose(y2, x2 / 3, rtol=1e-7, atol=1e-12)
            with self.assertRaises(ValueError):
                s.update_values(np.ones(5))
            with self.assertRaises(ValueError):
                s.update_values(laplacian2d(5))
        with self.assertRaises(ValueError):
            s.solve(b1)  # closed
        s.close()  # idempotent

    def test_del_without_close(self):
        s = mpcg.Solver(laplacian2d(4), device="cpu")
        s.solve(np.ones(16))
        del s


class TestContexts(unittest.TestCase):
    def test_cg_keeps_its_context(self):
        """cg() reuses one context per device and thread; an error in one call leaves the next
        clean; a Solver owns its own context."""
        from mpcg import _context
        A, b = laplacian2d(6), np.ones(36)
        x1, i1 = mpcg.cg(A, b, device="cpu")
        kept = dict(_context._local.contexts)
        self.assertIn("cpu", kept)
        with self.assertRaises(mpcg.MpcgError):
            mpcg.cg(A, b, spmv="no-such-backend", device="cpu")
        x2, i2 = mpcg.cg(A, b, device="cpu")
        self.assertEqual(_context._local.contexts["cpu"], kept["cpu"])
        self.assertTrue(i1.converged and i2.converged)
        self.assertEqual(i1.iterations, i2.iterations)
        np.testing.assert_array_equal(x1, x2)
        with mpcg.Solver(A, device="cpu") as s:
            self.assertNotEqual(s._ctx, kept["cpu"])
        # another thread gets its own
        import threading
        seen = []
        t = threading.Thread(target=lambda: seen.append(
            (mpcg.cg(A, b, device="cpu")[1].converged, _context._local.contexts["cpu"])))
        t.start()
        t.join()
        self.assertTrue(seen[0][0])
        self.assertNotEqual(seen[0][1], kept["cpu"])

    def test_cache_dir(self):
        """The decision cache's directory: cgsolve's by default; a too long one is refused by
        libmpcg with its message and nothing is left behind."""
        from mpcg import _context
        old = os.environ.get("XDG_CACHE_HOME")
        try:
            os.environ["XDG_CACHE_HOME"] = "/some/where"
            self.assertEqual(_context.default_cache_dir(), "/some/where/mpcg")
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old
        A = laplacian2d(4)
        with mpcg.Solver(A, device="cpu", cache_dir="") as s:
            self.assertTrue(s.solve(np.ones(16))[1].converged)
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.Solver(A, device="cpu", cache_dir="/" + "d" * 2000)
        self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
        self.assertIn("mpcg_context_set_cache_dir", e.exception.message)


class TestErrors(unittest.TestCase):
    def test_non_square(self):
        A = scipy.sparse.random(5, 3, density=0.5, format="csr", random_state=1)
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.cg(A, np.ones(5), device="cpu")
        self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
        self.assertIn("5 x 3", str(e.exception))

    def test_nan_in_b(self):
        A = laplacian2d(4)
        b = np.ones(16)
        b[3] = np.nan
        with mpcg.Solver(A, device="cpu") as s:
            with self.assertRaises(mpcg.MpcgError) as e:
                s.solve(b)
            self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
            msg = e.exception.message
            print("\nNaN in b:", msg.splitlines()[0])
            self.assertIn("mpcg_solve", msg)   # the C function, from mpcg_last_error
            self.assertTrue(e.exception.brief and e.exception.brief in msg)
            x, info = s.solve(np.ones(16))   # the solver is still usable
            self.assertTrue(info.converged)

    def test_nan_in_A(self):
        A = laplacian2d(4)
        A.data[7] = np.inf
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.cg(A, np.ones(16), device="cpu")
        self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
        print("\nInf in A:", e.exception.brief)
        self.assertIn("mpcg_matrix_create_csr", e.exception.message)

    def test_bad_options(self):
        A = laplacian2d(4)
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.cg(A, np.ones(16), spmv="no-such-backend", device="cpu")
        self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.Solver(A, device="cpu", options={"no.such.key": "1"})
        self.assertIn("no.such.key", e.exception.message)
        with self.assertRaises(mpcg.MpcgError) as e:
            mpcg.cg(A, np.ones(16), device="bogus")
        self.assertEqual(e.exception.status, "MPCG_ERR_INVALID_ARG")
        for bad in (-1e-3, float("nan"), float("inf"), "x"):
            with self.assertRaises(ValueError):
                mpcg.cg(A, np.ones(16), atol=bad, device="cpu")
        for bad in ("ilu", "jacobi:2", "bjacobi:x", "chebyshev:"):
            with self.assertRaises(ValueError):
                mpcg.cg(A, np.ones(16), M=bad, device="cpu")
        # a matrix, an array or an operator is an M (test_scipy_cg.py); other objects are not
        for bad in (3, "jacobi".encode(), object()):
            with self.assertRaises(TypeError) as e:
                mpcg.cg(A, np.ones(16), M=bad, device="cpu")
            self.assertNotIn("\n", str(e.exception))
        with self.assertRaises(ValueError):
            mpcg.cg(A, np.ones(16), M=np.ones(15), device="cpu")
        with self.assertRaises(ValueError) as e:
            mpcg.cg(A, np.ones(16), M="jacobi:2", device="cpu")
        self.assertIn("jacobi takes no number", str(e.exception))
        with self.assertRaises(ValueError):
            mpcg.cg(A, np.ones(15), device="cpu")
        if mpcg.device_count() == 0:
            with self.assertRaises(mpcg.MpcgError) as e:
                mpcg.cg(A, np.ones(16), device="cuda")
            self.assertEqual(e.exception.status, "MPCG_ERR_NO_DEVICE")


class TestOverhead(unittest.TestCase):
    def test_call_overhead(self):
        A = laplacian2d(10)
        b = np.ones(100)
        with mpcg.Solver(A, device="cpu") as s:
            for _ in range(20):
                s.solve(b)
            t, inner = [], []
            for _ in range(200):
                t0 = time.perf_counter()
                _, info = s.solve(b)
                t.append(time.perf_counter() - t0)
                inner.append(info.solve_time_s)
        med = statistics.median(t) * 1e6
        med_c = statistics.median(inner) * 1e6
        print("\noverhead: Solver.solve on the 100-row 2-D Laplacian (%d iterations): median "
              "%.1f us per call, of which mpcg_solve's own solve_time_s %.1f us (binding "
              "%.1f us); target <= 50 us" % (info.iterations, med, med_c, med - med_c))


if __name__ == "__main__":
    unittest.main(verbosity=2 if "-v" in sys.argv else 1,
                  argv=[a for a in sys.argv if a != "-v"])
