"""The server listens before anything slow, on a busy machine: gunicorn started beside two CPU-bound processes
with the kernels compiled (a warm start) and no calibration stored yet (a new cache directory), the case where the
master used to run the cheap-run calibration before it listened (app/gunicorn_conf.py, app.warm --serve), and
before that imported the dashboard (Dash, numba, SciPy: seconds on a busy machine).

The structural guards: the master says "Listening at" before it imports the dashboard, whatever answers before
the dashboard is the start page (app.starting), and the background warm-up (app.warm --serve) reports its
calibration after the listen. The seconds to the first 200 and to the dashboard are reported; their target (2 s)
is measured by scripts/first_start.sh and stated in the README; a bound in seconds here would measure the
machine's other load, so the guard is the order of the log lines.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import REPO_ROOT, _free_port, stop_gunicorn

import solvers

pytestmark = pytest.mark.xdist_group("server_start")

HOG = "while True: pass"
START_TIMEOUT = 300  # s: only a server that never answers fails; the seconds themselves are reported


@pytest.fixture
def two_cpu_hogs():
    """Two CPU-bound processes (both cores of the reference machine busy), stopped after the test."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def _first_200(url: str, proc: subprocess.Popen, timeout: float) -> tuple[float | None, float | None]:
    """(when the start page first answered or None, when the dashboard first answered or None), monotonic;
    any other 200 fails the test."""
    started = time.monotonic()
    start_page = None
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            return start_page, None
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=5) as r:
            body = r.read()
            if r.status == 200 and b"_dash-config" in body:
                return start_page, time.monotonic()
            assert r.status == 200 and b"Integrator Lab is starting" in body, (r.status, body[:300])
            start_page = start_page or time.monotonic()
        time.sleep(0.05)
    return start_page, None


def _start(tmp_path, conf: str = "app/gunicorn_conf.py", env: dict | None = None) -> tuple[subprocess.Popen, int]:
    """gunicorn with ``conf`` on a free port and a new cache directory in tmp_path, logging to gunicorn.log there, in
    its own session; (the process, the port)."""
    port = _free_port()
    (tmp_path / "cache").mkdir()
    env = {**os.environ, "INTEGRATOR_LAB_CACHE_DIR": str(tmp_path / "cache"), **(env or {})}
    with open(tmp_path / "gunicorn.log", "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", conf, "--bind", f"127.0.0.1:{port}",
                                 "app:server"], cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    return proc, port


def _end_warm_ups(log) -> None:
    """Kill the background warm-ups the server's log names (app.warm, in their own sessions)."""
    for line in log.read_text(errors="replace").splitlines():
        if "(app.warm --serve, pid" in line or "(app.warm, pid" in line:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.killpg(int(line.split("pid ")[1].split(")")[0]), signal.SIGKILL)


def test_a_warm_start_listens_before_the_calibration_under_two_cpu_hogs(tmp_path, two_cpu_hogs,
                                                                        record_property):
    if not solvers.api.kernels_ready():
        pytest.skip("needs the compiled kernels (a warm start): python -m solvers warmup")
    log = tmp_path / "gunicorn.log"
    started = time.monotonic()
    proc, port = _start(tmp_path)
    try:
        start_page, answered = _first_200(f"http://127.0.0.1:{port}/", proc, START_TIMEOUT)
        text = log.read_text(errors="replace")
        assert answered is not None, text[-3000:]
        first = (start_page or answered) - started
        for hog in two_cpu_hogs:  # measured: the rest of the test (the stop) need not starve the suite's other tests
            hog.kill()
        warm = [line for line in text.splitlines() if "(app.warm --serve, pid" in line]
        assert warm, text[-3000:]
        assert "Listening at" in text, text[-3000:]
        assert text.index("Listening at") < text.index("dashboard imported in"), text[-3000:]
        # the calibration is not on the master's path: logged (by the background process) after "Listening at",
        # if it has finished at all by the time the page answered
        calibrated = text.find("cheap-run calibration in")
        assert calibrated == -1 or calibrated > text.index("Listening at"), text[-3000:]
        record_property("timing", f"warm start beside two CPU hogs: first 200 after {first:.2f} s, the dashboard "
                                  f"after {answered - started:.2f} s")
    finally:
        stop_gunicorn(proc)
        _end_warm_ups(log)


def test_a_stop_while_the_workers_boot_is_not_lost(tmp_path):
    """A SIGTERM that reaches a worker before it has its own signal handlers (app/gunicorn_conf.py, post_fork)
    stops it once it has booted, instead of leaving the master to wait its graceful_timeout (30 s) and kill it.
    Each worker's boot is slowed by 3 s in post_fork here, so the master's SIGTERM to its workers lands in that
    window; without the fix the stop takes 30 s."""
    conf = tmp_path / "slow_boot_conf.py"
    conf.write_text(
        "import time\n"
        "from app import gunicorn_conf as base\n"
        "from app.gunicorn_conf import *  # noqa: F403\n"
        "\n"
        "def post_fork(server, worker):\n"
        "    base.post_fork(server, worker)\n"
        "    time.sleep(3)\n")
    log = tmp_path / "gunicorn.log"
    proc, _port = _start(tmp_path, str(conf), {"PYTHONPATH": str(REPO_ROOT)})
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while b"Booting worker" not in log.read_bytes():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)  # to the master only, as `docker stop` does
        stopped = time.monotonic()
        proc.wait(60)
        took = time.monotonic() - stopped
        text = log.read_text(errors="replace")
        # 30 s is gunicorn's wait for a worker that never saw the stop; a booting worker's own stop takes 3-5 s
        assert took < 20, (took, text[-3000:])
        assert "a stop arrived while the worker booted" in text, text[-3000:]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        _end_warm_ups(log)
