"""SciPy's solve_ivp integrators as baselines: ``scipy_dop853`` (explicit Dormand-Prince 8(5,3)) and
``scipy_radau`` (implicit Radau IIA of order 5), on every benchmark in its natural ODE form.

The black-box comparison a user makes first. The right-hand side is the benchmark's own compiled one
(``models.dispatch.bound``: the index-1 DAE of the constrained benchmarks, accelerations and multipliers from the
saddle-point system, as rk4 integrates it; rotation matrices as 9 numbers; the rotation-vector kinematics of
seed 002), so constraint drift and the loss of orthogonality are SciPy's, not ours. SciPy's ``OdeSolver``
(the class solve_ivp drives) steps with its own error control from t = 0 for the whole run, kept alive across the
driver's chunks, and each output time k h is read from its dense output, so results do not depend on how the
driver chunks the run (and not on h, which is only the output spacing). Progress, cancel and the step cap work as
for every method; the summary reports internal steps and right-hand-side evaluations. Not compiled: this kernel is
Python calling SciPy, which is the point of the baseline.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.integrate import DOP853, Radau

from .. import kernels
from ..models import angular_velocity, dispatch
from ..models.base import Model
from .base import Method, Option

_W_STEPS, _W_NFEV, _W_NJEV = 0, 1, 2
_RUNS: dict[int, _Run] = {}  # id(work) -> the run's solver state, dropped when the run's work array is


@dataclass
class _Run:
    """One run's OdeSolver and the dense output of its current internal step (formed once per step)."""

    solver: Any
    dense: Any = None
    dense_t: float = float("nan")

    def at(self, target: float) -> np.ndarray:
        if self.solver.t == target:
            return self.solver.y
        if self.dense_t != self.solver.t:  # DOP853's interpolant costs 3 more rhs evaluations: once per step
            self.dense, self.dense_t = self.solver.dense_output(), self.solver.t
        return self.dense(target)


# the option array's slots, in the order pack writes them
O_RTOL, O_ATOL, O_CAP, O_SWITCH, O_THRESHOLD = range(5)


class _RhsFailedError(Exception):
    """The saddle-point system was singular or the rotation vector reached its singularity."""


def _fun(kind: int, data: tuple):
    return dispatch.rhs_function(kind, data, lambda _t: _RhsFailedError()), dispatch.bound(kind, data)[1]


def _kernel(solver_class: type):
    def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
                info):
        """solve_ivp kernel (contract in solvers.kernels; not compiled). opts: see :func:`pack`."""
        fun, diagnostics = _fun(kind, data)
        d = np.empty(kernels.N_DIAG)
        if n_steps == 0:  # the driver's dry call (on copies): load the compiled pieces before its clock starts
            with contextlib.suppress(_RhsFailedError):
                diagnostics(t_start, y, fun(t_start, y), d)
            kernels.record(samples, n_saved, maxima, ref, t_start, y, d, 0, stride, last)
            return 0, kernels.OK, n_saved
        fail = kernels.DOMAIN if kind == dispatch.ROTVEC else kernels.SINGULAR
        t = t_start + k0 * h
        done = 0
        try:
            if k0 == 0:
                _RUNS[id(work)] = _Run(solver_class(fun, t_start, y.copy(), np.inf, rtol=opts[O_RTOL],
                                                    atol=opts[O_ATOL]))
                weakref.finalize(work, _RUNS.pop, id(work), None)
                diagnostics(t, y, fun(t, y), d)
                n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, last)
            run = _RUNS[id(work)]
            solver = run.solver
            for s in range(n_steps):
                done = s
                target = t_start + (k0 + s + 1) * h
                taken = 0
                while solver.t < target:
                    if taken >= opts[O_CAP]:
                        info[kernels.INFO_TIME], info[kernels.INFO_CAP] = target - h, opts[O_CAP]
                        return s, kernels.STEPSIZE, n_saved
                    message = solver.step()
                    taken += 1
                    work[_W_STEPS] += 1.0
                    if solver.status == "failed":
                        info[kernels.INFO_TIME], info[kernels.INFO_STEP] = solver.t, solver.h_abs or 0.0
                        info[kernels.INFO_CAP] = 0.0
                        if not np.all(np.isfinite(solver.y)):
                            return s, kernels.NONFINITE, n_saved
                        if message and "step size" not in message:
                            return s, kernels.NONFINITE, n_saved
                        return s, kernels.STEPSIZE, n_saved
                ys = run.at(target)
                work[_W_NFEV], work[_W_NJEV] = solver.nfev, getattr(solver, "njev", 0)
                if not kernels.state_ok(ys):
                    info[kernels.INFO_TIME] = target
                    return s, kernels.NONFINITE, n_saved
                y[:] = ys
                if kind == dispatch.ROTVEC and opts[O_SWITCH] > 0.5 and angular_velocity.switch(y, opts[O_THRESHOLD]):
                    # seed 002's 2 pi switch at an output time: the ODE restarts from the switched theta
                    info[kernels.INFO_SWITCHES] += 1.0
                    run = _RUNS[id(work)] = _Run(solver_class(fun, target, y.copy(), np.inf, rtol=opts[O_RTOL],
                                                              atol=opts[O_ATOL]))
                    solver = run.solver
                diagnostics(target, y, fun(target, y), d)
                n_saved = kernels.record(samples, n_saved, maxima, ref, target, y, d, k0 + s + 1, stride, last)
        except _RhsFailedError:
            info[kernels.INFO_TIME] = _RUNS[id(work)].solver.t if id(work) in _RUNS else t
            return done, fail, n_saved
        return n_steps, kernels.OK, n_saved

    return advance


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [rtol, atol, max internal steps per output step, switch, switch threshold]."""
    return np.array([o["rtol"], o["atol"], float(o["max_internal_steps"]), 1.0 if o["switch"] else 0.0,
                     o["switch_threshold"]])


def report(work: np.ndarray, info: np.ndarray) -> dict[str, Any]:
    """SciPy's own counts (summary entries)."""
    return {"internal_steps": int(work[_W_STEPS]), "rhs_evaluations": int(work[_W_NFEV]),
            "jacobian_evaluations": int(work[_W_NJEV])}


def work_size(model: Model) -> int:
    return 3


OPTIONS = {
    "rtol": Option(1e-8, "relative error tolerance (solve_ivp's rtol)", "float", 1e-13, 1e-2),
    "atol": Option(1e-8, "absolute error tolerance (solve_ivp's atol)", "float", 1e-16, 1.0),
    "max_internal_steps": Option(100_000, "internal steps allowed per output step", "int", 10, 100_000_000),
    "switch": Option(True, "angular_velocity only: seed 002's 2 pi switch of the rotation vector, checked at the "
                           "output times (the integration restarts there)", "bool",
                     benchmarks=("angular_velocity",)),
    "switch_threshold": Option(1.5 * np.pi, "angular_velocity only: switch when |theta| exceeds this", "float",
                               np.pi, 2 * np.pi - 1e-3, benchmarks=("angular_velocity",)),
}
_ABOUT = (" SciPy's solve_ivp integrator as a baseline, on the benchmark's natural ODE form (the index-1 DAE with "
          "its constraint drift, rotation matrices as 9 numbers: no projection), with its own error control; h is "
          "only the output spacing. The summary counts its internal steps and right-hand-side evaluations.")



def _method(id_: str, title: str, order: int, about: str, solver_class: type, kind: str) -> Method:
    return Method(
        id=id_, title=title, seed="-", order=order, adaptive=True, description=about + _ABOUT,
        kernel=_kernel(solver_class), machineries=("rigid", "coords", "rotvec"), options=dict(OPTIONS), pack=pack,
        work_size=work_size, properties=(kind, "adaptive step", "baseline (SciPy)", "not compiled"), report=report,
    )


METHOD_DOP853 = _method("scipy_dop853", "SciPy solve_ivp DOP853 (baseline)", 8,
                        "Explicit Runge-Kutta of order 8 (Dormand-Prince 8(5,3), Hairer's DOP853).", DOP853,
                        "explicit")
METHOD_RADAU = _method("scipy_radau", "SciPy solve_ivp Radau (baseline)", 5,
                       "Implicit Runge-Kutta Radau IIA of order 5 (Hairer and Wanner), for stiff problems.", Radau,
                       "implicit")
