"""Classical RK4 on the unit quaternion of the rotation, renormalised after every step (beyond seed 002).

Spatial angular velocity: dR/dt = hat(omega) R, so dq/dt = 1/2 (0, omega(t)) q (Hamilton product, scalar
first); R = R(q). The quaternion lives in ``work`` and the saved state is the benchmark's rotation vector, the
principal log(R(q)) (|theta| <= pi); the rotation error (seed 002 eq. 17) is that of R(q) itself. No 2 pi
singularity; order 4 (normalisation does not lower it). docs/algorithms.md section 6.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import kernels, lie
from ..jit import python_function
from ..models import angular_velocity
from ..models.base import Model
from .base import Method


@njit(cache=True)
def _qdot(w, q, out):
    """out = 1/2 (0, w) q."""
    out[0] = 0.5 * (-w[0] * q[1] - w[1] * q[2] - w[2] * q[3])
    out[1] = 0.5 * (w[0] * q[0] + w[1] * q[3] - w[2] * q[2])
    out[2] = 0.5 * (w[1] * q[0] + w[2] * q[1] - w[0] * q[3])
    out[3] = 0.5 * (w[2] * q[0] + w[0] * q[2] - w[1] * q[1])


@njit(cache=True)
def _work_fields() -> tuple:
    """The work array's fields (kernels.carve): the unit quaternion q, kept between calls of the kernel."""
    return (4,)


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Quaternion RK4 kernel (contract in solvers.kernels); work holds q (_work_fields)."""
    (q,) = kernels.carve(work, _work_fields())
    d = np.empty(kernels.N_DIAG)
    k1 = np.empty(4)
    k2 = np.empty(4)
    k3 = np.empty(4)
    k4 = np.empty(4)
    qs = np.empty(4)
    t = t_start + k0 * h
    if k0 == 0:
        q[:] = lie.quat_from_rotvec(y)
        n_saved = angular_velocity.record_rotation(t, lie.rot_from_quat(q), y, d, 0, samples, n_saved, maxima, ref,
                                                   stride, last)
    w0 = angular_velocity.omega(t)
    for s in range(n_steps):
        t = t_start + (k0 + s) * h
        wm = angular_velocity.omega(t + 0.5 * h)
        w1 = angular_velocity.omega(t + h)
        _qdot(w0, q, k1)
        for i in range(4):
            qs[i] = q[i] + 0.5 * h * k1[i]
        _qdot(wm, qs, k2)
        for i in range(4):
            qs[i] = q[i] + 0.5 * h * k2[i]
        _qdot(wm, qs, k3)
        for i in range(4):
            qs[i] = q[i] + h * k3[i]
        _qdot(w1, qs, k4)
        n = 0.0
        for i in range(4):
            qs[i] = q[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            n += qs[i] * qs[i]
        n = math.sqrt(n)
        if not (n > 0.0 and n < kernels.BLOWUP):
            info[kernels.INFO_TIME] = t + h
            return s, kernels.NONFINITE, n_saved
        for i in range(4):
            q[i] = qs[i] / n
        w0 = w1
        t = t_start + (k0 + s + 1) * h
        n_saved = angular_velocity.record_rotation(t, lie.rot_from_quat(q), y, d, k0 + s + 1, samples, n_saved,
                                                   maxima, ref, stride, last)
    return n_steps, kernels.OK, n_saved


def work_size(model: Model) -> int:
    """The quaternion: the sum of _work_fields."""
    return sum(python_function(_work_fields)())


METHOD = Method(
    id="quaternion_rk4",
    title="Quaternion RK4, renormalised",
    seed="002 (alternative)",
    order=4,
    description=(
        "Classical RK4 on the unit quaternion, dq/dt = 1/2 (0, omega) q, normalised after every step: no "
        "rotation-vector singularity. Saved state: the principal rotation vector of R(q)."
    ),
    kernel=advance,
    machineries=("rotvec",),
    work_size=work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "fixed step", "quaternion"),
)
