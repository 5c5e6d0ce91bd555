# python/mpcg/_info.py: what a solve did (mpcg.Info: SciPy's info code carrying struct mpcg_info)
# and its residual history (mpcg.History)
# SPDX-License-Identifier: BSD-3-Clause
"""Info and History.

An Info is an int with SciPy's meaning (scipy.sparse.linalg.cg's ``info``): 0 converged, > 0 not
converged after that many iterations (maxiter reached, or stagnation), < 0 a breakdown (the
negative mpcg_reason: -5 breakdown, -8 A not positive definite, -9 NaN/Inf, -11 M not positive
definite). The report of struct mpcg_info is on it as attributes (info.iterations, info.reason,
...), so ``if info:`` and ``info == 0`` read as in SciPy and the report stays at hand.
"""
import dataclasses

import numpy as np

from . import _api

__all__ = ["Info", "History", "scipy_code"]


def _c_str(p):
    return p.decode("utf-8", "replace") if p is not None else ""


_MAX_ITER, _STAGNATION = -3, -10  # mpcg_reason: not converged, but no breakdown


def scipy_code(reason, iterations):
    """SciPy's info for an mpcg_reason: 0 converged; the iterations (at least 1, so that a solve
    stopped by maxiter=0 is not read as converged) where maxiter ran out or the true residual
    stagnated; the negative reason for a breakdown."""
    if reason > 0:
        return 0
    if reason in (_MAX_ITER, _STAGNATION):
        return max(int(iterations), 1)
    return int(reason)


@dataclasses.dataclass
class History:
    """The residual history of a solve (mpcg_solver_get_history; docs/history.md): NumPy
    arrays of equal length, one entry each time the solve read the recurrence residual (every
    iteration on the CPU; iteration 0 and each check window of a GPU variant).

    iteration:   int64, strictly increasing from 0
    relres:      ||r_k|| / ||b|| of the CG recurrence
    true_relres: ||b - A x_k|| / ||b|| recomputed in fp64 where the solve computed it (the start,
                 every check of the true residual, the end), NaN elsewhere
    time_s:      seconds since the solve began

    len(h) is the number of entries; iterating gives (iteration, relres, true_relres, time_s)
    tuples."""
    iteration: np.ndarray
    relres: np.ndarray
    true_relres: np.ndarray
    time_s: np.ndarray

    def __len__(self):
        return len(self.iteration)

    def __iter__(self):
        return zip(self.iteration.tolist(), self.relres.tolist(), self.true_relres.tolist(),
                   self.time_s.tolist())


class Info(int):
    """What a solve did: SciPy's info code (an int: 0 converged, > 0 the iterations when not
    converged, < 0 a breakdown), with struct mpcg_info's fields as attributes, strings decoded
    and enums named:

    reason, reason_code, reason_string, converged, iterations, true_relres, recurrence_relres,
    setup_time_s, solve_time_s, backend, precision, residual_replacements, bytes_per_iteration,
    variant, variant_reason, spmvs, spmvs_fp64, mixed_strategy, precision_fallback,
    fallback_iteration, storage_fallback, mixed_head_iterations, precond, precond_describe,
    precond_setup_time_s, precond_spmvs, spmv_describe; history (a History, or None);
    columns (a block solve: one Info per column of b, else None).

    str(info) is the code alone, as SciPy's; repr(info) adds the reason and the counts."""

    fields = ("reason", "reason_code", "reason_string", "converged", "iterations", "true_relres",
              "recurrence_relres", "setup_time_s", "solve_time_s", "backend", "precision",
              "residual_replacements", "bytes_per_iteration", "variant", "variant_reason",
              "spmvs", "spmvs_fp64", "mixed_strategy", "precision_fallback", "fallback_iteration",
              "storage_fallback", "mixed_head_iterations", "precond", "precond_describe",
              "precond_setup_time_s", "precond_spmvs", "spmv_describe", "history", "columns")

    def __new__(cls, code, values):
        self = super().__new__(cls, code)
        self.__dict__.update(values)
        return self

    def __getnewargs__(self):  # pickling and copy
        return int(self), dict(self.__dict__)

    def __repr__(self):
        return (f"Info({int(self)}: {self.reason} after {self.iterations} iterations, "
                f"true relres {self.true_relres:.3e})")

    def __str__(self):
        return int.__repr__(self)

    @classmethod
    def _from_c(cls, c, history=None):
        r = c.reason
        values = dict(zip(cls.fields, (
            _c_str(_api.reason_name(r)), r, _c_str(_api.reason_string(r)), bool(c.converged),
            c.iterations, c.true_relres, c.recurrence_relres, c.setup_time_s, c.solve_time_s,
            c.backend.decode(), _c_str(_api.precision_name(c.precision)),
            c.residual_replacements, c.bytes_per_iteration, c.variant.decode(),
            c.variant_reason.decode("utf-8", "replace"), c.spmvs, c.spmvs_fp64,
            c.mixed_strategy.decode(), bool(c.precision_fallback), c.fallback_iteration,
            c.storage_fallback.decode("utf-8", "replace"), c.mixed_head_iterations,
            c.precond.decode(), c.precond_describe.decode("utf-8", "replace"),
            c.precond_setup_time_s, c.precond_spmvs, c.spmv_describe.decode("utf-8", "replace"),
            history, None)))
        return cls(scipy_code(r, c.iterations), values)

    @classmethod
    def _combine(cls, columns):
        """A block solve's Info: the first breakdown's code, else the largest count of a column
        that did not converge, else 0; the fields of that column (of the slowest when all
        converged), iterations the most of any column, converged only if every column did;
        columns: the per-column Infos."""
        bad = [c for c in columns if c < 0]
        slow = max(columns, key=lambda c: (int(c), c.iterations))
        pick = bad[0] if bad else slow
        values = dict(pick.__dict__)
        values.update(iterations=max(c.iterations for c in columns),
                      converged=all(c.converged for c in columns), columns=list(columns))
        return cls(int(pick), values)

    @property
    def ms_per_iteration(self):
        return 1e3 * self.solve_time_s / self.iterations if self.iterations > 0 else None

    @property
    def achieved_gbs(self):
        if self.iterations <= 0 or self.solve_time_s <= 0:
            return None
        return self.bytes_per_iteration * self.iterations / self.solve_time_s * 1e-9

    def as_dict(self):
        """The fields of cgsolve's JSON report (docs/json-report.md) that a solve knows, in its
        sections "solver", "result", "time" and "traffic"; null where cgsolve writes null."""
        def opt(s):
            return s if s else None
        return {
            "solver": {"method": "cg", "backend": self.backend, "precision": self.precision,
                       "variant": self.variant, "variant_reason": self.variant_reason,
                       "precond": self.precond or "none",
                       "spmv_describe": opt(self.spmv_describe),
                       "precond_describe": opt(self.precond_describe),
                       "precond_setup_s": self.precond_setup_time_s},
            "result": {"converged": self.converged, "reason": self.reason,
                       "iterations": self.iterations, "true_relres": self.true_relres,
                       "recurrence_relres": self.recurrence_relres,
                       "residual_replacements": self.residual_replacements,
                       "spmvs": self.spmvs, "spmvs_fp64": self.spmvs_fp64,
                       "mixed_strategy": opt(self.mixed_strategy),
                       "mixed_head_iterations": self.mixed_head_iterations,
                       "precond_spmvs": self.precond_spmvs,
                       "precision_fallback": self.precision_fallback,
                       "fallback_iteration": (self.fallback_iteration
                                              if self.precision_fallback else None),
                       "storage_fallback": opt(self.storage_fallback)},
            "time": {"setup_s": self.setup_time_s, "solve_s": self.solve_time_s,
                     "ms_per_iteration": self.ms_per_iteration},
            "traffic": {"bytes_per_iteration": self.bytes_per_iteration,
                        "achieved_gbs": self.achieved_gbs},
        }
