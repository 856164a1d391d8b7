"""B6: recovering a rotation from its angular velocity (seed 002, section 3).

The test function is fixed by seed 002: theta(t) = [sin^2(20t) + 10 sin t, 5t, sin t + 0.08 (cos(100t) - 1)],
R = exp(hat(theta)), spatial angular velocity omega = T_s(theta) dtheta/dt with seed 002's
T_s(theta) = I + (1 - cos v)/v^2 hat(theta) + (v - sin v)/v^3 hat(theta)^2 (eqs. 4, 9, 10), which is the transpose
of docs/algorithms.md's T. Integrating dtheta/dt = T_s(theta)^-1 omega (eq. 12) meets the singularity |theta| = 2 pi.

State: theta (3). Kernel data tuple: ``(unused (1,),)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels, lie
from ..jit import python_function
from .base import Benchmark, Model

TWO_PI = 2.0 * np.pi
# how close to |theta| = 2 k pi the kinematics are refused (T_s^-1 is unbounded there)
SINGULAR_GAP = 1e-6


@njit(cache=True)
def theta_exact(t: float) -> np.ndarray:
    """Seed 002's test rotation vector theta(t)."""
    s20 = np.sin(20.0 * t)
    return np.array([s20 * s20 + 10.0 * np.sin(t), 5.0 * t, np.sin(t) + 0.08 * (np.cos(100.0 * t) - 1.0)])


@njit(cache=True)
def theta_dot_exact(t: float) -> np.ndarray:
    """d theta / dt of the test function."""
    return np.array([20.0 * np.sin(40.0 * t) + 10.0 * np.cos(t), 5.0, np.cos(t) - 8.0 * np.sin(100.0 * t)])


@njit(cache=True)
def omega(t: float) -> np.ndarray:
    """Spatial angular velocity omega = T_s(theta) dtheta/dt (seed 002 eq. 10)."""
    return lie.tangent_t(theta_exact(t)) @ theta_dot_exact(t)


@njit(cache=True)
def near_singular(theta: np.ndarray) -> bool:
    """True if |theta| is within SINGULAR_GAP of a non-zero multiple of 2 pi."""
    v = np.sqrt(theta[0] ** 2 + theta[1] ** 2 + theta[2] ** 2)
    k = np.floor(v / TWO_PI + 0.5)
    return k >= 1.0 and abs(v - k * TWO_PI) < SINGULAR_GAP


@njit(cache=True)
def rhs(data: tuple, t: float, y: np.ndarray, ydot: np.ndarray, A: np.ndarray, b: np.ndarray) -> bool:
    """dtheta/dt = T_s(theta)^-1 omega(t) (seed 002 eq. 12); False at the 2 pi singularity."""
    if near_singular(y):
        return False
    ydot[:] = lie.tangent_inv_t(y) @ omega(t)
    return True


@njit(cache=True)
def switch(y: np.ndarray, threshold: float) -> bool:
    """Seed 002's method 2: if |theta| > threshold, replace theta by theta - 2 pi theta/|theta|."""
    v = np.sqrt(y[0] ** 2 + y[1] ** 2 + y[2] ** 2)
    if v > threshold:
        f = 1.0 - TWO_PI / v
        for i in range(3):
            y[i] *= f
        return True
    return False


@njit(cache=True)
def rotation_diagnostics(t: float, R: np.ndarray, d: np.ndarray) -> None:
    """Diagnostics of a method's own rotation matrix R at time t: rotation error |vee(log(R^T R_exact))|
    (seed 002 eq. 17) and orthogonality ||I - R R^T||; the other fields are NaN."""
    Re = lie.expm_so3(theta_exact(t))
    w = lie.logm_so3(R.T @ Re)
    for j in range(4):
        d[j] = np.nan
    d[4] = lie.orthogonality_error(R)
    d[5] = np.nan
    d[6] = np.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2)


@njit(cache=True)
def diagnostics(data: tuple, t: float, y: np.ndarray, d: np.ndarray) -> None:
    """Rotation error |vee(log(R_num^T R_exact))| (seed 002 eq. 17) and orthogonality of R_num = exp(hat(y))."""
    rotation_diagnostics(t, lie.expm_so3(y), d)


@njit(cache=True)
def rotation_state(t: float, R: np.ndarray, y: np.ndarray, d: np.ndarray) -> None:
    """For methods that advance R itself: y = the principal rotation vector log(R) (|y| <= pi, the benchmark's
    state layout) and the diagnostics d of R itself (not of exp(hat(y)))."""
    w = lie.logm_so3(R)
    for i in range(3):
        y[i] = w[i]
    rotation_diagnostics(t, R, d)


@njit(cache=True)
def record_rotation(t: float, R: np.ndarray, y: np.ndarray, d: np.ndarray, k: int, samples: np.ndarray,
                    n_saved: int, maxima: np.ndarray, ref: np.ndarray, stride: int, last: int) -> int:
    """rotation_state at step k, then kernels.record: the recording of every method that advances R itself."""
    rotation_state(t, R, y, d)
    return kernels.record(samples, n_saved, maxima, ref, t, y, d, k, stride, last)


@njit(cache=True)
def rotate_left(u: np.ndarray, R: np.ndarray, E: np.ndarray) -> bool:
    """R <- exp(hat(u)) R (a step of spatial angular velocity; E is scratch); False if u is not finite."""
    if not kernels.state_ok(u):
        return False
    lie.expm_so3_into(u, E)
    R[:, :] = E @ R
    return True


@njit(cache=True)
def rotation_work_fields() -> tuple:
    """The work array's fields (kernels.carve) of the methods that advance the rotation matrix itself: R (9,
    row-major)."""
    return (9,)


def rotation_work_size(model: Model) -> int:
    """Work of the methods that advance the rotation matrix itself: the sum of rotation_work_fields."""
    return sum(python_function(rotation_work_fields)())


def singularity_note(y: np.ndarray) -> str:
    """Where a rotation vector stands relative to the singularities |theta| = 2 k pi (for failure messages)."""
    v = float(np.linalg.norm(y[:3]))
    k = max(1, round(v / TWO_PI))
    return (
        f"|theta| = {v:.9g}, {abs(v - k * TWO_PI):.2g} from the rotation-vector singularity |theta| = "
        f"{'' if k == 1 else f'{k} x '}2 pi, where T^-1 (seed 002 eq. 12) is unbounded"
    )


def rotations(theta: np.ndarray) -> np.ndarray:
    """R = exp(hat(theta)) for an array of rotation vectors (n, 3) -> (n, 3, 3) (vectorised Rodrigues)."""
    v = np.linalg.norm(theta, axis=1)
    safe = np.where(v > 0, v, 1.0)
    a = np.where(v > 1e-4, np.sin(v) / safe, 1 - v**2 / 6)
    b = np.where(v > 1e-2, (1 - np.cos(v)) / safe**2, 0.5 - v**2 / 24)
    W = np.zeros((theta.shape[0], 3, 3))
    W[:, 0, 1], W[:, 0, 2], W[:, 1, 2] = -theta[:, 2], theta[:, 1], -theta[:, 0]
    W = W - W.transpose(0, 2, 1)
    return np.eye(3) + a[:, None, None] * W + b[:, None, None] * (W @ W)


def build(p: dict[str, Any]) -> Model:
    """The fixed test problem; the initial rotation vector is theta(0) = 0."""
    data = (np.zeros(1),)

    def unpack(states: np.ndarray) -> dict[str, np.ndarray]:
        th = states[:, :3]
        return {"R": rotations(th)[:, None], "theta": th}

    def points(states: np.ndarray) -> np.ndarray:
        R = rotations(states[:, :3])
        return np.concatenate([np.zeros((R.shape[0], 1, 3)), R.transpose(0, 2, 1)], axis=1)

    return Model("rotvec", data, np.zeros(3), unpack, points, ("origin", "e1", "e2", "e3"),
                 domain_message="the rotation vector reached the singularity |theta| = 2 k pi of seed 002's "
                 "kinematics (eq. 12); seed 002's switch (rotvec_rk45_switch, rk4's switch option) avoids it",
                 state_note=singularity_note)


BENCHMARK = Benchmark(
    id="angular_velocity",
    title="Rotation from angular velocity (rotation-vector singularity)",
    seed="002",
    description=(
        "Recover R(t) over 0-2 s from the spatial angular velocity of seed 002's test rotation "
        "theta(t) = [sin^2(20t) + 10 sin t, 5t, sin t + 0.08(cos 100t - 1)]. Integrating the rotation vector "
        "meets the singularity |theta| = 2 pi unless it is switched to theta - 2 pi theta/|theta|."
    ),
    params={},
    build=build,
    default_h=1e-3,
    default_t_end=2.0,
    machinery="rotvec",
    gravity_direction=None,
)
