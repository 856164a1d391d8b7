"""The page layout. Component ids are part of the app's contract (tests and later pages rely on them)."""

from __future__ import annotations

from dash import dcc, html

from app.figures import energy_figure

DEFAULT_BENCHMARK = "planar_pendulum"
DEFAULT_METHOD = "rk4"
DEFAULT_STEP = 0.01
DEFAULT_T_END = 10
IDLE_MESSAGE = "Choose a benchmark and methods, then press Run."


def status(kind: str, text: str) -> html.Span:
    """Content of the ``status`` area; ``kind`` is idle, running, done, error or cancelled."""
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


def _field(label: str, control) -> html.Div:
    return html.Div([html.Label(label, htmlFor=control.id), control], className="field")


def build_layout(benchmarks: list[dict], benchmark: str | None, methods: list[str]) -> html.Div:
    """The page.

    ``benchmarks``: ``solvers.describe()`` dicts; ``benchmark``: the one selected; ``methods``: its methods.
    """
    controls = html.Div(
        [
            _field(
                "Benchmark",
                dcc.Dropdown(
                    id="benchmark",
                    options=[{"label": b.get("title") or b["id"], "value": b["id"]} for b in benchmarks],
                    value=benchmark,
                    clearable=False,
                ),
            ),
            _field(
                "Methods",
                dcc.Dropdown(id="methods", options=methods, value=default_methods(methods), multi=True),
            ),
            _field(
                "Step h [s]",
                dcc.Input(id="step", type="number", value=DEFAULT_STEP, step="any", inputMode="decimal"),
            ),
            _field(
                "End time [s]",
                dcc.Input(id="t-end", type="number", value=DEFAULT_T_END, step="any", inputMode="decimal"),
            ),
            html.Div(
                [
                    html.Button("Run", id="run", n_clicks=0, className="button primary"),
                    html.Button("Cancel", id="cancel", n_clicks=0, disabled=True, className="button"),
                ],
                className="buttons",
            ),
        ],
        className="controls",
    )
    progress = html.Div(
        [
            html.Progress(id="progress", value=0, max=1),
            html.Div(status("idle", IDLE_MESSAGE), id="status", role="status", className="status"),
        ],
        className="progress-row",
    )
    return html.Div(
        [
            html.Div(
                [
                    controls,
                    progress,
                    dcc.Graph(
                        id="energy-graph",
                        figure=energy_figure([]),
                        className="graph",
                        config={"displaylogo": False, "responsive": True},
                    ),
                    dcc.Store(id="job-request"),
                ],
            ),
        ],
        className="run-page",
    )
