"""solvers.tableau: parsing (never evaluating), refusing malformed tableaus, order conditions and stability."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import tableau as tb
from solvers.tableaus import EXPLICIT


def test_tree_counts_are_the_known_ones():
    # OEIS A000081: rooted trees with n vertices
    assert [len(tb.trees(p)) for p in range(1, 9)] == [1, 1, 2, 4, 9, 20, 48, 115]
    assert sorted(tb.density(t) for t in tb.trees(3)) == [3, 6]
    assert sorted(tb.density(t) for t in tb.trees(4)) == [4, 8, 12, 24]


@pytest.mark.parametrize("name", list(EXPLICIT))
def test_library_tableau_has_its_known_order(name):
    known = EXPLICIT[name]["order"]
    a = tb.analyse(name, max_order=8)
    assert a["order"] == known, (name, a["order"], [t for t in a["trees"] if not t.holds][:3])
    assert a["consistent"] and a["row_sum_error"] < 1e-12
    # the default check (order 6) reports min(known, 6): DOP853 satisfies every condition it checks
    assert tb.analyse(name)["order"] == min(known, 6)
    assert len(tb.analyse(name)["trees"]) == 37


def test_one_residual_per_tree_with_its_formula():
    a = tb.analyse("kutta3")
    by = {t.condition: t for t in a["trees"]}
    assert by["b·1 = 1/1"].residual == pytest.approx(0.0, abs=1e-15)
    assert by["b·c^2 = 1/3"].holds and by["b·A(c) = 1/6"].holds
    # Simpson's weights: b·c^3 = 2/3 (1/8) + 1/6 = 1/4 holds; with three stages A(A(c)) = 0, not 1/24
    assert by["b·c^3 = 1/4"].holds
    assert by["b·A(A(c)) = 1/24"].residual == pytest.approx(-1 / 24)
    assert not by["b·A(A(c)) = 1/24"].holds


def test_wrong_rk4_coefficient_drops_the_order():
    spec = tb.tableau("rk4").spec()
    bad = tb._from_library("rk4")
    bad["A"][3][2] = "0.9"  # a_43 = 0.9 instead of 1 (c_4 follows: row sum)
    bad["c"] = None
    a = tb.analyse(bad)
    assert spec == "rk4" and a["order"] == 1 and a["consistent"]
    failing = [t.condition for t in a["trees"] if not t.holds]
    assert failing[0] == "b·c = 1/2"  # b·c = 1/6 + 1/6 + 0.9/6 != 1/2


@pytest.mark.parametrize(("name", "real", "imag"), [
    ("euler", 2.0, 0.0), ("heun", 2.0, 0.0), ("kutta3", 2.5127453266, 3**0.5), ("rk4", 2.7852935634, 8**0.5),
])
def test_stability_limits(name, real, imag):
    a = tb.analyse(name)
    assert a["real_limit"] == pytest.approx(real, abs=1e-8)
    assert a["imag_limit"] == pytest.approx(imag, abs=1e-8)
    # brute force on the axes agrees: stable up to the limit, unstable just beyond it
    r = a["stability"]
    x = np.linspace(0.0, a["real_limit"], 2001)
    assert np.all(tb.stability(r, -x) <= 1 + 1e-12)
    assert tb.stability(r, np.array([-a["real_limit"] - 1e-3]))[0] > 1


def test_stability_polynomial_of_rk4_is_the_exponential_series():
    assert np.allclose(tb.analyse("rk4")["stability"], [1, 1, 1 / 2, 1 / 6, 1 / 24])


def test_inconsistent_c_is_reported_and_limits_the_order():
    spec = tb._from_library("rk4")
    spec["c"] = ["0", "1/2", "1/2", "0.9"]
    a = tb.analyse(spec)
    assert not a["consistent"] and a["row_sum_error"] == pytest.approx(0.1)
    assert a["order_autonomous"] == 4 and a["order"] == 1


def test_embedded_order():
    assert tb.analyse("heun")["embedded_order"] == 1


@pytest.mark.parametrize(("text", "value"), [
    ("1/6", 1 / 6), ("-2/3", -2 / 3), (" 0.5 ", 0.5), ("3e-2", 0.03), ("1.5/3", 0.5), ("+1", 1.0), (".25", 0.25),
])
def test_parse_number(text, value):
    assert tb.parse_number(text) == value


@pytest.mark.parametrize("text", [
    "__import__('os')", "1/0", "2**3", "sqrt(5)", "1/2/3", "", "1/", "nan", "inf", "1e400/1", "1e999999999",
    "(1)", "1 2", "1_000",
])
def test_parse_number_refuses(text):
    with pytest.raises(ValueError):
        tb.parse_number(text)


def test_parse_rows():
    assert tb.parse_rows("0 0\n1/2, 0") == [[0.0, 0.0], [0.5, 0.0]]
    assert tb.parse_rows("0 0; 1 0") == [[0.0, 0.0], [1.0, 0.0]]


MALFORMED = [
    ({"A": [[0, 0], [1, 0, 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not square"),
    ({"A": [[0, 0, 0], [1, 0, 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not square"),
    ({"A": [[0, 0.5], [1, 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not explicit"),
    ({"A": [[0.1, 0], [1, 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not explicit"),
    ({"A": [[0, 0], [float("nan"), 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not finite"),
    ({"A": [[0, 0], [1, 0]], "b": [0.5, float("inf")], "c": [0, 1]}, "b", "not finite"),
    ({"A": np.zeros((17, 17)).tolist(), "b": [1 / 17] * 17, "c": [0] * 17}, "A", "at most 16 stages"),
    ({"A": [[0, 0], [1, 0]], "b": [0.5, 0.6], "c": [0, 1]}, "b", "not 1"),
    ({"A": [[0, 0], [1, 0]], "b": ["0.333333", "0.666666"], "c": [0, 1]}, "b", "not 1"),
    ({"A": [[0, 0], ["exec('1')", 0]], "b": [0.5, 0.5], "c": [0, 1]}, "A", "not a number"),
    ({"A": [[0, 0], [1, 0]], "b": [0.5, 0.5, 0.0], "c": [0, 1]}, "b", "A has 2 stages"),
    ("nosuch", "tableau", "unknown name"),
    ({"A": [[0]], "b": [1], "code": "x"}, "tableau", "unknown field"),
]


@pytest.mark.parametrize(("spec", "field", "words"), MALFORMED, ids=[m[2] + str(i) for i, m in enumerate(MALFORMED)])
def test_malformed_tableau_is_refused_by_message(spec, field, words):
    with pytest.raises(tb.TableauError) as exc:
        tb.analyse(spec)
    assert exc.value.field == field
    assert words in str(exc.value)


def test_text_tableau_round_trip():
    tab = tb.tableau({"A": "0 0\n1 0", "b": "1/2 1/2", "c": "0 1"})
    assert tab.name is None and tab.spec()["b"] == [0.5, 0.5]
    assert tb.analyse(tab)["order"] == 2
    # a dict naming a library tableau with its very numbers keeps the name (short URLs)
    assert tb.tableau({**tb._from_library("heun"), "name": "heun"}).name == "heun"
