"""solvers.compare: the Run page's figures and table for Results, without Dash (a notebook's view)."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

import solvers
from app import jobs
from solvers import figures, references


def test_compare_returns_the_run_pages_figures_and_table():
    res = [solvers.simulate("two_link_arm", m, h=0.01, t_end=1.0) for m in ("rk4", "hermite_h33g2")]
    out = solvers.compare(res)
    assert set(out) == {"trajectory", "error", "energy", "constraint", "orthogonality", "momentum", "scene", "table",
                        "table_text"}
    assert all(isinstance(out[k], go.Figure) for k in out if not k.startswith("table"))
    assert [t.name for t in out["error"].data] == ["rk4, h=0.01", "hermite_h33g2, h=0.01"]
    # the table's max error is the library's, as on the Run page
    assert [r["max_error"] for r in out["table"]] == [references.error(r).max() for r in res]
    assert [float(r["max_error_value"]) for r in out["table_text"]] == [r["max_error"] for r in out["table"]]
    row = out["table"][0]
    assert isinstance(row["steps"], int) and row["steps"] == 100 and isinstance(row["max_energy_error"], float)
    assert row["error_unit"] and row["run"] == "rk4, h=0.01"
    # and the same dict the dashboard builds from its run cache gives the same figure
    page = jobs.simulate({"benchmark": "two_link_arm", "method": "rk4", "h": 0.01, "t_end": 1.0, "params": {},
                          "options": {}}, max_samples=None)
    mine = figures.error_figure([figures.record(res[0])])
    assert figures.error_figure([page])["data"][0]["y"] == mine["data"][0]["y"]


def test_compare_refuses_what_it_cannot_show():
    with pytest.raises(ValueError, match="non-empty list of Results"):
        solvers.compare([])
    a = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=0.1)
    b = solvers.simulate("two_link_arm", "rk4", h=0.01, t_end=0.1)
    with pytest.raises(ValueError, match="one benchmark"):
        solvers.compare([a, b])
    assert solvers.compare([a], reference=False)["error"].layout.annotations  # says there is no reference
