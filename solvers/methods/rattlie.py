"""RATTLie: the symplectic, symmetric Lie group integrator of Hante & Arnold (J. Comput. Appl. Math. 387 (2021)
112492), seed 000's "RL" (eqs. 15-23), on the rigid machinery (SO(3) x R^3)^N with spherical joints; a pinned
body (the heavy top of seed 004 eq. 68) has only its rotational blocks, and without joints (nm = 0) the step is
the unconstrained RATTLie (stage (a) without multipliers, stage (b) v_{n+1} = M^-1 a).

One step from (q_n, p_n = M v_n), docs/algorithms.md section 1, with f = grad U and B the constraint Jacobian:

(a) nonlinear, unknowns Delta (~ v_{n+1/2}) and mu = h lambda_n:
        T^-T(-h Delta) M Delta - p_n + (h/2) f(q_n) + (1/2) B(q_n)^T mu = 0,   Phi(q_n exp(h Delta)) / h = 0,
    then q_{n+1} = q_n exp(h Delta) (seed eqs. 21-22);
(b) linear, unknowns v_{n+1} and nu = (h/2) lambda-_{n+1}:
        M v_{n+1} + B(q_{n+1})^T nu = T^-T(h Delta) M Delta - (h/2) f(q_{n+1}),   B(q_{n+1}) v_{n+1} = 0 (eq. 23).

T^-T acts on the rotational blocks only (the R^3 blocks have T = I). Newton for (a) is a simplified Newton
iteration: the exact Jacobian [[T^-T(-h Delta) M - h D(-h Delta; M Delta), B(q_n)^T / 2],
[B(q_{n+1}) T(h Delta), 0]] is evaluated at the predictor (Delta ~ 1.5 v_n - 0.5 v_{n-1}, the multiplier
extrapolated linearly from the last two steps) and
kept for the step; since the predictor is O(h^2) off, the contraction factor is O(h^2) and the iteration count
equals full Newton's. It is solved through the block-diagonal first block (3x3 rotational blocks, m I
translational blocks) and the Schur complement on the 3K multipliers (block LU on a chain, docs/methods.md "Linear
cost on chains"). (b) is solved the same way with M.
Position and velocity constraints hold to the Newton tolerance, R stays orthogonal (it is only ever multiplied
by exponentials), momentum maps are preserved.

Speed (docs/performance.md): v_{n+1}, f(q_{n+1}) and B(q_{n+1}) of stage (b) serve as the next step's v_n, f(q_n),
B(q_n); the step loop calls the model and small linear-algebra helpers in their numba-inlined forms (a compiled call
that passes the data tuple copies ~60 words onto the stack), and every array it touches is a borrowed view
(kernels.borrowed): an array passed to an inlined helper or viewed per body otherwise costs an atomic reference-count
increment and decrement, which a profile put at a third of the step's time.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .. import composition, kernels, lie
from ..jit import python_function
from ..linalg import inv3_into, inv3_into_inline
from ..models import joints, rigid, rigid_dae
from .base import NEWTON_OPTIONS, Method

# the option array's slots, in the order pack writes them
O_TOL, O_MAX_ITER, O_N_SUB, O_GAMMA = range(4)  # O_GAMMA: the first of O_N_SUB step fractions


@njit(cache=True, inline="always")
def _tangent_inv_t_times(w0: float, w1: float, w2: float, c: float, a: np.ndarray, out: np.ndarray, o: int) -> None:
    """out[o:o+3] = T^-T(w) a = a - (1/2) w x a + c(|w|) w x (w x a) (docs/algorithms.md section 0), c = c_coef(|w|)."""
    u0 = w1 * a[2] - w2 * a[1]
    u1 = w2 * a[0] - w0 * a[2]
    u2 = w0 * a[1] - w1 * a[0]
    out[o] = a[0] - 0.5 * u0 + c * (w1 * u2 - w2 * u1)
    out[o + 1] = a[1] - 0.5 * u1 + c * (w2 * u0 - w0 * u2)
    out[o + 2] = a[2] - 0.5 * u2 + c * (w0 * u1 - w1 * u0)


@njit(cache=True, inline="always")
def _work_fields(nv: int, nm: int) -> tuple:
    """The work array's fields (kernels.carve), between calls of the kernel: w_{n-1}, w_n (the velocities of the
    acceleration diagnostic and the first step's predictor), mu_n, mu_{n-1} (stage (a)'s multipliers, extrapolated
    linearly as its predictor), Delta_{n-1/2}, Delta_{n-3/2}, Delta_{n-5/2} (extrapolated quadratically)."""
    return nv, nv, nm, nm, nv, nv, nv


@njit(cache=True)
def _record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, w_old, w_older, mu, t):
    """Diagnostics at t = 0 with the consistent acceleration; starting values for the predictor."""
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    acc_l = np.empty(nv)
    lam = np.empty(nm)
    if not rigid_dae.initial_acceleration(rd, y, acc_l, lam):
        return -1
    acc = np.zeros(y.shape[0])
    rigid.set_velocity(rd, acc, acc_l)
    d = np.empty(kernels.N_DIAG)
    rigid.diagnostics(rd, y, acc, d)
    n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, last)
    rigid.get_velocity(rd, y, w_old)
    for r in range(nv):
        w_older[r] = w_old[r]
    for r in range(nm):
        mu[r] = h * lam[r]
    return n_saved


class _Scratch(NamedTuple):
    """advance's arrays, allocated once per call (_scratch) and read by name in the step's parts."""
    Jinv: Any  # (N, 3, 3): J_i^-1 (stage (b))
    ninc: Any  # per body, the joint sides that touch it (joints.topology_of)
    incj: Any
    incs: Any
    Gc: Any  # (K, 2, 3, 3): rotational joint blocks of B at stage (a)'s first iterate: C = Gc T, frozen for the step
    S: Any  # the multipliers' Schur complement (block, band or dense storage)
    piv: Any
    V: Any  # (3, 3)
    p: Any  # -p_n + (h/2) f(q_n): the constant part of stage (a)'s first residual
    f: Any  # f = grad U at q_n
    w: Any  # v_n, then v_{n+1}
    delta: Any  # Delta, stage (a)'s unknown
    hd: Any  # h Delta
    r1: Any  # stage (a)'s residual, first block
    r2: Any  # ... second block, Phi(q_n exp(h Delta)) / h
    rhs: Any  # the Schur system's right-hand side, then its solution
    Ainv: Any  # (N, 3, 3): A^-1 per body, A = T^-T(-h Delta) J - h D(-h Delta; J Delta)
    Wc: Any  # (N, 3, 3): T(h Delta) A^-1 per body, frozen with C
    Ai3: Any  # (3, 3) per-body temporaries
    Tm: Any
    Dm: Any
    A3: Any
    Tt: Any
    v3: Any  # (3,)
    Jd: Any  # (3,): J Delta of one body
    y1: Any  # q_n exp(h Delta)
    acc: Any  # the differenced acceleration (diagnostics)
    d: Any  # one diagnostics row
    a_rhs: Any  # stage (b)'s right-hand side
    sc: Any  # (N, 2): sinc1, cosc2 of each body's rotation increment
    phi0: Any  # Phi(q_n)
    Ga: Any  # (K, 2, 3, 3): rotational joint blocks of B(q_n) and B(q_{n+1}), as G0 and G1 by turns
    Gb: Any


# inlined into the kernel: the arrays' shapes are then the kernel's own nv, nm and nb, not one value per array
# loaded from a returned tuple, which the step loop kept live and spilled (docs/performance.md, "Instructions per
# step")
@njit(cache=True, inline="always")
def _scratch(rd, ny: int, width: int) -> _Scratch:
    nb = rd.mass.shape[0]
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    nj = rd.joint_bodies.shape[0]
    ninc, incj, incs, _ = joints.topology_of(rd)
    # local copies (measured faster than views)
    return _Scratch(np.empty((nb, 3, 3)), ninc.copy(), incj.copy(), incs.copy(), np.zeros((max(nj, 1), 2, 3, 3)),
                    np.empty((max(nm, 1), width)), np.empty(max(nm, 1), dtype=np.int64), np.empty((3, 3)),
                    np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nm),
                    np.empty(nm), np.empty((nb, 3, 3)), np.empty((nb, 3, 3)), np.empty((3, 3)), np.empty((3, 3)),
                    np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(ny),
                    np.zeros(ny), np.empty(kernels.N_DIAG), np.empty(nv), np.empty((nb, 2)), np.empty(nm),
                    np.zeros((max(nj, 1), 2, 3, 3)), np.zeros((max(nj, 1), 2, 3, 3)))


@njit(cache=True, inline="always")
def _residual_a(rd, y, sc: _Scratch, G0, mu, hs: float, fresh: bool) -> bool:
    """Stage (a)'s first residual block per body, r1 = T^-T(-h Delta) M Delta - p_n + (h/2) f(q_n) + (1/2) B(q_n)^T mu
    (seed eq. 21), and q_n exp(h Delta) in y1; on the step's first iterate (fresh) also each body's A^-1 of the
    simplified Newton matrix and Wc = T(h Delta) A^-1. False if an A is singular."""
    Jm = rd.inertia  # indexed as Jm[i, r, c]: no per-body views (each costs an atomic incref/decref)
    mass = rd.mass
    pinned = rd.pinned
    v_off = rd.v_off
    delta, hd, r1, p, Jd, v3, Tm = sc.delta, sc.hd, sc.r1, sc.p, sc.Jd, sc.v3, sc.Tm
    ninc, incj, incs = sc.ninc, sc.incj, sc.incs
    for i in range(mass.shape[0]):
        o = v_off[i]
        w0 = hs * delta[o]
        w1 = hs * delta[o + 1]
        w2 = hs * delta[o + 2]
        hd[o] = w0
        hd[o + 1] = w1
        hd[o + 2] = w2
        if not pinned[i]:
            for r in range(3):
                hd[o + 3 + r] = hs * delta[o + 3 + r]
        x = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        sc.sc[i, 0] = lie.sinc1_inline(x)
        sc.sc[i, 1] = lie.cosc2_inline(x)
        rigid.advance_body(y, hd, rd.y_off[i], o, not pinned[i], sc.sc[i, 0], sc.sc[i, 1], sc.y1)
        for c in range(3):
            Jd[c] = Jm[i, c, 0] * delta[o] + Jm[i, c, 1] * delta[o + 1] + Jm[i, c, 2] * delta[o + 2]
        if fresh:
            v3[0] = -w0
            v3[1] = -w1
            v3[2] = -w2
            lie.poly_into_inline(v3, -0.5, lie.c_coef_inline(x), Tm)  # T^-T(-h Delta)
            for r in range(3):
                r1[o + r] = Tm[r, 0] * Jd[0] + Tm[r, 1] * Jd[1] + Tm[r, 2] * Jd[2]
        else:
            _tangent_inv_t_times(-w0, -w1, -w2, lie.c_coef_inline(x), Jd, r1, o)
        if not pinned[i]:
            for r in range(3):
                r1[o + 3 + r] = mass[i] * delta[o + 3 + r]
        c0, c1, c2 = joints.bt_rot(G0, ninc, incj, incs, i, mu, 0.5, r1[o] + p[o], r1[o + 1] + p[o + 1],
                                   r1[o + 2] + p[o + 2])
        r1[o] = c0
        r1[o + 1] = c1
        r1[o + 2] = c2
        if not pinned[i]:
            for r in range(3):
                r1[o + 3 + r] += p[o + 3 + r]
            joints.bt_tr_add(ninc, incj, incs, i, o, mu, 0.5, r1)
        if fresh and not _jacobian_block(Jm, i, hs, x, w0, w1, w2, sc):
            return False
    return True


@njit(cache=True, inline="always")
def _jacobian_block(Jm, i: int, hs: float, x: float, w0: float, w1: float, w2: float, sc: _Scratch) -> bool:
    """Body i's block of stage (a)'s Newton matrix, A = T^-T(-h Delta) J - h D(-h Delta; J Delta) (Tm, v3 = -h Delta
    and Jd = J Delta as _residual_a left them): Ainv[i] = A^-1 and Wc[i] = T(h Delta) A^-1 (C = B(q_{n+1}) T(h Delta)
    carries the T; translational blocks have T = I). False if A is singular."""
    Tm, Dm, A3, Ai3, Tt, v3 = sc.Tm, sc.Dm, sc.A3, sc.Ai3, sc.Tt, sc.v3
    lie.d_poly_into_inline(v3, sc.Jd, -0.5, lie.c_coef_inline(x), 0.0, lie.c3_coef_inline(x), Dm)
    for r in range(3):
        for c in range(3):
            A3[r, c] = Tm[r, 0] * Jm[i, 0, c] + Tm[r, 1] * Jm[i, 1, c] + Tm[r, 2] * Jm[i, 2, c] - hs * Dm[r, c]
    if not inv3_into_inline(A3, Ai3):
        return False
    v3[0] = w0
    v3[1] = w1
    v3[2] = w2
    lie.poly_into_inline(v3, -lie.cosc2_inline(x), lie.sinc3_inline(x), Tt)  # T(h Delta)
    for r in range(3):
        for c in range(3):
            sc.Ainv[i, r, c] = Ai3[r, c]
            sc.Wc[i, r, c] = Tt[r, 0] * Ai3[0, c] + Tt[r, 1] * Ai3[1, c] + Tt[r, 2] * Ai3[2, c]
    return True


@njit(cache=True, inline="always")
def _schur_a(rd, sc: _Scratch, G0, kl: int, fresh: bool) -> None:
    """rhs = r2 - C A^-1 r1 and, fresh, S = C A^-1 B(q_n)^T / 2 (block, band or dense storage; once per step)."""
    mass = rd.mass
    v_off = rd.v_off
    r1, Wc, Tt, S, rhs = sc.r1, sc.Wc, sc.Tt, sc.S, sc.rhs
    for i in range(mass.shape[0]):
        o = v_off[i]
        t0 = Wc[i, 0, 0] * r1[o] + Wc[i, 0, 1] * r1[o + 1] + Wc[i, 0, 2] * r1[o + 2]
        t1 = Wc[i, 1, 0] * r1[o] + Wc[i, 1, 1] * r1[o + 1] + Wc[i, 1, 2] * r1[o + 2]
        t2 = Wc[i, 2, 0] * r1[o] + Wc[i, 2, 1] * r1[o + 1] + Wc[i, 2, 2] * r1[o + 2]
        im = 1.0 / mass[i]
        if fresh:
            for r in range(3):
                for c in range(3):
                    Tt[r, c] = 0.5 * Wc[i, r, c]  # the 1/2 of S (exact in binary)
            joints.schur_add(S, kl, rhs, -1.0, i, o, Tt, t0, t1, t2, r1, im, 0.5 * im, sc.Gc, G0, sc.ninc, sc.incj,
                             sc.incs, sc.V)
        else:
            joints.schur_rhs_add(rhs, -1.0, i, o, t0, t1, t2, r1, im, sc.Gc, sc.ninc, sc.incj, sc.incs)


@njit(cache=True, inline="always")
def _update_a(rd, sc: _Scratch, G0, mu) -> float:
    """Delta -= A^-1 (r1 + B(q_n)^T dmu / 2), mu += dmu (dmu in rhs); returns the scaled update (kernels)."""
    pinned = rd.pinned
    r1, rhs, delta, Ainv = sc.r1, sc.rhs, sc.delta, sc.Ainv
    big_d = 0.0
    big_x = 0.0
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        c0, c1, c2 = joints.bt_rot(G0, sc.ninc, sc.incj, sc.incs, i, rhs, 0.5, r1[o], r1[o + 1], r1[o + 2])
        for r in range(3):
            dd = -(Ainv[i, r, 0] * c0 + Ainv[i, r, 1] * c1 + Ainv[i, r, 2] * c2)
            delta[o + r] += dd
            big_d = max(big_d, abs(dd))
            big_x = max(big_x, abs(delta[o + r]))
        if not pinned[i]:
            joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, rhs, 0.5, r1)
            im = 1.0 / rd.mass[i]
            for r in range(3):
                dd = -r1[o + 3 + r] * im
                delta[o + 3 + r] += dd
                big_d = max(big_d, abs(dd))
                big_x = max(big_x, abs(delta[o + 3 + r]))
    big_m, big_mu = kernels.add_update(mu, rhs, rigid.n_multipliers(rd))
    return max(kernels.scaled_update(big_d, big_x), kernels.scaled_update(big_m, big_mu))


@kernels.part
def _stage_a(rd, y, sc: _Scratch, G0, mu, hs: float, kl: int, kl_piv: int, tol: float, max_iter: int) -> tuple:
    """Stage (a) by simplified Newton from the predictor in delta and mu: the Jacobian of the first iterate serves
    the whole step (module docstring). Returns (status, newton code, iterations, residual, kl): status SINGULAR for
    a singular block or Schur complement; kl changes to kl_piv should the block LU break down."""
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    r1, r2 = sc.r1, sc.r2
    ih = 1.0 / hs  # multiplications in the loop instead of divisions (round-off level)
    code = kernels.CONTINUE
    res = 0.0
    prev_upd = np.inf
    it = 0
    while it < max_iter:
        it += 1
        fresh = it == 1
        if not _residual_a(rd, y, sc, G0, mu, hs, fresh):
            return kernels.SINGULAR, code, it, res, kl
        if fresh:
            joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.y1, sc.Gc)
        # Phi(q_n exp(h Delta)) from Phi(q_n) and the increment: no round-off floor eps |x| / h in Phi / h
        joints.constraint_residual_step(rd, y, sc.hd, sc.sc, sc.phi0, r2)
        for r in range(nm):
            r2[r] *= ih
        res = 0.0
        for r in range(nv):
            res = max(res, abs(r1[r]))
        for r in range(nm):
            res = max(res, abs(r2[r]))
        joints.schur_start(sc.S, sc.rhs, r2, nm, fresh)  # rhs = r2; a fresh S = 0
        _schur_a(rd, sc, G0, kl, fresh)
        if fresh and not joints.schur_factor(sc.S, kl, sc.piv, nm):
            if kl != kl_piv:  # a singular diagonal block in the block LU: partial pivoting from here on
                kl = kl_piv
                it -= 1
                continue
            return kernels.SINGULAR, code, it, res, kl
        joints.schur_solve(sc.S, kl, sc.piv, sc.rhs, nm)
        upd = _update_a(rd, sc, G0, mu)
        # the common test (kernels.newton_test; a stall at the round-off floor of Phi/h is accepted and counted)
        code, prev_upd, _ = kernels.newton_next(upd, prev_upd, it, tol, False)  # exact Jacobian: no refresh
        if code != kernels.CONTINUE:
            break
    return kernels.OK, code, it, res, kl


@njit(cache=True, inline="always")
def _predict(sc: _Scratch, hist: tuple, mu, mu_prev, hs: float, hs_prev: float, k: int, n_sub: int) -> None:
    """Stage (a)'s starting iterate: Delta quadratic in the last three steps (O(h^3)), at first 1.5 v_n - 0.5 v_{n-1};
    mu linear in the last two. A composition's sub-steps differ in size and sign: Delta ~ v_n, mu = hs lambda
    rescaled."""
    w_older, d1, d2, d3 = hist
    w, delta = sc.w, sc.delta
    for r in range(w.shape[0]):
        if n_sub > 1 or k == 0:
            delta[r] = w[r]
        else:
            delta[r] = 3.0 * d1[r] - 3.0 * d2[r] + d3[r] if k > 2 else 1.5 * w[r] - 0.5 * w_older[r]
    for r in range(mu.shape[0]):
        mu_r = mu[r]
        mu[r] = mu_r * (hs / hs_prev) if n_sub > 1 else 2.0 * mu_r - mu_prev[r] if k > 1 else mu_r
        mu_prev[r] = mu_r


@njit(cache=True, inline="always")
def _stage_b(rd, y, sc: _Scratch, G1, hs: float, klv: int) -> bool:
    """q_{n+1} = q_n exp(h Delta) into y1, then stage (b) (seed eq. 23): M v + B1^T nu = a, B1 v = 0 with
    a = T^-T(h Delta) M Delta - (h/2) f(q_{n+1}), solved for w = v_{n+1}. False if its Schur complement is singular."""
    Jm = rd.inertia
    v_off = rd.v_off
    delta, hd, f, Jd, a_rhs = sc.delta, sc.hd, sc.f, sc.Jd, sc.a_rhs
    hh = 0.5 * hs
    rigid.advance_configuration(rd, y, hd, sc.y1)
    joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.y1, G1)
    rigid.potential_gradient_inline(rd, sc.y1, f)
    for i in range(rd.mass.shape[0]):
        o = v_off[i]
        w0 = hd[o]
        w1 = hd[o + 1]
        w2 = hd[o + 2]
        for c in range(3):
            Jd[c] = Jm[i, c, 0] * delta[o] + Jm[i, c, 1] * delta[o + 1] + Jm[i, c, 2] * delta[o + 2]
        _tangent_inv_t_times(w0, w1, w2, lie.c_coef_inline(np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)), Jd, a_rhs, o)
        for r in range(3):
            a_rhs[o + r] -= hh * f[o + r]
            if not rd.pinned[i]:
                a_rhs[o + 3 + r] = rd.mass[i] * delta[o + 3 + r] - hh * f[o + 3 + r]
    return joints.project_momentum(sc.S, klv, sc.piv, sc.rhs, G1, sc.Jinv, rd.mass, rd.pinned, v_off, sc.ninc, sc.incj,
                                   sc.incs, sc.V, a_rhs, sc.w)


@njit(cache=True, inline="always")
def _start_step(rd, y, sc: _Scratch, hs: float) -> None:
    """The constant part of stage (a)'s first residual, p = -M v_n + (h/2) f(q_n), and Phi(q_n)."""
    Jm = rd.inertia
    w, p = sc.w, sc.p
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        for r in range(3):
            p[o + r] = Jm[i, r, 0] * w[o] + Jm[i, r, 1] * w[o + 1] + Jm[i, r, 2] * w[o + 2]
            if not rd.pinned[i]:
                p[o + 3 + r] = rd.mass[i] * w[o + 3 + r]
    rigid.constraint_residual(rd, y, sc.phi0)
    hh = 0.5 * hs
    for r in range(p.shape[0]):
        p[r] = hh * sc.f[r] - p[r]


@njit(cache=True, error_model="numpy")
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """RATTLie kernel (contract in solvers.kernels); opts: see pack, work: _work_fields. Each step is n_sub
    sub-steps (one without composition): _start_step, _predict, _stage_a, _stage_b."""
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    rd = kernels.borrowed(data[0])
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    nb = rd.mass.shape[0]
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    ny = y.shape[0]
    tol = opts[O_TOL]
    max_iter = int(opts[O_MAX_ITER])
    w_older, w_old, mu, mu_prev, d1, d2, d3 = kernels.carve(work, _work_fields(nv, nm))
    if k0 == 0:
        n_saved = _record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, w_old, w_older, mu,
                                  t_start)
        if n_saved < 0:
            info[kernels.INFO_TIME] = t_start
            return 0, kernels.SINGULAR, 0
    kl, kl_piv, width = joints.schur_layouts(rd)  # stage (a)'s, close to B M^-1 B^T / 2; block LU on a chain
    klv = kl  # stage (b)'s: symmetric positive definite
    own = _scratch(rd, ny, width)
    sc = kernels.borrowed(own)  # the scratch without reference counting; ``own`` keeps it alive (kernels.borrowed)
    G0, G1 = sc.Ga, sc.Gb  # rotational joint blocks of B(q_n) and B(q_{n+1}), swapped after each step
    for i in range(nb):
        if not inv3_into(rd.inertia[i], sc.Jinv[i]):
            info[kernels.INFO_TIME] = t_start + k0 * h
            return 0, kernels.SINGULAR, n_saved
    hist = (w_older, d1, d2, d3)
    # q_n-dependent quantities of the first step; later steps take them from stage (b) of the step before
    # (w = v_{n+1}, f(q_{n+1}), B(q_{n+1}) are exactly the next step's v_n, f(q_n), B(q_n))
    rigid.get_velocity(rd, y, sc.w)
    rigid.potential_gradient(rd, y, sc.f)
    joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, y, G0)
    n_sub = int(opts[O_N_SUB])  # sub-steps of a composition (solvers.composition); 1: the method itself
    hs_prev = h if k0 == 0 else h * opts[O_GAMMA + n_sub - 1]  # the step size mu = hs lambda was solved for
    for s in range(n_steps):
        k = k0 + s
        t = t_start + k * h
        for j in range(n_sub):
            hs = h * opts[O_GAMMA + j]
            _start_step(rd, y, sc, hs)
            _predict(sc, hist, mu, mu_prev, hs, hs_prev, k, n_sub)
            status, code, it, res, kl = _stage_a(rd, y, sc, G0, mu, hs, kl, kl_piv, tol, max_iter)
            if status != kernels.OK:
                info[kernels.INFO_TIME] = t
                return s, status, n_saved
            if kernels.newton_failed(code, it, maxima, info, t, res):
                return s, kernels.NEWTON, n_saved
            for r in range(nv):
                sc.hd[r] = hs * sc.delta[r]
                d3[r] = d2[r]
                d2[r] = d1[r]
                d1[r] = sc.delta[r]
            if not _stage_b(rd, y, sc, G1, hs, klv):
                info[kernels.INFO_TIME] = t + h
                return s, kernels.SINGULAR, n_saved
            rigid.set_velocity(rd, sc.y1, sc.w)
            if not kernels.state_ok_inline(sc.y1):
                info[kernels.INFO_TIME] = t + h
                return s, kernels.NONFINITE, n_saved
            for r in range(ny):
                y[r] = sc.y1[r]
            G0, G1 = G1, G0  # B(q_{n+1}) is the next step's B(q_n)
            hs_prev = hs
        rigid.difference_acceleration(rd, w_older, w_old, sc.w, h, k + 1, sc.acc)
        for r in range(nv):
            w_older[r] = w_old[r]
            w_old[r] = sc.w[r]
        rigid.diagnostics_inline(rd, y, sc.acc, sc.d)
        n_saved = kernels.record_inline(samples, n_saved, maxima, ref, t + h, y, sc.d, k + 1, stride, last)
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [newton_tol, newton_max_iter, s, gamma_1..gamma_s] (composition.pack; s = 1
    unless a composed method, solvers.composition.composed, asks for one)."""
    return np.concatenate(([o["newton_tol"], float(o["newton_max_iter"])], composition.tail(o)))


def work_size(model) -> int:
    return sum(python_function(_work_fields)(rigid.n_velocity(model.data), rigid.n_multipliers(model.data)))


METHOD = Method(
    id="rattlie",
    title="RATTLie (Hante & Arnold), seed 000 'RL'",
    seed="000",
    order=2,
    description=(
        "Symplectic, symmetric Lie group integrator with a log-map discretisation and two half steps "
        "(RATTLE on Lie groups): position and velocity constraints hold to the Newton tolerance, rotations stay "
        "orthogonal, energy error stays bounded, momentum is preserved."
    ),
    kernel=advance,
    machineries=("rigid",),
    options=dict(NEWTON_OPTIONS),
    pack=pack,
    work_size=work_size,
    properties=("implicit", "symplectic", "symmetric", "Lie group", "constraints at position and velocity level"),
)
