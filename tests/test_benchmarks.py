"""Each benchmark's model: initial state, energy, constraints, momentum and points, checked against formulas
written independently in solvers/references/solutions.py, at t = 0 and along an RK4 run."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.references import solutions as ref
from solvers.registry import BENCHMARKS, MACHINERY

GENERAL = {
    "spatial_double_pendulum": {
        "R1": ref.rot_z(0.3) @ ref.rot_x(0.7),
        "R2": ref.rot_y(1.1) @ ref.rot_z(-0.5),
        "Omega1": [0.5, 3.0, -0.4],
        "Omega2": [-0.3, -2.0, 0.8],
        "rod_length": 0.8,
    },
    "pendulum_3d": {"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "Omega0": [1.0, -2.0, 3.0], "m": 3.0},
    "planar_pendulum": {"theta0": 0.5, "omega0": -1.5, "m": 1.0},
    "two_link_arm": {"th1": 0.4, "th2": -0.9, "dth1": 1.5, "dth2": -2.0},
    "natural_double_pendulum": {"th1": -0.3, "th2": 0.5, "dth1": 1.0, "dth2": -1.0},
    "angular_velocity": {},
    "spatial_chain": {"N": 5, "turn": -2.0, "rod_length": 0.7, "rod_radius": 0.04},
}


def independent(benchmark: str, res: solvers.Result, p: dict) -> dict[str, np.ndarray]:
    """Energy, constraint norm and momentum of the saved states by the reference formulas."""
    s = res.state
    if benchmark == "spatial_double_pendulum":
        kw = {k: p[k] for k in ("rod_length",) if k in p}
        return {
            "energy": ref.energy_spatial_double_pendulum(s["R"], s["x"], s["Omega"], s["v"], **kw),
            "constraint_position": np.linalg.norm(ref.constraint_spatial_double_pendulum(s["R"], s["x"], **kw),
                                                  axis=-1),
            "momentum": ref.momentum_spatial_double_pendulum(s["R"], s["x"], s["Omega"], s["v"], **kw),
        }
    if benchmark == "spatial_chain":
        kw = {k: p[k] for k in ("rod_length", "rod_radius") if k in p}
        return {
            "energy": ref.energy_spatial_chain(s["R"], s["x"], s["Omega"], s["v"], **kw),
            "constraint_position": np.linalg.norm(
                ref.constraint_spatial_chain(s["R"], s["x"], **{k: v for k, v in kw.items() if k == "rod_length"}),
                axis=-1),
            "momentum": ref.angular_momentum_spatial_chain(s["R"], s["x"], s["Omega"], s["v"], **kw)[..., 2],
        }
    if benchmark == "pendulum_3d":
        kw = {k: p[k] for k in ("J", "rho", "m") if k in p}
        return {
            "energy": ref.energy_pendulum_3d(s["R"][:, 0], s["Omega"][:, 0], **kw),
            "momentum": ref.momentum_pendulum_3d(s["R"][:, 0], s["Omega"][:, 0], J=kw.get("J")),
        }
    if benchmark == "planar_pendulum":
        kw = {k: p[k] for k in ("m",) if k in p}
        return {"energy": ref.energy_planar_pendulum(s["theta"], s["omega"], **kw)}
    if benchmark == "two_link_arm":
        return {
            "energy": ref.energy_two_link_arm(s["q"], s["qdot"]),
            "constraint_position": np.linalg.norm(ref.constraint_two_link_arm(s["q"]), axis=-1),
        }
    if benchmark == "natural_double_pendulum":
        return {
            "energy": ref.energy_natural_double_pendulum(s["q"], s["qdot"]),
            "constraint_position": np.linalg.norm(ref.constraint_natural_double_pendulum(s["q"]), axis=-1),
        }
    return {}


CASES = [(b, kind) for b in BENCHMARKS for kind in ("default", "general")]


@pytest.mark.parametrize(("benchmark", "kind"), CASES, ids=[f"{b}-{k}" for b, k in CASES])
def test_diagnostics_match_independent_formulas(benchmark, kind):
    p = GENERAL[benchmark] if kind == "general" else {}
    spec = BENCHMARKS[benchmark]
    h = spec.default_h / 10
    res = solvers.simulate(benchmark, "rk4", h=h, t_end=min(1.0, spec.default_t_end), params=p)
    assert res.status == "ok", res.message
    ind = independent(benchmark, res, p)
    scales = spec.build(spec.resolve(p)).scales
    for key, val in ind.items():
        scale = max(1.0, np.abs(val).max())
        if key == "energy" and scales is not None:  # the energy is a sum of terms of the size of the potential
            scale = max(scale, abs(scales.potential_min))
        np.testing.assert_allclose(getattr(res, key), val, rtol=0, atol=1e-12 * scale, err_msg=key)
    if MACHINERY[benchmark] != "rotvec":
        # constraints hold at t = 0 (position and velocity level) and stay small along a fine RK4 run
        for key in ("constraint_position", "constraint_velocity", "constraint_acceleration"):
            c = getattr(res, key)
            if np.isfinite(c[0]):
                assert c[0] <= 1e-13, (key, c[0])
                assert c.max() <= 1e-4, (key, c.max())
        # energy nearly conserved by a fine RK4 run
        scale = max(1.0, np.abs(res.energy).max(), np.abs(res.momentum[0]) if np.isfinite(res.momentum[0]) else 0)
        assert res.summary["max_energy_error"] <= 1e-4 * scale
    # drawable points: the first is the fixed origin
    assert res.points.shape[:2] == (len(res.t), len(res.point_names))
    np.testing.assert_allclose(res.points[:, 0], 0.0, atol=1e-12)


def test_initial_states_of_the_seeds():
    """docs/benchmarks.md's initial states: rods horizontal at right angles (E0 = 0); 3D pendulum from Cardan angles."""
    res = solvers.simulate("spatial_double_pendulum", "rk4", h=1e-3, t_end=1e-3)
    np.testing.assert_allclose(res.state["x"][0], [[0, 0.5, 0], [-0.5, 1, 0]], atol=1e-15)
    np.testing.assert_allclose(res.points[0], [[0, 0, 0], [0, 1, 0], [-1, 1, 0]], atol=1e-15)
    assert res.energy[0] == 0.0
    m = 7850 * np.pi * 0.05**2
    assert m == pytest.approx(61.6538, abs=1e-4)

    res = solvers.simulate("pendulum_3d", "rk4", h=1e-3, t_end=1e-3)
    R0 = ref.rot_x(np.pi / 3) @ ref.rot_y(np.pi / 4) @ ref.rot_z(np.pi / 9)
    np.testing.assert_allclose(res.state["R"][0, 0], R0, atol=1e-15)
    assert res.energy[0] == pytest.approx(-10 * 9.81 * 0.7 * R0[2, 2], rel=1e-14)
    np.testing.assert_allclose(res.points[0, 1], R0 @ [0, 0, 0.7], atol=1e-15)

    res = solvers.simulate("two_link_arm", "rk4", h=1e-3, t_end=1e-3)
    np.testing.assert_allclose(res.points[0], [[0, 0, 0], [1, 0, 0], [1 + np.sqrt(3), 0, 0]], atol=1e-15)
    res = solvers.simulate("natural_double_pendulum", "rk4", h=1e-3, t_end=1e-3)
    np.testing.assert_allclose(res.state["q"][0], [2, 0, 5, 0], atol=1e-15)


def test_momentum_conserved_by_rk4_on_the_3d_pendulum():
    p = GENERAL["pendulum_3d"]
    res = solvers.simulate("pendulum_3d", "rk4", h=1e-3, t_end=5.0, params=p)
    assert res.summary["max_momentum_error"] <= 1e-8 * abs(res.momentum[0])


def test_parameters_change_the_model():
    a = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=1.0)
    b = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=1.0, params={"g": 1.62})
    assert a.energy[0] != b.energy[0]
    c = solvers.simulate("pendulum_3d", "rk4", h=0.01, t_end=0.1, params={"R0": np.eye(3)})
    assert np.allclose(c.state["R"][0, 0], np.eye(3))
    d = solvers.simulate("spatial_double_pendulum", "rk4", h=0.01, t_end=0.1, params={"rod_length": 2.0})
    np.testing.assert_allclose(d.points[0, 2], [-2, 2, 0], atol=1e-14)


def test_rk4_drifts_off_the_constraints_where_a_projection_would_not():
    """Seed 001 Tables 1-2: RK4 on the index-1 DAE keeps d2Phi at round-off while Phi and dPhi drift."""
    res = solvers.simulate("two_link_arm", "rk4", h=0.01, t_end=20.0)
    s = res.summary
    assert s["max_constraint_acceleration"] < 1e-11
    assert s["max_constraint_position"] > 1e3 * s["max_constraint_acceleration"]
