"""The Method lab in the browser (Playwright + Debian chromium against conftest.py's gunicorn server): a tableau
typed as fractions, its order and stability region, run beside rk4 through the page's Run link, its shareable
links reopened in a fresh browser context; and its Convergence page link, where the observed order stands next
to the order predicted from the typed tableau."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from test_browser import choose, field, open_page, run_and_wait

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

JOB_TIMEOUT_MS = 120_000
HEUN = {"A": "0 0\n1 0", "b": "1/2 1/2", "c": "0 1"}
TRACES_JS = """(sel) => {
    const gd = document.querySelector(sel + ' .js-plotly-plot');
    if (!gd || !gd.data) return null;
    return {title: ((gd.layout || {}).title || {}).text || '', names: gd.data.map(t => t.name || ''),
            types: gd.data.map(t => t.type || 'scatter'),
            xy: gd.data.map(t => [Array.from(t.x || []), Array.from(t.y || [])])};
}"""


def _screenshot(page, name: str) -> None:
    """Kept only when asked for (``INTEGRATOR_LAB_SCREENSHOTS=dir``)."""
    folder = os.environ.get("INTEGRATOR_LAB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / name), full_page=True)


def _type_heun(page, live_server) -> None:
    page.goto(live_server + "method-lab")
    page.wait_for_selector("#lab-stability .main-svg")
    choose(page, "lab-library", ["rk4"])  # the page opens on Heun: start from another tableau's text
    page.wait_for_function("() => /Order 4/.test(document.querySelector('#lab-summary').innerText)")
    choose(page, "lab-library", ["custom"])
    for f, text in HEUN.items():
        page.fill(f"#lab-{f}", text)
    # the analysis of what was typed (fractions): the typed c "0 1" instead of the library's own text
    page.wait_for_function("() => /Order 2, 2 stages, consistent/.test(document.querySelector('#lab-summary')"
                           ".innerText) && /o\\.erk\\.tableau=%7B/.test(document.querySelector('#lab-run-link').href)")


def _summary_rows(page) -> list[list[str]]:
    rows = page.locator("#run-summary-table tbody tr").all()
    return [r.locator("td").all_inner_texts() for r in rows if r.locator("td.run-status").count()]


def test_heun_typed_in_the_lab_runs_beside_rk4_and_its_links_reopen(page, browser, live_server, record_property):
    _type_heun(page, live_server)
    summary = page.inner_text("#lab-summary")
    assert summary.startswith("Order 2, 2 stages, consistent") and "[-2, 0] of the real axis" in summary
    orders = page.locator("#lab-orders tbody tr").all()
    assert len(orders) == 37  # the rooted trees up to order 6
    assert [r.locator("td").nth(6).inner_text() for r in orders[:4]] == ["yes", "yes", "no", "no"]
    fig = page.evaluate(TRACES_JS, "#lab-stability")
    assert fig["types"][0] == "contour" and fig["names"][0] == "|R(z)| <= 1"
    assert "R(z) = 1 + z + 0.5 z^2" in fig["title"] and "eigenvalues of spatial_double_pendulum" in fig["title"]
    assert fig["names"][-1] == "h lambda = 0 (36 of them)"  # released at rest, horizontal: a nilpotent Jacobian
    _screenshot(page, "method_lab_heun.png")
    lab_share = page.get_attribute("#lab-share-link", "href")

    # through the page's Run link: erk with the typed tableau beside rk4 on the spatial double pendulum
    page.click("#lab-run-link")
    page.wait_for_selector("#run-energy-graph .main-svg")
    assert page.locator("#run-benchmark-info").inner_text().startswith("Spatial double pendulum")
    assert page.locator("#run-methods .dash-dropdown-value-item").all_inner_texts() == ["erk", "rk4"]
    typed = field(page, "option", "tableau", "erk").input_value()
    assert '"b":[0.5,0.5]' in typed and '"c":[0.0,1.0]' in typed
    page.fill("#run-t-end", "5")  # 5 s of the default 50 (5000 steps at the default h = 1e-3), then Run
    page.wait_for_function("() => /t_end=5/.test(document.querySelector('#run-share-link').href)")
    # Heun is order 2 and the rods under joints are not projected: over 5 s their R leaves SO(3) by about 1e-5,
    # over the page's 1e-6 limit, and the page says so (rk4's drift stays under it)
    elapsed = run_and_wait(page, expect_kind="warning")
    said = page.inner_text("#run-status")
    assert said.startswith("Done: 2 run(s)") and "erk, h=0.001 completed but the rotations left SO(3)" in said, said
    assert "rk4, h=0.001 completed" not in said
    first = _summary_rows(page)
    assert [r[0] for r in first] == ["erk, h=0.001", "rk4, h=0.001"] and all("ok" in r for r in first), first
    page.wait_for_function("() => /o\\.erk\\.tableau=/.test(document.querySelector('#run-share-link').href)")
    run_share = page.get_attribute("#run-share-link", "href")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        fresh = context.new_page()
        # the Run page's shareable link: the same form, the same result
        open_page(fresh, live_server.rstrip("/") + run_share)
        assert field(fresh, "option", "tableau", "erk").input_value() == typed
        run_and_wait(fresh, expect_kind="warning")
        assert _summary_rows(fresh) == first
        # the lab's shareable link: the same tableau, order and region
        fresh.goto(live_server.rstrip("/") + lab_share)
        fresh.wait_for_selector("#lab-stability .main-svg")
        fresh.wait_for_function("() => /Order 2/.test((document.querySelector('#lab-summary') || {}).innerText)")
        assert fresh.inner_text("#lab-summary") == summary
        again = fresh.evaluate(TRACES_JS, "#lab-stability")
        assert again["title"] == fig["title"] and again["names"] == fig["names"]
        assert [float(x) for x in fresh.input_value("#lab-b").split()] == [0.5, 0.5]
    finally:
        context.close()
    record_property("timing", f"method lab: heun + rk4 on spatial_double_pendulum (5 s, h = 1e-3) run in "
                              f"{elapsed:.1f} s from the click")


def test_convergence_page_shows_the_typed_tableaus_predicted_and_observed_order(page, browser, live_server,
                                                                             record_property):
    _type_heun(page, live_server)
    page.click("#lab-conv-link")
    page.wait_for_selector("#conv-order-graph .main-svg")
    assert page.locator("#conv-methods .dash-dropdown-value-item").all_inner_texts() == ["erk", "rk4"]
    page.wait_for_function("() => /erk 2/.test(document.querySelector('#conv-predicted').innerText)")
    assert page.inner_text("#conv-predicted") == (
        "Predicted orders: erk 2 (from its tableau's order conditions), rk4 4.")
    page.fill("#conv-h", "0.02")
    page.fill("#conv-levels", "3")
    page.fill("#conv-t-end", "1")
    page.wait_for_function("() => /levels=3/.test(document.querySelector('#conv-share-link').href) && "
                           "/h=0.02/.test(document.querySelector('#conv-share-link').href)")
    share = page.get_attribute("#conv-share-link", "href")
    start = time.perf_counter()
    page.click("#conv-run")
    page.wait_for_selector("#conv-status .status-done", timeout=JOB_TIMEOUT_MS)
    elapsed = time.perf_counter() - start
    names = [n for n in page.evaluate(TRACES_JS, "#conv-order-graph")["names"] if "order" in n]
    found = {m.group(1): (float(m.group(2)), int(m.group(3))) for m in
             (re.fullmatch(r"(\w+): order (\d+\.\d\d) \(predicted (\d+)\)", n) for n in names) if m}
    assert found.keys() == {"erk", "rk4"} and found["erk"][1] == 2 and found["rk4"][1] == 4, names
    assert abs(found["erk"][0] - 2.0) < 0.3 and abs(found["rk4"][0] - 4.0) < 0.3, found
    fits = page.locator("#conv-fits li").all_inner_texts()
    assert fits[0].startswith("erk (tableau: your own, 2 stages): observed order ")
    assert fits[0].endswith("predicted 2 (from its tableau's order conditions)")
    _screenshot(page, "convergence_heun.png")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        fresh = context.new_page()
        fresh.goto(live_server.rstrip("/") + share)
        fresh.wait_for_selector("#conv-order-graph .main-svg")
        assert fresh.input_value("#conv-h") == "0.02" and fresh.input_value("#conv-levels") == "3"
        assert fresh.locator("#conv-methods .dash-dropdown-value-item").all_inner_texts() == ["erk", "rk4"]
        fresh.wait_for_function("() => /erk 2/.test(document.querySelector('#conv-predicted').innerText)")
        fresh.click("#conv-run")  # the same study: served from the result cache, the same orders
        fresh.wait_for_selector("#conv-status .status-done", timeout=JOB_TIMEOUT_MS)
        assert fresh.locator("#conv-fits li").all_inner_texts() == fits
    finally:
        context.close()
    record_property("timing", f"convergence of heun and rk4 on spatial_double_pendulum (h = 0.02 / 1, 3 levels, "
                              f"t = 1): {elapsed:.1f} s from the click")
