"""Composed methods (the ``composition`` option, solvers.composition): a method offers it only if it is symmetric,
which is checked here by its kernel (a step of h then one of -h returns to the start); composed, it reaches the
coefficient set's order against the independent references on two benchmarks, and keeps its structure
(orthogonality, constraints, momentum, bounded energy) over 1e5 steps."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers import composition, kernels
from solvers.models import dispatch
from solvers.references import solutions
from solvers.registry import BENCHMARKS, METHODS, applies
from tests.convergence import fitted_order
from tests.test_rattlie import GENERAL_P3D, GENERAL_SDP, reference_state

COMPOSED = [m for m in METHODS.values() if "composition" in m.properties]


def base_of(method_id: str) -> str:
    return method_id.rsplit("_c", 1)[0]


def round_trip(method_id: str, benchmark: str, h: float) -> float:
    """max |y - y0| after one kernel step of h from t = 0 and one of -h from t = h, from the benchmark's initial
    state; each step starts the kernel afresh (k0 = 0), so it is the one-step map of the method alone."""
    bench, meth = BENCHMARKS[benchmark], METHODS[method_id]
    model = bench.build(bench.resolve(None))
    kind, data = dispatch.pack(model.machinery, model.data)
    tight = {"newton_tol": 1e-14} if "newton_tol" in meth.options else {}
    opts = np.asarray(meth.pack(meth.complete(meth.resolve(tight, benchmark=benchmark))), dtype=float)
    y0 = model.y0.astype(float)
    y = y0.copy()
    for start, step in ((0.0, h), (h, -h)):
        samples = np.full((1, 1 + y.size + kernels.N_DIAG + kernels.N_ENVELOPE), np.nan)  # the initial row only
        done, code, _ = meth.kernel(kind, data, y, np.zeros(max(1, meth.work_size(model))), opts, start, step, 0,
                                    1, 10**9, 10**9, samples, 0, np.zeros(kernels.N_MAXIMA), np.full(4, np.nan),
                                    np.zeros(kernels.N_INFO))
        assert code == kernels.OK and done == 1, (method_id, benchmark, step, code)
    return float(np.abs(y - y0).max())


def _fixed_step(symmetric: bool) -> list[str]:
    return [m.id for m in METHODS.values() if not m.adaptive and ("symmetric" in m.properties) == symmetric
            and not m.id.startswith("scipy")]


@pytest.mark.parametrize("method", _fixed_step(True))
def test_a_method_said_symmetric_returns_to_the_start(method):
    """Symmetry (HLW V.1): the adjoint of the step is the step itself, so h then -h is the identity up to the
    Newton tolerance and round-off, on every benchmark the method applies to."""
    for benchmark in (b for b in BENCHMARKS if applies(method, b)):
        assert round_trip(method, benchmark, 0.02) <= 1e-13, (method, benchmark)


@pytest.mark.parametrize("method", ["rk4", "erk", "lie_galpha", "hermite_h23g2"])
def test_the_round_trip_tells_a_method_that_is_not_symmetric(method):
    """The check discriminates: explicit Runge-Kutta, the generalized-alpha and the Hermite methods miss the
    start by their local error (1e-7 to 1e-1 at h = 0.02 on some benchmark)."""
    assert method in _fixed_step(False)
    assert max(round_trip(method, b, 0.02) for b in BENCHMARKS if applies(method, b)) > 1e-6


def test_composed_methods_are_built_on_symmetric_ones_only():
    assert COMPOSED, "no composed method in the registry"
    for m in COMPOSED:
        base = METHODS[base_of(m.id)]
        assert "symmetric" in base.properties and m.kernel is base.kernel, m.id
        sets = m.options["composition"].choices
        assert sets and all(composition.COMPOSITIONS[c].order == m.order for c in sets), (m.id, sets)
        assert m.options["composition"].default == composition.BEST[m.order] and m.order_of() == m.order
    with pytest.raises(ValueError, match="option 'composition': 'triple_jump' is not one of 'yoshida7', 'kahan_li9'"):
        METHODS["rattlie_c6"].resolve({"composition": "triple_jump"})
    with pytest.raises(ValueError, match="method 'rk4' is not symmetric"):
        composition.composed(METHODS["rk4"], 4)


# h sequences in the asymptotic range of each set on both benchmarks (the larger sets take longer sub-steps)
STEPS = {
    "triple_jump": [0.01, 0.005, 0.0025, 0.00125],
    "suzuki5": [0.02, 0.01, 0.005, 0.0025],
    "yoshida7": [0.0125, 0.00625, 0.003125],
    "kahan_li9": [0.025, 0.0125, 0.00625, 0.003125],
}
GENERAL_PLANAR = {"theta0": 2.0, "omega0": -1.5}  # a large swing (k^2 = 0.75), not the seed's small one
# (benchmark, parameters, t_end, a factor on STEPS: the planar pendulum's errors reach round-off 4x sooner)
CASES = {"p3d-general": ("pendulum_3d", GENERAL_P3D, 2.0, 1.0),
         "sdp-general": ("spatial_double_pendulum", GENERAL_SDP, 1.0, 1.0),
         "sdp-seed": ("spatial_double_pendulum", {}, 1.0, 1.0), "planar-seed": ("planar_pendulum", {}, 2.0, 4.0),
         "planar-general": ("planar_pendulum", GENERAL_PLANAR, 2.0, 4.0)}
ORDER_4_6 = [(m.id, c, case) for m in COMPOSED if m.order in (4, 6) for c in m.options["composition"].choices
             for case, (b, *_) in CASES.items() if applies(m.id, b)]


def exact_state(benchmark: str, t: np.ndarray, params: dict) -> dict[str, np.ndarray]:
    if benchmark == "planar_pendulum":
        theta, omega = solutions.planar_pendulum_exact(t, **params)
        return {"theta": theta, "omega": omega}
    return reference_state(benchmark, t, params)


@pytest.mark.parametrize(("method", "name", "case"), ORDER_4_6)
def test_composed_orders_four_and_six(method, name, case):
    benchmark, params, t_end, scale = CASES[case]
    hs = [scale * h for h in STEPS[name]]
    errors: dict[str, list[float]] = {}
    for h in hs:
        res = solvers.simulate(benchmark, method, h=h, t_end=t_end, params=params,
                               options={"composition": name, "newton_tol": 1e-14})
        assert res.status == "ok", res.message
        exact = exact_state(benchmark, res.t, params)
        for key in (k for k in ("R", "x", "Omega", "v", "theta", "omega") if k in exact):
            errors.setdefault(key, []).append(np.abs(res.state[key] - exact[key]).max())
    want = composition.COMPOSITIONS[name].order
    for key, errs in errors.items():
        order = fitted_order(hs, errs)
        assert abs(order - want) <= 0.3, f"{key}: order {order:.2f} for {want}, errors {errs}"


def home(method: str) -> str:
    """The first benchmark the method applies to, of seed 000's double pendulum, the heavy top, the planar one."""
    return next(b for b in ("spatial_double_pendulum", "pendulum_3d", "planar_pendulum") if applies(method, b))


@pytest.mark.parametrize("method", [m.id for m in COMPOSED if m.order == 8])
def test_composed_order_eight_on_a_pendulum(method):
    """kahan_li17 (order 8) on the heavy top's or the planar pendulum's seed state: the errors fall by about 1e7
    over the four steps, above the reference's and Newton's floor (about 1e-13), so the order shows. (On the double
    pendulum its sub-steps of up to 0.56 h need h <= 0.06 s to converge, where the errors are near that floor.)"""
    benchmark = next(b for b in ("pendulum_3d", "planar_pendulum") if applies(method, b))
    hs = [0.125, 0.0625, 0.03125, 0.015625] if benchmark == "pendulum_3d" else [0.25, 0.125, 0.0625, 0.03125]
    if base_of(method) == "lgvi":  # at h = 0.125 its sub-steps are near Lee's limit: error 8e-3, not asymptotic
        hs = hs[1:]
    errs = []
    for h in hs:
        res = solvers.simulate(benchmark, method, h=h, t_end=2.0, options={"newton_tol": 1e-14})
        assert res.status == "ok", res.message
        exact = exact_state(benchmark, res.t, {})
        errs.append(max(np.abs(res.state[k] - exact[k]).max() for k in exact if k in ("R", "Omega", "theta", "omega")))
    assert abs(fitted_order(hs, errs) - 8.0) <= 0.3, errs


@pytest.mark.parametrize("method", [m.id for m in COMPOSED if m.order == 4])
def test_a_composed_method_keeps_the_structure_over_1e5_steps(method):
    """1e5 steps of the triple jump (3e5 sub-steps, one in three negative): the constraints and orthogonality at
    round-off where the benchmark has them, the energy error bounded, without drift, and (order 4 against 2) at
    most a quarter of the base method's at the same h (seed 000's double pendulum: 1.1 J against 9.3 J), or at
    round-off for a base that conserves energy."""
    base = base_of(method)
    runs = {m: solvers.simulate(home(method), m, h=0.01, t_end=1000.0, max_samples=2001,
                                options={"composition": "triple_jump"} if m == method else None)
            for m in (method, base)}
    res = runs[method]
    s = res.summary
    assert res.status == "ok" and res.steps == 100_000, res.message
    for key, bound in (("max_constraint_position", 1e-10), ("max_constraint_velocity", 1e-10),
                       ("max_orthogonality_error", 1e-12)):
        assert not np.isfinite(s[key]) or s[key] <= bound, (key, s[key])  # NaN: the benchmark has none
    e = np.abs(res.energy_error)
    n = len(e) // 5
    if "energy-conserving" in METHODS[base].properties:
        assert s["max_energy_error"] <= 1e-10 * max(1.0, abs(res.energy[0]))
    else:
        assert e[-n:].max() <= 2.0 * e[:n].max()  # bounded, no drift
        assert s["max_energy_error"] <= 0.25 * runs[base].summary["max_energy_error"]


def test_a_composed_step_beyond_the_method_fails_with_its_message():
    """kahan_li17's sub-steps reach 0.56 h: at h = 0.25 s the double pendulum's Newton iteration diverges, and the
    run says so with the base method's message, keeping the steps it took."""
    res = solvers.simulate("spatial_double_pendulum", "rattlie_c8", h=0.25, t_end=1.0)
    assert res.status == "failed"
    assert "Newton iteration of rattlie_c8 did not converge" in res.message or "singular" in res.message
    assert res.t[0] == 0.0


def test_a_backward_sub_step_beyond_lees_limit_fails_where_lgvi_itself_does_not():
    """The triple jump's middle sub-step is -1.70 h: at h = 0.1 s on the heavy top that is a step of 0.17 s, past
    where lgvi's own Newton iteration converges (it fails at h = 0.15 s), while lgvi at h = 0.1 s runs. lgvi_c4 stops
    at its second step with the base method's message and keeps the step it took."""
    assert solvers.simulate("pendulum_3d", "lgvi", h=0.1, t_end=1.0).status == "ok"
    assert solvers.simulate("pendulum_3d", "lgvi", h=0.17, t_end=1.02).status == "failed"
    res = solvers.simulate("pendulum_3d", "lgvi_c4", h=0.1, t_end=1.0, options={"composition": "triple_jump"})
    assert res.status == "failed"
    assert res.message.startswith("Newton iteration of lgvi_c4 did not converge at t = 0.1 s"), res.message
    assert res.message.endswith("try a smaller step") and list(res.t) == [0.0, 0.1]


@pytest.mark.parametrize("method", ["rattlie_c8", "lgvi_c8"])
def test_order_8_reaches_1e_8_m_on_seed_000s_run_at_h_0_01(method):
    """docs/methods.md's work-precision table: on seed 000's first 5 s, rattlie_c8 and lgvi_c8 at h = 0.01 draw
    every point within 1e-8 m of the reference (measured 3.0e-9 and 3.3e-9 m), where rattlie needs h = 2.5e-4 for
    1.1e-4 m."""
    from solvers import references

    res = solvers.simulate("spatial_double_pendulum", method, h=0.01, t_end=5.0,
                           options={"newton_tol": 1e-14})
    assert res.status == "ok", res.message
    assert references.error(res).max() <= 1e-8
