"""Seed 001, section 3: the two-link arm (docs/benchmarks.md B4), Tables 1-2 and Figs. 2-10."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..result import Result
from .model import (
    Claim,
    Evaluator,
    Experiment,
    Run,
    Series,
    Verdict,
    _fmt,
    _partial_note,
    energy_windows,
    summary_below,
    summary_of,
)

# ---------------------------------------------------------------------------------------------------------------
# seed 001, section 3: the two-link arm (docs/benchmarks.md B4), Tables 1-2 and Figs. 2-10
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
_HERM_INTERP = tuple(f"{lab} interpolant" for lab in _HERM)


def tip2(res: Result) -> np.ndarray:
    """x and y of the free end of link 2 (seed 001 Figs. 2, 7, 8), shape (samples, 2)."""
    q = res.state["q"]
    half = 0.5 * float(res.params.get("l2", math.sqrt(3.0)))
    return np.column_stack([q[:, 3] + half * np.cos(q[:, 5]), q[:, 4] + half * np.sin(q[:, 5])])


def _per_step(key: str, num: str, den: Sequence[str], at_least: float, what: str, suffix: str = "") -> Evaluator:
    """For both steps: summary ``key`` of method ``num`` over the larger of ``den`` at the same step >= at_least
    (runs labelled "<method> <step><suffix>")."""

    def ev(runs: Mapping[str, Result]) -> Verdict:
        vals: dict[str, Any] = {}
        parts = []
        ok = True
        labels = []
        for _, s in _S001:
            a = summary_of(runs[f"{num} {s}{suffix}"], key)
            b = max(summary_of(runs[f"{d} {s}{suffix}"], key) for d in den)
            ratio = a / b if b > 0 else float("inf")
            vals[s] = {"value": a, "against": b, "ratio": ratio}
            ok = ok and math.isfinite(ratio) and ratio >= at_least
            parts.append(f"{s}: {num} {_fmt(a)} vs {'/'.join(den)} {_fmt(b)} (ratio {_fmt(ratio)})")
            labels += [f"{num} {s}{suffix}", *(f"{d} {s}{suffix}" for d in den)]
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
            w = energy_windows(runs[f"{m} {s}"])
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
    source=(
        'Zhang, Wang, Ding, "Discrete variational method of multibody system dynamics based on Hermite '
        'interpolation", Journal of Dynamics and Control, 2018, doi:10.6052/1672-6553-2018-010, section 3 '
        "(Tables 1-2, Figs. 2-10)"
    ),
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
    runs=tuple(Run(f"{m} {s}", ARM, mid, h, _T1) for h, s in _S001 for m, mid in _M001)
    + tuple(Run(f"{m} {s} interpolant", ARM, mid, h, _T1, options={"acceleration": "interpolant"},
                note="d2Phi from the second derivative of the step's cubic at its end")
            for h, s in _S001 for m, mid in _M001[:2]),
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
        Claim("h33_better_interpolant", "The same comparison with the acceleration of the Hermite interpolants",
              "Tables 1-2: eps(d2Phi) H33G2 16.6 vs H23G2 36.2 (h = 0.01), 8.14 vs 17.8 (h = 0.005) (the seed does not "
              "say how it computed the acceleration; the interpolant's second derivative is the likeliest reading)",
              "H33G2's max acceleration-level violation <= 0.75 x H23G2's at both steps, both with the second "
              "derivative of the step's cubic at its end (option acceleration = 'interpolant')",
              _HERM_INTERP, _per_step("max_constraint_acceleration", "H23G2", ("H33G2",), 1.0 / 0.75,
                                      "max |d2Phi/dt2| (interpolant), H23G2 over H33G2", suffix=" interpolant")),
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
        "second-order backward difference of the velocities (docs/architecture.md), and, in the runs marked "
        "'interpolant', from the second derivative of each step's cubic at its end. H23G2 and H33G2 choose the same "
        "cubic (both are the cubics with the step's q_k, qdot_k, q_{k+1} made stationary in the one free "
        "parameter), so neither reading separates them.",
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


