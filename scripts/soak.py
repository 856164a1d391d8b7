"""Soak test: N Run-page sessions clicking Run in a loop for M minutes against one server, over loopback.

    python scripts/soak.py --sessions 30 --minutes 10                   # starts gunicorn itself on a free port
    python scripts/soak.py --url http://127.0.0.1:8050 --pid 1234 --cache-dir ~/.cache/integrator-lab

Each session is scripts/http_load_test.py's Session (Dash's protocol, request for request, its own cookies): it
loads the Run page once, then clicks Run again and again until the time is up, each click with another end
time (a cache miss, as a class exploring a parameter makes), waiting for the charts before the next click, and
``--think`` seconds more (default 0: back to back).
Every ``--interval`` seconds it samples the resident memory (RSS) of the server's master, each worker and each
job process (psutil), and the size of the cache directory. It reports, as JSON: runs completed and lost, the
p50/p95/max click-to-charts latency, the samples, and the total RSS and the cache size at the end of the first
minute and at the end (``rss_growth``: their ratio minus one; the goal is within 10 %). Exit status 1 when a
run was lost.

Bounded: loopback URLs only, at most 100 sessions and 60 minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path

from http_load_test import Session, _percentile
from load_test import _loopback, _server

MAX_SESSIONS = 100
MAX_MINUTES = 60.0


def processes(master: int) -> dict[str, list[tuple[int, int]]]:
    """(pid, RSS bytes) of the server's processes by role: the gunicorn master, its workers, and everything
    below the workers (background jobs) or beside them (the warm-up)."""
    import psutil

    out: dict[str, list[tuple[int, int]]] = {"master": [], "workers": [], "jobs": []}
    with contextlib.suppress(psutil.NoSuchProcess):
        root = psutil.Process(master)
        out["master"].append((root.pid, root.memory_info().rss))
        for child in root.children():
            with contextlib.suppress(psutil.NoSuchProcess):
                role = "workers" if "gunicorn" in " ".join(child.cmdline()) else "jobs"
                out[role].append((child.pid, child.memory_info().rss))
                for below in child.children(recursive=True):
                    with contextlib.suppress(psutil.NoSuchProcess):
                        out["jobs"].append((below.pid, below.memory_info().rss))
    return out


def dir_bytes(path: Path | None) -> int | None:
    """Bytes of the files under path (None without a path)."""
    if path is None:
        return None
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _loop(url: str, deps: list[dict], index: int, stop_at: float, timeout: float, out: list,
          think: float = 0.0) -> None:
    """One session: load the page, then click Run with a new end time until stop_at, ``think`` seconds after each
    run's charts before the next click (a student reading them)."""
    try:
        session = Session(url, deps, timeout)
        session.load("/")
    except Exception as exc:  # a page that does not load: every click it would have made is lost, reported
        out.append({"session": index, "ok": False, "error": f"load: {type(exc).__name__}: {str(exc)[:200]}"})
        return
    click = 0
    while time.monotonic() < stop_at:
        # a different run per click and session (t_end in [1, 10) s in 0.01 s steps): misses, not cache hits
        t_end = 10.0 - 0.01 * ((index * 97 + click) % 900)
        ident, props = session.props.get("run-t-end", ("run-t-end", {}))
        session.props["run-t-end"] = (ident, {**props, "value": round(t_end, 2)})
        started = time.monotonic()
        try:
            result = session.run()
        except Exception as exc:  # a lost result, reported, not raised
            result = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}",
                      "seconds": time.monotonic() - started}
        ident, props = session.props.get("run-start", ("run-start", {}))
        session.props["run-start"] = (ident, {**props, "n_clicks": (props.get("n_clicks") or 0) + 1})
        out.append({"session": index, "t": started, **result})
        click += 1
        time.sleep(max(0.0, min(think, stop_at - time.monotonic())))


def soak(url: str, sessions: int, minutes: float, timeout: float, pid: int | None, cache_dir: Path | None,
         interval: float, think: float = 0.0) -> dict:
    """Run the sessions against url for the given minutes, sampling the server every interval seconds."""
    deps = json.loads(urllib.request.urlopen(url + "/_dash-dependencies", timeout=timeout).read())
    t0 = time.monotonic()
    stop_at = t0 + 60.0 * minutes
    results: list[dict] = []
    threads = [threading.Thread(target=_loop, args=(url, deps, i, stop_at, timeout, results, think), daemon=True)
               for i in range(sessions)]
    for t in threads:
        t.start()
    if pid and cache_dir is None:  # the server's own cache directory, from its environment
        with contextlib.suppress(Exception):
            import psutil

            cache_dir = Path(psutil.Process(pid).environ()["INTEGRATOR_LAB_CACHE_DIR"])
    samples = []
    while any(t.is_alive() for t in threads) and time.monotonic() < stop_at + timeout:
        procs = processes(pid) if pid else {}
        samples.append({"t": round(time.monotonic() - t0, 1),
                        "rss_mb": {role: round(sum(r for _, r in ps) / 2**20, 1) for role, ps in procs.items()},
                        "processes": {role: len(ps) for role, ps in procs.items()},
                        "cache_mb": None if cache_dir is None else round(dir_bytes(cache_dir) / 2**20, 2),
                        "runs": len(results)})
        next_at = t0 + samples[-1]["t"] + interval
        while time.monotonic() < next_at and any(t.is_alive() for t in threads):
            time.sleep(0.2)
    done = [r["seconds"] for r in results if r.get("ok")]
    lost = [r for r in results if not r.get("ok")]

    def total(s: dict) -> float:  # the server's whole RSS: master, workers and jobs
        return sum(s["rss_mb"].values())

    after_first = next((s for s in samples if s["t"] >= 60.0), samples[0] if samples else None)
    last = samples[-1] if samples else None
    report = {
        "sessions": sessions, "minutes": minutes, "runs": len(results), "completed": len(done), "lost": len(lost),
        "p50_s": _percentile(done, 50), "p95_s": _percentile(done, 95), "max_s": max(done) if done else None,
        "errors": [r.get("error") or r.get("status") for r in lost][:5],
    }
    if pid and after_first and last:
        # steady state: the mean of the samples after the first minute, not counting the job processes of the
        # moment (how many jobs run when a sample is taken is chance); growth of the master and workers
        steady = [s for s in samples if s["t"] >= after_first["t"]]
        base = [s["rss_mb"].get("master", 0) + s["rss_mb"].get("workers", 0) for s in steady]
        report.update(rss_server_mb_after_first_minute=base[0], rss_server_mb_end=base[-1],
                      rss_server_mb_max=max(base),
                      rss_growth=round(base[-1] / base[0] - 1, 3) if base[0] else None,
                      rss_total_mb_max=max(total(s) for s in samples))
    if cache_dir is not None and samples:
        report.update(cache_mb_end=samples[-1]["cache_mb"], cache_mb_max=max(s["cache_mb"] for s in samples))
    report["samples"] = samples
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running dashboard (loopback only); default: start gunicorn here")
    p.add_argument("--pid", type=int, help="with --url: the gunicorn master's pid, for the RSS samples")
    p.add_argument("--cache-dir", type=Path, help="with --url: the server's INTEGRATOR_LAB_CACHE_DIR, for its size")
    p.add_argument("--sessions", type=int, default=30)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--interval", type=float, default=5.0, help="seconds between samples (default 5)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds a run may take before it counts lost")
    p.add_argument("--workers", type=int, help="gunicorn workers of the server started here")
    p.add_argument("--think", type=float, default=0.0,
                   help="seconds each session waits after a run's charts before its next click (default 0)")
    args = p.parse_args(argv)
    if not 1 <= args.sessions <= MAX_SESSIONS:
        p.error(f"--sessions must be within 1..{MAX_SESSIONS}")
    if not 0 < args.minutes <= MAX_MINUTES:
        p.error(f"--minutes must be within (0, {MAX_MINUTES:g}]")
    if not 0 <= args.think <= 60:
        p.error("--think must be within [0, 60] seconds")
    if args.url and not _loopback(args.url):
        p.error("only loopback URLs are accepted")
    if args.url:
        report = soak(args.url.rstrip("/"), args.sessions, args.minutes, args.timeout, args.pid, args.cache_dir,
                      args.interval, args.think)
    else:
        with _server(args.workers, prefix="integrator-lab-soak-") as (url, pid):
            report = soak(url, args.sessions, args.minutes, args.timeout, pid, None, args.interval, args.think)
    print(json.dumps(report, indent=1))
    return 0 if report["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
