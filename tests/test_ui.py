"""Where the dashboard is used (Playwright + Debian chromium against the gunicorn fixture of conftest.py): a phone
at 390 x 844 (touch), a laptop at 1366 x 768, a keyboard, and axe-core (axe-playwright-python ships it).

Screenshots for docs/dashboard.md and docs/lessons.md: ``INTEGRATOR_LAB_SCREENSHOTS=docs/img pytest tests/test_ui.py``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from conftest import launch_profile, profile_page

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PAGES = {"run": "", "convergence": "convergence", "papers": "papers", "lessons": "lessons",
         "presenter": "lessons?present=1"}
DEMO_TIMEOUT_MS = 120_000
IMPACTS = ("critical", "serious", "moderate", "minor")

# the document's width against the viewport's, and the elements that stick out on the right
WIDTH_JS = """() => { const w = document.documentElement.clientWidth; const out = [];
  for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
    if (r.right > w + 1 && r.width > 0 && !el.closest('svg'))
      out.push(el.tagName + '#' + el.id + '.' + el.className + ' ' + Math.round(r.left) + '-' + Math.round(r.right)); }
  return [document.documentElement.scrollWidth, w, out.slice(0, 8)]; }"""


def _screenshot(page, name: str, full_page: bool = False) -> None:
    directory = os.environ.get("INTEGRATOR_LAB_SCREENSHOTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(directory) / name), full_page=full_page, scale="css")  # CSS px: small files


def _open(page, base: str, path: str) -> None:
    page.goto(base + path)
    if path.startswith("lessons"):
        page.wait_for_selector("#lessons-body .lesson-chart .main-svg", state="attached", timeout=DEMO_TIMEOUT_MS)
    elif path == "":
        page.wait_for_selector("#run-energy-graph .main-svg")
    else:
        page.wait_for_selector(".main-svg, #papers-presets", state="attached")
    page.wait_for_timeout(300)  # the charts' resize to their box


def _no_horizontal_scroll(page, where: str) -> None:
    scroll, width, wide = page.evaluate(WIDTH_JS)
    assert scroll <= width, (where, scroll, width, wide)


@pytest.fixture(scope="module")
def phone_profile(playwright, tmp_path_factory):
    """A phone's browser: like conftest's ``profile`` (its caches kept between pages), with the phone's
    emulation, which is a browser context's, not a page's."""
    context = launch_profile(playwright, tmp_path_factory.mktemp("phone-profile"), **PHONE)
    yield context
    context.close()


@pytest.fixture
def phone(phone_profile):
    with profile_page(phone_profile, **PHONE["viewport"]) as page:
        yield page


@pytest.fixture
def laptop(profile):
    with profile_page(profile, **LAPTOP["viewport"]) as page:
        yield page


@pytest.mark.parametrize("name", list(PAGES))
def test_a_phone_never_scrolls_sideways(phone, live_server, name):
    """390 x 844: the document is no wider than the screen on every page and in presenter mode; the controls are
    one column (every field starts at the same x) and the charts take the full width."""
    _open(phone, live_server, PAGES[name])
    _no_horizontal_scroll(phone, name)
    if name in ("run", "convergence"):
        lefts = phone.eval_on_selector_all(".controls > .field", "els => els.map(e => e.getBoundingClientRect().left)")
        assert len(set(round(x) for x in lefts)) == 1, lefts
        width = phone.evaluate("() => document.documentElement.clientWidth")
        graphs = phone.eval_on_selector_all(".js-plotly-plot", "els => els.filter(e => e.offsetParent)"
                                                               ".map(e => e.getBoundingClientRect().width)")
        assert graphs and min(graphs) >= 0.8 * width, (graphs, width)
    _screenshot(phone, f"phone-{name}.png")


def test_a_phone_run_keeps_progress_links_and_downloads_apart(phone, live_server):
    """After a run on a phone: the progress rows, the shareable link and the download buttons do not overlap,
    the 3D time slider keeps a usable width, the summary table scrolls inside its box and axe-core finds no
    critical or serious violation (a scrolling box must be reachable by keyboard)."""
    # a composed method's long run label ("rattlie_c4 + suzuki5, h=0.01") wraps its progress row
    phone.goto(live_server + "?benchmark=pendulum_3d&methods=rk4,rattlie_c4&h=0.01&t_end=2")
    phone.wait_for_selector("#run-energy-graph .main-svg")
    phone.click("#run-start")
    phone.wait_for_selector("#run-status .status-done", timeout=DEMO_TIMEOUT_MS)
    phone.wait_for_timeout(300)
    _no_horizontal_scroll(phone, "after a run")
    boxes = phone.evaluate("""() => ['#run-progress .progress-item:last-child', '#run-share-link',
        '#run-download-csv-button', '#run-download-json-button', '#run-download-config-button'].map(s => {
        const r = document.querySelector(s).getBoundingClientRect();
        return [s, r.top, r.bottom, r.left, r.right]; })""")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[2] <= b[1] + 0.5 or b[2] <= a[1] + 0.5 or a[4] <= b[3] + 0.5 or b[4] <= a[3] + 0.5
            assert apart, (a, b)
    scrub = phone.eval_on_selector("#run-scene-scrub", "e => e.getBoundingClientRect().width")
    assert scrub >= 200, scrub
    table = phone.eval_on_selector(".table-card", "e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
    assert table[2] == "auto", table
    from axe_playwright_python.sync_playwright import Axe

    violations = [(v["id"], v["impact"]) for v in Axe().run(phone).response["violations"]]  # the table's scroll too
    assert not [v for v in violations if v[1] in ("critical", "serious")], violations
    _screenshot(phone, "phone-run-after.png", full_page=False)


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_critical_or_serious_violation(laptop, live_server, name, record_property):
    """axe-core (the axe-playwright-python package) on every page and in presenter mode: 0 critical, 0 serious.
    The counts (affected elements by impact) are recorded for docs/dashboard.md. In the same load (a page load is
    2-3 s of CPU): the document's language, one h1, and a label for every input."""
    from axe_playwright_python.sync_playwright import Axe

    _open(laptop, live_server, PAGES[name])
    assert laptop.evaluate("() => document.documentElement.lang") == "en"
    assert laptop.locator("h1").count() == 1
    unlabelled = laptop.evaluate("""() => [...document.querySelectorAll('input, select, textarea, [role=slider]')]
        .filter(e => e.type !== 'hidden' && !e.closest('[aria-hidden=true]'))
        .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                     && !e.getAttribute('aria-labelledby'))
        .map(e => e.outerHTML.slice(0, 120))""")
    assert not unlabelled, unlabelled
    results = Axe().run(laptop)
    counts = dict.fromkeys(IMPACTS, 0)
    found = {}
    for v in results.response["violations"]:
        counts[v["impact"]] += len(v["nodes"])
        found[v["id"]] = (v["impact"], [n["target"] for n in v["nodes"]][:3])
    record_property("timing", f"axe {name}: " + " / ".join(str(counts[k]) for k in IMPACTS) + f" {sorted(found)}")
    assert counts["critical"] == 0 and counts["serious"] == 0, found


# the longest name a chart title gives a benchmark (solvers.figures.benchmark_name): the hardest case at 1280 px
LONGEST_NAME = "natural_double_pendulum"


@pytest.mark.parametrize(("viewport", "benchmark", "methods"), [
    ({"width": 1366, "height": 768}, "pendulum_3d", "rk4,rattlie"),
    ({"width": 1280, "height": 720}, LONGEST_NAME, "rk4,spark"),
])
def test_laptop_chart_titles_are_whole_and_name_the_benchmark(profile, live_server, viewport, benchmark, methods):
    """A laptop (1366 x 768) and a projector (1280 x 720) after a run: every chart's title lies inside its chart
    and clear of its toolbar (its box, shown on hover), the trajectories and energy charts name the benchmark,
    not its id, and the error chart's reference is said under it."""
    from solvers.figures import benchmark_name

    with profile_page(profile, **viewport) as laptop:
        laptop.goto(live_server + f"?benchmark={benchmark}&methods={methods}&h=0.01&t_end=2")
        laptop.wait_for_selector("#run-energy-graph .main-svg")
        laptop.click("#run-start")
        laptop.wait_for_selector("#run-status .status-done", timeout=DEMO_TIMEOUT_MS)
        laptop.wait_for_timeout(500)  # the charts' resize to their box
        boxes = laptop.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')]
            .filter(gd => gd.offsetParent).map(gd => {
            const g = gd.getBoundingClientRect(), t = gd.querySelector('.gtitle');
            const bar = gd.querySelector('.modebar');
            const r = t ? t.getBoundingClientRect() : null, m = bar ? bar.getBoundingClientRect() : null;
            const axes = [...gd.querySelectorAll('.g-xtitle text, .g-ytitle text')].map(e => e.getBoundingClientRect())
                .filter(a => a.width).map(a => [a.top, a.bottom, a.left, a.right]);
            return {id: gd.parentElement.id || gd.id, text: t ? t.textContent : '',
                    graph: [g.top, g.bottom, g.left, g.right], title: r && [r.top, r.bottom, r.left, r.right],
                    axes: axes, bar: m && m.width ? [m.top, m.bottom, m.left, m.right] : null}; })""")
        titled = [b for b in boxes if b["title"]]
        assert len(titled) >= 6, boxes
        for b in titled:
            g_top, g_bottom, g_left, g_right = b["graph"]
            for top, bottom, left, right in [b["title"], *b["axes"]]:  # the chart's title and its axes' titles
                assert g_top - 0.5 <= top <= bottom <= g_bottom + 0.5, b
                assert g_left - 0.5 <= left <= right <= g_right + 0.5, b
            top, bottom, left, right = b["title"]
            if b["bar"]:
                bt, bb, bl, br = b["bar"]
                assert bottom <= bt or top >= bb or right <= bl or left >= br, b
        name = benchmark_name(benchmark)
        for prefix in ("Trajectories", "Energy error"):
            chart = next(b for b in titled if b["text"].startswith(prefix))
            assert chart["text"] == f"{prefix}: {name}", chart
        assert laptop.inner_text("#run-error-reference").startswith("Reference: ")
        if viewport["width"] == 1366:
            laptop.evaluate("() => document.querySelector('.charts').scrollIntoView()")
            laptop.wait_for_timeout(300)
            _screenshot(laptop, "laptop-run.png")


def test_typing_after_a_dropdown_opens_filters_it(laptop, live_server):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    laptop.goto(live_server)
    laptop.wait_for_selector("#run-energy-graph .main-svg")
    laptop.click("#run-benchmark")
    laptop.wait_for_selector(".dash-dropdown-content")
    laptop.keyboard.type("3D pend")
    laptop.wait_for_function("() => document.querySelector('.dash-dropdown-search').value === '3D pend'")
    # the list re-renders after the search box's value: wait for that render, not for the value alone
    listed = "() => [...document.querySelectorAll('.dash-dropdown-content .dash-options-list-option')]" \
             ".map(e => e.textContent)"
    with contextlib.suppress(PlaywrightTimeout):
        laptop.wait_for_function(f"() => {{ const o = ({listed})(); return o.length > 0 && "
                                 "o.every(t => t.includes('3D pend')); }", timeout=5000)
    options = laptop.evaluate(listed)
    assert options and all("3D pend" in o for o in options), options


def test_unknown_ids_in_a_link_are_named(laptop, live_server):
    laptop.goto(live_server + "?benchmark=foo&methods=zzz")
    laptop.wait_for_selector("#run-energy-graph .main-svg")
    assert "'foo' is not known" in laptop.inner_text("#run-benchmark-msg")
    assert "'zzz'" in laptop.inner_text("#run-methods-link-msg")
    laptop.goto(live_server + "lessons?lesson=nope")
    laptop.wait_for_selector("#lessons-link-msg")
    assert "'nope' is not known" in laptop.inner_text("#lessons-link-msg")


@pytest.mark.parametrize(("query", "field", "text"), [
    ("h=0.01&t_end=1e9", "#run-t-end-msg", "100,000,000,000 steps"),
    ("h=1e-12&t_end=1e12", "#run-t-end-msg", "about 1e24 steps"),
    ("h=1e-9&t_end=10", "#run-step-msg", "10,000,000,000 steps"),
])
def test_too_many_steps_is_said_under_the_field_concerned(laptop, live_server, query, field, text):
    laptop.goto(live_server + "?benchmark=planar_pendulum&methods=rk4&" + query)
    laptop.wait_for_selector("#run-energy-graph .main-svg")
    laptop.click("#run-start")
    laptop.wait_for_function(f"() => document.querySelector('{field}').textContent.includes('{text}')")
