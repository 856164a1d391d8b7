"""End-to-end: the dashboard in Debian chromium (Playwright), served by gunicorn as in `make serve`.

Fixtures are in conftest.py. All browser tests share one server (one xdist group).
"""

from __future__ import annotations

import json
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

RUN_TIMEOUT_MS = 60_000

# The plotted traces of the energy graph, read from the plotly div Dash renders.
TRACES_JS = """() => {
    const gd = document.querySelector('#energy-graph .js-plotly-plot');
    if (!gd || !gd.data) return null;
    return gd.data.map(t => {
        const x = t.x || [];
        return {n: x.length, xmax: x.length ? x[x.length - 1] : null, name: t.name};
    });
}"""


def open_dashboard(page, url) -> float:
    """Load the page; return the seconds until the (empty) energy graph is drawn."""
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#energy-graph .main-svg")
    return time.perf_counter() - start


def choose(page, dropdown_id: str, values: list[str]) -> None:
    """Make ``values`` the selection of a Dash 4 dropdown, through its popover."""
    dropdown = page.locator(f"#{dropdown_id}")
    clear = dropdown.locator(".dash-dropdown-clear")
    if clear.count():
        clear.click()
    for value in values:
        dropdown.click()
        option = page.locator(f'[role="option"]:has(input[value="{value}"])')
        if option.get_attribute("aria-selected") != "true":
            option.click()
        page.keyboard.press("Escape")
    page.wait_for_function(
        """([id, values]) => {
            const shown = document.querySelectorAll(`#${id} .dash-dropdown-value-item`);
            return shown.length === values.length;
        }""",
        arg=[dropdown_id, values],
    )


def test_run_draws_energy_error(page, live_server, record_property):
    load = open_dashboard(page, live_server)
    choose(page, "benchmark", ["planar_pendulum"])
    choose(page, "methods", ["rk4"])
    page.fill("#step", "0.01")
    page.fill("#t-end", "20")

    start = time.perf_counter()
    page.click("#run")
    page.wait_for_function(
        f"() => {{ const t = ({TRACES_JS})(); return t && t.length > 0 && t[0].n > 0; }}",
        timeout=RUN_TIMEOUT_MS,
    )
    click_to_chart = time.perf_counter() - start
    page.wait_for_selector("#status .status-done", timeout=RUN_TIMEOUT_MS)

    traces = page.evaluate(TRACES_JS)
    assert len(traces) == 1, traces
    assert traces[0]["name"].startswith("rk4")
    assert 100 < traces[0]["n"] <= 2001
    assert traces[0]["xmax"] == pytest.approx(20.0)
    title = page.evaluate("() => document.querySelector('#energy-graph .js-plotly-plot').layout.title.text")
    assert "planar_pendulum" in title
    assert page.locator("#status").inner_text().startswith("Done")
    assert page.eval_on_selector("#progress", "e => e.value") == pytest.approx(1.0)
    assert page.is_enabled("#run")
    assert page.is_disabled("#cancel")
    record_property("timing", f"page load {load:.2f} s, click to chart {click_to_chart:.2f} s")


@pytest.mark.parametrize("step", ["0", "-0.5", ""])
def test_invalid_step_shows_message_and_runs_nothing(page, live_server, step):
    job_requests = []

    def watch(request):
        if "_dash-update-component" in request.url and request.method == "POST":
            body = json.loads(request.post_data or "{}")
            if "energy-graph" in body.get("output", ""):
                job_requests.append(request.url)

    page.on("request", watch)
    open_dashboard(page, live_server)
    page.fill("#step", step)
    page.click("#run")

    message = page.locator("#status .status-error")
    message.wait_for()
    assert "Step h" in message.inner_text()
    page.wait_for_timeout(1500)  # give a (wrongly) started job time to show up
    assert job_requests == []
    assert page.evaluate(TRACES_JS) == []
    assert page.eval_on_selector("#progress", "e => e.value") == 0
    assert page.is_enabled("#run")
