"""Planar systems in generalized coordinates: the one machinery of the planar benchmarks.

q in R^n with a constant mass matrix M, potential U(q) = -f0 . q + sum_k a_k cos(q_{i_k} + phi_k)
(linear gravity terms in absolute or natural coordinates, cosine terms for angle coordinates) and
holonomic constraints built from points:

- point types: FIXED (x, y); PAIR (q_i, q_{i+1}); BODY (q_i, q_{i+1}) + Rot(q_{i+2}) (ax, ay) (a point of a
  planar body in absolute coordinates); ANGLE (ax sin q_i, -ax cos q_i) (a point at distance ax from the origin
  on a pendulum whose angle q_i is measured from the downward vertical);
- constraint types: COINCIDE (P_a - P_b = 0, 2 rows) and DISTANCE (|P_a - P_b|^2 - L^2 = 0, 1 row,
  the natural-coordinate form of seed 003); a DISTANCE row may carry J, the moment of inertia about its centre of
  mass of the bar it holds together (used only by seed 003's gamma family in methods/spark.py; 0 if unknown).

Kernel data tuple: ``(M (n,n), f0 (n,), cos_terms (K,3) [i, a, phi], points (P,4) [type, i, ax, ay],
constraints (C,5) [type, a, b, L, J])``. The state is [q, dq/dt].
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..linalg import lu_solve_inplace

FIXED, PAIR, BODY, ANGLE = 0, 1, 2, 3
COINCIDE, DISTANCE = 0, 1


def make_data(
    M: np.ndarray,
    f0: np.ndarray,
    cos_terms: list[tuple[int, float, float]] | None = None,
    points: list[tuple[int, int, float, float]] | None = None,
    constraints: list[tuple[int, int, int, float] | tuple[int, int, int, float, float]] | None = None,
) -> tuple:
    """Pack a planar model into the kernel tuple (constraints without J get J = 0)."""
    cons = [tuple(c) + (0.0,) * (5 - len(c)) for c in (constraints or [])]
    return (
        np.ascontiguousarray(M, dtype=float),
        np.asarray(f0, dtype=float),
        np.array(cos_terms or [], dtype=float).reshape(-1, 3),
        np.array(points or [], dtype=float).reshape(-1, 4),
        np.array(cons, dtype=float).reshape(-1, 5),
    )


def n_rows(data: tuple) -> int:
    """Number of scalar constraint rows."""
    cons = data[4]
    return int(sum(2 if int(c[0]) == COINCIDE else 1 for c in cons))


def system_size(data: tuple) -> int:
    """Size of the saddle-point system [[M, G^T], [G, 0]]."""
    return data[0].shape[0] + n_rows(data)


def unpack_q(states: np.ndarray) -> dict[str, np.ndarray]:
    """Split saved states (n, 2 nq) into q and qdot."""
    nq = states.shape[1] // 2
    return {"q": states[:, :nq], "qdot": states[:, nq:]}


def point_positions(data: tuple, q: np.ndarray) -> np.ndarray:
    """World positions (n, P, 3) of the model's points for coordinates q (n, nq); z = 0."""
    pts = data[3]
    out = np.zeros((q.shape[0], pts.shape[0], 3))
    for p, (typ, idx, ax, ay) in enumerate(pts):
        i = int(idx)
        t = int(typ)
        if t == FIXED:
            out[:, p, 0], out[:, p, 1] = ax, ay
        elif t == PAIR:
            out[:, p, 0], out[:, p, 1] = q[:, i], q[:, i + 1]
        elif t == BODY:
            c, s = np.cos(q[:, i + 2]), np.sin(q[:, i + 2])
            out[:, p, 0] = q[:, i] + c * ax - s * ay
            out[:, p, 1] = q[:, i + 1] + s * ax + c * ay
        else:
            out[:, p, 0] = ax * np.sin(q[:, i])
            out[:, p, 1] = -ax * np.cos(q[:, i])
    return out


@njit(cache=True)
def constraint_terms(data: tuple, q: np.ndarray, qd: np.ndarray, phi: np.ndarray, G: np.ndarray,
                     gdot_qd: np.ndarray) -> int:
    """Constraint residual phi, Jacobian G = dPhi/dq and dG/dt qdot at (q, qdot); returns the row count."""
    pts = data[3]
    cons = data[4]
    n = q.shape[0]
    Pa = np.empty(2)
    Pb = np.empty(2)
    Va = np.empty(2)
    Vb = np.empty(2)
    Ca = np.empty(2)
    Cb = np.empty(2)
    Ja = np.empty((2, n))
    Jb = np.empty((2, n))
    row = 0
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        _point(pts[int(cons[k, 1])], q, qd, Pa, Ja, Va, Ca)
        _point(pts[int(cons[k, 2])], q, qd, Pb, Jb, Vb, Cb)
        if typ == COINCIDE:
            for r in range(2):
                phi[row + r] = Pa[r] - Pb[r]
                for c in range(n):
                    G[row + r, c] = Ja[r, c] - Jb[r, c]
                gdot_qd[row + r] = Ca[r] - Cb[r]
            row += 2
        else:
            L = cons[k, 3]
            dx = Pa[0] - Pb[0]
            dy = Pa[1] - Pb[1]
            dvx = Va[0] - Vb[0]
            dvy = Va[1] - Vb[1]
            phi[row] = dx * dx + dy * dy - L * L
            for c in range(n):
                G[row, c] = 2.0 * (dx * (Ja[0, c] - Jb[0, c]) + dy * (Ja[1, c] - Jb[1, c]))
            gdot_qd[row] = 2.0 * (dvx * dvx + dvy * dvy) + 2.0 * (dx * (Ca[0] - Cb[0]) + dy * (Ca[1] - Cb[1]))
            row += 1
    return row


@njit(cache=True)
def force(data: tuple, q: np.ndarray, f: np.ndarray) -> None:
    """Generalized force f = -dU/dq."""
    f0 = data[1]
    ct = data[2]
    for i in range(q.shape[0]):
        f[i] = f0[i]
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        f[i] += ct[k, 1] * np.sin(q[i] + ct[k, 2])


@njit(cache=True)
def rhs(data: tuple, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """Index-1 DAE: [[M, G^T], [G, 0]] [qddot; lambda] = [f(q); -dG/dt qdot] (as seed 001 solves it).

    Returns False if the matrix is singular.
    """
    M = data[0]
    n = M.shape[0]
    q = y[:n]
    qd = y[n:]
    nr = data[4].shape[0] * 2
    phi = np.empty(nr)
    G = np.empty((nr, n))
    gq = np.empty(nr)
    m = constraint_terms(data, q, qd, phi, G, gq)
    size = n + m
    for r in range(size):
        for c in range(size):
            A[r, c] = 0.0
    for r in range(n):
        for c in range(n):
            A[r, c] = M[r, c]
    for r in range(m):
        for c in range(n):
            A[n + r, c] = G[r, c]
            A[c, n + r] = G[r, c]
        b[n + r] = -gq[r]
    f = np.empty(n)
    force(data, q, f)
    for r in range(n):
        b[r] = f[r]
    if not lu_solve_inplace(A, b, size):
        return False
    for r in range(n):
        ydot[r] = qd[r]
        ydot[n + r] = b[r]
    return True


@njit(cache=True)
def diagnostics(data: tuple, y: np.ndarray, acc: np.ndarray, d: np.ndarray) -> None:
    """Energy, |Phi|, |G qdot|, |G qddot + dG/dt qdot| (qddot from acc[n:]); NaN for the rotation fields."""
    M = data[0]
    f0 = data[1]
    ct = data[2]
    n = M.shape[0]
    q = y[:n]
    qd = y[n:]
    e = 0.0
    for r in range(n):
        s = 0.0
        for c in range(n):
            s += M[r, c] * qd[c]
        e += 0.5 * qd[r] * s - f0[r] * q[r]
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        e += ct[k, 1] * np.cos(q[i] + ct[k, 2])
    d[0] = e
    nr = data[4].shape[0] * 2
    if data[4].shape[0] > 0:
        phi = np.empty(nr)
        G = np.empty((nr, n))
        gq = np.empty(nr)
        m = constraint_terms(data, q, qd, phi, G, gq)
        cp = 0.0
        cv = 0.0
        ca = 0.0
        for r in range(m):
            sv = 0.0
            sa = gq[r]
            for c in range(n):
                sv += G[r, c] * qd[c]
                sa += G[r, c] * acc[n + c]
            cp += phi[r] * phi[r]
            cv += sv * sv
            ca += sa * sa
        d[1] = np.sqrt(cp)
        d[2] = np.sqrt(cv)
        d[3] = np.sqrt(ca)
    else:
        d[1] = np.nan
        d[2] = np.nan
        d[3] = np.nan
    d[4] = np.nan
    d[5] = np.nan
    d[6] = np.nan


@njit(cache=True)
def force_jacobian(data: tuple, q: np.ndarray, JF: np.ndarray) -> None:
    """Force Jacobian JF = df/dq = -d2U/dq2 (n, n), overwritten (only the cosine terms contribute)."""
    ct = data[2]
    n = q.shape[0]
    for r in range(n):
        for c in range(n):
            JF[r, c] = 0.0
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        JF[i, i] += ct[k, 1] * np.cos(q[i] + ct[k, 2])


@njit(cache=True)
def _point_second(pt: np.ndarray, q: np.ndarray, P: np.ndarray, Jp: np.ndarray, ddP: np.ndarray) -> int:
    """Point position P (2), Jacobian Jp (2, n) and its only second derivative ddP = d2P/dq_k^2 (2); returns k.

    k is the angle coordinate the point depends on nonlinearly (-1 for FIXED and PAIR points, ddP = 0).
    """
    n = q.shape[0]
    for r in range(2):
        for c in range(n):
            Jp[r, c] = 0.0
        ddP[r] = 0.0
    typ = int(pt[0])
    i = int(pt[1])
    ax = pt[2]
    ay = pt[3]
    if typ == FIXED:
        P[0] = ax
        P[1] = ay
        return -1
    if typ == PAIR:
        P[0] = q[i]
        P[1] = q[i + 1]
        Jp[0, i] = 1.0
        Jp[1, i + 1] = 1.0
        return -1
    if typ == BODY:
        c = np.cos(q[i + 2])
        s = np.sin(q[i + 2])
        rx = c * ax - s * ay
        ry = s * ax + c * ay
        P[0] = q[i] + rx
        P[1] = q[i + 1] + ry
        Jp[0, i] = 1.0
        Jp[1, i + 1] = 1.0
        Jp[0, i + 2] = -ry
        Jp[1, i + 2] = rx
        ddP[0] = -rx
        ddP[1] = -ry
        return i + 2
    s = np.sin(q[i])
    c = np.cos(q[i])
    P[0] = ax * s
    P[1] = -ax * c
    Jp[0, i] = ax * c
    Jp[1, i] = ax * s
    ddP[0] = -ax * s
    ddP[1] = ax * c
    return i


@njit(cache=True)
def _point(pt: np.ndarray, q: np.ndarray, qd: np.ndarray, P: np.ndarray, Jp: np.ndarray, Pv: np.ndarray,
           Pc: np.ndarray) -> None:
    """Point position P (2), Jacobian rows Jp (2, n) (overwritten), velocity Pv and the term Pc = dJ/dt qdot.

    A point depends nonlinearly on at most one angle q_k, so dJ/dt qdot = (d2P/dq_k^2) qdot_k^2 (_point_second).
    """
    k = _point_second(pt, q, P, Jp, Pc)
    w2 = qd[k] * qd[k] if k >= 0 else 0.0
    n = q.shape[0]
    for r in range(2):
        Pc[r] *= w2
        acc = 0.0
        for cc in range(n):
            acc += Jp[r, cc] * qd[cc]
        Pv[r] = acc


@njit(cache=True)
def constraint_hessian(data: tuple, q: np.ndarray, z: np.ndarray, phi: np.ndarray, G: np.ndarray, H: np.ndarray,
                       P4: np.ndarray, J4: np.ndarray) -> int:
    """phi, G = dPhi/dq and the weighted Hessian H = sum_r z_r d2Phi_r/dq2 = d(G^T z)/dq (n, n); returns rows.

    Allocation-free: P4 (4, 2) and J4 (4, n) are scratch. H is symmetric; G and H are overwritten.
    """
    pts = data[3]
    cons = data[4]
    n = q.shape[0]
    for r in range(n):
        for c in range(n):
            H[r, c] = 0.0
    Ja = J4[0:2]
    Jb = J4[2:4]
    row = 0
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        ka = _point_second(pts[int(cons[k, 1])], q, P4[0], Ja, P4[2])
        kb = _point_second(pts[int(cons[k, 2])], q, P4[1], Jb, P4[3])
        if typ == COINCIDE:
            for r in range(2):
                phi[row + r] = P4[0, r] - P4[1, r]
                for c in range(n):
                    G[row + r, c] = Ja[r, c] - Jb[r, c]
                if ka >= 0:
                    H[ka, ka] += z[row + r] * P4[2, r]
                if kb >= 0:
                    H[kb, kb] -= z[row + r] * P4[3, r]
            row += 2
        else:
            L = cons[k, 3]
            dx = P4[0, 0] - P4[1, 0]
            dy = P4[0, 1] - P4[1, 1]
            phi[row] = dx * dx + dy * dy - L * L
            zr = z[row]
            for c in range(n):
                jx = Ja[0, c] - Jb[0, c]
                jy = Ja[1, c] - Jb[1, c]
                G[row, c] = 2.0 * (dx * jx + dy * jy)
                for e in range(n):
                    H[c, e] += 2.0 * zr * (jx * (Ja[0, e] - Jb[0, e]) + jy * (Ja[1, e] - Jb[1, e]))
            if ka >= 0:
                H[ka, ka] += 2.0 * zr * (dx * P4[2, 0] + dy * P4[2, 1])
            if kb >= 0:
                H[kb, kb] -= 2.0 * zr * (dx * P4[3, 0] + dy * P4[3, 1])
            row += 1
    return row
