"""Runge-Kutta-Munthe-Kaas on SO(3) with any explicit tableau (Hairer, Lubich, Wanner, GNI IV.8.2; Munthe-Kaas,
BIT 38 (1998) 92), beyond seed 002.

Spatial angular velocity, dR/dt = hat(omega(t)) R: R(t_n + s) = exp(hat(u(s))) R_n with
du/ds = dexp_u^-1 omega(t_n + s) (seed 002 eqs. 11-12 in local coordinates around R_n). The tableau advances u
from 0: u_i = h sum_j a_ij k_j, k_i = dexp_{u_i}^-1 omega(t_n + c_i h), u_1 = h sum_j b_j k_j, and
R_{n+1} = exp(hat(u_1)) R_n. Since u stays of size |omega| h, the 2 pi singularity never comes near.

dexp^-1 is either exact (``dexpinv = "exact"``: T_s^-1 = lie.tangent_inv_t, the default) or its Bernoulli series
v - 1/2 u x v + 1/12 u x (u x v) - 1/720 ad_u^4 v + 1/30240 ad_u^6 v truncated after ad_u^q with q = p - 2 for a
tableau of order p (``"truncated"``), which keeps order p (GNI IV.8, Theorem 8.5). ``rkmk4`` is this method with
the RK4 tableau and the exact dexp^-1 (the weights as rk4's h/6 (k1 + 2 k2 + 2 k3 + k4), solvers.tableau.weights). R
lives in ``work``; the saved state is the principal log(R) and the diagnostics are those of R itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels, lie
from .. import tableau as tableau_mod
from ..models import angular_velocity
from ..tableau import TableauOption, order_of, pack_tableau
from .base import Method, Option

# Bernoulli coefficients B_k / k! of dexp^-1 (odd k > 1 vanish)
BERNOULLI = (1.0, -0.5, 1.0 / 12.0, 0.0, -1.0 / 720.0, 0.0, 1.0 / 30240.0, 0.0, -1.0 / 1209600.0)
HEAD = 4  # opts: q (-1: exact dexp^-1), s, D, has b_hat (ignored); then A, D b, c (solvers.tableau.pack_tableau)


# the option array's slots, in the order pack writes them
O_TRUNCATION, O_S, O_D = range(3)


@njit(cache=True)
def dexpinv(u: np.ndarray, v: np.ndarray, q: int) -> np.ndarray:
    """dexp_u^-1 v on so(3) = R^3: exact (q < 0) or the Bernoulli series up to ad_u^q (ad_u v = u x v)."""
    if q < 0:
        return lie.tangent_inv_t(u) @ v
    out = v.copy()
    w = v.copy()
    x = np.empty(3)
    for k in range(1, q + 1):
        x[0] = u[1] * w[2] - u[2] * w[1]
        x[1] = u[2] * w[0] - u[0] * w[2]
        x[2] = u[0] * w[1] - u[1] * w[0]
        w[:] = x
        if BERNOULLI[k] != 0.0:
            for m in range(3):
                out[m] += BERNOULLI[k] * w[m]
    return out


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """RKMK kernel (contract in solvers.kernels); work holds R (angular_velocity.rotation_work_fields); opts
    layout in HEAD."""
    (r,) = kernels.carve(work, angular_velocity.rotation_work_fields())
    R = r.reshape((3, 3))
    d = np.empty(kernels.N_DIAG)
    q = int(opts[O_TRUNCATION])
    ns = int(opts[O_S])
    D = opts[O_D]
    a0 = HEAD
    bw0 = a0 + ns * ns
    c0 = bw0 + ns
    k = np.empty((ns, 3))
    u = np.empty(3)
    E = np.empty((3, 3))
    t = t_start + k0 * h
    if k0 == 0:
        R[:, :] = lie.expm_so3(y)
        n_saved = angular_velocity.record_rotation(t, R, y, d, 0, samples, n_saved, maxima, ref, stride, last)
    # omega at the step's start, carried over from the previous step's end (its t + h)
    w0 = angular_velocity.omega(t)
    for s in range(n_steps):
        t = t_start + (k0 + s) * h
        w1 = w0
        end = False  # omega(t + h) already evaluated by a stage with c_i = 1
        for i in range(ns):
            ci = opts[c0 + i]
            w = w0 if ci == 0.0 else angular_velocity.omega(t + ci * h)
            if ci == 1.0:
                w1 = w
                end = True
            if i == 0:
                k[0, :] = w  # u = 0 at the first stage of an explicit tableau: dexp_0^-1 = identity
                continue
            for m in range(3):
                acc = 0.0
                for j in range(i):
                    acc += opts[a0 + i * ns + j] * k[j, m]
                u[m] = h * acc
            k[i, :] = dexpinv(u, w, q)
        for m in range(3):
            acc = 0.0
            for j in range(ns):
                acc += opts[bw0 + j] * k[j, m]
            u[m] = h / D * acc
        if not angular_velocity.rotate_left(u, R, E):
            info[kernels.INFO_TIME] = t + h
            return s, kernels.NONFINITE, n_saved
        w0 = w1 if end else angular_velocity.omega(t + h)
        t = t_start + (k0 + s + 1) * h
        n_saved = angular_velocity.record_rotation(t, R, y, d, k0 + s + 1, samples, n_saved, maxima, ref, stride,
                                                   last)
    return n_steps, kernels.OK, n_saved


def truncation(o: dict[str, Any]) -> int:
    """The dexp^-1 truncation index q (-1: exact): p - 2 for a tableau of order p, at least 0."""
    if o["dexpinv"] == "exact":
        return -1
    return max(0, min(order_of(o["tableau"]), 8) - 2)


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [q] and erk's tableau layout."""
    return np.concatenate([[float(truncation(o))], pack_tableau(tableau_mod.tableau(o["tableau"]))])


OPTIONS = {
    "tableau": TableauOption("rk4", "a library name (" + ", ".join(tableau_mod.EXPLICIT) + ") or "
                             "{\"A\": rows, \"b\": [...], \"c\": [...]}; numbers or fractions such as \"1/6\""),
    "dexpinv": Option("exact", "dexp^-1: exact (T_s^-1), or its Bernoulli series truncated after ad^(p-2) for a "
                      "tableau of order p (enough for order p, GNI IV.8)", "choice", choices=("exact", "truncated")),
}

METHOD = Method(
    id="rkmk",
    title="Runge-Kutta-Munthe-Kaas on SO(3) from a Butcher tableau",
    seed="002 (alternative)",
    order=4,
    description=(
        "Any explicit tableau in local exponential coordinates around the current rotation, R_{n+1} = "
        "exp(hat(u)) R_n: orthogonal to round-off, no rotation-vector singularity, the tableau's order."
    ),
    kernel=advance,
    machineries=("rotvec",),
    options=OPTIONS,
    pack=pack,
    work_size=angular_velocity.rotation_work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "fixed step", "Lie group", "tableau"),
    order_for=lambda o: order_of(o["tableau"]),
)

_RK4 = {"tableau": "rk4", "dexpinv": "exact"}

METHOD_RKMK4 = Method(
    id="rkmk4",
    title="Runge-Kutta-Munthe-Kaas RK4 on SO(3)",
    seed="002 (alternative)",
    order=4,
    description=(
        "RK4 in local exponential coordinates around the current rotation (exact dexp^-1), R_{n+1} = "
        "exp(hat(u)) R_n: orthogonal to round-off, no rotation-vector singularity (rkmk with the RK4 tableau)."
    ),
    kernel=advance,
    machineries=("rotvec",),
    pack=lambda o: pack(_RK4),
    work_size=angular_velocity.rotation_work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "fixed step", "Lie group"),
)
