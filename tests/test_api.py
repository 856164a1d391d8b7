"""The public API contract of docs/benchmarks.md: ids, validation, Result, progress/cancel, decimation, divergence."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import solvers
from solvers import api, driver

SIX = {
    "spatial_double_pendulum",
    "pendulum_3d",
    "planar_pendulum",
    "two_link_arm",
    "natural_double_pendulum",
    "angular_velocity",
}


def test_ids():
    assert set(solvers.benchmarks()) >= SIX
    assert "rk4" in solvers.methods()
    for b in solvers.benchmarks():
        assert "rk4" in solvers.methods(b)
        d = solvers.describe(b)
        assert d["id"] == b and d["title"] and d["seed"] and d["methods"]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"benchmark": "nope"}, "unknown benchmark 'nope'; valid: spatial_double_pendulum"),
        ({"method": "euler"}, "unknown method 'euler'; valid: rk4"),
        ({"h": 0.0}, "h must be a positive finite number, got 0.0"),
        ({"h": -0.1}, "h must be a positive finite number"),
        ({"h": float("nan")}, "h must be a positive finite number"),
        ({"h": "abc"}, "h must be a positive number, got 'abc'"),
        ({"t_end": float("inf")}, "t_end must be a positive finite number"),
        ({"h": 2.0, "t_end": 1.0}, "larger than t_end"),
        ({"h": 1e-9, "t_end": 100.0}, "over the cap of 10000000 steps"),
        ({"params": {"m": -1.0}}, "parameter 'm': -1.0 must be > 0"),
        ({"params": {"m": float("nan")}}, "parameter 'm': nan is not finite"),
        ({"params": {"m": 1e300}}, "exceeds the allowed magnitude"),
        ({"params": {"mass": 1.0}}, "unknown parameter(s) 'mass' for benchmark 'planar_pendulum'; valid: m, J"),
        ({"params": {"theta0": [1, 2]}}, "parameter 'theta0': expected a real number"),
        ({"params": {"theta0": "x"}}, "parameter 'theta0': 'x' is not a number"),
        ({"params": "m=1"}, "params must be a dict"),
        ({"options": {"rtol": 1e-3}}, "unknown option(s) 'rtol' for method 'rk4'; valid: switch"),
        ({"options": {"switch": "maybe"}}, "option 'switch': 'maybe' is not a boolean"),
        ({"max_samples": 1}, "max_samples must be an integer >= 2"),
        ({"progress": 3}, "progress must be callable"),
    ],
)
def test_bad_input_raises_value_error(kwargs, fragment):
    args = {"benchmark": "planar_pendulum", "method": "rk4", "h": 0.01, "t_end": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError) as exc:
        solvers.simulate(args.pop("benchmark"), args.pop("method"), **args)
    assert fragment in str(exc.value)


def test_rotation_and_inertia_parameters_are_checked():
    with pytest.raises(ValueError, match="not a rotation matrix"):
        solvers.simulate("spatial_double_pendulum", "rk4", 1e-3, 0.01, params={"R1": np.diag([1, 1, 2]).tolist()})
    with pytest.raises(ValueError, match="positive definite"):
        solvers.simulate("pendulum_3d", "rk4", 1e-3, 0.01, params={"J": np.diag([1, -1, 1]).tolist()})
    with pytest.raises(ValueError, match="at most one of cardan0, R0"):
        solvers.simulate("pendulum_3d", "rk4", 1e-3, 0.01, params={"R0": np.eye(3), "cardan0": [0, 0, 0]})


def test_result_shape_and_summary():
    res = solvers.simulate("spatial_double_pendulum", "rk4", h=1e-3, t_end=0.5)
    n = len(res.t)
    assert res.status == "ok" and res.message == "" and res.steps == 500 and n == 501
    for name in ("energy", "energy_error", "constraint_position", "constraint_velocity",
                 "constraint_acceleration", "orthogonality_error", "momentum", "rotation_error"):
        assert getattr(res, name).shape == (n,)
    assert res.points.shape == (n, 3, 3)
    assert res.state["R"].shape == (n, 2, 3, 3) and res.state["Omega"].shape == (n, 2, 3)
    assert res.state["x"].shape == (n, 2, 3) and res.state["v"].shape == (n, 2, 3)
    assert np.all(np.isnan(res.rotation_error))
    assert res.energy_error[0] == 0.0
    s = res.summary
    assert s["steps"] == 500 and s["cpu_time"] > 0 and s["steps_per_second"] > 0
    assert s["max_energy_error"] == pytest.approx(np.abs(res.energy_error).max(), rel=1e-12)
    assert s["max_constraint_position"] == pytest.approx(res.constraint_position.max(), rel=1e-12)
    assert np.isnan(s["max_rotation_error"])


def test_max_samples_decimates_but_summary_covers_every_step():
    full = solvers.simulate("two_link_arm", "rk4", h=0.01, t_end=20.0)
    dec = solvers.simulate("two_link_arm", "rk4", h=0.01, t_end=20.0, max_samples=37)
    assert len(dec.t) <= 37 and dec.t[0] == 0.0 and dec.t[-1] == pytest.approx(20.0)
    np.testing.assert_allclose(np.diff(dec.t)[:-1], np.diff(dec.t)[0])
    for key in ("max_energy_error", "max_constraint_position", "max_constraint_velocity"):
        assert dec.summary[key] == full.summary[key]
    # the maximum over all steps is at least the maximum over the decimated samples, and usually above it
    assert full.summary["max_energy_error"] >= np.abs(dec.energy_error).max()
    np.testing.assert_array_equal(dec.state["q"][-1], full.state["q"][-1])


def test_progress_is_reported_and_cancel_keeps_partial_results():
    seen = []
    res = solvers.simulate("planar_pendulum", "rk4", h=1e-4, t_end=50.0, progress=seen.append)
    assert res.status == "ok" and seen[-1] == 1.0 and len(seen) >= 3
    assert all(a <= b for a, b in itertools.pairwise(seen))

    calls = []

    def stop_after_two(f):
        calls.append(f)
        return len(calls) < 2

    res = solvers.simulate("planar_pendulum", "rk4", h=1e-4, t_end=50.0, progress=stop_after_two)
    assert res.status == "cancelled" and "cancelled" in res.message
    assert 0 < res.steps < 500_000 and len(res.t) == res.steps + 1
    assert res.t[-1] == pytest.approx(res.steps * 1e-4)


def test_divergence_reports_time_and_keeps_partial_results():
    res = solvers.simulate("two_link_arm", "rk4", h=0.5, t_end=100.0)
    assert res.status == "diverged"
    assert "diverged at t = " in res.message
    assert 0 < len(res.t) < 201
    assert np.all(np.isfinite(res.state["q"])) and np.all(np.isfinite(res.energy))


def test_step_count_and_cap():
    assert api.step_count(0.1, 1.0) == 10
    assert api.step_count(0.3, 1.0) == 4
    with pytest.raises(ValueError, match="cap"):
        solvers.simulate("planar_pendulum", "rk4", h=1e-6, t_end=10.01)


def test_sample_plan():
    assert driver.sample_plan(10, None) == (1, 12)
    stride, rows = driver.sample_plan(1000, 11)
    assert stride == 100 and rows >= 11


@pytest.mark.parametrize("ext", [".json", ".csv", ".npz"])
def test_save(tmp_path, ext):
    res = solvers.simulate("natural_double_pendulum", "rk4", h=0.01, t_end=0.2)
    path = res.save(tmp_path / f"out{ext}")
    if ext == ".json":
        data = json.loads(path.read_text())
        assert data["status"] == "ok" and len(data["t"]) == 21 and data["momentum"][0] is None
        assert np.allclose(data["state"]["q"], res.state["q"])
    elif ext == ".csv":
        lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
        assert lines[0].startswith("t,energy,energy_error") and "q[3]" in lines[0]
        assert len(lines) == 1 + 21
    else:
        z = np.load(path)
        assert np.allclose(z["state_q"], res.state["q"]) and json.loads(str(z["meta"]))["method"] == "rk4"
    with pytest.raises(ValueError, match=r"use a \.npz, \.csv or \.json"):
        res.save(tmp_path / "out.txt")


def test_numba_cache_is_keyed_by_the_sources(tmp_path, monkeypatch):
    """A changed source file must give a new cache directory (numba only checks the kernel's own file)."""
    import numba

    from solvers import _numba_cache

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    path = _numba_cache.cache_dir()
    assert path.parent == tmp_path and len(path.name) == 16
    # solvers/__init__ pointed numba at <base>/<16 hex digits> (the digest of the sources at import time)
    name = numba.config.CACHE_DIR.rstrip("/").rsplit("/", 1)[-1]
    assert len(name) == 16 and all(c in "0123456789abcdef" for c in name)
    fake = tmp_path / "pkg"
    (fake / "models").mkdir(parents=True)
    (fake / "a.py").write_text("x = 1\n")
    (fake / "models" / "b.py").write_text("@njit\ndef y(): return 2\n")
    monkeypatch.setattr(_numba_cache, "PACKAGE", fake)
    first = _numba_cache.source_digest()
    (fake / "models" / "b.py").write_text("@njit\ndef y(): return 3\n")
    assert _numba_cache.source_digest() != first
    (fake / "a.py").write_text("x = 2\n")  # no compiled code: same kernels, same cache
    second = _numba_cache.source_digest()
    (fake / "a.py").write_text("x = 3\n")
    assert _numba_cache.source_digest() == second


def test_the_kernel_cache_key_follows_numbas_validity_path_and_mtime(tmp_path, monkeypatch):
    """numba's entries are valid for one source path and mtime: another checkout of the same code, or a touched
    file, must get its own directory (and no "complete" stamp), while the provenance digest stays the same."""
    import os

    from solvers import _numba_cache

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    for clone in ("one", "two"):
        (tmp_path / clone).mkdir()
        (tmp_path / clone / "k.py").write_text("@njit\ndef y(): return 2\n")
        os.utime(tmp_path / clone / "k.py", ns=(1_000_000_000, 1_000_000_000))
    keys, digests = [], []
    for clone in ("one", "two"):
        monkeypatch.setattr(_numba_cache, "PACKAGE", tmp_path / clone)
        keys.append(_numba_cache.cache_key())
        digests.append(_numba_cache.source_digest())
    assert digests[0] == digests[1] and keys[0] != keys[1]
    assert _numba_cache.cache_dir().name == keys[1] and len(keys[1]) == 16
    os.utime(tmp_path / "two" / "k.py", ns=(2_000_000_000, 2_000_000_000))
    assert _numba_cache.cache_key() not in keys and _numba_cache.source_digest() == digests[1]


def test_order_may_depend_on_options_and_adaptive_is_a_field():
    from solvers.registry import METHODS

    spark = METHODS["spark"]
    assert [spark.order_of({"s": s}) for s in (1, 2, 3, 4)] == [2, 4, 6, 8]
    assert spark.order_of() == solvers.describe_method("spark")["order"] == 4
    assert METHODS["rk4"].order_of({"switch": False}) == 4
    adaptive = {m for m in solvers.methods() if solvers.describe_method(m)["adaptive"]}
    assert adaptive == {"rotvec_rk45", "rotvec_rk45_switch", "scipy_dop853", "scipy_radau"}
    with pytest.raises(ValueError, match="option 's'"):
        spark.order_of({"s": 9})
