"""Plausibility warnings (solvers.result.physics_warnings): a finished run whose numbers cannot be the motion."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from solvers import benchmarks, describe, methods, simulate
from solvers.models.base import Scales
from solvers.result import ORTHOGONALITY_LIMIT, physics_warnings

SCALES = Scales(length=2.0, potential_min=-10.0, constraint=0.02)


def test_quiet_run_has_no_warning() -> None:
    summary = {"max_constraint_position": 0.019, "max_energy_error": 9.9, "max_orthogonality_error": 1e-12}
    assert physics_warnings(summary, 0.0, SCALES) == []


def test_each_threshold_flags_its_own_sentence() -> None:
    drift = physics_warnings({"max_constraint_position": 0.03}, 0.0, SCALES)
    assert len(drift) == 1 and "drifted off the constraints by 0.03 m" in drift[0] and "2 m" in drift[0]
    energy = physics_warnings({"max_energy_error": 10.5}, 0.0, SCALES)
    assert len(energy) == 1 and "largest kinetic energy" in energy[0] and "(10 J)" in energy[0]
    # E0 above the potential minimum raises the reachable kinetic energy
    assert physics_warnings({"max_energy_error": 10.5}, 1.0, SCALES) == []
    ortho = physics_warnings({"max_orthogonality_error": 2 * ORTHOGONALITY_LIMIT}, 0.0, None)
    assert len(ortho) == 1 and "left SO(3)" in ortho[0]


def test_nan_means_not_applicable_and_inf_means_too_big() -> None:
    nan = float("nan")
    assert physics_warnings({"max_constraint_position": nan, "max_orthogonality_error": nan}, 0.0, SCALES) == []
    assert len(physics_warnings({"max_constraint_position": math.inf}, 0.0, SCALES)) == 1
    # no scales: only the SO(3) check applies
    assert physics_warnings({"max_constraint_position": 1e9, "max_energy_error": 1e9}, 0.0, None) == []
    # a model without a size (a top with its centre of mass at the pivot) gets no drift warning
    assert physics_warnings({"max_constraint_position": 1.0}, 0.0, Scales(0.0, 0.0, 0.0)) == []


def test_rk4_on_the_two_link_arm_at_a_coarse_step_is_flagged() -> None:
    """RK4 on the index-1 DAE drifts off the arm (seed 001's point); the run still reaches t_end."""
    res = simulate("two_link_arm", "rk4", h=0.02, t_end=100.0, max_samples=50)
    assert res.status == "ok"
    assert res.summary["max_constraint_position"] > 100 * 0.01 * (1 + np.sqrt(3))
    assert len(res.warnings) == 2, res.warnings
    assert "drifted off the constraints" in res.warnings[0]
    assert "largest kinetic energy" in res.warnings[1]
    assert res.to_dict()["warnings"] == res.warnings


def test_the_same_arm_with_a_constraint_preserving_method_is_not_flagged() -> None:
    res = simulate("two_link_arm", "hermite_h33g2", h=0.02, t_end=100.0, max_samples=50)
    assert res.status == "ok" and res.warnings == []


@pytest.mark.parametrize("benchmark", benchmarks())
def test_default_runs_are_plausible(benchmark: str) -> None:
    """Every method at the benchmark's default step (up to 20 s of its default end time): no warning."""
    spec = describe(benchmark)
    for method in methods(benchmark):
        res = simulate(benchmark, method, h=spec["default_h"], t_end=min(20.0, spec["default_t_end"]),
                       max_samples=10)
        if (benchmark, method) == ("angular_velocity", "rotvec_rk45"):
            # seed 002's point: the plain rotation vector fails at |theta| = 2 pi, and says so
            assert res.status == "failed" and "singularity" in res.message
        else:
            assert res.status == "ok", (method, res.message)
        assert res.warnings == [], (method, res.warnings)


def test_cli_prints_the_warnings() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "solvers", "run", "two_link_arm", "rk4", "--h", "0.05", "--t-end", "100"],
        capture_output=True, text=True, check=True, timeout=300,
    )
    data = json.loads(out.stdout)
    assert len(data["warnings"]) == 2


def test_the_run_table_shows_the_warnings() -> None:
    from solvers import figures

    res = simulate("two_link_arm", "rk4", h=0.02, t_end=100.0, max_samples=50).to_dict()
    (row,) = figures.summary_rows([res])
    assert row["message"].startswith("Warning: the bodies drifted off the constraints")
    assert row["message"].count("Warning:") == 2
    # a result cached before warnings existed still shows
    del res["warnings"]
    assert figures.summary_rows([res])[0]["message"] == ""


def test_the_run_page_status_line_says_a_run_left_the_physics() -> None:
    from solvers import figures

    bad = simulate("two_link_arm", "rk4", h=0.02, t_end=100.0, max_samples=50).to_dict()
    good = simulate("two_link_arm", "hermite_h33g2", h=0.02, t_end=100.0, max_samples=50).to_dict()
    info = {"keys": ["a", "b"], "computed": 2, "elapsed": 0.5}
    kind, text = figures.outcome([bad, good], info)
    assert kind == "warning" and "completed but the bodies drifted off the constraints by" in text
    assert figures.outcome([good], {"keys": ["b"], "computed": 1})[0] == "done"
