"""Time methods of an earlier revision and of this checkout alternately, in fresh processes, and print the time per
step of each, the ratio (this / earlier) per pair and its median (docs/performance.md, "The two-rod case").

    .venv/bin/python scripts/compare_revisions.py 2ff41c3 --methods rattlie,lgvi,rk4,lie_galpha --pairs 5
    .venv/bin/python scripts/compare_revisions.py 26654f6 --compile --methods rattlie,spark --pairs 2
    .venv/bin/python scripts/compare_revisions.py 47799e0 --instructions --methods lgvi,rattlie \
        --benchmark pendulum_3d,spatial_double_pendulum,spatial_chain

The earlier revision is checked out in a temporary git worktree (removed at the end) that uses this checkout's
virtual environment. Each process times ``solvers.bench.pair_speed`` (kernel CPU time, best of --repeat runs of
--steps steps at the benchmark's default step; the seed 000 run on the default benchmark) after one untimed run
that loads or compiles its kernels. Pairs alternate (earlier, this, earlier, ...), so a drift of the machine's
speed shows in every pair alike: quote the median ratio, not single times.

``--compile`` times the cold compile instead: each distinct kernel of the methods (``api.warm_tasks``: one per
machinery) in a fresh process with an empty numba cache, its CPU time (``solvers.bench.kernel_compile``), the two
revisions alternating kernel by kernel.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = """
import json, sys
sys.path.insert(0, ".")
from solvers import api, bench
b, steps, repeat = sys.argv[1], int(sys.argv[3]), int(sys.argv[4])
out = {}
for m in sys.argv[2].split(","):
    api.simulate(b, m, h=bench.BENCHMARKS[b].default_h, t_end=10 * bench.BENCHMARKS[b].default_h)
    out[m] = bench.pair_speed(b, m, steps, repeat)["us_per_step"]
print(json.dumps(out))
"""


def _time(checkout: str, args: argparse.Namespace) -> dict[str, float]:
    """us/step per method, measured by a fresh process in ``checkout``."""
    import json

    cmd = [sys.executable, "-c", CHILD, args.benchmark, args.methods, str(args.steps), str(args.repeat)]
    done = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _compile_pairs(base: str, args: argparse.Namespace) -> int:
    """The --compile comparison: CPU seconds of each kernel's cold compile, earlier and this, alternated."""
    sys.path.insert(0, ROOT)
    from solvers import api, bench

    methods = args.methods.split(",")
    tasks = [t for t in api.warm_tasks() if t[0] in methods]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {t: [] for t in tasks}
    for k in range(args.pairs):
        for m, b in tasks:
            order = (base, ROOT) if k % 2 == 0 else (ROOT, base)
            cpu = {side: bench.kernel_compile(m, b, cwd=side)["cpu_s"] for side in order}
            times[(m, b)].append((cpu[base], cpu[ROOT]))
            print(f"pair {k + 1}: {m} on {b}: {cpu[base]:.1f} -> {cpu[ROOT]:.1f} CPU s", flush=True)
    print(f"\ncold compile CPU s, {args.pairs} alternated pairs (earlier = {args.revision})")
    for (m, b), rows in times.items():
        ratios = [a / e for e, a in rows]
        print(f"{m:16s} {b:26s} earlier {statistics.median(e for e, _ in rows):.1f} s, this "
              f"{statistics.median(a for _, a in rows):.1f}; ratio per pair " + " ".join(f"{r:.3f}" for r in ratios)
              + f"; median {statistics.median(ratios):.3f}")
    total_e = sum(statistics.median(e for e, _ in rows) for rows in times.values())
    total_a = sum(statistics.median(a for _, a in rows) for rows in times.values())
    print(f"sum of medians: earlier {total_e:.1f} s, this {total_a:.1f} s, ratio {total_a / total_e:.3f}")
    return 0


def _instruction_counts(base: str, args: argparse.Namespace, tmp: str) -> int:
    """The --instructions comparison: instructions per step, earlier and this, per (benchmark, method)."""
    import count_instructions as ci

    methods = args.methods.split(",")
    cpu, lib = ci.valgrind_cpu(), ci.helper_library(tmp)
    print(f"instructions per step under callgrind ({cpu[0]}), earlier = {args.revision}")
    for b in args.benchmark.split(","):
        before = ci.count(base, b, methods, *ci.STEPS, cpu, lib, tmp, "earlier")
        after = ci.count(ROOT, b, methods, *ci.STEPS, cpu, lib, tmp, "this")
        for m in methods:
            print(f"{b:26s} {m:16s} earlier {before[m]:9.1f}  this {after[m]:9.1f}  ratio {after[m] / before[m]:.3f}",
                  flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("revision", help="the earlier revision (a commit, tag or branch of this repository)")
    p.add_argument("--methods", default="rattlie,lgvi", help="comma-separated method ids")
    p.add_argument("--benchmark", default="spatial_double_pendulum")
    p.add_argument("--steps", type=int, default=50_000)
    p.add_argument("--repeat", type=int, default=5, help="runs per process; its best is taken")
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--compile", action="store_true", help="time each kernel's cold compile instead (CPU s)")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions per step under valgrind instead (scripts/count_instructions.py); "
                        "--benchmark may then list several")
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "earlier")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base, args.revision], check=True,
                       capture_output=True)
        try:
            if args.compile:
                return _compile_pairs(base, args)
            if args.instructions:
                return _instruction_counts(base, args, tmp)
            rows = []
            for k in range(args.pairs):
                before, after = _time(base, args), _time(ROOT, args)
                rows.append((before, after))
                print(f"pair {k + 1}: " + "  ".join(f"{m} {before[m]:.3f} -> {after[m]:.3f} us" for m in methods),
                      flush=True)
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], check=False)
    print(f"\n{args.benchmark}, {args.steps} steps, best of {args.repeat} per process, {args.pairs} alternated pairs "
          f"(earlier = {args.revision})")
    for m in methods:
        ratios = [a[m] / b[m] for b, a in rows]
        print(f"{m:12s} earlier {statistics.median(b[m] for b, _ in rows):.3f} us/step, this "
              f"{statistics.median(a[m] for _, a in rows):.3f}; ratio per pair "
              + " ".join(f"{r:.3f}" for r in ratios) + f"; median {statistics.median(ratios):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
