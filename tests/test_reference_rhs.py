"""The references' compiled right-hand sides (solvers/references/compiled.py) against their NumPy specification
(solvers/references/problems.py), and the compiled DOP853 against SciPy's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solvers.references import compiled, problems
from solvers.references import solutions as sol


def _problems() -> dict[str, problems.Problem]:
    m, J, X11, X12, X21 = sol.spatial_double_pendulum_params()
    m2, J2, *_ = sol.spatial_double_pendulum_params(2000.0, 0.1, 1.3)
    Jtop = np.array([[1.2, 0.1, -0.05], [0.1, 0.9, 0.2], [-0.05, 0.2, 1.5]])
    return {
        "planar": problems.planar(2.0 * 9.81 * 0.6 / 0.48),
        "two_bars": problems.two_bars(1.3, 0.7, 0.4, 12.0, 3.0),
        "top": problems.top(np.array([0.3, -1.2, 60.0]), Jtop),
        "spatial_double_pendulum": problems.spatial_double_pendulum(m, J, X11, X12, X21, 9.81),
        "chain_3": problems.chain(3, m2, J2, np.array([0.0, 0.65, 0.0]), np.array([0.0, 1.3, 0.0]), 9.81),
        "chain_8": problems.chain(8, m, J, -X11, X12 - X11, 9.81),
    }


SIZES = {"planar": 2, "two_bars": 4, "top": 7, "spatial_double_pendulum": 14, "chain_3": 21, "chain_8": 56}


@pytest.mark.parametrize("name", list(SIZES))
def test_the_compiled_rhs_is_the_numpy_rhs_to_1e_14_at_random_states(name):
    problem = _problems()[name]
    rng = np.random.default_rng(7)
    w = np.zeros(compiled.scratch_size(problem.kind, problem.p))
    out = np.empty(SIZES[name])
    for _ in range(50):
        y = rng.normal(scale=2.0, size=SIZES[name])
        compiled.rhs(problem.kind, 0.0, y, problem.p, w, out)
        expected = problem.numpy(0.0, y)
        assert np.abs(out - expected).max() <= 1e-14 * np.abs(expected).max(), name


def test_the_compiled_dop853_takes_scipys_steps():
    """The same algorithm: at a loose tolerance (where the steps are few and their choice shows) the two solutions
    agree far below the tolerance, and both are as accurate as the tolerance asks."""
    problem = _problems()["spatial_double_pendulum"]
    R2 = sol.rot_z(0.5 * np.pi)
    y0 = np.concatenate((sol.quat_from_matrix(np.eye(3)), sol.quat_from_matrix(R2), [0.5, -0.3, 0.2, -0.4, 0.6, 1.0]))
    t = np.linspace(0.0, 3.0, 31)
    ours = sol._integrate(problem, y0, t, rtol=1e-8, atol=1e-8)
    theirs = solve_ivp(problem.numpy, (0.0, 3.0), y0, method="DOP853", rtol=1e-8, atol=1e-8, dense_output=True)
    assert np.abs(ours - theirs.sol(t).T).max() < 1e-11
    tight = sol._integrate(problem, y0, t, rtol=1e-13, atol=1e-13)
    assert 1e-10 < np.abs(ours - tight).max() < 1e-6  # a loose run is loose, and no looser than asked
