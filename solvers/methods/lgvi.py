"""Lee's Lie group variational integrator (seed 000 section 2.1, eqs. 6-14), two variants on the rigid machinery.

Notation (seed 000; Lee, Leok & McClamroch 2007; docs/algorithms.md section 3). Per body i: rotation R, centre of
mass x, body angular momentum Pi = J Omega (J about the centre of mass), linear momentum gamma = m v. One step
from node n uses the increments f_i (F_i = exp(hat f_i), R_{n+1} = R_n F_i, seed eq. 6) and x_{n+1}. The
constraint potential lambda^T Phi is added to U at each node (seed eqs. 9-10), so the moment M^C_n of eq. 11
and the force dU^C/dx of eq. 13 contain the constraint forces -B(q_n)^T lambda_n (B: the Lie-algebra
constraint Jacobian of seed 000 Table 1). Gravity has no moment about the centre of mass. A pinned body (a
heavy top about a fixed pivot, seed 004 eq. 68; no x, gamma, joints) has J about the pivot and gravity's moment
M(R) = m rho x R^T g: Lee's g(f_i) = h Pi_n + (h^2/2) M_n and Pi^-_{n+1} = F^T g(f)/h + (h/2) M_{n+1}
(docs/algorithms.md section 3).

Position stage (nonlinear; unknowns f_i, x_{n+1,i} for all bodies and nu = scaled multiplier, 3 per joint):

    g(f_i) := (sin x/x) J f_i + ((1 - cos x)/x^2) f_i x J f_i = h P_rot,i - (B(q_n)^T nu)_rot,i     (eq. 11)
    m_i (x_{n+1,i} - x_{n,i}) = h P_tr,i + (h^2/2) m_i grav - (B(q_n)^T nu)_tr,i                  (eq. 13)
    Phi(q_{n+1}) = 0,

x = |f_i|. g is Lee's hat(g) = F J_d - J_d F^T (J_d = tr(J)/2 I - J) written as a vector equation, so J_d is
never formed: it only ever enters through F J_d - J_d F^T, whose derivative at f = 0 is J itself. P is the
momentum the step starts from (below). Newton with the exact Jacobian [[H, B(q_n)^T], [B(q_{n+1}) T(f), 0]],
H = blockdiag(A_i, m_i I),
A_i = dg/df (docs/algorithms.md section 3), T(f) the SO(3) tangent operator (d/df Phi(R_n exp(f) a) =
-R_{n+1} hat(a) T(f)). H is block diagonal, so a fresh Newton matrix inverts the 3x3 blocks A_i and factorises the
3K x 3K Schur complement B(q_{n+1}) T H^-1 B(q_n)^T (sparse: only bodies shared by two joints couple them; on a
chain block-tridiagonal, factorised by block LU, docs/methods.md "Linear cost on chains"); if
a block A_i is singular (a body with singular inertia about its centre of mass) the full saddle-point matrix
is factorised instead. The Newton matrix is kept for the next iteration while the update is below _KEEP_BELOW
(scaled) and contracted by kernels.REFRESH (simplified Newton: the iterate has moved little from where the matrix
was evaluated, so the next update is O(|update| |previous update|), close to Newton's); otherwise it is evaluated
afresh. At h = 1e-3 on the double pendulum every step then factorises once (2.08 iterations per step, as with a
fresh matrix in every iteration); at large steps (h = 0.05) the iteration counts are those of full Newton.
Stopping test: the common kernels.newton_test on f/h, (x_{n+1} - x_n)/h (velocity-like, so newton_tol means what
it means for the other methods) and the multipliers (docs/methods.md, "Newton iteration"). Predictor: linear
extrapolation of the last two steps' f, x_{n+1} - x_n and lambda (first step: the Taylor polynomial with the consistent
acceleration and multiplier of rigid_dae.initial_acceleration). Typically 2 iterations per step.

End-point momenta (eqs. 12, 14, with the constraint forces at n + 1 left out):
    Pi^-_{n+1} = F^T g(f) / h,   gamma^-_{n+1} = m (x_{n+1} - x_n) / h + (h/2) m grav,
which is Pi_n + h/2 M_n transported by F plus the half impulse of gravity at n + 1.

``lgvi`` (seed 000 "DH"): the RATTLE-type form (Marsden & West 2001, section 3.5; seed Fig. 7). P = p_n, the
position multiplier lambda_n enters with half weight (nu = h^2/2 lambda_n), and a second multiplier mu_{n+1}
enforces the velocity constraint at the new node: the linear saddle-point system
    M w_{n+1} + B(q_{n+1})^T nu' = p^-_{n+1},   B(q_{n+1}) w_{n+1} = 0      (nu' = h/2 mu_{n+1}),
with M = blockdiag(J_i, m_i I), solved by the Schur complement B M^-1 B^T (full factorisation if J_i is
singular). Both constraint levels hold to round-off.

``lgvi_lagrangian`` (seed 000 "DL"): the discrete Euler-Lagrange equations with one multiplier per node and no
velocity constraint (SHAKE-type). With the seed's U^C (eq. 10) the multiplier lambda_n of node n enters both
discrete Legendre transforms at q_n, D2 L_d^C(q_{n-1}, q_n) and -D1 L_d^C(q_n, q_{n+1}), which the DEL makes
equal; so the step from node n solves with P = p^-_n and the full impulse (nu = h^2 lambda_n).
REPORTED velocity: the momentum at node n is that common discrete Legendre transform
    p_n = p^-_n - (h/2) B(q_n)^T lambda_n = p^-_n - B(q_n)^T nu / (2h),   w_n = M^-1 p_n,
which is exactly the average (p_{n-1/2} + p_{n+1/2})/2 of the half-step momenta p_{n+1/2} = (g(f_n), m dx_n)/h
around node n (rotational parts in the body frame of node n). Reasons: it is the Legendre transform the seed's
eqs. 10-14 define with a single multiplier sequence, it is second-order accurate, and it is what makes the
discrete momentum maps exactly conserved. It needs lambda_n, which only the step from q_n to q_{n+1} determines,
so the kernel runs one position stage ahead (the pending node n + 1 and p^-_{n+1} live in ``work``) and saves
node n once the step from n is solved. The alternative without look-ahead, p^-_n (the Legendre transform of the
unconstrained L_d), misses half of the constraint impulse at q_n and is only first-order accurate. B(q_n) w_n is
not zero but O(h^2) (w_n is a central difference of configurations that both satisfy Phi = 0): 5e-4 at
h = 1e-3 over 50 s on the spatial double pendulum, seed Fig. 7's ~1e-4 for DL. The first step starts from the
given p_0 with the multiplier at half weight, as DH does. Both variants produce the same configurations (DH's
pair of multipliers sums to DL's one); they differ only in the velocities. DL needs every J_i invertible
(w = M^-1 p): with a singular inertia about a centre of mass the run fails as singular at t = 0.

Both are symplectic, preserve the momentum maps of symmetries exactly (up to the Newton tolerance) and keep R
orthogonal to round-off (R is only multiplied by exponentials). Diagnostics: at k = 0 the consistent
acceleration (rigid_dae.initial_acceleration), afterwards rigid.difference_acceleration of the reported velocities.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from .. import kernels
from ..linalg import inv3_into, inv3_into_inline
from ..models import joints, rigid, rigid_dae
from . import lgvi_map as lee
from .base import NEWTON_OPTIONS, Method

BODY = rigid.BODY
_KEEP_BELOW = 1e-3  # simplified Newton: the Newton matrix is kept after updates below this (scaled)

# the option array's slots, in the order pack writes them
O_TOL, O_MAX_ITER, O_PROJECT = range(3)


@njit(cache=True, inline="always")
def _work_fields(nb: int, nm: int) -> tuple:
    """The work array's fields (kernels.carve), kept between calls, in order: n_hist (1: steps in the predictor's
    history, up to 2), f1, f2 (3N each: the last two steps' rotation increments f), dx1, dx2 (3N each: their
    x_{n+1} - x_n), lam1, lam2 (3K each: their multipliers lambda), w_older, w_old (6N each: the velocities of the
    acceleration diagnostic), q_pend (18N), p_pend (6N): DL's pending node and its momentum p^-."""
    return 1, 3 * nb, 3 * nb, 3 * nb, 3 * nb, nm, nm, 6 * nb, 6 * nb, BODY * nb, 6 * nb


# advance's arrays, allocated once per call (_scratch), read by name in the step's parts: Jinv (J_i^-1); ninc, incj,
# incs (per body, the joint sides that touch it); z, nu (the position stage's unknowns, f_i and x_{n+1,i} - x_{n,i}
# per body, and nu = scale lambda); q1 (q_{n+1}); G0, G1 (rotational joint blocks of B(q_n), B(q_{n+1})); Hrot, Tm,
# Ainv, Wc (per body A_i = dg/df, T(f_i), A_i^-1, T_i A_i^-1; the last two kept with the Newton matrix); V; r1, r2
# (the residuals of eqs. 11, 13 and Phi(q_{n+1})); b (eqs. 11, 13 without the multiplier); cnu (C nu = B(q_n)^T nu);
# rhs, S, piv (the multipliers' Schur system: right-hand side, then update; block, band or dense storage); Bd0, Bd1,
# K, kr (the full saddle-point solve: B(q_n), B(q_{n+1}) T, matrix, solution); res (the last scaled residual); sico
# (sinc1, cosc2 per body); phi0 (Phi at the start node); P, pm (the momentum the step starts from, p^-_{n+1}); w (the
# reported velocity); acc, diag (the differenced acceleration, a diagnostics row)
_Scratch = namedtuple("_Scratch", "Jinv ninc incj incs z nu q1 G0 G1 Hrot Tm Ainv Wc V r1 r2 b cnu rhs S piv Bd0 Bd1 "
                      "K kr res sico phi0 P pm w acc diag")


@njit(cache=True)
def _scratch(rd, ny: int, width: int) -> _Scratch:
    nj, nb, nv = rd.joint_bodies.shape[0], rd.mass.shape[0], rigid.n_velocity(rd)
    nm, g = 3 * nj, max(nj, 1)
    ninc, incj, incs, _ = joints.topology_of(rd)  # copied below: local copies measured faster than views
    return _Scratch(np.empty((nb, 3, 3)), ninc.copy(), incj.copy(), incs.copy(), np.empty(nv), np.empty(nm),
                    np.zeros(ny), np.zeros((g, 2, 3, 3)), np.zeros((g, 2, 3, 3)), np.empty((nb, 3, 3)),
                    np.empty((nb, 3, 3)), np.empty((nb, 3, 3)), np.empty((nb, 3, 3)), np.empty((3, 3)), np.empty(nv),
                    np.empty(nm), np.empty(nv), np.empty(nv), np.empty(nm), np.empty((max(nm, 1), width)),
                    np.empty(max(nm, 1), dtype=np.int64), np.empty((nm, nv)), np.empty((nm, nv)),
                    np.empty((nv + nm, nv + nm)), np.empty(nv + nm), np.zeros(1), np.empty((nb, 2)), np.empty(nm),
                    np.empty(nv), np.empty(nv), np.empty(nv), np.zeros(ny), np.empty(kernels.N_DIAG))


@njit(cache=True, inline="always")
def _dg_df(inertia, i, f0, f1, f2, a1, a2, b1, b2, A) -> None:
    """A[i] = dg/df at f: a1 J + a2 (hat(f) J - hat(J f)) + b1 (J f) f^T + b2 (f x J f) f^T (docs/algorithms.md
    section 3), J = inertia[i].

    J f and f x J f are recomputed here, not passed from the residual in the step loop: passing them (or sharing one
    helper) made the loop's machine code 0.2 us per step slower (docs/performance.md, "The two-rod case")."""
    u0 = inertia[i, 0, 0] * f0 + inertia[i, 0, 1] * f1 + inertia[i, 0, 2] * f2
    u1 = inertia[i, 1, 0] * f0 + inertia[i, 1, 1] * f1 + inertia[i, 1, 2] * f2
    u2 = inertia[i, 2, 0] * f0 + inertia[i, 2, 1] * f1 + inertia[i, 2, 2] * f2
    c0 = f1 * u2 - f2 * u1
    c1 = f2 * u0 - f0 * u2
    c2 = f0 * u1 - f1 * u0
    for c in range(3):
        j0 = inertia[i, 0, c]
        j1 = inertia[i, 1, c]
        j2 = inertia[i, 2, c]
        fc = f0 if c == 0 else (f1 if c == 1 else f2)
        A[i, 0, c] = a1 * j0 + a2 * (f1 * j2 - f2 * j1) + (b1 * u0 + b2 * c0) * fc
        A[i, 1, c] = a1 * j1 + a2 * (f2 * j0 - f0 * j2) + (b1 * u1 + b2 * c1) * fc
        A[i, 2, c] = a1 * j2 + a2 * (f0 * j1 - f1 * j0) + (b1 * u2 + b2 * c2) * fc
    A[i, 0, 1] += a2 * u2
    A[i, 0, 2] -= a2 * u1
    A[i, 1, 0] -= a2 * u2
    A[i, 1, 2] += a2 * u0
    A[i, 2, 0] += a2 * u1
    A[i, 2, 1] -= a2 * u0


@njit(cache=True)
def _record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, sc, mem, w_older, w_old, t):
    """Diagnostics at t = 0 with the consistent acceleration (rigid_dae.initial_acceleration); the first predictor,
    the Taylor polynomial f ~ h Omega + h^2/2 dOmega/dt (x likewise). Returns n_saved, or -1 if singular."""
    n_hist, f1, _f2, dx1, _dx2, lam1, _lam2 = mem
    pinned, v_off, w = rd.pinned, rd.v_off, sc.w
    nm, nv = lam1.shape[0], w_old.shape[0]
    lam, acc_l = np.empty(nm), np.empty(nv)
    if not rigid_dae.initial_acceleration(rd, y, acc_l, lam):
        return -1
    rigid.set_velocity(rd, sc.acc, acc_l)
    rigid.diagnostics(rd, y, sc.acc, sc.diag)
    n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, sc.diag, 0, stride, last)
    rigid.get_velocity(rd, y, w)
    for r in range(nv):
        w_old[r] = w[r]
        w_older[r] = w[r]
    for i in range(pinned.shape[0]):
        o = v_off[i]
        for r in range(3):
            f1[3 * i + r] = h * w[o + r] + 0.5 * h * h * acc_l[o + r]
            if not pinned[i]:
                dx1[3 * i + r] = h * w[o + 3 + r] + 0.5 * h * h * acc_l[o + 3 + r]
    for r in range(nm):
        lam1[r] = lam[r]
    n_hist[0] = 0.0
    return n_saved


@njit(cache=True, inline="always")
def _predict(rd, sc, mem, scale) -> None:
    """Guess for the next step: linear extrapolation of the last two steps (the last one if only one)."""
    n_hist, f1, f2, dx1, dx2, lam1, lam2 = mem
    pinned, v_off, z, nu = rd.pinned, rd.v_off, sc.z, sc.nu
    c1 = 2.0 if n_hist[0] >= 2.0 else 1.0
    c2 = c1 - 1.0
    for i in range(pinned.shape[0]):
        o = v_off[i]
        for r in range(3):
            z[o + r] = c1 * f1[3 * i + r] - c2 * f2[3 * i + r]
            if not pinned[i]:
                z[o + 3 + r] = c1 * dx1[3 * i + r] - c2 * dx2[3 * i + r]
    for r in range(nu.shape[0]):
        nu[r] = scale * (c1 * lam1[r] - c2 * lam2[r])


@njit(cache=True, inline="always")
def _remember(rd, sc, mem, scale) -> None:
    """Shift the predictor history and store this step's f, dx and multiplier lambda = nu / scale."""
    n_hist, f1, f2, dx1, dx2, lam1, lam2 = mem
    pinned, v_off, z, nu = rd.pinned, rd.v_off, sc.z, sc.nu
    for i in range(pinned.shape[0]):
        o = v_off[i]
        for r in range(3):
            f2[3 * i + r] = f1[3 * i + r]
            f1[3 * i + r] = z[o + r]
            if not pinned[i]:
                dx2[3 * i + r] = dx1[3 * i + r]
                dx1[3 * i + r] = z[o + 3 + r]
    for r in range(nu.shape[0]):
        lam2[r] = lam1[r]
        lam1[r] = nu[r] / scale
    n_hist[0] = min(n_hist[0] + 1.0, 2.0)


@njit(cache=True, inline="always")
def _residual(rd, sc, q_start, fresh, brot, btr, length) -> float:
    """C nu, q_{n+1} from the iterate, the residuals r1 (eqs. 11, 13) and r2 = Phi(q_{n+1}); with a fresh Newton
    matrix also the blocks A_i = dg/df and T_i = T(f_i). Returns the scaled residual: each block's largest entry
    relative to the size of its terms (b and C nu; the joints' length for Phi)."""
    mass, inertia, pinned, v_off = rd.mass, rd.inertia, rd.pinned, rd.v_off
    z, r1, r2, b, cnu, sico, Tm = sc.z, sc.r1, sc.r2, sc.b, sc.cnu, sc.sico, sc.Tm
    for i in range(mass.shape[0]):  # C nu = B(q_n)^T nu, per body
        o = v_off[i]
        cnu[o], cnu[o + 1], cnu[o + 2] = joints.bt_rot(sc.G0, sc.ninc, sc.incj, sc.incs, i, sc.nu, 1.0, 0.0, 0.0, 0.0)
        if pinned[i]:
            continue
        for r in range(3):
            cnu[o + 3 + r] = 0.0
        joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, sc.nu, 1.0, cnu)
    crot = ctr = e_rot = e_tr = 0.0
    for i in range(mass.shape[0]):
        o = v_off[i]
        f0, f1, f2 = z[o], z[o + 1], z[o + 2]
        x2 = f0 * f0 + f1 * f1 + f2 * f2
        a1, a2, a3, b1, b2 = lee.coefs(x2)
        sico[i, 0] = a1
        sico[i, 1] = a2
        # R_{n+1} = R_n exp(hat f), x_{n+1} = x_n + dx (Rodrigues with a1 = sinc1, a2 = cosc2)
        rigid.advance_body(q_start, z, rd.y_off[i], o, not pinned[i], a1, a2, sc.q1)
        u0 = inertia[i, 0, 0] * f0 + inertia[i, 0, 1] * f1 + inertia[i, 0, 2] * f2
        u1 = inertia[i, 1, 0] * f0 + inertia[i, 1, 1] * f1 + inertia[i, 1, 2] * f2
        u2 = inertia[i, 2, 0] * f0 + inertia[i, 2, 1] * f1 + inertia[i, 2, 2] * f2
        c0 = f1 * u2 - f2 * u1
        c1 = f2 * u0 - f0 * u2
        c2 = f0 * u1 - f1 * u0
        r1[o] = a1 * u0 + a2 * c0 - b[o] + cnu[o]
        r1[o + 1] = a1 * u1 + a2 * c1 - b[o + 1] + cnu[o + 1]
        r1[o + 2] = a1 * u2 + a2 * c2 - b[o + 2] + cnu[o + 2]
        for r in range(3):
            if not pinned[i]:
                r1[o + 3 + r] = mass[i] * z[o + 3 + r] - b[o + 3 + r] + cnu[o + 3 + r]
                e_tr = max(e_tr, abs(r1[o + 3 + r]))
                ctr = max(ctr, abs(cnu[o + 3 + r]))
            e_rot = max(e_rot, abs(r1[o + r]))
            crot = max(crot, abs(cnu[o + r]))
        if fresh:
            _dg_df(inertia, i, f0, f1, f2, a1, a2, b1, b2, sc.Hrot)  # the Newton block A_i = dg/df
            # T(f) = I - a2 hat(f) + a3 hat(f)^2
            d = 1.0 - a3 * x2
            Tm[i, 0, 0] = d + a3 * f0 * f0
            Tm[i, 1, 1] = d + a3 * f1 * f1
            Tm[i, 2, 2] = d + a3 * f2 * f2
            Tm[i, 0, 1] = a3 * f0 * f1 + a2 * f2
            Tm[i, 1, 0] = a3 * f0 * f1 - a2 * f2
            Tm[i, 0, 2] = a3 * f0 * f2 - a2 * f1
            Tm[i, 2, 0] = a3 * f0 * f2 + a2 * f1
            Tm[i, 1, 2] = a3 * f1 * f2 + a2 * f0
            Tm[i, 2, 1] = a3 * f1 * f2 - a2 * f0
    # Phi(q_{n+1}) from Phi(q_n) and the increment: no round-off floor eps |x| in the residual
    joints.constraint_residual_step(rd, q_start, z, sico, sc.phi0, r2)
    e_c = 0.0
    for r in range(r2.shape[0]):
        e_c = max(e_c, abs(r2[r]))
    return max(e_rot / max(brot + crot, 1e-300), e_tr / max(btr + ctr, 1e-300), e_c / length)


@njit(cache=True, inline="always")
def _schur_step(rd, sc, kl, fresh) -> bool:
    """The multipliers' update into rhs by the Schur complement: S dnu = r2 - D H^-1 r1, S = D H^-1 C,
    D = B(q_{n+1}) T; a fresh S is assembled and factorised. False if its factorisation breaks down."""
    mass, v_off, r1, Wc, S, rhs, nm = rd.mass, rd.v_off, sc.r1, sc.Wc, sc.S, sc.rhs, sc.nu.shape[0]
    joints.schur_start(S, rhs, sc.r2, nm, fresh)  # rhs = r2; a fresh S = 0
    for i in range(mass.shape[0]):
        o = v_off[i]
        im = 1.0 / mass[i]
        if fresh:
            t0, t1, t2 = joints.tangent_times_inverse(sc.Tm, sc.Ainv, i, Wc[i], r1, o)  # Wc_i = T_i A_i^-1
            joints.schur_add(S, kl, rhs, -1.0, i, o, Wc[i], t0, t1, t2, r1, im, im, sc.G1, sc.G0, sc.ninc, sc.incj,
                             sc.incs, sc.V)
        else:
            t0 = Wc[i, 0, 0] * r1[o] + Wc[i, 0, 1] * r1[o + 1] + Wc[i, 0, 2] * r1[o + 2]
            t1 = Wc[i, 1, 0] * r1[o] + Wc[i, 1, 1] * r1[o + 1] + Wc[i, 1, 2] * r1[o + 2]
            t2 = Wc[i, 2, 0] * r1[o] + Wc[i, 2, 1] * r1[o + 1] + Wc[i, 2, 2] * r1[o + 2]
            joints.schur_rhs_add(rhs, -1.0, i, o, t0, t1, t2, r1, im, sc.G1, sc.ninc, sc.incj, sc.incs)
    if fresh and not joints.schur_factor(S, kl, sc.piv, nm):
        return False
    joints.schur_solve(S, kl, sc.piv, rhs, nm)
    return True


@njit(cache=True, inline="always")
def _full_step(rd, sc, q_start) -> bool:
    """The Newton update by the full saddle-point matrix (a singular block A_i): B(q_n), B(q_{n+1}) T; the update
    of z in kr, the multipliers' in rhs. False if the matrix is singular."""
    nv, nm, cnu, r1, r2 = sc.z.shape[0], sc.nu.shape[0], sc.cnu, sc.r1, sc.r2
    joints.constraint_jacobian_inline(rd, q_start, sc.Bd0)
    joints.constraint_jacobian_inline(rd, sc.q1, sc.Bd1)
    rigid.times_tangent(rd, sc.Bd1, sc.Tm, sc.Bd1)
    for r in range(nv):
        cnu[r] = -r1[r]
    for r in range(nm):
        r2[r] = -r2[r]
    if not joints.full_solve_inline(nv, nm, sc.Hrot, rd.mass, sc.Bd0, sc.Bd1, cnu, r2, sc.K, sc.kr, rd.pinned,
                                    rd.v_off):
        return False
    for r in range(nm):
        sc.rhs[r] = sc.kr[nv + r]
    return True


@njit(cache=True, inline="always")
def _update(rd, sc, blocks, h) -> float:
    """z += dz = -H^-1 (r1 + C dnu) (blocks) or the full solve's, nu += dnu; returns the common test's measure
    (kernels.newton_test) on the blocks f/h, dx/h (velocity-like, as the other methods' unknowns) and nu."""
    mass, pinned, v_off, z, r1, cnu, rhs, kr = rd.mass, rd.pinned, rd.v_off, sc.z, sc.r1, sc.cnu, sc.rhs, sc.kr
    df = sf = dx = sx = 0.0
    for i in range(mass.shape[0]):
        o = v_off[i]
        free = not pinned[i]
        if blocks:
            im = 1.0 / mass[i]
            c0, c1, c2 = joints.bt_rot(sc.G0, sc.ninc, sc.incj, sc.incs, i, rhs, 1.0, r1[o], r1[o + 1], r1[o + 2])
            if free:
                for r in range(3):
                    cnu[o + 3 + r] = r1[o + 3 + r]
                joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, rhs, 1.0, cnu)
            for r in range(3):
                dd = -(sc.Ainv[i, r, 0] * c0 + sc.Ainv[i, r, 1] * c1 + sc.Ainv[i, r, 2] * c2)
                z[o + r] += dd
                df = max(df, abs(dd))
                sf = max(sf, abs(z[o + r]))
                if free:
                    dd = -cnu[o + 3 + r] * im
                    z[o + 3 + r] += dd
                    dx = max(dx, abs(dd))
                    sx = max(sx, abs(z[o + 3 + r]))
        else:
            for r in range(3):
                z[o + r] += kr[o + r]
                df = max(df, abs(kr[o + r]))
                sf = max(sf, abs(z[o + r]))
                if free:
                    z[o + 3 + r] += kr[o + 3 + r]
                    dx = max(dx, abs(kr[o + 3 + r]))
                    sx = max(sx, abs(z[o + 3 + r]))
    dn, sn = kernels.add_update(sc.nu, rhs, sc.nu.shape[0])
    return max(kernels.scaled_update(df / h, sf / h), kernels.scaled_update(dx / h, sx / h),
               kernels.scaled_update(dn, sn))


@njit(cache=True, inline="always")
def _position_stage(rd, sc, q_start, h, tol, max_iter, schur, kl, kl_piv, length) -> tuple:
    """Newton on seed eqs. 11, 13 and Phi(q_{n+1}) = 0 (module docstring) from the predictor in z, nu, with their
    terms without the multiplier, b = (h P_rot, h P_tr + (h^2/2) m grav), fixed. Returns (status, Newton code,
    iterations, kl); kl becomes kl_piv should the block LU break down."""
    rigid.constraint_residual(rd, q_start, sc.phi0)
    mass, grav, pinned, v_off, b, P, z = rd.mass, rd.gravity, rd.pinned, rd.v_off, sc.b, sc.P, sc.z
    brot = btr = 0.0
    for i in range(mass.shape[0]):
        o = v_off[i]
        if pinned[i]:
            # h Pi_k + (h^2/2) M_k with gravity's moment M_k about the pivot (docs/algorithms.md section 3)
            m0, m1, m2 = rigid.gravity_moment(rd, q_start, i)
            b[o] = h * P[o] + 0.5 * h * h * m0
            b[o + 1] = h * P[o + 1] + 0.5 * h * h * m1
            b[o + 2] = h * P[o + 2] + 0.5 * h * h * m2
            for r in range(3):
                brot = max(brot, abs(b[o + r]))
            continue
        for r in range(3):
            b[o + r] = h * P[o + r]
            b[o + 3 + r] = h * P[o + 3 + r] + 0.5 * h * h * mass[i] * grav[r]
            brot = max(brot, abs(b[o + r]))
            btr = max(btr, abs(b[o + 3 + r]))
    status = kernels.NEWTON
    prev = np.inf
    code = kernels.CONTINUE
    restarted = False
    fresh = True  # the Newton matrix is evaluated at this iterate (simplified Newton: kept while it contracts)
    blocks = schur
    it = 0
    while it < max_iter:
        it += 1
        resid = _residual(rd, sc, q_start, fresh, brot, btr, length)
        sc.res[0] = resid
        if not np.isfinite(resid):
            break
        if fresh:
            joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.q1, sc.G1)
            blocks = schur
            for i in range(mass.shape[0]):
                if blocks and not inv3_into_inline(sc.Hrot[i], sc.Ainv[i], 1e-10):
                    blocks = False
        if blocks:
            if not _schur_step(rd, sc, kl, fresh):
                if kl != kl_piv:  # a singular diagonal block in the block LU: partial pivoting from here on
                    kl = kl_piv
                    it -= 1
                    continue
                status = kernels.SINGULAR
                break
        elif not _full_step(rd, sc, q_start):
            status = kernels.DOMAIN if schur else kernels.SINGULAR  # every J_i regular: at the fold
            break
        err = _update(rd, sc, blocks, h)
        if not np.isfinite(err):
            break
        code = kernels.newton_test(err, prev, it, tol)
        if code != kernels.CONTINUE:
            # Lee's map f -> g folds where dg/df turns singular (|f| = pi/2 for J = I): a root past the fold
            # is not the step's rotation. Restart once from f = 0 (whose Newton step is J^-1 (h Pi + ...));
            # a second such root, or none, means the step is too large (docs/methods.md)
            status = kernels.OK
            for i in range(mass.shape[0]):
                if not fresh:  # the blocks are an earlier iterate's: dg/df at this one
                    o = v_off[i]
                    a1, a2, _a3, b1, b2 = lee.coefs(z[o] * z[o] + z[o + 1] * z[o + 1] + z[o + 2] * z[o + 2])
                    _dg_df(rd.inertia, i, z[o], z[o + 1], z[o + 2], a1, a2, b1, b2, sc.Hrot)
                if lee.det3(sc.Hrot[i]) <= 0.0 < lee.det3(rd.inertia[i]):
                    status = kernels.DOMAIN
            if status == kernels.OK or restarted:
                break
            restarted = True
            status = kernels.NEWTON
            for i in range(mass.shape[0]):
                for r in range(3):
                    z[v_off[i] + r] = 0.0
            prev = np.inf
            fresh = True
            continue
        # simplified Newton: the next iteration keeps this Newton matrix while the iterate moves little from
        # where it was evaluated (the update is then O(|update| |previous update|), nearly Newton's) and the
        # iteration contracts (kernels.REFRESH); else a fresh one (large steps: Newton's iteration counts)
        fresh = not blocks or err > _KEEP_BELOW or err > kernels.REFRESH * prev
        prev = err
    return status, code, it, kl


@njit(cache=True, inline="always")
def _set_configuration(rd, y, q) -> None:
    """The configuration part of y from q: R, and x (a pinned body has rotational parts only, seed 004 eq. 68)."""
    for i in range(rd.mass.shape[0]):
        o = rd.y_off[i]
        for r in range(9 if rd.pinned[i] else 12):
            y[o + r] = q[o + r]


@njit(cache=True, inline="always")
def _velocity_stage(rd, y, sc, schur, klv) -> bool:
    """DH at k + 1: M w + B(q_{n+1})^T nu' = p^-_{n+1}, B(q_{n+1}) w = 0 (Schur complement B M^-1 B^T, or the full
    matrix if some J_i is singular); q_{n+1} into y, its joint blocks into G0 (next B(q_n)). False if singular."""
    nv, nm, w, kr = sc.w.shape[0], sc.nu.shape[0], sc.w, sc.kr
    joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.q1, sc.G1)
    if schur:
        ok = joints.project_momentum(sc.S, klv, sc.piv, sc.rhs, sc.G1, sc.Jinv, rd.mass, rd.pinned, rd.v_off,
                                     sc.ninc, sc.incj, sc.incs, sc.V, sc.pm, w)
    else:
        joints.constraint_jacobian_inline(rd, sc.q1, sc.Bd1)
        for r in range(nm):
            sc.rhs[r] = 0.0
        ok = joints.full_solve_inline(nv, nm, rd.inertia, rd.mass, sc.Bd1, sc.Bd1, sc.pm, sc.rhs, sc.K, kr,
                                      rd.pinned, rd.v_off)
        for r in range(nv):
            w[r] = kr[r]
    if not ok:
        return False
    _set_configuration(rd, y, sc.q1)
    for kk in range(rd.joint_bodies.shape[0]):
        for sd in range(2):
            for r in range(3):
                for c in range(3):
                    sc.G0[kk, sd, r, c] = sc.G1[kk, sd, r, c]
    return True


@njit(cache=True, inline="always")
def _report_momentum(rd, y, sc, qp, pp, h) -> None:
    """DL: lambda_{k+1} is known: report p_{k+1} = p^-_{k+1} - B(q_{k+1})^T nu / (2h) (w = M^-1 p) at the pending
    node, which goes into y; node k + 2 becomes pending."""
    P, w, Jinv, sc_ = sc.P, sc.w, sc.Jinv, 0.5 / h
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        im = 1.0 / rd.mass[i]
        c0, c1, c2 = joints.bt_rot(sc.G0, sc.ninc, sc.incj, sc.incs, i, sc.nu, -sc_, P[o], P[o + 1], P[o + 2])
        if not rd.pinned[i]:
            for r in range(3):
                P[o + 3 + r] *= im
            joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, sc.nu, -sc_ * im, P)
        for r in range(3):
            w[o + r] = Jinv[i, r, 0] * c0 + Jinv[i, r, 1] * c1 + Jinv[i, r, 2] * c2
            if not rd.pinned[i]:
                w[o + 3 + r] = P[o + 3 + r]
    _set_configuration(rd, y, qp)
    for r in range(qp.shape[0]):
        qp[r] = sc.q1[r]
    for r in range(pp.shape[0]):
        pp[r] = sc.pm[r]


@njit(cache=True, inline="always")
def _step(rd, y, sc, mem, qp, pp, t_start, h, k, k0, s, first, project, tol, max_iter, schur, kl, kl_piv, klv,
          length, maxima, info) -> tuple:
    """One position stage from node k (DH; DL's first step, s < 0) or the pending node k + 1 (DL), then the velocity
    at k + 1 (_velocity_stage, _report_momentum). Returns (status, kl); a failure's time (and residual) is in info."""
    if project or s < 0:
        # from the saved node k with its momentum p_k = M w_k; the multiplier enters with weight 1/2
        t = t_start + max(k, k0) * h
        q_start = y
        rigid.get_velocity(rd, y, sc.w)
        rigid.mass_times(rd, sc.w, sc.P)
        scale = 0.5 * h * h
    else:
        # DL: from the pending node k + 1 with p^-_{k+1}; the multiplier lambda_{k+1} enters fully (nu = h^2 lambda)
        t = t_start + (k + 1) * h
        q_start = qp
        for r in range(pp.shape[0]):
            sc.P[r] = pp[r]
        scale = h * h
    _predict(rd, sc, mem, scale)
    if not project or s == first:  # DH: B(q_n) is the velocity stage's B(q_{n+1}) of the step before
        joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, q_start, sc.G0)
    status, code, it, kl = _position_stage(rd, sc, q_start, h, tol, max_iter, schur, kl, kl_piv, length)
    kernels.newton_done(code if status == kernels.OK else kernels.CONTINUE, it, maxima)
    if status != kernels.OK:
        kernels.fail(info, t, sc.res[0], it)
        return status, kl
    _remember(rd, sc, mem, scale)
    lee.finish(rd, q_start, sc.z, h, sc.q1, sc.pm)
    if s < 0:  # DL: q_{n+1} and p^-_{n+1} become the pending node
        for r in range(qp.shape[0]):
            qp[r] = sc.q1[r]
        for r in range(pp.shape[0]):
            pp[r] = sc.pm[r]
    elif project:
        if not _velocity_stage(rd, y, sc, schur, klv):
            info[kernels.INFO_TIME] = t + h
            return kernels.SINGULAR, kl
    else:
        _report_momentum(rd, y, sc, qp, pp, h)
    return kernels.OK, kl


@njit(cache=True, inline="always")
def _record_step(rd, y, sc, w_older, w_old, t_start, h, k, samples, n_saved, maxima, ref, stride, last, info):
    """The reported velocity into y, the diagnostics at node k + 1 (the acceleration differenced from the last
    three velocities) and their record. Returns n_saved, or -1 if the state is not finite."""
    rigid.set_velocity(rd, y, sc.w)
    if not kernels.state_ok_inline(y):
        info[kernels.INFO_TIME] = t_start + (k + 1) * h
        return -1
    rigid.difference_acceleration(rd, w_older, w_old, sc.w, h, k + 1, sc.acc)
    for r in range(w_old.shape[0]):
        w_older[r] = w_old[r]
        w_old[r] = sc.w[r]
    rigid.diagnostics_inline(rd, y, sc.acc, sc.diag)
    return kernels.record_inline(samples, n_saved, maxima, ref, t_start + (k + 1) * h, y, sc.diag, k + 1, stride,
                                 last)


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """LGVI kernel (contract in solvers.kernels). opts = [newton_tol, newton_max_iter, project (1 DH, 0 DL)];
    work (_work_fields) = [n_hist, f1, f2, dx1, dx2, lam1, lam2 (the predictor's history: the last two steps' f,
    x_{n+1} - x_n and lambda), w_older, w_old (velocities of the acceleration diagnostic), q_pend, p_pend (DL's
    pending node and its p^-)]. Each step is _step, then _record_step.

    DH: each step solves the step from the saved node k and projects the velocity at k + 1. DL: the
    pending node k + 1 (configuration and p^-) is in ``work``; each step solves the step from k + 1, which
    fixes lambda_{k+1} and so the reported momentum at k + 1 (module docstring), and makes k + 2 pending.
    """
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    rd = kernels.borrowed(data[0])
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    nb, nv, nm, ny = rd.mass.shape[0], rigid.n_velocity(rd), 3 * rd.joint_bodies.shape[0], y.shape[0]
    tol, max_iter, project = opts[O_TOL], int(opts[O_MAX_ITER]), opts[O_PROJECT] > 0.5
    n_hist, f1, f2, dx1, dx2, lam1, lam2, w_older, w_old, qp, pp = kernels.carve(work, _work_fields(nb, nm))
    w_older, w_old, qp, pp = w_older[:nv], w_old[:nv], qp[:ny], pp[:nv]  # pinned bodies have fewer entries
    mem = (n_hist, f1, f2, dx1, dx2, lam1, lam2)
    # the Schur complements are block-tridiagonal on a chain (joints.band_of): block storage and block LU, O(N) per
    # solve (joints.schur_storage_spd); band or dense storage otherwise, and for the Newton matrix should its block LU
    # break down (it is not symmetric: no pivoting is safe only while it stays close to B M^-1 B^T)
    band = joints.topology_of(rd)[3]
    kl, width = joints.schur_storage_spd(nm, band)
    klv = kl  # the velocity stage's: symmetric positive definite
    kl_piv, width_piv = joints.schur_storage(nm, band)
    own = _scratch(rd, ny, max(width, width_piv))
    sc = kernels.borrowed(own)  # the scratch without reference counting; ``own`` keeps it alive (kernels.borrowed)
    # block elimination needs every J_i (and the Newton blocks A_i ~ J_i) well conditioned; else full LU
    schur = True
    for i in range(nb):
        if not inv3_into(rd.inertia[i], sc.Jinv[i], 1e-8):
            schur = False
    length = 0.0  # scales Phi in the residual: the largest joint-point coordinate
    for v in rd.joint_points.ravel():
        length = max(length, abs(v))
    length = 1.0 if length == 0.0 else length
    if k0 == 0:
        saved = (_record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, sc, mem, w_older, w_old,
                                 t_start) if project or schur else -1)  # DL needs every J_i invertible (w = M^-1 p)
        if saved < 0:
            info[kernels.INFO_TIME] = t_start
            return 0, kernels.SINGULAR, n_saved
        n_saved = saved
    # s = -1 (DL only, first call): the step from node 0 with the given p_0, which makes node 1 pending
    first = -1 if (k0 == 0 and not project) else 0
    for s in range(first, n_steps):
        k = k0 + s
        status, kl = _step(rd, y, sc, mem, qp, pp, t_start, h, k, k0, s, first, project, tol, max_iter, schur, kl,
                           kl_piv, klv, length, maxima, info)
        if status != kernels.OK:
            return max(s, 0), status, n_saved
        if s < 0:
            continue
        saved = _record_step(rd, y, sc, w_older, w_old, t_start, h, k, samples, n_saved, maxima, ref, stride, last,
                             info)
        if saved < 0:
            return s, kernels.NONFINITE, n_saved
        n_saved = saved
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def _pack(project: bool):
    def pack(o: dict[str, Any]) -> np.ndarray:
        """Kernel option array: [newton_tol, newton_max_iter, project]."""
        return np.array([o["newton_tol"], float(o["newton_max_iter"]), 1.0 if project else 0.0])

    return pack


def work_size(model) -> int:
    """Predictor history, two velocity vectors, and DL's pending node (_work_fields)."""
    return sum(_work_fields.py_func(model.data.mass.shape[0], 3 * model.data.joint_bodies.shape[0]))


_DOMAIN_MESSAGE = (
    "Lee's implicit equation for the step rotation has no solution on its principal branch here: "
    "|h Pi + h^2/2 M| is beyond the range of f -> g (for J = I its bound is 1, i.e. about h |Omega| < 1); "
    "use a smaller step"
)

METHOD = Method(
    id="lgvi",
    title="Lie group variational integrator, Hamiltonian form (seed 000 'DH')",
    seed="000",
    order=2,
    description=(
        "Lee's Lie group variational integrator in the general discrete form (seed 000 eqs. 11-14): "
        "R_{n+1} = R_n exp(f) with f from Lee's implicit equation, Stormer-Verlet translations, a multiplier for "
        "the position constraints and a second one (RATTLE-style) for the velocity constraints. Both constraint "
        "levels hold to round-off, R stays orthogonal, energy error bounded, momentum preserved."
    ),
    kernel=advance,
    machineries=("rigid",),
    options=dict(NEWTON_OPTIONS),
    pack=_pack(True),
    work_size=work_size,
    properties=("implicit", "symplectic", "symmetric", "variational", "Lie group",
                "constraints at position and velocity level"),
    domain_message=_DOMAIN_MESSAGE,
)

METHOD_LAGRANGIAN = Method(
    id="lgvi_lagrangian",
    title="Lie group variational integrator, discrete Euler-Lagrange form (seed 000 'DL')",
    seed="000",
    order=2,
    description=(
        "The same Lie group variational integrator without the velocity-constraint multiplier (seed 000 'DL', "
        "Fig. 7): one multiplier per node, velocities from the discrete Legendre transform, which is computed one "
        "step ahead. Positions identical to 'lgvi'; the velocity constraint is violated at O(h^2)."
    ),
    kernel=advance,
    machineries=("rigid",),
    options=dict(NEWTON_OPTIONS),
    pack=_pack(False),
    work_size=work_size,
    properties=("implicit", "symplectic", "symmetric", "variational", "Lie group", "position constraints only"),
    domain_message=_DOMAIN_MESSAGE,
)
