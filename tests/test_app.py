"""The dashboard's pure parts, without a browser: job plumbing, validation and the run cache (app.jobs),
figure builders (solvers.figures), links (app.urlstate), configuration (app.config). The browser tests
(tests/test_browser.py) cover the page itself."""

from __future__ import annotations

import csv
import io
import json
import time

import numpy as np
import plotly.graph_objects as go
import pytest

import solvers
from app import config, jobs, urlstate
from solvers import figures, view3d


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 0, "t_end": 1}, "Step h must be a number greater"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": "", "t_end": 1}, "Step h is missing"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 0.1, "t_end": "x"}, "End time must be a number"),
        ({"benchmark": "", "method": "rk4", "h": 0.1, "t_end": 1}, "Choose a benchmark"),
        ({"benchmark": "planar_pendulum", "method": "rattlie", "h": 0.1, "t_end": 1}, "does not apply"),
        ({"benchmark": "planar_pendulum", "method": "rk4", "h": 2, "t_end": 1}, "larger than t_end"),
    ],
)
def test_bad_input_gets_a_message_from_the_form_check_or_an_error_status(config, fragment):
    try:
        checked = jobs.check_config(config)
    except ValueError as exc:  # what the form can get wrong
        assert fragment in str(exc)
        return
    out = jobs.simulate(checked)  # what the library checks: an error status, never an exception
    assert out["status"] == "error" and fragment in out["message"]
    assert len(out["t"]) == 0 and len(out["energy_error"]) == 0


def test_simulate_throttles_progress():
    seen = []
    t0 = time.perf_counter()
    jobs.simulate({"benchmark": "planar_pendulum", "method": "rk4", "h": 1e-5, "t_end": 5.0}, seen.append)
    wall = time.perf_counter() - t0
    assert seen and all(0.0 <= f <= 1.0 for f in seen)
    assert len(seen) <= wall / jobs.PROGRESS_INTERVAL + 2  # the first report, then at most one per interval


# ----------------------------------------------------------------------------------------------------------
# The form: validation next to each field, canonical configurations


def _form(**kw):
    form = {"benchmark": "pendulum_3d", "methods": ["rk4", "rattlie"], "h": 0.01, "t_end": 1, "params": {},
            "options": {}}
    form.update(kw)
    return form


def test_check_form_gives_one_canonical_config_per_method():
    configs, errors = jobs.check_form(_form(params={"m": "10", "rho": "[0, 0, 0.7]", "J": ""}))
    assert errors == {}
    assert [c["method"] for c in configs] == ["rk4", "rattlie"]
    assert all(c["params"] == {} for c in configs)  # values equal to the defaults are dropped
    assert configs[1]["options"] == {k: o["default"] for k, o in solvers.describe_method("rattlie")["options"].items()}
    changed, errors = jobs.check_form(_form(params={"m": "12", "Omega0": "0 1 0"}))
    assert errors == {} and changed[0]["params"] == {"m": 12.0, "Omega0": [0.0, 1.0, 0.0]}


@pytest.mark.parametrize(
    ("change", "key", "fragment"),
    [
        ({"h": 0}, "step", "Step h must be a number greater than 0"),
        ({"h": None}, "step", "Step h is missing"),
        ({"h": 2, "t_end": 1}, "step", "larger than the end time"),
        ({"h": 1e-9, "t_end": 100}, "step", "over the cap"),
        ({"t_end": -1}, "t-end", "End time must be a number greater than 0"),
        ({"methods": []}, "methods", "Choose at least one method"),
        ({"methods": ["spark"]}, "methods", "does not apply to pendulum_3d"),
        ({"params": {"m": "-1"}}, "param:m", "must be > 0"),
        ({"params": {"J": "[[1, 0, 0], [0, 1, 0]]"}}, "param:J", "expected an array of shape (3, 3)"),
        ({"params": {"rho": "zero"}}, "param:rho", "is not a number"),
        ({"params": {"R0": "[[1,0,0],[0,1,0],[0,0,1]]", "cardan0": "[0, 0, 0.1]"}}, "param:", "at most one of"),
        ({"options": {"rattlie": {"newton_tol": "1"}}}, "option:rattlie:newton_tol", "outside"),
        ({"options": {"rattlie": {"newton_max_iter": "2.5"}}}, "option:rattlie:newton_max_iter", "not an integer"),
    ],
)
def test_check_form_puts_each_problem_next_to_its_field(change, key, fragment):
    configs, errors = jobs.check_form(_form(**change))
    assert configs == []  # nothing runs while anything is invalid
    assert key in errors and fragment in errors[key], errors


def test_parse_and_format_values_round_trip():
    for value in (0.7, [0.0, 0.0, 0.7], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], True, None,
                  3.0**0.5, 7850.0, 2):  # sqrt(3), the two-link arm's l2, needs 17 digits: a form default is exact
        assert jobs.parse_value(jobs.format_value(value)) == value
    assert jobs.format_value(7850.0) == "7850" and jobs.format_value(3.0**0.5) == "1.7320508075688772"
    assert jobs.parse_value("1, 2 3") == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="not a number or a list"):
        jobs.parse_value("abc")


def test_run_key_ignores_how_numbers_were_written_but_not_the_physics():
    base = jobs.check_form(_form(methods=["rk4"]))[0][0]
    via_browser = json.loads(json.dumps({**base, "t_end": 1, "h": 0.01}))  # JS turns 1.0 into 1
    assert jobs.run_key(base, "v1") == jobs.run_key(via_browser, "v1")
    assert jobs.run_key(base, "v1") != jobs.run_key(base, "v2")  # another code version
    assert jobs.run_key(base, "v1") != jobs.run_key({**base, "h": 0.02}, "v1")
    assert jobs.run_key(base, "v1") != jobs.run_key({**base, "params": {"m": 11.0}}, "v1")


def test_run_cache_serves_each_run_in_any_combination(tmp_path, monkeypatch):
    cache = jobs.RunCache(tmp_path / "runs", "test")
    a, b = jobs.check_form(_form(methods=["rk4", "rattlie"], t_end=0.5))[0]
    key_a, first, hit = cache.run(a)
    assert not hit and first["status"] == "ok" and key_a in cache
    again = jobs.RunCache(tmp_path / "runs", "test")  # another process opening the same directory

    def no_run(*args, **kwargs):  # a hit reads the stored run; computing it again fails here (not a timing)
        raise AssertionError("a cache hit ran the solver")

    monkeypatch.setattr(jobs, "simulate", no_run)
    key, second, hit = again.run(a)
    assert hit and key == key_a
    np.testing.assert_array_equal(second["energy_error"], first["energy_error"])
    assert b and cache.key(b) not in cache
    assert jobs.RunCache(tmp_path / "runs", "other version").key(a) != key_a


def test_simulate_keeps_the_partial_results_of_a_diverged_run():
    config = jobs.check_form(_form(benchmark="natural_double_pendulum", methods=["rk4"], h=0.3, t_end=21))[0][0]
    out = jobs.simulate(config)
    assert out["status"] == "diverged" and "diverged at t =" in out["message"]
    assert 0 < len(out["t"]) < 71 and out["points"].shape == (len(out["t"]), 3, 3)
    fig = figures.energy_figure([out])
    assert len(fig["data"]) == 1  # partial results are plotted
    assert figures.summary_rows([out])[0]["status"] == "diverged"


# ----------------------------------------------------------------------------------------------------------
# Figures


@pytest.fixture(scope="module")
def two_runs():
    """A benchmark with constraints, rotations and momentum, so that every chart has data."""
    configs, errors = jobs.check_form(_form(benchmark="spatial_double_pendulum", methods=["rk4", "rattlie"], h=0.01,
                                            t_end=2))
    assert not errors
    return [jobs.simulate(c) for c in configs]


def test_the_3d_pendulum_has_no_constraint_chart():
    """The heavy top on SO(3) has no constraints (NaN diagnostics): the chart says so instead of drawing."""
    configs, errors = jobs.check_form(_form(methods=["rattlie"], h=0.05, t_end=1))
    assert not errors
    fig = figures.constraint_figure([jobs.simulate(configs[0])])
    assert fig["data"] == [] and "no constraints" in json.dumps(fig["layout"])


def _decoded(spec) -> np.ndarray:
    import base64

    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])


def test_every_chart_is_a_valid_plotly_figure_with_one_colour_per_run(two_runs):
    builders = {
        "trajectory": figures.trajectory_figure(two_runs, figures.default_components(two_runs)),
        "energy": figures.energy_figure(two_runs),
        "energy log": figures.energy_figure(two_runs, "log"),
        "constraint": figures.constraint_figure(two_runs),
        "orthogonality": figures.orthogonality_figure(two_runs),
        "momentum": figures.momentum_figure(two_runs),
        "scene": view3d.scene_figure(view3d.scene_data(two_runs, [0, 0, 1])),
    }
    for name, fig in builders.items():
        go.Figure(fig)  # validates every property against plotly's schema
        colours = {tr["line"]["color"] for tr in fig["data"] if tr.get("legendgroup") == "rk4, h=0.01"}
        assert colours <= {figures.run_color(0), *figures.AXIS_COLORS}, name
        assert fig["data"], name
    assert all(tr["type"] == "scatter" for tr in builders["energy"]["data"])  # few points: SVG draws faster
    many = [{**two_runs[0], "t": np.linspace(0, 1, 30_000), "energy_error": np.ones(30_000)}] * 12
    assert all(tr["type"] == "scattergl" for tr in figures.energy_figure(many)["data"])  # WebGL above GL_POINTS
    assert builders["energy log"]["layout"]["yaxis"]["type"] == "log"
    assert len(builders["constraint"]["data"]) == 2 * 3  # position, velocity, acceleration per run
    e = _decoded(builders["energy"]["data"][0]["y"])
    np.testing.assert_allclose(e, two_runs[0]["energy_error"].astype(np.float32))


def test_charts_say_why_they_are_empty():
    assert "No run yet" in figures.energy_figure([])["layout"]["annotations"][0]["text"]
    planar = jobs.simulate(jobs.check_form(_form(benchmark="planar_pendulum", methods=["rk4"]))[0][0])
    assert "no constraints" in figures.constraint_figure([planar])["layout"]["annotations"][0]["text"]
    assert "no rotation" in figures.orthogonality_figure([planar])["layout"]["annotations"][0]["text"]
    assert "no conserved momentum" in figures.momentum_figure([planar])["layout"]["annotations"][0]["text"]


def test_min_max_decimation_keeps_every_extreme_and_bounds_the_points():
    t = np.linspace(0, 1, 100_001)
    y = np.sin(40 * t)
    y[31_337] = 5.0  # a one-sample spike that plain subsampling would miss
    y[77_000] = np.nan
    x, v = figures.decimate(t, y, buckets=500)
    assert len(x) == len(v) <= 1000 and np.all(np.diff(x) >= 0)
    assert x[0] == 0.0 and x[-1] == 1.0  # the line spans the whole run
    assert np.nanmax(v) == 5.0 and np.nanmin(v) == np.nanmin(y)
    short_t, short_y = figures.decimate(t[:100], y[:100], buckets=500)
    assert len(short_t) == len(short_y) == 100  # short series pass unchanged


def test_fifty_thousand_step_payload_is_bounded():
    config = jobs.check_form(_form(benchmark="planar_pendulum", methods=["rk4"], h=1e-3, t_end=50))[0][0]
    run = jobs.simulate(config)
    assert run["steps"] == 50_000
    payload = sum(
        len(json.dumps(fig))
        for fig in (
            figures.trajectory_figure([run], figures.default_components([run])),
            figures.energy_figure([run]),
            figures.constraint_figure([run]),
            figures.orthogonality_figure([run]),
            figures.momentum_figure([run]),
            view3d.scene_figure(view3d.scene_data([run], [0, -1, 0])),
        )
    ) + len(json.dumps(view3d.scene_data([run], [0, -1, 0])))
    assert payload < 2_000_000, payload


@pytest.mark.parametrize("gravity", [[0, 0, 1], [0, -1, 0], [0, 0, -1], [1, 2, 3]])
def test_screen_rotation_points_gravity_down_and_is_proper(gravity):
    rot = view3d.screen_rotation(gravity)
    g = np.asarray(gravity, float) / np.linalg.norm(gravity)
    np.testing.assert_allclose(rot @ g, [0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(rot) == pytest.approx(1.0)


def test_scene_data_draws_chain_and_triads_for_every_benchmark():
    for benchmark in solvers.benchmarks():
        method = solvers.methods(benchmark)[0]
        d = solvers.describe(benchmark)
        run = jobs.simulate(jobs.check_form(_form(benchmark=benchmark, methods=[method], h=0.01, t_end=0.5))[0][0])
        scene = view3d.scene_data([run], d["gravity_direction"], frames=50)
        assert len(scene["t"]) == 50 and len(scene["runs"]) == 1, benchmark
        r = scene["runs"][0]
        n_chain = len(r["chain"][0])
        assert n_chain + len(r["axes"]) == run["points"].shape[1]
        if benchmark in ("pendulum_3d", "angular_velocity"):
            assert len(r["axes"]) == 3  # the body frame triad
        fig = view3d.scene_figure(scene)
        go.Figure(fig)
        assert len(fig["data"]) == view3d.static_trace_count(scene) + 1 + len(r["axes"])
    # gravity drawn downward: the 3D pendulum's centre of mass hangs below the pivot once it has swung down
    d = solvers.describe("pendulum_3d")
    run = jobs.simulate(jobs.check_form(_form(methods=["rk4"], params={"cardan0": "[0.1, 0, 0]"}))[0][0])
    scene = view3d.scene_data([run], d["gravity_direction"], frames=10)
    pivot, com = scene["runs"][0]["chain"][0]
    assert com[2] < pivot[2]


def test_summary_rows_and_downloads(two_runs):
    rows = figures.summary_rows(two_runs)
    assert [r["run"] for r in rows] == ["rk4, h=0.01", "rattlie, h=0.01"]
    assert rows[1]["newton_iterations"] not in ("-", "0") and rows[0]["status"] == "ok"
    text = figures.results_csv(two_runs)
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert len(comments) == 6 and '"version": "' in comments[2] and comments[0].startswith("# rk4, h=0.01: params")
    table = list(csv.reader(io.StringIO("\n".join(ln for ln in text.splitlines() if not ln.startswith("#")))))
    assert table[0][:3] == ["run", "method", "t"] and "energy_error" in table[0]
    assert len(table) == 1 + sum(len(r["t"]) for r in two_runs)
    data = json.loads(figures.results_json(two_runs))
    assert [r["method"] for r in data["runs"]] == ["rk4", "rattlie"]
    assert data["runs"][0]["rotation_error"][0] is None  # NaN (not defined for this benchmark) -> null
    assert data["runs"][1]["provenance"]["request"]["method"] == "rattlie"


def test_schematic_is_an_svg_of_the_initial_configuration():
    svg = view3d.schematic_svg(np.array([[0, 0, 0], [0, -0.6, 0]]), ("pivot", "centre of mass"), [0, -1, 0])
    assert svg.startswith("<svg") and "<polyline" in svg and svg.endswith("</svg>")


# ----------------------------------------------------------------------------------------------------------
# The chain of N rods (spatial_chain): a whole-number parameter, a scene of up to 65 points per run


@pytest.mark.parametrize(("entry", "value"), [("32", 32), ("32.0", 32), (" 64 ", 64), ("2", 2), ("8", None)])
def test_a_whole_number_parameter_reaches_the_solver_as_an_int(entry, value):
    configs, errors = jobs.check_form(_form(benchmark="spatial_chain", methods=["rattlie", "lgvi"], h=1e-3,
                                            t_end=0.002, params={"N": entry}))
    assert errors == {}
    assert [c["params"].get("N") for c in configs] == [value, value]  # the default (8) is dropped
    if value is not None:
        assert type(configs[0]["params"]["N"]) is int
        run = jobs.simulate(configs[0])
        assert run["status"] == "ok" and run["points"].shape[1] == value + 1 and run["params"]["N"] == value
        assert len(run["point_names"]) == value + 1 and run["point_names"][-1] == f"P{value}"


@pytest.mark.parametrize("entry", ["2.5", "100", "65", "1", "-3", "true"])
def test_a_bad_rod_count_gets_the_solvers_message_next_to_the_field(entry):
    configs, errors = jobs.check_form(_form(benchmark="spatial_chain", methods=["rattlie"], params={"N": entry}))
    assert configs == [] and list(errors) == ["param:N"]
    assert errors["param:N"].startswith("parameter 'N':") and "whole number from 2 to 64" in errors["param:N"]


def _run_page_payload(results: list[dict], gravity) -> dict[str, int]:
    """Bytes of what the Run page's callbacks show_results and show_scene (app/pages/run.py) send for these
    results, encoded as Dash encodes a callback's output (plotly's JSON encoder)."""
    from dash._utils import to_json

    from app.layout import summary_table

    available = figures.trajectory_components(results)
    kept = figures.default_components(results)
    charts = (figures.trajectory_figure(results, kept), figures.error_figure(results), figures.energy_figure(results),
              figures.constraint_figure(results), figures.orthogonality_figure(results),
              figures.momentum_figure(results), figures.reference_note(results),
              summary_table(figures.summary_rows(results)), available, kept)
    scene = view3d.scene_data(results, gravity)
    return {"charts": len(to_json(charts)), "scene": len(to_json([scene, view3d.scene_figure(scene)]))}


def test_a_64_rod_chain_with_two_methods_stays_under_2_mb_and_reads_as_a_thin_chain(monkeypatch):
    """Two runs of the largest chain at the default step and end time (5,000 steps): the 3D view gets fewer frames
    (points x frames <= figures.SCENE_POINT_FRAMES) and coarser coordinates (a 1 cm step in a 150 m view), so
    the Run page's responses stay under 2 MB (before the cap: 2.5 MB, 2.1 MB of it the scene); its rods are
    drawn thin. The browser's own measure of a 32-rod run: tests/test_browser.py."""
    # the server gives up on this run's reference after its budget (20 s per run: no error chart); so does this
    # test, at once
    monkeypatch.setattr(jobs, "REFERENCE_SECONDS", 0.01)
    d = solvers.describe("spatial_chain")
    configs, errors = jobs.check_form(_form(benchmark="spatial_chain", methods=["rattlie", "lgvi"], h=d["default_h"],
                                            t_end=d["default_t_end"], params={"N": "64"}))
    assert errors == {}
    results = [jobs.simulate(c) for c in configs]
    assert [r["status"] for r in results] == ["ok", "ok"] and results[0]["steps"] == 5000
    assert all("would take longer" in r["reference"] for r in results)
    sizes = _run_page_payload(results, d["gravity_direction"])
    assert sum(sizes.values()) <= 2_000_000, sizes
    scene = view3d.scene_data(results, d["gravity_direction"])
    assert len(scene["t"]) == view3d.scene_frames(results) == figures.SCENE_POINT_FRAMES // 130 < figures.SCENE_FRAMES
    assert [len(r["chain"][0]) for r in scene["runs"]] == [65, 65]
    assert view3d.scene_decimals(scene["range"][0][1] - scene["range"][0][0]) == 2
    chain = next(tr for tr in view3d.scene_figure(scene)["data"] if tr.get("mode") == "lines+markers")
    assert len(chain["x"]) == 65 and chain["line"]["width"] < 4 and 1.5 <= chain["marker"]["size"] < 2.5


def test_only_long_chains_get_fewer_frames_or_thinner_rods():
    """Every other benchmark (at most 5 points per run) keeps every frame and the thick rods with 8 runs, the
    limit of a job (app.limits); a chain of 8 rods with up to 7 runs."""
    def run(points: int) -> dict:
        return {"t": np.linspace(0, 1, 11), "points": np.zeros((11, points, 3)), "point_names": ["O"] * points}

    assert view3d.scene_frames([run(5)] * 8) == view3d.scene_frames([run(9)] * 7) == figures.SCENE_FRAMES
    assert view3d.scene_frames([run(65)] * 8) == figures.SCENE_MIN_FRAMES  # never fewer
    assert view3d.scene_frames([run(65)] * 2, frames=50) == 50  # asked for fewer: as asked
    assert view3d.chain_style(3) == view3d.chain_style(9) == (7.0, 4.0)
    widths = [view3d.chain_style(n)[0] for n in (9, 17, 33, 65)]
    assert widths == sorted(widths, reverse=True) and widths[-1] < 4
    assert view3d.scene_decimals(2.3) == 4  # a mechanism of a metre or two: 0.1 mm, as before


def test_the_chain_schematic_is_seen_from_above():
    """The chain starts flat in the horizontal plane along an arc: a side view would be a straight line, so its
    schematic is a top view ("from above", gravity into the page) with one dot per point; a planar mechanism
    starting horizontal along one line (the two-link arm) keeps its side view."""
    from solvers.registry import BENCHMARKS

    def schematic(benchmark: str, params: dict | None = None) -> str:
        bench = BENCHMARKS[benchmark]
        model = bench.build(bench.resolve(params or {}))
        return view3d.schematic_svg(model.points(model.y0[None, :])[0], model.point_names,
                                    bench.gravity_direction)

    chain = schematic("spatial_chain")
    assert "from above" in chain and chain.count("<circle") == 9 + 1  # the points and the circled cross of g
    assert "from above" in schematic("spatial_double_pendulum")
    assert "from above" not in schematic("two_link_arm") and "<polygon" in schematic("two_link_arm")
    big = schematic("spatial_chain", {"N": 64})
    assert big.count("<circle") == 65 + 1 and 'r="1.6"' in big  # smaller dots for many points


# ----------------------------------------------------------------------------------------------------------
# Links and configuration


def test_links_round_trip_the_form():
    form = {"benchmark": "pendulum_3d", "methods": ["rk4", "lie_galpha"], "h": 0.002, "t_end": 5,
            "params": {"m": "12", "rho": "[0, 0, 0.7]"}, "options": {"lie_galpha": {"rho_inf": "0.5"}}}
    defaults = {"params": {"m": "10", "rho": "[0.0, 0.0, 0.7]"}, "options": {"lie_galpha": {"rho_inf": "0.9"}}}
    query = urlstate.query_from_form(form, defaults)
    assert query.startswith("?benchmark=pendulum_3d&methods=rk4,lie_galpha")
    back = urlstate.form_from_query(query)
    assert back["benchmark"] == "pendulum_3d" and back["methods"] == ["rk4", "lie_galpha"]
    assert back["h"] == "0.002" and back["t_end"] == "5"
    assert back["params"] == {"m": "12", "rho": "[0, 0, 0.7]"}  # rho differs textually from the default text
    assert back["options"] == {"lie_galpha": {"rho_inf": "0.5"}}
    assert jobs.check_form({**back, "h": float(back["h"]), "t_end": float(back["t_end"])})[1] == {}


def test_config_cache_dir_and_secret_key(tmp_path, monkeypatch):
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "c"))
    monkeypatch.delenv(config.SECRET_KEY_ENV, raising=False)
    d = config.cache_dir()
    assert d == (tmp_path / "c").resolve() and d.is_dir()
    key = config.secret_key(d)
    assert len(key) == 64 and config.secret_key(d) == key  # stable across workers
    monkeypatch.setenv(config.SECRET_KEY_ENV, "explicit")
    assert config.secret_key(d) == "explicit"
    v = config.code_version()
    assert "+" in v and v == config.code_version()


def test_a_new_method_and_option_appear_without_app_changes(monkeypatch):
    """Registry-driven: a method registered in solvers.registry shows up in the form with its options."""
    import dataclasses

    from app import layout
    from solvers import registry
    from solvers.methods.base import Option

    rk4 = registry.METHODS["rk4"]
    extra = {**rk4.options, "gamma": Option(0.25, "a new option", "float", 0.0, 1.0)}
    monkeypatch.setitem(registry.METHODS, "rk4_new", dataclasses.replace(rk4, id="rk4_new", options=extra))
    assert "rk4_new" in solvers.methods("planar_pendulum")
    panel = str(layout.options_panel(["rk4_new"]))
    assert "'name': 'gamma'" in panel and "'method': 'rk4_new'" in panel
    configs, errors = jobs.check_form(_form(benchmark="planar_pendulum", methods=["rk4_new"],
                                            options={"rk4_new": {"gamma": "0.5"}}))
    assert errors == {} and configs[0]["options"]["gamma"] == 0.5
    _, errors = jobs.check_form(_form(benchmark="planar_pendulum", methods=["rk4_new"],
                                      options={"rk4_new": {"gamma": "2"}}))
    assert "outside" in errors["option:rk4_new:gamma"]


def test_the_trajectory_axis_title_groups_a_points_coordinates_and_stays_short():
    assert figures.components_title(["centre of mass.x", "centre of mass.y", "centre of mass.z"]) == (
        "centre of mass.x/y/z")
    assert figures.components_title(["P1.x", "P1.y", "P2.x", "theta"]) == "P1.x/y, P2.x, theta"
    long = figures.components_title([f"P{i}.x" for i in range(1, 20)])
    assert len(long) <= 30 and long.endswith("…")



def _outputs(spec: str) -> list[tuple[str, str]]:
    """(component id, prop) of each output in a Dash callback's output spec ("id.prop", "..a.p...b.q.." when there
    are several, "@<hash>" after a duplicate)."""
    parts = spec[2:-2].split("...") if spec.startswith("..") else [spec]
    return [tuple(p.split("@")[0].rsplit(".", 1)) for p in parts]


def _ancestors(node, around: tuple[str, ...] = (), found: dict | None = None) -> dict[str, tuple[str, ...]]:
    """The ids of the elements around each element with a string id in a layout."""
    from dash.development.base_component import Component

    found = {} if found is None else found
    if isinstance(node, (list, tuple)):
        for child in node:
            _ancestors(child, around, found)
    elif isinstance(node, Component):
        own = getattr(node, "id", None)
        if isinstance(own, str):
            found[own] = around
            around = (*around, own)
        _ancestors(getattr(node, "children", None), around, found)
    return found


def test_no_callback_updates_an_element_whose_children_another_replaces_nor_one_around_it():
    """Dash's renderer keeps only the last update's changed props of an element until it draws it again: a class
    written on the lessons body, or on the element around it, in the same batch as the body's new children drew the
    body with its old children (the lessons page kept "Running the demo…" over a computed demo; 4 runs in 52 of fast
    keys beside three CPU hogs). So an element whose children a callback writes gets no other prop from any
    callback, and no element around it gets a prop other than its children (which replace it whole)."""
    import dash

    from app import main

    props: dict[str, set[str]] = {}
    for cb in main.app._callback_list:
        for cid, prop in _outputs(cb["output"]):
            props.setdefault(cid, set()).add(prop)
    assert {"children"} == props["lessons-body"] and "className" in props["lessons-at"]  # the specs were read
    wrong = []
    for page in dash.page_registry.values():
        around = _ancestors(page["layout"]() if callable(page["layout"]) else page["layout"])
        assert "lessons-body" in around or page["path"] != "/lessons"
        for cid, written in props.items():
            if "children" in written and cid in around:
                wrong += [(page["path"], cid, sorted(written))] if len(written) > 1 else []
                wrong += [(page["path"], cid, a, sorted(props[a] - {"children"}))
                          for a in around[cid] if props.get(a, {"children"}) - {"children"}]
    assert not wrong, wrong
