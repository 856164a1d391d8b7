"""Benchmark script: steps per second for every (benchmark, method) pair and kernel compile/load times.

    python -m solvers.bench            # all pairs, compile times measured in fresh processes
    python -m solvers.bench --no-compile --repeat 5
    python -m solvers.bench --no-compile --methods 'rattlie*,rk4' --benchmarks spatial_double_pendulum
    python -m solvers.bench --baselines   # also: compiled vs NumPy RATTLie vs SciPy DOP853 (solvers.bench.baselines)
    python -m solvers.bench --scaling     # us/step against N on the N-rod chain, with MuJoCo (solvers.bench.scaling)
    python -m solvers.bench --markdown    # the same, as the Markdown tables pasted in docs/performance.md
    python -m solvers.bench --compile-only --markdown   # only the compile/load times
    python -m solvers.bench --compile-only --per-kernel   # and each kernel compiled alone

Solver time is the CPU time of the compiled kernels only (Result.cpu_time); each figure is the best of
``--repeat`` runs of ``--steps`` steps, fewer (not under 1,000) where a run would take longer than ``--run-seconds``
(SciPy's Python-level steppers, order-8 compositions): the table gives each pair's step count. Compile time is
`python -m solvers warmup --jobs 2` (what ``make test`` runs) in a new process with an empty numba cache directory
("cold"), and load time in a second new process that reuses that cache ("cached"); ``--per-kernel`` adds each
kernel compiled alone.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any

from .. import api
from ..registry import BENCHMARKS, METHODS, applies
from .measured_on import machine

_KERNEL = (
    "import sys, time; sys.path.insert(0, '.'); import solvers.api as a; t = time.perf_counter(); "
    "a._warm_task(({method!r}, {benchmark!r})); "
    "print(time.perf_counter() - t)"
)
# the last line a timed child prints: its own peak resident memory. Linux's VmHWM belongs to the process's memory
# map, which exec replaces; getrusage's and wait4's ru_maxrss keep the forking parent's size at the fork (a bench
# or pytest process of several hundred MB) as a floor
_PEAK = "; print(next(ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')))"


def _child(argv: list[str], cache: str, cwd: str | None = None) -> dict[str, float]:
    """Run ``argv`` (a Python ``-c`` command) in a new process (in ``cwd``) with NUMBA_CACHE_DIR=cache: its wall
    time, CPU time (user + system, with the processes it waited for; os.wait4) and peak resident memory (the
    process's own VmHWM, which it prints last: ``_PEAK`` is appended to the command)."""
    argv = [*argv[:-1], argv[-1] + _PEAK]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, env=dict(os.environ, NUMBA_CACHE_DIR=cache), stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv)} failed: {err.read().decode()[-2000:]}")
        out.seek(0)
        peak_kb = float(out.read().decode().split()[-1])
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": peak_kb / 1024}


def kernel_compile(method: str, benchmark: str, cwd: str | None = None) -> dict[str, float]:
    """One kernel's cold compile (``api.warm_tasks``' pair, or ``method == "references"``) in a new process, in
    ``cwd`` (a checkout; this one by default), with an empty numba cache: :func:`_child`'s figures."""
    with tempfile.TemporaryDirectory() as cache:
        return _child([sys.executable, "-c", _KERNEL.format(method=method, benchmark=benchmark)], cache, cwd=cwd)


def compile_times(per_kernel: bool = False, methods: list[str] | None = None) -> dict[str, Any]:
    """What `make test` compiles: `python -m solvers warmup --jobs 2` in a new process with an empty numba cache
    ("cold": a fresh clone), then again on the filled cache ("cached": every later start). With ``per_kernel``,
    also each distinct kernel (`api.warm_tasks`, and the references' DOP853) compiled alone, in its own process
    with its own empty cache, one after another: what each kernel costs, and what a server compiles on the first
    run of a method when nothing is cached. ``methods`` (ids) keeps only their kernels and skips the warm-up."""
    out: dict[str, Any] = {}
    # what `python -m solvers warmup --jobs 2` runs (solvers.cli)
    warm = [sys.executable, "-c", "import solvers.api as a; a.warmup(False, jobs=2)"]
    if methods is None:
        with tempfile.TemporaryDirectory() as cache:
            for label in ("cold", "cached"):
                run = _child(warm, cache)
                out[f"{label}_warmup_s"] = run["wall_s"]
                out[f"{label}_cpu_s"] = run["cpu_s"]
    if per_kernel:
        kernels = []
        tasks = [*api.warm_tasks(), ("references", "")]
        for method, benchmark in [t for t in tasks if methods is None or t[0] in methods]:
            kernels.append({"method": method, "benchmark": benchmark, **kernel_compile(method, benchmark)})
        out["kernels"] = kernels
    return out


MIN_STEPS = 1_000  # the fewest steps a pair's runs are cut to by run_seconds


def pair_speed(benchmark: str, method: str, steps: int, repeat: int,
               run_seconds: float | None = None) -> dict[str, float | str]:
    """Best solver CPU time over ``repeat`` runs of ``steps`` steps at the benchmark's default step; with
    ``run_seconds``, fewer steps (at least MIN_STEPS) where a first short run says a run would take longer."""
    h = BENCHMARKS[benchmark].default_h
    if run_seconds is not None and steps > MIN_STEPS:
        probe = api.simulate(benchmark, method, h=h, t_end=MIN_STEPS * h, max_samples=100)
        per_step = probe.cpu_time / max(probe.steps, 1)
        if per_step * steps > run_seconds:
            steps = max(MIN_STEPS, int(run_seconds / per_step))
    best = float("inf")
    res = None
    for _ in range(repeat):
        res = api.simulate(benchmark, method, h=h, t_end=steps * h, max_samples=1000)
        best = min(best, res.cpu_time)
    assert res is not None
    return {
        "benchmark": benchmark,
        "method": method,
        "h": h,
        "steps": res.steps,
        "status": res.status,
        "cpu_s": best,
        "us_per_step": 1e6 * best / max(res.steps, 1),
        "steps_per_second": res.steps / best if best > 0 else float("nan"),
        # adaptive methods: h is the output spacing; their cost per internal step
        **({"internal_steps": res.summary["internal_steps"],
            "us_per_internal_step": 1e6 * best / max(res.summary["internal_steps"], 1)}
           if "internal_steps" in res.summary else {}),
    }


SEED_RUNS = (("two_link_arm", 0.01, 100.0, ("hermite_h23g2", "hermite_h33g2", "rk4")),)  # seed 001: 10,000 steps


def seed_runs(repeat: int) -> list[dict[str, Any]]:
    """Best solver CPU time of the seed papers' own runs (seed 001's Tables 1-2 run: 100 s at h = 0.01)."""
    out = []
    for bench, h, t_end, methods in SEED_RUNS:
        for m in methods:
            if m in METHODS:
                res = [api.simulate(bench, m, h=h, t_end=t_end, max_samples=1000) for _ in range(repeat)]
                out.append({"benchmark": bench, "method": m, "h": h, "steps": res[0].steps,
                            "cpu_ms": 1e3 * min(r.cpu_time for r in res), "status": res[0].status})
    return out


def markdown(rows: list[dict], seeds: list[dict], comp: dict, steps: int, repeat: int) -> str:
    """The measured tables as Markdown, headed by :func:`machine`."""
    out = [f"Measured {machine()}.", ""]
    if rows:
        out += [f"Solver CPU time per step, best of {repeat} runs of up to {steps:,} steps at the benchmark's default "
                "step:", "", "| benchmark | method | h | steps | us/step | steps/s | status |",
                "|---|---|---:|---:|---:|---:|---|"]
        for r in rows:
            extra = (f" ({r['us_per_internal_step']:.3f} us per internal step, {r['internal_steps']:,} internal "
                     "steps)" if "internal_steps" in r else "")
            out.append(f"| {r['benchmark']} | {r['method']} | {r['h']:.0e} | {r['steps']:,} | {r['us_per_step']:.3f} "
                       f"| {r['steps_per_second']:,.0f} | {r['status']}{extra} |")
    if seeds:
        out += ["", "| seed run | method | h | steps | solver ms | status |", "|---|---|---:|---:|---:|---|"]
        out += [f"| {r['benchmark']} | {r['method']} | {r['h']:g} | {r['steps']:,} | {r['cpu_ms']:.1f} | "
                f"{r['status']} |" for r in seeds]
    if "cold_warmup_s" in comp:
        out += ["", "`python -m solvers warmup --jobs 2` in a new process (what `make test` runs first):", "",
                "| numba cache | wall s | CPU s (all its processes) |", "|---|---:|---:|",
                f"| empty (a fresh clone) | {comp['cold_warmup_s']:.1f} | {comp['cold_cpu_s']:.1f} |",
                f"| filled (every later start) | {comp['cached_warmup_s']:.2f} | {comp['cached_cpu_s']:.2f} |"]
    if comp.get("kernels"):
        out += ["", "Each distinct kernel compiled alone, in a new process with an empty cache:", "",
                "| method | benchmark (machinery) | CPU s | wall s | peak RSS MB |", "|---|---|---:|---:|---:|"]
        out += [f"| {k['method']} | {k['benchmark'] or '-'} | {k['cpu_s']:.1f} | {k['wall_s']:.1f} | "
                f"{k['max_rss_mb']:.0f} |" for k in comp["kernels"]]
        total = sum(k["cpu_s"] for k in comp["kernels"])
        out += ["", f"Sum of the kernels' CPU time: {total:.0f} s."]
    return "\n".join(out)


def _chosen(ids, patterns: str | None) -> list[str]:
    """The ids matching any of the comma-separated patterns (all of them without patterns); an unknown name exits."""
    if not patterns:
        return list(ids)
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    unmatched = [p for p in pats if not fnmatch.filter(ids, p)]
    if unmatched:
        raise SystemExit(f"no such id: {', '.join(unmatched)} (known: {', '.join(ids)})")
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in pats)]


def main(argv: list[str] | None = None) -> int:
    """Print the table (or JSON with --json)."""
    p = argparse.ArgumentParser(prog="python -m solvers.bench", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=None, help="steps per run (default 50,000; --scaling: 2,000)")
    p.add_argument("--repeat", type=int, default=3, help="runs per pair, best kept (default 3)")
    p.add_argument("--run-seconds", type=float, default=0.5,
                   help="fewer steps (not under 1,000) where a pair's run would take longer than this (default 0.5)")
    p.add_argument("--methods", help="only these methods: ids or patterns, comma-separated ('rattlie*,rk4')")
    p.add_argument("--benchmarks", help="only these benchmarks: ids or patterns, comma-separated")
    p.add_argument("--no-compile", action="store_true", help="skip the compile/load timing")
    p.add_argument("--compile-only", action="store_true", help="only the compile/load timing")
    p.add_argument("--per-kernel", action="store_true",
                   help="with the compile timing: also each distinct kernel compiled alone (about 15 CPU minutes)")
    p.add_argument("--markdown", action="store_true",
                   help="print Markdown tables headed by the date, machine and load (docs/performance.md)")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="print JSON instead of a table; with FILE, write it there and print the table")
    p.add_argument("--baselines", action="store_true",
                   help="also compare the compiled seed-000 kernels with the NumPy RATTLie and SciPy DOP853 on the "
                        "seed run (50 s, h = 1e-3; medians of --repeat runs)")
    p.add_argument("--numpy-steps", type=int, default=300, help="steps of the NumPy RATTLie (default 300)")
    p.add_argument("--scaling", action="store_true",
                   help="instead: us/step and energy error against N on the N-rod chain, our methods and MuJoCo's "
                        "(if installed: pip install 'integrator-lab[mujoco]')")
    p.add_argument("--sizes", help="--scaling: the numbers of rods, comma-separated (default 2,4,8,16,32,64)")
    p.add_argument("--budget", type=float, default=5.0,
                   help="--scaling: no further repeat of a pair once its runs took this many seconds (default 5)")
    p.add_argument("--plot", metavar="FILE", help="--scaling: log-log us/step against N (.svg, or with matplotlib "
                   "any format it writes)")
    p.add_argument("--references", action="store_true",
                   help="instead: per benchmark, the reference's CPU time over the default run, its estimated "
                        "accuracy and horizon (solvers.references)")
    args = p.parse_args(argv)
    if args.references:
        from . import references

        return references.cli(args.repeat)
    if args.scaling:
        from . import scaling

        return scaling.cli(args)

    steps = args.steps or 50_000
    rows: list[dict] = []
    seeds: list[dict] = []
    if not args.compile_only:
        api.simulate("planar_pendulum", "rk4", h=0.01, t_end=0.02)  # load kernels before timing
        methods, benchmarks = _chosen(METHODS, args.methods), _chosen(BENCHMARKS, args.benchmarks)
        rows = [pair_speed(b, m, steps, args.repeat, args.run_seconds)
                for m in methods for b in benchmarks if applies(m, b)]
        seeds = [] if args.methods or args.benchmarks else seed_runs(args.repeat)
    kernel_methods = _chosen([*METHODS, "references"], args.methods) if args.methods else None
    comp = {} if args.no_compile else compile_times(args.per_kernel, kernel_methods)
    base = None
    if args.baselines:
        from ..result import _plain
        from . import baselines

        base = baselines.speed_comparison(repeat=args.repeat, numpy_steps=args.numpy_steps)
    if args.json:
        out = {"pairs": rows, "seed_runs": seeds, "compile": comp}
        if base is not None:
            out["baselines"] = _plain(base)
        if args.json == "-":
            print(json.dumps(out, indent=1))
            return 0
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    if args.markdown:
        print(markdown(rows, seeds, comp, steps, args.repeat))
        return 0
    print(f"# python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
          f"up to {steps} steps per run (--run-seconds {args.run_seconds:g}), best of {args.repeat}")
    print(f"{'benchmark':26s} {'method':20s} {'h':>8s} {'steps':>7s} {'us/step':>9s} {'steps/s':>12s} status")
    for r in rows:
        print(f"{r['benchmark']:26s} {r['method']:20s} {r['h']:8.0e} {r['steps']:7d} {r['us_per_step']:9.3f} "
              f"{r['steps_per_second']:12,.0f} {r['status']}"
              + (f" ({r['us_per_internal_step']:.3f} us per internal step, {r['internal_steps']:,} internal steps)"
                 if "internal_steps" in r else ""))
    for r in seeds:
        print(f"seed run {r['benchmark']} {r['method']} h = {r['h']:g}, {r['steps']} steps: {r['cpu_ms']:.1f} ms "
              f"{r['status']}")
    if "cold_warmup_s" in comp:
        print(f"warmup --jobs 2, cold cache: {comp['cold_warmup_s']:.2f} s ({comp['cold_cpu_s']:.1f} CPU s)")
        print(f"warmup --jobs 2, cached:     {comp['cached_warmup_s']:.2f} s ({comp['cached_cpu_s']:.1f} CPU s)")
    for k in comp.get("kernels", []):
        print(f"  {k['method']:20s} {k['benchmark']:26s} {k['cpu_s']:7.1f} CPU s {k['wall_s']:7.1f} s "
              f"{k['max_rss_mb']:6.0f} MB")
    if base is not None:
        from . import baselines

        print()
        print(baselines.format_comparison(base))
    return 0
