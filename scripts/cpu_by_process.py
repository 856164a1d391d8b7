"""Where a command's CPU time goes, by kind of process: Chromium's renderers and GPU process, the test workers, the
test servers and their jobs, the kernels' compile, and the rest. For `make test`, whose floor on a 2-core machine is
its CPU work, not its waits (docs/performance.md, "make test: where its time goes").

    .venv/bin/python scripts/cpu_by_process.py -- .venv/bin/python -m pytest -q -n 2 --dist loadgroup
    .venv/bin/python scripts/cpu_by_process.py --markdown -- make test

Every process's CPU time is read from /proc every ``--interval`` seconds while the command runs; a process is counted
from its last reading, so one that lives shorter than the interval is missed (a small share: the kinds here live for
seconds to minutes). Processes that were running before the command are counted from their first reading. A
process is classified by its command line when first seen (one read between a fork and its exec keeps its
parent's kind). The machine's busy and idle CPU over the run come from /proc/stat. Linux only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")
# (kind, pattern in the command line), first match wins
KINDS = [
    ("chromium renderer", r"chrom.*--type=renderer"),
    ("chromium GPU process", r"chrom.*--type=gpu-process"),
    ("chromium, other", r"chrom"),
    ("Playwright driver", r"playwright|\bnode\b"),
    ("kernel compile (solvers warmup, its processes)", r"solvers warmup|spawn_main"),
    ("test servers and their jobs (gunicorn)", r"gunicorn"),
    ("Celery worker", r"celery"),
    ("redis-server", r"redis-server"),
    ("test workers (pytest-xdist)", r"exec\(eval\(sys\.stdin"),
    ("pytest", r"pytest"),
    ("scripts/ (load and soak tests)", r"scripts/"),
    ("pip", r"-m pip\b"),
    ("other Python (CLI runs, app.warm)", r"python"),
]


def kind(cmdline: str) -> str:
    for name, pattern in KINDS:
        if re.search(pattern, cmdline):
            return name
    return "other"


def _cpu_ticks(pid: str) -> tuple[int, int] | None:
    """(utime + stime, start time) of a process, in clock ticks; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12]), int(fields[19])


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _machine() -> tuple[int, int]:
    """(idle, total) CPU ticks of the machine since boot."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return values[3] + values[4], sum(values)


class Sampler:
    """Reads every process's CPU time until stopped; ``totals()`` sums them by kind, in CPU seconds."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.seen: dict[tuple[str, int], list] = {}  # (pid, start) -> [kind, first ticks, last ticks]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _read(self, first: bool) -> None:
        me = str(os.getpid())
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid == me:
                continue
            got = _cpu_ticks(pid)
            if got is None:
                continue
            ticks, start = got
            entry = self.seen.get((pid, start))
            if entry is None:  # a process of the command counts from zero, one already running from now
                entry = self.seen[(pid, start)] = [kind(_cmdline(pid)), ticks if first else 0, ticks]
            entry[2] = ticks

    def _run(self) -> None:
        self._read(first=True)
        while not self.stop.wait(self.interval):
            self._read(first=False)
        self._read(first=False)

    def totals(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, first, last in self.seen.values():
            out[name] = out.get(name, 0.0) + (last - first) / TICK
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--interval", type=float, default=0.5, help="seconds between readings of /proc")
    p.add_argument("--markdown", action="store_true", help="a Markdown table instead of JSON")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("give the command to measure after --")
    sampler = Sampler(args.interval)
    idle0, total0 = _machine()
    t0 = time.monotonic()
    sampler.thread.start()
    rc = subprocess.call(command)
    sampler.stop.set()
    sampler.thread.join()
    wall = time.monotonic() - t0
    idle1, total1 = _machine()
    idle = (idle1 - idle0) / TICK
    busy = (total1 - total0) / TICK - idle
    by_kind = {k: round(v, 1) for k, v in sampler.totals().items() if v >= 0.05}
    report = {"command": " ".join(command), "returncode": rc, "wall_s": round(wall, 1), "cpus": os.cpu_count(),
              "machine_busy_cpu_s": round(busy, 1), "machine_idle_cpu_s": round(idle, 1),
              "by_kind_cpu_s": by_kind}
    if args.markdown:
        print(f"`{report['command']}`: {wall:.0f} s wall, {busy:.0f} s CPU busy, "
              f"{idle:.0f} s idle on {os.cpu_count()} CPUs (exit {rc})\n")
        print("| process kind | CPU s | share of busy |\n|---|---:|---:|")
        for name, secs in by_kind.items():
            print(f"| {name} | {secs:.1f} | {100 * secs / busy:.0f} % |" if busy else f"| {name} | {secs:.1f} | - |")
    else:
        print(json.dumps(report, indent=1))
    return rc


if __name__ == "__main__":
    sys.exit(main())
