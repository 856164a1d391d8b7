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

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .. import kernels, tableaus
from ..jit import python_function
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
        for r in range(v0.shape[0]):  # q0 may be the whole state: its first n entries
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
    f0 = cd.f0
    ct = cd.cos_terms
    for j in range(2):
        for i in range(Q.shape[1]):
            F[j, i] = f0[i]
        for k in range(ct.shape[0]):
            i = int(ct[k, 0])
            F[j, i] += ct[k, 1] * np.sin(Q[j, i] + ct[k, 2])


# inlined forms (no compiled call with array arguments: atomic reference counting) of the model and linear-algebra
# helpers called in every Newton iteration (constraint Jacobian at q_{k+1}) or every step
_constraint_jacobian = njit(inline="always")(python_function(coords.constraint_jacobian))
_diagnostics_terms = njit(inline="always")(python_function(coords.diagnostics_terms))


@njit(cache=True, inline="always")
def _work_fields(n, m):
    """Sizes of the work array's fields, in order: w_older = qdot_{k-1}, w_old = qdot_k (velocity history for the
    acceleration diagnostic), qh1 = q_{k-1}, qh2 = q_{k-2}, xh1 = X_{k-1}, xh2 = X_{k-2} (node and unknown
    histories for the predictor; n each), muh1 = mu_{k-1}, muh2 = mu_{k-2} (multiplier history, m each)."""
    return n, n, n, n, n, n, m, m


class _Consts(NamedTuple):
    """What every step of a kernel call shares: options, quadrature tables, Jacobian coefficients, sizes."""

    h: float
    n: int
    m: int  # constraint rows
    tol: float
    max_iter: int
    x_is_v: bool  # H23: X is the end slope v_{k+1}; H33: the midpoint q_m
    project: bool
    interpolant: bool  # the acceleration diagnostic from the step's cubic, not from velocity differences
    affine: bool  # no cosine terms: constant force, A constant
    b: np.ndarray  # Gauss weights (2)
    W: np.ndarray  # curve bases at the Gauss points (2 x N_PAR)
    D: np.ndarray  # their tau-derivatives (2 x N_PAR)
    Send: np.ndarray  # their second tau-derivatives at tau = 1 (N_PAR)
    kin: np.ndarray  # kin[a, u]: the coefficient of M in block (a, u) of A (2 x 2)
    pot: np.ndarray  # pot[a, u, j]: the coefficient of df/dq(Q_j) in block (a, u) of A (2 x 2 x 2)


class _Scratch(NamedTuple):
    """Scratch arrays, allocated once per kernel call (_scratch)."""

    As: np.ndarray  # the projection's saddle-point matrix (n + m square)
    bs: np.ndarray  # the Schur system's right-hand side, then p_{k+1} -> qdot_{k+1} (n + m)
    ydot: np.ndarray  # the start's rate, then the new state (ny)
    acc: np.ndarray  # the acceleration of the diagnostics, in the state's layout (ny)
    d: np.ndarray  # diagnostics row
    phi: np.ndarray  # Phi(q)
    G0: np.ndarray  # G(q_k)
    G1: np.ndarray  # G(q_{k+1})
    gq: np.ndarray  # dG/dt qdot (diagnostics)
    Q: np.ndarray  # Q_j (2 x n)
    V: np.ndarray  # V_j (2 x n)
    F: np.ndarray  # f(Q_j) (2 x n)
    MV: np.ndarray  # M V_j (2 x n)
    JF: np.ndarray  # df/dq(Q_j) (2 x n x n)
    A: np.ndarray  # d(R_0, R_X)/d(Delta_X, Delta_1), LU-factorised
    piv: np.ndarray
    Ainv: np.ndarray  # A^-1 (explicit: matrix-vector products are cheaper than 4 + 2 solves per step)
    Y: np.ndarray  # A^-1 dR/dmu (dR/dmu = [-G(q_k)^T; 0])
    S: np.ndarray  # Schur complement G(q_{k+1}) Y[n:]
    col: np.ndarray
    res: np.ndarray  # -residual (R_0, R_X, Phi / h), then the Newton update (2 n + m)
    p0: np.ndarray  # p_k = M qdot_k
    p1: np.ndarray  # p_{k+1} = dL_d/dq_{k+1}
    v0: np.ndarray  # qdot_k
    dx: np.ndarray  # Delta_X (H33) or v_{k+1} (H23)
    d1: np.ndarray  # Delta_1 = (q_{k+1} - q_k) / h
    mu: np.ndarray  # h lambda_k
    qd1: np.ndarray  # q_{k+1}
    MLU: np.ndarray  # M, LU-factorised once: qdot_{k+1} = M^-1 p_{k+1} without 'project'
    mpiv: np.ndarray


@njit(cache=True, inline="always")
def _consts(cd, opts, h):
    """The call's _Consts from the option array (pack's layout) and the model."""
    b = opts[HEADER : HEADER + 2]
    W = opts[HEADER + 2 : HEADER + 2 + 2 * N_PAR].reshape((2, N_PAR))
    D = opts[HEADER + 2 + 2 * N_PAR : HEADER + 2 + 4 * N_PAR].reshape((2, N_PAR))
    # Jacobian coefficients of the two equation blocks (rows a = 0, 1) w.r.t. the two unknown blocks (u = 1, 2)
    kin = np.empty((2, 2))
    pot = np.empty((2, 2, 2))
    for a in range(2):
        for u in range(2):
            kin[a, u] = b[0] * D[0, a] * D[0, u + 1] + b[1] * D[1, a] * D[1, u + 1]
            for j in range(2):
                pot[a, u, j] = b[j] * h * h * W[j, a] * W[j, u + 1]
    return _Consts(h, cd.mass_matrix.shape[0], coords.constraint_rows(cd), opts[O_TOL], int(opts[O_MAX_ITER]),
                   opts[O_X_IS_V] > 0.5, opts[O_PROJECT] > 0.5, opts[HEADER + 2 + 4 * N_PAR] > 0.5,
                   cd.cos_terms.shape[0] == 0, b, W, D, opts[HEADER + 3 + 4 * N_PAR : HEADER + 3 + 5 * N_PAR], kin, pot)


@njit(cache=True, inline="always")
def _scratch(n, m, ny):
    """A fresh _Scratch for n coordinates, m constraint rows and states of ny entries."""
    mm = max(m, 1)
    n2 = 2 * n
    return _Scratch(np.empty((n + m, n + m)), np.empty(n + m), np.empty(ny), np.zeros(ny), np.empty(kernels.N_DIAG),
                    np.empty(mm), np.empty((mm, n)), np.empty((mm, n)), np.empty(mm), np.empty((2, n)),
                    np.empty((2, n)), np.empty((2, n)), np.empty((2, n)), np.empty((2, n, n)), np.empty((n2, n2)),
                    np.empty(n2, dtype=np.int64), np.empty((n2, n2)), np.empty((n2, mm)), np.empty((mm, mm)),
                    np.empty(n2), np.empty(n2 + m), np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                    np.empty(n), np.empty(mm), np.empty(n), np.empty((n, n)), np.empty(n, dtype=np.int64))


@njit(cache=True, inline="always")
def _mass_times(M, V, MV):
    """MV[j] = M V[j] at both Gauss points."""
    n = M.shape[0]
    for j in range(2):
        for r in range(n):
            s = 0.0
            for c in range(n):
                s += M[r, c] * V[j, c]
            MV[j, r] = s


@njit(cache=True, inline="always")
def _predict(M, y, k, c, s, hist):
    """p_k = M qdot_k, and the step's first iterate: quadratic extrapolation of the node positions, linear of X and
    mu (hist = q_{k-1}, q_{k-2}, X_{k-1}, X_{k-2}, mu_{k-1}, mu_{k-2})."""
    qh1, qh2, xh1, xh2, muh1, muh2 = hist
    n = c.n
    h = c.h
    v0 = s.v0
    dx = s.dx
    d1 = s.d1
    mu = s.mu
    for r in range(n):
        v0[r] = y[n + r]
        acc = 0.0
        for col in range(n):
            acc += M[r, col] * y[n + col]
        s.p0[r] = acc
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
        if c.x_is_v:
            dx[r] = v0[r] if k == 0 else (xh1[r] if k == 1 else xp)
        else:
            dx[r] = (xp - q) / h
    for e in range(c.m):
        if k == 0:
            mu[e] = 0.0
        elif k == 1:
            mu[e] = muh1[e]
        else:
            mu[e] = 2.0 * muh1[e] - muh2[e]


@njit(cache=True, inline="always")
def _residual(cd, y, skip_z, c, s):
    """res = -(R_0, R_X, Phi(q_{k+1}) / h) (seed eq. 4 in position-momentum form, module docstring), and G1 =
    G(q_{k+1}); returns the residual's max norm. R_0 = p_k + dL_d/dq_k - G(q_k)^T mu, R_X = dL_d/dX (_gradient);
    with skip_z (a constant force after a Newton update: they are affine, hence zero) they are not evaluated."""
    n = c.n
    m = c.m
    res = s.res
    if skip_z:
        for r in range(2 * n):
            res[r] = 0.0
    else:
        _stages(y, s.v0, s.dx, s.d1, c.h, c.W, c.D, s.Q, s.V)
        _forces(cd, s.Q, s.F)
        _mass_times(cd.mass_matrix, s.V, s.MV)
        _gradient(0, c.b, c.W, c.D, c.h, s.F, s.MV, res, 0)
        _gradient(1, c.b, c.W, c.D, c.h, s.F, s.MV, res, n)
        for r in range(n):
            acc = s.p0[r]
            for e in range(m):
                acc -= s.G0[e, r] * s.mu[e]
            res[r] += acc
    for r in range(n):
        s.qd1[r] = y[r] + c.h * s.d1[r]  # q_{k+1}
    _constraint_jacobian(cd, s.qd1, s.phi, s.G1)
    for e in range(m):
        res[2 * n + e] = s.phi[e] / c.h
    rmax = 0.0
    for r in range(2 * n + m):
        rmax = max(rmax, abs(res[r]))
        res[r] = -res[r]
    return rmax


@njit(cache=True, inline="always")
def _refresh_jacobian(cd, c, s):
    """A = sum_j b_j [h^2 W_ja W_ju df/dq(Q_j) + D_ja D_ju M] (module docstring; constant for linear potentials) at
    the current Gauss points, LU-factorised and inverted into Ainv; False if singular."""
    M = cd.mass_matrix
    n = c.n
    n2 = 2 * n
    A = s.A
    JF = s.JF
    for j in range(2):
        coords.force_jacobian(cd, s.Q[j], JF[j])
    for a in range(2):
        for u in range(2):
            for r in range(n):
                for col in range(n):
                    A[a * n + r, u * n + col] = (c.kin[a, u] * M[r, col] + c.pot[a, u, 0] * JF[0, r, col]
                                                 + c.pot[a, u, 1] * JF[1, r, col])
    if not lu_factor_inplace(A, s.piv, n2):
        return False
    for j in range(n2):
        for r in range(n2):
            s.col[r] = 0.0
        s.col[j] = 1.0
        lu_solve_factored(A, s.piv, s.col, n2)
        for r in range(n2):
            s.Ainv[r, j] = s.col[r]
    return True


@njit(cache=True, inline="always")
def _newton_solve(skip_z, stale_y, c, s):
    """The Newton update into res (which holds -r) by the Schur complement on the multipliers: x = A^-1 (-r_z),
    S dmu = G1 x_1 + r_phi, dz = x - Y dmu; Y = A^-1 [-G(q_k)^T; 0] afresh if stale_y. False if S is singular."""
    n = c.n
    m = c.m
    n2 = 2 * n
    res = s.res
    Y = s.Y
    G1 = s.G1
    bs = s.bs
    if stale_y:
        for r in range(n2):
            for e in range(m):
                acc = 0.0
                for col in range(n):
                    acc -= s.Ainv[r, col] * s.G0[e, col]
                Y[r, e] = acc
    if not skip_z:
        for r in range(n2):
            acc = 0.0
            for col in range(n2):
                acc += s.Ainv[r, col] * res[col]
            s.col[r] = acc
        for r in range(n2):
            res[r] = s.col[r]
    for e in range(m):
        acc = -res[n2 + e]  # + r_phi (res holds -r)
        for col in range(n):
            acc += G1[e, col] * res[n + col]
        bs[e] = acc
        for f in range(m):
            acc_s = 0.0
            for col in range(n):
                acc_s += G1[e, col] * Y[n + col, f]
            s.S[e, f] = acc_s
    if m > 0 and not lu_solve_inline(s.S, bs, m):
        return False
    for e in range(m):
        res[n2 + e] = bs[e]
        for r in range(n2):
            res[r] -= Y[r, e] * bs[e]
    return True


@njit(cache=True, inline="always")
def _add_update(c, s):
    """(Delta_X, Delta_1, mu) += res; returns the sizes kernels.newton_next2 takes: the largest update and unknown
    of the configuration block, then of the multipliers."""
    n = c.n
    res = s.res
    big_d = 0.0
    big_x = 0.0
    for r in range(n):
        s.dx[r] += res[r]
        s.d1[r] += res[n + r]
        big_d = max(big_d, abs(res[r]), abs(res[n + r]))
        big_x = max(big_x, abs(s.dx[r]), abs(s.d1[r]))
    big_m = 0.0
    big_mu = 0.0
    for e in range(c.m):
        s.mu[e] += res[2 * n + e]
        big_m = max(big_m, abs(res[2 * n + e]))
        big_mu = max(big_mu, abs(s.mu[e]))
    return big_d, big_x, big_m, big_mu


@kernels.part
def _newton(cd, y, fresh, c, s):
    """Newton on (Delta_X, Delta_1, mu) from the predictor, A refreshed when ``fresh`` (kernels.newton_next2).
    Returns (code, iterations, last residual norm, fresh, False if a linear system was singular)."""
    code = kernels.CONTINUE
    rmax = 0.0
    prev_upd = np.inf
    stale_y = True  # Y holds the previous step's G(q_k)
    it = 0
    while it < c.max_iter:
        it += 1
        skip_z = c.affine and it > 1
        rmax = _residual(cd, y, skip_z, c, s)
        if fresh:
            if not _refresh_jacobian(cd, c, s):
                return code, it, rmax, fresh, False
            fresh = False
            stale_y = True
        if not _newton_solve(skip_z, stale_y, c, s):
            return code, it, rmax, fresh, False
        stale_y = False
        big_d, big_x, big_m, big_mu = _add_update(c, s)
        code, prev_upd, fresh = kernels.newton_next2(big_d, big_x, big_m, big_mu, prev_upd, it, c.tol, fresh)
        if code != kernels.CONTINUE:
            break
    return code, it, rmax, fresh, True


@njit(cache=True, inline="always")
def _new_state(cd, y, c, s):
    """The converged step's new state into ydot: q_{k+1} and qdot_{k+1} from p_{k+1} = dL_d/dq_{k+1} (qdot = M^-1 p,
    or with 'project' the saddle-point solve [[M, G^T], [G, 0]] [qdot; nu] = [p_{k+1}; 0]). A status code."""
    M = cd.mass_matrix
    n = c.n
    bs = s.bs
    _stages(y, s.v0, s.dx, s.d1, c.h, c.W, c.D, s.Q, s.V)
    _forces(cd, s.Q, s.F)
    _mass_times(M, s.V, s.MV)
    _gradient(2, c.b, c.W, c.D, c.h, s.F, s.MV, s.p1, 0)
    for r in range(n):
        s.qd1[r] = y[r] + c.h * s.d1[r]
    for r in range(n):
        bs[r] = s.p1[r]
    if c.project:
        mp = coords.constraint_jacobian(cd, s.qd1, s.phi, s.G1)
        if not saddle_point_solve(M, s.G1, n, mp, s.As, bs):
            return kernels.SINGULAR
    else:
        lu_solve_factored_inline(s.MLU, s.mpiv, bs, n)
    for r in range(n):
        s.ydot[r] = s.qd1[r]
        s.ydot[n + r] = bs[r]
    if not kernels.state_ok_inline(s.ydot):
        return kernels.NONFINITE
    return kernels.OK


@njit(cache=True, inline="always")
def _shift_histories(y, c, s, hist):
    """Push q_k, X_k (q_m = q_k + h Delta_X for H33, v_{k+1} for H23) and mu onto the predictor's histories."""
    qh1, qh2, xh1, xh2, muh1, muh2 = hist
    for r in range(c.n):
        qh2[r] = qh1[r]
        qh1[r] = y[r]
        xh2[r] = xh1[r]
        xh1[r] = s.dx[r] if c.x_is_v else y[r] + c.h * s.dx[r]
    for e in range(c.m):
        muh2[e] = muh1[e]
        muh1[e] = s.mu[e]


@njit(cache=True, inline="always")
def _step(cd, y, k, t, fresh, g0_ready, c, s, hist, maxima, info):
    """One step q_k, qdot_k -> q_{k+1}, qdot_{k+1} in y (G(q_k) in G0 if g0_ready). Returns (status, fresh); a
    failure leaves y alone and its time (and Newton's residual) in info."""
    M = cd.mass_matrix
    n = c.n
    _predict(M, y, k, c, s, hist)
    if not g0_ready:
        coords.constraint_jacobian(cd, y[:n], s.phi, s.G0)
    code, it, rmax, fresh, ok = _newton(cd, y, fresh, c, s)
    if not ok:
        info[kernels.INFO_TIME] = t
        return kernels.SINGULAR, fresh
    if kernels.newton_failed(code, it, maxima, info, t, rmax):
        return kernels.NEWTON, fresh
    status = _new_state(cd, y, c, s)
    if status != kernels.OK:
        info[kernels.INFO_TIME] = t + c.h
        return status, fresh
    _shift_histories(y, c, s, hist)
    for r in range(y.shape[0]):
        y[r] = s.ydot[r]
    return kernels.OK, fresh


@njit(cache=True, inline="always")
def _record_step(cd, y, k, t, c, s, w_older, w_old, samples, n_saved, maxima, ref, stride, last):
    """The diagnostics at the new state of step k -> k + 1 (time t) and their record; they leave G(q_{k+1}) in G0
    for the next step (coords.diagnostics_terms). Returns n_saved."""
    n = c.n
    acc = s.acc
    if c.interpolant:  # the step's cubic: qddot(t_{k+1}) = (Send . (., X, Delta_1, qdot_k)) / h
        Send = c.Send
        for r in range(n):
            acc[n + r] = (Send[3] * s.v0[r] + Send[1] * s.dx[r] + Send[2] * s.d1[r]) / c.h
    else:
        coords.difference_acceleration(w_older, w_old, y[n:], c.h, k + 1, acc)
    for r in range(n):
        w_older[r] = w_old[r]
        w_old[r] = y[n + r]
    _diagnostics_terms(cd, y, acc, s.d, s.phi, s.G0, s.gq)
    return kernels.record_inline(samples, n_saved, maxima, ref, t, y, s.d, k + 1, stride, last)


@njit(cache=True, error_model="numpy")
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Hermite DVI kernel (contract in solvers.kernels). opts: see pack; work = [w_older = qdot_{k-1}, w_old =
    qdot_k (velocity history for the acceleration diagnostic), qh1 = q_{k-1}, qh2 = q_{k-2}, xh1 = X_{k-1},
    xh2 = X_{k-2} (n each), muh1 = mu_{k-1}, muh2 = mu_{k-2} (m each)] (_work_fields)."""
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    cd = kernels.borrowed(data[1])
    M = cd.mass_matrix
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    consts = _consts(cd, opts, h)
    c = kernels.borrowed(consts)
    n = c.n
    w_older, w_old, qh1, qh2, xh1, xh2, muh1, muh2 = kernels.carve(work, _work_fields(n, c.m))
    hist = (qh1, qh2, xh1, xh2, muh1, muh2)
    # the scratch in the step loop without reference counting; ``own`` and ``consts`` keep it alive to the end
    # (kernels.borrowed)
    own = _scratch(n, c.m, y.shape[0])
    s = kernels.borrowed(own)
    # M factorised once: qdot_{k+1} = M^-1 p_{k+1} (without 'project'), the same elimination as lu_solve_inplace
    for r in range(n):
        for col in range(n):
            s.MLU[r, col] = M[r, col]
    if not lu_factor_inplace(s.MLU, s.mpiv, n):
        info[kernels.INFO_TIME] = t_start + k0 * h
        return 0, kernels.SINGULAR, n_saved
    if k0 == 0:
        if not coords.consistent_start(cd, t_start, y, s.ydot, s.As, s.bs, s.acc, w_old, w_older):
            info[kernels.INFO_TIME] = t_start
            return 0, kernels.SINGULAR, n_saved
        coords.diagnostics_terms(cd, y, s.acc, s.d, s.phi, s.G0, s.gq)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t_start, y, s.d, 0, stride, last)

    fresh = k0 >= 0  # True, but typed bool: a literal True would compile _newton a second time
    g0_ready = k0 == 0  # G0 = G(q_k) is left by the diagnostics of the previous step
    for st in range(n_steps):
        k = k0 + st
        t = t_start + k * h
        status, fresh = _step(cd, y, k, t, fresh, g0_ready, c, s, hist, maxima, info)
        if status != kernels.OK:
            return st, status, n_saved
        n_saved = _record_step(cd, y, k, t + h, c, s, w_older, w_old, samples, n_saved, maxima, ref, stride, last)
        g0_ready = True
    kernels.keep_alive((own, consts))
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
    """Velocity history (2 n), node and unknown histories (4 n), multiplier history (2 m): _work_fields."""
    return sum(python_function(_work_fields)(model.data.mass_matrix.shape[0], coords.n_rows(model.data)))


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
