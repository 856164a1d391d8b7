"""``python -m solvers.bench --references``: per benchmark, the reference's cost over its default run (rk4 at the
default step and end time, the default saved samples) and its estimated accuracy and horizon
(:mod:`solvers.references`). The time is the CPU time of ``references.error(result)`` from an empty reference
cache: both DOP853 runs (rtol 1e-13 and the 100 times looser estimate), the drawn points and the error."""

from __future__ import annotations

import os
import platform
import time

from .. import api, references
from ..registry import BENCHMARKS


def reference_costs(repeat: int = 3) -> list[dict]:
    """One row per benchmark with a reference: its default run's reference CPU time (best of ``repeat``)."""
    rows = []
    for bid, spec in BENCHMARKS.items():
        if bid not in references.SOLUTIONS:
            continue
        res = api.simulate(bid, "rk4", h=spec.default_h, t_end=spec.default_t_end)
        best = float("inf")
        for _ in range(repeat):
            references._cached.cache_clear()
            started = time.process_time()
            err = references.error(res)
            best = min(best, time.process_time() - started)
        ref = references.reference(res.benchmark, res.t, res.params)
        rows.append({"benchmark": bid, "t_end": spec.default_t_end, "samples": len(res.t), "cpu_s": best,
                     "exact": ref.exact, "accuracy": ref.accuracy, "unit": ref.unit, "horizon": ref.horizon,
                     "rk4_max_error": float(err.max())})
    return rows


def format_costs(rows: list[dict], repeat: int) -> str:
    lines = [f"# python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; best of {repeat}",
             f"{'benchmark':26s} {'t_end':>6s} {'samples':>7s} {'reference CPU [s]':>17s} "
             f"{'estimated accuracy':>18s} {'horizon':>9s}"]
    for r in rows:
        acc = "exact" if r["exact"] else f"{r['accuracy']:.1e} {r['unit']}"
        hor = "-" if r["horizon"] is None else f"{r['horizon']:.1f} s"
        lines.append(f"{r['benchmark']:26s} {r['t_end']:6g} {r['samples']:7d} {r['cpu_s']:17.3f} {acc:>18s} "
                     f"{hor:>9s}")
    return "\n".join(lines)


def cli(repeat: int) -> int:
    api.simulate("planar_pendulum", "rk4", h=0.01, t_end=0.02)  # load kernels before timing
    references.reference("pendulum_3d", [0.0, 0.1])  # and the reference's
    print(format_costs(reference_costs(repeat), repeat))
    return 0
