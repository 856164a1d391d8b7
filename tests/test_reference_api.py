"""solvers.references: the references the pages compare runs with (any parameters, cached, accuracy stated)."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers import references as refs
from solvers.references import solutions as sol

# a general state per benchmark (not the default), within what each benchmark accepts
GENERAL = {
    "planar_pendulum": {"theta0": 2.5, "omega0": -1.0, "l": 0.8},
    "two_link_arm": {"th1": 0.4, "th2": -0.7, "dth1": 0.5, "dth2": -1.0},
    "natural_double_pendulum": {"th1": 1.0, "th2": -0.3, "dth1": -0.5, "dth2": 0.8},
    "pendulum_3d": {"cardan0": [0.3, -0.5, 1.1], "Omega0": [0.5, -1.0, 2.0], "rho": [0.1, -0.2, 0.6]},
    "spatial_double_pendulum": {"Omega1": [0.5, -0.3, 0.2], "Omega2": [-0.4, 0.6, 1.0]},
}


@pytest.mark.parametrize("benchmark", ["two_link_arm", "natural_double_pendulum", "pendulum_3d",
                                       "spatial_double_pendulum"])
@pytest.mark.parametrize("general", [False, True])
def test_a_dop853_reference_agrees_with_an_independent_solution_to_its_stated_accuracy(benchmark, general):
    """The second, independent solution: rk4 in the methods' own coordinates (rotation matrices, natural or
    absolute coordinates) at steps h and h/2, whose own error Richardson's estimate bounds."""
    params = GENERAL[benchmark] if general else None
    t_end, h = 2.0, 2e-3
    fine = solvers.simulate(benchmark, "rk4", h=h / 2, t_end=t_end, params=params, save_every=20)
    coarse = solvers.simulate(benchmark, "rk4", h=h, t_end=t_end, params=params, save_every=10)
    ref = refs.reference(benchmark, fine.t, fine.params)
    assert not ref.exact and ref.unit == "m" and 0 < ref.accuracy < 1e-8
    rk4_error = refs._difference("m", fine.points, coarse.points).max() / 15.0  # Richardson, order 4
    gap = refs.error(fine, ref).max()
    assert gap <= ref.accuracy + 3 * rk4_error + 1e-12, (gap, ref.accuracy, rk4_error)
    assert rk4_error < 1e-8  # the check has teeth: both are far below the errors the pages show


def test_the_planar_pendulum_reference_is_exact_and_matches_dop853_over_50_s():
    t = np.linspace(0.0, 50.0, 5001)
    ref = refs.reference("planar_pendulum", t)
    assert ref.exact and ref.accuracy == 0.0 and "Jacobi elliptic" in ref.description
    theta, _ = sol.planar_pendulum_ivp(t)
    assert np.abs(ref.state["theta"] - theta).max() <= 1e-10
    # rotation (no libration) falls back to DOP853 in the angle, and says so
    spin = refs.reference("planar_pendulum", t[:101], {"omega0": 20.0})
    assert not spin.exact and spin.accuracy < 1e-9


def test_error_is_the_largest_distance_between_drawn_points_or_the_rotation_angle():
    res = solvers.simulate("two_link_arm", "hermite_h33g2", h=0.01, t_end=1.0)
    ref = refs.reference("two_link_arm", res.t, res.params)
    manual = np.linalg.norm(res.points - ref.points, axis=-1).max(axis=-1)
    np.testing.assert_allclose(refs.error(res, ref), manual, rtol=0, atol=0)
    rot = solvers.simulate("angular_velocity", "rk4", h=1e-3, t_end=1.0)
    err = refs.error(rot)
    # for the exact rotation the angle is the benchmark's own rotation_error diagnostic (seed 002 eq. 17)
    np.testing.assert_allclose(err, rot.rotation_error, rtol=1e-6, atol=1e-13)
    assert refs.reference("angular_velocity", rot.t).unit == "rad"


def test_references_are_cached_and_refuse_what_would_take_too_long(monkeypatch):
    t = np.linspace(0.0, 1.0, 11)
    assert refs.reference("pendulum_3d", t) is refs.reference("pendulum_3d", t, {})  # the same object: cached
    with pytest.raises(refs.ReferenceUnavailableError, match=r"would take longer than 0\.01 s for this run"):
        refs.reference("spatial_double_pendulum", np.linspace(0.0, 2000.0, 101), budget=0.01)
    # times that differ in the last bits (two methods' t_start + k h) share one reference
    jittered = t.copy()
    jittered[1:] *= 1.0 + 2.0 ** -52
    assert not np.array_equal(jittered, t)
    assert refs.reference("pendulum_3d", jittered) is refs.reference("pendulum_3d", t)
    # a refusal is remembered: the next method's request is refused at once, not after another budget
    slow = np.linspace(0.0, 2000.0, 101)  # about 3 s of CPU for the compiled reference
    with pytest.raises(refs.ReferenceUnavailableError, match=r"would take longer than 0\.5 s"):
        refs.reference("spatial_double_pendulum", slow, budget=0.5)
    _solve, *rest = refs.SOLUTIONS["spatial_double_pendulum"]

    def no_solve(*args, **kwargs):  # the remembered refusal answers; solving again fails here (not a timing)
        raise AssertionError("the refused reference was attempted again")

    monkeypatch.setitem(refs.SOLUTIONS, "spatial_double_pendulum", (no_solve, *rest))
    with pytest.raises(refs.ReferenceUnavailableError, match=r"would take longer than 0\.5 s"):
        refs.reference("spatial_double_pendulum", slow, budget=0.5)
    with pytest.raises(refs.ReferenceUnavailableError, match="no reference solution"):
        refs.reference("no_such_benchmark", t)
    with pytest.raises(ValueError, match="parameter"):
        refs.reference("pendulum_3d", t, {"m": -1.0})
    with pytest.raises(ValueError, match="starting at 0"):
        refs.reference("pendulum_3d", t + 1.0)
