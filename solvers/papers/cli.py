"""python -m solvers.papers list | run ID"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .registry import EXPERIMENTS
from .runner import run_experiment

# ---------------------------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------------------------


def format_claims(data: Mapping[str, Any]) -> str:
    """The claims table as text (one block per claim)."""
    mark = {"reproduced": "YES", "not reproduced": "NO", "not measured": "--", "not applicable": "n/a"}
    lines = []
    for c in data["claims"]:
        lines.append(f"[{mark[c['status']]:>3s}] {c['id']}: {c['claim']}")
        lines.append(f"      paper:     {c['paper']}")
        lines.append(f"      criterion: {c['criterion']}")
        lines.append(f"      measured:  {c['measured']}")
    return "\n".join(lines)


def format_runs(data: Mapping[str, Any]) -> str:
    """The runs table as text."""
    head = (f"{'label':10s} {'method':16s} {'h':>7s} {'t_end':>6s} {'status':8s} {'cpu s':>7s} "
            f"{'max|E-E0|':>10s} {'max orth':>9s} {'max|Gv|':>9s} {'max|Phi|':>9s}")
    lines = [head]
    for r in data["runs"]:
        s = r["summary"]

        def g(key: str, s: Mapping[str, Any] = s) -> str:
            v = s.get(key)
            return f"{v:.2e}" if isinstance(v, (int, float)) else "nan"

        lines.append(f"{r['label']:10s} {r['method']:16s} {r['h']:7.0e} {r['t_end']:6.3g} {r['status']:8s} "
                     f"{s.get('cpu_time', float('nan')):7.3f} {g('max_energy_error'):>10s} "
                     f"{g('max_orthogonality_error'):>9s} {g('max_constraint_velocity'):>9s} "
                     f"{g('max_constraint_position'):>9s}")
    for note in data["skipped"]:
        lines.append(f"skipped {note}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``list`` or ``run ID``; exit status 0 ok, 2 bad input."""
    p = argparse.ArgumentParser(prog="python -m solvers.papers", description="Seed papers' experiments")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the experiments")
    pr = sub.add_parser("run", help="run an experiment and print its claims table")
    pr.add_argument("experiment")
    pr.add_argument("--out", help="write the full data (runs, series, claims) as JSON")
    pr.add_argument("--t-end", type=float, default=None, help="shorten every run to this end time (s)")
    pr.add_argument("--max-samples", type=int, default=2000, help="saved samples per run (default 2000)")
    args = p.parse_args(argv)
    if args.cmd == "list":
        for e in EXPERIMENTS.values():
            print(f"{e.id:10s} seed {e.seed} section {e.section}: {e.title}")
            print(f"{'':10s} runs: " + ", ".join(f"{r.label} = {r.method} (h = {r.h:g}, {r.t_end:g} s)"
                                                   for r in e.runs))
        return 0
    last = [-1.0]

    def report(frac: float) -> None:
        if frac - last[0] >= 0.1 or frac >= 1.0:
            last[0] = frac
            print(f"  {100 * frac:5.1f} %", file=sys.stderr, flush=True)

    try:
        data = run_experiment(args.experiment, max_samples=args.max_samples, progress=report, t_end=args.t_end)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(data, fh)
    print(f"# {data['id']}: {data['title']}")
    print(format_runs(data))
    print()
    print(format_claims(data))
    return 0





