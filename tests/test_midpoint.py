"""Seed 004's implicit midpoint forms (solvers/methods/midpoint.py).

Observed order 2 against independent references (the exact elliptic solution of the planar pendulum; the
quaternion DOP853 solution of the heavy top), on the seed's states and on general ones; the quadratic invariants
(|Gamma|, R^T R, energy, vertical momentum) of the reduced and rotation forms over long runs; gimbal-lock failure
of the Cardan form; Newton failure reporting; chunk independence; bad input.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import solvers
from solvers import driver
from solvers.references import solutions as ref
from tests.convergence import fitted_order

P3D_GENERAL = {"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "Omega0": [1.0, -2.0, 3.0]}
PLANAR_GENERAL = {"m": 1.3, "J": 0.9, "l": 0.4, "theta0": 0.8, "omega0": -2.5}
SPATIAL = ("midpoint_reduced", "midpoint_rotation", "midpoint_cardan")
PLANAR = ("midpoint_angle", "midpoint_reduced")

# (benchmark, params, t_end, steps); the finest step's grid contains the others
CASES = {
    "planar seed": ("planar_pendulum", {}, 5.0, (0.04, 0.02, 0.01, 0.005)),
    "planar general": ("planar_pendulum", PLANAR_GENERAL, 5.0, (0.04, 0.02, 0.01, 0.005)),
    "p3d seed": ("pendulum_3d", {}, 2.0, (0.02, 0.01, 0.005, 0.0025)),
    "p3d general": ("pendulum_3d", P3D_GENERAL, 2.0, (0.01, 0.005, 0.0025, 0.00125)),
}
ORDER_CASES = [(c, m) for c in CASES for m in (PLANAR if c.startswith("planar") else SPATIAL)]


@functools.cache
def _reference(case: str) -> dict[str, np.ndarray]:
    benchmark, params, t_end, hs = CASES[case]
    t = np.arange(round(t_end / hs[-1]) + 1) * hs[-1]
    if benchmark == "planar_pendulum":
        theta, omega = ref.planar_pendulum_exact(t, **params)
        return {"theta": theta, "omega": omega}
    R, W = ref.pendulum_3d_reference(t, **params)
    return {"R": R, "Omega": W}


@pytest.mark.parametrize(("case", "method"), ORDER_CASES, ids=[f"{c}-{m}" for c, m in ORDER_CASES])
def test_observed_order_two(case, method):
    """Max error over every step against the independent reference: fitted slope within 0.3 of 2, per field."""
    benchmark, params, t_end, hs = CASES[case]
    r = _reference(case)
    errs: dict[str, list[float]] = {k: [] for k in r}
    for h in hs:
        res = solvers.simulate(benchmark, method, h=h, t_end=t_end, params=params)
        assert res.status == "ok", res.message
        every = round(h / hs[-1])
        for key in errs:
            got = res.state[key][:, 0] if benchmark == "pendulum_3d" else res.state[key]
            errs[key].append(float(np.abs(got - r[key][::every]).max()))
    for key, e in errs.items():
        order = fitted_order(hs, e)
        assert abs(order - 2.0) <= 0.3, f"{case} {method} {key}: order {order:.2f}, errors {e}"
        assert e[-1] < 1e-2, (key, e)  # and in the asymptotic regime


@pytest.mark.parametrize("method", ("midpoint_reduced", "midpoint_rotation"))
@pytest.mark.parametrize(("params", "h"), [({}, 0.1), ({}, 0.05), (P3D_GENERAL, 0.02)], ids=["seed 0.1", "seed 0.05",
                                                                                             "general"])
def test_quadratic_invariants_over_100_s(method, params, h):
    """|Gamma| = 1 and R^T R = I to 1e-12, energy and vertical momentum to the Newton tolerance, every step."""
    res = solvers.simulate("pendulum_3d", method, h=h, t_end=100.0, params=params)
    assert res.status == "ok", res.message
    s = res.summary
    assert s["max_orthogonality_error"] <= 1e-12
    gamma = res.state["Gamma"]  # R^T e3 = third row of R, shape (n, 3)
    assert gamma.shape == (res.t.shape[0], 3) and np.array_equal(gamma, res.state["R"][:, 0, 2, :])
    assert np.abs(np.linalg.norm(gamma, axis=1) - 1.0).max() <= 1e-12
    scale = 10.0 * 9.81 * np.linalg.norm(params.get("rho", [0, 0, 0.7]))  # m g |rho|, J
    assert s["max_energy_error"] <= 1e-10 * scale, s["max_energy_error"]
    assert s["max_momentum_error"] <= 1e-10 * max(1.0, abs(res.momentum[0])), s["max_momentum_error"]
    assert np.isnan(res.constraint_position).all() and np.isnan(res.constraint_velocity).all()  # no constraints
    # the energy is not conserved by accident: the Cardan form at the same step drifts by far more
    if params is P3D_GENERAL:
        card = solvers.simulate("pendulum_3d", "midpoint_cardan", h=h, t_end=2.0, params=params)
        assert card.summary["max_energy_error"] > 1e4 * s["max_energy_error"]


def test_reduced_and_rotation_give_one_trajectory():
    """Gamma_1, Gamma_2 do not act on Omega: the 12x12 system has the reduced solution, R = R cay(h Omega_m)."""
    kw = {"h": 0.02, "t_end": 10.0, "params": P3D_GENERAL}
    red = solvers.simulate("pendulum_3d", "midpoint_reduced", **kw)
    rot = solvers.simulate("pendulum_3d", "midpoint_rotation", **kw)
    assert np.abs(red.state["R"] - rot.state["R"]).max() < 1e-9
    assert np.abs(red.state["Omega"] - rot.state["Omega"]).max() < 1e-9


def test_cayley_is_the_midpoint_of_gamma():
    """(I + h/2 hat(W)) G1 = (I - h/2 hat(W)) G0 is solved by G1 = cay(h hat(W))^T G0 for any G0 (numpy check)."""
    rng = np.random.default_rng(4)
    for _ in range(5):
        w, g0, h = rng.normal(size=3), rng.normal(size=3), 0.3
        W = ref.hat(h * w)
        cay = np.linalg.solve(np.eye(3) - W / 2, np.eye(3) + W / 2)
        g1 = cay.T @ g0
        assert np.allclose(g1 - g0, -h * np.cross(w, (g0 + g1) / 2), atol=1e-14)


def test_planar_reduced_conserves_energy_and_angle_form_does_not():
    """On the plane H = J w^2/2 - m g l Gamma_2 is quadratic in (w, Gamma): exact for the reduced form; the angle
    form's energy error is bounded but non-zero (midpoint of a non-quadratic Hamiltonian)."""
    kw = {"h": 0.05, "t_end": 50.0, "params": PLANAR_GENERAL}
    red = solvers.simulate("planar_pendulum", "midpoint_reduced", **kw)
    ang = solvers.simulate("planar_pendulum", "midpoint_angle", **kw)
    assert red.status == ang.status == "ok"
    assert red.summary["max_energy_error"] <= 1e-12
    e = np.abs(ang.energy_error)
    assert 1e-5 < e.max() < 1e-1
    tenth = e.shape[0] // 10
    assert e[-tenth:].max() <= 1.5 * e[:tenth].max()  # no drift


def test_cardan_fails_at_gimbal_lock():
    """Spinning about body y through theta_y = pi/2 (no gravity: theta_y = pi/2 - 0.05 + 2 t): "failed", naming
    gimbal lock and the time (|cos theta_y| < 1e-2 from t = 0.02 s), partial results kept."""
    params = {"cardan0": [0.0, np.pi / 2 - 0.05, 0.0], "Omega0": [0.0, 2.0, 0.0], "g": 0.0}
    res = solvers.simulate("pendulum_3d", "midpoint_cardan", h=1e-3, t_end=1.0, params=params)
    assert res.status == "failed"
    assert "gimbal lock" in res.message
    t_fail = float(res.message.split("t = ")[1].split(" s")[0])
    assert 0.0185 < t_fail < 0.0205, res.message  # the start of the step that would cross
    assert res.t[-1] == pytest.approx(t_fail) and res.t.shape[0] > 5
    assert np.isfinite(res.state["R"]).all()
    # the same motion is fine in the rotation forms
    ok = solvers.simulate("pendulum_3d", "midpoint_rotation", h=1e-3, t_end=1.0, params=params)
    assert ok.status == "ok"
    # a start at gimbal lock fails at t = 0
    at = solvers.simulate("pendulum_3d", "midpoint_cardan", h=1e-3, t_end=1.0,
                          params={"cardan0": [0.3, np.pi / 2, 0.2]})
    assert at.status == "failed" and "gimbal lock" in at.message and "t = 0 s" in at.message


@pytest.mark.parametrize(("benchmark", "method"), [("planar_pendulum", "midpoint_angle"),
                                                   ("planar_pendulum", "midpoint_reduced"),
                                                   ("pendulum_3d", "midpoint_rotation"),
                                                   ("pendulum_3d", "midpoint_cardan")])
def test_newton_failure_is_reported(benchmark, method):
    res = solvers.simulate(benchmark, method, h=0.05, t_end=1.0, options={"newton_max_iter": 1})
    assert res.status == "failed"
    assert "did not converge" in res.message and "t = 0 s" in res.message


@pytest.mark.parametrize("method", SPATIAL)
def test_results_do_not_depend_on_chunking(method, monkeypatch):
    """The Cardan angles carried between kernel calls live in ``work``: chunks of 16 steps give the same bits."""
    kw = {"h": 0.01, "t_end": 1.0, "params": P3D_GENERAL}
    one = solvers.simulate("pendulum_3d", method, **kw)
    monkeypatch.setattr(driver, "FIRST_CHUNK", 1)
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 1e-12)
    many = solvers.simulate("pendulum_3d", method, **kw)
    for key in ("R", "Omega", "Gamma"):
        assert np.array_equal(one.state[key], many.state[key]), key


def test_newton_converges_fast():
    """Exact Jacobians and an Euler predictor: at most 4 iterations per step at the seed's steps."""
    for b, m, h in [("planar_pendulum", "midpoint_angle", 0.05), ("planar_pendulum", "midpoint_reduced", 0.05),
                    ("pendulum_3d", "midpoint_reduced", 0.1), ("pendulum_3d", "midpoint_rotation", 0.1),
                    ("pendulum_3d", "midpoint_cardan", 0.01)]:
        res = solvers.simulate(b, m, h=h, t_end=10.0, max_samples=10)
        assert res.status == "ok", res.message
        assert res.summary["newton_iterations"] <= 4.0 * res.steps, (m, res.summary["newton_iterations"] / res.steps)


def test_applicability_and_bad_input():
    assert {"midpoint_angle", "midpoint_reduced", "rk4"} <= set(solvers.methods("planar_pendulum"))
    p3d = set(solvers.methods("pendulum_3d"))
    assert {"midpoint_reduced", "midpoint_rotation", "midpoint_cardan", "rattlie", "lgvi", "lgvi_lagrangian",
            "lie_galpha", "rk4"} <= p3d
    assert "midpoint_angle" not in p3d
    for bad in ("spatial_double_pendulum", "two_link_arm"):
        assert not any(m.startswith("midpoint") for m in solvers.methods(bad))
    with pytest.raises(ValueError, match="does not apply"):
        solvers.simulate("pendulum_3d", "midpoint_angle", h=0.01, t_end=0.1)
    with pytest.raises(ValueError, match="gimbal_tol"):
        solvers.simulate("pendulum_3d", "midpoint_cardan", h=0.01, t_end=0.1, options={"gimbal_tol": 2.0})
    with pytest.raises(ValueError, match="gimbal_tol"):
        solvers.simulate("pendulum_3d", "midpoint_reduced", h=0.01, t_end=0.1, options={"gimbal_tol": 0.1})


def test_cardan_fails_where_a_general_motion_nears_gimbal_lock():
    """The general heavy top passes |cos theta_y| ~ 0.02 near t = 16.46 s (seen by the rotation form): the Cardan
    form stops there with the gimbal-lock message instead of returning the rest of the run."""
    kw = {"h": 0.002, "t_end": 20.0, "params": P3D_GENERAL}
    rot = solvers.simulate("pendulum_3d", "midpoint_rotation", **kw)
    cos_y = np.sqrt(1.0 - rot.state["R"][:, 0, 0, 2] ** 2)  # R[0, 2] = sin theta_y for R = Rx Ry Rz
    t_min = rot.t[np.argmin(cos_y)]
    assert cos_y.min() < 0.03 and 16.0 < t_min < 17.0
    card = solvers.simulate("pendulum_3d", "midpoint_cardan", **kw)
    assert card.status == "failed" and "gimbal lock" in card.message
    assert abs(card.t[-1] - t_min) < 0.05, (card.t[-1], t_min)
    # up to there it agrees with the rotation form (both order 2 at h = 0.002)
    n = card.t.shape[0]
    assert np.abs(card.state["Omega"] - rot.state["Omega"][:n]).max() < 0.5


def test_acceleration_diagnostic_is_the_heavy_top_ode():
    """The kernel's own accelerations equal the rigid machinery's heavy top (seed 004 eq. 68) at the same state."""
    from solvers.methods import midpoint
    from solvers.models import pendulum_3d, rigid_dae

    p = solvers.api.BENCHMARKS["pendulum_3d"].resolve(P3D_GENERAL)
    y = pendulum_3d.build(p).y0.copy()
    data = pendulum_3d.build(p).data
    Jp = np.empty((3, 3))
    top = midpoint._heavy_top((data, None, None), Jp)
    np.testing.assert_array_equal(Jp, P3D_GENERAL["J"])  # J about the pivot, as given
    acc = np.zeros(12)
    midpoint._heavy_top_acceleration(y, Jp, np.linalg.inv(Jp), top, acc)
    ydot = np.zeros(12)
    assert rigid_dae.rhs(data, 0.0, y, ydot, np.zeros((3, 3)), np.zeros(3))
    assert np.allclose(acc[9:], ydot[9:], rtol=1e-12, atol=1e-12), (acc[9:], ydot[9:])
