"""Limits of the lab server, so one class can share it: every cap is documented here and refused with a message.

| limit | default | environment variable |
|---|---|---|
| steps per run (t_end / h) | 10,000,000 (the library's own cap) | ``INTEGRATOR_LAB_MAX_STEPS`` |
| runs (methods) per job | 8 | ``INTEGRATOR_LAB_MAX_RUNS`` |
| samples per run kept / drawn | ``app.jobs.STORE_SAMPLES``; ``solvers.figures.BUCKETS`` min/max pairs per trace | |
| wall time per job | 120 s (then stopped, partial results kept) | ``INTEGRATOR_LAB_MAX_JOB_SECONDS`` |
| concurrent jobs per browser session | 2 | ``INTEGRATOR_LAB_MAX_SESSION_JOBS`` |
| concurrent jobs per client address | 4 | ``INTEGRATOR_LAB_MAX_CLIENT_JOBS`` |
| concurrent jobs per server | 8 | ``INTEGRATOR_LAB_MAX_SERVER_JOBS`` |
| wait for a free server slot | 60 s (then refused) | ``INTEGRATOR_LAB_QUEUE_SECONDS`` |
| cheap Run request answered in the request (no job) up to | 0.25 s (0: never) | ``INTEGRATOR_LAB_INLINE_SECONDS`` |
| size of one request's body (Flask's MAX_CONTENT_LENGTH; larger: 413) | 1 MB | ``INTEGRATOR_LAB_MAX_REQUEST_MB`` |
| size of one results download (CSV, JSON) | 64 MB | ``INTEGRATOR_LAB_MAX_DOWNLOAD_MB`` |

The session is the server's (a signed cookie, app.background.identity), so a client cannot dodge its cap by
sending another id; a client that drops its cookies meets the per-address cap. A class behind one NAT address
shares that cap: raise it to the server's cap there. Jobs over the address or server cap wait for a slot.

Concurrency slots are advisory file locks (``flock``) in ``<cache dir>/slots``: shared by every gunicorn worker and
background process on the machine, and released by the kernel when a process dies, so a killed job never
leaks its slot. With Celery workers on several machines, the server cap holds per machine (each worker's pool
size bounds it too).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


class LimitError(ValueError):
    """A job over one of the caps; the message is meant for the user."""


def _env_number(name: str, default: float, low: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise RuntimeError(f"{name}={text!r} is not a number") from None
    if not value >= low:
        raise RuntimeError(f"{name}={text!r} must be >= {low:g}")
    return value


@dataclass(frozen=True)
class Limits:
    max_steps: int
    max_runs: int
    max_job_seconds: float
    max_session_jobs: int
    max_server_jobs: int
    queue_seconds: float
    max_client_jobs: int = 4
    inline_seconds: float = 0.25
    max_request_bytes: int = 1_000_000
    max_download_bytes: int = 64_000_000

    @classmethod
    def from_env(cls) -> Limits:
        return cls(
            max_steps=int(_env_number("INTEGRATOR_LAB_MAX_STEPS", 10_000_000, 1)),
            max_runs=int(_env_number("INTEGRATOR_LAB_MAX_RUNS", 8, 1)),
            max_job_seconds=_env_number("INTEGRATOR_LAB_MAX_JOB_SECONDS", 120.0, 0.1),
            max_session_jobs=int(_env_number("INTEGRATOR_LAB_MAX_SESSION_JOBS", 2, 1)),
            max_server_jobs=int(_env_number("INTEGRATOR_LAB_MAX_SERVER_JOBS", 8, 1)),
            queue_seconds=_env_number("INTEGRATOR_LAB_QUEUE_SECONDS", 60.0, 0.0),
            max_client_jobs=int(_env_number("INTEGRATOR_LAB_MAX_CLIENT_JOBS", 4, 1)),
            inline_seconds=_env_number("INTEGRATOR_LAB_INLINE_SECONDS", 0.25, 0.0),
            max_request_bytes=int(_env_number("INTEGRATOR_LAB_MAX_REQUEST_MB", 1.0, 0.01) * 1e6),
            max_download_bytes=int(_env_number("INTEGRATOR_LAB_MAX_DOWNLOAD_MB", 64.0, 0.01) * 1e6),
        )

    def check_download(self, size: int) -> None:
        """Refuse a download of more than ``max_download_bytes``."""
        if size > self.max_download_bytes:
            raise LimitError(f"the file would be {size / 1e6:.1f} MB, over this server's download limit of "
                             f"{self.max_download_bytes / 1e6:g} MB; download fewer runs at a time.")

    def check_request(self, configs: list[dict]) -> None:
        """Refuse a job with too many runs or a run with too many steps (before anything starts)."""
        if not isinstance(configs, list) or not configs:
            raise LimitError("no runs in this request.")
        if len(configs) > self.max_runs:
            raise LimitError(f"{len(configs)} runs in one job: this server allows at most {self.max_runs}.")
        for c in configs:
            steps = float(c["t_end"]) / float(c["h"])
            if steps > self.max_steps * (1 + 1e-12):
                raise LimitError(
                    f"{c['method']}: t_end / h = {steps:,.0f} steps, over this server's cap of {self.max_steps:,} "
                    "steps per run; increase the step or shorten the end time."
                )

    def deadline(self, started: float | None = None) -> Callable[[], bool]:
        """A check that is True while the job is within its wall time."""
        t0 = time.monotonic() if started is None else started
        return lambda: time.monotonic() - t0 <= self.max_job_seconds


def _try_lock(path: Path):
    fh = open(path, "a+")  # noqa: SIM115 -- kept open while the lock is held
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    return fh


def _first_free(directory: Path, prefix: str, count: int):
    for i in range(count):
        fh = _try_lock(directory / f"{prefix}-{i}.lock")
        if fh is not None:
            return fh
    return None


def _session_busy(limits: Limits) -> str:
    return (f"This browser session already runs {limits.max_session_jobs} jobs: wait for one to finish "
            "or cancel it.")


def reserve(directory: Path, session: str | None, limits: Limits, client: str | None = None) -> list:
    """Take one of the session's and one of the client address's job slots at once, without waiting, and return
    their open lock files (closing them frees the slots; a process forked meanwhile keeps them held until it
    exits). LimitError when either is full: the web process refuses such a request before any job process
    exists (app.config's job manager), so a client cannot park waiting processes on the server."""
    slots = Path(directory) / "slots"
    slots.mkdir(parents=True, exist_ok=True)
    held: list = []
    wanted = []
    if session:
        wanted.append((f"session-{_tag(session)}", limits.max_session_jobs, _session_busy(limits)))
    if client:
        wanted.append((f"client-{_tag(client)}", limits.max_client_jobs,
                       f"Your address already runs {limits.max_client_jobs} jobs on this server: wait for one to "
                       "finish or cancel it."))
    for prefix, count, busy in wanted:
        fh = _first_free(slots, prefix, count)
        if fh is None:
            for taken in held:
                taken.close()
            raise LimitError(busy)
        held.append(fh)
    return held


def _tag(who: str) -> str:
    return hashlib.sha256(who.encode()).hexdigest()[:16]


@contextlib.contextmanager
def job_slot(
    directory: Path,
    session: str | None,
    limits: Limits,
    on_wait: Callable[[float], object] | None = None,
    poll: float = 0.2,
    client: str | None = None,
) -> Iterator[None]:
    """Hold one of the session's, one of the client address's and one of the server's job slots while the block
    runs (``session`` / ``client`` None: that slot is not taken here, e.g. taken by :func:`reserve` before).

    A session over its cap is refused at once; when the address's or the server's slots are all taken the job
    waits for a free one (calling ``on_wait(seconds waited)``) for up to ``limits.queue_seconds`` in all and is
    then refused.
    """
    slots = Path(directory) / "slots"
    slots.mkdir(parents=True, exist_ok=True)
    held = []
    try:
        if session:
            fh = _first_free(slots, f"session-{_tag(session)}", limits.max_session_jobs)
            if fh is None:
                raise LimitError(_session_busy(limits))
            held.append(fh)
        started = time.monotonic()
        queues = [("server", limits.max_server_jobs,
                   f"The server is busy ({limits.max_server_jobs} jobs running) and no slot freed up within "
                   f"{limits.queue_seconds:g} s: try again in a moment.")]
        if client:
            queues.insert(0, (f"client-{_tag(client)}", limits.max_client_jobs,
                              f"Your address already runs {limits.max_client_jobs} jobs on this server and none "
                              f"finished within {limits.queue_seconds:g} s: try again in a moment."))
        for prefix, count, busy in queues:
            while True:
                fh = _first_free(slots, prefix, count)
                if fh is not None:
                    held.append(fh)
                    break
                waited = time.monotonic() - started
                if waited >= limits.queue_seconds:
                    raise LimitError(busy)
                if on_wait is not None:
                    on_wait(waited)
                time.sleep(poll)
        yield
    finally:
        for fh in held:
            fh.close()  # closing the file releases the lock
