"""solvers.papers: the seed experiments as data, run shortened through solvers.simulate, JSON-able output,
claims computed for every registered method."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import solvers
from solvers import papers

T_END = 2.0  # s: the seed runs 50 s; 2 s keeps the test fast


@pytest.fixture(scope="module")
def seed000():
    return papers.run_experiment("seed000", max_samples=200, t_end=T_END)


def test_registry_shape():
    assert "seed000" in papers.experiments()
    for exp in papers.EXPERIMENTS.values():
        labels = [r.label for r in exp.runs]
        assert len(labels) == len(set(labels))
        for s in exp.series:
            assert set(s.labels) <= set(labels), s.key
        for c in exp.claims:
            assert set(c.labels) <= set(labels), c.key
        for r in exp.runs:
            assert r.benchmark in solvers.benchmarks()
        json.dumps(exp.describe())
    labels = {r.label: r.method for r in papers.SEED000.runs}
    assert labels["DH"] == "lgvi" and labels["RL"] == "rattlie" and labels["DL"] == "lgvi_lagrangian"
    assert labels["Lie-alpha"] == "lie_galpha"
    assert papers.SEED000.run_by_label("Lie-alpha").options["rho_inf"] == 0.9


def test_seed000_runs_and_is_json(seed000):
    text = json.dumps(seed000, allow_nan=False)  # NaN became null: strict JSON
    assert json.loads(text)["id"] == "seed000"
    registered = set(solvers.methods("spatial_double_pendulum"))
    ran = {r["label"]: r for r in seed000["runs"]}
    for run in papers.SEED000.runs:
        if run.method in registered:
            assert run.label in ran
        else:
            assert any(run.label in note and "not registered" in note for note in seed000["skipped"])
    assert "RL" in ran and "ref" in ran
    for r in ran.values():
        assert r["status"] == "ok", r["message"]
        assert abs(r["t"][-1] - T_END) < 1e-9
        for key, values in r["series"].items():
            assert len(values) == len(r["t"]), key
    rl = ran["RL"]
    assert set(rl["series"]) == {"x2_X", "omega2_X", "energy_error", "orthogonality_error", "velocity_constraint_A"}
    assert rl["series"]["x2_X"][0] == pytest.approx(-0.5)  # rod 2's centre of mass starts at [-0.5, 1, 0]
    assert rl["summary"]["max_orthogonality_error"] <= 1e-12
    assert max(rl["series"]["orthogonality_error"]) <= 1e-12
    assert rl["summary"]["max_constraint_velocity"] <= 1e-12


def test_reference_samples_align_with_the_paper_runs(seed000):
    ran = {r["label"]: r for r in seed000["runs"]}
    assert np.allclose(ran["ref"]["t"], ran["RL"]["t"], rtol=0, atol=1e-9)


def test_claims_well_formed(seed000):
    claims = {c["id"]: c for c in seed000["claims"]}
    assert set(claims) == {c.key for c in papers.SEED000.claims}
    registered = set(solvers.methods("spatial_double_pendulum"))
    for spec in papers.SEED000.claims:
        c = claims[spec.key]
        assert c["paper"] and c["claim"] and c["criterion"] and c["measured"]
        if spec.evaluate is None:
            assert c["status"] == "not applicable" and c["reproduced"] is None
        elif all(papers.SEED000.run_by_label(lab).method in registered for lab in spec.labels):
            assert isinstance(c["reproduced"], bool), spec.key
            assert c["status"] == ("reproduced" if c["reproduced"] else "not reproduced")
        else:
            assert c["status"] == "not measured" and c["reproduced"] is None
            assert "not registered" in c["measured"]
    # a claim that must hold by construction once RL runs: RL keeps R orthogonal to round-off
    if claims["orthogonality"]["reproduced"] is not None:
        assert claims["orthogonality"]["values"]["values"]["RL"] <= 1e-12
    assert claims["rl_velocity"]["reproduced"] is True


def test_missing_method_is_skipped_with_a_note(monkeypatch):
    exp = papers.Experiment(
        id="tmp", seed="000", section="3", title="t", source="s", setup="s", says=(),
        runs=(papers.Run("RL", "spatial_double_pendulum", "rattlie", 1e-3, 0.05),
              papers.Run("X", "spatial_double_pendulum", "no_such_method", 1e-3, 0.05)),
        series=(papers.Series("x2_X", "x", "Fig. 3", "m", ("RL", "X"), papers.rod2_x),),
        claims=(papers.Claim("c", "c", "p", "k", ("RL", "X"), lambda runs: ("m", True, {})),
                papers.Claim("d", "d", "p", "k", ("RL",),
                             papers.summary_below("max_orthogonality_error", ("RL",), 1e-12, "orth"))),
    )
    monkeypatch.setitem(papers.EXPERIMENTS, "tmp", exp)
    fractions = []
    out = papers.run_experiment("tmp", max_samples=10, progress=fractions.append)
    assert [r["label"] for r in out["runs"]] == ["RL"]
    assert "no_such_method" in out["skipped"][0] and "not registered" in out["skipped"][0]
    c, d = out["claims"]
    assert c["status"] == "not measured" and c["reproduced"] is None and "not registered" in c["measured"]
    assert d["status"] == "reproduced" and d["reproduced"] is True
    assert fractions and fractions[-1] == 1.0 and all(0 <= f <= 1 for f in fractions)


def test_cancel_and_bad_input(monkeypatch):
    with pytest.raises(ValueError, match="seed000"):
        papers.run_experiment("nope")
    with pytest.raises(ValueError):
        papers.run_experiment("seed000", t_end=-1.0)
    out = papers.run_experiment("seed000", t_end=T_END, progress=lambda f: False)
    assert out["status"] == "cancelled"
    assert all(c["status"] in ("not measured", "not applicable") for c in out["claims"])


def test_cli(capsys, tmp_path):
    assert papers.main(["list"]) == 0
    assert "seed000" in capsys.readouterr().out
    path = tmp_path / "s.json"
    assert papers.main(["run", "seed000", "--t-end", "0.5", "--max-samples", "50", "--out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "orthogonality" in printed and "paper:" in printed and "measured:" in printed
    data = json.loads(path.read_text())
    assert data["id"] == "seed000" and data["claims"]
    assert papers.main(["run", "nope"]) == 2


def test_joint_a_velocity_matches_the_constraint_norm():
    """At the fixed joint O the velocity constraint of rod 1 is |v1 + R1 (Omega1 x X11)|; for a method keeping
    both constraint levels, the norm over both joints bounds the joint-A series."""
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=1e-3, t_end=0.2,
                           params={"Omega1": [0.3, 1.0, -0.2], "Omega2": [0.1, -2.0, 0.5]})
    a = papers.joint_a_velocity(res)
    assert np.all(a <= res.constraint_velocity + 1e-15)
    assert math.isclose(papers.rod2_x(res)[0], res.state["x"][0, 1, 0])


# seed 002: rotation from angular velocity (full 2 s runs: a few ms each)


@pytest.fixture(scope="module")
def seed002():
    return papers.run_experiment("seed002", max_samples=500)


def test_seed002_runs_series_and_claims(seed002):
    text = json.dumps(seed002, allow_nan=False)
    assert json.loads(text)["id"] == "seed002"
    ran = {r["label"]: r for r in seed002["runs"]}
    assert set(ran) == {"method 1", "method 2", "quaternion", "RKMK4", "Magnus-4"}
    m1, m2 = ran["method 1"], ran["method 2"]
    assert m1["status"] == "failed" and "singularity" in m1["message"]
    assert m2["status"] == "ok" and abs(m2["t"][-1] - 2.0) < 1e-9
    for lab in ("quaternion", "RKMK4", "Magnus-4"):
        assert ran[lab]["status"] == "ok"
        assert ran[lab]["t"] == pytest.approx(m2["t"])  # sampled at the paper runs' times
    assert set(m2["series"]) == {"theta_1", "theta_2", "theta_3", "theta_norm", "rotation_error"}
    for r in ran.values():
        for key, values in r["series"].items():
            assert len(values) == len(r["t"]), key
    # Fig. 6: method 1 stays below 2 pi until it stops; method 2 stays in the stable region
    assert max(m1["series"]["theta_norm"]) < 2 * np.pi
    assert max(m2["series"]["theta_norm"]) <= 1.5 * np.pi + 1e-9
    assert m2["series"]["theta_2"][1] == pytest.approx(5 * m2["t"][1], rel=1e-8)  # theta_2 = 5 t before switching
    assert len(m2["summary"]["switch_times"]) == m2["summary"]["switches"] >= 2
    claims = {c["id"]: c for c in seed002["claims"]}
    assert set(claims) == {c.key for c in papers.SEED002.claims}
    for c in claims.values():
        assert isinstance(c["reproduced"], bool), c
    assert claims["method1_fails"]["values"]["t_fail"] == pytest.approx(
        claims["method1_fails"]["values"]["t_singular"], abs=1e-3)


def test_seed002_shortened_run_does_not_claim_the_failure():
    """Shortened to 0.4 s, method 1 has not reached the singularity: the claim is then not measured, not passed."""
    out = papers.run_experiment("seed002", max_samples=50, t_end=0.4)
    claims = {c["id"]: c for c in out["claims"]}
    assert claims["method1_fails"]["reproduced"] is None and claims["method1_fails"]["status"] == "not measured"
    assert "before |theta_exact| reaches 2 pi" in claims["method1_fails"]["measured"]
    assert claims["method2_completes"]["reproduced"] is True


def test_norm_crossings():
    t = papers.norm_crossings(2 * np.pi)
    assert len(t) == 1 and t[0] == pytest.approx(0.5217944, abs=1e-6)
    from solvers.models.angular_velocity import theta_exact

    assert np.linalg.norm(theta_exact(t[0])) == pytest.approx(2 * np.pi, abs=1e-12)
