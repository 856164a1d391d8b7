"""The papers page's pure parts: presets from ``solvers.papers.EXPERIMENTS``, the job that runs one, and the
figures and tables built from :func:`solvers.papers.run_experiment`'s plain data (no Dash imports).

Everything is driven by ``EXPERIMENTS``: an experiment added there appears on the page as a preset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from app import urlstate
from solvers import papers
from solvers.figures import chart_layout

MAX_SAMPLES = 2000  # saved samples per run sent to the browser (claims use summaries over every step)
VERDICTS = {  # status -> (mark, css class)
    "reproduced": ("reproduced", "verdict-yes"),
    "not reproduced": ("not reproduced", "verdict-no"),
    "not measured": ("not measured", "verdict-none"),
    "not applicable": ("not applicable", "verdict-none"),
}
_LAYOUT = chart_layout(margin={"l": 70, "r": 20, "t": 70, "b": 50}, hovermode="x unified", height=340)

Progress = Callable[[float], object]


def presets() -> list[dict[str, Any]]:
    """Plain descriptions of every experiment in ``EXPERIMENTS`` (no runs), in registry order."""
    return [papers.describe(eid) for eid in papers.experiments()]


def preset_t_end(description: Mapping[str, Any]) -> float:
    """The longest end time of an experiment's runs (the paper's setting)."""
    return max((float(r["t_end"]) for r in description["runs"]), default=0.0)


def check_request(experiment: Any, t_end: Any = None) -> dict[str, Any]:
    """Validate a preset request; return ``{"experiment", "t_end"}`` (``t_end`` None = the paper's) or raise
    ValueError with a message for the user."""
    valid = papers.experiments()
    if not isinstance(experiment, str) or experiment not in valid:
        raise ValueError(f"unknown experiment {experiment!r}; valid: {', '.join(valid)}")
    if t_end is None or t_end == "":
        return {"experiment": experiment, "t_end": None}
    try:
        x = float(t_end)
    except (TypeError, ValueError):
        raise ValueError(f"End time must be a number greater than 0 (or empty for the paper's), got {t_end!r}.")\
            from None
    if isinstance(t_end, bool) or not math.isfinite(x) or x <= 0:
        raise ValueError(f"End time must be a number greater than 0 (or empty for the paper's), got {t_end!r}.")
    full = preset_t_end(papers.describe(experiment))
    return {"experiment": experiment, "t_end": None if x >= full else x}


def run_preset(request: Mapping[str, Any], progress: Progress | None = None) -> dict[str, Any]:
    """Run one experiment (``solvers.papers.run_experiment``); invalid input gives status "error"."""
    try:
        req = check_request(request.get("experiment"), request.get("t_end"))
        return papers.run_experiment(req["experiment"], max_samples=MAX_SAMPLES, progress=progress,
                                     t_end=req["t_end"])
    except ValueError as exc:
        return {"status": "error", "message": str(exc), "runs": [], "claims": [], "series": []}


# ---------------------------------------------------------------------------------------------------------------
# figures and tables
# ---------------------------------------------------------------------------------------------------------------


def _array(values: list, log: bool = False) -> np.ndarray:
    """float32 (sent base64-encoded: 2.4 times smaller than JSON lists); missing values, and zeros on a log
    axis, as NaN gaps; |v| on a log axis."""
    a = np.array([np.nan if v is None else v for v in values], dtype=np.float32)
    if log:
        a = np.abs(a)
        a[a == 0] = np.nan
    return a


def series_figure(data: Mapping[str, Any], spec: Mapping[str, Any]) -> go.Figure:
    """One figure of the paper: the series ``spec`` of every run that has it, against time, in the order of
    ``spec["labels"]``."""
    fig = go.Figure(layout=_LAYOUT)
    by_label = {r["label"]: r for r in data["runs"]}
    for label in spec["labels"]:  # the paper's legend order
        run = by_label.get(label)
        values = None if run is None else run.get("series", {}).get(spec["key"])
        if values is None:
            continue
        name = f"{run['label']} ({run['method']}, h = {run['h']:g})"
        dash = "dot" if run.get("role") == "reference" else None
        fig.add_trace(go.Scatter(x=_array(run["t"]), y=_array(values, bool(spec.get("log"))), mode="lines",
                                 name=name, line={"dash": dash, "width": 1.5}))
    unit = f" [{spec['unit']}]" if spec.get("unit") else ""
    fig.update_layout(
        title_text=f"{spec['figure']}: {spec['title']}",
        xaxis_title="time t [s]",
        yaxis={"title": ("|" + spec["key"] + "|" if spec.get("log") else spec["key"]) + unit,
               "type": "log" if spec.get("log") else "linear", "exponentformat": "power"},
    )
    return fig


def figures(data: Mapping[str, Any] | None) -> list[tuple[dict[str, Any], go.Figure, list[str]]]:
    """(series spec, figure, what the paper says about that figure) for every series of the experiment."""
    if not data or data.get("status") == "error":
        return []
    out = []
    for spec in data.get("series", []):
        says = [s["text"] for s in data.get("paper_says", []) if _same_figure(s["figure"], spec["figure"])]
        out.append((spec, series_figure(data, spec), says))
    return out


def _figure_numbers(name: str) -> set[str]:
    """'Figs. 3-5' -> {'3', '4', '5'}; 'Fig. 6' -> {'6'}; 'Sec. 4' -> {'Sec. 4'}."""
    text = name.strip()
    if not text.lower().startswith("fig"):
        return {text}
    body = text.split(".", 1)[1] if "." in text else text[3:]
    nums: set[str] = set()
    for part in body.replace(" and ", ",").split(","):
        part = part.strip()
        if "-" in part:
            lo, _, hi = part.partition("-")
            if lo.strip().isdigit() and hi.strip().isdigit():
                nums.update(str(i) for i in range(int(lo), int(hi) + 1))
                continue
        if part:
            nums.add(part)
    return nums


def _same_figure(says_figure: str, series_figure_name: str) -> bool:
    return bool(_figure_numbers(says_figure) & _figure_numbers(series_figure_name))


def claims_rows(data: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """One row per claim: what the paper says, our criterion, what we measured and the verdict."""
    if not data:
        return []
    rows = []
    for c in data.get("claims", []):
        verdict, css = VERDICTS.get(c.get("status", ""), (c.get("status", "?"), "verdict-none"))
        rows.append({"id": c["id"], "claim": c["claim"], "paper": c["paper"], "criterion": c["criterion"],
                     "measured": c["measured"], "verdict": verdict, "css": css})
    return rows


def _num(x: Any, spec: str = ".3g") -> str:
    return format(x, spec) if isinstance(x, (int, float)) and not isinstance(x, bool) else "n/a"


def runs_rows(data: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """One row per run: label, method, step, end time, status, CPU time, max energy error, message."""
    if not data:
        return []
    rows = []
    for r in data.get("runs", []):
        s = r.get("summary", {})
        rows.append({"label": r["label"], "method": r["method"], "benchmark": r["benchmark"], "h": _num(r["h"], "g"),
                     "t_end": _num(r["t_end"], "g"), "status": r["status"], "cpu_time": _num(s.get("cpu_time")),
                     "max_energy_error": _num(s.get("max_energy_error")), "role": r.get("role", ""),
                     "message": r.get("message") or r.get("note") or ""})
    return rows


def verdict_counts(data: Mapping[str, Any] | None) -> dict[str, int]:
    """How many claims have each status."""
    out: dict[str, int] = {}
    for c in (data or {}).get("claims", []):
        out[c["status"]] = out.get(c["status"], 0) + 1
    return out


def run_page_href(run: Mapping[str, Any]) -> str:
    """Link to the Run page (``/``) restoring this run: benchmark, method, step, end time, the run's parameters
    and method options, in the Run page's query format (:func:`app.urlstate.query_from_form`)."""
    method = run["method"]
    form = {
        "benchmark": run["benchmark"],
        "methods": [method],
        "h": urlstate.query_value(run["h"]),
        "t_end": urlstate.query_value(run["t_end"]),
        "params": {k: urlstate.query_value(v) for k, v in (run.get("params") or {}).items()},
        "options": {method: {k: urlstate.query_value(v) for k, v in (run.get("options") or {}).items()}},
    }
    return "/" + urlstate.query_from_form(form)
