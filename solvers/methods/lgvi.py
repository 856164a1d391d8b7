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

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .. import composition, kernels
from ..jit import python_function
from ..linalg import inv3_into, inv3_into_inline
from ..models import joints, rigid, rigid_dae
from . import lgvi_map as lee
from .base import NEWTON_OPTIONS, Method

BODY = rigid.BODY
_KEEP_BELOW = 1e-3  # simplified Newton: the Newton matrix is kept after updates below this (scaled)
_RETRY = -1  # _solve: the block LU broke down, factorise again with partial pivoting

# the option array's slots, in the order pack writes them (O_GAMMA: the first of O_N_SUB step fractions)
O_TOL, O_MAX_ITER, O_PROJECT, O_N_SUB, O_GAMMA = range(5)


@njit(cache=True, inline="always")
def _work_fields(nv: int, nm: int, ny: int) -> tuple:
    """The work array's fields (kernels.carve), between calls of the kernel: the predictor's history length (0, 1,
    2), the position stage's unknowns z = (f, x_{n+1} - x_n) of the last two steps (the velocity layout) and their
    lambda, w_{n-1}, w_n (the acceleration diagnostic), and DL's pending node q_{n+1} and p^-_{n+1}."""
    return 1, nv, nv, nm, nm, nv, nv, ny, nv


class _Scratch(NamedTuple):
    """The LGVI step's arrays, allocated once per kernel call (_scratch), read by name in its parts."""
    z: Any  # the position stage's unknowns: per body f_i (3) and x_{n+1} - x_n (3, free bodies)
    nu: Any  # ... and the scaled multipliers
    q1: Any  # q_{n+1} at the iterate
    Ga: Any  # (K, 2, 3, 3): rotational joint blocks of B(q_n) and B(q_{n+1}), as G0 and G1 by turns
    Gb: Any
    Hrot: Any  # (N, 3, 3): the Newton blocks A_i = dg/df
    Tm: Any  # (N, 3, 3): T(f_i)
    Ainv: Any  # (N, 3, 3): A_i^-1
    Wc: Any  # (N, 3, 3): T_i A_i^-1, kept with the Newton matrix (simplified Newton)
    Jinv: Any  # (N, 3, 3): J_i^-1 (the velocity stage, DL's reported velocity)
    ninc: Any  # per body, the joint sides that touch it (joints.topology_of)
    incj: Any
    incs: Any
    V: Any  # (3, 3)
    r1: Any  # residual of eqs. 11 and 13
    r2: Any  # Phi(q_{n+1})
    b: Any  # h P + (h^2/2) (m g, or gravity's moment of a pinned body): the right-hand side of eqs. 11, 13
    cnu: Any  # B(q_n)^T nu, then the update's right-hand side
    rhs: Any  # the Schur system's right-hand side, then its solution
    S: Any  # the multipliers' Schur complement (block, band or dense storage)
    piv: Any
    Bd0: Any  # the full saddle-point path (a singular block A_i): B(q_n)
    Bd1: Any  # ... B(q_{n+1}) T
    K: Any  # ... its matrix
    kr: Any  # ... its right-hand side, then its solution
    sico: Any  # (N, 2): sinc1, cosc2 of each body's rotation increment
    phi0: Any  # Phi(q_n)
    P: Any  # the momentum the step starts from
    pm: Any  # p^-_{n+1}
    w: Any  # the velocity at the node reported
    acc: Any  # the differenced acceleration (diagnostics)
    d: Any  # one diagnostics row


# inlined into the kernel: the arrays' shapes are then the kernel's own nv, nm and nb, not one value per array
# loaded from a returned tuple, which the step loop kept live and spilled (docs/performance.md, "Instructions per
# step")
@njit(cache=True, inline="always")
def _scratch(rd, ny: int, width: int) -> _Scratch:
    nb = rd.mass.shape[0]
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    nj = max(rd.joint_bodies.shape[0], 1)
    ninc, incj, incs, _ = joints.topology_of(rd)
    # local copies (measured faster than views)
    b33 = (nb, 3, 3)
    return _Scratch(np.empty(nv), np.empty(nm), np.zeros(ny), np.zeros((nj, 2, 3, 3)), np.zeros((nj, 2, 3, 3)),
                    np.empty(b33), np.empty(b33), np.empty(b33), np.empty(b33), np.empty(b33), ninc.copy(),
                    incj.copy(), incs.copy(), np.empty((3, 3)), np.empty(nv), np.empty(nm), np.empty(nv),
                    np.empty(nv), np.empty(nm), np.empty((max(nm, 1), width)), np.empty(max(nm, 1), dtype=np.int64),
                    np.empty((nm, nv)), np.empty((nm, nv)), np.empty((nv + nm, nv + nm)), np.empty(nv + nm),
                    np.empty((nb, 2)), np.empty(nm), np.empty(nv), np.empty(nv), np.empty(nv), np.zeros(ny),
                    np.empty(kernels.N_DIAG))


@njit(cache=True, inline="always")
def _predict(hist, z1, z2, l1, l2, sc: _Scratch, scale: float, hs: float, n_sub: int) -> None:
    """The position stage's starting iterate: linear extrapolation of the last two steps (the last one if only one).
    A composition's sub-steps differ in size and sign: f ~ hs Omega_n, x_{n+1} - x_n ~ hs v_n, lambda the last
    one."""
    z, w, nu = sc.z, sc.w, sc.nu
    if n_sub > 1:
        for r in range(z.shape[0]):
            z[r] = hs * w[r]
        for r in range(nu.shape[0]):
            nu[r] = scale * l1[r]
        return
    c1 = 2.0 if hist[0] >= 2.0 else 1.0
    c2 = c1 - 1.0
    for r in range(z.shape[0]):
        z[r] = c1 * z1[r] - c2 * z2[r]
    for r in range(nu.shape[0]):
        nu[r] = scale * (c1 * l1[r] - c2 * l2[r])


@njit(cache=True, inline="always")
def _remember(hist, z1, z2, l1, l2, sc: _Scratch, scale: float) -> None:
    """Shift the predictor history and store this step's unknowns: f, x_{n+1} - x_n and lambda = nu / scale."""
    for r in range(z1.shape[0]):
        z2[r] = z1[r]
        z1[r] = sc.z[r]
    for r in range(l1.shape[0]):
        l2[r] = l1[r]
        l1[r] = sc.nu[r] / scale
    hist[0] = min(hist[0] + 1.0, 2.0)


@njit(cache=True)
def _record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, sc: _Scratch, w_old, w_older, z1, l1,
                    t) -> int:
    """Diagnostics at t = 0 with the consistent acceleration and multiplier (rigid_dae.initial_acceleration);
    the first predictor, the Taylor polynomial of the exact motion: f ~ h Omega + h^2/2 dOmega/dt, likewise x.
    Returns n_saved, or -1 if the acceleration is singular."""
    nv = rigid.n_velocity(rd)
    lam = np.empty(rigid.n_multipliers(rd))
    acc_l = np.empty(nv)
    if not rigid_dae.initial_acceleration(rd, y, acc_l, lam):
        return -1
    acc = np.zeros(y.shape[0])
    rigid.set_velocity(rd, acc, acc_l)
    rigid.diagnostics(rd, y, acc, sc.d)
    n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, sc.d, 0, stride, last)
    rigid.get_velocity(rd, y, w_old)
    for r in range(nv):
        w_older[r] = w_old[r]
        z1[r] = h * w_old[r] + 0.5 * h * h * acc_l[r]
    for r in range(lam.shape[0]):
        l1[r] = lam[r]
    return n_saved


@njit(cache=True, inline="always")
def _momentum_rhs(rd, q_start, sc: _Scratch, hs: float) -> tuple:
    """b = h P + (h^2/2) m g per free body, h Pi + (h^2/2) M(R_n) (gravity's moment about the pivot, docs/algorithms.md
    section 3) per pinned body: the right-hand sides of eqs. 11 and 13 without the constraint forces. Returns their
    sizes (rotational, translational), the Newton residual's scales."""
    b, P = sc.b, sc.P
    brot = 0.0
    btr = 0.0
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        if rd.pinned[i]:
            m0, m1, m2 = rigid.gravity_moment(rd, q_start, i)
            b[o] = hs * P[o] + 0.5 * hs * hs * m0
            b[o + 1] = hs * P[o + 1] + 0.5 * hs * hs * m1
            b[o + 2] = hs * P[o + 2] + 0.5 * hs * hs * m2
            for r in range(3):
                brot = max(brot, abs(b[o + r]))
            continue
        for r in range(3):
            b[o + r] = hs * P[o + r]
            b[o + 3 + r] = hs * P[o + 3 + r] + 0.5 * hs * hs * rd.mass[i] * rd.gravity[r]
            brot = max(brot, abs(b[o + r]))
            btr = max(btr, abs(b[o + 3 + r]))
    return brot, btr


@njit(cache=True, inline="always")
def _residual(rd, q_start, sc: _Scratch, G0, fresh: bool) -> tuple:
    """At the iterate z: q_{n+1} (Rodrigues), the residual r1 of eqs. 11 and 13 with the constraint forces
    C nu = B(q_n)^T nu, and if ``fresh`` the Newton blocks A_i = dg/df and T(f_i). Returns the sizes of the
    rotational and translational residuals and constraint forces (e_rot, e_tr, c_rot, c_tr)."""
    inertia, v_off, pinned = rd.inertia, rd.v_off, rd.pinned
    z, cnu, r1, b, nu = sc.z, sc.cnu, sc.r1, sc.b, sc.nu
    e_rot = 0.0
    e_tr = 0.0
    crot = 0.0
    ctr = 0.0
    for i in range(rd.mass.shape[0]):
        o = v_off[i]
        cnu[o], cnu[o + 1], cnu[o + 2] = joints.bt_rot(G0, sc.ninc, sc.incj, sc.incs, i, nu, 1.0, 0.0, 0.0, 0.0)
        if not pinned[i]:
            for r in range(3):
                cnu[o + 3 + r] = 0.0
            joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, nu, 1.0, cnu)
    for i in range(rd.mass.shape[0]):
        o = v_off[i]
        f0 = z[o]
        f1 = z[o + 1]
        f2 = z[o + 2]
        x2 = f0 * f0 + f1 * f1 + f2 * f2
        a1, a2, a3, b1, b2 = lee.coefs(x2)
        sc.sico[i, 0] = a1
        sc.sico[i, 1] = a2
        # R_{n+1} = R_n exp(hat f), x_{n+1} = x_n + dx (Rodrigues with a1 = sinc1, a2 = cosc2)
        rigid.advance_body(q_start, z, rd.y_off[i], o, not pinned[i], a1, a2, sc.q1)
        u0 = inertia[i, 0, 0] * f0 + inertia[i, 0, 1] * f1 + inertia[i, 0, 2] * f2
        u1 = inertia[i, 1, 0] * f0 + inertia[i, 1, 1] * f1 + inertia[i, 1, 2] * f2
        u2 = inertia[i, 2, 0] * f0 + inertia[i, 2, 1] * f1 + inertia[i, 2, 2] * f2
        r1[o] = a1 * u0 + a2 * (f1 * u2 - f2 * u1) - b[o] + cnu[o]
        r1[o + 1] = a1 * u1 + a2 * (f2 * u0 - f0 * u2) - b[o + 1] + cnu[o + 1]
        r1[o + 2] = a1 * u2 + a2 * (f0 * u1 - f1 * u0) - b[o + 2] + cnu[o + 2]
        for r in range(3):
            if not pinned[i]:
                r1[o + 3 + r] = rd.mass[i] * z[o + 3 + r] - b[o + 3 + r] + cnu[o + 3 + r]
                e_tr = max(e_tr, abs(r1[o + 3 + r]))
                ctr = max(ctr, abs(cnu[o + 3 + r]))
            e_rot = max(e_rot, abs(r1[o + r]))
            crot = max(crot, abs(cnu[o + r]))
        if fresh:
            lee.dg_df(inertia, i, f0, f1, f2, a1, a2, b1, b2, sc.Hrot)
            lee.tangent(sc.Tm, i, f0, f1, f2, x2, a2, a3)
    return e_rot, e_tr, crot, ctr


@kernels.part
def _solve(rd, q_start, sc: _Scratch, G0, G1, blocks: bool, fresh: bool, kl: int, schur: bool) -> int:
    """The Newton system for the multipliers' update, into rhs: the Schur complement S dnu = r2 - D H^-1 r1 with
    S = D H^-1 C, D = B(q_{n+1}) T (``blocks``), or the full saddle-point matrix (a singular block A_i), whose whole
    solution lands in kr. Returns kernels.OK, _RETRY (the block LU broke down: factorise with pivoting), SINGULAR,
    or DOMAIN (every J_i regular, yet the saddle point is singular: at the fold of Lee's map)."""
    nm = sc.r2.shape[0]
    nv = sc.r1.shape[0]
    r1 = sc.r1
    if blocks:
        joints.schur_start(sc.S, sc.rhs, sc.r2, nm, fresh)  # rhs = r2; a fresh S = 0
        for i in range(rd.mass.shape[0]):
            o = rd.v_off[i]
            im = 1.0 / rd.mass[i]
            Wc = sc.Wc
            if fresh:
                t0, t1, t2 = joints.tangent_times_inverse(sc.Tm, sc.Ainv, i, Wc[i], r1, o)  # Wc_i = T_i A_i^-1
                joints.schur_add(sc.S, kl, sc.rhs, -1.0, i, o, Wc[i], t0, t1, t2, r1, im, im, G1, G0, sc.ninc,
                                 sc.incj, sc.incs, sc.V)
            else:
                t0 = Wc[i, 0, 0] * r1[o] + Wc[i, 0, 1] * r1[o + 1] + Wc[i, 0, 2] * r1[o + 2]
                t1 = Wc[i, 1, 0] * r1[o] + Wc[i, 1, 1] * r1[o + 1] + Wc[i, 1, 2] * r1[o + 2]
                t2 = Wc[i, 2, 0] * r1[o] + Wc[i, 2, 1] * r1[o + 1] + Wc[i, 2, 2] * r1[o + 2]
                joints.schur_rhs_add(sc.rhs, -1.0, i, o, t0, t1, t2, r1, im, G1, sc.ninc, sc.incj, sc.incs)
        if fresh and not joints.schur_factor(sc.S, kl, sc.piv, nm):
            return _RETRY
        joints.schur_solve(sc.S, kl, sc.piv, sc.rhs, nm)
        return kernels.OK
    joints.constraint_jacobian_inline(rd, q_start, sc.Bd0)
    joints.constraint_jacobian_inline(rd, sc.q1, sc.Bd1)
    rigid.times_tangent(rd, sc.Bd1, sc.Tm, sc.Bd1)
    for r in range(nv):
        sc.cnu[r] = -r1[r]
    for r in range(nm):
        sc.r2[r] = -sc.r2[r]
    if not joints.full_solve_inline(nv, nm, sc.Hrot, rd.mass, sc.Bd0, sc.Bd1, sc.cnu, sc.r2, sc.K, sc.kr, rd.pinned,
                                    rd.v_off):
        return kernels.DOMAIN if schur else kernels.SINGULAR
    for r in range(nm):
        sc.rhs[r] = sc.kr[nv + r]
    return kernels.OK


@njit(cache=True, inline="always")
def _update(rd, sc: _Scratch, G0, blocks: bool) -> tuple:
    """z += dz, dz = -H^-1 (r1 + C dnu) (blocks) or the full solution's; returns the update's and the iterate's
    sizes, rotational and translational (df, sf, dx, sx)."""
    z, r1, cnu, kr, Ainv = sc.z, sc.r1, sc.cnu, sc.kr, sc.Ainv
    df = 0.0
    sf = 0.0
    dx = 0.0
    sx = 0.0
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        free = not rd.pinned[i]
        if blocks:
            im = 1.0 / rd.mass[i]
            c0, c1, c2 = joints.bt_rot(G0, sc.ninc, sc.incj, sc.incs, i, sc.rhs, 1.0, r1[o], r1[o + 1], r1[o + 2])
            if free:
                for r in range(3):
                    cnu[o + 3 + r] = r1[o + 3 + r]
                joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, sc.rhs, 1.0, cnu)
            for r in range(3):
                dd = -(Ainv[i, r, 0] * c0 + Ainv[i, r, 1] * c1 + Ainv[i, r, 2] * c2)
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
    return df, sf, dx, sx


@njit(cache=True, inline="always")
def _past_the_fold(rd, sc: _Scratch, fresh: bool) -> bool:
    """Lee's map f -> g folds where dg/df turns singular (|f| = pi/2 for J = I): True if some body's converged f
    has det dg/df <= 0 (with det J > 0), a root that is not the step's rotation."""
    z = sc.z
    past = False
    for i in range(rd.mass.shape[0]):
        if not fresh:  # the blocks are an earlier iterate's: dg/df at this one
            o = rd.v_off[i]
            a1, a2, _a3, b1, b2 = lee.coefs(z[o] * z[o] + z[o + 1] * z[o + 1] + z[o + 2] * z[o + 2])
            lee.dg_df(rd.inertia, i, z[o], z[o + 1], z[o + 2], a1, a2, b1, b2, sc.Hrot)
        if lee.det3(sc.Hrot[i]) <= 0.0 < lee.det3(rd.inertia[i]):
            past = True
    return past


@kernels.part
def _position_stage(rd, q_start, sc: _Scratch, G0, G1, hs: float, schur: bool, kl: int, kl_piv: int, tol: float,
                    max_iter: int, length: float) -> tuple:
    """Newton on seed eqs. 11, 13 and Phi(q_{n+1}) = 0 from the predictor in z and nu (module docstring), with
    B(q_n) in G0. Returns (status, newton code, iterations, residual, kl): status SINGULAR or DOMAIN for a singular
    matrix or a root past the fold; kl changes to kl_piv should the block LU break down."""
    nm = sc.nu.shape[0]
    brot, btr = _momentum_rhs(rd, q_start, sc, hs)
    rigid.constraint_residual(rd, q_start, sc.phi0)
    ah = abs(hs)  # f and dx are velocity-like over h, for a sub-step of either sign
    status = kernels.NEWTON
    prev = np.inf
    code = kernels.CONTINUE
    res = np.inf
    restarted = False
    # the Newton matrix is evaluated at this iterate (simplified Newton: kept while it contracts); a run-time bool,
    # not the constant True: numba compiles a part called with a literal once for the literal too (kernels.flag)
    fresh = kernels.flag(True)
    blocks = schur
    it = 0
    while it < max_iter:
        it += 1
        e_rot, e_tr, crot, ctr = _residual(rd, q_start, sc, G0, fresh)
        # Phi(q_{n+1}) from Phi(q_n) and the increment: no round-off floor eps |x| in the residual
        joints.constraint_residual_step(rd, q_start, sc.z, sc.sico, sc.phi0, sc.r2)
        e_c = 0.0
        for r in range(nm):
            e_c = max(e_c, abs(sc.r2[r]))
        res = max(e_rot / max(brot + crot, 1e-300), e_tr / max(btr + ctr, 1e-300), e_c / length)
        if not np.isfinite(res):
            break
        if fresh:
            joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.q1, G1)
            blocks = schur
            for i in range(rd.mass.shape[0]):
                if blocks and not inv3_into_inline(sc.Hrot[i], sc.Ainv[i], 1e-10):
                    blocks = False
        solved = _solve(rd, q_start, sc, G0, G1, blocks, fresh, kl, schur)
        if solved == _RETRY:
            if kl != kl_piv:  # a singular diagonal block in the block LU: partial pivoting from here on
                kl = kl_piv
                it -= 1
                continue
            solved = kernels.SINGULAR
        if solved != kernels.OK:
            return solved, code, it, res, kl
        df, sf, dx, sx = _update(rd, sc, G0, blocks)
        dn, sn = kernels.add_update(sc.nu, sc.rhs, nm)
        # the common test (kernels.newton_test) on the blocks f/h, dx/h (velocity-like, as the other methods'
        # unknowns) and the multipliers
        err = max(kernels.scaled_update(df / ah, sf / ah), kernels.scaled_update(dx / ah, sx / ah),
                  kernels.scaled_update(dn, sn))
        if not np.isfinite(err):
            break
        code = kernels.newton_test(err, prev, it, tol)
        if code != kernels.CONTINUE:
            # a root past the fold: restart once from f = 0 (whose Newton step is J^-1 (h Pi + ...)); a second
            # such root, or none, means the step is too large (docs/methods.md)
            status = kernels.DOMAIN if _past_the_fold(rd, sc, fresh) else kernels.OK
            if status == kernels.OK or restarted:
                break
            restarted = True
            status = kernels.NEWTON
            for i in range(rd.mass.shape[0]):
                for r in range(3):
                    sc.z[rd.v_off[i] + r] = 0.0
            prev = np.inf
            fresh = kernels.flag(True)
            continue
        # simplified Newton: the next iteration keeps this Newton matrix while the iterate moves little from
        # where it was evaluated (the update is then O(|update| |previous update|), nearly Newton's) and the
        # iteration contracts (kernels.REFRESH); else a fresh one (large steps: Newton's iteration counts)
        fresh = not blocks or err > _KEEP_BELOW or err > kernels.REFRESH * prev
        prev = err
    return status, code, it, res, kl


@kernels.part
def _velocity_stage(rd, sc: _Scratch, G1, klv: int, schur: bool) -> bool:
    """DH's velocity stage at q_{n+1}: M w + B(q_{n+1})^T nu' = p^-_{n+1}, B(q_{n+1}) w = 0 (module docstring), by the
    Schur complement B M^-1 B^T, or the full saddle-point matrix if some J_i is singular. False if singular."""
    joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, sc.q1, G1)
    if schur:
        return joints.project_momentum(sc.S, klv, sc.piv, sc.rhs, G1, sc.Jinv, rd.mass, rd.pinned, rd.v_off, sc.ninc,
                                       sc.incj, sc.incs, sc.V, sc.pm, sc.w)
    nv = sc.w.shape[0]
    joints.constraint_jacobian_inline(rd, sc.q1, sc.Bd1)
    for r in range(sc.rhs.shape[0]):
        sc.rhs[r] = 0.0
    ok = joints.full_solve_inline(nv, sc.rhs.shape[0], rd.inertia, rd.mass, sc.Bd1, sc.Bd1, sc.pm, sc.rhs, sc.K,
                                  sc.kr, rd.pinned, rd.v_off)
    for r in range(nv):
        sc.w[r] = sc.kr[r]
    return ok


@njit(cache=True, inline="always")
def _legendre(rd, sc: _Scratch, G0, hs: float) -> None:
    """DL's reported velocity at the pending node, whose lambda the step just solved fixes: p = p^- - B^T nu / (2h),
    w = M^-1 p (module docstring). Overwrites P."""
    P, w = sc.P, sc.w
    c = 0.5 / hs
    for i in range(rd.mass.shape[0]):
        o = rd.v_off[i]
        im = 1.0 / rd.mass[i]
        c0, c1, c2 = joints.bt_rot(G0, sc.ninc, sc.incj, sc.incs, i, sc.nu, -c, P[o], P[o + 1], P[o + 2])
        if not rd.pinned[i]:
            for r in range(3):
                P[o + 3 + r] *= im
            joints.bt_tr_add(sc.ninc, sc.incj, sc.incs, i, o, sc.nu, -c * im, P)
        for r in range(3):
            w[o + r] = sc.Jinv[i, r, 0] * c0 + sc.Jinv[i, r, 1] * c1 + sc.Jinv[i, r, 2] * c2
            if not rd.pinned[i]:
                w[o + 3 + r] = P[o + 3 + r]


@njit(cache=True, inline="always")
def _set_configuration(rd, y, q) -> None:
    """R (and x) of every body from q into y; the velocities stay."""
    for i in range(rd.mass.shape[0]):
        o = rd.y_off[i]
        for r in range(9 if rd.pinned[i] else 12):
            y[o + r] = q[o + r]


@njit(cache=True)  # a call, not inlined: its bool is not a literal in advance (numba would compile the parts twice)
def _invert_inertias(rd, Jinv) -> bool:
    """Jinv[i] = J_i^-1; False if some J_i is singular or ill conditioned. Block elimination needs every J_i (and the
    Newton blocks A_i ~ J_i) well conditioned; else the full saddle-point LU."""
    ok = True
    for i in range(rd.mass.shape[0]):
        if not inv3_into(rd.inertia[i], Jinv[i], 1e-8):
            ok = False
    return ok


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """LGVI kernel (contract in solvers.kernels); opts: see pack, work: _work_fields. Each step: _predict,
    _position_stage, _remember, lgvi_map.finish, then DH's _velocity_stage or DL's _legendre; DH's steps are n_sub
    sub-steps (one without composition).

    DH: each step starts from the saved node k and projects the velocity at k + 1. DL: the pending node k + 1
    (configuration and p^-) is in ``work``; each step solves the step from k + 1, which fixes lambda_{k+1} and so
    the reported momentum at k + 1 (module docstring), and makes k + 2 pending.
    """
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    rd = kernels.borrowed(data[0])
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    ny = y.shape[0]
    nv = rigid.n_velocity(rd)
    nm = rigid.n_multipliers(rd)
    hist, z1, z2, l1, l2, w_older, w_old, qp, pp = kernels.carve(work, _work_fields(nv, nm, ny))
    project = opts[O_PROJECT] > 0.5
    n_sub = int(opts[O_N_SUB])  # sub-steps of a composition (solvers.composition); 1: the method itself
    tol = opts[O_TOL]
    max_iter = int(opts[O_MAX_ITER])
    kl, kl_piv, width = joints.schur_layouts(rd)  # the Newton matrix's; block LU on a chain
    klv = kl  # the velocity stage's: symmetric positive definite
    own = _scratch(rd, ny, width)
    sc = kernels.borrowed(own)  # the scratch without reference counting; ``own`` keeps it alive (kernels.borrowed)
    G0, G1 = sc.Ga, sc.Gb  # rotational joint blocks of B(q_n) and B(q_{n+1}), swapped after a DH step
    schur = _invert_inertias(rd, sc.Jinv)
    length = joints.joint_length(rd)
    if k0 == 0:
        if not project and not schur:  # DL reports w = M^-1 p: every J_i invertible
            info[kernels.INFO_TIME] = t_start
            return 0, kernels.SINGULAR, n_saved
        n_saved = _record_initial(rd, y, h, stride, last, samples, n_saved, maxima, ref, sc, w_old, w_older, z1, l1,
                                  t_start)
        if n_saved < 0:
            info[kernels.INFO_TIME] = t_start
            return 0, kernels.SINGULAR, 0
        hist[0] = 0.0
    # s = -1 (DL only, first call): the step from node 0 with the given p_0, which makes node 1 pending
    first = -1 if (k0 == 0 and not project) else 0
    for s in range(first, n_steps):
        k = k0 + s
        for j in range(n_sub):
            # h itself without composition rather than h * 1.0 read from opts (fewer instructions a step, measured:
            # docs/performance.md)
            hs = h if n_sub == 1 else h * opts[O_GAMMA + j]
            if project or s < 0:
                # from the saved node k with its momentum p_k = M w_k; the multiplier enters with weight 1/2
                t = t_start + max(k, k0) * h
                q_start = y
                rigid.get_velocity(rd, y, sc.w)
                rigid.mass_times(rd, sc.w, sc.P)
                scale = 0.5 * hs * hs
            else:
                # DL: from the pending node k + 1 with p^-_{k+1}; the multiplier lambda_{k+1} enters fully
                t = t_start + (k + 1) * h
                q_start = qp
                for r in range(nv):
                    sc.P[r] = pp[r]
                scale = hs * hs
            _predict(hist, z1, z2, l1, l2, sc, scale, hs, n_sub)
            if not project or (s == first and j == 0):  # DH: B(q_n) is the last velocity stage's B(q_{n+1})
                joints.joint_blocks(rd.joint_bodies, rd.joint_points, rd.y_off, q_start, G0)
            status, code, it, res, kl = _position_stage(rd, q_start, sc, G0, G1, hs, schur, kl, kl_piv, tol,
                                                        max_iter, length)
            kernels.newton_done(code if status == kernels.OK else kernels.CONTINUE, it, maxima)
            if status != kernels.OK:
                kernels.fail(info, t, res, it)
                return max(s, 0), status, n_saved
            _remember(hist, z1, z2, l1, l2, sc, scale)
            lee.finish(rd, q_start, sc.z, hs, sc.q1, sc.pm)
            if s < 0:
                for r in range(ny):
                    qp[r] = sc.q1[r]
                for r in range(nv):
                    pp[r] = sc.pm[r]
                continue
            if project:
                if not _velocity_stage(rd, sc, G1, klv, schur):
                    info[kernels.INFO_TIME] = t + h
                    return s, kernels.SINGULAR, n_saved
                _set_configuration(rd, y, sc.q1)
                G0, G1 = G1, G0  # B(q_{n+1}) is the next step's B(q_n)
            else:
                _legendre(rd, sc, G0, hs)  # lambda_{k+1} is known: p_{k+1}; node k + 2 pending
                _set_configuration(rd, y, qp)
                for r in range(ny):
                    qp[r] = sc.q1[r]
                for r in range(nv):
                    pp[r] = sc.pm[r]
            rigid.set_velocity(rd, y, sc.w)
        if s < 0:
            continue
        if not kernels.state_ok_inline(y):
            info[kernels.INFO_TIME] = t_start + (k + 1) * h
            return s, kernels.NONFINITE, n_saved
        rigid.difference_acceleration(rd, w_older, w_old, sc.w, h, k + 1, sc.acc)
        for r in range(nv):
            w_older[r] = w_old[r]
            w_old[r] = sc.w[r]
        rigid.diagnostics_inline(rd, y, sc.acc, sc.d)
        n_saved = kernels.record_inline(samples, n_saved, maxima, ref, t_start + (k + 1) * h, y, sc.d, k + 1,
                                        stride, last)
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def _pack(project: bool):
    def pack(o: dict[str, Any]) -> np.ndarray:
        """Kernel option array: [newton_tol, newton_max_iter, project, s, gamma_1..gamma_s] (composition.pack;
        s = 1 unless a composed method, solvers.composition.composed, asks for one)."""
        return np.concatenate(([o["newton_tol"], float(o["newton_max_iter"]), 1.0 if project else 0.0],
                               composition.tail(o)))

    return pack


def work_size(model) -> int:
    data = model.data
    return sum(python_function(_work_fields)(rigid.n_velocity(data), rigid.n_multipliers(data),
                                             int(data.y_off[-1])))


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
    domain_message=(
        "Lee's implicit equation for the step rotation has no solution on its principal branch here: "
        "|h Pi + h^2/2 M| is beyond the range of f -> g (for J = I its bound is 1, i.e. about h |Omega| < 1); "
        "use a smaller step"
    ),
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
    domain_message=(
        "Lee's implicit equation for the step rotation has no solution on its principal branch here: "
        "|h Pi + h^2/2 M| is beyond the range of f -> g (for J = I its bound is 1, i.e. about h |Omega| < 1); "
        "use a smaller step"
    ),
)
