"""The experiment data model: a paper's runs, the series its figures show, its claims, and the generic claim
helpers (a summary below a bound, a ratio, a band) that every seed's module uses."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..result import Result, _plain

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


ROUNDOFF = 1e-12  # a diagnostic "at round-off level" (the seed's 1e-14 / 1e-16 curves, max over all steps)


def energy_windows(res: Result, parts: int = 5) -> list[float]:
    """max |E - E0| over ``parts`` equal windows of the run."""
    t, e = res.t, np.abs(res.energy_error)
    edges = np.linspace(0.0, t[-1], parts + 1)
    return [float(e[(t >= lo) & (t <= hi)].max()) if np.any((t >= lo) & (t <= hi)) else float("nan")
            for lo, hi in itertools.pairwise(edges)]
