"""Seed 002's methods (rotvec_rk45 with and without the 2 pi switch) and the singularity-free alternatives
(quaternion_rk4, rkmk4, magnus4) on the angular-velocity benchmark, against the exact rotation
(solvers/references/solutions.py: scipy's Rotation of the closed-form theta(t), independent of the solver's
diagnostics)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import brentq

import solvers
from solvers import driver
from solvers.references import solutions as ref
from tests.convergence import observed_order

B = "angular_velocity"
LIE_METHODS = ("quaternion_rk4", "rkmk4", "magnus4")


def exact_R(t):
    return ref.angular_velocity_exact(t)[1]


def norm_crossings(level: float, t_end: float = 2.0) -> list[float]:
    """Times in (0, t_end) where |theta_exact(t)| crosses ``level``."""

    def f(t):
        return np.linalg.norm(ref.angular_velocity_theta(np.array([t]))[0][0]) - level

    ts = np.linspace(1e-9, t_end, 4001)
    v = np.array([f(t) for t in ts])
    return [brentq(f, ts[i], ts[i + 1], xtol=1e-14) for i in np.nonzero(v[:-1] * v[1:] < 0)[0]]


def rotation_error(res) -> np.ndarray:
    """Independent rotation error |log(R_num^T R_exact)| from the saved states (scipy)."""
    from scipy.spatial.transform import Rotation

    Rn = res.state["R"][:, 0]
    return np.linalg.norm(Rotation.from_matrix(np.transpose(Rn, (0, 2, 1)) @ exact_R(res.t)).as_rotvec(), axis=1)


# ---------------------------------------------------------------------------------------------------------------
# seed 002 method 1: no switch, fails at the first crossing of |theta| = 2 pi
# ---------------------------------------------------------------------------------------------------------------


def test_method1_fails_at_the_first_singularity():
    t_sing = norm_crossings(2 * np.pi)[0]
    res = solvers.simulate(B, "rotvec_rk45", h=0.01, t_end=2.0)  # rtol = atol = 1e-10 by default
    assert res.options["rtol"] == 1e-10 and res.options["atol"] == 1e-10
    assert res.status == "failed"
    t_fail = float(re.match(r"failed at t = ([0-9.e+-]+) s", res.message).group(1))
    assert abs(t_fail - t_sing) < 1e-5, (t_sing, res.message)
    assert "singularity |theta| = 2 pi" in res.message and "step size fell" in res.message
    # partial results kept and accurate up to the failure; it stops before the singular time
    assert res.t[-1] < t_sing < res.t[-1] + 0.01
    assert np.all(np.linalg.norm(res.state["theta"], axis=1) < 2 * np.pi)
    assert rotation_error(res).max() < 1e-9
    assert res.summary["max_rotation_error"] < 1e-9
    assert res.summary["internal_steps"] > 0 and res.summary["rejected_steps"] > 0
    assert res.summary["min_internal_step"] < 1e-12
    assert res.summary["switches"] == 0 and res.summary["switch_times"] == []


def test_method1_internal_step_cap_stops_the_run():
    res = solvers.simulate(B, "rotvec_rk45", h=0.01, t_end=2.0, options={"max_internal_steps": 30})
    assert res.status == "failed"
    assert "more than 30 internal steps in one output step" in res.message
    assert res.t[-1] < 0.53


def test_method1_loose_tolerance_also_fails():
    """Not an artefact of the tight tolerance: at rtol = atol = 1e-6 the run stops at the singularity too."""
    t_sing = norm_crossings(2 * np.pi)[0]
    res = solvers.simulate(B, "rotvec_rk45", h=0.01, t_end=2.0, options={"rtol": 1e-6, "atol": 1e-6})
    assert res.status == "failed" and "singularity" in res.message
    assert abs(res.t[-1] - t_sing) < 0.01


# ---------------------------------------------------------------------------------------------------------------
# seed 002 method 2: the switch
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def switched():
    return solvers.simulate(B, "rotvec_rk45_switch", h=1e-3, t_end=2.0)


def test_method2_reaches_t_end_accurately(switched):
    res = switched
    assert res.status == "ok", res.message
    assert res.t[-1] == pytest.approx(2.0)
    err = rotation_error(res)
    assert err.max() <= 1e-8
    # the kernel's diagnostic (seed 002 eq. 17) agrees with the independent one
    np.testing.assert_allclose(res.rotation_error, err, rtol=0, atol=1e-12)
    assert res.summary["max_rotation_error"] <= 1e-8
    assert res.summary["max_orthogonality_error"] <= 1e-13


def test_method2_switch_times_and_regions(switched):
    """Switches happen right after |theta| leaves the stable region [0, 3 pi/2]; since each switch subtracts
    2 pi, the k-th one follows the crossing of |theta_exact| = 3 pi/2 + 2 pi (k - 1)."""
    res = switched
    times = res.summary["switch_times"]
    assert res.summary["switches"] == len(times) >= 2
    expected = [norm_crossings(1.5 * np.pi + 2 * np.pi * j)[0] for j in range(len(times))]
    for ts, tc in zip(times, expected, strict=True):
        assert tc <= ts <= tc + 1e-3, (ts, tc)
    assert not norm_crossings(1.5 * np.pi + 2 * np.pi * len(times))  # no crossing left unswitched
    v = np.linalg.norm(res.state["theta"], axis=1)
    assert v.max() <= 1.5 * np.pi + 1e-9
    # the numerical theta equals the exact one shifted by -2 pi k along its direction
    th = ref.angular_velocity_theta(res.t)[0]
    nth = np.linalg.norm(th, axis=1)
    k = np.searchsorted(np.array(times), res.t, side="right")
    shifted = th * ((nth - 2 * np.pi * k) / np.where(nth > 0, nth, 1.0))[:, None]
    assert np.abs(res.state["theta"] - shifted).max() < 1e-8


def test_method2_error_follows_the_tolerance():
    errs = {}
    for tol in (1e-6, 1e-8, 1e-10):
        res = solvers.simulate(B, "rotvec_rk45_switch", h=0.01, t_end=2.0, options={"rtol": tol, "atol": tol})
        assert res.status == "ok", res.message
        errs[tol] = rotation_error(res).max()
        assert errs[tol] <= 100 * tol, errs
    assert errs[1e-6] > errs[1e-8] > errs[1e-10], errs


def test_dopri5_tableau_has_order_five_at_fixed_steps():
    """With a loose tolerance every internal step is the output step h: then the error of the Dormand-Prince
    pair's 5th-order solution must fall like h^5 (checks the coefficients independently of the controller)."""

    def error(h):
        res = solvers.simulate(B, "rotvec_rk45_switch", h=h, t_end=1.0, options={"rtol": 1e-2, "atol": 1.0})
        assert res.status == "ok" and res.summary["rejected_steps"] == 0
        assert res.summary["internal_steps"] == res.steps
        return rotation_error(res).max()

    order, errs = observed_order(error, [0.004, 0.002, 0.001, 0.0005])
    assert abs(order - 5.0) <= 0.3, (order, errs)


def test_adaptive_run_is_independent_of_chunking(monkeypatch):
    a = solvers.simulate(B, "rotvec_rk45_switch", h=1e-3, t_end=1.0)
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 1e-9)  # chunks of 16 output steps
    monkeypatch.setattr(driver, "FIRST_CHUNK", 5)
    b = solvers.simulate(B, "rotvec_rk45_switch", h=1e-3, t_end=1.0)
    np.testing.assert_array_equal(a.state["theta"], b.state["theta"])
    assert a.summary["internal_steps"] == b.summary["internal_steps"]
    assert a.summary["switch_times"] == b.summary["switch_times"]


def test_cancel_keeps_partial_results():
    calls = []

    def stop(f):
        calls.append(f)
        return len(calls) < 2

    res = solvers.simulate(B, "rotvec_rk45_switch", h=1e-4, t_end=2.0, progress=stop)
    assert res.status == "cancelled" and 0 < res.steps < 20000 and len(res.t) == res.steps + 1


@pytest.mark.parametrize(
    ("method", "options", "fragment"),
    [
        ("rotvec_rk45", {"rtol": 0.0}, "option 'rtol': 0.0 is outside"),
        ("rotvec_rk45", {"atol": -1}, "option 'atol': -1 is outside"),
        ("rotvec_rk45", {"switch": True}, "unknown option(s) 'switch' for method 'rotvec_rk45'"),
        ("rotvec_rk45_switch", {"max_internal_steps": 2.5}, "is not an integer"),
        ("magnus4", {"rtol": 1e-3}, "unknown option(s) 'rtol' for method 'magnus4'; valid: (none)"),
    ],
)
def test_bad_options(method, options, fragment):
    with pytest.raises(ValueError) as exc:
        solvers.simulate(B, method, h=1e-3, t_end=0.1, options=options)
    assert fragment in str(exc.value)


def test_offered_on_angular_velocity_only():
    for m in ("rotvec_rk45", "rotvec_rk45_switch", *LIE_METHODS):
        assert m in solvers.methods(B)
        assert m not in solvers.methods("pendulum_3d")
    with pytest.raises(ValueError, match="does not apply"):
        solvers.simulate("pendulum_3d", "magnus4", h=1e-3, t_end=0.1)


# ---------------------------------------------------------------------------------------------------------------
# singularity-free methods
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", LIE_METHODS)
def test_lie_methods_order_four(method):
    def error(h):
        res = solvers.simulate(B, method, h=h, t_end=2.0)
        assert res.status == "ok", res.message
        return np.abs(res.state["R"][:, 0] - exact_R(res.t)).max()

    order, errs = observed_order(error, [0.004, 0.002, 0.001, 0.0005])
    assert abs(order - 4.0) <= 0.3, (method, order, errs)


@pytest.mark.parametrize("method", LIE_METHODS)
def test_lie_methods_long_run_invariants(method):
    """20 s (|theta_exact| up to about 100, 15 turns): orthogonal to round-off, the saved rotation vector is the
    principal log of the method's rotation, and the kernel's rotation error agrees with the independent one."""
    res = solvers.simulate(B, method, h=1e-3, t_end=20.0, max_samples=4001)
    assert res.status == "ok", res.message
    assert res.summary["max_orthogonality_error"] <= 1e-12
    assert np.linalg.norm(res.state["theta"], axis=1).max() <= np.pi + 1e-12
    err = rotation_error(res)
    np.testing.assert_allclose(res.rotation_error, err, rtol=0, atol=1e-12)
    assert res.summary["max_rotation_error"] >= err.max()
    assert res.summary["max_rotation_error"] < 1e-6
    assert "switches" not in res.summary


def test_method1_failure_matches_scipy_rk45_without_the_guard():
    """Independent check that the failure is the singularity, not our 1e-6 guard: SciPy's own Dormand-Prince
    RK45 on the same ODE (no guard) also stops there, with |theta| even closer to 2 pi."""
    from scipy.integrate import solve_ivp

    from solvers import lie
    from solvers.models import angular_velocity as av

    sol = solve_ivp(lambda t, y: lie.tangent_inv_t(y) @ av.omega(t), (0.0, 0.6), np.zeros(3), method="RK45",
                    rtol=1e-10, atol=1e-10)
    assert sol.status == -1  # "required step size is less than spacing between numbers"
    res = solvers.simulate(B, "rotvec_rk45", h=0.01, t_end=2.0)
    t_fail = float(re.match(r"failed at t = ([0-9.e+-]+) s", res.message).group(1))
    assert abs(sol.t[-1] - t_fail) < 1e-6, (sol.t[-1], t_fail)
    assert abs(np.linalg.norm(sol.y[:, -1]) - 2 * np.pi) < 1e-6
