"""Rigid bodies on SO(3) x R^3 (free) or SO(3) (pinned), joined by spherical joints: the spatial machinery.

State layout (flat; body i starts at ``y_off[i]``):
- a free body (18 entries): R (9, row-major; body to world), x (3; centre of mass), Omega (3; body angular
  velocity, dR/dt = R hat(Omega)), v (3; world velocity of the centre of mass);
- a pinned body (12 entries), a body turning about a fixed world point (the pivot): R (9), Omega (3). Its
  inertia is the inertia ABOUT THE PIVOT and rho the body vector from the pivot to its centre of mass; gravity
  enters as its moment about the pivot, m rho x (R^T g) (seed 004 eq. 68 for g along e3). No translation state,
  no joint: Euler's equations about a fixed point (docs/algorithms.md section 3).
The Lie-algebra velocity vector w has 6 entries per free body [Omega, v] and 3 per pinned body [Omega], body i
starting at ``v_off[i]``.

A joint k couples the point ``a`` of body ``i`` (body frame) with the point ``b`` of body ``j`` (body frame),
or with the fixed world point ``b`` when ``j = -1``: Phi_k = x_i + R_i a - x_j - R_j b (seed 000 eq. 24).
Its Jacobian in the Lie-algebra sense (seed 000 Table 1, docs/algorithms.md section 0):
B_Omega_i = -R_i hat(a), B_v_i = I, B_Omega_j = R_j hat(b), B_v_j = -I. Joints join free bodies only.

The model data handed to kernels is the named tuple :class:`solvers.models.rigid_data.RigidData` (its fields
documented there), read by field name. The joints' topology is one int array, not four: every array of the tuple
costs the kernels time in every step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from .. import lie
from ..jit import python_function
from ..kernels import part
from .joints import (  # noqa: F401 (re-exported: the kernels call them as rigid.*)
    band_of,
    constraint_force_derivative,
    constraint_jacobian,
    constraint_residual,
    rot_hat_row,
    times_tangent,
    topology,
    transpose_times,
    velocity_constraint_jacobian,
)
from .rigid_data import RigidData

BODY = 18  # state entries per free body
PINNED_BODY = 12  # state entries per pinned body


def make_data(
    mass: Sequence[float],
    inertia: Sequence[np.ndarray],
    gravity: np.ndarray,
    joints: Sequence[tuple[int, Sequence[float], int, Sequence[float]]],
    momentum_axis: Sequence[float] = (0.0, 0.0, 1.0),
    pinned: Sequence[tuple[Sequence[float], Sequence[float]] | None] | None = None,
) -> RigidData:
    """Pack bodies and joints (i, a, j, b) into the kernels' named tuple.

    ``pinned[i]`` is None for a free body or (pivot, rho) for a body turning about the fixed world point pivot,
    rho the body vector from the pivot to its centre of mass; its ``inertia[i]`` is then about the pivot.
    """
    n = len(mass)
    pinned = [None] * n if pinned is None else list(pinned)
    if len(pinned) != n:
        raise ValueError(f"pinned: expected {n} entries (one per body), got {len(pinned)}")
    for k, (i, _, j, _) in enumerate(joints):
        if pinned[i] is not None or (j >= 0 and pinned[j] is not None):
            raise ValueError(f"joint {k}: joints join free bodies only (a pinned body has its pivot)")
    jb = np.array([[i, j] for i, _, j, _ in joints], dtype=np.int64).reshape(-1, 2)
    jp = np.array([[a, b] for _, a, _, b in joints], dtype=float).reshape(-1, 2, 3)
    flag = np.array([0 if p is None else 1 for p in pinned], dtype=np.int64)
    pivot = np.array([np.zeros(3) if p is None else p[0] for p in pinned], dtype=float).reshape(-1, 3)
    com = np.array([np.zeros(3) if p is None else p[1] for p in pinned], dtype=float).reshape(-1, 3)
    y_off = np.concatenate(([0], np.cumsum(np.where(flag == 1, PINNED_BODY, BODY)))).astype(np.int64)
    width = max(2 * len(joints), 1)
    ninc = np.zeros(n, dtype=np.int64)
    incj = np.zeros((n, width), dtype=np.int64)
    incs = np.zeros_like(incj)
    topology(jb, n, ninc, incj, incs)
    topo = np.zeros((n + 1, 1 + 2 * width), dtype=np.int64)
    topo[:n, 0] = ninc
    topo[:n, 1 : 1 + width] = incj
    topo[:n, 1 + width :] = incs
    topo[n, 0] = band_of(jb, n)
    v_off = np.concatenate(([0], np.cumsum(np.where(flag == 1, 3, 6)))).astype(np.int64)
    return RigidData(
        np.asarray(mass, dtype=float),
        np.ascontiguousarray(np.array(inertia, dtype=float).reshape(-1, 3, 3)),
        np.asarray(gravity, dtype=float),
        jb,
        jp,
        np.asarray(momentum_axis, dtype=float),
        flag,
        np.ascontiguousarray(pivot),
        np.ascontiguousarray(com),
        y_off,
        v_off,
        _inverse_inertia(inertia),
        topo,
    )


def _inverse_inertia(inertia: Sequence[np.ndarray]) -> np.ndarray:
    """J_i^-1 (N,3,3) for the right-hand side's Schur complement (rhs); NaN for a singular J_i, which rhs reports
    as a singular system."""
    J = np.array(inertia, dtype=float).reshape(-1, 3, 3)
    out = np.full_like(J, np.nan)
    for i, Ji in enumerate(J):
        if np.all(np.isfinite(Ji)) and np.linalg.cond(Ji) < 1e12:
            out[i] = np.linalg.inv(Ji)
    return out


def omega_offset(data: RigidData, i: int) -> int:
    """Index of body i's Omega in the flat state (y_off + 12 for a free body, + 9 for a pinned one)."""
    return int(data.y_off[i]) + (9 if data.pinned[i] else 12)


def place_bodies(data: RigidData, R: Sequence[np.ndarray], Omega: Sequence[np.ndarray]) -> np.ndarray:
    """Initial state from rotations and body angular velocities: positions and velocities follow from joints.

    Joints must be listed in tree order: each joint attaches a new body ``i`` to the ground or to a body
    already placed; a pinned body is placed by its pivot. Returns the flat state.
    """
    mass, jb, jp, pinned, y_off = data.mass, data.joint_bodies, data.joint_points, data.pinned, data.y_off
    n = mass.shape[0]
    y = np.zeros(int(y_off[-1]))
    placed = [bool(p) for p in pinned]
    for i in range(n):
        o = int(y_off[i])
        y[o : o + 9] = np.asarray(R[i], dtype=float).ravel()
        w = omega_offset(data, i)
        y[w : w + 3] = np.asarray(Omega[i], dtype=float)
    for k in range(jb.shape[0]):
        i, j = int(jb[k, 0]), int(jb[k, 1])
        a, b = jp[k, 0], jp[k, 1]
        if j >= 0 and not placed[j]:
            raise ValueError(f"joint {k}: body {j} is not placed yet (list joints in tree order)")
        oi = int(y_off[i])
        Ri = y[oi : oi + 9].reshape(3, 3)
        Wi = y[oi + 12 : oi + 15]
        if j < 0:
            pj, vj = b, np.zeros(3)
        else:
            oj = int(y_off[j])
            Rj = y[oj : oj + 9].reshape(3, 3)
            Wj = y[oj + 12 : oj + 15]
            pj = y[oj + 9 : oj + 12] + Rj @ b
            vj = y[oj + 15 : oj + 18] + Rj @ np.cross(Wj, b)
        y[oi + 9 : oi + 12] = pj - Ri @ a
        y[oi + 15 : oi + 18] = vj - Ri @ np.cross(Wi, a)
        placed[i] = True
    if not all(placed):
        raise ValueError("every body must be attached by a joint or pinned")
    return y


def unpack(data: RigidData, states: np.ndarray) -> dict[str, np.ndarray]:
    """Split saved states into R (n,N,3,3) and Omega (n,N,3); x and v (n,N,3) too when every body is free."""
    n_bodies = data.mass.shape[0]
    if not data.pinned.any():
        s = states.reshape(states.shape[0], n_bodies, BODY)
        return {
            "R": s[:, :, 0:9].reshape(-1, n_bodies, 3, 3),
            "x": s[:, :, 9:12],
            "Omega": s[:, :, 12:15],
            "v": s[:, :, 15:18],
        }
    y_off = data.y_off
    R = np.stack([states[:, y_off[i] : y_off[i] + 9] for i in range(n_bodies)], axis=1)
    W = np.stack([states[:, omega_offset(data, i) : omega_offset(data, i) + 3] for i in range(n_bodies)], axis=1)
    return {"R": R.reshape(-1, n_bodies, 3, 3), "Omega": W}


def system_size(data: RigidData) -> int:
    """Size of the saddle-point system: the velocity unknowns (6 per free, 3 per pinned body) + 3 per joint."""
    return int(data.v_off[-1]) + 3 * data.joint_bodies.shape[0]


@njit(cache=True, inline="always")
def gravity_moment(data: RigidData, y: np.ndarray, i: int) -> tuple:
    """m rho x (R^T g), the moment of gravity about the pivot of the pinned body i, in the body frame.

    Seed 004 eq. 68 (g = g e3: m g rho x R^T e3); minus the rotational part of grad U, U = -m g.(pivot + R rho).
    """
    o = data.y_off[i]
    com = data.com  # indexed, not viewed: no per-call array view in the callers' loops
    g = data.gravity
    m = data.mass[i]
    r0 = com[i, 0]
    r1 = com[i, 1]
    r2 = com[i, 2]
    u0 = y[o] * g[0] + y[o + 3] * g[1] + y[o + 6] * g[2]  # u = R^T g
    u1 = y[o + 1] * g[0] + y[o + 4] * g[1] + y[o + 7] * g[2]
    u2 = y[o + 2] * g[0] + y[o + 5] * g[1] + y[o + 8] * g[2]
    return (m * (r1 * u2 - r2 * u1), m * (r2 * u0 - r0 * u2), m * (r0 * u1 - r1 * u0))


@njit(cache=True, inline="always")
def _joint_side(y: np.ndarray, acc: np.ndarray, o: int, a: np.ndarray) -> tuple:
    """Position, velocity and acceleration of the body point a (9 numbers: p0..p2, v0..v2, a0..a2).

    Position x + R a, velocity v + R (Omega x a), acceleration dv/dt + R (dOmega/dt x a + Omega x (Omega x a)).
    """
    W0 = y[o + 12]
    W1 = y[o + 13]
    W2 = y[o + 14]
    c0 = W1 * a[2] - W2 * a[1]
    c1 = W2 * a[0] - W0 * a[2]
    c2 = W0 * a[1] - W1 * a[0]
    A0 = acc[o + 12]
    A1 = acc[o + 13]
    A2 = acc[o + 14]
    e0 = A1 * a[2] - A2 * a[1] + W1 * c2 - W2 * c1
    e1 = A2 * a[0] - A0 * a[2] + W2 * c0 - W0 * c2
    e2 = A0 * a[1] - A1 * a[0] + W0 * c1 - W1 * c0
    o0 = o
    o1 = o + 3
    o2 = o + 6
    return (
        y[o + 9] + y[o0] * a[0] + y[o0 + 1] * a[1] + y[o0 + 2] * a[2],
        y[o + 10] + y[o1] * a[0] + y[o1 + 1] * a[1] + y[o1 + 2] * a[2],
        y[o + 11] + y[o2] * a[0] + y[o2 + 1] * a[1] + y[o2 + 2] * a[2],
        y[o + 15] + y[o0] * c0 + y[o0 + 1] * c1 + y[o0 + 2] * c2,
        y[o + 16] + y[o1] * c0 + y[o1 + 1] * c1 + y[o1 + 2] * c2,
        y[o + 17] + y[o2] * c0 + y[o2 + 1] * c1 + y[o2 + 2] * c2,
        acc[o + 15] + y[o0] * e0 + y[o0 + 1] * e1 + y[o0 + 2] * e2,
        acc[o + 16] + y[o1] * e0 + y[o1 + 1] * e1 + y[o1 + 2] * e2,
        acc[o + 17] + y[o2] * e0 + y[o2 + 1] * e1 + y[o2 + 2] * e2,
    )


@njit(cache=True)
def diagnostics(data: RigidData, y: np.ndarray, acc: np.ndarray, d: np.ndarray) -> None:
    """Energy, constraint norms (position, velocity, acceleration), orthogonality, momentum; NaN rotation error.

    ``acc`` is laid out like y; only its Omega-dot and v-dot entries are read (NaN there gives a NaN
    acceleration constraint). Energy sum_i 1/2 Omega.J Omega + 1/2 m |v|^2 - m g.x; momentum
    axis . sum_i (x_i x m v_i + R_i J_i Omega_i) (docs/benchmarks.md B1, B2); pinned bodies about their pivot.
    Constraint norms are NaN without joints. No allocation.
    """
    mass, inertia, grav, jb, jp = data.mass, data.inertia, data.gravity, data.joint_bodies, data.joint_points
    axis = data.momentum_axis
    pinned, pivot, com, y_off = data.pinned, data.pivot, data.com, data.y_off
    nb = mass.shape[0]
    energy = 0.0
    mom = 0.0
    orth = 0.0
    for i in range(nb):
        o = y_off[i]
        if pinned[i]:
            # about the pivot p: T = 1/2 Omega.J Omega, U = -m g.(p + R rho), L = R J Omega + p x m v_c with
            # v_c = R (Omega x rho) (no calls or array views here: they would slow the free bodies' path)
            m = mass[i]
            W0 = y[o + 9]
            W1 = y[o + 10]
            W2 = y[o + 11]
            JW0 = inertia[i, 0, 0] * W0 + inertia[i, 0, 1] * W1 + inertia[i, 0, 2] * W2
            JW1 = inertia[i, 1, 0] * W0 + inertia[i, 1, 1] * W1 + inertia[i, 1, 2] * W2
            JW2 = inertia[i, 2, 0] * W0 + inertia[i, 2, 1] * W1 + inertia[i, 2, 2] * W2
            energy += 0.5 * (W0 * JW0 + W1 * JW1 + W2 * JW2)
            c0 = W1 * com[i, 2] - W2 * com[i, 1]  # Omega x rho
            c1 = W2 * com[i, 0] - W0 * com[i, 2]
            c2 = W0 * com[i, 1] - W1 * com[i, 0]
            for r in range(3):
                Rr0 = y[o + 3 * r]
                Rr1 = y[o + 3 * r + 1]
                Rr2 = y[o + 3 * r + 2]
                energy -= m * grav[r] * (pivot[i, r] + Rr0 * com[i, 0] + Rr1 * com[i, 1] + Rr2 * com[i, 2])
                mom += axis[r] * (Rr0 * JW0 + Rr1 * JW1 + Rr2 * JW2)
                # + axis . (p x m v_c), term r of the triple product: v_c[r] (axis x p)[r]
                ap = axis[(r + 1) % 3] * pivot[i, (r + 2) % 3] - axis[(r + 2) % 3] * pivot[i, (r + 1) % 3]
                mom += ap * m * (Rr0 * c0 + Rr1 * c1 + Rr2 * c2)
        else:
            J = inertia[i]
            W0 = y[o + 12]
            W1 = y[o + 13]
            W2 = y[o + 14]
            JW0 = J[0, 0] * W0 + J[0, 1] * W1 + J[0, 2] * W2
            JW1 = J[1, 0] * W0 + J[1, 1] * W1 + J[1, 2] * W2
            JW2 = J[2, 0] * W0 + J[2, 1] * W1 + J[2, 2] * W2
            x0 = y[o + 9]
            x1 = y[o + 10]
            x2 = y[o + 11]
            v0 = y[o + 15]
            v1 = y[o + 16]
            v2 = y[o + 17]
            m = mass[i]
            energy += 0.5 * (W0 * JW0 + W1 * JW1 + W2 * JW2) + 0.5 * m * (v0 * v0 + v1 * v1 + v2 * v2)
            energy -= m * (grav[0] * x0 + grav[1] * x1 + grav[2] * x2)
            orbital0 = m * (x1 * v2 - x2 * v1)
            orbital1 = m * (x2 * v0 - x0 * v2)
            orbital2 = m * (x0 * v1 - x1 * v0)
            mom += axis[0] * orbital0 + axis[1] * orbital1 + axis[2] * orbital2
            for r in range(3):
                spin = y[o + 3 * r] * JW0 + y[o + 3 * r + 1] * JW1 + y[o + 3 * r + 2] * JW2
                mom += axis[r] * spin
        s = 0.0
        for r in range(3):
            for c in range(3):
                dot = y[o + 3 * r] * y[o + 3 * c] + y[o + 3 * r + 1] * y[o + 3 * c + 1] \
                    + y[o + 3 * r + 2] * y[o + 3 * c + 2]
                e = (1.0 if r == c else 0.0) - dot
                s += e * e
        s = np.sqrt(s)
        if s > orth:
            orth = s
    cp = 0.0
    cv = 0.0
    ca = 0.0
    for k in range(jb.shape[0]):
        # joint point of side i minus that of side j (or the world point b): Phi_k and its two derivatives
        pi = _joint_side(y, acc, y_off[jb[k, 0]], jp[k, 0])
        j = jb[k, 1]
        if j >= 0:
            pj = _joint_side(y, acc, y_off[j], jp[k, 1])
        else:
            b = jp[k, 1]
            pj = (b[0], b[1], b[2], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for r in range(3):
            ep = pi[r] - pj[r]
            ev = pi[3 + r] - pj[3 + r]
            ea = pi[6 + r] - pj[6 + r]
            cp += ep * ep
            cv += ev * ev
            ca += ea * ea
    d[0] = energy
    if jb.shape[0] > 0:
        d[1] = np.sqrt(cp)
        d[2] = np.sqrt(cv)
        d[3] = np.sqrt(ca)
    else:
        d[1] = np.nan
        d[2] = np.nan
        d[3] = np.nan
    d[4] = orth
    d[5] = mom
    d[6] = np.nan


# ---------------------------------------------------------------------------------------------------------------
# Lie-algebra view for the implicit Lie group methods of seed 000 (RATTLie, LGVI, Lie generalized-alpha).
# Velocity vector w: per free body [Omega_i (3), v_i (3)], per pinned body [Omega_i (3)], body i at v_off[i]; a
# configuration increment dq (same layout) acts as R_i <- R_i exp(hat(dq_Omega)), x_i <- x_i + dq_v (SO(3) x R^3,
# docs/algorithms.md section 0). Multipliers (3K): one 3-vector per spherical joint. All functions write into given
# arrays (no allocation).
# ---------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def n_velocity(data: RigidData) -> int:
    """The size of the Lie-algebra velocity vector: 6 per free body, 3 per pinned body."""
    return int(data.v_off[data.mass.shape[0]])


@njit(cache=True)
def n_multipliers(data: RigidData) -> int:
    """3 K: one multiplier 3-vector per spherical joint."""
    return 3 * data.joint_bodies.shape[0]


@njit(cache=True, inline="always")
def get_velocity(data: RigidData, y: np.ndarray, w: np.ndarray) -> None:
    """w = [Omega_i, v_i] (free) or [Omega_i] (pinned) from the state."""
    pinned, y_off, v_off = data.pinned, data.y_off, data.v_off
    for i in range(pinned.shape[0]):
        if pinned[i]:
            for r in range(3):
                w[v_off[i] + r] = y[y_off[i] + 9 + r]
        else:
            for r in range(6):
                w[v_off[i] + r] = y[y_off[i] + 12 + r]


@njit(cache=True, inline="always")
def set_velocity(data: RigidData, y: np.ndarray, w: np.ndarray) -> None:
    """Write w into the velocity slots of y (also: an acceleration in the state layout, for the diagnostics)."""
    pinned, y_off, v_off = data.pinned, data.y_off, data.v_off
    for i in range(pinned.shape[0]):
        if pinned[i]:
            for r in range(3):
                y[y_off[i] + 9 + r] = w[v_off[i] + r]
        else:
            for r in range(6):
                y[y_off[i] + 12 + r] = w[v_off[i] + r]


@njit(cache=True, inline="always")
def mass_times(data: RigidData, w: np.ndarray, out: np.ndarray) -> None:
    """out = M w with M = blockdiag(J_i, m_i I) (J_i for a pinned body; the momentum p = M v of RATTLie)."""
    mass, inertia, pinned, v_off = data.mass, data.inertia, data.pinned, data.v_off
    for i in range(mass.shape[0]):
        J = inertia[i]
        o = v_off[i]
        for r in range(3):
            out[o + r] = J[r, 0] * w[o] + J[r, 1] * w[o + 1] + J[r, 2] * w[o + 2]
            if not pinned[i]:
                out[o + 3 + r] = mass[i] * w[o + 3 + r]


@njit(cache=True)
def potential_gradient(data: RigidData, y: np.ndarray, f: np.ndarray) -> None:
    """f = grad U in the Lie-algebra sense. Free body: rotational part 0 (x is the centre of mass), translational
    -m g. Pinned body: -m rho x (R^T g), minus gravity's moment about the pivot (seed 004 eq. 68)."""
    mass, grav, pinned, v_off = data.mass, data.gravity, data.pinned, data.v_off
    for i in range(mass.shape[0]):
        o = v_off[i]
        if pinned[i]:
            g0, g1, g2 = gravity_moment(data, y, i)
            f[o] = -g0
            f[o + 1] = -g1
            f[o + 2] = -g2
            continue
        for r in range(3):
            f[o + r] = 0.0
            f[o + 3 + r] = -mass[i] * grav[r]


@njit(cache=True, inline="always")
def potential_stiffness(data: RigidData, y: np.ndarray, scale: float, K: np.ndarray) -> None:
    """K += scale d/d(dq) [grad U(q exp(dq))] at dq = 0: -m hat(rho) hat(R^T g) per pinned body (free bodies: 0).

    grad U of a pinned body is -m rho x u with u = R^T g, and u changes as u x dq_Omega = hat(u) dq_Omega.
    """
    mass, grav, pinned, com, y_off, v_off = data.mass, data.gravity, data.pinned, data.com, data.y_off, data.v_off
    for i in range(mass.shape[0]):
        if not pinned[i]:
            continue
        o = y_off[i]
        c = v_off[i]
        rho = (com[i, 0], com[i, 1], com[i, 2])
        u = (
            y[o] * grav[0] + y[o + 3] * grav[1] + y[o + 6] * grav[2],
            y[o + 1] * grav[0] + y[o + 4] * grav[1] + y[o + 7] * grav[2],
            y[o + 2] * grav[0] + y[o + 5] * grav[1] + y[o + 8] * grav[2],
        )
        # -m hat(rho) hat(u) = m ((rho . u) I - u rho^T)
        ru = rho[0] * u[0] + rho[1] * u[1] + rho[2] * u[2]
        for r in range(3):
            for cc in range(3):
                K[c + r, c + cc] += scale * mass[i] * ((ru if r == cc else 0.0) - u[r] * rho[cc])


@njit(cache=True, inline="always")
def advance_body(y: np.ndarray, dq: np.ndarray, o: int, c: int, free: bool, a: float, b: float,
                 out: np.ndarray) -> None:
    """The body at state offset o and velocity offset c of out = y exp(dq): R exp(hat(w)), and x + dq_v if it is
    free, with w = dq[c : c + 3], given a = sinc1(|w|) and b = cosc2(|w|) (callers that already have them, or their
    own series, pass them in). Velocities not touched. (Offsets as scalars: no array leaves the data tuple in the
    callers' Newton loops.)

    exp(hat(w)) = I + a W + b W^2 = d I + b w w^T + a W, d = 1 - b |w|^2 (Rodrigues, docs/algorithms.md section 0).
    """
    w0 = dq[c]
    w1 = dq[c + 1]
    w2 = dq[c + 2]
    d = 1.0 - b * (w0 * w0 + w1 * w1 + w2 * w2)
    e00 = d + b * w0 * w0
    e11 = d + b * w1 * w1
    e22 = d + b * w2 * w2
    e01 = b * w0 * w1 - a * w2
    e10 = b * w0 * w1 + a * w2
    e02 = b * w0 * w2 + a * w1
    e20 = b * w0 * w2 - a * w1
    e12 = b * w1 * w2 - a * w0
    e21 = b * w1 * w2 + a * w0
    for r in range(3):
        r0 = y[o + 3 * r]
        r1 = y[o + 3 * r + 1]
        r2 = y[o + 3 * r + 2]
        out[o + 3 * r] = r0 * e00 + r1 * e10 + r2 * e20
        out[o + 3 * r + 1] = r0 * e01 + r1 * e11 + r2 * e21
        out[o + 3 * r + 2] = r0 * e02 + r1 * e12 + r2 * e22
        if free:
            out[o + 9 + r] = y[o + 9 + r] + dq[c + 3 + r]


@njit(cache=True, inline="always")
def advance_configuration(data: RigidData, y: np.ndarray, dq: np.ndarray, out: np.ndarray) -> None:
    """out = y with R_i <- R_i exp(hat(dq_Omega_i)), x_i <- x_i + dq_v_i; velocities copied from y."""
    pinned, y_off, v_off = data.pinned, data.y_off, data.v_off
    for i in range(pinned.shape[0]):
        c = v_off[i]
        w0 = dq[c]
        w1 = dq[c + 1]
        w2 = dq[c + 2]
        x = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        o = y_off[i]
        advance_body(y, dq, o, c, not pinned[i], lie.sinc1(x), lie.cosc2(x), out)
        if pinned[i]:
            for r in range(3):
                out[o + 9 + r] = y[o + 9 + r]
        else:
            for r in range(6):
                out[o + 12 + r] = y[o + 12 + r]


@njit(cache=True, inline="always")
def difference_acceleration(data: RigidData, w_older: np.ndarray, w_old: np.ndarray, w_new: np.ndarray, h: float,
                            k: int, acc: np.ndarray) -> None:
    """Acceleration at the newest step from velocities, for methods without their own (docs/benchmarks.md).

    The contract asks for a central difference, which would delay every diagnostics row by one step; we use the
    second-order backward difference (3 w_new - 4 w_old + w_older) / (2h) instead (first-order
    (w_new - w_old)/h at the first step, k = 1). ``acc`` is laid out like the state (Omega-dot and v-dot slots).
    """
    pinned, y_off, v_off = data.pinned, data.y_off, data.v_off
    for i in range(pinned.shape[0]):
        dofs = 3 if pinned[i] else 6
        slot = y_off[i] + (9 if pinned[i] else 12)
        for r in range(dofs):
            j = v_off[i] + r
            first = (w_new[j] - w_old[j]) / h
            second = (3.0 * w_new[j] - 4.0 * w_old[j] + w_older[j]) / (2.0 * h)
            acc[slot + r] = first if k <= 1 else second


@njit(cache=True, inline="always")
def orthonormalise(data: RigidData, y: np.ndarray) -> None:
    """Replace R of every pinned body by its orthogonal polar factor, the nearest rotation (docs/methods.md, rk4).

    Newton-Schulz iteration R <- R + R (I - R^T R) / 2 (quadratic convergence near SO(3)) until ||I - R^T R||
    is at round-off (at most 8 iterations). Free bodies are left as they are. No allocation.
    """
    pinned, y_off = data.pinned, data.y_off
    for i in range(pinned.shape[0]):
        if not pinned[i]:
            continue
        o = y_off[i]
        for _ in range(8):
            a0, a1, a2 = y[o], y[o + 1], y[o + 2]  # the rows of R
            b0, b1, b2 = y[o + 3], y[o + 4], y[o + 5]
            c0, c1, c2 = y[o + 6], y[o + 7], y[o + 8]
            # E = (I - R^T R) / 2, symmetric
            e00 = 0.5 * (1.0 - (a0 * a0 + b0 * b0 + c0 * c0))
            e11 = 0.5 * (1.0 - (a1 * a1 + b1 * b1 + c1 * c1))
            e22 = 0.5 * (1.0 - (a2 * a2 + b2 * b2 + c2 * c2))
            e01 = -0.5 * (a0 * a1 + b0 * b1 + c0 * c1)
            e02 = -0.5 * (a0 * a2 + b0 * b2 + c0 * c2)
            e12 = -0.5 * (a1 * a2 + b1 * b2 + c1 * c2)
            err = 4.0 * (e00 * e00 + e11 * e11 + e22 * e22 + 2.0 * (e01 * e01 + e02 * e02 + e12 * e12))
            if not err > 1e-30:  # ||I - R^T R|| <= 1e-15 (NaN: left to the caller's finiteness check)
                break
            for r in range(3):
                r0 = y[o + 3 * r]
                r1 = y[o + 3 * r + 1]
                r2 = y[o + 3 * r + 2]
                y[o + 3 * r] = r0 + r0 * e00 + r1 * e01 + r2 * e02
                y[o + 3 * r + 1] = r1 + r0 * e01 + r1 * e11 + r2 * e12
                y[o + 3 * r + 2] = r2 + r0 * e02 + r1 * e12 + r2 * e22


# Inlined (numba IR) forms of the per-step model functions, for the hot loops of kernels: a compiled call that
# passes the data tuple copies about 60 machine words onto the stack, which costs more than the body of
# potential_gradient or constraint_jacobian itself. Same Python functions, no cache of
# their own (they are compiled into the calling kernel).
potential_gradient_inline = njit(inline="always")(python_function(potential_gradient))
constraint_jacobian_inline = njit(inline="always")(python_function(constraint_jacobian))
constraint_force_derivative_inline = njit(inline="always")(python_function(constraint_force_derivative))
velocity_constraint_jacobian_inline = njit(inline="always")(python_function(velocity_constraint_jacobian))
# once per step: inlined by LLVM (kernels.part), as numba's IR inliner made its 167 lines weigh on every kernel's
# compile
diagnostics_inline = part(python_function(diagnostics), "diagnostics_inline")
