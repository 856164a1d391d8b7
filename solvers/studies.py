"""Convergence study: methods x step sizes on one benchmark, error against a reference, fitted orders and
work-precision data (pure library code, plain JSON-able results; every run goes through ``simulate``; the
Convergence page draws it with app/convergence.py).

The study (see docs/pages.md):

* steps ``h_k = h / 2^k`` for ``k = 0 .. levels - 1``; every run ends at the same time ``T = N h`` with
  ``N = ceil(t_end / h)``, so all runs share the end time and the sample times ``j s h`` (a stride ``s`` of the
  coarsest run, at most :data:`SAMPLES` of them, ``T`` always included);
* error of a run = max over those common sample times of the infinity norm of the state difference to the
  reference, over every entry of the state (rotation matrices entry-wise, which is defined even for a method
  that does not keep ``R`` orthogonal, such as RK4; the geodesic angle ``arccos((tr(R_ref^T R) - 1) / 2)`` is
  not: it turns an O(h^p) loss of orthogonality into an O(h^(p/2)) "error");
* reference: the benchmark's exact rotation where one exists (``angular_velocity``: its ``rotation_error``
  diagnostic, seed 002 eq. 17), else :data:`REF_METHOD` at ``h_min / REF_FACTOR``, with its own error estimated
  by a second reference run at twice the step (Richardson: difference / (2^4 - 1)); errors within
  :data:`REF_MARGIN` times that estimate (or below :data:`ERROR_FLOOR`) are shown but not fitted;
* method options (``options = {method: {name: value}}``, validated as ``simulate`` validates them): every run
  of that method uses them, an erk or rkmk ``tableau`` included;
* fitted order: least-squares slope of log(error) against log(h) over the fitted points of each method
  (at least two), beside the order predicted for the options used (``Method.order_of``: for a tableau, the
  order its order conditions give, ``solvers.tableau.analyse``); for an adaptive method
  ``h`` is only its first/maximum step (the run still saves the end time, and with the exact reference every
  saved sample), so its work-precision curve is the meaningful one;
* work: the solver's CPU time (``Result.cpu_time``) of each run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import api, references
from .registry import METHODS
from .result import Result, _plain

MAX_METHODS = 4
MAX_LEVELS = 6
MIN_LEVELS = 2
MAX_STEPS_PER_RUN = 1_000_000  # steps of one run (the finest one decides)
MAX_TOTAL_STEPS = 4_000_000  # steps of all runs of a study, references included
SAMPLES = 100  # at most this many common comparison times (plus t = 0)
REF_BUDGET = 60.0  # s: a library reference (solvers.references) that would take longer refuses the study
REF_METHOD = "rk4"  # the reference of a benchmark without one in solvers.references
REF_ORDER = 4
REF_FACTOR = 8  # reference step = smallest step / REF_FACTOR
REF_MARGIN = 10.0  # errors below REF_MARGIN x the reference's estimated error are not fitted
ERROR_FLOOR = 1e-12  # errors below this are round-off and not fitted
EXACT_REFERENCE = {"angular_velocity": "rotation_error"}  # benchmark -> diagnostic against its exact solution
CHARTS = {"angular_velocity": ("theta",)}  # state keys that are charts of another key (not compared)

DEFAULT_BENCHMARK = "pendulum_3d"
DEFAULT_METHODS = ("rk4", "rattlie")
DEFAULT_H = 0.01
DEFAULT_LEVELS = 3
DEFAULT_T_END = 1.0

Progress = Callable[[float, str], object]


# ---------------------------------------------------------------------------------------------------------------
# plan and validation
# ---------------------------------------------------------------------------------------------------------------


def positive(value: Any, label: str) -> float:
    """A form's number > 0, or ValueError with a sentence for the user (the dashboard's forms use it too)."""
    if isinstance(value, bool) or value is None or value == "":
        raise ValueError(f"{label} is missing: enter a number greater than 0.")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be a number greater than 0, got {value!r}.") from None
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{label} must be a number greater than 0, got {value!r}.")
    return x


def theoretical_order(method: str, options: Mapping[str, Any] | None = None) -> int | None:
    """The method's order with ``options`` (None: its defaults): ``Method.order_of``, which for an erk or rkmk
    tableau is the order its order conditions give (``solvers.tableau.analyse``), not the default tableau's."""
    api.describe_method(method)  # an unknown method: ValueError naming the valid ones
    return int(METHODS[method].order_of(options))


def check_options(benchmark: str, methods: list[str], options: Any) -> dict[str, dict[str, Any]]:
    """``{method: {name: value}}`` -> every study method's options resolved for ``benchmark`` (plain data), as
    ``simulate`` resolves them (``Method.resolve``: unknown names, out-of-range values and malformed tableaus are
    refused; a tableau is at most ``solvers.tableau.MAX_STAGES`` stages). ValueError with a sentence otherwise."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ValueError("Method options must be a mapping {method: {option: value}}.")
    foreign = [str(m)[:40] for m in options if m not in methods]
    if foreign:
        raise ValueError(f"Options given for {', '.join(map(repr, foreign))}, which is not among the study's "
                         f"methods ({', '.join(methods)}).")
    out: dict[str, dict[str, Any]] = {}
    for m in methods:
        given = options.get(m)
        if given is not None and not isinstance(given, Mapping):
            raise ValueError(f"The options of {m} must be a mapping {{option: value}}.")
        try:
            out[m] = _plain(METHODS[m].resolve(given or {}, benchmark=benchmark))
        except ValueError as exc:
            raise ValueError(f"{m}: {exc}") from None
    return out


def options_text(method: str, options: Mapping[str, Any]) -> str:
    """The options that differ from the method's defaults, short (a typed tableau as its stage count)."""
    defaults = api.describe_method(method)["options"]
    parts = []
    for name, value in options.items():
        if name in defaults and value == defaults[name]["default"]:
            continue
        if name == "tableau" and isinstance(value, Mapping):
            parts.append(f"tableau: your own, {len(value.get('b') or [])} stages")
        else:
            parts.append(f"{name} = {value}")
    return ", ".join(parts)


def is_adaptive(method: str) -> bool:
    """True for a method with step-size control (its h is the output spacing, not the step)."""
    return bool(api.describe_method(method)["adaptive"])


def sample_stride(n0: int, samples: int = SAMPLES) -> int:
    """Smallest divisor ``s`` of ``n0`` with ``n0 / s <= samples``: the coarsest run saves every s-th step."""
    for s in range(max(1, math.ceil(n0 / samples)), n0 + 1):
        if n0 % s == 0:
            return s
    return n0


def plan(config: dict) -> dict:
    """Validate a study request and return it normalised, with the steps, the runs and their step counts.

    Keys: ``benchmark``, ``methods`` (list), ``h`` (the largest step), ``levels`` (number of steps, each half
    the previous), ``t_end`` and optional ``options`` ({method: {name: value}}, see :func:`check_options`; the
    plan holds every method's options resolved in full). Raises ValueError with a message for the user
    (including the work caps).
    """
    benchmark = config.get("benchmark")
    if not benchmark or not isinstance(benchmark, str):
        raise ValueError("Choose a benchmark.")
    if benchmark not in api.benchmarks():
        raise ValueError(f"unknown benchmark {benchmark!r}; valid: {', '.join(api.benchmarks())}")
    methods = config.get("methods") or []
    if isinstance(methods, str):
        methods = [methods]
    methods = list(dict.fromkeys(methods))
    if not methods:
        raise ValueError("Choose at least one method.")
    if len(methods) > MAX_METHODS:
        raise ValueError(f"Choose at most {MAX_METHODS} methods (got {len(methods)}): the study is capped "
                         f"at {MAX_METHODS} x {MAX_LEVELS} runs.")
    available = api.methods(benchmark)
    for m in methods:
        if m not in available:
            raise ValueError(f"method {m!r} does not apply to benchmark {benchmark!r}; valid: {', '.join(available)}")
    options = check_options(benchmark, methods, config.get("options"))
    h = positive(config.get("h"), "Largest step h")
    t_end = positive(config.get("t_end"), "End time")
    levels = config.get("levels")
    if isinstance(levels, float) and levels.is_integer():
        levels = int(levels)
    if isinstance(levels, bool) or not isinstance(levels, int) or not MIN_LEVELS <= levels <= MAX_LEVELS:
        raise ValueError(f"Number of step sizes must be a whole number from {MIN_LEVELS} to {MAX_LEVELS}, "
                         f"got {levels!r}.")
    if h > t_end:
        raise ValueError(f"Largest step h = {h:g} is larger than the end time {t_end:g}.")
    n0 = max(1, math.ceil(t_end / h * (1.0 - 1e-12)))
    t_final = n0 * h
    hs = [h / 2**k for k in range(levels)]
    steps = [n0 * 2**k for k in range(levels)]
    if steps[-1] > MAX_STEPS_PER_RUN:
        raise ValueError(
            f"The smallest step h = {hs[-1]:.4g} needs {steps[-1]:,} steps to reach t = {t_final:g}, over the cap "
            f"of {MAX_STEPS_PER_RUN:,} steps per run: increase the largest step, use fewer steps or shorten the "
            "end time.")
    exact = EXACT_REFERENCE.get(benchmark)
    library = not exact and benchmark in references.SOLUTIONS
    ref_steps = [] if exact or library else [steps[-1] * REF_FACTOR, steps[-1] * REF_FACTOR // 2]
    if ref_steps and ref_steps[0] > api.MAX_STEPS:
        raise ValueError(f"The reference run ({REF_METHOD} at h = {hs[-1] / REF_FACTOR:.4g}) would need "
                         f"{ref_steps[0]:,} steps, over the library's cap of {api.MAX_STEPS:,}: increase the "
                         "largest step, use fewer steps or shorten the end time.")
    total = len(methods) * sum(steps) + sum(ref_steps)
    if total > MAX_TOTAL_STEPS:
        raise ValueError(
            f"This study needs {total:,} steps in all ({len(methods)} method(s) x {levels} steps"
            + (f", plus the {REF_METHOD} reference at h / {REF_FACTOR}" if ref_steps else "")
            + f"), over the cap of {MAX_TOTAL_STEPS:,}: increase the largest step, use fewer steps or methods, or "
            "shorten the end time.")
    return {
        "benchmark": benchmark,
        "methods": methods,
        "options": options,
        "h": h,
        "levels": levels,
        "t_end": t_end,
        "t_final": t_final,
        "n0": n0,
        "hs": hs,
        "steps": steps,
        "stride": sample_stride(n0),
        "reference": ({"kind": "exact", "diagnostic": exact} if exact else
                      {"kind": "library", "steps": 0} if library else
                      {"kind": "run", "method": REF_METHOD, "h": hs[-1] / REF_FACTOR, "steps": ref_steps[0]}),
        "total_steps": total,
    }


# ---------------------------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------------------------


def common_rows(t: np.ndarray, grid: float, count: int) -> dict[int, int]:
    """Map j -> row index of the samples of ``t`` that lie (to round-off) on ``j * grid``, j = 0..count."""
    j = np.rint(t / grid)
    on = (np.abs(t - j * grid) <= 1e-9 * max(1.0, abs(grid) * count)) & (j >= 0) & (j <= count)
    out: dict[int, int] = {}
    for row in np.nonzero(on)[0]:
        out.setdefault(int(j[row]), int(row))
    return out


def state_error(state: dict[str, np.ndarray], ref: dict[str, np.ndarray], rows: np.ndarray, ref_rows: np.ndarray,
                skip: tuple[str, ...] = ()) -> np.ndarray:
    """Infinity norm of the state difference at matched rows, over every entry of every state array.

    Rotation matrices are compared entry-wise (a norm that does not depend on orthogonality)."""
    err = np.zeros(len(rows))
    for key, values in state.items():
        if key in skip or key not in ref:
            continue
        d = np.abs(np.asarray(values)[rows] - np.asarray(ref[key])[ref_rows]).reshape(len(rows), -1)
        if d.shape[1]:
            err = np.maximum(err, d.max(axis=1))
    return err


def fit_order(hs: list[float], errors: list[float]) -> float | None:
    """Least-squares slope of log(error) against log(h); None with fewer than two points."""
    if len(hs) < 2:
        return None
    return float(np.polyfit(np.log(hs), np.log(errors), 1)[0])


def _finite(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------------------------------------------------------
# the study
# ---------------------------------------------------------------------------------------------------------------


MIN_TIMED_CPU = 0.02  # s: a run's CPU time is measured over repeats that add up to at least this much
MAX_TIMED_REPEATS = 200


def timed_cpu(first: float, again: Callable[[], float], minimum: float = MIN_TIMED_CPU,
              max_repeats: int = MAX_TIMED_REPEATS) -> tuple[float, int]:
    """CPU time per run, above the timer's resolution: a run shorter than ``minimum`` is repeated (``again()``
    returns one repeat's CPU time) until the runs add up to ``minimum``; the mean and the number of runs."""
    total, runs = first, 1
    while total < minimum and runs < max_repeats:
        total += again()
        runs += 1
    return total / runs, runs


def _simulate(p: dict, method: str, h: float, n: int, report: Callable[[float], bool | None],
              options: Mapping[str, Any] | None = None) -> Result:
    """One run, saving every ``stride * n / n0``-th step: its samples are exactly the common times (``options``:
    the method's; the reference run takes none)."""
    return api.simulate(p["benchmark"], method, h=h, t_end=p["t_final"], save_every=p["stride"] * n // p["n0"],
                        options=options, progress=report)


def run_study(config: dict, progress: Progress | None = None) -> dict:
    """Run the study (reference first, then every method at every step) and return plain JSON-able data.

    ``progress(fraction, text)`` gets the fraction of all steps done; returning False stops the study (status
    "cancelled", the runs done so far kept). Invalid input gives ``status == "error"`` with the message.
    """
    started = time.perf_counter()
    try:
        p = plan(config)
    except ValueError as exc:
        return {"status": "error", "message": str(exc), "runs": [], "fits": {}, "config": dict(config)}
    grid = p["stride"] * p["h"]
    count = p["n0"] // p["stride"]
    total = float(p["total_steps"])
    done = [0.0]

    def reporter(n: int, text: str) -> Callable[[float], bool | None]:
        base = done[0]

        def report(fraction: float) -> bool | None:  # False (only) cancels, as simulate's progress
            if progress is not None and progress(min(1.0, (base + fraction * n) / total), text) is False:
                return False
            return None

        return report

    def stopped(runs: list) -> dict:
        return {**p, "status": "cancelled", "message": f"stopped by the caller after {len(runs)} of "
                f"{len(p['methods']) * len(p['hs'])} runs", "runs": runs, "fits": {}, "reference": ref_data,
                "elapsed": time.perf_counter() - started}

    ref = p["reference"]
    ref_data: dict[str, Any] = {**ref}
    ref_state = None
    ref_rows: dict[int, int] = {}
    uncertainty = 0.0
    if ref["kind"] == "library":
        times = grid * np.arange(count + 1)
        times[-1] = p["t_final"]
        try:
            lib = references.reference(p["benchmark"], times, budget=REF_BUDGET)
        except references.ReferenceUnavailableError as exc:
            return {**p, "status": "error", "message": f"{exc}.", "runs": [], "fits": {}, "reference": ref_data}
        # past the reference's horizon (chaos) it cannot judge: those times are never compared, so never fitted
        ref_state = lib.state
        ref_rows = {j: j for j in range(count + 1) if lib.horizon is None or times[j] <= lib.horizon}
        uncertainty = lib.state_accuracy if lib.state_estimate is None else float(
            lib.state_estimate[sorted(ref_rows)].max())  # over the compared times
        ref_data.update(uncertainty=uncertainty, cpu_time=lib.cpu_time, horizon=lib.horizon, description=(
            f"{lib.description}" + ("" if lib.exact else f"; its state entries within {uncertainty:.1g}")
            + ("" if lib.horizon is None else f"; errors compared up to its horizon t = {lib.horizon:.1f} s only")))
    elif ref["kind"] == "run":
        half = ref["steps"] // 2
        res2 = _simulate(p, REF_METHOD, 2 * ref["h"], half, reporter(half, f"reference {REF_METHOD} at 2 h_ref"))
        done[0] += half
        ref_res = _simulate(p, REF_METHOD, ref["h"], ref["steps"],
                            reporter(ref["steps"], f"reference {REF_METHOD} at h_ref = {ref['h']:.3g}"))
        done[0] += ref["steps"]
        ref_state = ref_res.state
        ref_data.update(status=ref_res.status, message=ref_res.message, cpu_time=ref_res.cpu_time)
        if "cancelled" in (res2.status, ref_res.status):
            return stopped([])
        if not (ref_res.ok and res2.ok):
            bad = ref_res if not ref_res.ok else res2
            msg = f"The reference run ({REF_METHOD}) did not reach t = {p['t_final']:g}: {bad.message}"
            return {**p, "status": "error", "message": msg, "runs": [], "fits": {}, "reference": ref_data}
        ref_rows = common_rows(ref_res.t, grid, count)
        rows2 = common_rows(res2.t, grid, count)
        js = sorted(set(ref_rows) & set(rows2))
        diff = state_error(res2.state, ref_res.state, np.array([rows2[j] for j in js]),
                           np.array([ref_rows[j] for j in js]), CHARTS.get(p["benchmark"], ()))
        uncertainty = float(diff.max()) / (2**REF_ORDER - 1) if diff.size else float("nan")
        ref_data["uncertainty"] = uncertainty
        ref_data["description"] = (f"{REF_METHOD} at h = {ref['h']:.4g} (smallest step / {REF_FACTOR}: this benchmark "
                                   f"has no reference solution in solvers.references); its own error is estimated at "
                                   f"{uncertainty:.2g} (difference to {REF_METHOD} at twice the step, "
                                   f"/ (2^{REF_ORDER} - 1))")
    else:
        ref_data["uncertainty"] = 0.0
        ref_data["description"] = f"the exact solution (the benchmark's {ref['diagnostic']} diagnostic)"
    floor = max(ERROR_FLOOR, REF_MARGIN * uncertainty if math.isfinite(uncertainty) else math.inf)

    runs: list[Any] = []
    for method in p["methods"]:
        for h, n in zip(p["hs"], p["steps"], strict=True):
            label = f"{method} at h = {h:.4g}"
            t0 = time.perf_counter()
            res = _simulate(p, method, h, n, reporter(n, label), p["options"][method])
            wall = time.perf_counter() - t0
            done[0] += n
            if res.status == "cancelled" or (progress is not None and progress(min(1.0, done[0] / total), label)
                                             is False):
                return stopped(runs)
            if ref_state is None:  # exact solution: every saved sample counts (for fixed steps: the common times)
                errs = np.asarray(getattr(res, ref["diagnostic"]))
                compared = len(errs)
            else:
                rows = common_rows(res.t, grid, count)
                js = sorted(set(rows) & set(ref_rows))
                errs = state_error(res.state, ref_state, np.array([rows[j] for j in js], dtype=int),
                                   np.array([ref_rows[j] for j in js], dtype=int), CHARTS.get(p["benchmark"], ()))
                compared = len(js)
            error = _finite(np.max(errs)) if len(errs) else None
            final = _finite(errs[-1]) if len(errs) else None
            note = ""
            if not res.ok:
                note = f"{res.status}: {res.message}"
            elif error is None:
                note = "no finite error"
            elif error <= floor:
                note = (f"error at the reference's accuracy ({floor:.2g}): not fitted" if floor > ERROR_FLOOR
                        else f"error below {ERROR_FLOOR:g} (round-off): not fitted")
            cpu, repeats = res.cpu_time, 1
            if res.ok:  # a short run's CPU time is timer noise: measured over repeats of at least MIN_TIMED_CPU
                def again(m: str = method, h: float = h, n: int = n) -> float:
                    return _simulate(p, m, h, n, lambda _f: None, p["options"][m]).cpu_time

                cpu, repeats = timed_cpu(res.cpu_time, again)
            runs.append({
                "method": method, "h": h, "steps": res.steps, "status": res.status, "message": res.message,
                "error": error, "error_final": final, "compared": compared,
                "cpu_time": _finite(cpu), "cpu_repeats": repeats, "wall_time": wall,
                "fitted": bool(res.ok and error is not None and error > floor), "note": note,
            })
    fits = {}
    for method in p["methods"]:
        pts = [r for r in runs if r["method"] == method and r["fitted"]]
        order = fit_order([r["h"] for r in pts], [r["error"] for r in pts])
        opts = p["options"][method]
        fits[method] = {"order": order, "theoretical": theoretical_order(method, opts), "points": len(pts),
                        "adaptive": is_adaptive(method), "options": options_text(method, opts)}
    problems = [f"{r['method']} at h = {r['h']:.4g}: {r['note']}" for r in runs if r["note"] and r["status"] != "ok"]
    return {
        **p,
        "status": "ok",
        "message": "; ".join(problems),
        "reference": ref_data,
        "floor": floor,
        "runs": runs,
        "fits": fits,
        "elapsed": time.perf_counter() - started,
    }
