"""One entry point per model function over the three machineries.

Kernels receive ``kind`` (RIGID, COORDS, ROTVEC) and ``data = (rigid_data, coords_data, rotvec_data)`` where the
two unused entries are empty placeholders of the right types. Numba cannot cache kernels that take functions as
arguments (measured: every process recompiles), so dispatch is a branch on ``kind``, whose cost is negligible at
run time. :func:`rhs` and :func:`diagnostics` compile all three machineries' functions: the simple way for a new
method (tests/test_extending.py). The built-in kernels branch on a constant instead (``kernels.PerMachinery``) and
compile only the machinery they run on; :func:`bound` does the same for Python callers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from numba import njit

from . import angular_velocity, coords, rigid, rigid_dae

RIGID, COORDS, ROTVEC = 0, 1, 2
KINDS = {"rigid": RIGID, "coords": COORDS, "rotvec": ROTVEC}

_EMPTY_RIGID = rigid.make_data([], [], np.zeros(3), [])
_EMPTY_COORDS = coords.make_data(np.zeros((0, 0)), np.zeros(0))
_EMPTY_ROTVEC = (np.zeros(1),)


def pack(machinery: str, data: tuple) -> tuple[int, tuple]:
    """The (kind, data) pair a kernel takes for a model of the given machinery."""
    if machinery == "rigid":
        return RIGID, (data, _EMPTY_COORDS, _EMPTY_ROTVEC)
    if machinery == "coords":
        return COORDS, (_EMPTY_RIGID, data, _EMPTY_ROTVEC)
    if machinery == "rotvec":
        return ROTVEC, (_EMPTY_RIGID, _EMPTY_COORDS, data)
    raise ValueError(f"unknown machinery {machinery!r}")


def bound(kind: int, data: tuple) -> tuple[Callable[..., bool], Callable[..., None]]:
    """The machinery's own compiled right-hand side ``rhs(t, y, ydot, A, b)`` and diagnostics
    ``diagnostics(t, y, ydot, d)`` bound to its data, for Python callers (the SciPy baselines): they compile only
    that machinery, where :func:`rhs` and :func:`diagnostics` compile all three."""
    if kind == RIGID:
        rd = data[0]
        return functools.partial(rigid_dae.rhs_call, rd), lambda t, y, ydot, d: rigid.diagnostics(rd, y, ydot, d)
    if kind == COORDS:
        cd = data[1]
        return functools.partial(coords.rhs_call, cd), lambda t, y, ydot, d: coords.diagnostics_call(cd, y, ydot, d)
    vd = data[2]
    return functools.partial(angular_velocity.rhs, vd), lambda t, y, ydot, d: angular_velocity.diagnostics(vd, t, y, d)


def rhs_function(kind: int, data: tuple,
                 error: Callable[[float], Exception]) -> Callable[[float, np.ndarray], np.ndarray]:
    """:func:`bound`'s right-hand side as ``f(t, y) -> dy/dt`` for Python callers (SciPy's solvers, the
    references' DOP853, finite differences), its saddle-point scratch allocated once; raises ``error(t)`` where
    the compiled function cannot be evaluated (a singular saddle-point system, a state outside the chart)."""
    size = scratch_size(kind, data)
    A, b = np.empty((size, size)), np.empty(size)
    rhs_, _ = bound(kind, data)

    def f(t: float, y: np.ndarray) -> np.ndarray:
        ydot = np.empty(y.shape[0])
        if not rhs_(t, np.ascontiguousarray(y), ydot, A, b):
            raise error(t)
        return ydot

    return f


@njit(cache=True)
def rhs(kind: int, data: tuple, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """First-order right-hand side dy/dt (index-1 DAE for constrained models); False if it cannot be evaluated."""
    if kind == RIGID:
        return rigid_dae.rhs(data[0], t, y, ydot, A, b)
    if kind == COORDS:
        return coords.rhs(data[1], t, y, ydot, A, b)
    return angular_velocity.rhs(data[2], t, y, ydot, A, b)


@njit(cache=True)
def diagnostics(kind: int, data: tuple, t: float, y: np.ndarray, ydot: np.ndarray, d: np.ndarray) -> None:
    """The diagnostics row (kernels.DIAG_FIELDS) at state y, with the method's own derivative ydot."""
    if kind == RIGID:
        rigid.diagnostics(data[0], y, ydot, d)
    elif kind == COORDS:
        coords.diagnostics(data[1], y, ydot, d)
    else:
        angular_velocity.diagnostics(data[2], t, y, d)


@njit(cache=True)
def scratch_size(kind: int, data: tuple) -> int:
    """An upper bound on the size of the model's saddle-point systems."""
    if kind == RIGID:
        return rigid_dae.scratch_size(data[0])
    if kind == COORDS:
        return coords.scratch_size(data[1])
    return 3

