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

Kernel data: a :class:`CoordsData` named tuple, read by field name (numba compiles it as the plain tuple it is).
The state is [q, dq/dt].
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..jit import python_function
from ..kernels import part
from ..linalg import lu_solve_inline

FIXED, PAIR, BODY, ANGLE = 0, 1, 2, 3
COINCIDE, DISTANCE = 0, 1


class CoordsData(NamedTuple):
    mass_matrix: Any  # (n, n): M, constant
    f0: Any  # (n,): the linear force, U = -f0 . q + ...
    cos_terms: Any  # (K, 3): [i, a, phi] for a cos(q_i + phi) in U
    points: Any  # (P, 4): [type, i, ax, ay]
    constraints: Any  # (C, 5): [type, a, b, L, J]
    mass_inv: Any  # (n, n): M^-1


def make_data(
    M: np.ndarray,
    f0: np.ndarray,
    cos_terms: list[tuple[int, float, float]] | None = None,
    points: list[tuple[int, int, float, float]] | None = None,
    constraints: list[tuple[int, int, int, float] | tuple[int, int, int, float, float]] | None = None,
) -> CoordsData:
    """Pack a planar model into the kernel data (constraints without J get J = 0; M^-1 precomputed: M is
    constant, so the right-hand side needs no factorisation of it)."""
    cons = [tuple(c) + (0.0,) * (5 - len(c)) for c in (constraints or [])]
    M = np.ascontiguousarray(M, dtype=float)
    return CoordsData(
        M,
        np.asarray(f0, dtype=float),
        np.array(cos_terms or [], dtype=float).reshape(-1, 3),
        np.array(points or [], dtype=float).reshape(-1, 4),
        np.array(cons, dtype=float).reshape(-1, 5),
        np.linalg.inv(M) if M.size else np.zeros((0, 0)),
    )


def n_rows(data: CoordsData) -> int:
    """Number of scalar constraint rows."""
    return int(constraint_rows(data))


def system_size(data: CoordsData) -> int:
    """Size of the saddle-point system [[M, G^T], [G, 0]]."""
    return data.mass_matrix.shape[0] + n_rows(data)


def unpack_q(states: np.ndarray) -> dict[str, np.ndarray]:
    """Split saved states (n, 2 nq) into q and qdot."""
    nq = states.shape[1] // 2
    return {"q": states[:, :nq], "qdot": states[:, nq:]}


def point_positions(data: CoordsData, q: np.ndarray) -> np.ndarray:
    """World positions (n, P, 3) of the model's points for coordinates q (n, nq); z = 0."""
    pts = data.points
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
def constraint_terms(data: CoordsData, q: np.ndarray, qd: np.ndarray, phi: np.ndarray, G: np.ndarray,
                     gdot_qd: np.ndarray) -> int:
    """Constraint residual phi, Jacobian G = dPhi/dq and dG/dt qdot at (q, qdot); returns the row count."""
    return _terms_at(data, q, qd, phi, G, gdot_qd, 0)


@njit(cache=True, inline="always")  # in every right-hand side: no call overhead
def force(data: CoordsData, q: np.ndarray, f: np.ndarray) -> None:
    """Generalized force f = -dU/dq."""
    f0 = data.f0
    ct = data.cos_terms
    for i in range(q.shape[0]):
        f[i] = f0[i]
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        f[i] += ct[k, 1] * np.sin(q[i] + ct[k, 2])


@njit(cache=True, inline="always")  # in every stage of the explicit kernels: no call overhead
def rhs(data: CoordsData, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """Index-1 DAE: [[M, G^T], [G, 0]] [qddot; lambda] = [f(q); -dG/dt qdot] (as seed 001 solves it), by the
    Schur complement on the multipliers with the constant M^-1 (data.mass_inv): S lambda = G M^-1 f + dG/dt qdot with
    S = G M^-1 G^T, then qddot = M^-1 (f - G^T lambda).

    Returns False if S is singular.
    """
    Minv = data.mass_inv
    n = Minv.shape[0]
    q = y[:n]
    qd = y[n:]
    # G into the rows A[n:n+m, :n]; phi and then dG/dt qdot into b[n:n+m] (the later write wins)
    # _terms_at is a kernels.part: a call costs its arrays' reference counts, so none without constraints
    m = _terms_at(data, q, qd, b, A, b, n) if data.constraints.shape[0] > 0 else 0
    force(data, q, b)  # f into b[:n]
    for r in range(n):  # z = M^-1 f, kept in ydot's acceleration half
        s = 0.0
        for c in range(n):
            s += Minv[r, c] * b[c]
        ydot[n + r] = s
    if m > 0:
        for j in range(m):  # (M^-1 G^T)[:, j] into A[:n, n + j]
            for r in range(n):
                s = 0.0
                for c in range(n):
                    s += Minv[r, c] * A[n + j, c]
                A[r, n + j] = s
        for i in range(m):  # S into A[n:n+m, n:n+m]; its right-hand side G z + dG/dt qdot into b[n:n+m]
            for j in range(m):
                s = 0.0
                for r in range(n):
                    s += A[n + i, r] * A[r, n + j]
                A[n + i, n + j] = s
            s = b[n + i]
            for r in range(n):
                s += A[n + i, r] * ydot[n + r]
            b[n + i] = s
        if not lu_solve_inline(A[n:n + m, n:n + m], b[n:n + m], m):
            return False
        for r in range(n):
            s = ydot[n + r]
            for j in range(m):
                s -= A[r, n + j] * b[n + j]
            ydot[n + r] = s
    for r in range(n):
        ydot[r] = qd[r]
    return True


@njit(cache=True, inline="always")  # after every step of the kernels: no call overhead
def diagnostics(data: CoordsData, y: np.ndarray, acc: np.ndarray, d: np.ndarray) -> None:
    """Energy, |Phi|, |G qdot|, |G qddot + dG/dt qdot| (qddot from acc[n:]); NaN for the rotation fields."""
    n = data.mass_matrix.shape[0]
    q = y[:n]
    qd = y[n:]
    d[0] = _energy(data, q, qd)
    if data.constraints.shape[0] > 0:
        cp, cv, ca = _constraint_norms(data, q, qd, acc[n:])
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



# rhs and diagnostics as plain compiled calls, for once-per-run sites (the starting state): inlining there would
# only add compile time (inlining is most of a kernel's compile, docs/performance.md)
rhs_call = njit(cache=True)(python_function(rhs))
diagnostics_call = njit(cache=True)(python_function(diagnostics))

@njit(cache=True)
def force_jacobian(data: CoordsData, q: np.ndarray, JF: np.ndarray) -> None:
    """Force Jacobian JF = df/dq = -d2U/dq2 (n, n), overwritten (only the cosine terms contribute)."""
    ct = data.cos_terms
    n = q.shape[0]
    for r in range(n):
        for c in range(n):
            JF[r, c] = 0.0
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        JF[i, i] += ct[k, 1] * np.cos(q[i] + ct[k, 2])


@njit(cache=True, inline="always")  # called per constraint and column: no call overhead
def _pt(pt: np.ndarray, q: np.ndarray) -> tuple:
    """Point pt at q as scalars (no allocation): (i, Px, Py, Jx0, Jy0, Jx1, Jy1, Jx2, Jy2, ddPx, ddPy, k).

    Columns i, i+1, i+2 of the point's Jacobian (2, n) are (Jx_s, Jy_s), all other columns are zero (_col);
    ddP = d2P/dq_k^2 is its only second derivative: k is the angle coordinate the point depends on nonlinearly
    (-1 for FIXED and PAIR points, ddP = 0).
    """
    typ = int(pt[0])
    i = int(pt[1])
    ax = pt[2]
    ay = pt[3]
    if typ == FIXED:
        return 0, ax, ay, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    if typ == PAIR:
        return i, q[i], q[i + 1], 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1
    if typ == BODY:
        c = np.cos(q[i + 2])
        s = np.sin(q[i + 2])
        rx = c * ax - s * ay
        ry = s * ax + c * ay
        return i, q[i] + rx, q[i + 1] + ry, 1.0, 0.0, 0.0, 1.0, -ry, rx, -rx, -ry, i + 2
    s = np.sin(q[i])
    c = np.cos(q[i])
    return i, ax * s, -ax * c, ax * c, ax * s, 0.0, 0.0, 0.0, 0.0, -ax * s, ax * c, i


@njit(cache=True, inline="always")  # called per constraint and column: no call overhead
def _col(p: tuple, c: int) -> tuple[float, float]:
    """Column c of the Jacobian of point p (_pt)."""
    s = c - p[0]
    if s == 0:
        return p[3], p[4]
    if s == 1:
        return p[5], p[6]
    if s == 2:
        return p[7], p[8]
    return 0.0, 0.0


@njit(cache=True, inline="always")  # called per constraint point: no call overhead
def _motion(p: tuple, qd: np.ndarray) -> tuple[float, float, float, float]:
    """Velocity J qdot of point p (_pt) and the term dJ/dt qdot = (d2P/dq_k^2) qdot_k^2 (the point depends
    nonlinearly on at most one angle q_k)."""
    vx = 0.0
    vy = 0.0
    for c in range(qd.shape[0]):
        jx, jy = _col(p, c)
        vx += jx * qd[c]
        vy += jy * qd[c]
    k = p[11]
    w2 = qd[k] * qd[k] if k >= 0 else 0.0
    return vx, vy, p[9] * w2, p[10] * w2


@part
def _terms_at(data: CoordsData, q: np.ndarray, qd: np.ndarray, phi: np.ndarray, G: np.ndarray, gq: np.ndarray,
              off: int) -> int:
    """constraint_terms into rows off.. of phi, G, gq; phi[o] is written before gq[o] (rhs passes one array)."""
    pts = data.points
    cons = data.constraints
    n = q.shape[0]
    row = off
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        pa = _pt(pts[int(cons[k, 1])], q)
        pb = _pt(pts[int(cons[k, 2])], q)
        vax, vay, cax, cay = _motion(pa, qd)
        vbx, vby, cbx, cby = _motion(pb, qd)
        if typ == COINCIDE:
            phi[row] = pa[1] - pb[1]
            phi[row + 1] = pa[2] - pb[2]
            _coincide_rows(G, row, pa, pb, n)
            gq[row] = cax - cbx
            gq[row + 1] = cay - cby
            row += 2
        else:
            L = cons[k, 3]
            dx = pa[1] - pb[1]
            dy = pa[2] - pb[2]
            dvx = vax - vbx
            dvy = vay - vby
            phi[row] = dx * dx + dy * dy - L * L
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                G[row, c] = 2.0 * (dx * (jax - jbx) + dy * (jay - jby))
            gq[row] = 2.0 * (dvx * dvx + dvy * dvy) + 2.0 * (dx * (cax - cbx) + dy * (cay - cby))
            row += 1
    return row - off


@njit(cache=True, inline="always")
def scratch_size(data: CoordsData) -> int:
    """An upper bound on the size of the saddle-point systems (two rows per constraint; compiled)."""
    return data.mass_matrix.shape[0] + 2 * data.constraints.shape[0]


@njit(cache=True, inline="always")
def constraint_rows(data: CoordsData) -> int:
    """Number of scalar constraint rows (compiled; n_rows is the Python-side twin)."""
    cons = data.constraints
    m = 0
    for k in range(cons.shape[0]):
        m += 2 if int(cons[k, 0]) == COINCIDE else 1
    return m


@part
def _constraint_norms(data: CoordsData, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> tuple[float, float, float]:
    """Squared norms |Phi|^2, |G qdot|^2, |G qddot + dG/dt qdot|^2 (diagnostics; no allocation)."""
    pts = data.points
    cons = data.constraints
    n = q.shape[0]
    cp = 0.0
    cv = 0.0
    ca = 0.0
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        pa = _pt(pts[int(cons[k, 1])], q)
        pb = _pt(pts[int(cons[k, 2])], q)
        vax, vay, cax, cay = _motion(pa, qd)
        vbx, vby, cbx, cby = _motion(pb, qd)
        if typ == COINCIDE:
            sv0 = 0.0
            sv1 = 0.0
            sa0 = cax - cbx
            sa1 = cay - cby
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                g0 = jax - jbx
                g1 = jay - jby
                sv0 += g0 * qd[c]
                sa0 += g0 * qdd[c]
                sv1 += g1 * qd[c]
                sa1 += g1 * qdd[c]
            p0 = pa[1] - pb[1]
            p1 = pa[2] - pb[2]
            cp += p0 * p0
            cv += sv0 * sv0
            ca += sa0 * sa0
            cp += p1 * p1
            cv += sv1 * sv1
            ca += sa1 * sa1
        else:
            L = cons[k, 3]
            dx = pa[1] - pb[1]
            dy = pa[2] - pb[2]
            dvx = vax - vbx
            dvy = vay - vby
            p0 = dx * dx + dy * dy - L * L
            sv = 0.0
            sa = 2.0 * (dvx * dvx + dvy * dvy) + 2.0 * (dx * (cax - cbx) + dy * (cay - cby))
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                g = 2.0 * (dx * (jax - jbx) + dy * (jay - jby))
                sv += g * qd[c]
                sa += g * qdd[c]
            cp += p0 * p0
            cv += sv * sv
            ca += sa * sa
    return cp, cv, ca


@njit(cache=True)
def constraint_hessian(data: CoordsData, q: np.ndarray, z: np.ndarray, phi: np.ndarray, G: np.ndarray,
                       H: np.ndarray) -> int:
    """phi, G = dPhi/dq and the weighted Hessian H = sum_r z_r d2Phi_r/dq2 = d(G^T z)/dq (n, n); returns rows.

    Allocation-free. H is symmetric; G and H are overwritten.
    """
    pts = data.points
    cons = data.constraints
    n = q.shape[0]
    for r in range(n):
        for c in range(n):
            H[r, c] = 0.0
    row = 0
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        pa = _pt(pts[int(cons[k, 1])], q)
        pb = _pt(pts[int(cons[k, 2])], q)
        ka = pa[11]
        kb = pb[11]
        if typ == COINCIDE:
            phi[row] = pa[1] - pb[1]
            phi[row + 1] = pa[2] - pb[2]
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                G[row, c] = jax - jbx
                G[row + 1, c] = jay - jby
            if ka >= 0:
                H[ka, ka] += z[row] * pa[9]
            if kb >= 0:
                H[kb, kb] -= z[row] * pb[9]
            if ka >= 0:
                H[ka, ka] += z[row + 1] * pa[10]
            if kb >= 0:
                H[kb, kb] -= z[row + 1] * pb[10]
            row += 2
        else:
            L = cons[k, 3]
            dx = pa[1] - pb[1]
            dy = pa[2] - pb[2]
            phi[row] = dx * dx + dy * dy - L * L
            zr = z[row]
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                jx = jax - jbx
                jy = jay - jby
                G[row, c] = 2.0 * (dx * jx + dy * jy)
                if zr != 0.0:  # a zero weight adds (signed) zeros only
                    for e in range(n):
                        kax, kay = _col(pa, e)
                        kbx, kby = _col(pb, e)
                        H[c, e] += 2.0 * zr * (jx * (kax - kbx) + jy * (kay - kby))
            if ka >= 0:
                H[ka, ka] += 2.0 * zr * (dx * pa[9] + dy * pa[10])
            if kb >= 0:
                H[kb, kb] -= 2.0 * zr * (dx * pb[9] + dy * pb[10])
            row += 1
    return row


@njit(cache=True)
def constraint_jacobian(data: CoordsData, q: np.ndarray, phi: np.ndarray, G: np.ndarray) -> int:
    """phi and G = dPhi/dq only (constraint_hessian without H, same values); returns the row count."""
    pts = data.points
    cons = data.constraints
    n = q.shape[0]
    row = 0
    for k in range(cons.shape[0]):
        typ = int(cons[k, 0])
        pa = _pt(pts[int(cons[k, 1])], q)
        pb = _pt(pts[int(cons[k, 2])], q)
        if typ == COINCIDE:
            phi[row] = pa[1] - pb[1]
            phi[row + 1] = pa[2] - pb[2]
            _coincide_rows(G, row, pa, pb, n)
            row += 2
        else:
            L = cons[k, 3]
            dx = pa[1] - pb[1]
            dy = pa[2] - pb[2]
            phi[row] = dx * dx + dy * dy - L * L
            for c in range(n):
                jax, jay = _col(pa, c)
                jbx, jby = _col(pb, c)
                G[row, c] = 2.0 * (dx * (jax - jbx) + dy * (jay - jby))
            row += 1
    return row


@njit(cache=True)
def diagnostics_terms(data: CoordsData, y: np.ndarray, acc: np.ndarray, d: np.ndarray, phi: np.ndarray, G: np.ndarray,
                      gq: np.ndarray) -> int:
    """diagnostics (the same values) that also leaves phi, G and dG/dt qdot at y in phi, G, gq (constraint_terms),
    for a method that needs G(q) at the next step; returns the row count."""
    n = data.mass_matrix.shape[0]
    q = y[:n]
    qd = y[n:]
    m = constraint_terms(data, q, qd, phi, G, gq)
    d[0] = _energy(data, q, qd)
    d[1] = np.nan
    d[2] = np.nan
    d[3] = np.nan
    d[4] = np.nan
    d[5] = np.nan
    d[6] = np.nan
    if data.constraints.shape[0] > 0:
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
    return m


@njit(cache=True, inline="always")  # in every step of the kernels: no call overhead
def _energy(data: CoordsData, q: np.ndarray, qd: np.ndarray) -> float:
    """Total energy qdot^T M qdot / 2 + U(q)."""
    M = data.mass_matrix
    f0 = data.f0
    ct = data.cos_terms
    n = M.shape[0]
    e = 0.0
    for r in range(n):
        s = 0.0
        for c in range(n):
            s += M[r, c] * qd[c]
        e += 0.5 * qd[r] * s - f0[r] * q[r]
    for k in range(ct.shape[0]):
        i = int(ct[k, 0])
        e += ct[k, 1] * np.cos(q[i] + ct[k, 2])
    return e


@njit(cache=True, inline="always")  # called per constraint and column: no call overhead
def _coincide_rows(G: np.ndarray, row: int, pa: tuple, pb: tuple, n: int) -> None:
    """G[row:row + 2] = J_a - J_b from the (at most 3) nonzero columns of each point (_pt): the same values as
    column-by-column differences (x + 0 = x, 0 - y = -y)."""
    for c in range(n):
        G[row, c] = 0.0
        G[row + 1, c] = 0.0
    i = pa[0]
    if i < n:
        G[row, i] += pa[3]
        G[row + 1, i] += pa[4]
    if i + 1 < n:
        G[row, i + 1] += pa[5]
        G[row + 1, i + 1] += pa[6]
    if i + 2 < n:
        G[row, i + 2] += pa[7]
        G[row + 1, i + 2] += pa[8]
    i = pb[0]
    if i < n:
        G[row, i] -= pb[3]
        G[row + 1, i] -= pb[4]
    if i + 1 < n:
        G[row, i + 1] -= pb[5]
        G[row + 1, i + 1] -= pb[6]
    if i + 2 < n:
        G[row, i + 2] -= pb[7]
        G[row + 1, i + 2] -= pb[8]


@njit(cache=True)
def difference_acceleration(w_older, w_old, w_new, h, k, acc):
    """The coords counterpart of rigid.difference_acceleration: qddot into acc[n:] from the last velocities.

    Second-order backward difference (3 w_new - 4 w_old + w_older) / (2h), first order at the first step (k = 1).
    """
    n = w_new.shape[0]
    for j in range(n):
        if k <= 1:
            acc[n + j] = (w_new[j] - w_old[j]) / h
        else:
            acc[n + j] = (3.0 * w_new[j] - 4.0 * w_old[j] + w_older[j]) / (2.0 * h)


@njit(cache=True)
def consistent_start(data: CoordsData, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray,
                     acc: np.ndarray, w_old: np.ndarray, w_older: np.ndarray) -> bool:
    """The t = 0 record of the implicit coords kernels: the index-1 DAE's consistent acceleration into acc[n:]
    (and ydot, with the multipliers in b[n:]), and the velocity history for difference_acceleration.
    False if the saddle-point system is singular."""
    if not rhs(data, t, y, ydot, A, b):
        return False
    n = w_old.shape[0]
    for r in range(n):
        acc[n + r] = ydot[n + r]
        w_old[r] = y[n + r]
        w_older[r] = y[n + r]
    return True
