"""Spherical joints of the rigid machinery: their residual and Jacobians in the Lie-algebra sense (seed 000
Table 1, docs/algorithms.md section 0), the Jacobians' derivatives, and the sparse joint-block algebra of lgvi's
Newton iteration (each joint couples at most two bodies).

A joint k couples the point ``a`` of body ``i`` (body frame) with the point ``b`` of body ``j`` (or the fixed world
point ``b`` when ``j = -1``): Phi_k = x_i + R_i a - x_j - R_j b (seed 000 eq. 24). The data tuple and state layout
are solvers.models.rigid's; solvers.models.rigid re-exports the functions its users call.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from ..jit import python_function
from ..kernels import part
from ..linalg import (
    _lu_factor_inline,
    band_cholesky_factor,
    band_cholesky_solve,
    band_lu_factor,
    band_lu_solve,
    band_width,
    block3_factor,
    block3_solve,
    lu_solve_factored_inline,
    lu_solve_inline,
)
from .rigid_data import RigidData


@njit(cache=True, inline="always")  # in every Newton iteration: no call overhead for the data tuple
def constraint_residual(data: RigidData, y: np.ndarray, phi: np.ndarray) -> None:
    """Phi (3K): x_i + R_i a - x_j - R_j b per joint (seed 000 eq. 24)."""
    jb, jp, y_off = data.joint_bodies, data.joint_points, data.y_off
    for k in range(jb.shape[0]):
        i = jb[k, 0]
        j = jb[k, 1]
        a = jp[k, 0]
        b = jp[k, 1]
        oi = y_off[i]
        for r in range(3):
            s = y[oi + 9 + r]
            for c in range(3):
                s += y[oi + 3 * r + c] * a[c]
            if j >= 0:
                oj = y_off[j]
                s -= y[oj + 9 + r]
                for c in range(3):
                    s -= y[oj + 3 * r + c] * b[c]
            else:
                s -= b[r]
            phi[3 * k + r] = s


@njit(cache=True, inline="always")
def constraint_residual_step(rd, y, w, sc, phi0, out):
    """out (3K) = Phi(y exp(w)) from phi0 = Phi(y) and the increment (seed 000 eq. 24; sides i: +, j: -):

        Phi_k(q exp(w)) = Phi_k(q) + sum_s +-(w_v,c + R_c (exp(hat(w_Omega,c)) - I) p),
        (exp(hat(w)) - I) p = sinc1(|w|) w x p + cosc2(|w|) w x (w x p)   (Rodrigues, docs/algorithms.md sec. 0),

    body c and point p of joint side s, sc[c] = (sinc1, cosc2)(|w_Omega,c|) (the caller has them from exp). The same
    function as constraint_residual at q exp(w), but with round-off relative to the increment instead of eps |x|:
    Newton's residual Phi/h of the implicit methods then has no floor eps |x| / h, which the inverse Schur
    complement amplified into multiplier updates above the stall band on long chains (lie_galpha's docstring,
    "Newton's residual floor").
    """
    jb, jp, y_off, v_off = rd.joint_bodies, rd.joint_points, rd.y_off, rd.v_off
    for k in range(jb.shape[0]):
        e0 = 0.0
        e1 = 0.0
        e2 = 0.0
        for side in range(2):
            body = jb[k, side]
            if body < 0:
                continue
            sign = 1.0 if side == 0 else -1.0
            o = y_off[body]
            c = v_off[body]
            w0 = w[c]
            w1 = w[c + 1]
            w2 = w[c + 2]
            sa = sc[body, 0]
            cb = sc[body, 1]
            p0 = jp[k, side, 0]
            p1 = jp[k, side, 1]
            p2 = jp[k, side, 2]
            u0 = w1 * p2 - w2 * p1  # w x p
            u1 = w2 * p0 - w0 * p2
            u2 = w0 * p1 - w1 * p0
            d0 = sa * u0 + cb * (w1 * u2 - w2 * u1)  # (exp(hat(w)) - I) p
            d1 = sa * u1 + cb * (w2 * u0 - w0 * u2)
            d2 = sa * u2 + cb * (w0 * u1 - w1 * u0)
            e0 += sign * (y[o] * d0 + y[o + 1] * d1 + y[o + 2] * d2 + w[c + 3])
            e1 += sign * (y[o + 3] * d0 + y[o + 4] * d1 + y[o + 5] * d2 + w[c + 4])
            e2 += sign * (y[o + 6] * d0 + y[o + 7] * d1 + y[o + 8] * d2 + w[c + 5])
        out[3 * k] = phi0[3 * k] + e0
        out[3 * k + 1] = phi0[3 * k + 1] + e1
        out[3 * k + 2] = phi0[3 * k + 2] + e2


@njit(cache=True, inline="always")
def rot_hat_row(y: np.ndarray, o: int, r: int, p0: float, p1: float, p2: float) -> tuple:
    """Row r of R hat(p) for the body whose state starts at o (R row-major at y[o : o + 9])."""
    R0 = y[o + 3 * r]
    R1 = y[o + 3 * r + 1]
    R2 = y[o + 3 * r + 2]
    return R1 * p2 - R2 * p1, R2 * p0 - R0 * p2, R0 * p1 - R1 * p0


@njit(cache=True, inline="always")
def _joint_columns(data: RigidData, y: np.ndarray, v, M: np.ndarray) -> None:
    """M (3K x nv) = B(q) (v None) or Z = d/dq [B(q) v] at fixed v, column blocks per joint side s (sign_s = -1
    for side i, +1 for side j): B: sign_s R hat(a) | -sign_s I; Z: sign_s R hat(Omega x a) | 0."""
    jb, jp, y_off, v_off = data.joint_bodies, data.joint_points, data.y_off, data.v_off
    nv = v_off[data.mass.shape[0]]
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
            vb = v_off[body]
            p0 = a[0]
            p1 = a[1]
            p2 = a[2]
            if v is not None:  # p = Omega x a
                W0 = v[vb]
                W1 = v[vb + 1]
                W2 = v[vb + 2]
                p0 = W1 * a[2] - W2 * a[1]
                p1 = W2 * a[0] - W0 * a[2]
                p2 = W0 * a[1] - W1 * a[0]
            for r in range(3):
                g0, g1, g2 = rot_hat_row(y, y_off[body], r, p0, p1, p2)
                M[3 * k + r, vb] = sign * g0
                M[3 * k + r, vb + 1] = sign * g1
                M[3 * k + r, vb + 2] = sign * g2
                if v is None:
                    M[3 * k + r, vb + 3 + r] = -sign


@njit(cache=True)
def constraint_jacobian(data: RigidData, y: np.ndarray, B: np.ndarray) -> None:
    """B (3K x nv), B w = dPhi/dt: B_Omega_i = -R_i hat(a), B_v_i = I, B_Omega_j = R_j hat(b), B_v_j = -I.

    (seed 000 Table 1; docs/algorithms.md section 0). Overwrites the first 3K rows and nv columns.
    """
    _joint_columns(data, y, None, B)


@njit(cache=True)
def velocity_constraint_jacobian(data: RigidData, y: np.ndarray, v: np.ndarray, Z: np.ndarray) -> None:
    """Z (3K x nv) = d/dq [B(q) v] at fixed v: -R_i hat(Omega_i x a) for side i, +R_j hat(Omega_j x b) for side j
    (rotational columns; the translational ones are 0). Z of the stabilised index-2 Lie-alpha (docs/algorithms.md
    section 2). Overwrites the first 3K rows and nv columns.
    """
    _joint_columns(data, y, v, Z)


@njit(cache=True)
def constraint_force_derivative(data: RigidData, y: np.ndarray, lam: np.ndarray, K: np.ndarray) -> None:
    """K (nv x nv) = d/d(dq) [B(q exp(dq))^T lam] at dq = 0 (the stiffness of the constraint forces).

    B_Omega_i^T lam = a x (R_i^T lam) changes as hat(a) hat(R_i^T lam) dq_Omega_i, and the R_j term with the
    opposite sign; translational blocks are constant. Overwrites the first nv x nv block.
    """
    jb, jp, y_off, v_off = data.joint_bodies, data.joint_points, data.y_off, data.v_off
    nv = v_off[data.mass.shape[0]]
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
            o = y_off[body]
            vb = v_off[body]
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
                    K[vb + r, vb + c] += sign * (u[r] * a[c] - (au if r == c else 0.0))


@njit(cache=True)
def transpose_times(B: np.ndarray, lam: np.ndarray, m: int, n: int, out: np.ndarray) -> None:
    """out[:n] = B[:m, :n]^T lam[:m]."""
    for c in range(n):
        s = 0.0
        for r in range(m):
            s += B[r, c] * lam[r]
        out[c] = s


@njit(cache=True, inline="always")
def times_tangent(data: RigidData, B: np.ndarray, Ts: np.ndarray, out: np.ndarray) -> None:
    """out = B diag(T_1, I, ..., T_N, I): the rotational column blocks of B (m x nv) times T_i on the right.

    B(q exp(w)) T(w) is d/dw Phi(q exp(w)) (docs/algorithms.md sections 0, 2, 3); Ts is (N, 3, 3).
    """
    pinned, v_off = data.pinned, data.v_off
    nb = Ts.shape[0]
    for r in range(B.shape[0]):
        for i in range(nb):
            c0 = v_off[i]
            b0 = B[r, c0]
            b1 = B[r, c0 + 1]
            b2 = B[r, c0 + 2]
            T = Ts[i]
            for c in range(3):
                out[r, c0 + c] = b0 * T[0, c] + b1 * T[1, c] + b2 * T[2, c]
            if not pinned[i]:
                for c in range(3, 6):
                    out[r, c0 + c] = B[r, c0 + c]


@njit(cache=True)
def topology(jb: np.ndarray, nb: int, ninc: np.ndarray, incj: np.ndarray, incs: np.ndarray) -> None:
    """Per body, the joint sides (joint k, side s) that touch it."""
    for i in range(nb):
        ninc[i] = 0
    for k in range(jb.shape[0]):
        for s in range(2):
            body = jb[k, s]
            if body >= 0:
                incj[body, ninc[body]] = k
                incs[body, ninc[body]] = s
                ninc[body] += 1


@njit(cache=True, inline="always")
def joint_blocks(jb: np.ndarray, jp: np.ndarray, y_off: np.ndarray, q: np.ndarray, G: np.ndarray) -> None:
    """Rotational blocks of B(q) (seed 000 Table 1): G[k, s] = sign_s R hat(point), sign_0 = -1, sign_1 = +1.

    The translational blocks are -sign_s I. (constraint_jacobian builds the same matrix densely.)
    """
    for k in range(jb.shape[0]):
        for s in range(2):
            body = jb[k, s]
            if body < 0:
                continue
            sign = -1.0 if s == 0 else 1.0
            for r in range(3):
                g0, g1, g2 = rot_hat_row(q, y_off[body], r, jp[k, s, 0], jp[k, s, 1], jp[k, s, 2])
                G[k, s, r, 0] = sign * g0
                G[k, s, r, 1] = sign * g1
                G[k, s, r, 2] = sign * g2


@njit(cache=True, inline="always")
def bt_rot(G, ninc, incj, incs, i, nu, scale, c0, c1, c2) -> tuple:
    """c + (B^T (scale nu))_rot,i: the rotational part of B^T nu at body i from the blocks G (see joint_blocks)."""
    for m in range(ninc[i]):
        k = incj[i, m]
        sd = incs[i, m]
        n0 = nu[3 * k] * scale
        n1 = nu[3 * k + 1] * scale
        n2 = nu[3 * k + 2] * scale
        c0 += G[k, sd, 0, 0] * n0 + G[k, sd, 1, 0] * n1 + G[k, sd, 2, 0] * n2
        c1 += G[k, sd, 0, 1] * n0 + G[k, sd, 1, 1] * n1 + G[k, sd, 2, 1] * n2
        c2 += G[k, sd, 0, 2] * n0 + G[k, sd, 1, 2] * n1 + G[k, sd, 2, 2] * n2
    return c0, c1, c2


@njit(cache=True, inline="always")
def bt_tr_add(ninc, incj, incs, i, o, nu, scale, out) -> None:
    """out[o + 3 : o + 6] += (B^T (scale nu))_tr,i, o body i's velocity offset (the translational blocks of B are
    -sign_s I, see joint_blocks)."""
    for m in range(ninc[i]):
        k = incj[i, m]
        sign = -1.0 if incs[i, m] == 0 else 1.0
        for r in range(3):
            out[o + 3 + r] -= sign * nu[3 * k + r] * scale


@njit(cache=True, inline="always")
def topology_of(data: RigidData) -> tuple:
    """(ninc, incj, incs, band) from the rigid data tuple's topology array (rigid.make_data): per body the number of
    joint sides touching it and their joints and sides (views), and the Schur complement's half bandwidth."""
    topo = data.topology
    nb = data.mass.shape[0]
    width = (topo.shape[1] - 1) // 2
    return topo[:nb, 0], topo[:nb, 1 : 1 + width], topo[:nb, 1 + width :], topo[nb, 0]


@njit(cache=True)
def band_of(jb: np.ndarray, nb: int) -> int:
    """Half bandwidth of the multipliers' Schur complement B X B^T (X block diagonal per body): 3 d + 2, d the
    largest index distance of two joints that share a body (joints listed along a chain: d = 1, a block-
    tridiagonal matrix; the band of linalg.band_lu_factor)."""
    nj = jb.shape[0]
    if nj == 0:
        return 0
    first = np.full(nb, -1, dtype=np.int64)  # per body, the first and last joint touching it
    last = np.full(nb, -1, dtype=np.int64)
    for k in range(nj):
        for s in range(2):
            body = jb[k, s]
            if body >= 0:
                if first[body] < 0:
                    first[body] = k
                last[body] = k
    d = 0
    for i in range(nb):
        if first[i] >= 0:
            d = max(d, last[i] - first[i])
    return 3 * d + 2


@njit(cache=True, inline="always")
def schur_storage(nm: int, kl: int) -> tuple[int, int]:
    """(kl, columns) of the multipliers' Schur complement of size nm with half bandwidth kl (band_of): band
    storage when the band leaves out part of the matrix, else dense storage, marked kl = -1 (a small system such
    as the double pendulum's: the dense elimination is faster than the band one)."""
    if kl >= nm - 1:
        return -1, max(nm, 1)
    return kl, band_width(kl, kl)


@njit(cache=True, inline="always")
def schur_storage_spd(nm: int, kl: int) -> tuple[int, int]:
    """(kl, columns) of a symmetric positive definite Schur complement (B M^-1 B^T, project_momentum): the block storage
    of linalg.block3_factor, marked kl = -2 (9 columns), when it is block-tridiagonal (joints along a chain, band_of
    at most 5: block LU is faster than the band solve there, by a quarter on the double pendulum and a third at 64
    rods); else as schur_storage."""
    if 0 < kl <= 5:
        return -2, 9
    return schur_storage(nm, kl)


@njit(cache=True, inline="always")
def joint_length(data: RigidData) -> float:
    """The largest joint point coordinate (1 without joints): the scale of a constraint residual Phi."""
    jp = data.joint_points
    length = 0.0
    for k in range(jp.shape[0]):
        for s in range(2):
            for r in range(3):
                length = max(length, abs(jp[k, s, r]))
    return length if length > 0.0 else 1.0


@njit(cache=True, inline="always")
def schur_layouts(data: RigidData) -> tuple:
    """(kl, kl_piv, columns) for a kernel whose Newton matrix's Schur complement is close to B M^-1 B^T but not
    symmetric (lgvi's, RATTLie's stage (a)): kl the storage of schur_storage_spd, block LU without pivoting on a
    chain (O(N) per solve), which such a kernel switches to kl_piv (schur_storage, partial pivoting) should the
    block LU report a singular block; columns enough for either."""
    band = topology_of(data)[3]
    nm = 3 * data.joint_bodies.shape[0]
    kl, width = schur_storage_spd(nm, band)
    kl_piv, width_piv = schur_storage(nm, band)
    return kl, kl_piv, max(width, width_piv)


@part
def schur_factor(S, kl, piv, n) -> bool:
    """Factorise a Schur complement: LU with partial pivoting in the storage of schur_storage (dense or band), or block
    LU without pivoting in the block storage of schur_storage_spd (kl = -2; the kernels that use it for a Newton matrix
    switch to partial pivoting if it reports a singular block)."""
    if kl == -2:
        return block3_factor(S, n // 3)
    if kl < 0:
        return _lu_factor_inline(S, piv, None, n)
    return _band_lu_factor_inline(S, piv, n, kl, kl)


@njit(cache=True, inline="always")
def schur_solve(S, kl, piv, b, n) -> None:
    """Solve with the factors of schur_factor; b[:n] holds the solution on return."""
    if kl == -2:
        block3_solve(S, b, n // 3)
    elif kl < 0:
        lu_solve_factored_inline(S, piv, b, n)
    else:
        _band_lu_solve_inline(S, piv, b, n, kl, kl)


@njit(cache=True, inline="always")
def schur_factor_spd(S, kl, piv, n) -> bool:
    """Factorise a symmetric positive definite Schur complement in the storage of schur_storage_spd (block-tridiagonal:
    block LU; band: Cholesky; dense: LU with partial pivoting, piv). False if it is singular."""
    if kl == -2:
        return block3_factor(S, n // 3)
    if kl < 0:
        return _lu_factor_inline(S, piv, None, n)
    return band_cholesky_factor(S, 0, n, kl)


@njit(cache=True, inline="always")
def schur_solve_spd(S, kl, piv, b, n) -> None:
    """Solve with the factors of schur_factor_spd; b[:n] holds the solution on return."""
    if kl == -2:
        block3_solve(S, b, n // 3)
    elif kl < 0:
        lu_solve_factored_inline(S, piv, b, n)
    else:
        band_cholesky_solve(S, 0, b, 0, n, kl)


@njit(cache=True, inline="always")
def tangent_times_inverse(T, Ainv, i, W, r, o) -> tuple:
    """W = T[i] Ainv[i] (3x3) and W r[o : o + 3] as three numbers: body i's rotational block of D A^-1 when the rows
    of D carry the tangent operator T (the Newton matrices of lgvi and lie_galpha; schur_add's X and t)."""
    for a in range(3):
        for c in range(3):
            W[a, c] = T[i, a, 0] * Ainv[i, 0, c] + T[i, a, 1] * Ainv[i, 1, c] + T[i, a, 2] * Ainv[i, 2, c]
    return (W[0, 0] * r[o] + W[0, 1] * r[o + 1] + W[0, 2] * r[o + 2],
            W[1, 0] * r[o] + W[1, 1] * r[o + 1] + W[1, 2] * r[o + 2],
            W[2, 0] * r[o] + W[2, 1] * r[o + 1] + W[2, 2] * r[o + 2])


@njit(cache=True, inline="always")
def schur_rhs_add(rhs, coef, i, o, t0, t1, t2, u, uscale, Gl, ninc, incj, incs) -> None:
    """rhs += coef Dl H_i^-1 r for body i (the right-hand side half of schur_add; arguments as there)."""
    for mi in range(ninc[i]):
        kj = incj[i, mi]
        sd = incs[i, mi]
        sign = -1.0 if sd == 0 else 1.0
        for r in range(3):
            rhs[3 * kj + r] += coef * (Gl[kj, sd, r, 0] * t0 + Gl[kj, sd, r, 1] * t1 + Gl[kj, sd, r, 2] * t2
                                       - sign * (u[o + 3 + r] * uscale))


@njit(cache=True, inline="always")
def schur_start(S: np.ndarray, rhs: np.ndarray, r2: np.ndarray, nm: int, fresh: bool) -> None:
    """Start the multipliers' Schur system S dmu = r2 - (per-body terms, :func:`schur_add`): rhs = r2, and a
    fresh S (a new Newton matrix) at zero."""
    for r in range(nm):
        rhs[r] = r2[r]
        if fresh:
            for c in range(S.shape[1]):
                S[r, c] = 0.0


@njit(cache=True, inline="always")
def schur_add(S, kl, rhs, coef, i, o, X, t0, t1, t2, u, uscale, im, Gl, Gr, ninc, incj, incs, V) -> None:
    """Body i's part of the Schur complement on the multipliers: S += Dl H_i^-1 Cr^T, rhs += coef Dl H_i^-1 r.

    Dl, Cr: the joint blocks of body i (rotational Gl, Gr (see joint_blocks), translational -sign I); H_i^-1 =
    blockdiag(X, im I) with im = 1/m_i; (t0, t1, t2) = X r_rot and u[o + 3 + r] * uscale = r_tr / m_i are given
    (o: body i's velocity offset). S is in the band storage of linalg.band_lu_factor with lower bandwidth kl
    (band_of): entry (r, c) at S[r, c - r + kl]; or dense (S[r, c]) when kl = -1 (schur_storage); or in the block
    storage of linalg.block3_factor when kl = -2 (schur_storage_spd): entry (3 k + a, 3 l + c) at
    S[3 k + a, 3 (l - k + 1) + c].
    """
    schur_rhs_add(rhs, coef, i, o, t0, t1, t2, u, uscale, Gl, ninc, incj, incs)
    lead = 0 if kl < 0 else 1
    blk = 1 if kl == -2 else 0
    for m2 in range(ninc[i]):
        ll = incj[i, m2]
        tt = incs[i, m2]
        sign_t = -1.0 if tt == 0 else 1.0
        # V = X Gr[l, tt]^T
        for r in range(3):
            for c in range(3):
                V[r, c] = X[r, 0] * Gr[ll, tt, c, 0] + X[r, 1] * Gr[ll, tt, c, 1] + X[r, 2] * Gr[ll, tt, c, 2]
        for mi in range(ninc[i]):
            kj = incj[i, mi]
            sd = incs[i, mi]
            sign = -1.0 if sd == 0 else 1.0
            # column 3 l + c of row 3 k + r at S[3 k + r, shift + c - lead r] (lead = 0: dense or blocks, 1: band)
            shift = 3 * ll - lead * (3 * kj - kl) - blk * (3 * kj - 3)
            for r in range(3):
                for c in range(3):
                    S[3 * kj + r, uint64(shift + c - lead * r)] += Gl[kj, sd, r, 0] * V[0, c] \
                        + Gl[kj, sd, r, 1] * V[1, c] + Gl[kj, sd, r, 2] * V[2, c]
                S[3 * kj + r, uint64(shift + (1 - lead) * r)] += sign * sign_t * im


@part
def project_momentum(S, kl, piv, nu, G, jinv, mass, pinned, v_off, ninc, incj, incs, V, p, w) -> bool:
    """w with M w + B^T nu = p, B w = 0 (M = blockdiag(J_i, m_i I), B with the joint blocks G at one
    configuration): the Schur complement B M^-1 B^T nu = B M^-1 p in the storage of schur_storage_spd (S, piv;
    block-tridiagonal: block LU, band: Cholesky; it is symmetric positive definite), then w = M^-1 (p - B^T nu). The
    velocity stages of lgvi (DH) and RATTLie (stage b). Returns False if the Schur complement is singular."""
    nm = nu.shape[0]
    for r in range(nm):
        nu[r] = 0.0
        for c in range(S.shape[1]):
            S[r, c] = 0.0
    for i in range(mass.shape[0]):
        o = v_off[i]
        im = 1.0 / mass[i]
        for r in range(3):
            w[o + r] = jinv[i, r, 0] * p[o] + jinv[i, r, 1] * p[o + 1] + jinv[i, r, 2] * p[o + 2]
            if not pinned[i]:
                w[o + 3 + r] = p[o + 3 + r] * im
        schur_add(S, kl, nu, 1.0, i, o, jinv[i], w[o], w[o + 1], w[o + 2], w, 1.0, im, G, G, ninc, incj, incs, V)
    if not schur_factor_spd(S, kl, piv, nm):
        return False
    schur_solve_spd(S, kl, piv, nu, nm)
    for i in range(mass.shape[0]):  # w -= M^-1 B^T nu
        o = v_off[i]
        c0, c1, c2 = bt_rot(G, ninc, incj, incs, i, nu, 1.0, 0.0, 0.0, 0.0)
        bt_tr_add(ninc, incj, incs, i, o, nu, -1.0 / mass[i], w)
        for r in range(3):
            w[o + r] -= jinv[i, r, 0] * c0 + jinv[i, r, 1] * c1 + jinv[i, r, 2] * c2
    return True


@njit(cache=True)
def saddle_matrix(K: np.ndarray, nv: int, nm: int, Hrot: np.ndarray, trans: np.ndarray, pinned: np.ndarray,
                  v_off: np.ndarray, C: np.ndarray, c_transposed: bool, D: np.ndarray, E: np.ndarray,
                  has_e: bool) -> None:
    """The rigid machinery's dense saddle-point matrix K[:n, :n] = [[H, C], [D, E]] (n = nv + nm) with
    H = blockdiag(Hrot_i, trans_i I_3) (Hrot_i alone for a pinned body; body i at v_off[i]); C is given as
    nv x nm, or as its transpose (nm x nv) when ``c_transposed``; E = 0 unless ``has_e``. For lgvi's dense
    fallback (a singular inertia block; its structured solve is the band Schur complement)."""
    n = nv + nm
    for r in range(n):
        for c in range(n):
            K[r, c] = 0.0
    for i in range(trans.shape[0]):
        o = v_off[i]
        for r in range(3):
            for c in range(3):
                K[o + r, o + c] = Hrot[i, r, c]
            if not pinned[i]:
                K[o + 3 + r, o + 3 + r] = trans[i]
    for r in range(nm):
        for c in range(nv):
            K[c, nv + r] = C[r, c] if c_transposed else C[c, r]
            K[nv + r, c] = D[r, c]
    if has_e:
        for r in range(nm):
            for c in range(nm):
                K[nv + r, nv + c] = E[r, c]


_saddle_matrix_inline = njit(inline="always")(python_function(saddle_matrix))


@njit(cache=True)
def full_solve(nv: int, nm: int, Hrot: np.ndarray, mass: np.ndarray, Bl: np.ndarray, Br: np.ndarray,
               rhs1: np.ndarray, rhs2: np.ndarray, K: np.ndarray, kr: np.ndarray, pinned: np.ndarray,
               v_off: np.ndarray) -> bool:
    """[[H, Bl^T], [Br, 0]] sol = [rhs1; rhs2] by dense LU, H = blockdiag(Hrot_i, m_i I) (Hrot_i alone for a
    pinned body); sol in kr."""
    _saddle_matrix_inline(K, nv, nm, Hrot, mass, pinned, v_off, Bl, True, Br, Br, False)
    for r in range(nv):
        kr[r] = rhs1[r]
    for r in range(nm):
        kr[nv + r] = rhs2[r]
    return lu_solve_inline(K, kr, nv + nm)


# numba-inlined forms for step loops: an opaque call in a loop, even on a path it never takes, keeps LLVM from
# hoisting the loop's invariant loads (and whether a cached callee is inlined depends on the cache's state)
_band_lu_factor_inline = njit(inline="always")(python_function(band_lu_factor))
_band_lu_solve_inline = njit(inline="always")(python_function(band_lu_solve))
constraint_jacobian_inline = njit(inline="always")(python_function(constraint_jacobian))
full_solve_inline = njit(inline="always")(python_function(full_solve))
