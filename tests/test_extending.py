"""docs/architecture.md's recipes, done once: a tiny benchmark and a tiny method, each registered with one line,
run end to end through the API, the CLI and the convergence study without touching any other module."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from numba import njit

from solvers import api, cli, kernels, registry
from solvers.methods.base import Method
from solvers.models import coords, dispatch
from solvers.models.base import Benchmark, Model, Param, Scales

pytestmark = pytest.mark.xdist_group("extending")  # one worker compiles the test's uncached euler kernel once

# ---- the recipe "add a benchmark": a module-level BENCHMARK (here: a simple pendulum) -----------------------------


def _build(p: dict[str, Any]) -> Model:
    """A simple pendulum of length l: one angle, U = -m g l cos(theta), J = m l^2."""
    m, l, g = p["m"], p["l"], p["g"]
    data = coords.make_data(
        np.array([[m * l * l]]), np.zeros(1), cos_terms=[(0, -m * g * l, 0.0)],
        points=[(coords.FIXED, 0, 0.0, 0.0), (coords.ANGLE, 0, l, 0.0)],
    )
    return Model("coords", data, np.array([p["theta0"], 0.0]),
                 lambda st: {"theta": st[:, 0], "omega": st[:, 1]},
                 lambda st: coords.point_positions(data, st[:, :1]), ("pivot", "bob"),
                 scales=Scales(l, -m * g * l, 0.01 * l))


TINY_BENCHMARK = Benchmark(
    id="simple_pendulum",
    title="Simple pendulum (a test's example)",
    seed="-",
    description="A point mass on a massless rod.",
    params={
        "m": Param(1.0, "mass", "kg", positive=True),
        "l": Param(1.0, "length", "m", positive=True),
        "g": Param(9.81, "gravity", "m/s^2", nonnegative=True),
        "theta0": Param(0.5, "initial angle", "rad"),
    },
    build=_build,
    default_h=0.01,
    default_t_end=2.0,
    machinery="coords",
)

# ---- the recipe "add a method": a compiled kernel with the contract of solvers.kernels, and a METHOD ------------


@njit
def _euler_advance(kind, data, y, work, opts, t_start, h, k0, n_steps, n_total, stride, samples, n_saved, maxima,
                   ref, info):
    """Explicit Euler (first order), through the model functions of solvers.models.dispatch."""
    ny = y.shape[0]
    size = dispatch.scratch_size(kind, data)
    A = np.empty((size, size))
    b = np.empty(size)
    f = np.empty(ny)
    d = np.empty(kernels.N_DIAG)
    t = t_start + k0 * h
    if not dispatch.rhs(kind, data, t, y, f, A, b):
        return 0, kernels.SINGULAR, n_saved
    if k0 == 0:
        dispatch.diagnostics(kind, data, t, y, f, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, 0, stride, n_total)
    for s in range(n_steps):
        for i in range(ny):
            y[i] += h * f[i]
        if not kernels.state_ok(y):
            info[0] = t_start + (k0 + s + 1) * h
            return s, kernels.NONFINITE, n_saved
        t = t_start + (k0 + s + 1) * h
        dispatch.rhs(kind, data, t, y, f, A, b)
        dispatch.diagnostics(kind, data, t, y, f, d)
        n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, k0 + s + 1, stride, n_total)
    return n_steps, kernels.OK, n_saved


TINY_METHOD = Method(
    id="euler",
    title="Explicit Euler (a test's example)",
    seed="-",
    order=1,
    description="First-order explicit Euler.",
    kernel=_euler_advance,
    machineries=("coords", "rigid", "rotvec"),
    properties=("explicit", "fixed step"),
)


@pytest.fixture()
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one registry line of each recipe (registry.BENCHMARKS / registry.METHODS entries)."""
    monkeypatch.setitem(registry.BENCHMARKS, TINY_BENCHMARK.id, TINY_BENCHMARK)
    monkeypatch.setitem(registry.MACHINERY, TINY_BENCHMARK.id, TINY_BENCHMARK.machinery)
    monkeypatch.setitem(registry.METHODS, TINY_METHOD.id, TINY_METHOD)


def test_the_registry_offers_them(registered: None) -> None:
    assert "simple_pendulum" in api.benchmarks()
    assert "euler" in api.methods("simple_pendulum")
    assert "euler" in api.methods("planar_pendulum")  # a method runs on every benchmark of its machineries
    assert "rk4" in api.methods("simple_pendulum")  # and the existing methods run on the new benchmark
    assert api.describe("simple_pendulum")["params"]["l"] == 1.0
    assert api.describe_method("euler")["order"] == 1


def test_they_run_end_to_end_and_converge_at_first_order(registered: None) -> None:
    ref = api.simulate("simple_pendulum", "rk4", h=1e-4, t_end=1.0)
    errors = []
    hs = (0.01, 0.005, 0.0025)
    for h in hs:
        res = api.simulate("simple_pendulum", "euler", h=h, t_end=1.0)
        assert res.status == "ok" and res.steps == round(1.0 / h)
        errors.append(abs(res.state["theta"][-1] - ref.state["theta"][-1]))
    order = np.polyfit(np.log(hs), np.log(errors), 1)[0]
    assert 0.9 < order < 1.1, (errors, order)
    # the diagnostics are the benchmark's: an energy error that shrinks with h (Euler gains energy)
    assert res.summary["max_energy_error"] > 0 and res.points.shape[1:] == (2, 3)


def test_bad_input_is_refused_with_the_usual_messages(registered: None) -> None:
    with pytest.raises(ValueError, match="parameter 'l'"):
        api.simulate("simple_pendulum", "euler", h=0.01, t_end=1.0, params={"l": -1})
    with pytest.raises(ValueError, match="unknown option"):
        api.simulate("simple_pendulum", "euler", h=0.01, t_end=1.0, options={"tol": 1})


def test_the_cli_runs_them(registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "simple_pendulum", "euler", "--h", "0.01", "--t-end", "1", "--param", "l=2"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "ok" and out["steps"] == 100
