"""Figures and table of the Convergence page, from a study of :mod:`solvers.studies` (pure: no Dash imports)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

import solvers
from app import jobs, urlstate
from solvers import studies
from solvers.figures import chart_layout
from solvers.studies import ERROR_FLOOR

# ---------------------------------------------------------------------------------------------------------------
# figures and table
# ---------------------------------------------------------------------------------------------------------------

_LAYOUT = chart_layout(margin={"l": 70, "r": 20, "t": 80, "b": 55}, hovermode="closest")
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _fmt(x: float | None, spec: str = ".3g") -> str:
    return "n/a" if x is None else format(x, spec)


def empty_figure(title: str, message: str) -> go.Figure:
    fig = go.Figure(layout=_LAYOUT)
    fig.update_layout(title_text=title, xaxis={"visible": False}, yaxis={"visible": False},
                      annotations=[{"text": message, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5,
                                    "showarrow": False, "font": {"size": 15, "color": "#6b7280"}}])
    return fig


def method_label(study: dict, method: str) -> str:
    """Legend name: the observed (fitted) order and the predicted one, e.g. ``rk4: order 4.02 (predicted 4)``."""
    fit = study.get("fits", {}).get(method, {})
    return f"{method}: order {_fmt(fit.get('order'), '.2f')} (predicted {_fmt(fit.get('theoretical'), 'd')})"


def _order_source(options: Mapping[str, Any] | None) -> str:
    return " (from its tableau's order conditions)" if options and "tableau" in options else ""


def _points(study: dict, method: str, fitted: bool, x_key: str) -> tuple[list, list, list]:
    xs, ys, texts = [], [], []
    for r in study["runs"]:
        if r["method"] == method and r["error"] is not None and r[x_key] is not None and r["fitted"] == fitted:
            xs.append(r[x_key])
            ys.append(r["error"])
            repeats = r.get("cpu_repeats", 1)
            texts.append(f"h = {r['h']:.4g}, {r['steps']} steps, CPU {_fmt(r['cpu_time'])} s"
                         + (f" (mean of {repeats} runs)" if repeats > 1 else "")
                         + (f" ({r['note']})" if r["note"] else ""))
    return xs, ys, texts


def order_figure(study: dict | None) -> go.Figure:
    """Error against h (log-log): markers per run, the least-squares line per method; unfitted runs hollow."""
    title = "Error against step h"
    if not study or study.get("status") != "ok" or not study.get("runs"):
        return empty_figure(title, "No study yet: choose a benchmark, methods and steps, then press Run.")
    fig = go.Figure(layout=_LAYOUT)
    for i, method in enumerate(study["methods"]):
        color = _COLORS[i % len(_COLORS)]
        xs, ys, texts = _points(study, method, True, "h")
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=method_label(study, method), text=texts,
                                 legendgroup=method, marker={"color": color, "size": 9},
                                 hovertemplate="%{text}<br>error %{y:.3g}<extra>" + method + "</extra>"))
        order = study["fits"][method]["order"]
        if order is not None and len(xs) >= 2:
            c = np.polyfit(np.log(xs), np.log(ys), 1)
            hx = np.array([min(xs), max(xs)])
            fig.add_trace(go.Scatter(x=hx.tolist(), y=np.exp(np.polyval(c, np.log(hx))).tolist(), mode="lines",
                                     line={"color": color, "dash": "dot"}, legendgroup=method, showlegend=False,
                                     hoverinfo="skip", name=f"{method} fit"))
        xo, yo, to = _points(study, method, False, "h")
        if xo:
            fig.add_trace(go.Scatter(x=xo, y=yo, mode="markers", name=f"{method}: not fitted", text=to,
                                     legendgroup=method, marker={"color": color, "size": 9, "symbol": "circle-open"},
                                     hovertemplate="%{text}<br>error %{y:.3g}<extra>" + method + "</extra>"))
    floor = study.get("floor")
    if floor and floor > ERROR_FLOOR:
        fig.add_hline(y=floor, line={"color": "#9ca3af", "dash": "dash", "width": 1},
                      annotation_text="reference accuracy x 10", annotation_position="bottom right")
    fig.update_layout(
        title_text=f"{title}: {study['benchmark']}, up to t = {study['t_final']:g} s",
        xaxis={"type": "log", "title": "step h [s]", "exponentformat": "power"},
        yaxis={"type": "log", "title": "max state error over common sample times", "exponentformat": "power"},
    )
    return fig


def work_precision_figure(study: dict | None) -> go.Figure:
    """Error against the solver's CPU time (log-log), one line per method (finer steps to the right)."""
    title = "Work-precision"
    if not study or study.get("status") != "ok" or not study.get("runs"):
        return empty_figure(title, "No study yet.")
    fig = go.Figure(layout=_LAYOUT)
    for i, method in enumerate(study["methods"]):
        runs = [r for r in study["runs"] if r["method"] == method and r["error"] is not None
                and r["cpu_time"] is not None and r["cpu_time"] > 0 and r["status"] == "ok"]
        runs.sort(key=lambda r: r["cpu_time"])
        fig.add_trace(go.Scatter(
            x=[r["cpu_time"] for r in runs], y=[r["error"] for r in runs], mode="lines+markers", name=method,
            marker={"color": _COLORS[i % len(_COLORS)], "size": 9}, line={"color": _COLORS[i % len(_COLORS)]},
            text=[f"h = {r['h']:.4g}" for r in runs],
            hovertemplate="%{text}<br>CPU %{x:.3g} s<br>error %{y:.3g}<extra>" + method + "</extra>"))
    fig.update_layout(
        title_text=f"{title}: {study['benchmark']}, up to t = {study['t_final']:g} s",
        xaxis={"type": "log", "title": "solver CPU time per run [s]", "exponentformat": "power"},
        yaxis={"type": "log", "title": "max state error over common sample times", "exponentformat": "power"},
    )
    return fig


def table_rows(study: dict | None) -> list[dict]:
    """One row per run for the page's table (strings and numbers only), with a link that opens the run on the
    Run page."""
    if not study or not study.get("runs"):
        return []
    return [{
        "method": r["method"], "h": r["h"], "steps": r["steps"], "status": r["status"],
        "error": _fmt(r["error"]), "cpu_time": _fmt(r["cpu_time"]), "note": r["note"],
        "href": "/" + urlstate.query_from_form(
            {"benchmark": study["benchmark"], "methods": [r["method"]], "h": str(r["h"]),
             "t_end": str(study["t_final"]), "options": _option_texts(study, r["method"])},
            {"options": {r["method"]: option_defaults(r["method"])}}),
    } for r in study["runs"]]


def _option_texts(study: Mapping[str, Any], method: str) -> dict[str, dict[str, str]]:
    opts = (study.get("options") or {}).get(method) or {}
    return {method: {k: jobs.format_value(v) for k, v in opts.items()}}


def fits_summary(study: dict | None) -> list[str]:
    """One line per method: its options (those not at their defaults), the observed (fitted) order and the
    predicted one (for the options used: a tableau's from its order conditions)."""
    if not study or study.get("status") != "ok":
        return []
    out = []
    for m, f in study["fits"].items():
        opts = (study.get("options") or {}).get(m)
        out.append(f"{m}" + (f" ({f['options']})" if f.get("options") else "")
                   + f": observed order {_fmt(f['order'], '.2f')} over {f['points']} step(s), "
                   f"predicted {_fmt(f['theoretical'], 'd')}" + _order_source(opts)
                   + (" (adaptive: h is only the output spacing, its tolerances set the error)"
                      if f.get("adaptive") else ""))
    return out


# ---------------------------------------------------------------------------------------------------------------
# the form: its shareable link and the predicted orders
# ---------------------------------------------------------------------------------------------------------------


def option_defaults(method: str) -> dict[str, str]:
    """A method's options as the form shows their defaults (text)."""
    return {k: jobs.format_value(o["default"]) for k, o in solvers.describe_method(method)["options"].items()}


def initial_form(query: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """The form a (shared) link asks for: ``benchmark``, ``methods``, ``h``, ``levels``, ``t_end`` and
    ``options`` ({method: {name: text}}); what is unknown, missing or not a number where one is needed falls back
    to the defaults (an option's text is kept as given: the form says what is wrong with it)."""
    form = urlstate.form_from_query(query or {})
    ids = solvers.benchmarks()
    benchmark = form.get("benchmark")
    if benchmark not in ids:
        benchmark = studies.DEFAULT_BENCHMARK if studies.DEFAULT_BENCHMARK in ids else (ids[0] if ids else None)
    available = solvers.methods(benchmark) if benchmark else []
    methods = [m for m in dict.fromkeys(form.get("methods") or []) if m in available][: studies.MAX_METHODS]
    if not methods:
        methods = [m for m in studies.DEFAULT_METHODS if m in available] or available[:1]
    options = {m: {k: v for k, v in (form["options"].get(m) or {}).items() if k in option_defaults(m)}
               for m in methods}
    options = {m: o for m, o in options.items() if o}
    return {"benchmark": benchmark, "methods": methods, "h": _number(form.get("h"), studies.DEFAULT_H),
            "levels": _number(form.get("levels"), studies.DEFAULT_LEVELS),
            "t_end": _number(form.get("t_end"), studies.DEFAULT_T_END), "options": options}


def _number(text: Any, default: float) -> Any:
    if text is None:
        return default
    try:
        x = float(text)
    except (TypeError, ValueError):
        return default
    if not np.isfinite(x):
        return default
    return int(x) if x.is_integer() and abs(x) < 1e15 else x


def check_form_options(benchmark: Any, methods: Any, raw: Mapping[str, Any]
                       ) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The options typed for the selected methods, checked as the Run page checks them (app.jobs.check_options):
    ({method: resolved options}, errors keyed ``option:METHOD:NAME``)."""
    if not isinstance(benchmark, str) or benchmark not in solvers.benchmarks() or not isinstance(methods, list):
        return {}, {}
    resolved: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for m in methods:
        if not isinstance(m, str) or m not in solvers.methods(benchmark):
            continue
        given = raw.get(m) if isinstance(raw.get(m), Mapping) else {}
        opts, errs = jobs.check_options(m, given, benchmark)
        errors.update({f"option:{m}:{k}": v for k, v in errs.items()})
        if not errs:
            resolved[m] = opts
    return resolved, errors


def share_query(form: Mapping[str, Any]) -> str:
    """The Convergence page's shareable query (app.urlstate's format plus ``levels``): only options that differ
    from their defaults are written."""
    methods = [m for m in form.get("methods") or [] if isinstance(m, str) and m in solvers.methods()]
    defaults = {"options": {m: option_defaults(m) for m in methods}}
    return urlstate.query_from_form({**form, "methods": methods}, defaults)


def predicted_orders(resolved: Mapping[str, Mapping[str, Any]]) -> str:
    """One sentence: each method's predicted order for its options (a tableau's from its order conditions)."""
    parts = []
    for m, opts in resolved.items():
        try:
            order = studies.theoretical_order(m, opts)
        except ValueError:
            continue
        parts.append(f"{m} {order}" + _order_source(opts))
    return ("Predicted orders: " + ", ".join(parts) + ".") if parts else ""
