"""The convergence and papers pages: their pure parts (app.convergence, app.papers_view) and, in the browser
(Playwright + Debian chromium against the gunicorn fixture of conftest.py), both pages end to end.

Screenshots for docs/pages.md: ``INTEGRATOR_LAB_SCREENSHOTS=docs/img pytest tests/test_pages.py -m browser``.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from conftest import frozen_jobs, job_processes, profile_page
from test_browser import choose

import solvers
from app import convergence as conv
from app import papers_view as pv
from solvers import papers, studies
from solvers.references import solutions as references

# ---------------------------------------------------------------------------------------------------------------
# app.convergence: plan and caps
# ---------------------------------------------------------------------------------------------------------------

GOOD = {"benchmark": "planar_pendulum", "methods": ["rk4", "spark"], "h": 0.1, "levels": 3, "t_end": 1.0}


def test_plan_halves_the_step_and_shares_the_end_time():
    p = studies.plan({**GOOD, "t_end": 1.05})  # not a multiple of h: every run ends at ceil(t_end / h) h = 1.1
    assert p["hs"] == pytest.approx([0.1, 0.05, 0.025])
    assert p["steps"] == [11, 22, 44]
    assert p["t_final"] == pytest.approx(1.1)
    assert p["reference"] == {"kind": "library", "steps": 0}  # solvers.references: no reference run
    assert p["total_steps"] == 2 * (11 + 22 + 44)
    assert studies.plan({**GOOD, "benchmark": "angular_velocity", "methods": ["rk4"]})["reference"]["kind"] == "exact"


def test_a_benchmark_without_a_library_reference_gets_rk4_at_h_over_8(monkeypatch, no_library_reference):
    p = studies.plan({**GOOD, "t_end": 1.05})
    assert p["reference"] == {"kind": "run", "method": "rk4", "h": pytest.approx(0.025 / 8), "steps": 352}
    assert p["total_steps"] == 2 * (11 + 22 + 44) + 352 + 176
    s = studies.run_study(GOOD)
    assert s["status"] == "ok" and 0 < s["reference"]["uncertainty"] < 1e-8
    assert "has no reference solution in solvers.references" in s["reference"]["description"]
    assert s["floor"] == pytest.approx(max(studies.ERROR_FLOOR, studies.REF_MARGIN * s["reference"]["uncertainty"]))


@pytest.fixture
def no_library_reference(monkeypatch):
    """The planar pendulum as a benchmark that solvers.references does not know."""
    from solvers import references as refs

    monkeypatch.delitem(refs.SOLUTIONS, "planar_pendulum")


@pytest.mark.parametrize("n0", [1, 7, 97, 100, 101, 360, 1000, 4096, 10007])
def test_sample_stride_divides_the_coarsest_run(n0):
    s = studies.sample_stride(n0)
    assert n0 % s == 0 and n0 // s <= studies.SAMPLES
    assert all(n0 % d or n0 // d > studies.SAMPLES for d in range(1, s))  # the smallest such divisor


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"methods": []}, "Choose at least one method"),
        ({"methods": ["rk4", "spark", "a", "b", "c"]}, "at most 4 methods (got 5)"),
        ({"methods": ["rattlie"]}, "'rattlie' does not apply to benchmark 'planar_pendulum'; valid: rk4, erk, spark"),
        ({"benchmark": "nope"}, "unknown benchmark 'nope'"),
        ({"benchmark": None}, "Choose a benchmark"),
        ({"h": 0}, "Largest step h must be a number greater than 0"),
        ({"h": ""}, "Largest step h is missing"),
        ({"t_end": "x"}, "End time must be a number"),
        ({"levels": 1}, "Number of step sizes must be a whole number from 2 to 6, got 1"),
        ({"levels": 7}, "from 2 to 6, got 7"),
        ({"levels": 2.5}, "got 2.5"),
        ({"h": 2.0}, "larger than the end time"),
        ({"h": 1e-5, "levels": 6, "t_end": 1.0}, "over the cap of 1,000,000 steps per run"),
        ({"h": 1e-3, "levels": 6, "t_end": 20.0, "methods": ["rk4", "spark", "hermite_h23g2", "midpoint_angle"]},
         "over the cap of 4,000,000"),
    ],
)
def test_plan_refuses_bad_input_and_too_much_work(change, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        studies.plan({**GOOD, **change})
    out = studies.run_study({**GOOD, **change})
    assert out["status"] == "error" and fragment in out["message"] and out["runs"] == []


# ---------------------------------------------------------------------------------------------------------------
# app.convergence: errors and fits
# ---------------------------------------------------------------------------------------------------------------


def test_common_rows_matches_sample_times_on_the_grid():
    t = np.array([0.0, 0.05, 0.1, 0.15000000000000002, 0.2, 0.3])
    assert studies.common_rows(t, 0.1, 2) == {0: 0, 1: 2, 2: 4}


def test_state_error_is_the_infinity_norm_over_every_entry_rotations_entrywise():
    rot = np.tile(np.eye(3), (2, 1, 1, 1))  # (n, bodies, 3, 3)
    other = rot.copy()
    other[1, 0, 0, 1] = 3e-6  # a non-orthogonal perturbation: entry-wise 3e-6 (the geodesic angle would be ~2e-3)
    state = {"R": other, "x": np.zeros((2, 1, 3)), "theta": np.ones((2, 3))}
    ref = {"R": rot, "x": np.array([[[0.0, 0.0, 0.0]], [[0.0, -1e-6, 0.0]]]), "theta": np.zeros((2, 3))}
    err = studies.state_error(state, ref, np.array([0, 1]), np.array([0, 1]), skip=("theta",))
    assert err == pytest.approx([0.0, 3e-6])
    assert studies.state_error(state, ref, np.array([1]), np.array([1]))[0] == 1.0  # theta compared when not skipped


def test_fit_order_is_the_least_squares_log_log_slope():
    hs = [0.1, 0.05, 0.025, 0.0125]
    assert studies.fit_order(hs, [3.0 * h**2.5 for h in hs]) == pytest.approx(2.5)
    assert studies.fit_order(hs[:1], [1.0]) is None


@pytest.fixture(scope="module")
def pendulum_study():
    return studies.run_study({"benchmark": "planar_pendulum", "methods": ["rk4", "spark"], "h": 0.1, "levels": 4,
                           "t_end": 2.0})


def test_study_fits_the_theoretical_orders_on_the_planar_pendulum(pendulum_study):
    s = pendulum_study
    json.dumps(s, allow_nan=False)  # plain JSON for the browser
    assert s["status"] == "ok" and s["message"] == ""
    assert len(s["runs"]) == 8 and all(r["status"] == "ok" and r["fitted"] for r in s["runs"])
    assert all(r["compared"] == 21 for r in s["runs"])  # t = 0, 0.1, ..., 2.0 in every run
    for m in ("rk4", "spark"):
        fit = s["fits"][m]
        assert fit["theoretical"] == 4 and fit["points"] == 4
        assert abs(fit["order"] - 4.0) < 0.2, fit
    assert s["reference"]["kind"] == "library" and s["reference"]["uncertainty"] == 0.0
    assert "Jacobi elliptic" in s["reference"]["description"] and s["floor"] == studies.ERROR_FLOOR


def test_cpu_time_is_measured_over_repeats_above_the_timers_resolution(pendulum_study):
    """Work-precision CPU times: every ok run's time comes from repeats adding up to MIN_TIMED_CPU (the planar
    pendulum's runs take well under a millisecond each, so they are repeated), and the per-run mean is kept."""
    for r in pendulum_study["runs"]:
        assert r["cpu_repeats"] >= 1
        assert (r["cpu_time"] * r["cpu_repeats"] >= studies.MIN_TIMED_CPU * (1 - 1e-9)
                or r["cpu_repeats"] == studies.MAX_TIMED_REPEATS), r
    assert any(r["cpu_repeats"] > 1 for r in pendulum_study["runs"])
    # the rule itself, on a fake clock: 4 ms runs take 5 repeats to reach 20 ms; a 30 ms run is not repeated
    assert studies.timed_cpu(0.004, lambda: 0.004) == (pytest.approx(0.004), 5)
    assert studies.timed_cpu(0.03, lambda: 1.0) == (0.03, 1)
    assert studies.timed_cpu(0.0, lambda: 0.0, max_repeats=7) == (0.0, 7)


def test_study_error_agrees_with_the_closed_form_solution(pendulum_study):
    """The study's error of a run is its error against the exact (elliptic) solution of
    solvers/references/solutions.py."""
    run = next(r for r in pendulum_study["runs"] if r["method"] == "spark" and r["h"] == 0.05)
    res = solvers.simulate("planar_pendulum", "spark", h=0.05, t_end=2.0)
    d = solvers.describe("planar_pendulum")["params"]
    t = res.t[::2]  # the common sample times 0, 0.1, ..., 2.0
    theta, omega = references.planar_pendulum_exact(t, **{k: d[k] for k in ("m", "J", "l", "g", "theta0", "omega0")})
    exact = max(np.abs(res.state["theta"][::2] - theta).max(), np.abs(res.state["omega"][::2] - omega).max())
    assert run["error"] == pytest.approx(exact, rel=1e-12)


def test_study_on_the_rigid_benchmark_fits_orders_four_and_two():
    s = studies.run_study({"benchmark": "pendulum_3d", "methods": ["rk4", "rattlie"], "h": 0.01, "levels": 3,
                        "t_end": 1.0})
    assert s["status"] == "ok"
    assert abs(s["fits"]["rk4"]["order"] - 4.0) < 0.3 and abs(s["fits"]["rattlie"]["order"] - 2.0) < 0.2, s["fits"]


def test_study_with_the_exact_reference_uses_the_rotation_error():
    s = studies.run_study({"benchmark": "angular_velocity", "methods": ["rk4"], "h": 0.01, "levels": 3, "t_end": 1.0})
    assert s["reference"]["kind"] == "exact" and s["floor"] == studies.ERROR_FLOOR
    res = solvers.simulate("angular_velocity", "rk4", h=0.005, t_end=1.0)
    run = next(r for r in s["runs"] if r["h"] == 0.005)
    assert run["error"] == pytest.approx(float(np.max(res.rotation_error[::2])), rel=1e-12)
    assert abs(s["fits"]["rk4"]["order"] - 4.0) < 0.2


def test_runs_at_the_reference_accuracy_are_shown_but_not_fitted(monkeypatch, no_library_reference):
    monkeypatch.setattr(studies, "REF_MARGIN", 1e12)  # pretend the (rk4) reference is poor
    s = studies.run_study({**GOOD, "methods": ["rk4"]})
    assert s["status"] == "ok" and all(not r["fitted"] for r in s["runs"])
    assert all("reference's accuracy" in r["note"] for r in s["runs"]) and s["fits"]["rk4"]["order"] is None
    fig = conv.order_figure(s)
    assert [t.name for t in fig.data] == ["rk4: order n/a (predicted 4)", "rk4: not fitted"]
    assert len(fig.data[1].x) == 3


def test_progress_reaches_one_and_is_monotonic():
    seen = []
    studies.run_study({**GOOD, "methods": ["rk4"]}, lambda f, text: seen.append(f))
    assert seen and seen[-1] == pytest.approx(1.0) and all(b >= a - 1e-12 for a, b in itertools.pairwise(seen))


def test_figures_show_fitted_orders_and_work(pendulum_study):
    order = conv.order_figure(pendulum_study)
    names = [t.name for t in order.data if t.showlegend is not False]
    assert names == [conv.method_label(pendulum_study, m) for m in ("rk4", "spark")]
    assert re.fullmatch(r"rk4: order 4\.\d\d \(predicted 4\)", names[0])
    assert order.layout.xaxis.type == "log" and order.layout.yaxis.type == "log"
    work = conv.work_precision_figure(pendulum_study)
    assert [t.name for t in work.data] == ["rk4", "spark"]
    assert all(len(t.x) == 4 and min(t.x) > 0 for t in work.data)
    assert conv.order_figure(None).layout.annotations[0].text.startswith("No study yet")
    rows = conv.table_rows(pendulum_study)
    assert len(rows) == 8 and conv.fits_summary(None) == []
    assert rows[1]["href"] == "/?benchmark=planar_pendulum&methods=rk4&h=0.05&t_end=2.0"


# ---------------------------------------------------------------------------------------------------------------
# app.papers_view
# ---------------------------------------------------------------------------------------------------------------


def test_presets_are_driven_by_experiments():
    assert [d["id"] for d in pv.presets()] == list(papers.EXPERIMENTS)
    assert pv.preset_t_end(papers.describe("seed000")) == 50.0


@pytest.mark.parametrize(
    ("experiment", "t_end", "fragment"),
    [
        ("nope", None, "unknown experiment 'nope'; valid: seed000"),
        ("seed000", 0, "End time must be a number greater than 0"),
        ("seed000", "abc", "End time must be a number"),
        ("seed000", float("nan"), "End time must be"),
    ],
)
def test_check_request_refuses_bad_input(experiment, t_end, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        pv.check_request(experiment, t_end)
    assert pv.run_preset({"experiment": experiment, "t_end": t_end})["status"] == "error"


def test_check_request_normalises_the_end_time():
    assert pv.check_request("seed000", None) == {"experiment": "seed000", "t_end": None}
    assert pv.check_request("seed000", "") == {"experiment": "seed000", "t_end": None}
    assert pv.check_request("seed000", 60) == {"experiment": "seed000", "t_end": None}  # not longer than the paper's
    assert pv.check_request("seed000", 2) == {"experiment": "seed000", "t_end": 2.0}


@pytest.mark.parametrize(
    ("says", "series", "same"),
    [("Figs. 3-4", "Fig. 3", True), ("Figs. 3-4", "Fig. 4", True), ("Fig. 5", "Fig. 5", True),
     ("Fig. 6", "Fig. 7", False), ("Sec. 4", "Fig. 4", False), ("Figs. 3 and 5", "Fig. 5", True)],
)
def test_paper_says_is_matched_to_its_figure(says, series, same):
    assert pv._same_figure(says, series) is same


@pytest.fixture(scope="module")
def seed000_short():
    return pv.run_preset({"experiment": "seed000", "t_end": 0.5})


def test_figures_and_tables_of_a_short_seed000_run(seed000_short):
    data = seed000_short
    json.dumps(data, allow_nan=False)
    exp = papers.EXPERIMENTS["seed000"]
    figs = pv.figures(data)
    assert [spec["key"] for spec, _, _ in figs] == [s.key for s in exp.series]
    for (_spec, fig, says), series in zip(figs, exp.series, strict=True):
        ran = [r["label"] for r in data["runs"] if series.key in r["series"]]
        assert [t.name.split(" ")[0] for t in fig.data] == [lab for lab in series.labels if lab in ran]
        assert fig.layout.title.text.startswith(series.figure)
        assert says, f"no 'paper says' text matched {series.figure}"
        if series.log:
            assert fig.layout.yaxis.type == "log"
            assert all(np.isnan(v) or v > 0 for t in fig.data for v in t.y)
    rows = pv.claims_rows(data)
    assert [r["id"] for r in rows] == [c.key for c in exp.claims]
    assert all(r["verdict"] in ("reproduced", "not reproduced", "not measured", "not applicable") for r in rows)
    assert sum(pv.verdict_counts(data).values()) == len(exp.claims)
    assert [r["label"] for r in pv.runs_rows(data)] == [r["label"] for r in data["runs"]]


def test_a_new_experiment_appears_as_a_preset_and_unregistered_methods_are_not_measured(monkeypatch):
    """The page is driven by EXPERIMENTS only: an experiment added there (here with one run of a method that is
    not registered) is offered, runs, and reports what it could not measure."""
    exp = papers.Experiment(
        id="seed999", seed="999", section="1", title="A test experiment", source="tests", setup="two runs",
        says=(("Fig. 2", "the energy error stays small"),),
        runs=(papers.Run("RK", "planar_pendulum", "rk4", 0.01, 1.0),
              papers.Run("X", "planar_pendulum", "not_a_method", 0.01, 1.0)),
        series=(papers.Series("energy_error", "Energy error", "Fig. 2", "J", ("RK", "X"),
                              lambda r: r.energy_error),),
        claims=(papers.Claim("small", "RK's energy error is small", "Fig. 2: small", "max |E - E0| <= 1e-3", ("RK",),
                             papers.summary_below("max_energy_error", ("RK",), 1e-3, "max |E - E0|")),
                papers.Claim("x", "X is fine", "Fig. 2: X", "X runs", ("X",),
                             papers.summary_below("max_energy_error", ("X",), 1.0, "max |E - E0|"))),
    )
    monkeypatch.setitem(papers.EXPERIMENTS, exp.id, exp)
    assert [d["id"] for d in pv.presets()][-1] == "seed999"
    data = pv.run_preset({"experiment": "seed999", "t_end": None})
    assert data["status"] == "ok" and [r["label"] for r in data["runs"]] == ["RK"]
    [(_spec, fig, says)] = pv.figures(data)
    assert [t.name for t in fig.data] == ["RK (rk4, h = 0.01)"] and says == ["the energy error stays small"]
    rows = {r["id"]: r for r in pv.claims_rows(data)}
    assert rows["small"]["verdict"] == "reproduced" and rows["small"]["css"] == "verdict-yes"
    assert rows["x"]["verdict"] == "not measured" and "not registered" in rows["x"]["measured"]
    assert any("not_a_method" in n for n in data["skipped"])


def test_run_page_links_restore_the_run(seed000_short):
    alpha = next(r for r in seed000_short["runs"] if r["label"] == "Lie-alpha")
    href = pv.run_page_href(alpha)
    parts = urlsplit(href)
    assert parts.path == "/"
    q = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert q == {"benchmark": "spatial_double_pendulum", "methods": "lie_galpha", "h": "0.001", "t_end": "0.5",
                 "o.lie_galpha.rho_inf": "0.9"}
    matrix = pv.run_page_href({**alpha, "params": {"R1": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "g": 9.81},
                               "options": {}})
    q = {k: v[0] for k, v in parse_qs(urlsplit(matrix).query).items()}
    assert json.loads(q["p.R1"]) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]] and q["p.g"] == "9.81"


# ---------------------------------------------------------------------------------------------------------------
# browser: both pages end to end
# ---------------------------------------------------------------------------------------------------------------

JOB_TIMEOUT_MS = 90_000
PROGRESS_TIMEOUT_MS = 30_000  # a running job reports progress within a second; 30 s allows for a loaded machine

GRAPH_TRACES_JS = """(sel) => {
    const gd = document.querySelector(sel + ' .js-plotly-plot');
    if (!gd || !gd.data) return null;
    return gd.data.map(t => ({name: t.name || '', x: Array.from(t.x || []), y: Array.from(t.y || []),
                              legend: t.showlegend !== false}));
}"""


def _screenshot(page, name: str, height: int | None = None) -> None:
    """Save a screenshot (the full page, or its top ``height`` pixels) when INTEGRATOR_LAB_SCREENSHOTS is set."""
    directory = os.environ.get("INTEGRATOR_LAB_SCREENSHOTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        clip = {"x": 0, "y": 0, "width": 1280, "height": height} if height else None
        page.screenshot(path=str(Path(directory) / name), full_page=True, clip=clip)


try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser tests are skipped without Playwright (conftest.py)
    PlaywrightTimeout = TimeoutError


def _watch_status(page, status_id: str) -> None:
    """Record every text the status area shows (to see the job's progress reports)."""
    page.evaluate("""(id) => {
        window.__statuses = [];
        const el = document.getElementById(id);
        new MutationObserver(() => window.__statuses.push(el.innerText)).observe(
            el, {childList: true, subtree: true, characterData: true});
    }""", status_id)


def _refusal(page, status_id: str, holder) -> str:
    """The error text the status area shows within 30 s; else fail with every status both pages showed
    (``_watch_status`` records them)."""
    try:
        page.wait_for_selector(f"#{status_id} .status-error", timeout=30_000)
    except PlaywrightTimeout:
        pytest.fail(f"{status_id}: {page.evaluate('window.__statuses')}; the page holding the slot: "
                    f"{holder.evaluate('window.__statuses')}")
    return page.locator(f"#{status_id}").inner_text()


def _traces(page, graph_id: str):
    return page.evaluate(GRAPH_TRACES_JS, f"#{graph_id}")


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_convergence_page_fits_orders_and_draws_work_precision(page, live_server, record_property):
    start = time.perf_counter()
    page.goto(live_server + "convergence")
    page.wait_for_selector("#conv-order-graph .main-svg")
    load = time.perf_counter() - start
    assert page.locator("#conv-benchmark").inner_text().startswith("3D pendulum")
    choose(page, "conv-methods", ["rk4", "rattlie", "rattlie_c4"])  # a composed method (issue 28) too
    page.fill("#conv-h", "0.01")
    page.fill("#conv-levels", "3")
    page.fill("#conv-t-end", "1")

    _watch_status(page, "conv-status")
    start = time.perf_counter()
    page.click("#conv-run")
    page.wait_for_selector("#conv-status .status-done", timeout=JOB_TIMEOUT_MS)
    click_to_plot = time.perf_counter() - start
    assert any(s.startswith("Starting: 9 runs") for s in page.evaluate("window.__statuses"))

    traces = _traces(page, "conv-order-graph")
    fitted = {}
    for t in traces:
        m = re.fullmatch(r"(\w+): order (\d+\.\d\d) \(predicted (\d+)\)", t["name"])
        if m:
            assert len(t["x"]) == 3 and t["x"] == pytest.approx([0.01, 0.005, 0.0025])
            assert all(y > 0 for y in t["y"])
            fitted[m.group(1)] = (float(m.group(2)), int(m.group(3)))
    assert set(fitted) == {"rk4", "rattlie", "rattlie_c4"}, traces
    assert fitted["rk4"][1] == 4 and fitted["rattlie"][1] == 2 and fitted["rattlie_c4"][1] == 4
    for order, theory in fitted.values():
        assert abs(order - theory) < 0.3, fitted
    work = _traces(page, "conv-work-graph")
    assert [t["name"] for t in work] == ["rk4", "rattlie", "rattlie_c4"]
    assert all(len(t["x"]) == 3 and min(t["x"]) > 0 for t in work)
    assert page.locator("#conv-table tbody tr").count() == 9
    assert "DOP853 in a unit quaternion" in page.locator("#conv-reference").inner_text()
    assert page.eval_on_selector("#conv-progress", "e => e.value") == pytest.approx(1.0)
    assert page.is_enabled("#conv-run") and page.is_disabled("#conv-cancel")
    _screenshot(page, "convergence.png")
    record_property("timing", f"convergence: page load {load:.2f} s, click to plots {click_to_plot:.2f} s "
                              f"(3 methods x 3 steps + reference)")


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_convergence_page_refuses_too_much_work_and_cancels(page, live_server, record_property):
    page.goto(live_server + "convergence")
    page.wait_for_selector("#conv-order-graph .main-svg")
    page.fill("#conv-h", "0.00001")
    page.fill("#conv-levels", "6")
    page.click("#conv-run")
    message = page.locator("#conv-status .status-error")
    message.wait_for()
    assert "over the cap of 1,000,000 steps per run" in message.inner_text()
    assert page.is_enabled("#conv-run") and page.is_disabled("#conv-cancel")

    # a study of 3,150,000 steps of four implicit/explicit methods: cancel it while it runs (a short end time and a
    # small step: the reference, computed before the methods, takes about 1 s; at t_end = 100 and h = 0.008 it took
    # 11 s, over 30 s on a loaded machine)
    page.fill("#conv-h", "0.0008")
    page.fill("#conv-levels", "6")
    page.fill("#conv-t-end", "10")
    choose(page, "conv-methods", ["rk4", "rattlie", "lgvi", "lie_galpha"])
    page.click("#conv-run")
    page.wait_for_selector("#conv-status .status-running:has-text('% of all steps')", timeout=PROGRESS_TIMEOUT_MS)
    with frozen_jobs(live_server.pid) as stopped:  # running until cancelled, however fast the machine
        assert stopped, "the study ended before it could be cancelled"
        start = time.perf_counter()
        page.click("#conv-cancel")
        page.wait_for_selector("#conv-status .status-cancelled", timeout=10_000)
        cancelled = time.perf_counter() - start
    page.wait_for_selector("#conv-run:not([disabled])", timeout=10_000)
    assert page.is_disabled("#conv-cancel")
    assert all(t["x"] == [] for t in _traces(page, "conv-order-graph") or [])  # no partial result drawn
    record_property("timing", f"convergence: cancel acknowledged in {cancelled:.2f} s")


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_papers_page_runs_the_seed000_preset(page, live_server, record_property):
    exp = papers.EXPERIMENTS["seed000"]
    start = time.perf_counter()
    page.goto(live_server + "papers")
    page.wait_for_selector("#preset-seed000")
    load = time.perf_counter() - start
    assert page.locator(".paper-preset").count() == len(papers.EXPERIMENTS)
    page.fill("#papers-t-end", "3")

    _watch_status(page, "papers-status")
    start = time.perf_counter()
    page.click("#preset-seed000 button")
    page.wait_for_selector("#papers-status .status-done", timeout=JOB_TIMEOUT_MS)
    first = time.perf_counter() - start
    first_status = page.locator("#papers-status").inner_text()
    shown = page.evaluate("window.__statuses")
    assert any(s.startswith("Starting seed000") for s in shown), shown  # progress: see the cancel test
    page.wait_for_selector(".paper-figure .main-svg")

    claims = page.locator("#papers-claims tbody tr")
    assert claims.count() == len(exp.claims)
    header = page.locator("#papers-claims thead").inner_text()
    assert "paper says" in header and "we measured" in header
    verdicts = [claims.nth(i).locator("td").last.inner_text() for i in range(claims.count())]
    assert set(verdicts) <= {"reproduced", "not reproduced", "not measured", "not applicable"}
    assert "not applicable" in verdicts  # the RecurDyn claim
    assert page.locator(".paper-figure").count() == len(exp.series)
    for s in exp.series:
        gd = f'[id*="{s.key}"]'
        n = page.evaluate(f"() => document.querySelector('{gd} .js-plotly-plot').data.length")
        assert n == len(s.labels), s.key
        # series travel as base64 float32 arrays; plotly.js decodes them into _fullData
        t_max = page.evaluate(f"() => {{ const d = document.querySelector('{gd} .js-plotly-plot')._fullData[0];"
                              " return d.x[d.x.length - 1]; }")
        assert t_max == pytest.approx(3.0)
    says = page.locator(".paper-figure .paper-says")
    assert says.count() == len(exp.series)
    assert says.first.inner_text().split()[:4] == ["Paper", "says", "X", "component"]
    assert page.locator("#papers-runs tbody tr").count() == len(exp.runs)
    href = page.locator("#papers-runs .run-link").first.get_attribute("href")
    assert href.startswith("/?benchmark=spatial_double_pendulum&methods=lie_galpha")
    _screenshot(page, "papers.png", height=2000)

    # "open on the Run page" restores the run in the Run page's form
    page.locator("#papers-runs .run-link").first.click()
    page.wait_for_selector("#run-start")
    assert page.url.startswith(live_server + "?benchmark=spatial_double_pendulum&methods=lie_galpha")
    assert page.locator("#run-benchmark").inner_text().startswith("Spatial double pendulum")
    assert page.input_value("#run-step") == "0.001" and page.input_value("#run-t-end") == "3"

    # the identical request again: served from the job cache
    page.goto(live_server + "papers")
    page.wait_for_selector("#preset-seed000")
    page.fill("#papers-t-end", "3")
    start = time.perf_counter()
    page.click("#preset-seed000 button")
    page.wait_for_selector("#papers-status .status-done", timeout=JOB_TIMEOUT_MS)
    cached = time.perf_counter() - start
    assert page.locator("#papers-claims tbody tr").count() == len(exp.claims)
    # the job's own status line (with the time it was computed) comes back unchanged: no recomputation
    assert page.locator("#papers-status").inner_text() == first_status
    record_property("timing", f"papers: page load {load:.2f} s, seed000 at t_end = 3 s: click to results "
                              f"{first:.2f} s, cached {cached:.2f} s")


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_papers_page_disables_the_presets_while_running_and_cancels(page, live_server, record_property):
    page.goto(live_server + "papers")
    page.wait_for_selector("#preset-seed000")
    page.fill("#papers-t-end", "40")  # never cached by another test; 1.8 s of solver work (2026-11-29)
    _watch_status(page, "papers-status")
    earlier = job_processes(live_server.pid)  # jobs other tests left on the shared server
    # the job's first answer (its id) reaches the page only after its process is forked: from then on the page
    # can cancel it, and freezing the new process keeps so short a job from ending before the Cancel click lands
    with page.expect_response(lambda r: "_dash-update-component" in r.url
                              and "papers-results" in (r.request.post_data or ""), timeout=PROGRESS_TIMEOUT_MS):
        page.click("#preset-seed000 button")
    try:  # the job runs: Dash's running state enables Cancel (its progress text may lag on a loaded machine)
        page.wait_for_selector("#papers-cancel:not([disabled])", timeout=PROGRESS_TIMEOUT_MS)
    except PlaywrightTimeout:
        pytest.fail(f"the job never showed as running; status history: {page.evaluate('window.__statuses')}")
    with frozen_jobs(live_server.pid, besides=earlier) as stopped:
        assert stopped, f"the job ended before it could be cancelled: {page.evaluate('window.__statuses')}"
        assert page.is_disabled("#preset-seed000 button") and page.is_enabled("#papers-cancel")
        start = time.perf_counter()
        page.click("#papers-cancel")
        page.wait_for_selector("#papers-status .status-cancelled", timeout=10_000)
        cancelled = time.perf_counter() - start
    page.wait_for_selector("#preset-seed000 button:not([disabled])", timeout=10_000)
    assert page.is_disabled("#papers-cancel") and page.locator("#papers-claims").count() == 0, \
        f"a cancelled job drew its claims; status history: {page.evaluate('window.__statuses')}"
    record_property("timing", f"papers: cancel acknowledged in {cancelled:.2f} s")


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_navigation_header_reaches_both_pages(page, live_server):
    page.goto(live_server)
    page.click("#nav-convergence")
    page.wait_for_selector("#conv-run")
    page.click("#nav-papers")
    page.wait_for_selector("#preset-seed000")
    assert math.isclose(page.eval_on_selector("#papers-progress", "e => e.value"), 0.0)


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_every_page_obeys_the_server_cap_with_the_same_message(profile, browser, capped_server, record_property):
    """Per-server cap 1: a Convergence study in one browser session holds the server's only slot; a Papers
    preset and a Run-page run in another session wait for it (the queue, 1 s here) and are then refused with
    the same sentence. The study's job is stopped (SIGSTOP) meanwhile: it holds the slot as a running job does,
    without spending the CPU the rest of the suite runs on."""
    other = browser.new_context(viewport={"width": 1280, "height": 900})  # another browser: another session
    try:
        with profile_page(profile) as first:
            second = other.new_page()
            first.goto(capped_server + "convergence")
            first.wait_for_selector("#conv-order-graph .main-svg")
            first.fill("#conv-h", "0.0008")  # the reference first: about 1 s at this end time
            first.fill("#conv-levels", "6")
            first.fill("#conv-t-end", "12")  # 3,780,000 steps of four methods (the cap is 4,000,000), SciPy's Radau
            choose(first, "conv-methods", ["scipy_radau", "rattlie", "lgvi", "lie_galpha"])  # minutes of work
            earlier = job_processes(capped_server.pid)  # a job another test left ending on this server
            first.click("#conv-run")
            first.wait_for_selector("#conv-status .status-running:has-text('% of all steps')",
                                    timeout=PROGRESS_TIMEOUT_MS)
            with frozen_jobs(capped_server.pid, besides=earlier) as stopped:
                assert stopped, "the study ended before the other session's runs"
                second.goto(capped_server + "papers")
                second.wait_for_selector("#preset-seed000")
                second.fill("#papers-t-end", "3")
                _watch_status(second, "papers-status")
                _watch_status(first, "conv-status")
                second.click("#preset-seed000 button")
                papers_text = _refusal(second, "papers-status", first)

                second.goto(capped_server)
                second.wait_for_selector("#run-start")
                _watch_status(second, "run-status")
                second.click("#run-start")
                run_text = _refusal(second, "run-status", first)

                busy = ("Nothing was run: The server is busy (1 jobs running) and no slot freed up within 1 s: "
                        "try again in a moment.")
                assert papers_text == run_text == busy
                assert first.locator("#conv-status .status-running").count() == 1  # the study was never disturbed
                first.click("#conv-cancel")
                first.wait_for_selector("#conv-status .status-cancelled", timeout=10_000)
            record_property("timing", "caps: the second session's Papers and Run jobs refused while the first's "
                                      "Convergence study held the server's slot")
    finally:
        other.close()
