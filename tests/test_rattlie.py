"""RATTLie (seed 000 'RL'): order 2 against independent references, constraints, orthogonality, momentum and
bounded energy over long runs."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.references import solutions as ref
from tests.convergence import fitted_order

GENERAL_SDP = {
    "R1": ref.rot_z(0.3) @ ref.rot_x(0.7) @ ref.rot_y(-0.4),
    "R2": ref.rot_y(1.1) @ ref.rot_z(-0.5) @ ref.rot_x(0.2),
    "Omega1": [0.5, 3.0, -0.4],  # 3 rad/s spin about the rod axis (body y)
    "Omega2": [-0.3, -2.0, 0.8],
}
GENERAL_P3D = {"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "Omega0": [1.0, -2.0, 3.0]}


def reference_state(benchmark: str, t: np.ndarray, params: dict) -> dict[str, np.ndarray]:
    if benchmark == "spatial_double_pendulum":
        return ref.spatial_double_pendulum_reference(t, **params)
    R, W = ref.pendulum_3d_reference(t, **params)
    return {"R": R[:, None], "Omega": W[:, None]}  # the heavy top's state: no translation


CASES = [
    ("spatial_double_pendulum", {}, 1.0),
    ("spatial_double_pendulum", GENERAL_SDP, 1.0),
    ("pendulum_3d", {}, 2.0),
    ("pendulum_3d", GENERAL_P3D, 2.0),
]


@pytest.mark.parametrize(("benchmark", "params", "t_end"), CASES,
                         ids=["sdp-seed", "sdp-general", "p3d-seed", "p3d-general"])
def test_order_two_in_rotations_positions_and_velocities(benchmark, params, t_end):
    hs = [0.01, 0.005, 0.0025, 0.00125]
    keys = ("R", "x", "Omega", "v") if benchmark == "spatial_double_pendulum" else ("R", "Omega")
    errors: dict[str, list[float]] = {k: [] for k in keys}
    for h in hs:
        res = solvers.simulate(benchmark, "rattlie", h=h, t_end=t_end, params=params)
        assert res.status == "ok", res.message
        exact = reference_state(benchmark, res.t, params)
        for key, errs in errors.items():
            errs.append(np.abs(res.state[key] - exact[key]).max())
    for key, errs in errors.items():
        order = fitted_order(hs, errs)
        assert abs(order - 2.0) <= 0.3, f"{key}: order {order:.2f}, errors {errs}"


def test_seed_run_invariants():
    """Seed 000 section 3: 50 s at h = 1e-3 from the seed's state."""
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=1e-3, t_end=50.0, max_samples=5001)
    s = res.summary
    assert res.status == "ok"
    assert s["max_constraint_position"] <= 1e-10
    assert s["max_constraint_velocity"] <= 1e-10
    assert res.orthogonality_error[-1] <= 1e-12 and s["max_orthogonality_error"] <= 1e-12
    # energy: bounded, no drift (the last fifth no worse than twice the first fifth), small against m g l
    e = np.abs(res.energy_error)
    n = len(e) // 5
    assert e[-n:].max() <= 2.0 * e[:n].max()
    assert s["max_energy_error"] <= 1e-3 * 61.65 * 9.81


def test_momentum_and_energy_on_a_general_state():
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=2e-3, t_end=20.0, params=GENERAL_SDP)
    s = res.summary
    scale = max(abs(res.momentum[0]), 1.0)
    assert abs(res.momentum[0]) > 1.0  # a non-trivial momentum about e3
    assert s["max_momentum_error"] <= 1e-10 * scale
    assert s["max_constraint_position"] <= 1e-10 and s["max_constraint_velocity"] <= 1e-10
    e = np.abs(res.energy_error)
    n = len(e) // 5
    assert e[-n:].max() <= 2.0 * e[:n].max()


def test_pendulum_3d_keeps_momentum_and_bounded_energy_for_a_million_steps():
    """10^6 steps (h = 0.01, 10,000 s) on the general heavy top: no energy drift, momentum exact."""
    res = solvers.simulate("pendulum_3d", "rattlie", h=0.01, t_end=10_000.0, params=GENERAL_P3D, max_samples=2001)
    assert res.status == "ok" and res.steps == 1_000_000
    e = np.abs(res.energy_error)
    n = len(e) // 5
    assert e[-n:].max() <= 2.0 * e[:n].max()
    # relative to the angular momentum's scale |J Omega0| (its e3 component happens to be small here)
    scale = np.linalg.norm(GENERAL_P3D["J"] @ GENERAL_P3D["Omega0"])
    assert res.summary["max_momentum_error"] <= 1e-10 * scale
    assert res.summary["max_orthogonality_error"] <= 1e-12


def test_newton_failure_is_reported():
    res = solvers.simulate("spatial_double_pendulum", "rattlie", h=0.05, t_end=1.0,
                           options={"newton_max_iter": 1})
    assert res.status == "failed"
    assert "Newton iteration of rattlie did not converge at t = " in res.message
    assert "residual" in res.message
    assert len(res.t) >= 1 and res.t[0] == 0.0


def test_options_validated():
    with pytest.raises(ValueError, match="newton_tol"):
        solvers.simulate("pendulum_3d", "rattlie", h=0.01, t_end=0.1, options={"newton_tol": 0.5})
    with pytest.raises(ValueError, match="does not apply"):
        solvers.simulate("planar_pendulum", "rattlie", h=0.01, t_end=0.1)
