"""Load test: N concurrent browser sessions against a dashboard served on loopback, each running one job.

    python scripts/load_test.py --sessions 30                 # starts gunicorn itself on a free port
    python scripts/load_test.py --url http://127.0.0.1:8050 --sessions 10

Each session is a fresh Playwright context in Debian's chromium: it opens the run page (the default
configuration, or ``--query`` appended to the URL); once every page is loaded all sessions click Run at the
same moment, and each waits until the status line says done (``#run-status .status-done``) and the summary table
shows the run, or reports an error. ``served`` is the time from the click until the response carrying the table
and the status arrives (the server's part); the total adds the browser's drawing of the charts.
The browsers run at niceness ``--browser-nice`` (after the server started here), so that on a small machine
they do not starve the server they are measuring. Bounded: every session has ``--timeout`` seconds, the whole
test ``--budget`` seconds, and only loopback URLs are accepted. Prints completions, failures and latency
percentiles (click to result) as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Debian's headless-only build where it is installed (what `make test` installs; a quarter less CPU per page load),
# else the full browser; the browser tests use the same (tests/conftest.py)
CHROMIUM = os.environ.get("INTEGRATOR_LAB_CHROMIUM") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(path)),
    "/usr/bin/chromium-headless-shell")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
# the page is done when the status line says so (app.layout.status: status-done, -error or -cancelled) and, for
# a finished run, the summary table has a row for it
DONE_JS = """() => {
  const s = document.querySelector(
    '#run-status .status-done, #run-status .status-error, #run-status .status-cancelled');
  if (!s) return false;
  return !s.classList.contains('status-done')
    || document.querySelectorAll('#run-summary-table td.run-status').length > 0;
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _loopback(url: str) -> bool:
    host = urllib.parse.urlparse(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


@contextlib.contextmanager
def _server(workers: int | None, prefix: str = "integrator-lab-load-"):
    """gunicorn (app/gunicorn_conf.py, its own cache directory) on a free loopback port: yields (url, pid)."""
    port = _free_port()
    cache = tempfile.mkdtemp(prefix=prefix)
    env = {**os.environ, "INTEGRATOR_LAB_CACHE_DIR": cache}
    if workers:
        env["INTEGRATOR_LAB_WORKERS"] = str(workers)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "app/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}", "app:server"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url + "/healthz", timeout=2)
                break
            if proc.poll() is not None:
                raise RuntimeError("gunicorn exited during start-up")
            time.sleep(0.5)
        else:
            raise RuntimeError("gunicorn did not start within 240 s")
        # a server that has been up for a while: its cheap-run calibration stored (app.warm --serve computes it
        # in the background; until then every run goes to a background job)
        while not any(Path(cache).glob("calibration-*.json")):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("gunicorn stored no cheap-run calibration within 240 s")
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # e.g. a worker waiting for a hung job: end the whole session
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait()
        shutil.rmtree(cache, ignore_errors=True)  # its results and calibration served only this run


class _Gate:
    """Lets every session click Run at the same moment, once all pages are loaded (or failed to load)."""

    def __init__(self, count: int) -> None:
        self.left, self.open = count, asyncio.Event()

    def arrive(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.open.set()


async def _session(browser, url: str, timeout: float, index: int, gate: _Gate) -> dict:
    context = await browser.new_context()
    page = await context.new_page()
    out: dict = {"session": index}
    try:
        try:
            await page.goto(url, timeout=timeout * 1000)
            await page.wait_for_selector("#run-start:not([disabled])", timeout=timeout * 1000)
        finally:
            gate.arrive()
        await asyncio.wait_for(gate.open.wait(), timeout)
        answered: list[float] = []

        def on_response(response) -> None:  # show_results' answer: the server's part is done
            if "_dash-update-component" in response.url and "summary-table" in (response.request.post_data or ""):
                answered.append(time.monotonic())

        page.on("response", on_response)
        t0 = time.monotonic()
        await page.click("#run-start")
        await page.wait_for_function(DONE_JS, timeout=timeout * 1000, polling=100)
        out["seconds"] = time.monotonic() - t0
        if answered:
            out["served"] = answered[-1] - t0
        status = await page.text_content("#run-status") or ""
        out["ok"] = await page.locator("#run-status .status-done").count() == 1
        out["status"] = status.strip()[:200]
    except Exception as exc:  # a lost result: time-out or page error, reported, not raised
        out["ok"] = False
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        await context.close()
    return out


async def _run(url: str, sessions: int, timeout: float, budget: float, browsers: int = 1) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = [await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
                    for _ in range(max(1, min(browsers, sessions)))]
        try:
            gate = _Gate(sessions)
            tasks = [asyncio.create_task(_session(launched[i % len(launched)], url, timeout, i, gate))
                     for i in range(sessions)]
            done, pending = await asyncio.wait(tasks, timeout=budget)
            for task in pending:
                task.cancel()
            results = [t.result() for t in done]
            results += [{"ok": False, "error": "over the test's time budget"} for _ in pending]
        finally:
            for browser in launched:
                await browser.close()
    return results


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q / 100 * (len(values) - 1))))]


def summarise(results: list[dict]) -> dict:
    times = [r["seconds"] for r in results if r.get("ok")]
    served = [r["served"] for r in results if r.get("ok") and "served" in r]
    return {
        "sessions": len(results),
        "completed": len(times),
        "failed": len(results) - len(times),
        "p50_s": _percentile(times, 50),
        "p95_s": _percentile(times, 95),
        "max_s": max(times) if times else None,
        "mean_s": statistics.fmean(times) if times else None,
        # click to the arrival of the response that carries the table and the status (before the browser draws)
        "served_p50_s": _percentile(served, 50),
        "served_p95_s": _percentile(served, 95),
        "errors": sorted({r.get("error") or r.get("status", "") for r in results if not r.get("ok")})[:10],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running dashboard on loopback (default: start gunicorn here)")
    p.add_argument("--sessions", type=int, default=30)
    p.add_argument("--query", default="", help="URL query of the run page (default: the page's default run)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per session")
    p.add_argument("--budget", type=float, default=300.0, help="seconds for the whole test")
    p.add_argument("--workers", type=int, help="gunicorn workers when the script starts the server "
                   "(default: app/gunicorn_conf.py's)")
    p.add_argument("--browser-nice", type=int, default=10,
                   help="niceness of the browsers (default 10): real users' browsers do not take the server's CPU; "
                   "0 to let them compete on equal terms")
    p.add_argument("--browsers", type=int, default=1,
                   help="chromium instances the sessions are spread over (each has one GPU/compositor process)")
    args = p.parse_args(argv)
    if not 1 <= args.sessions <= 100:
        p.error("--sessions must be between 1 and 100")
    if args.url and not _loopback(args.url):
        p.error("only loopback URLs (127.0.0.0/8, localhost, ::1) may be load-tested")
    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(_server(args.workers))[0]
        if args.browser_nice:  # from here on, started processes (Playwright's driver, chromium) run at lower priority
            os.nice(args.browser_nice)
        results = asyncio.run(_run(url + (("?" + args.query) if args.query else ""), args.sessions,
                                   args.timeout, args.budget, args.browsers))
    report = summarise(results)
    print(json.dumps(report, indent=1))
    return 0 if report["failed"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
