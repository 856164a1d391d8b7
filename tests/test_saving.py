"""The saving API: simulate(..., save_every=k | save_at=times), the CLI flags, and prepare's sub-runs (Runner)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import solvers
from solvers import cli, driver

FIELDS = ("energy", "energy_error", "constraint_position", "orthogonality_error", "rotation_error")
CASES = [("two_link_arm", "hermite_h33g2", 0.01), ("spatial_double_pendulum", "lgvi", 0.01),
         ("angular_velocity", "rotvec_rk45_switch", 0.05), ("planar_pendulum", "rk4", 0.05)]


def _same_rows(part: solvers.Result, full: solvers.Result, rows: np.ndarray) -> None:
    assert np.array_equal(part.t, full.t[rows])
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(part, name), getattr(full, name)[rows])
    for key, values in full.state.items():
        np.testing.assert_array_equal(part.state[key], values[rows])
    untimed = [{k: v for k, v in r.to_dict()["summary"].items() if k not in ("cpu_time", "steps_per_second")}
               for r in (part, full)]
    assert json.dumps(untimed[0]) == json.dumps(untimed[1])  # every max over all steps, counts, switch times
    assert part.steps == full.steps and part.newton_iterations == full.newton_iterations


@pytest.mark.parametrize("benchmark,method,h", CASES)
def test_save_every_saves_every_kth_step_and_the_last_bit_for_bit(benchmark, method, h):
    full = solvers.simulate(benchmark, method, h=h, t_end=103 * h)
    part = solvers.simulate(benchmark, method, h=h, t_end=103 * h, save_every=10)
    _same_rows(part, full, np.r_[np.arange(0, 104, 10), 103])


@pytest.mark.parametrize("benchmark,method,h", CASES)
def test_save_at_saves_exactly_those_times_bit_for_bit(benchmark, method, h):
    full = solvers.simulate(benchmark, method, h=h, t_end=100 * h)
    steps = np.array([3, 4, 17, 50, 99])  # neither the start nor the end: errors still count from t = 0
    part = solvers.simulate(benchmark, method, h=h, t_end=100 * h, save_at=steps * h)
    _same_rows(part, full, steps)
    np.testing.assert_equal(part.energy_error[0], full.energy[3] - full.energy[0])


def test_save_at_includes_the_ends_when_asked_and_accepts_round_off():
    h = 0.1
    times = [0.0, 0.3, 0.7000000000000001, 1.0]  # 7 * 0.1 in floating point
    res = solvers.simulate("planar_pendulum", "midpoint_angle", h=h, t_end=1.0, save_at=times)
    assert np.allclose(res.t, times, atol=1e-15) and len(res.t) == 4 and res.energy_error[0] == 0.0


@pytest.mark.parametrize("kwargs,match", [
    ({"save_every": 0}, "save_every must be an integer >= 1"),
    ({"save_every": 2.5}, "save_every must be an integer"),
    ({"save_every": True}, "save_every must be an integer"),
    ({"save_every": 2, "max_samples": 10}, "at most one of max_samples, save_every and save_at"),
    ({"save_at": [0.1], "save_every": 3}, "at most one of"),
    ({"save_at": [0.05]}, r"save_at time 0.05 s is not on the step grid.*h = 0.1"),
    ({"save_at": [0.2, 0.1]}, "strictly increasing"),
    ({"save_at": [0.1, 0.1]}, "strictly increasing"),
    ({"save_at": [1.1]}, r"outside the run, \[0, 1\] s"),
    ({"save_at": [-0.1]}, "outside the run"),
    ({"save_at": []}, "non-empty"),
    ({"save_at": [[0.1]]}, "1-D"),
    ({"save_at": ["a"]}, "sequence of times"),
    ({"save_at": [float("nan")]}, "finite"),
    ({"max_samples": 1}, "max_samples must be an integer >= 2"),
])
def test_bad_saving_arguments_are_refused_clearly(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solvers.simulate("planar_pendulum", "rk4", h=0.1, t_end=1.0, **kwargs)


def test_save_every_is_checked_against_the_sample_cap():
    plan = driver.save_plan(10_000_000, 1e-6, save_every=11)
    assert plan.stride == 11 and plan.rows == 909_092
    with pytest.raises(ValueError, match=r"saves 1000001 samples .* over the cap of 1000000; save every 11th step"):
        driver.save_plan(10_000_000, 1e-6, save_every=10)


def test_cli_save_flags(capsys, tmp_path):
    out = tmp_path / "r.json"
    assert cli.main(["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--save-at", "0.2,0.5,1",
                     "--out", str(out)]) == 0
    assert json.loads(out.read_text())["t"] == pytest.approx([0.2, 0.5, 1.0])
    assert cli.main(["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--save-every", "4",
                     "--out", str(out)]) == 0
    assert json.loads(out.read_text())["t"] == pytest.approx([0.0, 0.4, 0.8, 1.0])
    capsys.readouterr()
    assert cli.main(["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--save-at", "0.25"]) == 2
    assert "not on the step grid" in capsys.readouterr().err
    assert cli.main(["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--save-at", "x"]) == 2
    assert "--save-at expects comma-separated times" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--save-every", "2",
                  "--max-samples", "5"])
    assert "not allowed with argument" in capsys.readouterr().err


OPT = {"gamma": "opt", "opt_steps": 40}


def test_gamma_opt_sub_runs_count_in_the_runs_cpu_time_and_progress():
    calls = []
    res = solvers.simulate("natural_double_pendulum", "spark", h=0.01, t_end=0.5, options=OPT,
                           progress=lambda f: calls.append(f))
    assert res.status == "ok" and res.summary["prepare_runs"] == 3
    assert 0 < res.summary["prepare_cpu_time"] < res.cpu_time == res.summary["cpu_time"]
    # the sub-runs report (as 0: the main run has not started) before the main run's own fractions
    assert calls[0] == 0.0 and calls[-1] == 1.0 and calls.count(0.0) >= 3


def test_gamma_opt_is_the_same_through_the_runner():
    from solvers.methods import spark

    res = solvers.simulate("natural_double_pendulum", "spark", h=0.01, t_end=0.5, options=OPT)
    g2 = res.effective_options["gamma_opt_points"][1]
    # the same interpolation from runs made directly through the API (every step saved)
    ref = solvers.simulate("natural_double_pendulum", "spark", h=0.0001, t_end=0.4, options={"gamma": 0.0})
    dw = [spark.signed_mean_error(solvers.simulate("natural_double_pendulum", "spark", h=0.01, t_end=0.4,
                                                   options={"gamma": g}).state["q"], ref.state["q"][::100])
          for g in (0.0, g2)]
    assert res.effective_options["gamma_opt_dW"] == dw
    assert res.effective_options["gamma"] == (-g2 * dw[0]) / (dw[1] - dw[0])


def test_cancel_during_gamma_opt_stops_the_sub_runs_and_the_run():
    seen = []

    def progress(f: float) -> bool:
        seen.append(f)
        return len(seen) < 2  # cancel at the second report: inside the sub-runs

    res = solvers.simulate("natural_double_pendulum", "spark", h=0.001, t_end=5.0,
                           options={**OPT, "opt_steps": 5000}, progress=progress)
    assert res.status == "cancelled" and "while spark prepared its options" in res.message
    assert res.steps == 0 and len(res.t) == 0 and res.summary["prepare_runs"] >= 1
    assert res.cpu_time == res.summary["prepare_cpu_time"] > 0
    assert set(seen) == {0.0}


def test_prepare_without_a_runner_says_so():
    from solvers.registry import BENCHMARKS, METHODS

    meth = METHODS["spark"]
    bench = BENCHMARKS["natural_double_pendulum"]
    params = bench.resolve(None)
    with pytest.raises(RuntimeError, match="without a runner"):
        driver.run("natural_double_pendulum", bench.build(params), meth, meth.resolve(OPT), 0.01, 10, 0.1, params)
