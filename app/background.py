"""The background-job plumbing of every page (Run, Convergence, Papers), in one place.

A page's Run callback validates the form and stores a *request*: the page's own payload plus :func:`request_meta`
(the browser session, a token naming the job, the Cancel button's click count). Its background callback then
runs the work inside :func:`page_job`, which

* records the job as started and, on the way out, finished under its token, so that a job whose process died
  (killed, out of memory, worker restarted) is reported by :func:`watch_for_dead_jobs` instead of "Running…"
  forever (Dash sends no output at all for a dead job);
* holds one of the browser session's and one of the server's job slots (app.limits: the caps the README
  documents; a session over its cap is refused at once, a full server queues the job with a message, then
  refuses it);
* gives the work a :class:`Job`: a throttled progress reporter that also tells the solvers to stop at the
  server's wall-time limit, and the message that says so.

A request over a cap gets the same sentence on every page: ``Nothing was run: <the cap's message>``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dash import Input, Output, State, callback, no_update

from app import config, jobs, limits
from app.layout import status

log = logging.getLogger(__name__)

Show = Callable[[float | None, str], object]  # (fraction or None: unchanged, text) -> shown on the page


@functools.cache
def run_cache() -> jobs.RunCache:
    """The result cache (a handle on the shared directory; every process opens its own)."""
    return jobs.RunCache(config.cache_dir() / "runs", config.code_version())


def request_meta(session: str | None, cancels: int | None) -> dict[str, Any]:
    """What every page's request carries besides its payload: the session (per-session cap), a fresh token (the
    job's liveness marker) and the Cancel button's clicks (a cancelled job is not a dead one)."""
    return {"session": session, "token": uuid.uuid4().hex, "cancels": cancels}


def refused(exc: Exception) -> str:
    """The sentence a request over a cap (or otherwise refused before it ran) gets, on every page."""
    return f"Nothing was run: {exc}"


class Job:
    """The running job's view of its limits: ``report(fraction, text)`` shows progress at most every
    ``interval`` seconds and returns False once the job is past its wall time (a solver's ``progress`` then
    stops the run); ``deadline()`` is True while within it; ``limit_text`` says the limit stopped the job
    (``over_time`` adds that partial results are kept)."""

    def __init__(self, show: Show, lim: limits.Limits, interval: float = jobs.PROGRESS_INTERVAL) -> None:
        self._show = show
        self._interval = interval
        self._last = -math.inf
        self.deadline = lim.deadline()
        self.limit_text = f"stopped at this server's wall-time limit of {lim.max_job_seconds:g} s per job"
        self.over_time = f"{self.limit_text}; partial results kept"

    def report(self, fraction: float, text: str = "") -> bool:
        now = time.monotonic()
        if now - self._last >= self._interval:
            self._last = now
            self._show(fraction, text)
        return self.deadline()

    @property
    def timed_out(self) -> bool:
        return not self.deadline()


@contextlib.contextmanager
def page_job(request: Mapping[str, Any], show: Show) -> Iterator[Job]:
    """Run the block as the request's job: liveness marker, the session's and a server slot, the deadline.

    Raises :class:`app.limits.LimitError` (a message for the user, see :func:`refused`) when a cap refuses it.
    """
    cache = run_cache()
    token = request.get("token")
    if token:
        cache.mark_job(token, "started")
    try:
        lim = limits.Limits.from_env()
        with limits.job_slot(config.cache_dir(), request.get("session"), lim,
                             on_wait=lambda waited: show(None, f"Waiting for a free slot on the server "
                                                               f"({waited:.0f} s)…")):
            yield Job(show, lim)
    finally:  # not reached when the process is killed: watch_for_dead_jobs then reports the job as dead
        if token:
            cache.mark_job(token, "finished")


def job_died(request: Mapping[str, Any] | None, cancels: int | None, current: object) -> bool:
    """True when the page still says "running" for a job that ended (not cancelled) without recording that it
    finished: its process died."""
    still_running = isinstance(current, dict) and current.get("props", {}).get("className") == "status-running"
    if not request or not still_running or request.get("cancels") != cancels or not request.get("token"):
        return False
    return run_cache().job_state(request["token"]) != "finished"


DIED = ("The job's process died before it finished (killed, or out of memory?){kept}; press {button} again.")


def watch_for_dead_jobs(status_id: str, request_id: str, cancel_id: str, kept: str = "",
                        button: str = "Run") -> None:
    """Register the page's callback that turns "running" into an error once the job's Cancel button is disabled
    again (the job ended) and the job never recorded that it finished."""

    @callback(
        Output(status_id, "children", allow_duplicate=True),
        Input(cancel_id, "disabled"),
        State(request_id, "data"),
        State(cancel_id, "n_clicks"),
        State(status_id, "children"),
        prevent_initial_call=True,
    )
    def check_job_end(cancel_disabled, request, cancels, current):
        if not cancel_disabled or not job_died(request, cancels, current):
            return no_update
        log.error("background job %s ended without a result: its process died", request["token"])
        return status("error", DIED.format(kept=kept, button=button))
