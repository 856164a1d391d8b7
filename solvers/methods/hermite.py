"""Seed 001's discrete variational methods with Hermite interpolation and 2-point Gauss quadrature, H23G2 and
H33G2 (Zhang, Wang, Ding, J. Dyn. Control 2018, DOI 10.6052/1672-6553-2018-010, eqs. 3-17), on the planar
generalized-coordinate machinery (constant mass matrix M, force f = -dU/dq, holonomic constraints Phi).

Both methods are cubic in time (the names count points and degree: "H23" = 2 points, degree 3, eq. 16;
"H33" = 3 points, degree 3, eq. 9; neither is quintic). On a step [t_k, t_k + h], tau = (t - t_k)/h:

- H33G2 (seed 2.1, "known derivative"): the cubic through q_k (tau = 0), q_m (tau = 1/2), q_{k+1} (tau = 1)
  with the known start slope qdot_k. The seed's printed basis (eq. 9) has alpha_1'(0) = -2, alpha_2'(0) = 4,
  alpha_3'(0) = -2 (so q_d'(0) is not qdot_k) and does not reproduce quadratics; we use the Hermite interpolant
  whose remainder is the seed's eq. 10: Newton's quadratic through the three points plus c w(tau),
  w = tau (tau - 1/2)(tau - 1), c = 2 (h qdot_k + 3 q_k - 4 q_m + q_{k+1}):
  alpha_1 = 1 - 2 tau + 2 tau (tau - 1/2) + 6 w, alpha_2 = 2 tau - 4 tau (tau - 1/2) - 8 w,
  alpha_3 = 2 tau (tau - 1/2) + 2 w, beta = 2 h w. Unknowns of the step: q_m and q_{k+1}.
- H23G2 (seed 2.2, "unknown derivatives", eq. 16): the cubic Hermite interpolant of (q_k, qdot_k) and
  (q_{k+1}, v_{k+1}). Unknowns of the step: q_{k+1} and the end slope v_{k+1}.

Discrete action of a step (seed eq. 3, 2-point Gauss (c_j, b_j), constraints at the nodes only):
L_d = h sum_j b_j [V_j^T M V_j / 2 - U(Q_j)], Q_j = q_d(c_j), V_j = dq_d/dt(c_j). Seed eq. 4, solved step by step
(seed 2.1: "on [t_i, t_{i+1}] the left end point's q and qdot are known"), in position-momentum form:

    p_k + dL_d/dq_k - G(q_k)^T mu = 0,   dL_d/dX = 0 (X = q_m for H33, v_{k+1} for H23),   Phi(q_{k+1}) = 0,
    p_{k+1} = dL_d/dq_{k+1}   (p_0 = M qdot_0),

unknowns X, q_{k+1} and mu = h lambda_k (2n + m). The start slope is not varied: it is the known qdot_k.

Interpretation and why (see docs/methods.md): the state is (q_k, qdot_k) with qdot_k = M^-1 p_k, the discrete
Legendre transform; the start slope of the next step's cubic is that same qdot_k. The Hermite slopes themselves
(H23's solved v_{k+1}, H33's q_d'(1)) are not used as velocities: the multipliers act only at the nodes, so the
interior of the cubic never feels the constraint forces and those slopes fall freely (measured on the two-link arm:
|G v| = g after 1 s, energy off by 110 J), while the seed's tables show velocity-level violations of O(h)
(0.88 at h = 0.01, 0.44 at h = 0.005), which is what qdot = M^-1 p_{k+1} gives (no constraint impulse at
t_{k+1}). Option ``project`` = 1 adds that impulse (RATTLE's second half: qdot_{k+1} with G(q_{k+1}) qdot_{k+1} = 0
from [[M, G^T], [G, 0]] [qdot; nu] = [p_{k+1}; 0]), a stronger variant that is not the seed's.

Order: positions 2 (constraints imposed at the step nodes only, SHAKE-type: docs/algorithms.md section 5); the seed's
velocities M^-1 p 1 (they miss O(h) of constraint impulse), 2 with ``project``. H23G2 and H33G2 are the same
method: both curves are the cubics with the given q_k, qdot_k and q_{k+1}, a one-parameter family (H33 names the
free parameter q_m, H23 the end slope v_{k+1}), and both make L_d stationary in that parameter, so they pick the
same cubic and give the same steps for every force (measured on planar_pendulum, h = 0.05, 10 s: 1.1e-11, 3.7e-14,
1.5e-15 apart at newton_tol 1e-8, 1e-10, 1e-12). For the seed's benchmarks the force is constant (linear gravity),
the cubic contains the exact free flight and 2-point Gauss integrates it exactly: SHAKE with the exact discrete
Lagrangian of free flight (symplectic).

Newton on (Delta_X, Delta_1, mu), Delta = (q - q_k)/h for position unknowns, v itself for H23's slope, with the
exact Jacobian: the 2n x 2n block A = sum_j b_j [h^2 W_ja W_ju df/dq(Q_j) + D_ja D_ju M] (constant for linear
potentials) is factorised (and inverted explicitly: A^-1 [G(q_k)^T; 0] and the Newton solves become matrix-vector
products) at the first iterate of a kernel call and again whenever an iterate contracts by less than a factor 4; the
multipliers are eliminated by the Schur complement G(q_{k+1}) A^-1 [G(q_k)^T; 0] (m x m), formed afresh at every
iterate. With a constant force (no cosine terms) the momentum equations are affine in the unknowns, so after a
Newton update their residual is zero up to round-off and is not evaluated again (only Phi(q_{k+1}) is). Stopping rule:
kernels.newton_test (docs/methods.md, "Newton iteration"). Predictor: quadratic
extrapolation of the node positions, linear of X and mu. No allocation in the step loop; M is factorised once per
call for qdot = M^-1 p, and the diagnostics at q_{k+1} leave G(q_{k+1}) for the next step (coords.diagnostics_terms).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels, tableaus
from ..linalg import lu_factor_inplace, lu_solve_factored, lu_solve_factored_inline, lu_solve_inline, saddle_point_solve
from ..models import coords
from .base import NEWTON_OPTIONS, Method, Option

# opts = [newton_tol, newton_max_iter, x_is_velocity, project, b (2), W (2 x 4), D (2 x 4)]
# curve parameters (columns of W, D): 0 q_k, 1 X (q_m or v_{k+1}), 2 q_{k+1}, 3 qdot_k (known start slope)
HEADER = 4
N_PAR = 4


# the option array's slots, in the order pack writes them
O_TOL, O_MAX_ITER, O_X_IS_V, O_PROJECT = range(4)


def _basis(variant: str, tau: float) -> tuple[list[float], list[float]]:
    """Values and tau-derivatives of the four curve basis functions (slope bases without their factor h)."""
    t = tau
    if variant == "h33":
        w = t * (t - 0.5) * (t - 1.0)
        dw = 3.0 * t * t - 3.0 * t + 0.5
        n2 = t * (t - 0.5)
        dn2 = 2.0 * t - 0.5
        return ([1.0 - 2.0 * t + 2.0 * n2 + 6.0 * w, 2.0 * t - 4.0 * n2 - 8.0 * w, 2.0 * n2 + 2.0 * w, 2.0 * w],
                [-2.0 + 2.0 * dn2 + 6.0 * dw, 2.0 - 4.0 * dn2 - 8.0 * dw, 2.0 * dn2 + 2.0 * dw, 2.0 * dw])
    # h23, eq. 16: q_k, v_{k+1}, q_{k+1}, qdot_k
    return ([(1.0 + 2.0 * t) * (t - 1.0) ** 2, (t - 1.0) * t * t, (3.0 - 2.0 * t) * t * t, t * (t - 1.0) ** 2],
            [6.0 * t * t - 6.0 * t, 3.0 * t * t - 2.0 * t, 6.0 * t - 6.0 * t * t, 3.0 * t * t - 4.0 * t + 1.0])


def end_curvature(variant: str) -> np.ndarray:
    """Second tau-derivatives of the four curve bases at tau = 1 (the step's end; slope bases without h):
    H33 from w'' = 6 tau - 3, H23 from the cubic Hermite bases (6, 4, -6, 2 in the order of _basis)."""
    if variant == "h33":
        return np.array([22.0, -32.0, 10.0, 6.0])
    return np.array([6.0, 4.0, -6.0, 2.0])


def basis_tables(variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss weights b (2) and the basis W[j, a], its tau-derivative D[j, a] at the two Gauss points (2 x 4)."""
    c, b = tableaus.gauss(2)
    W = np.array([_basis(variant, float(cj))[0] for cj in c])
    D = np.array([_basis(variant, float(cj))[1] for cj in c])
    return b, W, D


@njit(cache=True, inline="always")
def _stages(q0, v0, dx, d1, h, W, D, Q, V):
    """Q_j = q_k + h (W_j3 qdot_k + W_j1 Delta_X + W_j2 Delta_1), V_j = D_j3 qdot_k + D_j1 Delta_X + D_j2 Delta_1."""
    for j in range(2):
        for r in range(q0.shape[0]):
            Q[j, r] = q0[r] + h * (W[j, 3] * v0[r] + W[j, 1] * dx[r] + W[j, 2] * d1[r])
            V[j, r] = D[j, 3] * v0[r] + D[j, 1] * dx[r] + D[j, 2] * d1[r]


@njit(cache=True, inline="always")
def _gradient(a, b, W, D, h, F, MV, out, off):
    """out[off:off + n] = sum_j b_j [h W_ja f(Q_j) + D_ja M V_j] (= dL_d/dX_a for position parameters, (1/h) dL_d/dv
    for slopes)."""
    for r in range(F.shape[1]):
        out[off + r] = (b[0] * (h * W[0, a] * F[0, r] + D[0, a] * MV[0, r])
                        + b[1] * (h * W[1, a] * F[1, r] + D[1, a] * MV[1, r]))


@njit(cache=True, inline="always")
def _forces(cd, Q, F):
    """F[j] = f(Q[j]) for both Gauss points (coords.force without row views: in every Newton iteration)."""
    f0 = cd[1]
    ct = cd[2]
    for j in range(2):
        for i in range(Q.shape[1]):
            F[j, i] = f0[i]
        for k in range(ct.shape[0]):
            i = int(ct[k, 0])
            F[j, i] += ct[k, 1] * np.sin(Q[j, i] + ct[k, 2])


# inlined forms (no compiled call with array arguments: atomic reference counting) of the model and linear-algebra
# helpers called in every Newton iteration (constraint Jacobian at q_{k+1}) or every step
_constraint_jacobian = njit(inline="always")(coords.constraint_jacobian.py_func)
_diagnostics_terms = njit(inline="always")(coords.diagnostics_terms.py_func)


@njit(cache=True, error_model="numpy")
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Hermite DVI kernel (contract in solvers.kernels). opts: see HEADER; work = [qdot_{k-1}, qdot_k (velocity
    history for the acceleration diagnostic), q_{k-1}, q_{k-2}, X_{k-1}, X_{k-2} (n each), mu_{k-1}, mu_{k-2} (m)]."""
    cd = data[1]
    M = cd[0]
    n = M.shape[0]
    m = coords.constraint_rows(cd)
    ny = y.shape[0]
    tol = opts[O_TOL]
    max_iter = int(opts[O_MAX_ITER])
    x_is_v = opts[O_X_IS_V] > 0.5
    project = opts[O_PROJECT] > 0.5
    b = opts[HEADER : HEADER + 2]
    W = opts[HEADER + 2 : HEADER + 2 + 2 * N_PAR].reshape((2, N_PAR))
    D = opts[HEADER + 2 + 2 * N_PAR : HEADER + 2 + 4 * N_PAR].reshape((2, N_PAR))
    interpolant = opts[HEADER + 2 + 4 * N_PAR] > 0.5
    Send = opts[HEADER + 3 + 4 * N_PAR : HEADER + 3 + 5 * N_PAR]
    w_older = work[0:n]
    w_old = work[n : 2 * n]
    qh1 = work[2 * n : 3 * n]
    qh2 = work[3 * n : 4 * n]
    xh1 = work[4 * n : 5 * n]
    xh2 = work[5 * n : 6 * n]
    muh1 = work[6 * n : 6 * n + m]
    muh2 = work[6 * n + m : 6 * n + 2 * m]

    # scratch, allocated once per call
    mm = max(m, 1)
    sz = n + m
    As = np.empty((sz, sz))
    bs = np.empty(sz)
    ydot = np.empty(ny)
    acc = np.zeros(ny)
    d = np.empty(kernels.N_DIAG)
    phi = np.empty(mm)
    G0 = np.empty((mm, n))
    G1 = np.empty((mm, n))
    Q = np.empty((2, n))
    V = np.empty((2, n))
    F = np.empty((2, n))
    MV = np.empty((2, n))
    JF = np.empty((2, n, n))
    n2 = 2 * n
    N = n2 + m
    A = np.empty((n2, n2))  # d(R_0, R_X)/d(Delta_X, Delta_1), LU-factorised
    piv = np.empty(n2, dtype=np.int64)
    Ainv = np.empty((n2, n2))  # A^-1 (explicit: matrix-vector products are cheaper than 4 + 2 solves per step)
    Y = np.empty((n2, mm))  # A^-1 dR/dmu (dR/dmu = [-G(q_k)^T; 0])
    S = np.empty((mm, mm))  # Schur complement G(q_{k+1}) Y[n:]
    col = np.empty(n2)
    res = np.empty(N)
    p0 = np.empty(n)
    p1 = np.empty(n)
    v0 = np.empty(n)
    dx = np.empty(n)
    d1 = np.empty(n)
    mu = np.empty(mm)
    qd1 = np.empty(n)
    gq = np.empty(mm)
    # M factorised once: qdot_{k+1} = M^-1 p_{k+1} (without 'project'), the same elimination as lu_solve_inplace
    MLU = np.empty((n, n))
    mpiv = np.empty(n, dtype=np.int64)
    for r in range(n):
        for c in range(n):
            MLU[r, c] = M[r, c]
    if not lu_factor_inplace(MLU, mpiv, n):
        info[kernels.INFO_TIME] = t_start + k0 * h
        return 0, kernels.SINGULAR, n_saved
    # Jacobian coefficients of the two equation blocks (rows a = 0, 1) w.r.t. the two unknown blocks (u = 1, 2)
    kin = np.empty((2, 2))
    pot = np.empty((2, 2, 2))
    for a in range(2):
        for u in range(2):
            kin[a, u] = b[0] * D[0, a] * D[0, u + 1] + b[1] * D[1, a] * D[1, u + 1]
            for j in range(2):
                pot[a, u, j] = b[j] * h * h * W[j, a] * W[j, u + 1]

    affine = cd[2].shape[0] == 0  # no cosine terms: constant force, A constant
    t = t_start + k0 * h
    if k0 == 0:
        if not coords.consistent_start(cd, t, y, ydot, As, bs, acc, w_old, w_older):
            info[kernels.INFO_TIME] = t
            return 0, kernels.SINGULAR, n_saved
        coords.diagnostics_terms(cd, y, acc, d, phi, G0, gq)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, last)

    fresh = True
    g0_ready = k0 == 0  # G0 = G(q_k) is left by the diagnostics of the previous step
    for st in range(n_steps):
        k = k0 + st
        t = t_start + k * h
        for r in range(n):
            v0[r] = y[n + r]
            s = 0.0
            for c in range(n):
                s += M[r, c] * y[n + c]
            p0[r] = s
        if not g0_ready:
            coords.constraint_jacobian(cd, y[:n], phi, G0)
        stale_y = True
        # predictor
        for r in range(n):
            q = y[r]
            if k == 0:
                q1 = q + h * v0[r]
                xp = q + 0.5 * h * v0[r]
            elif k == 1:
                q1 = 2.0 * q - qh1[r]
                xp = xh1[r] + (q - qh1[r])
            else:
                q1 = 3.0 * q - 3.0 * qh1[r] + qh2[r]
                xp = 2.0 * xh1[r] - xh2[r]
            d1[r] = (q1 - q) / h
            if x_is_v:
                dx[r] = v0[r] if k == 0 else (xh1[r] if k == 1 else xp)
            else:
                dx[r] = (xp - q) / h
        for e in range(m):
            if k == 0:
                mu[e] = 0.0
            elif k == 1:
                mu[e] = muh1[e]
            else:
                mu[e] = 2.0 * muh1[e] - muh2[e]
        code = kernels.CONTINUE
        rmax = 0.0
        prev_upd = np.inf
        it = 0
        while it < max_iter:
            it += 1
            # with a constant force, (R_0, R_X) is affine in (Delta_X, Delta_1, mu): zero after a Newton update
            skip_z = affine and it > 1
            if skip_z:
                for r in range(n2):
                    res[r] = 0.0
            else:
                _stages(y, v0, dx, d1, h, W, D, Q, V)
                _forces(cd, Q, F)
                for j in range(2):
                    for r in range(n):
                        s = 0.0
                        for c in range(n):
                            s += M[r, c] * V[j, c]
                        MV[j, r] = s
                _gradient(0, b, W, D, h, F, MV, res, 0)
                _gradient(1, b, W, D, h, F, MV, res, n)
                for r in range(n):
                    s = p0[r]
                    for e in range(m):
                        s -= G0[e, r] * mu[e]
                    res[r] += s
            for r in range(n):
                qd1[r] = y[r] + h * d1[r]  # q_{k+1}
            _constraint_jacobian(cd, qd1, phi, G1)
            for e in range(m):
                res[2 * n + e] = phi[e] / h
            rmax = 0.0
            for r in range(N):
                rmax = max(rmax, abs(res[r]))
                res[r] = -res[r]
            if fresh:
                # A from the force Jacobian at the Gauss points (constant for linear potentials)
                for j in range(2):
                    coords.force_jacobian(cd, Q[j], JF[j])
                for a in range(2):
                    for u in range(2):
                        for r in range(n):
                            for c in range(n):
                                A[a * n + r, u * n + c] = (kin[a, u] * M[r, c] + pot[a, u, 0] * JF[0, r, c]
                                                           + pot[a, u, 1] * JF[1, r, c])
                if not lu_factor_inplace(A, piv, n2):
                    info[kernels.INFO_TIME] = t
                    return st, kernels.SINGULAR, n_saved
                for c in range(n2):
                    for r in range(n2):
                        col[r] = 0.0
                    col[c] = 1.0
                    lu_solve_factored(A, piv, col, n2)
                    for r in range(n2):
                        Ainv[r, c] = col[r]
                fresh = False
                stale_y = True
            if stale_y:
                for r in range(n2):
                    for e in range(m):
                        s = 0.0
                        for c in range(n):
                            s -= Ainv[r, c] * G0[e, c]
                        Y[r, e] = s
                stale_y = False
            # Newton step by the Schur complement: x = A^-1 (-r_z), S dmu = G1 x_1 + r_phi, dz = x - Y dmu
            if not skip_z:
                for r in range(n2):
                    s = 0.0
                    for c in range(n2):
                        s += Ainv[r, c] * res[c]
                    col[r] = s
                for r in range(n2):
                    res[r] = col[r]
            for e in range(m):
                s = -res[n2 + e]  # + r_phi (res holds -r)
                for c in range(n):
                    s += G1[e, c] * res[n + c]
                bs[e] = s
                for f in range(m):
                    acc_s = 0.0
                    for c in range(n):
                        acc_s += G1[e, c] * Y[n + c, f]
                    S[e, f] = acc_s
            if m > 0 and not lu_solve_inline(S, bs, m):
                info[kernels.INFO_TIME] = t
                return st, kernels.SINGULAR, n_saved
            for e in range(m):
                res[n2 + e] = bs[e]
                for r in range(n2):
                    res[r] -= Y[r, e] * bs[e]
            big_d = 0.0
            big_x = 0.0
            for r in range(n):
                dx[r] += res[r]
                d1[r] += res[n + r]
                big_d = max(big_d, abs(res[r]), abs(res[n + r]))
                big_x = max(big_x, abs(dx[r]), abs(d1[r]))
            big_m = 0.0
            big_mu = 0.0
            for e in range(m):
                mu[e] += res[2 * n + e]
                big_m = max(big_m, abs(res[2 * n + e]))
                big_mu = max(big_mu, abs(mu[e]))
            code, prev_upd, fresh = kernels.newton_next2(big_d, big_x, big_m, big_mu, prev_upd, it, tol, fresh)
            if code != kernels.CONTINUE:
                break
        if kernels.newton_failed(code, it, maxima, info, t, rmax):
            return st, kernels.NEWTON, n_saved
        # converged: stages once more, p_{k+1} = dL_d/dq_{k+1}, then qdot_{k+1} (optionally projected)
        _stages(y, v0, dx, d1, h, W, D, Q, V)
        _forces(cd, Q, F)
        for j in range(2):
            for r in range(n):
                s = 0.0
                for c in range(n):
                    s += M[r, c] * V[j, c]
                MV[j, r] = s
        _gradient(2, b, W, D, h, F, MV, p1, 0)
        for r in range(n):
            qd1[r] = y[r] + h * d1[r]
        for r in range(n):
            bs[r] = p1[r]
        if project:
            mp = coords.constraint_jacobian(cd, qd1, phi, G1)
            if not saddle_point_solve(M, G1, n, mp, As, bs):
                info[kernels.INFO_TIME] = t + h
                return st, kernels.SINGULAR, n_saved
        else:
            lu_solve_factored_inline(MLU, mpiv, bs, n)
        for r in range(n):
            ydot[r] = qd1[r]
            ydot[n + r] = bs[r]
        if not kernels.state_ok_inline(ydot):
            info[kernels.INFO_TIME] = t + h
            return st, kernels.NONFINITE, n_saved
        # histories for the predictor
        for r in range(n):
            qh2[r] = qh1[r]
            qh1[r] = y[r]
            xh2[r] = xh1[r]
            xh1[r] = dx[r] if x_is_v else y[r] + h * dx[r]
        for e in range(m):
            muh2[e] = muh1[e]
            muh1[e] = mu[e]
        for r in range(ny):
            y[r] = ydot[r]
        if interpolant:  # the step's cubic: qddot(t_{k+1}) = (Send . (., X, Delta_1, qdot_k)) / h
            for r in range(n):
                acc[n + r] = (Send[3] * v0[r] + Send[1] * dx[r] + Send[2] * d1[r]) / h
        else:
            coords.difference_acceleration(w_older, w_old, y[n:], h, k + 1, acc)
        for r in range(n):
            w_older[r] = w_old[r]
            w_old[r] = y[n + r]
        _diagnostics_terms(cd, y, acc, d, phi, G0, gq)
        g0_ready = True
        n_saved = kernels.record_inline(samples, n_saved, maxima, ref, t + h, y, d, k + 1, stride, last)
    return n_steps, kernels.OK, n_saved


def _packer(variant: str):
    b, W, D = basis_tables(variant)
    S = end_curvature(variant)

    def pack(o: dict[str, Any]) -> np.ndarray:
        """Kernel option array: [newton_tol, newton_max_iter, x_is_velocity, project, b, W, D, interpolant, S]."""
        return np.concatenate([[o["newton_tol"], float(o["newton_max_iter"]), 1.0 if variant == "h23" else 0.0,
                                1.0 if o["project"] else 0.0], b, W.ravel(), D.ravel(),
                               [1.0 if o["acceleration"] == "interpolant" else 0.0], S])

    return pack


def work_size(model) -> int:
    """Velocity history (2 n), node and unknown histories (4 n), multiplier history (2 m)."""
    n = model.data[0].shape[0]
    return 6 * n + 2 * coords.n_rows(model.data)


_OPTIONS = {
    "project": Option(False, "not in the seed: project qdot_{k+1} onto G(q_{k+1}) qdot = 0 (RATTLE's second half), "
                             "velocity constraints then hold and velocities converge at order 2", "bool"),
    "acceleration": Option("difference", "the acceleration of the d2Phi diagnostic: 'difference' (backward difference "
                           "of the velocities, as for every method without its own acceleration) or 'interpolant' "
                           "(the second derivative of the step's cubic at its end, as seed 001 likely did)", "choice",
                           choices=("difference", "interpolant")),
    **NEWTON_OPTIONS,
}
_PROPS = ("implicit", "variational", "position constraints at the nodes", "velocity constraints not enforced")
_COMMON = (" with 2-point Gauss quadrature (seed 001), constraints imposed at the step nodes only: positions at order "
           "2 with the position constraints to the Newton tolerance; the velocity (the discrete Legendre "
           "transform M^-1 p) violates the velocity constraint by O(h) and converges at order 1 unless option "
           "'project' is on. Energy error bounded, no drift.")

METHOD_H23 = Method(
    id="hermite_h23g2",
    title="Hermite DVI H23G2: two-point cubic Hermite, 2-point Gauss (seed 001)",
    seed="001",
    order=2,
    description="Discrete variational method on the two-point cubic Hermite interpolant of (q, qdot) at both step "
                "nodes (the end slope an unknown)" + _COMMON,
    kernel=advance,
    machineries=("coords",),
    options=_OPTIONS,
    pack=_packer("h23"),
    work_size=work_size,
    properties=_PROPS,
)

METHOD_H33 = Method(
    id="hermite_h33g2",
    title="Hermite DVI H33G2: three-point cubic Hermite, 2-point Gauss (seed 001)",
    seed="001",
    order=2,
    description="Discrete variational method on the cubic through q at the step's start, middle and end with the "
                "known start slope" + _COMMON,
    kernel=advance,
    machineries=("coords",),
    options=_OPTIONS,
    pack=_packer("h33"),
    work_size=work_size,
    properties=_PROPS,
)
