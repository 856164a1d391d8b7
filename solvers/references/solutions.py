"""Independent reference solutions for the benchmarks B1-B7 of docs/benchmarks.md.

These references exist to judge the project's integrators (convergence order, conservation, the error charts),
so they are deliberately written in OTHER coordinates than the solvers use and import nothing else from
``solvers``:

* B3 ``planar_pendulum``: closed form with Jacobi elliptic functions (libration regime);
* B4 ``two_link_arm`` / B5 ``natural_double_pendulum``: Lagrange equations in the two absolute bar angles
  (2x2 mass matrix), mapped afterwards to absolute resp. natural coordinates;
* B2 ``pendulum_3d``: unit quaternion (scalar first) + body angular velocity;
* B1 ``spatial_double_pendulum``: two quaternions + the two body angular velocities (6 velocity unknowns),
  centres of mass from the joints, equations by Newton-Euler with the joint reactions eliminated
  (Jourdain's principle / Kane's equations), 6x6 mass matrix;
* B7 ``spatial_chain``: the same for N rods, N quaternions + N body angular velocities, 3N x 3N mass matrix;
* B6 ``angular_velocity``: exact formulas.

ODEs are integrated with ``scipy.integrate.solve_ivp`` (DOP853, rtol = atol = 1e-13) and evaluated with its
dense output at the requested times. Every function takes a time array ``t`` (sorted, starting at 0).
The ``energy_*``, ``momentum_*`` and ``constraint_*`` helpers work on the mapped (solver-side) coordinates
and are independent of the minimal coordinates used for the integration.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

import numpy as np
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation
from scipy.special import ellipj, ellipk, ellipkinc

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


def _integrate(rhs, y0, t: np.ndarray, rtol: float | None = None, atol: float | None = None) -> np.ndarray:
    """Integrate y' = rhs(t, y) with DOP853 and return y at the times t, shape (n, len(y0)) (tolerances and
    deadline from :func:`settings` unless given)."""
    y0 = np.asarray(y0, dtype=float)
    if t[-1] == 0.0:
        return np.repeat(y0[None, :], t.size, axis=0)
    tol, deadline = _CONTEXT.get()
    rtol = rtol or tol or RTOL
    atol = atol or tol or ATOL
    f = rhs
    if deadline is not None:
        calls = [0]

        def f(t_, y):
            calls[0] += 1
            if calls[0] % 200 == 0 and time.monotonic() > deadline:
                raise TooLongError(f"the reference integration passed its time budget at t = {t_:.4g} s")
            return rhs(t_, y)

    sol = solve_ivp(f, (0.0, float(t[-1])), y0, method="DOP853", rtol=rtol, atol=atol, dense_output=True)
    if not sol.success:  # pragma: no cover - would be a bug in the reference
        raise RuntimeError(f"reference integration failed: {sol.message}")
    y = sol.sol(t).T
    y[0] = y0
    return y


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


# ----------------------------------------------------------------------------------------------------------
# B3 planar pendulum: exact solution
# ----------------------------------------------------------------------------------------------------------
def planar_pendulum_exact(t, m=2.0, J=0.48, l=0.6, g=9.81, theta0=0.0, omega0=1.0):
    """Exact solution of J theta'' + m g l sin(theta) = 0 (theta from the downward vertical).

    Libration regime only: with w0^2 = m g l / J and k^2 = sin^2(theta0/2) + (omega0 / (2 w0))^2 < 1,
    sin(theta/2) = k sn(w0 t + u0 | k^2), dtheta/dt = 2 k w0 cn(w0 t + u0 | k^2), where the phase u0 has
    amplitude am(u0) = atan2(sin(theta0/2)/k, omega0/(2 k w0)). theta0 may lie outside (-pi, pi]: the
    solution then oscillates about the nearest multiple of 2 pi. Raises ValueError for k^2 >= 1
    (rotation or separatrix). Returns (theta, omega), each of shape (n,).
    """
    t = _times(t)
    if not (m > 0 and J > 0 and l > 0 and g > 0):
        raise ValueError(f"m, J, l, g must be positive, got m={m}, J={J}, l={l}, g={g}")
    w0 = np.sqrt(m * g * l / J)
    offset = 2.0 * np.pi * np.round(theta0 / (2.0 * np.pi))
    th = theta0 - offset  # in [-pi, pi]
    s_half = np.sin(0.5 * th)
    c_rate = omega0 / (2.0 * w0)
    k2 = s_half**2 + c_rate**2
    if k2 >= 1.0:
        raise ValueError(
            f"planar_pendulum_exact handles libration only: k^2 = {k2:.6g} >= 1 (rotation or separatrix) "
            f"for theta0={theta0}, omega0={omega0}"
        )
    if k2 == 0.0:
        return np.full(t.shape, float(theta0)), np.zeros(t.shape)
    k = np.sqrt(k2)
    phi = np.arctan2(s_half / k, c_rate / k)  # am(u0) in (-pi, pi]
    K = ellipk(k2)
    if abs(phi) <= 0.5 * np.pi:
        u0 = ellipkinc(phi, k2)
    elif phi > 0.0:  # am(2K - u) = pi - am(u)
        u0 = 2.0 * K - ellipkinc(np.pi - phi, k2)
    else:  # am(-2K - u) = -pi - am(u)
        u0 = -2.0 * K - ellipkinc(-np.pi - phi, k2)
    u = np.mod(w0 * t + u0, 4.0 * K)  # sn, cn have period 4K
    sn, cn, _dn, _ph = ellipj(u, k2)
    theta = 2.0 * np.arcsin(np.clip(k * sn, -1.0, 1.0)) + offset
    omega = 2.0 * k * w0 * cn
    return theta, omega


def planar_pendulum_ivp(t, m=2.0, J=0.48, l=0.6, g=9.81, theta0=0.0, omega0=1.0, rtol=None, atol=None):
    """The same problem by solve_ivp (DOP853), used to verify the closed form. Returns (theta, omega)."""
    t = _times(t)
    a = m * g * l / J

    def rhs(_t, y):
        return [y[1], -a * np.sin(y[0])]

    y = _integrate(rhs, [theta0, omega0], t, rtol=rtol, atol=atol)
    return y[:, 0], y[:, 1]


def energy_planar_pendulum(theta, omega, m=2.0, J=0.48, l=0.6, g=9.81):
    """E = J omega^2 / 2 - m g l cos(theta) (zero of U at the pivot height)."""
    return 0.5 * J * np.asarray(omega) ** 2 - m * g * l * np.cos(theta)


# ----------------------------------------------------------------------------------------------------------
# B4 / B5: planar chain of two uniform bars, minimal coordinates = absolute bar angles from +x
# ----------------------------------------------------------------------------------------------------------
def _two_bar_angles(t, m1, l1, m2, l2, g, th1, th2, dth1, dth2):
    """Integrate the Lagrange equations of two uniform bars (O fixed, gravity along -y).

    T = 1/2 M11 th1'^2 + 1/2 M22 th2'^2 + a cos(th1 - th2) th1' th2',
    M11 = m1 l1^2/3 + m2 l1^2, M22 = m2 l2^2/3, a = m2 l1 l2 / 2,
    U = g ((m1/2 + m2) l1 sin th1 + m2 l2/2 sin th2).
    Returns an array (n, 4) of [th1, th2, dth1, dth2].
    """
    t = _times(t)
    for name, val in (("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)):
        if not val > 0:
            raise ValueError(f"{name} must be positive, got {val}")
    J1, J2 = m1 * l1**2 / 12.0, m2 * l2**2 / 12.0
    M11 = J1 + m1 * l1**2 / 4.0 + m2 * l1**2
    M22 = J2 + m2 * l2**2 / 4.0
    a = 0.5 * m2 * l1 * l2
    G1 = g * (0.5 * m1 + m2) * l1
    G2 = g * 0.5 * m2 * l2

    def rhs(_t, y):
        q1, q2, w1, w2 = y
        d = q1 - q2
        c, s = np.cos(d), np.sin(d)
        f1 = -a * s * w2 * w2 - G1 * np.cos(q1)
        f2 = a * s * w1 * w1 - G2 * np.cos(q2)
        det = M11 * M22 - (a * c) ** 2
        return [w1, w2, (M22 * f1 - a * c * f2) / det, (M11 * f2 - a * c * f1) / det]

    return _integrate(rhs, [th1, th2, dth1, dth2], t)


def two_link_arm_reference(t, m1=1.0, l1=1.0, m2=2.0, l2=SQRT3, g=9.81, th1=0.0, th2=0.0, dth1=0.0, dth2=0.0):
    """B4 reference: q = [x1, y1, th1, x2, y2, th2] (centres of mass, absolute angles), qdot likewise.

    Returns (q (n, 6), qdot (n, 6)).
    """
    y = _two_bar_angles(t, m1, l1, m2, l2, g, th1, th2, dth1, dth2)
    a1, a2, w1, w2 = y.T
    c1, s1, c2, s2 = np.cos(a1), np.sin(a1), np.cos(a2), np.sin(a2)
    q = np.column_stack([0.5 * l1 * c1, 0.5 * l1 * s1, a1, l1 * c1 + 0.5 * l2 * c2, l1 * s1 + 0.5 * l2 * s2, a2])
    qdot = np.column_stack(
        [
            -0.5 * l1 * s1 * w1,
            0.5 * l1 * c1 * w1,
            w1,
            -l1 * s1 * w1 - 0.5 * l2 * s2 * w2,
            l1 * c1 * w1 + 0.5 * l2 * c2 * w2,
            w2,
        ]
    )
    return q, qdot


def energy_two_link_arm(q, qdot, m1=1.0, l1=1.0, m2=2.0, l2=SQRT3, g=9.81):
    """E in the absolute coordinates of B4 (diagonal mass matrix, U = g sum m_i y_i)."""
    q, qdot = np.asarray(q), np.asarray(qdot)
    J1, J2 = m1 * l1**2 / 12.0, m2 * l2**2 / 12.0
    T = 0.5 * (
        m1 * (qdot[..., 0] ** 2 + qdot[..., 1] ** 2)
        + J1 * qdot[..., 2] ** 2
        + m2 * (qdot[..., 3] ** 2 + qdot[..., 4] ** 2)
        + J2 * qdot[..., 5] ** 2
    )
    return T + g * (m1 * q[..., 1] + m2 * q[..., 4])


def constraint_two_link_arm(q, l1=1.0, l2=SQRT3):
    """Phi(q) of seed 001 eq. 19, shape (..., 4)."""
    q = np.asarray(q)
    x1, y1, a1, x2, y2, a2 = (q[..., i] for i in range(6))
    return np.stack(
        [
            x1 - 0.5 * l1 * np.cos(a1),
            y1 - 0.5 * l1 * np.sin(a1),
            x2 - 0.5 * l2 * np.cos(a2) - x1 - 0.5 * l1 * np.cos(a1),
            y2 - 0.5 * l2 * np.sin(a2) - y1 - 0.5 * l1 * np.sin(a1),
        ],
        axis=-1,
    )


def constraint_jacobian_two_link_arm(q, l1=1.0, l2=SQRT3):
    """G(q) = dPhi/dq, shape (..., 4, 6)."""
    q = np.asarray(q)
    a1, a2 = q[..., 2], q[..., 5]
    G = np.zeros((*q.shape[:-1], 4, 6))
    G[..., 0, 0] = 1.0
    G[..., 0, 2] = 0.5 * l1 * np.sin(a1)
    G[..., 1, 1] = 1.0
    G[..., 1, 2] = -0.5 * l1 * np.cos(a1)
    G[..., 2, 0] = -1.0
    G[..., 2, 2] = 0.5 * l1 * np.sin(a1)
    G[..., 2, 3] = 1.0
    G[..., 2, 5] = 0.5 * l2 * np.sin(a2)
    G[..., 3, 1] = -1.0
    G[..., 3, 2] = -0.5 * l1 * np.cos(a1)
    G[..., 3, 4] = 1.0
    G[..., 3, 5] = -0.5 * l2 * np.cos(a2)
    return G


def natural_double_pendulum_reference(t, m1=1.0, l1=2.0, m2=1.0, l2=3.0, g=9.81, th1=0.0, th2=0.0, dth1=0.0, dth2=0.0):
    """B5 reference: q = [x1, y1, x2, y2] (end O1 of bar 1, free end O2 of bar 2), qdot likewise.

    Returns (q (n, 4), qdot (n, 4)).
    """
    y = _two_bar_angles(t, m1, l1, m2, l2, g, th1, th2, dth1, dth2)
    a1, a2, w1, w2 = y.T
    c1, s1, c2, s2 = np.cos(a1), np.sin(a1), np.cos(a2), np.sin(a2)
    q = np.column_stack([l1 * c1, l1 * s1, l1 * c1 + l2 * c2, l1 * s1 + l2 * s2])
    qdot = np.column_stack([-l1 * s1 * w1, l1 * c1 * w1, -l1 * s1 * w1 - l2 * s2 * w2, l1 * c1 * w1 + l2 * c2 * w2])
    return q, qdot


def mass_matrix_natural_double_pendulum(m1=1.0, m2=1.0):
    """Constant 4x4 mass matrix in natural coordinates (O0 fixed): bar blocks m [[I/3, I/6], [I/6, I/3]]."""
    I2 = np.eye(2)
    M = np.zeros((4, 4))
    M[:2, :2] = (m1 / 3.0 + m2 / 3.0) * I2
    M[:2, 2:] = M[2:, :2] = m2 / 6.0 * I2
    M[2:, 2:] = m2 / 3.0 * I2
    return M


def force_natural_double_pendulum(m1=1.0, m2=1.0, g=9.81):
    """Generalised gravity force -dU/dq, U = g (m1 (y0 + y1)/2 + m2 (y1 + y2)/2)."""
    return np.array([0.0, -0.5 * g * (m1 + m2), 0.0, -0.5 * g * m2])


def energy_natural_double_pendulum(q, qdot, m1=1.0, m2=1.0, g=9.81):
    """E with the constant natural-coordinate mass matrix."""
    q, qdot = np.asarray(q), np.asarray(qdot)
    M = mass_matrix_natural_double_pendulum(m1, m2)
    T = 0.5 * np.einsum("...i,ij,...j->...", qdot, M, qdot)
    return T - q @ force_natural_double_pendulum(m1, m2, g)


def constraint_natural_double_pendulum(q, l1=2.0, l2=3.0):
    """Phi = [|O1|^2 - l1^2, |O2 - O1|^2 - l2^2], shape (..., 2)."""
    q = np.asarray(q)
    d1, d2 = q[..., :2], q[..., 2:] - q[..., :2]
    return np.stack([np.sum(d1 * d1, -1) - l1**2, np.sum(d2 * d2, -1) - l2**2], axis=-1)


def constraint_jacobian_natural_double_pendulum(q):
    """G(q), shape (..., 2, 4)."""
    q = np.asarray(q)
    d1, d2 = q[..., :2], q[..., 2:] - q[..., :2]
    G = np.zeros((*q.shape[:-1], 2, 4))
    G[..., 0, :2] = 2.0 * d1
    G[..., 1, :2] = -2.0 * d2
    G[..., 1, 2:] = 2.0 * d2
    return G


# ----------------------------------------------------------------------------------------------------------
# B2 heavy top on a fixed pivot: quaternion + body angular velocity
# ----------------------------------------------------------------------------------------------------------
def _pendulum_3d_params(m, J, rho, R0, cardan0, Omega0):
    J = np.diag([1.0, 1.0, 1.0]) if J is None else np.asarray(J, dtype=float)
    rho = np.array([0.0, 0.0, 0.7]) if rho is None else np.asarray(rho, dtype=float)
    Omega0 = np.zeros(3) if Omega0 is None else np.asarray(Omega0, dtype=float)
    if R0 is None:
        a, b, c = cardan0
        R0 = rot_x(a) @ rot_y(b) @ rot_z(c)
    R0 = np.asarray(R0, dtype=float)
    if J.shape != (3, 3) or rho.shape != (3,) or Omega0.shape != (3,) or R0.shape != (3, 3):
        raise ValueError("J and R0 must be 3x3, rho and Omega0 3-vectors")
    return m, J, rho, R0, Omega0


def pendulum_3d_reference(
    t, m=10.0, J=None, rho=None, g=9.81, R0=None, cardan0=(np.pi / 3, np.pi / 4, np.pi / 9), Omega0=(0, 0, 0)
):
    """B2 reference: J dOmega/dt + Omega x J Omega = m g rho x (R^T e3), dR/dt = R hat(Omega).

    J (about the pivot) defaults to diag(1, 1, 1), rho to [0, 0, 0.7]; R0 defaults to
    Rx(a) Ry(b) Rz(c) with (a, b, c) = cardan0. Integrated with a unit quaternion (scalar first),
    normalised only at output. Returns (R (n, 3, 3), Omega (n, 3)).
    """
    t = _times(t)
    m, J, rho, R0, Omega0 = _pendulum_3d_params(m, J, rho, R0, cardan0, Omega0)
    mg_rho = m * g * rho

    def rhs(_t, y):
        q, W = y[:4], y[4:]
        R = quat_to_matrix(q)
        torque = np.cross(mg_rho, R[2]) - np.cross(W, J @ W)  # R^T e3 = third row of R
        return np.concatenate((_quat_rate(q, W), np.linalg.solve(J, torque)))

    y = _integrate(rhs, np.concatenate((quat_from_matrix(R0), Omega0)), t)
    return quat_to_matrix(_unit_quats(y[:, :4])), y[:, 4:].copy()


def energy_pendulum_3d(R, Omega, m=10.0, J=None, rho=None, g=9.81):
    """E = 1/2 Omega . J Omega - m g e3 . R rho."""
    J = np.eye(3) if J is None else np.asarray(J, dtype=float)
    rho = np.array([0.0, 0.0, 0.7]) if rho is None else np.asarray(rho, dtype=float)
    T = 0.5 * np.einsum("...i,ij,...j->...", Omega, J, Omega)
    return T - m * g * (np.asarray(R)[..., 2, :] @ rho)


def momentum_pendulum_3d(R, Omega, J=None):
    """Angular momentum about the vertical through the pivot, e3 . R J Omega."""
    J = np.eye(3) if J is None else np.asarray(J, dtype=float)
    return np.einsum("...i,...i->...", np.asarray(R)[..., 2, :], np.asarray(Omega) @ J.T)


# ----------------------------------------------------------------------------------------------------------
# B1 spatial double pendulum: two quaternions + two body angular velocities
# ----------------------------------------------------------------------------------------------------------
def spatial_double_pendulum_params(rod_density=7850.0, rod_radius=0.05, rod_length=1.0):
    """(m, J, X11, X12, X21): rod mass, body inertia about the CoM, joint points in the body frames."""
    r, l = rod_radius, rod_length
    m = rod_density * np.pi * r**2 * l
    Jt = m * (3.0 * r**2 + l**2) / 12.0
    J = np.diag([Jt, 0.5 * m * r**2, Jt])
    X11 = np.array([0.0, -0.5 * l, 0.0])
    X12 = np.array([0.0, 0.5 * l, 0.0])
    X21 = np.array([0.0, -0.5 * l, 0.0])
    return m, J, X11, X12, X21


def _sdp_kinematics(R1, R2, X11, X12, X21):
    """Positions of the centres of mass and the 6x6 map A with [v1; v2] = A [Omega1; Omega2]."""
    d1 = X12 - X11
    x1 = -R1 @ X11
    x2 = R1 @ X12 + x1 - R2 @ X21
    A = np.zeros((6, 6))
    A[:3, :3] = R1 @ hat(X11)
    A[3:, :3] = -R1 @ hat(d1)
    A[3:, 3:] = R2 @ hat(X21)
    return x1, x2, A


def spatial_double_pendulum_reference(
    t, rod_density=7850.0, rod_radius=0.05, rod_length=1.0, g=9.81, R1=None, R2=None, Omega1=None, Omega2=None
):
    """B1 reference in minimal coordinates (two quaternions, Omega1, Omega2).

    Kinematics: x1 = -R1 X11, x2 = R1 (X12 - X11) - R2 X21;
    v1 = R1 hat(X11) Omega1, v2 = -R1 hat(X12 - X11) Omega1 + R2 hat(X21) Omega2, i.e. v = A(R) Omega.
    Dynamics (Jourdain/Kane, ideal joints): (m A^T A + diag(J, J)) dOmega/dt
        = A^T (m g e3 - m c) - [Omega1 x J Omega1; Omega2 x J Omega2],
    c the velocity-dependent part of the CoM accelerations:
    c1 = -R1 (Omega1 x (Omega1 x X11)),
    c2 = R1 (Omega1 x (Omega1 x (X12 - X11))) - R2 (Omega2 x (Omega2 x X21)).
    Returns dict R (n, 2, 3, 3), x (n, 2, 3), Omega (n, 2, 3), v (n, 2, 3).
    """
    t = _times(t)
    if not (rod_density > 0 and rod_radius > 0 and rod_length > 0):
        raise ValueError("rod_density, rod_radius and rod_length must be positive")
    m, J, X11, X12, X21 = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    R1 = np.eye(3) if R1 is None else np.asarray(R1, dtype=float)
    R2 = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]) if R2 is None else np.asarray(R2, float)
    Omega1 = np.zeros(3) if Omega1 is None else np.asarray(Omega1, dtype=float)
    Omega2 = np.zeros(3) if Omega2 is None else np.asarray(Omega2, dtype=float)
    d1 = X12 - X11
    Jblk = np.zeros((6, 6))
    Jblk[:3, :3] = J
    Jblk[3:, 3:] = J
    grav = m * g * np.concatenate((E3, E3))

    def rhs(_t, y):
        q1, q2, W1, W2 = y[0:4], y[4:8], y[8:11], y[11:14]
        Ra, Rb = quat_to_matrix(q1), quat_to_matrix(q2)
        _x1, _x2, A = _sdp_kinematics(Ra, Rb, X11, X12, X21)
        c1 = -Ra @ np.cross(W1, np.cross(W1, X11))
        c2 = Ra @ np.cross(W1, np.cross(W1, d1)) - Rb @ np.cross(W2, np.cross(W2, X21))
        M = m * (A.T @ A) + Jblk
        f = A.T @ (grav - m * np.concatenate((c1, c2)))
        f[:3] -= np.cross(W1, J @ W1)
        f[3:] -= np.cross(W2, J @ W2)
        dW = np.linalg.solve(M, f)
        return np.concatenate((_quat_rate(q1, W1), _quat_rate(q2, W2), dW))

    y0 = np.concatenate((quat_from_matrix(R1), quat_from_matrix(R2), Omega1, Omega2))
    y = _integrate(rhs, y0, t)
    n = t.size
    R = np.empty((n, 2, 3, 3))
    R[:, 0] = quat_to_matrix(_unit_quats(y[:, 0:4]))
    R[:, 1] = quat_to_matrix(_unit_quats(y[:, 4:8]))
    Omega = np.stack((y[:, 8:11], y[:, 11:14]), axis=1)
    x = np.empty((n, 2, 3))
    v = np.empty((n, 2, 3))
    for i in range(n):
        x[i, 0], x[i, 1], A = _sdp_kinematics(R[i, 0], R[i, 1], X11, X12, X21)
        v[i] = (A @ Omega[i].reshape(6)).reshape(2, 3)
    return {"R": R, "x": x, "Omega": Omega, "v": v}


def energy_spatial_double_pendulum(R, x, Omega, v, rod_density=7850.0, rod_radius=0.05, rod_length=1.0, g=9.81):
    """E = sum_i 1/2 m |v_i|^2 + 1/2 Omega_i . J Omega_i - m g e3 . x_i; arrays (..., 2, 3[, 3])."""
    del R
    m, J, *_ = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    Omega, v, x = np.asarray(Omega), np.asarray(v), np.asarray(x)
    T = 0.5 * m * np.sum(v * v, axis=(-2, -1)) + 0.5 * np.einsum("...ki,ij,...kj->...", Omega, J, Omega)
    return T - m * g * np.sum(x[..., 2], axis=-1)


def momentum_spatial_double_pendulum(R, x, Omega, v, rod_density=7850.0, rod_radius=0.05, rod_length=1.0):
    """e3 . sum_i (x_i x m v_i + R_i J Omega_i)."""
    m, J, *_ = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    R, x, Omega, v = (np.asarray(a) for a in (R, x, Omega, v))
    orbital = m * np.cross(x, v)[..., 2]
    spin = np.einsum("...kj,...kj->...k", R[..., 2, :], Omega @ J.T)
    return np.sum(orbital + spin, axis=-1)


def constraint_spatial_double_pendulum(R, x, rod_length=1.0):
    """[Phi1, Phi2] (seed 000 eq. 24), shape (..., 6)."""
    _m, _J, X11, X12, X21 = spatial_double_pendulum_params(1.0, 1.0, rod_length)
    R, x = np.asarray(R), np.asarray(x)
    phi1 = R[..., 0, :, :] @ X11 + x[..., 0, :]
    phi2 = R[..., 0, :, :] @ X12 + x[..., 0, :] - R[..., 1, :, :] @ X21 - x[..., 1, :]
    return np.concatenate((phi1, phi2), axis=-1)


def constraint_jacobian_spatial_double_pendulum(R, rod_length=1.0):
    """G (..., 6, 12) with dPhi/dt = G [v1, Omega1, v2, Omega2]."""
    _m, _J, X11, X12, X21 = spatial_double_pendulum_params(1.0, 1.0, rod_length)
    R = np.asarray(R)
    G = np.zeros((*R.shape[:-3], 6, 12))
    eye = np.eye(3)
    G[..., :3, 0:3] = eye
    G[..., :3, 3:6] = -R[..., 0, :, :] @ hat(X11)
    G[..., 3:, 0:3] = eye
    G[..., 3:, 3:6] = -R[..., 0, :, :] @ hat(X12)
    G[..., 3:, 6:9] = -eye
    G[..., 3:, 9:12] = R[..., 1, :, :] @ hat(X21)
    return G


# ----------------------------------------------------------------------------------------------------------
# B7 spatial chain: N quaternions + N body angular velocities
# ----------------------------------------------------------------------------------------------------------
def spatial_chain_initial_rotations(N: int, turn: float = 0.5 * np.pi) -> np.ndarray:
    """Rod i turned about e3 by i turn / (N - 1), entries below 1e-15 set to 0 (exact at multiples of 90 deg);
    shape (N, 3, 3)."""
    R = np.array([rot_z(i * turn / (N - 1)) for i in range(N)])
    R[np.abs(R) < 1e-15] = 0.0
    return R


def _chain_count(N) -> int:
    if isinstance(N, bool) or float(N) != round(float(N)) or not 2 <= round(float(N)) <= 64:
        raise ValueError(f"N must be a whole number of rods from 2 to 64, got {N!r}")
    return round(float(N))


def _chain_positions(R: np.ndarray, d: np.ndarray, c: np.ndarray) -> np.ndarray:
    """x_i = sum_{j<i} R_j d + R_i c for R (..., N, 3, 3): centres of mass (..., N, 3)."""
    Rd, Rc = R @ d, R @ c
    return np.cumsum(Rd, axis=-2) - Rd + Rc


def _chain_velocities(R: np.ndarray, Omega: np.ndarray, d: np.ndarray, c: np.ndarray) -> np.ndarray:
    """v_i = sum_{j<i} R_j (Omega_j x d) + R_i (Omega_i x c): the time derivative of :func:`_chain_positions`."""
    u = np.einsum("...ij,...j->...i", R, np.cross(Omega, d))
    w = np.einsum("...ij,...j->...i", R, np.cross(Omega, c))
    return np.cumsum(u, axis=-2) - u + w


def spatial_chain_reference(
    t, N=8, rod_density=7850.0, rod_radius=0.05, rod_length=1.0, g=9.81, turn=0.5 * np.pi, *, R0=None, Omega0=None
):
    """B7 reference in minimal coordinates (N quaternions, N body angular velocities).

    Rod i (i = 0..N-1) is joined at its lower point -c to the upper point of rod i-1 (rod 0: to O), with
    c = [0, l/2, 0] and the rod vector d = 2c, so x_i = sum_{j<i} R_j d + R_i c and v = A(R) Omega with the
    block lower-triangular A: A_ij = -R_j hat(d) (j < i), A_ii = -R_i hat(c).
    Dynamics (Jourdain/Kane, ideal joints), a 3N x 3N system:
        (m A^T A + diag(J, ..., J)) dOmega/dt = A^T (m g e3 - m a_c) - [Omega_i x J Omega_i]_i,
    a_c the velocity-dependent part of the centres' accelerations,
    a_c,i = sum_{j<i} R_j (Omega_j x (Omega_j x d)) + R_i (Omega_i x (Omega_i x c)).
    A^T A is formed block by block: with P_j = R_j hat(d), Q_j = R_j hat(c) and n_k = N - 1 - k rods beyond k,
    (A^T A)_jk = P_j^T (n_k P_k + Q_k) for j < k, n_j P_j^T P_j + Q_j^T Q_j for j = k (symmetric).
    The benchmark's start: the rotations of :func:`spatial_chain_initial_rotations`, at rest (N = 2, turn = pi/2:
    the B1 problem); ``R0`` (N, 3, 3) and ``Omega0`` (N, 3) give any other (the benchmark has no such parameters;
    the tests use them to spin the rods about their axes, which the gyroscopic terms need).
    Returns dict R (n, N, 3, 3), x (n, N, 3), Omega (n, N, 3), v (n, N, 3).
    """
    t = _times(t)
    N = _chain_count(N)
    if not (rod_density > 0 and rod_radius > 0 and rod_length > 0):
        raise ValueError("rod_density, rod_radius and rod_length must be positive")
    m, J, X_lo, X_hi, _ = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    c, d = -X_lo, X_hi - X_lo
    hat_c, hat_d = hat(c), hat(d)
    beyond = (N - 1 - np.arange(N)).astype(float)[:, None, None]
    j_lt_k = np.triu(np.ones((N, N), dtype=bool), 1)[:, :, None, None]
    j_eq_k = np.eye(N, dtype=bool)[:, :, None, None]
    Jblk = np.kron(np.eye(N), J)
    grav = m * g * E3

    def rhs(_t, y):
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
        f = -np.einsum("jab,ja->jb", P, tail) - np.einsum("jab,ja->jb", Q, y_) - np.cross(W, W @ J.T)
        dW = np.linalg.solve(M, f.ravel())
        w, v = q[:, :1], q[:, 1:]
        dq = 0.5 * np.concatenate((-np.sum(v * W, axis=1, keepdims=True), w * W + np.cross(v, W)), axis=1)
        return np.concatenate((dq.ravel(), dW))

    R0 = spatial_chain_initial_rotations(N, turn) if R0 is None else np.asarray(R0, dtype=float)
    Omega0 = np.zeros((N, 3)) if Omega0 is None else np.asarray(Omega0, dtype=float)
    if R0.shape != (N, 3, 3) or Omega0.shape != (N, 3):
        raise ValueError(f"R0 must have shape ({N}, 3, 3) and Omega0 ({N}, 3), got {R0.shape} and {Omega0.shape}")
    y0 = np.concatenate((np.concatenate([quat_from_matrix(Ri) for Ri in R0]), Omega0.ravel()))
    y = _integrate(rhs, y0, t)
    n = t.size
    R = quat_to_matrix(_unit_quats(y[:, : 4 * N].reshape(n, N, 4)))
    R[0] = R0  # exactly the benchmark's start (the quaternion round trip costs a few ulp)
    Omega = y[:, 4 * N :].reshape(n, N, 3).copy()
    return {"R": R, "x": _chain_positions(R, d, c), "Omega": Omega, "v": _chain_velocities(R, Omega, d, c)}


def energy_spatial_chain(R, x, Omega, v, rod_density=7850.0, rod_radius=0.05, rod_length=1.0, g=9.81):
    """E = sum_i 1/2 m |v_i|^2 + 1/2 Omega_i . J Omega_i - m g e3 . x_i; arrays (..., N, 3[, 3])."""
    return energy_spatial_double_pendulum(R, x, Omega, v, rod_density, rod_radius, rod_length, g)


def angular_momentum_spatial_chain(R, x, Omega, v, rod_density=7850.0, rod_radius=0.05, rod_length=1.0):
    """Total angular momentum about O, sum_i (x_i x m v_i + R_i J Omega_i), shape (..., 3)."""
    m, J, *_ = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    R, x, Omega, v = (np.asarray(a) for a in (R, x, Omega, v))
    spin = np.einsum("...kij,...kj->...ki", R, Omega @ J.T)
    return np.sum(m * np.cross(x, v) + spin, axis=-2)


def constraint_spatial_chain(R, x, rod_length=1.0):
    """The N joint residuals stacked (joint 0 at O, joint i between rods i-1 and i), shape (..., 3N)."""
    _m, _J, X_lo, X_hi, _ = spatial_double_pendulum_params(1.0, 1.0, rod_length)
    R, x = np.asarray(R), np.asarray(x)
    lower = x + R @ X_lo
    upper = x + R @ X_hi
    upper = np.concatenate((np.zeros_like(upper[..., :1, :]), upper[..., :-1, :]), axis=-2)  # O, then rod i-1
    return (lower - upper).reshape(*R.shape[:-3], -1)


# ----------------------------------------------------------------------------------------------------------
# B6 angular velocity test function (seed 002)
# ----------------------------------------------------------------------------------------------------------
def angular_velocity_theta(t):
    """theta(t) and dtheta/dt, each (n, 3)."""
    t = np.asarray(t, dtype=float)
    theta = np.stack(
        [np.sin(20.0 * t) ** 2 + 10.0 * np.sin(t), 5.0 * t, np.sin(t) + 0.08 * (np.cos(100.0 * t) - 1.0)], axis=-1
    )
    dtheta = np.stack(
        [20.0 * np.sin(40.0 * t) + 10.0 * np.cos(t), np.full(t.shape, 5.0), np.cos(t) - 8.0 * np.sin(100.0 * t)],
        axis=-1,
    )
    return theta, dtheta


def left_jacobian_so3(theta) -> np.ndarray:
    """T(theta) = I + (1 - cos v)/v^2 hat(theta) + (v - sin v)/v^3 hat(theta)^2 (series for small v)."""
    theta = np.asarray(theta, dtype=float)
    v = np.linalg.norm(theta, axis=-1)
    small = v < 1e-3
    vs = np.where(small, 1.0, v)
    v2 = v * v
    a = np.where(small, 0.5 - v2 / 24.0 + v2 * v2 / 720.0, (1.0 - np.cos(vs)) / vs**2)
    b = np.where(small, 1.0 / 6.0 - v2 / 120.0 + v2 * v2 / 5040.0, (vs - np.sin(vs)) / vs**3)
    H = hat(theta)
    return np.eye(3) + a[..., None, None] * H + b[..., None, None] * (H @ H)


def angular_velocity_exact(t):
    """B6: theta (n, 3), R = exp(hat(theta)) (n, 3, 3), spatial omega = T(theta) dtheta/dt (n, 3)."""
    t = _times(t)
    theta, dtheta = angular_velocity_theta(t)
    R = Rotation.from_rotvec(theta).as_matrix()
    omega = np.einsum("nij,nj->ni", left_jacobian_so3(theta), dtheta)
    return theta, R, omega


__all__ = [
    "angular_momentum_spatial_chain",
    "angular_velocity_exact",
    "angular_velocity_theta",
    "constraint_jacobian_natural_double_pendulum",
    "constraint_jacobian_spatial_double_pendulum",
    "constraint_jacobian_two_link_arm",
    "constraint_natural_double_pendulum",
    "constraint_spatial_chain",
    "constraint_spatial_double_pendulum",
    "constraint_two_link_arm",
    "energy_natural_double_pendulum",
    "energy_pendulum_3d",
    "energy_planar_pendulum",
    "energy_spatial_chain",
    "energy_spatial_double_pendulum",
    "energy_two_link_arm",
    "force_natural_double_pendulum",
    "hat",
    "left_jacobian_so3",
    "mass_matrix_natural_double_pendulum",
    "momentum_pendulum_3d",
    "momentum_spatial_double_pendulum",
    "natural_double_pendulum_reference",
    "pendulum_3d_reference",
    "planar_pendulum_exact",
    "planar_pendulum_ivp",
    "quat_from_matrix",
    "quat_to_matrix",
    "rot_x",
    "rot_y",
    "rot_z",
    "spatial_chain_initial_rotations",
    "spatial_chain_reference",
    "spatial_double_pendulum_params",
    "spatial_double_pendulum_reference",
    "two_link_arm_reference",
    "vee",
]
