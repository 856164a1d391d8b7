"""The convergence page (``/convergence``): methods x step sizes on one benchmark as one background job; error
against h with fitted orders beside the orders predicted for the options used (a typed tableau included), and a
work-precision diagram. The study is solvers.studies, the figures, link and form checks app.convergence, the job
plumbing app.background. A shared link (``?benchmark=...&methods=erk,rk4&levels=3&o.erk.tableau=heun``) fills
the form."""

from __future__ import annotations

import logging

import dash
from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

import solvers
from app import background, limits
from app import convergence as conv
from app.layout import options_panel, status
from solvers import studies

dash.register_page(__name__, path="/convergence", name="Convergence", title="Integrator Lab: convergence", order=1)

log = logging.getLogger(__name__)

IDLE = "Choose a benchmark, methods and steps, then press Run."
_GRAPH = {"height": "430px", "background": "#fff", "border": "1px solid #e5e7eb", "borderRadius": "8px"}
_CELL = {"padding": "0.25rem 0.6rem", "borderBottom": "1px solid #e5e7eb", "textAlign": "left",
         "verticalAlign": "top"}


def _field(label: str, control, hint: str = "") -> html.Div:
    children = [html.Label(label, htmlFor=control.id), control]
    if hint:
        children.append(html.Small(hint, style={"color": "#6b7280"}))
    return html.Div(children, className="field")


def _methods_for(benchmark: str | None) -> list[str]:
    return solvers.methods(benchmark) if benchmark in solvers.benchmarks() else []


def _default_methods(available: list[str], current: list[str] | None = None) -> list[str]:
    kept = [m for m in current or [] if m in available]
    if kept:
        return kept[: studies.MAX_METHODS]
    return [m for m in studies.DEFAULT_METHODS if m in available] or available[:1]


def layout(**query) -> html.Div:
    """The page; a shared link's query (app.convergence.share_query) fills the form, options included."""
    form = conv.initial_form(query)
    ids = solvers.benchmarks()
    benchmark = form["benchmark"]
    methods = _methods_for(benchmark)
    controls = html.Div(
        [
            _field("Benchmark", dcc.Dropdown(
                id="conv-benchmark", clearable=False, value=benchmark,
                options=[{"label": solvers.describe(b).get("title") or b, "value": b} for b in ids])),
            _field(f"Methods (at most {studies.MAX_METHODS})", dcc.Dropdown(
                id="conv-methods", options=methods, value=form["methods"], multi=True)),
            _field("Largest step h [s]", dcc.Input(id="conv-h", type="number", value=form["h"], step="any",
                                                    inputMode="decimal")),
            _field("Step sizes", dcc.Input(id="conv-levels", type="number", value=form["levels"],
                                                min=studies.MIN_LEVELS, max=studies.MAX_LEVELS, step=1),
                   f"h, h/2, ... ({studies.MIN_LEVELS}-{studies.MAX_LEVELS})"),
            _field("End time [s]", dcc.Input(id="conv-t-end", type="number", value=form["t_end"], step="any",
                                             inputMode="decimal")),
            html.Div([html.Button("Run", id="conv-run", n_clicks=0, className="button primary"),
                      html.Button("Cancel", id="conv-cancel", n_clicks=0, disabled=True, className="button")],
                     className="buttons"),
        ],
        className="controls conv-controls",
    )
    method_options = html.Details(
        [html.Summary("Method options (a tableau for erk and rkmk: a library name or your own, see the Method lab)"),
         html.Div(options_panel(form["methods"], form["options"], prefix="conv"), id="conv-options-panel")],
        open=bool(form["options"]), id="conv-options",
    )
    share = html.Div([html.Span(id="conv-predicted"), html.Span(" "),
                      dcc.Link("Shareable link to this study", id="conv-share-link", href="/convergence")],
                     style={"margin": "0.4rem 0 0"})
    about = html.P(
        [
            "Every run ends at the same time T = ceil(t_end / h) h; the error of a run is the maximum over common "
            "sample times of the largest state difference to the reference (rotation matrices entry-wise). "
            "Reference: the benchmark's reference solution (solvers.references: exact where one is known, else "
            "DOP853 at 1e-13 in other coordinates; its estimated error is shown below), or for a benchmark without "
            f"one {studies.REF_METHOD} at the smallest step / {studies.REF_FACTOR}. Orders are least-squares slopes "
            "in log-log; hollow markers are "
            "runs at the reference's accuracy or that failed, and are not fitted. Work is the solver's CPU time per "
            f"run; a run shorter than {studies.MIN_TIMED_CPU * 1e3:g} ms of CPU is repeated until the repeats add up "
            "to that much, and their mean is shown (a single short run would measure the timer's resolution). "
            f"Caps: {studies.MAX_STEPS_PER_RUN:,} steps per run, {studies.MAX_TOTAL_STEPS:,} steps per study.",
        ],
        style={"color": "#6b7280", "fontSize": "0.9rem", "margin": "0.6rem 0 0"},
    )
    progress = html.Div(
        [
            html.Progress(id="conv-progress", value=0, max=1,
                          style={"flex": "0 0 240px", "height": "10px", "accentColor": "#2563eb"}),
            html.Div(status("idle", IDLE), id="conv-status", role="status", className="status"),
        ],
        className="progress-row",
    )
    graphs = html.Div(
        [
            dcc.Graph(id="conv-order-graph", figure=conv.order_figure(None), style=_GRAPH,
                      config={"displaylogo": False, "responsive": True}),
            dcc.Graph(id="conv-work-graph", figure=conv.work_precision_figure(None), style=_GRAPH,
                      config={"displaylogo": False, "responsive": True}),
        ],
        style={"display": "grid", "gridTemplateColumns": "repeat(auto-fit, minmax(min(460px, 100%), 1fr))",
               "gap": "1rem"},
    )
    return html.Div(
        [
            html.H2("Convergence: error against step size and CPU time", style={"margin": "0 0 0.6rem"}),
            controls,
            method_options,
            share,
            about,
            progress,
            graphs,
            html.Div(id="conv-details", children=details(None), style={"marginTop": "1rem"}),
            dcc.Store(id="conv-request"),
            dcc.Store(id="conv-status-ended"),
        ]
    )


def details(study: dict | None) -> list:
    """The fitted orders, the reference used and the table of runs."""
    if not study or study.get("status") != "ok":
        return []
    head = ["method", "h", "steps", "status", "error", "CPU time [s]", "note", ""]
    rows = [html.Tr([html.Td(r[k], style=_CELL) for k in ("method", "h", "steps", "status", "error", "cpu_time",
                                                            "note")]
                    + [html.Td(dcc.Link("open on the Run page", href=r["href"], className="run-link"), style=_CELL)])
            for r in conv.table_rows(study)]
    return [
        html.Ul([html.Li(line) for line in conv.fits_summary(study)], id="conv-fits"),
        html.P(f"Reference: {study['reference'].get('description', '')}.", id="conv-reference",
               style={"color": "#6b7280"}),
        html.Div(html.Table([html.Thead(html.Tr([html.Th(h, style=_CELL) for h in head])), html.Tbody(rows)],
                            id="conv-table", style={"borderCollapse": "collapse", "width": "100%",
                                                    "background": "#fff"}),
                 className="table-scroll"),
    ]


@callback(
    Output("conv-methods", "options"),
    Output("conv-methods", "value"),
    Input("conv-benchmark", "value"),
    State("conv-methods", "value"),
    prevent_initial_call=True,
)
def update_methods(benchmark, selected):
    available = _methods_for(benchmark)
    return available, _default_methods(available, selected)


def _typed_options(items: list) -> dict:
    """{method: {name: entry}} from the ``ctx`` entries of the option fields (ALL)."""
    out: dict = {}
    for item in items if isinstance(items, list) else []:
        cid = item.get("id") if isinstance(item, dict) else None
        if isinstance(cid, dict) and isinstance(cid.get("method"), str) and isinstance(cid.get("name"), str):
            out.setdefault(cid["method"], {})[cid["name"]] = item.get("value")
    return out


def _names(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


@callback(
    Output("conv-options-panel", "children"),
    Input("conv-methods", "value"),
    State({"type": "conv-option", "method": ALL, "name": ALL}, "value"),
    prevent_initial_call=True,
)
def change_methods(methods, _values):
    """The options of the selected methods, keeping what was typed for methods still selected."""
    known = solvers.methods()
    return options_panel([m for m in _names(methods) if m in known], _typed_options(ctx.states_list[0]),
                         prefix="conv")


@callback(
    Output({"type": "conv-option-msg", "method": ALL, "name": ALL}, "children"),
    Output("conv-share-link", "href"),
    Output("conv-predicted", "children"),
    Input("conv-benchmark", "value"),
    Input("conv-methods", "value"),
    Input("conv-h", "value"),
    Input("conv-levels", "value"),
    Input("conv-t-end", "value"),
    Input({"type": "conv-option", "method": ALL, "name": ALL}, "value"),
)
def validate(benchmark, methods, h, levels, t_end, _values):
    """Messages under the option fields (the Run page's checks), the predicted orders, the shareable link."""
    typed = _typed_options(ctx.inputs_list[5])
    resolved, errors = conv.check_form_options(benchmark, _names(methods), typed)
    msgs = [errors.get(f"option:{item['id']['method']}:{item['id']['name']}", "") for item in ctx.outputs_list[0]]
    form = {"benchmark": benchmark, "methods": _names(methods), "h": h, "levels": levels, "t_end": t_end,
            "options": typed}
    return msgs, dash.get_relative_path("/convergence") + conv.share_query(form), conv.predicted_orders(resolved)


@callback(
    Output("conv-request", "data"),
    Output("conv-status", "children"),
    Output("conv-progress", "value"),
    Input("conv-run", "n_clicks"),
    State("conv-benchmark", "value"),
    State("conv-methods", "value"),
    State("conv-h", "value"),
    State("conv-levels", "value"),
    State("conv-t-end", "value"),
    State("conv-cancel", "n_clicks"),
    State({"type": "conv-option", "method": ALL, "name": ALL}, "value"),
    prevent_initial_call=True,
)
def request_study(_n_clicks, benchmark, methods, h, levels, t_end, cancels, _values):
    """Validate the form (options as the Run page does, then the work caps); only a valid request reaches the
    background job, with every method's options resolved in full."""
    resolved, errors = conv.check_form_options(benchmark, methods, _typed_options(ctx.states_list[-1]))
    if errors:
        key, text = next(iter(errors.items()))
        return no_update, status("error", f"{key.split(':')[1]}: {text}"), 0
    try:
        p = studies.plan({"benchmark": benchmark, "methods": methods, "h": h, "levels": levels, "t_end": t_end,
                          "options": resolved})
    except ValueError as exc:
        return no_update, status("error", str(exc)), 0
    study = {k: p[k] for k in ("benchmark", "methods", "h", "levels", "t_end", "options")}
    return background.job_request({"study": study}, cancels), \
        status("running", background.starting(
            f"Starting: {len(p['methods']) * p['levels']} runs, {p['total_steps']:,} steps in all…")), 0


def _job_failed(exc: Exception):
    return no_update, no_update, no_update, status("error", background.failed(exc, "The study")), 0


@callback(
    Output("conv-order-graph", "figure"),
    Output("conv-work-graph", "figure"),
    Output("conv-details", "children"),
    Output("conv-status", "children", allow_duplicate=True),
    Output("conv-progress", "value", allow_duplicate=True),
    Input("conv-request", "data"),
    background=True,
    interval=250,
    progress=[Output("conv-progress", "value"), Output("conv-status", "children")],
    progress_default=[0, status("cancelled", "Cancelled.")],
    running=[(Output("conv-run", "disabled"), True, False), (Output("conv-cancel", "disabled"), False, True)],
    cancel=[Input("conv-cancel", "n_clicks")],
    on_error=_job_failed,
    prevent_initial_call=True,
)
def run_study(set_progress, request):
    """The whole study in one job (app.background.page_job: the caps and the wall time of every page); a study
    already computed under this code version is served from the result cache."""
    def show(fraction: float | None, text: str) -> None:
        set_progress((fraction or 0, status("running", text)))

    empty = conv.order_figure(None), conv.work_precision_figure(None), []
    try:
        with background.page_job(request, show) as job:
            def report(fraction: float, text: str) -> bool:
                return job.report(fraction, f"Running {text}: {100 * fraction:.0f} % of all steps")

            study, _hit = background.run_cache().memo("study", request["study"],
                                                      lambda: studies.run_study(request["study"], report))
            timed_out = job.timed_out
    except limits.LimitError as exc:
        return (*empty, status("error", background.refused(exc)), 0)
    if study["status"] == "cancelled":
        return (*empty, status("cancelled", f"The study was {job.limit_text if timed_out else 'cancelled'}: "
                                            "press Run again with fewer steps or methods."), 0)
    if study["status"] != "ok":
        return (*empty, status("error", study["message"]), 0)
    n = len(study["runs"])
    text = f"Done: {n} runs in {study['elapsed']:.2f} s. " + "; ".join(conv.fits_summary(study)) + "."
    if study["message"]:
        text += f" Problems: {study['message']}"
    return (conv.order_figure(study), conv.work_precision_figure(study), details(study), status("done", text), 1)


background.watch_for_dead_jobs("conv-status", "conv-request", "conv-cancel", button="Run")
