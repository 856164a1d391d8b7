"""Pure figure builders: job results (dicts from :func:`app.jobs.run_job`) -> plotly figures."""

from __future__ import annotations

import plotly.graph_objects as go

_LAYOUT = {
    "template": "plotly_white",
    "margin": {"l": 70, "r": 20, "t": 80, "b": 55},
    "title": {"x": 0.01, "xanchor": "left", "y": 0.97, "yanchor": "top"},
    "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0},
    "hovermode": "x unified",
}


def run_label(result: dict) -> str:
    """A short name for one run, e.g. ``rk4, h=0.01``."""
    return f"{result.get('method', '?')}, h={result.get('h', float('nan')):g}"


def _empty(message: str, title: str) -> go.Figure:
    fig = go.Figure(layout=_LAYOUT)
    fig.update_layout(
        title_text=title,
        xaxis={"visible": False},
        yaxis={"visible": False},
        annotations=[
            {
                "text": message,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": 0.5,
                "showarrow": False,
                "font": {"size": 15, "color": "#6b7280"},
            }
        ],
    )
    return fig


def energy_figure(results: list[dict]) -> go.Figure:
    """Energy error E(t) - E(0) against time, one WebGL trace per run that has data."""
    runs = [r for r in results if r.get("t")]
    if not runs:
        message = (
            "Nothing to plot: no run saved any samples (see the message above)."
            if results
            else "No run yet: choose a benchmark and methods, then press Run."
        )
        return _empty(message, "Energy error")
    fig = go.Figure(layout=_LAYOUT)
    for r in runs:
        fig.add_trace(go.Scattergl(x=r["t"], y=r["energy_error"], mode="lines", name=run_label(r)))
    fig.update_layout(
        title_text=f"Energy error: {runs[0].get('benchmark', '')}",
        xaxis_title="time t [s]",
        yaxis_title="energy error E(t) - E(0) [J]",
        yaxis_exponentformat="power",
        showlegend=True,
    )
    return fig
