"""erk with the RK4 tableau against rk4: CPU time per step on every benchmark, alternating A/B in one process.

    python -m solvers.bench.tableaus                 # every benchmark, 7 rounds
    python -m solvers.bench.tableaus --rounds 11 --steps 20000 --tableau rk38

Each round runs rk4 then erk (the order alternating between rounds), same benchmark, step and steps; the ratio
erk / rk4 of kernel CPU time (Result.cpu_time) is taken per round, and the median and range over rounds are
printed: a loaded machine shifts both members of a round alike, so the ratio is steadier than either time.
"""

from __future__ import annotations

import argparse
import statistics

from .. import api
from ..registry import BENCHMARKS, applies

STEPS = {"spatial_chain": 2_000}  # per run: the chain (8 rods by default) is the slowest per step


def ratio(benchmark: str, tableau: str, steps: int, rounds: int) -> dict[str, float | str]:
    """Median and range over rounds of erk/rk4 CPU time per step, and each method's best us/step."""
    spec = BENCHMARKS[benchmark]
    h = spec.default_h
    t_end = steps * h
    runs = {"rk4": ("rk4", None), "erk": ("erk", {"tableau": tableau})}
    for method, options in runs.values():  # compile or load before timing
        api.simulate(benchmark, method, h=h, t_end=2 * h, options=options)
    ratios, best = [], {"rk4": float("inf"), "erk": float("inf")}
    for r in range(rounds):
        order = ("rk4", "erk") if r % 2 == 0 else ("erk", "rk4")
        us = {}
        for name in order:
            method, options = runs[name]
            res = api.simulate(benchmark, method, h=h, t_end=t_end, options=options, max_samples=2)
            us[name] = 1e6 * res.cpu_time / res.steps
            best[name] = min(best[name], us[name])
        ratios.append(us["erk"] / us["rk4"])
    return {"benchmark": benchmark, "rk4_us": best["rk4"], "erk_us": best["erk"],
            "median": statistics.median(ratios), "low": min(ratios), "high": max(ratios)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m solvers.bench.tableaus", description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=20_000, help="steps per run (spatial_chain: 2,000)")
    p.add_argument("--tableau", default="rk4")
    p.add_argument("--benchmark", action="append", help="only these benchmarks")
    args = p.parse_args(argv)
    print(f"| benchmark | rk4 us/step (best) | erk[{args.tableau}] us/step (best) | erk / rk4 median (range) |")
    print("|---|---|---|---|")
    for b in args.benchmark or [b for b in BENCHMARKS if applies("rk4", b)]:
        r = ratio(b, args.tableau, STEPS.get(b, args.steps), args.rounds)
        print(f"| {b} | {r['rk4_us']:.2f} | {r['erk_us']:.2f} | {r['median']:.3f} ({r['low']:.2f}-{r['high']:.2f}) |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
