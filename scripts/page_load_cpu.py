"""CPU of one page load in Chromium: a fresh, off-the-record browser context each time (a first visit) against new
pages of one persistent profile (a returning user's browser, as the browser tests' ``page`` fixture opens them).

    .venv/bin/python scripts/page_load_cpu.py                      # starts gunicorn itself on a free port
    .venv/bin/python scripts/page_load_cpu.py --path lessons --loads 8 --markdown
    .venv/bin/python scripts/page_load_cpu.py --url http://127.0.0.1:8050

Each load opens the page, waits for its first chart (``.main-svg``), then one more second, and closes it. The CPU
is the whole machine's busy time over the load (/proc/stat): Chromium's processes, the server's callbacks and
Playwright's driver, so measure on a quiet machine. Linux only; needs Playwright and Debian's chromium
(``make test`` installs both).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time

from cpu_by_process import TICK, _machine
from load_test import CHROMIUM, FLAGS, _loopback, _server

VIEWPORT = {"width": 1280, "height": 900}


def busy_seconds() -> float:
    """The machine's busy CPU seconds since boot (every CPU's time but idle and iowait)."""
    idle, total = _machine()
    return (total - idle) / TICK


def wait_quiet(limit: float = 0.15, timeout: float = 180.0) -> None:
    """Wait until the machine is quiet (under ``limit`` busy CPUs over a second): a server just started still
    computes its warm-up (app.warm) for a while, which the loads' figures would count."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = busy_seconds()
        time.sleep(1.0)
        if busy_seconds() - before < limit:
            return
    raise RuntimeError(f"the machine stayed busy (over {limit} CPUs) for {timeout:.0f} s")


def _load(context, url: str) -> float:
    before = busy_seconds()
    context.clear_cookies()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".main-svg", state="attached", timeout=120_000)
    page.wait_for_timeout(1000)
    page.close()
    return busy_seconds() - before


def measure(url: str, loads: int) -> dict[str, list[float]]:
    """CPU seconds of each of ``loads`` loads of ``url``, for each way of opening it."""
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        fresh = []
        for _ in range(loads):
            context = browser.new_context(viewport=VIEWPORT)
            fresh.append(_load(context, url))
            context.close()
        browser.close()
        out["fresh context"] = fresh
        with tempfile.TemporaryDirectory(prefix="integrator-lab-profile-") as directory:
            profile = pw.chromium.launch_persistent_context(directory, executable_path=CHROMIUM, headless=True,
                                                            args=FLAGS, viewport=VIEWPORT)
            out["persistent profile"] = [_load(profile, url) for _ in range(loads)]
            profile.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running dashboard on loopback (default: start gunicorn here)")
    p.add_argument("--path", default="", help="the page's path and query (default: the Run page)")
    p.add_argument("--loads", type=int, default=6, help="loads of each kind (default 6)")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = p.parse_args(argv)
    if not 2 <= args.loads <= 50:
        p.error("--loads must be between 2 and 50")
    if args.url and not _loopback(args.url):
        p.error("only loopback URLs are accepted")
    with contextlib.ExitStack() as stack:
        base = args.url.rstrip("/") if args.url else stack.enter_context(_server(None))[0]
        wait_quiet()
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        results = measure(f"{base}/{args.path}", args.loads)
    if args.markdown:
        print(f"`scripts/page_load_cpu.py --path '{args.path}' --loads {args.loads}`, {started}, "
              f"{os.cpu_count()} CPUs: machine CPU s per load\n")
        print("| browser | " + " | ".join(f"load {i + 1}" for i in range(args.loads)) + " | median of loads 3- |")
        print("|---|" + "---:|" * (args.loads + 1))
    for kind, cpu in results.items():
        tail = statistics.median(cpu[2:])
        if args.markdown:
            print(f"| {kind} | " + " | ".join(f"{c:.2f}" for c in cpu) + f" | {tail:.2f} |")
        else:
            print(f"{kind}: " + " ".join(f"{c:.2f}" for c in cpu) + f"  (median of loads 3-: {tail:.2f} CPU s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
