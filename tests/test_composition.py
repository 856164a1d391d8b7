"""The composition coefficient sets (solvers.composition): their symmetric sequences meet the power-sum order
conditions (sum = 1, odd power sums below the order = 0), and composing Störmer-Verlet with them gives the
stated order on the planar pendulum against its exact solution (Jacobi elliptic functions): an independent check
of every digit that matters in double precision."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import composition
from solvers.references import solutions

A = 9.81 * 2.0 * 0.6 / 0.48  # m g l / J of the planar pendulum's defaults: theta'' = -A sin(theta)
T = 2.0


def _composed_verlet(g: np.ndarray, n: int) -> tuple[float, float]:
    """n steps of T / n, each the composition of Störmer-Verlet sub-steps gamma_i T / n (symmetric, order 2)."""
    h = T / n
    q, p = 0.0, 1.0
    for _ in range(n):
        for gi in g:
            p -= 0.5 * gi * h * A * np.sin(q)
            q += gi * h * p
            p -= 0.5 * gi * h * A * np.sin(q)
    return q, p


@pytest.mark.parametrize("name", list(composition.COMPOSITIONS))
def test_order_conditions_and_observed_order(name):
    spec = composition.COMPOSITIONS[name]
    g = composition.gammas(name)
    assert g.size == spec.stages and np.array_equal(g, g[::-1])  # symmetric
    sums = composition.power_sums(g, up_to=spec.order + 1)
    assert sums[1] == pytest.approx(1.0, abs=1e-15)
    for k in range(3, spec.order, 2):
        assert abs(sums[k]) <= 1e-14, (name, k, sums[k])
    assert abs(sums[spec.order + 1]) > 1e-4  # not of a higher order by accident: the next condition fails
    th, om = solutions.planar_pendulum_exact(np.array([0.0, T]), m=2.0, J=0.48, l=0.6, g=9.81, theta0=0.0,
                                             omega0=1.0)
    ns = (16, 32, 64) if spec.order == 4 else (8, 16, 32) if spec.order == 6 else (4, 8, 16)
    errors = [abs(q - th[-1]) + abs(p - om[-1]) for q, p in (_composed_verlet(g, n) for n in ns)]
    observed = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(observed - spec.order) <= 0.3), (name, errors, observed)


def test_an_unknown_composition_is_refused_by_name():
    with pytest.raises(ValueError, match="valid: triple_jump"):
        composition.gammas("nope")
