"""A run can be cited, reloaded and re-run: provenance in every format, load(save(r)) == r, rerun bit-identical,
exact end times, options refused where they cannot act (issue: a researcher can cite, reload and extend a run)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

import solvers
from solvers import cli
from solvers.registry import BENCHMARKS, METHODS, applies

ROOT = Path(__file__).resolve().parent.parent
PROVENANCE_KEYS = ("version", "source_digest", "git_commit", "python", "numpy", "numba", "scipy", "platform",
                   "started_utc", "wall_time", "process_cpu_time", "request")


def _default_benchmark(method: str) -> str:
    return next(b for b in BENCHMARKS if applies(method, b))


def _short(method: str, **kw) -> solvers.Result:
    b = _default_benchmark(method)
    h = BENCHMARKS[b].default_h
    return solvers.simulate(b, method, h=h, t_end=12 * h, **kw)


def test_version_matches_pyproject_and_the_cli(capsys):
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert solvers.__version__ == version
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"integrator-lab {version}"


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("ext", [".json", ".npz", ".csv"])
def test_load_of_save_equals_the_run_and_keeps_the_provenance(tmp_path, method, ext):
    res = _short(method, save_every=5)  # saving choices are part of the request and re-run too
    back = solvers.load(res.save(tmp_path / f"run{ext}"))
    assert back == res
    assert all(isinstance(getattr(back, n), np.ndarray) for n in solvers.result.ARRAYS)
    assert all(isinstance(v, np.ndarray) and v.shape == res.state[k].shape for k, v in back.state.items())
    assert back.energy_error_envelope.shape == (len(res.t), 2) and back.points.shape == res.points.shape
    for key in PROVENANCE_KEYS:
        assert key in back.provenance, key
    assert back.provenance["request"]["save_every"] == 5 and back.provenance["version"] == solvers.__version__
    a = res.summary["max_energy_error"]
    assert back.summary["max_energy_error"] == a or (np.isnan(a) and np.isnan(back.summary["max_energy_error"]))


def test_equality_sees_a_changed_value_and_equals_can_leave_out_timings():
    res = _short("rk4")
    other = solvers.Result.from_dict(res.to_dict())
    assert other == res
    other.energy = other.energy.copy()
    other.energy[3] += 1e-15
    assert other != res
    other = solvers.Result.from_dict(res.to_dict())
    other.cpu_time += 1.0
    assert other != res and other.equals(res, timing=False)


@pytest.mark.parametrize("method", list(METHODS))
def test_rerun_is_bit_identical(method):
    res = _short(method, max_samples=7)
    again = solvers.rerun(res)
    assert again.equals(res, timing=False)
    assert again.provenance["started_utc"] >= res.provenance["started_utc"]


def test_spark_gamma_opt_reruns_from_its_saved_file_with_the_request_kept_apart(tmp_path):
    res = solvers.simulate("natural_double_pendulum", "spark", h=0.04, t_end=1.2, options={"gamma": "opt"})
    assert res.options["gamma"] == "opt" and isinstance(res.derived["gamma"], float)
    assert set(res.options) == set(METHODS["spark"].options)  # only real options: the request re-runs
    back = solvers.load(res.save(tmp_path / "spark.json"))
    again = solvers.rerun(back)
    assert again.equals(res, timing=False)
    direct = solvers.simulate("natural_double_pendulum", "spark", h=0.04, t_end=1.2, options=back.options)
    np.testing.assert_array_equal(direct.state["q"], res.state["q"])


def test_provenance_in_the_csv_header_and_the_cli_json(tmp_path, capsys):
    out = tmp_path / "r.csv"
    code = cli.main(["run", "planar_pendulum", "rk4", "--h", "0.05", "--t-end", "0.5", "--param", "theta0=0.7",
                     "--out", str(out)])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["params"]["theta0"] == 0.7 and printed["provenance"]["version"] == solvers.__version__
    assert printed["provenance"]["request"]["params"] == {"theta0": 0.7}
    header = [ln for ln in out.read_text().splitlines() if ln.startswith("#")]
    meta = {ln[2:].partition(" = ")[0]: ln for ln in header}
    assert {"params", "options", "provenance", "shapes"} <= set(meta)
    assert '"theta0": 0.7' in meta["params"] and f'"version": "{solvers.__version__}"' in meta["provenance"]
    assert solvers.load(out).params["theta0"] == 0.7


@pytest.mark.parametrize("h,t_end,nearest", [
    (0.003, 0.01, "0.009 s (3 steps) and 0.012 s (4 steps)"),
    (0.3, 20.0, "19.8 s (66 steps) and 20.1 s (67 steps)"),
])
def test_a_t_end_off_the_step_grid_is_refused_naming_the_nearest_multiples(h, t_end, nearest):
    with pytest.raises(ValueError, match="not a multiple of h") as exc:
        solvers.simulate("planar_pendulum", "rk4", h=h, t_end=t_end)
    assert nearest in str(exc.value)


def test_t_end_on_the_grid_up_to_round_off_ends_exactly_there():
    res = solvers.simulate("planar_pendulum", "rk4", h=0.1, t_end=0.7)  # 0.7 / 0.1 = 6.999999999999999
    assert res.steps == 7 and res.t[-1] == pytest.approx(0.7, abs=1e-15)


def test_an_option_that_cannot_act_on_the_benchmark_is_refused_and_not_echoed():
    with pytest.raises(ValueError, match=r"option 'switch' of method 'rk4' acts only on benchmark\(s\) "
                                         r"'angular_velocity', not on 'planar_pendulum'"):
        solvers.simulate("planar_pendulum", "rk4", h=0.05, t_end=0.5, options={"switch": False})
    with pytest.raises(ValueError, match="'switch_threshold' of method 'scipy_dop853' acts only on"):
        solvers.simulate("planar_pendulum", "scipy_dop853", h=0.05, t_end=0.5, options={"switch_threshold": 4.0})
    res = solvers.simulate("planar_pendulum", "scipy_dop853", h=0.05, t_end=0.5)
    assert "switch" not in res.options and "switch_threshold" not in res.options
    res = solvers.simulate("angular_velocity", "rk4", h=0.01, t_end=0.1, options={"switch": False})
    assert res.options["switch"] is False


def test_the_run_form_refuses_the_same_end_times_and_options_under_their_fields():
    from app import jobs

    form = {"benchmark": "planar_pendulum", "methods": ["rk4"], "h": "0.003", "t_end": "0.01", "params": {},
            "options": {"rk4": {"switch": "false"}}}
    configs, errors = jobs.check_form(form)
    assert configs == [] and "0.009 s (3 steps)" in errors["t-end"]
    assert "acts only on" in errors["option:rk4:switch"]


def test_short_repr_and_html_repr():
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=0.01, t_end=0.5)
    text = repr(res)
    assert len(text) < 400 and "rattlie on spatial_double_pendulum" in text and "steps=50" in text
    assert "max constraint" in text
    html = res._repr_html_()
    assert html.startswith("<table>") and "rattlie" in html and solvers.__version__ in html
