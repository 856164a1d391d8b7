"""Lessons: short guided demos on the real solvers, for the dashboard's /lessons page.

A lesson asks a question, runs a few methods (``run_lesson``), and returns plain data: its charts with the
annotations placed from the computed data (arrows, shaded spans, reference lines), the numbers its sentences
state, and every sentence that states a fact about the result with ``holds``, the test of that fact on the same
numbers (tests/test_lessons.py fails the suite when one stops holding). One "try it" value (a step size, a spin
rate) changes the runs; every value the page offers is checked by the tests.

Each lesson names its seed paper by authors and title (``SOURCES``; docs/references.md has the full entries).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import api, references
from .figures import decimate

MAX_POINTS = 1500  # points per trace sent to the browser


@dataclass(frozen=True)
class TryIt:
    """The lesson's one control: a value from ``values`` (``default`` first shown)."""

    label: str
    values: tuple[float, ...]
    default: float


@dataclass(frozen=True)
class Lesson:
    """A lesson: its texts and ``compute(value) -> data`` (see :func:`run_lesson`)."""

    id: str
    title: str
    source: str
    question: str
    explanation: str  # Markdown, 3-6 sentences, at most one $$ formula $$
    class_question: str
    answer: str
    try_it: TryIt
    compute: Callable[[float], dict[str, Any]]
    n_charts: int = 1  # how many charts compute returns (the page shows one per step)


def _trace(name: str, x: np.ndarray, y: np.ndarray, dash: str | None = None) -> dict[str, Any]:
    xs, ys = decimate(np.asarray(x, float), np.asarray(y, float), MAX_POINTS // 2)  # keeps every peak
    return {"name": name, "x": [float(v) for v in xs], "y": [float(v) if np.isfinite(v) else None for v in ys],
            "dash": dash}


def _chart(title: str, x_title: str, y_title: str, traces: list[dict], log: bool = False,
           arrows: list[dict] | None = None, spans: list[dict] | None = None,
           hlines: list[dict] | None = None) -> dict[str, Any]:
    """A chart as plain data. ``arrows``: {x, y, text} (an arrow at a data point); ``spans``: {x0, x1, text}
    (a shaded time span); ``hlines``: {y, text} (a reference line)."""
    return {"title": title, "x_title": x_title, "y_title": y_title, "log": log, "traces": traces,
            "arrows": arrows or [], "spans": spans or [], "hlines": hlines or []}


def _claim(text: str, holds: bool) -> dict[str, Any]:
    return {"text": text, "holds": bool(holds)}


def _data(facts: dict, charts: list, claims: list, benchmark: str, methods: list[str], h: float, t_end: float,
          params: dict | None = None) -> dict[str, Any]:
    """A lesson's data: the numbers, the charts, the stated facts and the Run page configuration of its runs."""
    run_page = {"benchmark": benchmark, "methods": list(methods), "h": h, "t_end": t_end}
    if params:
        run_page["params"] = params
    return {"facts": facts, "charts": charts, "claims": claims, "run_page": run_page}


def _up_crossings(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Times where x crosses 0 upwards (linear interpolation between samples)."""
    i = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def _fmt(v: float) -> str:
    return f"{v:.2g}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.3g}"


# ---- 1. energy ------------------------------------------------------------------------------------------------
def _energy(h: float) -> dict[str, Any]:
    b, t_end = "planar_pendulum", 60.0
    rk, mid = (api.simulate(b, m, h=h, t_end=t_end) for m in ("rk4", "midpoint_angle"))
    ref = references.reference(b, mid.t, mid.params)
    drop = float(rk.energy_error[-1])
    steps_down = bool(np.all(np.diff(rk.energy_error) < 0))
    mid_err = np.abs(mid.energy_error)
    half = mid_err.shape[0] // 2
    mid_max = float(mid_err.max())
    bounded = mid_err[half:].max() <= 1.5 * mid_err[:half].max()
    tr, tm = _up_crossings(ref.t, ref.state["theta"]), _up_crossings(mid.t, mid.state["theta"])
    n = min(tr.shape[0], tm.shape[0])
    lag = float(tm[n - 1] - tr[n - 1])
    amp_rk = float(np.abs(rk.state["theta"][-rk.t.shape[0] // 10:]).max())
    amp_ref = float(np.abs(ref.state["theta"]).max())
    window = rk.t >= tr[n - 1] - 2.5 * (tr[n - 1] - tr[n - 2])
    period = float(np.mean(np.diff(tr)))  # the exact motion's, from its upward zero crossings
    p = rk.params
    # the energy of the swing: above the pendulum at rest at the bottom (U = -m g l cos(theta))
    swing = 0.5 * p["J"] * p["omega0"] ** 2 + p["m"] * p["g"] * p["l"] * (1 - np.cos(p["theta0"]))
    share = -drop / swing
    amp_last = float(np.abs(rk.state["theta"][rk.t >= rk.t[-1] - period]).max())
    facts = {"h": h, "t_end": t_end, "rk4_energy_change": drop, "midpoint_max_energy_error": mid_max,
             "midpoint_lag": lag, "periods": n - 1, "rk4_amplitude": amp_rk, "exact_amplitude": amp_ref,
             "period": period, "steps_per_period": period / h, "swing_energy": swing, "rk4_share_lost": share}
    charts = [
        _chart("Energy error E(t) - E(0)", "time t [s]", "E - E(0) [J]",
               [_trace("rk4", rk.t, rk.energy_error), _trace("midpoint_angle", mid.t, mid.energy_error)],
               arrows=[{"x": float(rk.t[-1]), "y": drop, "text": f"rk4: {_fmt(drop)} J, falling at every step"},
                       {"x": float(mid.t[int(np.argmax(mid_err))]), "y": float(mid.energy_error[np.argmax(mid_err)]),
                        "text": f"midpoint: bounded, |E - E0| <= {_fmt(mid_max)} J"}]),
        _chart("The last periods: angle theta(t)", "time t [s]", "theta [rad]",
               [_trace("exact", ref.t[window], ref.state["theta"][window], "dot"),
                _trace("rk4", rk.t[window], rk.state["theta"][window]),
                _trace("midpoint_angle", mid.t[window], mid.state["theta"][window])],
               spans=[{"x0": float(tr[n - 1]), "x1": float(tm[n - 1]),
                       "text": f"midpoint {lag:.2f} s behind after {n - 1} periods"}]),
    ]
    claims = [
        _claim(f"One period of the exact motion lasts {period:.3f} s: at h = {h:g} s that is {period / h:.1f} steps "
               "per period.", abs(period - 2 * np.pi * np.sqrt(p["J"] / (p["m"] * p["g"] * p["l"]))) < 0.01 * period),
        _claim(f"rk4's energy falls at every step and has lost {_fmt(-drop)} J after {t_end:g} s, {100 * share:.0f}% "
               f"of the {_fmt(swing)} J the swing had (its energy above rest at the bottom): the swing shrinks from "
               f"{amp_ref:.3f} rad to {amp_rk:.3f} rad.",
               steps_down and drop < 0 and amp_rk < amp_ref and 0 < share <= 1
               # the energy left above rest is the swing's at its amplitude over the last period (to 1 % of E_swing)
               and abs((1 - share) * swing - p["m"] * p["g"] * p["l"] * (1 - np.cos(amp_last))) < 0.01 * swing),
        _claim(f"The implicit midpoint rule's energy error stays bounded (at most {_fmt(mid_max)} J, no larger in "
               "the second half of the run than in the first).", bounded),
        _claim(f"Instead its error is in the phase: it runs {lag:.2f} s behind the exact solution after "
               f"{n - 1} periods.", lag > 0),
    ]
    return _data(facts, charts, claims, b, ["rk4", "midpoint_angle"], h, t_end)


# ---- 2. constraints -------------------------------------------------------------------------------------------
def _constraints(h: float) -> dict[str, Any]:
    b, t_end = "two_link_arm", 20.0
    runs = {m: api.simulate(b, m, h=h, t_end=t_end) for m in ("rk4", "hermite_h23g2", "spark")}
    pos = {m: float(np.nanmax(r.constraint_position)) for m, r in runs.items()}
    vel = {m: float(np.nanmax(r.constraint_velocity)) for m, r in runs.items()}
    rk = runs["rk4"]
    facts = {"h": h, "position": pos, "velocity": vel}
    charts = [
        _chart("Position constraint |Phi(q)| (joints apart)", "time t [s]", "|Phi| [m]",
               [_trace(m, r.t, r.constraint_position) for m, r in runs.items()], log=True,
               arrows=[{"x": float(rk.t[-1]), "y": float(rk.constraint_position[-1]),
                        "text": f"rk4 drifts: {_fmt(float(rk.constraint_position[-1]))} m"}],
               hlines=[{"y": 1e-14, "text": "round-off (1e-14)"}]),
        _chart("Velocity constraint |G(q) qdot|", "time t [s]", "|G qdot| [m/s]",
               [_trace(m, r.t, r.constraint_velocity) for m, r in runs.items()], log=True,
               arrows=[{"x": float(runs["hermite_h23g2"].t[-1]),
                        "y": float(runs["hermite_h23g2"].constraint_velocity[-1]),
                        "text": "hermite: its node velocities are not projected"}]),
    ]
    claims = [
        _claim(f"rk4 on the index-1 equations drifts off the constraints: the joints are {_fmt(pos['rk4'])} m apart "
               f"by t = {t_end:g} s.", pos["rk4"] > 1e-6),
        _claim(f"Hermite (h23g2) and SPARK keep the position constraint at round-off ({_fmt(pos['hermite_h23g2'])} "
               f"and {_fmt(pos['spark'])} m).", max(pos["hermite_h23g2"], pos["spark"]) < 1e-12),
        _claim(f"SPARK keeps the velocity constraint at round-off too ({_fmt(vel['spark'])} m/s); Hermite's node "
               f"velocities do not satisfy it (up to {_fmt(vel['hermite_h23g2'])} m/s): seed 001 constrains "
               "positions only.", vel["spark"] < 1e-12 and vel["hermite_h23g2"] > 1e-6),
    ]
    return _data(facts, charts, claims, b, list(runs), h, t_end)


# ---- 3. rotations stay rotations ------------------------------------------------------------------------------
def _rotations(h: float) -> dict[str, Any]:
    b, t_end = "spatial_double_pendulum", 20.0
    runs = {m: api.simulate(b, m, h=h, t_end=t_end) for m in ("rk4", "lgvi", "rattlie")}
    rk = runs["rk4"]
    at1 = float(rk.orthogonality_error[np.searchsorted(rk.t, 1.0)])
    end = float(rk.orthogonality_error[-1])
    lie = max(float(np.nanmax(runs[m].orthogonality_error)) for m in ("lgvi", "rattlie"))
    facts = {"h": h, "rk4_at_1s": at1, "rk4_at_end": end, "lie_max": lie}
    charts = [_chart("Orthogonality error |R^T R - I| of the rotation matrices", "time t [s]", "|R^T R - I|",
                     [_trace(m, r.t, r.orthogonality_error) for m, r in runs.items()], log=True,
                     arrows=[{"x": 1.0, "y": at1, "text": f"rk4 at 1 s: {_fmt(at1)}"},
                             {"x": float(rk.t[-1]), "y": end, "text": f"rk4 at {t_end:g} s: {_fmt(end)}"}],
                     hlines=[{"y": 1e-8, "text": "1e-8"}])]
    claims = [
        _claim(f"rk4 integrates R as nine numbers and leaves SO(3): its orthogonality error grows from "
               f"{_fmt(at1)} at t = 1 s to {_fmt(end)} at t = {t_end:g} s.", end > at1 and end > 1e-8),
        _claim(f"The Lie group methods (lgvi, rattlie) update R by exp of a rotation and keep it at round-off "
               f"(at most {_fmt(lie)}).", lie < 1e-13),
    ]
    return _data(facts, charts, claims, b, list(runs), h, t_end)


# ---- 4. the rotation-vector singularity -----------------------------------------------------------------------
def _singularity(h: float) -> dict[str, Any]:
    b, t_end = "angular_velocity", 2.0
    runs = {m: api.simulate(b, m, h=h, t_end=t_end) for m in ("rotvec_rk45", "rotvec_rk45_switch", "quaternion_rk4")}
    plain = runs["rotvec_rk45"]
    norms = {m: np.linalg.norm(r.state["theta"], axis=1) for m, r in runs.items() if "theta" in r.state}
    t_fail = float(plain.t[-1])
    facts: dict[str, Any] = {"h": h, "plain_status": plain.status, "plain_fails_at": t_fail,
             "switches": runs["rotvec_rk45_switch"].summary.get("switches"),
             "others": {m: runs[m].status for m in ("rotvec_rk45_switch", "quaternion_rk4")}}
    charts = [_chart("|theta|, the rotation vector's angle", "time t [s]", "|theta| [rad]",
                     [_trace(m, runs[m].t, v) for m, v in norms.items()],
                     arrows=[{"x": t_fail, "y": float(norms["rotvec_rk45"][-1]),
                              "text": f"rotvec_rk45 fails at t = {t_fail:.3f} s"}],
                     hlines=[{"y": 2 * np.pi, "text": "2 pi: T(theta)^-1 is unbounded"}])]
    claims = [
        _claim(f"The plain rotation-vector method fails after t = {t_fail:.3f} s, its last output, where |theta| = "
               f"{float(norms['rotvec_rk45'][-1]):.3f} is about to reach 2 pi.",
               plain.status == "failed" and "singularity" in plain.message
               and 2 * np.pi - 0.05 < float(norms["rotvec_rk45"][-1]) < 2 * np.pi),
        _claim(f"The 2 pi switch (switched {facts['switches']} times) and the quaternion run to the end.",
               all(s == "ok" for s in facts["others"].values())),
    ]
    return _data(facts, charts, claims, b, list(runs), h, t_end)


# ---- 5. gimbal lock -------------------------------------------------------------------------------------------
def _gimbal(spin: float) -> dict[str, Any]:
    b, t_end, h = "pendulum_3d", 2.0, 1e-3
    params = {"cardan0": [0.0, 0.0, 0.0], "Omega0": [0.0, spin, 0.0], "g": 0.0}
    card, rot = (api.simulate(b, m, h=h, t_end=t_end, params=params) for m in ("midpoint_cardan", "midpoint_rotation"))
    pitch = {m: np.arcsin(np.clip(r.state["R"][:, 0, 0, 2], -1, 1)) for m, r in (("midpoint_cardan", card),
                                                                             ("midpoint_rotation", rot))}
    t_fail = float(card.t[-1])
    facts: dict[str, Any] = {"spin": spin, "cardan_status": card.status, "cardan_fails_at": t_fail,
                             "rotation_status": rot.status, "lock_time": float(np.pi / 2 / spin)}
    charts = [_chart("Pitch theta_y = asin(R_13), the middle Cardan angle", "time t [s]", "theta_y [rad]",
                     [_trace(m, r.t, pitch[m]) for m, r in (("midpoint_cardan", card), ("midpoint_rotation", rot))],
                     arrows=[{"x": t_fail, "y": float(pitch["midpoint_cardan"][-1]),
                              "text": f"midpoint_cardan stops at t = {t_fail:.3f} s"}],
                     hlines=[{"y": np.pi / 2, "text": "pi/2: gimbal lock"}])]
    claims = [
        _claim(f"Spinning at {spin:g} rad/s about the body y axis, the Cardan-angle form fails at t = {t_fail:.3f} s, "
               f"as theta_y reaches pi/2 (at t = {facts['lock_time']:.3f} s).",
               card.status == "failed" and "gimbal" in card.message and t_fail <= facts["lock_time"]),
        _claim("The rotation-matrix form goes straight through.", rot.status == "ok"),
    ]
    return _data(facts, charts, claims, b, ["midpoint_cardan", "midpoint_rotation"], h, t_end, params)


# ---- 6. tuning a method: SPARK's gamma ------------------------------------------------------------------------
def _gamma(stages: float) -> dict[str, Any]:
    from .papers.seed003 import S003_GRID, S003_H, S003_STEPS, mean_errors

    b, s = "natural_double_pendulum", int(stages)
    t_end = S003_H * S003_STEPS
    ref = api.simulate(b, "spark", h=S003_H / 100, t_end=t_end, options={"s": s, "gamma": 0.0})
    grid = np.array(S003_GRID)
    errs = [mean_errors(api.simulate(b, "spark", h=S003_H, t_end=t_end, options={"s": s, "gamma": float(g)}), ref)
            for g in grid]
    ex = np.array([e["E_abs_dx"] for e in errs])
    ey = np.array([e["E_abs_dy"] for e in errs])
    opt = api.simulate(b, "spark", h=S003_H, t_end=t_end, options={"s": s, "gamma": "opt"})
    g_opt = float(opt.effective_options["gamma"])
    e_opt = mean_errors(opt, ref)["E_abs_dx"]
    i = int(np.argmin(ex))
    v_shape = bool(0 < i < grid.size - 1 and np.all(np.diff(ex[: i + 1]) < 0) and np.all(np.diff(ex[i:]) > 0))
    e0 = float(ex[np.argmin(np.abs(grid))])
    facts = {"s": s, "gamma_min": float(grid[i]), "gamma_opt": g_opt, "E_dx_gamma0": e0, "E_dx_opt": e_opt,
             "gain": e0 / e_opt}
    charts = [_chart(f"Mean trajectory errors against gamma (SPARK s = {s}, h = {S003_H:g}, {S003_STEPS} steps)",
                     "gamma", "mean error [m]",
                     [_trace("E|dx|", grid, ex), _trace("E|dy|", grid, ey)], log=True,
                     arrows=[{"x": g_opt, "y": e_opt, "text": f"gamma_opt = {g_opt:.3f} (two short runs)"},
                             {"x": 0.0, "y": e0, "text": f"gamma = 0: {_fmt(e0)} m"}],
                     spans=[{"x0": float(grid[max(i - 1, 0)]), "x1": float(grid[min(i + 1, grid.size - 1)]),
                             "text": "the V's tip"}])]
    claims = [
        _claim(f"The mean error E|dx| is V-shaped in gamma with its smallest value at gamma = {grid[i]:g} on the "
               "grid, a positive gamma.", v_shape and grid[i] > 0),
        _claim(f"gamma_opt = {g_opt:.3f}, estimated from two short runs (seed 003 eq. 11), lies in the V's tip "
               f"(between {grid[max(i - 1, 0)]:g} and {grid[min(i + 1, grid.size - 1)]:g}).",
               grid[max(i - 1, 0)] <= g_opt <= grid[min(i + 1, grid.size - 1)]),
        _claim(f"With gamma_opt the error is {e0 / e_opt:.0f} times smaller than with gamma = 0 ({_fmt(e_opt)} "
               f"against {_fmt(e0)} m).", e0 / e_opt >= 10),
    ]
    return _data(facts, charts, claims, b, ["spark"], S003_H, t_end)


# ---- 7. chaos -------------------------------------------------------------------------------------------------
def _chaos(h: float) -> dict[str, Any]:
    b, t_end = "spatial_double_pendulum", 20.0
    runs = {m: api.simulate(b, m, h=h, t_end=t_end) for m in ("rattlie", "lgvi")}
    t = runs["rattlie"].t
    ref = references.reference(b, t, runs["rattlie"].params)
    errors = {m: references.error(r, ref) for m, r in runs.items()}
    ref2 = references.reference(b, t, {**runs["rattlie"].params, "Omega1": [NUDGE, 0.0, 0.0]})
    gap = np.max(np.linalg.norm(ref2.points - ref.points, axis=2), axis=1)
    growth = {m: _growth(t, e) for m, e in errors.items()}  # (decades per second, factor over the fit)
    slope = growth["rattlie"][0]
    fit = growth["rattlie"][2]
    reach = 2 * float(runs["rattlie"].params["rod_length"])  # pivot to the tip of rod 2
    saturated = {m: _saturated(t, e, growth[m], reach) for m, e in errors.items()}
    gap_slope = _growth(t, gap)[0]
    i1 = int(np.searchsorted(t, 1.0))
    energy = {m: float(np.nanmax(np.abs(r.energy_error))) for m, r in runs.items()}
    worst = max(energy, key=lambda m: energy[m])
    peak = int(np.nanargmax(np.abs(runs[worst].energy_error)))
    half = t.shape[0] // 2
    no_growth = all(np.nanmax(np.abs(r.energy_error[half:])) <= 2 * np.nanmax(np.abs(r.energy_error[:half]))
                    for r in runs.values())
    facts: dict[str, Any] = {
        "h": h, "decades_per_s": slope, "seconds_per_decade": 1 / slope if slope > 0 else float("inf"),
        "energy": energy, "perturbed_gap_end": float(gap[-1]), "error_end": float(errors["rattlie"][-1]),
        "perturbed_gap_1s": float(gap[i1]), "perturbed_decades_per_s": gap_slope, "saturated": saturated}
    charts = [
        _chart("Error against the reference (largest point distance)", "time t [s]", "error [m]",
               [*[_trace(m, t, e) for m, e in errors.items()],
                _trace(f"reference nudged by {NUDGE:g} rad/s", t, gap, "dot")], log=True,
               spans=[{"x0": float(t[fit][0]), "x1": float(t[fit][-1]),
                       "text": f"rattlie: x10 every {1 / slope:.1f} s" if slope > 0 else "no growth"}]),
        _chart("Energy error: what can still be compared", "time t [s]", "E - E(0) [J]",
               [_trace(m, r.t, r.energy_error) for m, r in runs.items()],
               arrows=[{"x": float(t[peak]), "y": float(runs[worst].energy_error[peak]),
                        "text": f"{worst}: at most {_fmt(energy[worst])} J, not growing"}]),
    ]
    claims = [
        _claim(f"rattlie's error against the reference grows exponentially, about x10 every {1 / slope:.1f} s at "
               f"h = {h:g} s (fitted between 1 s and 0.1 m; the window, and with it the rate, changes with h), "
               f"until it saturates at the rods' size ({_fmt(facts['error_end'])} m at {t_end:g} s: two points within "
               f"{reach:g} m of the pivot are never more than {2 * reach:g} m apart); lgvi's does the same.",
               all(g[0] > 0.1 and g[1] >= 10 for g in growth.values()) and all(saturated.values())),
        _claim(f"The reference itself, started with rod 1 turning {NUDGE:g} rad/s faster, drifts from "
               f"{_fmt(float(gap[i1]))} m away from itself at 1 s to {_fmt(float(gap[-1]))} m at {t_end:g} s "
               f"(about x10 every {1 / gap_slope:.1f} s): the motion, not the methods, amplifies every error.",
               gap_slope > 0.1 and gap[-1] >= 100 * gap[i1]),
        _claim(f"Their energy errors stay bounded (at most {_fmt(max(energy.values()))} J, no larger in the second "
               "half of the run than twice the first): energy is what can still be compared.", no_growth),
    ]
    return _data(facts, charts, claims, b, list(runs), h, t_end)


def _saturated(t: np.ndarray, e: np.ndarray, growth: tuple[float, float, np.ndarray], reach: float) -> bool:
    """Whether an error grew exponentially up to the rods' size and no further: it grew (a positive fitted rate,
    :func:`_growth`), it reached a quarter of the rods' reach (pivot to tip), and it stays within twice the reach
    (two points that each stay within ``reach`` of the pivot are never farther apart: past that it cannot grow)."""
    slope, _, fit = growth
    peak = float(np.nanmax(e)) if e.size else 0.0
    return bool(fit.any() and slope > 0 and 0.25 * reach <= peak <= 2 * reach)


def _growth(t: np.ndarray, e: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Exponential growth of an error: the slope of log10(e) over the samples after 1 s and below 0.1 m (before
    it saturates at the rods' size), the factor it grows by there, and that mask."""
    fit = (t > 1.0) & (e > 0) & (e < 0.1)
    if fit.sum() < 3:
        return 0.0, 1.0, fit
    return float(np.polyfit(t[fit], np.log10(e[fit]), 1)[0]), float(e[fit][-1] / e[fit][0]), fit


# the seed papers as a lesson cites them (authors and title; docs/references.md has venue, year and DOI)
SOURCES = {
    "000": "seed 000: Huang, Chen, Zhang, Tian, \"Lie group variational integration for multi-rigid body system "
           "dynamic simulation\"",
    "001": "seed 001: Zhang, Wang, Ding, \"Discrete variational method of multibody system dynamics based on "
           "Hermite interpolation\"",
    "002": "seed 002: Zhang, Hou, Qi, \"A numerical integration method for angular velocity vectors to avoid "
           "singularity of large rotation\"",
    "003": "seed 003: Wu, Xu, a parameter pre-tuned symplectic integration method for planar rigid multibody "
           "systems (our description; the title is not in our copy)",
    "004": "seed 004: \"Long Time Simulation Analysis of Geometry Dynamics Model under Iteration\" (Applied "
           "Sciences 2022; authors not in our copy)",
}

NUDGE = 1e-9  # rad/s: the change of rod 1's initial angular velocity in the chaos lesson

STEPS = (0.005, 0.01, 0.02)

LESSONS: dict[str, Lesson] = {lesson.id: lesson for lesson in (
    Lesson(
        "energy", "Energy: losing it, or keeping it", SOURCES["004"],
        "A pendulum swings for a minute with a large step (h = 0.25 s, about 5 steps per period of 1.27 s). What "
        "happens to its energy with rk4, a fourth-order method, and with the implicit midpoint rule, a second-order "
        "one?",
        "rk4 is more accurate per step, but its small errors all push the same way: it damps the motion, so the "
        "energy falls step after step and never comes back. The implicit midpoint rule is symplectic: it is the "
        "exact motion of a slightly different pendulum, whose energy it keeps up to a bounded wobble forever. Its "
        "error goes into the phase instead: the modified pendulum swings a little slower, and the lag grows "
        "linearly in time. For the linear pendulum the midpoint's frequency is"
        "\n\n$$\\tilde\\omega = \\frac{2}{h}\\arctan\\frac{\\omega h}{2} < \\omega .$$",
        "Which would you use for a planetary orbit over a million years, and which for a 2-second crash test?",
        "The orbit: a symplectic method (bounded energy, only the phase drifts). The crash test: a higher-order "
        "method with small steps, where the error over a short time matters, not its long-time character.",
        TryIt("step size h [s]", (0.1, 0.2, 0.25, 0.3), 0.25), _energy, 2),
    Lesson(
        "constraints", "Constraints: staying on the mechanism", SOURCES["001"],
        "A two-link arm is two bodies held together by joint constraints. Does each method keep the joints "
        "together over 20 s?",
        "rk4 integrates the index-1 equations: accelerations that keep the constraint's second derivative at zero. "
        "Position and velocity errors are not corrected, so the joints drift apart. The variational methods solve "
        "for the multipliers so that the constraint itself holds at every step, to the Newton tolerance. SPARK "
        "also imposes the velocity constraint; Hermite's velocities are the discrete Legendre transform "
        "M^-1 p_{k+1}, which no constraint impulse makes tangent to the constraint, and they are only first order "
        "accurate (tests/test_hermite.py measures orders 0.92-0.99).",
        "If rk4's drift bothers you, what could you add after every step, and what would it cost?",
        "A projection back onto the constraint (positions, then velocities): a small nonlinear solve per step. It "
        "removes the drift but changes the method (it is no longer plain rk4, nor symplectic).",
        TryIt("step size h [s]", STEPS, 0.01), _constraints, 2),
    Lesson(
        "rotations", "Rotations stay rotations", SOURCES["000"],
        "A rod's orientation is a rotation matrix R: R^T R = I. Do the methods keep it a rotation?",
        "rk4 treats R as nine numbers: each step adds a small error that is not a rotation, so R slowly stops "
        "being orthogonal and the rods start to stretch and shear. Lie group methods move R only by multiplying it "
        "with the exponential of a rotation, which is a rotation, so R^T R = I holds to round-off whatever the step "
        "size. The error measured here is"
        "\n\n$$\\|R^T R - I\\| .$$",
        "Would re-orthonormalising rk4's R after each step make it a Lie group method?",
        "No: it steps in the nine numbers and then projects back, while a Lie group method never leaves the "
        "rotations. The projection makes R a rotation again and keeps rk4's order 4 (a projection to the manifold "
        "keeps the order, Hairer, Lubich and Wanner IV.4), but neither it nor being a Lie group method makes a "
        "method symplectic: lie_galpha is a Lie group method that is not.",
        TryIt("step size h [s]", STEPS, 0.01), _rotations),
    Lesson(
        "singularity", "The rotation-vector singularity", SOURCES["002"],
        "A body is driven to rotate ever further. Its rotation vector theta has length |theta|, the angle. What "
        "happens at |theta| = 2 pi?",
        "The kinematic equation of the rotation vector has the factor T(theta)^-1, which is unbounded at "
        "|theta| = 2 pi: the adaptive method shrinks its steps to nothing and fails there. Seed 002's switch "
        "replaces theta by the equivalent vector of angle |theta| - 2 pi before it gets there: the numbers change, "
        "the rotation they describe does not. The quaternion form has no singularity at all.",
        "Why can't a three-number description of rotations avoid singularities everywhere?",
        "SO(3) is not a flat three-dimensional space: any three coordinates on it have singular points (a theorem "
        "of topology). Quaternions use four numbers with one constraint; switching charts avoids the bad points.",
        TryIt("output step h [s]", (0.001, 0.002, 0.005), 0.001), _singularity),
    Lesson(
        "gimbal", "Gimbal lock", SOURCES["004"],
        "A free body spins about its own y axis. Its orientation in Cardan angles has the middle angle theta_y "
        "growing at the spin rate. What happens at theta_y = pi/2?",
        "At theta_y = pi/2 the first and third Cardan axes line up: the three angles no longer describe three "
        "independent turns, and the equations for their rates divide by cos theta_y = 0. The Cardan form must stop "
        "there. The rotation form integrates R itself, which has no such point.",
        "Aircraft use Euler angles all the time. Why do they rarely hit gimbal lock?",
        "Because they rarely point straight up or down (pitch +-90 degrees); flight software that must (aerobatics, "
        "spacecraft) uses quaternions.",
        TryIt("spin rate [rad/s]", (1.0, 2.0, 3.0), 2.0), _gimbal),
    Lesson(
        "gamma", "Tuning a method: SPARK's gamma", SOURCES["003"],
        "SPARK methods of seed 003 have a free parameter gamma in the kinetic energy of each bar: it does not "
        "change the order. Does it change the error?",
        "gamma changes how the discrete method shares the kinetic energy inside each bar, so it changes the "
        "error constant, not the order. Too little or too much gamma shifts the phase one way or the other, which "
        "is why the mean error is V-shaped: at the tip the leading errors cancel. Seed 003 finds the tip from two "
        "short runs, because the signed mean error is, to first order, linear in gamma and its zero is the "
        "optimum.",
        "Would gamma_opt found for this double pendulum work for a robot arm with different bars?",
        "Not necessarily: it depends on the bars' lengths and masses (and the motion); seed 003 recomputes it "
        "for each system from two short runs, which is cheap.",
        TryIt("stages s", (1.0, 2.0), 1.0), _gamma),
    Lesson(
        "chaos", "Chaos: what can still be compared", SOURCES["000"],
        "Two steel rods swing in 3D. How far from the reference solution is each method after 20 s?",
        "The double pendulum is chaotic: nearby motions separate exponentially. Every method's error, however "
        "small at first, grows exponentially until it is as large as the rods, and so does the difference between "
        "the reference and itself started a billionth off; the rate a fit gives depends on the window it is fitted "
        "over, and so on the step size. Long trajectories of a chaotic system cannot be compared point by point; what "
        "can be compared is the error over short times, the energy, the constraints and the momentum.",
        "Two students run the same method with the same step on two computers and get different trajectories after "
        "30 s. Is one of them wrong?",
        "Not necessarily: a different compiler or processor changes the round-off, and the chaos amplifies it. "
        "Both are equally good; compare their energies instead.",
        TryIt("step size h [s]", (0.0025, 0.005, 0.01), 0.01), _chaos, 2),
)}


def lessons() -> list[str]:
    return list(LESSONS)


def resolve(lesson_id: Any, value: Any = None) -> float:
    """The "try it" value a request names (None: the lesson's default), as the lesson offers it; ValueError with
    a message for the user for an unknown lesson, a value that is not a number or one the lesson does not offer."""
    if lesson_id not in LESSONS:
        raise ValueError(f"unknown lesson {lesson_id!r}; valid: {', '.join(LESSONS)}")
    try_it = LESSONS[lesson_id].try_it
    if value is None:
        return try_it.default
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{try_it.label}: {value!r} is not a number") from None
    match = [v for v in try_it.values if abs(v - x) <= 1e-12 * max(1.0, abs(v))]
    if not match:
        raise ValueError(f"{try_it.label}: choose one of {', '.join(f'{v:g}' for v in try_it.values)}")
    return match[0]


def run_lesson(lesson_id: str, value: float | None = None) -> dict[str, Any]:
    """The lesson's data for a "try it" value (:func:`resolve`): ``charts``, ``claims`` (text, holds), ``facts``,
    ``run_page`` (the Run page configuration of its main runs), ``value``."""
    value = resolve(lesson_id, value)
    return {"id": lesson_id, "value": value, "status": "ok", **LESSONS[lesson_id].compute(value)}
