"""The lab server's limits (app.limits) and health report (app.health), without a browser."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from app import health, limits


def _limits(**kw) -> limits.Limits:
    base = dict(max_steps=1000, max_runs=2, max_job_seconds=0.2, max_session_jobs=1, max_server_jobs=2,
                queue_seconds=0.3)
    base.update(kw)
    return limits.Limits(**base)


def test_defaults_and_environment(monkeypatch):
    d = limits.Limits.from_env()
    assert d.max_steps == 10_000_000 and d.max_server_jobs == 8 and d.max_session_jobs == 2
    monkeypatch.setenv("INTEGRATOR_LAB_MAX_STEPS", "500")
    assert limits.Limits.from_env().max_steps == 500
    monkeypatch.setenv("INTEGRATOR_LAB_MAX_STEPS", "lots")
    with pytest.raises(RuntimeError, match="INTEGRATOR_LAB_MAX_STEPS"):
        limits.Limits.from_env()


def test_request_caps():
    lim = _limits()
    run = {"method": "rk4", "h": 0.01, "t_end": 5.0}
    lim.check_request([run, run])
    with pytest.raises(limits.LimitError, match="at most 2"):
        lim.check_request([run] * 3)
    with pytest.raises(limits.LimitError, match="over this server's cap of 1,000 steps"):
        lim.check_request([{**run, "t_end": 20.0}])


class FakeClock:
    """A monotonic clock the test moves (``advance``), so that a wall-time check does not depend on how fast a
    loaded machine runs the test; ``sleep`` advances it instead of waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    sleep = advance
    perf_counter = monotonic


def test_deadline(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(limits, "time", clock)
    check = _limits().deadline()  # 0.2 s
    assert check()
    clock.advance(0.19)
    assert check()
    clock.advance(0.02)
    assert not check()
    assert _limits().deadline(started=clock.now - 0.25)() is False


def test_session_and_server_slots(tmp_path):
    lim = _limits()
    with limits.job_slot(tmp_path, "alice", lim):
        with pytest.raises(limits.LimitError, match="already runs 1 jobs"), limits.job_slot(tmp_path, "alice", lim):
            pass
        with limits.job_slot(tmp_path, "bob", lim):  # the second server slot
            waits = []
            t0 = time.monotonic()
            with pytest.raises(limits.LimitError, match="server is busy"), limits.job_slot(
                tmp_path, "carol", lim, on_wait=waits.append
            ):
                pass
            assert time.monotonic() - t0 >= 0.3 and waits
    with limits.job_slot(tmp_path, "alice", lim):  # everything was released
        pass


def _hold(directory, ready, release):
    with limits.job_slot(directory, "dies", _limits(max_server_jobs=1)):
        ready.set()
        release.wait(10)


def test_slot_of_a_killed_process_is_released(tmp_path):
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold, args=(tmp_path, ready, release))
    proc.start()
    assert ready.wait(10)
    lim = _limits(max_server_jobs=1, queue_seconds=0.1)
    with pytest.raises(limits.LimitError), limits.job_slot(tmp_path, None, lim):
        pass
    proc.kill()
    proc.join(10)
    with limits.job_slot(tmp_path, None, lim):
        pass


def test_health_report(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert health.checks(tmp_path) == {"cache_dir_writable": True, "backend": "diskcache", "status": "ok"}
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens on port 1
    report = health.checks(tmp_path)
    assert report["backend"] == "celery" and report["redis"] is False and report["status"] == "unhealthy"


def test_page_job_helper_throttles_stops_at_the_deadline_and_detects_dead_jobs(tmp_path, monkeypatch):
    from app import background, config

    monkeypatch.setenv("INTEGRATOR_LAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("INTEGRATOR_LAB_MAX_JOB_SECONDS", "0.3")
    background.run_cache.cache_clear()
    assert config.cache_dir() == tmp_path
    clock = FakeClock()  # the job's wall time and the progress throttle, independent of the machine's load
    monkeypatch.setattr(limits, "time", clock)
    monkeypatch.setattr(background, "time", clock)
    shown = []
    request = background.job_request({"study": {}}, 0)
    running = {"props": {"className": "status-running"}}
    with background.page_job(request, lambda f, text: shown.append((f, text))) as job:
        assert background.job_died(request, 0, running)  # started, not finished: were it to end now, it died
        assert job.report(0.1, "a") and job.report(0.2, "b")  # True within the wall time; "b" throttled
        assert shown == [(0.1, "a")]
        clock.advance(0.2)
        assert job.report(0.25, "c") and not job.timed_out and shown[-1] == (0.1, "a")  # throttled, in time
        clock.advance(0.15)
        assert job.report(0.3, "d") is False and job.timed_out and shown[-1] == (0.3, "d")
        assert job.over_time.startswith("stopped at this server's wall-time limit of 0.3 s per job")
    assert not background.job_died(request, 0, running)  # it recorded that it finished
    assert not background.job_died(request, 1, running)  # cancelled by the user: not dead either
    assert background.refused(limits.LimitError("x.")) == "Nothing was run: x."
    background.run_cache.cache_clear()


def test_a_study_stops_when_its_progress_says_so():
    from solvers import studies

    calls = []

    def progress(fraction: float, text: str) -> bool:
        calls.append(text)
        return len(calls) < 3

    out = studies.run_study({"benchmark": "planar_pendulum", "methods": ["rk4"], "h": 0.01, "levels": 3,
                             "t_end": 1.0}, progress)
    assert out["status"] == "cancelled" and out["message"].startswith("stopped by the caller after")
    assert len(out["runs"]) < 3


def _meta_server(tmp_path, monkeypatch, **env):
    """A Flask app whose one route answers with background.job_request, as a page's Run callback stores it."""
    from flask import Flask

    from app import background

    monkeypatch.setenv("INTEGRATOR_LAB_CACHE_DIR", str(tmp_path))
    for name, value in env.items():
        monkeypatch.setenv(f"INTEGRATOR_LAB_{name}", value)
    background.run_cache.cache_clear()
    server = Flask("meta")
    server.secret_key = "test"
    server.add_url_rule("/meta", "meta", lambda: background.job_request({"study": {}}, 0))
    return server


def test_a_forged_session_does_not_lift_the_session_cap(tmp_path, monkeypatch):
    """The session is the server's signed cookie: a request with a session field added (or any other edit of
    its payload) or whose signed part is edited is refused, and a client that drops its
    cookie meets the per-address cap."""
    from app import background

    server = _meta_server(tmp_path, monkeypatch, MAX_SESSION_JOBS="1", MAX_CLIENT_JOBS="2", QUEUE_SECONDS="0.2")
    browser = server.test_client()
    first, second = browser.get("/meta").json, browser.get("/meta").json
    assert first["token"] != second["token"]
    forged = {**second, "session": "a-new-session-id", "client": "10.9.8.7"}  # fields a client may add: ignored
    tampered = {**second, "signed": second["signed"][:-3] + "abc"}
    swapped = {**second, "token": first["token"]}  # another request's token under this signature
    shown = []
    with background.page_job(first, lambda f, t: shown.append(t)):
        with pytest.raises(limits.LimitError, match="session already runs 1 jobs"), \
                background.page_job(second, lambda f, t: None):
            pass
        for request in (forged, tampered, swapped, {k: v for k, v in second.items() if k != "signed"}):
            with pytest.raises(limits.LimitError, match="not made by this server's page"), \
                    background.page_job(request, lambda f, t: None):
                pass
        other = server.test_client().get("/meta").json  # a fresh cookie jar: a new session, the same address
        with background.page_job(other, lambda f, t: None):  # the address's second slot
            third = server.test_client().get("/meta").json
            with pytest.raises(limits.LimitError, match="Your address already runs 2 jobs"), \
                    background.page_job(third, lambda f, t: None):
                pass
    with background.page_job(second, lambda f, t: None):  # released: the same session runs again
        pass


def test_threads_without_redis_are_refused_at_start(tmp_path):
    """INTEGRATOR_LAB_THREADS > 1 with the diskcache backend (jobs forked from threaded workers can hang on
    SQLite's copied mutex) stops gunicorn before it serves, with the reason; with REDIS_URL the setting is
    accepted (checked on the settings file alone: gunicorn reads it before it imports the app)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(INTEGRATOR_LAB_THREADS="2", INTEGRATOR_LAB_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "app/gunicorn_conf.py", "--bind", "127.0.0.1:0",
                           "app:server"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "INTEGRATOR_LAB_THREADS=2 is refused without REDIS_URL" in proc.stderr + proc.stdout
    check = "import runpy; print(runpy.run_path('app/gunicorn_conf.py')['threads'])"
    ok = subprocess.run([sys.executable, "-c", check], env={**env, "REDIS_URL": "redis://127.0.0.1:6379/0"},
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.strip() == "2", ok.stderr


def test_a_job_that_raised_says_why():
    """A lost connection to the job queue (Redis restarted) is named as such; anything else is an internal
    error with its details in the log."""
    import redis

    from app import background

    lost = background.failed(redis.exceptions.ConnectionError("Connection refused"), "The run")
    assert lost.startswith("The run lost its connection to the job queue (Redis was restarted or is unreachable)")
    assert background.failed(ValueError("x"), "The study") == (
        "The study failed with an internal error (details in the server log).")


def test_a_job_started_while_the_kernels_compile_says_why_it_is_slow(monkeypatch):
    """Before the background warm-up has compiled the kernels (a fresh server), a job's first status line says
    that its first run compiles what it needs; afterwards it is the plain text."""
    import solvers
    from app import background

    monkeypatch.setattr(solvers.api, "kernels_ready", lambda: False)
    assert background.starting("Running…") == f"Running… ({background.COMPILING})"
    monkeypatch.setattr(solvers.api, "kernels_ready", lambda: True)
    assert background.starting("Running…") == "Running…"


def test_a_replay_while_the_job_runs_is_refused_and_a_dead_workers_redelivery_runs(tmp_path, monkeypatch):
    """Outside the web process's admission (the Celery path) a request runs once: sent again while its job still
    runs it is refused; only a job whose process died unfinished (Celery's redelivery after a killed worker) may
    run once more."""
    import multiprocessing

    from app import background

    server = _meta_server(tmp_path, monkeypatch, MAX_SESSION_JOBS="4", MAX_CLIENT_JOBS="4")
    request = server.test_client().get("/meta").json
    with background.page_job(request, lambda f, t: None):
        assert background.run_cache().job_state(request["token"]).startswith("started ")
        with pytest.raises(limits.LimitError, match="already run once"), \
                background.page_job(request, lambda f, t: None):
            pass
    with pytest.raises(limits.LimitError, match="already run once"), background.page_job(request, lambda f, t: None):
        pass  # finished: never again
    gone = multiprocessing.get_context("spawn").Process(target=int)
    gone.start()
    gone.join(30)
    again = server.test_client().get("/meta").json
    background.consume(again["token"])  # its first delivery used the token, then its worker died mid-job
    background.run_cache().mark_job(again["token"], f"started {background.socket.gethostname()} {gone.pid}")
    with background.page_job(again, lambda f, t: None):
        pass
    background.run_cache.cache_clear()
