"""Final states and Newton iterations of every implicit method's default runs, as JSON (docs/performance.md).

    .venv/bin/python scripts/newton_snapshot.py before.json   # on one version of the code
    .venv/bin/python scripts/newton_snapshot.py after.json    # on another; compare the two files

Each run: the benchmark's default step, 10 s or the default end time if shorter.
"""

from __future__ import annotations

import json
import sys

import numpy as np

import solvers

IMPLICIT = ("rattlie", "lgvi", "lgvi_lagrangian", "lie_galpha", "spark", "hermite_h23g2", "hermite_h33g2",
            "midpoint_angle", "midpoint_reduced", "midpoint_rotation", "midpoint_cardan")


def snapshot() -> dict[str, dict]:
    out = {}
    for b in solvers.benchmarks():
        d = solvers.describe(b)
        for m in IMPLICIT:
            if m not in solvers.methods(b):
                continue
            r = solvers.simulate(b, m, h=d["default_h"], t_end=min(10.0, d["default_t_end"]), max_samples=2)
            y = np.concatenate([np.ravel(v[-1]) for v in r.state.values()]) if r.steps else np.zeros(0)
            out[f"{b}/{m}"] = {"status": r.status, "y": y.tolist(), "newton": r.newton_iterations,
                               "cpu": r.cpu_time, "stalled": r.summary.get("stalled_steps", 0)}
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/newton_snapshot.py OUT.json")
    with open(sys.argv[1], "w") as fh:
        json.dump(snapshot(), fh)
