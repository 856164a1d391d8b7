"""solvers.bench.baselines: the NumPy RATTLie is the compiled kernel's algorithm (same trajectory to round-off), and the
SciPy DOP853 wrapper integrates the same index-1 DAE."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.bench import baselines
from solvers.models.spatial_double_pendulum import R2_DEFAULT

GENERAL = {
    "R1": R2_DEFAULT,
    "R2": np.eye(3).tolist(),
    "Omega1": [0.5, 3.0, -0.4],  # spin about the rod axis, tumbling: every term of the step is exercised
    "Omega2": [-0.3, -2.0, 0.8],
}


@pytest.mark.parametrize(("params", "h", "n"), [(None, 1e-3, 300), (GENERAL, 1e-3, 300), (GENERAL, 1e-2, 60)],
                         ids=["seed-h1e-3", "general-h1e-3", "general-h1e-2"])
def test_numpy_rattlie_matches_the_compiled_kernel(params, h, n):
    stats: dict = {}
    y, sec = baselines.rattlie_numpy(h, n, params=params, stats=stats)
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=h, t_end=n * h, params=params)
    assert res.status == "ok" and res.steps == n
    err = np.abs(y - baselines.flat_state(res)).max()
    assert err <= 1e-12, (
        f"NumPy RATTLie differs from the compiled kernel by {err:.2e} after {n} steps: "
        "solvers/bench/baselines.rattlie_numpy must mirror solvers/methods/rattlie.py step by step"
    )
    # the same iteration; a stopping test decided by round-off may flip in a few steps (an extra iteration moves
    # the state by less than the Newton tolerance)
    assert abs(stats["newton_iterations"] - res.newton_iterations) <= max(2, res.newton_iterations // 50)
    assert sec > 0
    assert np.abs(y.reshape(2, 18)[:, :9].reshape(2, 3, 3) @ np.swapaxes(y.reshape(2, 18)[:, :9].reshape(2, 3, 3),
                                                                          1, 2) - np.eye(3)).max() < 1e-13


def test_dop853_runs_and_converges():
    ref = baselines.dop853_reference(2.0, 1e-12, check_times=(1.0,), diagnostics=False)
    run = baselines.dop853_reference(2.0, 1e-8, check_times=(1.0,), reference=ref)
    for r in (ref, run):
        assert r["nfev"] > 0 and r["steps"] > 0 and r["wall_s"] > 0
        assert r["y_final"].shape == (36,)
    assert 0 < run["error_at"][1.0] < 1e-4 and 0 < run["error_final"] < 1e-4
    assert run["nfev"] < ref["nfev"]
    # the index-1 DAE drifts off the constraints and SO(3), slowly
    assert 0 < run["max_constraint_position"] < 1e-4 and run["max_orthogonality_error"] < 1e-4
    assert run["max_energy_error"] < 1e-2
    # the same problem as the compiled methods: RATTLie at a small step agrees with the tight DOP853 run
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=2.5e-4, t_end=2.0, max_samples=100)
    assert baselines.position_error(baselines.flat_state(res), ref["y_final"]) < 1e-4


def test_speed_comparison_small():
    c = baselines.speed_comparison(repeat=1, numpy_steps=20, t_end=1.0, check_time=0.5, tolerances=(1e-8,),
                                   methods=("rattlie",))
    assert c["compiled"][0]["method"] == "rattlie" and c["compiled"][0]["error_at_check"] < 1e-3
    assert c["speedup_numpy_over_compiled"] > 1
    text = baselines.format_comparison(c)
    assert "DOP853" in text and "NumPy" in text
