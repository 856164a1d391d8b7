"""Shared pieces of the reference solutions: the integration settings (tolerance, deadline), the DOP853 driver
and small rotation helpers (hat, quaternions). Imports nothing else from ``solvers``."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

import numpy as np
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from . import compiled

RTOL = 1e-13
ATOL = 1e-13
# (tolerance, monotonic deadline) for the integrations in this context (solvers.references sets them)
_CONTEXT: ContextVar[tuple[float | None, float | None]] = ContextVar("reference_context", default=(None, None))


class TooLongError(RuntimeError):
    """An integration ran past the deadline of :func:`settings`."""


@contextlib.contextmanager
def settings(tol: float | None = None, deadline: float | None = None) -> Iterator[None]:
    """Integrate with rtol = atol = ``tol`` (default RTOL) and stop with TooLongError after ``deadline``
    (time.monotonic()) in this block."""
    token = _CONTEXT.set((tol, deadline))
    try:
        yield
    finally:
        _CONTEXT.reset(token)

E3 = np.array([0.0, 0.0, 1.0])
SQRT3 = float(np.sqrt(3.0))  # B4 default l2


# ----------------------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------------------
def _times(t) -> np.ndarray:
    t = np.atleast_1d(np.asarray(t, dtype=float))
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"t must be a non-empty 1-D array of times, got shape {t.shape}")
    if t[0] != 0.0:
        raise ValueError(f"t must start at 0, got t[0] = {t[0]}")
    if np.any(np.diff(t) < 0.0) or not np.all(np.isfinite(t)):
        raise ValueError("t must be finite and sorted in increasing order")
    return t


CHUNK_SECONDS = 0.02  # the deadline is checked between compiled calls of about this length (steps doubling from 8)


def _integrate(rhs, y0, t: np.ndarray, rtol: float | None = None, atol: float | None = None) -> np.ndarray:
    """Integrate y' = f(y) with DOP853 and return y at the times t, shape (n, len(y0)) (tolerances and deadline
    from :func:`settings` unless given). ``rhs`` is a :class:`solvers.references.problems.Problem` (its compiled
    form, integrated by :func:`solvers.references.compiled.advance`) or a Python ``rhs(t, y)`` (SciPy's
    solve_ivp, the slower alternative kept for comparison)."""
    y0 = np.asarray(y0, dtype=float)
    if t[-1] == 0.0:
        return np.repeat(y0[None, :], t.size, axis=0)
    tol, deadline = _CONTEXT.get()
    rtol = rtol or tol or RTOL
    atol = atol or tol or ATOL
    if hasattr(rhs, "kind"):
        return _integrate_compiled(rhs, y0, t, rtol, atol, deadline)
    f = rhs
    if deadline is not None:
        calls = [0]
        start = time.monotonic()

        def f(t_, y):
            calls[0] += 1
            if calls[0] % 200 == 0:
                _check_deadline(start, deadline, t_, float(t[-1]))
            return rhs(t_, y)

    sol = solve_ivp(f, (0.0, float(t[-1])), y0, method="DOP853", rtol=rtol, atol=atol, dense_output=True)
    if not sol.success:  # pragma: no cover - would be a bug in the reference
        raise RuntimeError(f"reference integration failed: {sol.message}")
    y = sol.sol(t).T
    y[0] = y0
    return y


def _check_deadline(start: float, deadline: float, t_: float, t_end: float) -> None:
    now = time.monotonic()
    if now > deadline:
        raise TooLongError(f"the reference integration passed its time budget at t = {t_:.4g} s")
    # hopeless: after a tenth of the budget, on pace for more than 1.2 times the budget (the pace of a falling
    # mechanism only slows down as it speeds up, so this estimate is rather low)
    budget = deadline - start
    if now - start > 0.1 * budget and t_ > 0 and (now - start) * t_end / t_ > 1.2 * budget:
        raise TooLongError(f"the reference integration is on pace to take {(now - start) * t_end / t_:.0f}"
                           f" s, beyond its time budget")


def _integrate_compiled(problem, y0: np.ndarray, t: np.ndarray, rtol: float, atol: float,
                        deadline: float | None) -> np.ndarray:
    kind, p = problem.kind, problem.p
    w = np.zeros(compiled.scratch_size(kind, p))
    y = y0.copy()
    f = np.empty_like(y)
    t_end = float(t[-1])
    h = compiled.first_step(kind, p, w, y, f, t_end, rtol, atol)
    clock = np.array([0.0, h, 2.0])
    out = np.empty((t.size, y.size))
    out[0] = y0
    i_out = 1
    while t[i_out:].size and t[i_out] == 0.0:  # repeated start times
        out[i_out] = y0
        i_out += 1
    start = time.monotonic()
    chunk = 8  # a large chain's step costs milliseconds: the first calls are short, then as long as CHUNK_SECONDS
    while True:
        called = time.monotonic()
        i_out, status = compiled.advance(kind, p, w, y, f, clock, t_end, rtol, atol, t, out, i_out, chunk)
        if time.monotonic() - called < 0.5 * CHUNK_SECONDS:
            chunk *= 2
        if status == compiled.DONE:
            break
        if status == compiled.TOO_SMALL_STEP:  # pragma: no cover - would be a bug in the reference
            raise RuntimeError(f"reference integration failed: step size too small at t = {clock[0]:.6g}")
        if deadline is not None:
            _check_deadline(start, deadline, float(clock[0]), t_end)
    if i_out < t.size:  # pragma: no cover - the last step ends at t_end, the largest time
        raise RuntimeError("reference integration ended before the last requested time")
    return out


def hat(w) -> np.ndarray:
    """Skew matrix of a vector (vectorised over leading dimensions): hat(w) @ x = w x x."""
    w = np.asarray(w, dtype=float)
    out = np.zeros((*w.shape[:-1], 3, 3))
    out[..., 0, 1] = -w[..., 2]
    out[..., 0, 2] = w[..., 1]
    out[..., 1, 0] = w[..., 2]
    out[..., 1, 2] = -w[..., 0]
    out[..., 2, 0] = -w[..., 1]
    out[..., 2, 1] = w[..., 0]
    return out


def vee(W) -> np.ndarray:
    """Inverse of hat, taking the skew part of W (vectorised over leading dimensions)."""
    W = np.asarray(W, dtype=float)
    return 0.5 * np.stack(
        [W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]], axis=-1
    )


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def quat_from_matrix(R) -> np.ndarray:
    """Unit quaternion (scalar first) of a rotation matrix."""
    x, y, z, w = Rotation.from_matrix(np.asarray(R, dtype=float)).as_quat()
    return np.array([w, x, y, z])


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix of a (not necessarily unit) quaternion, scalar first, vectorised.

    The quadratic form is divided by |q|^2, so the result is orthogonal for every non-zero q.
    """
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    n = w * w + x * x + y * y + z * z
    R = np.empty((*q.shape[:-1], 3, 3))
    R[..., 0, 0] = w * w + x * x - y * y - z * z
    R[..., 0, 1] = 2.0 * (x * y - w * z)
    R[..., 0, 2] = 2.0 * (x * z + w * y)
    R[..., 1, 0] = 2.0 * (x * y + w * z)
    R[..., 1, 1] = w * w - x * x + y * y - z * z
    R[..., 1, 2] = 2.0 * (y * z - w * x)
    R[..., 2, 0] = 2.0 * (x * z - w * y)
    R[..., 2, 1] = 2.0 * (y * z + w * x)
    R[..., 2, 2] = w * w - x * x - y * y + z * z
    return R / n[..., None, None]


def _quat_rate(q: np.ndarray, Omega: np.ndarray) -> np.ndarray:
    """dq/dt = 1/2 q (x) (0, Omega): body angular velocity, dR/dt = R hat(Omega)."""
    w, v = q[0], q[1:]
    return 0.5 * np.concatenate(([-v @ Omega], w * Omega + np.cross(v, Omega)))


def _unit_quats(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)
