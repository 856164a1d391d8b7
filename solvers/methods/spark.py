"""Gauss-Lobatto SPARK (s,s) methods (Jay, SIAM J. Numer. Anal. 45 (2007) 1814-1842; seed 003) on the planar
generalized-coordinate machinery, with seed 003's parameter gamma. Order 2s, symplectic, symmetric; position and
velocity constraints hold at every step.

Seed 003's gamma (its eqs. 7-10, 12-30 are garbled; derivation in docs/methods.md). A planar bar i in natural
coordinates has the unit vector u_i = (P_a - P_b) / L_i and its normal v_i = e(u_i) (e: rotation by 90 degrees),
both linear in q and of unit length only on the constraint manifold (seed eq. 13). Its rotational kinetic energy
J_i omega_i^2 / 2 with omega_i = v_i . du_i/dt is the seed's semidefinite mass matrix J_i v_i v_i^T (eq. 4:
rank n - m); seed eq. 7 adds gamma (I - S) with S = v_i v_i^T the projector onto the null space of the constraint
Jacobian, which on the manifold is exactly that (eq. 6). Per bar this is Xu and Zhong's "gamma-type" splitting
(the seed's refs. [19, 21]):

    T_gamma = T_M(qdot) + sum_i (gamma - J_i) w_i / 2,   w_i = |du_i/dt|^2 - (v_i . du_i/dt)^2,

with T_M = qdot^T M qdot / 2 the model's constant natural-coordinate kinetic energy (which is the family at
gamma = J_i) and w_i = 0 for every motion on the manifold (zero kinetic energy; the physics is unchanged). Off the
manifold, where the Gauss points of the discretisation lie, w_i = (1 - |u_i|^2) |du_i/dt|^2 + (u_i . du_i/dt)^2 does
not vanish (even at the midpoint of s = 1, where u_i . du_i/dt = 0): gamma changes the discretisation error (the
phase), linearly to first order. gamma is in kg m^2 (J_i from the model: coords DISTANCE rows carry the bar's J).
gamma = "R" is seed eq. 31 (mean of the bars' J_i), "T" seed eq. 32 as reconstructed in gamma_T, "opt" seed eq. 11
(two short runs, linear interpolation of the signed error to zero), resolved in Python by ``prepare`` before the run.
Only DISTANCE constraints between natural-coordinate points (PAIR, FIXED) carry the gamma term; models without them
(two_link_arm, planar_pendulum) are unaffected by gamma.

Formulation (docs/algorithms.md section 4: the Galerkin variational form). One step from (q0, p0 = M qdot0):
the step's polynomial q_d(tau) of degree s through control points q^0 = q0, q^1..q^s = q1 at the s + 1 Lobatto nodes
ct_nu; Gauss points (c_i, b_i): Q_i = sum_nu l_nu(c_i) q^nu, V_i = (1/h) sum_nu l_nu'(c_i) q^nu; discrete action

    S = h sum_i b_i [ T_gamma(Q_i, V_i) - U(Q_i) ] - h sum_nu bt_nu Lambda_nu^T Phi(q^nu)

(multipliers at every control point, Lobatto weights bt). With E_i = dL/dq (Q_i, V_i), Y_i = dL/dqdot (Q_i, V_i) and
mu_nu = h Lambda_nu the step equations are

    R_nu = delta_nu0 p0 + sum_i b_i [h l_nu(c_i) E_i + l_nu'(c_i) Y_i] - bt_nu G(q^nu)^T mu_nu = 0,   nu = 0..s-1,
    Phi(q^nu) / h = 0,                                                                               nu = 1..s,

(unknowns Delta^nu = (q^nu - q0) / h, nu = 1..s, and mu_0..mu_{s-1}), then the linear stage
p1 = sum_i b_i [h l_s(c_i) E_i + l_s'(c_i) Y_i] - bt_s G(q1)^T mu_s with G(q1) M^-1 p1 = 0, qdot1 = M^-1 p1
(on the manifold dT_gamma/dqdot = M qdot, so the state keeps qdot). For the constant M (gamma = J_i) this is the
SPARK method of docs/algorithms.md section 4 (Gauss a_ij, b_j for the internal stages, Lobatto ct_j, bt_j for the
constraints, at_ij = bt_j (1 - ah_ji / b_i)); for s = 1 and a constant force it is RATTLE (tests/test_spark.py).

Newton on (Delta, mu): the Jacobian is assembled from the exact stage derivatives dE/dQ, dE/dV, dY/dQ, dY/dV (chain
rule through Q_i, V_i; the gamma term's 2x2 blocks in _stage), d(G^T mu_nu)/dq (coords.constraint_hessian) and G.
The matrix is formed and factorised at the first iterate and again whenever an iterate contracts by less than a
factor 4. Predictor: the previous step's polynomial extrapolated to the new control points (at the first step
Delta^nu = qdot0 + ct_nu h qddot0 / 2 and mu_nu = h lambda0 from the index-1 DAE).

Before this version gamma multiplied the exact orthogonal projector A^T (A A^T)^-1 A of the whole system at the
Gauss points; that term and its derivative vanish at the s = 1 midpoint for quadratic constraints and change
s >= 2 by ~1e-10..1e-7 only, so it was not the seed's parameter (docs/methods.md).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from .. import kernels, tableaus
from ..driver import Runner, step_count
from ..jit import python_function
from ..linalg import lu_factor_inplace, lu_solve_factored, saddle_point_solve
from ..models import coords
from .base import NEWTON_OPTIONS, Method, Option

HEADER = 4  # opts = [newton_tol, newton_max_iter, s, gamma, c (s), b (s), bt (s+1), ct (s+1), lag, dlag, extrap]


# the option array's slots, in the order pack writes them
O_TOL, O_MAX_ITER, O_S, O_GAMMA = range(4)


@njit(cache=True, inline="always")
def _interpolate(lag, dlag, qc, dl, i, Qi, Vi):
    """Gauss stage i of the degree-s polynomial through the control points: Q_i = sum_nu l_nu(c_i) q^nu,
    V_i = sum_nu l'_nu(c_i) Delta^nu (Delta^0 = 0)."""
    for r in range(Qi.shape[0]):
        qv = 0.0
        vv = 0.0
        for nu in range(qc.shape[0]):
            qv += lag[i, nu] * qc[nu, r]
            if nu >= 1:
                vv += dlag[i, nu] * dl[nu, r]
        Qi[r] = qv
        Vi[r] = vv


@njit(cache=True)
def _bar_point(pt):
    """Coordinate index of a natural-coordinate point: i for PAIR (q_i, q_i+1), -1 for FIXED, -2 otherwise."""
    typ = int(pt[0])
    if typ == coords.PAIR:
        return int(pt[1])
    if typ == coords.FIXED:
        return -1
    return -2


@njit(cache=True)
def _stage(cd, gamma, Q, V, E, Y, jac, EQ, EV, YQ, YV, blk):
    """E = dL_gamma/dq, Y = dL_gamma/dqdot at one Gauss point (Q, V), and with ``jac`` their derivatives
    EQ = dE/dQ, EV = dE/dV, YQ = dY/dQ, YV = dY/dV (exact).

    L_gamma = qdot^T M qdot / 2 - U(q) + sum_bars c_k w_k, c_k = (gamma - J_k) / (2 L_k^2) (module docstring):
    with d = P_a - P_b, dd = its rate, cr = d x dd = d_x dd_y - d_y dd_x and e(x) = (-x_y, x_x) (rotation by 90 deg),
    w = |dd|^2 - cr^2 / L^2, dw/ddd = 2 (dd - (cr / L^2) e(d)), dw/dd = 2 (cr / L^2) e(dd).
    """
    M = cd.mass_matrix
    pts = cd.points
    cons = cd.constraints
    n = M.shape[0]
    coords.force(cd, Q, E)
    for r in range(n):
        acc = 0.0
        for c in range(n):
            acc += M[r, c] * V[c]
        Y[r] = acc
    if jac:
        coords.force_jacobian(cd, Q, EQ)
        for r in range(n):
            for c in range(n):
                EV[r, c] = 0.0
                YQ[r, c] = 0.0
                YV[r, c] = M[r, c]
    for k in range(cons.shape[0]):
        if int(cons[k, 0]) != coords.DISTANCE:
            continue
        L2 = cons[k, 3] * cons[k, 3]
        cw = (gamma - cons[k, 4]) / L2  # 2 c_k
        if cw == 0.0:
            continue
        ia = _bar_point(pts[int(cons[k, 1])])
        ib = _bar_point(pts[int(cons[k, 2])])
        if ia == -2 or ib == -2:
            continue  # the gamma family is defined on bars between natural-coordinate points only
        dx = (Q[ia] if ia >= 0 else pts[int(cons[k, 1]), 2]) - (Q[ib] if ib >= 0 else pts[int(cons[k, 2]), 2])
        dy = (Q[ia + 1] if ia >= 0 else pts[int(cons[k, 1]), 3]) - (Q[ib + 1] if ib >= 0 else pts[int(cons[k, 2]), 3])
        vx = (V[ia] if ia >= 0 else 0.0) - (V[ib] if ib >= 0 else 0.0)
        vy = (V[ia + 1] if ia >= 0 else 0.0) - (V[ib + 1] if ib >= 0 else 0.0)
        cr = dx * vy - dy * vx
        q_ = cr / L2
        # e(d) = (-dy, dx), e(dd) = (-vy, vx)
        ey0, ey1 = vx + q_ * dy, vy - q_ * dx  # dd - q_ e(d)
        ee0, ee1 = -q_ * vy, q_ * vx  # q_ e(dd)
        for side in range(2):
            i0 = ia if side == 0 else ib
            sg = 1.0 if side == 0 else -1.0
            if i0 < 0:
                continue
            Y[i0] += cw * sg * ey0
            Y[i0 + 1] += cw * sg * ey1
            E[i0] += cw * sg * ee0
            E[i0 + 1] += cw * sg * ee1
        if not jac:
            continue
        # 2x2 blocks in (d, dd): Yv = I - e(d) e(d)^T / L^2, Yd = (e(d) e(dd)^T - cr E2) / L^2,
        # Ed = -e(dd) e(dd)^T / L^2, Ev = Yd^T, with E2 = [[0, -1], [1, 0]]
        ed0, ed1 = -dy, dx
        ev0, ev1 = -vy, vx
        blk[0, 0, 0] = 1.0 - ed0 * ed0 / L2
        blk[0, 0, 1] = -ed0 * ed1 / L2
        blk[0, 1, 0] = -ed1 * ed0 / L2
        blk[0, 1, 1] = 1.0 - ed1 * ed1 / L2
        blk[1, 0, 0] = ed0 * ev0 / L2
        blk[1, 0, 1] = (ed0 * ev1 + cr) / L2
        blk[1, 1, 0] = (ed1 * ev0 - cr) / L2
        blk[1, 1, 1] = ed1 * ev1 / L2
        blk[2, 0, 0] = -ev0 * ev0 / L2
        blk[2, 0, 1] = -ev0 * ev1 / L2
        blk[2, 1, 0] = -ev1 * ev0 / L2
        blk[2, 1, 1] = -ev1 * ev1 / L2
        for sr in range(2):
            r0 = ia if sr == 0 else ib
            if r0 < 0:
                continue
            for sc in range(2):
                c0 = ia if sc == 0 else ib
                if c0 < 0:
                    continue
                f = cw * (1.0 if sr == sc else -1.0)
                for a in range(2):
                    for b in range(2):
                        YV[r0 + a, c0 + b] += f * blk[0, a, b]
                        YQ[r0 + a, c0 + b] += f * blk[1, a, b]
                        EQ[r0 + a, c0 + b] += f * blk[2, a, b]
                        EV[r0 + a, c0 + b] += f * blk[1, b, a]
    return True


# A run's constants, read once from opts (pack's layout) and the model: sizes n (coordinates), m (constraint rows),
# s (stages: Gauss points i = 0..s-1, Lobatto control points nu = 0..s); Newton's tol and max_iter; seed 003's gamma;
# the SPARK tableau (solvers.tableaus.spark): Gauss weights b (s), Lobatto weights bt and nodes ct (s + 1),
# lag[i, nu] = l_nu(c_i), dlag[i, nu] = l'_nu(c_i) (s, s + 1), extrap (s + 1, s + 1): the previous step's
# polynomial at the new control points (predictor).
Coefficients = namedtuple("Coefficients", "n m s tol max_iter gamma b bt ct lag dlag extrap")

# What a step leaves for the next in work (_work_fields), in its order.
Memory = namedtuple("Memory", "w_older w_old qprev muprev")

# The step's scratch, allocated once per advance call (_scratch); mm = max(m, 1), N = s (n + m). The saddle-point
# system As, bs (coords.scratch_size); ydot (2n): the initial right-hand side, then the new state before its check;
# acc (2n): qddot in acc[n:] for the diagnostics; d: their row. Constraint terms: phi (mm); G (mm, n), H (n, n) at
# q1; Gs (s + 1, mm, n) = G(q^nu), Hs (s + 1, n, n) = d(G^T mu_nu)/dq at q^nu; zero (mm) weights. Gauss stages
# (s, n): Q_i, V_i, E_i, Y_i; their derivatives (s, n, n): JF = dE/dQ, EV = dE/dV, YQ = dY/dQ, YV = dY/dV; blk
# (_stage). Unknowns: control points qc and Delta^nu dl (s + 1, n; dl[0] unused), multipliers mu (s + 1, mm). Newton
# matrix J (N, N), its pivots piv, residual res (N). p0 = M qdot0, qd1 = qdot1, acc0 = qddot0 (n) and
# lam0 = lambda0 (mm) of the index-1 DAE (first predictor).
Scratch = namedtuple("Scratch", "As bs ydot acc d phi G H Gs Hs zero blk JF EV YQ YV qc dl mu Q V E Y J piv res p0 "
                                "qd1 acc0 lam0")


@njit(cache=True, inline="always")
def _work_fields(n, m, s):
    """Sizes of the fields of ``work``, in order: qdot_{n-1} (n), qdot_n (n), the previous step's control points
    q^0..q^s ((s + 1) n) and multipliers mu_0..mu_s ((s + 1) m)."""
    return n, n, (s + 1) * n, (s + 1) * m


@njit(cache=True)
def _memory(work, c):
    """work's fields (Memory), carved by _work_fields. A compiled call, not inlined: kernels.carve inlined into advance
    next to the inlined _scratch miscompiled the scratch (numba 0.68: sc.acc0 read other memory); once per call."""
    w_older, w_old, qprev, muprev = kernels.carve(work, _work_fields(c.n, c.m, c.s))
    return Memory(w_older, w_old, qprev.reshape((c.s + 1, c.n)), muprev.reshape((c.s + 1, c.m)))


@njit(cache=True, inline="always")
def _coefficients(opts, n, m):
    """The run's constants from the option array (pack's layout: HEADER, then c, b, bt, ct, lag, dlag, extrap)."""
    s = int(opts[O_S])
    o = HEADER
    o2 = o + 4 * s + 2
    o3 = o2 + 2 * s * (s + 1)
    return Coefficients(
        n, m, s, opts[O_TOL], int(opts[O_MAX_ITER]), opts[O_GAMMA],
        opts[o + s : o + 2 * s], opts[o + 2 * s : o + 3 * s + 1], opts[o + 3 * s + 1 : o2],
        opts[o2 : o2 + s * (s + 1)].reshape((s, s + 1)), opts[o2 + s * (s + 1) : o3].reshape((s, s + 1)),
        opts[o3 : o3 + (s + 1) * (s + 1)].reshape((s + 1, s + 1)),
    )


@njit(cache=True, inline="always")
def _scratch(cd, c, ny):
    """The step's scratch arrays (Scratch)."""
    n, m, s = c.n, c.m, c.s
    size = coords.scratch_size(cd)
    mm = max(m, 1)
    N = s * (n + m)
    return Scratch(
        np.empty((size, size)), np.empty(size), np.empty(ny), np.zeros(ny), np.empty(kernels.N_DIAG),
        np.empty(mm), np.empty((mm, n)), np.empty((n, n)), np.empty((s + 1, mm, n)), np.empty((s + 1, n, n)),
        np.zeros(mm), np.empty((3, 2, 2)), np.empty((s, n, n)), np.empty((s, n, n)), np.empty((s, n, n)),
        np.empty((s, n, n)), np.empty((s + 1, n)), np.empty((s + 1, n)), np.empty((s + 1, mm)), np.empty((s, n)),
        np.empty((s, n)), np.empty((s, n)), np.empty((s, n)), np.empty((N, N)), np.empty(N, dtype=np.int64),
        np.empty(N), np.empty(n), np.empty(n), np.empty(n), np.empty(mm),
    )


@njit(cache=True, inline="always")
def _predict(M, y, h, k, c, sc, mem):
    """q^0 = q0, p0 = M qdot0, and the Newton predictor: the previous step's polynomial extrapolated to the new
    control points (at the first step Delta^nu = qdot0 + ct_nu h qddot0 / 2 and mu_nu = h lambda0)."""
    n, m, s = c.n, c.m, c.s
    qc, dl, mu = sc.qc, sc.dl, sc.mu
    for r in range(n):
        qc[0, r] = y[r]
        acc_r = 0.0
        for col in range(n):
            acc_r += M[r, col] * y[n + col]
        sc.p0[r] = acc_r
    if k == 0:
        for nu in range(1, s + 1):
            for r in range(n):
                dl[nu, r] = y[n + r] + 0.5 * c.ct[nu] * h * sc.acc0[r]
        for nu in range(s + 1):
            for r in range(m):
                mu[nu, r] = h * sc.lam0[r]
    else:
        for nu in range(1, s + 1):
            for r in range(n):
                qp = 0.0
                for j in range(s + 1):
                    qp += c.extrap[nu, j] * mem.qprev[j, r]
                dl[nu, r] = (qp - y[r]) / h
        for nu in range(s + 1):
            for r in range(m):
                mu[nu, r] = mem.muprev[nu, r]


@njit(cache=True, inline="always")
def _stages(cd, y, h, c, sc, jac):
    """Control points q^nu = q0 + h Delta^nu and, at every Gauss point i, Q_i, V_i, E_i, Y_i (with ``jac`` also
    their derivatives, _stage)."""
    for nu in range(1, c.s + 1):
        for r in range(c.n):
            sc.qc[nu, r] = y[r] + h * sc.dl[nu, r]
    for i in range(c.s):
        _interpolate(c.lag, c.dlag, sc.qc, sc.dl, i, sc.Q[i], sc.V[i])
        _stage(cd, c.gamma, sc.Q[i], sc.V[i], sc.E[i], sc.Y[i], jac, sc.JF[i], sc.EV[i], sc.YQ[i], sc.YV[i], sc.blk)


@njit(cache=True, inline="always")
def _residual(cd, y, h, c, sc, jac):
    """The step equations at the iterate (module docstring), negated into res: rows nu n + r of R_nu (nu = 0..s-1),
    then rows s n + (nu - 1) m + e of Phi(q^nu) / h (nu = 1..s). Also G(q^nu) and d(G^T mu_nu)/dq into Gs, Hs and,
    with ``jac``, the stage derivatives for the Newton matrix. Returns max |residual|."""
    n, m, s = c.n, c.m, c.s
    res, Gs, mu = sc.res, sc.Gs, sc.mu
    _stages(cd, y, h, c, sc, jac)
    for nu in range(s + 1):
        if nu == s or nu == 0:
            coords.constraint_hessian(cd, sc.qc[nu], sc.zero, sc.phi, Gs[nu], sc.Hs[nu])
        else:
            coords.constraint_hessian(cd, sc.qc[nu], mu[nu], sc.phi, Gs[nu], sc.Hs[nu])
        if nu >= 1:
            for r in range(m):
                res[s * n + (nu - 1) * m + r] = sc.phi[r] / h
    for nu in range(s):
        for r in range(n):
            v = sc.p0[r] if nu == 0 else 0.0
            for i in range(s):
                v += c.b[i] * (h * c.lag[i, nu] * sc.E[i, r] + c.dlag[i, nu] * sc.Y[i, r])
            for e in range(m):
                v -= c.bt[nu] * Gs[nu, e, r] * mu[nu, e]
            res[nu * n + r] = v
    rmax = 0.0
    for r in range(res.shape[0]):
        rmax = max(rmax, abs(res[r]))
        res[r] = -res[r]
    return rmax


@njit(cache=True, inline="always")
def _jacobian(h, c, sc):
    """The Newton matrix of the step equations in (Delta^1..Delta^s, mu_0..mu_{s-1}) into J: the stage derivatives
    chained through Q_i = sum l_nu(c_i) (q0 + h Delta^nu) and V_i = sum l'_nu(c_i) Delta^nu, the constraint Hessian
    term -h bt_nu d(G^T mu_nu)/dq, -bt_nu G(q^nu)^T, and G(q^nu) in the constraint rows."""
    n, m, s = c.n, c.m, c.s
    J, Gs, b, bt, lag, dlag = sc.J, sc.Gs, c.b, c.bt, c.lag, c.dlag
    N = J.shape[0]
    for r in range(N):
        for col in range(N):
            J[r, col] = 0.0
    for nu in range(s):
        for mu_i in range(1, s + 1):
            ro = nu * n
            co = (mu_i - 1) * n
            for r in range(n):
                for col in range(n):
                    v = 0.0
                    for i in range(s):
                        lm = h * lag[i, mu_i]
                        dm = dlag[i, mu_i]
                        v += b[i] * (h * lag[i, nu] * (lm * sc.JF[i, r, col] + dm * sc.EV[i, r, col])
                                     + dlag[i, nu] * (lm * sc.YQ[i, r, col] + dm * sc.YV[i, r, col]))
                    if nu == mu_i:
                        v -= h * bt[nu] * sc.Hs[nu, r, col]
                    J[ro + r, co + col] = v
        for r in range(n):
            for e in range(m):
                J[nu * n + r, s * n + nu * m + e] = -bt[nu] * Gs[nu, e, r]
    for nu in range(1, s + 1):
        for e in range(m):
            for col in range(n):
                J[s * n + (nu - 1) * m + e, (nu - 1) * n + col] = Gs[nu, e, col]


@njit(cache=True, inline="always")
def _update(c, sc):
    """Delta += its update, mu_0..mu_{s-1} += theirs (from res); returns the sizes kernels.newton_next2 takes."""
    n, m, s = c.n, c.m, c.s
    res = sc.res
    big_d = 0.0
    big_x = 0.0
    for nu in range(1, s + 1):
        for r in range(n):
            dd = res[(nu - 1) * n + r]
            sc.dl[nu, r] += dd
            big_d = max(big_d, abs(dd))
            big_x = max(big_x, abs(sc.dl[nu, r]))
    big_m = 0.0
    big_mu = 0.0
    for nu in range(s):
        for e in range(m):
            dd = res[s * n + nu * m + e]
            sc.mu[nu, e] += dd
            big_m = max(big_m, abs(dd))
            big_mu = max(big_mu, abs(sc.mu[nu, e]))
    return big_d, big_x, big_m, big_mu


@kernels.part
def _newton(cd, y, h, t, c, sc, maxima, info):
    """Simplified Newton on the step equations from the predictor: the matrix is formed and factorised at the first
    iterate and again whenever an iterate contracts by less than a factor 4 (kernels.newton_next2). Returns OK,
    SINGULAR or NEWTON (booked in maxima and info)."""
    N = sc.J.shape[0]
    code = kernels.CONTINUE
    rmax = 0.0
    prev_upd = np.inf
    fresh = kernels.flag(True)  # the matrix at the first iterate; kernels.flag: _stage compiles once
    it = 0
    while it < c.max_iter:
        it += 1
        rmax = _residual(cd, y, h, c, sc, fresh)
        if fresh:
            _jacobian(h, c, sc)
            if not lu_factor_inplace(sc.J, sc.piv, N):
                info[kernels.INFO_TIME] = t
                return kernels.SINGULAR
            fresh = False
        lu_solve_factored(sc.J, sc.piv, sc.res, N)
        big_d, big_x, big_m, big_mu = _update(c, sc)
        code, prev_upd, fresh = kernels.newton_next2(big_d, big_x, big_m, big_mu, prev_upd, it, c.tol, fresh)
        if code != kernels.CONTINUE:
            break
    if kernels.newton_failed(code, it, maxima, info, t, rmax):
        return kernels.NEWTON
    return kernels.OK


@njit(cache=True, inline="always")
def _velocity_stage(cd, M, y, h, c, sc):
    """The linear stage at the converged unknowns: p1 = sum_i b_i [h l_s(c_i) E_i + l_s'(c_i) Y_i] - bt_s G(q1)^T mu_s
    with G(q1) M^-1 p1 = 0 (module docstring), solved as the saddle-point system for qdot1 = M^-1 p1 and mu_s.
    False if it is singular."""
    n, m, s = c.n, c.m, c.s
    _stages(cd, y, h, c, sc, kernels.flag(False))  # no stage derivatives; kernels.flag: _stage compiles once
    for r in range(n):
        v = 0.0
        for i in range(s):
            v += c.b[i] * (h * c.lag[i, s] * sc.E[i, r] + c.dlag[i, s] * sc.Y[i, r])
        sc.bs[r] = v
    coords.constraint_hessian(cd, sc.qc[s], sc.zero, sc.phi, sc.G, sc.H)
    if not saddle_point_solve(M, sc.G, n, m, sc.As, sc.bs):
        return False
    for r in range(n):
        sc.qd1[r] = sc.bs[r]
    for e in range(m):
        sc.mu[s, e] = sc.bs[n + e] / c.bt[s]
    return True


@njit(cache=True, inline="always")
def _accept(y, h, k, c, sc, mem):
    """y = (q1, qdot1) unless it is not finite (False); the step's control points and multipliers for the next
    predictor, qddot by differences for the diagnostics."""
    n = c.n
    for r in range(n):
        sc.ydot[r] = sc.qc[c.s, r]
        sc.ydot[n + r] = sc.qd1[r]
    if not kernels.state_ok(sc.ydot):
        return False
    for r in range(y.shape[0]):
        y[r] = sc.ydot[r]
    for nu in range(c.s + 1):
        for r in range(n):
            mem.qprev[nu, r] = sc.qc[nu, r]
        for e in range(c.m):
            mem.muprev[nu, e] = sc.mu[nu, e]
    coords.difference_acceleration(mem.w_older, mem.w_old, sc.qd1, h, k + 1, sc.acc)
    for r in range(n):
        mem.w_older[r] = mem.w_old[r]
        mem.w_old[r] = sc.qd1[r]
    return True


@njit(cache=True, inline="always")
def _step(cd, M, y, h, t, k, c, sc, mem, maxima, info):
    """One step from y = (q0, qdot0) at time t (global step k) to t + h, in place, with its diagnostics row in sc.d.
    Returns OK or the failure status (its time in info[INFO_TIME])."""
    _predict(M, y, h, k, c, sc, mem)
    status = _newton(cd, y, h, t, c, sc, maxima, info)
    if status != kernels.OK:
        return status
    if not _velocity_stage(cd, M, y, h, c, sc):
        info[kernels.INFO_TIME] = t + h
        return kernels.SINGULAR
    if not _accept(y, h, k, c, sc, mem):
        info[kernels.INFO_TIME] = t + h
        return kernels.NONFINITE
    coords.diagnostics(cd, y, sc.acc, sc.d)
    return kernels.OK


@njit(cache=True, error_model="numpy")
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """SPARK kernel (contract in solvers.kernels). opts: see HEADER (Coefficients); work (_work_fields, Memory) =
    [qdot_{n-1} (n), qdot_n (n), the previous step's control points q^0..q^s ((s + 1) n), its multipliers
    mu_0..mu_s ((s + 1) m)]."""
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    cd = kernels.borrowed(data[1])
    y, work, opts, samples, maxima, ref, info = kernels.borrowed((y, work, opts, samples, maxima, ref, info))
    M = cd.mass_matrix
    c = _coefficients(opts, M.shape[0], coords.constraint_rows(cd))
    mem = _memory(work, c)
    # the scratch, allocated once per call, without reference counting; keep_alive holds it to the end
    own = _scratch(cd, c, y.shape[0])
    sc = kernels.borrowed(own)
    t = t_start + k0 * h
    if k0 == 0:  # the t = 0 state made consistent; qddot0, lambda0 of the index-1 DAE for the first predictor
        if not coords.consistent_start(cd, t, y, sc.ydot, sc.As, sc.bs, sc.acc, mem.w_old, mem.w_older):
            info[kernels.INFO_TIME] = t
            return 0, kernels.SINGULAR, n_saved
        for r in range(c.n):
            sc.acc0[r] = sc.ydot[c.n + r]
        for r in range(c.m):
            sc.lam0[r] = sc.bs[c.n + r]
        coords.diagnostics_call(cd, y, sc.acc, sc.d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, sc.d, 0, stride, last)
    for st in range(n_steps):
        k = k0 + st
        t = t_start + k * h
        status = _step(cd, M, y, h, t, k, c, sc, mem, maxima, info)
        if status != kernels.OK:
            return st, status, n_saved
        n_saved = kernels.record(samples, n_saved, maxima, ref, t + h, y, sc.d, k + 1, stride, last)
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [newton_tol, newton_max_iter, s, gamma] + the tableau (solvers.tableaus.spark)."""
    s = int(o["s"])
    tb = tableaus.spark(s)
    return np.concatenate([
        [o["newton_tol"], float(o["newton_max_iter"]), float(s), float(o["gamma"])],
        tb["c"], tb["b"], tb["bt"], tb["ct"], tb["lag"].ravel(), tb["dlag"].ravel(), tb["extrap"].ravel(),
    ])


def work_size(model) -> int:
    """The fields of _work_fields for s up to MAX_S."""
    fields = python_function(_work_fields)
    return sum(fields(model.data.mass_matrix.shape[0], coords.n_rows(model.data), tableaus.MAX_S))


GAMMA_CHOICES = ("R", "T", "opt")
OPT_REF_FACTOR = 100  # the reference of the gamma_opt runs has step h / 100 (seed 003)


class GammaOption(Option):
    """gamma: a number, or "R", "T", "opt" (seed 003's gamma_R, gamma_T, gamma_opt), resolved by ``prepare``."""

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, str) and value.strip() in GAMMA_CHOICES:
            return value.strip()
        try:
            return super().validate(name, value)
        except ValueError:
            raise ValueError(
                f"option {name!r}: {value!r} is neither a number in [{self.low:g}, {self.high:g}] nor one of "
                f"{', '.join(map(repr, GAMMA_CHOICES))}"
            ) from None


def bars(model) -> list[tuple[float, float]]:
    """(L, J) of the model's bars: DISTANCE constraints between natural-coordinate points, in model order."""
    if model.machinery != "coords":
        return []
    pts, cons = model.data.points, model.data.constraints
    ok = (coords.PAIR, coords.FIXED)
    return [(float(c[3]), float(c[4])) for c in cons
            if int(c[0]) == coords.DISTANCE and int(pts[int(c[1]), 0]) in ok and int(pts[int(c[2]), 0]) in ok]


def _need_bars(model, benchmark: str, choice: str) -> list[tuple[float, float]]:
    b = bars(model)
    if not b or all(j == 0.0 for _, j in b):
        raise ValueError(
            f"option 'gamma': {choice!r} needs bars in natural coordinates with known inertia (seed 003's "
            f"natural_double_pendulum); benchmark {benchmark!r} has none: give a number instead"
        )
    return b


def gamma_R(model, benchmark: str = "") -> float:
    """Seed 003 eq. 31: gamma_R = the mean of the bars' moments of inertia J_i (about their centres)."""
    b = _need_bars(model, benchmark, "R")
    return float(np.mean([j for _, j in b]))


def gamma_T(model, benchmark: str = "") -> float:
    """Seed 003 eq. 32 as reconstructed here: gamma_T = (1/N) sum_i i J_i over the chain's bars i = 1..N.

    The seed's formula is lost (garbled); this form reproduces its value 0.916667 for l1 = 2, l2 = 3, m1 = m2 = 1
    (J = 1/3, 3/4: (1/3 + 2 * 3/4) / 2 = 11/12) but is fitted to that one number, not derived (docs/methods.md).
    """
    b = _need_bars(model, benchmark, "T")
    return float(np.mean([(i + 1) * j for i, (_, j) in enumerate(b)]))


def signed_mean_error(q: np.ndarray, q_ref: np.ndarray) -> float:
    """Seed 003 eqs. 38-39 and delta W = E[dx] + E[dy]: the signed trajectory error averaged over the steps k = 1..
    Nh and the N points (natural coordinates q = [x1, y1, ..., xN, yN])."""
    d = np.asarray(q)[1:] - np.asarray(q_ref)[1:]
    return float(d[:, 0::2].mean() + d[:, 1::2].mean())


def gamma_opt(run: Runner, benchmark: str, params: dict[str, Any], h: float, steps: int, s: int, gamma2: float,
              newton: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seed 003 eq. 11: gamma_opt = (gamma_1 dW_2 - gamma_2 dW_1) / (dW_2 - dW_1) with gamma_1 = 0, gamma_2 = gamma2
    from two short runs (``steps`` steps of size h) against a reference with step h / 100 (the same method at
    gamma = 0), dW the signed mean trajectory error (:func:`signed_mean_error`). ``run`` is the driver's Runner
    (the sub-runs answer to the caller's progress and cancel, and count in its CPU time). Returns the value and
    its data."""
    t_end = steps * h
    params = dict(params or {})
    base = {"s": s, **(newton or {})}
    ref = run(benchmark, "spark", h / OPT_REF_FACTOR, t_end, params=params, options={**base, "gamma": 0.0},
              save_every=OPT_REF_FACTOR)
    if ref.status != "ok":
        raise ValueError(f"gamma 'opt': the reference run failed ({ref.message})")
    q_ref = ref.state["q"]
    dW = []
    for g in (0.0, gamma2):
        r = run(benchmark, "spark", h, t_end, params=params, options={**base, "gamma": g})
        if r.status != "ok":
            raise ValueError(f"gamma 'opt': the short run at gamma = {g:g} failed ({r.message})")
        dW.append(signed_mean_error(r.state["q"], q_ref[: len(r.t)]))
    if dW[1] == dW[0]:
        raise ValueError("gamma 'opt': the two short runs have the same signed error; cannot interpolate")
    g1, g2 = 0.0, gamma2
    value = (g1 * dW[1] - g2 * dW[0]) / (dW[1] - dW[0])
    if not np.isfinite(value) or abs(value) > 1e6:
        raise ValueError(f"gamma 'opt': the interpolated gamma {value!r} is not usable (dW = {dW})")
    return {"gamma": float(value), "gamma_points": [g1, g2], "dW": dW, "steps": int(steps), "h": float(h)}


def prepare(o: dict[str, Any], *, benchmark: str, params: dict[str, Any], model, h: float, t_end: float,
            run: Runner) -> dict[str, Any]:
    """Resolve gamma = "R", "T" or "opt" to a number before packing (the kernel keeps a numeric gamma); the
    Result's options then carry the number as ``gamma`` and the request as ``gamma_choice`` (plus, for "opt",
    the two short runs' data). "opt" runs here, in Python, before the main run: two runs of
    min(opt_steps, steps to t_end) steps at opt_h (0: the main run's h), and their reference (opt_h / 100),
    through ``run`` (the driver's Runner)."""
    g = o["gamma"]
    if not isinstance(g, str):
        return o
    out = dict(o)
    out["gamma_choice"] = g
    if g == "R":
        out["gamma"] = gamma_R(model, benchmark)
    elif g == "T":
        out["gamma"] = gamma_T(model, benchmark)
    else:
        g2 = gamma_T(model, benchmark)
        h_opt = float(o["opt_h"]) or h
        steps = min(int(o["opt_steps"]), step_count(h_opt, t_end))
        newton = {"newton_tol": o["newton_tol"], "newton_max_iter": o["newton_max_iter"]}
        res = gamma_opt(run, benchmark, params, h_opt, steps, int(o["s"]), g2, newton)
        out["gamma"] = res["gamma"]
        out["gamma_opt_points"] = res["gamma_points"]
        out["gamma_opt_dW"] = res["dW"]
        out["gamma_opt_steps"] = res["steps"]
        out["gamma_opt_h"] = res["h"]
    return out


METHOD = Method(
    id="spark",
    title="Gauss-Lobatto SPARK (s,s) (Jay 2007), seed 003",
    seed="003",
    order=4,
    order_for=lambda o: 2 * int(o["s"]),
    description=(
        "Symplectic, symmetric Gauss-Lobatto SPARK (s,s) method of order 2s (s = 1..4; the order shown is for the "
        "default s = 2) with seed 003's parameter gamma: the bars' rotational kinetic energy J omega^2 / 2 plus "
        "gamma (I - S) on their unit vectors (natural coordinates), zero on the constraint manifold, so gamma changes "
        "the discretisation error (the phase), not the physics; gamma = 'R', 'T' or 'opt' picks seed 003's values "
        "(eqs. 31, 32, 11). 'T' is our choice: the seed's eq. 32 is unreadable, so we use (1/N) sum_i i J_i, picked "
        "because it reproduces the seed's printed gamma_T = 0.916667 (11/12) for its bars, not derived. Position "
        "and velocity constraints hold to the Newton tolerance, energy error stays "
        "bounded."
    ),
    kernel=advance,
    machineries=("coords",),
    options={
        "s": Option(2, "stages: s Gauss points, s + 1 Lobatto constraint nodes; order 2s", "int", 1, tableaus.MAX_S),
        "gamma": GammaOption(0.0, "seed 003's parameter gamma (kg m^2): a number or 'R', 'T', 'opt' (seed eqs. 31, "
                             "32, 11); 'T' = (1/N) sum_i i J_i is our formula, chosen to reproduce the seed's printed "
                             "0.916667 because its eq. 32 is unreadable", "float", -1e6, 1e6, GAMMA_CHOICES),
        "opt_steps": Option(100, "steps of the two short runs of gamma = 'opt' (at opt_h, at most up to t_end)",
                            "int", 2, 100_000),
        "opt_h": Option(0.0, "step of the short runs of gamma = 'opt' (0: the run's h; seed 003 Table 2: 0.01)",
                        "float", 0.0, 1e3),
        **NEWTON_OPTIONS,
    },
    pack=pack,
    work_size=work_size,
    prepare=prepare,
    properties=("implicit", "symplectic", "symmetric", "constraints at position and velocity level"),
)
