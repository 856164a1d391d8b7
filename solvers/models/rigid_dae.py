"""The index-1 DAE of the rigid machinery: the saddle-point system of accelerations and multipliers.

[[M, B^T], [B, 0]] [dw/dt; lambda] = [f; gamma] at a state (M = blockdiag(J_i, m_i I), B the joints' Jacobian
in the Lie-algebra sense, gamma minus the velocity-squared terms of d2Phi/dt2; solvers.models.rigid for the
state layout and the data tuple). The explicit methods integrate it (``rhs``, the first-order right-hand side),
the implicit ones start from it (``initial_acceleration``), and ``assemble`` writes the dense system (tests and
starting values).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import python_function
from ..linalg import band_cholesky_solve_lower, lu_solve_inplace
from .joints import topology_of
from .rigid import gravity_moment, n_velocity
from .rigid_data import RigidData


@njit(cache=True, inline="always")
def _point_and_omega2(y: np.ndarray, o: int, jp: np.ndarray, k: int, side: int) -> tuple:
    """The joint point a of joint k's side (body frame) and Omega x (Omega x a) for the body at state offset o."""
    a0 = jp[k, side, 0]
    a1 = jp[k, side, 1]
    a2 = jp[k, side, 2]
    W0 = y[o + 12]
    W1 = y[o + 13]
    W2 = y[o + 14]
    s0 = W1 * a2 - W2 * a1  # Omega x a
    s1 = W2 * a0 - W0 * a2
    s2 = W0 * a1 - W1 * a0
    return a0, a1, a2, W1 * s2 - W2 * s1, W2 * s0 - W0 * s2, W0 * s1 - W1 * s0


@njit(cache=True, inline="always")  # one joint side's rows of B and gamma (rhs): scalars, no array views
def _joint_rows(A: np.ndarray, b: np.ndarray, y: np.ndarray, o: int, v: int, jp: np.ndarray, k: int, side: int,
                row: int, sign: float) -> None:
    """Add body side's part of joint k (its state offset o, velocity offset v) to the rows ``row..row+2``:
    B_Omega = sign R hat(a), B_v = -sign I (seed 000 Table 1: sign -1 for body i, +1 for body j) and
    gamma += sign R (Omega x (Omega x a)), the velocity-squared part of d2/dt2 (R a)."""
    a0, a1, a2, u0, u1, u2 = _point_and_omega2(y, o, jp, k, side)
    for r in range(3):
        R0 = y[o + 3 * r]
        R1 = y[o + 3 * r + 1]
        R2 = y[o + 3 * r + 2]
        A[row + r, v] = sign * (R1 * a2 - R2 * a1)
        A[row + r, v + 1] = sign * (-R0 * a2 + R2 * a0)
        A[row + r, v + 2] = sign * (R0 * a1 - R1 * a0)
        A[row + r, v + 3 + r] = -sign
        b[row + r] += sign * (R0 * u0 + R1 * u1 + R2 * u2)


@njit(cache=True, inline="always")
def scratch_size(data: RigidData) -> int:
    """An upper bound on the size of the saddle-point systems (6 per body, 3 per joint; compiled)."""
    return 6 * data.mass.shape[0] + 3 * data.joint_bodies.shape[0]


@njit(cache=True)
def assemble(data: RigidData, y: np.ndarray, A: np.ndarray, b: np.ndarray) -> int:
    """Saddle-point system [[M, B^T], [B, 0]] [dw/dt; lambda] = [f; gamma] of the index-1 DAE at state y.

    M = blockdiag(J_i, m_i I) (J_i alone for a pinned body); f = (-Omega x J Omega, m g) for a free body,
    -Omega x J Omega + m rho x R^T g for a pinned one (seed 004 eq. 68); gamma = -(velocity-squared terms of
    d2Phi/dt2). Returns the system size.
    """
    mass, inertia, grav, jb, jp = data.mass, data.inertia, data.gravity, data.joint_bodies, data.joint_points
    pinned, y_off, v_off = data.pinned, data.y_off, data.v_off
    nb = mass.shape[0]
    nj = jb.shape[0]
    nv = v_off[nb]
    n = nv + 3 * nj
    for r in range(n):
        b[r] = 0.0
        for c in range(n):
            A[r, c] = 0.0
    JW = np.empty(3)
    t1 = np.empty(3)
    for i in range(nb):
        o = y_off[i]
        v = v_off[i]
        w = o + 9 if pinned[i] else o + 12  # Omega
        W0 = y[w]
        W1 = y[w + 1]
        W2 = y[w + 2]
        for r in range(3):
            for c in range(3):
                A[v + r, v + c] = inertia[i, r, c]
            JW[r] = inertia[i, r, 0] * W0 + inertia[i, r, 1] * W1 + inertia[i, r, 2] * W2
        t1[0] = W1 * JW[2] - W2 * JW[1]  # Omega x J Omega
        t1[1] = W2 * JW[0] - W0 * JW[2]
        t1[2] = W0 * JW[1] - W1 * JW[0]
        if pinned[i]:
            g0, g1, g2 = gravity_moment(data, y, i)
            b[v] = g0 - t1[0]
            b[v + 1] = g1 - t1[1]
            b[v + 2] = g2 - t1[2]
            continue
        for r in range(3):
            A[v + 3 + r, v + 3 + r] = mass[i]
        for r in range(3):
            b[v + r] = -t1[r]
            b[v + 3 + r] = mass[i] * grav[r]
    for k in range(nj):  # B and gamma (as rhs builds them), then B^T: the saddle matrix is symmetric
        i = jb[k, 0]
        j = jb[k, 1]
        _joint_rows(A, b, y, y_off[i], v_off[i], jp, k, 0, nv + 3 * k, -1.0)
        if j >= 0:
            _joint_rows(A, b, y, y_off[j], v_off[j], jp, k, 1, nv + 3 * k, 1.0)
    for p in range(nv, n):
        for c in range(nv):
            A[c, p] = A[p, c]
    return n


@njit(cache=True, inline="always")  # in every stage of the explicit kernels: no call overhead
def rhs(data: RigidData, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """Index-1 DAE right-hand side: dR/dt = R hat(Omega), dx/dt = v, accelerations and multipliers from the
    saddle-point system [[M, B^T], [B, 0]] [dw/dt; lambda] = [f; gamma] (``assemble``), solved by the Schur
    complement on the multipliers with the constant M^-1 = blockdiag(J_i^-1, I / m_i) (J_i^-1 in data.inertia_inv):
    S lambda = B M^-1 f - gamma with S = B M^-1 B^T (3K x 3K, symmetric positive definite), then
    dw/dt = M^-1 (f - B^T lambda). S is assembled per body from the 3x3 joint blocks of B and factorised by a
    banded Cholesky factorisation (half bandwidth from joints.topology_of; block-tridiagonal on a chain), so
    the cost is linear in the number of bodies of a chain.

    Scratch: b[:nv] holds M^-1 f, b[nv:] the multipliers; row nv + 3k + r of A holds row 3k + r of S's lower band
    (columns 0..band) and of joint k's rotational blocks (the next 6 columns). Returns False if an inertia or S
    is singular.
    """
    mass, inertia, grav, jb, jp = data.mass, data.inertia, data.gravity, data.joint_bodies, data.joint_points
    pinned, y_off, v_off, jinv = data.pinned, data.y_off, data.v_off, data.inertia_inv
    ninc, incj, incs, kl = topology_of(data)
    nb = mass.shape[0]
    nj = jb.shape[0]
    nv = v_off[nb]
    m = 3 * nj
    for i in range(nb):  # z = M^-1 f into b[:nv] (f as in assemble)
        if not np.isfinite(jinv[i, 0, 0]):
            return False
        o = y_off[i]
        v = v_off[i]
        w = o + 9 if pinned[i] else o + 12  # Omega (scalars, no array views)
        W0 = y[w]
        W1 = y[w + 1]
        W2 = y[w + 2]
        J0 = inertia[i, 0, 0] * W0 + inertia[i, 0, 1] * W1 + inertia[i, 0, 2] * W2
        J1 = inertia[i, 1, 0] * W0 + inertia[i, 1, 1] * W1 + inertia[i, 1, 2] * W2
        J2 = inertia[i, 2, 0] * W0 + inertia[i, 2, 1] * W1 + inertia[i, 2, 2] * W2
        f0 = -(W1 * J2 - W2 * J1)  # -Omega x J Omega
        f1 = -(W2 * J0 - W0 * J2)
        f2 = -(W0 * J1 - W1 * J0)
        if pinned[i]:
            g0, g1, g2 = gravity_moment(data, y, i)
            f0 = g0 + f0
            f1 = g1 + f1
            f2 = g2 + f2
        else:
            for r in range(3):
                b[v + 3 + r] = grav[r]  # m g / m
        for r in range(3):
            b[v + r] = jinv[i, r, 0] * f0 + jinv[i, r, 1] * f1 + jinv[i, r, 2] * f2
    if m > 0:
        g = kl + 1  # the first column of the joint blocks in A's rows
        for k in range(nj):
            # joint k's blocks G_s = sign_s R hat(a) (seed 000 Table 1, sign_0 = -1) and B z - gamma,
            # gamma = -sum_s sign_s R (Omega x (Omega x a)) (the velocity-squared part of d2Phi/dt2)
            for r in range(3):
                b[nv + 3 * k + r] = 0.0
                for c in range(kl + 1):
                    A[nv + 3 * k + r, c] = 0.0
            for sd in range(2):
                i = jb[k, sd]
                if i < 0:
                    continue
                sign = -1.0 if sd == 0 else 1.0
                o = y_off[i]
                v = v_off[i]
                a0, a1, a2, u0, u1, u2 = _point_and_omega2(y, o, jp, k, sd)
                for r in range(3):
                    R0 = y[o + 3 * r]
                    R1 = y[o + 3 * r + 1]
                    R2 = y[o + 3 * r + 2]
                    G0 = sign * (R1 * a2 - R2 * a1)
                    G1 = sign * (-R0 * a2 + R2 * a0)
                    G2 = sign * (R0 * a1 - R1 * a0)
                    row = nv + 3 * k + r
                    A[row, g + 3 * sd] = G0
                    A[row, g + 3 * sd + 1] = G1
                    A[row, g + 3 * sd + 2] = G2
                    b[row] += G0 * b[v] + G1 * b[v + 1] + G2 * b[v + 2] - sign * b[v + 3 + r] \
                        - sign * (R0 * u0 + R1 * u1 + R2 * u2)
        for i in range(nb):  # S's lower band, per body: G_ks J_i^-1 G_lt^T + sign_s sign_t I / m_i
            im = 1.0 / mass[i]
            for p1 in range(ninc[i]):
                k = incj[i, p1]
                sk = incs[i, p1]
                for p2 in range(ninc[i]):
                    ll = incj[i, p2]
                    if ll > k:
                        continue
                    st = incs[i, p2]
                    sgn = (-1.0 if sk == 0 else 1.0) * (-1.0 if st == 0 else 1.0)
                    for c in range(3):
                        # X = J_i^-1 (row c of G_lt)^T
                        q0 = A[nv + 3 * ll + c, g + 3 * st]
                        q1 = A[nv + 3 * ll + c, g + 3 * st + 1]
                        q2 = A[nv + 3 * ll + c, g + 3 * st + 2]
                        x0 = jinv[i, 0, 0] * q0 + jinv[i, 0, 1] * q1 + jinv[i, 0, 2] * q2
                        x1 = jinv[i, 1, 0] * q0 + jinv[i, 1, 1] * q1 + jinv[i, 1, 2] * q2
                        x2 = jinv[i, 2, 0] * q0 + jinv[i, 2, 1] * q1 + jinv[i, 2, 2] * q2
                        col = 3 * ll + c
                        for r in range(3):
                            row = 3 * k + r
                            if col > row:
                                continue
                            val = A[nv + row, g + 3 * sk] * x0 + A[nv + row, g + 3 * sk + 1] * x1 \
                                + A[nv + row, g + 3 * sk + 2] * x2
                            if r == c:
                                val += sgn * im
                            A[nv + row, col - row + kl] += val
        if not band_cholesky_solve_lower(A, nv, b, nv, m, kl):
            return False
        for i in range(nb):  # dw/dt = z - M^-1 B^T lambda
            v = v_off[i]
            c0 = 0.0
            c1 = 0.0
            c2 = 0.0
            for p1 in range(ninc[i]):
                k = incj[i, p1]
                sd = incs[i, p1]
                sign = -1.0 if sd == 0 else 1.0
                for r in range(3):
                    lr = b[nv + 3 * k + r]
                    c0 += A[nv + 3 * k + r, g + 3 * sd] * lr
                    c1 += A[nv + 3 * k + r, g + 3 * sd + 1] * lr
                    c2 += A[nv + 3 * k + r, g + 3 * sd + 2] * lr
                    b[v + 3 + r] += sign * lr * (1.0 / mass[i])
            for r in range(3):
                b[v + r] -= jinv[i, r, 0] * c0 + jinv[i, r, 1] * c1 + jinv[i, r, 2] * c2
    for i in range(nb):
        o = y_off[i]
        v = v_off[i]
        w = o + 9 if pinned[i] else o + 12
        W0 = y[w]
        W1 = y[w + 1]
        W2 = y[w + 2]
        for r in range(3):
            R0 = y[o + 3 * r]
            R1 = y[o + 3 * r + 1]
            R2 = y[o + 3 * r + 2]
            ydot[o + 3 * r + 0] = R1 * W2 - R2 * W1
            ydot[o + 3 * r + 1] = -R0 * W2 + R2 * W0
            ydot[o + 3 * r + 2] = R0 * W1 - R1 * W0
            ydot[w + r] = b[v + r]
            if not pinned[i]:
                ydot[o + 9 + r] = y[o + 15 + r]
                ydot[o + 15 + r] = b[v + 3 + r]
    return True



# rhs as a plain compiled call, for once-per-run sites (the starting state): inlining there only adds compile time
rhs_call = njit(cache=True)(python_function(rhs))

@njit(cache=True)
def initial_acceleration(data: RigidData, y: np.ndarray, acc: np.ndarray, lam: np.ndarray) -> bool:
    """Consistent accelerations dw/dt (nv) and multipliers (3K) of the index-1 DAE at y (the saddle solve).

    Returns False if the system is singular. Used for starting values and the t = 0 diagnostics.
    """
    nv = n_velocity(data)
    n = nv + 3 * data.joint_bodies.shape[0]
    A = np.empty((n, n))
    b = np.empty(n)
    assemble(data, y, A, b)
    if not lu_solve_inplace(A, b, n):
        return False
    for r in range(nv):
        acc[r] = b[r]
    for r in range(n - nv):
        lam[r] = b[nv + r]
    return True
