"""solvers.linearisation: eigenvalues of a benchmark's linearised right-hand side at its initial state, against
cases known in closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers import linearisation as lin

M, J, L, G = 2.0, 0.48, 0.6, 9.81  # planar_pendulum's defaults: J theta'' + m g l sin(theta) = 0


@pytest.mark.parametrize("theta0", [0.0, 1.0])
def test_planar_pendulum_oscillates_at_sqrt_mgl_cos_over_j(theta0):
    lam = lin.eigenvalues("planar_pendulum", {"theta0": theta0})
    w = math.sqrt(M * G * L * math.cos(theta0) / J)
    assert lam.real == pytest.approx([0.0, 0.0], abs=1e-8)
    assert lam.imag == pytest.approx([-w, w], rel=1e-8)


def test_inverted_planar_pendulum_has_a_real_unstable_pair():
    lam = lin.eigenvalues("planar_pendulum", {"theta0": math.pi - 0.3, "omega0": 0.0})
    s = math.sqrt(M * G * L * math.cos(0.3) / J)
    assert lam.real == pytest.approx([-s, s], rel=1e-8) and lam.imag == pytest.approx([0.0, 0.0], abs=1e-8)


def test_two_link_arm_hanging_has_its_two_normal_modes_and_zeros_off_the_constraints():
    """The arm's index-1 DAE in absolute coordinates (12 states, 4 constraints), hanging down at rest: the
    compound double pendulum's normal modes, lambda = +-i sqrt(eig(M^-1 K)) with the rods' mass matrix M and
    gravity stiffness K in the two angles; the 8 other eigenvalues are 0."""
    m1, l1, m2, l2 = 1.0, 1.0, 2.0, math.sqrt(3.0)
    Mq = np.array([[(m1 / 3 + m2) * l1**2, m2 * l1 * l2 / 2], [m2 * l1 * l2 / 2, m2 * l2**2 / 3]])
    K = G * np.diag([(m1 / 2 + m2) * l1, m2 * l2 / 2])
    w = np.sort(np.sqrt(np.linalg.eigvals(np.linalg.solve(Mq, K)).real))
    lam = lin.eigenvalues("two_link_arm", {"th1": -math.pi / 2, "th2": -math.pi / 2})
    big = lam[np.abs(lam) > 1e-3]
    assert np.sort(big.imag[big.imag > 0]) == pytest.approx(w, rel=1e-7)
    assert big.size == 4 and np.abs(big.real).max() < 1e-6
    assert np.abs(lam[np.abs(lam) <= 1e-3]).max() < 1e-5 and lam.size == 12


def test_released_horizontal_at_rest_the_linearisation_is_nilpotent():
    """Gravity's torque on a horizontal link does not change to first order in the angle: every eigenvalue 0."""
    assert np.abs(lin.eigenvalues("two_link_arm")).max() < 1e-4


def test_refusals():
    with pytest.raises(ValueError, match="unknown benchmark"):
        lin.eigenvalues("nope")
    with pytest.raises(lin.LinearisationError, match="over the"):
        lin.jacobian("planar_pendulum", y=np.zeros(lin.MAX_STATE + 2))
