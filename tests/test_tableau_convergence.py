"""A tableau on the Convergence page: the study takes method options (solvers.studies), predicts the order of the
tableau actually used (solvers.tableau.analyse) and shows it beside the observed one; the page's link and form
checks (app.convergence) and the Method lab's link to it (app.method_lab_view)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlparse

import pytest

from app import convergence as conv
from app import method_lab_view as view
from solvers import studies
from solvers import tableau as tb

HEUN_TYPED = {"A": [["0", "0"], ["1", "0"]], "b": ["1/2", "1/2"]}  # as a user types it: text, c left out
# RK4 with b_2 and b_3 swapped for 1/2 and 1/6: sum(b) = 1 and every order-2 condition still holds (c_2 = c_3)
WRONG_RK4 = {"A": [[0, 0, 0, 0], ["1/2", 0, 0, 0], [0, "1/2", 0, 0], [0, 0, 1, 0]],
             "b": ["1/6", "1/2", "1/6", "1/6"]}
STUDY = {"benchmark": "planar_pendulum", "methods": ["erk", "rk4"], "h": 0.1, "levels": 3, "t_end": 2.0}


@pytest.fixture(scope="module")
def heun_study():
    return studies.run_study({**STUDY, "options": {"erk": {"tableau": HEUN_TYPED}}})


def test_study_predicts_the_order_of_the_typed_tableau_and_observes_it(heun_study):
    s = heun_study
    assert s["status"] == "ok", s["message"]
    assert s["options"]["erk"]["tableau"] == {"A": [[0.0, 0.0], [1.0, 0.0]], "b": [0.5, 0.5], "c": [0.0, 1.0]}
    fit = s["fits"]["erk"]
    # predicted from the typed numbers (erk's default tableau is rk4, order 4), observed on the exact solution
    assert fit["theoretical"] == tb.analyse(s["options"]["erk"]["tableau"])["order"] == 2
    assert fit["points"] == 3 and abs(fit["order"] - 2.0) < 0.3, fit
    assert s["fits"]["rk4"]["theoretical"] == 4 and abs(s["fits"]["rk4"]["order"] - 4.0) < 0.3
    line = next(x for x in conv.fits_summary(s) if x.startswith("erk"))
    assert line.startswith("erk (tableau: your own, 2 stages): observed order 2.")
    assert line.endswith("predicted 2 (from its tableau's order conditions)")
    assert conv.method_label(s, "erk").endswith("(predicted 2)")


def test_every_run_of_the_method_uses_the_tableau(heun_study):
    """The study's error of an erk run is Heun's error against the exact (elliptic) solution."""
    import numpy as np

    import solvers
    from solvers.references import solutions

    run = next(r for r in heun_study["runs"] if r["method"] == "erk" and r["h"] == 0.05)
    res = solvers.simulate("planar_pendulum", "erk", h=0.05, t_end=2.0, options={"tableau": "heun"})
    d = solvers.describe("planar_pendulum")["params"]
    theta, omega = solutions.planar_pendulum_exact(res.t[::2], **{k: d[k] for k in ("m", "J", "l", "g", "theta0",
                                                                                    "omega0")})
    exact = max(np.abs(res.state["theta"][::2] - theta).max(), np.abs(res.state["omega"][::2] - omega).max())
    assert run["error"] == pytest.approx(exact, rel=1e-12)
    # its Run page link carries the tableau, rk4's none
    rows = conv.table_rows(heun_study)
    erk = dict(parse_qsl(urlparse(next(r for r in rows if r["method"] == "erk")["href"]).query))
    assert json.loads(erk["o.erk.tableau"]) == heun_study["options"]["erk"]["tableau"]
    assert not any("o.rk4" in r["href"] for r in rows)


def test_a_wrong_coefficient_lowers_the_predicted_order():
    p = studies.plan({**STUDY, "options": {"erk": {"tableau": WRONG_RK4}}})
    predicted = studies.theoretical_order("erk", p["options"]["erk"])
    assert predicted == tb.analyse(WRONG_RK4)["order"] == 2
    assert studies.theoretical_order("erk") == 4 and studies.theoretical_order("erk", {"tableau": "euler"}) == 1


@pytest.mark.parametrize(("options", "words"), [
    ({"rk4": {"nope": 1}}, "unknown option(s) 'nope'"),
    ({"spark": {}}, "not among the study's methods"),
    ({"erk": {"tableau": "zzz"}}, "unknown name 'zzz'"),
    ({"erk": {"tableau": {"A": [[0, 1], [0, 0]], "b": [0.5, 0.5]}}}, "not explicit"),
    ({"erk": {"tableau": {"A": [[0] * 17] * 17, "b": [1] + [0] * 16}}}, "at most 16 stages"),
    ({"erk": {"tableau": "{" + "x" * 30_000}}, "too long"),
    ({"erk": 3}, "must be a mapping"),
    ("erk", "must be a mapping"),
])
def test_bad_options_are_refused_by_message(options, words):
    with pytest.raises(ValueError) as exc:
        studies.plan({**STUDY, "options": options})
    assert words in str(exc.value)
    out = studies.run_study({**STUDY, "options": options})
    assert out["status"] == "error" and words in out["message"] and out["runs"] == []


def test_a_study_without_options_is_unchanged():
    p = studies.plan(STUDY)
    assert p["options"]["rk4"] == {} and p["options"]["erk"]["tableau"] == "rk4"


def test_share_link_round_trips_the_form_with_its_tableau():
    form = {"benchmark": "two_link_arm", "methods": ["erk", "rk4"], "h": 0.02, "levels": 4, "t_end": 2,
            "options": {"erk": {"tableau": view.encode(tb.tableau(HEUN_TYPED).spec())}}}
    query = conv.share_query(form)
    assert "levels=4" in query and "o.erk.tableau=" in query and "o.rk4" not in query
    again = conv.initial_form(query)
    assert again == {**form, "options": form["options"]}
    resolved, errors = conv.check_form_options(again["benchmark"], again["methods"], again["options"])
    assert errors == {} and conv.predicted_orders(resolved) == (
        "Predicted orders: erk 2 (from its tableau's order conditions), rk4 4.")


def test_form_options_are_checked_as_the_run_page_checks_them():
    _, errors = conv.check_form_options("planar_pendulum", ["erk"], {"erk": {"tableau": "{\"A\": [[0, 1], [0, 0]]"}})
    assert set(errors) == {"option:erk:tableau"} and "not valid JSON" in errors["option:erk:tableau"]
    _, errors = conv.check_form_options("planar_pendulum", ["erk"], {"erk": {"tableau": "heun3"}})
    assert errors == {}


def test_mangled_link_falls_back_to_the_defaults():
    form = conv.initial_form("?benchmark=nope&methods=zzz,rk4&levels=abc&o.zzz.x=1&o.rk4.bogus=2")
    assert form["benchmark"] == studies.DEFAULT_BENCHMARK and form["methods"] == ["rk4"]
    assert form["levels"] == studies.DEFAULT_LEVELS and form["options"] == {}


def test_method_lab_links_to_the_convergence_page_with_its_tableau():
    out = view.check(view.CUSTOM, "0 0\n1 0", "1/2 1/2", "", "spatial_double_pendulum")
    assert out["convergence_href"].startswith("/convergence?")
    form = conv.initial_form(urlparse(out["convergence_href"]).query)
    assert form["benchmark"] == "spatial_double_pendulum" and form["methods"] == ["erk", "rk4"]
    resolved, errors = conv.check_form_options(form["benchmark"], form["methods"], form["options"])
    assert errors == {} and resolved["erk"]["tableau"] == out["spec"]
    assert studies.theoretical_order("erk", resolved["erk"]) == out["order"] == 2
