"""The Newton iteration matrix of Lie group generalized-alpha (solvers.methods.lie_galpha) and its solves: the
joint-block terms of the stabilised index-2 form, the banded Schur complement on the multipliers assembled per
body, and the dense fallback. The formulation and the block structure are in lie_galpha's docstring ("Linear
algebra"); this module holds only that linear algebra, so that the method module stays one concern.
"""

from __future__ import annotations

from numba import njit

from .. import kernels
from ..linalg import inv3_into, lu_solve_inplace
from ..models import joints


@njit(cache=True, inline="always")
def _inv3_conditioned(A, out):
    """out = A^-1 (3x3, linalg.inv3_into); False if A is singular or ill-conditioned (Frobenius condition > 1e6)."""
    if not inv3_into(A, out, 0.0):
        return False
    na = 0.0
    ni = 0.0
    for i in range(3):
        for j in range(3):
            na += A[i, j] * A[i, j]
            ni += out[i, j] * out[i, j]
    return na * ni < 1e12


@njit(cache=True, inline="always")
def _stab2_joint_terms(rd, yn, v1, G1, Zb, r3):
    """Z's joint blocks Zb[k, s] = sign_s R hat(Omega x a) at q_{n+1}, v_{n+1} (Z = d/dq (B(q) v) at fixed v,
    rigid.velocity_constraint_jacobian; sign_0 = -1, sign_1 = +1 as joints.joint_blocks) and the stab2 residual
    r3 = B(q_{n+1}) v_{n+1} (rotational blocks G1, translational -sign_s I)."""
    jb, jp, y_off, v_off = rd.joint_bodies, rd.joint_points, rd.y_off, rd.v_off
    for k in range(jb.shape[0]):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for sd in range(2):
            body = jb[k, sd]
            if body < 0:
                continue
            sign = -1.0 if sd == 0 else 1.0
            o = y_off[body]
            c = v_off[body]
            W0 = v1[c]
            W1 = v1[c + 1]
            W2 = v1[c + 2]
            a0 = jp[k, sd, 0]
            a1 = jp[k, sd, 1]
            a2 = jp[k, sd, 2]
            p0 = W1 * a2 - W2 * a1  # Omega x a
            p1 = W2 * a0 - W0 * a2
            p2 = W0 * a1 - W1 * a0
            for r in range(3):
                g0, g1, g2 = joints.rot_hat_row(yn, o, r, p0, p1, p2)
                Zb[k, sd, r, 0] = sign * g0
                Zb[k, sd, r, 1] = sign * g1
                Zb[k, sd, r, 2] = sign * g2
            s0 += G1[k, sd, 0, 0] * W0 + G1[k, sd, 0, 1] * W1 + G1[k, sd, 0, 2] * W2 - sign * v1[c + 3]
            s1 += G1[k, sd, 1, 0] * W0 + G1[k, sd, 1, 1] * W1 + G1[k, sd, 1, 2] * W2 - sign * v1[c + 4]
            s2 += G1[k, sd, 2, 0] * W0 + G1[k, sd, 2, 1] * W1 + G1[k, sd, 2, 2] * W2 - sign * v1[c + 5]
        r3[3 * k] = s0
        r3[3 * k + 1] = s1
        r3[3 * k + 2] = s2


@njit(cache=True, inline="always")
def _stab2_schur_add(S, kl, rhs, i, o, free, Ainv, Ts, KTs, atr, h, gb, G1, Gn, Zb, ninc, incj, incs, xr, V, Pm,
                     Qm, Ym):
    """Body i's part of the stab2 Schur complement S' = D A^-1 C - E and of rhs' = r_23 - D A^-1 r_1 (the
    system of _schur_solve), unknowns interleaved per joint: row/column 6 k + a is mu_k (a < 3) or nu_k (a >= 3).
    S' in the storage of joints.schur_storage: band, entry (r, c) at S[r, c - r + kl], or dense (kl = -1).

    Per joint side (k, s) of body i (o its velocity offset, sign_s = -1 for side 0, +1 for side 1, T = T_i):
        D rows of joint k:     [G1 T, -sign_s I; gb G1 + h Zb T, -gb sign_s I]   (rotational | translational),
        C columns of joint l:  [G1_l^T, h K T Gn_l^T; -sign_l I, 0],
        E block (k, l):        [0, G1 T Gn_l^T + sign_s sign_l I; 0, h Zb T Gn_l^T],
    with G1, Gn the rotational joint blocks of B(q_{n+1}), B(q_n) and Zb those of Z (joints.joint_blocks,
    _stab2_joint_terms). xr = A^-1 r_1 (body i's entries at o); Pm, Qm, Ym scratch per joint side of the body,
    V (3x3) scratch.
    """
    ni = ninc[i]
    lead = 0 if kl < 0 else 1  # storage (joints.schur_storage): dense (kl = -1) or band
    for mi in range(ni):
        k = incj[i, mi]
        sd = incs[i, mi]
        sign = -1.0 if sd == 0 else 1.0
        for r in range(3):
            for c in range(3):
                gt = G1[k, sd, r, 0] * Ts[i, 0, c] + G1[k, sd, r, 1] * Ts[i, 1, c] + G1[k, sd, r, 2] * Ts[i, 2, c]
                zt = h * (Zb[k, sd, r, 0] * Ts[i, 0, c] + Zb[k, sd, r, 1] * Ts[i, 1, c]
                          + Zb[k, sd, r, 2] * Ts[i, 2, c])
                Pm[mi, r, c] = gt  # D's rotational block
                Pm[mi, 3 + r, c] = gb * G1[k, sd, r, c] + zt
                Qm[mi, r, c] = zt  # h Zb T (E's lower block before Gn_l^T)
                V[r, c] = h * (KTs[i, r, 0] * Gn[k, sd, c, 0] + KTs[i, r, 1] * Gn[k, sd, c, 1]
                               + KTs[i, r, 2] * Gn[k, sd, c, 2])  # h K T Gn^T
        for r in range(3):  # Y = A^-1 C's rotational block
            for c in range(3):
                Ym[mi, r, c] = Ainv[i, r, 0] * G1[k, sd, c, 0] + Ainv[i, r, 1] * G1[k, sd, c, 1] \
                    + Ainv[i, r, 2] * G1[k, sd, c, 2]
                Ym[mi, r, 3 + c] = Ainv[i, r, 0] * V[0, c] + Ainv[i, r, 1] * V[1, c] + Ainv[i, r, 2] * V[2, c]
        x0 = xr[o]
        x1 = xr[o + 1]
        x2 = xr[o + 2]
        for a in range(6):  # rhs' -= D xr
            val = Pm[mi, a, 0] * x0 + Pm[mi, a, 1] * x1 + Pm[mi, a, 2] * x2
            if free:
                val -= sign * (1.0 if a < 3 else gb) * xr[o + 3 + a % 3]
            rhs[6 * k + a] -= val
    for mk in range(ni):
        k = incj[i, mk]
        ss_k = -1.0 if incs[i, mk] == 0 else 1.0
        for ml in range(ni):
            ll = incj[i, ml]
            tt = incs[i, ml]
            ss = ss_k * (-1.0 if tt == 0 else 1.0)
            base = 6 * ll - lead * (6 * k - kl)  # column 6 l + b of row 6 k + a at S[6 k + a, base + b - lead a]
            for a in range(6):
                for b in range(6):
                    val = Pm[mk, a, 0] * Ym[ml, 0, b] + Pm[mk, a, 1] * Ym[ml, 1, b] + Pm[mk, a, 2] * Ym[ml, 2, b]
                    if b >= 3:  # - E
                        c = b - 3
                        if a < 3:
                            val -= Pm[mk, a, 0] * Gn[ll, tt, c, 0] + Pm[mk, a, 1] * Gn[ll, tt, c, 1] \
                                + Pm[mk, a, 2] * Gn[ll, tt, c, 2]
                            if free and a == c:
                                val -= ss
                        else:
                            val -= Qm[mk, a - 3, 0] * Gn[ll, tt, c, 0] + Qm[mk, a - 3, 1] * Gn[ll, tt, c, 1] \
                                + Qm[mk, a - 3, 2] * Gn[ll, tt, c, 2]
                    elif free and a % 3 == b:  # translational part of D A^-1 C
                        val += (ss if a < 3 else gb * ss) / atr[i]
                    S[6 * k + a, base + b - lead * a] += val


@kernels.part  # at most 30 arguments: a longer call compiles to f(*args)
def _schur_solve(rd, kl, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb, r1, r2, r3, Ainv, Wx, V, Pm, Qm, Ym, S, piv,
                 rhs, xr, dmu, dnu, dx):
    """Solve J dx = -[r1; r2; r3] (the iteration matrix of the module docstring) through the Schur complement on
    the multipliers, in O(N) on a chain. Returns False if a rotational block is ill-conditioned or the Schur
    complement singular (then _dense_solve).

    J = [[A, C], [D, E]], A = blockdiag(Arot_i, atr_i I) (Arot_i alone for a pinned body), and with
    A^-1 = blockdiag(Ainv_i, I / atr_i): S' y = r_23 - D A^-1 r_1 with S' = D A^-1 C - E, then
    dDq = -A^-1 (r_1 + C y). index3: C = B^T, D = B T, E = 0; S' = B T A^-1 B^T (3K, half bandwidth
    joints.band_of: block-tridiagonal on a chain), assembled per body by joints.schur_add with X = T_i Ainv_i.
    stab2: S' on the unknowns (mu_k, nu_k) interleaved per joint (6x6 blocks per pair of joints that share a
    body: half bandwidth 2 band_of + 1), assembled by _stab2_schur_add. S' (m x m) in the storage of
    joints.schur_storage with half bandwidth kl (-1: dense), factorised by LU with partial pivoting
    (joints.schur_factor; S' is not symmetric). dx = [dDq, dmu, dnu] (dnu only for stab2); dmu, dnu scratch.
    """
    pinned, v_off = rd.pinned, rd.v_off
    ninc, incj, incs, _band = joints.topology_of(rd)
    nb = Arot.shape[0]
    nm = r2.shape[0]
    m = 2 * nm if stab2 else nm
    for i in range(nb):
        if not _inv3_conditioned(Arot[i], Ainv[i]):
            return False
    for i in range(nb):  # xr = A^-1 r1
        o = v_off[i]
        for r in range(3):
            xr[o + r] = Ainv[i, r, 0] * r1[o] + Ainv[i, r, 1] * r1[o + 1] + Ainv[i, r, 2] * r1[o + 2]
            if not pinned[i]:
                xr[o + 3 + r] = r1[o + 3 + r] / atr[i]
    if m > 0:
        for p in range(m):
            for c in range(S.shape[1]):
                S[p, c] = 0.0
        if stab2:
            for k in range(nm // 3):
                for r in range(3):
                    rhs[6 * k + r] = r2[3 * k + r]
                    rhs[6 * k + 3 + r] = r3[3 * k + r]
            for i in range(nb):
                _stab2_schur_add(S, kl, rhs, i, v_off[i], not pinned[i], Ainv, Ts, KTs, atr, h, gb, G1, Gn, Zb,
                                 ninc, incj, incs, xr, V, Pm, Qm, Ym)
        else:
            for p in range(nm):
                rhs[p] = r2[p]
            for i in range(nb):
                o = v_off[i]
                t0, t1, t2 = joints.tangent_times_inverse(Ts, Ainv, i, Wx, r1, o)  # Wx = T_i Ainv_i: D A^-1 = B T A^-1
                joints.schur_add(S, kl, rhs, -1.0, i, o, Wx, t0, t1, t2, r1, 1.0 / atr[i], 1.0 / atr[i], G1, G1,
                                 ninc, incj, incs, V)
        if not joints.schur_factor(S, kl, piv, m):
            return False
        joints.schur_solve(S, kl, piv, rhs, m)
    nv = r1.shape[0]
    for k in range(nm // 3):
        for r in range(3):
            if stab2:
                dmu[3 * k + r] = rhs[6 * k + r]
                dnu[3 * k + r] = rhs[6 * k + 3 + r]
                dx[nv + nm + 3 * k + r] = rhs[6 * k + 3 + r]
            else:
                dmu[3 * k + r] = rhs[3 * k + r]
            dx[nv + 3 * k + r] = dmu[3 * k + r]
    for i in range(nb):  # dDq = -A^-1 (r1 + C y)
        o = v_off[i]
        c0, c1, c2 = joints.bt_rot(G1, ninc, incj, incs, i, dmu, 1.0, r1[o], r1[o + 1], r1[o + 2])
        if stab2:  # + h K T B_n^T dnu
            e0, e1, e2 = joints.bt_rot(Gn, ninc, incj, incs, i, dnu, 1.0, 0.0, 0.0, 0.0)
            c0 += h * (KTs[i, 0, 0] * e0 + KTs[i, 0, 1] * e1 + KTs[i, 0, 2] * e2)
            c1 += h * (KTs[i, 1, 0] * e0 + KTs[i, 1, 1] * e1 + KTs[i, 1, 2] * e2)
            c2 += h * (KTs[i, 2, 0] * e0 + KTs[i, 2, 1] * e1 + KTs[i, 2, 2] * e2)
        for r in range(3):
            dx[o + r] = -(Ainv[i, r, 0] * c0 + Ainv[i, r, 1] * c1 + Ainv[i, r, 2] * c2)
        if not pinned[i]:
            for r in range(3):
                dx[o + 3 + r] = r1[o + 3 + r]
            joints.bt_tr_add(ninc, incj, incs, i, o, dmu, 1.0, dx)
            for r in range(3):
                dx[o + 3 + r] = -dx[o + 3 + r] / atr[i]
    return True


@njit(cache=True)
def _dense_solve(full, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb, r1, r2, r3, pinned, v_off, ninc, incj, incs,
                 dx):
    """The fallback of _schur_solve: J dx = -[r1; r2; r3] by dense LU with partial pivoting, J = [[A, C], [D, E]]
    written from the blocks (_stab2_schur_add's; unknowns [Dq, mu, nu], full (n x n) scratch). False if J is
    singular."""
    nb = Arot.shape[0]
    nv = r1.shape[0]
    nm = r2.shape[0]
    n = nv + (2 * nm if stab2 else nm)
    n0 = nv + nm  # first nu column/row
    for p in range(n):
        for c in range(n):
            full[p, c] = 0.0
    for i in range(nb):
        o = v_off[i]
        for r in range(3):
            for c in range(3):
                full[o + r, o + c] = Arot[i, r, c]
            if not pinned[i]:
                full[o + 3 + r, o + 3 + r] = atr[i]
        for mi in range(ninc[i]):
            k = incj[i, mi]
            sd = incs[i, mi]
            sign = -1.0 if sd == 0 else 1.0
            for r in range(3):
                full[o + 3 + r, nv + 3 * k + r] = -sign  # C = B^T
                full[nv + 3 * k + r, o + 3 + r] = -sign  # D = B T
                for c in range(3):
                    full[o + r, nv + 3 * k + c] = G1[k, sd, c, r]
                    full[nv + 3 * k + r, o + c] = G1[k, sd, r, 0] * Ts[i, 0, c] + G1[k, sd, r, 1] * Ts[i, 1, c] \
                        + G1[k, sd, r, 2] * Ts[i, 2, c]
            if not stab2:
                continue
            for r in range(3):
                full[n0 + 3 * k + r, o + 3 + r] = -gb * sign  # gb B + h Z T
                for c in range(3):
                    full[o + r, n0 + 3 * k + c] = h * (KTs[i, r, 0] * Gn[k, sd, c, 0] + KTs[i, r, 1] * Gn[k, sd, c, 1]
                                                       + KTs[i, r, 2] * Gn[k, sd, c, 2])  # h K T B_n^T
                    full[n0 + 3 * k + r, o + c] = gb * G1[k, sd, r, c] + h * (
                        Zb[k, sd, r, 0] * Ts[i, 0, c] + Zb[k, sd, r, 1] * Ts[i, 1, c] + Zb[k, sd, r, 2] * Ts[i, 2, c])
            for ml in range(ninc[i]):  # E: B T B_n^T and h Z T B_n^T
                ll = incj[i, ml]
                tt = incs[i, ml]
                ss = sign * (-1.0 if tt == 0 else 1.0)
                for r in range(3):
                    full[nv + 3 * k + r, n0 + 3 * ll + r] += ss
                    for c in range(3):
                        s1 = 0.0
                        s2 = 0.0
                        for q in range(3):
                            g = Gn[ll, tt, c, q]
                            s1 += (G1[k, sd, r, 0] * Ts[i, 0, q] + G1[k, sd, r, 1] * Ts[i, 1, q]
                                   + G1[k, sd, r, 2] * Ts[i, 2, q]) * g
                            s2 += (Zb[k, sd, r, 0] * Ts[i, 0, q] + Zb[k, sd, r, 1] * Ts[i, 1, q]
                                   + Zb[k, sd, r, 2] * Ts[i, 2, q]) * g
                        full[nv + 3 * k + r, n0 + 3 * ll + c] += s1
                        full[n0 + 3 * k + r, n0 + 3 * ll + c] += h * s2
    for p in range(nv):
        dx[p] = -r1[p]
    for p in range(nm):
        dx[nv + p] = -r2[p]
        if stab2:
            dx[n0 + p] = -r3[p]
    return lu_solve_inplace(full, dx, n)
