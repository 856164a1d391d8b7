"""The linearisation of a benchmark at its initial state: a finite-difference Jacobian of the compiled
right-hand side that the explicit methods integrate (``solvers.models.dispatch.bound``: rk4's and erk's index-1
DAE or ODE right-hand side in the method's own state), and its eigenvalues lambda. For an explicit Runge-Kutta
method with stability function R, ``|R(h lambda)| <= 1`` is the linear stability of that linearisation
(Hairer, Wanner, Solving ODEs II, IV.2); the Method lab marks ``h lambda`` on the stability region.

Plain Python (nothing here is compiled): 2 n right-hand side evaluations and one n x n eigenvalue problem, for
states of at most :data:`MAX_STATE` entries. On a constrained or rotation-matrix state the Jacobian also has the
directions off the constraint manifold and off SO(3), whose eigenvalues are 0 (the constraints' second
derivatives vanish along the index-1 flow) to finite-difference accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .models import dispatch
from .registry import BENCHMARKS

MAX_STATE = 200  # entries of the state: beyond this the linearisation is not offered (not "cheap")
EPS = float(np.finfo(float).eps) ** (1.0 / 3.0)  # central differences: truncation ~ EPS^2, round-off ~ eps / EPS


class LinearisationError(ValueError):
    """The right-hand side cannot be evaluated near the state, or the state is too long to linearise cheaply."""


def jacobian(benchmark: str, params: Mapping[str, Any] | None = None, y: np.ndarray | None = None,
             t: float = 0.0) -> np.ndarray:
    """d(dy/dt)/dy at ``y`` (default: the benchmark's initial state at ``params``), by central differences with
    relative steps :data:`EPS` (``max(1, |y_j|) EPS``)."""
    if benchmark not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {benchmark!r}; valid: {', '.join(BENCHMARKS)}")
    bench = BENCHMARKS[benchmark]
    model = bench.build(bench.resolve(params))
    y = np.array(model.y0 if y is None else y, dtype=float)
    n = y.size
    if n > MAX_STATE:
        raise LinearisationError(f"{benchmark}'s state has {n} entries, over the {MAX_STATE} linearised here")

    def failed(_t: float = t) -> LinearisationError:
        return LinearisationError(f"the right-hand side of {benchmark} cannot be evaluated near its state")

    rhs = dispatch.rhs_function(*dispatch.pack(model.machinery, model.data), failed)

    def f(x: np.ndarray) -> np.ndarray:
        out = rhs(t, x)
        if not np.all(np.isfinite(out)):
            raise failed()
        return out

    J = np.empty((n, n))
    for j in range(n):
        step = EPS * max(1.0, abs(y[j]))
        up, down = y.copy(), y.copy()
        up[j] += step
        down[j] -= step
        J[:, j] = (f(up) - f(down)) / (2.0 * step)
    return J


def eigenvalues(benchmark: str, params: Mapping[str, Any] | None = None) -> np.ndarray:
    """The eigenvalues lambda of :func:`jacobian` at the initial state, sorted by real then imaginary part."""
    lam = np.linalg.eigvals(jacobian(benchmark, params))
    return lam[np.lexsort((lam.imag, lam.real))]
