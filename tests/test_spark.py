"""Gauss-Lobatto SPARK (s,s) (seed 003): coefficients, the coords derivatives Newton uses, order 2s against
independent references (solvers/references/solutions.py), constraints, bounded energy, seed 003's gamma."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers import tableaus
from solvers.models import coords, natural_double_pendulum, two_link_arm
from solvers.references import solutions as ref
from tests.convergence import fitted_order

GEN_ARM = {"th1": 0.4, "th2": -0.9, "dth1": 1.5, "dth2": -2.0}
GEN_NAT = {"th1": -0.3, "th2": 0.5, "dth1": 1.0, "dth2": -1.0}
GEN_PEND = {"theta0": 1.2, "omega0": -2.0}


def run(benchmark, h, t_end, s, gamma=0.0, params=None, **kw):
    res = solvers.simulate(benchmark, "spark", h=h, t_end=t_end, params=params,
                           options={"s": s, "gamma": gamma}, **kw)
    assert res.status == "ok", res.message
    return res


def traj(res):
    """All saved states as one (samples, k) array."""
    return np.hstack([np.asarray(v).reshape(len(res.t), -1) for v in res.state.values()])


def state_error(benchmark, res, params):
    if benchmark == "planar_pendulum":
        th, om = ref.planar_pendulum_exact(res.t, **params)
        return np.abs(res.state["theta"] - th).max() + np.abs(res.state["omega"] - om).max()
    f = ref.two_link_arm_reference if benchmark == "two_link_arm" else ref.natural_double_pendulum_reference
    q, qd = f(res.t, **params)
    return np.abs(res.state["q"] - q).max() + np.abs(res.state["qdot"] - qd).max()


# ---------------------------------------------------------------- coefficients

@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_quadratures_exact_to_the_right_degree(s):
    tb = tableaus.spark(s)
    for nodes, weights in ((tb["c"], tb["b"]), (tb["ct"], tb["bt"])):
        for k in range(2 * s):  # Gauss (s nodes) and Lobatto (s + 1 nodes): exact up to degree 2s - 1
            assert weights @ nodes**k == pytest.approx(1.0 / (k + 1), abs=1e-14)
        assert abs(weights @ nodes ** (2 * s) - 1.0 / (2 * s + 1)) > 1e-6  # and not beyond
    assert tb["ct"][0] == 0.0 and tb["ct"][-1] == 1.0
    # collocation conditions, SPARK coefficients and the symplecticity condition
    for k in range(1, s + 1):
        np.testing.assert_allclose(tb["a"] @ tb["c"] ** (k - 1), tb["c"] ** k / k, atol=1e-14)
        np.testing.assert_allclose(tb["ah"] @ tb["c"] ** (k - 1), tb["ct"] ** k / k, atol=1e-14)
    np.testing.assert_allclose(tb["ah"][0], 0.0, atol=1e-15)
    np.testing.assert_allclose(tb["ah"][-1], tb["b"], atol=1e-14)
    np.testing.assert_allclose(tb["at"][:, -1], 0.0, atol=1e-14)
    b, bt = tb["b"], tb["bt"]
    np.testing.assert_allclose(b[:, None] * tb["at"] + bt[None, :] * tb["ah"].T, np.outer(b, bt), atol=1e-14)
    # Galerkin form: Lagrange basis at the Gauss points reproduces polynomials of degree <= s; extrapolation too
    ct = tb["ct"]
    for k in range(s + 1):
        np.testing.assert_allclose(tb["lag"] @ ct**k, tb["c"] ** k, atol=1e-13)
        np.testing.assert_allclose(tb["dlag"] @ ct**k, k * tb["c"] ** max(k - 1, 0) if k else 0.0, atol=1e-12)
        np.testing.assert_allclose(tb["extrap"] @ ct**k, (1.0 + ct) ** k, atol=1e-11)


def test_s1_constraint_pair_is_lobatto_iiia_iiib():
    """s = 1: the constraint nodes carry the 2-stage Lobatto IIIA-IIIB pair (RATTLE); internal stage = midpoint."""
    tb = tableaus.spark(1)
    np.testing.assert_allclose(tb["bt"], [0.5, 0.5])
    np.testing.assert_allclose(tb["at"], [[0.5, 0.0]])  # a row of Lobatto IIIB [[1/2, 0], [1/2, 0]]
    np.testing.assert_allclose(tb["ah"], [[0.0], [1.0]])  # Lobatto IIIA [[0, 0], [1/2, 1/2]] on the midpoint
    np.testing.assert_allclose(tb["a"], [[0.5]])


def _rattle(q0, qd0, h, steps, M, F, phi, jac):
    """Plain RATTLE (NumPy) for a constant force: the s = 1 method must reproduce it when f is constant."""
    Minv = np.linalg.inv(M)
    q, p = q0.copy(), M @ qd0
    out = [np.concatenate([q, Minv @ p])]
    for _ in range(steps):
        G0 = jac(q)
        base = q + h * Minv @ (p + 0.5 * h * F)
        lam = np.zeros(G0.shape[0])
        for _ in range(50):
            q1 = base - 0.5 * h * h * Minv @ G0.T @ lam
            r = phi(q1)
            dl = np.linalg.solve(-0.5 * h * h * jac(q1) @ Minv @ G0.T, -r)
            lam += dl
            if np.abs(dl).max() < 1e-14 * (1 + np.abs(lam).max()):
                break
        q1 = base - 0.5 * h * h * Minv @ G0.T @ lam
        a = p + h * F - 0.5 * h * G0.T @ lam
        G1 = jac(q1)
        mu = np.linalg.solve(0.5 * h * G1 @ Minv @ G1.T, G1 @ Minv @ a)
        p = a - 0.5 * h * G1.T @ mu
        q = q1
        out.append(np.concatenate([q, Minv @ p]))
    return np.array(out)


def test_s1_reproduces_rattle_on_the_natural_double_pendulum():
    """With gamma = J_1 = J_2 (m1 = 2.25 makes both bars' inertias 0.75) the seed's family is the constant
    natural-coordinate mass matrix, and s = 1 is RATTLE."""
    h, steps = 0.01, 100
    params = {**GEN_NAT, "m1": 2.25}
    res = run("natural_double_pendulum", h, h * steps, 1, 0.75, params=params)
    y0 = natural_double_pendulum.build({**{k: p.default for k, p in natural_double_pendulum.PARAMS.items()},
                                        **params}).y0
    rattle = _rattle(y0[:4], y0[4:], h, steps, ref.mass_matrix_natural_double_pendulum(2.25, 1.0),
                     ref.force_natural_double_pendulum(2.25, 1.0), ref.constraint_natural_double_pendulum,
                     ref.constraint_jacobian_natural_double_pendulum)
    assert np.abs(traj(res) - rattle).max() < 1e-10
    # and s = 2 is a different (higher order) method; gamma != J another discretisation
    res2 = run("natural_double_pendulum", h, h * steps, 2, 0.75, params=params)
    assert np.abs(traj(res2) - rattle).max() > 1e-6
    res3 = run("natural_double_pendulum", h, h * steps, 1, 0.0, params=params)
    assert np.abs(traj(res3) - rattle).max() > 1e-6


# ---------------------------------------------------------------- coords derivatives used by Newton

def _arm_data():
    p = {k: v.default for k, v in two_link_arm.PARAMS.items()}
    return two_link_arm.build(p).data


def _nat_data():
    p = {k: v.default for k, v in natural_double_pendulum.PARAMS.items()}
    return natural_double_pendulum.build(p).data


@pytest.mark.parametrize("make", [_arm_data, _nat_data], ids=["two_link_arm", "natural"])
def test_constraint_hessian_matches_finite_differences(make):
    data = make()
    rng = np.random.default_rng(3)
    n = data[0].shape[0]
    m = coords.n_rows(data)
    q = rng.normal(size=n)
    z = rng.normal(size=m)
    phi, G, H = np.empty(m), np.empty((m, n)), np.empty((n, n))
    coords.constraint_hessian(data, q, z, phi, G, H)
    phi_r, G_r, gq = np.empty(m), np.empty((m, n)), np.empty(m)
    coords.constraint_terms(data, q, np.zeros(n), phi_r, G_r, gq)
    np.testing.assert_allclose(phi, phi_r, atol=1e-14)
    np.testing.assert_allclose(G, G_r, atol=1e-14)
    eps = 1e-6
    Hfd = np.empty((n, n))
    for c in range(n):
        dq = np.zeros(n)
        dq[c] = eps
        Gp, Gm = np.empty((m, n)), np.empty((m, n))
        coords.constraint_terms(data, q + dq, np.zeros(n), np.empty(m), Gp, gq)
        coords.constraint_terms(data, q - dq, np.zeros(n), np.empty(m), Gm, gq)
        Hfd[:, c] = (Gp - Gm).T @ z / (2 * eps)
    np.testing.assert_allclose(H, Hfd, atol=1e-8)
    assert np.abs(H).max() > 0.1


def test_force_jacobian_matches_finite_differences():
    from solvers.models import planar_pendulum

    data = planar_pendulum.build({k: v.default for k, v in planar_pendulum.PARAMS.items()}).data
    q = np.array([0.7])
    JF = np.empty((1, 1))
    coords.force_jacobian(data, q, JF)
    fp, fm = np.empty(1), np.empty(1)
    coords.force(data, q + 1e-6, fp)
    coords.force(data, q - 1e-6, fm)
    assert JF[0, 0] == pytest.approx((fp[0] - fm[0]) / 2e-6, rel=1e-7)
    assert abs(JF[0, 0]) > 1.0


# ---------------------------------------------------------------- order 2s

ORDER_CASES = [
    ("two_link_arm", {}, 1, [0.02, 0.01, 0.005, 0.0025]),
    ("two_link_arm", GEN_ARM, 1, [0.01, 0.005, 0.0025, 0.00125]),
    ("two_link_arm", {}, 2, [0.04, 0.02, 0.01, 0.005]),
    ("two_link_arm", GEN_ARM, 2, [0.02, 0.01, 0.005, 0.0025]),
    ("two_link_arm", {}, 3, [0.04, 0.02, 0.01, 0.005]),
    ("two_link_arm", GEN_ARM, 3, [0.016, 0.008, 0.004, 0.002]),
    ("natural_double_pendulum", {}, 1, [0.02, 0.01, 0.005, 0.0025]),
    ("natural_double_pendulum", GEN_NAT, 1, [0.02, 0.01, 0.005, 0.0025]),
    ("natural_double_pendulum", {}, 2, [0.04, 0.02, 0.01, 0.005]),
    ("natural_double_pendulum", GEN_NAT, 2, [0.04, 0.02, 0.01, 0.005]),
    ("natural_double_pendulum", {}, 3, [0.08, 0.04, 0.02, 0.01]),
    ("natural_double_pendulum", GEN_NAT, 3, [0.08, 0.04, 0.02, 0.01]),
    ("planar_pendulum", {}, 1, [0.02, 0.01, 0.005, 0.0025]),
    ("planar_pendulum", GEN_PEND, 2, [0.04, 0.02, 0.01, 0.005]),
    ("planar_pendulum", {}, 3, [0.1, 0.05, 0.025, 0.0125]),
    ("planar_pendulum", GEN_PEND, 4, [0.2, 0.1, 0.05, 0.025]),
]


@pytest.mark.parametrize("gamma", [0.0, 0.5])
@pytest.mark.parametrize(("benchmark", "params", "s", "hs"), ORDER_CASES,
                         ids=[f"{c[0]}-{'general' if c[1] else 'seed'}-s{c[2]}" for c in ORDER_CASES])
def test_order_2s(benchmark, params, s, hs, gamma):
    errs = [state_error(benchmark, run(benchmark, h, 2.0, s, gamma, params), params) for h in hs]
    order = fitted_order(hs, errs)
    assert abs(order - 2 * s) <= 0.3, f"order {order:.2f}, errors {errs}"


# ---------------------------------------------------------------- invariants

@pytest.mark.parametrize("s", [1, 2, 3, 4])
@pytest.mark.parametrize(("benchmark", "params"), [("two_link_arm", GEN_ARM), ("natural_double_pendulum", {}),
                                                   ("natural_double_pendulum", GEN_NAT)])
def test_constraints_hold_at_every_step(benchmark, params, s):
    for gamma in (0.0, 0.5):
        res = run(benchmark, 0.01, 10.0, s, gamma, params)
        assert res.summary["max_constraint_position"] <= 1e-10
        assert res.summary["max_constraint_velocity"] <= 1e-10
        # the acceleration diagnostic (backward difference) is small against the accelerations (~g)
        assert res.constraint_acceleration[0] <= 1e-10
        assert np.isfinite(res.summary["max_constraint_acceleration"])


@pytest.mark.parametrize("s", [1, 2])
@pytest.mark.parametrize(("benchmark", "params", "h"), [("natural_double_pendulum", {}, 0.01),
                                                        ("two_link_arm", GEN_ARM, 0.005)])
def test_energy_bounded_without_drift_over_1e5_steps(benchmark, params, h, s):
    res = run(benchmark, h, 1e5 * h, s, params=params, max_samples=2001)
    assert res.steps == 100_000
    e = np.abs(res.energy_error)
    n = len(e) // 5
    assert e[-n:].max() <= 2.0 * e[:n].max()
    scale = 9.81 * 5.0  # g times a length times a mass, both O(1)
    assert res.summary["max_energy_error"] <= (0.05 if s == 1 else 1e-4) * scale
    assert res.summary["max_constraint_position"] <= 1e-10
    assert res.summary["max_constraint_velocity"] <= 1e-10


# ---------------------------------------------------------------- seed 003's gamma

@pytest.mark.parametrize(("params", "s", "h"), [
    (GEN_NAT, 1, 0.01),
    (GEN_NAT, 2, 0.02),
    ({}, 1, 0.02),
    ({}, 3, 0.04),
])
def test_gamma_changes_the_discretisation_not_the_physics(params, s, h):
    benchmark = "natural_double_pendulum"
    r0 = run(benchmark, h, 2.0, s, 0.0, params)
    r1 = run(benchmark, h, 2.0, s, 0.9, params)
    e0 = state_error(benchmark, r0, params)
    e1 = state_error(benchmark, r1, params)
    diff = np.abs(traj(r1) - traj(r0)).max()
    assert diff > 0.05 * e0  # a clearly different discrete trajectory (also for s = 1: the seed's family) ...
    assert diff <= 2.0 * max(e0, e1)  # ... within the discretisation error of either
    assert e1 <= 10.0 * e0 and e0 <= 10.0 * e1


def test_gamma_acts_only_on_bars_in_natural_coordinates():
    """The seed's gamma term lives on the bars' unit vectors: two_link_arm (absolute coordinates, coincidence
    constraints) is untouched by it."""
    r0 = run("two_link_arm", 0.01, 1.0, 2, 0.0, GEN_ARM)
    r1 = run("two_link_arm", 0.01, 1.0, 2, 5.0, GEN_ARM)
    assert np.array_equal(traj(r0), traj(r1))


def test_planar_pendulum_ignores_gamma():
    """No constraints: S = I, gamma drops out."""
    r0 = run("planar_pendulum", 0.05, 5.0, 2, 0.0)
    r1 = run("planar_pendulum", 0.05, 5.0, 2, 0.5)
    assert np.array_equal(traj(r0), traj(r1))


# ---------------------------------------------------------------- failures and options

def test_newton_failure_is_reported():
    res = solvers.simulate("natural_double_pendulum", "spark", h=0.2, t_end=2.0, params=GEN_NAT,
                           options={"s": 2, "newton_max_iter": 1})
    assert res.status == "failed"
    assert "Newton iteration of spark did not converge at t = " in res.message
    assert "residual" in res.message
    assert res.t[0] == 0.0


def test_options_validated():
    with pytest.raises(ValueError, match="'s'"):
        solvers.simulate("two_link_arm", "spark", h=0.01, t_end=0.1, options={"s": 5})
    with pytest.raises(ValueError, match="gamma"):
        solvers.simulate("two_link_arm", "spark", h=0.01, t_end=0.1, options={"gamma": "opt"})
    with pytest.raises(ValueError, match="does not apply"):
        solvers.simulate("pendulum_3d", "spark", h=0.01, t_end=0.1)


@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_seed_run_with_large_gamma_converges(s):
    """Seed 003's run (h = 0.04, 100 steps) with gamma_T = 0.916667 and a large gamma: Newton converges (the gamma
    part of the Jacobian is exact, not dropped) and the constraints hold. Measured iterations per step for s = 1..4:
    6.5, 4.6, 3.9, 3.3 at gamma_T (as for the constant mass matrix), 8.2, 5.8, 4.4, 3.8 at gamma = 20."""
    for gamma in (0.916667, 20.0):
        res = run("natural_double_pendulum", 0.04, 4.0, s, gamma)
        assert res.newton_iterations <= (7 if gamma < 1 else 9) * res.steps
        assert res.summary["max_constraint_position"] <= 1e-10
        assert res.summary["max_constraint_velocity"] <= 1e-10


@pytest.mark.parametrize(("benchmark", "params", "s", "hs"), [
    ("natural_double_pendulum", GEN_NAT, 2, [0.04, 0.02, 0.01, 0.005]),
    ("natural_double_pendulum", GEN_NAT, 1, [0.01, 0.005, 0.0025, 0.00125]),
])
def test_large_gamma_keeps_the_physics_and_the_order(benchmark, params, s, hs):
    """gamma = 20 (far beyond seed 003's values) still converges to the reference at order 2s: the gamma term's
    dL/dq and dL/dqdot are right (a wrong sign or a missing factor changes the physics and fails here); its errors
    are larger than gamma = 0's (gamma changes the error constant) but of the same order of magnitude."""
    e0 = [state_error(benchmark, run(benchmark, h, 2.0, s, 0.0, params), params) for h in hs]
    e1 = [state_error(benchmark, run(benchmark, h, 2.0, s, 20.0, params), params) for h in hs]
    assert abs(fitted_order(hs, e1) - 2 * s) <= 0.3, e1
    assert all(0.1 <= a / b <= 30.0 for a, b in zip(e1, e0, strict=True)), (e1, e0)
