"""erk: explicit Runge-Kutta from a Butcher tableau. Equal to rk4 with the RK4 tableau; each library tableau's
observed order on the planar pendulum (exact solution) and the two-link arm (independent reference) is the order
solvers.tableau.analyse reports; a wrong coefficient drops both; malformed tableaus never run."""

from __future__ import annotations

import json

import numpy as np
import pytest

import solvers
from solvers import cli
from solvers import tableau as tb
from solvers.references import solutions as ref
from solvers.registry import BENCHMARKS, METHODS, applies
from solvers.tableaus import EXPLICIT
from tests.convergence import observed_order

SHORT = {"spatial_chain": 0.2}


@pytest.mark.parametrize("bench", [b for b in BENCHMARKS if applies("rk4", b)])
def test_erk_rk4_equals_rk4(bench):
    spec = BENCHMARKS[bench]
    t_end = SHORT.get(bench, 50 * spec.default_h)
    a = solvers.simulate(bench, "rk4", h=spec.default_h, t_end=t_end)
    b = solvers.simulate(bench, "erk", h=spec.default_h, t_end=t_end, options={"tableau": "rk4"})
    assert a.status == b.status == "ok"
    for key in a.state:
        # the same arithmetic (weights as h/6 (k1 + 2 k2 + 2 k3 + k4), stages as rk4's): the same bits
        assert np.array_equal(a.state[key], b.state[key]), key
    assert np.array_equal(a.energy, b.energy, equal_nan=True)


def err_planar(tab):
    def error(h):
        # t_end on the step grid (simulate refuses one between two multiples of h)
        res = solvers.simulate("planar_pendulum", "erk", h=h, t_end=h * round(10.0 / h), options={"tableau": tab})
        assert res.status == "ok", res.message
        th, om = ref.planar_pendulum_exact(res.t)
        return np.abs(res.state["theta"] - th).max() + np.abs(res.state["omega"] - om).max()

    return error


def err_two_link(tab):
    def error(h):
        res = solvers.simulate("two_link_arm", "erk", h=h, t_end=h * round(2.0 / h), options={"tableau": tab})
        assert res.status == "ok", res.message
        q, qd = ref.two_link_arm_reference(res.t)
        return np.abs(res.state["q"] - q).max() + np.abs(res.state["qdot"] - qd).max()

    return error


# step sizes in each order's asymptotic range and above round-off and the reference's accuracy (about 3e-12 on
# the two-link arm); (planar pendulum, two-link arm)
_G = [1.0, 1 / 1.5, 1 / 1.5**2, 1 / 1.5**3]
HS = {
    1: ([8e-4, 4e-4, 2e-4, 1e-4], [0.002, 0.001, 0.0005, 0.00025]),
    2: ([0.05, 0.025, 0.0125, 0.00625], [0.01, 0.005, 0.0025, 0.00125]),
    3: ([0.05, 0.025, 0.0125, 0.00625], [0.01, 0.005, 0.0025, 0.00125]),
    4: ([0.05, 0.025, 0.0125, 0.00625], [0.01, 0.005, 0.0025, 0.00125]),
    5: ([0.04 * g for g in _G], [0.04 * g for g in _G]),
    8: ([0.2 * g for g in _G], [0.0256, 0.02048, 0.016384, 0.0131072]),
}


@pytest.mark.parametrize("name", list(EXPLICIT))
def test_observed_order_is_the_reported_one(name):
    p = tb.analyse(name, max_order=8)["order"]
    assert p == EXPLICIT[name]["order"]
    assert METHODS["erk"].order_of({"tableau": name}) == p
    hp, ht = HS[p]
    for make, hs, where in ((err_planar, hp, "planar_pendulum"), (err_two_link, ht, "two_link_arm")):
        order, errs = observed_order(make(name), hs)
        assert abs(order - p) <= 0.3, f"{name} on {where}: observed {order:.2f}, reported {p}, errors {errs}"


def test_wrong_coefficient_drops_reported_and_observed_order():
    bad = tb._from_library("rk4")
    bad["A"][3][2] = "0.9"  # a_43 = 0.9 instead of 1
    bad["c"] = None
    p = tb.analyse(bad)["order"]
    assert p == 1 and METHODS["erk"].order_of({"tableau": bad}) == 1
    order, errs = observed_order(err_planar(bad), HS[1][0])
    assert abs(order - p) <= 0.3, (order, errs)


def test_embedded_estimate_is_reported_and_tracks_the_local_error():
    res = solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=2.0, options={"tableau": "heun"})
    res2 = solvers.simulate("planar_pendulum", "erk", h=0.005, t_end=2.0, options={"tableau": "heun"})
    e1, e2 = res.summary["error_estimate_max"], res2.summary["error_estimate_max"]
    # Heun-Euler: the estimate is the Euler step's local error, O(h^2)
    assert 0 < e2 < e1 and 2**1.7 < e1 / e2 < 2**2.3, (e1, e2)
    assert solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=0.1).summary["error_estimate_max"] == 0.0


def test_user_tableau_as_fractions_runs_like_the_library_one():
    heun = {"A": [["0", "0"], ["1", "0"]], "b": ["1/2", "1/2"], "c": ["0", "1"]}
    a = solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=1.0, options={"tableau": heun})
    b = solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=1.0, options={"tableau": "heun"})
    assert np.array_equal(a.state["theta"], b.state["theta"])
    assert a.options["tableau"] == {"A": [[0.0, 0.0], [1.0, 0.0]], "b": [0.5, 0.5], "c": [0.0, 1.0]}
    assert b.options["tableau"] == "heun"


def test_one_kernel_serves_every_tableau():
    kern = METHODS["erk"].kernel
    solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=0.05, options={"tableau": "rk4"})
    compiled = kern.for_kind(1)
    before = len(compiled.signatures)
    for name in ("euler", "dop853", {"A": [[0, 0], ["2/3", 0]], "b": ["1/4", "3/4"]}):
        solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=0.05, options={"tableau": name})
    assert len(compiled.signatures) == before


MALFORMED_OPTIONS = [
    {"A": [[0, 0], [1, 0, 0]], "b": [0.5, 0.5]},
    {"A": [[0, 1], [0, 0]], "b": [0.5, 0.5]},
    {"A": [[1, 0], [1, 0]], "b": [0.5, 0.5]},
    {"A": [[0, 0], ["nan", 0]], "b": [0.5, 0.5]},
    {"A": [[0, 0], [1e400, 0]], "b": [0.5, 0.5]},
    {"A": np.zeros((17, 17)).tolist(), "b": [1 / 17] * 17},
    {"A": [[0, 0], [1, 0]], "b": [0.5, 0.4]},
    {"A": [[0, 0], ["os.system('x')", 0]], "b": [0.5, 0.5]},
    "no_such_tableau",
    ["rk4"],
]


@pytest.mark.parametrize("bad", MALFORMED_OPTIONS, ids=[f"bad{i}" for i in range(len(MALFORMED_OPTIONS))])
def test_malformed_tableau_is_refused_and_never_runs(bad, monkeypatch):
    def no_run(*_a, **_k):
        raise AssertionError("a malformed tableau reached the driver")

    monkeypatch.setattr(solvers.driver, "run", no_run)
    with pytest.raises(ValueError, match="option 'tableau': tableau"):
        solvers.simulate("planar_pendulum", "erk", h=0.01, t_end=0.1, options={"tableau": bad})


def test_weights_reproduce_rk4_arithmetic():
    D, w = tb.weights(tb.tableau("rk4").b)
    assert D == 6.0 and w.tolist() == [1.0, 2.0, 2.0, 1.0]
    D, w = tb.weights(tb.tableau("ralston4").b)
    assert D == 1.0


def test_cli_takes_a_name_and_a_file(tmp_path):
    out = tmp_path / "heun.json"
    out.write_text(json.dumps({"A": [[0, 0], [1, 0]], "b": ["1/2", "1/2"], "c": [0, 1]}))
    assert cli._value("@" + str(out)) == {"A": [[0, 0], [1, 0]], "b": ["1/2", "1/2"], "c": [0, 1]}
    assert cli._value("heun") == "heun"
    with pytest.raises(ValueError, match="cannot read"):
        cli._value("@" + str(tmp_path / "missing.json"))


def test_cli_runs_a_tableau_file(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"A": [[0, 0], ["1/2", 0]], "b": [0, 1]}))
    code = cli.main(["run", "planar_pendulum", "erk", "--h", "0.01", "--t-end", "0.1", "--option", f"tableau=@{f}"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["options"]["tableau"]["b"] == [0.0, 1.0]
    code = cli.main(["run", "planar_pendulum", "erk", "--h", "0.01", "--t-end", "0.1", "--option", "tableau=heun"])
    assert code == 0 and json.loads(capsys.readouterr().out)["options"]["tableau"] == "heun"
    code = cli.main(["run", "planar_pendulum", "erk", "--h", "0.01", "--t-end", "0.1", "--option", "tableau=nope"])
    assert code == 2 and "unknown name 'nope'" in capsys.readouterr().err
