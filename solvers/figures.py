"""Pure builders: run results (dicts from :func:`app.jobs.simulate`) -> figures,
the summary table's rows, the 3D scene's frames and the downloads. No Dash callbacks, no state.

Figures are plain plotly dicts (building ``go.Figure`` objects validates every property and costs tens of
milliseconds per chart; the tests validate these dicts with ``go.Figure`` instead). Arrays go out as plotly's
base64 typed arrays in float32 (:func:`typed`), half the bytes of float64 and no JSON number formatting.
Every chart uses one colour per run (:func:`run_color`), WebGL traces and min/max decimation
(:func:`decimate`) so a long run sends a bounded number of points: each bucket of samples keeps its minimum
and its maximum, in time order, so peaks and spikes survive where plain subsampling would drop them.
"""

from __future__ import annotations

import base64
import copy
import csv
import io
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .result import SERIES, Result, _plain

Figure = dict  # a plotly figure as plain data ({"data": [...], "layout": {...}}): no validation cost per call

BUCKETS = 1000  # min/max buckets per trace: at most 2 * BUCKETS points, about one pair per pixel column
# Above this many points in one chart, traces are WebGL (scattergl); below, SVG lines draw faster. Measured in
# headless chromium with software GL: 5 charts x 6 traces x 2000 points took 2.5 s as scattergl, 0.45 s as SVG.
GL_POINTS = 20_000
SCENE_FRAMES = 600  # frames of the 3D animation (the browser interpolates between them)
# Drawn points x frames of the 3D animation, all runs together: beyond it a scene gets fewer frames (never fewer
# than SCENE_MIN_FRAMES). Every benchmark with up to 8 runs (app.limits) keeps SCENE_FRAMES, except chains of
# many rods: two runs of a 64-rod chain (65 points each) get 307 frames, about 0.8 MB of the scene's JSON.
SCENE_POINT_FRAMES = 40_000
SCENE_MIN_FRAMES = 100
PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#475569")
AXIS_COLORS = ("#e11d48", "#16a34a", "#2563eb")  # body frame triads: x red, y green, z blue
AXIS_NAMES = {"body x": 0, "body y": 1, "body z": 2, "e1": 0, "e2": 1, "e3": 2}
CONSTRAINT_LEVELS = (
    ("constraint_position", "position |Φ|", "solid"),
    ("constraint_velocity", "velocity |dΦ/dt|", "dash"),
    ("constraint_acceleration", "acceleration |d²Φ/dt²|", "dot"),
)
GRAPH_CONFIG = {
    "displaylogo": False,
    "responsive": True,
    # the toolbar keeps download, zoom, pan and reset: four buttons (about 100 px) leave a chart's one-line title
    # clear of it down to a 1280 px screen's two-column charts (the default nine took 216 px)
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}

_LAYOUT = {
    "template": "plotly_white",
    "margin": {"l": 70, "r": 20, "t": 90, "b": 50},
    "title": {"x": 0.01, "xanchor": "left", "y": 0.985, "yanchor": "top", "font": {"size": 15}},
    "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0},
    "hovermode": "x",
    "uirevision": "keep",  # keep the user's zoom when the same charts are redrawn
}


def run_color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def run_label(result: dict) -> str:
    """A short name for one run, e.g. ``rk4, h=0.01``; a composed method names its coefficient set
    (``rattlie + triple_jump, h=0.01``), which the runs of one method are otherwise told apart by."""
    composed = (result.get("options") or {}).get("composition")
    method = str(result.get("method", "?")) + (f" + {composed}" if composed not in (None, "none") else "")
    return f"{method}, h={result.get('h', float('nan')):g}"


def typed(values: np.ndarray) -> dict[str, str]:
    """A float32 array as plotly's base64 typed-array spec (NaN stays NaN: a gap in the line)."""
    return {"dtype": "f4", "bdata": base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode()}


def chart_layout(**changes: Any) -> dict:
    """The layout every chart of the product starts from (template, margins, title, legend, hover), as a fresh
    copy with ``changes`` (top-level keys) on top: the Convergence and Papers pages use it too."""
    layout = copy.deepcopy(_LAYOUT)
    layout.update(copy.deepcopy(changes))
    return layout


def _figure(title: str = "") -> Figure:
    layout = chart_layout()
    layout["title"]["text"] = title
    return {"data": [], "layout": layout}


def _array(values: Any) -> np.ndarray:
    """Float array with None (JSON null) as NaN."""
    if isinstance(values, np.ndarray):
        return values.astype(float, copy=False)
    return np.array([np.nan if v is None else v for v in values or []], dtype=float)


def decimate(t: np.ndarray, y: np.ndarray, buckets: int = BUCKETS) -> tuple[np.ndarray, np.ndarray]:
    """Min/max decimation: at most ``2 * buckets`` points keeping each bucket's extremes in time order.

    NaN samples are ignored within a bucket (a bucket of NaN stays NaN, a gap in the line).
    """
    n = len(t)
    if n <= 2 * buckets:
        return t, y
    size = -(-(n - 2) // (buckets - 1))  # samples per bucket; the first and last samples are kept apart
    inner = -(-(n - 2) // size)  # buckets (<= buckets - 1); only the last one is padded
    pad = inner * size - (n - 2)
    tt = np.concatenate([t[1:-1], np.full(pad, t[-2])]).reshape(inner, size)
    yy = np.concatenate([y[1:-1], np.full(pad, np.nan)]).reshape(inner, size)
    finite = np.isfinite(yy)
    i = np.argmin(np.where(finite, yy, np.inf), axis=1)
    j = np.argmax(np.where(finite, yy, -np.inf), axis=1)
    first, second = np.minimum(i, j), np.maximum(i, j)
    rows = np.arange(inner)
    pair_t = np.stack([tt[rows, first], tt[rows, second]], axis=1)
    pair_y = np.stack([yy[rows, first], yy[rows, second]], axis=1)
    pair_y[~finite.any(axis=1)] = np.nan  # a bucket without a finite sample stays a gap
    out_t = np.concatenate([[t[0]], pair_t.ravel(), [t[-1]]])
    out_y = np.concatenate([[y[0]], pair_y.ravel(), [y[-1]]])
    return out_t, out_y


def _trace(t: np.ndarray, y: np.ndarray, name: str, color: str, group: str, dash: str = "solid",
           showlegend: bool = True) -> dict:
    x, v = decimate(t, y)
    return {"type": "scattergl", "x": typed(x), "y": typed(v), "mode": "lines", "name": name, "legendgroup": group,
            "showlegend": showlegend, "line": {"color": color, "dash": dash, "width": 1.6}}


def _empty(message: str, title: str) -> Figure:
    fig = _figure(title)
    fig["layout"].update(
        xaxis={"visible": False},
        yaxis={"visible": False},
        annotations=[{"text": message, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
                      "font": {"size": 14, "color": "#6b7280"}}],
    )
    return fig


def _no_data(results: Sequence[dict], title: str) -> Figure:
    message = (
        "Nothing to plot: no run saved any samples (see the message above)."
        if results
        else "No run yet: choose a benchmark and methods, then press Run."
    )
    return _empty(message, title)


def _with_data(results: Sequence[dict]) -> list[tuple[int, dict]]:
    return [(i, r) for i, r in enumerate(results) if len(r.get("t", [])) > 0]


def _time_axis(fig: Figure, title: str, ytitle: str, log: bool = False) -> Figure:
    points = sum(len(tr["x"]["bdata"]) * 3 // 16 for tr in fig["data"])  # base64 of float32: 16 chars per 3 points
    if points <= GL_POINTS:
        for tr in fig["data"]:
            tr["type"] = "scatter"
    fig["layout"]["title"]["text"] = title
    fig["layout"].update(
        showlegend=True,
        xaxis={"title": {"text": "time t [s]"}},
        yaxis={"title": {"text": ytitle}, "type": "log" if log else "linear", "exponentformat": "power"},
    )
    return fig


# ----------------------------------------------------------------------------------------------------------
# Trajectories


def trajectory_components(results: Sequence[dict]) -> list[str]:
    """Components every run can plot: drawable-point coordinates (``B.x``) then state entries (``theta``)."""
    runs = [r for _, r in _with_data(results)]
    if not runs:
        return []
    names = list(runs[0].get("point_names") or [])
    out = [f"{p}.{c}" for p in names for c in "xyz"]
    state_sets = [_state_columns(r) for r in runs]
    common = [k for k in state_sets[0] if all(k in s for s in state_sets[1:])]
    return [c for c in out if all(names == list(r.get("point_names") or []) for r in runs)] + common


def default_components(results: Sequence[dict]) -> list[str]:
    """The coordinates that move of the last drawable point (of a frame triad tip if no other point moves)."""
    runs = [r for _, r in _with_data(results)]
    if not runs:
        return []
    r = runs[0]
    names = list(r.get("point_names") or [])
    pts = _array_points(r)
    order = [k for k in range(len(names) - 1, -1, -1) if names[k] not in AXIS_NAMES]
    order += [k for k in range(len(names)) if names[k] in AXIS_NAMES]  # a frame triad's tips come last
    for k in order:
        spread = np.nanmax(pts[:, k, :], axis=0) - np.nanmin(pts[:, k, :], axis=0)
        moving = [f"{names[k]}.{'xyz'[c]}" for c in range(3) if spread[c] > 1e-9]
        if moving:
            return moving
    return trajectory_components(results)[:1]


def _array_points(result: dict) -> np.ndarray:
    pts = result.get("points")
    arr = np.asarray(pts if pts is not None else [], dtype=float)
    return arr.reshape(len(result.get("t", [])), -1, 3) if arr.size else np.zeros((len(result.get("t", [])), 0, 3))


def _state_columns(result: dict) -> dict[str, np.ndarray]:
    cols: dict[str, np.ndarray] = {}
    for key, value in (result.get("state") or {}).items():
        arr = np.asarray(value, dtype=float)
        if arr.ndim == 1:
            cols[key] = arr
            continue
        flat = arr.reshape(arr.shape[0], -1)
        for j, ix in enumerate(np.ndindex(*arr.shape[1:])):
            cols[f"{key}[{','.join(map(str, ix))}]"] = flat[:, j]
    return cols


def component(result: dict, name: str) -> np.ndarray | None:
    """One plottable component of a run (``point.x`` or a state entry), or None if the run lacks it."""
    names = list(result.get("point_names") or [])
    point, _, axis = name.rpartition(".")
    if point in names and axis in ("x", "y", "z"):
        return _array_points(result)[:, names.index(point), "xyz".index(axis)]
    return _state_columns(result).get(name)


def trajectory_figure(results: Sequence[dict], components: Sequence[str]) -> Figure:
    """The chosen components against time: colour per run, line style per component."""
    runs = _with_data(results)
    if not runs:
        return _no_data(results, "Trajectories")
    if not components:
        return _empty("Choose one or more components to plot.", "Trajectories")
    fig = _figure()
    dashes = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
    for i, r in runs:
        t = _array(r["t"])
        for j, name in enumerate(components):
            y = component(r, name)
            if y is not None:
                fig["data"].append(_trace(t, y, f"{run_label(r)}: {name}", run_color(i), run_label(r), dashes[j % 6]))
    return _time_axis(fig, f"Trajectories: {benchmark_name(runs[0][1].get('benchmark', ''))}",
                      components_title(components))


def components_title(components: Sequence[str], width: int = 30) -> str:
    """The trajectory chart's y-axis title: the components, one point's coordinates together ("centre of
    mass.x/y/z"), cut to ``width`` characters with "…" (plotly does not wrap an axis title: a longer one runs past
    the chart's edge; the legend names every line)."""
    points: dict[str, list[str]] = {}
    for name in components:
        point, dot, axis = name.rpartition(".")
        key = point if dot and axis in ("x", "y", "z") else name
        points.setdefault(key, []).append(axis if key == point else "")
    text = ", ".join(f"{key}.{'/'.join(axes)}" if all(axes) else key for key, axes in points.items())
    return text if len(text) <= width else text[:width - 1].rstrip(", ") + "…"


def benchmark_title(benchmark_id: str) -> str:
    """A benchmark as a reader knows it: its title (the id when the registry does not know it)."""
    from .registry import BENCHMARKS  # here: the registry imports every model and method

    bench = BENCHMARKS.get(benchmark_id)
    return bench.title if bench is not None else benchmark_id


def benchmark_name(benchmark_id: str) -> str:
    """A benchmark's name in a chart title: its title without the detail in parentheses ("3D pendulum"). Titles
    stay one line (plotly does not wrap them, and draws the lines after the first above a top-anchored title's
    box, cut by the chart's edge) and clear of the toolbar."""
    return benchmark_title(benchmark_id).split(" (")[0]


# ----------------------------------------------------------------------------------------------------------
# Diagnostics


ENERGY_MODES = ("signed", "log", "loglog")


def energy_error_peaks(result: dict) -> np.ndarray:
    """|E - E0| at each saved sample, or where the run saved its energy envelope, the largest |E - E0| over the
    steps since the previous sample (so a decimated long run keeps its peaks)."""
    y = np.abs(_array(result["energy_error"]))
    env = np.asarray(result.get("energy_error_envelope", []), dtype=float)
    if env.shape == (y.shape[0], 2):
        with np.errstate(invalid="ignore"):
            peaks = np.nanmax(np.abs(env), axis=1)
        y = np.where(np.isfinite(peaks), np.fmax(y, peaks), y)
    return y


def energy_figure(results: Sequence[dict], mode: str = "signed") -> Figure:
    """Energy error E(t) - E(0) (``mode="signed"``), log |E(t) - E(0)| (``"log"``: the envelope's peaks, see
    :func:`energy_error_peaks`) or the same against log t (``"loglog"``: bounded and drifting errors, a power of
    t, told apart at a glance, as in the long-time plots of geometric integration), one trace per run."""
    if mode not in ENERGY_MODES:
        raise ValueError(f"energy mode {mode!r}: use one of {', '.join(ENERGY_MODES)}")
    runs, empty = _runs_with(results, "Energy error", ("energy_error",),
                             "This benchmark has no energy (a kinematic test).")
    if empty is not None:
        return empty
    fig = _figure()
    for i, r in runs:
        t = _array(r["t"])
        y = _array(r["energy_error"]) if mode == "signed" else _positive(energy_error_peaks(r))
        if mode == "loglog":  # t = 0 has no place on a log axis
            t, y = t[1:], y[1:]
        fig["data"].append(_trace(t, y, run_label(r), run_color(i), run_label(r)))
    ytitle = "energy error E(t) - E(0) [J]" if mode == "signed" else "|E(t) - E(0)| [J] (peak since last sample)"
    fig = _time_axis(fig, f"Energy error: {benchmark_name(runs[0][1].get('benchmark', ''))}", ytitle,
                     log=mode != "signed")
    if mode == "loglog":
        fig["layout"]["xaxis"].update(type="log", exponentformat="power")
    return fig


def _positive(y: np.ndarray) -> np.ndarray:
    """For log axes: values <= 0 (exact zeros, e.g. at t = 0) become gaps instead of bucket minima."""
    return np.where(y > 0, y, np.nan)


def _has(r: dict, key: str) -> bool:
    return bool(np.isfinite(_array(r.get(key, []))).any())


def _runs_with(results: Sequence[dict], title: str, keys: Sequence[str], why: str
               ) -> tuple[list[tuple[int, dict]], Figure | None]:
    """The runs to draw, or the figure that says why there is nothing: no samples, or no run has ``keys``."""
    runs = _with_data(results)
    if not runs:
        return [], _no_data(results, title)
    if not any(_has(r, k) for _, r in runs for k in keys):
        return [], _empty(why, title)
    return runs, None


def constraint_figure(results: Sequence[dict]) -> Figure:
    """Constraint drift at position, velocity and acceleration level (log), colour per run, dash per level."""
    runs, empty = _runs_with(results, "Constraint drift", tuple(k for k, _, _ in CONSTRAINT_LEVELS),
                             "This benchmark has no constraints.")
    if empty is not None:
        return empty
    fig = _figure()
    for i, r in runs:
        t = _array(r["t"])
        for key, label, dash in CONSTRAINT_LEVELS:
            if _has(r, key):
                y = _positive(_array(r[key]))
                fig["data"].append(_trace(t, y, f"{run_label(r)}: {label}", run_color(i), run_label(r), dash))
    return _time_axis(fig, "Constraint drift (solid: position, dash: velocity, dot: acceleration)", "norm", log=True)


def orthogonality_figure(results: Sequence[dict]) -> Figure:
    """Orthogonality error |I - R R^T| (and, where defined, the rotation error of seed 002), log scale."""
    runs = _with_data(results)
    if not runs:
        return _no_data(results, "Orthogonality error")
    keys = (("orthogonality_error", "|I - R Rᵀ|", "solid"), ("rotation_error", "rotation error", "dash"))
    if not any(_has(r, k) for _, r in runs for k, _, _ in keys):
        return _empty("This benchmark has no rotation matrices.", "Orthogonality error")
    fig = _figure()
    for i, r in runs:
        for key, label, dash in keys:
            if _has(r, key):
                y = _positive(_array(r[key]))
                label = f"{run_label(r)}: {label}"
                fig["data"].append(_trace(_array(r["t"]), y, label, run_color(i), run_label(r), dash))
    return _time_axis(fig, "Orthogonality error (dash: rotation error)", "error", log=True)


def error_figure(results: Sequence[dict]) -> Figure:
    """Each run's error against its benchmark's reference (solvers.references), log scale: the largest distance
    between its drawn points and the reference's (m), or the rotation angle (rad)."""
    title = "Error against the reference"
    runs = _with_data(results)
    if not runs:
        return _no_data(results, title)
    with_error = [(i, r) for i, r in runs if _has(r, "error")]
    if not with_error:
        why = next((r.get("reference") for _, r in runs if r.get("reference")), "")
        return _empty(f"No reference for these runs{': ' + why if why else ''}.", title)
    fig = _figure()
    for i, r in with_error:
        fig["data"].append(_trace(_array(r["t"]), _positive(_array(r["error"])), run_label(r), run_color(i),
                                  run_label(r)))
    unit = with_error[0][1].get("error_unit", "")
    what = "rotation angle to the reference" if unit == "rad" else "largest distance of the drawn points"
    fig = _time_axis(fig, title, f"{what} [{unit}]", log=True)
    horizons = [r["horizon"] for _, r in with_error if r.get("horizon") is not None]
    if horizons:  # past it the reference cannot judge (solvers.references.Reference.horizon): shade and say so
        start = min(horizons)
        end = max(float(np.nanmax(_array(r["t"]))) for _, r in with_error)
        fig["layout"]["shapes"] = [{"type": "rect", "xref": "x", "yref": "paper", "x0": start, "x1": end, "y0": 0,
                                    "y1": 1, "fillcolor": "#9ca3af", "opacity": 0.25, "line": {"width": 0},
                                    "layer": "below", "name": "horizon"}]
        fig["layout"]["annotations"] = [{
            "text": _wrap(HORIZON_HELP.format(t=start), 60), "xref": "x", "yref": "paper", "x": start, "y": 1.0,
            "xanchor": "left", "yanchor": "top", "align": "left", "showarrow": False,
            "font": {"size": 11, "color": "#374151"}, "bgcolor": "rgba(255,255,255,0.7)", "name": "horizon"}]
    return fig


def reference_note(results: Sequence[dict]) -> str:
    """What the error chart measures against, said under it (a chart title is one line): the reference of the
    first run that has an error, with its own error estimate (solvers.references); "" when no run has one."""
    with_error = [r for _, r in _with_data(results) if _has(r, "error")]
    text = with_error[0].get("reference", "") if with_error else ""
    return f"Reference: {text}" if text else ""


# the label of the shaded span past a reference's horizon, and the help it gives (one line on the Run page)
HORIZON_HELP = ("beyond t = {t:.1f} s the motion is chaotic: no solution is accurate enough to judge the methods "
                "(the reference's own error estimate passes 1e-3 of the mechanism's size; errors there measure "
                "the chaos, not the method)")


def _wrap(text: str, width: int = 110) -> str:
    """Plotly titles do not wrap: break a long subtitle at spaces."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "<br>".join([*lines, line])


def momentum_figure(results: Sequence[dict]) -> Figure:
    """The benchmark's conserved momentum, as its change since t = 0."""
    runs, empty = _runs_with(results, "Momentum", ("momentum",), "This benchmark has no conserved momentum.")
    if empty is not None:
        return empty
    fig = _figure()
    for i, r in runs:
        m = _array(r["momentum"])
        if np.isfinite(m).any():
            fig["data"].append(_trace(_array(r["t"]), m - m[0], run_label(r), run_color(i), run_label(r)))
    return _time_axis(fig, "Momentum change", "momentum(t) - momentum(0)")


# ----------------------------------------------------------------------------------------------------------
# Summary table

SUMMARY_COLUMNS = (
    ("run", "Run"),
    ("status", "Status"),
    ("max_error", "max error"),  # against the reference, over the saved samples up to its horizon (the error chart)
    ("error_at_end", "error at t_end"),
    ("max_energy_error", "max |ΔE| [J]"),
    ("max_constraint_position", "max |Φ|"),
    ("max_constraint_velocity", "max |dΦ/dt|"),
    ("max_constraint_acceleration", "max |d²Φ/dt²|"),
    ("max_orthogonality_error", "max |I - RRᵀ|"),
    ("max_momentum_error", "max |Δ momentum|"),
    ("cpu_time", "CPU time [s]"),
    ("steps", "steps"),
    ("steps_per_second", "steps/s"),
    ("newton_iterations", "Newton iterations"),
    ("rhs_evaluations", "rhs evaluations"),  # the SciPy baselines' count (theirs is the cost that compares)
)


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e5 else f"{value:,.0f}"
    return str(value)


# a run made with the kernels interpreted (solvers/jit.py): a fresh server's first default run (app/warm.py)
INTERPRETED_NOTE = ("Computed with the kernels interpreted while they compiled: the compiled kernel's numbers bit for "
                    "bit, an interpreter's CPU time.")


def summary_rows(results: Sequence[dict]) -> list[dict[str, str]]:
    """One row per run: the summary over every step, formatted; ``message`` (with the run's plausibility
    warnings, solvers.result.physics_warnings), ``note`` (INTERPRETED_NOTE for a run made uncompiled, else empty)
    and ``color`` added."""
    rows = []
    for i, r in enumerate(results):
        s = r.get("summary") or {}
        notes = [r.get("message") or ""] + [f"Warning: {w}." for w in r.get("warnings") or []]
        row = {"run": run_label(r), "status": r.get("status", "?"), "message": " ".join(n for n in notes if n),
               "note": INTERPRETED_NOTE if (r.get("provenance") or {}).get("compiled") is False else "",
               "color": run_color(i)}
        for key, _ in SUMMARY_COLUMNS[2:]:
            row[key] = _fmt(s.get(key))
        unit = r.get("error_unit")
        for key in ("max_error", "error_at_end"):
            if unit and s.get(key) is not None:
                row[key] += f" {unit}"
                row[f"{key}_value"] = repr(float(s[key]))  # the exact number, for whoever reads the page
        if s.get("error_horizon") is not None and s.get("max_error") is not None:  # past it: chaos, not the method
            row["max_error"] += f" (t ≤ {s['error_horizon']:.1f} s, the reference's horizon)"
        rows.append(row)
    return rows


def outcome(results: Sequence[dict], info: dict) -> tuple[str, str]:
    """The Run page's status line after a run, as (kind, text): done (timing, cache use), warning (a finished run
    whose numbers cannot be the motion: solvers.result.physics_warnings) or error (failed runs)."""
    problems = [f"{run_label(r)}: {r['status']}: {r['message']}" for r in results if r["status"] != "ok"]
    if len(results) < len(info.get("keys", [])):
        problems.append("some results are no longer in the cache: press Run again")
    if problems:
        return "error", "; ".join(problems) + " (partial results are plotted)."
    computed, cached = info.get("computed", 0), info.get("cached", 0)
    source = f"{computed} computed in {info.get('elapsed', 0):.2f} s" if computed else "all from the cache"
    if computed and cached:
        source += f", {cached} from the cache"
    flagged = [f"{run_label(r)} completed but {r['warnings'][0]}" for r in results if r.get("warnings")]
    if flagged:  # a finished run whose numbers cannot be the motion (solvers.result.physics_warnings)
        return "warning", (f"Done: {len(results)} run(s), {source}. Warning: " + "; ".join(flagged)
                           + " (all warnings in the table).")
    return "done", f"Done: {len(results)} run(s), {source}."


# ----------------------------------------------------------------------------------------------------------
# Downloads


def _csv_columns(result: dict) -> dict[str, np.ndarray]:
    from solvers.result import SERIES

    cols = {name: _array(result.get(name, [])) for name in SERIES}
    cols.update(_state_columns(result))
    names = list(result.get("point_names") or [])
    pts = _array_points(result)
    for k, name in enumerate(names):
        for c in range(3):
            cols[f"{name}.{'xyz'[c]}"] = pts[:, k, c]
    return cols


def results_csv(results: Sequence[dict]) -> str:
    """All runs in one CSV (long format): ``#`` lines with each run's params, options and provenance, then a ``run``
    and a ``method`` column, then every series and state entry."""
    per_run = [_csv_columns(r) for r in results]
    header: list[str] = []
    for cols in per_run:
        header += [k for k in cols if k not in header]
    buf = io.StringIO()
    for r in results:  # each run's request and provenance (solvers.provenance) as '#' comment lines
        for key in ("params", "options", "provenance"):
            buf.write(f"# {run_label(r)}: {key} = {json.dumps(_plain(r.get(key) or {}))}\n")
    writer = csv.writer(buf)
    writer.writerow(["run", "method", *header])
    for r, cols in zip(results, per_run, strict=True):
        n = len(_array(r.get("t", [])))
        matrix = np.full((n, len(header)), np.nan)
        for j, key in enumerate(header):
            if key in cols:
                matrix[:, j] = cols[key]
        label = run_label(r)
        for row in matrix:
            writer.writerow([label, r.get("method"), *("" if not math.isfinite(v) else repr(float(v)) for v in row)])
    return buf.getvalue()


def results_json(results: Sequence[dict]) -> str:
    """All runs as JSON (NaN as null)."""
    return json.dumps({"runs": [_plain(r) for r in results]})


# ----------------------------------------------------------------------------------------------------------
# From a Result


def record(res: Result, reference: bool = True, reference_budget: float | None = None,
           reference_store: Any = None) -> dict:
    """A Result as the builders here read it (what the dashboard's run cache stores): the run's configuration,
    status, counts, summary (plain; with ``max_error`` and ``error_at_end``), the series of
    :data:`solvers.result.SERIES`, ``points``, ``state`` and, with ``reference``, its error against the
    benchmark's reference (:mod:`solvers.references`): ``error`` (metres between drawn points or radians),
    ``error_unit``, ``reference`` (how it was made, or why there is none, e.g. over ``reference_budget`` s) and
    ``horizon`` (the time past which the reference cannot judge, or None); the summary's ``max_error`` is taken up
    to that horizon (``error_horizon``). ``reference_store``: the directory of stored references
    (:func:`solvers.references.reference`'s ``store``)."""
    out = {"benchmark": res.benchmark, "method": res.method, "h": res.h, "t_end": res.t_end,
           "params": _plain(dict(res.params)), "options": _plain(dict(res.options)), "status": res.status,
           "message": res.message, "cpu_time": float(res.cpu_time), "steps": int(res.steps),
           "newton_iterations": int(res.newton_iterations), "summary": _plain(dict(res.summary)),
           "point_names": list(res.point_names), "warnings": list(res.warnings),
           "derived": _plain(dict(res.derived)), "provenance": _plain(dict(res.provenance))}
    for name in SERIES:
        out[name] = np.asarray(getattr(res, name), dtype=float)
    out["points"] = np.asarray(res.points, dtype=float)
    out["state"] = {k: np.asarray(v) for k, v in res.state.items()}
    out["energy_error_envelope"] = np.asarray(res.energy_error_envelope, dtype=float)
    out.update(error=np.zeros(0), error_unit="", reference="", horizon=None)
    if reference and len(res.t):
        from . import references  # here: references imports the registry, which the figures need not

        try:
            ref = references.reference(res.benchmark, res.t, res.params, budget=reference_budget,
                                       store=reference_store)
        except references.ReferenceUnavailableError as exc:
            out["reference"] = str(exc)
        else:
            err = references.error(res, ref)
            out.update(error=err, error_unit=ref.unit, reference=ref.description, horizon=ref.horizon)
            judged = err if ref.horizon is None else err[ref.t <= ref.horizon]  # the max up to the horizon
            out["summary"]["max_error"] = float(np.nanmax(judged)) if np.isfinite(judged).any() else None
            out["summary"]["error_horizon"] = ref.horizon
            out["summary"]["error_at_end"] = float(err[-1]) if np.isfinite(err[-1]) else None
    return out
