"""solvers.papers seed001: seed 001's Tables 1-2 (H23G2, H33G2, RK4 on the two-link arm) run shortened, with the
claims measured; the full 100 s run is `python -m solvers.papers run seed001` (about 1 s of solver time)."""

from __future__ import annotations

import json

import pytest

from solvers import papers

T_END = 10.0  # s: the seed runs 100 s


@pytest.fixture(scope="module")
def seed001():
    return papers.run_experiment("seed001", max_samples=400, t_end=T_END)


def test_shape():
    exp = papers.SEED001
    assert "seed001" in papers.experiments()
    assert {r.method for r in exp.runs} == {"hermite_h23g2", "hermite_h33g2", "rk4"}
    assert {r.h for r in exp.runs} == {0.01, 0.005}
    assert set(papers.SEED001_TABLES) == {r.label for r in exp.runs if not r.options}
    # the Hermite runs once more with the interpolants' own acceleration (issue: which d2Phi the seed used)
    assert {r.label for r in exp.runs if r.options} == {f"{m} h={h} interpolant" for m in ("H23G2", "H33G2")
                                                        for h in ("0.01", "0.005")}
    json.dumps(exp.describe())


def test_runs_and_claims(seed001):
    json.dumps(seed001, allow_nan=False)
    runs = {r["label"]: r for r in seed001["runs"]}
    assert len(runs) == 10 and not seed001["skipped"]
    for r in runs.values():
        assert r["status"] == "ok", r["message"]
        assert abs(r["t"][-1] - T_END) < 1e-9
    claims = {c["id"]: c for c in seed001["claims"]}
    assert set(claims) == {c.key for c in papers.SEED001.claims}
    for c in claims.values():
        assert c["measured"]
    # claims that hold on any horizon for these methods
    assert claims["phi_roundoff"]["reproduced"] is True
    assert claims["rk4_acceleration"]["reproduced"] is True
    assert claims["rk4_phi"]["reproduced"] is True
    assert claims["tables"]["status"] == "not measured" and claims["tables"]["reproduced"] is None
    vals = claims["tables"]["values"]
    assert vals["RK4 h=0.01"]["paper"]["max_energy_error"] == 30.1090
    assert vals["H23G2 h=0.01"]["measured"]["max_constraint_position"] <= 1e-12
    # H23G2 and H33G2 coincide in position on this constant-force problem: the velocity levels agree closely
    h23 = runs["H23G2 h=0.01"]["summary"]["max_constraint_velocity"]
    h33 = runs["H33G2 h=0.01"]["summary"]["max_constraint_velocity"]
    assert h23 == pytest.approx(h33, rel=0.05)


def test_tip_series(seed001):
    runs = {r["label"]: r for r in seed001["runs"]}
    x, y = runs["H33G2 h=0.01"]["series"]["tip2_x"], runs["H33G2 h=0.01"]["series"]["tip2_y"]
    assert x[0] == pytest.approx(1.0 + 3**0.5) and y[0] == pytest.approx(0.0, abs=1e-12)
