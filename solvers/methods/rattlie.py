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

from typing import Any

import numpy as np
from numba import njit

from .. import composition, kernels, lie
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


@njit(cache=True, error_model="numpy")
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """RATTLie kernel (contract in solvers.kernels); opts: see pack, work: _work_fields."""
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    rd = kernels.borrowed(data[0])
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    mass = rd.mass
    inertia = rd.inertia
    Jm = inertia  # indexed as Jm[i, r, c] in the loop: no per-body views (each costs an atomic incref/decref)
    nb = mass.shape[0]
    pinned = rd.pinned  # pinned bodies (seed 004 eq. 68): rotational blocks only
    y_off = rd.y_off
    v_off = rd.v_off
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

    # scratch, allocated once per call
    Jinv = np.empty((nb, 3, 3))
    for i in range(nb):
        if not inv3_into(inertia[i], Jinv[i]):
            info[kernels.INFO_TIME] = t_start + k0 * h
            return 0, kernels.SINGULAR, n_saved
    jb = rd.joint_bodies
    jp = rd.joint_points
    nj = jb.shape[0]
    # per body, the joint sides that touch it (B in 3x3 joint blocks); local copies (measured faster than views)
    ninc, incj, incs, band = joints.topology_of(rd)
    ninc, incj, incs = ninc.copy(), incj.copy(), incs.copy()
    # the Schur complements are block-tridiagonal on a chain (joints.band_of): block storage and block LU, O(N) per
    # solve (joints.schur_storage_spd); band or dense storage otherwise, and for stage (a)'s matrix should its block LU
    # break down (it is not symmetric: no pivoting is safe only while it stays close to B M^-1 B^T / 2)
    kl, width = joints.schur_storage_spd(nm, band)
    klv = kl  # stage (b)'s: symmetric positive definite
    kl_piv, width_piv = joints.schur_storage(nm, band)
    G0 = np.zeros((max(nj, 1), 2, 3, 3))  # rotational joint blocks of B(q_n)
    G1 = np.zeros((max(nj, 1), 2, 3, 3))  # ... of B(q_{n+1}) (stage b)
    Gc = np.zeros((max(nj, 1), 2, 3, 3))  # ... of B at the first iterate of stage (a): C = Gc T, frozen
    S = np.empty((max(nm, 1), max(width, width_piv)))
    piv = np.empty(max(nm, 1), dtype=np.int64)
    V = np.empty((3, 3))
    p = np.empty(nv)
    f = np.empty(nv)
    w = np.empty(nv)
    delta = np.empty(nv)
    hd = np.empty(nv)
    r1 = np.empty(nv)
    r2 = np.empty(nm)
    rhs = np.empty(nm)
    Ainv = np.empty((nb, 3, 3))
    Wc = np.empty((nb, 3, 3))  # T(h Delta) A^-1 per body, frozen with C
    Ai3 = np.empty((3, 3))
    Tm = np.empty((3, 3))
    Dm = np.empty((3, 3))
    A3 = np.empty((3, 3))
    Tt = np.empty((3, 3))
    v3 = np.empty(3)
    Jd = np.empty(3)
    y1 = np.empty(ny)
    acc = np.zeros(ny)
    d = np.empty(kernels.N_DIAG)
    a_rhs = np.empty(nv)
    sc = np.empty((nb, 2))  # sinc1, cosc2 of each body's rotation increment
    phi0 = np.empty(nm)  # Phi(q_n)

    # the scratch in the step loop without reference counting; ``own`` keeps it alive to the end (kernels.borrowed)
    own = (Jinv, ninc, incj, incs, G0, G1, Gc, S, piv, V, p, f, w, delta, hd, r1, r2, rhs, Ainv, Wc, Ai3, Tm,
           Dm, A3, Tt, v3, Jd, y1, acc, d, a_rhs, sc, phi0)
    (Jinv, ninc, incj, incs, G0, G1, Gc, S, piv, V, p, f, w, delta, hd, r1, r2, rhs, Ainv, Wc, Ai3, Tm, Dm, A3,
     Tt, v3, Jd, y1, acc, d, a_rhs, sc, phi0) = kernels.borrowed(own)
    # q_n-dependent quantities of the first step; later steps take them from stage (b) of the step before
    # (w = v_{n+1}, f(q_{n+1}), B(q_{n+1}) are exactly the next step's v_n, f(q_n), B(q_n))
    rigid.get_velocity(rd, y, w)
    rigid.potential_gradient(rd, y, f)
    joints.joint_blocks(jb, jp, y_off, y, G0)
    n_sub = int(opts[O_N_SUB])  # sub-steps of a composition (solvers.composition); 1: the method itself
    hs_prev = h if k0 == 0 else h * opts[O_GAMMA + n_sub - 1]  # the step size mu = hs lambda was solved for
    for s in range(n_steps):
        k = k0 + s
        t = t_start + k * h
        for j in range(n_sub):
            hs = h * opts[O_GAMMA + j]
            hh = 0.5 * hs
            ih = 1.0 / hs  # multiplications in the loop instead of divisions (round-off level)
            for i in range(nb):
                o = v_off[i]
                for r in range(3):
                    p[o + r] = Jm[i, r, 0] * w[o] + Jm[i, r, 1] * w[o + 1] + Jm[i, r, 2] * w[o + 2]
                    if not pinned[i]:
                        p[o + 3 + r] = mass[i] * w[o + 3 + r]
            rigid.constraint_residual(rd, y, phi0)
            # the constant part of the residual r1: -p_n + (h/2) f(q_n)
            for r in range(nv):
                p[r] = hh * f[r] - p[r]
            # predictor: Delta quadratic in the last three steps (O(h^3)), at first 1.5 v_n - 0.5 v_{n-1}; mu linear
            # in the last two. A composition's sub-steps differ in size and sign: Delta ~ v_n, mu = hs lambda rescaled
            for r in range(nv):
                if n_sub > 1 or k == 0:
                    delta[r] = w[r]
                else:
                    delta[r] = 3.0 * d1[r] - 3.0 * d2[r] + d3[r] if k > 2 else 1.5 * w[r] - 0.5 * w_older[r]
            for r in range(nm):
                mu_r = mu[r]
                mu[r] = mu_r * (hs / hs_prev) if n_sub > 1 else 2.0 * mu_r - mu_prev[r] if k > 1 else mu_r
                mu_prev[r] = mu_r
            code = kernels.CONTINUE
            res = 0.0
            prev_upd = np.inf
            it = 0
            while it < max_iter:
                it += 1
                fresh = it == 1  # simplified Newton: the Jacobian of the first iterate serves the whole step
                res = 0.0
                for i in range(nb):
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
                    sc[i, 0] = lie.sinc1_inline(x)
                    sc[i, 1] = lie.cosc2_inline(x)
                    rigid.advance_body(y, hd, y_off[i], o, not pinned[i], sc[i, 0], sc[i, 1], y1)
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
                    # r1 += -p_n + (h/2) f + (1/2) B(q_n)^T mu
                    c0, c1, c2 = joints.bt_rot(G0, ninc, incj, incs, i, mu, 0.5, r1[o] + p[o], r1[o + 1] + p[o + 1],
                                               r1[o + 2] + p[o + 2])
                    r1[o] = c0
                    r1[o + 1] = c1
                    r1[o + 2] = c2
                    if not pinned[i]:
                        for r in range(3):
                            r1[o + 3 + r] += p[o + 3 + r]
                        joints.bt_tr_add(ninc, incj, incs, i, o, mu, 0.5, r1)
                    if not fresh:
                        continue
                    # D(-h Delta; M Delta)
                    lie.d_poly_into_inline(v3, Jd, -0.5, lie.c_coef_inline(x), 0.0, lie.c3_coef_inline(x), Dm)
                    for r in range(3):
                        for c in range(3):
                            A3[r, c] = Tm[r, 0] * Jm[i, 0, c] + Tm[r, 1] * Jm[i, 1, c] + Tm[r, 2] * Jm[i, 2, c] \
                                - hs * Dm[r, c]
                    if not inv3_into_inline(A3, Ai3):
                        info[kernels.INFO_TIME] = t
                        return s, kernels.SINGULAR, n_saved
                    # C = B(q_{n+1}) T(h Delta): Wc = T(h Delta) A^-1 carries the T (translational blocks: T = I)
                    v3[0] = w0
                    v3[1] = w1
                    v3[2] = w2
                    lie.poly_into_inline(v3, -lie.cosc2_inline(x), lie.sinc3_inline(x), Tt)  # T(h Delta)
                    for r in range(3):
                        for c in range(3):
                            Ainv[i, r, c] = Ai3[r, c]
                            Wc[i, r, c] = Tt[r, 0] * Ai3[0, c] + Tt[r, 1] * Ai3[1, c] + Tt[r, 2] * Ai3[2, c]
                if fresh:
                    joints.joint_blocks(jb, jp, y_off, y1, Gc)
                # Phi(q_n exp(h Delta)) from Phi(q_n) and the increment: no round-off floor eps |x| / h in Phi / h
                joints.constraint_residual_step(rd, y, hd, sc, phi0, r2)
                for r in range(nm):
                    r2[r] *= ih
                for r in range(nv):
                    res = max(res, abs(r1[r]))
                for r in range(nm):
                    res = max(res, abs(r2[r]))
                # S dmu = r2 - C A^-1 r1 with S = C A^-1 B(q_n)^T / 2 (block, band or dense storage; once per step)
                joints.schur_start(S, rhs, r2, nm, fresh)  # rhs = r2; a fresh S = 0
                for i in range(nb):
                    o = v_off[i]
                    t0 = Wc[i, 0, 0] * r1[o] + Wc[i, 0, 1] * r1[o + 1] + Wc[i, 0, 2] * r1[o + 2]
                    t1 = Wc[i, 1, 0] * r1[o] + Wc[i, 1, 1] * r1[o + 1] + Wc[i, 1, 2] * r1[o + 2]
                    t2 = Wc[i, 2, 0] * r1[o] + Wc[i, 2, 1] * r1[o + 1] + Wc[i, 2, 2] * r1[o + 2]
                    im = 1.0 / mass[i]
                    if fresh:
                        for r in range(3):
                            for c in range(3):
                                Tt[r, c] = 0.5 * Wc[i, r, c]  # the 1/2 of S (exact in binary)
                        joints.schur_add(S, kl, rhs, -1.0, i, o, Tt, t0, t1, t2, r1, im, 0.5 * im, Gc, G0, ninc, incj,
                                         incs, V)
                    else:
                        joints.schur_rhs_add(rhs, -1.0, i, o, t0, t1, t2, r1, im, Gc, ninc, incj, incs)
                if fresh and not joints.schur_factor(S, kl, piv, nm):
                    if kl != kl_piv:  # a singular diagonal block in the block LU: partial pivoting from here on
                        kl = kl_piv
                        it -= 1
                        continue
                    info[kernels.INFO_TIME] = t
                    return s, kernels.SINGULAR, n_saved
                joints.schur_solve(S, kl, piv, rhs, nm)
                # Delta -= A^-1 (r1 + B(q_n)^T dmu / 2)
                big_d = 0.0
                big_x = 0.0
                for i in range(nb):
                    o = v_off[i]
                    c0, c1, c2 = joints.bt_rot(G0, ninc, incj, incs, i, rhs, 0.5, r1[o], r1[o + 1], r1[o + 2])
                    for r in range(3):
                        dd = -(Ainv[i, r, 0] * c0 + Ainv[i, r, 1] * c1 + Ainv[i, r, 2] * c2)
                        delta[o + r] += dd
                        big_d = max(big_d, abs(dd))
                        big_x = max(big_x, abs(delta[o + r]))
                    if not pinned[i]:
                        joints.bt_tr_add(ninc, incj, incs, i, o, rhs, 0.5, r1)
                        im = 1.0 / mass[i]
                        for r in range(3):
                            dd = -r1[o + 3 + r] * im
                            delta[o + 3 + r] += dd
                            big_d = max(big_d, abs(dd))
                            big_x = max(big_x, abs(delta[o + 3 + r]))
                big_m, big_mu = kernels.add_update(mu, rhs, nm)
                # the common test (kernels.newton_test; a stall at the round-off floor of Phi/h is accepted and counted)
                upd = max(kernels.scaled_update(big_d, big_x), kernels.scaled_update(big_m, big_mu))
                code, prev_upd, _ = kernels.newton_next(upd, prev_upd, it, tol, False)  # exact Jacobian: no refresh
                if code != kernels.CONTINUE:
                    break
            if kernels.newton_failed(code, it, maxima, info, t, res):
                return s, kernels.NEWTON, n_saved
            for r in range(nv):
                hd[r] = hs * delta[r]
                d3[r] = d2[r]
                d2[r] = d1[r]
                d1[r] = delta[r]
            rigid.advance_configuration(rd, y, hd, y1)
            # stage (b): M v + B1^T nu = a, B1 v = 0, a = T^-T(h Delta) M Delta - (h/2) f(q_{n+1})
            joints.joint_blocks(jb, jp, y_off, y1, G1)
            rigid.potential_gradient_inline(rd, y1, f)
            for i in range(nb):
                o = v_off[i]
                w0 = hd[o]
                w1 = hd[o + 1]
                w2 = hd[o + 2]
                for c in range(3):
                    Jd[c] = Jm[i, c, 0] * delta[o] + Jm[i, c, 1] * delta[o + 1] + Jm[i, c, 2] * delta[o + 2]
                _tangent_inv_t_times(w0, w1, w2, lie.c_coef_inline(np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)), Jd, a_rhs, o)
                for r in range(3):
                    a_rhs[o + r] -= hh * f[o + r]
                    if not pinned[i]:
                        a_rhs[o + 3 + r] = mass[i] * delta[o + 3 + r] - hh * f[o + 3 + r]
            if not joints.project_momentum(S, klv, piv, rhs, G1, Jinv, mass, pinned, v_off, ninc, incj, incs, V, a_rhs,
                                           w):
                info[kernels.INFO_TIME] = t + h
                return s, kernels.SINGULAR, n_saved
            rigid.set_velocity(rd, y1, w)
            if not kernels.state_ok_inline(y1):
                info[kernels.INFO_TIME] = t + h
                return s, kernels.NONFINITE, n_saved
            for r in range(ny):
                y[r] = y1[r]
            G0, G1 = G1, G0  # B(q_{n+1}) is the next step's B(q_n)
            hs_prev = hs
        rigid.difference_acceleration(rd, w_older, w_old, w, h, k + 1, acc)
        for r in range(nv):
            w_older[r] = w_old[r]
            w_old[r] = w[r]
        rigid.diagnostics_inline(rd, y, acc, d)
        n_saved = kernels.record_inline(samples, n_saved, maxima, ref, t + h, y, d, k + 1, stride, last)
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [newton_tol, newton_max_iter, s, gamma_1..gamma_s] (composition.pack; s = 1
    unless a composed method, solvers.composition.composed, asks for one)."""
    return np.concatenate(([o["newton_tol"], float(o["newton_max_iter"])], composition.tail(o)))


def work_size(model) -> int:
    return sum(_work_fields.py_func(rigid.n_velocity(model.data), rigid.n_multipliers(model.data)))


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
