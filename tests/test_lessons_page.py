"""The Lessons page in the browser (Playwright + Debian chromium against the gunicorn fixture of conftest.py):
every lesson's demo runs and its annotated chart appears, "try it" reruns and redraws, the arrow keys move
between steps and lessons, presenter mode is readable at 1280 x 720, a warmed lesson opens at once.

Screenshots for docs/lessons.md: ``INTEGRATOR_LAB_SCREENSHOTS=docs/img pytest tests/test_lessons_page.py -m browser``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from solvers import lessons

DEMO_TIMEOUT_MS = 120_000  # a demo computed while the server's own warm-up computes the others

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# the smallest font size of any visible text inside the lessons' main column (HTML and the charts' SVG text)
SMALLEST_TEXT_JS = """() => {
    const root = document.getElementById('lessons-root');
    let smallest = Infinity, where = '';
    const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
        && getComputedStyle(el).visibility !== 'hidden'; };
    for (const el of root.querySelectorAll('*')) {
        const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        // MathJax's assistive MathML is for screen readers, clipped to 1 px: not text anyone reads on screen
        if (!own || !visible(el) || el.closest('mjx-assistive-mml')) continue;
        const size = parseFloat(getComputedStyle(el).fontSize);
        if (size < smallest) { smallest = size; where = el.tagName + ': ' + el.textContent.trim().slice(0, 40); }
    }
    return [smallest, where];
}"""


def _open(page, base: str, **query) -> float:
    """Open /lessons with the query; seconds until the first chart of the lesson is drawn."""
    q = "&".join(f"{k}={v}" for k, v in query.items())
    start = time.perf_counter()
    page.goto(f"{base}lessons" + (f"?{q}" if q else ""))
    page.wait_for_selector("#lessons-body .lesson-chart .main-svg", state="attached", timeout=DEMO_TIMEOUT_MS)
    return time.perf_counter() - start


def _annotations(page) -> list[str]:
    return page.eval_on_selector_all("#lessons-body .lesson-chart .annotation-text",
                                     "els => els.map(e => e.textContent)")


def _screenshot(page, name: str) -> None:
    directory = os.environ.get("INTEGRATOR_LAB_SCREENSHOTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(directory) / name))


def test_every_lesson_runs_its_demo_and_draws_its_annotated_charts(page, live_server, record_property):
    times = {}
    for lid, lesson in lessons.LESSONS.items():
        times[lid] = _open(page, live_server, lesson=lid)
        # one chart per chart step, and the Try-it step's own copy of the first (redrawn in place on a rerun)
        assert page.locator("#lessons-body .lesson-chart").count() == lesson.n_charts + 1
        assert page.locator("#lessons-try-chart").count() == 1
        assert _annotations(page), lid  # arrows, spans and reference lines placed from the data
        assert page.locator(".lesson-claims li.claim").count() >= 2
        assert page.locator(".lesson-claims li.claim-no").count() == 0
        assert page.locator("#lessons-run-link").get_attribute("href").startswith("/?")
    record_property("timing", "demos drawn: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))


def test_try_it_reruns_and_redraws(page, live_server):
    _open(page, live_server, lesson="energy")
    before = [a for a in _annotations(page) if a.startswith("rk4:")]
    page.focus("#lessons-try [role=slider]")
    page.keyboard.press("Home")  # the smallest step the control offers, 0.1 s
    page.wait_for_function(
        "(before) => [...document.querySelectorAll('#lessons-body .annotation-text')].some(e => "
        "e.textContent.startsWith('rk4:') && e.textContent !== before)", arg=before[0], timeout=DEMO_TIMEOUT_MS)
    after = [a for a in _annotations(page) if a.startswith("rk4:")]
    assert after != before
    assert page.locator("#lessons-run-link").get_attribute("href").find("h=0.1") > 0


def test_the_arrow_keys_move_between_steps_and_lessons(page, live_server):
    _open(page, live_server, lesson="rotations")
    position = page.locator("#lessons-position")
    assert position.inner_text() == "Step 1 of 4"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('lessons-position').textContent === 'Step 2 of 4'")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('lessons-position').textContent === 'Step 1 of 4'")
    page.wait_for_selector("text=4. The rotation-vector singularity")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.getElementById('lessons-position').textContent === 'Step 4 of 4'")
    page.wait_for_selector("text=3. Rotations stay rotations")


def test_presenter_mode_is_readable_at_1280x720(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        for lid, lesson in lessons.LESSONS.items():
            _open(page, live_server, lesson=lid, present=1)
            for step in range(3 + lesson.n_charts):
                page.wait_for_function(
                    f"() => document.getElementById('lessons-position').textContent.startsWith('Step {step + 1} ')")
                page.wait_for_timeout(300)  # the chart's relayout in its now visible step
                smallest, where = page.evaluate(SMALLEST_TEXT_JS)
                assert smallest >= 20, (lid, step, smallest, where)
                scroll = page.evaluate("() => [document.documentElement.scrollWidth, "
                                       "document.documentElement.clientWidth]")
                assert scroll[0] <= scroll[1], (lid, step, scroll)
                if step == 1:
                    _screenshot(page, f"lesson-{lid}.png")
                page.keyboard.press("ArrowRight")
    finally:
        context.close()


def test_a_warmed_lesson_opens_at_once(page, live_server, record_property):
    """The server computes every lesson's demo when it starts (app.warm --lessons); once they are in the cache
    (the first test above waited for all of them), switching lesson shows its demo without a job."""
    _open(page, live_server, lesson="energy")
    times = {}
    for lid in list(lessons.LESSONS)[1:]:
        start = time.perf_counter()
        page.locator(".lesson-tab", has_text=lessons.LESSONS[lid].title).click()
        page.wait_for_selector(f"text={list(lessons.LESSONS).index(lid) + 1}. {lessons.LESSONS[lid].title}")
        page.wait_for_selector("#lessons-body .lesson-chart .main-svg", state="attached")
        times[lid] = time.perf_counter() - start
    load = _open(page, live_server, lesson="chaos")  # a whole page load: Dash's scripts, layout, cached demo
    record_property("timing", "lesson switch: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
                    + f"; a page load of a warmed lesson {load:.2f} s")
    assert max(times.values()) <= 1.0, times
    # a whole page load is reported, not bounded: most of it is the browser booting Dash (client-bound, 0.5-0.7 s
    # here on a quiet machine, 1.3 s once under the loaded CI run); the server's part is the switch above
