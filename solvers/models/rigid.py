"""Rigid bodies on (SO(3) x R^3)^N joined by spherical joints: the one machinery of the spatial benchmarks.

State layout (flat, per body i at offset 18 i): R (9, row-major; body to world), x (3; centre of mass),
Omega (3; body angular velocity, dR/dt = R hat(Omega)), v (3; world velocity of the centre of mass).

A joint k couples the point ``a`` of body ``i`` (body frame) with the point ``b`` of body ``j`` (body frame),
or with the fixed world point ``b`` when ``j = -1``: Phi_k = x_i + R_i a - x_j - R_j b (seed 000 eq. 24).
Its Jacobian in the Lie-algebra sense (seed 000 Table 1, ALGORITHMS.md section 0):
B_Omega_i = -R_i hat(a), B_v_i = I, B_Omega_j = R_j hat(b), B_v_j = -I.

The model data handed to kernels is the tuple
``(mass (N,), inertia (N,3,3) about the centre of mass, gravity (3,), joint_body (K,2) int, joint_point (K,2,3),
momentum_axis (3,))``. The inertia about the centre of mass may be indefinite when the benchmark only makes
physical sense under its constraints (the seed-004 3D pendulum gives J about the pivot); the saddle-point
systems stay regular as long as the kinetic energy is positive on the constraint tangent space.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from .. import lie
from ..linalg import cross_into, lu_solve_inplace

BODY = 18  # state entries per body


def make_data(
    mass: Sequence[float],
    inertia: Sequence[np.ndarray],
    gravity: np.ndarray,
    joints: Sequence[tuple[int, Sequence[float], int, Sequence[float]]],
    momentum_axis: Sequence[float] = (0.0, 0.0, 1.0),
) -> tuple:
    """Pack bodies and joints (i, a, j, b) into the kernel tuple."""
    jb = np.array([[i, j] for i, _, j, _ in joints], dtype=np.int64).reshape(-1, 2)
    jp = np.array([[a, b] for _, a, _, b in joints], dtype=float).reshape(-1, 2, 3)
    return (
        np.asarray(mass, dtype=float),
        np.ascontiguousarray(np.array(inertia, dtype=float).reshape(-1, 3, 3)),
        np.asarray(gravity, dtype=float),
        jb,
        jp,
        np.asarray(momentum_axis, dtype=float),
    )


def place_bodies(data: tuple, R: Sequence[np.ndarray], Omega: Sequence[np.ndarray]) -> np.ndarray:
    """Initial state from rotations and body angular velocities: positions and velocities follow from joints.

    Joints must be listed in tree order: each joint attaches a new body ``i`` to the ground or to a body
    already placed. Returns the flat state.
    """
    mass, _, _, jb, jp, _ = data
    n = mass.shape[0]
    y = np.zeros(BODY * n)
    placed = [False] * n
    for i in range(n):
        y[BODY * i : BODY * i + 9] = np.asarray(R[i], dtype=float).ravel()
        y[BODY * i + 12 : BODY * i + 15] = np.asarray(Omega[i], dtype=float)
    for k in range(jb.shape[0]):
        i, j = int(jb[k, 0]), int(jb[k, 1])
        a, b = jp[k, 0], jp[k, 1]
        if j >= 0 and not placed[j]:
            raise ValueError(f"joint {k}: body {j} is not placed yet (list joints in tree order)")
        Ri = y[BODY * i : BODY * i + 9].reshape(3, 3)
        Wi = y[BODY * i + 12 : BODY * i + 15]
        if j < 0:
            pj, vj = b, np.zeros(3)
        else:
            Rj = y[BODY * j : BODY * j + 9].reshape(3, 3)
            Wj = y[BODY * j + 12 : BODY * j + 15]
            pj = y[BODY * j + 9 : BODY * j + 12] + Rj @ b
            vj = y[BODY * j + 15 : BODY * j + 18] + Rj @ np.cross(Wj, b)
        y[BODY * i + 9 : BODY * i + 12] = pj - Ri @ a
        y[BODY * i + 15 : BODY * i + 18] = vj - Ri @ np.cross(Wi, a)
        placed[i] = True
    if not all(placed):
        raise ValueError("every body must be attached by a joint")
    return y


def unpack(data: tuple, states: np.ndarray) -> dict[str, np.ndarray]:
    """Split saved states (n, 18 N) into R (n,N,3,3), x, Omega, v (n,N,3)."""
    n_bodies = data[0].shape[0]
    s = states.reshape(states.shape[0], n_bodies, BODY)
    return {
        "R": s[:, :, 0:9].reshape(-1, n_bodies, 3, 3),
        "x": s[:, :, 9:12],
        "Omega": s[:, :, 12:15],
        "v": s[:, :, 15:18],
    }


def system_size(data: tuple) -> int:
    """Size of the saddle-point system: 6 velocity unknowns per body + 3 multipliers per joint."""
    return 6 * data[0].shape[0] + 3 * data[3].shape[0]


@njit(cache=True)
def _rot_hat(R: np.ndarray, a: np.ndarray, out: np.ndarray) -> None:
    """out = R hat(a)."""
    for r in range(3):
        out[r, 0] = R[r, 1] * a[2] - R[r, 2] * a[1]
        out[r, 1] = -R[r, 0] * a[2] + R[r, 2] * a[0]
        out[r, 2] = R[r, 0] * a[1] - R[r, 1] * a[0]


@njit(cache=True)
def _centripetal(R: np.ndarray, W: np.ndarray, a: np.ndarray, t1: np.ndarray, t2: np.ndarray) -> np.ndarray:
    """R (W x (W x a)), the velocity-squared part of d2/dt2 (R a)."""
    cross_into(W, a, t1)
    cross_into(W, t1, t2)
    out = np.empty(3)
    for r in range(3):
        out[r] = R[r, 0] * t2[0] + R[r, 1] * t2[1] + R[r, 2] * t2[2]
    return out


@njit(cache=True)
def assemble(data: tuple, y: np.ndarray, A: np.ndarray, b: np.ndarray) -> int:
    """Saddle-point system [[M, B^T], [B, 0]] [dw/dt; lambda] = [f; gamma] of the index-1 DAE at state y.

    M = blockdiag(J_i, m_i I); f = (-Omega x J Omega, m g); gamma = -(velocity-squared terms of d2Phi/dt2).
    Returns the system size.
    """
    mass, inertia, grav, jb, jp, _ = data
    nb = mass.shape[0]
    nj = jb.shape[0]
    n = 6 * nb + 3 * nj
    for r in range(n):
        b[r] = 0.0
        for c in range(n):
            A[r, c] = 0.0
    JW = np.empty(3)
    t1 = np.empty(3)
    t2 = np.empty(3)
    C = np.empty((3, 3))
    for i in range(nb):
        o = BODY * i
        J = inertia[i]
        W = y[o + 12 : o + 15]
        for r in range(3):
            for c in range(3):
                A[6 * i + r, 6 * i + c] = J[r, c]
            A[6 * i + 3 + r, 6 * i + 3 + r] = mass[i]
            JW[r] = J[r, 0] * W[0] + J[r, 1] * W[1] + J[r, 2] * W[2]
        cross_into(W, JW, t1)
        for r in range(3):
            b[6 * i + r] = -t1[r]
            b[6 * i + 3 + r] = mass[i] * grav[r]
    for k in range(nj):
        r0 = 6 * nb + 3 * k
        i = jb[k, 0]
        j = jb[k, 1]
        oi = BODY * i
        Ri = y[oi : oi + 9].reshape((3, 3))
        _rot_hat(Ri, jp[k, 0], C)
        for r in range(3):
            for c in range(3):
                A[r0 + r, 6 * i + c] = -C[r, c]
                A[6 * i + c, r0 + r] = -C[r, c]
            A[r0 + r, 6 * i + 3 + r] = 1.0
            A[6 * i + 3 + r, r0 + r] = 1.0
        g = _centripetal(Ri, y[oi + 12 : oi + 15], jp[k, 0], t1, t2)
        for r in range(3):
            b[r0 + r] = -g[r]
        if j >= 0:
            oj = BODY * j
            Rj = y[oj : oj + 9].reshape((3, 3))
            _rot_hat(Rj, jp[k, 1], C)
            for r in range(3):
                for c in range(3):
                    A[r0 + r, 6 * j + c] = C[r, c]
                    A[6 * j + c, r0 + r] = C[r, c]
                A[r0 + r, 6 * j + 3 + r] = -1.0
                A[6 * j + 3 + r, r0 + r] = -1.0
            g = _centripetal(Rj, y[oj + 12 : oj + 15], jp[k, 1], t1, t2)
            for r in range(3):
                b[r0 + r] += g[r]
    return n


@njit(cache=True)
def rhs(data: tuple, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """Index-1 DAE right-hand side: dR/dt = R hat(Omega), dx/dt = v, accelerations from the saddle system.

    Returns False if the saddle-point matrix is singular.
    """
    n = assemble(data, y, A, b)
    if not lu_solve_inplace(A, b, n):
        return False
    nb = data[0].shape[0]
    for i in range(nb):
        o = BODY * i
        R = y[o : o + 9].reshape((3, 3))
        W = y[o + 12 : o + 15]
        for r in range(3):
            ydot[o + 3 * r + 0] = R[r, 1] * W[2] - R[r, 2] * W[1]
            ydot[o + 3 * r + 1] = -R[r, 0] * W[2] + R[r, 2] * W[0]
            ydot[o + 3 * r + 2] = R[r, 0] * W[1] - R[r, 1] * W[0]
            ydot[o + 9 + r] = y[o + 15 + r]
            ydot[o + 12 + r] = b[6 * i + r]
            ydot[o + 15 + r] = b[6 * i + 3 + r]
    return True


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
def diagnostics(data: tuple, y: np.ndarray, acc: np.ndarray, d: np.ndarray) -> None:
    """Energy, constraint norms (position, velocity, acceleration), orthogonality, momentum; NaN rotation error.

    ``acc`` is laid out like y; only its Omega-dot and v-dot entries are read (NaN there gives a NaN
    acceleration constraint). Energy sum_i 1/2 Omega.J Omega + 1/2 m |v|^2 - m g.x; momentum
    axis . sum_i (x_i x m v_i + R_i J_i Omega_i) (BENCHMARKS.md B1, B2). No allocation.
    """
    mass, inertia, grav, jb, jp, axis = data
    nb = mass.shape[0]
    energy = 0.0
    mom = 0.0
    orth = 0.0
    for i in range(nb):
        o = BODY * i
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
        pi = _joint_side(y, acc, BODY * jb[k, 0], jp[k, 0])
        j = jb[k, 1]
        if j >= 0:
            pj = _joint_side(y, acc, BODY * j, jp[k, 1])
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
# Velocity vector w (6N): per body [Omega_i (3), v_i (3)]; a configuration increment dq (6N) acts as
# R_i <- R_i exp(hat(dq_Omega)), x_i <- x_i + dq_v (SO(3) x R^3, ALGORITHMS.md section 0).
# Multipliers (3K): one 3-vector per spherical joint. All functions write into given arrays (no allocation).
# ---------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def n_velocity(data: tuple) -> int:
    """6 N: the size of the Lie-algebra velocity vector."""
    return 6 * data[0].shape[0]


@njit(cache=True)
def n_multipliers(data: tuple) -> int:
    """3 K: one multiplier 3-vector per spherical joint."""
    return 3 * data[3].shape[0]


@njit(cache=True)
def get_velocity(y: np.ndarray, w: np.ndarray) -> None:
    """w = [Omega_i, v_i] from the state."""
    nb = y.shape[0] // BODY
    for i in range(nb):
        for r in range(6):
            w[6 * i + r] = y[BODY * i + 12 + r]


@njit(cache=True)
def set_velocity(y: np.ndarray, w: np.ndarray) -> None:
    """Write w = [Omega_i, v_i] into the state."""
    nb = y.shape[0] // BODY
    for i in range(nb):
        for r in range(6):
            y[BODY * i + 12 + r] = w[6 * i + r]


@njit(cache=True)
def mass_times(data: tuple, w: np.ndarray, out: np.ndarray) -> None:
    """out = M w with M = blockdiag(J_i, m_i I) (the momentum p = M v of RATTLie)."""
    mass, inertia = data[0], data[1]
    for i in range(mass.shape[0]):
        J = inertia[i]
        o = 6 * i
        for r in range(3):
            out[o + r] = J[r, 0] * w[o] + J[r, 1] * w[o + 1] + J[r, 2] * w[o + 2]
            out[o + 3 + r] = mass[i] * w[o + 3 + r]


@njit(cache=True)
def potential_gradient(data: tuple, y: np.ndarray, f: np.ndarray) -> None:
    """f = grad U in the Lie-algebra sense: rotational part 0 (x is the centre of mass), translational -m g."""
    mass, grav = data[0], data[2]
    for i in range(mass.shape[0]):
        for r in range(3):
            f[6 * i + r] = 0.0
            f[6 * i + 3 + r] = -mass[i] * grav[r]


@njit(cache=True, inline="always")  # in every Newton iteration: no call overhead for the data tuple
def constraint_residual(data: tuple, y: np.ndarray, phi: np.ndarray) -> None:
    """Phi (3K): x_i + R_i a - x_j - R_j b per joint (seed 000 eq. 24)."""
    jb, jp = data[3], data[4]
    for k in range(jb.shape[0]):
        i = jb[k, 0]
        j = jb[k, 1]
        a = jp[k, 0]
        b = jp[k, 1]
        oi = BODY * i
        for r in range(3):
            s = y[oi + 9 + r]
            for c in range(3):
                s += y[oi + 3 * r + c] * a[c]
            if j >= 0:
                oj = BODY * j
                s -= y[oj + 9 + r]
                for c in range(3):
                    s -= y[oj + 3 * r + c] * b[c]
            else:
                s -= b[r]
            phi[3 * k + r] = s


@njit(cache=True, inline="always")
def rot_hat_row(y: np.ndarray, o: int, r: int, p0: float, p1: float, p2: float) -> tuple:
    """Row r of R hat(p) for the body whose state starts at o (R row-major at y[o : o + 9])."""
    R0 = y[o + 3 * r]
    R1 = y[o + 3 * r + 1]
    R2 = y[o + 3 * r + 2]
    return R1 * p2 - R2 * p1, R2 * p0 - R0 * p2, R0 * p1 - R1 * p0


@njit(cache=True, inline="always")
def _joint_columns(data: tuple, y: np.ndarray, v, M: np.ndarray) -> None:
    """M (3K x 6N) = B(q) (v None) or Z = d/dq [B(q) v] at fixed v, column blocks per joint side s (sign_s = -1
    for side i, +1 for side j): B: sign_s R hat(a) | -sign_s I; Z: sign_s R hat(Omega x a) | 0."""
    jb, jp = data[3], data[4]
    nv = 6 * data[0].shape[0]
    for k in range(jb.shape[0]):
        for r in range(3):
            for c in range(nv):
                M[3 * k + r, c] = 0.0
        for side in range(2):
            body = jb[k, side]
            if body < 0:
                continue
            sign = -1.0 if side == 0 else 1.0
            a = jp[k, side]
            p0 = a[0]
            p1 = a[1]
            p2 = a[2]
            if v is not None:  # p = Omega x a
                W0 = v[6 * body]
                W1 = v[6 * body + 1]
                W2 = v[6 * body + 2]
                p0 = W1 * a[2] - W2 * a[1]
                p1 = W2 * a[0] - W0 * a[2]
                p2 = W0 * a[1] - W1 * a[0]
            for r in range(3):
                g0, g1, g2 = rot_hat_row(y, BODY * body, r, p0, p1, p2)
                M[3 * k + r, 6 * body] = sign * g0
                M[3 * k + r, 6 * body + 1] = sign * g1
                M[3 * k + r, 6 * body + 2] = sign * g2
                if v is None:
                    M[3 * k + r, 6 * body + 3 + r] = -sign


@njit(cache=True)
def constraint_jacobian(data: tuple, y: np.ndarray, B: np.ndarray) -> None:
    """B (3K x 6N), B w = dPhi/dt: B_Omega_i = -R_i hat(a), B_v_i = I, B_Omega_j = R_j hat(b), B_v_j = -I.

    (seed 000 Table 1; ALGORITHMS.md section 0). Overwrites the first 3K rows and 6N columns.
    """
    _joint_columns(data, y, None, B)


@njit(cache=True)
def velocity_constraint_jacobian(data: tuple, y: np.ndarray, v: np.ndarray, Z: np.ndarray) -> None:
    """Z (3K x 6N) = d/dq [B(q) v] at fixed v: -R_i hat(Omega_i x a) for side i, +R_j hat(Omega_j x b) for side j
    (rotational columns; the translational ones are 0). Z of the stabilised index-2 Lie-alpha (ALGORITHMS.md
    sec. 2). Overwrites the first 3K rows and 6N columns.
    """
    _joint_columns(data, y, v, Z)


@njit(cache=True)
def constraint_force_derivative(data: tuple, y: np.ndarray, lam: np.ndarray, K: np.ndarray) -> None:
    """K (6N x 6N) = d/d(dq) [B(q exp(dq))^T lam] at dq = 0 (the stiffness of the constraint forces).

    B_Omega_i^T lam = a x (R_i^T lam) changes as hat(a) hat(R_i^T lam) dq_Omega_i, and the R_j term with the
    opposite sign; translational blocks are constant. Overwrites the first 6N x 6N block.
    """
    jb, jp = data[3], data[4]
    nv = 6 * data[0].shape[0]
    for r in range(nv):
        for c in range(nv):
            K[r, c] = 0.0
    for k in range(jb.shape[0]):
        m0 = lam[3 * k]
        m1 = lam[3 * k + 1]
        m2 = lam[3 * k + 2]
        for side in range(2):
            body = jb[k, side]
            if body < 0:
                continue
            sign = 1.0 if side == 0 else -1.0
            o = BODY * body
            a = jp[k, side]
            u = (  # u = R^T lam
                y[o] * m0 + y[o + 3] * m1 + y[o + 6] * m2,
                y[o + 1] * m0 + y[o + 4] * m1 + y[o + 7] * m2,
                y[o + 2] * m0 + y[o + 5] * m1 + y[o + 8] * m2,
            )
            # hat(a) hat(u) = u a^T - (a . u) I
            au = a[0] * u[0] + a[1] * u[1] + a[2] * u[2]
            for r in range(3):
                for c in range(3):
                    K[6 * body + r, 6 * body + c] += sign * (u[r] * a[c] - (au if r == c else 0.0))


@njit(cache=True)
def transpose_times(B: np.ndarray, lam: np.ndarray, m: int, n: int, out: np.ndarray) -> None:
    """out[:n] = B[:m, :n]^T lam[:m]."""
    for c in range(n):
        s = 0.0
        for r in range(m):
            s += B[r, c] * lam[r]
        out[c] = s


@njit(cache=True, inline="always")
def advance_body(y: np.ndarray, dq: np.ndarray, i: int, a: float, b: float, out: np.ndarray) -> None:
    """Body i of out = y exp(dq): R_i exp(hat(w)), x_i + dq_v with w = dq_Omega_i, given a = sinc1(|w|) and
    b = cosc2(|w|) (callers that already have them, or their own series, pass them in). Velocities not touched.

    exp(hat(w)) = I + a W + b W^2 = d I + b w w^T + a W, d = 1 - b |w|^2 (Rodrigues, ALGORITHMS.md section 0).
    """
    o = BODY * i
    w0 = dq[6 * i]
    w1 = dq[6 * i + 1]
    w2 = dq[6 * i + 2]
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
        out[o + 9 + r] = y[o + 9 + r] + dq[6 * i + 3 + r]


@njit(cache=True)
def advance_configuration(y: np.ndarray, dq: np.ndarray, out: np.ndarray) -> None:
    """out = y with R_i <- R_i exp(hat(dq_Omega_i)), x_i <- x_i + dq_v_i; velocities copied from y."""
    nb = y.shape[0] // BODY
    for i in range(nb):
        w0 = dq[6 * i]
        w1 = dq[6 * i + 1]
        w2 = dq[6 * i + 2]
        x = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        advance_body(y, dq, i, lie.sinc1(x), lie.cosc2(x), out)
        o = BODY * i
        for r in range(6):
            out[o + 12 + r] = y[o + 12 + r]


@njit(cache=True)
def times_tangent(B: np.ndarray, Ts: np.ndarray, out: np.ndarray) -> None:
    """out = B diag(T_1, I, ..., T_N, I): the rotational column blocks of B (m x 6N) times T_i on the right.

    B(q exp(w)) T(w) is d/dw Phi(q exp(w)) (ALGORITHMS.md sections 0, 2, 3); Ts is (N, 3, 3).
    """
    nb = Ts.shape[0]
    for r in range(B.shape[0]):
        for i in range(nb):
            c0 = 6 * i
            b0 = B[r, c0]
            b1 = B[r, c0 + 1]
            b2 = B[r, c0 + 2]
            T = Ts[i]
            for c in range(3):
                out[r, c0 + c] = b0 * T[0, c] + b1 * T[1, c] + b2 * T[2, c]
            for c in range(3, 6):
                out[r, c0 + c] = B[r, c0 + c]


@njit(cache=True)
def initial_acceleration(data: tuple, y: np.ndarray, acc: np.ndarray, lam: np.ndarray) -> bool:
    """Consistent accelerations dw/dt (6N) and multipliers (3K) of the index-1 DAE at y (the saddle solve).

    Returns False if the system is singular. Used for starting values and the t = 0 diagnostics.
    """
    n = 6 * data[0].shape[0] + 3 * data[3].shape[0]
    A = np.empty((n, n))
    b = np.empty(n)
    assemble(data, y, A, b)
    if not lu_solve_inplace(A, b, n):
        return False
    nv = 6 * data[0].shape[0]
    for r in range(nv):
        acc[r] = b[r]
    for r in range(n - nv):
        lam[r] = b[nv + r]
    return True


@njit(cache=True)
def difference_acceleration(w_older: np.ndarray, w_old: np.ndarray, w_new: np.ndarray, h: float, k: int,
                            acc: np.ndarray) -> None:
    """Acceleration at the newest step from velocities, for methods without their own (BENCHMARKS.md).

    The contract asks for a central difference, which would delay every diagnostics row by one step; we use the
    second-order backward difference (3 w_new - 4 w_old + w_older) / (2h) instead (first-order
    (w_new - w_old)/h at the first step, k = 1). ``acc`` is laid out like the state (Omega-dot and v-dot slots).
    """
    nb = acc.shape[0] // BODY
    for i in range(nb):
        for r in range(6):
            j = 6 * i + r
            first = (w_new[j] - w_old[j]) / h
            second = (3.0 * w_new[j] - 4.0 * w_old[j] + w_older[j]) / (2.0 * h)
            acc[BODY * i + 12 + r] = first if k <= 1 else second


# Inlined (numba IR) forms of the per-step model functions, for the hot loops of kernels: a compiled call that
# passes the data tuple copies about 60 machine words onto the stack, which measured (perf, RATTLie on the seed
# run) more than the body of potential_gradient or constraint_jacobian itself. Same Python functions, no cache of
# their own (they are compiled into the calling kernel).
potential_gradient_inline = njit(inline="always")(potential_gradient.py_func)
constraint_jacobian_inline = njit(inline="always")(constraint_jacobian.py_func)
diagnostics_inline = njit(inline="always")(diagnostics.py_func)
