"""Checks that the independent reference solutions in ``solvers/references/solutions.py`` are right.

Every reference is checked by quantities that it does not use itself: energy and momentum computed in the
solver-side (mapped) coordinates, the constraints of the mapped coordinates, finite differences of the
returned trajectories against the returned velocities, the residual of the equations of motion written in
the OTHER (absolute / natural / Newton-Euler) coordinates, and cross-checks between benchmarks
(closed form vs solve_ivp, 3D pendulum vs planar exact solution, B1 with thin rods vs B4).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm, null_space
from scipy.spatial.transform import Rotation
from scipy.special import ellipk

from solvers.references import solutions as ref


def fd6(y: np.ndarray, h: float) -> np.ndarray:
    """Sixth-order central difference along axis 0 on a uniform grid; returns values at y[3:-3]."""
    return (45.0 * (y[4:-2] - y[2:-4]) - 9.0 * (y[5:-1] - y[1:-5]) + (y[6:] - y[:-6])) / (60.0 * h)


def grid(t_end: float, h: float) -> np.ndarray:
    return np.arange(round(t_end / h) + 1) * h


def rel_drift(e: np.ndarray, scale: float) -> float:
    return float(np.max(np.abs(e - e[0])) / scale)


def orth_err(R: np.ndarray) -> float:
    return float(np.max(np.linalg.norm(np.eye(3) - R @ np.swapaxes(R, -1, -2), axis=(-2, -1))))


def projected_residual(G: np.ndarray, r: np.ndarray) -> float:
    """max over samples of |N^T r|, N an orthonormal basis of null(G): r must lie in range(G^T)."""
    return max(float(np.linalg.norm(null_space(Gi).T @ ri)) for Gi, ri in zip(G, r, strict=True))


# ----------------------------------------------------------------------------------------------------------
# argument handling
# ----------------------------------------------------------------------------------------------------------
def test_time_array_validation():
    with pytest.raises(ValueError, match="start at 0"):
        ref.planar_pendulum_exact([0.1, 0.2])
    with pytest.raises(ValueError, match="sorted"):
        ref.two_link_arm_reference([0.0, 0.2, 0.1])
    q, qdot = ref.natural_double_pendulum_reference([0.0])
    np.testing.assert_allclose(q, [[2.0, 0.0, 5.0, 0.0]], atol=1e-15)
    np.testing.assert_allclose(qdot, 0.0, atol=1e-15)
    out = ref.spatial_double_pendulum_reference(np.array([0.0, 0.0, 0.5]))
    assert out["R"].shape == (3, 2, 3, 3) and out["x"].shape == (3, 2, 3)
    np.testing.assert_allclose(out["x"][0], [[0.0, 0.5, 0.0], [-0.5, 1.0, 0.0]], atol=1e-15)
    np.testing.assert_allclose(out["x"][1], out["x"][0], atol=0.0)


# ----------------------------------------------------------------------------------------------------------
# B3 planar pendulum
# ----------------------------------------------------------------------------------------------------------
PLANAR_STATES = [
    (0.0, 1.0),  # the benchmark default
    (0.3, 0.0),
    (2.5, -1.0),  # large amplitude, moving towards the bottom from the left quadrant
    (-2.0, 2.0),
    (1.0, -5.0),
    (-0.4, -3.0),
    (2.0 * np.pi + 0.7, 1.5),  # oscillates about 2 pi
    (-2.0 * np.pi - 2.9, -0.3),  # amplitude near pi, about -2 pi
]


@pytest.mark.parametrize(("theta0", "omega0"), PLANAR_STATES)
def test_planar_exact_matches_tight_ivp(theta0, omega0):
    t = np.linspace(0.0, 8.0, 801)
    th, om = ref.planar_pendulum_exact(t, theta0=theta0, omega0=omega0)
    th_i, om_i = ref.planar_pendulum_ivp(t, theta0=theta0, omega0=omega0)
    assert th[0] == pytest.approx(theta0, abs=1e-14)
    assert om[0] == pytest.approx(omega0, abs=1e-13)
    w0 = np.sqrt(2.0 * 9.81 * 0.6 / 0.48)
    assert np.max(np.abs(th - th_i)) < 1e-10
    assert np.max(np.abs(om - om_i)) < 1e-10 * w0


@pytest.mark.parametrize(("theta0", "omega0"), [*PLANAR_STATES, (0.0, 9.9), (3.1, 0.0)])
def test_planar_exact_energy_derivative_period(theta0, omega0):
    m, J, l, g = 3.0, 0.5, 0.8, 9.81
    w0 = np.sqrt(m * g * l / J)
    k2 = np.sin(theta0 / 2) ** 2 + (omega0 / (2 * w0)) ** 2
    h = 1e-4
    t = grid(2.0, h)
    th, om = ref.planar_pendulum_exact(t, m=m, J=J, l=l, g=g, theta0=theta0, omega0=omega0)
    E = ref.energy_planar_pendulum(th, om, m=m, J=J, l=l, g=g)
    assert rel_drift(E, m * g * l) < 1e-12
    # omega is the time derivative of theta, and J theta'' = -m g l sin theta
    scale = max(1.0, np.max(np.abs(om)))
    assert np.max(np.abs(fd6(th, h) - om[3:-3])) < 1e-7 * scale
    assert np.max(np.abs(J * fd6(om, h) + m * g * l * np.sin(th[3:-3]))) < 1e-6 * m * g * l
    # period 4 K(k^2) / w0
    period = 4.0 * ellipk(k2) / w0
    th_p, om_p = ref.planar_pendulum_exact(
        [0.0, 0.5 * period, period], m=m, J=J, l=l, g=g, theta0=theta0, omega0=omega0
    )
    assert th_p[2] == pytest.approx(theta0, abs=1e-11)
    assert om_p[2] == pytest.approx(omega0, abs=1e-10 * max(1.0, abs(omega0)))
    assert om_p[1] == pytest.approx(-omega0, abs=1e-10 * max(1.0, abs(omega0)))  # time-reversal symmetry


def test_planar_exact_rest_and_rejects_rotation():
    th, om = ref.planar_pendulum_exact(np.linspace(0, 1, 5), theta0=0.0, omega0=0.0)
    assert np.all(th == 0.0) and np.all(om == 0.0)
    w0 = np.sqrt(2.0 * 9.81 * 0.6 / 0.48)
    for theta0, omega0 in [(np.pi, 0.0), (0.0, 2.0 * w0), (0.0, 3.0 * w0), (2.0, -10.0)]:
        with pytest.raises(ValueError, match="libration"):
            ref.planar_pendulum_exact([0.0, 1.0], theta0=theta0, omega0=omega0)


# ----------------------------------------------------------------------------------------------------------
# B4 two-link arm (absolute coordinates)
# ----------------------------------------------------------------------------------------------------------
ARM_CASES = [
    {},  # the benchmark default: both links along +x, at rest
    {"th1": -0.4, "th2": 1.1, "dth1": 2.0, "dth2": -3.0},
    {"m1": 1.7, "l1": 0.8, "m2": 0.6, "l2": 1.3, "g": 3.0, "th1": 2.0, "th2": -2.5, "dth1": -1.0, "dth2": 4.0},
]


@pytest.mark.parametrize("case", ARM_CASES)
def test_two_link_arm(case):
    par = {"m1": 1.0, "l1": 1.0, "m2": 2.0, "l2": np.sqrt(3.0), "g": 9.81} | case
    geo = {k: par[k] for k in ("l1", "l2")}
    phys = {k: par[k] for k in ("m1", "l1", "m2", "l2", "g")}
    h = 1e-3
    t = grid(3.0, h)
    q, qdot = ref.two_link_arm_reference(t, **case)
    scale = par["g"] * (par["m1"] * par["l1"] + par["m2"] * (par["l1"] + par["l2"]))
    E = ref.energy_two_link_arm(q, qdot, **phys)
    assert rel_drift(E, scale) < 1e-10
    # constraints (seed 001 eq. 19) and their time derivative
    G = ref.constraint_jacobian_two_link_arm(q, **geo)
    assert np.max(np.abs(ref.constraint_two_link_arm(q, **geo))) < 1e-12
    assert np.max(np.abs(np.einsum("nij,nj->ni", G, qdot))) < 1e-12 * max(1.0, np.max(np.abs(qdot)))
    # qdot is dq/dt
    assert np.max(np.abs(fd6(q, h) - qdot[3:-3])) < 1e-8
    # Lagrange equations of the first kind in absolute coordinates: M qdd - f in range(G^T)
    M = np.diag(
        [par["m1"], par["m1"], par["m1"] * par["l1"] ** 2 / 12, par["m2"], par["m2"], par["m2"] * par["l2"] ** 2 / 12]
    )
    f = np.array([0.0, -par["m1"] * par["g"], 0.0, 0.0, -par["m2"] * par["g"], 0.0])
    r = fd6(qdot, h) @ M - f
    assert projected_residual(G[3:-3:10], r[::10]) < 1e-7 * scale


def test_two_link_arm_default_initial_state():
    q, qdot = ref.two_link_arm_reference([0.0, 0.1])
    np.testing.assert_allclose(q[0], [0.5, 0.0, 0.0, 1.0 + np.sqrt(3.0) / 2, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(qdot[0], 0.0, atol=1e-15)
    assert np.all(q[1, [1, 4]] < 0.0)  # falls under gravity along -y


# ----------------------------------------------------------------------------------------------------------
# B5 natural double pendulum (natural coordinates, constant mass matrix)
# ----------------------------------------------------------------------------------------------------------
NDP_CASES = [
    {},
    {"th1": -1.0, "th2": 0.3, "dth1": 1.5, "dth2": -2.0},
    {"m1": 2.0, "l1": 0.7, "m2": 0.5, "l2": 1.6, "g": 12.0, "th1": 0.4, "th2": 2.9, "dth1": -3.0, "dth2": 1.0},
]


@pytest.mark.parametrize("case", NDP_CASES)
def test_natural_double_pendulum(case):
    par = {"m1": 1.0, "l1": 2.0, "m2": 1.0, "l2": 3.0, "g": 9.81} | case
    h = 1e-3
    t = grid(3.0, h)
    q, qdot = ref.natural_double_pendulum_reference(t, **case)
    mm = {"m1": par["m1"], "m2": par["m2"]}
    scale = par["g"] * (par["m1"] * par["l1"] + par["m2"] * (par["l1"] + par["l2"]))
    E = ref.energy_natural_double_pendulum(q, qdot, g=par["g"], **mm)
    assert rel_drift(E, scale) < 1e-10
    lens = {"l1": par["l1"], "l2": par["l2"]}
    G = ref.constraint_jacobian_natural_double_pendulum(q)
    assert np.max(np.abs(ref.constraint_natural_double_pendulum(q, **lens))) < 1e-12 * max(lens.values()) ** 2
    assert np.max(np.abs(np.einsum("nij,nj->ni", G, qdot))) < 1e-12 * max(1.0, np.max(np.abs(qdot))) * 10
    assert np.max(np.abs(fd6(q, h) - qdot[3:-3])) < 1e-8 * max(1.0, np.max(np.abs(qdot)))
    # index-3 DAE with the seed-003 constant mass matrix: M qdd - f in range(A^T)
    M = ref.mass_matrix_natural_double_pendulum(**mm)
    f = ref.force_natural_double_pendulum(g=par["g"], **mm)
    r = fd6(qdot, h) @ M - f
    assert projected_residual(G[3:-3:10], r[::10]) < 1e-7 * scale


def test_natural_double_pendulum_consistent_with_two_link_arm():
    """Same physical chain: joint O1 = 2 x1 and O2 = 2 x2 - O1 in terms of the arm's centres of mass."""
    t = np.linspace(0.0, 2.0, 201)
    case = {"m1": 1.0, "l1": 1.0, "m2": 2.0, "l2": np.sqrt(3.0), "th1": 0.2, "th2": -0.5, "dth1": 1.0}
    qa, va = ref.two_link_arm_reference(t, **case)
    qn, vn = ref.natural_double_pendulum_reference(t, **case)
    np.testing.assert_allclose(qn[:, :2], 2.0 * qa[:, :2], atol=1e-13)
    np.testing.assert_allclose(qn[:, 2:], 2.0 * qa[:, 3:5] - qn[:, :2], atol=1e-13)
    np.testing.assert_allclose(vn[:, 2:], 2.0 * va[:, 3:5] - vn[:, :2], atol=1e-12)


# ----------------------------------------------------------------------------------------------------------
# B2 3D pendulum (heavy top on a pivot)
# ----------------------------------------------------------------------------------------------------------
P3D_CASES = [
    {},
    {"J": np.diag([1.0, 2.0, 3.0]), "Omega0": (1.0, -2.0, 3.0)},
    {
        "m": 3.0,
        "J": np.array([[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 0.8]]),
        "rho": np.array([0.2, -0.1, 0.5]),
        "g": 7.0,
        "cardan0": (0.3, -1.2, 2.0),
        "Omega0": (0.5, 4.0, -1.0),
    },
]


@pytest.mark.parametrize("case", P3D_CASES)
def test_pendulum_3d(case):
    par = {"m": 10.0, "J": np.eye(3), "rho": np.array([0.0, 0.0, 0.7]), "g": 9.81} | case
    h = 1e-3
    t = grid(3.0, h)
    R, W = ref.pendulum_3d_reference(t, **case)
    a, b, c = case.get("cardan0", (np.pi / 3, np.pi / 4, np.pi / 9))
    np.testing.assert_allclose(R[0], ref.rot_x(a) @ ref.rot_y(b) @ ref.rot_z(c), atol=1e-15)
    assert orth_err(R) < 1e-14
    scale = par["m"] * par["g"] * np.linalg.norm(par["rho"])
    J = par["J"]
    E = ref.energy_pendulum_3d(R, W, m=par["m"], J=J, rho=par["rho"], g=par["g"])
    assert rel_drift(E, scale) < 1e-10
    L = ref.momentum_pendulum_3d(R, W, J=J)
    assert rel_drift(L, np.sqrt(scale * np.trace(J))) < 1e-10
    # kinematics dR/dt = R hat(Omega)
    Wmax = max(1.0, np.max(np.abs(W)))
    dR = fd6(R, h)
    assert np.max(np.abs(ref.vee(np.swapaxes(R[3:-3], 1, 2) @ dR) - W[3:-3])) < 1e-8 * Wmax
    # Euler's equations about the pivot
    res = fd6(W, h) @ J.T + np.cross(W[3:-3], W[3:-3] @ J.T) - par["m"] * par["g"] * np.cross(par["rho"], R[3:-3, 2, :])
    assert np.max(np.abs(res)) < 1e-7 * scale * Wmax**2


def test_pendulum_3d_default_matches_planar_exact():
    """With J = I and Omega0 = 0 the top swings in a fixed vertical plane as a planar pendulum."""
    t = np.linspace(0.0, 5.0, 501)
    R, W = ref.pendulum_3d_reference(t)
    rho = np.array([0.0, 0.0, 0.7])
    u0 = R[0] @ rho / 0.7
    theta0 = np.arccos(u0[2])  # angle from +e3, the direction of gravity
    th, om = ref.planar_pendulum_exact(t, m=10.0, J=1.0, l=0.7, g=9.81, theta0=theta0, omega0=0.0)
    cos_num = (R @ rho)[:, 2] / 0.7
    assert np.max(np.abs(cos_num - np.cos(th))) < 1e-11
    assert np.max(np.abs(np.linalg.norm(W, axis=1) - np.abs(om))) < 1e-10
    # the plane stays fixed: the CoM stays in the plane spanned by e3 and its initial direction
    normal = np.cross([0.0, 0.0, 1.0], u0)
    assert np.max(np.abs((R @ rho) @ normal)) < 1e-12


def test_pendulum_3d_R0_overrides_cardan():
    R0 = Rotation.from_rotvec([0.4, -0.3, 1.2]).as_matrix()
    R, _ = ref.pendulum_3d_reference([0.0, 0.3], R0=R0, cardan0=(1.0, 1.0, 1.0))
    np.testing.assert_allclose(R[0], R0, atol=1e-15)


# ----------------------------------------------------------------------------------------------------------
# B1 spatial double pendulum
# ----------------------------------------------------------------------------------------------------------
def _check_sdp(h, out, **geo):
    R, x, W, v = out["R"], out["x"], out["Omega"], out["v"]
    m, J, *_ = ref.spatial_double_pendulum_params(**geo)
    g, l = 9.81, geo["rod_length"]
    scale_E = m * g * l  # E0 = 0 for the default state: absolute scale
    scale_L = m * l**2 * np.sqrt(g / l)
    assert orth_err(R) < 1e-14
    E = ref.energy_spatial_double_pendulum(R, x, W, v, **geo)
    Lz = ref.momentum_spatial_double_pendulum(R, x, W, v, **geo)
    stats = {"E": rel_drift(E, scale_E), "Lz": rel_drift(Lz, scale_L)}
    assert stats["E"] < 1e-10
    assert stats["Lz"] < 1e-10
    vmax = max(1.0, np.max(np.abs(v)), np.max(np.abs(W)))
    Phi = ref.constraint_spatial_double_pendulum(R, x, rod_length=geo["rod_length"])
    G = ref.constraint_jacobian_spatial_double_pendulum(R, rod_length=geo["rod_length"])
    V = np.concatenate([v[:, 0], W[:, 0], v[:, 1], W[:, 1]], axis=1)
    stats["Phi"] = float(np.max(np.abs(Phi)))
    stats["dPhi"] = float(np.max(np.abs(np.einsum("nij,nj->ni", G, V))))
    assert stats["Phi"] < 1e-12
    assert stats["dPhi"] < 1e-12 * vmax
    # v = dx/dt and dR_i/dt = R_i hat(Omega_i)
    assert np.max(np.abs(fd6(x, h) - v[3:-3])) < 1e-8 * vmax
    dR = fd6(R, h)
    assert np.max(np.abs(ref.vee(np.swapaxes(R[3:-3], -1, -2) @ dR) - W[3:-3])) < 1e-8 * vmax
    # Newton-Euler equations of both rods with joint reactions G^T lambda (seed 000 eq. 24 / Table 1)
    dV = fd6(V, h)
    Vc = V[3:-3]
    r = np.empty_like(dV)
    for k in (0, 6):  # [v_i, Omega_i] occupy V[k:k+3], V[k+3:k+6]
        r[:, k : k + 3] = m * dV[:, k : k + 3] - m * g * np.array([0.0, 0.0, 1.0])
        Wi = Vc[:, k + 3 : k + 6]
        r[:, k + 3 : k + 6] = dV[:, k + 3 : k + 6] @ J.T + np.cross(Wi, Wi @ J.T)
    stats["NE"] = projected_residual(G[3:-3:10], r[::10]) / (m * g)
    assert stats["NE"] < 1e-7 * vmax**2
    return stats


def test_spatial_double_pendulum_default():
    h = 1e-3
    t = grid(3.0, h)
    out = ref.spatial_double_pendulum_reference(t)
    geo = {"rod_density": 7850.0, "rod_radius": 0.05, "rod_length": 1.0}
    m, J, *_ = ref.spatial_double_pendulum_params(**geo)
    assert m == pytest.approx(61.6538, abs=1e-4)
    np.testing.assert_allclose(np.diag(J), [5.1763, 0.0771, 5.1763], atol=1e-4)
    np.testing.assert_allclose(out["x"][0], [[0.0, 0.5, 0.0], [-0.5, 1.0, 0.0]], atol=1e-15)
    E0 = ref.energy_spatial_double_pendulum(out["R"][0], out["x"][0], out["Omega"][0], out["v"][0], **geo)
    assert E0 == 0.0
    _check_sdp(h, out, **geo)
    # gravity along +e3: both rods fall towards +z
    assert np.all(out["x"][-1, :, 2] > 0.1)


def test_spatial_double_pendulum_general_state():
    rng = np.random.default_rng(20240611)
    R1, R2 = Rotation.random(2, random_state=rng).as_matrix()
    W1 = rng.normal(size=3) + np.array([0.0, 6.0, 0.0])  # strong spin about the rod axis (body y)
    W2 = rng.normal(size=3) - np.array([0.0, 9.0, 0.0])
    geo = {"rod_density": 2700.0, "rod_radius": 0.08, "rod_length": 1.3}
    h = 1e-3
    t = grid(2.0, h)
    out = ref.spatial_double_pendulum_reference(t, R1=R1, R2=R2, Omega1=W1, Omega2=W2, **geo)
    np.testing.assert_allclose(out["R"][0], [R1, R2], atol=1e-15)
    np.testing.assert_allclose(out["Omega"][0], [W1, W2], atol=0.0)
    _check_sdp(h, out, **geo)
    assert np.max(np.abs(out["Omega"][:, :, 1])) > 1.0  # the axial spins are really there


def test_spatial_double_pendulum_thin_planar_matches_two_link_arm():
    """Rods in the x-z plane, turning about e2: a planar double pendulum of bars (inertia m(3r^2 + l^2)/12,
    so a thin rod of radius 1e-6 agrees with B4's uniform links up to O(r^2))."""
    th1, th2, w1, w2 = 0.3, -0.8, 1.0, -2.0
    e2 = np.array([0.0, 1.0, 0.0])

    def attitude(th):
        u = np.array([np.cos(th), 0.0, -np.sin(th)])  # B4 plane (x, y) -> world (e1, -e3)
        return np.column_stack([np.cross(u, e2), u, e2])

    t = np.linspace(0.0, 2.0, 201)
    out = ref.spatial_double_pendulum_reference(
        t, rod_radius=1e-6, R1=attitude(th1), R2=attitude(th2), Omega1=(0, 0, w1), Omega2=(0, 0, w2)
    )
    q, qdot = ref.two_link_arm_reference(t, m1=1.0, l1=1.0, m2=1.0, l2=1.0, th1=th1, th2=th2, dth1=w1, dth2=w2)
    for i, (ix, iy, ith) in enumerate(((0, 1, 2), (3, 4, 5))):
        xw = np.column_stack([q[:, ix], np.zeros_like(t), -q[:, iy]])
        vw = np.column_stack([qdot[:, ix], np.zeros_like(t), -qdot[:, iy]])
        assert np.max(np.abs(out["x"][:, i] - xw)) < 1e-10
        assert np.max(np.abs(out["v"][:, i] - vw)) < 1e-9
        assert np.max(np.abs(out["Omega"][:, i, 2] - qdot[:, ith])) < 1e-9
        assert np.max(np.abs(out["Omega"][:, i, :2])) < 1e-11


# ----------------------------------------------------------------------------------------------------------
# B6 angular velocity
# ----------------------------------------------------------------------------------------------------------
def test_angular_velocity_exact():
    t = np.linspace(0.0, 2.0, 2001)
    theta, R, omega = ref.angular_velocity_exact(t)
    assert theta.shape == (t.size, 3) and R.shape == (t.size, 3, 3) and omega.shape == (t.size, 3)
    np.testing.assert_allclose(theta[0], 0.0, atol=0.0)
    assert np.max(np.linalg.norm(theta, axis=1)) > 2.0 * np.pi  # the test function passes |theta| = 2 pi
    assert orth_err(R) < 1e-14
    for i in (0, 333, 1000, 1777, 2000):
        np.testing.assert_allclose(R[i], expm(ref.hat(theta[i])), atol=1e-13)
    # omega is the SPATIAL angular velocity: vee(dR/dt R^T), by finite differences of R(t)
    h = 1e-5
    for tc in t[::50]:
        ts = tc + h * np.arange(-3, 4)
        Rs = Rotation.from_rotvec(ref.angular_velocity_theta(ts)[0]).as_matrix()
        dR = fd6(Rs, h)[0]
        w_fd = ref.vee(dR @ Rs[3].T)
        _, _, w = ref.angular_velocity_exact(np.array([0.0, tc]))
        assert np.max(np.abs(w_fd - w[-1])) < 1e-7 * max(1.0, np.linalg.norm(w[-1]))
    # dtheta/dt of the test function by finite differences
    th_s = ref.angular_velocity_theta(grid(2.0, 1e-5))
    assert np.max(np.abs(fd6(th_s[0], 1e-5) - th_s[1][3:-3])) < 1e-6


def test_left_jacobian_small_angle_series_continuous():
    rng = np.random.default_rng(1)
    d = rng.normal(size=3)
    d /= np.linalg.norm(d)
    for v in (1e-8, 1e-4, 0.99e-3, 1.01e-3, 1e-2):
        T = ref.left_jacobian_so3(v * d)
        # T(theta) = sum_k hat(theta)^k / (k+1)!
        H = ref.hat(v * d)
        T_series = np.eye(3) + H / 2 + H @ H / 6 + H @ H @ H / 24 + H @ H @ H @ H / 120
        np.testing.assert_allclose(T, T_series, atol=1e-15)
