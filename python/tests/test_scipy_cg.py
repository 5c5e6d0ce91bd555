# python/tests/test_scipy_cg.py: mpcg.cg as a drop-in for scipy.sparse.linalg.cg (run by
# test/test_python.sh)
# SPDX-License-Identifier: BSD-3-Clause
"""The cases SciPy's own tests make of its cg, written anew for mpcg.cg, each checked against
scipy.sparse.linalg.cg on the same inputs. Where mpcg differs by design a comment says so
("mpcg differs:"). Plain unittest: python3 python/tests/test_scipy_cg.py [-v]

Environment: MPCG_LIBRARY (the libmpcg to test)."""
import copy
import inspect
import os
import pickle
import sys
import unittest
import warnings

import numpy as np
import scipy.sparse
import scipy.sparse.linalg as sla

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mpcg  # noqa: E402

# SciPy >= 1.12 names the relative tolerance rtol; older ones tol
_RTOL = "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"


def scipy_cg(A, b, x0=None, rtol=1e-5, atol=0.0, maxiter=None, M=None):
    """SciPy's cg with mpcg.cg's keywords; (x, info, iterations counted by its callback)."""
    calls = [0]

    def count(_xk):
        calls[0] += 1
    x, info = sla.cg(A, b, x0=x0, atol=atol, maxiter=maxiter, M=M, callback=count,
                     **{_RTOL: rtol})
    return x, info, calls[0]


def poisson1d(n):
    return scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")


def poisson2d(m):
    T = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return scipy.sparse.kronsum(T, T, format="csr")


def random_spd(n, seed):
    """A random sparse SPD matrix with a varying diagonal (so Jacobi matters)."""
    rng = np.random.default_rng(seed)
    R = scipy.sparse.random(n, n, density=4.0 / n, random_state=seed)
    return (R @ R.T + scipy.sparse.diags(rng.uniform(0.5, 20.0, n))).tocsr()


def problems():
    rng = np.random.default_rng(7)
    return [("poisson1d", poisson1d(40), rng.standard_normal(40)),
            ("poisson2d", poisson2d(12), np.ones(144)),
            ("random_spd", random_spd(120, 3), rng.standard_normal(120))]


def relres(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def close_counts(a, b):
    """Iteration counts of two CGs in floating point: within 2% and 2."""
    return abs(a - b) <= 0.02 * max(a, b) + 2


class TestConvergence(unittest.TestCase):
    """SciPy: every solver converges on its standard SPD cases, to the tolerance asked."""

    def test_standard_problems_against_scipy(self):
        for name, A, b in problems():
            with self.subTest(problem=name):
                # mpcg differs: M=None is mpcg's default preconditioner (auto); M="none" is
                # SciPy's identity
                x, info = mpcg.cg(A, b, rtol=1e-8, M="none", device="cpu")
                xs, sinfo, its = scipy_cg(A, b, rtol=1e-8)
                self.assertEqual(info, 0)
                self.assertEqual(sinfo, 0)
                self.assertFalse(info)
                self.assertLessEqual(relres(A, x, b), 1e-8)
                self.assertTrue(close_counts(info.iterations, its), (info.iterations, its))
                np.testing.assert_allclose(x, xs, rtol=1e-6, atol=1e-6 * np.abs(xs).max())

    def test_defaults_are_scipys(self):
        sig = inspect.signature(mpcg.cg)
        self.assertEqual(list(sig.parameters)[:3], ["A", "b", "x0"])
        for k, v in (("rtol", 1e-5), ("atol", 0.0), ("maxiter", None), ("M", None),
                     ("callback", None)):
            self.assertEqual(sig.parameters[k].default, v, k)
            self.assertEqual(sig.parameters[k].kind, inspect.Parameter.KEYWORD_ONLY, k)
        A, b = poisson2d(10), np.ones(100)
        x, info = mpcg.cg(A, b, M="none", device="cpu")
        xs, sinfo, its = scipy_cg(A, b)
        self.assertEqual((info, sinfo), (0, 0))
        self.assertLessEqual(relres(A, x, b), 1e-5)
        self.assertTrue(close_counts(info.iterations, its), (info.iterations, its))

    def test_default_M_is_auto(self):
        # mpcg differs: M=None runs mpcg's default, auto (Jacobi here: the diagonal varies)
        _, A, b = problems()[2]
        x, info = mpcg.cg(A, b, device="cpu")
        self.assertEqual(info, 0)
        self.assertEqual(info.precond, "jacobi")
        _, plain = mpcg.cg(A, b, M="none", device="cpu")
        self.assertEqual(plain.precond, "none")


class TestX0(unittest.TestCase):
    def test_x0_used_and_kept(self):
        A, b = poisson2d(10), np.linspace(1.0, 2.0, 100)
        x0 = np.full(100, 0.5)
        keep = x0.copy()
        x, info = mpcg.cg(A, b, x0=x0, M="none", device="cpu")
        xs, sinfo, its = scipy_cg(A, b, x0=x0)
        self.assertEqual((info, sinfo), (0, 0))
        np.testing.assert_array_equal(x0, keep)  # the caller's guess is not overwritten
        self.assertLessEqual(relres(A, x, b), 1e-5)
        self.assertTrue(close_counts(info.iterations, its))

    def test_exact_x0_needs_no_iteration(self):
        A, b = poisson1d(30), np.ones(30)
        xe = scipy.sparse.linalg.spsolve(A.tocsc(), b)
        x, info = mpcg.cg(A, b, x0=xe, device="cpu")
        self.assertEqual(info, 0)
        self.assertEqual(info.iterations, 0)
        np.testing.assert_allclose(x, xe)

    def test_x0_shapes(self):
        A, b = poisson1d(20), np.ones(20)
        x, info = mpcg.cg(A, b, x0=np.zeros((20, 1)), device="cpu")
        self.assertEqual((x.shape, info), ((20,), 0))
        x, info = mpcg.cg(A, b.reshape(20, 1), device="cpu")
        self.assertEqual((x.shape, info), ((20, 1), 0))
        with self.assertRaises(ValueError):
            mpcg.cg(A, b, x0=np.zeros(19), device="cpu")


class TestMaxiter(unittest.TestCase):
    def test_maxiter_gives_positive_info(self):
        A, b = poisson2d(12), np.ones(144)
        for m in (1, 3, 10):
            calls = []
            x, info = mpcg.cg(A, b, maxiter=m, M="none", callback=calls.append, device="cpu")
            _, sinfo, its = scipy_cg(A, b, maxiter=m)
            with self.subTest(maxiter=m):
                self.assertEqual(info, m)  # SciPy: info > 0 is the iteration count
                self.assertEqual(sinfo, m)
                self.assertTrue(info)
                self.assertFalse(info.converged)
                self.assertEqual(info.reason, "MPCG_DIVERGED_MAX_ITER")
                self.assertEqual(len(calls), m)
                self.assertEqual(its, m)

    def test_maxiter_zero_is_not_converged(self):
        # mpcg differs: maxiter=0 reports info 1 (not 0, which would read as converged)
        x, info = mpcg.cg(poisson1d(10), np.ones(10), maxiter=0, device="cpu")
        self.assertGreater(info, 0)
        np.testing.assert_array_equal(x, 0.0)


class TestTolerances(unittest.TestCase):
    def test_rtol(self):
        _, A, b = problems()[2]
        for rtol in (1e-2, 1e-6, 1e-10):
            x, info = mpcg.cg(A, b, rtol=rtol, M="none", device="cpu")
            xs, sinfo, its = scipy_cg(A, b, rtol=rtol)
            with self.subTest(rtol=rtol):
                self.assertEqual((info, sinfo), (0, 0))
                self.assertLessEqual(relres(A, x, b), rtol)
                self.assertTrue(close_counts(info.iterations, its), (info.iterations, its))

    def test_atol(self):
        # converged when ||b - A x|| <= max(rtol ||b||, atol): atol above rtol ||b|| decides
        A, b = poisson2d(12), 100.0 * np.ones(144)
        atol = 1e-3 * np.linalg.norm(b)
        x, info = mpcg.cg(A, b, rtol=1e-12, atol=atol, M="none", device="cpu")
        xs, sinfo, its = scipy_cg(A, b, rtol=1e-12, atol=atol)
        self.assertEqual((info, sinfo), (0, 0))
        self.assertEqual(info.reason, "MPCG_CONVERGED_ATOL")
        self.assertLessEqual(np.linalg.norm(b - A @ x), atol)
        self.assertTrue(close_counts(info.iterations, its), (info.iterations, its))
        # a huge atol: b itself is close enough
        x, info = mpcg.cg(A, b, atol=2 * np.linalg.norm(b), device="cpu")
        self.assertEqual((info, info.iterations), (0, 0))

    def test_bad_tolerances(self):
        A, b = poisson1d(10), np.ones(10)
        for kw in ({"rtol": 0.0}, {"rtol": -1.0}, {"atol": -1.0}, {"atol": float("nan")}):
            with self.subTest(**kw), self.assertRaises(ValueError) as e:
                mpcg.cg(A, b, device="cpu", **kw)
            self.assertNotIn("\n", str(e.exception))


class TestCallback(unittest.TestCase):
    def test_called_every_iteration_with_xk(self):
        A, b = poisson2d(10), np.ones(100)
        seen = []
        x, info = mpcg.cg(A, b, rtol=1e-8, M="none", callback=seen.append, device="cpu")
        ref = []
        sla.cg(A, b, atol=0.0, callback=lambda xk: ref.append(xk.copy()), **{_RTOL: 1e-8})
        self.assertEqual(info, 0)
        self.assertEqual(len(seen), info.iterations)
        self.assertTrue(close_counts(len(seen), len(ref)))
        np.testing.assert_array_equal(seen[-1], x)
        self.assertEqual(seen[0].shape, (100,))
        # the iterates are SciPy's: the first steps agree closely
        for k in range(3):
            np.testing.assert_allclose(seen[k], ref[k], rtol=1e-10, atol=1e-12)

    def test_exception_in_callback_propagates(self):
        class Stop(Exception):
            pass

        def cb(xk):
            raise Stop("enough")
        with self.assertRaises(Stop):
            mpcg.cg(poisson1d(20), np.ones(20), callback=cb, device="cpu")
        with self.assertRaises(TypeError):
            mpcg.cg(poisson1d(20), np.ones(20), callback=3, device="cpu")
        x, info = mpcg.cg(poisson1d(20), np.ones(20), device="cpu")  # the kept context is fine
        self.assertEqual(info, 0)


class TestPreconditioner(unittest.TestCase):
    def Ms(self, A):
        d = 1.0 / A.diagonal()
        D = scipy.sparse.diags(d, format="csr")
        return {"diagonal": d, "sparse": D, "dense": D.toarray(),
                "LinearOperator": sla.LinearOperator(A.shape, matvec=lambda r: d * r.ravel()),
                "aslinearoperator": sla.aslinearoperator(D)}

    def test_M_forms_against_scipy(self):
        _, A, b = problems()[2]
        ref, _ = mpcg.cg(A, b, rtol=1e-8, M="jacobi", device="cpu")
        ref_info = mpcg.cg(A, b, rtol=1e-8, M="jacobi", device="cpu")[1]
        for kind, M in self.Ms(A).items():
            with self.subTest(M=kind):
                x, info = mpcg.cg(A, b, rtol=1e-8, M=M, device="cpu")
                # SciPy's M is the same operator: a 1-D array is mpcg's diagonal form only
                Ms = scipy.sparse.diags(M) if kind == "diagonal" else M
                xs, sinfo, its = scipy_cg(A, b, rtol=1e-8, M=Ms)
                self.assertEqual((info, sinfo), (0, 0))
                self.assertEqual(info.precond, "callback")
                self.assertEqual(info.variant, "host")
                self.assertTrue(close_counts(info.iterations, its), (info.iterations, its))
                self.assertEqual(info.iterations, ref_info.iterations)  # the library's Jacobi
                np.testing.assert_allclose(x, ref, rtol=1e-12, atol=1e-14)

    def test_preconditioning_helps(self):
        _, A, b = problems()[2]
        _, plain = mpcg.cg(A, b, rtol=1e-8, M="none", device="cpu")
        _, pre = mpcg.cg(A, b, rtol=1e-8, M=1.0 / A.diagonal(), device="cpu")
        self.assertLess(pre.iterations, plain.iterations)

    def test_exact_inverse_converges_at_once(self):
        A, b = poisson1d(20), np.arange(1.0, 21.0)
        Minv = np.linalg.inv(A.toarray())
        x, info = mpcg.cg(A, b, rtol=1e-10, M=Minv, device="cpu")
        _, sinfo, its = scipy_cg(A, b, rtol=1e-10, M=Minv)
        self.assertEqual((info, sinfo), (0, 0))
        self.assertLessEqual(info.iterations, 2)
        self.assertLessEqual(its, 2)

    def test_names(self):
        _, A, b = problems()[2]
        for name in ("none", "jacobi", "chebyshev:4", "auto", "JACOBI"):
            x, info = mpcg.cg(A, b, rtol=1e-8, M=name, device="cpu")
            self.assertEqual(info, 0, name)
            self.assertLessEqual(relres(A, x, b), 1e-8)

    def test_bad_M(self):
        A, b = poisson1d(10), np.ones(10)
        for M, exc in ((np.ones(9), ValueError), (np.ones((10, 9)), ValueError),
                       (scipy.sparse.eye(11), ValueError), (np.ones(10) * 1j, TypeError),
                       ("ilu", ValueError), (3.0, TypeError), (lambda r: r, TypeError)):
            with self.assertRaises(exc) as e:
                mpcg.cg(A, b, M=M, device="cpu")
            self.assertNotIn("\n", str(e.exception))

    def test_indefinite_M_is_a_breakdown(self):
        A, b = poisson1d(20), np.ones(20)
        x, info = mpcg.cg(A, b, M=-np.ones(20), device="cpu")
        self.assertLess(info, 0)
        self.assertEqual(info.reason, "MPCG_DIVERGED_INDEFINITE_PC")

    def test_exception_in_M_propagates(self):
        def bad(r):
            raise ZeroDivisionError("M")
        op = sla.LinearOperator((10, 10), matvec=bad, dtype=np.float64)
        with self.assertRaises(ZeroDivisionError):
            mpcg.cg(poisson1d(10), np.ones(10), M=op, device="cpu")


class TestSpecialInputs(unittest.TestCase):
    def test_zero_rhs(self):
        A = poisson1d(15)
        for x0 in (None, np.ones(15)):
            x, info = mpcg.cg(A, np.zeros(15), x0=x0, device="cpu")
            self.assertEqual((info, info.reason), (0, "MPCG_CONVERGED_ZERO_RHS"))
            np.testing.assert_array_equal(x, 0.0)
        # SciPy >= 1.12 returns zeros at once for any x0; older ones iterate from a nonzero x0
        xs, sinfo, _ = scipy_cg(A, np.zeros(15))
        self.assertEqual(sinfo, 0)
        np.testing.assert_array_equal(xs, 0.0)

    def test_indefinite_breakdown(self):
        # mpcg differs: CG on a matrix that is not positive definite stops at p.Ap <= 0 with
        # info < 0 (-8, MPCG_DIVERGED_INDEFINITE_MATRIX); SciPy's cg goes on to maxiter
        n = 40
        A = scipy.sparse.diags(np.r_[np.linspace(1, 2, n // 2), -np.linspace(1, 2, n // 2)],
                               format="csr")
        b = np.ones(n)
        x, info = mpcg.cg(A, b, M="none", device="cpu")
        self.assertLess(info, 0)
        self.assertEqual(info, info.reason_code)
        self.assertEqual(info.reason, "MPCG_DIVERGED_INDEFINITE_MATRIX")
        _, sinfo, _ = scipy_cg(A, b, maxiter=50)
        self.assertNotEqual(sinfo, 0)

    def test_dtypes(self):
        # mpcg differs: x is float64 whatever A's and b's types (SciPy keeps their common type)
        A = poisson1d(12)
        ref, _ = mpcg.cg(A, np.ones(12), device="cpu")
        for Ad, bd in ((np.float32, np.float32), (np.int64, np.int32), (np.float64, int)):
            x, info = mpcg.cg(A.astype(Ad), np.ones(12, dtype=bd), device="cpu")
            with self.subTest(A=Ad, b=bd):
                self.assertEqual((info, x.dtype), (0, np.float64))
                np.testing.assert_allclose(x, ref, rtol=1e-12)
        x, info = mpcg.cg(A, [1.0] * 12, device="cpu")  # a list
        np.testing.assert_allclose(x, ref, rtol=1e-12)

    def test_complex_is_refused(self):
        # mpcg differs: real systems only; SciPy's cg solves complex Hermitian ones
        A = poisson1d(8)
        for args in ((A, np.ones(8) + 1j), (A.astype(complex), np.ones(8))):
            with self.assertRaises(TypeError) as e:
                mpcg.cg(*args, device="cpu")
            self.assertIn("complex", str(e.exception))
        with self.assertRaises(TypeError):
            mpcg.cg(A, np.ones(8), x0=np.zeros(8, dtype=complex), device="cpu")

    def test_nonsymmetric_warns(self):
        A = poisson1d(10).tolil()
        A[0, 1] = -0.5
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mpcg.cg(A.tocsr(), np.ones(10), device="cpu")
        msgs = [str(m.message) for m in w if issubclass(m.category, RuntimeWarning)]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertIn("not symmetric", msgs[0])
        self.assertEqual(w[0].filename, __file__)  # it points at the caller's line
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mpcg.cg(poisson1d(10), np.ones(10), device="cpu")
        self.assertEqual(w, [])

    def test_bad_inputs_one_line(self):
        A, b = poisson1d(10), np.ones(10)
        cases = ((A, np.ones(9), ValueError), (A[:, :9], b, mpcg.MpcgError),
                 (sla.aslinearoperator(A), b, TypeError), (A, np.ones((10, 2, 2)), ValueError))
        for A_, b_, exc in cases:
            with self.assertRaises(exc) as e:
                mpcg.cg(A_, b_, device="cpu")
            self.assertNotIn("\n", str(e.exception).split("called from")[0].strip())


class TestInfo(unittest.TestCase):
    def test_int_semantics_and_report(self):
        x, info = mpcg.cg(poisson1d(20), np.ones(20), device="cpu")
        self.assertIsInstance(info, int)
        self.assertIsInstance(info, mpcg.Info)
        self.assertEqual(str(info), "0")
        self.assertEqual(f"{info}", "0")
        self.assertIn("MPCG_CONVERGED_RTOL", repr(info))
        self.assertTrue(info.converged)
        for f in mpcg.Info.fields:
            self.assertTrue(hasattr(info, f), f)
        self.assertEqual(info.as_dict()["result"]["iterations"], info.iterations)
        for other in (copy.copy(info), pickle.loads(pickle.dumps(info))):
            self.assertEqual(other, 0)
            self.assertEqual(other.iterations, info.iterations)

    def test_solver_returns_the_same_info(self):
        A, b = poisson2d(8), np.ones(64)
        with mpcg.Solver(A, rtol=1e-5, M="none", device="cpu") as s:
            x, info = s.solve(b)
        y, cinfo = mpcg.cg(A, b, M="none", device="cpu")
        self.assertEqual((info, cinfo), (0, 0))
        self.assertEqual(info.iterations, cinfo.iterations)
        np.testing.assert_array_equal(x, y)


class TestBlock(unittest.TestCase):
    def test_2d_b_against_columns(self):
        _, A, _ = problems()[2]
        rng = np.random.default_rng(5)
        B = rng.standard_normal((A.shape[0], 3))
        X, info = mpcg.cg(A, B, rtol=1e-8, device="cpu")
        self.assertEqual(X.shape, B.shape)
        self.assertEqual(info, 0)
        self.assertEqual(len(info.columns), 3)
        for j in range(3):
            xs, sinfo, _ = scipy_cg(A, B[:, j], rtol=1e-8)
            self.assertEqual(sinfo, 0)
            self.assertLessEqual(relres(A, X[:, j], B[:, j]), 1e-8)
            np.testing.assert_allclose(X[:, j], xs, rtol=1e-5, atol=1e-6 * np.abs(xs).max())

    def test_2d_b_with_guess_callback_and_limits(self):
        A = poisson2d(8)
        B = np.ones((64, 2))
        B[:, 1] = np.arange(64)
        X, info = mpcg.cg(A, B, x0=np.zeros((64, 2)), rtol=1e-10, device="cpu")
        self.assertEqual(info, 0)
        seen = []
        # a callback (or a callable M) solves the columns one after another
        Y, info = mpcg.cg(A, B, rtol=1e-10, callback=seen.append, device="cpu")
        self.assertEqual(info, 0)
        self.assertEqual(len(seen), sum(c.iterations for c in info.columns))
        np.testing.assert_allclose(Y, X, rtol=1e-6, atol=1e-8)
        X, info = mpcg.cg(A, B, maxiter=2, device="cpu")
        self.assertGreater(info, 0)
        self.assertFalse(info.converged)
        W = np.ones((64, 70))  # more columns than one block call takes
        X, info = mpcg.cg(A, W, device="cpu")
        self.assertEqual((X.shape, info, len(info.columns)), ((64, 70), 0, 70))


def _cupy():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1 or mpcg.device_count() < 1:
            return None
        return cupy
    except Exception:
        return None


class TestCuPy(unittest.TestCase):
    """cupyx.scipy.sparse.linalg.cg's contract: CuPy in, CuPy out."""

    def setUp(self):
        self.cp = _cupy()
        if self.cp is None:
            self.skipTest("no CuPy with a GPU and a CUDA build of libmpcg")

    def test_cupy_in_cupy_out(self):
        cp = self.cp
        import cupyx.scipy.sparse as csp
        A = poisson2d(10)
        Ad, bd = csp.csr_matrix(A), cp.ones(100)
        seen = []
        x, info = mpcg.cg(Ad, bd, rtol=1e-8, callback=seen.append)
        self.assertIsInstance(x, cp.ndarray)
        self.assertEqual(info, 0)
        self.assertTrue(all(isinstance(v, cp.ndarray) for v in seen))
        x2, info2 = mpcg.cg(Ad, bd, rtol=1e-8, M=cp.asarray(1.0 / A.diagonal()))
        self.assertEqual(info2, 0)
        np.testing.assert_allclose(cp.asnumpy(x2), cp.asnumpy(x), rtol=1e-6)
        X, info3 = mpcg.cg(Ad, cp.ones((100, 2)), rtol=1e-8)
        self.assertIsInstance(X, cp.ndarray)
        self.assertEqual((X.shape, info3), ((100, 2), 0))


if __name__ == "__main__":
    unittest.main()
