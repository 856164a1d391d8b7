"""Cost of a step against the number of bodies: the spatial_chain benchmark (N rods) for our methods and MuJoCo.

    python -m solvers.bench --scaling [--sizes 2,4,8,16,32,64] [--steps 2000] [--repeat 3] [--json out.json]
                                      [--plot out.svg]

For every N and method: us/step (best of ``--repeat`` runs; CPU time of the kernel, Result.cpu_time, after a
short warm-up run, so compile and load time are excluded) and the energy error max |E - E0| over the run divided
by E0 - U_min (U_min: the chain hanging straight down; the largest kinetic energy the motion can reach). When
``import mujoco`` works, the same chain in MuJoCo (N nested bodies, ball joints: minimal coordinates) with its
RK4 and implicitfast integrators at the same step, timed in the same process: process CPU time of
``mujoco.rollout`` (a C loop, one thread) or, in versions without it, of a Python loop calling mj_step (then the
bare per-call overhead, mj_step on an empty model, is printed too); energy from mj_energyPos + mj_energyVel on the
saved states. ``verify_mujoco`` checks that the MuJoCo model is ours (mass, inertia, trajectory of the rod ends).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from .. import api
from ..models.spatial_double_pendulum import rod_mass_inertia
from ..registry import BENCHMARKS
from ..result import _plain

BENCHMARK = "spatial_chain"
METHODS = ("rk4", "lgvi", "lgvi_lagrangian", "rattlie", "lie_galpha")
MUJOCO_INTEGRATORS = ("RK4", "implicitfast")
SIZES = (2, 4, 8, 16, 32, 64)
H = 1e-3
STEPS = 2000
WARM_STEPS = 5
BUDGET_S = 5.0  # a pair is run again (up to --repeat times) only while its runs so far took less than this
CHECK_N, CHECK_H, CHECK_T = 8, 1e-4, 0.2  # the MuJoCo model check printed with the table


def _params(n: int) -> dict[str, Any]:
    return BENCHMARKS[BENCHMARK].resolve({"N": n})


def energy_scale(n: int, e0: float) -> float:
    """E0 - U_min of the N-rod chain: the denominator of the relative energy errors."""
    scales = BENCHMARKS[BENCHMARK].build(_params(n)).scales
    assert scales is not None  # the chain declares its scales
    return e0 - scales.potential_min


def _row(column: str, n: int, steps: int, runs: int, cpu: float, err: float, e0: float, status: str,
         message: str) -> dict[str, Any]:
    us = 1e6 * cpu / max(steps, 1)
    return {"column": column, "N": n, "steps": steps, "runs": runs, "cpu_s": cpu, "us_per_step": us,
            "us_per_step_per_body": us / n, "energy_error": err, "energy_error_rel": err / energy_scale(n, e0),
            "status": status, "message": message}


def _best_of(run: Any, repeat: int, budget: float) -> tuple[Any, float, int]:
    """Call ``run() -> (result, cpu_s)`` up to ``repeat`` times while the calls so far took < budget (wall)."""
    best, spent, runs, out = math.inf, 0.0, 0, None
    while runs < max(repeat, 1) and (runs == 0 or spent < budget):
        t0 = time.perf_counter()
        out, cpu = run()
        spent += time.perf_counter() - t0
        runs += 1
        best = min(best, cpu)
    return out, best, runs


def our_run(method: str, n: int, steps: int = STEPS, repeat: int = 3, budget: float = BUDGET_S) -> dict[str, Any]:
    """us/step and energy error of one of our methods on the N-rod chain."""
    kw: dict[str, Any] = {"h": H, "params": {"N": n}, "max_samples": 2}
    api.simulate(BENCHMARK, method, t_end=WARM_STEPS * H, **kw)  # compile/load the kernel before timing

    def run() -> tuple[Any, float]:
        res = api.simulate(BENCHMARK, method, t_end=steps * H, **kw)
        return res, res.cpu_time

    res, cpu, runs = _best_of(run, repeat, budget)
    return _row(method, n, res.steps, runs, cpu, float(res.summary["max_energy_error"]), float(res.energy[0]),
                res.status, res.message)


# ---------------------------------------------------------------------------------------------------- MuJoCo


def has_mujoco() -> bool:
    """True if ``import mujoco`` works."""
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return False
    return True


def mjcf(n: int, integrator: str = "RK4", timestep: float = H) -> str:
    """MJCF of the N-rod chain: nested bodies whose frames sit at the joint points, ball joints, no contacts.

    Body i's frame is rod i's frame moved to its lower end [0, -l/2, 0]: its child is placed at [0, l, 0] (the
    upper end) and turned about z by the arc's step; centre of mass [0, l/2, 0], inertia of ours.
    """
    p = _params(n)
    m, J = rod_mass_inertia(p["rod_density"], p["rod_radius"], p["rod_length"])
    length, g, half = p["rod_length"], p["g"], p["turn"] / (n - 1) / 2.0
    inertia = " ".join(repr(float(v)) for v in np.diag(J))
    turn = f"{math.cos(half)!r} 0 0 {math.sin(half)!r}"
    body = ""
    for i in reversed(range(n)):
        pos, quat = ("0 0 0", "1 0 0 0") if i == 0 else (f"0 {length!r} 0", turn)
        body = (f'<body name="rod{i}" pos="{pos}" quat="{quat}"><joint name="j{i}" type="ball" damping="0" '
                f'armature="0" frictionloss="0"/><inertial pos="0 {length / 2!r} 0" mass="{float(m)!r}" '
                f'diaginertia="{inertia}"/>{body}</body>')
    return (f'<mujoco model="spatial_chain_{n}"><option timestep="{timestep!r}" gravity="0 0 {g!r}" '
            f'integrator="{integrator}"><flag contact="disable" energy="enable"/></option>'
            f"<worldbody>{body}</worldbody></mujoco>")


def mujoco_model(n: int, integrator: str = "RK4", timestep: float = H, xml: str | None = None) -> Any:
    """Compiled MjModel of :func:`mjcf` (or of the given ``xml``)."""
    import mujoco

    return mujoco.MjModel.from_xml_string(xml or mjcf(n, integrator, timestep))


def _state_spec() -> int:
    import mujoco

    return int(mujoco.mjtState.mjSTATE_FULLPHYSICS)


def initial_state(model: Any) -> np.ndarray:
    """The model's state at qpos0 and rest (every ball joint at its body's reference: the arc)."""
    import mujoco

    data = mujoco.MjData(model)
    out = np.empty(mujoco.mj_stateSize(model, _state_spec()))
    mujoco.mj_getState(model, data, out, _state_spec())
    return out


def _python_loop(model: Any, s0: np.ndarray, steps: int) -> tuple[np.ndarray, float]:
    """States after each of ``steps`` mj_step calls from a Python loop, and its CPU time."""
    import mujoco

    data, spec = mujoco.MjData(model), _state_spec()
    out = np.empty((steps, s0.size))
    mujoco.mj_setState(model, data, s0, spec)
    c0 = time.process_time()
    for k in range(steps):
        mujoco.mj_step(model, data)
        mujoco.mj_getState(model, data, out[k], spec)
    return out, time.process_time() - c0


def step_states(model: Any, s0: np.ndarray, steps: int, loop: str = "rollout") -> tuple[np.ndarray, float, str]:
    """States after each step, CPU seconds and the loop used: "rollout" (C loop, one thread) if it works, else
    "python" (mj_step called from Python)."""
    import mujoco

    if loop == "rollout":
        try:
            from mujoco import rollout

            data = mujoco.MjData(model)
            c0 = time.process_time()
            states, _ = rollout.rollout(model, data, s0, nstep=steps)
            return np.asarray(states).reshape(steps, -1), time.process_time() - c0, "rollout"
        except (ImportError, AttributeError, TypeError, ValueError):
            pass
    states, cpu = _python_loop(model, s0, steps)
    return states, cpu, "python"


def call_overhead(steps: int = 20_000) -> float:
    """us per mj_step call of the Python loop on an empty model (nothing to integrate)."""
    model = mujoco_model(0, xml="<mujoco/>")
    return 1e6 * _python_loop(model, initial_state(model), steps)[1] / steps


def energies(model: Any, states: np.ndarray) -> np.ndarray:
    """Total energy (mj_energyPos + mj_energyVel) of each state."""
    import mujoco

    data, spec = mujoco.MjData(model), _state_spec()
    out = np.empty(len(states))
    for k, s in enumerate(states):
        mujoco.mj_setState(model, data, s, spec)
        mujoco.mj_forward(model, data)
        mujoco.mj_energyPos(model, data)
        mujoco.mj_energyVel(model, data)
        out[k] = data.energy[0] + data.energy[1]
    return out


def rod_ends(model: Any, states: np.ndarray) -> np.ndarray:
    """(k, N + 1, 3): the pivot and the upper end of every rod, as our model's ``points``."""
    import mujoco

    data, spec = mujoco.MjData(model), _state_spec()
    tip = np.array([0.0, 2.0 * model.body_ipos[1, 1], 0.0])  # [0, l, 0] in the joint-point frame
    out = np.empty((len(states), model.nbody, 3))
    for k, s in enumerate(states):
        mujoco.mj_setState(model, data, s, spec)
        mujoco.mj_kinematics(model, data)
        out[k, 0] = 0.0
        out[k, 1:] = data.xpos[1:] + np.einsum("bij,j->bi", data.xmat[1:].reshape(-1, 3, 3), tip)
    return out


def mujoco_run(n: int, integrator: str, steps: int = STEPS, repeat: int = 3, budget: float = BUDGET_S,
               loop: str = "rollout") -> dict[str, Any]:
    """us/step and energy error of MuJoCo's ``integrator`` on the N-rod chain."""
    model = mujoco_model(n, integrator)
    s0 = initial_state(model)
    step_states(model, s0, WARM_STEPS, loop)

    def run() -> tuple[tuple[np.ndarray, str], float]:
        states, cpu, used = step_states(model, s0, steps, loop)
        return (states, used), cpu

    (states, used), cpu, runs = _best_of(run, repeat, budget)
    e = energies(model, np.vstack([s0, states]))
    ok = bool(np.all(np.isfinite(states)))
    row = _row(f"mujoco_{integrator.lower()}", n, steps, runs, cpu, float(np.max(np.abs(e - e[0]))), float(e[0]),
               "ok" if ok else "diverged", "" if ok else "non-finite state")
    row["loop"] = used
    return row


def verify_mujoco(n: int = CHECK_N, h: float = CHECK_H, t_end: float = CHECK_T, xml: str | None = None,
                  samples: int = 11) -> dict[str, Any]:
    """Differences between the MuJoCo chain (RK4) and ours (rk4), both at step h: mass, centre of mass and inertia
    of every body, energy at t = 0 and the rod ends at ``samples`` times up to t_end (max over rods and times)."""
    p = _params(n)
    m, J = rod_mass_inertia(p["rod_density"], p["rod_radius"], p["rod_length"])
    model = mujoco_model(n, "RK4", h, xml)
    steps = round(t_end / h)
    ours = api.simulate(BENCHMARK, "rk4", h=h, t_end=steps * h, params={"N": n}, save_every=steps // (samples - 1))
    s0 = initial_state(model)
    states = np.vstack([s0, step_states(model, s0, steps)[0]])[:: steps // (samples - 1)]
    com = np.array([0.0, p["rod_length"] / 2.0, 0.0])
    return {
        "N": n, "h": h, "t_end": steps * h, "steps": steps,
        "mass": float(np.max(np.abs(model.body_mass[1:] - m))),
        "com": float(np.max(np.abs(model.body_ipos[1:] - com))),
        "inertia": float(np.max(np.abs(model.body_inertia[1:] - np.diag(J)) + np.abs(model.body_iquat[1:, 1:]))),
        "energy0": abs(float(energies(model, states[:1])[0]) - float(ours.energy[0])),
        "rod_ends": float(np.max(np.abs(rod_ends(model, states) - ours.points))),
        "travel": float(np.max(np.abs(ours.points[-1] - ours.points[0]))),
        "ours_status": ours.status,
    }


# ---------------------------------------------------------------------------------------------------- report


def measure(sizes: tuple[int, ...] = SIZES, steps: int = STEPS, repeat: int = 3, budget: float = BUDGET_S,
            with_mujoco: bool | None = None, loop: str = "rollout",
            methods: tuple[str, ...] = METHODS) -> dict[str, Any]:
    """Every (N, column) row, with the run's settings; MuJoCo columns when ``with_mujoco`` (default: if importable)."""
    use_mj = has_mujoco() if with_mujoco is None else with_mujoco
    t0 = time.perf_counter()
    rows = [our_run(m, n, steps, repeat, budget) for n in sizes for m in methods]
    out: dict[str, Any] = {
        "benchmark": BENCHMARK, "h": H, "steps": steps, "repeat": repeat, "budget_s": budget, "sizes": list(sizes),
        "energy_error_rel": "max |E - E0| over the run / (E0 - U_min), U_min: the chain hanging straight down",
        "machine": f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores",
        "mujoco": None,
    }
    if use_mj:
        import mujoco

        rows += [mujoco_run(n, i, steps, repeat, budget, loop) for n in sizes for i in MUJOCO_INTEGRATORS]
        used = rows[-1]["loop"]
        out["mujoco"] = {"version": mujoco.__version__, "loop": used,
                         "call_overhead_us": call_overhead() if used == "python" else None,
                         "check": verify_mujoco()}
    out["rows"] = rows
    out["wall_s"] = time.perf_counter() - t0
    return out


def columns(out: dict[str, Any]) -> list[str]:
    """Column names in table order (ours, then MuJoCo's)."""
    return list(dict.fromkeys(r["column"] for r in out["rows"]))


def format_table(out: dict[str, Any]) -> str:
    """Plain-text tables (us/step, us/step per body, relative energy error) with footnotes."""
    cols = columns(out)
    cell = {(r["N"], r["column"]): r for r in out["rows"]}
    width = max(map(len, cols)) + 1
    mj = out["mujoco"]
    lines = [f"# {out['benchmark']}: N rods, h = {out['h']:g}, {out['steps']} steps per run; {out['machine']}",
             f"# us/step: best of {out['repeat']} runs (fewer when a pair's runs took over {out['budget_s']:g} s), "
             "CPU time of our kernel / of MuJoCo's stepping call, after a warm-up run",
             f"# energy error: {out['energy_error_rel']}"]
    if mj is None:
        lines.append("# MuJoCo: not installed (pip install 'integrator-lab[mujoco]'), its columns are left out")
    else:
        how = ("mujoco.rollout, a C loop on one thread" if mj["loop"] == "rollout" else
               f"a Python loop calling mj_step (bare call overhead {mj['call_overhead_us']:.2f} us, included)")
        c = mj["check"]
        lines += [f"# MuJoCo {mj['version']}: N nested bodies with ball joints, energy flag on; timed: {how}",
                  f"# MuJoCo model check, N = {c['N']}, {c['t_end']:g} s at h = {c['h']:g} (RK4 vs our rk4): "
                  f"rod ends differ by {c['rod_ends']:.1e} m (they moved {c['travel']:.2f} m), E0 by "
                  f"{c['energy0']:.1e} J, mass {c['mass']:.0e} kg, inertia {c['inertia']:.0e} kg m^2"]
    notes = []
    tables = (("us/step", "us_per_step", "{:.2f}"), ("us/step per body, (us/step) / N", "us_per_step_per_body",
              "{:.3f}"), ("relative energy error", "energy_error_rel", "{:.1e}"))
    for title, key, fmt in tables:
        lines += ["", title, f"{'N':>4s}" + "".join(f"{c:>{width}s}" for c in cols)]
        for n in out["sizes"]:
            texts = []
            for c in cols:
                r = cell.get((n, c))
                mark = "" if r is None or r["status"] == "ok" else "!"
                texts.append("-" if r is None else fmt.format(r[key]) + mark)
            lines.append(f"{n:4d}" + "".join(f"{t:>{width}s}" for t in texts))
    for r in out["rows"]:
        if r["status"] != "ok":
            notes.append(f"! {r['column']}, N = {r['N']}: {r['status']} after {r['steps']} of {out['steps']} "
                         f"steps: {r['message']}")
    few = [f"{r['column']} N={r['N']}: {r['runs']}" for r in out["rows"] if r["runs"] < out["repeat"]]
    if few:
        notes.append("runs fewer than --repeat (time budget): " + ", ".join(few))
    notes.append(f"whole measurement: {out['wall_s']:.0f} s wall")
    return "\n".join([*lines, "", *notes])


PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def _series(out: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    return {c: [(r["N"], r["us_per_step"]) for r in out["rows"] if r["column"] == c and r["status"] == "ok"]
            for c in columns(out)}


def plot_svg(out: dict[str, Any], path: str | Path) -> Path:
    """Log-log us/step against N as a hand-written SVG (no plotting library)."""
    series = _series(out)
    xs = [n for s in series.values() for n, _ in s]
    ys = [v for s in series.values() for _, v in s if v > 0]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    w, h, left, right, top, bottom = 720, 440, 70, 190, 30, 50

    def px(n: float) -> float:
        return left + (math.log10(n) - x0) / max(x1 - x0, 1e-9) * (w - left - right)

    def py(v: float) -> float:
        return h - bottom - (math.log10(v) - y0) / max(y1 - y0, 1) * (h - top - bottom)

    el = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
          f'font-size="12"><rect width="{w}" height="{h}" fill="white"/>',
          f'<text x="{left}" y="18">{out["benchmark"]}: us/step against N (h = {out["h"]:g}, log-log)</text>']
    for e in range(y0, y1 + 1):
        el.append(f'<line x1="{left}" x2="{w - right}" y1="{py(10**e):.1f}" y2="{py(10**e):.1f}" stroke="#ddd"/>'
                  f'<text x="{left - 6}" y="{py(10**e) + 4:.1f}" text-anchor="end">1e{e}</text>')
    for n in sorted(set(xs)):
        el.append(f'<line x1="{px(n):.1f}" x2="{px(n):.1f}" y1="{top}" y2="{h - bottom}" stroke="#ddd"/>'
                  f'<text x="{px(n):.1f}" y="{h - bottom + 16}" text-anchor="middle">{n}</text>')
    el.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">N (rods)</text>')
    for k, (name, pts) in enumerate(series.items()):
        color, y = PALETTE[k % len(PALETTE)], top + 10 + 18 * k
        xy = " ".join(f"{px(n):.1f},{py(v):.1f}" for n, v in pts if v > 0)
        el.append(f'<polyline points="{xy}" fill="none" stroke="{color}" stroke-width="2"/>')
        el += [f'<circle cx="{c.split(",")[0]}" cy="{c.split(",")[1]}" r="3" fill="{color}"/>' for c in xy.split()]
        el.append(f'<line x1="{w - right + 12}" x2="{w - right + 32}" y1="{y}" y2="{y}" stroke="{color}" '
                  f'stroke-width="2"/><text x="{w - right + 38}" y="{y + 4}">{name}</text>')
    Path(path).write_text("\n".join([*el, "</svg>"]) + "\n")
    return Path(path)


def plot(out: dict[str, Any], path: str | Path) -> Path:
    """Log-log us/step against N: ``.svg`` by hand, other formats with matplotlib."""
    if str(path).lower().endswith(".svg"):
        return plot_svg(out, path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, pts in _series(out).items():
        ax.loglog(*zip(*pts, strict=True), "o-", label=name)
    ax.set(xlabel="N (rods)", ylabel="us/step", title=f"{out['benchmark']}: us/step against N (h = {out['h']:g})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return Path(path)


def format_markdown(out: dict[str, Any]) -> str:
    """The tables of :func:`format_table` as Markdown (docs/performance.md), headed by the date, machine and
    load; its header lines become a paragraph and its footnotes a list."""
    from .measured_on import machine

    text = format_table(out).split("\n")
    head = [line[2:] for line in text if line.startswith("# ")]
    cols = columns(out)
    cell = {(r["N"], r["column"]): r for r in out["rows"]}
    lines = [f"Measured {machine()}.", "", *(f"{h}." if not h.endswith(".") else h for h in head)]
    tables = (("us/step", "us_per_step", "{:.2f}"), ("us/step per body, (us/step) / N", "us_per_step_per_body",
              "{:.3f}"), ("relative energy error", "energy_error_rel", "{:.1e}"))
    for title, key, fmt in tables:
        lines += ["", f"{title}:", "", "| N | " + " | ".join(cols) + " |", "|---:|" + "---:|" * len(cols)]
        for n in out["sizes"]:
            texts = []
            for c in cols:
                r = cell.get((n, c))
                mark = "" if r is None or r["status"] == "ok" else "!"
                texts.append("-" if r is None else fmt.format(r[key]) + mark)
            lines.append(f"| {n} | " + " | ".join(texts) + " |")
    tail = [line for line in text[len(head):] if line.startswith(("!", "runs fewer", "whole measurement"))]
    lines += ["", *(f"- {line}" for line in tail)]
    return "\n".join(lines)


def cli(args: argparse.Namespace) -> int:
    """``python -m solvers.bench --scaling``: print the tables; --json and --plot as documented in the module."""
    if args.plot and not str(args.plot).lower().endswith(".svg") and importlib.util.find_spec("matplotlib") is None:
        print(f"--plot {args.plot}: matplotlib is not installed; give a .svg file name (written without it) or "
              "pip install matplotlib")
        return 2
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else SIZES
    out = measure(sizes, args.steps or STEPS, args.repeat, args.budget)
    text = json.dumps(_plain(out), indent=1)
    if args.json == "-":
        print(text)
    else:
        print(format_markdown(out) if getattr(args, "markdown", False) else format_table(out))
        if args.json:
            Path(args.json).write_text(text + "\n")
    if args.plot:
        print(f"plot written to {plot(out, args.plot)}")
    return 0
