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


def test_deadline():
    check = _limits().deadline()
    assert check()
    time.sleep(0.25)
    assert not check()


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
    shown = []
    request = {"study": {}, **background.request_meta("session-a", 0)}
    running = {"props": {"className": "status-running"}}
    with background.page_job(request, lambda f, text: shown.append((f, text))) as job:
        assert background.job_died(request, 0, running)  # started, not finished: were it to end now, it died
        assert job.report(0.1, "a") and job.report(0.2, "b")  # True within the wall time; "b" throttled
        assert shown == [(0.1, "a")]
        time.sleep(0.35)
        assert job.report(0.3, "c") is False and job.timed_out
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
