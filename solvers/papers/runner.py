"""Running an experiment: every run through solvers.simulate, then every claim measured."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from .. import api, driver
from ..result import Result, _plain
from .model import Experiment, Progress, Run, _run_spec
from .registry import EXPERIMENTS


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
    # sample every run at the times of the coarsest-step run (exact comparisons between runs): that run is
    # decimated to max_samples, the others save every (its spacing / their h)-th step where that is an integer
    saving: dict[str, dict[str, Any]] = {}
    if plan:
        base = max(plan, key=lambda p: p[0].h)
        b_stride, _ = driver.sample_plan(base[2], max_samples)
        dt = b_stride * base[0].h
        for r, _te, n in plan:
            ratio = dt / r.h
            aligned = abs(ratio - round(ratio)) < 1e-9 and n // round(ratio) + 1 <= 4 * max_samples
            saving[r.label] = {"save_every": round(ratio)} if aligned else {"max_samples": max_samples}
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
                               options=dict(r.options), **saving[r.label],
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
        entry: dict[str, Any] = {"id": c.key, "claim": c.claim, "paper": c.paper, "criterion": c.criterion}
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


