"""The lessons page (``/lessons``): short guided demos on the real solvers (``solvers.lessons``), for a teacher
who projects them and a student who follows them alone.

Each lesson is a sequence of steps: the question, one chart per step (annotated from the data), what the run
shows and why, and a "try it" control with a question for the class. Opening a lesson runs its demo (a cached
result is shown at once, without a job; otherwise a background job like every page's). Presenter mode
(the button, or ``?present=1``) shows one step at a time in large type; the arrow keys move between steps and,
past the last step, to the next lesson (assets/lessons.js); the address follows the lesson and step. The work is
in app.lessons_view.
"""

from __future__ import annotations

from typing import Any

import dash
from dash import ALL, Input, Output, State, callback, clientside_callback, dcc, html, no_update

from app import background, limits
from app import lessons_view as lv
from app.layout import status

dash.register_page(__name__, path="/lessons", name="Lessons", title="Integrator Lab: lessons", order=3)

GRAPH_CONFIG = {"displayModeBar": False, "responsive": True}  # no toolbar clutter on a projector
WATCH_MS = 700  # how often the page checks that a computed demo of the lesson it is at is the one on the screen


def _steps(lesson_id: str) -> int:
    return 3 + lv.describe(lesson_id).n_charts


def _first(query: dict[str, Any]) -> str:
    ids = lv.lesson_ids()
    return query.get("lesson") if query.get("lesson") in ids else ids[0]


def layout(**query) -> html.Div:
    lesson = _first(query)
    present = str(query.get("present", "")).lower() in ("1", "true", "yes")
    try:
        step = min(max(int(query.get("step", 0)), 0), _steps(lesson) - 1)
    except (TypeError, ValueError):
        step = 0
    asked = query.get("lesson")
    unknown = (f"The link's lesson {asked!r} is not known; showing {lesson!r} (lessons: {', '.join(lv.lesson_ids())})."
               if asked is not None and asked != lesson else "")
    tabs = [html.Button(f"{i + 1}. {lv.describe(lid).title}", id={"type": "lesson-tab", "index": lid}, n_clicks=0,
                        className="lesson-tab") for i, lid in enumerate(lv.lesson_ids())]
    # what each lesson shows at once when it is opened: its title, question and "running" in its steps
    placeholders = {lid: {"default": lv.describe(lid).try_it.default, "body": placeholder(lid)}
                    for lid in lv.lesson_ids()}
    return html.Div(
        [
            html.Div(unknown, id="lessons-link-msg", className="field-msg", role="alert"),
            html.Div(tabs, className="lesson-tabs"),
            html.Div(
                [
                    html.Button("◀ Back", id="lessons-prev", n_clicks=0, className="button"),
                    html.Span(f"Step {step + 1} of {_steps(lesson)}", id="lessons-position",
                              className="lesson-position"),
                    html.Button("Next ▶", id="lessons-next", n_clicks=0, className="button primary"),
                    html.Span("Arrow keys: previous / next step", className="lesson-keys"),
                    html.Div(status("idle", ""), id="lessons-status", role="status", className="status"),
                    html.Button("Cancel", id="lessons-cancel", n_clicks=0, disabled=True, className="button"),
                    html.Button("Leave presenter mode" if present else "Presenter mode", id="lessons-present",
                                n_clicks=int(present), className="button",
                                title="One step at a time in large type (or ?present=1)"),
                ],
                className="lesson-nav",
            ),
            # the counter, the step and the lesson's placeholder agree from the first paint on
            html.Div(id="lessons-at", className=at_class(present, step, lesson), hidden=True),
            html.Div(placeholders[lesson]["body"], id="lessons-body", className="lesson-body"),
            dcc.Store(id="lessons-lesson", data=lesson),
            dcc.Store(id="lessons-shown", data=lesson),  # the lesson whose steps the body holds
            dcc.Store(id="lessons-step", data=step),
            dcc.Store(id="lessons-value", data=None),
            dcc.Store(id="lessons-presenter", data=present),
            dcc.Store(id="lessons-request"),
            # the server's rendering of a lesson, {lesson, value, body}: shown only while it is the lesson and value
            # the page is at (a late answer for a lesson already left is dropped, never shown)
            dcc.Store(id="lessons-rendered"),
            dcc.Store(id="lessons-placeholders", data=placeholders),
            dcc.Store(id="lessons-sizes", data={lid: _steps(lid) for lid in lv.lesson_ids()}),
            dcc.Store(id="lessons-status-ended"),
            dcc.Interval(id="lessons-watch", interval=WATCH_MS),
            # a hidden graph makes the browser fetch plotly.js with the page, not when the first chart arrives
            dcc.Graph(id="lessons-preload", style={"display": "none"}),
        ],
        id="lessons-root",
        className="lessons",
    )


def at_class(present: bool, step: int, lesson_id: str) -> str:
    """Where the page is: presenter mode, the step and the lesson, as the classes of ``lessons-at``, an empty
    element before ``lessons-body`` that the style sheet reads (``.lessons-at.step-2 ~ .lesson-body``,
    ``.lessons:has(> .lessons-at.presenter)``).

    Not on ``lessons-body`` nor on the root around it: callbacks replace the body's children, and Dash's renderer
    drew the body with its old children when another update of the body or of its parent came in the same batch
    (only the last update's changed props are kept until the next drawing), so the placeholder ("Running the
    demo…") stayed over a computed demo. assets/lessons.js builds the same classes (atClass) for every later step."""
    return ("lessons-at presenter" if present else "lessons-at") + f" step-{step} for-{lesson_id}"


def _step(lesson_id: str, k: int, children: list, shows: str = "") -> html.Div:
    """One step of a lesson: it carries its lesson and step (data-lesson, data-step) so that the page and its tests
    can tell which lesson's content is on the screen; a computed body's first step also says which run it shows
    (data-shows, :func:`_shows`)."""
    return html.Div(children, className="lesson-step",
                    **{"data-lesson": lesson_id, "data-step": str(k), **({"data-shows": shows} if shows else {})})


def _shows(lesson_id: str, value: float, data: dict | None) -> str:
    """Which computed demo a body shows ("" for a placeholder or a demo still running)."""
    return f"{lesson_id}@{value!r}" if data is not None else ""


def placeholder(lesson_id: str) -> list:
    """What a lesson shows the moment it is opened: its title and question, and "running" in every other step.
    Light on purpose (no formula, no control): the browser draws it while the server's rendering is on its way,
    and a heavier one held that rendering back (a lesson switch took 1.0-1.8 s instead of 0.2-0.3 s)."""
    lesson = lv.describe(lesson_id)
    first = body(lesson_id, lesson.try_it.default, None, False)[0]
    wait = [html.P("Running the demo…", className="lesson-wait")]
    return [first, *(_step(lesson_id, k, wait) for k in range(1, 3 + lesson.n_charts))]


def body(lesson_id: str, value: float, data: dict | None, presenter: bool, running: str = "") -> list:
    """The lesson's steps: the question, one chart per step, what the run shows and why, try it (with its own
    chart, the lesson's first, redrawn in place when the value changes)."""
    lesson = lv.describe(lesson_id)
    n = lesson.n_charts
    question = _step(lesson_id, 0, shows=_shows(lesson_id, value, data), children=[
        html.H2(f"{lv.lesson_ids().index(lesson_id) + 1}. {lesson.title}", className="lesson-title"),
        html.P(f"From {lesson.source}.", className="lesson-source"),
        html.P(lesson.question, className="lesson-question"),
        html.Button("Run the demo ▶", id="lessons-go", n_clicks=0, className="button primary"),
    ])
    ok = data is not None and data.get("status") == "ok"
    wait = running or (data or {}).get("message", "Running the demo…")

    def chart(i: int, graph_id: Any) -> Any:
        if ok:
            return html.Div(dcc.Graph(figure=lv.figure(data["charts"][i], presenter), config=GRAPH_CONFIG,
                                      id=graph_id, className="lesson-chart"), **{"data-chart": f"{lesson_id}-{i}"})
        return html.P(wait, className="lesson-wait")

    charts = [_step(lesson_id, 1 + i, [chart(i, {"type": "lesson-chart", "index": i})]) for i in range(n)]
    claims = [html.Li(c["text"] if c["holds"] else f"{c['text']} (does not hold on this run)",
                      className="claim" if c["holds"] else "claim claim-no") for c in (data or {}).get("claims", [])]
    why = _step(lesson_id, 1 + n, [
        html.H3("What the run shows"),
        html.Ul(claims, className="lesson-claims") if claims else html.P("(after the demo)"),
        html.H3("Why"),
        dcc.Markdown(lesson.explanation, mathjax=True, className="lesson-explanation"),
    ])
    t = lesson.try_it
    try_it = _step(lesson_id, 2 + n, [
        html.H3("Try it"),
        html.Label(t.label, htmlFor="lessons-try", id="lessons-try-label"),
        dcc.Slider(id="lessons-try", min=min(t.values), max=max(t.values), step=None, value=value,
                   marks={v: {"label": f"{v:g}"} for v in t.values}, className="lesson-slider"),
        html.Div(chart(0, "lessons-try-chart"), className="lesson-try-chart"),
        html.H3("Question for the class"),
        html.P(lesson.class_question, className="lesson-question"),
        html.Details([html.Summary("Reveal the answer"), html.P(lesson.answer)], className="lesson-reveal",
                     id="lessons-reveal"),
        dcc.Link("Open these runs on the Run page", href=lv.run_page_href(data), className="run-link",
                 id="lessons-run-link") if ok else html.Span(),
    ])
    return [question, *charts, why, try_it]


def rendered(lesson_id: str, value: float, data: dict | None, presenter: bool, running: str = "") -> dict:
    """The lessons-rendered store: the body with the lesson and value it shows."""
    return {"lesson": lesson_id, "value": value, "shows": _shows(lesson_id, value, data),
            "body": body(lesson_id, value, data, presenter, running)}


# moving between steps and lessons runs in the browser (assets/lessons.js, lessons.move): no round trip per key
# press, none lost when keys come fast
clientside_callback(
    dash.ClientsideFunction("lessons", "move"),
    Output("lessons-lesson", "data"),
    Output("lessons-step", "data"),
    Output("lessons-value", "data"),
    Input({"type": "lesson-tab", "index": ALL}, "n_clicks"),
    Input("lessons-prev", "n_clicks"),
    Input("lessons-next", "n_clicks"),
    Input("lessons-go", "n_clicks"),
    State("lessons-lesson", "data"),
    State("lessons-step", "data"),
    State("lessons-sizes", "data"),
    prevent_initial_call=True,
)


# the "try it" control: a new value reruns the demo (its lesson's default is kept as None). In the browser: Dash
# calls it whenever a body with the control is drawn, and a server round trip there held the charts back. Only the
# control of the lesson the page is at counts: with keys pressed fast the call for the previous lesson's body can
# come after the page moved on, and its value, taken as the new lesson's, asked for a demo that page then dropped
# (a value it did not ask for), leaving "Running the demo…" on the screen
clientside_callback(
    """(value, current, lesson, placeholders) => {
        const nu = window.dash_clientside.no_update;
        const holder = placeholders[lesson];
        const shown = document.querySelector('#lessons-body > [data-lesson]');
        if (shown && shown.dataset.lesson !== lesson) return nu;
        if (value === null || value === undefined || value === current || !holder) return nu;
        if ((current === null || current === undefined) && value === holder.default) return nu;
        return value;
    }""",
    Output("lessons-value", "data", allow_duplicate=True),
    Input("lessons-try", "value"),
    State("lessons-value", "data"),
    State("lessons-lesson", "data"),
    State("lessons-placeholders", "data"),
    prevent_initial_call=True,
)


@callback(Output("lessons-presenter", "data"), Input("lessons-present", "n_clicks"), prevent_initial_call=True)
def toggle_presenter(clicks):
    return bool(clicks % 2)


# What the page shows (assets/lessons.js). Dash's renderer draws an element's new children only if the last update
# of that element before the drawing carried them; and a browser callback that returns no_update for an output
# still sends that element an update, with no props. So a callback that left the body unchanged (a step key, the
# watch below) hid new children another had just written: "Running the demo…" stayed over a computed demo, or the
# previous lesson's steps under the new lesson's counter. Every callback that writes the body therefore either
# writes it or sends nothing (PreventUpdate), never no_update.
#
# A step key: the step (lessons-at's class picks the visible step, see at_class), the counter and the button's
# label; the address follows the step (replaced, not pushed: Back leaves the page, and returns to this very step).
# It waits for lessons-shown, so on a new lesson it runs after the body has changed.
clientside_callback(
    dash.ClientsideFunction("lessons", "view"),
    Output("lessons-at", "className"),
    Output("lessons-position", "children"),
    Output("lessons-present", "children"),
    Input("lessons-step", "data"),
    Input("lessons-presenter", "data"),
    Input("lessons-shown", "data"),
    State("lessons-lesson", "data"),
    State("lessons-sizes", "data"),
)

# A new lesson: its placeholder (or the server's rendering, if it has already arrived) with the counter and the
# step, in one callback so that they change in the same frame. It takes nothing the server computes as an input:
# Dash runs a callback only once every callback upstream of its inputs has answered, so an input fed by the server
# would hold the new lesson back until the server's answer while the old lesson stayed on the screen.
clientside_callback(
    dash.ClientsideFunction("lessons", "open"),
    Output("lessons-at", "className", allow_duplicate=True),
    Output("lessons-position", "children", allow_duplicate=True),
    Output("lessons-body", "children"),
    Output("lessons-shown", "data"),
    Input("lessons-lesson", "data"),
    State("lessons-step", "data"),
    State("lessons-presenter", "data"),
    State("lessons-sizes", "data"),
    State("lessons-placeholders", "data"),
    State("lessons-rendered", "data"),
    State("lessons-value", "data"),
    prevent_initial_call=True,
)

# where the page is, as show and watch read it to tell whether a rendering is the one to put on the screen
WHERE = (State("lessons-lesson", "data"), State("lessons-value", "data"), State("lessons-placeholders", "data"))

# The server's rendering, shown only if it is of the lesson and "try it" value the page is at (an answer that
# arrives after the page moved on is dropped). An opened "Reveal the answer" stays open when the same lesson is
# redrawn.
clientside_callback(
    dash.ClientsideFunction("lessons", "show"),
    Output("lessons-body", "children", allow_duplicate=True),
    Input("lessons-rendered", "data"),
    *WHERE,
    prevent_initial_call=True,
)

# The watch: what the screen shows is the lesson the page is at, and its computed demo once there is one. It only
# reads the page (no request, nothing sent when all is drawn); it mends what another update of the body (a click
# in it) could still hide.
clientside_callback(
    dash.ClientsideFunction("lessons", "watch"),
    Output("lessons-body", "children", allow_duplicate=True),
    Input("lessons-watch", "n_intervals"),
    State("lessons-rendered", "data"),
    *WHERE,
    prevent_initial_call=True,
)


@callback(
    Output("lessons-rendered", "data"),
    Output("lessons-request", "data"),
    Output("lessons-status", "children"),
    Input("lessons-lesson", "data"),
    Input("lessons-value", "data"),
    Input("lessons-presenter", "data"),
    State("lessons-cancel", "n_clicks"),
)
def show(lesson, value, presenter, cancels):
    """The lesson at its "try it" value: from the result cache at once, or a background job computes it. A new
    "try it" value keeps the charts on the screen until the job's arrive (they are then redrawn in place)."""
    try:
        req = lv.check_request(lesson, value)
    except ValueError as exc:
        return no_update, no_update, status("error", str(exc))
    data = background.run_cache().recall("lesson", req)
    if data is not None:  # no job: the request store is left alone (a change would start one)
        return rendered(lesson, req["value"], data, bool(presenter)), no_update, status("done", "")
    text = background.starting(f"Running the demo at {lv.describe(lesson).try_it.label} = {req['value']:g}…")
    new_value = dash.ctx.triggered_id == "lessons-value"
    return (no_update if new_value else rendered(lesson, req["value"], None, bool(presenter), text),
            background.job_request({"lesson": req, "presenter": bool(presenter)}, cancels),
            status("running", text))


def _job_failed(exc: Exception):
    return no_update, status("error", background.failed(exc, "The demo"))


@callback(
    Output("lessons-rendered", "data", allow_duplicate=True),
    Output("lessons-status", "children", allow_duplicate=True),
    Input("lessons-request", "data"),
    background=True,
    interval=250,
    progress=[Output("lessons-status", "children")],
    progress_default=[status("cancelled", "Cancelled.")],
    running=[(Output("lessons-cancel", "disabled"), False, True)],
    cancel=[Input("lessons-cancel", "n_clicks")],
    on_error=_job_failed,
    prevent_initial_call=True,
)
def run_demo(set_progress, request):
    """The lesson's runs in one job (app.background.page_job: the caps and the wall time of every page)."""
    if not request:
        return no_update, no_update
    req = request["lesson"]

    def show_status(_fraction: float | None, text: str) -> None:
        set_progress((status("running", text),))

    try:
        with background.page_job(request, show_status):
            data, _hit = background.run_cache().memo("lesson", req, lambda: lv.compute(req))
    except limits.LimitError as exc:
        return no_update, status("error", background.refused(exc))
    if data.get("status") != "ok":
        return no_update, status("error", data.get("message", "The demo failed."))
    return rendered(req["lesson"], req["value"], data, bool(request.get("presenter"))), status("done", "")


background.watch_for_dead_jobs("lessons-status", "lessons-request", "lessons-cancel", button="the lesson's tab")
