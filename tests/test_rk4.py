"""RK4 on every benchmark: observed order 4 against independent references (solvers/references/solutions.py).

Errors are the maximum over all saved samples (every step) of the state difference to the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.references import solutions as ref
from tests.convergence import observed_order

GENERAL_R1 = ref.rot_z(0.3) @ ref.rot_x(0.7) @ ref.rot_y(-0.4)
GENERAL_R2 = ref.rot_y(1.1) @ ref.rot_z(-0.5) @ ref.rot_x(0.2)


def _final(benchmark, h, t_end, params=None):
    res = solvers.simulate(benchmark, "rk4", h=h, t_end=t_end, params=params)
    assert res.status == "ok", res.message
    assert res.t[-1] == pytest.approx(t_end)
    return res


def err_planar(params):
    def error(h):
        t_end = 10.0
        res = _final("planar_pendulum", h, t_end, params)
        th, om = ref.planar_pendulum_exact(res.t, **params)
        return np.abs(res.state["theta"] - th).max() + np.abs(res.state["omega"] - om).max()

    return error


def err_two_link(params):
    def error(h):
        t_end = 2.0
        res = _final("two_link_arm", h, t_end, params)
        q, qd = ref.two_link_arm_reference(res.t, **params)
        return np.abs(res.state["q"] - q).max() + np.abs(res.state["qdot"] - qd).max()

    return error


def err_natural(params):
    def error(h):
        t_end = 2.0
        res = _final("natural_double_pendulum", h, t_end, params)
        q, qd = ref.natural_double_pendulum_reference(res.t, **params)
        return np.abs(res.state["q"] - q).max() + np.abs(res.state["qdot"] - qd).max()

    return error


def err_pendulum_3d(params):
    def error(h):
        t_end = 2.0
        res = _final("pendulum_3d", h, t_end, params)
        R, W = ref.pendulum_3d_reference(res.t, **params)
        return np.abs(res.state["R"][:, 0] - R).max() + np.abs(res.state["Omega"][:, 0] - W).max()

    return error


def err_spatial(params):
    def error(h):
        t_end = 1.0
        res = _final("spatial_double_pendulum", h, t_end, params)
        r = ref.spatial_double_pendulum_reference(res.t, **params)
        return max(np.abs(res.state[k] - r[k]).max() for k in ("R", "x", "Omega", "v"))

    return error


def err_angular(params):
    def error(h):
        t_end = 2.0
        res = _final("angular_velocity", h, t_end)
        _, R, _ = ref.angular_velocity_exact(res.t)
        # independent of the solver's own diagnostic: compare matrices
        return np.abs(res.state["R"][:, 0] - R).max()

    return error


CASES = [
    ("planar_pendulum", err_planar, {}, [0.2, 0.1, 0.05, 0.025]),
    ("planar_pendulum general", err_planar, {"theta0": 1.2, "omega0": -2.0}, [0.01, 0.005, 0.0025, 0.00125]),
    ("two_link_arm", err_two_link, {}, [0.04, 0.02, 0.01, 0.005]),
    ("two_link_arm general", err_two_link, {"th1": 0.4, "th2": -0.9, "dth1": 1.5, "dth2": -2.0},
     [0.01, 0.005, 0.0025, 0.00125]),
    ("natural_double_pendulum", err_natural, {}, [0.04, 0.02, 0.01, 0.005]),
    ("natural_double_pendulum general", err_natural, {"th1": -0.3, "th2": 0.5, "dth1": 1.0, "dth2": -1.0},
     [0.04, 0.02, 0.01, 0.005]),
    ("pendulum_3d", err_pendulum_3d, {}, [0.01, 0.005, 0.0025, 0.00125]),
    ("pendulum_3d general", err_pendulum_3d,
     {"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "Omega0": [1.0, -2.0, 3.0]},
     [0.01, 0.005, 0.0025, 0.00125]),
    ("spatial_double_pendulum", err_spatial, {}, [0.02, 0.01, 0.005, 0.0025]),
    ("spatial_double_pendulum general", err_spatial,
     {"R1": GENERAL_R1, "R2": GENERAL_R2, "Omega1": [0.5, 3.0, -0.4], "Omega2": [-0.3, -2.0, 0.8]},
     [0.02, 0.01, 0.005, 0.0025]),
    ("angular_velocity", err_angular, {}, [0.004, 0.002, 0.001, 0.0005]),
]


@pytest.mark.parametrize(("name", "make", "params", "hs"), CASES, ids=[c[0] for c in CASES])
def test_rk4_order_four(name, make, params, hs):
    order, errs = observed_order(make(params), hs)
    assert abs(order - 4.0) <= 0.3, f"{name}: observed order {order:.2f}, errors {errs}"


def test_planar_pendulum_acceptance_run():
    """The issue's acceptance run: h = 0.01 to t = 50 s, error against the exact solution consistent with order 4."""
    res = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=50.0)
    th, _ = ref.planar_pendulum_exact(res.t)
    err = np.abs(res.state["theta"] - th).max()
    res2 = solvers.simulate("planar_pendulum", "rk4", h=0.02, t_end=50.0)
    th2, _ = ref.planar_pendulum_exact(res2.t)
    err2 = np.abs(res2.state["theta"] - th2).max()
    assert 2**3.7 < err2 / err < 2**4.3, (err, err2)
    assert err < 5e-6
    assert res.summary["cpu_time"] < 0.5
