"""The rigid machinery's Lie-algebra pieces (constraint Jacobian, constraint-force stiffness) against finite
differences on the group, for a general state of the spatial double pendulum and of the 3D pendulum."""

from __future__ import annotations

import numpy as np
import pytest

from solvers.models import pendulum_3d, rigid, spatial_double_pendulum
from tests import references as ref


def general_models():
    sdp = spatial_double_pendulum.BENCHMARK
    p = sdp.resolve({"R1": ref.rot_z(0.3) @ ref.rot_x(0.7), "R2": ref.rot_y(1.1) @ ref.rot_z(-0.5),
                     "Omega1": [0.5, 3.0, -0.4], "Omega2": [-0.3, -2.0, 0.8]})
    p3 = pendulum_3d.BENCHMARK.resolve({"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7],
                                         "Omega0": [1.0, -2.0, 3.0]})
    return [sdp.build(p), pendulum_3d.BENCHMARK.build(p3)]


@pytest.mark.parametrize("model", general_models(), ids=["spatial_double_pendulum", "pendulum_3d"])
def test_jacobian_and_stiffness_match_finite_differences(model):
    data, y0 = model.data, model.y0.copy()
    rng = np.random.default_rng(1)
    # move off the initial state so that nothing is special
    y = np.empty_like(y0)
    rigid.advance_configuration(y0, 0.3 * rng.standard_normal(rigid.n_velocity(data)), y)
    nv, nm = rigid.n_velocity(data), rigid.n_multipliers(data)
    B = np.empty((nm, nv))
    rigid.constraint_jacobian(data, y, B)
    lam = rng.standard_normal(nm)
    K = np.empty((nv, nv))
    rigid.constraint_force_derivative(data, y, lam, K)
    eps = 1e-6
    phi_p, phi_m = np.empty(nm), np.empty(nm)
    f_p, f_m = np.empty(nv), np.empty(nv)
    Bp, Bm = np.empty((nm, nv)), np.empty((nm, nv))
    yp, ym = np.empty_like(y), np.empty_like(y)
    for c in range(nv):
        e = np.zeros(nv)
        e[c] = eps
        rigid.advance_configuration(y, e, yp)
        rigid.advance_configuration(y, -e, ym)
        rigid.constraint_residual(data, yp, phi_p)
        rigid.constraint_residual(data, ym, phi_m)
        np.testing.assert_allclose((phi_p - phi_m) / (2 * eps), B[:, c], atol=1e-8)
        rigid.constraint_jacobian(data, yp, Bp)
        rigid.constraint_jacobian(data, ym, Bm)
        rigid.transpose_times(Bp, lam, nm, nv, f_p)
        rigid.transpose_times(Bm, lam, nm, nv, f_m)
        np.testing.assert_allclose((f_p - f_m) / (2 * eps), K[:, c], atol=1e-7)


def test_initial_acceleration_satisfies_the_acceleration_constraint():
    model = general_models()[0]
    data, y = model.data, model.y0
    nv, nm = rigid.n_velocity(data), rigid.n_multipliers(data)
    acc, lam = np.empty(nv), np.empty(nm)
    assert rigid.initial_acceleration(data, y, acc, lam)
    full = np.zeros_like(y)
    for i in range(nv // 6):
        full[18 * i + 12 : 18 * i + 18] = acc[6 * i : 6 * i + 6]
    d = np.empty(7)
    rigid.diagnostics(data, y, full, d)
    assert d[3] < 1e-12
