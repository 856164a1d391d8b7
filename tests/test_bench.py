"""python -m solvers.bench: the pair table's filters and its per-run cap on steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solvers import bench


def test_the_filters_pick_pairs_and_the_run_cap_cuts_steps_to_a_floor(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    assert bench.main(["--no-compile", "--repeat", "1", "--methods", "rk4,midpoint_angle*", "--benchmarks",
                       "planar_pendulum", "--steps", "2000000", "--run-seconds", "0.001", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["pairs"]
    assert [r["method"] for r in rows] == ["rk4", "midpoint_angle", "midpoint_angle_c4", "midpoint_angle_c6",
                                           "midpoint_angle_c8"]
    # 2e6 steps would take far more than 1 ms: each pair is cut, not below the floor
    assert all(bench.MIN_STEPS <= r["steps"] < 2_000_000 and r["status"] == "ok" for r in rows)
    # kahan_li17 is 17 sub-steps of the base method per step (a margin no load reverses)
    by = {r["method"]: r for r in rows}
    assert by["midpoint_angle_c8"]["us_per_step"] > by["midpoint_angle"]["us_per_step"]


def test_an_unknown_filter_says_which_name() -> None:
    with pytest.raises(SystemExit, match="no such id: rattle"):
        bench.main(["--no-compile", "--methods", "rattle"])
