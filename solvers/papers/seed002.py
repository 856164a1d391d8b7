"""Seed 002, section 3: rotation from angular velocity (docs/benchmarks.md B6)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from ..result import Result
from .model import Claim, Experiment, Run, Series, Verdict, _partial_note, summary_below, summary_in_band

# ---------------------------------------------------------------------------------------------------------------
# seed 002, section 3: rotation from angular velocity (docs/benchmarks.md B6)
# ---------------------------------------------------------------------------------------------------------------

AV = "angular_velocity"
SEED002_TOL = 1e-10  # the seed's ode45 rtol = atol
SWITCH_LEVEL = 1.5 * math.pi  # the seed's buffer region starts at |theta| = 3 pi/2
AROUND = (1e-11, 1e-9)  # "around 1e-10" (Fig. 7): within a factor 10
BEFORE_SINGULARITY = 1e-8  # "accurate before the singular point" (Fig. 7): max rotation error of method 1


def norm_crossings(level: float, t_end: float = 2.0, n: int = 20001) -> list[float]:
    """Times where |theta_exact(t)| of seed 002's test function crosses ``level`` (grid plus bisection)."""
    from ..models.angular_velocity import theta_exact

    def f(t: float) -> float:
        return float(np.linalg.norm(theta_exact(t))) - level

    ts = np.linspace(0.0, t_end, n)
    v = np.array([f(t) for t in ts])
    out = []
    for i in np.nonzero(v[:-1] * v[1:] < 0)[0]:
        lo, hi = ts[i], ts[i + 1]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if (f(mid) < 0) == (v[i] < 0):
                lo = mid
            else:
                hi = mid
        out.append(0.5 * (lo + hi))
    return out


def theta_norm(res: Result) -> np.ndarray:
    """|theta| of the saved rotation vectors (seed 002 Fig. 6)."""
    return np.linalg.norm(res.state["theta"], axis=1)


def _component(i: int) -> Callable[[Result], np.ndarray]:
    def extract(res: Result) -> np.ndarray:
        return res.state["theta"][:, i]

    return extract


def _failure_time(res: Result) -> float:
    """The time named in a failed run's message (the last saved time otherwise)."""
    import re

    m = re.match(r"failed at t = ([0-9.eE+-]+) s", res.message)
    return float(m.group(1)) if m else float(res.t[-1])


def _method1_fails(runs: Mapping[str, Result]) -> Verdict:
    res = runs["method 1"]
    crossings = norm_crossings(2 * math.pi, res.t_end)
    if not crossings:
        return (f"not measured: the run ends at {res.t_end:g} s, before |theta_exact| reaches 2 pi", None,
                {"status": res.status})
    t_sing = crossings[0]
    t_fail = _failure_time(res)
    ok = res.status == "failed" and abs(t_fail - t_sing) <= 1e-3 and "singularity" in res.message
    return (f"method 1 {res.status} at t = {t_fail:.6g} s (first |theta_exact| = 2 pi at {t_sing:.6g} s): "
            f"{res.message}", bool(ok), {"status": res.status, "t_fail": t_fail, "t_singular": t_sing,
                                         "internal_steps": res.summary.get("internal_steps"),
                                         "min_internal_step": res.summary.get("min_internal_step")})


def _method2_switches(runs: Mapping[str, Result]) -> Verdict:
    res = runs["method 2"]
    times = list(res.summary.get("switch_times", []))
    expected = [c for j in range(len(times) + 1)
                for c in norm_crossings(SWITCH_LEVEL + 2 * math.pi * j, res.t[-1])[:1]]
    delays = [ts - tc for ts, tc in zip(times, expected, strict=False)]
    vmax = float(theta_norm(res).max())
    ok = (res.ok and len(times) >= 1 and len(expected) == len(times) and all(0 <= dl <= res.h for dl in delays)
          and vmax <= SWITCH_LEVEL + 1e-9)
    return (f"{len(times)} switches at t = " + ", ".join(f"{x:.5g}" for x in times) + " s, "
            + "after |theta_exact| = 3 pi/2 + 2 pi k at " + ", ".join(f"{x:.5g}" for x in expected) + " s; "
            f"max |theta| of the saved samples {vmax:.4f} (3 pi/2 = {SWITCH_LEVEL:.4f})"
            + _partial_note(runs, ("method 2",)),
            bool(ok), {"switch_times": times, "crossings": expected, "max_theta_norm": vmax})


def _method2_completes(runs: Mapping[str, Result]) -> Verdict:
    res = runs["method 2"]
    return (f"method 2 {res.status} at t = {res.t[-1]:.6g} s{': ' + res.message if res.message else ''}",
            bool(res.ok and abs(res.t[-1] - res.t_end) < 1e-9), {"status": res.status, "t_last": float(res.t[-1])})


_H2 = 0.005
_T2 = 2.0
SEED002 = Experiment(
    id="seed002",
    seed="002",
    section="3",
    title="Rotation from angular velocity: rotation vector with ode45, without (method 1) and with (method 2) the "
          "2 pi switch",
    source=(
        'Zhang, Hou, Qi, "A numerical integration method for angular velocity vectors to avoid singularity of '
        'large rotation", Applied Mathematics and Mechanics 39(4), 2018, section 3 (Figs. 4-7)'
    ),
    setup="theta(t) = [sin^2(20t) + 10 sin t, 5t, sin t + 0.08 (cos 100t - 1)], omega = T theta' (eqs. 9-10, 18); "
          "integrate dtheta/dt = T^-1 omega (eq. 16) over 2 s with MATLAB ode45 at rtol = atol = 1e-10. Ours: "
          "Dormand-Prince 5(4) with ode45's step-size control (rotvec_rk45, rotvec_rk45_switch), output every "
          f"{_H2:g} s (also the largest step); beyond the paper: quaternion RK4, RKMK4 and Magnus-4 at h = 1e-3.",
    says=(
        ("Fig. 4", "Method 1 (no treatment of the singularity): the integration fails; near the singular region "
                   "T^-1 is ill-conditioned and the tolerances cannot be met."),
        ("Fig. 5", "Method 2 (switch theta -> theta - 2 pi theta/|theta| when |theta| > 3 pi/2 after a successful "
                   "step): the integration completes."),
        ("Fig. 6", "|theta|: method 1 proceeds while far from 2 pi and never passes |theta| = 2 pi; method 2 is "
                   "pulled back to the stable region on entering the buffer region at 3 pi/2."),
        ("Fig. 7", "Rotation error |alpha_err| (eq. 17): method 1 is accurate before the singular point but cannot "
                   "pass it; method 2's error is around 1e-10, meeting the tolerance."),
    ),
    runs=(
        Run("method 1", AV, "rotvec_rk45", _H2, _T2, options={"rtol": SEED002_TOL, "atol": SEED002_TOL}),
        Run("method 2", AV, "rotvec_rk45_switch", _H2, _T2, options={"rtol": SEED002_TOL, "atol": SEED002_TOL}),
        Run("quaternion", AV, "quaternion_rk4", 1e-3, _T2, role="extension",
            note="beyond the paper: renormalised quaternion RK4, no singularity"),
        Run("RKMK4", AV, "rkmk4", 1e-3, _T2, role="extension",
            note="beyond the paper: Runge-Kutta-Munthe-Kaas RK4 on SO(3)"),
        Run("Magnus-4", AV, "magnus4", 1e-3, _T2, role="extension",
            note="beyond the paper: fourth-order Magnus with two Gauss points"),
    ),
    series=(
        Series("theta_1", "Rotation vector component theta_1", "Figs. 4-5", "rad", ("method 1", "method 2"),
               _component(0)),
        Series("theta_2", "Rotation vector component theta_2", "Figs. 4-5", "rad", ("method 1", "method 2"),
               _component(1)),
        Series("theta_3", "Rotation vector component theta_3", "Figs. 4-5", "rad", ("method 1", "method 2"),
               _component(2)),
        Series("theta_norm", "Norm of the rotation vector |theta|", "Fig. 6", "rad", ("method 1", "method 2"),
               theta_norm),
        Series("rotation_error", "Rotation error |alpha_err| (eq. 17)", "Fig. 7", "rad",
               ("method 1", "method 2", "quaternion", "RKMK4", "Magnus-4"), lambda r: r.rotation_error, log=True),
    ),
    claims=(
        Claim("method1_fails", "Method 1 cannot pass |theta| = 2 pi: the integration fails there",
              "Figs. 4 and 6: without treatment the integration fails at the singular point |theta| = 2 pi",
              "status failed, at the first crossing of |theta_exact| = 2 pi (within 1e-3 s), with a message "
              "naming the singularity", ("method 1",), _method1_fails),
        Claim("method1_accurate", "Method 1 is accurate before the singular point",
              "Fig. 7: method 1 obtains solutions meeting the accuracy before the singular point",
              f"max rotation error of method 1 up to its failure <= {BEFORE_SINGULARITY:g}", ("method 1",),
              summary_below("max_rotation_error", ("method 1",), BEFORE_SINGULARITY, "max |alpha_err| (rad)")),
        Claim("method2_completes", "Method 2 completes the 2 s", "Figs. 5-6: with the switch the integration "
              "completes", "status ok and the last sample at t_end = 2 s", ("method 2",), _method2_completes),
        Claim("method2_switch", "Method 2 switches on entering the buffer region and stays in the stable region",
              "Fig. 6: points entering the buffer region (|theta| > 3 pi/2) are pulled back to the stable region",
              "every switch within one output step after |theta_exact| crosses 3 pi/2 + 2 pi k (k = 0, 1, ...), "
              "no crossing missed, |theta| <= 3 pi/2 at every saved sample", ("method 2",), _method2_switches),
        Claim("method2_error", "Method 2's rotation error is around 1e-10",
              "Fig. 7: the rotation error of method 2 is about 1e-10, meeting the tolerance",
              f"max rotation error over every output step in [{AROUND[0]:g}, {AROUND[1]:g}]", ("method 2",),
              summary_in_band("max_rotation_error", ("method 2",), AROUND[0], AROUND[1], "max |alpha_err| (rad)")),
    ),
    notes=(
        "h is the output spacing of the adaptive runs and their largest internal step; ode45 instead steps freely "
        "and interpolates, so step counts differ slightly from MATLAB's.",
        "Method 1 stops where the step size falls to 16 eps t (ode45's floor) while |theta| approaches 2 pi; the "
        "kinematics are refused within 1e-6 of 2 pi, where T^-1 is unbounded.",
        "The extension runs save the principal rotation vector log(R) (|theta| <= pi), so they are shown in "
        "Fig. 7 only.",
    ),
)
