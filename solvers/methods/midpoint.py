"""Seed 004's implicit midpoint schemes solved by Newton: angle, reduced attitude, full rotation, Cardan angles.

Every form is the implicit midpoint rule y_{k+1} = y_k + h f((y_k + y_{k+1}) / 2) applied to a different set of
coordinates of the pendulum (seed 004 eq. 42/49/76: values and derivatives at the midpoint), solved by Newton with
the exact Jacobian (the seed's eqs. 44/51/80/84/87). One compiled kernel serves the four methods; the variant
is the first entry of the option array.

- ``midpoint_angle`` (planar_pendulum, eqs. 43/46): unknowns (omega, theta),
  J (w1 - w0) = h f(theta_m), theta1 - theta0 = h w_m. The planar Lie-algebra form (eqs. 63/64) is the same
  scheme: planar exponentials commute, e^{S theta1/2} e^{S theta0/2} = e^{S theta_m}.
- ``midpoint_reduced`` (eqs. 48-53 planar, 75-82 in 3D): unknowns (Omega, Gamma), Gamma = R^T e (e = e3, the
  gravity axis; planar Gamma = (sin theta, cos theta)). The midpoint of Gamma' = Gamma x Omega is the Cayley
  map: Gamma_{k+1} = cay(h Omega_m)^T Gamma_k, so the kernel carries the full attitude as
  R_{k+1} = R_k cay(h Omega_m) (R_{k+1}^T e3 = Gamma_{k+1}), and the planar angle as
  theta_{k+1} = theta_k + 2 atan(h omega_m / 2).
- ``midpoint_rotation`` (eqs. 58-61, 83-84; 3D only): unknowns (Omega, Gamma_3, Gamma_1, Gamma_2), all columns of
  R^T, a 12x12 Newton system; R_{k+1} has rows Gamma_i. Gamma_1, Gamma_2 do not feed back into Omega, so the
  trajectory equals the reduced one (to the Newton tolerance); on the plane it equals midpoint_reduced exactly
  and is therefore not offered there.
- ``midpoint_cardan`` (eqs. 62-67, 85-87; 3D only): unknowns (Omega, theta_x, theta_y, theta_z) with
  R = Rx Ry Rz (docs/benchmarks.md B2) and the body kinematics of eq. 15, h Omega_m = E(theta_m) (theta1 - theta0),
  E = [(Ry Rz)^T e1, Rz^T e2, e3], det E = cos theta_y. (Eq. 87 as printed uses the Z-Y-X product; we keep the
  benchmark's X-Y-Z product consistently.) The angles are kept continuous in the work array. The run fails
  (status "failed", gimbal lock) when |cos theta_y| falls below ``gimbal_tol`` or Newton fails near it.

The heavy-top data come from the rigid model: one pinned body (state R, Omega; J about the pivot, rho the body
vector from the pivot to the centre of mass, gravity along e3), torque m g rho x Gamma (seed 004 eq. 68). The
accelerations of the diagnostics are the ODE's at the new state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from .. import composition, kernels
from ..jit import python_function
from ..linalg import inv3_into, lu_solve_inplace
from ..models import coords, rigid, rigid_dae
from ..models.dispatch import RIGID
from .base import NEWTON_OPTIONS, Method, Option

ANGLE, REDUCED, ROTATION, CARDAN = 0, 1, 2, 3
# Newton failures with |cos theta_y| below this multiple of gimbal_tol are reported as gimbal lock
_NEAR_LOCK = 10.0


# the option array's slots, in the order pack writes them
O_VARIANT, O_TOL, O_MAX_ITER, O_GIMBAL_TOL, O_N_SUB, O_GAMMA = range(6)  # O_GAMMA: the first of O_N_SUB fractions


@njit(cache=True)
def _hat_into(w0: float, w1: float, w2: float, s: float, A: np.ndarray, r: int, c: int) -> None:
    """A[r:r+3, c:c+3] += s hat(w)."""
    A[r, c + 1] -= s * w2
    A[r, c + 2] += s * w1
    A[r + 1, c] += s * w2
    A[r + 1, c + 2] -= s * w0
    A[r + 2, c] -= s * w1
    A[r + 2, c + 1] += s * w0


@njit(cache=True)
def cardan_gamma(th: np.ndarray, G: np.ndarray, dG: np.ndarray) -> None:
    """Gamma = (Rx Ry Rz)^T e3 and its derivatives dG[:, k] = dGamma/dtheta_k."""
    cx, sx = math.cos(th[0]), math.sin(th[0])
    cy, sy = math.cos(th[1]), math.sin(th[1])
    cz, sz = math.cos(th[2]), math.sin(th[2])
    G[0] = -cz * sy * cx + sz * sx
    G[1] = sz * sy * cx + cz * sx
    G[2] = cy * cx
    dG[0, 0] = cz * sy * sx + sz * cx
    dG[1, 0] = -sz * sy * sx + cz * cx
    dG[2, 0] = -cy * sx
    dG[0, 1] = -cz * cy * cx
    dG[1, 1] = sz * cy * cx
    dG[2, 1] = -sy * cx
    dG[0, 2] = sz * sy * cx + cz * sx
    dG[1, 2] = cz * sy * cx - sz * sx
    dG[2, 2] = 0.0


@njit(cache=True)
def cardan_rate(th: np.ndarray, E: np.ndarray, dEy: np.ndarray, dEz: np.ndarray) -> None:
    """E(theta) with Omega = E dtheta/dt for R = Rx Ry Rz (seed 004 eq. 15), and dE/dtheta_y, dE/dtheta_z."""
    cy, sy = math.cos(th[1]), math.sin(th[1])
    cz, sz = math.cos(th[2]), math.sin(th[2])
    E[0, 0] = cy * cz
    E[0, 1] = sz
    E[0, 2] = 0.0
    E[1, 0] = -cy * sz
    E[1, 1] = cz
    E[1, 2] = 0.0
    E[2, 0] = sy
    E[2, 1] = 0.0
    E[2, 2] = 1.0
    for r in range(3):
        for c in range(3):
            dEy[r, c] = 0.0
            dEz[r, c] = 0.0
    dEy[0, 0] = -sy * cz
    dEy[1, 0] = sy * sz
    dEy[2, 0] = cy
    dEz[0, 0] = -cy * sz
    dEz[0, 1] = cz
    dEz[1, 0] = -cy * cz
    dEz[1, 1] = -sz


@njit(cache=True)
def cardan_matrix(th: np.ndarray, y: np.ndarray) -> None:
    """y[0:9] = Rx(th0) Ry(th1) Rz(th2), row-major."""
    cx, sx = math.cos(th[0]), math.sin(th[0])
    cy, sy = math.cos(th[1]), math.sin(th[1])
    cz, sz = math.cos(th[2]), math.sin(th[2])
    y[0] = cy * cz
    y[1] = -cy * sz
    y[2] = sy
    y[3] = cx * sz + sx * sy * cz
    y[4] = cx * cz - sx * sy * sz
    y[5] = -sx * cy
    y[6] = sx * sz - cx * sy * cz
    y[7] = sx * cz + cx * sy * sz
    y[8] = cx * cy


@njit(cache=True)
def cardan_angles(y: np.ndarray, th: np.ndarray) -> None:
    """Principal X-Y-Z Cardan angles of R = y[0:9] (theta_y in [-pi/2, pi/2])."""
    th[1] = math.asin(min(1.0, max(-1.0, y[2])))
    th[0] = math.atan2(-y[5], y[8])
    th[2] = math.atan2(-y[1], y[0])


@njit(cache=True)
def _heavy_top(data: tuple, Jp: np.ndarray) -> tuple:
    """J about the pivot (into Jp), rho and m g of the pinned body of the rigid data (seed 004 eq. 68)."""
    rd = data[0]
    mass, inertia, grav, com = rd.mass, rd.inertia, rd.gravity, rd.com
    for r in range(3):
        for c in range(3):
            Jp[r, c] = inertia[0, r, c]
    return com[0, 0], com[0, 1], com[0, 2], mass[0] * grav[2]


@njit(cache=True)
def _heavy_top_acceleration(y: np.ndarray, Jp: np.ndarray, Jinv: np.ndarray, top: tuple, acc: np.ndarray) -> None:
    """dOmega/dt = J^-1 (m g rho x Gamma - Omega x J Omega) at the state y = [R, Omega] (the heavy-top ODE the
    midpoint forms discretise), into acc[9:12]."""
    r0, r1, r2, mg = top
    W0, W1, W2 = y[9], y[10], y[11]
    g0, g1, g2 = y[6], y[7], y[8]
    JW0 = Jp[0, 0] * W0 + Jp[0, 1] * W1 + Jp[0, 2] * W2
    JW1 = Jp[1, 0] * W0 + Jp[1, 1] * W1 + Jp[1, 2] * W2
    JW2 = Jp[2, 0] * W0 + Jp[2, 1] * W1 + Jp[2, 2] * W2
    t0 = mg * (r1 * g2 - r2 * g1) - (W1 * JW2 - W2 * JW1)
    t1 = mg * (r2 * g0 - r0 * g2) - (W2 * JW0 - W0 * JW2)
    t2 = mg * (r0 * g1 - r1 * g0) - (W0 * JW1 - W1 * JW0)
    acc[9] = Jinv[0, 0] * t0 + Jinv[0, 1] * t1 + Jinv[0, 2] * t2
    acc[10] = Jinv[1, 0] * t0 + Jinv[1, 1] * t1 + Jinv[1, 2] * t2
    acc[11] = Jinv[2, 0] * t0 + Jinv[2, 1] * t1 + Jinv[2, 2] * t2


@njit(cache=True, inline="always")
def _spatial_start(variant: int, y: np.ndarray, th: np.ndarray, h: float, Jp: np.ndarray, top: tuple, z: np.ndarray,
                   z0: np.ndarray, F: np.ndarray, A: np.ndarray, aux: np.ndarray, dG: np.ndarray) -> bool:
    """z0 = the step's start in the variant's unknowns, z = the explicit Euler predictor; False if J is singular."""
    r0, r1, r2, mg = top
    ncol = 3 if variant == ROTATION else 1
    # z0: Omega_k, then Gamma_3, Gamma_1, Gamma_2 (rows of R) or the Cardan angles
    for i in range(3):
        z0[i] = y[9 + i]
    if variant == CARDAN:
        for i in range(3):
            z0[3 + i] = th[i]
    else:
        for j in range(ncol):
            row = (2 + j) % 3
            for i in range(3):
                z0[3 + 3 * j + i] = y[3 * row + i]
    # predictor: one explicit Euler step
    W0, W1, W2 = z0[0], z0[1], z0[2]
    if variant == CARDAN:
        cardan_gamma(th, aux, dG)
        g0, g1, g2 = aux[0], aux[1], aux[2]
    else:
        g0, g1, g2 = z0[3], z0[4], z0[5]
    JW0 = Jp[0, 0] * W0 + Jp[0, 1] * W1 + Jp[0, 2] * W2
    JW1 = Jp[1, 0] * W0 + Jp[1, 1] * W1 + Jp[1, 2] * W2
    JW2 = Jp[2, 0] * W0 + Jp[2, 1] * W1 + Jp[2, 2] * W2
    F[0] = mg * (r1 * g2 - r2 * g1) - (W1 * JW2 - W2 * JW1)
    F[1] = mg * (r2 * g0 - r0 * g2) - (W2 * JW0 - W0 * JW2)
    F[2] = mg * (r0 * g1 - r1 * g0) - (W0 * JW1 - W1 * JW0)
    for r in range(3):
        for c in range(3):
            A[r, c] = Jp[r, c]
    if not lu_solve_inplace(A, F, 3):
        return False
    for i in range(3):
        z[i] = z0[i] + h * F[i]
    if variant == CARDAN:
        cy = math.cos(th[1])
        cz, sz = math.cos(th[2]), math.sin(th[2])
        dx = (cz * W0 - sz * W1) / cy
        z[3] = th[0] + h * dx
        z[4] = th[1] + h * (sz * W0 + cz * W1)
        z[5] = th[2] + h * (W2 - math.sin(th[1]) * dx)
    else:
        for j in range(ncol):
            o = 3 + 3 * j
            G0, G1, G2 = z0[o], z0[o + 1], z0[o + 2]
            z[o] = G0 + h * (G1 * W2 - G2 * W1)
            z[o + 1] = G1 + h * (G2 * W0 - G0 * W2)
            z[o + 2] = G2 + h * (G0 * W1 - G1 * W0)
    return True


@njit(cache=True, inline="always")
def _spatial_residual(variant: int, h: float, Jp: np.ndarray, top: tuple, z: np.ndarray, z0: np.ndarray,
                      F: np.ndarray, A: np.ndarray, aux: np.ndarray, dG: np.ndarray, E: np.ndarray, dEy: np.ndarray,
                      dEz: np.ndarray, out: np.ndarray) -> None:
    """F = the midpoint equations' residual at z (seed eqs. 77, 83, 87), A = their Jacobian in the n unknowns."""
    r0, r1, r2, mg = top
    ncol = 3 if variant == ROTATION else 1
    n = 6 if variant == CARDAN else 3 + 3 * ncol
    hh = 0.5 * h
    Wm0 = 0.5 * (z0[0] + z[0])
    Wm1 = 0.5 * (z0[1] + z[1])
    Wm2 = 0.5 * (z0[2] + z[2])
    JW0 = Jp[0, 0] * Wm0 + Jp[0, 1] * Wm1 + Jp[0, 2] * Wm2
    JW1 = Jp[1, 0] * Wm0 + Jp[1, 1] * Wm1 + Jp[1, 2] * Wm2
    JW2 = Jp[2, 0] * Wm0 + Jp[2, 1] * Wm1 + Jp[2, 2] * Wm2
    if variant == CARDAN:
        for i in range(3):
            out[i] = 0.5 * (z0[3 + i] + z[3 + i])
        cardan_gamma(out, aux, dG)
        cardan_rate(out, E, dEy, dEz)
        g0, g1, g2 = aux[0], aux[1], aux[2]
    else:
        g0 = 0.5 * (z0[3] + z[3])
        g1 = 0.5 * (z0[4] + z[4])
        g2 = 0.5 * (z0[5] + z[5])
    for r in range(n):
        for c in range(n):
            A[r, c] = 0.0
    # J (W1 - W0) + h Wm x J Wm - h m g rho x Gamma_m  (seed eqs. 77, 83, 87)
    for r in range(3):
        F[r] = Jp[r, 0] * (z[0] - z0[0]) + Jp[r, 1] * (z[1] - z0[1]) + Jp[r, 2] * (z[2] - z0[2])
    F[0] += h * (Wm1 * JW2 - Wm2 * JW1) - h * mg * (r1 * g2 - r2 * g1)
    F[1] += h * (Wm2 * JW0 - Wm0 * JW2) - h * mg * (r2 * g0 - r0 * g2)
    F[2] += h * (Wm0 * JW1 - Wm1 * JW0) - h * mg * (r0 * g1 - r1 * g0)
    # d/dW1: J + h/2 (hat(Wm) J - hat(J Wm))
    for r in range(3):
        for c in range(3):
            A[r, c] = Jp[r, c]
    for c in range(3):
        # hat(Wm) J[:, c]
        A[0, c] += hh * (Wm1 * Jp[2, c] - Wm2 * Jp[1, c])
        A[1, c] += hh * (Wm2 * Jp[0, c] - Wm0 * Jp[2, c])
        A[2, c] += hh * (Wm0 * Jp[1, c] - Wm1 * Jp[0, c])
    _hat_into(JW0, JW1, JW2, -hh, A, 0, 0)
    if variant == CARDAN:
        # torque columns: -h m g rho x dGamma/dtheta_k / 2
        for k in range(3):
            A[0, 3 + k] = -hh * mg * (r1 * dG[2, k] - r2 * dG[1, k])
            A[1, 3 + k] = -hh * mg * (r2 * dG[0, k] - r0 * dG[2, k])
            A[2, 3 + k] = -hh * mg * (r0 * dG[1, k] - r1 * dG[0, k])
        # kinematics: h Wm - E(theta_m) (theta1 - theta0)
        for i in range(3):
            aux[i] = z[3 + i] - z0[3 + i]
        for r in range(3):
            F[3 + r] = h * (0.5 * (z0[r] + z[r])) - (E[r, 0] * aux[0] + E[r, 1] * aux[1] + E[r, 2] * aux[2])
            A[3 + r, r] = hh
            for k in range(3):
                A[3 + r, 3 + k] = -E[r, k]
            A[3 + r, 4] -= 0.5 * (dEy[r, 0] * aux[0] + dEy[r, 1] * aux[1] + dEy[r, 2] * aux[2])
            A[3 + r, 5] -= 0.5 * (dEz[r, 0] * aux[0] + dEz[r, 1] * aux[1] + dEz[r, 2] * aux[2])
    else:
        _hat_into(r0, r1, r2, -hh * mg, A, 0, 3)
        for j in range(ncol):
            o = 3 + 3 * j
            m0 = 0.5 * (z0[o] + z[o])
            m1 = 0.5 * (z0[o + 1] + z[o + 1])
            m2 = 0.5 * (z0[o + 2] + z[o + 2])
            # Gamma1 - Gamma0 + h Wm x Gamma_m  (seed eqs. 77, 83)
            F[o] = z[o] - z0[o] + h * (Wm1 * m2 - Wm2 * m1)
            F[o + 1] = z[o + 1] - z0[o + 1] + h * (Wm2 * m0 - Wm0 * m2)
            F[o + 2] = z[o + 2] - z0[o + 2] + h * (Wm0 * m1 - Wm1 * m0)
            _hat_into(m0, m1, m2, -hh, A, o, 0)
            for i in range(3):
                A[o + i, o + i] = 1.0
            _hat_into(Wm0, Wm1, Wm2, hh, A, o, o)


@njit(cache=True, inline="always")
def _spatial_accept(variant: int, y: np.ndarray, th: np.ndarray, h: float, z: np.ndarray, z0: np.ndarray,
                    aux: np.ndarray, E: np.ndarray, out: np.ndarray) -> None:
    """The converged unknowns z written back into the state y (and the Cardan angles th)."""
    for i in range(3):
        y[9 + i] = z[i]
    if variant == CARDAN:
        for i in range(3):
            th[i] = z[3 + i]
        cardan_matrix(th, y)
    elif variant == ROTATION:
        for j in range(3):
            row = (2 + j) % 3
            for i in range(3):
                y[3 * row + i] = z[3 + 3 * j + i]
    else:
        # R_{k+1} = R_k cay(h Wm), cay(W) = I + 4/(4 + |w|^2) (W + W^2/2): R_{k+1}^T e3 = Gamma_{k+1}
        for i in range(3):
            aux[i] = 0.5 * h * (z0[i] + z[i])
        ww = aux[0] * aux[0] + aux[1] * aux[1] + aux[2] * aux[2]
        s = 4.0 / (4.0 + ww)
        # C = I + s W + s/2 W^2 with W^2 = w w^T - |w|^2 I
        for r in range(3):
            for c in range(3):
                E[r, c] = 0.5 * s * (aux[r] * aux[c] - (ww if r == c else 0.0))
            E[r, r] += 1.0
        w0, w1, w2 = aux[0], aux[1], aux[2]
        E[0, 1] -= s * w2
        E[0, 2] += s * w1
        E[1, 0] += s * w2
        E[1, 2] -= s * w0
        E[2, 0] -= s * w1
        E[2, 1] += s * w0
        for r in range(3):
            out[0] = y[3 * r]
            out[1] = y[3 * r + 1]
            out[2] = y[3 * r + 2]
            for c in range(3):
                y[3 * r + c] = out[0] * E[0, c] + out[1] * E[1, c] + out[2] * E[2, c]


@njit(cache=True)
def _step_spatial(variant: int, y: np.ndarray, th: np.ndarray, h: float, tol: float, max_iter: int,
                  gimbal_tol: float, Jp: np.ndarray, top: tuple, z: np.ndarray, z0: np.ndarray, F: np.ndarray,
                  A: np.ndarray, aux: np.ndarray, dG: np.ndarray, E: np.ndarray, dEy: np.ndarray,
                  dEz: np.ndarray, out: np.ndarray) -> tuple:
    """One 3D midpoint step of y in place. Returns (status, iterations, last update norm, kernels.newton_test code)."""
    n = 6 if variant == CARDAN else 3 + 3 * (3 if variant == ROTATION else 1)
    if not _spatial_start(variant, y, th, h, Jp, top, z, z0, F, A, aux, dG):
        return kernels.SINGULAR, 0, 0.0, kernels.CONTINUE
    it = 0
    upd = np.inf
    prev = np.inf
    code = kernels.CONTINUE
    while it < max_iter:
        it += 1
        _spatial_residual(variant, h, Jp, top, z, z0, F, A, aux, dG, E, dEy, dEz, out)
        for i in range(n):
            F[i] = -F[i]
        if not lu_solve_inplace(A, F, n):
            return kernels.SINGULAR, it, upd, code
        code, upd, prev = kernels.apply_update(z, F, n, prev, it, tol)  # the common test (kernels.newton_test)
        if code != kernels.CONTINUE or not upd < 1e300:
            break
    converged = code != kernels.CONTINUE
    if variant == CARDAN:
        lock = min(abs(math.cos(z[4])), abs(math.cos(0.5 * (z0[4] + z[4]))))
        if not converged:
            if min(lock, abs(math.cos(th[1]))) < _NEAR_LOCK * gimbal_tol or not lock < 2.0:
                return kernels.DOMAIN, it, upd, code
            return kernels.NEWTON, it, upd, code
        if lock < gimbal_tol:
            return kernels.DOMAIN, it, upd, code
    elif not converged:
        return kernels.NEWTON, it, upd, code
    _spatial_accept(variant, y, th, h, z, z0, aux, E, out)
    return kernels.OK, it, upd, code


@njit(cache=True)
def _step_planar(variant: int, y: np.ndarray, h: float, tol: float, max_iter: int, Jm: float, amp: float,
                 phi: float, z: np.ndarray, F: np.ndarray, A: np.ndarray) -> tuple:
    """One planar midpoint step of y = [theta, omega] for J theta'' = amp sin(theta + phi).

    Returns (status, iterations, last update norm, kernels.newton_test code)."""
    th0 = y[0]
    w0 = y[1]
    hh = 0.5 * h
    # predictor: explicit Euler
    z[0] = w0 + h * amp * math.sin(th0 + phi) / Jm
    if variant == ANGLE:
        z[1] = th0 + h * w0
    else:
        G0 = math.sin(th0 + phi)
        G1 = math.cos(th0 + phi)
        z[1] = G0 + h * w0 * G1
        z[2] = G1 - h * w0 * G0
    n = 2 if variant == ANGLE else 3
    it = 0
    upd = np.inf
    prev = np.inf
    code = kernels.CONTINUE
    while it < max_iter:
        it += 1
        wm = 0.5 * (w0 + z[0])
        if variant == ANGLE:
            # eq. 43: J (w1 - w0) + h m g l sin(theta_m) = 0, theta1 - theta0 - h w_m = 0
            thm = 0.5 * (th0 + z[1])
            r0 = Jm * (z[0] - w0) - h * amp * math.sin(thm + phi)
            r1 = z[1] - th0 - h * wm
            a00, a01 = Jm, -hh * amp * math.cos(thm + phi)
            a10, a11 = -hh, 1.0
            det = a00 * a11 - a01 * a10
            if not abs(det) > 0.0:
                return kernels.SINGULAR, it, upd, code
            F[0] = -(a11 * r0 - a01 * r1) / det
            F[1] = -(a00 * r1 - a10 * r0) / det
        else:
            # eq. 50: J (w1 - w0) - h amp Gamma_m[0] = 0, Gamma1 - Gamma0 - h w_m P Gamma_m = 0, P G = (G1, -G0)
            m0 = 0.5 * (G0 + z[1])
            m1 = 0.5 * (G1 + z[2])
            F[0] = -(Jm * (z[0] - w0) - h * amp * m0)
            F[1] = -(z[1] - G0 - h * wm * m1)
            F[2] = -(z[2] - G1 + h * wm * m0)
            A[0, 0] = Jm
            A[0, 1] = -hh * amp
            A[0, 2] = 0.0
            A[1, 0] = -hh * m1
            A[1, 1] = 1.0
            A[1, 2] = -hh * wm
            A[2, 0] = hh * m0
            A[2, 1] = hh * wm
            A[2, 2] = 1.0
            if not lu_solve_inplace(A, F, 3):
                return kernels.SINGULAR, it, upd, code
        code, upd, prev = kernels.apply_update(z, F, n, prev, it, tol)  # the common test (kernels.newton_test)
        if code != kernels.CONTINUE or not upd < 1e300:
            break
    if code == kernels.CONTINUE:
        return kernels.NEWTON, it, upd, code
    if variant == ANGLE:
        y[0] = z[1]
    else:
        # Gamma_{k+1} = cay(h w_m P) Gamma_k: a rotation by 2 atan(h w_m / 2)
        y[0] = th0 + 2.0 * math.atan(0.25 * h * (w0 + z[0]))
    y[1] = z[0]
    return kernels.OK, it, upd, code


def _advance(KIND: int):
    """The midpoint kernel of one machinery (kernels.PerMachinery: the other machinery's branches are pruned)."""

    @njit(cache=True)
    def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
                info):
        """Midpoint kernel (contract in solvers.kernels). opts = [variant, newton_tol, newton_max_iter, gimbal_tol,
        s, gamma_1..gamma_s].

        work holds the continuous Cardan angles (midpoint_cardan; _work_fields).
        """
        variant = int(opts[O_VARIANT])
        tol = opts[O_TOL]
        max_iter = int(opts[O_MAX_ITER])
        gimbal_tol = opts[O_GIMBAL_TOL]
        ny = y.shape[0]
        # the machineries' data without reference counting (kernel arguments, kernels.borrowed): the diagnostics
        # take it every step
        rd, cd = kernels.borrowed(data[0]), kernels.borrowed(data[1])
        size = max(rigid_dae.scratch_size(rd), 12) if KIND == RIGID else max(coords.scratch_size(cd), 12)
        A = np.empty((size, size))
        b = np.empty(size)
        acc = np.empty(ny)
        d = np.empty(kernels.N_DIAG)
        z = np.empty(12)
        z0 = np.empty(12)
        F = np.empty(12)
        aux = np.empty(3)
        out = np.empty(3)
        dG = np.empty((3, 3))
        E = np.empty((3, 3))
        dEy = np.empty((3, 3))
        dEz = np.empty((3, 3))
        Jp = np.empty((3, 3))
        (th,) = kernels.carve(work, _work_fields())
        Jm = 1.0
        amp = 0.0
        phi = 0.0
        top = (0.0, 0.0, 0.0, 0.0)
        Jinv = np.empty((3, 3))
        if KIND == RIGID:
            top = _heavy_top(data, Jp)
            if not inv3_into(Jp, Jinv):
                info[kernels.INFO_TIME] = t_start + k0 * h
                return 0, kernels.SINGULAR, n_saved
        else:
            Jm = cd.mass_matrix[0, 0]
            amp = cd.cos_terms[0, 1]  # the one term a cos(q + phi) of U
            phi = cd.cos_terms[0, 2]
        # s = -1 records the starting state (at k0 == 0); then steps s = 0, 1, ...: one call site of the
        # diagnostics (inlined: most of the compile time)
        for s in range(-1 if k0 == 0 else 0, n_steps):
            t = t_start + (k0 + s) * h
            if s < 0:
                t = t_start
                if variant == CARDAN:
                    cardan_angles(y, th)
                    if abs(math.cos(th[1])) < gimbal_tol:
                        info[kernels.INFO_TIME] = t
                        return 0, kernels.DOMAIN, n_saved
                ok = (rigid_dae.rhs_call(rd, t, y, acc, A, b) if KIND == RIGID
                      else coords.rhs_call(cd, t, y, acc, A, b))
                if not ok:
                    info[kernels.INFO_TIME] = t
                    return 0, kernels.SINGULAR, n_saved
            else:
                for j in range(int(opts[O_N_SUB])):  # the sub-steps of a composition (solvers.composition), or h
                    hs = h * opts[O_GAMMA + j]
                    if KIND == RIGID:
                        status, it, upd, code = _step_spatial(variant, y, th, hs, tol, max_iter, gimbal_tol, Jp, top,
                                                              z, z0, F, A, aux, dG, E, dEy, dEz, out)
                    else:
                        status, it, upd, code = _step_planar(variant, y, hs, tol, max_iter, Jm, amp, phi, z, F, A)
                    kernels.newton_done(code, it, maxima)
                    if status != kernels.OK:
                        kernels.fail(info, t, upd, it)
                        return s, status, n_saved
                if not kernels.state_ok(y):
                    info[kernels.INFO_TIME] = t + h
                    return s, kernels.NONFINITE, n_saved
                t = t_start + (k0 + s + 1) * h
                if KIND == RIGID:
                    _heavy_top_acceleration(y, Jp, Jinv, top, acc)
                else:  # J theta'' = amp sin(theta + phi), without the general saddle solve (which allocates)
                    acc[0] = y[1]
                    acc[1] = amp * math.sin(y[0] + phi) / Jm
            if KIND == RIGID:
                rigid.diagnostics(rd, y, acc, d)
            else:
                coords.diagnostics(cd, y, acc, d)
            n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, k0 + s + 1, stride, last)
        return n_steps, kernels.OK, n_saved

    return advance


ADVANCE = kernels.PerMachinery(_advance)  # one kernel for the four variants


@njit(cache=True)
def _work_fields() -> tuple:
    """The work array's fields (kernels.carve): the three continuous Cardan angles (midpoint_cardan)."""
    return (3,)


def work_size(model) -> int:
    """Three continuous Cardan angles (_work_fields); also checks that the model is one the midpoint forms are
    written for."""
    if model.machinery == "rigid":
        mass, grav, jb, pinned = model.data.mass, model.data.gravity, model.data.joint_bodies, model.data.pinned
        if mass.shape[0] != 1 or jb.shape[0] != 0 or not pinned[0] or grav[0] != 0.0 or grav[1] != 0.0:
            raise ValueError(
                "the midpoint forms of seed 004 need one body pinned at a fixed pivot with gravity along e3 "
                "(benchmark pendulum_3d)"
            )
    elif model.machinery == "coords":
        cd = model.data
        M, f0, ct, cons = cd.mass_matrix, cd.f0, cd.cos_terms, cd.constraints
        if M.shape[0] != 1 or cons.shape[0] != 0 or ct.shape[0] != 1 or np.any(f0 != 0.0):
            raise ValueError(
                "the planar midpoint forms of seed 004 need one angle with one cosine potential term "
                "(benchmark planar_pendulum)"
            )
    else:
        raise ValueError(f"the midpoint forms do not apply to the {model.machinery!r} machinery")
    return sum(python_function(_work_fields)())


def _pack(variant: int):
    def pack(o: dict[str, Any]) -> np.ndarray:
        """Kernel option array: [variant, newton_tol, newton_max_iter, gimbal_tol, s, gamma_1..gamma_s]
        (composition.pack: s = 1 unless a composed method asks for its sub-steps)."""
        head = [float(variant), o["newton_tol"], float(o["newton_max_iter"]), o.get("gimbal_tol", 0.0)]
        return np.concatenate((head, composition.tail(o)))

    return pack


_PROPS = ("implicit", "symmetric", "fixed step")

METHOD_ANGLE = Method(
    id="midpoint_angle",
    title="Implicit midpoint in the angle (seed 004 eqs. 43/46)",
    seed="004",
    order=2,
    description=(
        "The implicit midpoint rule on J theta'' + m g l sin(theta) = 0 in (theta, omega), solved by Newton "
        "(seed 004 eqs. 43-47; the planar Lie-algebra form, eqs. 62-66, is the same scheme). Symplectic: "
        "energy error bounded, no amplitude loss."
    ),
    kernel=ADVANCE,
    machineries=("coords",),
    options=dict(NEWTON_OPTIONS),
    pack=_pack(ANGLE),
    work_size=work_size,
    benchmarks=("planar_pendulum",),
    properties=(*_PROPS, "symplectic"),
)

METHOD_REDUCED = Method(
    id="midpoint_reduced",
    title="Implicit midpoint in the reduced attitude Gamma = R^T e (seed 004 eqs. 48-53, 75-82)",
    seed="004",
    order=2,
    description=(
        "The implicit midpoint rule on (Omega, Gamma), Gamma = R^T e3 the direction of gravity in the body "
        "(planar: Gamma = (sin theta, cos theta)), solved by Newton. Quadratic invariants are exact: |Gamma| = 1, "
        "the heavy-top energy and the vertical angular momentum Gamma.J Omega hold to the Newton tolerance. The "
        "midpoint of Gamma' = Gamma x Omega is a Cayley rotation, so the full R is carried as R cay(h Omega_m)."
    ),
    kernel=ADVANCE,
    machineries=("rigid", "coords"),
    options=dict(NEWTON_OPTIONS),
    pack=_pack(REDUCED),
    work_size=work_size,
    benchmarks=("pendulum_3d", "planar_pendulum"),
    properties=(*_PROPS, "energy-conserving", "Lie group"),
)

METHOD_ROTATION = Method(
    id="midpoint_rotation",
    title="Implicit midpoint on all columns of R^T, the 'complete Lie group' form (seed 004 eqs. 58-61, 83-84)",
    seed="004",
    order=2,
    description=(
        "The implicit midpoint rule on (Omega, Gamma_1, Gamma_2, Gamma_3), the rows of R, as one 12x12 Newton "
        "system (seed 004 eq. 83). R^T R = I, energy and the vertical angular momentum are quadratic invariants "
        "and hold to the Newton tolerance. Gamma_1, Gamma_2 do not act on Omega: the trajectory is the reduced one."
    ),
    kernel=ADVANCE,
    machineries=("rigid",),
    options=dict(NEWTON_OPTIONS),
    pack=_pack(ROTATION),
    work_size=work_size,
    benchmarks=("pendulum_3d",),
    properties=(*_PROPS, "energy-conserving", "Lie group"),
)

METHOD_CARDAN = Method(
    id="midpoint_cardan",
    title="Implicit midpoint in Cardan angles X-Y-Z, the 'Lie algebra' form (seed 004 eqs. 62-67, 85-87)",
    seed="004",
    order=2,
    description=(
        "The implicit midpoint rule on (Omega, theta_x, theta_y, theta_z) with R = Rx Ry Rz and the body "
        "kinematics Omega = E(theta) dtheta/dt (det E = cos theta_y), solved by Newton. Not conservative; "
        "the run fails with a clear message at gimbal lock (|cos theta_y| < gimbal_tol)."
    ),
    kernel=ADVANCE,
    machineries=("rigid",),
    options={
        **NEWTON_OPTIONS,
        "gimbal_tol": Option(1e-2, "fail when |cos theta_y| (new or midpoint angles) falls below this", "float",
                             1e-8, 0.5),
    },
    pack=_pack(CARDAN),
    work_size=work_size,
    benchmarks=("pendulum_3d",),
    properties=(*_PROPS, "Cardan angles", "singular at gimbal lock"),
    domain_message=(
        "the Cardan angles reached gimbal lock (|cos theta_y| below gimbal_tol: the X-Y-Z angle rates are "
        "undefined there); use a rotation-matrix method (midpoint_rotation, midpoint_reduced)"
    ),
)
