"""The run page (``/``): configure, run every selected method as background jobs, compare the runs.

Callbacks stay thin: validation and caching live in app.jobs, figures in solvers.figures (pure, library code),
the layout in app.layout, links in app.urlstate, the browser-side animation and chart linking in
assets/run_page.js.

Flow: every form change re-validates (messages next to the fields, the shareable link). Run validates again;
if every run of the request is in the run cache the keys go straight to ``run-keys`` (no job); a cheap request
(app.background.run_now) is computed right there; else the request goes to the background job, which runs what
is missing (progress bar per run, Cancel kills it) and returns the keys. Charts, table and 3D view are drawn
from the cached results those keys name.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time

import dash
from dash import ALL, Input, Output, State, callback, clientside_callback, ctx, dcc, no_update

import solvers
from app import background, config, jobs, limits, urlstate
from app.layout import (
    CHARTS,
    SCENE,
    benchmark_info,
    build_layout,
    default_methods,
    initial_form,
    option_defaults,
    options_panel,
    param_defaults,
    params_panel,
    progress_rows,
    status,
    summary_table,
)
from solvers import figures, view3d

dash.register_page(__name__, path="/", name="Run", title="Integrator Lab: run", order=0)

log = logging.getLogger(__name__)


def layout(**query) -> object:
    """The page; a shared link's query (see app.urlstate) restores benchmark, methods, step, parameters, options."""
    try:
        return build_layout(initial_form(urlstate.form_from_query(query)))
    except (ValueError, TypeError, KeyError) as exc:  # a mangled link: show the defaults and say why
        log.warning("ignoring the link's query %r: %s", query, exc)
        page = build_layout(initial_form({}))
        page.children.insert(0, status("error", f"The link could not be read ({exc}); showing the defaults."))
        return page


def _names(value: object) -> list[str]:
    """A list of names (methods, chart components) as the page sends it; anything else (a hand-made request):
    the strings it holds, or nothing."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _mode(value: object) -> str:
    return value if isinstance(value, str) and value in figures.ENERGY_MODES else "signed"


def _collect(inputs: list[dict]) -> tuple[dict, dict]:
    """Parameter and option entries from the ``ctx.inputs_list``/``states_list`` entries of the ALL fields."""
    params: dict = {}
    options: dict = {}
    for group in inputs:
        if not isinstance(group, list):
            continue
        for item in group:
            cid = item.get("id") if isinstance(item, dict) else None
            if not isinstance(cid, dict) or not isinstance(cid.get("name"), str):
                continue
            if cid.get("type") == "run-param":
                params[cid["name"]] = item.get("value")
            elif cid.get("type") == "run-option" and isinstance(cid.get("method"), str):
                options.setdefault(cid["method"], {})[cid["name"]] = item.get("value")
    return params, options


# ----------------------------------------------------------------------------------------------------------
# Form


@callback(
    Output("run-methods", "options"),
    Output("run-methods", "value"),
    Output("run-benchmark-info", "children"),
    Output("run-params-panel", "children"),
    Output("run-step", "value"),
    Output("run-t-end", "value"),
    Input("run-benchmark", "value"),
    State("run-methods", "value"),
    prevent_initial_call=True,
)
def change_benchmark(benchmark, selected):
    """A new benchmark: its methods, description, parameters and default step and end time."""
    if benchmark not in solvers.benchmarks():
        return [], [], [], [], no_update, no_update
    available = solvers.methods(benchmark)
    d = solvers.describe(benchmark)
    return (available, default_methods(available, selected), benchmark_info(benchmark), params_panel(benchmark),
            d["default_h"], d["default_t_end"])


@callback(
    Output("run-options-panel", "children"),
    Input("run-methods", "value"),
    State({"type": "run-option", "method": ALL, "name": ALL}, "value"),
    prevent_initial_call=True,
)
def change_methods(methods, _option_values):
    """The options of the selected methods, keeping what was typed for methods still selected."""
    _, current = _collect(ctx.states_list)
    known = solvers.methods()
    return options_panel([m for m in _names(methods) if m in known], current)


# the form's fields (benchmark, methods, step, end time, every parameter and option), as inputs or states
FORM = [("run-benchmark", "value"), ("run-methods", "value"), ("run-step", "value"), ("run-t-end", "value"),
        ({"type": "run-param", "name": ALL}, "value"), ({"type": "run-option", "method": ALL, "name": ALL}, "value")]
FORM_STATE = [State(*f) for f in FORM]


def _messages(errors: dict, ids: list[dict], prefix: str) -> list[str]:
    out = []
    for cid in ids:
        key = f"{prefix}:{cid['name']}" if prefix == "param" else f"option:{cid['method']}:{cid['name']}"
        out.append(errors.get(key, ""))
    return out


@callback(
    Output("run-step-msg", "children"),
    Output("run-t-end-msg", "children"),
    Output("run-methods-msg", "children"),
    Output({"type": "run-param-msg", "name": ALL}, "children"),
    Output({"type": "run-option-msg", "method": ALL, "name": ALL}, "children"),
    Output("run-share-link", "href"),
    *[Input(*f) for f in FORM],
)
def validate(benchmark, methods, step, t_end, _params, _options):
    """Messages next to every invalid field, and the shareable link of the form as it stands."""
    params, options = _collect(ctx.inputs_list)
    form = {"benchmark": benchmark, "methods": methods or [], "h": step, "t_end": t_end, "params": params,
            "options": options}
    _, errors = jobs.check_form(form)
    param_ids = [item["id"] for item in ctx.outputs_list[3]]
    option_ids = [item["id"] for item in ctx.outputs_list[4]]
    param_msgs = _messages(errors, param_ids, "param")
    known = isinstance(benchmark, str) and benchmark in solvers.benchmarks()
    defaults = {"params": param_defaults(benchmark) if known else {},
                "options": {m: option_defaults(m) for m in _names(methods) if m in solvers.methods()}}
    query = urlstate.query_from_form(form, defaults)
    return (errors.get("step", ""), errors.get("t-end", ""), errors.get("methods", ""), param_msgs,
            _messages(errors, option_ids, "option"), dash.get_relative_path("/") + query)


@callback(
    Output("run-params-msg", "children"),
    Input({"type": "run-param", "name": ALL}, "value"),
    State("run-benchmark", "value"),
    prevent_initial_call=True,
)
def validate_param_set(_values, benchmark):
    """Problems of the parameter set as a whole (e.g. two exclusive initial states given)."""
    params, _ = _collect(ctx.inputs_list)
    if benchmark not in solvers.benchmarks():
        return ""
    _, errors = jobs.check_params(benchmark, params)
    return errors.get("", "")


# ----------------------------------------------------------------------------------------------------------
# Running


@callback(
    Output("run-job-request", "data"),
    Output("run-keys", "data"),
    Output("run-status", "children"),
    Output("run-progress", "children"),
    Input("run-start", "n_clicks"),
    *FORM_STATE,
    State("run-cancel", "n_clicks"),
    prevent_initial_call=True,
)
def request_run(n_clicks, benchmark, methods, step, t_end, _params, _options, cancels):
    """Validate the form; serve a fully cached request at once, send anything else to the background job."""
    params, options = _collect(ctx.states_list[:len(FORM_STATE)])
    form = {"benchmark": benchmark, "methods": methods or [], "h": step, "t_end": t_end, "params": params,
            "options": options}
    configs, errors = jobs.check_form(form)
    if errors:
        first = next(iter(errors.values()))
        return no_update, no_update, status("error", background.refused(first)), []
    try:
        limits.Limits.from_env().check_request(configs)
    except limits.LimitError as exc:
        return no_update, no_update, status("error", background.refused(exc)), []
    started = time.perf_counter()
    cache = background.run_cache()
    keys = [cache.key(c) for c in configs]
    if all(k in cache for k in keys):
        elapsed = time.perf_counter() - started
        done = progress_rows([(figures.run_label(c), 1.0, "cached") for c in configs])
        shown = {"keys": keys, "signed": background.sign_keys(keys, background.identity()["session"]),
                 "cached": len(keys), "computed": 0, "elapsed": elapsed, "click": n_clicks}
        return no_update, shown, \
            status("running", "Loading from the cache…"), done
    answered = background.run_now(configs)  # cheap and the slots free: computed here, no background job
    if answered is not None:
        answered["click"] = n_clicks
        return no_update, answered, status("running", "Drawing…"), \
            progress_rows([(figures.run_label(c), 1.0, "done") for c in configs])
    # token: names the job's liveness marker (see app.background); cancels: tells a cancelled job from a dead one
    request = background.job_request({"configs": configs}, cancels)
    return request, no_update, status("running", background.starting("Running…")), \
        progress_rows([(figures.run_label(c), 0.0, "queued") for c in configs])


def _job_failed(exc: Exception):
    return no_update, status("error", background.failed(exc, "The run"))


@callback(
    Output("run-keys", "data", allow_duplicate=True),
    Output("run-status", "children", allow_duplicate=True),
    Input("run-job-request", "data"),
    background=True,
    interval=200,  # ms between polls of a running job
    progress=[Output("run-progress", "children"), Output("run-job-status", "children")],
    progress_default=[[], ""],
    running=[(Output("run-start", "disabled"), True, False), (Output("run-cancel", "disabled"), False, True)],
    cancel=[Input("run-cancel", "n_clicks")],
    on_error=_job_failed,
    prevent_initial_call=True,
)
def run_jobs(set_progress, request):
    """Run every configuration of a validated request that is not cached yet, storing each in the run cache,
    inside the job's slots and wall time (app.background.page_job: only a request this server signed, once;
    the caps are checked again here, where the job runs)."""
    started = time.perf_counter()
    cache = background.run_cache()
    keys, cached = [], 0
    try:
        background.requester(request)  # what is read below is what this server validated and signed
        configs = request["configs"]
        limits.Limits.from_env().check_request(configs)
        fractions = [0.0] * len(configs)
        notes = ["queued"] * len(configs)
        labels = [figures.run_label(c) for c in configs]

        def show(_fraction: float | None, text: str) -> None:
            set_progress((progress_rows(list(zip(labels, fractions, notes, strict=True))), text))

        with background.page_job(request, show) as job:
            for i, run_config in enumerate(configs):
                notes[i] = "running"

                def report(fraction: float, i=i) -> None:
                    fractions[i] = fraction
                    notes[i] = f"{100 * fraction:.0f} %"
                    show(fraction, f"Running {labels[i]} ({i + 1}/{len(configs)})…")

                report(0.0)
                key, result, hit = cache.run(run_config, report, job.deadline, job.over_time)
                cached += hit
                fractions[i], notes[i] = 1.0, "cached" if hit else result["status"]
                keys.append(key)
                if job.timed_out:
                    break
    except limits.LimitError as exc:
        return no_update, status("error", background.refused(exc))
    return {"keys": keys, "signed": background.sign_keys(keys, job.session), "cached": cached,
            "computed": len(keys) - cached, "elapsed": time.perf_counter() - started}, no_update


background.watch_for_dead_jobs("run-status", "run-job-request", "run-cancel",
                               kept=": runs that had finished are kept in the cache")


# ----------------------------------------------------------------------------------------------------------
# Results


def _checked_results(run_keys: dict | None) -> list[dict]:
    """The cached results of the runs ``run-keys`` names, once app.background.check_keys accepted the keys
    (this session's runs, at most the run cap, no duplicates); LimitError otherwise."""
    cache = background.run_cache()
    out = []
    for key in background.check_keys(run_keys):
        result = cache.get(key)
        if result is not None:
            out.append(result)
    return out


def _results(run_keys: dict | None) -> list[dict]:
    """As _checked_results, with nothing for keys it refuses (show_results says why)."""
    try:
        return _checked_results(run_keys)
    except limits.LimitError:
        return []


def _outcome(results: list[dict], info: dict) -> object:
    """The status line after a run (figures.outcome)."""
    return status(*figures.outcome(results, info))


@callback(
    Output("run-status", "children", allow_duplicate=True),
    Output("run-start", "disabled", allow_duplicate=True),
    Output("run-cancel", "disabled", allow_duplicate=True),
    Input("run-cancel", "n_clicks"),
    prevent_initial_call=True,
)
def cancelled(_n_clicks):
    """Say so, and make Run usable at once: in about one test run in five, Dash's own reset of the ``running``
    outputs never arrived after a cancel (not diagnosed; a new Run terminates the old job anyway)."""
    return status("cancelled", "Cancelled: runs that had finished are kept in the cache."), False, True


@callback(
    Output(CHARTS["trajectory"], "figure"),
    Output(CHARTS["error"], "figure"),
    Output(CHARTS["energy"], "figure"),
    Output(CHARTS["constraint"], "figure"),
    Output(CHARTS["orthogonality"], "figure"),
    Output(CHARTS["momentum"], "figure"),
    Output("run-error-reference", "children"),
    Output("run-summary-table", "children"),
    Output("run-trajectory-components", "options"),
    Output("run-trajectory-components", "value"),
    Output("run-trajectory-drawn", "data"),
    Output("run-status", "children", allow_duplicate=True),
    Input("run-keys", "data"),
    State("run-trajectory-components", "value"),
    State("run-energy-mode", "value"),
    prevent_initial_call="initial_duplicate",
)
def show_results(run_keys, components, mode):
    """Every chart and the table for the runs the keys name, in one response (the 3D view: its own callback).

    The 3D view is separate because drawing a WebGL scene costs the browser far more than the charts (0.3 s
    against 10-40 ms each in software GL), so the charts appear first.
    """
    try:
        results = _checked_results(run_keys)
    except limits.LimitError as exc:
        results, run_keys = [], None
        refusal = status("error", f"Nothing was shown: {exc}")
    else:
        refusal = None
    available = figures.trajectory_components(results)
    components = _names(components)
    kept = [c for c in components if c in available] or figures.default_components(results)
    return (
        figures.trajectory_figure(results, kept),
        figures.error_figure(results),
        figures.energy_figure(results, _mode(mode)),
        figures.constraint_figure(results),
        figures.orthogonality_figure(results),
        figures.momentum_figure(results),
        figures.reference_note(results),
        summary_table(figures.summary_rows(results)),
        available,
        no_update if kept == components else kept,
        kept,  # what the trajectory chart shows: the browser asks show_trajectory only for something else
        refusal or (_outcome(results, run_keys) if run_keys else no_update),
    )


@callback(
    Output("run-scene-data", "data"),
    Output(SCENE["graph"], "figure"),
    Input("run-keys", "data"),
)
def show_scene(run_keys):
    """The 3D view's frames (for the animation in assets/run_page.js) and its first frame."""
    results = _results(run_keys)
    gravity = solvers.describe(results[0]["benchmark"]).get("gravity_direction") if results else None
    scene = view3d.scene_data(results, gravity)
    return scene, view3d.scene_figure(scene)


# the components the user picked, when they differ from what the chart shows (no request otherwise)
clientside_callback(
    """(value, drawn) => JSON.stringify(value || []) === JSON.stringify(drawn || [])
        ? window.dash_clientside.no_update : (value || [])""",
    Output("run-trajectory-wanted", "data"),
    Input("run-trajectory-components", "value"),
    State("run-trajectory-drawn", "data"),
    prevent_initial_call=True,
)


@callback(
    Output(CHARTS["trajectory"], "figure", allow_duplicate=True),
    Output("run-trajectory-drawn", "data", allow_duplicate=True),
    Input("run-trajectory-wanted", "data"),
    State("run-keys", "data"),
    prevent_initial_call=True,
)
def show_trajectory(components, run_keys):
    """The trajectory chart again when the user picks other components."""
    components = _names(components)
    return figures.trajectory_figure(_results(run_keys), components), components


@callback(
    Output(CHARTS["energy"], "figure", allow_duplicate=True),
    Input("run-energy-mode", "value"),
    State("run-keys", "data"),
    prevent_initial_call=True,
)
def show_energy(mode, run_keys):
    """The energy chart again in another mode (signed, log, log-log)."""
    return figures.energy_figure(_results(run_keys), _mode(mode))


@callback(
    Output("run-download", "data"),
    Output("run-status", "children", allow_duplicate=True),
    Input("run-download-csv-button", "n_clicks"),
    Input("run-download-json-button", "n_clicks"),
    Input("run-download-config-button", "n_clicks"),
    State("run-keys", "data"),
    *FORM_STATE,
    prevent_initial_call=True,
)
def download(_csv, _json, _config, run_keys, benchmark, methods, step, t_end, _params, _options):
    """The results (CSV, JSON) of the runs shown, or the configuration of the form (JSON). The results are
    serialised under a job slot of the session and the address (no wait: busy means refused) and up to this
    server's download size (app.limits), each refusal said in the status line."""
    which = ctx.triggered_id
    if which == "run-download-config-button":
        params, options = _collect(ctx.states_list)
        form = {"benchmark": benchmark, "methods": methods or [], "h": step, "t_end": t_end, "params": params,
                "options": options}
        configs, errors = jobs.check_form(form)
        body = {"form": form, "runs": configs, "errors": errors, "code_version": config.code_version()}
        return dcc.send_string(json.dumps(body, indent=2), f"integrator-lab-{benchmark}-config.json"), no_update
    lim = limits.Limits.from_env()
    who = background.identity()
    try:
        results = _checked_results(run_keys)
        if not results:
            return no_update, no_update
        with limits.job_slot(config.cache_dir(), who["session"], dataclasses.replace(lim, queue_seconds=0.0),
                             client=who["client"]):
            csv = which == "run-download-csv-button"
            text = figures.results_csv(results) if csv else figures.results_json(results)
        lim.check_download(len(text))
    except limits.LimitError as exc:
        return no_update, status("error", f"Nothing was downloaded: {exc}")
    name = f"integrator-lab-{results[0]['benchmark']}"
    return dcc.send_string(text, f"{name}.{'csv' if csv else 'json'}"), no_update


# ----------------------------------------------------------------------------------------------------------
# Browser side (assets/run_page.js): step <-> log slider, linked x-zoom, the 3D animation and time cursor

clientside_callback(
    dash.ClientsideFunction("integratorLab", "syncStep"),
    Output("run-step", "value", allow_duplicate=True),
    Output("run-step-slider", "value"),
    Input("run-step", "value"),
    Input("run-step-slider", "value"),
    prevent_initial_call=True,
)

clientside_callback(
    dash.ClientsideFunction("integratorLab", "linkX"),
    Output("run-x-link", "data"),
    *[Input(chart, "relayoutData") for chart in CHARTS.values()],
    prevent_initial_call=True,
)

clientside_callback(
    dash.ClientsideFunction("integratorLab", "startScene"),
    Output("run-scene-ready", "data"),
    Input("run-scene-data", "data"),
    Input(SCENE["graph"], "figure"),
)

clientside_callback(
    dash.ClientsideFunction("integratorLab", "setSpeed"),
    Output("run-scene-speed-store", "data"),
    Input("run-scene-speed", "value"),
)
