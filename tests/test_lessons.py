"""The lessons (solvers.lessons): every sentence that states a fact about a result holds on the computed data,
for every value the page's "try it" control offers; charts are annotated from the data; the texts keep the
page's rules (3-6 sentences, at most one formula) and the Run page link opens valid runs."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app import jobs, lessons_view, urlstate
from solvers import lessons

CASES = [(lid, v) for lid, lesson in lessons.LESSONS.items() for v in lesson.try_it.values]


@pytest.fixture(scope="module")
def computed() -> dict:
    return {}


def _data(computed: dict, lid: str, value: float) -> dict:
    if (lid, value) not in computed:
        computed[(lid, value)] = lessons.run_lesson(lid, value)
    return computed[(lid, value)]


@pytest.mark.xdist_group("lessons")
@pytest.mark.parametrize(("lid", "value"), CASES)
def test_every_stated_fact_holds(computed, lid, value):
    data = _data(computed, lid, value)
    assert data["claims"], lid
    failing = [c["text"] for c in data["claims"] if not c["holds"]]
    assert not failing, failing


@pytest.mark.xdist_group("lessons")
@pytest.mark.parametrize("lid", list(lessons.LESSONS))
def test_charts_are_annotated_where_the_data_is(computed, lid):
    lesson = lessons.LESSONS[lid]
    data = _data(computed, lid, lesson.try_it.default)
    assert len(data["charts"]) == lesson.n_charts
    for chart in data["charts"]:
        marks = chart["arrows"] + chart["spans"] + chart["hlines"]
        assert marks, chart["title"]
        xs = np.array([x for tr in chart["traces"] for x in tr["x"]])
        for a in chart["arrows"]:  # an arrow points at a computed sample
            near = [tr for tr in chart["traces"] if tr["x"] and min(abs(np.array(tr["x"]) - a["x"])) < 1e-9]
            assert near or xs.min() <= a["x"] <= xs.max(), (chart["title"], a)
        for sp in chart["spans"]:
            assert xs.min() <= sp["x0"] < sp["x1"] <= xs.max() + 1e-9, (chart["title"], sp)
        fig = lessons_view.figure(chart, presenter=True)
        assert len(fig.layout.annotations) >= len(marks)
        # each reference line is drawn inside the y range (plotly.js: a shape on a log axis by its data value,
        # the range in log10), its label at the same height
        log = fig.layout.yaxis.type == "log"
        low, high = fig.layout.yaxis.range if fig.layout.yaxis.range else (-np.inf, np.inf)
        for line in chart["hlines"]:
            shape = next(s for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1 == (
                abs(line["y"]) if log else line["y"]))
            y = np.log10(shape.y0) if log else shape.y0
            assert low <= y <= high, (chart["title"], line)
            label = next(a for a in fig.layout.annotations if a.text == line["text"])
            assert label.y == y, (chart["title"], line)


@pytest.mark.parametrize("lid", list(lessons.LESSONS))
def test_texts_follow_the_page_rules(lid):
    lesson = lessons.LESSONS[lid]
    formulas = lesson.explanation.count("$$") // 2
    assert formulas <= 1
    prose = re.sub(r"\$\$.*?\$\$", "", lesson.explanation, flags=re.S)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", prose.strip()) if s]
    assert 3 <= len(sentences) <= 6, sentences
    assert lesson.question.endswith("?") and lesson.class_question.endswith("?")
    assert lesson.answer and lesson.source.startswith("seed ")
    assert lesson.try_it.default in lesson.try_it.values


@pytest.mark.xdist_group("lessons")
@pytest.mark.parametrize("lid", list(lessons.LESSONS))
def test_the_run_page_link_opens_the_lessons_runs(computed, lid):
    data = _data(computed, lid, lessons.LESSONS[lid].try_it.default)
    href = lessons_view.run_page_href(data)
    form = urlstate.form_from_query(href.split("?", 1)[1])
    configs, errors = jobs.check_form(form)
    assert not errors, errors
    assert [c["method"] for c in configs] == data["run_page"]["methods"]
    assert all(c["benchmark"] == data["run_page"]["benchmark"] for c in configs)


def test_bad_requests_get_a_clear_message():
    with pytest.raises(ValueError, match="unknown lesson"):
        lessons_view.check_request("nope")
    with pytest.raises(ValueError, match="choose one of"):
        lessons_view.check_request("energy", 0.7)
    assert lessons_view.compute({"lesson": "energy", "value": "x"})["status"] == "error"


@pytest.mark.xdist_group("lessons")
def test_the_energy_question_states_the_steps_per_period_it_runs(computed):
    """The question's "(h = 0.25 s, about 5 steps per period of 1.27 s)" against the exact motion's period."""
    lesson = lessons.LESSONS["energy"]
    facts = _data(computed, "energy", lesson.try_it.default)["facts"]
    h, steps, period = (float(x) for x in re.search(
        r"h = ([\d.]+) s, about (\d+) steps per period of ([\d.]+) s", lesson.question).groups())
    assert h == facts["h"] == lesson.try_it.default
    assert round(facts["steps_per_period"]) == steps
    assert round(facts["period"], 2) == period


def test_saturation_is_told_apart_from_growth():
    """The chaos lesson's "saturates": an error grown to the rods' size and bounded by it does; one still growing past
    the geometric bound, or one that stays small, does not."""
    t = np.linspace(0.0, 20.0, 2001)
    growing = 1e-3 * 10 ** (t / 3)
    level = np.minimum(growing, 1.5)
    for e, expected in ((growing, False), (level, True), (1e-3 * np.ones_like(t), False)):
        assert lessons._saturated(t, e, lessons._growth(t, e), reach=2.0) is expected
