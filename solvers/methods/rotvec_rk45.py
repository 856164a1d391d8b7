"""Seed 002's methods 1 and 2: the rotation-vector kinematics dtheta/dt = T^-1(theta) omega(t) (eq. 16) with
an adaptive Dormand-Prince 5(4) pair and MATLAB ode45's step-size control, without (``rotvec_rk45``) and with
(``rotvec_rk45_switch``) the 2 pi switch theta -> theta - 2 pi theta/|theta| when |theta| > 3 pi/2 after an
accepted step (seed 002 section 2, Figs. 2-3).

Step-size control as in MATLAB's ode45 (Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19; Shampine &
Reichelt, SIAM J. Sci. Comput. 18 (1997) 1): 5th-order solution with FSAL, error
err = h ||E k / max(|y|, |y_new|, atol/rtol)||_inf, accepted if err <= rtol; after an accepted step
h <- h / max(1.25 (err/rtol)^(1/5), 0.2) (no growth right after a rejection); on the first rejection
h <- h max(0.1, 0.8 (rtol/err)^(1/5)), on further ones h <- h/2; the run fails when h falls to 16 eps |t|.
ode45's initial step h0 = min(h_max, 1/r), r = ||f0 / max(|y0|, atol/rtol)||_inf / (0.8 rtol^(1/5)).

Contract (solvers.kernels): ``h`` is the output spacing and the largest internal step; each output step lands
exactly on t_k = k h (a step that reaches within 10 % of the grid point is stretched to it, as ode45 does at
t_final, and the unclipped proposal is kept for the next step). A stage that meets the singularity
(|theta| within 1e-6 of 2 k pi, where the model refuses to evaluate T^-1) rejects the step like a failed error
test. Besides the step-size floor, a cap on internal steps per output step guards against endless stepping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels
from ..jit import python_function
from ..models import angular_velocity
from ..models.base import Model
from .base import Method, Option

EPS = 2.220446049250313e-16
# Dormand-Prince 5(4) coefficients (Hairer, Norsett, Wanner, Solving ODEs I, Table II.5.2)
C2, C3, C4, C5 = 1 / 5, 3 / 10, 4 / 5, 8 / 9
A21 = 1 / 5
A31, A32 = 3 / 40, 9 / 40
A41, A42, A43 = 44 / 45, -56 / 15, 32 / 9
A51, A52, A53, A54 = 19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729
A61, A62, A63, A64, A65 = 9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656
B1, B3, B4, B5, B6 = 35 / 384, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84
# 5th minus 4th order weights (MATLAB ode45's E)
E1, E3, E4, E5, E6, E7 = 71 / 57600, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40
POW = 1.0 / 5.0

SWITCH_TIMES_CAP = 1000


# the option array's slots, in the order pack writes them
O_SWITCH, O_THRESHOLD, O_RTOL, O_ATOL, O_CAP = range(5)


@njit(cache=True)
def _work_fields() -> tuple:
    """The work array's fields (kernels.carve), kept between calls of the kernel: the next step's proposal (0:
    none yet), the smallest accepted step, the count of stored switch times, the switch times."""
    return 1, 1, 1, SWITCH_TIMES_CAP


@njit(cache=True)
def _stage(rot, t, y, h, k1, k2, k3, k4, k5, k6, a1, a2, a3, a4, a5, a6, ys, out, A, b) -> bool:
    """out = f(t, y + h (a1 k1 + ... + a6 k6)); ys is scratch. False if f cannot be evaluated."""
    for i in range(y.shape[0]):
        ys[i] = y[i] + h * (a1 * k1[i] + a2 * k2[i] + a3 * k3[i] + a4 * k4[i] + a5 * k5[i] + a6 * k6[i])
    return angular_velocity.rhs(rot, t, ys, out, A, b)


@njit(cache=True)
def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
            info):
    """Adaptive DOPRI5 kernel (contract in solvers.kernels, ``h`` = output spacing).

    opts = [switch (0/1), switch threshold, rtol, atol, internal-step cap per output step].
    """
    ny = y.shape[0]
    A = np.empty((3, 3))
    b = np.empty(3)
    k1 = np.empty(ny)
    k2 = np.empty(ny)
    k3 = np.empty(ny)
    k4 = np.empty(ny)
    k5 = np.empty(ny)
    k6 = np.empty(ny)
    k7 = np.empty(ny)
    ys = np.empty(ny)
    yn = np.empty(ny)
    d = np.empty(kernels.N_DIAG)
    use_switch = opts[O_SWITCH] > 0.5
    threshold = opts[O_THRESHOLD]
    rtol = opts[O_RTOL]
    thr = opts[O_ATOL] / opts[O_RTOL]
    cap = int(opts[O_CAP])
    h_next, h_min, n_times, times = kernels.carve(work, _work_fields())
    t = t_start + k0 * h
    if not angular_velocity.rhs(data[2], t, y, k1, A, b):
        info[kernels.INFO_TIME] = t
        return 0, kernels.DOMAIN, n_saved
    if k0 == 0:
        angular_velocity.diagnostics(data[2], t, y, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, last)
    hnext = h_next[0]
    if hnext <= 0.0:  # ode45's initial step
        r = 0.0
        for i in range(ny):
            r = max(r, abs(k1[i]) / max(abs(y[i]), thr))
        r /= 0.8 * rtol**POW
        hnext = h
        if hnext * r > 1.0:
            hnext = 1.0 / r
        h_min[0] = np.inf
    for s in range(n_steps):
        t_target = t_start + (k0 + s + 1) * h
        attempts = 0
        while t < t_target:
            hmin = 16.0 * EPS * abs(t_target)
            absh = max(min(hnext, h), hmin)
            remaining = t_target - t
            clipped = 1.1 * absh >= remaining
            hs = remaining if clipped else absh
            first_failure = True
            while True:
                attempts += 1
                if attempts > cap:
                    info[kernels.INFO_TIME] = t
                    info[kernels.INFO_STEP] = hs
                    info[kernels.INFO_CAP] = cap
                    h_next[0] = hs
                    return s, kernels.STEPSIZE, n_saved
                ok = _stage(data[2], t + C2 * hs, y, hs, k1, k1, k1, k1, k1, k1, A21, 0.0, 0.0, 0.0, 0.0, 0.0,
                            ys, k2, A, b)
                ok = ok and _stage(data[2], t + C3 * hs, y, hs, k1, k2, k1, k1, k1, k1, A31, A32, 0.0, 0.0, 0.0,
                                   0.0, ys, k3, A, b)
                ok = ok and _stage(data[2], t + C4 * hs, y, hs, k1, k2, k3, k1, k1, k1, A41, A42, A43, 0.0, 0.0,
                                   0.0, ys, k4, A, b)
                ok = ok and _stage(data[2], t + C5 * hs, y, hs, k1, k2, k3, k4, k1, k1, A51, A52, A53, A54, 0.0,
                                   0.0, ys, k5, A, b)
                ok = ok and _stage(data[2], t + hs, y, hs, k1, k2, k3, k4, k5, k1, A61, A62, A63, A64, A65, 0.0,
                                   ys, k6, A, b)
                err = np.inf
                if ok:
                    for i in range(ny):
                        yn[i] = y[i] + hs * (B1 * k1[i] + B3 * k3[i] + B4 * k4[i] + B5 * k5[i] + B6 * k6[i])
                    ok = angular_velocity.rhs(data[2], t + hs, yn, k7, A, b)
                if ok:
                    e = 0.0
                    for i in range(ny):
                        est = E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i]
                        e = max(e, abs(est) / max(max(abs(y[i]), abs(yn[i])), thr))
                    err = hs * e
                if err <= rtol:
                    break
                info[kernels.INFO_REJECTED] += 1.0
                if hs <= hmin:
                    info[kernels.INFO_TIME] = t
                    info[kernels.INFO_STEP] = hs
                    h_next[0] = hs
                    return s, kernels.STEPSIZE, n_saved
                if first_failure:
                    first_failure = False
                    hs = max(hmin, hs * max(0.1, 0.8 * (rtol / err) ** POW))
                else:
                    hs = max(hmin, 0.5 * hs)
                clipped = False
            # accepted
            info[kernels.INFO_ACCEPTED] += 1.0
            if not kernels.state_ok(yn):
                info[kernels.INFO_TIME] = t + hs
                return s, kernels.NONFINITE, n_saved
            if hs < h_min[0]:
                h_min[0] = hs
            if first_failure:
                temp = 1.25 * (err / rtol) ** POW
                hnext = hs / temp if temp > 0.2 else 5.0 * hs
            else:
                hnext = hs
            if clipped:
                hnext = max(hnext, absh)
                t = t_target
            else:
                t = t + hs
            for i in range(ny):
                y[i] = yn[i]
                k1[i] = k7[i]
            if use_switch and angular_velocity.switch(y, threshold):
                info[kernels.INFO_SWITCHES] += 1.0
                nt = int(n_times[0])
                if nt < SWITCH_TIMES_CAP:
                    times[nt] = t
                    n_times[0] = nt + 1
                if not angular_velocity.rhs(data[2], t, y, k1, A, b):
                    info[kernels.INFO_TIME] = t
                    return s, kernels.DOMAIN, n_saved
        h_next[0] = hnext
        angular_velocity.diagnostics(data[2], t, y, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, k0 + s + 1, stride, last)
    return n_steps, kernels.OK, n_saved


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [switch, threshold, rtol, atol, internal-step cap]."""
    return np.array([1.0 if o.get("switch", False) else 0.0, o.get("switch_threshold", 1.5 * np.pi), o["rtol"],
                     o["atol"], float(o["max_internal_steps"])])


def work_size(model: Model) -> int:
    """Step-size memory and the stored switch times: the sum of _work_fields."""
    return sum(python_function(_work_fields)())


def report(work: np.ndarray, info: np.ndarray) -> dict[str, Any]:
    """Internal step counts, the smallest accepted step, the switch count and times (summary entries)."""
    _h_next, h_min, n_times, times = kernels.carve(work, python_function(_work_fields)())
    nt = int(n_times[0])
    return {
        "internal_steps": int(info[kernels.INFO_ACCEPTED]),
        "rejected_steps": int(info[kernels.INFO_REJECTED]),
        "min_internal_step": float(h_min[0]) if np.isfinite(h_min[0]) else float("nan"),
        "switches": int(info[kernels.INFO_SWITCHES]),
        "switch_times": [float(x) for x in times[:nt]],
    }


ADAPTIVE_OPTIONS: dict[str, Option] = {
    "rtol": Option(1e-10, "relative error tolerance (seed 002: 1e-10)", "float", 1e-13, 1e-2),
    "atol": Option(1e-10, "absolute error tolerance (seed 002: 1e-10)", "float", 1e-16, 1.0),
    "max_internal_steps": Option(100_000, "internal steps (accepted and rejected) allowed per output step",
                                 "int", 10, 100_000_000),
}

METHOD = Method(
    id="rotvec_rk45",
    title="Rotation vector, adaptive RK45 (seed 002 method 1)",
    seed="002",
    order=5,
    adaptive=True,
    description=(
        "Seed 002's method 1: dtheta/dt = T^-1(theta) omega (eq. 16) with Dormand-Prince 5(4) and MATLAB ode45's "
        "step-size control; h is the output spacing and largest step. Without the switch it cannot pass "
        "|theta| = 2 pi and fails there."
    ),
    kernel=advance,
    machineries=("rotvec",),
    options=dict(ADAPTIVE_OPTIONS),
    pack=pack,
    work_size=work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "adaptive step", "rotation vector (singular at |theta| = 2 pi)"),
    report=report,
)

METHOD_SWITCH = Method(
    id="rotvec_rk45_switch",
    title="Rotation vector, adaptive RK45 with the 2 pi switch (seed 002 method 2)",
    seed="002",
    order=5,
    adaptive=True,
    description=(
        "Seed 002's method 2: method 1 plus, after every accepted step, theta -> theta - 2 pi theta/|theta| "
        "when |theta| > 3 pi/2 (stable/buffer/singular regions, Fig. 2); the switch times are in the summary."
    ),
    kernel=advance,
    machineries=("rotvec",),
    options={
        **ADAPTIVE_OPTIONS,
        "switch": Option(True, "seed 002's 2 pi switch of the rotation vector", "bool"),
        "switch_threshold": Option(1.5 * np.pi, "switch when |theta| exceeds this (seed 002: 3 pi/2)", "float",
                                   np.pi, 2 * np.pi - 1e-3),
    },
    pack=pack,
    work_size=work_size,
    benchmarks=("angular_velocity",),
    properties=("explicit", "adaptive step", "rotation vector with the 2 pi switch"),
    report=report,
)
