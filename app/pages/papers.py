"""The papers page (``/papers``): every experiment of ``solvers.papers.EXPERIMENTS`` as a one-click preset that
reproduces its figures and claims table ("paper says / we measured"), run as a background job. The work is in
app.papers_view."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import dash
from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

from app import background, limits
from app import papers_view as pv
from app.layout import status

dash.register_page(__name__, path="/papers", name="Papers", title="Integrator Lab: papers", order=2)

log = logging.getLogger(__name__)

IDLE = "Press a preset's Run button to reproduce its figures and claims."
_CARD = {"background": "#fff", "border": "1px solid #e5e7eb", "borderRadius": "8px", "padding": "0.8rem 1rem",
         "marginBottom": "0.8rem"}
_CELL = {"padding": "0.3rem 0.6rem", "borderBottom": "1px solid #e5e7eb", "textAlign": "left",
         "verticalAlign": "top"}
_MUTED = {"color": "#6b7280"}
_VERDICT_STYLE = {"verdict-yes": {"color": "#15803d", "fontWeight": 600},
                  "verdict-no": {"color": "#b91c1c", "fontWeight": 600},
                  "verdict-none": {"color": "#6b7280"}}


def _preset_card(d: dict) -> html.Div:
    runs = ", ".join(f"{r['label']} = {r['method']} (h = {r['h']:g})" for r in d["runs"])
    return html.Div(
        [
            html.Div(
                [
                    html.H3(f"{d['id']}: {d['title']}", style={"margin": "0", "fontSize": "1.05rem", "flex": "1"}),
                    html.Button(f"Run {d['id']}", id={"type": "paper-run", "index": d["id"]}, n_clicks=0,
                                className="button primary"),
                ],
                className="preset-head",
            ),
            html.P(f"Seed {d['seed']}, section {d['section']}. {d['setup']}", style={"margin": "0.4rem 0"}),
            html.P(f"Runs ({pv.preset_t_end(d):g} s): {runs}.", style={**_MUTED, "margin": "0", "fontSize": "0.9rem"}),
        ],
        className="paper-preset",
        id=f"preset-{d['id']}",
        style=_CARD,
    )


def layout(**_query) -> html.Div:
    presets = pv.presets()
    return html.Div(
        [
            html.H2("Papers: the seed papers' experiments, paper says / we measured", style={"margin": "0 0 0.6rem"}),
            html.Div(
                [
                    html.Div(
                        [html.Label("Shorten every run to t_end [s]", htmlFor="papers-t-end"),
                         dcc.Input(id="papers-t-end", type="number", value=None, step="any", inputMode="decimal",
                                   placeholder="the paper's")],
                        className="field",
                    ),
                    html.Div(html.Button("Cancel", id="papers-cancel", n_clicks=0, disabled=True, className="button"),
                             className="buttons"),
                    html.P("Empty: the paper's end time. A shorter run is a preview: claims about long-time "
                           "behaviour are then measured on the shorter run. Identical requests are served from the "
                           "cache.", style={**_MUTED, "fontSize": "0.9rem", "margin": "0", "flex": "1"}),
                ],
                className="controls papers-controls",
            ),
            html.Div([_preset_card(d) for d in presets] or html.P("No experiments are registered."),
                     id="papers-presets"),
            html.Div(
                [
                    html.Progress(id="papers-progress", value=0, max=1,
                                  style={"flex": "0 0 240px", "height": "10px", "accentColor": "#2563eb"}),
                    html.Div(status("idle", IDLE), id="papers-status", role="status", className="status"),
                ],
                className="progress-row",
            ),
            html.Div(id="papers-results"),
            # a hidden graph makes the browser fetch plotly.js with the page, not when the results arrive
            dcc.Graph(id="papers-preload", style={"display": "none"}),
            dcc.Store(id="papers-request"),
            dcc.Store(id="papers-status-ended"),
        ]
    )


def _table(head: list[str], rows: list[list], table_id: str) -> html.Div:
    """A table in a box that scrolls sideways when the table is wider than the screen (a phone)."""
    return html.Div(html.Table(
        [html.Thead(html.Tr([html.Th(h, style=_CELL) for h in head])),
         html.Tbody([html.Tr([c if isinstance(c, html.Td) else html.Td(c, style=_CELL) for c in row])
                     for row in rows])],
        id=table_id, style={"borderCollapse": "collapse", "width": "100%", "background": "#fff",
                            "fontSize": "0.92rem"},
    ), className="table-scroll")


def results(data: dict) -> list:
    """The claims table, each figure with what the paper says beside it, the runs and the notes."""
    counts = pv.verdict_counts(data)
    claims = _table(
        ["claim", "paper says", "criterion", "we measured", "verdict"],
        [[html.Td(html.B(r["claim"]), style=_CELL), r["paper"], r["criterion"], r["measured"],
          html.Td(r["verdict"], className=r["css"], style={**_CELL, **_VERDICT_STYLE[r["css"]]})]
         for r in pv.claims_rows(data)],
        "papers-claims",
    )
    figs = []
    for spec, fig, says in pv.figures(data):
        figs.append(html.Div(
            [
                dcc.Graph(figure=fig, id={"type": "paper-figure", "index": spec["key"]},
                          config={"displaylogo": False, "responsive": True}, className="paper-graph"),
                html.Div([html.H4("Paper says", style={"margin": "0 0 0.3rem"}),
                          *[html.P(s, style={"margin": "0 0 0.4rem"}) for s in says]] if says else [],
                         className="paper-says"),
            ],
            className="paper-figure", style=_CARD,
        ))
    run_rows = []
    for run, r in zip(data["runs"], pv.runs_rows(data), strict=True):
        link = dcc.Link("open on the Run page", href=pv.run_page_href(run), className="run-link")
        run_rows.append([r["label"], r["method"], r["h"], r["t_end"], r["status"], r["cpu_time"],
                         r["max_energy_error"], r["message"], link])
    runs = _table(["label", "method", "h", "t_end", "status", "CPU [s]", "max |E - E0|", "note", ""], run_rows,
                  "papers-runs")
    notes = [html.Li(n) for n in data.get("notes", [])] + [html.Li(f"skipped {s}") for s in data.get("skipped", [])]
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    return [
        html.H3(f"{data['id']}: {data['title']}", id="papers-result-title"),
        html.P(f"Source: {data['source']}." + (f" Runs shortened to t_end = {data['t_end_override']:g} s."
                                               if data.get("t_end_override") else ""), style=_MUTED),
        html.H4(f"Claims: paper says / we measured ({summary})"),
        claims,
        html.H4("Figures"),
        *figs,
        html.H4("Runs"),
        runs,
        html.Ul(notes, style={**_MUTED, "fontSize": "0.9rem"}),
    ]


@callback(
    Output("papers-request", "data"),
    Output("papers-status", "children"),
    Output("papers-progress", "value"),
    Input({"type": "paper-run", "index": ALL}, "n_clicks"),
    State("papers-t-end", "value"),
    State("papers-cancel", "n_clicks"),
    prevent_initial_call=True,
)
def request_preset(clicks, t_end, cancels):
    """Validate the preset and the optional end time; only a valid request reaches the background job."""
    trigger = ctx.triggered_id
    if not trigger or not any(clicks):
        return no_update, no_update, no_update
    try:
        preset = pv.check_request(trigger["index"], t_end)
    except ValueError as exc:
        return no_update, status("error", str(exc)), 0
    return background.job_request({"preset": preset}, cancels), \
        status("running", background.starting(f"Starting {preset['experiment']}…")), 0


def _job_failed(exc: Exception):
    return no_update, status("error", background.failed(exc, "The experiment")), 0


def _timed(run: Callable[[], dict]) -> dict:
    """The experiment's data with when and how long it was computed (a cached result keeps them)."""
    started = time.perf_counter()
    data = run()
    data["computed_in"] = time.perf_counter() - started
    data["computed_at"] = time.strftime("%H:%M:%S UTC", time.gmtime())
    return data


@callback(
    Output("papers-results", "children"),
    Output("papers-status", "children", allow_duplicate=True),
    Output("papers-progress", "value", allow_duplicate=True),
    Input("papers-request", "data"),
    background=True,
    interval=250,
    progress=[Output("papers-progress", "value"), Output("papers-status", "children")],
    progress_default=[0, status("cancelled", "Cancelled.")],
    running=[(Output({"type": "paper-run", "index": ALL}, "disabled"), True, False),
             (Output("papers-cancel", "disabled"), False, True)],
    cancel=[Input("papers-cancel", "n_clicks")],
    on_error=_job_failed,
    prevent_initial_call=True,
)
def run_preset(set_progress, request):
    """One experiment in one job (app.background.page_job: the caps and the wall time of every page); an
    experiment already computed under this code version is served from the result cache."""
    preset = request["preset"]
    name = preset.get("experiment", "?")

    def show(fraction: float | None, text: str) -> None:
        set_progress((fraction or 0, status("running", text)))

    try:
        with background.page_job(request, show) as job:
            def report(fraction: float) -> bool:
                return job.report(fraction, f"Running {name}: {100 * fraction:.0f} %")

            data, _hit = background.run_cache().memo("experiment", preset,
                                                     lambda: _timed(lambda: pv.run_preset(preset, report)))
            timed_out = job.timed_out
    except limits.LimitError as exc:
        return [], status("error", background.refused(exc)), 0
    if data.get("status") == "error":
        return [], status("error", data["message"]), 0
    if data.get("status") == "cancelled":
        return [], status("cancelled", f"{name} was {job.limit_text}." if timed_out else "Cancelled."), 0
    counts = pv.verdict_counts(data)
    text = (f"Done: {name} in {data['computed_in']:.1f} s (computed at {data['computed_at']}); claims: "
            + ", ".join(f"{n} {k}" for k, n in counts.items()) + ".")
    return results(data), status("done", text), 1


background.watch_for_dead_jobs("papers-status", "papers-request", "papers-cancel", button="the preset's Run")
