"""The Method lab page (``/method-lab``): pick a library tableau or type one (rows of numbers, fractions such as
1/6 parsed, never evaluated), see its order conditions, consistency and stability region, and run it beside rk4
on any benchmark (a Run page link carrying the tableau). The work is in app.method_lab_view."""

from __future__ import annotations

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

import solvers
from app import method_lab_view as view
from app.layout import status
from solvers.registry import applies

dash.register_page(__name__, path="/method-lab", name="Method lab", title="Integrator Lab: method lab", order=3)

FIELDS = ("A", "b", "c")
_COLUMNS = ("order", "tree", "condition", "Phi(t)", "1/gamma(t)", "residual", "holds")
_CELL = {"padding": "0.2rem 0.5rem", "borderBottom": "1px solid #e5e7eb", "textAlign": "left"}


def _benchmarks() -> list[str]:
    return [b for b in solvers.benchmarks() if applies("erk", b)]


def layout(**query) -> html.Div:
    """The page; a shared link's ``tableau`` and ``benchmark`` fill the form."""
    name, fields, bench = view.lab_state(query)
    if not fields:  # no tableau in the link, or one that could not be read: Heun, to start from
        name = "heun"
        fields = view.fields_of(name)
    benches = _benchmarks()
    bench = bench if bench in benches else "spatial_double_pendulum"
    areas = []
    for f, rows in zip(FIELDS, (6, 2, 2), strict=True):
        areas.append(html.Div([
            html.Label(f"{f}" + (" (rows: one per line)" if f == "A" else " (optional: row sums)" if f == "c" else ""),
                       htmlFor=f"lab-{f}"),
            dcc.Textarea(id=f"lab-{f}", value=fields.get(f, ""), rows=rows, style={"width": "100%"},
                         spellCheck=False),
            html.Div(id=f"lab-{f}-msg", className="field-msg", role="alert"),
        ], className="field"))
    return html.Div([
        html.H2("Method lab: your own Runge-Kutta tableau", style={"margin": "0 0 0.6rem"}),
        html.Div([
            html.Div([html.Label("Tableau", htmlFor="lab-library"),
                      dcc.Dropdown(id="lab-library", options=view.library_options(), value=name, clearable=False)],
                     className="field"),
            html.Div([html.Label("Benchmark to run it on", htmlFor="lab-benchmark"),
                      dcc.Dropdown(id="lab-benchmark", options=benches, value=bench, clearable=False)],
                     className="field"),
        ], className="controls"),
        html.Div(areas, className="controls"),
        html.Div(id="lab-tableau-msg", className="field-msg", role="alert"),
        html.Div(id="lab-summary", role="status", className="status"),
        html.Div([dcc.Link("Run it beside rk4", id="lab-run-link", href="/"),
                  html.Span(" · "),
                  dcc.Link("Convergence study beside rk4", id="lab-conv-link", href="/convergence"),
                  html.Span(" · "),
                  dcc.Link("Shareable link to this tableau", id="lab-share-link", href="/method-lab")],
                 style={"margin": "0.5rem 0"}),
        dcc.Graph(id="lab-stability", config={"displaylogo": False, "responsive": True}),
        html.H3("Order conditions (one per rooted tree)"),
        html.Div(id="lab-orders"),
    ])


@callback([Output(f"lab-{f}", "value") for f in FIELDS], Input("lab-library", "value"), prevent_initial_call=True)
def fill(name):
    """A library choice fills the fields with its tableau (a custom choice keeps what is typed)."""
    if name not in view.EXPLICIT:
        return [no_update] * len(FIELDS)
    f = view.fields_of(name)
    return [f[k] for k in FIELDS]


@callback(
    [Output(f"lab-{f}-msg", "children") for f in (*FIELDS, "tableau")],
    Output("lab-summary", "children"), Output("lab-orders", "children"), Output("lab-stability", "figure"),
    Output("lab-run-link", "href"), Output("lab-conv-link", "href"), Output("lab-share-link", "href"),
    [Input(f"lab-{f}", "value") for f in FIELDS], Input("lab-benchmark", "value"), State("lab-library", "value"),
)
def analyse(a_text, b_text, c_text, benchmark, name):
    """Check the typed tableau; messages go under the field they concern."""
    out = view.check(name, a_text or "", b_text or "", c_text or "", benchmark or "spatial_double_pendulum")
    msgs = [out["errors"].get(f, "") for f in (*FIELDS, "tableau")]
    if out["errors"]:
        return (*msgs, status("error", "Fix the tableau: see the message under its field."), no_update, no_update,
                no_update, no_update, no_update)
    header = html.Tr([html.Th(c, style=_CELL) for c in _COLUMNS])
    body = [html.Tr([html.Td(r[c], style=_CELL) for c in _COLUMNS],
                    style={} if r["holds"] == "yes" else {"color": "#b91c1c"}) for r in out["rows"]]
    table = html.Table([html.Thead(header), html.Tbody(body)], style={"borderCollapse": "collapse"})
    return (*msgs, status("done", out["summary"]), table, out["figure"], out["run_href"], out["convergence_href"],
            out["share_href"])
