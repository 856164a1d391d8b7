"""``solvers.compare(results)``: the Run page's figures and table for a list of Results, in a notebook.

    res = [solvers.simulate("spatial_double_pendulum", m, h=1e-3, t_end=5.0) for m in ("rattlie", "rk4")]
    out = solvers.compare(res)
    out["error"]          # plotly go.Figure: each run's error against the benchmark's reference
    out["table"]          # the summary table: one dict per run, numbers as numbers (NaN where not applicable)
    out["table_text"]     # the same rows formatted as the Run page shows them (strings)

The same pure builders as the dashboard (:mod:`solvers.figures`), so a notebook and the Run page show the same
numbers; plotly only, no Dash.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import api, figures, view3d
from .result import Result

CHARTS = ("trajectory", "error", "energy", "constraint", "orthogonality", "momentum")


def compare(results: Sequence[Result], components: Sequence[str] | None = None, energy: str = "signed",
            reference: bool = True) -> dict[str, Any]:
    """Figures (plotly ``go.Figure``) ``trajectory`` (``components``: drawable-point coordinates such as
    ``"B.x"`` or state entries; default: the last moving point), ``error`` (against the reference; ``reference``
    False skips computing it), ``energy`` (``"signed"`` or ``"log"``), ``constraint``, ``orthogonality``,
    ``momentum`` and ``scene`` (the 3D view's first frame); ``table``: one row per run with the Run page's summary
    columns as numbers (``max_error`` and ``error_at_end`` in ``error_unit``, m or rad; NaN where a column does
    not apply) and ``table_text``: the same rows formatted as the page shows them. Results of one benchmark."""
    import plotly.graph_objects as go

    results = list(results)
    if not results or not all(isinstance(r, Result) for r in results):
        raise ValueError("compare() takes a non-empty list of Results (from solvers.simulate)")
    if len({r.benchmark for r in results}) > 1:
        raise ValueError(f"compare() takes Results of one benchmark, got {sorted({r.benchmark for r in results})}")
    records = [figures.record(r, reference=reference) for r in results]
    comps = list(components) if components is not None else figures.default_components(records)
    gravity = api.describe(results[0].benchmark)["gravity_direction"]
    built = {
        "trajectory": figures.trajectory_figure(records, comps),
        "error": figures.error_figure(records),
        "energy": figures.energy_figure(records, energy),
        "constraint": figures.constraint_figure(records),
        "orthogonality": figures.orthogonality_figure(records),
        "momentum": figures.momentum_figure(records),
        "scene": view3d.scene_figure(view3d.scene_data(records, gravity)),
    }
    out: dict[str, Any] = {name: go.Figure(fig) for name, fig in built.items()}
    out["table"] = [_numbers(r, rec) for r, rec in zip(results, records, strict=True)]
    out["table_text"] = figures.summary_rows(records)
    return out


def _numbers(res: Result, rec: dict[str, Any]) -> dict[str, Any]:
    """One run's summary row as numbers (figures.SUMMARY_COLUMNS' keys, NaN for what is missing or null)."""
    summary = rec.get("summary") or {}
    row: dict[str, Any] = {"run": figures.run_label(rec), "method": res.method, "h": res.h, "status": res.status,
                           "message": res.message, "warnings": list(res.warnings),
                           "error_unit": rec.get("error_unit") or ""}
    for key, _ in figures.SUMMARY_COLUMNS[2:]:
        v = summary.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            row[key] = math.nan
        else:
            row[key] = v if isinstance(v, int) else float(v)
    return row
