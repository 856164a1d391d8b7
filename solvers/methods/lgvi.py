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

from typing import Any

import numpy as np
from numba import njit

from .. import kernels
from ..linalg import inv3_into, inv3_into_inline
from ..models import joints, rigid, rigid_dae
from . import lgvi_map as lee
from .base import NEWTON_OPTIONS, Method

BODY = rigid.BODY
# work layout: [hist, f1 (3N), f2 (3N), dx1 (3N), dx2 (3N), lam1 (3K), lam2 (3K), w_older (6N), w_old (6N),
#               pending state (18N, DL), pending momentum (6N, DL)]; _offsets gives each field's start
_HIST = 0  # the steps in the predictor history (0, 1, 2)
_HEAD = 1
_KEEP_BELOW = 1e-3  # simplified Newton: the Newton matrix is kept after updates below this (scaled)


# the option array's slots, in the order pack writes them
O_TOL, O_MAX_ITER, O_PROJECT = range(3)


@njit(cache=True)
def _offsets(nb: int, nm: int) -> tuple:
    """Offsets of the work array's fields (see the layout above)."""
    o_f1 = _HEAD
    o_f2 = o_f1 + 3 * nb
    o_x1 = o_f2 + 3 * nb
    o_x2 = o_x1 + 3 * nb
    o_l1 = o_x2 + 3 * nb
    o_l2 = o_l1 + nm
    o_wo = o_l2 + nm
    o_w = o_wo + 6 * nb
    o_q = o_w + 6 * nb
    o_p = o_q + BODY * nb
    end = o_p + 6 * nb
    return o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, o_wo, o_w, o_q, o_p, end


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


@njit(cache=True, inline="always")
def _predict(work, o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, nb, nm, scale, z, nu, pinned, v_off):
    """Guess for the next step: linear extrapolation of the last two steps (the last one if only one)."""
    hist = work[_HIST]
    c1 = 2.0 if hist >= 2.0 else 1.0
    c2 = c1 - 1.0
    for i in range(nb):
        o = v_off[i]
        for r in range(3):
            z[o + r] = c1 * work[o_f1 + 3 * i + r] - c2 * work[o_f2 + 3 * i + r]
            if not pinned[i]:
                z[o + 3 + r] = c1 * work[o_x1 + 3 * i + r] - c2 * work[o_x2 + 3 * i + r]
    for r in range(nm):
        nu[r] = scale * (c1 * work[o_l1 + r] - c2 * work[o_l2 + r])


@njit(cache=True, inline="always")
def _remember(work, o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, nb, nm, scale, z, nu, pinned, v_off):
    """Shift the predictor history and store this step's f, dx and multiplier lambda = nu / scale."""
    for i in range(nb):
        o = v_off[i]
        for r in range(3):
            work[o_f2 + 3 * i + r] = work[o_f1 + 3 * i + r]
            work[o_f1 + 3 * i + r] = z[o + r]
            if not pinned[i]:
                work[o_x2 + 3 * i + r] = work[o_x1 + 3 * i + r]
                work[o_x1 + 3 * i + r] = z[o + 3 + r]
    for r in range(nm):
        work[o_l2 + r] = work[o_l1 + r]
        work[o_l1 + r] = nu[r] / scale
    work[_HIST] = min(work[_HIST] + 1.0, 2.0)


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """LGVI kernel (contract in solvers.kernels). opts = [newton_tol, newton_max_iter, project (1 DH, 0 DL)].

    DH: each iteration solves the step from the saved node k and projects the velocity at k + 1. DL: the
    pending node k + 1 (configuration and p^-) is in ``work``; each iteration solves the step from k + 1, which
    fixes lambda_{k+1} and so the reported momentum at k + 1 (module docstring), and makes k + 2 pending.
    """
    # the arguments outlive the call: their borrowed forms cost no reference counting (kernels.borrowed)
    rd = kernels.borrowed(data[0])
    y, work, samples, maxima, ref, info = kernels.borrowed((y, work, samples, maxima, ref, info))
    mass, inertia, grav, jb, jp = rd.mass, rd.inertia, rd.gravity, rd.joint_bodies, rd.joint_points
    pinned, y_off, v_off = rd.pinned, rd.y_off, rd.v_off  # pinned bodies: rotational parts only (seed 004 eq. 68)
    nb = mass.shape[0]
    nj = jb.shape[0]
    nv = rigid.n_velocity(rd)
    nm = 3 * nj
    ny = y.shape[0]
    tol = opts[O_TOL]
    max_iter = int(opts[O_MAX_ITER])
    project = opts[O_PROJECT] > 0.5
    o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, o_wo, o_w, o_q, o_p, _end = _offsets(nb, nm)
    w_older = work[o_wo : o_wo + nv]
    w_old = work[o_w : o_w + nv]
    qp = work[o_q : o_q + ny]
    pp = work[o_p : o_p + nv]

    # scratch, allocated once per call
    # block elimination needs every J_i (and the Newton blocks A_i ~ J_i) well conditioned; else full LU
    Jinv = np.empty((nb, 3, 3))
    schur = True
    for i in range(nb):
        if not inv3_into(inertia[i], Jinv[i], 1e-8):
            schur = False
    # per body, the joint sides that touch it; local copies (measured faster than views)
    ninc, incj, incs, band = joints.topology_of(rd)
    ninc, incj, incs = ninc.copy(), incj.copy(), incs.copy()
    length = 0.0
    for k in range(nj):
        for s_ in range(2):
            for r in range(3):
                length = max(length, abs(jp[k, s_, r]))
    if length == 0.0:
        length = 1.0
    z = np.empty(nv)
    nu = np.empty(nm)
    q1 = np.zeros(ny)
    G0 = np.zeros((max(nj, 1), 2, 3, 3))
    G1 = np.zeros((max(nj, 1), 2, 3, 3))
    Hrot = np.empty((nb, 3, 3))
    Tm = np.empty((nb, 3, 3))
    Ainv = np.empty((nb, 3, 3))
    Wc = np.empty((nb, 3, 3))  # T_i A_i^-1 per body, kept with the Newton matrix (simplified Newton)
    V = np.empty((3, 3))
    r1 = np.empty(nv)
    r2 = np.empty(nm)
    b = np.empty(nv)
    cnu = np.empty(nv)
    rhs = np.empty(nm)
    # the Schur complements are block-tridiagonal on a chain (joints.band_of): block storage and block LU, O(N) per
    # solve (joints.schur_storage_spd); band or dense storage otherwise, and for the Newton matrix should its block LU
    # break down (it is not symmetric: no pivoting is safe only while it stays close to B M^-1 B^T)
    kl, width = joints.schur_storage_spd(nm, band)
    klv = kl  # the velocity stage's: symmetric positive definite
    kl_piv, width_piv = joints.schur_storage(nm, band)
    S = np.empty((max(nm, 1), max(width, width_piv)))
    piv = np.empty(max(nm, 1), dtype=np.int64)
    Bd0 = np.empty((nm, nv))
    Bd1 = np.empty((nm, nv))
    K = np.empty((nv + nm, nv + nm))
    kr = np.empty(nv + nm)
    res = np.zeros(1)
    sico = np.empty((nb, 2))  # sinc1, cosc2 of each body's rotation increment
    phi0 = np.empty(nm)  # Phi at the node the step starts from
    P = np.empty(nv)
    pm = np.empty(nv)
    w = np.empty(nv)
    acc = np.zeros(ny)
    diag = np.empty(kernels.N_DIAG)
    # the scratch in the step loop without reference counting; ``own`` keeps it alive to the end (kernels.borrowed)
    own = (Jinv, ninc, incj, incs, z, nu, q1, G0, G1, Hrot, Tm, Ainv, Wc, V, r1, r2, b, cnu, rhs, S, piv, Bd0,
           Bd1, K, kr, res, sico, phi0, P, pm, w, acc, diag)
    (Jinv, ninc, incj, incs, z, nu, q1, G0, G1, Hrot, Tm, Ainv, Wc, V, r1, r2, b, cnu, rhs, S, piv, Bd0, Bd1, K,
     kr, res, sico, phi0, P, pm, w, acc, diag) = kernels.borrowed(own)
    half = 0.5 * h * h  # nu = half * lambda when the multiplier enters with weight 1/2
    full = h * h  # DL after its first step: nu = h^2 lambda

    if k0 == 0:
        t = t_start
        lam = np.empty(nm)
        acc_l = np.empty(nv)
        if not rigid_dae.initial_acceleration(rd, y, acc_l, lam):
            info[kernels.INFO_TIME] = t
            return 0, kernels.SINGULAR, n_saved
        if not project and not schur:
            info[kernels.INFO_TIME] = t
            return 0, kernels.SINGULAR, n_saved
        rigid.set_velocity(rd, acc, acc_l)
        rigid.diagnostics(rd, y, acc, diag)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, diag, 0, stride, last)
        rigid.get_velocity(rd, y, w)
        for r in range(nv):
            w_old[r] = w[r]
            w_older[r] = w[r]
        # first predictor: Taylor polynomial of the exact motion, f ~ h Omega + h^2/2 dOmega/dt
        for i in range(nb):
            o = v_off[i]
            for r in range(3):
                work[o_f1 + 3 * i + r] = h * w[o + r] + 0.5 * h * h * acc_l[o + r]
                if not pinned[i]:
                    work[o_x1 + 3 * i + r] = h * w[o + 3 + r] + 0.5 * h * h * acc_l[o + 3 + r]
        for r in range(nm):
            work[o_l1 + r] = lam[r]
        work[_HIST] = 0.0

    # s = -1 (DL only, first call): the step from node 0 with the given p_0, which makes node 1 pending
    first = -1 if (k0 == 0 and not project) else 0
    for s in range(first, n_steps):
        k = k0 + s
        if project or s < 0:
            # from the saved node k with its momentum p_k = M w_k; the multiplier enters with weight 1/2
            t = t_start + max(k, k0) * h
            q_start = y
            rigid.get_velocity(rd, y, w)
            rigid.mass_times(rd, w, P)
            scale = half
        else:
            # DL: from the pending node k + 1 with p^-_{k+1}; the multiplier lambda_{k+1} enters fully
            t = t_start + (k + 1) * h
            q_start = qp
            for r in range(nv):
                P[r] = pp[r]
            scale = full
        _predict(work, o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, nb, nm, scale, z, nu, pinned, v_off)
        # ---- position stage: Newton on seed eqs. 11, 13 and Phi(q_{n+1}) = 0 (module docstring) ----
        status = kernels.NEWTON
        if not project or s == first:  # DH: B(q_n) is the velocity stage's B(q_{n+1}) of the step before
            joints.joint_blocks(jb, jp, y_off, q_start, G0)
        rigid.constraint_residual(rd, q_start, phi0)
        brot = 0.0
        btr = 0.0
        for i in range(nb):
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
        prev = np.inf
        code = kernels.CONTINUE
        restarted = False
        fresh = True  # the Newton matrix is evaluated at this iterate (simplified Newton: kept while it contracts)
        blocks = schur
        it = 0
        while it < max_iter:
            it += 1
            # C nu = B(q_n)^T nu, per body
            crot = 0.0
            ctr = 0.0
            for i in range(nb):
                o = v_off[i]
                cnu[o], cnu[o + 1], cnu[o + 2] = joints.bt_rot(G0, ninc, incj, incs, i, nu, 1.0, 0.0, 0.0, 0.0)
                if pinned[i]:
                    continue
                for r in range(3):
                    cnu[o + 3 + r] = 0.0
                joints.bt_tr_add(ninc, incj, incs, i, o, nu, 1.0, cnu)
            # q_{n+1}, residuals r1 (eqs. 11, 13), blocks A_i = dg/df, T_i = T(f_i)
            e_rot = 0.0
            e_tr = 0.0
            for i in range(nb):
                o = v_off[i]
                f0 = z[o]
                f1 = z[o + 1]
                f2 = z[o + 2]
                x2 = f0 * f0 + f1 * f1 + f2 * f2
                a1, a2, a3, b1, b2 = lee.coefs(x2)
                sico[i, 0] = a1
                sico[i, 1] = a2
                # R_{n+1} = R_n exp(hat f), x_{n+1} = x_n + dx (Rodrigues with a1 = sinc1, a2 = cosc2)
                rigid.advance_body(q_start, z, y_off[i], o, not pinned[i], a1, a2, q1)
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
                if not fresh:
                    continue
                _dg_df(inertia, i, f0, f1, f2, a1, a2, b1, b2, Hrot)  # the Newton block A_i = dg/df
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
            joints.constraint_residual_step(rd, q_start, z, sico, phi0, r2)
            e_c = 0.0
            for r in range(nm):
                e_c = max(e_c, abs(r2[r]))
            resid = max(e_rot / max(brot + crot, 1e-300), e_tr / max(btr + ctr, 1e-300), e_c / length)
            res[0] = resid
            if not np.isfinite(resid):
                break
            if fresh:
                joints.joint_blocks(jb, jp, y_off, q1, G1)
                blocks = schur
                for i in range(nb):
                    if blocks and not inv3_into_inline(Hrot[i], Ainv[i], 1e-10):
                        blocks = False
            if blocks:
                # Schur complement on the multipliers: S dnu = r2 - D H^-1 r1, S = D H^-1 C, D = B(q_{n+1}) T
                joints.schur_start(S, rhs, r2, nm, fresh)  # rhs = r2; a fresh S = 0
                for i in range(nb):
                    o = v_off[i]
                    im = 1.0 / mass[i]
                    if fresh:
                        t0, t1, t2 = joints.tangent_times_inverse(Tm, Ainv, i, Wc[i], r1, o)  # Wc_i = T_i A_i^-1
                        joints.schur_add(S, kl, rhs, -1.0, i, o, Wc[i], t0, t1, t2, r1, im, im, G1, G0, ninc, incj,
                                         incs, V)
                    else:
                        t0 = Wc[i, 0, 0] * r1[o] + Wc[i, 0, 1] * r1[o + 1] + Wc[i, 0, 2] * r1[o + 2]
                        t1 = Wc[i, 1, 0] * r1[o] + Wc[i, 1, 1] * r1[o + 1] + Wc[i, 1, 2] * r1[o + 2]
                        t2 = Wc[i, 2, 0] * r1[o] + Wc[i, 2, 1] * r1[o + 1] + Wc[i, 2, 2] * r1[o + 2]
                        joints.schur_rhs_add(rhs, -1.0, i, o, t0, t1, t2, r1, im, G1, ninc, incj, incs)
                if fresh and not joints.schur_factor(S, kl, piv, nm):
                    if kl != kl_piv:  # a singular diagonal block in the block LU: partial pivoting from here on
                        kl = kl_piv
                        it -= 1
                        continue
                    status = kernels.SINGULAR
                    break
                joints.schur_solve(S, kl, piv, rhs, nm)
            else:
                # full saddle-point factorisation (a singular block A_i): B(q_n), B(q_{n+1}) T
                joints.constraint_jacobian_inline(rd, q_start, Bd0)
                joints.constraint_jacobian_inline(rd, q1, Bd1)
                rigid.times_tangent(rd, Bd1, Tm, Bd1)
                for r in range(nv):
                    cnu[r] = -r1[r]
                for r in range(nm):
                    r2[r] = -r2[r]
                if not joints.full_solve_inline(nv, nm, Hrot, mass, Bd0, Bd1, cnu, r2, K, kr, pinned, v_off):
                    status = kernels.DOMAIN if schur else kernels.SINGULAR  # every J_i regular: at the fold
                    break
                for r in range(nm):
                    rhs[r] = kr[nv + r]
            # updates: dz = -H^-1 (r1 + C dnu)
            df = 0.0
            sf = 0.0
            dx = 0.0
            sx = 0.0
            for i in range(nb):
                o = v_off[i]
                free = not pinned[i]
                if blocks:
                    im = 1.0 / mass[i]
                    c0, c1, c2 = joints.bt_rot(G0, ninc, incj, incs, i, rhs, 1.0, r1[o], r1[o + 1], r1[o + 2])
                    if free:
                        for r in range(3):
                            cnu[o + 3 + r] = r1[o + 3 + r]
                        joints.bt_tr_add(ninc, incj, incs, i, o, rhs, 1.0, cnu)
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
            dn, sn = kernels.add_update(nu, rhs, nm)
            # the common test (kernels.newton_test) on the blocks f/h, dx/h (velocity-like, as the other methods'
            # unknowns) and the multipliers
            err = max(kernels.scaled_update(df / h, sf / h), kernels.scaled_update(dx / h, sx / h),
                      kernels.scaled_update(dn, sn))
            if not np.isfinite(err):
                break
            code = kernels.newton_test(err, prev, it, tol)
            if code != kernels.CONTINUE:
                # Lee's map f -> g folds where dg/df turns singular (|f| = pi/2 for J = I): a root past the fold
                # is not the step's rotation. Restart once from f = 0 (whose Newton step is J^-1 (h Pi + ...));
                # a second such root, or none, means the step is too large (docs/methods.md)
                status = kernels.OK
                for i in range(nb):
                    if not fresh:  # the blocks are an earlier iterate's: dg/df at this one
                        o = v_off[i]
                        a1, a2, _a3, b1, b2 = lee.coefs(z[o] * z[o] + z[o + 1] * z[o + 1] + z[o + 2] * z[o + 2])
                        _dg_df(inertia, i, z[o], z[o + 1], z[o + 2], a1, a2, b1, b2, Hrot)
                    if lee.det3(Hrot[i]) <= 0.0 < lee.det3(inertia[i]):
                        status = kernels.DOMAIN
                if status == kernels.OK or restarted:
                    break
                restarted = True
                status = kernels.NEWTON
                for i in range(nb):
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
        kernels.newton_done(code if status == kernels.OK else kernels.CONTINUE, it, maxima)
        if status != kernels.OK:
            kernels.fail(info, t, res[0], it)
            return max(s, 0), status, n_saved
        _remember(work, o_f1, o_f2, o_x1, o_x2, o_l1, o_l2, nb, nm, scale, z, nu, pinned, v_off)
        lee.finish(rd, q_start, z, h, q1, pm)
        if s < 0:
            for r in range(ny):
                qp[r] = q1[r]
            for r in range(nv):
                pp[r] = pm[r]
            continue
        if project:
            # velocity stage at k + 1
            # M w + B(q_{n+1})^T nu' = p^-_{n+1}, B(q_{n+1}) w = 0: Schur complement B M^-1 B^T on the multipliers,
            # or the full saddle-point matrix if some J_i is singular
            joints.joint_blocks(jb, jp, y_off, q1, G1)
            if schur:
                ok = joints.project_momentum(S, klv, piv, rhs, G1, Jinv, mass, pinned, v_off, ninc, incj, incs, V,
                                             pm, w)
            else:
                joints.constraint_jacobian_inline(rd, q1, Bd1)
                for r in range(nm):
                    rhs[r] = 0.0
                ok = joints.full_solve_inline(nv, nm, inertia, mass, Bd1, Bd1, pm, rhs, K, kr, pinned, v_off)
                for r in range(nv):
                    w[r] = kr[r]
            if not ok:
                info[kernels.INFO_TIME] = t + h
                return s, kernels.SINGULAR, n_saved
            for i in range(nb):
                o = y_off[i]
                for r in range(9 if pinned[i] else 12):  # the configuration: R (and x)
                    y[o + r] = q1[o + r]
            for kk in range(nj):
                for sd in range(2):
                    for r in range(3):
                        for c in range(3):
                            G0[kk, sd, r, c] = G1[kk, sd, r, c]
        else:
            # lambda_{k+1} is known: report p_{k+1} = p^-_{k+1} - B(q_{k+1})^T nu / (2h); node k + 2 pending
            sc = 0.5 / h
            for i in range(nb):
                o = v_off[i]
                im = 1.0 / mass[i]
                c0, c1, c2 = joints.bt_rot(G0, ninc, incj, incs, i, nu, -sc, P[o], P[o + 1], P[o + 2])
                if not pinned[i]:
                    for r in range(3):
                        P[o + 3 + r] *= im
                    joints.bt_tr_add(ninc, incj, incs, i, o, nu, -sc * im, P)
                for r in range(3):
                    w[o + r] = Jinv[i, r, 0] * c0 + Jinv[i, r, 1] * c1 + Jinv[i, r, 2] * c2
                    if not pinned[i]:
                        w[o + 3 + r] = P[o + 3 + r]
            for i in range(nb):
                o = y_off[i]
                for r in range(9 if pinned[i] else 12):  # the configuration: R (and x)
                    y[o + r] = qp[o + r]
            for r in range(ny):
                qp[r] = q1[r]
            for r in range(nv):
                pp[r] = pm[r]
        rigid.set_velocity(rd, y, w)
        if not kernels.state_ok_inline(y):
            info[kernels.INFO_TIME] = t_start + (k + 1) * h
            return s, kernels.NONFINITE, n_saved
        rigid.difference_acceleration(rd, w_older, w_old, w, h, k + 1, acc)
        for r in range(nv):
            w_older[r] = w_old[r]
            w_old[r] = w[r]
        rigid.diagnostics_inline(rd, y, acc, diag)
        n_saved = kernels.record_inline(samples, n_saved, maxima, ref, t_start + (k + 1) * h, y, diag, k + 1,
                                        stride, last)
    kernels.keep_alive(own)
    return n_steps, kernels.OK, n_saved


def _pack(project: bool):
    def pack(o: dict[str, Any]) -> np.ndarray:
        """Kernel option array: [newton_tol, newton_max_iter, project]."""
        return np.array([o["newton_tol"], float(o["newton_max_iter"]), 1.0 if project else 0.0])

    return pack


def work_size(model) -> int:
    """Predictor history, two velocity vectors, and DL's pending node (see _offsets)."""
    nb = model.data.mass.shape[0]
    nm = 3 * model.data.joint_bodies.shape[0]
    return int(_offsets(nb, nm)[-1])


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
