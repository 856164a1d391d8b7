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

ODEs are integrated with DOP853 at rtol = atol = 1e-13 (:mod:`solvers.references.compiled`: SciPy's algorithm,
compiled with the right-hand sides of :mod:`solvers.references.problems`) and evaluated with its dense output at
the requested times. Every function takes a time array ``t`` (sorted, starting at 0).
The ``energy_*``, ``momentum_*`` and ``constraint_*`` helpers work on the mapped (solver-side) coordinates
and are independent of the minimal coordinates used for the integration.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation
from scipy.special import ellipj, ellipk, ellipkinc

from . import problems
from .common import (  # noqa: F401 (re-exported: the references' users read them from this module)
    ATOL,
    E3,
    RTOL,
    SQRT3,
    TooLongError,
    _integrate,
    _quat_rate,
    _times,
    _unit_quats,
    hat,
    quat_from_matrix,
    quat_to_matrix,
    rot_x,
    rot_y,
    rot_z,
    settings,
    vee,
)
from .rods import (
    angular_momentum_spatial_chain,
    constraint_jacobian_spatial_double_pendulum,
    constraint_spatial_chain,
    constraint_spatial_double_pendulum,
    energy_spatial_chain,
    energy_spatial_double_pendulum,
    momentum_spatial_double_pendulum,
    spatial_chain_initial_rotations,
    spatial_chain_reference,
    spatial_double_pendulum_params,
    spatial_double_pendulum_reference,
)


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
    y = _integrate(problems.planar(m * g * l / J), [theta0, omega0], t, rtol=rtol, atol=atol)
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

    return _integrate(problems.two_bars(M11, M22, a, G1, G2), [th1, th2, dth1, dth2], t)


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

    y = _integrate(problems.top(mg_rho, J), np.concatenate((quat_from_matrix(R0), Omega0)), t)
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
