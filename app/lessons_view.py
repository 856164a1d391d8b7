"""The lessons page's pure parts: requests, the job body and the figures built from
:func:`solvers.lessons.run_lesson`'s plain data (no Dash callbacks).

Figures use the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies) and place every
annotation from the data (arrows at computed points, shaded spans between computed times, reference lines).
In presenter mode every text on a chart is at least PRESENTER_FONT px and the legend sits below the plot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from app import urlstate
from solvers import lessons
from solvers.figures import chart_layout

# Okabe & Ito, "Color universal design" (2008): black omitted (the reference lines are grey)
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
PRESENTER_FONT = 20
NORMAL_FONT = 13
LABELLED_DECADES = 6  # at most this many labelled decades on a log axis in presenter mode


def lesson_ids() -> list[str]:
    return lessons.lessons()


def describe(lesson_id: str) -> lessons.Lesson:
    return lessons.LESSONS[lesson_id]


def check_request(lesson_id: Any, value: Any = None) -> dict[str, Any]:
    """``{"lesson", "value"}`` for a valid request (value None: the lesson's default) or ValueError with a
    message for the user (solvers.lessons.resolve)."""
    return {"lesson": lesson_id, "value": lessons.resolve(lesson_id, value)}


def compute(request: Mapping[str, Any]) -> dict[str, Any]:
    """The lesson's data (the job body); bad input gives status "error" with the message."""
    try:
        req = check_request(request.get("lesson"), request.get("value"))
        return lessons.run_lesson(req["lesson"], req["value"])
    except ValueError as exc:
        return {"status": "error", "message": str(exc), "charts": [], "claims": []}


def figure(chart: Mapping[str, Any], presenter: bool = False) -> go.Figure:
    """One chart of a lesson, annotated where its phenomenon is (positions come with the data)."""
    size = PRESENTER_FONT if presenter else NORMAL_FONT
    fig = go.Figure(layout=chart_layout(
        margin={"l": 90 if presenter else 70, "r": 30, "t": 70, "b": 150 if presenter else 110},
        height=500 if presenter else 420, font={"size": size}, colorway=list(OKABE_ITO),
        title={"text": chart["title"], "font": {"size": size + 4}},
        legend={"orientation": "h", "y": -0.22 if presenter else -0.25, "x": 0, "font": {"size": size}},
        hovermode="x unified"))
    log = bool(chart.get("log"))
    for i, tr in enumerate(chart["traces"]):
        y = np.array([np.nan if v is None else v for v in tr["y"]], dtype=float)
        if log:
            y = np.abs(y)
            y[y == 0] = np.nan
        fig.add_trace(go.Scatter(x=tr["x"], y=y, name=tr["name"], mode="lines",
                                 line={"color": OKABE_ITO[i % len(OKABE_ITO)], "width": 3 if presenter else 2,
                                       "dash": tr.get("dash")}))
    for span in chart.get("spans", []):
        fig.add_vrect(x0=span["x0"], x1=span["x1"], fillcolor="#E69F00", opacity=0.25, line_width=0,
                      annotation_text=span["text"], annotation_position="top left",
                      annotation_font_size=size)
    for line in chart.get("hlines", []):
        # plotly.js places a shape on a log axis by its data value, an annotation by the value's log10: one
        # position for both (add_hline's own label) drew the label with no line (a shape at y = -8 on a log axis)
        fig.add_hline(y=abs(line["y"]) if log else line["y"], line_dash="dash", line_color="#6b7280")
        fig.add_annotation(x=1, xref="x domain", y=float(np.log10(abs(line["y"]))) if log else line["y"],
                           text=line["text"], showarrow=False, xanchor="right", yanchor="bottom", font={"size": size})
    xs = np.array([x for tr in chart["traces"] for x in tr["x"] if x is not None], dtype=float)
    xs = xs[np.isfinite(xs)]
    middle = float(xs.min() + xs.max()) / 2 if xs.size else 0.0
    for arrow in chart.get("arrows", []):
        y = abs(arrow["y"]) if log else arrow["y"]
        # the label on the side with room: right of a point in the left half, left of one in the right half
        # (a long label left of an early point ran past the chart's left edge)
        left = arrow["x"] < middle
        fig.add_annotation(x=arrow["x"], y=float(np.log10(y)) if log and y > 0 else y, text=arrow["text"],
                           showarrow=True, arrowhead=2, arrowwidth=2, ax=40 if left else -40, ay=-50,
                           font={"size": size}, bgcolor="rgba(255,255,255,0.85)", xanchor="left" if left else "right")
    fig.update_xaxes(title_text=chart["x_title"], title_font_size=size, tickfont_size=size)
    fig.update_yaxes(title_text=chart["y_title"], title_font_size=size, tickfont_size=size,
                     type="log" if log else "linear",
                     exponentformat="e" if presenter else "power")  # superscripts would be small on a projector
    if xs.size and xs.max() > xs.min():  # the axis spans the data: a time axis starts at t = 0, not below
        fig.update_xaxes(range=[float(xs.min()), float(xs.max())])
    if log:  # from round-off (1e-17) up: a stray tiny value must not stretch the axis over 30 decades
        values = np.array([v for tr in chart["traces"] for v in tr["y"] if v is not None and v != 0], dtype=float)
        values = np.abs(values[np.isfinite(values)])
        if values.size:
            # the reference lines are inside the range too: a line's label never stands where no line is drawn
            marks = [abs(line["y"]) for line in chart.get("hlines", []) if line["y"]]
            low = max(float(np.log10(min([values.min(), *marks]))), -17.0) - 0.3
            high = float(np.log10(max([values.max(), *marks]))) + 0.5
            fig.update_yaxes(range=[low, high])
            if presenter:  # whole decades, at most LABELLED_DECADES labels: a projector's class reads them
                fig.update_yaxes(dtick=max(1, int(np.ceil((high - low) / LABELLED_DECADES))))
        elif presenter:
            fig.update_yaxes(dtick=1)
    return fig


def run_page_href(data: Mapping[str, Any]) -> str:
    """The Run page (``/``) with the lesson's runs: benchmark, methods, step, end time and parameters."""
    run = data["run_page"]
    form = {"benchmark": run["benchmark"], "methods": list(run["methods"]), "h": urlstate.query_value(run["h"]),
            "t_end": urlstate.query_value(run["t_end"]),
            "params": {k: urlstate.query_value(v) for k, v in (run.get("params") or {}).items()}, "options": {}}
    return "/" + urlstate.query_from_form(form)
