"""Run one configuration of the solvers and return plain, JSON-able data (no Dash imports).

The dashboard calls :func:`run_job` inside a background process; anything else (a script, a test, a Celery
worker) can call it the same way.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import solvers

MAX_SAMPLES = 2000  # saved samples per run sent to the browser (the summary still covers every step)
PROGRESS_INTERVAL = 0.25  # s: at most four progress reports per second
RESULT_KEYS = ("t", "energy_error", "status", "message", "summary")

Progress = Callable[[float], object]


def _positive_number(value: Any, label: str) -> float:
    if isinstance(value, bool) or value is None or value == "":
        raise ValueError(f"{label} is missing: enter a number greater than 0.")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be a number greater than 0, got {value!r}.") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{label} must be a number greater than 0, got {value!r}.")
    return number


def check_config(config: dict) -> dict:
    """Validate a run configuration; return it normalised or raise ValueError with a message for the user.

    Keys: ``benchmark``, ``method``, ``h``, ``t_end`` and optional ``params`` and ``options`` dicts.
    Only what the form can get wrong is checked here; :func:`solvers.simulate` checks the rest (ids, the
    cap on steps, h <= t_end) and run_job reports its message.
    """
    benchmark, method = config.get("benchmark"), config.get("method")
    if not benchmark or not isinstance(benchmark, str):
        raise ValueError("Choose a benchmark.")
    if not method or not isinstance(method, str):
        raise ValueError("Choose a method.")
    h = _positive_number(config.get("h"), "Step h")
    t_end = _positive_number(config.get("t_end"), "End time")
    return {
        "benchmark": benchmark,
        "method": method,
        "h": h,
        "t_end": t_end,
        "params": dict(config.get("params") or {}),
        "options": dict(config.get("options") or {}),
    }


def _throttled(progress: Progress | None, interval: float = PROGRESS_INTERVAL) -> Progress | None:
    """Forward the first report, then at most one per ``interval`` seconds. Never asks to cancel."""
    if progress is None:
        return None
    last = -math.inf

    def report(fraction: float) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= interval:
            last = now
            progress(fraction)

    return report


def run_job(config: dict, progress: Progress | None = None) -> dict:
    """Simulate one configuration; return ``config`` plus t, energy_error, status, message, summary.

    Invalid input gives ``status == "error"`` with the message instead of an exception. ``progress`` gets
    the fraction done (throttled); its return value is ignored: cancelling kills the job's process.
    """
    try:
        config = check_config(config)
        result = solvers.simulate(
            config["benchmark"],
            config["method"],
            h=config["h"],
            t_end=config["t_end"],
            params=config["params"] or None,
            options=config["options"] or None,
            max_samples=MAX_SAMPLES,
            progress=_throttled(progress),
        )
    except ValueError as exc:
        return {**config, "t": [], "energy_error": [], "status": "error", "message": str(exc), "summary": {}}
    data = result.to_dict()  # JSON-able, NaN and inf as None
    return {**config, **{key: data[key] for key in RESULT_KEYS}}
