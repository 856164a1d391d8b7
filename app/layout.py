"""The run page's layout. Component ids are part of the app's contract (tests and links rely on them); they are
namespaced ``run-`` (the other pages use ``conv-`` and ``papers-``), and the ones assets/run_page.js needs are
defined here once (:data:`CHARTS`, :data:`SCENE`) and handed to it in the ``data-ids`` of ``#run-page-ids``.

Everything is driven by the solvers' registry: the benchmark list, each benchmark's parameters
(``solvers.describe``), the methods that apply (``solvers.methods``) and each method's options
(``solvers.describe_method``). A new benchmark, method or option appears here without a change.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from dash import dcc, html

import solvers
from app.jobs import format_value
from solvers.figures import GRAPH_CONFIG, SUMMARY_COLUMNS
from solvers.view3d import schematic_svg

DEFAULT_BENCHMARK = "planar_pendulum"
DEFAULT_METHOD = "rk4"
DEFAULT_STEP = 0.01
DEFAULT_T_END = 10
IDLE_MESSAGE = "Choose a benchmark and methods, then press Run."
STEP_SLIDER = (-6.0, 0.0)  # log10 range of the step slider
# the time charts (in the order of the page; run_page.js moves a time cursor on each and links their x-zoom)
CHARTS = {"trajectory": "run-trajectory-graph", "error": "run-error-graph", "energy": "run-energy-graph",
          "constraint": "run-constraint-graph", "orthogonality": "run-orthogonality-graph",
          "momentum": "run-momentum-graph"}
# the 3D view and its controls, as run_page.js knows them
SCENE = {"graph": "run-scene-3d", "play": "run-scene-play", "scrub": "run-scene-scrub", "time": "run-scene-time",
         "fps": "run-scene-fps"}
# the error chart's one line of help (the chart shades the span past a chaotic run's horizon, solvers.figures)
ERROR_HELP = ("On a chaotic run (the spatial double pendulum, the chain) tiny differences grow tenfold every few "
              "seconds: past the shaded horizon the reference's own error estimate passes 1e-3 of the mechanism's "
              "size, so errors there measure the chaos, not the method, and the table's max error stops there.")
JS_IDS = "run-page-ids"  # the element whose data-ids carries CHARTS and SCENE to run_page.js


def status(kind: str, text: str) -> html.Span:
    """Content of the ``run-status`` area; ``kind`` is idle, running, done, warning, error or cancelled."""
    return html.Span(text, className=f"status-{kind}")


def default_benchmark(ids: list[str]) -> str | None:
    return DEFAULT_BENCHMARK if DEFAULT_BENCHMARK in ids else (ids[0] if ids else None)


def default_methods(available: list[str], current: list[str] | None = None) -> list[str]:
    """The selection to keep (or make) when the list of available methods changes."""
    kept = [m for m in current or [] if m in available]
    if kept:
        return kept
    if DEFAULT_METHOD in available:
        return [DEFAULT_METHOD]
    return available[:1]


def initial_form(query: Mapping[str, Any]) -> dict[str, Any]:
    """The form to show for a (possibly shared) link's decoded query; unknown ids fall back to defaults, and
    ``unknown`` names them (shown under their fields by :func:`build_layout`)."""
    ids = solvers.benchmarks()
    unknown: dict[str, str] = {}
    asked = query.get("benchmark")
    benchmark = asked if asked in ids else default_benchmark(ids)
    if asked is not None and asked not in ids:
        unknown["benchmark"] = f"The link's benchmark {asked!r} is not known; showing {benchmark}."
    available = solvers.methods(benchmark) if benchmark else []
    wrong = [m for m in query.get("methods") or [] if m not in available]
    methods = [m for m in query.get("methods") or [] if m in available] or default_methods(available)
    if wrong:
        unknown["methods"] = (f"The link's method{'s' if len(wrong) > 1 else ''} {', '.join(map(repr, wrong))} "
                              f"{'do' if len(wrong) > 1 else 'does'} not apply to {benchmark}; showing "
                              f"{', '.join(methods)}.")
    h = query.get("h", DEFAULT_STEP if benchmark == DEFAULT_BENCHMARK else solvers.describe(benchmark)["default_h"])
    t_end = query.get("t_end", DEFAULT_T_END if benchmark == DEFAULT_BENCHMARK
                      else solvers.describe(benchmark)["default_t_end"])
    return {"benchmark": benchmark, "methods": methods, "h": _number_or_text(h), "t_end": _number_or_text(t_end),
            "params": dict(query.get("params") or {}), "options": dict(query.get("options") or {}),
            "unknown": unknown}


def _number_or_text(value: Any) -> Any:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return value
    return int(number) if number.is_integer() and abs(number) < 1e15 else number


def param_defaults(benchmark: str) -> dict[str, str]:
    return {k: format_value(v) for k, v in solvers.describe(benchmark)["params"].items()}


def option_defaults(method: str) -> dict[str, str]:
    return {k: format_value(o["default"]) for k, o in solvers.describe_method(method)["options"].items()}


# ----------------------------------------------------------------------------------------------------------


def message(id_: Any, text: str = "") -> html.Div:
    return html.Div(text, id=id_, className="field-msg", role="alert")


def _field(label: str, control, msg_id: Any = None, title: str | None = None, class_name: str = "field",
           text: str = "") -> html.Div:
    children = [html.Label(label, htmlFor=control.id if isinstance(control.id, str) else None, title=title), control]
    if msg_id is not None:
        children.append(message(msg_id, text))
    return html.Div(children, className=class_name, title=title)


def benchmark_info(benchmark: str | None) -> list:
    """Title, seed, description and a small schematic of the initial configuration."""
    if not benchmark:
        return []
    d = solvers.describe(benchmark)
    children: list = []
    try:
        from solvers.registry import BENCHMARKS

        bench = BENCHMARKS[benchmark]
        model = bench.build(bench.resolve({}))
        svg = schematic_svg(model.points(model.y0[None, :])[0], model.point_names, d.get("gravity_direction"))
        src = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
        children.append(html.Img(src=src, className="schematic", alt=f"schematic of {benchmark}",
                                 title="the initial configuration at the default parameters"))
    except Exception:  # a schematic is a nicety: a model that cannot draw itself still runs
        pass
    children.append(
        html.Div(
            [
                html.Div([html.Strong(d["title"]), html.Span(f"seed {d['seed']}", className="badge")]),
                html.P(d["description"], className="description"),
            ]
        )
    )
    return children


def _step_slider_value(h: Any) -> float:
    try:
        v = math.log10(float(h))
    except (TypeError, ValueError):
        return -2.0
    return min(max(v, STEP_SLIDER[0]), STEP_SLIDER[1])


def params_panel(benchmark: str | None, values: Mapping[str, str] | None = None) -> list:
    """One text field per benchmark parameter (numbers, or JSON lists for vectors/matrices), with its message."""
    if not benchmark:
        return []
    d = solvers.describe(benchmark)
    values = values or {}
    if not d["params"]:
        return [html.P("This benchmark has no parameters.", className="muted")]
    fields = []
    for name, default in d["params"].items():
        doc = d["param_docs"].get(name, "")
        control = dcc.Input(
            id={"type": "run-param", "name": name},
            type="text",
            value=values.get(name, format_value(default)),
            placeholder="default" if default is None else "",
            debounce=True,
            className="param-input",
        )
        fields.append(_field(name, control, {"type": "run-param-msg", "name": name}, title=doc))
    return [html.Div(fields, className="param-grid"), message("run-params-msg")]


def _order_badge(d: Mapping[str, Any]) -> str:
    """The method's order with its defaults; a tableau's order is its own (named, so a typed one is not misread)."""
    tableau = (d["options"].get("tableau") or {}).get("default")
    return f"order {d['order']}" + (f" with the {tableau} tableau" if isinstance(tableau, str) else "")


def options_panel(methods: Sequence[str], values: Mapping[str, Mapping[str, str]] | None = None,
                  prefix: str = "run") -> list:
    """Per selected method: its description and one field per option (from solvers.describe_method); the
    fields' ids are ``{"type": f"{prefix}-option", "method", "name"}`` (messages ``{prefix}-option-msg``)."""
    values = values or {}
    blocks = []
    for method in methods:
        d = solvers.describe_method(method)
        fields = []
        for name, o in d["options"].items():
            current = (values.get(method) or {}).get(name, format_value(o["default"]))
            oid = {"type": f"{prefix}-option", "method": method, "name": name}
            if o["kind"] == "bool":
                control = dcc.Dropdown(id=oid, options=["true", "false"], value=current, clearable=False,
                                       className="option-dropdown")
            elif o["kind"] == "choice":
                control = dcc.Dropdown(id=oid, options=list(o["choices"]), value=o["default"] if current == "" else
                                       current, clearable=False, className="option-dropdown")
            else:
                control = dcc.Input(id=oid, type="text", value=current, debounce=True, className="param-input")
            bounds = ""
            if o["low"] is not None or o["high"] is not None:
                low = "" if o["low"] is None else f"{o['low']:g}"
                high = "" if o["high"] is None else f"{o['high']:g}"
                bounds = f" [{low}, {high}]"
            fields.append(_field(name, control, {"type": f"{prefix}-option-msg", "method": method, "name": name},
                                 title=o["doc"] + bounds))
        blocks.append(
            html.Div(
                [
                    html.Div([html.Strong(d["title"]), html.Span(_order_badge(d), className="badge"),
                              html.Span(f"seed {d['seed']}", className="badge")]),
                    html.P(d["description"], className="description"),
                    html.Div(fields, className="param-grid") if fields else html.P("No options.", className="muted"),
                ],
                className="method-block",
            )
        )
    return blocks


def _graph(id_: str, height: int = 340) -> dcc.Graph:
    return dcc.Graph(id=id_, className="graph", style={"height": f"{height}px"}, config=GRAPH_CONFIG)


def summary_table(rows: list[dict[str, str]]) -> list:
    """Children of ``run-summary-table``: header and one row per run (message and note as further lines when
    present)."""
    head = html.Thead(html.Tr([html.Th(label) for _, label in SUMMARY_COLUMNS]))
    body = []
    for row in rows:
        cells = []
        for key, _ in SUMMARY_COLUMNS:
            if key == "run":
                cells.append(html.Td([html.Span(className="swatch", style={"background": row["color"]}), row["run"]]))
            elif key == "status":
                cells.append(html.Td(row["status"], className=f"run-status run-status-{row['status']}"))
            elif f"{key}_value" in row:
                cells.append(html.Td(row[key], className="num", title=row[f"{key}_value"],
                                     **{"data-value": row[f"{key}_value"]}))
            else:
                cells.append(html.Td(row[key], className="num"))
        body.append(html.Tr(cells))
        if row.get("message"):
            body.append(html.Tr(html.Td(row["message"], colSpan=len(SUMMARY_COLUMNS), className="run-message")))
        if row.get("note"):
            body.append(html.Tr(html.Td(row["note"], colSpan=len(SUMMARY_COLUMNS), className="run-note muted")))
    if not rows:
        body.append(html.Tr(html.Td("No run yet.", colSpan=len(SUMMARY_COLUMNS), className="muted")))
    return [head, html.Tbody(body)]


def progress_rows(entries: Sequence[tuple[str, float, str]]) -> list:
    """Children of ``run-progress``: one labelled bar per job (label, fraction done, note)."""
    return [
        html.Div(
            [html.Span(label, className="progress-label"), html.Progress(value=fraction, max=1),
             html.Span(note, className="progress-note")],
            className="progress-item",
        )
        for label, fraction, note in entries
    ]


def build_layout(form: Mapping[str, Any]) -> html.Div:
    """The run page for the given form state (see :func:`initial_form`)."""
    benchmarks = [solvers.describe(b) for b in solvers.benchmarks()]
    benchmark = form["benchmark"]
    available = solvers.methods(benchmark) if benchmark else []
    controls = html.Div(
        [
            _field(
                "Benchmark",
                dcc.Dropdown(
                    id="run-benchmark",
                    options=[{"label": b.get("title") or b["id"], "value": b["id"]} for b in benchmarks],
                    value=benchmark,
                    clearable=False,
                ),
                "run-benchmark-msg",
                text=form.get("unknown", {}).get("benchmark", ""),
            ),
            html.Div(
                [*_field("Methods", dcc.Dropdown(id="run-methods", options=available, value=form["methods"],
                                                 multi=True), "run-methods-msg").children,
                 # the link's note apart from run-methods-msg, which the form's validation rewrites on load
                 message("run-methods-link-msg", form.get("unknown", {}).get("methods", ""))],
                className="field",
            ),
            html.Div(
                [
                    html.Label("Step h [s]", htmlFor="run-step"),
                    dcc.Input(id="run-step", type="number", value=form["h"], step="any", inputMode="decimal"),
                    dcc.Slider(id="run-step-slider", min=STEP_SLIDER[0], max=STEP_SLIDER[1], step=0.01,
                               value=_step_slider_value(form["h"]),
                               marks={v: f"1e{v}" for v in range(int(STEP_SLIDER[0]), int(STEP_SLIDER[1]) + 1, 2)},
                               updatemode="drag", tooltip=None),
                    message("run-step-msg"),
                ],
                className="field step-field",
            ),
            _field(
                "End time [s]",
                dcc.Input(id="run-t-end", type="number", value=form["t_end"], step="any", inputMode="decimal"),
                "run-t-end-msg",
            ),
            html.Div(
                [
                    html.Button("Run", id="run-start", n_clicks=0, className="button primary"),
                    html.Button("Cancel", id="run-cancel", n_clicks=0, disabled=True, className="button"),
                ],
                className="buttons",
            ),
        ],
        className="controls",
    )
    details = html.Div(
        [
            html.Div(benchmark_info(benchmark), id="run-benchmark-info", className="benchmark-info card"),
            html.Details(
                [html.Summary("Benchmark parameters"),
                 html.Div(params_panel(benchmark, form.get("params")), id="run-params-panel")],
                open=bool(form.get("params")),
                className="card",
            ),
            html.Details(
                [html.Summary("Method options"),
                 html.Div(options_panel(form["methods"], form.get("options")), id="run-options-panel")],
                open=bool(form.get("options")),
                className="card",
            ),
        ],
        className="details",
    )
    actions = html.Div(
        [
            html.A("Shareable link", id="run-share-link", href="", className="share-link"),
            html.Button("Download CSV", id="run-download-csv-button", n_clicks=0, className="button small"),
            html.Button("Download JSON", id="run-download-json-button", n_clicks=0, className="button small"),
            html.Button("Download configuration", id="run-download-config-button", n_clicks=0,
                        className="button small"),
            dcc.Download(id="run-download"),
        ],
        className="actions",
    )
    scene = html.Div(
        [
            dcc.Graph(id=SCENE["graph"], className="graph scene", config={**GRAPH_CONFIG, "responsive": True},
                      style={"height": "340px"}),
            html.Div(
                [
                    html.Button("Play", id=SCENE["play"], className="button small"),
                    html.Label("Animation time", htmlFor=SCENE["scrub"], className="sr-only"),
                    dcc.Input(id=SCENE["scrub"], type="range", min=0, max=1000, step=1, value=0,
                              className="scene-scrub"),
                    html.Span("t = 0 s", id=SCENE["time"], className="scene-time"),
                    html.Label("Animation speed", htmlFor="run-scene-speed", className="sr-only"),
                    dcc.Dropdown(id="run-scene-speed", options=[{"label": f"{s:g}x", "value": s}
                                                            for s in (0.1, 0.25, 0.5, 1, 2, 5, 10)],
                                 value=1, clearable=False, className="scene-speed", searchable=False),
                    html.Span("", id=SCENE["fps"], className="scene-fps"),
                ],
                className="scene-controls",
            ),
        ],
        className="scene-card card",
    )
    charts = [
            html.Div(
                [
                    html.Div([html.Label("Components", htmlFor="run-trajectory-components"),
                              dcc.Dropdown(id="run-trajectory-components", multi=True, options=[], value=[])],
                             className="chart-option"),
                    _graph(CHARTS["trajectory"]),
                ],
                className="card",
            ),
            html.Div(
                [
                    html.Label("Energy chart scale", htmlFor="run-energy-mode", className="sr-only"),
                    dcc.RadioItems(id="run-energy-mode", options=[{"label": "signed", "value": "signed"},
                                                              {"label": "log |.|", "value": "log"},
                                                              {"label": "log |.| vs log t", "value": "loglog"}],
                                   value="signed", inline=True, className="chart-option"),
                    _graph(CHARTS["energy"]),
                ],
                className="card",
            ),
            html.Div([_graph(CHARTS["error"]), html.P(id="run-error-reference", className="muted"),
                      html.P(ERROR_HELP, className="muted")], className="card"),
            html.Div(_graph(CHARTS["constraint"]), className="card"),
            html.Div(_graph(CHARTS["orthogonality"], 340), className="card"),
            html.Div(_graph(CHARTS["momentum"], 340), className="card"),
    ]
    return html.Div(
        [
            controls,
            details,
            html.Div(
                [html.Div(status("idle", IDLE_MESSAGE), id="run-status", role="status", className="status"),
                 html.Span(id="run-job-status", className="job-status"),
                 html.Div(id="run-progress", className="progress")],
                className="progress-row",
            ),
            actions,
            # focusable: on a phone the table scrolls sideways, and a keyboard must reach that too (axe-core)
            html.Div(html.Table(summary_table([]), id="run-summary-table", className="summary"),
                     className="card table-card", tabIndex="0", role="region", **{"aria-label": "Summary of the runs"}),
            html.Details(
                [html.Summary("Why can rk4's error be smaller than a geometric method's?"),
                 html.P("Over a short run the error against the reference is set by the order and the step: rk4 is "
                        "fourth order, RATTLie and most geometric methods here second order (the order badge under "
                        "Method options), so at the same h rk4's trajectory error is usually far smaller. "
                        "Geometric methods keep invariants (energy without drift, constraints, rotations, momenta) "
                        "over long runs, not the trajectory: compare the energy, constraint and orthogonality "
                        "charts, and long runs.", className="muted")],
                className="card why-card", id="run-why-orders"),
            html.Div([scene, *charts], className="charts"),
            dcc.Store(id="run-job-request"),
            dcc.Store(id="run-status-ended"),
            dcc.Store(id="run-trajectory-drawn"),
            dcc.Store(id="run-trajectory-wanted"),
            dcc.Store(id="run-keys"),
            dcc.Store(id="run-scene-data"),
            dcc.Store(id="run-x-link"),
            dcc.Store(id="run-scene-ready"),
            dcc.Store(id="run-scene-speed-store"),
            html.Div(id=JS_IDS, hidden=True, **{"data-ids": json.dumps({"charts": list(CHARTS.values()), **SCENE})}),
        ],
        className="run-page",
    )
