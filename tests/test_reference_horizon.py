"""The reference's horizon on chaotic runs (solvers.references.Reference.horizon): where its own error estimate
passes 1e-3 of the mechanism's size it stops judging; the error chart shades the span past it, the table's max
error stops there, the Convergence study never compares past it."""

from __future__ import annotations

import numpy as np

import solvers
from solvers import figures, references
from solvers.registry import BENCHMARKS


def _default_run(benchmark: str) -> solvers.Result:
    spec = BENCHMARKS[benchmark]
    return solvers.simulate(benchmark, "rk4", h=spec.default_h, t_end=spec.default_t_end)


def test_the_spatial_double_pendulum_default_run_has_a_horizon_that_is_shaded_and_bounds_the_max_error():
    res = _default_run("spatial_double_pendulum")
    ref = references.reference(res.benchmark, res.t, res.params)
    horizon = references.horizon(res, ref)
    assert horizon is not None and 15.0 <= horizon <= 40.0
    # the horizon is where the estimate first passes the threshold: below it before, above it there
    size = np.linalg.norm(ref.points, axis=-1).max()
    before = ref.t < horizon
    assert ref.estimate[before].max() <= references.HORIZON_FRACTION * size < ref.estimate[ref.t == horizon][0]
    # the Run page's help says tiny differences grow tenfold every few seconds: at least 100x from 10 to 20 s
    assert ref.estimate[ref.t <= 20.0].max() > 100 * ref.estimate[ref.t <= 10.0].max() > 0
    rec = figures.record(res)
    err = rec["error"]
    assert rec["horizon"] == horizon and rec["summary"]["error_horizon"] == horizon
    assert rec["summary"]["max_error"] == err[ref.t <= horizon].max() < err.max()  # bounded by the horizon
    row = figures.summary_rows([rec])[0]
    assert f"t ≤ {horizon:.1f} s" in row["max_error"] and "horizon" in row["max_error"]
    fig = figures.error_figure([rec])
    (shade,) = fig["layout"]["shapes"]
    assert shade["x0"] == horizon and shade["x1"] == res.t[-1] and shade["type"] == "rect"
    (label,) = fig["layout"]["annotations"]
    assert f"beyond t = {horizon:.1f} s the motion is chaotic" in label["text"].replace("<br>", " ")


def test_the_planar_pendulum_exact_reference_has_no_horizon_and_no_shading():
    res = _default_run("planar_pendulum")
    assert references.horizon(res) is None
    rec = figures.record(res)
    assert rec["horizon"] is None and rec["summary"]["max_error"] == rec["error"].max()
    fig = figures.error_figure([rec])
    assert not fig["layout"].get("shapes") and "horizon" not in figures.summary_rows([rec])[0]["max_error"]


def test_a_short_regular_run_has_no_horizon():
    res = solvers.simulate("spatial_double_pendulum", "rk4", h=1e-3, t_end=5.0)
    assert references.horizon(res) is None


def test_the_convergence_study_never_compares_past_the_horizon():
    from solvers import studies

    s = studies.run_study({"benchmark": "spatial_double_pendulum", "methods": ["rk4"], "h": 0.01, "levels": 2,
                           "t_end": 40.0})
    assert s["status"] == "ok"
    horizon = s["reference"]["horizon"]
    assert horizon is not None and 15.0 <= horizon <= 40.0
    assert f"up to its horizon t = {horizon:.1f} s" in s["reference"]["description"]
    grid = s["stride"] * s["h"]  # the compared times: multiples of the sampling grid
    within = int(np.floor(horizon / grid + 1e-9)) + 1  # t = 0 included
    assert [r["compared"] for r in s["runs"]] == [within, within]
