"""The reference equations as problems for the integrator: each constructor returns a :class:`Problem` holding the
compiled form (a problem code and constant array for :mod:`solvers.references.compiled`) and the same equations
as a readable NumPy right-hand side ``numpy(t, y)``, the specification the compiled one is checked against
(tests/test_reference_rhs.py) and the right-hand side of the SciPy alternative ``python -m solvers.bench
--references`` measures. Imports nothing else from ``solvers``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import compiled
from .common import E3, _quat_rate, hat, quat_to_matrix


@dataclass(frozen=True)
class Problem:
    """y' = f(y): ``kind`` and ``p`` for :func:`solvers.references.compiled.rhs`; ``numpy`` the same f in NumPy."""

    kind: int
    p: np.ndarray
    numpy: Callable[[float, np.ndarray], np.ndarray]


def planar(a: float) -> Problem:
    """theta'' = -a sin(theta), a = m g l / J."""

    def f(_t, y):
        return np.array([y[1], -a * np.sin(y[0])])

    return Problem(compiled.PLANAR, np.array([a], dtype=float), f)


def two_bars(M11: float, M22: float, a: float, G1: float, G2: float) -> Problem:
    """Lagrange's equations of two uniform bars in their absolute angles (solutions._two_bar_angles)."""

    def f(_t, y):
        q1, q2, w1, w2 = y
        d = q1 - q2
        c, s = np.cos(d), np.sin(d)
        f1 = -a * s * w2 * w2 - G1 * np.cos(q1)
        f2 = a * s * w1 * w1 - G2 * np.cos(q2)
        det = M11 * M22 - (a * c) ** 2
        return np.array([w1, w2, (M22 * f1 - a * c * f2) / det, (M11 * f2 - a * c * f1) / det])

    return Problem(compiled.TWO_BARS, np.array([M11, M22, a, G1, G2], dtype=float), f)


def top(mg_rho: np.ndarray, J: np.ndarray) -> Problem:
    """Heavy top: J dOmega/dt + Omega x J Omega = m g rho x (R^T e3), y = [quaternion, Omega]."""

    def f(_t, y):
        q, W = y[:4], y[4:]
        R = quat_to_matrix(q)
        torque = np.cross(mg_rho, R[2]) - np.cross(W, J @ W)  # R^T e3 = third row of R
        return np.concatenate((_quat_rate(q, W), np.linalg.solve(J, torque)))

    return Problem(compiled.TOP, np.concatenate((mg_rho, np.asarray(J, float).ravel())), f)


def spatial_double_pendulum(m: float, J: np.ndarray, X11: np.ndarray, X12: np.ndarray, X21: np.ndarray,
                            g: float) -> Problem:
    """B1 in two quaternions and the body angular velocities (rods.spatial_double_pendulum_reference); compiled
    as the chain of two rods, which it is (x1 = R1 c, x2 = R1 d + R2 c with c = -X11 = -X21, d = X12 - X11)."""
    d1 = X12 - X11
    Jblk = np.zeros((6, 6))
    Jblk[:3, :3] = J
    Jblk[3:, 3:] = J
    grav = m * g * np.concatenate((E3, E3))

    def f(_t, y):
        q1, q2, W1, W2 = y[0:4], y[4:8], y[8:11], y[11:14]
        Ra, Rb = quat_to_matrix(q1), quat_to_matrix(q2)
        A = np.zeros((6, 6))
        A[:3, :3] = Ra @ hat(X11)
        A[3:, :3] = -Ra @ hat(d1)
        A[3:, 3:] = Rb @ hat(X21)
        c1 = -Ra @ np.cross(W1, np.cross(W1, X11))
        c2 = Ra @ np.cross(W1, np.cross(W1, d1)) - Rb @ np.cross(W2, np.cross(W2, X21))
        M = m * (A.T @ A) + Jblk
        rhs = A.T @ (grav - m * np.concatenate((c1, c2)))
        rhs[:3] -= np.cross(W1, J @ W1)
        rhs[3:] -= np.cross(W2, J @ W2)
        dW = np.linalg.solve(M, rhs)
        return np.concatenate((_quat_rate(q1, W1), _quat_rate(q2, W2), dW))

    if not (np.allclose(X11, X21) and np.allclose(X12, -X11)):  # pragma: no cover - the benchmark's rods are so
        raise ValueError("the compiled form needs rods joined at their end points")
    return Problem(compiled.CHAIN, _chain_constants(2, m, J, -X11, d1, g), f)


def _chain_constants(N: int, m: float, J: np.ndarray, c: np.ndarray, d: np.ndarray, g: float) -> np.ndarray:
    return np.concatenate(([float(N), m, g], np.asarray(J, float).ravel(), c, d, hat(c).ravel(), hat(d).ravel()))


def chain(N: int, m: float, J: np.ndarray, c: np.ndarray, d: np.ndarray, g: float) -> Problem:
    """B7, N rods in N quaternions and N body angular velocities (rods.spatial_chain_reference)."""
    hat_c, hat_d = hat(c), hat(d)
    beyond = (N - 1 - np.arange(N)).astype(float)[:, None, None]
    j_lt_k = np.triu(np.ones((N, N), dtype=bool), 1)[:, :, None, None]
    j_eq_k = np.eye(N, dtype=bool)[:, :, None, None]
    Jblk = np.kron(np.eye(N), J)
    grav = m * g * E3

    def f(_t, y):
        q, W = y[: 4 * N].reshape(N, 4), y[4 * N :].reshape(N, 3)
        R = quat_to_matrix(q)
        P, Q = R @ hat_d, R @ hat_c
        PtS = np.einsum("jab,kac->jkbc", P, beyond * P + Q)
        diag = beyond * np.einsum("jab,jac->jbc", P, P) + np.einsum("jab,jac->jbc", Q, Q)
        blocks = np.where(j_lt_k, PtS, PtS.transpose(1, 0, 3, 2))
        blocks = np.where(j_eq_k, diag[:, None], blocks)
        M = m * blocks.transpose(0, 2, 1, 3).reshape(3 * N, 3 * N) + Jblk
        u = np.einsum("nij,nj->ni", R, np.cross(W, np.cross(W, d)))
        ac = np.cumsum(u, axis=0) - u + np.einsum("nij,nj->ni", R, np.cross(W, np.cross(W, c)))
        y_ = grav - m * ac  # (N, 3); A^T y_: -P_j^T sum_{i>j} y_i - Q_j^T y_j
        tail = np.cumsum(y_[::-1], axis=0)[::-1] - y_
        rhs = -np.einsum("jab,ja->jb", P, tail) - np.einsum("jab,ja->jb", Q, y_) - np.cross(W, W @ J.T)
        dW = np.linalg.solve(M, rhs.ravel())
        w, v = q[:, :1], q[:, 1:]
        dq = 0.5 * np.concatenate((-np.sum(v * W, axis=1, keepdims=True), w * W + np.cross(v, W)), axis=1)
        return np.concatenate((dq.ravel(), dW))

    return Problem(compiled.CHAIN, _chain_constants(N, m, J, c, d, g), f)
