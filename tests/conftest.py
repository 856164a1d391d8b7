"""Shared fixtures.

Browser fixtures (used by tests marked ``browser``): ``live_server`` runs the dashboard under gunicorn with
the settings of ``make serve``, on a free loopback port and a temporary cache directory; ``browser`` is
Debian's chromium driven by Playwright, for fresh (off-the-record) contexts: another browser, a phone; ``page`` a
new page of ``profile``, a returning user's browser (one on-disk profile per xdist worker) with no cookies, so a
new session. Without chromium or Playwright the browser tests are skipped, except on CI (``CI=true``), where they
fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Collection
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "scripts"))
# the scripts' Chromium and switches (Debian's chromium-headless-shell where installed: docs/performance.md, "make
# test: where its time goes")
from load_test import CHROMIUM  # noqa: E402
from load_test import FLAGS as CHROMIUM_FLAGS  # noqa: E402

SERVER_START_TIMEOUT = 120  # s: the master imports the app and loads the solvers' compiled kernels


CALIBRATIONS_ENV = "INTEGRATOR_LAB_TEST_CALIBRATIONS"  # a directory shared by the xdist workers of one run
CREATED_CALIBRATIONS = pytest.StashKey[str]()


def pytest_configure(config):
    if not hasattr(config, "workerinput") and CALIBRATIONS_ENV not in os.environ:  # the controller: workers inherit it
        os.environ[CALIBRATIONS_ENV] = config.stash[CREATED_CALIBRATIONS] = tempfile.mkdtemp(
            prefix="integrator-lab-calibrations-")


def pytest_unconfigure(config):
    created = config.stash.get(CREATED_CALIBRATIONS, None)  # only the directory this run made
    if created:
        os.environ.pop(CALIBRATIONS_ENV, None)
        shutil.rmtree(created, ignore_errors=True)


def _calibrations() -> Path:
    return Path(os.environ.get(CALIBRATIONS_ENV, "/nonexistent"))


def reuse_calibration(cache_dir: Path) -> None:
    """Give a new test server's cache directory the cheap-run calibration an earlier test server of this run
    measured (app.background.calibrate), as a restarted server finds its own: each server would otherwise spend
    about 10 s of CPU measuring it again, beside the tests. The first server measures it (tests/test_server_start.py
    and scripts/load_test.py check that path)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    for stored in _calibrations().glob("calibration-*.json"):
        if not (cache_dir / stored.name).exists():
            shutil.copyfile(stored, cache_dir / stored.name)


def keep_calibration(cache_dir: Path) -> None:
    """Share a test server's calibration with the servers started after it (:func:`reuse_calibration`)."""
    shared = _calibrations()
    if not shared.is_dir():
        return
    for measured in cache_dir.glob("calibration-*.json"):
        if not (shared / measured.name).exists():
            tmp = shared / f".{measured.name}.{os.getpid()}"
            shutil.copyfile(measured, tmp)
            tmp.replace(shared / measured.name)  # atomic: another worker reads the whole file or none


def wait_calibrated(cache_dir: Path, proc: subprocess.Popen, log_tail, deadline: float) -> None:
    """Wait until the server ``proc`` has stored its cheap-run calibration in ``cache_dir`` (app.warm --serve measures
    it in the background, or finds the one :func:`reuse_calibration` copied; until then every run goes to a
    background job). Nothing to wait for while the kernels are not compiled; fails the test on the server's exit or
    at ``deadline`` (time.monotonic), with ``log_tail()``."""
    import solvers

    while solvers.api.kernels_ready() and not any(cache_dir.glob("calibration-*.json")):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"no cheap-run calibration within {SERVER_START_TIMEOUT} s:\n{log_tail()}", pytrace=False)
        time.sleep(0.2)


def _on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _unavailable(reason: str):
    message = f"browser tests need {reason}; `make test` installs it (Debian chromium, as root)"
    if _on_ci():
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


class ServerURL(str):
    """The base URL of a test server (a plain string to the tests), with the pid of its gunicorn master."""

    pid: int


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout
    return [int(p) for p in out.split()]


def _state(pid: int) -> str:
    """The process state letter from /proc (R, S, T, Z, ...); "X" when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "X"
    return stat.rsplit(")", 1)[1].split()[0]


def job_processes(master: int) -> list[int]:
    """Live (not zombie) children of the gunicorn workers of the master ``master``: the background jobs
    (DiskcacheManager forks them)."""
    return [pid for worker in _children(master) for pid in _children(worker) if _state(pid) not in "ZX"]


@contextlib.contextmanager
def frozen_jobs(master: int, besides: Collection[int] = ()):
    """Stop (SIGSTOP) the server's running background jobs and their children for the block, so that a test can act
    on a running job (disabled buttons, Cancel) without racing a fast one to its end; continued afterwards if still
    alive. Safe for the job store: a cancel kills the stopped process (SIGKILL), and the store's SQLite runs in WAL
    mode, so readers never wait for a stopped writer. ``besides``: jobs left running, such as those an earlier test
    on the shared server left behind (taken for the test's own job, they let that one end before its Cancel)."""
    stopped = []
    for job in (pid for pid in job_processes(master) if pid not in besides):
        for pid in [job, *_children(job)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
                stopped.append(pid)
    try:
        yield stopped
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def stop_gunicorn(proc: subprocess.Popen, graceful_s: float = 60.0) -> None:
    """SIGTERM to the server's process group, then wait: gunicorn gives its workers graceful_timeout (30 s) to
    finish, so waiting exactly that long races it. A server still up after ``graceful_s`` is killed and the
    test fails: a stop that hangs is a bug (docker stop kills after 10 s)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(graceful_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        raise AssertionError(f"gunicorn did not stop within {graceful_s:.0f} s of SIGTERM") from None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """Base URL of the dashboard served by gunicorn (2 workers, --preload) in a subprocess."""
    yield from _serve(tmp_path_factory.mktemp("live_server"), {})


@pytest.fixture(scope="session")
def capped_server(tmp_path_factory):
    """The dashboard with a per-server cap of ONE job and a 1 s queue (app.limits), for the caps' browser test."""
    yield from _serve(tmp_path_factory.mktemp("capped_server"),
                      {"INTEGRATOR_LAB_MAX_SERVER_JOBS": "1", "INTEGRATOR_LAB_QUEUE_SECONDS": "1"})


def _serve(tmp, extra_env: dict[str, str]):
    port = _free_port()
    reuse_calibration(tmp / "cache")
    env = {**os.environ, "INTEGRATOR_LAB_CACHE_DIR": str(tmp / "cache"), **extra_env}
    env.pop("INTEGRATOR_LAB_SECRET_KEY", None)  # exercise the generated, shared key
    log_path = tmp / "gunicorn.log"
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "app/gunicorn_conf.py",
        "--bind",
        f"127.0.0.1:{port}",
        "app:server",
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/"

    def log_tail() -> str:
        return log_path.read_text(errors="replace")[-4000:]

    deadline = time.monotonic() + SERVER_START_TIMEOUT
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"gunicorn exited with {proc.returncode}:\n{log_tail()}", pytrace=False)
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200 and b"_dash-config" in response.read():  # not the start page
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"gunicorn did not answer on {url} within {SERVER_START_TIMEOUT} s:\n{log_tail()}",
                    pytrace=False,
                )
            time.sleep(0.2)
        # then the cheap-run calibration (app.warm --serve, in the background): runs are answered in the request
        # from then on, as on a server that has been up for a while
        wait_calibrated(tmp / "cache", proc, log_tail, deadline)
        keep_calibration(tmp / "cache")
        served = ServerURL(url)
        served.pid = proc.pid
        yield served
    finally:
        # SIGINT: gunicorn's quick shutdown (no waiting for keep-alive connections). Then end whatever is
        # left in the server's own session (background jobs forked by the workers).
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def playwright():
    """Playwright's driver, shared by ``browser`` and ``profile`` (one sync driver per process)."""
    if not os.path.exists(CHROMIUM):
        _unavailable(f"Chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Playwright Python package (pip install -e '.[test]')")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright):
    """Chromium for fresh contexts: each ``browser.new_context()`` is another browser, off the record (no disk
    cache, nothing shared)."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def profile(playwright, tmp_path_factory):
    """A returning user's Chromium: one persistent profile (disk cache, V8's code cache) for the worker's pages.
    An off-the-record context evaluates plotly.js and Dash's bundles without a disk or code cache at every page
    load: 5.6-6.4 s of the machine's CPU for the Run page, against 2.3-2.6 s once the profile holds them
    (scripts/page_load_cpu.py, docs/performance.md), which is most of a browser test's time.
    Each ``page`` starts without cookies, so each test is a new session to the server."""
    context = launch_profile(playwright, tmp_path_factory.mktemp("chromium-profile"))
    yield context
    context.close()


def launch_profile(playwright, directory: Path, **options):
    """Chromium on a persistent profile in ``directory``, with ``options`` of its context (a phone's emulation)."""
    return playwright.chromium.launch_persistent_context(directory, executable_path=CHROMIUM, headless=True,
                                                         args=CHROMIUM_FLAGS, **options)


@contextlib.contextmanager
def profile_page(profile, width: int = 1280, height: int = 900, init_script: str | None = None):
    """A new page of ``profile`` at width x height CSS px, as a new session (no cookies before or after it);
    ``init_script`` runs in every document the page opens."""
    profile.clear_cookies()
    page = profile.new_page()
    try:
        page.set_viewport_size({"width": width, "height": height})
        page.set_default_timeout(30_000)
        if init_script:
            page.add_init_script(init_script)
        yield page
    finally:
        page.close()
        profile.clear_cookies()


@pytest.fixture
def page(profile):
    """A new page (1280 x 900) in a new session; on teardown, no Content-Security-Policy violation may have been
    reported (app.security: Chromium logs each one to the console, "Refused to ... Content Security Policy ...")."""
    with profile_page(profile) as page:
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        yield page
    assert not violations, f"Content-Security-Policy violations: {violations[:3]}"


def pytest_terminal_summary(terminalreporter):
    """Print the timings the browser tests recorded (``record_property("timing", ...)``)."""
    lines = [
        f"{report.nodeid}: {value}"
        for report in terminalreporter.stats.get("passed", [])
        for key, value in report.user_properties
        if key == "timing"
    ]
    if lines:
        terminalreporter.section("browser timings")
        for line in lines:
            terminalreporter.write_line(line)
