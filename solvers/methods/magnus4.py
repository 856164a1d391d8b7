"""Fourth-order Magnus integrator for the linear ODE dR/dt = hat(omega(t)) R with a given omega(t), beyond
seed 002 (Iserles, Munthe-Kaas, Norsett, Zanna, Acta Numerica 9 (2000) 215; Blanes, Casas, Oteo, Ros 2009;
docs/algorithms.md section 6).

Two Gauss points c = 1/2 -+ sqrt(3)/6, w_i = omega(t_n + c_i h):
Theta = (h/2)(w1 + w2) + (sqrt(3)/12) h^2 (w2 x w1) (the commutator term [A2, A1] of the spatial form),
R_{n+1} = exp(hat(Theta)) R_n. Order 4, no rotation-vector singularity, orthogonal to round-off. R lives in
``work``; the saved state is the principal log(R) and the diagnostics are those of R itself.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import kernels, lie
from ..models import angular_velocity
from .base import Method

C1 = 0.5 - math.sqrt(3.0) / 6.0
C2 = 0.5 + math.sqrt(3.0) / 6.0
K = math.sqrt(3.0) / 12.0


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Magnus-4 kernel (contract in solvers.kernels); work holds R (angular_velocity.rotation_work_fields)."""
    (r,) = kernels.carve(work, angular_velocity.rotation_work_fields())
    R = r.reshape((3, 3))
    d = np.empty(kernels.N_DIAG)
    th = np.empty(3)
    E = np.empty((3, 3))
    t = t_start + k0 * h
    if k0 == 0:
        R[:, :] = lie.expm_so3(y)
        n_saved = angular_velocity.record_rotation(t, R, y, d, 0, samples, n_saved, maxima, ref, stride, last)
    for s in range(n_steps):
        t = t_start + (k0 + s) * h
        w1 = angular_velocity.omega(t + C1 * h)
        w2 = angular_velocity.omega(t + C2 * h)
        c = K * h * h
        th[0] = 0.5 * h * (w1[0] + w2[0]) + c * (w2[1] * w1[2] - w2[2] * w1[1])
        th[1] = 0.5 * h * (w1[1] + w2[1]) + c * (w2[2] * w1[0] - w2[0] * w1[2])
        th[2] = 0.5 * h * (w1[2] + w2[2]) + c * (w2[0] * w1[1] - w2[1] * w1[0])
        if not angular_velocity.rotate_left(th, R, E):
            info[kernels.INFO_TIME] = t + h
            return s, kernels.NONFINITE, n_saved
        t = t_start + (k0 + s + 1) * h
        n_saved = angular_velocity.record_rotation(t, R, y, d, k0 + s + 1, samples, n_saved, maxima, ref, stride,
                                                   last)
    return n_steps, kernels.OK, n_saved


METHOD = Method(
    id="magnus4",
    title="Fourth-order Magnus (2 Gauss points)",
    seed="002 (alternative)",
    order=4,
    description=(
        "Magnus expansion of dR/dt = hat(omega(t)) R truncated at order 4 with two Gauss points: one "
        "exponential per step, orthogonal to round-off, no rotation-vector singularity."
    ),
    kernel=advance,
    machineries=("rotvec",),
    work_size=angular_velocity.rotation_work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "fixed step", "symmetric", "Lie group", "linear ODE with given omega(t)"),
)
