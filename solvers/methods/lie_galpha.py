"""Lie group generalized-alpha: seed 000's comparator "Lie-alpha" (section 3, Figs. 5-7) on the rigid machinery.

References
----------
[BC10]  O. Bruls, A. Cardona, "On the use of Lie group time integrators in multibody dynamics",
        J. Comput. Nonlinear Dynam. 5 (2010) 031002.
[ABC15] M. Arnold, O. Bruls, A. Cardona, "Error analysis of generalized-alpha Lie group time integration methods
        for constrained mechanical systems", Numer. Math. 129 (2015) 149-179 (seed 000 ref. [4]).
[ACB16] M. Arnold, A. Cardona, O. Bruls, "A Lie algebra approach to Lie group time integration of constrained
        systems", in: Structure-preserving Integrators in Nonlinear Structural Dynamics and Flexible Multibody
        Dynamics, CISM 565, Springer (2016) 91-158 (the stabilised index-2 formulation).
[CH93]  J. Chung, G. M. Hulbert, J. Appl. Mech. 60 (1993) 371-375 (the coefficients).

The model (docs/algorithms.md sections 0 and 2): configuration q = (R_i, x_i) in (SO(3) x R^3)^N, Lie-algebra velocity
v = (Omega_i, xdot_i), dq/dt = q hat(v),

    M dv/dt + g(q, v) + B(q)^T lambda = 0,    Phi(q) = 0,
    g = (Omega_i x J_i Omega_i, 0) + grad U(q),   grad U = (0, -m_i g)   (rigid.potential_gradient),

(a pinned body, the heavy top of seed 004 eq. 68, has the rotational block only, J about the pivot and
grad U = -m rho x R^T g, whose stiffness -m hat(rho) hat(R^T g) (rigid.potential_stiffness) joins K_t), i.e.
M dv/dt = hat(v)^T M v - grad U - B^T lambda, the sign convention of rigid.initial_acceleration.

One step ([BC10], [ABC15]; docs/algorithms.md section 2), rho = rho_inf:
    alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1), gamma = 1/2 + alpha_f - alpha_m,
    beta = (gamma + 1/2)^2 / 4                                    ([CH93]; rho = 0.9: 8/19, 9/19, 21/38, 100/361)
    q_{n+1} = q_n exp(h Dq),   Dq = v_n + (1/2 - beta) h a_n + beta h a_{n+1},
    v_{n+1} = v_n + (1 - gamma) h a_n + gamma h a_{n+1},
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} + alpha_f vdot_n,
with the unknowns Dq (so a, v, vdot follow from it) and mu = h lambda_{n+1}. The index-3 variant ("index3")
solves the scaled residual

    r = [ h (M vdot_{n+1} + g(q_{n+1}, v_{n+1})) + B(q_{n+1})^T mu ;  Phi(q_{n+1}) / h ] = 0

by Newton with the exact iteration matrix ([BC10], [ABC15]; scaled as in docs/algorithms.md)

    [[ beta_bar M + (h gamma / beta) C_t + h^2 K_t T(h Dq),  B^T ],
     [ B T(h Dq),                                            0   ]],   beta_bar = (1 - alpha_m)/(beta (1 - alpha_f)),

C_t = d g / d v = blockdiag(hat(Omega) J - hat(J Omega), 0) (exact), K_t = d/dq (B^T lambda) (exact,
rigid.constraint_force_derivative's formula; grad U is constant for centre-of-mass coordinates, so K_t has no
other part), T the SO(3) tangent operator on the rotational blocks (identity on the translational ones).
Nothing is neglected: Newton converges quadratically.

The stabilised index-2 variant ("stab2", [ACB16], GGL-type) adds the hidden constraint B(q_{n+1}) v_{n+1} = 0
with an extra multiplier nu that corrects the configuration only:

    q_{n+1} = q_n exp(h (Dq + B(q_n)^T nu)),   rows [r_1; Phi(q_{n+1})/h; B(q_{n+1}) v_{n+1}],

so both the position and the velocity constraints hold to the Newton tolerance (the index-3 form leaves the
velocity constraint at O(h^2), ~1e-4 at h = 1e-3 like seed 000's Fig. 7). Its Newton matrix adds the columns
[h^2 K_t T B_n^T; B T B_n^T; h Z T B_n^T] for nu and the row [(gamma/beta) B + h Z T, 0, .] with
Z = d/dq (B(q) v) at fixed v (-+R hat(Omega x a) per joint side; exact too).

Starting values (option perturbed_start, default True; [ABC15] and docs/algorithms.md sec. 2 for a_0, our
derivation for v_0): vdot_0, lambda_0 from the saddle-point system [[M, B^T], [B, 0]] [vdot_0; lambda_0] =
[-g; -Z(q_0, v_0)] (rigid.initial_acceleration), and

    a_0 = vdot_0 + (alpha_m - alpha_f) h vddot_0,

so that a_n - vdot(t_n) - (alpha_m - alpha_f) h vddot(t_n) = O(h^2) from the first step on. vddot_0 comes from a
central difference of consistent accelerations along the Taylor expansion of the exact flow:
q(+-d) = q_0 exp(+-d v_0 + d^2/2 vdot_0), v(+-d) = v_0 +- d vdot_0 (errors O(d^3) resp. O(d^2), the latter even
in d so they cancel), vdot(+-d) from two more saddle solves, vddot_0 = (vdot(d) - vdot(-d)) / (2 d) + O(d^2), d = h.

The index-3 form needs one more O(h^2) perturbation, of v_0 in the constraint-normal direction. Its position
update h Dq = h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1}) differs from the exact increment
log(q(t_n)^-1 q(t_{n+1})) = h v + h^2/2 vdot + h^3 (vddot/6 + (Omega x Omega-dot, 0)/12) + O(h^4) by
h^3 (kappa vddot - (Omega x Omega-dot, 0)/12), kappa = (alpha_m - alpha_f)/2 + beta - 1/6 (never 0 for the
Chung-Hulbert coefficients). Phi(q_{n+1}) = 0 absorbs its normal part in the velocities: in steady state
B v_n = -h^2 B (kappa vddot - (Omega x Omega-dot, 0)/12) + O(h^3) (the O(h^2) velocity-constraint violation of the
index-3 form, seed 000 Fig. 7), while a_n stays O(h^2) accurate. Started on the velocity constraint (B v_0 = 0), the
difference excites the double parasitic root -rho_inf of the constraint-normal recursion (beta z^2 +
(1/2 + gamma - 2 beta) z + (1/2 - gamma + beta) = 0, i.e. (z + rho_inf)^2 = 0) and a_n, vdot_n, lambda_n carry
an O(h) transient ~ n rho_inf^n: lambda is then first order in max over the steps, with or without the perturbed
a_0 (measured: slope 0.97 on the general double pendulum). So for "index3" the kernel starts from
v_0 + B^T (B B^T)^-1 b with b = -h^2 B(q_0) (kappa vddot_0 - (Omega_0 x Omega-dot_0, 0)/12) (the t = 0 sample
keeps the given v_0), which removes the transient (slope 2.0). "stab2" enforces B v_n = 0 and absorbs the
mismatch in nu, so it needs only a_0. With perturbed_start = False (a_0 = vdot_0, v_0 unchanged) lambda is first
order for both variants. At rest (both benchmarks' seed states) vddot_0 = 0 and Omega_0 = 0: nothing changes.

Stability (measured; [CG89] for the linear case). In the constraint-normal directions the index-3 recursion has
the double root -rho_inf (the Chung-Hulbert coefficients put both stiff-limit roots there), and a double root moves
by O(sqrt(eps)) under a perturbation eps: the constraint curvature (eps ~ c h) can push it out of the unit disc.
At rho_inf = 1 (double root -1) the index-3 form is unstable: at h = 1e-3 the seed double pendulum fails
after 5.4 s, the general one after 8.6 s (stab2 is fine at rho_inf = 1). Seed 004's pendulum (a pinned body, no
constraints: index3 and stab2 coincide) runs 100 s at the seed's steps 0.05 and 0.1 (docs/methods.md).

[CG89]  A. Cardona, M. Geradin, "Time integration of the equations of motion in mechanism analysis", Comput.
        Struct. 33 (1989) 801-820 (numerical damping is needed for index-3 constrained systems).

Linear algebra (in solvers/methods/lie_galpha_system.py; cost O(N) per Newton iteration on a chain): B enters only
through its 3x3 joint blocks
(joints.joint_blocks: G[k, s] = sign_s R hat(a), translational blocks -sign_s I; Z likewise), and K_t is block
diagonal with rotational blocks only, K_t,i = sum over the joint sides (k, s) of body i of +-hat(a) hat(R_i^T mu_k)
(joints.constraint_force_derivative's formula, + for side i, - for side j; plus h times the gravity moment's
stiffness for a pinned body). The first block A of the iteration matrix is block diagonal (3x3 rotational blocks,
beta_bar m I translational blocks), so each Newton step inverts the 3x3 blocks and solves the Schur complement
S' = D A^-1 C - E on the multipliers, assembled per body from the joint blocks: only joints that share a body are
coupled, so S' is a band matrix (index3: 3K unknowns, half bandwidth joints.band_of, block-tridiagonal on a
chain; stab2: the 6K unknowns (mu_k, nu_k) interleaved per joint, 6x6 blocks per joint pair, half bandwidth
2 band_of + 1), factorised by the banded LU with partial pivoting (S' is not symmetric; joints.schur_storage and
schur_factor: dense storage and elimination when the band covers the matrix, as for the double pendulum).
If a rotational block is ill-conditioned (possible when an inertia about a centre of mass is singular or
indefinite; only the saddle system is then regular) or S' is singular, the full system is written densely from the
same blocks and solved by LU with partial pivoting instead (its n x n matrix allocated only then). Newton stops on
the common kernels.newton_test over the blocks Dq, mu, nu (each block's update below newton_tol (1 + |block|), max
norms; docs/methods.md); it fails after newton_max_iter iterations.

Newton's residual floor: Phi(q_{n+1}) is evaluated from Phi(q_n) and the increment (joints.constraint_residual_step),
mathematically the same function as Phi at q_n exp(h Dq). Evaluated at the absolute positions its round-off is
eps |x|, i.e. eps |x| / h in the scaled residual Phi/h; the inverse Schur complement maps that noise onto the
multipliers with a gain that grows with N (the chain's tension modes, condition ~N^2). On the 64-rod chain (|x| up
to 40 m) the residual sat at ~1e-11 and the mu updates at ~3e-8 after 20 iterations while |mu| = h |lambda| ~ 0.2
in the first steps: above STALL_FACTOR newton_tol, so Newton "failed" at step 3 although Dq had converged to 1e-11.
The increment form has round-off relative to |h Dq|: 2.3 iterations per step there, none stalled.

Newton starts from vdot_{n+1} and lambda_{n+1} extrapolated linearly from the two previous steps (O(h^2) accurate),
so two iterations usually reach the default tolerance.

Work array (persistent across chunks): [vdot_n, a_n (6N each), lambda_n (3K), vdot_{n-1} (6N), lambda_{n-1} (3K),
flag "previous step available"].
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels, lie
from ..jit import python_function
from ..models import dispatch, joints, rigid, rigid_dae
from .base import NEWTON_OPTIONS, Method, Option
from .lie_galpha_system import _dense_solve, _schur_solve, _stab2_joint_terms

BODY = rigid.BODY
VARIANTS = ("index3", "stab2")


# the option array's slots, in the order pack writes them
O_ALPHA_M, O_ALPHA_F, O_GAMMA, O_BETA, O_TOL, O_MAX_ITER, O_STAB2, O_PERTURBED = range(8)


def coefficients(rho_inf: float) -> tuple[float, float, float, float]:
    """(alpha_m, alpha_f, gamma, beta) for the spectral radius at infinity rho_inf in [0, 1] ([CH93], [ABC15])."""
    rho = float(rho_inf)
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"rho_inf = {rho_inf!r} is outside [0, 1]")
    alpha_m = (2.0 * rho - 1.0) / (rho + 1.0)
    alpha_f = rho / (rho + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    beta = 0.25 * (gamma + 0.5) ** 2
    return alpha_m, alpha_f, gamma, beta


# numba-IR inlined form for the Newton loop (a compiled call with array arguments costs atomic reference counting,
# which at N = 2 is comparable to the work; the same operations in the same order)
_joint_blocks = njit(inline="always")(python_function(joints.joint_blocks))


# ---------------------------------------------------------------------------------------------------------------
# kernel helpers (B and Z as 3x3 joint blocks from joints, Phi, exp and T from rigid and lie; K_t per body in advance)
# ---------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _configure_step(rd, y, w, Ts, sc, yn):
    """yn = q exp(w) (R_i exp(hat(w_Omega_i)), x_i + w_v_i; velocities copied from y), Ts[i] = T(w_Omega_i) =
    I - cosc2 W + sinc3 W^2 (lie.tangent_into, without per-body array views), and sc[i] =
    (sinc1, cosc2)(|w_Omega_i|) for joints.constraint_residual_step."""
    pinned, y_off, v_off = rd.pinned, rd.y_off, rd.v_off
    for i in range(pinned.shape[0]):
        c = v_off[i]
        o = y_off[i]
        w0 = w[c]
        w1 = w[c + 1]
        w2 = w[c + 2]
        x = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        sa = lie.sinc1(x)
        cb = lie.cosc2(x)
        sc[i, 0] = sa
        sc[i, 1] = cb
        rigid.advance_body(y, w, o, c, not pinned[i], sa, cb, yn)
        ov = o + (9 if pinned[i] else 12)  # velocities copied
        for r in range(3 if pinned[i] else 6):
            yn[ov + r] = y[ov + r]
        ta = -cb
        tb = lie.sinc3(x)
        d = 1.0 - tb * (w0 * w0 + w1 * w1 + w2 * w2)
        Ts[i, 0, 0] = tb * w0 * w0 + d
        Ts[i, 1, 1] = tb * w1 * w1 + d
        Ts[i, 2, 2] = tb * w2 * w2 + d
        Ts[i, 0, 1] = tb * w0 * w1 - ta * w2
        Ts[i, 0, 2] = tb * w0 * w2 + ta * w1
        Ts[i, 1, 0] = tb * w1 * w0 + ta * w2
        Ts[i, 1, 2] = tb * w1 * w2 - ta * w0
        Ts[i, 2, 0] = tb * w2 * w0 - ta * w1
        Ts[i, 2, 1] = tb * w2 * w1 + ta * w0


@njit(cache=True, inline="always")
def _kinematics(dq, vn, an, vd, bnt, h, c_a, alpha_m, alpha_f, gamma, beta, a1, v1, vd1, w):
    """a_{n+1}, v_{n+1}, vdot_{n+1} from Dq (module docstring, c_a = (1/2 - beta) h) and the increment
    w = h (Dq + B(q_n)^T nu) of q_{n+1} = q_n exp(w)."""
    for p in range(dq.shape[0]):
        a1[p] = (dq[p] - vn[p] - c_a * an[p]) / (beta * h)
        v1[p] = vn[p] + (1.0 - gamma) * h * an[p] + gamma * h * a1[p]
        vd1[p] = ((1.0 - alpha_m) * a1[p] + alpha_m * an[p] - alpha_f * vd[p]) / (1.0 - alpha_f)
        w[p] = h * (dq[p] + bnt[p])


@njit(cache=True)
def _starting_values(rd, y, h, alpha_m, alpha_f, perturbed, vd, a, lam, vtmp, ytmp, vd_p, vd_m, lam_tmp, Ts, w):
    """vdot_0, lambda_0 from the saddle system; a_0 = vdot_0 + (alpha_m - alpha_f) h vddot_0 ([ABC15]).

    vddot_0 by the central difference of consistent accelerations at q_0 exp(+-d v_0 + d^2/2 vdot_0),
    v_0 +- d vdot_0 with d = h (see the module docstring). Returns False if a saddle system is singular.
    """
    nv = vd.shape[0]
    if not rigid_dae.initial_acceleration(rd, y, vd, lam):
        return False
    for r in range(nv):
        a[r] = vd[r]
    if not perturbed:
        return True
    rigid.get_velocity(rd, y, vtmp)
    d = h
    for sgn in range(2):
        s = d if sgn == 0 else -d
        for r in range(nv):
            w[r] = s * vtmp[r] + 0.5 * s * s * vd[r]
        rigid.advance_configuration(rd, y, w, ytmp)
        for r in range(nv):
            w[r] = vtmp[r] + s * vd[r]
        rigid.set_velocity(rd, ytmp, w)
        out = vd_p if sgn == 0 else vd_m
        if not rigid_dae.initial_acceleration(rd, ytmp, out, lam_tmp):
            return False
    for r in range(nv):
        vd_p[r] = (vd_p[r] - vd_m[r]) / (2.0 * d)  # vddot_0
        a[r] = vd[r] + (alpha_m - alpha_f) * h * vd_p[r]
    return True


@njit(cache=True)
def _perturb_velocity(rd, y, h, kappa, vd, vdd):
    """Index-3 starting velocity: v_0 += B^T (B B^T)^-1 b, b = -h^2 B (kappa vddot_0 - (Omega x Omega-dot, 0)/12).

    See the module docstring ("Starting values"); B = B(q_0) in joint blocks, B B^T assembled by joints.schur_add
    with H = I (joints.schur_storage). Returns False if B B^T is singular.
    """
    jb, jp, pinned, y_off, v_off = rd.joint_bodies, rd.joint_points, rd.pinned, rd.y_off, rd.v_off
    ninc, incj, incs, band = joints.topology_of(rd)
    nb = pinned.shape[0]
    nj = jb.shape[0]
    nm = 3 * nj
    if nm == 0:
        return True
    kl, width = joints.schur_storage(nm, band)
    G = np.zeros((nj, 2, 3, 3))
    joints.joint_blocks(jb, jp, y_off, y, G)
    b = np.zeros(nm)
    zero = np.zeros(nm)
    S = np.zeros((nm, width))
    piv = np.empty(nm, dtype=np.int64)
    eye = np.eye(3)
    V = np.empty((3, 3))
    for i in range(nb):
        o = y_off[i] + (9 if pinned[i] else 12)  # Omega
        v = v_off[i]
        W0 = y[o]
        W1 = y[o + 1]
        W2 = y[o + 2]
        c0 = W1 * vd[v + 2] - W2 * vd[v + 1]  # Omega x Omega-dot
        c1 = W2 * vd[v] - W0 * vd[v + 2]
        c2 = W0 * vd[v + 1] - W1 * vd[v]
        for mi in range(ninc[i]):  # b += B (kappa vddot - (Omega x Omega-dot, 0)/12), body i's columns
            k = incj[i, mi]
            sd = incs[i, mi]
            sign = -1.0 if sd == 0 else 1.0
            for r in range(3):
                g0 = G[k, sd, r, 0]
                g1 = G[k, sd, r, 1]
                g2 = G[k, sd, r, 2]
                b[3 * k + r] += kappa * (g0 * vdd[v] + g1 * vdd[v + 1] + g2 * vdd[v + 2] - sign * vdd[v + 3 + r]) \
                    - (g0 * c0 + g1 * c1 + g2 * c2) / 12.0
        joints.schur_add(S, kl, zero, 0.0, i, v, eye, 0.0, 0.0, 0.0, vdd, 0.0, 1.0, G, G, ninc, incj, incs, V)
    for p in range(nm):
        b[p] *= -h * h
    if not joints.schur_factor(S, kl, piv, nm):
        return False
    joints.schur_solve(S, kl, piv, b, nm)
    for i in range(nb):
        if pinned[i]:
            continue  # no joints
        o = y_off[i] + 12  # Omega, v
        c0, c1, c2 = joints.bt_rot(G, ninc, incj, incs, i, b, 1.0, 0.0, 0.0, 0.0)
        y[o] += c0
        y[o + 1] += c1
        y[o + 2] += c2
        joints.bt_tr_add(ninc, incj, incs, i, o, b, 1.0, y)  # v: y[o + 3 : o + 6] += (B^T b)_tr
    return True


@njit(cache=True, inline="always")
def _body_terms(rd, geo, i, h, hg, beta_bar, v1, vd1, yn, mu, G1, Ts, r1, JW, Kb, KTs, Arot, atr):
    """Body i's rows of the residual r_1 = h (M vdot + g) + B^T mu at q_{n+1}, v_{n+1} and its blocks of the
    iteration matrix's first block A: Arot[i] = beta_bar J + (h gamma/beta) (hat(W) J - hat(J W)) + h K_t T (K_t:
    the gravity moment's stiffness for a pinned body, K(mu) = d/dq (B^T mu) otherwise; rotational only) and
    atr[i] = beta_bar m (module docstring). geo: the model's arrays (kernel-borrowed, read only); the arrays written
    are arguments of their own, so that they stay the kernel's (numba drops a write into an array unpacked from a
    tuple in an inlined function when nothing reads it there)."""
    mass, inertia, grav, jp, pinned, com, y_off, v_off, ninc, incj, incs = geo
    o = v_off[i]
    oy = y_off[i]
    W0 = v1[o]
    W1 = v1[o + 1]
    W2 = v1[o + 2]
    for p in range(3):
        JW[p] = inertia[i, p, 0] * W0 + inertia[i, p, 1] * W1 + inertia[i, p, 2] * W2
    gy0 = W1 * JW[2] - W2 * JW[1]
    gy1 = W2 * JW[0] - W0 * JW[2]
    gy2 = W0 * JW[1] - W1 * JW[0]
    gy = (gy0, gy1, gy2)
    for p in range(3):
        for q in range(3):
            Kb[p, q] = 0.0
    if pinned[i]:  # grad U = -(m rho x R^T g) at q_{n+1}
        gm = rigid.gravity_moment(rd, yn, i)
        for p in range(3):
            r1[o + p] = h * (inertia[i, p, 0] * vd1[o] + inertia[i, p, 1] * vd1[o + 1]
                             + inertia[i, p, 2] * vd1[o + 2] + gy[p] - gm[p])
        # + h d(grad U)/dq = h (-m hat(rho) hat(u)) = h m ((rho . u) I - u rho^T), u = R^T g
        u0 = yn[oy] * grav[0] + yn[oy + 3] * grav[1] + yn[oy + 6] * grav[2]
        u1 = yn[oy + 1] * grav[0] + yn[oy + 4] * grav[1] + yn[oy + 7] * grav[2]
        u2 = yn[oy + 2] * grav[0] + yn[oy + 5] * grav[1] + yn[oy + 8] * grav[2]
        ru = com[i, 0] * u0 + com[i, 1] * u1 + com[i, 2] * u2
        uu = (u0, u1, u2)
        for p in range(3):
            for q in range(3):
                Kb[p, q] += h * mass[i] * ((ru if p == q else 0.0) - uu[p] * com[i, q])
    else:
        for p in range(3):
            r1[o + p] = h * (inertia[i, p, 0] * vd1[o] + inertia[i, p, 1] * vd1[o + 1]
                             + inertia[i, p, 2] * vd1[o + 2] + gy[p])
            r1[o + 3 + p] = h * mass[i] * (vd1[o + 3 + p] - grav[p])
        # K(mu) = d/dq (B^T mu)_rot,i = sum over its joint sides +-hat(a) hat(R^T mu_k)
        # (joints.constraint_force_derivative: + for side i, - for side j)
        for mi in range(ninc[i]):
            k = incj[i, mi]
            sd = incs[i, mi]
            sign = 1.0 if sd == 0 else -1.0
            m0 = mu[3 * k]
            m1 = mu[3 * k + 1]
            m2 = mu[3 * k + 2]
            u0 = yn[oy] * m0 + yn[oy + 3] * m1 + yn[oy + 6] * m2  # u = R^T mu_k
            u1 = yn[oy + 1] * m0 + yn[oy + 4] * m1 + yn[oy + 7] * m2
            u2 = yn[oy + 2] * m0 + yn[oy + 5] * m1 + yn[oy + 8] * m2
            uu = (u0, u1, u2)
            au = jp[k, sd, 0] * u0 + jp[k, sd, 1] * u1 + jp[k, sd, 2] * u2
            for p in range(3):  # hat(a) hat(u) = u a^T - (a . u) I
                for q in range(3):
                    Kb[p, q] += sign * (uu[p] * jp[k, sd, q] - (au if p == q else 0.0))
        # + B^T mu
        c0, c1, c2 = joints.bt_rot(G1, ninc, incj, incs, i, mu, 1.0, r1[o], r1[o + 1], r1[o + 2])
        r1[o] = c0
        r1[o + 1] = c1
        r1[o + 2] = c2
        joints.bt_tr_add(ninc, incj, incs, i, o, mu, 1.0, r1)
    # A_rot = beta_bar J + (h gamma/beta) (hat(W) J - hat(J W)) + h K T
    for p in range(3):
        for q in range(3):
            KTs[i, p, q] = Kb[p, 0] * Ts[i, 0, q] + Kb[p, 1] * Ts[i, 1, q] + Kb[p, 2] * Ts[i, 2, q]
    for q in range(3):
        # column q of hat(W) J
        j0 = inertia[i, 0, q]
        j1 = inertia[i, 1, q]
        j2 = inertia[i, 2, q]
        Arot[i, 0, q] = beta_bar * j0 + hg * (W1 * j2 - W2 * j1) + h * KTs[i, 0, q]
        Arot[i, 1, q] = beta_bar * j1 + hg * (W2 * j0 - W0 * j2) + h * KTs[i, 1, q]
        Arot[i, 2, q] = beta_bar * j2 + hg * (W0 * j1 - W1 * j0) + h * KTs[i, 2, q]
    # - hg hat(J W)
    Arot[i, 0, 1] += hg * JW[2]
    Arot[i, 0, 2] -= hg * JW[1]
    Arot[i, 1, 0] -= hg * JW[2]
    Arot[i, 1, 2] += hg * JW[0]
    Arot[i, 2, 0] += hg * JW[1]
    Arot[i, 2, 1] -= hg * JW[0]
    atr[i] = beta_bar * mass[i]


@njit(cache=True, inline="always")
def _max_abs(v, lo, hi):
    s = 0.0
    for i in range(lo, hi):
        x = abs(v[i])
        if x > s:
            s = x
    return s


@njit(cache=True, inline="always")
def _work_fields(nv, nm):
    """The work array's fields (persistent across kernel calls), their sizes in order: vdot_n (nv), a_n (nv),
    lambda_n (nm = 3K), vdot_{n-1} (nv), lambda_{n-1} (nm), the flag "previous step available" (1)."""
    return nv, nv, nm, nv, nm, 1


@njit(cache=True, inline="always")
def _scratch(nb, nj, ny, nv, nm, m, n, width, ninc_max):
    """The step's scratch: vectors vn, dq, a1, v1, vd1, w, bnt (B(q_n)^T nu), mu, nu, yn, acc, d, r1, r2, r3, phi0,
    dmu, dnu, dx, xr, rhs, JW, then per-body or per-joint blocks Ts, sc (sinc1, cosc2 of |h Dq_Omega_i|,
    _configure_step), Kb, KTs, Arot, atr, Ainv, G1 (rotational joint blocks of B(q_{n+1})), Gn (... of B(q_n),
    stab2), Zb (... of Z, stab2), Pm, Qm, Ym, Wx, V, S, piv."""
    g = max(nj, 1)
    return (np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.zeros(nv),
            np.empty(nm), np.zeros(nm), np.empty(ny), np.zeros(ny), np.empty(kernels.N_DIAG), np.empty(nv),
            np.empty(nm), np.zeros(nm), np.empty(nm), np.empty(nm), np.zeros(nm), np.zeros(n), np.empty(nv),
            np.empty(max(m, 1)), np.empty(3), np.empty((nb, 3, 3)), np.empty((nb, 2)), np.empty((3, 3)),
            np.empty((nb, 3, 3)), np.empty((nb, 3, 3)), np.empty(nb), np.empty((nb, 3, 3)), np.zeros((g, 2, 3, 3)),
            np.zeros((g, 2, 3, 3)), np.zeros((g, 2, 3, 3)), np.empty((ninc_max, 6, 3)), np.empty((ninc_max, 3, 3)),
            np.empty((ninc_max, 3, 6)), np.empty((3, 3)), np.empty((3, 3)), np.empty((max(m, 1), width)),
            np.empty(max(m, 1), dtype=np.int64))


@njit(cache=True, inline="always")
def _add_nu(geo, Gn, dx, nv, nu, bnt):
    """stab2: nu += its block of dx, bnt = B(q_n)^T nu; returns nu's scaled update (kernels.newton_test)."""
    _, _, _, _, pinned, _, _, v_off, ninc, incj, incs = geo
    nm = nu.shape[0]
    for p in range(nm):
        nu[p] += dx[nv + nm + p]
    upd = kernels.scaled_update(_max_abs(dx, nv + nm, nv + 2 * nm), _max_abs(nu, 0, nm))
    for i in range(pinned.shape[0]):
        o = v_off[i]
        c0, c1, c2 = joints.bt_rot(Gn, ninc, incj, incs, i, nu, 1.0, 0.0, 0.0, 0.0)
        bnt[o] = c0
        bnt[o + 1] = c1
        bnt[o + 2] = c2
        if not pinned[i]:
            for p in range(3):
                bnt[o + 3 + p] = 0.0
            joints.bt_tr_add(ninc, incj, incs, i, o, nu, 1.0, bnt)
    return upd


@njit(cache=True, inline="always")
def _accept(y, yn, vd, vd_old, vd1, an, a1, lam, lam_old, mu, h):
    """The accepted step: y = q_{n+1}, v_{n+1}; the history vdot, a, lambda moves on one step."""
    for p in range(y.shape[0]):
        y[p] = yn[p]
    for p in range(vd.shape[0]):
        vd_old[p] = vd[p]
        vd[p] = vd1[p]
        an[p] = a1[p]
    for p in range(lam.shape[0]):
        lam_old[p] = lam[p]
        lam[p] = mu[p] / h


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Lie group generalized-alpha kernel (contract in solvers.kernels; formulation in the module docstring).

    opts = [alpha_m, alpha_f, gamma, beta, newton_tol, newton_max_iter, stab2 (0/1), perturbed_start (0/1)];
    work (_work_fields): vdot_n, a_n (nv each), lambda_n (3K), vdot_{n-1} (nv), lambda_{n-1} (3K), the flag
    "previous step available".
    """
    if kind != dispatch.RIGID:
        info[kernels.INFO_TIME] = t_start + k0 * h
        return 0, kernels.DOMAIN, n_saved
    rd = kernels.borrowed(data[0])  # the argument outlives the call: no reference counting (kernels.borrowed)
    mass, inertia, grav, jb, jp = rd.mass, rd.inertia, rd.gravity, rd.joint_bodies, rd.joint_points
    alpha_m, alpha_f, gamma, beta = opts[O_ALPHA_M], opts[O_ALPHA_F], opts[O_GAMMA], opts[O_BETA]
    tol = opts[O_TOL]
    max_iter = int(opts[O_MAX_ITER])
    stab2 = opts[O_STAB2] > 0.5
    perturbed = opts[O_PERTURBED] > 0.5
    beta_bar = (1.0 - alpha_m) / (beta * (1.0 - alpha_f))
    gb = gamma / beta

    ny = y.shape[0]
    nb = mass.shape[0]
    nj = jb.shape[0]
    # pinned bodies (seed 004 eq. 68): rotational blocks
    pinned, com, y_off, v_off = rd.pinned, rd.com, rd.y_off, rd.v_off
    ninc, incj, incs, band = joints.topology_of(rd)  # per body, the joint sides that touch it (B in 3x3 joint blocks)
    nv = rigid.n_velocity(rd)
    nm = 3 * nj
    m = 2 * nm if stab2 else nm
    n = nv + m
    # the Schur complement's half bandwidth: index3 joints.band_of, stab2 (6x6 blocks per joint pair) 2 band + 1;
    # band storage, or dense when the band covers the matrix (the double pendulum)
    if stab2 and nm > 0:
        band = 2 * band + 1
    kl, width = joints.schur_storage(m, band)
    # the model's arrays for the per-body helpers, read only; borrowed: unpacking them costs no reference counting
    geo = kernels.borrowed((mass, inertia, grav, jp, pinned, com, y_off, v_off, ninc, incj, incs))
    vd, an, lam, vd_old, lam_old, flag = kernels.carve(work, _work_fields(nv, nm))  # persistent state
    # scratch, allocated once per call: O(N) (the dense fallback's matrix only when it is taken; _scratch's order)
    (vn, dq, a1, v1, vd1, w, bnt, mu, nu, yn, acc, d, r1, r2, r3, phi0, dmu, dnu, dx, xr, rhs, JW, Ts, sc, Kb, KTs,
     Arot, atr, Ainv, G1, Gn, Zb, Pm, Qm, Ym, Wx, V, S, piv) = _scratch(nb, nj, ny, nv, nm, m, n, width, incj.shape[1])
    full = np.empty((0, 0))  # the dense fallback's matrix, allocated when first needed

    if k0 == 0 and n_steps > 0:
        t = t_start
        ok = _starting_values(rd, y, h, alpha_m, alpha_f, perturbed, vd, an, lam, vn, yn, vd1, a1, mu, Ts, w)
        if not ok:
            info[kernels.INFO_TIME] = t
            return 0, kernels.SINGULAR, n_saved
        flag[0] = 0.0
        rigid.set_velocity(rd, acc, vd)
        rigid.diagnostics(rd, y, acc, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, last)
        if perturbed and not stab2:
            kappa = 0.5 * (alpha_m - alpha_f) + beta - 1.0 / 6.0
            if not _perturb_velocity(rd, y, h, kappa, vd, vd1):
                info[kernels.INFO_TIME] = t
                return 0, kernels.SINGULAR, n_saved

    c_a = (0.5 - beta) * h
    hg = h * gb
    for s in range(n_steps):
        t = t_start + (k0 + s) * h
        rigid.get_velocity(rd, y, vn)
        for p in range(ny):
            yn[p] = y[p]
        # predictor: vdot_{n+1}, lambda_{n+1} extrapolated linearly (constant at the first step), nu = 0
        ex = 1.0 if flag[0] > 0.5 else 0.0
        for p in range(nv):
            vd_pred = vd[p] + ex * (vd[p] - vd_old[p])
            a_pred = ((1.0 - alpha_f) * vd_pred + alpha_f * vd[p] - alpha_m * an[p]) / (1.0 - alpha_m)
            dq[p] = vn[p] + c_a * an[p] + beta * h * a_pred
        for p in range(nm):
            mu[p] = h * (lam[p] + ex * (lam[p] - lam_old[p]))
            nu[p] = 0.0
        rigid.constraint_residual(rd, y, phi0)  # Phi(q_n): Phi(q_{n+1}) by its increment
        if stab2:
            _joint_blocks(jb, jp, y_off, y, Gn)
            for p in range(nv):
                bnt[p] = 0.0
        code = kernels.CONTINUE
        prev_upd = np.inf
        it = 0
        res = 0.0
        while it < max_iter:
            it += 1
            # kinematics from Dq (and nu)
            _kinematics(dq, vn, an, vd, bnt, h, c_a, alpha_m, alpha_f, gamma, beta, a1, v1, vd1, w)
            _configure_step(rd, y, w, Ts, sc, yn)
            _joint_blocks(jb, jp, y_off, yn, G1)
            # residual r_1 = h (M vdot + g) + B^T mu; blocks A (K_t per body: rotational blocks only)
            for i in range(nb):
                _body_terms(rd, geo, i, h, hg, beta_bar, v1, vd1, yn, mu, G1, Ts, r1, JW, Kb, KTs, Arot, atr)
            # r_2 = Phi(q_{n+1}) / h, r_3 = B(q_{n+1}) v_{n+1} (stab2)
            joints.constraint_residual_step(rd, y, w, sc, phi0, r2)
            for p in range(nm):
                r2[p] *= 1.0 / h
            if stab2:
                _stab2_joint_terms(rd, yn, v1, G1, Zb, r3)
            res = max(_max_abs(r1, 0, nv), max(_max_abs(r2, 0, nm), _max_abs(r3, 0, nm)))
            if not np.isfinite(res):
                break
            if not _schur_solve(rd, kl, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb, r1, r2, r3, Ainv, Wx, V, Pm,
                                Qm, Ym, S, piv, rhs, xr, dmu, dnu, dx):
                if full.shape[0] != n:
                    full = np.empty((n, n))
                if not _dense_solve(full, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb, r1, r2, r3, pinned, v_off,
                                    ninc, incj, incs, dx):
                    info[kernels.INFO_TIME] = t
                    return s, kernels.SINGULAR, n_saved
            for p in range(nv):
                dq[p] += dx[p]
            for p in range(nm):
                mu[p] += dx[nv + p]
            # the common test (kernels.newton_test) on the blocks Dq, mu (and nu)
            upd = max(kernels.scaled_update(_max_abs(dx, 0, nv), _max_abs(dq, 0, nv)),
                      kernels.scaled_update(_max_abs(dx, nv, nv + nm), _max_abs(mu, 0, nm)))
            if stab2:
                upd = max(upd, _add_nu(geo, Gn, dx, nv, nu, bnt))
            code = kernels.newton_test(upd, prev_upd, it, tol)
            if code != kernels.CONTINUE:
                break
            prev_upd = upd
        if kernels.newton_failed(code, it, maxima, info, t, res):
            return s, kernels.NEWTON, n_saved
        # final kinematics at the accepted iterate
        _kinematics(dq, vn, an, vd, bnt, h, c_a, alpha_m, alpha_f, gamma, beta, a1, v1, vd1, w)
        _configure_step(rd, y, w, Ts, sc, yn)
        rigid.set_velocity(rd, yn, v1)
        if not kernels.state_ok(yn):
            info[kernels.INFO_TIME] = t + h
            return s, kernels.NONFINITE, n_saved
        _accept(y, yn, vd, vd_old, vd1, an, a1, lam, lam_old, mu, h)
        flag[0] = 1.0
        t = t_start + (k0 + s + 1) * h
        rigid.set_velocity(rd, acc, vd)
        rigid.diagnostics_inline(rd, y, acc, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, k0 + s + 1, stride, last)
    return n_steps, kernels.OK, n_saved


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array (see advance)."""
    alpha_m, alpha_f, gamma, beta = coefficients(o["rho_inf"])
    return np.array([
        alpha_m, alpha_f, gamma, beta, float(o["newton_tol"]), float(o["newton_max_iter"]),
        1.0 if o["variant"] == "stab2" else 0.0, 1.0 if o["perturbed_start"] else 0.0,
    ])


def work_size(model) -> int:
    """The work array's length: the sum of _work_fields."""
    return sum(python_function(_work_fields)(rigid.n_velocity(model.data), rigid.n_multipliers(model.data)))


def multipliers(model, options: dict[str, Any], h: float, n_steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run ``n_steps`` steps one kernel call at a time and return (t, states, lambda) at every step.

    ``model`` is a built rigid-machinery benchmark (``BENCHMARKS[id].build(BENCHMARKS[id].resolve(params))``),
    ``options`` this method's options (validated here). lambda[k] is the multiplier lambda_k of the Newton system
    (t_k = k h; lambda_0 the consistent initial multiplier). For tests and analyses of the multipliers, which the
    Result does not carry.
    """
    opts = pack(METHOD.resolve(options))
    kind, data = dispatch.pack(model.machinery, model.data)
    y = model.y0.astype(float).copy()
    work = np.zeros(work_size(model))
    nv = rigid.n_velocity(model.data)
    samples = np.full((n_steps + 2, 1 + y.shape[0] + kernels.N_DIAG), np.nan)
    maxima = np.zeros(kernels.N_MAXIMA)
    ref = np.zeros(2)
    info = np.zeros(8)
    nm = 3 * model.data.joint_bodies.shape[0]
    lams = np.full((n_steps + 1, nm), np.nan)
    states = np.full((n_steps + 1, y.shape[0]), np.nan)
    acc0 = np.empty(nv)
    if not rigid_dae.initial_acceleration(model.data, y, acc0, lams[0]):
        raise RuntimeError("lie_galpha: singular saddle-point system at t = 0")
    states[0] = y
    n_saved = 0
    for k in range(n_steps):
        _done, code, n_saved = advance(kind, data, y, work, opts, 0.0, h, k, 1, n_steps, 1, samples, n_saved,
                                       maxima, ref, info)
        if code != kernels.OK:
            t_fail = info[kernels.INFO_TIME]
            raise RuntimeError(f"lie_galpha stopped with status {code} at step {k + 1} (t = {t_fail:g})")
        lams[k + 1] = kernels.carve(work, python_function(_work_fields)(nv, nm))[2]  # lambda_n
        states[k + 1] = y
    return h * np.arange(n_steps + 1), states, lams


METHOD = Method(
    id="lie_galpha",
    title="Lie group generalized-alpha (Lie-alpha)",
    seed="000",
    order=2,
    description=(
        "Bruls-Cardona-Arnold generalized-alpha on (SO(3) x R^3)^N: index-3 form with scaled residual and "
        "perturbed starting values (second order in positions, velocities and multipliers), or the stabilised "
        "index-2 form that also keeps the velocity constraint. Numerical damping of high frequencies set by "
        "rho_inf (1: none, 0: asymptotic annihilation); not symplectic, so energy is dissipated for rho_inf < 1."
    ),
    kernel=advance,
    machineries=("rigid",),
    options={
        "rho_inf": Option(0.9, "spectral radius at infinity: numerical damping (seed 000: 0.9; index3 needs < 1)",
                          "float", 0.0, 1.0),
        "variant": Option("index3", "index3 (seed 000) or stab2 (stabilised index 2: velocity constraint too)",
                          "choice", choices=VARIANTS),
        "perturbed_start": Option(
            True, "perturbed starting values a_0 = vdot_0 + (alpha_m - alpha_f) h vddot_0 (and, index3, an O(h^2) "
            "normal shift of v_0): second-order multipliers; false: a_0 = vdot_0, first order", "bool"
        ),
        **NEWTON_OPTIONS,
    },
    pack=pack,
    work_size=work_size,
    properties=("implicit", "fixed step", "Lie group", "numerical damping", "index 3 / stabilised index 2"),
)
