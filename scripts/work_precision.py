"""Work-precision data of the implicit methods: error against a reference and solver CPU time at halving steps.

    .venv/bin/python scripts/work_precision.py [OUT.json]
    .venv/bin/python scripts/work_precision.py --seed000    # seed 000's run with SciPy's DOP853 beside

For each benchmark below, one convergence study (the Convergence page's, ``solvers.studies.run_study``: every
run ends at the same time, error = max over common sample times of the state difference to the reference)
with every implicit method that applies, at 4 steps h, h/2, h/4, h/8. Prints a markdown table; with OUT.json
also writes the data (to compare two versions of the code, run it in each checkout).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import solvers

if (Path(solvers.__file__).parent / "studies.py").exists():
    from solvers.studies import run_study
else:  # older checkouts kept the study in the app
    from app.convergence import run_study

STUDIES = [
    ("spatial_double_pendulum", 0.004, 1.0),
    ("planar_pendulum", 0.05, 5.0),
    ("two_link_arm", 0.02, 2.0),
    ("natural_double_pendulum", 0.02, 2.0),
]
IMPLICIT = ("rattlie", "lgvi", "lgvi_lagrangian", "lie_galpha", "spark", "hermite_h23g2", "hermite_h33g2",
            "midpoint_angle", "midpoint_reduced")


SEED000 = ("spatial_double_pendulum", 5.0)  # seed 000's mechanism and state, its first 5 s (chaotic beyond)
SEED000_STEPS = (4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4)
SEED000_TOLS = (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11)
SEED000_COMPOSED_STEPS = (1e-2, 5e-3, 2.5e-3, 1.25e-3)  # each step is 5, 9 or 17 sub-steps (solvers.composition)


def seed000() -> int:
    """Work-precision on seed 000's run: the Lie group methods, rk4, and rattlie and lgvi composed to orders 4, 6, 8
    (Newton to 1e-14, so that it does not floor their error) at halving steps, SciPy's DOP853 at tightening
    tolerances; error = max over the saved samples of the drawn points' distance to the reference (m)."""
    from solvers import references

    benchmark, t_end = SEED000
    print("| method | setting | max error [m] | CPU [s] | steps | rhs evaluations |")
    print("|---|---|---|---|---|---|")
    runs = [(m, f"h = {h:g}", {"h": h}, {}) for m in ("rattlie", "lgvi", "lie_galpha", "rk4") for h in SEED000_STEPS]
    runs += [(m, f"h = {h:g}", {"h": h}, {"newton_tol": 1e-14})
             for m in ("rattlie_c4", "rattlie_c6", "rattlie_c8", "lgvi_c4", "lgvi_c6", "lgvi_c8")
             for h in SEED000_COMPOSED_STEPS]
    runs += [("scipy_dop853", f"rtol = atol = {tol:g}", {"h": 1e-2}, {"rtol": tol, "atol": tol})
             for tol in SEED000_TOLS]
    for method, setting, step, options in runs:
        every = max(1, round(1e-2 / step["h"]))  # compare at the same times, every 0.01 s
        res = solvers.simulate(benchmark, method, t_end=t_end, options=options, save_every=every, **step)
        err = references.error(res).max()
        nfev = res.summary.get("rhs_evaluations", "-")
        steps = res.summary.get("internal_steps", res.steps)
        print(f"| {method} | {setting} | {err:.3g} | {res.cpu_time:.3g} | {steps} | {nfev} |")
    return 0


def main(argv: list[str]) -> int:
    if "--seed000" in argv:
        return seed000()
    out = []
    print("| benchmark | method | h | error | CPU [s] |")
    print("|---|---|---|---|---|")
    for benchmark, h, t_end in STUDIES:
        methods = [m for m in IMPLICIT if m in solvers.methods(benchmark)]
        for group in (methods[i:i + 4] for i in range(0, len(methods), 4)):  # the study takes 4 methods at most
            study = run_study({"benchmark": benchmark, "methods": group, "h": h, "levels": 4, "t_end": t_end})
            if study["status"] != "ok":
                print(f"{benchmark} {group}: {study['message']}", file=sys.stderr)
                continue
            for r in study["runs"]:
                out.append({"benchmark": benchmark, **{k: r[k] for k in ("method", "h", "error", "cpu_time")}})
                print(f"| {benchmark} | {r['method']} | {r['h']:.4g} | {r['error']:.3g} | {r['cpu_time']:.3g} |")
    if len(argv) > 1:
        with open(argv[1], "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
