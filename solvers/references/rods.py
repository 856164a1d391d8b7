"""Reference solutions of the rod benchmarks in minimal coordinates: B1 ``spatial_double_pendulum`` and B7
``spatial_chain`` (unit quaternions + body angular velocities, centres of mass from the joints, Kane's equations).

Part of :mod:`solvers.references.solutions` (which re-exports every name here); like it, this module imports
nothing else from ``solvers``.
"""

from __future__ import annotations

import numpy as np

from . import problems
from .common import _integrate, _times, _unit_quats, hat, quat_from_matrix, quat_to_matrix, rot_z


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
    problem = problems.spatial_double_pendulum(m, J, X11, X12, X21, g)
    y0 = np.concatenate((quat_from_matrix(R1), quat_from_matrix(R2), Omega1, Omega2))
    y = _integrate(problem, y0, t)
    n = t.size
    R = np.empty((n, 2, 3, 3))
    R[:, 0] = quat_to_matrix(_unit_quats(y[:, 0:4]))
    R[:, 1] = quat_to_matrix(_unit_quats(y[:, 4:8]))
    Omega = np.stack((y[:, 8:11], y[:, 11:14]), axis=1)
    # _sdp_kinematics for every sample at once: x = (-R1 X11, R1 X12 + x1 - R2 X21), v = A Omega
    x = np.empty((n, 2, 3))
    v = np.empty((n, 2, 3))
    R1s, R2s = R[:, 0], R[:, 1]
    x[:, 0] = -R1s @ X11
    x[:, 1] = R1s @ X12 + x[:, 0] - R2s @ X21
    v[:, 0] = np.einsum("nij,nj->ni", R1s, np.cross(X11, Omega[:, 0]))
    v[:, 1] = (-np.einsum("nij,nj->ni", R1s, np.cross(X12 - X11, Omega[:, 0]))
               + np.einsum("nij,nj->ni", R2s, np.cross(X21, Omega[:, 1])))
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
    t, N=8, rod_density=7850.0, rod_radius=0.05, rod_length=1.0, g=9.81, turn=0.5 * np.pi, *, R0=None, Omega0=None,
    rod_lengths=None, rod_masses=None,
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
    Equal rods only: ``rod_lengths`` / ``rod_masses`` (the benchmark's per-rod parameters) must be None.
    Returns dict R (n, N, 3, 3), x (n, N, 3), Omega (n, N, 3), v (n, N, 3).
    """
    t = _times(t)
    N = _chain_count(N)
    if rod_lengths is not None or rod_masses is not None:
        raise ValueError("this reference is written for equal rods: rod_lengths and rod_masses must be None")
    if not (rod_density > 0 and rod_radius > 0 and rod_length > 0):
        raise ValueError("rod_density, rod_radius and rod_length must be positive")
    m, J, X_lo, X_hi, _ = spatial_double_pendulum_params(rod_density, rod_radius, rod_length)
    c, d = -X_lo, X_hi - X_lo
    problem = problems.chain(N, m, J, c, d, g)

    R0 = spatial_chain_initial_rotations(N, turn) if R0 is None else np.asarray(R0, dtype=float)
    Omega0 = np.zeros((N, 3)) if Omega0 is None else np.asarray(Omega0, dtype=float)
    if R0.shape != (N, 3, 3) or Omega0.shape != (N, 3):
        raise ValueError(f"R0 must have shape ({N}, 3, 3) and Omega0 ({N}, 3), got {R0.shape} and {Omega0.shape}")
    y0 = np.concatenate((np.concatenate([quat_from_matrix(Ri) for Ri in R0]), Omega0.ravel()))
    y = _integrate(problem, y0, t)
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
