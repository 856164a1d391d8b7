"""The run page (``/``): configure, run, compare. Callbacks stay thin; the work is in app.jobs and app.figures."""

from __future__ import annotations

import logging
import time

import dash
from dash import Input, Output, State, callback, no_update

import solvers
from app import jobs
from app.figures import energy_figure
from app.layout import build_layout, default_benchmark, default_methods, status

dash.register_page(__name__, path="/", name="Run", title="Integrator Lab: run", order=0)

log = logging.getLogger(__name__)


def layout(**_query) -> object:
    benchmark = default_benchmark(solvers.benchmarks())
    return build_layout(
        [solvers.describe(b) for b in solvers.benchmarks()],
        benchmark,
        solvers.methods(benchmark) if benchmark else [],
    )


@callback(
    Output("methods", "options"),
    Output("methods", "value"),
    Input("benchmark", "value"),
    State("methods", "value"),
    prevent_initial_call=True,
)
def update_methods(benchmark, selected):
    available = solvers.methods(benchmark) if benchmark else []
    return available, default_methods(available, selected)


@callback(
    Output("job-request", "data"),
    Output("status", "children"),
    Output("progress", "value"),
    Input("run", "n_clicks"),
    State("benchmark", "value"),
    State("methods", "value"),
    State("step", "value"),
    State("t-end", "value"),
    prevent_initial_call=True,
)
def request_run(_n_clicks, benchmark, methods, step, t_end):
    """Validate the form; only a valid request reaches the background job."""
    if not methods:
        return no_update, status("error", "Choose at least one method."), 0
    try:
        checked = [jobs.check_config({"benchmark": benchmark, "method": m, "h": step, "t_end": t_end}) for m in methods]
    except ValueError as exc:
        return no_update, status("error", str(exc)), 0
    return checked, status("running", "Starting…"), 0


def _number(x) -> str:
    return "n/a" if x is None else f"{x:.3g}"


def _job_failed(exc: Exception):
    log.error("background job failed: %s", exc)
    return no_update, status("error", "The run failed with an internal error (details in the server log)."), 0


@callback(
    Output("energy-graph", "figure"),
    Output("status", "children", allow_duplicate=True),
    Output("progress", "value", allow_duplicate=True),
    Input("job-request", "data"),
    background=True,
    interval=250,  # ms between polls of a running job
    progress=[Output("progress", "value"), Output("status", "children")],
    progress_default=[0, status("cancelled", "Cancelled.")],
    running=[(Output("run", "disabled"), True, False), (Output("cancel", "disabled"), False, True)],
    cancel=[Input("cancel", "n_clicks")],
    on_error=_job_failed,
    prevent_initial_call=True,
)
def run_simulation(set_progress, request):
    """Run every configuration of a validated request (a list of run_job configs), one after the other."""
    n = len(request)
    started = time.perf_counter()
    results = []
    for i, run_config in enumerate(request):
        label = f"{run_config['method']} ({i + 1}/{n})"

        def report(fraction: float, i=i, label=label) -> None:
            done = (i + fraction) / n
            set_progress((done, status("running", f"Running {label}: {100 * fraction:.0f} %")))

        report(0.0)
        results.append(jobs.run_job(run_config, report))
    elapsed = time.perf_counter() - started

    problems = [f"{r['method']}: {r['message'] or r['status']}" for r in results if r["status"] != "ok"]
    if problems:
        kind, text = "error", "; ".join(problems)
    else:
        worst = ", ".join(f"{r['method']} {_number(r['summary'].get('max_energy_error'))} J" for r in results)
        kind, text = "done", f"Done: {n} run(s), computed in {elapsed:.2f} s. Max |E - E0|: {worst}."
    return energy_figure(results), status(kind, text), 1 if kind == "done" else 0
