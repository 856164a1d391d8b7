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
# seed 001, section 3: the two-link arm (BENCHMARKS.md B4), Tables 1-2 and Figs. 2-10
# ---------------------------------------------------------------------------------------------------------------

ARM = "two_link_arm"
_T1 = 100.0
_S001 = ((0.01, "h=0.01"), (0.005, "h=0.005"))
_M001 = (("H23G2", "hermite_h23g2"), ("H33G2", "hermite_h33g2"), ("RK4", "rk4"))
# the seed's Tables 1 (h = 0.01) and 2 (h = 0.005): t_CPU (s), eps(H), eps(Phi), eps(dPhi), eps(d2Phi)
SEED001_TABLES = {
    "H23G2 h=0.01": (7.2969, 1.1540, 3.2474e-15, 0.8846, 36.1570),
    "H33G2 h=0.01": (7.8438, 1.0788, 3.1364e-15, 0.8962, 16.6175),
    "RK4 h=0.01": (3.1563, 30.1090, 1.0209, 0.0199, 1.1369e-13),
    "H23G2 h=0.005": (14.8906, 0.3552, 6.2728e-15, 0.4447, 17.8491),
    "H33G2 h=0.005": (14.9375, 0.2615, 6.4670e-15, 0.4473, 8.1398),
    "RK4 h=0.005": (6.3281, 1.6790, 0.0569, 0.0012, 1.7053e-13),
}
TABLE_KEYS = ("cpu_time", "max_energy_error", "max_constraint_position", "max_constraint_velocity",
              "max_constraint_acceleration")
_HERM = tuple(f"{m} {s}" for _, s in _S001 for m in ("H23G2", "H33G2"))


def tip2(res: Result) -> np.ndarray:
    """x and y of the free end of link 2 (seed 001 Figs. 2, 7, 8), shape (samples, 2)."""
    q = res.state["q"]
    half = 0.5 * float(res.params.get("l2", math.sqrt(3.0)))
    return np.column_stack([q[:, 3] + half * np.cos(q[:, 5]), q[:, 4] + half * np.sin(q[:, 5])])


def _per_step(key: str, num: str, den: Sequence[str], at_least: float, what: str) -> Evaluator:
    """For both steps: summary ``key`` of method ``num`` over the larger of ``den`` at the same step >= at_least."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals: dict[str, Any] = {}
        parts = []
        ok = True
        labels = []
        for _, s in _S001:
            a = summary_of(runs[f"{num} {s}"], key)
            b = max(summary_of(runs[f"{d} {s}"], key) for d in den)
            ratio = a / b if b > 0 else float("inf")
            vals[s] = {"value": a, "against": b, "ratio": ratio}
            ok = ok and math.isfinite(ratio) and ratio >= at_least
            parts.append(f"{s}: {num} {_fmt(a)} vs {'/'.join(den)} {_fmt(b)} (ratio {_fmt(ratio)})")
            labels += [f"{num} {s}", *(f"{d} {s}" for d in den)]
        return f"{what}: " + "; ".join(parts) + _partial_note(runs, labels), bool(ok), vals

    return ev


def _halves(runs: Mapping[str, Result]) -> Verdict:
    vals = {}
    ok = True
    for m in ("H23G2", "H33G2"):
        a = summary_of(runs[f"{m} h=0.01"], "max_constraint_velocity")
        b = summary_of(runs[f"{m} h=0.005"], "max_constraint_velocity")
        vals[m] = {"h=0.01": a, "h=0.005": b, "ratio": a / b if b > 0 else float("inf")}
        ok = ok and 1.5 <= vals[m]["ratio"] <= 2.5 and a >= 0.05
    text = "; ".join(f"{m} {_fmt(v['h=0.01'])} -> {_fmt(v['h=0.005'])} (ratio {_fmt(v['ratio'])})"
                     for m, v in vals.items())
    return "max |G qdot|: " + text + _partial_note(runs, _HERM), bool(ok), vals


def _energy_growth(runs: Mapping[str, Result]) -> Verdict:
    vals = {}
    for _, s in _S001:
        for m, _mid in _M001:
            w = _energy_windows(runs[f"{m} {s}"])
            vals[f"{m} {s}"] = {"first_fifth": w[0], "last_fifth": w[-1], "growth": w[-1] / w[0] if w[0] > 0 else 0.0}
    herm = all(v["growth"] <= 2.0 for k, v in vals.items() if not k.startswith("RK4"))
    rk4 = all(v["growth"] >= 3.0 for k, v in vals.items() if k.startswith("RK4"))
    text = "; ".join(f"{k} {_fmt(v['first_fifth'])} -> {_fmt(v['last_fifth'])}" for k, v in vals.items())
    return ("max |E - E0| in the first and the last fifth of the run: " + text
            + _partial_note(runs, tuple(vals)), bool(herm and rk4), vals)


def _table(runs: Mapping[str, Result]) -> Verdict:
    rows = {lab: {"paper": dict(zip(TABLE_KEYS, SEED001_TABLES[lab], strict=True)),
                  "measured": {k: summary_of(runs[lab], k) for k in TABLE_KEYS}} for lab in SEED001_TABLES}
    text = "; ".join(f"{lab}: eps(H) {_fmt(r['measured']['max_energy_error'])} "
                     f"(paper {_fmt(r['paper']['max_energy_error'])})" for lab, r in rows.items())
    return text, None, rows


SEED001 = Experiment(
    id="seed001",
    seed="001",
    section="3",
    title="Two-link arm: Hermite discrete variational methods H23G2, H33G2 against RK4 (Tables 1-2)",
    source="/work/shared/seeds/001_9166a7ffbfdc855c.txt, section 3 (Tables 1-2, Figs. 2-10)",
    setup="Two uniform links (1 kg, 1 m; 2 kg, sqrt(3) m) pinned in a chain at O, absolute coordinates with the "
          "four constraints of eq. 19, released horizontal at rest (the seed does not state the initial state), "
          "100 s at h = 0.01 and h = 0.005. H23G2 / H33G2: two-point / three-point cubic Hermite interpolation with "
          "2-point Gauss quadrature, constraints at the step nodes; RK4 on the index-1 DAE.",
    says=(
        ("Table 1", "h = 0.01: eps(H) H23G2 1.154, H33G2 1.079, RK4 30.11; eps(Phi) 3.2e-15, 3.1e-15, 1.02; "
                    "eps(dPhi) 0.885, 0.896, 0.0199; eps(d2Phi) 36.2, 16.6, 1.1e-13; t_CPU 7.30, 7.84, 3.16 s."),
        ("Table 2", "h = 0.005: eps(H) 0.355, 0.262, 1.679; eps(Phi) 6.3e-15, 6.5e-15, 0.0569; eps(dPhi) 0.445, "
                    "0.447, 0.0012; eps(d2Phi) 17.8, 8.14, 1.7e-13; t_CPU 14.9, 14.9, 6.33 s."),
        ("Tables 1-2 text", "H23G2 and H33G2 differ little, H33G2 slightly more accurate, most visibly in the "
                            "acceleration-level constraint; RK4 at h = 0.005 matches the Hermite methods at h = 0.01 "
                            "in energy error and run time."),
        ("Figs. 6-10", "RK4's trajectory drifts and its energy error grows with time; the Hermite methods' energy "
                       "error stays in a fixed band."),
    ),
    runs=tuple(Run(f"{m} {s}", ARM, mid, h, _T1) for h, s in _S001 for m, mid in _M001),
    series=(
        Series("energy_error", "Energy error E - E0", "Figs. 9-10", "J",
               tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001), lambda r: r.energy_error),
        Series("constraint_position", "|Phi|", "Fig. 5, Tables 1-2", "m",
               tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001), lambda r: r.constraint_position, log=True),
        Series("constraint_velocity", "|dPhi/dt|", "Tables 1-2", "m/s",
               tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001), lambda r: r.constraint_velocity, log=True),
        Series("tip2_x", "x of the tip of link 2", "Figs. 3, 7, 8", "m",
               tuple(f"{m} h=0.01" for m, _ in _M001), lambda r: tip2(r)[:, 0]),
        Series("tip2_y", "y of the tip of link 2", "Figs. 3, 7, 8", "m",
               tuple(f"{m} h=0.01" for m, _ in _M001), lambda r: tip2(r)[:, 1]),
    ),
    claims=(
        Claim("phi_roundoff", "The Hermite methods keep the position constraints to round-off",
              "Tables 1-2: eps(Phi) 3.1e-15 to 6.5e-15 for H23G2 and H33G2",
              "max |Phi| over every step <= 1e-12 for both methods and both steps", _HERM,
              summary_below("max_constraint_position", _HERM, 1e-12, "max |Phi| (m)")),
        Claim("rk4_phi", "RK4 on the index-1 DAE drifts off the position constraints",
              "Tables 1-2: eps(Phi) of RK4 1.02 (h = 0.01) and 0.0569 (h = 0.005)",
              "RK4's max |Phi| >= 1e6 x the Hermite methods' at the same step",
              tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001),
              _per_step("max_constraint_position", "RK4", ("H23G2", "H33G2"), 1e6, "max |Phi| (m)")),
        Claim("rk4_energy", "RK4's energy error is larger than the Hermite methods' at the same step",
              "Tables 1-2: eps(H) 30.1 vs 1.15 / 1.08 (h = 0.01), 1.68 vs 0.355 / 0.262 (h = 0.005)",
              "RK4's max |E - E0| > the larger Hermite one at the same step, for both steps",
              tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001),
              _per_step("max_energy_error", "RK4", ("H23G2", "H33G2"), 1.0 + 1e-12, "max |E - E0| (J)")),
        Claim("energy_bounded", "Hermite energy errors stay in a band; RK4's grow with time",
              "Figs. 9-10 and text: RK4's energy error grows with time, the discrete variational methods' stays "
              "within a fixed range",
              "Hermite: max |E - E0| in the last fifth of the run <= 2 x that in the first fifth; RK4: >= 3 x",
              tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001), _energy_growth),
        Claim("velocity_order_h", "The Hermite methods violate the velocity constraint at O(h)",
              "Tables 1-2 and conclusion: eps(dPhi) 0.885 / 0.896 at h = 0.01, 0.445 / 0.447 at h = 0.005 "
              "(velocity and acceleration levels are not enforced)",
              "max |G qdot| >= 0.05 m/s at h = 0.01 and halves with h (ratio in [1.5, 2.5]) for both methods",
              _HERM, _halves),
        Claim("rk4_acceleration", "RK4 keeps the acceleration-level constraint to round-off",
              "Tables 1-2: eps(d2Phi) of RK4 1.1e-13 and 1.7e-13",
              "RK4's max |G qddot + dG/dt qdot| <= 1e-10 at both steps", ("RK4 h=0.01", "RK4 h=0.005"),
              summary_below("max_constraint_acceleration", ("RK4 h=0.01", "RK4 h=0.005"), 1e-10,
                            "max |d2Phi/dt2|")),
        Claim("h33_better", "H33G2 is slightly more accurate than H23G2, most visibly at the acceleration level",
              "Tables 1-2: eps(d2Phi) H33G2 16.6 vs H23G2 36.2 (h = 0.01), 8.14 vs 17.8 (h = 0.005); eps(H) 1.08 "
              "vs 1.15, 0.262 vs 0.355",
              "H33G2's max acceleration-level violation <= 0.75 x H23G2's at both steps",
              _HERM, _per_step("max_constraint_acceleration", "H23G2", ("H33G2",), 1.0 / 0.75,
                               "max |d2Phi/dt2|, H23G2 over H33G2")),
        Claim("rk4_half_step", "RK4 at h = 0.005 matches the Hermite methods at h = 0.01 in energy error",
              "Tables 1-2 text: RK4's energy error at h = 0.005 (1.68) is comparable to the Hermite methods' at "
              "h = 0.01 (1.15, 1.08)",
              "RK4's max |E - E0| at h = 0.005 within a factor 3 of the larger Hermite one at h = 0.01",
              ("RK4 h=0.005", "H23G2 h=0.01", "H33G2 h=0.01"),
              lambda runs: _within_factor(runs, "max_energy_error", "RK4 h=0.005", ("H23G2 h=0.01", "H33G2 h=0.01"),
                                          3.0)),
        Claim("cpu_time", "The Hermite methods take about 2.3 times RK4's CPU time at the same step",
              "Tables 1-2: t_CPU 7.30 / 7.84 s vs RK4 3.16 s (h = 0.01), 14.9 / 14.9 s vs 6.33 s (h = 0.005)",
              "the smaller Hermite CPU time >= 1.5 x RK4's at the same step (compiled kernels, solver time only)",
              tuple(f"{m} {s}" for _, s in _S001 for m, _ in _M001),
              lambda runs: _cpu(runs)),
        Claim("tables", "Tables 1-2 side by side",
              "Tables 1-2 (all five columns)", "no verdict: the paper's and our values of every cell",
              tuple(SEED001_TABLES), _table),
    ),
    notes=(
        "On this benchmark the force is constant (linear gravity in absolute coordinates): the cubic contains the "
        "exact free flight and 2-point Gauss integrates it exactly, so H23G2 and H33G2 give the same positions "
        "to the Newton tolerance (docs/methods.md); their velocities (M^-1 p, no constraint impulse at the new "
        "node) violate the velocity constraint by O(h), as in the seed's tables.",
        "The seed's eps(d2Phi) for methods without an acceleration of their own is computed here from the "
        "second-order backward difference of the velocities (docs/architecture.md).",
        "The motion is chaotic over 100 s: maxima over the run are comparable, trajectories are not.",
    ),
)


def _within_factor(runs: Mapping[str, Result], key: str, lab: str, others: Sequence[str], factor: float) -> Verdict:
    a = summary_of(runs[lab], key)
    b = max(summary_of(runs[o], key) for o in others)
    ratio = a / b if b > 0 else float("inf")
    ok = math.isfinite(ratio) and 1.0 / factor <= ratio <= factor
    return (f"{lab} {_fmt(a)} vs {' / '.join(others)} max {_fmt(b)} (ratio {_fmt(ratio)})"
            + _partial_note(runs, (lab, *others)), bool(ok), {"value": a, "against": b, "ratio": ratio})


def _cpu(runs: Mapping[str, Result]) -> Verdict:
    vals = {}
    ok = True
    for _, s in _S001:
        herm = min(runs[f"{m} {s}"].cpu_time for m in ("H23G2", "H33G2"))
        rk = runs[f"RK4 {s}"].cpu_time
        vals[s] = {"hermite_min": herm, "rk4": rk, "ratio": herm / rk if rk > 0 else float("inf")}
        ok = ok and vals[s]["ratio"] >= 1.5
    text = "; ".join(f"{s}: Hermite {_fmt(v['hermite_min'])} s, RK4 {_fmt(v['rk4'])} s (ratio {_fmt(v['ratio'])})"
                     for s, v in vals.items())
    return "solver CPU time: " + text, bool(ok), vals


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

EXPERIMENTS: dict[str, Experiment] = {e.id: e for e in (SEED000, SEED001, SEED003)}


# ---------------------------------------------------------------------------------------------------------------
# seed 002, section 3: rotation from angular velocity (BENCHMARKS.md B6)
# ---------------------------------------------------------------------------------------------------------------

AV = "angular_velocity"
SEED002_TOL = 1e-10  # the seed's ode45 rtol = atol
SWITCH_LEVEL = 1.5 * math.pi  # the seed's buffer region starts at |theta| = 3 pi/2
AROUND = (1e-11, 1e-9)  # "around 1e-10" (Fig. 7): within a factor 10
BEFORE_SINGULARITY = 1e-8  # "accurate before the singular point" (Fig. 7): max rotation error of method 1


def norm_crossings(level: float, t_end: float = 2.0, n: int = 20001) -> list[float]:
    """Times where |theta_exact(t)| of seed 002's test function crosses ``level`` (grid plus bisection)."""
    from .models.angular_velocity import theta_exact

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
    source="/work/shared/seeds/002_f5cf20ad0489b86f.txt, section 3 (Figs. 4-7)",
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
EXPERIMENTS[SEED002.id] = SEED002


# ---------------------------------------------------------------------------------------------------------------
# seed 004, section 6: planar pendulum (B3) and 3D pendulum (B2) with the implicit midpoint forms
# ---------------------------------------------------------------------------------------------------------------

PLANAR = "planar_pendulum"
P3D = "pendulum_3d"
VISIBLE = 0.1  # "visibly different" / "coincide" at figure scale: a deviation of 10 % of the signal's amplitude
AMPLITUDE_LOSS_VISIBLE = 0.01  # an amplitude loss of 1 % over the run is visible as damping in Fig. 5
KEEPS_AMPLITUDE = 0.001  # "keeps the amplitude": within 0.1 %
CONSERVED_ENERGY = 1e-9  # J: the heavy-top energy "conserved" (to the Newton tolerance; scale m g |rho| = 69 J)
PLANAR_LABELS = ("RK4", "angle", "reduced 0.05", "reduced 0.01")
P3D_MIDPOINT = ("LG 0.05", "reduced 0.1", "rotation 0.1", "rotation 0.01", "Cardan 0.01", "Cardan 0.005")
P3D_OTHERS = ("RK4 3D", "LGVI 0.05", "RATTLie 0.05", "Lie-alpha 0.05")


def planar_amplitude(res: Result) -> np.ndarray:
    """Swing amplitude from the energy, acos(-E / (m g l)) (exact at every sample, unlike sampled maxima)."""
    p = res.params
    return np.arccos(np.clip(-res.energy / (p["m"] * p["g"] * p["l"]), -1.0, 1.0))


def _omega(res: Result) -> np.ndarray:
    return res.state["Omega"][:, 0]


def _gamma(res: Result) -> np.ndarray:
    """Gamma = R^T e3, the third row of R."""
    return res.state["R"][:, 0, 2, :]


def _deviation(res: Result, values: Callable[[Result], np.ndarray], ref: Result) -> tuple[np.ndarray, np.ndarray]:
    """(t, max-norm deviation of ``values`` from the reference run) on res's samples."""
    v = values(res)
    v2 = v.reshape(len(v), -1)
    r2 = values(ref).reshape(len(ref.t), -1)
    cols = [on_common_times(res, v2[:, j], ref, r2[:, j]) for j in range(v2.shape[1])]
    t = cols[0][0]
    dev = np.max([np.abs(v2[: len(t), j] - c[1]) for j, c in enumerate(cols)], axis=0)
    return t, dev


def _amplitude_loss(res: Result) -> float:
    a = planar_amplitude(res)
    return float((a[0] - a[-1]) / a[0])


def _rk4_damping(runs: Mapping[str, Result]) -> Verdict:
    loss = {lab: _amplitude_loss(runs[lab]) for lab in ("RK4", "angle", "reduced 0.05")}
    ok = loss["RK4"] >= AMPLITUDE_LOSS_VISIBLE and abs(loss["angle"]) <= KEEPS_AMPLITUDE
    a0 = float(planar_amplitude(runs["RK4"])[0])
    text = (f"amplitude {a0:.4f} rad at t = 0; loss over {runs['RK4'].t[-1]:.3g} s: "
            + ", ".join(f"{lab} {100 * v:.3g} %" for lab, v in loss.items()))
    return text + _partial_note(runs, ("RK4", "angle", "reduced 0.05")), bool(ok), {"loss": loss, "amplitude": a0}


def _last5_differ(runs: Mapping[str, Result]) -> Verdict:
    amp = float(planar_amplitude(runs["exact"])[0])
    t, dev = _deviation(runs["RK4"], lambda r: r.state["theta"], runs["angle"])
    first = float(dev[t <= 5.0].max())
    d = float(dev[t >= t[-1] - 5.0].max())
    ok = d >= VISIBLE * amp and first < VISIBLE * amp
    return (f"max |theta_RK4 - theta_midpoint|: first 5 s {_fmt(first)} rad, last 5 s {_fmt(d)} rad "
            f"(amplitude {amp:.3f} rad)" + _partial_note(runs, ("RK4", "angle")), bool(ok),
            {"first_5s": first, "last_5s": d, "amplitude": amp})


def _which_is_right(runs: Mapping[str, Result]) -> Verdict:
    dev = {lab: float(_deviation(runs[lab], lambda r: r.state["theta"], runs["exact"])[1].max())
           for lab in ("RK4", "angle", "reduced 0.05")}
    ok = dev["angle"] < dev["RK4"]
    return ("max |theta - theta_exact| over the run: " + ", ".join(f"{lab} {_fmt(v)} rad" for lab, v in dev.items())
            + _partial_note(runs, ("RK4", "angle", "reduced 0.05")), bool(ok), {"deviation": dev})


def _reduced_step(runs: Mapping[str, Result]) -> Verdict:
    amp = float(planar_amplitude(runs["exact"])[0])
    dev = {lab: float(_deviation(runs[lab], lambda r: r.state["theta"], runs["exact"])[1].max())
           for lab in ("reduced 0.05", "reduced 0.01")}
    ok = dev["reduced 0.05"] >= VISIBLE * amp and dev["reduced 0.01"] < VISIBLE * amp
    return ("max |theta - theta_exact|: " + ", ".join(f"{lab} {_fmt(v)} rad" for lab, v in dev.items())
            + f" (amplitude {amp:.3f} rad, threshold {VISIBLE * amp:.3g} rad)"
            + _partial_note(runs, ("reduced 0.05", "reduced 0.01")), bool(ok), {"deviation": dev, "amplitude": amp})


def _long_term_3d(runs: Mapping[str, Result]) -> Verdict:
    labs = ("LG 0.05", "reduced 0.1", "rotation 0.1")
    vals = {lab: {"energy": summary_of(runs[lab], "max_energy_error"),
                  "orthogonality": summary_of(runs[lab], "max_orthogonality_error"),
                  "momentum": summary_of(runs[lab], "max_momentum_error"), "status": runs[lab].status}
            for lab in labs}
    ok = all(v["status"] == "ok" and v["energy"] <= CONSERVED_ENERGY and v["orthogonality"] <= ROUNDOFF
             for v in vals.values())
    text = "; ".join(f"{lab}: {v['status']}, max |E - E0| {_fmt(v['energy'])} J, ||I - R^T R|| "
                     f"{_fmt(v['orthogonality'])}, momentum {_fmt(v['momentum'])}" for lab, v in vals.items())
    return text, bool(ok), vals


def _separation(res: Result, ref: Result, scale: float) -> tuple[float, float | None]:
    """(max deviation of Omega from the reference, first time it exceeds VISIBLE * scale or None)."""
    t, dev = _deviation(res, _omega, ref)
    over = np.nonzero(dev > VISIBLE * scale)[0]
    return float(dev.max()), (float(t[over[0]]) if over.size else None)


def _step_insensitive(runs: Mapping[str, Result]) -> Verdict:
    scale = float(np.abs(_omega(runs["ref 3D"])).max())
    dmax, t_sep = _separation(runs["rotation 0.1"], runs["rotation 0.01"], scale)
    sep = {lab: _separation(runs[lab], runs["ref 3D"], scale) for lab in ("rotation 0.1", "rotation 0.01")}
    ok = t_sep is None
    text = (f"max |Omega_0.1 - Omega_0.01| {_fmt(dmax)} rad/s (max |Omega| {scale:.3g}); beyond 10 % from "
            f"t = {t_sep if t_sep is None else f'{t_sep:.3g}'} s; against the reference: "
            + ", ".join(f"{lab} beyond 10 % from t = {'never' if s[1] is None else f'{s[1]:.3g} s'}"
                        for lab, s in sep.items()))
    return text + _partial_note(runs, ("rotation 0.1", "rotation 0.01")), bool(ok), {
        "max_deviation": dmax, "separates_at": t_sep, "vs_reference": {k: list(v) for k, v in sep.items()}}


def _cardan_conservation(runs: Mapping[str, Result]) -> Verdict:
    e = {lab: summary_of(runs[lab], "max_energy_error") for lab in ("Cardan 0.01", "Cardan 0.005", "rotation 0.1")}
    ok = min(e["Cardan 0.01"], e["Cardan 0.005"]) >= 1e3 * e["rotation 0.1"]
    return ("max |E - E0|: " + ", ".join(f"{lab} {_fmt(v)} J" for lab, v in e.items())
            + _partial_note(runs, tuple(e)), bool(ok), {"energy": e})


def _cardan_sensitive(runs: Mapping[str, Result]) -> Verdict:
    scale = float(np.abs(_omega(runs["ref 3D"])).max())
    sep = {lab: _separation(runs[lab], runs["ref 3D"], scale) for lab in ("Cardan 0.01", "rotation 0.01")}
    tc, tr = sep["Cardan 0.01"][1], sep["rotation 0.01"][1]
    ok = tc is not None and (tr is None or tc < tr)
    return ("|Omega - Omega_ref| beyond 10 % of max |Omega|: " + ", ".join(
        f"{lab} from t = {'never' if s[1] is None else f'{s[1]:.3g} s'} (max {_fmt(s[0])} rad/s)"
        for lab, s in sep.items()) + _partial_note(runs, tuple(sep)), bool(ok), {k: list(v) for k, v in sep.items()})


def _complete_best(runs: Mapping[str, Result]) -> Verdict:
    dR = float(np.abs(runs["rotation 0.1"].state["R"] - runs["reduced 0.1"].state["R"]).max())
    dW = float(np.abs(_omega(runs["rotation 0.1"]) - _omega(runs["reduced 0.1"])).max())
    ok = dW > 1e-6  # a better form must at least give a different trajectory
    return (f"rotation (complete Lie group) vs reduced at h = 0.1 over the run: max |dR| {_fmt(dR)}, max |dOmega| "
            f"{_fmt(dW)} rad/s: the same trajectory" + _partial_note(runs, ("rotation 0.1", "reduced 0.1")),
            bool(ok), {"max_dR": dR, "max_dOmega": dW})


_T4P = 50.0
_T43 = 100.0
SEED004 = Experiment(
    id="seed004",
    seed="004",
    section="6",
    title="Planar and 3D pendulum: RK4 against implicit midpoint schemes in angle, reduced-attitude, rotation and "
          "Cardan-angle form",
    source="/work/shared/seeds/004_1f4c1d75da0e6abe.txt, section 6 (Figs. 5-27), sections 4-5 (eqs. 39-87)",
    setup="Planar pendulum m = 2 kg, J = 0.48 kg m^2, l = 0.6 m, theta0 = 0, omega0 = 1 rad/s, 50 s, h = 0.05 "
          "(RK4, eqs. 43/46, reduced eqs. 50/53) and 0.01; 3D pendulum m = 10 kg, J = I about the pivot, "
          "rho = [0, 0, 0.7] m, R0 = Rx(pi/3) Ry(pi/4) Rz(pi/9), at rest, 100 s: eq. 70 at h = 0.05, reduced "
          "(eq. 78) and complete Lie group (eq. 83) at 0.1, Cardan (eq. 87) at 0.01 and 0.005. The paper's "
          "'standard results' are unspecified; ours are RK4 at h = 1e-3 (planar) and 5e-4 (3D).",
    says=(
        ("Fig. 5", "RK4 damps the planar pendulum as time increases; the difference (midpoint) method conserves "
                   "the long-term amplitude of attitude and angular velocity."),
        ("Figs. 6-7", "In the first 5 s RK4 and the midpoint coincide; in the last 5 s they differ obviously, in "
                      "amplitude and in period."),
        ("Figs. 8-9", "The two difference forms (eqs. 43/46, and the reduced eqs. 50/53) coincide."),
        ("Figs. 10-12", "Reduced attitude at h = 0.05 is obviously distinguishable from the standard (time "
                        "hysteresis); at 0.01 the results coincide."),
        ("Figs. 18-25", "Eq. 70 (h = 0.05), the reduced attitude (0.1) and the complete Lie group (0.1) show good "
                        "long-term stability over 100 s; the complete form also gives all attitudes."),
        ("Figs. 26-27", "The Lie-algebra (Cardan) form at 0.01 and 0.005 loses the dynamics results; it is very "
                        "sensitive to the time step."),
        ("Sec. 7", "(4) reduced and complete Lie group results at 0.1 and 0.01 are not obviously distinguishable; "
                   "(5) the Cardan form loses conservation; the complete Lie group form is best and least "
                   "sensitive to the step."),
    ),
    runs=(
        Run("RK4", PLANAR, "rk4", 0.05, _T4P),
        Run("angle", PLANAR, "midpoint_angle", 0.05, _T4P, note="eqs. 43/46 (= the planar Lie-algebra eqs. 63/64)"),
        Run("reduced 0.05", PLANAR, "midpoint_reduced", 0.05, _T4P, note="eqs. 50/53 (= the planar eqs. 59/60)"),
        Run("reduced 0.01", PLANAR, "midpoint_reduced", 0.01, _T4P),
        Run("exact", PLANAR, "rk4", 1e-3, _T4P, role="reference",
            note="stand-in for the exact solution: RK4 at h = 1e-3 (within 1e-9 rad of the elliptic solution)"),
        Run("LG 0.05", P3D, "midpoint_rotation", 0.05, _T43,
            note="eq. 70 solves for (dOmega, F^T Gamma_k = Gamma_{k+1}): the reduced midpoint with R = R F carried"),
        Run("reduced 0.1", P3D, "midpoint_reduced", 0.1, _T43),
        Run("rotation 0.1", P3D, "midpoint_rotation", 0.1, _T43),
        Run("rotation 0.01", P3D, "midpoint_rotation", 0.01, _T43),
        Run("Cardan 0.01", P3D, "midpoint_cardan", 0.01, _T43),
        Run("Cardan 0.005", P3D, "midpoint_cardan", 0.005, _T43),
        Run("RK4 3D", P3D, "rk4", 0.05, _T43, note="not in the paper's 3D figures: RK4 at the midpoint's step"),
        Run("LGVI 0.05", P3D, "lgvi", 0.05, _T43, note="seed 000's DH at seed 004's step, for comparison"),
        Run("RATTLie 0.05", P3D, "rattlie", 0.05, _T43, note="seed 000's RL at seed 004's step, for comparison"),
        Run("Lie-alpha 0.05", P3D, "lie_galpha", 0.05, _T43, options={"rho_inf": 0.9},
            note="seed 000's Lie generalized-alpha at seed 004's step, for comparison"),
        Run("ref 3D", P3D, "rk4", 5e-4, _T43, role="reference",
            note="RK4 at h = 5e-4 (within 3.3e-7 rad/s of the quaternion DOP853 solution over 100 s)"),
    ),
    series=(
        Series("theta", "Planar pendulum angle", "Figs. 5-8, 12", "rad", (*PLANAR_LABELS, "exact"),
               lambda r: r.state["theta"]),
        Series("amplitude", "Planar swing amplitude acos(-E / (m g l))", "Fig. 5", "rad", (*PLANAR_LABELS, "exact"),
               planar_amplitude),
        Series("Omega_x", "3D pendulum body angular velocity, x", "Figs. 18, 20, 22, 26", "rad/s",
               (*P3D_MIDPOINT, *P3D_OTHERS, "ref 3D"), lambda r: _omega(r)[:, 0]),
        Series("Omega_y", "3D pendulum body angular velocity, y", "Figs. 18, 20, 22, 26", "rad/s",
               (*P3D_MIDPOINT, *P3D_OTHERS, "ref 3D"), lambda r: _omega(r)[:, 1]),
        Series("Gamma_x", "Reduced attitude Gamma = R^T e3, x", "Figs. 19, 21, 23-25, 27", "",
               (*P3D_MIDPOINT, *P3D_OTHERS, "ref 3D"), lambda r: _gamma(r)[:, 0]),
        Series("Gamma_z", "Reduced attitude Gamma = R^T e3, z", "Figs. 19, 21, 23-25, 27", "",
               (*P3D_MIDPOINT, *P3D_OTHERS, "ref 3D"), lambda r: _gamma(r)[:, 2]),
        Series("energy_error_3d", "3D pendulum |E - E0|", "(conservation, Sec. 7)", "J",
               (*P3D_MIDPOINT, *P3D_OTHERS), lambda r: np.abs(r.energy_error), log=True),
    ),
    claims=(
        Claim("rk4_damping", "RK4 at h = 0.05 visibly damps the planar pendulum; the midpoint keeps the amplitude",
              "Fig. 5: the RK4 results are damped as the simulation time increases; the difference method conserves "
              "the long-term stability", f"RK4's amplitude loss over 50 s >= {100 * AMPLITUDE_LOSS_VISIBLE:g} % "
              f"(visible in the figure) and the midpoint's within {100 * KEEPS_AMPLITUDE:g} %",
              ("RK4", "angle", "reduced 0.05"), _rk4_damping),
        Claim("rk4_vs_midpoint", "RK4 and the midpoint coincide in the first 5 s and differ obviously in the last 5 s",
              "Figs. 6-7: at the beginning the two results coincide; in the last 5 s the differences are obvious, "
              "in amplitude and in period", f"max |theta_RK4 - theta_midpoint| < {VISIBLE:g} x amplitude in the "
              f"first 5 s and >= that in the last 5 s", ("RK4", "angle", "exact"), _last5_differ),
        Claim("rk4_distorts", "The midpoint (difference) method is the more faithful one over the long run",
              "Secs. 3, 6, 7: RK error accumulation distorts long simulations, the difference method avoids it",
              "max |theta - theta_exact| over 50 s of the midpoint (eq. 43) < RK4's", ("RK4", "angle", "reduced 0.05",
                                                                                     "exact"), _which_is_right),
        Claim("forms_coincide", "The two difference forms of each model coincide",
              "Figs. 8-9: eqs. 43 and 46 (and 50 and 53) give highly coinciding results",
              "eqs. 43/46 (and 50/53) are the same equations in other unknowns (x_{k+1} = x_k + Delta x_k); we "
              "implement each once, so the comparison is void", (), None),
        Claim("reduced_step", "The reduced attitude at h = 0.05 lags the standard visibly; at 0.01 it coincides",
              "Fig. 12: with h = 0.05 the results are obviously distinguishable, with 0.01 they coincide",
              f"max |theta - theta_exact| over 50 s >= {VISIBLE:g} x amplitude at 0.05, below at 0.01",
              ("reduced 0.05", "reduced 0.01", "exact"), _reduced_step),
        Claim("long_term_3d", "Eq. 70, the reduced and the complete Lie group forms are stable over 100 s",
              "Figs. 18-25: good long-term stability at h = 0.05 (eq. 70) and 0.1 (reduced, complete Lie group)",
              f"status ok, max |E - E0| <= {CONSERVED_ENERGY:g} J, ||I - R^T R|| <= {ROUNDOFF:g} over every step",
              ("LG 0.05", "reduced 0.1", "rotation 0.1"), _long_term_3d),
        Claim("step_insensitive", "At 0.1 and 0.01 the Lie group results are not obviously distinguishable",
              "Sec. 7 (4): the results for the time steps 0.1 and 0.01 s are not obviously distinguishable",
              f"max |Omega_0.1 - Omega_0.01| over 100 s < {VISIBLE:g} x max |Omega|",
              ("rotation 0.1", "rotation 0.01", "ref 3D"), _step_insensitive),
        Claim("cardan_conservation", "The Cardan (Lie algebra) form loses conservation",
              "Figs. 26-27, Sec. 7 (5): the results lose their conservation under the Lie algebra (Cardan) model",
              "max |E - E0| of the Cardan runs >= 1e3 x that of the complete Lie group form at h = 0.1",
              ("Cardan 0.01", "Cardan 0.005", "rotation 0.1"), _cardan_conservation),
        Claim("cardan_sensitive", "The Cardan form is more sensitive to the step than the rotation form",
              "Sec. 6: the Lie algebra form determined by Cardan rotation is very sensitive to the time step",
              f"at h = 0.01, |Omega - Omega_ref| exceeds {VISIBLE:g} x max |Omega| earlier for Cardan than for "
              "the complete Lie group form", ("Cardan 0.01", "rotation 0.01", "ref 3D"), _cardan_sensitive),
        Claim("complete_best", "The complete Lie group form beats the reduced attitude form",
              "Abstract, Sec. 7: the complete Lie group expression has the best long simulation behaviour",
              "rotation 0.1 and reduced 0.1 give different trajectories (a prerequisite for one being better)",
              ("rotation 0.1", "reduced 0.1"), _complete_best),
    ),
    notes=(
        "The implicit midpoint rule conserves every quadratic invariant exactly: in (Omega, Gamma) the heavy-top "
        "energy 1/2 Omega.J Omega - m g rho.Gamma, |Gamma|^2 and Gamma.J Omega are quadratic, so the reduced and "
        "complete forms conserve them to the Newton tolerance; in angles (planar eq. 43, Cardan eq. 87) the "
        "potential is not quadratic and only a bounded energy error remains (planar) or none is guaranteed (Cardan).",
        "The midpoint's frequency error (h w)^2 / 12 (w = 4.95 rad/s planar, ~8 rad/s 3D) dephases the h = 0.05/0.1 "
        "runs within seconds to tens of seconds; RK4's amplitude error (h w)^6 / 144 per step is small at h = 0.05.",
        "Seed 000's Lie group methods on the (SO(3) x R^3) joint formulation: the seed's data make the inertia "
        "about the centre of mass indefinite, and RATTLie and Lie-alpha do not survive h = 0.05 (see their runs).",
        "All runs are sampled at the times of the coarsest-step run (0.1 s).",
    ),
)
EXPERIMENTS[SEED004.id] = SEED004
EXPERIMENTS = dict(sorted(EXPERIMENTS.items()))  # seed order, whichever block registered first


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
