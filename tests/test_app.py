"""The dashboard's pure parts: job plumbing (app.jobs), figure builders (app.figures), configuration
(app.config). The browser tests (tests/test_browser.py) cover the page itself."""

from __future__ import annotations

import json
import time

import plotly.graph_objects as go
import pytest

from app import config, figures, jobs


def test_run_job_returns_plain_json_data():
    out = jobs.run_job({"benchmark": "planar_pendulum", "method": "rk4", "h": 0.01, "t_end": 2.0})
    assert out["status"] == "ok" and out["message"] == ""
    assert len(out["t"]) == len(out["energy_error"]) == 201 and out["t"][-1] == pytest.approx(2.0)
    assert out["summary"]["steps"] == 200 and out["summary"]["max_constraint_position"] is None  # NaN -> null
    json.dumps(out)  # JSON-able, no NaN or numpy types


def test_run_job_decimates_long_runs_to_the_browser_budget():
    out = jobs.run_job({"benchmark": "planar_pendulum", "method": "rk4", "h": 1e-3, "t_end": 20.0})
    assert len(out["t"]) <= jobs.MAX_SAMPLES and out["summary"]["steps"] == 20_000


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 0, "t_end": 1}, "Step h must be a number greater"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": "", "t_end": 1}, "Step h is missing"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 0.1, "t_end": "x"}, "End time must be a number"),
        ({"benchmark": "", "method": "rk4", "h": 0.1, "t_end": 1}, "Choose a benchmark"),
        ({"benchmark": "planar_pendulum", "method": "rattlie", "h": 0.1, "t_end": 1}, "does not apply"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 2, "t_end": 1}, "larger than t_end"),
    ],
)
def test_run_job_reports_bad_input_as_an_error_status(config, fragment):
    out = jobs.run_job(config)
    assert out["status"] == "error" and fragment in out["message"]
    assert out["t"] == [] and out["energy_error"] == []


def test_run_job_throttles_progress():
    seen = []
    t0 = time.perf_counter()
    jobs.run_job({"benchmark": "planar_pendulum", "method": "rk4", "h": 1e-5, "t_end": 5.0}, seen.append)
    wall = time.perf_counter() - t0
    assert seen and all(0.0 <= f <= 1.0 for f in seen)
    assert len(seen) <= wall / jobs.PROGRESS_INTERVAL + 2  # the first report, then at most one per interval


def test_energy_figure_one_trace_per_run_and_an_empty_state():
    a = jobs.run_job({"benchmark": "pendulum_3d", "method": "rk4", "h": 0.01, "t_end": 1.0})
    b = jobs.run_job({"benchmark": "pendulum_3d", "method": "rattlie", "h": 0.01, "t_end": 1.0})
    fig = figures.energy_figure([a, b])
    assert isinstance(fig, go.Figure) and len(fig.data) == 2
    assert {tr.name for tr in fig.data} == {"rk4, h=0.01", "rattlie, h=0.01"}
    assert all(tr.type == "scattergl" for tr in fig.data)
    assert "pendulum_3d" in fig.layout.title.text
    empty = figures.energy_figure([])
    assert len(empty.data) == 0 and "No run yet" in empty.layout.annotations[0].text


def test_config_cache_dir_and_secret_key(tmp_path, monkeypatch):
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "c"))
    monkeypatch.delenv(config.SECRET_KEY_ENV, raising=False)
    d = config.cache_dir()
    assert d == (tmp_path / "c").resolve() and d.is_dir()
    key = config.secret_key(d)
    assert len(key) == 64 and config.secret_key(d) == key  # stable across workers
    monkeypatch.setenv(config.SECRET_KEY_ENV, "explicit")
    assert config.secret_key(d) == "explicit"
    v = config.code_version()
    assert "+" in v and v == config.code_version()
