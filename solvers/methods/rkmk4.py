"""Runge-Kutta-Munthe-Kaas with the classical RK4 tableau on SO(3) (Hairer, Lubich, Wanner, GNI IV.8.2;
Munthe-Kaas, BIT 38 (1998) 92), beyond seed 002.

Spatial angular velocity, dR/dt = hat(omega(t)) R: R(t_n + s) = exp(hat(u(s))) R_n with
du/ds = T_s(u)^-1 omega(t_n + s) (seed 002 eqs. 11-12 in local coordinates around R_n; T_s^-1 =
lie.tangent_inv_t, the exact dexp^-1). RK4 advances u from 0 to u_1 and R_{n+1} = exp(hat(u_1)) R_n. Since u stays
of size |omega| h, the 2 pi singularity never comes near. Order 4. R lives in ``work``; the saved state is
the principal log(R) and the diagnostics are those of R itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernels, lie
from ..models import angular_velocity
from .base import Method


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """RKMK4 kernel (contract in solvers.kernels); work[0:9] = R (row-major)."""
    R = work[0:9].reshape((3, 3))
    d = np.empty(kernels.N_DIAG)
    u = np.empty(3)
    E = np.empty((3, 3))
    t = t_start + k0 * h
    if k0 == 0:
        R[:, :] = lie.expm_so3(y)
        n_saved = angular_velocity.record_rotation(t, R, y, d, 0, samples, n_saved, maxima, ref, stride, last)
    w0 = angular_velocity.omega(t)
    for s in range(n_steps):
        t = t_start + (k0 + s) * h
        wm = angular_velocity.omega(t + 0.5 * h)
        w1 = angular_velocity.omega(t + h)
        k1 = w0
        u[:] = 0.5 * h * k1
        k2 = lie.tangent_inv_t(u) @ wm
        u[:] = 0.5 * h * k2
        k3 = lie.tangent_inv_t(u) @ wm
        u[:] = h * k3
        k4 = lie.tangent_inv_t(u) @ w1
        for i in range(3):
            u[i] = h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        if not angular_velocity.rotate_left(u, R, E):
            info[0] = t + h
            return s, kernels.NONFINITE, n_saved
        w0 = w1
        t = t_start + (k0 + s + 1) * h
        n_saved = angular_velocity.record_rotation(t, R, y, d, k0 + s + 1, samples, n_saved, maxima, ref, stride,
                                                   last)
    return n_steps, kernels.OK, n_saved


METHOD = Method(
    id="rkmk4",
    title="Runge-Kutta-Munthe-Kaas RK4 on SO(3)",
    seed="002 (alternative)",
    order=4,
    description=(
        "RK4 in local exponential coordinates around the current rotation (exact dexp^-1), R_{n+1} = "
        "exp(hat(u)) R_n: orthogonal to round-off, no rotation-vector singularity."
    ),
    kernel=advance,
    machineries=("rotvec",),
    work_size=angular_velocity.rotation_work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "fixed step", "Lie group"),
)
