"""The rigid machinery's Lie-algebra pieces (constraint Jacobian, constraint-force stiffness) against finite
differences on the group for a general state of the spatial double pendulum (the 3D pendulum's gravity moment:
tests/test_pendulum_3d.py), and the per-body offsets on a model that mixes a pinned and a free body."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import driver
from solvers.models import rigid, rigid_dae, spatial_double_pendulum
from solvers.models.base import Model
from solvers.references import solutions as ref
from solvers.registry import METHODS


def general_models():
    sdp = spatial_double_pendulum.BENCHMARK
    p = sdp.resolve({"R1": ref.rot_z(0.3) @ ref.rot_x(0.7), "R2": ref.rot_y(1.1) @ ref.rot_z(-0.5),
                     "Omega1": [0.5, 3.0, -0.4], "Omega2": [-0.3, -2.0, 0.8]})
    return [sdp.build(p)]


@pytest.mark.parametrize("model", general_models(), ids=["spatial_double_pendulum"])
def test_jacobian_and_stiffness_match_finite_differences(model):
    data, y0 = model.data, model.y0.copy()
    rng = np.random.default_rng(1)
    # move off the initial state so that nothing is special
    y = np.empty_like(y0)
    rigid.advance_configuration(data, y0, 0.3 * rng.standard_normal(rigid.n_velocity(data)), y)
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
        rigid.advance_configuration(data, y, e, yp)
        rigid.advance_configuration(data, y, -e, ym)
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
    assert rigid_dae.initial_acceleration(data, y, acc, lam)
    full = np.zeros_like(y)
    for i in range(nv // 6):
        full[18 * i + 12 : 18 * i + 18] = acc[6 * i : 6 * i + 6]
    d = np.empty(7)
    rigid.diagnostics(data, y, full, d)
    assert d[3] < 1e-12


# a heavy top (pinned, body 0) and a steel rod hanging from a spherical joint at the origin (free, body 1): no
# coupling, so the combined model must move each body as its own model does; body 1 sits at state offset 12 and
# velocity offset 3, which exercises every kernel's per-body offsets
_G = [0.0, 0.0, 9.81]
_TOP = {"m": 10.0, "J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "R": ref.rot_x(1.0) @ ref.rot_y(0.4),
        "Omega": [1.0, -2.0, 3.0]}
_ROD_M, _ROD_J = spatial_double_pendulum.rod_mass_inertia(7850.0, 0.05, 1.0)
_ROD = {"R": ref.rot_z(0.3) @ ref.rot_x(0.7), "Omega": [0.5, 3.0, -0.4], "joint": (-0.5, [0.0, 0.0, 0.0])}


def _rigid_model(bodies: str) -> Model:
    mass, inertia, pinned, joints, R, W = [], [], [], [], [], []
    if "top" in bodies:
        mass.append(_TOP["m"])
        inertia.append(_TOP["J"])
        pinned.append(([0.0, 0.0, 0.0], _TOP["rho"]))
        R.append(_TOP["R"])
        W.append(_TOP["Omega"])
    if "rod" in bodies:
        joints.append((len(mass), [0.0, _ROD["joint"][0], 0.0], -1, _ROD["joint"][1]))
        mass.append(_ROD_M)
        inertia.append(_ROD_J)
        pinned.append(None)
        R.append(_ROD["R"])
        W.append(_ROD["Omega"])
    data = rigid.make_data(mass, inertia, _G, joints, pinned=pinned)
    y0 = rigid.place_bodies(data, R, W)
    return Model("rigid", data, y0, lambda s: rigid.unpack(data, s), lambda s: np.zeros((s.shape[0], 1, 3)),
                 ("origin",))


@pytest.mark.parametrize(("method", "options"), [("rk4", {}), ("rattlie", {}), ("lgvi", {}),
                                                 ("lgvi_lagrangian", {}), ("lie_galpha", {}),
                                                 ("lie_galpha", {"variant": "stab2"})],
                         ids=["rk4", "rattlie", "lgvi", "lgvi_lagrangian", "lie_galpha", "lie_galpha-stab2"])
def test_a_pinned_and_a_free_body_move_as_in_their_own_models(method, options):
    h, n = 2e-3, 250
    meth = METHODS[method]

    def go(bodies):
        model = _rigid_model(bodies)
        res = driver.run(bodies, model, meth, meth.resolve(options), h, n, n * h, {})
        assert res.status == "ok", res.message
        return res

    both, top, rod = go("top+rod"), go("top"), go("rod")
    assert set(both.state) == {"R", "Omega"} and set(rod.state) == {"R", "x", "Omega", "v"}
    tol = 1e-9  # Newton stops on the largest update of either body: agreement to the Newton tolerance
    for key in ("R", "Omega"):
        np.testing.assert_allclose(both.state[key][:, 0], top.state[key][:, 0], rtol=0, atol=tol, err_msg=key)
        np.testing.assert_allclose(both.state[key][:, 1], rod.state[key][:, 0], rtol=0, atol=tol, err_msg=key)
    np.testing.assert_allclose(both.energy, top.energy + rod.energy, rtol=0, atol=1e-8)
    np.testing.assert_allclose(both.momentum, top.momentum + rod.momentum, rtol=0, atol=1e-8)
    np.testing.assert_allclose(both.constraint_position, rod.constraint_position, rtol=0, atol=1e-12)
    assert np.isnan(top.constraint_position).all()


def test_joints_join_free_bodies_only():
    with pytest.raises(ValueError, match="free bodies only"):
        rigid.make_data([1.0], [np.eye(3)], _G, [(0, [0.0, 0.0, 0.0], -1, [0.0, 0.0, 0.0])],
                        pinned=[([0.0, 0.0, 0.0], [0.0, 0.0, 1.0])])


def test_saddle_matrix_is_the_dense_block_system():
    """joints.saddle_matrix (lgvi's and lie_galpha's dense solves) against the same matrix built with NumPy."""
    from solvers.models import joints

    rng = np.random.default_rng(7)
    pinned = np.array([1, 0], dtype=np.int64)
    v_off = np.array([0, 3, 9], dtype=np.int64)
    nv, nm = 9, 4
    Hrot, trans = rng.normal(size=(2, 3, 3)), np.array([0.0, 2.5])
    C, D, E = rng.normal(size=(nv, nm)), rng.normal(size=(nm, nv)), rng.normal(size=(nm, nm))
    H = np.zeros((nv, nv))
    H[:3, :3], H[3:6, 3:6], H[6:, 6:] = Hrot[0], Hrot[1], 2.5 * np.eye(3)
    K = np.full((nv + nm + 2, nv + nm + 2), 7.0)  # larger and dirty: only the leading n x n block is written
    joints.saddle_matrix(K, nv, nm, Hrot, trans, pinned, v_off, C, False, D, E, True)
    np.testing.assert_array_equal(K[:13, :13], np.block([[H, C], [D, E]]))
    joints.saddle_matrix(K, nv, nm, Hrot, trans, pinned, v_off, C.T.copy(), True, D, E, False)
    np.testing.assert_array_equal(K[:13, :13], np.block([[H, C], [D, np.zeros((nm, nm))]]))


@pytest.mark.parametrize("which", ["spatial_double_pendulum", "top+rod"])
def test_rhs_schur_complement_is_the_dense_saddle_solve(which):
    """rigid_dae.rhs (Schur complement on the multipliers with the constant M^-1) gives the accelerations of the dense
    saddle-point system of ``assemble`` at a general state, to round-off."""
    model = general_models()[0] if which == "spatial_double_pendulum" else _rigid_model("top+rod")
    data, y = model.data, model.y0
    n = rigid.system_size(data)
    A, b = np.zeros((n, n)), np.zeros(n)
    rigid_dae.assemble(data, y, A, b)
    dense = np.linalg.solve(A, b)[: rigid.n_velocity(data)]
    ydot = np.full_like(y, np.nan)
    assert rigid_dae.rhs(data, 0.0, y, ydot, np.full((n, n), np.nan), np.full(n, np.nan))
    acc = np.concatenate([ydot[o + (9 if p else 12): o + (12 if p else 18)]
                          for o, p in zip(data[9][:-1], data[6], strict=True)])
    np.testing.assert_allclose(acc, dense, rtol=0, atol=1e-12 * np.abs(dense).max())


def test_rhs_refuses_a_singular_inertia():
    """A body whose inertia is singular makes the right-hand side report a singular system (no NaN state)."""
    data = rigid.make_data([1.0], [np.diag([0.0, 1.0, 1.0])], _G, [(0, [0.0, 0.5, 0.0], -1, [0.0, 0.0, 0.0])])
    y = rigid.place_bodies(data, [np.eye(3)], [np.zeros(3)])
    n = rigid.system_size(data)
    assert not rigid_dae.rhs(data, 0.0, y, np.empty_like(y), np.empty((n, n)), np.empty(n))
