"""The background-job plumbing of every page (Run, Convergence, Papers, Lessons), in one place.

A page's Run callback validates the form and stores a *request* (:func:`job_request`): the validated payload, a
token naming the job, the Cancel button's click count, and, signed with the server's key, who asks (the browser
session from the server's signed session cookie and the client address), the time and a digest of the payload.
A request edited in the browser, replayed, or older than REQUEST_SECONDS is refused: the job runs only what the
page validated, once. Before the job's process is forked, the job manager (app.config) admits the request in the
web process (:func:`admit`): it takes the session's and the address's slots without waiting, or refuses the
request there, so no process is created for a request over those caps. Its background callback then runs the
work inside :func:`page_job`, which

* records the job as started and, on the way out, finished under its token, so that a job whose process died
  (killed, out of memory, worker restarted) is reported by :func:`watch_for_dead_jobs` instead of "Running…"
  forever (Dash sends no output at all for a dead job);
* holds one of the server's job slots (queueing with a message while the server is full, then refusing) besides
  the session's and the address's (app.limits: the caps the README documents);
* gives the work a :class:`Job`: a throttled progress reporter that also tells the solvers to stop at the
  server's wall-time limit, and the message that says so.

The run keys a job returns (the Run page's ``run-keys``) are signed with the asking session (:func:`sign_keys`);
the charts and downloads read only keys that :func:`check_keys` accepts.

A request over a cap gets the same sentence on every page: ``Nothing was run: <the cap's message>``.

A Run-page request that is cheap (:func:`estimate`, calibrated per benchmark and method when the server starts)
is answered in the request itself when its slots are free (:func:`run_now`): no forked process, no polls.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import psutil
from dash import Input, Output, State, callback, clientside_callback, no_update

import solvers
from app import config, jobs, lessons_view, limits
from app.layout import (
    DEFAULT_BENCHMARK,
    DEFAULT_METHOD,
    DEFAULT_STEP,
    DEFAULT_T_END,
    option_defaults,
    param_defaults,
    status,
)
from solvers.registry import BENCHMARKS, METHODS, applies

log = logging.getLogger(__name__)

Show = Callable[[float | None, str], object]  # (fraction or None: unchanged, text) -> shown on the page


@functools.cache
def run_cache() -> jobs.RunCache:
    """The result cache (a handle on the shared directory; every process opens its own)."""
    return _open_run_cache()


def _open_run_cache() -> jobs.RunCache:
    return jobs.RunCache(config.cache_dir() / "runs", config.code_version())


def identity() -> dict[str, str | None]:
    """Who asks, as the server knows it: the session id kept in Flask's signed session cookie (made on the
    first request that needs it; a client cannot choose or forge it, only drop it, which the per-address cap
    bounds) and the client address (``INTEGRATOR_LAB_PROXIES`` trusted proxies' X-Forwarded-For, app.main).
    Outside a request (tests, the library): no session, no address."""
    from flask import has_request_context, request, session

    if not has_request_context():
        return {"session": None, "client": None}
    sid = session.get("sid")
    if not isinstance(sid, str):
        sid = uuid.uuid4().hex
        session["sid"] = sid
    return {"session": sid, "client": request.remote_addr}


REQUEST_SECONDS = 300.0  # a job request older than this is refused (it is normally used within a second)
META = ("token", "cancels", "signed")  # the keys job_request adds; everything else is the signed payload
KEY_PATTERN = re.compile(r"[0-9a-f]{32}")  # jobs.run_key


def _signer(salt: str = "integrator-lab job request"):
    from itsdangerous import URLSafeTimedSerializer

    return URLSafeTimedSerializer(config.secret_key(config.cache_dir()), salt=salt)


def _digest(payload: Mapping[str, Any]) -> str:
    """A digest of a request's payload, unchanged by the browser's JSON round trip (12.0 comes back as 12)."""
    body = {k: v for k, v in payload.items() if k not in META}
    text = json.dumps(jobs._canonical(body), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def job_request(payload: Mapping[str, Any], cancels: int | None) -> dict[str, Any]:
    """A page's validated payload as a job request: the payload plus a fresh token (the job's liveness marker,
    used once), the Cancel button's clicks (a cancelled job is not a dead one) and, signed with the server's
    key, who asks (:func:`identity`), the token, the time and a digest of the payload itself: a request whose
    payload was edited in the browser, replayed, or kept beyond REQUEST_SECONDS is refused (:func:`requester`).
    The payload must be plain JSON data and must not use the keys of :data:`META`."""
    token = uuid.uuid4().hex
    signed = _signer().dumps({**identity(), "token": token, "digest": _digest(payload)})
    return {**payload, "token": token, "cancels": cancels, "signed": signed}


def requester(request: Mapping[str, Any]) -> dict[str, str | None]:
    """The verified session and client address of a request (:func:`job_request`); LimitError if its signature
    is missing or does not match its token and payload (a request made or edited outside this server's pages),
    or it is older than REQUEST_SECONDS."""
    from itsdangerous import BadData, SignatureExpired

    if not isinstance(request, Mapping):
        raise limits.LimitError(NOT_OURS)
    try:
        who = _signer().loads(request.get("signed") or "", max_age=REQUEST_SECONDS)
    except SignatureExpired:
        raise limits.LimitError("This request has expired (reload the page and try again).") from None
    except BadData:
        who = None
    if (not isinstance(who, dict) or who.get("token") != request.get("token")
            or who.get("digest") != _digest(request)):
        raise limits.LimitError(NOT_OURS)
    return {"session": who.get("session"), "client": who.get("client"), "token": who["token"]}


NOT_OURS = "This request was not made by this server's page (reload the page and try again)."
REPLAYED = "This request was already run once (press Run again for a new run)."


def consume(token: str) -> None:
    """Mark a request's token used (atomically, shared by every process); LimitError if it was used before."""
    if not run_cache().claim(token):
        raise limits.LimitError(REPLAYED)


def sign_keys(keys: list[str], session: str | None) -> str:
    """The signature of the run keys a job of ``session`` produced (``run-keys``: see :func:`check_keys`)."""
    return _signer("integrator-lab run keys").dumps({"session": session, "keys": list(keys)})


def check_keys(run_keys: Any, max_runs: int | None = None) -> list[str]:
    """The run keys of a ``run-keys`` store, verified: well formed, at most the run cap, no duplicates, signed by
    this server for the asking browser session. [] for an empty store; LimitError (a message for the user)
    otherwise. The charts and downloads read only the keys this returns."""
    from itsdangerous import BadData

    if run_keys is None:
        return []
    if not isinstance(run_keys, Mapping):
        raise limits.LimitError(KEYS_NOT_OURS)
    keys = run_keys.get("keys")
    if keys is None or keys == []:
        return []
    cap = limits.Limits.from_env().max_runs if max_runs is None else max_runs
    if not isinstance(keys, list) or not all(isinstance(k, str) and KEY_PATTERN.fullmatch(k) for k in keys):
        raise limits.LimitError(KEYS_NOT_OURS)
    if len(keys) > cap:
        raise limits.LimitError(f"{len(keys)} runs to show: this server allows at most {cap}.")
    if len(set(keys)) != len(keys):
        raise limits.LimitError("The same run was named twice (reload the page and run again).")
    try:
        signed = _signer("integrator-lab run keys").loads(run_keys.get("signed") or "")
    except BadData:
        signed = None
    if not isinstance(signed, dict) or signed.get("keys") != keys or signed.get("session") != identity()["session"]:
        raise limits.LimitError(KEYS_NOT_OURS)
    return keys


KEYS_NOT_OURS = "These results were not produced by this browser session's runs (reload the page and run again)."


def failed(exc: BaseException, what: str) -> str:
    """The sentence a job that raised gets (its page's ``on_error``), ``what`` naming it ("The run"): a lost
    connection to the job queue (Redis restarted or unreachable under Celery) says so; anything else is an
    internal error whose details are in the server log."""
    log.error("%s failed: %r", what, exc)
    modules = {c.__module__.split(".")[0] for c in type(exc).__mro__}
    if modules & {"redis", "kombu", "celery"} and "onnection" in "".join(c.__name__ for c in type(exc).__mro__):
        return (f"{what} lost its connection to the job queue (Redis was restarted or is unreachable); runs that "
                "had finished are kept: press Run again.")
    return f"{what} failed with an internal error (details in the server log)."


COMPILING = ("the solver kernels are still being compiled in the background after this server's first start: "
             "the first run of each method compiles what it needs, about a minute")


def starting(text: str) -> str:
    """A job's first status line, with the reason for a slow first run while the kernels compile (app.warm)."""
    return text if solvers.api.kernels_ready() else f"{text} ({COMPILING})"


def refused(exc: Exception) -> str:
    """The sentence a request over a cap (or otherwise refused before it ran) gets, on every page."""
    return f"Nothing was run: {exc}"


class Job:
    """The running job's view of its limits: ``report(fraction, text)`` shows progress at most every
    ``interval`` seconds and returns False once the job is past its wall time (a solver's ``progress`` then
    stops the run); ``deadline()`` is True while within it; ``limit_text`` says the limit stopped the job
    (``over_time`` adds that partial results are kept)."""

    def __init__(self, show: Show, lim: limits.Limits, session: str | None = None,
                 interval: float = jobs.PROGRESS_INTERVAL) -> None:
        self.session = session  # the verified browser session of the request (the run keys are signed with it)
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


# set in a job's process when the web process admitted its request before the fork (the token, its session's
# and address's slots held by inherited lock files), or to the LimitError when it refused it (the job's function
# then runs in the web process only to give the page its refusal)
ADMITTED: contextvars.ContextVar[str | limits.LimitError | None] = contextvars.ContextVar("admitted", default=None)


def find_request(args: Any) -> Any:
    """The job request among a background callback's arguments: every page's job takes one (a dict with a
    ``signed`` key); without one, the first argument (which :func:`admit` then refuses)."""
    values = list(args.values() if isinstance(args, Mapping) else args if isinstance(args, (list, tuple))
                  else [args])
    return next((a for a in values if isinstance(a, Mapping) and "signed" in a), values[0] if values else None)


def admit(request: Any) -> tuple[str, list]:
    """In the web process, before a job process is forked: verify the request (:func:`requester`), take its
    session's and address's slots without waiting (app.limits.reserve) and use up its token. Returns (token,
    the open lock files: the forked job inherits them); LimitError (nothing held) when the request is refused."""
    who = requester(request)
    held = limits.reserve(config.cache_dir(), who["session"], limits.Limits.from_env(), client=who["client"])
    try:
        consume(who["token"])
    except limits.LimitError:
        for fh in held:
            fh.close()
        raise
    return who["token"], held


@contextlib.contextmanager
def page_job(request: Mapping[str, Any], show: Show) -> Iterator[Job]:
    """Run the block as the request's job: liveness marker, the session's, the address's and a server slot, the
    deadline. A request already admitted by the web process (:func:`admit`) takes only the server slot here.

    Raises :class:`app.limits.LimitError` (a message for the user, see :func:`refused`) when a cap refuses it,
    or the request is not this server's, or was used before.
    """
    admitted = ADMITTED.get()
    if isinstance(admitted, limits.LimitError):
        raise admitted
    who = requester(request)
    cache = run_cache()
    token = who["token"]
    pre = admitted == token
    prior = None if pre else cache.job_state(token)
    cache.mark_job(token, _started_here())
    try:
        lim = limits.Limits.from_env()
        with limits.job_slot(config.cache_dir(), None if pre else who["session"], lim,
                             client=None if pre else who["client"],
                             on_wait=lambda waited: show(None, f"Waiting for a free slot on the server "
                                                               f"({waited:.0f} s)…")):
            if not pre:
                try:
                    consume(token)
                except limits.LimitError:
                    # Celery delivers a task again when its worker process died (acks_late): a job whose process
                    # is gone without finishing may run once more; a finished one, or a replay while the first
                    # still runs, never
                    if not _died_unfinished(prior):
                        raise
            yield Job(show, lim, who["session"])
    finally:  # not reached when the process is killed: watch_for_dead_jobs then reports the job as dead
        cache.mark_job(token, "finished")


def _started_here() -> str:
    """The job state "started" with the process that runs it (host and pid), for :func:`_died_unfinished`."""
    return f"started {socket.gethostname()} {os.getpid()}"


def _died_unfinished(state: str | None) -> bool:
    """True when ``state`` says a job started and its process is gone (on this host) without finishing it."""
    parts = (state or "").split()
    if len(parts) != 3 or parts[0] != "started" or not parts[2].isdigit():
        return False
    if parts[1] != socket.gethostname():  # another host's worker: its liveness is not ours to see
        return False
    try:
        return psutil.Process(int(parts[2])).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


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
    """Register the page's callbacks that turn "running" into an error once the job's Cancel button is disabled
    again (the job ended) and the job never recorded that it finished.

    The browser decides when to ask (a clientside callback writes ``<status_id>-ended``, a Store in the page's
    layout, only when Cancel is disabled while the status still says running), so a job that ended normally
    costs no request."""
    clientside_callback(
        """(disabled, current) => (disabled && current && current.props
            && current.props.className === 'status-running') ? Date.now() : window.dash_clientside.no_update""",
        Output(f"{status_id}-ended", "data"),
        Input(cancel_id, "disabled"),
        State(status_id, "children"),
        prevent_initial_call=True,
    )

    @callback(
        Output(status_id, "children", allow_duplicate=True),
        Input(f"{status_id}-ended", "data"),
        State(request_id, "data"),
        State(cancel_id, "n_clicks"),
        State(status_id, "children"),
        prevent_initial_call=True,
    )
    def check_job_end(_ended, request, cancels, current):
        if not job_died(request, cancels, current):
            return no_update
        log.error("background job %s ended without a result: its process died", request["token"])
        return status("error", DIED.format(kept=kept, button=button))


# ---- cheap runs answered in the request (no fork) ----------------------------------------------------------
CALIBRATION_STEPS = 500


def _shape(cfg: Mapping[str, Any]) -> str:
    """A configuration without its step and end time: what one calibration stands for."""
    return jobs.run_key({**cfg, "h": 1.0, "t_end": 1.0}, "shape")


def _default_config(benchmark: str, method: str, h: float, t_end: float) -> dict:
    configs, errors = jobs.check_form({"benchmark": benchmark, "methods": [method], "h": h, "t_end": t_end,
                                       "params": param_defaults(benchmark),
                                       "options": {method: option_defaults(method)}})
    if errors:
        raise RuntimeError(f"the default form of {benchmark} / {method} does not validate: {errors}")
    return configs[0]


def default_run_config() -> dict:
    """The canonical configuration of the Run page's default run (what a first click asks for)."""
    return _default_config(DEFAULT_BENCHMARK, DEFAULT_METHOD, DEFAULT_STEP, DEFAULT_T_END)


def first_runs() -> list[dict]:
    """The runs a class asks for first: the Run page's default run."""
    return [default_run_config()]


def warm_runs(compiled: bool = False, wait: bool = True) -> list[str]:
    """Compute :func:`first_runs` into the run cache, compiling their kernels on the way; a job asking for one
    meanwhile waits for it (RunCache's lock) instead of compiling the same kernel again. ``compiled``: replace
    results made with the kernels interpreted (app.warm on a fresh server); ``wait=False``: never wait for that
    lock, keep a result stored meanwhile (RunCache.run). Returns their keys."""
    cache = run_cache()
    return [cache.run(cfg, compiled=compiled, wait=wait)[0] for cfg in first_runs()]


def warm_references() -> list[str]:
    """Every benchmark's default run (rk4 at its default step and end time) into the run cache, and with it its
    reference into the reference store beside it (RunCache.reference_store), which every other method's run at
    the default step then reads instead of computing. Returns the run keys."""
    cache = run_cache()
    return [cache.run(_default_config(b, "rk4", spec.default_h, spec.default_t_end))[0]
            for b, spec in BENCHMARKS.items() if applies("rk4", b)]


def _lesson_requests() -> list[dict]:
    return [lessons_view.check_request(lid) for lid in lessons_view.lesson_ids()]


def lessons_warm() -> bool:
    """True when every lesson's demo at its default value is in the run cache (for this code version). Opens and
    closes its own handle: gunicorn's master asks before it forks, and an open SQLite handle must not be forked."""
    cache = _open_run_cache()
    try:
        return all(cache.recall("lesson", req) is not None for req in _lesson_requests())
    finally:
        cache.close()


def warm_lessons() -> int:
    """Compute every lesson's demo at its default value into the run cache (the Lessons page then shows each at
    once); returns how many were computed (not already cached)."""
    cache = run_cache()
    return sum(not cache.memo("lesson", req, lambda req=req: lessons_view.compute(req))[1]
               for req in _lesson_requests())


CALIBRATION_SECONDS = 1.0  # simulated time of the run that measures a benchmark's record cost


def _calibration_file() -> Path:
    return config.cache_dir() / f"calibration-{run_cache().version}.json"


def calibration() -> dict[str, Any]:
    """What :func:`estimate` knows (:func:`calibrate`), read from the cache directory; nothing (every request goes
    to a background job) until it has been measured for this version of the code."""
    try:
        return json.loads(_calibration_file().read_text())
    except (OSError, ValueError):
        return {"per_step": {}, "record": {}}


def calibrate() -> dict[str, Any]:
    """Measure what a cheap run costs here and store it for every process of the server (gunicorn's start when
    the kernels are compiled, else the background warm-up once it has compiled them: app.warm).

    For each benchmark at its default parameters, ``per_step[shape]``: the solver seconds per step of each method
    at its default options (a CALIBRATION_STEPS-step run; methods with a ``prepare`` stage, whose cost is not per
    step, are left out); ``record[benchmark]``: the rest of a stored run's cost per simulated second (reference
    solution, errors, record: the wall time of a CALIBRATION_SECONDS run of the first method, less its solver
    time), with the default end time up to which it is used."""
    per_step: dict[str, float] = {}
    record: dict[str, tuple[float, float]] = {}
    for benchmark in solvers.benchmarks():
        info = solvers.describe(benchmark)
        h, t_end = info["default_h"], info["default_t_end"]
        for method in solvers.methods(benchmark):
            if METHODS[method].prepare is not None:
                continue
            cfg = _default_config(benchmark, method, h, min(t_end, CALIBRATION_STEPS * h))
            res = solvers.simulate(cfg["benchmark"], cfg["method"], h=cfg["h"], t_end=cfg["t_end"],
                                   params=cfg["params"], options=cfg["options"], max_samples=2)
            if res.status == "ok":
                per_step[_shape(cfg)] = res.cpu_time / max(res.steps, 1)
            if benchmark not in record and res.status == "ok":
                span = min(t_end, CALIBRATION_SECONDS)
                started = time.perf_counter()
                stored = jobs.simulate(_default_config(benchmark, method, h, span))
                rest = max(time.perf_counter() - started - stored["cpu_time"], 0.0)
                record[benchmark] = (rest / span, t_end)
    data = {"per_step": per_step, "record": record}
    path = _calibration_file()
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)  # atomic: a reader sees the old file or the new one
    return data


def estimate(configs: list[Mapping[str, Any]]) -> float | None:
    """Seconds the runs of a request would take here, or None when a run is not calibrated (other parameters
    or options than the defaults, a method with a prepare stage, an end time beyond the default)."""
    cal = calibration()
    total = 0.0
    for cfg in configs:
        per_step = cal["per_step"].get(_shape(cfg))
        record = cal["record"].get(cfg["benchmark"])
        if per_step is None or record is None or cfg["t_end"] > record[1] * (1 + 1e-12):
            return None
        total += per_step * solvers.api.step_count(cfg["h"], cfg["t_end"]) + record[0] * cfg["t_end"]
    return total


def run_now(configs: list[Mapping[str, Any]]) -> dict | None:
    """Run a cheap request (:func:`estimate` <= the limit ``inline_seconds``, app.limits) in the calling request
    when the session's, the address's and a server slot are free at once, under the same caps and wall time as
    a job; returns the ``run-keys`` data, or None to send the request to a background job (too costly, not
    calibrated, or a slot taken: the job then queues with its messages)."""
    lim = dataclasses.replace(limits.Limits.from_env(), queue_seconds=0.0)
    cost = estimate(configs) if lim.inline_seconds > 0 else None
    if cost is None or cost > lim.inline_seconds:
        return None
    who = identity()
    started = time.perf_counter()
    cache = run_cache()
    keys, cached = [], 0
    try:
        with limits.job_slot(config.cache_dir(), who["session"], lim, client=who["client"]):
            deadline = lim.deadline()
            over_time = Job(lambda f, t: None, lim).over_time
            for cfg in configs:
                key, _result, hit = cache.run(cfg, None, deadline, over_time)
                keys.append(key)
                cached += hit
    except limits.LimitError:
        return None
    return {"keys": keys, "signed": sign_keys(keys, who["session"]), "cached": cached,
            "computed": len(keys) - cached, "elapsed": time.perf_counter() - started, "inline": True}
