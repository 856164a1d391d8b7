"""The Method lab: its pure view (app.method_lab_view) and the page's callbacks called directly."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlparse

import pytest

from app import jobs, urlstate
from app import method_lab_view as view
from solvers import tableau as tb

HEUN = ("0 0\n1 0", "1/2 1/2", "0 1")


def test_heun_typed_as_fractions_is_order_two_with_its_region():
    out = view.check(view.CUSTOM, *HEUN, "spatial_double_pendulum")
    assert out["errors"] == {} and out["order"] == 2
    assert out["summary"].startswith("Order 2, 2 stages, consistent")
    assert "[-2, 0] of the real axis" in out["summary"] and "nowhere on the imaginary axis" in out["summary"]
    assert [r["holds"] for r in out["rows"]][:4] == ["yes", "yes", "no", "no"] and len(out["rows"]) == 37
    assert "R(z) = 1 + z + 0.5 z^2<br>" in out["figure"].layout.title.text
    # typed as the library's own text, the links carry the short name
    named = view.check("heun", *view.fields_of("heun").values(), "spatial_double_pendulum")
    assert named["spec"] == "heun" and "o.erk.tableau=heun" in named["run_href"]


@pytest.mark.parametrize(("fields", "where", "words"), [
    (("0 1\n0 0", "1/2 1/2", ""), "A", "not explicit"),
    (("0 0\n1 0", "1/2 1/3", ""), "b", "not 1"),
    (("0 0\n1 0", "1/2 1/2", "0 x"), "c", "not a number"),
    (("0 0\n1", "1/2 1/2", ""), "A", "not square"),
])
def test_bad_tableau_message_under_its_field(fields, where, words):
    out = view.check(view.CUSTOM, *fields, "planar_pendulum")
    assert set(out["errors"]) == {where} and words in out["errors"][where]


def test_run_link_reaches_the_run_form_and_its_checks():
    out = view.check(view.CUSTOM, *HEUN, "spatial_double_pendulum")
    form = urlstate.form_from_query(urlparse(out["run_href"]).query)
    assert form["benchmark"] == "spatial_double_pendulum" and form["methods"] == ["erk", "rk4"]
    options, errors = jobs.check_options("erk", form["options"]["erk"])
    assert errors == {} and options["tableau"] == {"A": [[0.0, 0.0], [1.0, 0.0]], "b": [0.5, 0.5], "c": [0.0, 1.0]}


def test_share_link_reopens_the_same_tableau():
    out = view.check(view.CUSTOM, *HEUN, "two_link_arm")
    query = dict(parse_qsl(urlparse(out["share_href"]).query))
    name, fields, bench = view.lab_state(query)
    assert name == view.CUSTOM and bench == "two_link_arm"
    again = view.check(name, fields["A"], fields["b"], fields["c"], bench)
    assert again["spec"] == out["spec"] and again["rows"] == out["rows"] and again["share_href"] == out["share_href"]


def test_mangled_share_link_falls_back():
    assert view.lab_state({"tableau": "{nope"}) == (view.CUSTOM, {}, None)
    assert view.lab_state({"tableau": "__import__('os')"}) == (view.CUSTOM, {}, None)


def test_every_library_tableau_round_trips_through_its_fields():
    for name in view.EXPLICIT:
        f = view.fields_of(name)
        out = view.check(name, f["A"], f["b"], f["c"], "planar_pendulum")
        assert out["spec"] == name and out["order"] == min(view.EXPLICIT[name]["order"], tb.MAX_ORDER)


def test_page_layout_and_callbacks():
    from app import main  # noqa: F401  (the Dash app registers the pages)
    from app.pages import method_lab as page

    assert page.layout() is not None
    assert page.layout(tableau="{bad", benchmark="nope") is not None
    assert page.fill("rk4") == [view.fields_of("rk4")[k] for k in ("A", "b", "c")]
    res = page.analyse(*HEUN, "spatial_double_pendulum", "custom")
    assert res[:4] == ("", "", "", "") and "Order 2" in res[4].children
    bad = page.analyse("0 1\n0 0", "1/2 1/2", "", "planar_pendulum", "custom")
    assert "not explicit" in bad[0]


def test_stability_figure_marks_the_benchmarks_h_lambda():
    """planar_pendulum: lambda = +-i sqrt(m g l / J) at theta0 = 0 (solvers.linearisation), drawn at h lambda
    with h its default step; Heun's region holds no point of the imaginary axis but 0, RK4's reaches 2.83 i."""
    import math

    import solvers

    h = solvers.describe("planar_pendulum")["default_h"]
    w = h * math.sqrt(2.0 * 9.81 * 0.6 / 0.48)
    for name, inside in (("heun", 0), ("rk4", 2)):
        out = view.check(name, *view.fields_of(name).values(), "planar_pendulum")
        trace = next(t for t in out["figure"].data if t.name == "h lambda")
        assert sorted(trace.y) == pytest.approx([-w, w], rel=1e-8) and trace.x == pytest.approx([0, 0], abs=1e-9)
        title = out["figure"].layout.title.text
        said = f"the 2 eigenvalues of planar_pendulum's linearised right-hand side at its initial state times h = {h:g}"
        assert said in title and title.endswith(f"{inside} in the region</sup>")
    # released horizontal at rest: every eigenvalue 0, drawn as one mark with its count
    out = view.check(view.CUSTOM, *HEUN, "spatial_double_pendulum")
    names = [t.name for t in out["figure"].data]
    assert names[-1] == "h lambda = 0 (36 of them)" and "h lambda" not in names
