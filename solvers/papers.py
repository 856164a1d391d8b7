"""The seed papers' numerical experiments as data: what each paper ran, what it claims, and a runner that
measures every claim with this library.

    python -m solvers.papers list
    python -m solvers.papers run seed000 [--out FILE.json] [--t-end T] [--max-samples N]

An :class:`Experiment` is one entry of :data:`EXPERIMENTS`: the paper's runs (benchmark, method, step, end time,
parameters, options, the paper's label), the series its figures show (each an extractor from a
:class:`~solvers.result.Result`), and its claims, each with the paper's words, our criterion and an evaluator
that turns the runs into a measured value and a verdict. :func:`run_experiment` runs everything through
``solvers.simulate`` and returns plain JSON-able data for the CLI and the dashboard. Methods that are not
registered yet are skipped with a note, and the claims that need them are reported as "not measured".

Adding seeds 001-004: write one ``Experiment`` (runs, series, claims; the helpers below cover the common
claim shapes: a summary below a bound, a summary ratio, a summary within a band) and add it to
:data:`EXPERIMENTS`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import api, driver
from .result import Result, _plain

Progress = Callable[[float], bool | None]
# an evaluator gets the finished runs by label and returns (measured text, reproduced or None, values)
Verdict = tuple[str, bool | None, dict[str, Any]]
Evaluator = Callable[[Mapping[str, Result]], Verdict]


@dataclass(frozen=True)
class Run:
    """One run of a paper's experiment, labelled as in the paper."""

    label: str
    benchmark: str
    method: str
    h: float
    t_end: float
    params: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    role: str = "method"  # "method": a run the paper shows; "reference": our stand-in for the paper's reference
    note: str = ""


@dataclass(frozen=True)
class Series:
    """A curve family of one figure: ``extract(result)`` gives the values at the saved samples."""

    key: str
    title: str
    figure: str
    unit: str
    labels: tuple[str, ...]
    extract: Callable[[Result], np.ndarray]
    log: bool = False


@dataclass(frozen=True)
class Claim:
    """A claim of the paper: its words, our criterion, and the evaluator that measures it."""

    key: str
    claim: str
    paper: str
    criterion: str
    labels: tuple[str, ...]  # runs the evaluator needs; if one is missing the claim is "not measured"
    evaluate: Evaluator | None  # None: cannot be measured here (e.g. the paper's commercial code)


@dataclass(frozen=True)
class Experiment:
    """One numerical experiment of a seed paper."""

    id: str
    seed: str
    section: str
    title: str
    source: str
    setup: str
    says: tuple[tuple[str, str], ...]  # (figure, what the paper says there)
    runs: tuple[Run, ...]
    series: tuple[Series, ...]
    claims: tuple[Claim, ...]
    notes: tuple[str, ...] = ()

    def run_by_label(self, label: str) -> Run:
        for r in self.runs:
            if r.label == label:
                return r
        raise KeyError(label)

    def describe(self) -> dict[str, Any]:
        """Plain-data description (no results)."""
        return _plain({
            "id": self.id,
            "seed": self.seed,
            "section": self.section,
            "title": self.title,
            "source": self.source,
            "setup": self.setup,
            "paper_says": [{"figure": f, "text": t} for f, t in self.says],
            "runs": [_run_spec(r) for r in self.runs],
            "series": [_series_spec(s) for s in self.series],
            "claims": [{"id": c.key, "claim": c.claim, "paper": c.paper, "criterion": c.criterion,
                        "needs": list(c.labels)} for c in self.claims],
            "notes": list(self.notes),
        })


def _run_spec(r: Run) -> dict[str, Any]:
    return {"label": r.label, "benchmark": r.benchmark, "method": r.method, "h": r.h, "t_end": r.t_end,
            "params": dict(r.params), "options": dict(r.options), "role": r.role, "note": r.note}


def _series_spec(s: Series) -> dict[str, Any]:
    return {"key": s.key, "title": s.title, "figure": s.figure, "unit": s.unit, "labels": list(s.labels),
            "log": s.log}


# ---------------------------------------------------------------------------------------------------------------
# generic claim helpers (usable by every seed)
# ---------------------------------------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.3g}"


def summary_of(res: Result, key: str) -> float:
    v = res.summary.get(key)
    return float("nan") if v is None else float(v)


def _partial_note(runs: Mapping[str, Result], labels: Sequence[str]) -> str:
    bad = [f"{lab} {runs[lab].status} at t = {runs[lab].t[-1]:.4g} s" for lab in labels if not runs[lab].ok]
    return f" (partial: {'; '.join(bad)})" if bad else ""


def summary_below(key: str, labels: Sequence[str], bound: float, what: str) -> Evaluator:
    """Reproduced if the summary ``key`` of every run in ``labels`` is at most ``bound``."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals = {lab: summary_of(runs[lab], key) for lab in labels}
        ok = all(math.isfinite(v) and v <= bound for v in vals.values())
        text = ", ".join(f"{lab} {_fmt(v)}" for lab, v in vals.items())
        return f"{what}: {text}" + _partial_note(runs, labels), ok, {"values": vals, "bound": bound}

    return ev


def summary_in_band(key: str, labels: Sequence[str], low: float, high: float, what: str) -> Evaluator:
    """Reproduced if the summary ``key`` of every run in ``labels`` lies in [low, high]."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals = {lab: summary_of(runs[lab], key) for lab in labels}
        ok = all(math.isfinite(v) and low <= v <= high for v in vals.values())
        text = ", ".join(f"{lab} {_fmt(v)}" for lab, v in vals.items())
        return f"{what}: {text}" + _partial_note(runs, labels), ok, {"values": vals, "band": [low, high]}

    return ev


def summary_ratio(key: str, num: Sequence[str], den: Sequence[str], at_least: float, what: str) -> Evaluator:
    """Reproduced if max over ``num`` of the summary divided by max over ``den`` is at least ``at_least``
    (use ``at_least`` < 1 with num/den swapped for "smaller than")."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals = {lab: summary_of(runs[lab], key) for lab in (*num, *den)}
        n = max(vals[lab] for lab in num)
        d = max(vals[lab] for lab in den)
        ratio = n / d if d > 0 else float("inf")
        text = ", ".join(f"{lab} {_fmt(v)}" for lab, v in vals.items())
        return (f"{what}: {text}; ratio {_fmt(ratio)}" + _partial_note(runs, (*num, *den)),
                bool(ratio >= at_least), {"values": vals, "ratio": ratio, "at_least": at_least})

    return ev


def on_common_times(a: Result, va: np.ndarray, b: Result, vb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of run b at the sample times of run a (exact matches where the samples align, else linear
    interpolation), restricted to the common time span; returns (t, vb at t) and masks va accordingly."""
    t_hi = min(a.t[-1], b.t[-1])
    keep = a.t <= t_hi + 1e-12
    ta = a.t[keep]
    idx = np.clip(np.searchsorted(b.t, ta - 1e-9), 0, len(b.t) - 1)
    exact = np.abs(b.t[idx] - ta) <= 1e-9 * max(1.0, t_hi)
    out = np.interp(ta, b.t, vb)
    out[exact] = vb[idx[exact]]
    return ta, out


# ---------------------------------------------------------------------------------------------------------------
# seed 000, section 3: the spatial double pendulum (BENCHMARKS.md B1)
# ---------------------------------------------------------------------------------------------------------------

SDP = "spatial_double_pendulum"
METHOD_LABELS = ("Lie-alpha", "DH", "RL")  # the three methods of the seed's Figs. 3-6
AGREE_TOL = 0.01  # m: "nearly coincide" in Fig. 3 = within 1 cm (a line width at the figure's 2 m scale)
FAR_FACTOR = 3.0  # "far more" energy fluctuation = at least 3 times
ROUNDOFF = 1e-12  # a diagnostic "at round-off level" (the seed's 1e-14 / 1e-16 curves, max over all steps)
ZOOM = (7.5, 10.0)  # s: the time window of the seed's Fig. 5 zoom
DRIFT_FRACTION = 0.1  # "basically stable": fitted energy drift over the run below 10 % of max |E - E0|


def rod2_x(res: Result) -> np.ndarray:
    """X component of rod 2's centre of mass O2 (seed 000 Fig. 3)."""
    return res.state["x"][:, 1, 0]


def rod2_omega_x(res: Result) -> np.ndarray:
    """Rod 2's body angular velocity about its O2X2 axis (seed 000 Fig. 4)."""
    return res.state["Omega"][:, 1, 0]


def joint_a_velocity(res: Result) -> np.ndarray:
    """|dPhi_2/dt| at joint A (seed 000 Fig. 7): |v1 + R1 (Omega1 x X12) - v2 - R2 (Omega2 x X21)|."""
    half = 0.5 * float(res.params.get("rod_length", 1.0))
    R, W, v = res.state["R"], res.state["Omega"], res.state["v"]
    x12 = np.array([0.0, half, 0.0])
    x21 = np.array([0.0, -half, 0.0])
    a1 = v[:, 0] + np.einsum("nij,nj->ni", R[:, 0], np.cross(W[:, 0], x12))
    a2 = v[:, 1] + np.einsum("nij,nj->ni", R[:, 1], np.cross(W[:, 1], x21))
    return np.linalg.norm(a1 - a2, axis=1)


def _energy_windows(res: Result, parts: int = 5) -> list[float]:
    """max |E - E0| over ``parts`` equal windows of the run."""
    t, e = res.t, np.abs(res.energy_error)
    edges = np.linspace(0.0, t[-1], parts + 1)
    return [float(e[(t >= lo) & (t <= hi)].max()) if np.any((t >= lo) & (t <= hi)) else float("nan")
            for lo, hi in itertools.pairwise(edges)]


def _agree(runs: Mapping[str, Result]) -> Verdict:
    ref = runs["ref"]
    vals: dict[str, Any] = {}
    parts = []
    ok = True
    for lab in METHOD_LABELS:
        res = runs[lab]
        t, xr = on_common_times(res, rod2_x(res), ref, rod2_x(ref))
        dev = np.abs(rod2_x(res)[: len(t)] - xr)
        over = np.nonzero(dev > AGREE_TOL)[0]
        t_sep = float(t[over[0]]) if over.size else None
        vals[lab] = {"max_deviation": float(dev.max()), "separates_at": t_sep, "up_to": float(t[-1])}
        ok = ok and over.size == 0 and res.ok
        parts.append(f"{lab} max {_fmt(float(dev.max()))} m, "
                     + (f"beyond 1 cm from t = {t_sep:.3g} s" if t_sep is not None else "within 1 cm throughout"))
    return ("|X_O2 - X_O2,ref|: " + "; ".join(parts) + _partial_note(runs, (*METHOD_LABELS, "ref")), ok, vals)


def _alpha_energy(runs: Mapping[str, Result]) -> Verdict:
    ev = summary_ratio("max_energy_error", ("Lie-alpha",), ("DH", "RL"), FAR_FACTOR, "max |E - E0| (J)")
    text, ok, vals = ev(runs)
    w = {lab: _energy_windows(runs[lab]) for lab in ("Lie-alpha", "DH", "RL")}
    ratios = [a / max(b, c) if max(b, c) > 0 else float("nan")
              for a, b, c in zip(w["Lie-alpha"], w["DH"], w["RL"], strict=True)]
    vals["window_maxima"] = w
    vals["window_ratios"] = ratios
    text += "; ratio per fifth of the run: " + ", ".join(_fmt(r) for r in ratios)
    lo, hi = ZOOM
    if all(runs[lab].t[-1] >= hi for lab in ("Lie-alpha", "DH", "RL")):
        p2p = {}
        for lab in ("Lie-alpha", "DH", "RL"):
            t, e = runs[lab].t, runs[lab].energy_error
            p2p[lab] = float(np.ptp(e[(t >= lo) & (t <= hi)]))
        vals["zoom_peak_to_peak"] = p2p
        text += (f"; peak-to-peak in the paper's zoom {lo:g}-{hi:g} s: "
                 + ", ".join(f"{lab} {_fmt(v)}" for lab, v in p2p.items()))
    return text, ok, vals


def _dh_stable(runs: Mapping[str, Result]) -> Verdict:
    res = runs["DH"]
    slope = float(np.polyfit(res.t, res.energy_error, 1)[0]) if len(res.t) > 2 else float("nan")
    drift = abs(slope) * float(res.t[-1])
    emax = summary_of(res, "max_energy_error")
    ok = bool(res.ok and math.isfinite(drift) and drift <= DRIFT_FRACTION * emax)
    return (f"DH: max |E - E0| {_fmt(emax)} J, fitted drift over the run {_fmt(drift)} J "
            f"({_fmt(100 * drift / emax if emax > 0 else float('nan'))} % of the max)" + _partial_note(runs, ("DH",)),
            ok, {"max_energy_error": emax, "drift": drift})


def _rl_vs_dh(runs: Mapping[str, Result]) -> Verdict:
    ev = summary_ratio("max_energy_error", ("RL",), ("DH",), -math.inf, "max |E - E0| (J)")
    text, _, vals = ev(runs)
    ok = bool(vals["ratio"] < 1.0)
    w = {lab: _energy_windows(runs[lab]) for lab in ("RL", "DH")}
    better = sum(a < b for a, b in zip(w["RL"], w["DH"], strict=True))
    vals["window_maxima"] = w
    return text + f"; RL lower in {better} of {len(w['RL'])} fifths of the run", ok, vals


def _joint_a_max(res: Result) -> float:
    return float(joint_a_velocity(res).max())


def _velocity_levels(runs: Mapping[str, Result]) -> Verdict:
    vals = {lab: {"joint_A_samples": _joint_a_max(runs[lab]),
                  "all_joints_all_steps": summary_of(runs[lab], "max_constraint_velocity")}
            for lab in ("DH", "Lie-alpha", "DL")}
    dh_ok = vals["DH"]["all_joints_all_steps"] <= ROUNDOFF
    band = all(1e-5 <= vals[lab]["joint_A_samples"] <= 1e-3 for lab in ("Lie-alpha", "DL"))
    text = "; ".join(f"{lab} joint A {_fmt(v['joint_A_samples'])} m/s (all joints, every step "
                     f"{_fmt(v['all_joints_all_steps'])})" for lab, v in vals.items())
    return text + _partial_note(runs, ("DH", "Lie-alpha", "DL")), bool(dh_ok and band), vals


def _dh_vs_dl_energy(runs: Mapping[str, Result]) -> Verdict:
    e = {lab: summary_of(runs[lab], "max_energy_error") for lab in ("DH", "DL")}
    return (f"max |E - E0|: DH {_fmt(e['DH'])} J, DL {_fmt(e['DL'])} J (DH - DL = {_fmt(e['DH'] - e['DL'])} J)"
            + _partial_note(runs, ("DH", "DL")), bool(e["DH"] < e["DL"]), {"energy": e})


_H = 1e-3
_T = 50.0
SEED000 = Experiment(
    id="seed000",
    seed="000",
    section="3",
    title="Spatial double pendulum: Lie group variational integrators (DH, DL), RATTLie (RL) and Lie "
          "generalized-alpha",
    source="/work/shared/seeds/000_c8efd4b84b0c5c37.txt, section 3 (Figs. 3-7) and section 4",
    setup="Two steel rods (rho = 7850 kg/m^3, r = 0.05 m, l = 1 m), spherical joints at O and A, both rods "
          "horizontal at right angles and at rest, gravity along +e3; h = 1e-3 for DH, RL and Lie-alpha "
          "(rho_inf = 0.9), 50 s. The paper's reference is the commercial code RecurDyn at h = 1e-4 and 1e-5; "
          "ours is RK4 on the index-1 DAE at h = 1e-4.",
    says=(
        ("Figs. 3-4", "X component of O2 (rod 2's centre of mass) and rod 2's angular velocity about O2X2: "
                      "RecurDyn at h = 1e-4 drifts away after 4 s; with RecurDyn at h = 1e-5 the results of "
                      "Lie-alpha, DH and RL (h = 1e-3) nearly coincide with RecurDyn."),
        ("Fig. 5", "Energy (zoom 7.5-10 s): (1) Lie-alpha's energy fluctuation is far larger than the Lie group "
                   "variational integrators'; (2) DH at h = 1e-3 is far better than RecurDyn at 1e-4, with very "
                   "low dissipation, basically stable; (3) RL keeps energy better than DH."),
        ("Fig. 6", "||I - R R^T|| of Lie-alpha, DH and RL all stay of order 1e-14: the group structure is kept."),
        ("Fig. 7", "Velocity constraint at joint A: Lie-alpha and DL (no velocity-constraint correction) reach "
                   "1e-4; DH with the velocity constraint stays at 1e-16; RATTLie with the velocity constraint "
                   "also keeps the constraints much better."),
        ("Sec. 4", "The Hamiltonian-form LGVI has a smaller energy fluctuation range and smaller constraint "
                   "violation than the discrete Lagrangian form."),
    ),
    runs=(
        Run("Lie-alpha", SDP, "lie_galpha", _H, _T, options={"rho_inf": 0.9}),
        Run("DH", SDP, "lgvi", _H, _T),
        Run("RL", SDP, "rattlie", _H, _T),
        Run("DL", SDP, "lgvi_lagrangian", _H, _T),
        Run("ref", SDP, "rk4", 1e-4, _T, role="reference",
            note="stand-in for the seed's RecurDyn h = 1e-5 reference: RK4 on the index-1 DAE at h = 1e-4 "
                 "(agrees with an independent quaternion DOP853 solution to 1e-5 m up to about 30 s; the "
                 "motion is chaotic, so no reference is pointwise reliable beyond about 35-40 s)"),
    ),
    series=(
        Series("x2_X", "X component of rod 2's centre of mass O2", "Fig. 3", "m",
               ("Lie-alpha", "DH", "RL", "ref"), rod2_x),
        Series("omega2_X", "Rod 2's angular velocity about O2X2 (body)", "Fig. 4", "rad/s",
               ("Lie-alpha", "DH", "RL", "ref"), rod2_omega_x),
        Series("energy_error", "Energy error E - E0", "Fig. 5", "J", ("Lie-alpha", "DH", "RL", "DL"),
               lambda r: r.energy_error),
        Series("orthogonality_error", "Orthogonality error max_i ||I - R_i R_i^T||", "Fig. 6", "",
               ("Lie-alpha", "DH", "RL"), lambda r: r.orthogonality_error, log=True),
        Series("velocity_constraint_A", "Velocity-constraint violation at joint A", "Fig. 7", "m/s",
               ("DH", "DL", "Lie-alpha", "RL"), joint_a_velocity, log=True),
    ),
    claims=(
        Claim("coincide", "Lie-alpha, DH and RL at h = 1e-3 nearly coincide with the fine-step reference",
              "Figs. 3-4: with RecurDyn at h = 1e-5, Lie-alpha, DH and RL (h = 1e-3) nearly coincide with it",
              f"|X_O2 - X_O2,ref| <= {AGREE_TOL:g} m at every saved sample of the run (one line width)",
              (*METHOD_LABELS, "ref"), _agree),
        Claim("recurdyn", "RecurDyn at h = 1e-4 drifts after 4 s; DH at 1e-3 beats it",
              "Figs. 3-5: RecurDyn at h = 1e-4 gradually diverges after 4 s; DH at 1e-3 is far better than it",
              "the commercial code RecurDyn is not available here", (), None),
        Claim("alpha_energy", "Lie-alpha's energy fluctuates far more than DH's and RL's",
              "Fig. 5 (1): Lie-alpha's energy fluctuation is far larger than the Lie group variational integrators'",
              f"max |E - E0| of Lie-alpha >= {FAR_FACTOR:g} x the larger of DH's and RL's",
              ("Lie-alpha", "DH", "RL"), _alpha_energy),
        Claim("dh_stable", "DH's energy error stays bounded (no dissipation or drift)",
              "Fig. 5 (2): DH at h = 1e-3 has very low dissipation and stays basically stable",
              f"|least-squares slope of E - E0| x t_end <= {DRIFT_FRACTION:g} x max |E - E0|", ("DH",), _dh_stable),
        Claim("rl_energy", "RL keeps energy better than DH",
              "Fig. 5 (3): RL is better than DH at keeping the energy", "max |E - E0| of RL < that of DH",
              ("RL", "DH"), _rl_vs_dh),
        Claim("orthogonality", "||I - R R^T|| ~ 1e-14 for all three methods",
              "Fig. 6: the orthogonality errors of Lie-alpha, DH and RL all stay of order 1e-14",
              f"max over every step and both rods <= {ROUNDOFF:g} (round-off level, no drift)",
              METHOD_LABELS,
              summary_below("max_orthogonality_error", METHOD_LABELS, ROUNDOFF, "max ||I - R R^T||")),
        Claim("velocity_constraint", "DH keeps the velocity constraint near 1e-16; Lie-alpha and DL sit near 1e-4",
              "Fig. 7: Lie-alpha and DL reach 1e-4 at joint A; DH with the velocity constraint stays at 1e-16",
              f"DH <= {ROUNDOFF:g} (all joints, every step); Lie-alpha and DL joint-A maxima in [1e-5, 1e-3]",
              ("DH", "Lie-alpha", "DL"), _velocity_levels),
        Claim("rl_velocity", "RL (with the velocity constraint) keeps the velocity constraint at round-off",
              "After Fig. 7: with the velocity constraint, RATTLie also keeps the constraints much better",
              f"max velocity violation of RL (all joints, every step) <= {ROUNDOFF:g}", ("RL",),
              summary_below("max_constraint_velocity", ("RL",), ROUNDOFF, "max |G v| (m/s)")),
        Claim("dh_vs_dl_energy", "DH has a smaller energy fluctuation than DL",
              "Sec. 4: the Hamiltonian-form LGVI has a smaller energy fluctuation range than the discrete "
              "Lagrangian form", "max |E - E0| of DH < DL's", ("DH", "DL"), _dh_vs_dl_energy),
        Claim("dh_vs_dl_constraint", "DH has a smaller constraint violation than DL",
              "Sec. 4: the Hamiltonian-form LGVI has a smaller constraint violation than the discrete Lagrangian "
              "form", "max velocity violation (all joints, every step) of DH < DL's", ("DH", "DL"),
              summary_ratio("max_constraint_velocity", ("DL",), ("DH",), 1.0 + 1e-12, "max |G v| (m/s)")),
    ),
    notes=(
        "The double pendulum is chaotic over 50 s: two accurate solutions separate by about a factor 10 every "
        "3 s, so pointwise agreement (Figs. 3-4) can only hold up to a horizon set by the step size.",
        "Summaries are maxima over every step (not only saved samples); the joint-A series of Fig. 7 is "
        "computed from the saved samples.",
    ),
)


# ---------------------------------------------------------------------------------------------------------------
# seed 003: parameter pre-tuned symplectic integration (the gamma of Gauss-Lobatto SPARK), BENCHMARKS.md B5
# ---------------------------------------------------------------------------------------------------------------

NDP = "natural_double_pendulum"
S003_H = 0.04  # the seed's Tables 1, 3 and Fig. 4: h = 0.04, Nh = 100
S003_STEPS = 100
S003_GRID = tuple(round(-1.0 + 0.25 * k, 2) for k in range(17))  # gamma in [-1, 3] for Fig. 4's curves
S003_S = (1, 2)
S003_GAIN = 10.0  # "one to two orders of magnitude": at least 10 x smaller mean errors with gamma_opt


def _s003_label(s: int, what: str) -> str:
    return f"s{s} {what}"


def q_x2(res: Result) -> np.ndarray:
    """x of the free end O2 (seed 003 Fig. 7)."""
    return res.state["q"][:, 2]


def q_y2(res: Result) -> np.ndarray:
    """y of the free end O2 (seed 003 Fig. 7)."""
    return res.state["q"][:, 3]


def mean_errors(res: Result, ref: Result) -> dict[str, float]:
    """Seed 003 eqs. 35-39 against the h/100 reference: E|dx|, E|dy| (mean over steps k = 1..Nh and the points O1,
    O2 of |x - x_ref|, |y - y_ref|), E|dH| (mean |H^k - H^0|), the signed E[dx], E[dy] and dW = E[dx] + E[dy]."""
    q = res.state["q"]
    cols = []
    for j in range(q.shape[1]):
        _, r = on_common_times(res, q[:, j], ref, ref.state["q"][:, j])
        cols.append(r)
    n = len(cols[0])
    d = (q[:n] - np.column_stack(cols))[1:]
    out = {"E_abs_dx": float(np.abs(d[:, 0::2]).mean()), "E_abs_dy": float(np.abs(d[:, 1::2]).mean()),
           "E_dx": float(d[:, 0::2].mean()), "E_dy": float(d[:, 1::2].mean()),
           "E_abs_dH": float(np.abs(res.energy_error[1:n]).mean())}
    out["dW"] = out["E_dx"] + out["E_dy"]
    return out


def _s003_table(runs: Mapping[str, Result]) -> Verdict:
    """Table 1: gamma_T better than gamma = 0 in trajectory and energy, for s = 1 and 2."""
    vals: dict[str, Any] = {}
    parts = []
    ok = True
    for s in S003_S:
        ref = runs[_s003_label(s, "ref")]
        e0 = mean_errors(runs[_s003_label(s, "gamma=0")], ref)
        eT = mean_errors(runs[_s003_label(s, "gamma_T")], ref)
        vals[f"s{s}"] = {"gamma=0": e0, "gamma_T": eT,
                         "gamma_T_value": float(runs[_s003_label(s, "gamma_T")].options["gamma"])}
        better = all(eT[k] < e0[k] for k in ("E_abs_dx", "E_abs_dy", "E_abs_dH"))
        ok = ok and better
        parts.append(f"s = {s}: E|dx| {_fmt(e0['E_abs_dx'])} -> {_fmt(eT['E_abs_dx'])}, E|dy| "
                     f"{_fmt(e0['E_abs_dy'])} -> {_fmt(eT['E_abs_dy'])}, E|dH| {_fmt(e0['E_abs_dH'])} -> "
                     f"{_fmt(eT['E_abs_dH'])}")
    return "gamma = 0 -> gamma_T: " + "; ".join(parts), ok, vals


def _s003_opt(label: str, s_list: Sequence[int]) -> Evaluator:
    """Tables 2-3: gamma_opt (eq. 11) cuts E|dx| and E|dy| at least S003_GAIN times against gamma = 0."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals: dict[str, Any] = {}
        parts = []
        ok = True
        for s in s_list:
            ref = runs[_s003_label(s, "ref")]
            r_opt = runs[_s003_label(s, label)]
            e0 = mean_errors(runs[_s003_label(s, "gamma=0")], ref)
            eo = mean_errors(r_opt, ref)
            gx = e0["E_abs_dx"] / eo["E_abs_dx"] if eo["E_abs_dx"] > 0 else float("inf")
            gy = e0["E_abs_dy"] / eo["E_abs_dy"] if eo["E_abs_dy"] > 0 else float("inf")
            opt = {k: v for k, v in r_opt.options.items() if k.startswith("gamma")}
            vals[f"s{s}"] = {"gamma=0": e0, label: eo, "gain_x": gx, "gain_y": gy, "resolved": opt}
            ok = ok and gx >= S003_GAIN and gy >= S003_GAIN
            parts.append(f"s = {s}: gamma_opt = {_fmt(opt['gamma'])} (dW1 {_fmt(opt['gamma_opt_dW'][0])}, dW2 "
                         f"{_fmt(opt['gamma_opt_dW'][1])}); E|dx| {_fmt(e0['E_abs_dx'])} -> {_fmt(eo['E_abs_dx'])} "
                         f"({_fmt(gx)} x), E|dy| {_fmt(e0['E_abs_dy'])} -> {_fmt(eo['E_abs_dy'])} ({_fmt(gy)} x)")
        return "; ".join(parts), ok, vals

    return ev


def error_curve(runs: Mapping[str, Result], s: int) -> dict[str, list[float]]:
    """Fig. 4 / Fig. 6 data: the mean errors of the grid runs against gamma (h = 0.04, Nh = 100)."""
    ref = runs[_s003_label(s, "ref")]
    curve: dict[str, list[float]] = {"gamma": []}
    for g in S003_GRID:
        lab = _s003_label(s, f"grid {g:g}")
        if lab not in runs:
            continue
        e = mean_errors(runs[lab], ref)
        curve["gamma"].append(g)
        for k, v in e.items():
            curve.setdefault(k, []).append(v)
    return curve


def _s003_curve(runs: Mapping[str, Result]) -> Verdict:
    """Fig. 4: V-shaped E|dx|, E|dy| against gamma with the minimum at gamma > 0; Fig. 6: dW linear in gamma."""
    vals: dict[str, Any] = {}
    parts = []
    ok = True
    for s in S003_S:
        c = error_curve(runs, s)
        g = np.array(c["gamma"])
        info: dict[str, Any] = {"curve": c}
        for key in ("E_abs_dx", "E_abs_dy"):
            e = np.array(c[key])
            i = int(np.argmin(e))
            v_shape = bool(0 < i < len(e) - 1 and np.all(np.diff(e[: i + 1]) < 0) and np.all(np.diff(e[i:]) > 0))
            info[key] = {"argmin_gamma": float(g[i]), "min": float(e[i]), "v_shape": v_shape}
            ok = ok and v_shape and g[i] > 0
        dW = np.array(c["dW"])
        fit = np.polyfit(g, dW, 1)
        r2 = 1.0 - float(np.sum((dW - np.polyval(fit, g)) ** 2) / np.sum((dW - dW.mean()) ** 2))
        info["dW_linear_r2"] = r2
        info["dW_zero_gamma"] = float(-fit[1] / fit[0])
        parts.append(f"s = {s}: min E|dx| {_fmt(info['E_abs_dx']['min'])} at gamma = "
                     f"{info['E_abs_dx']['argmin_gamma']:g}, min E|dy| {_fmt(info['E_abs_dy']['min'])} at gamma = "
                     f"{info['E_abs_dy']['argmin_gamma']:g} (V-shaped: {info['E_abs_dx']['v_shape']}, "
                     f"{info['E_abs_dy']['v_shape']}); dW linear in gamma with R^2 = {r2:.4f}, zero at "
                     f"gamma = {_fmt(info['dW_zero_gamma'])}")
        vals[f"s{s}"] = info
    return "; ".join(parts), ok, vals


def _s003_runs() -> tuple[Run, ...]:
    runs = []
    for s in S003_S:
        t = S003_H * S003_STEPS
        runs += [
            Run(_s003_label(s, "gamma=0"), NDP, "spark", S003_H, t, options={"s": s, "gamma": 0.0}),
            Run(_s003_label(s, "gamma_T"), NDP, "spark", S003_H, t, options={"s": s, "gamma": "T"}),
            Run(_s003_label(s, "gamma_opt"), NDP, "spark", S003_H, t, options={"s": s, "gamma": "opt"},
                note="gamma_opt from two runs of the same 100 steps at h = 0.04 (gamma = 0 and gamma_T)"),
            Run(_s003_label(s, "gamma_opt seed"), NDP, "spark", S003_H, t,
                options={"s": s, "gamma": "opt", "opt_h": 0.01, "opt_steps": 10},
                note="gamma_opt by the seed's Table 2 protocol: two runs of 10 steps at h = 0.01"),
            Run(_s003_label(s, "ref"), NDP, "spark", S003_H / 100, t, options={"s": s, "gamma": 0.0},
                role="reference", note="the seed's reference: the same method with a 100 times smaller step"),
        ]
        runs += [Run(_s003_label(s, f"grid {g:g}"), NDP, "spark", S003_H, t, options={"s": s, "gamma": g},
                     note="a point of the error-against-gamma curve (Fig. 4)") for g in S003_GRID]
    return tuple(runs)


SEED003 = Experiment(
    id="seed003",
    seed="003",
    section="4",
    title="Parameter pre-tuned symplectic integration: seed 003's gamma for Gauss-Lobatto SPARK on the natural-"
          "coordinate double pendulum",
    source="/work/shared/seeds/003_695fe02836a5d704.txt, section 4 (Tables 1-3, Figs. 4-7)",
    setup="Two uniform bars (l1 = 2 m, l2 = 3 m, m1 = m2 = 1 kg) in natural coordinates, released horizontal at "
          "rest (the seed's initial condition, eq. 34, is garbled); Gauss-Lobatto SPARK (s,s), h = 0.04, Nh = 100 "
          "steps; errors are seed eqs. 35-39 against the same method with h / 100. gamma is the parameter of the "
          "seed's gamma-type kinetic energy of the bars (solvers/methods/spark.py, docs/methods.md).",
    says=(
        ("Table 1", "gamma = gamma_T = 0.916667 gives better trajectory and energy accuracy than gamma = 0 for "
                    "the 2nd to 8th order SPARK methods."),
        ("Fig. 3", "Order 2s whatever gamma is."),
        ("Fig. 4", "The mean absolute trajectory errors are V-shaped in gamma (s = 1 and s = 2), with their minimum "
                   "at positive gamma."),
        ("Figs. 5-6", "The optimum hardly depends on h and the run length; the signed mean error dW is linear in "
                      "gamma (h = 0.01, Nh = 10), so two short runs estimate gamma_opt (eq. 11)."),
        ("Tables 2-3, Fig. 7", "With gamma_opt (from h = 0.01, Nh = 10) the x and y trajectory errors at h = 0.04 "
                               "drop by two and one orders of magnitude for s = 1 and s = 2 (phase error)."),
    ),
    runs=_s003_runs(),
    series=(
        Series("x2", "x of the free end O2", "Fig. 7", "m",
               tuple(_s003_label(s, w) for s in S003_S for w in ("gamma=0", "gamma_opt", "ref")), q_x2),
        Series("y2", "y of the free end O2", "Fig. 7", "m",
               tuple(_s003_label(s, w) for s in S003_S for w in ("gamma=0", "gamma_opt", "ref")), q_y2),
        Series("energy_error", "Energy error H - H0", "Table 1", "J",
               tuple(_s003_label(s, w) for s in S003_S for w in ("gamma=0", "gamma_T", "gamma_opt")),
               lambda r: r.energy_error),
    ),
    claims=(
        Claim("table1", "gamma_T beats gamma = 0 in trajectory and energy accuracy",
              "Table 1: with gamma = gamma_T = 0.916667 the trajectory and energy accuracy are better than with "
              "gamma = 0 (2nd to 8th order)",
              "E|dx|, E|dy| and E|H - H0| of gamma_T below those of gamma = 0, for s = 1 and s = 2",
              tuple(_s003_label(s, w) for s in S003_S for w in ("gamma=0", "gamma_T", "ref")), _s003_table),
        Claim("curve", "The mean errors are V-shaped in gamma with the minimum at gamma > 0; dW is linear in gamma",
              "Figs. 4 and 6: V-shaped mean absolute errors, minimum on the positive gamma axis; signed mean error "
              "linear in gamma",
              "E|dx| and E|dy| on the grid gamma = -1, -0.75, ..., 3 strictly decrease to a minimum at gamma > 0 and "
              "strictly increase after it (s = 1, 2); reported: R^2 of a linear fit of dW (values: the curves)",
              tuple(_s003_label(s, w) for s in S003_S for w in ("ref", *(f"grid {g:g}" for g in S003_GRID))),
              _s003_curve),
        *(Claim(f"opt_s{s}", f"s = {s}: gamma_opt (eq. 11) cuts the trajectory error by one to two orders of "
                "magnitude",
                "Table 3 and Fig. 7: with gamma_opt, x and y errors drop by two and one orders of magnitude (s = 1, 2)",
                f"E|dx| and E|dy| with gamma_opt at least {S003_GAIN:g} x smaller than with gamma = 0 (h = 0.04, Nh = "
                "100), gamma_opt from two runs of the same 100 steps (gamma = 0 and gamma_T)",
                tuple(_s003_label(s, w) for w in ("gamma=0", "gamma_opt", "ref")), _s003_opt("gamma_opt", (s,)))
          for s in S003_S),
        Claim("opt_seed_protocol", "gamma_opt from 10 steps at h = 0.01 works at h = 0.04 too",
              "Table 2, Figs. 5-6: gamma_opt estimated with h = 0.01, Nh = 10 is the optimum for h = 0.04, Nh = 100",
              f"E|dx| and E|dy| with that gamma_opt at least {S003_GAIN:g} x smaller than with gamma = 0 (h = 0.04)",
              tuple(_s003_label(s, w) for s in S003_S for w in ("gamma=0", "gamma_opt seed", "ref")),
              _s003_opt("gamma_opt seed", S003_S)),
    ),
    notes=(
        "gamma_T: the seed's eq. 32 is garbled; gamma_T = (1/N) sum_i i J_i reproduces its value 0.916667 for these "
        "bars (J = 1/3, 3/4) but is a reconstruction fitted to that one number (docs/methods.md).",
        "The seed's initial condition (eq. 34) is garbled; both bars start horizontal at rest (BENCHMARKS.md B5).",
        "Order 2s for every gamma (Fig. 3) is checked in tests/test_spark.py, not here.",
    ),
)


EXPERIMENTS: dict[str, Experiment] = {e.id: e for e in (SEED000, SEED003)}


def experiments() -> list[str]:
    """Ids of all experiments."""
    return list(EXPERIMENTS)


def describe(experiment_id: str) -> dict[str, Any]:
    """Plain-data description of an experiment (no runs are made)."""
    return _experiment(experiment_id).describe()


def _experiment(experiment_id: str) -> Experiment:
    if experiment_id not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {experiment_id!r}; valid: {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[experiment_id]


def _missing_reason(run: Run, skipped: Sequence[str]) -> str:
    if run.method not in api.methods(run.benchmark):
        return f"method not registered ({run.label} = {run.method})"
    note = next((x for x in skipped if x.startswith(f"{run.label}:")), "")
    return note or f"{run.label} did not run"


def _aligned_max_samples(n_total: int, stride: int, fallback: int) -> int:
    """A max_samples for which the driver saves every ``stride``-th step of an ``n_total``-step run."""
    if stride <= 1:
        return max(fallback, n_total + 1)
    cap = math.ceil(n_total / stride) + 1
    for c in (cap, cap + 1, cap - 1):
        if c >= 2 and driver.sample_plan(n_total, c)[0] == stride:
            return c
    return fallback


def run_experiment(
    experiment_id: str,
    max_samples: int = 2000,
    progress: Progress | None = None,
    t_end: float | None = None,
) -> dict[str, Any]:
    """Run every run of the experiment through ``solvers.simulate`` and measure its claims.

    ``max_samples`` caps the saved samples of the paper's runs (runs with a finer step are sampled at the same
    times when possible); ``t_end`` shortens every run (tests, previews); ``progress(fraction)`` is called
    between chunks and cancels by returning False. Returns plain JSON-able data: the runs (label, status,
    summary, series), the series specs, the claims ({claim, paper, criterion, measured, reproduced, status}),
    and notes on skipped methods.
    """
    exp = _experiment(experiment_id)
    if t_end is not None and not (isinstance(t_end, (int, float)) and math.isfinite(t_end) and t_end > 0):
        raise ValueError(f"t_end must be a positive number or None, got {t_end!r}")
    if isinstance(max_samples, bool) or not isinstance(max_samples, int) or max_samples < 2:
        raise ValueError(f"max_samples must be an integer >= 2, got {max_samples!r}")
    plan = []
    skipped = []
    for r in exp.runs:
        te = r.t_end if t_end is None else min(float(t_end), r.t_end)
        if r.method not in api.methods(r.benchmark):
            skipped.append(f"{r.label}: not yet measured: method {r.method!r} is not registered")
            continue
        plan.append((r, te, api.step_count(r.h, te)))
    # sample every run at the times of the coarsest-step run (exact comparisons between runs)
    caps: dict[str, int] = {}
    if plan:
        base = max(plan, key=lambda p: p[0].h)
        b_stride, _ = driver.sample_plan(base[2], max_samples)
        dt = b_stride * base[0].h
        for r, _te, n in plan:
            ratio = dt / r.h
            cap = max_samples
            if abs(ratio - round(ratio)) < 1e-9 and r.h != base[0].h:
                cap = _aligned_max_samples(n, round(ratio), max_samples)
            caps[r.label] = cap
    total = float(sum(n for _, _, n in plan)) or 1.0
    done = 0.0
    results: dict[str, Result] = {}
    run_out = []
    status = "ok"
    for r, te, n in plan:
        def sub(frac: float, _done: float = done, _n: int = n) -> bool | None:
            return progress((_done + frac * _n) / total) if progress is not None else None

        t0 = time.perf_counter()
        try:
            res = api.simulate(r.benchmark, r.method, h=r.h, t_end=te, params=dict(r.params),
                               options=dict(r.options), max_samples=caps[r.label],
                               progress=sub if progress is not None else None)
        except ValueError as exc:  # e.g. an option the registered method does not (yet) accept
            skipped.append(f"{r.label}: not measured: {exc}")
            done += n
            continue
        wall = time.perf_counter() - t0
        done += n
        if res.status == "cancelled":
            status = "cancelled"
            break
        if len(res.t) == 0:
            skipped.append(f"{r.label}: not measured: {res.status}: {res.message}")
            continue
        results[r.label] = res
        series = {s.key: s.extract(res) for s in exp.series if r.label in s.labels}
        run_out.append({**_run_spec(r), "t_end": te, "status": res.status, "message": res.message,
                        "wall_s": wall, "summary": res.summary, "t": res.t, "series": series})
    claims = []
    for c in exp.claims:
        missing = [lab for lab in c.labels if lab not in results]
        entry = {"id": c.key, "claim": c.claim, "paper": c.paper, "criterion": c.criterion}
        if c.evaluate is None:
            entry.update(measured=f"not applicable: {c.criterion}", reproduced=None, status="not applicable",
                         values={})
        elif status == "cancelled" or missing:
            why = "cancelled" if status == "cancelled" else "not yet measured: " + "; ".join(
                _missing_reason(exp.run_by_label(lab), skipped) for lab in missing)
            entry.update(measured=why, reproduced=None, status="not measured", values={})
        else:
            try:
                measured, ok, values = c.evaluate(results)
            except Exception as exc:  # a claim that cannot be evaluated on these data must not sink the rest
                entry.update(measured=f"not measured: evaluation failed ({type(exc).__name__}: {exc})",
                             reproduced=None, status="not measured", values={})
            else:
                entry.update(measured=measured, reproduced=None if ok is None else bool(ok),
                             status="not measured" if ok is None else ("reproduced" if ok else "not reproduced"),
                             values=values)
        claims.append(entry)
    out = {
        **{k: v for k, v in exp.describe().items() if k not in ("runs", "claims")},
        "status": status,
        "max_samples": max_samples,
        "t_end_override": t_end,
        "runs": run_out,
        "skipped": skipped,
        "claims": claims,
    }
    return _plain(out)


# ---------------------------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------------------------


def format_claims(data: Mapping[str, Any]) -> str:
    """The claims table as text (one block per claim)."""
    mark = {"reproduced": "YES", "not reproduced": "NO", "not measured": "--", "not applicable": "n/a"}
    lines = []
    for c in data["claims"]:
        lines.append(f"[{mark[c['status']]:>3s}] {c['id']}: {c['claim']}")
        lines.append(f"      paper:     {c['paper']}")
        lines.append(f"      criterion: {c['criterion']}")
        lines.append(f"      measured:  {c['measured']}")
    return "\n".join(lines)


def format_runs(data: Mapping[str, Any]) -> str:
    """The runs table as text."""
    head = (f"{'label':10s} {'method':16s} {'h':>7s} {'t_end':>6s} {'status':8s} {'cpu s':>7s} "
            f"{'max|E-E0|':>10s} {'max orth':>9s} {'max|Gv|':>9s} {'max|Phi|':>9s}")
    lines = [head]
    for r in data["runs"]:
        s = r["summary"]

        def g(key: str, s: Mapping[str, Any] = s) -> str:
            v = s.get(key)
            return f"{v:.2e}" if isinstance(v, (int, float)) else "nan"

        lines.append(f"{r['label']:10s} {r['method']:16s} {r['h']:7.0e} {r['t_end']:6.3g} {r['status']:8s} "
                     f"{s.get('cpu_time', float('nan')):7.3f} {g('max_energy_error'):>10s} "
                     f"{g('max_orthogonality_error'):>9s} {g('max_constraint_velocity'):>9s} "
                     f"{g('max_constraint_position'):>9s}")
    for note in data["skipped"]:
        lines.append(f"skipped {note}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``list`` or ``run ID``; exit status 0 ok, 2 bad input."""
    p = argparse.ArgumentParser(prog="python -m solvers.papers", description="Seed papers' experiments")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the experiments")
    pr = sub.add_parser("run", help="run an experiment and print its claims table")
    pr.add_argument("experiment")
    pr.add_argument("--out", help="write the full data (runs, series, claims) as JSON")
    pr.add_argument("--t-end", type=float, default=None, help="shorten every run to this end time (s)")
    pr.add_argument("--max-samples", type=int, default=2000, help="saved samples per run (default 2000)")
    args = p.parse_args(argv)
    if args.cmd == "list":
        for e in EXPERIMENTS.values():
            print(f"{e.id:10s} seed {e.seed} section {e.section}: {e.title}")
            print(f"{'':10s} runs: " + ", ".join(f"{r.label} = {r.method} (h = {r.h:g}, {r.t_end:g} s)"
                                                   for r in e.runs))
        return 0
    last = [-1.0]

    def report(frac: float) -> None:
        if frac - last[0] >= 0.1 or frac >= 1.0:
            last[0] = frac
            print(f"  {100 * frac:5.1f} %", file=sys.stderr, flush=True)

    try:
        data = run_experiment(args.experiment, max_samples=args.max_samples, progress=report, t_end=args.t_end)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(data, fh)
    print(f"# {data['id']}: {data['title']}")
    print(format_runs(data))
    print()
    print(format_claims(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
