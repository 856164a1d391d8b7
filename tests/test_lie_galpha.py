"""Lie group generalized-alpha (``lie_galpha``): coefficients, order 2 in every component against the independent
references of solvers/references/solutions.py, multipliers with and without perturbed starting values, invariants of the
seed-000 run, numerical dissipation, Newton failure, chunking and the linear-algebra fallback.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

import solvers
from solvers.methods import lie_galpha as lg
from solvers.methods import lie_galpha_system as lgs
from solvers.models import joints as jt
from solvers.models import rigid, rigid_dae
from solvers.references import solutions as ref
from solvers.registry import BENCHMARKS
from tests.convergence import fitted_order, observed_order

GENERAL_R1 = ref.rot_z(0.3) @ ref.rot_x(0.7) @ ref.rot_y(-0.4)
GENERAL_R2 = ref.rot_y(1.1) @ ref.rot_z(-0.5) @ ref.rot_x(0.2)
SDP_GENERAL = {"R1": GENERAL_R1, "R2": GENERAL_R2, "Omega1": [0.5, 3.0, -0.4], "Omega2": [-0.3, -2.0, 0.8]}
P3D_GENERAL = {"J": np.diag([1.0, 2.0, 3.0]), "rho": [0.1, -0.2, 0.7], "Omega0": [1.0, -2.0, 3.0]}


# ---------------------------------------------------------------------------------------------------------------
# coefficients
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rho", "expected"),
    [
        (0.9, (Fraction(8, 19), Fraction(9, 19), Fraction(21, 38), Fraction(100, 361))),
        (1.0, (Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), Fraction(1, 4))),
        (0.0, (Fraction(-1), Fraction(0), Fraction(3, 2), Fraction(1))),
    ],
)
def test_coefficients(rho, expected):
    got = lg.coefficients(rho)
    for g, e in zip(got, expected, strict=True):
        assert g == pytest.approx(float(e), abs=1e-15)
    opts = lg.pack(lg.METHOD.resolve({"rho_inf": rho}))
    np.testing.assert_allclose(opts[:4], [float(e) for e in expected], atol=1e-15)


def test_options_are_validated():
    assert lg.METHOD.resolve(None)["rho_inf"] == 0.9
    assert lg.METHOD.resolve(None)["variant"] == "index3"
    with pytest.raises(ValueError, match="rho_inf"):
        solvers.simulate("pendulum_3d", "lie_galpha", h=0.01, t_end=0.02, options={"rho_inf": 1.5})
    with pytest.raises(ValueError, match="variant"):
        solvers.simulate("pendulum_3d", "lie_galpha", h=0.01, t_end=0.02, options={"variant": "index1"})
    assert "lie_galpha" in solvers.methods("spatial_double_pendulum")
    assert "lie_galpha" in solvers.methods("pendulum_3d")
    assert "lie_galpha" not in solvers.methods("planar_pendulum")


# ---------------------------------------------------------------------------------------------------------------
# order 2 in R, x, Omega, v (pendulum_3d: R, Omega)
# ---------------------------------------------------------------------------------------------------------------
PARAMS = {"seed": {}, "sdp_general": SDP_GENERAL, "p3d_general": P3D_GENERAL}


@cache
def _reference(benchmark, label, h, t_end):
    """Reference states at t = k h (cached: shared by both variants)."""
    params = PARAMS[label]
    t = h * np.arange(round(t_end / h) + 1)
    if benchmark == "spatial_double_pendulum":
        return t, ref.spatial_double_pendulum_reference(t, **params)
    R, W = ref.pendulum_3d_reference(t, **params)
    return t, {"R": R[:, None], "Omega": W[:, None]}  # the heavy top's state: no translation


def _state_error(benchmark, label, variant, h, t_end, params=None):
    params = PARAMS[label] if params is None else params
    res = solvers.simulate(benchmark, "lie_galpha", h=h, t_end=t_end, params=params, options={"variant": variant})
    assert res.status == "ok", res.message
    if label is None:
        R, W = ref.pendulum_3d_reference(res.t, **params)
        return {"R": float(np.abs(res.state["R"][:, 0] - R).max()),
                "Omega": float(np.abs(res.state["Omega"][:, 0] - W).max())}
    t, r = _reference(benchmark, label, h, t_end)
    np.testing.assert_allclose(res.t, t, atol=1e-12)
    return {k: float(np.abs(res.state[k] - r[k]).max()) for k in r}


ORDER_CASES = [
    ("spatial_double_pendulum", "seed", [8e-3, 4e-3, 2e-3, 1e-3], 1.0),
    ("spatial_double_pendulum", "sdp_general", [8e-3, 4e-3, 2e-3, 1e-3], 1.0),
    ("pendulum_3d", "seed", [2e-3, 1e-3, 5e-4, 2.5e-4], 1.0),
    ("pendulum_3d", "p3d_general", [4e-3, 2e-3, 1e-3, 5e-4], 1.0),
]


@pytest.mark.parametrize("variant", lg.VARIANTS)
@pytest.mark.parametrize(("benchmark", "label", "hs", "t_end"), ORDER_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in ORDER_CASES])
def test_order_two_in_every_state_component(benchmark, label, hs, t_end, variant):
    errors = [_state_error(benchmark, label, variant, h, t_end) for h in hs]
    for k in errors[0]:
        errs = [e[k] for e in errors]
        order = fitted_order(hs, errs)
        assert abs(order - 2.0) <= 0.3, f"{benchmark} {label} {variant} {k}: order {order:.2f}, errors {errs}"
    assert max(errors[-1].values()) < 5e-3


# ---------------------------------------------------------------------------------------------------------------
# multipliers: order 2 with perturbed starting values, order 1 without
# ---------------------------------------------------------------------------------------------------------------
def _model(benchmark, params):
    b = BENCHMARKS[benchmark]
    return b.build(b.resolve(params))


def _exact_multipliers(model, benchmark, params, t):
    """lambda(t_n) at the reference states, from the index-1 saddle-point system (the definition of lambda)."""
    assert benchmark == "spatial_double_pendulum"  # the only benchmark with joints (pendulum_3d has none)
    r = ref.spatial_double_pendulum_reference(t, **params)
    R, W = r["R"], r["Omega"]
    nv = rigid.n_velocity(model.data)
    lam = np.empty((t.size, rigid.n_multipliers(model.data)))
    acc = np.empty(nv)
    for k in range(t.size):
        y = rigid.place_bodies(model.data, list(R[k]), list(W[k]))
        assert rigid_dae.initial_acceleration(model.data, y, acc, lam[k])
    return lam


def _multiplier_order(benchmark, params, options, hs, t_end=0.2):
    model = _model(benchmark, params)
    errs = []
    for h in hs:
        t, _, lam = lg.multipliers(model, options, h, round(t_end / h))
        errs.append(float(np.abs(lam - _exact_multipliers(model, benchmark, params, t)).max()))
    return fitted_order(hs, errs), errs


MULTIPLIER_CASES = [
    ("spatial_double_pendulum", SDP_GENERAL, "index3", [4e-3, 2e-3, 1e-3, 5e-4]),
]


@pytest.mark.parametrize(("benchmark", "params", "variant", "hs"), MULTIPLIER_CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in MULTIPLIER_CASES])
def test_multipliers_second_order_only_with_perturbed_start(benchmark, params, variant, hs):
    order, errs = _multiplier_order(benchmark, params, {"variant": variant}, hs)
    assert abs(order - 2.0) <= 0.3, f"perturbed start: order {order:.2f}, errors {errs}"
    order0, errs0 = _multiplier_order(benchmark, params, {"variant": variant, "perturbed_start": False}, hs)
    assert abs(order0 - 1.0) <= 0.3, f"a_0 = vdot_0: order {order0:.2f}, errors {errs0}"
    assert errs0[-1] > 3.0 * errs[-1]


def test_index3_needs_the_velocity_part_of_the_perturbation():
    """The O(h^2) normal perturbation of v_0 is what removes the O(h) transient of the index-3 multipliers: with it
    the general double pendulum's lambda error at h = 1e-3 is far below the unperturbed one (see the module doc)."""
    model = _model("spatial_double_pendulum", SDP_GENERAL)
    h = 1e-3
    t, states, lam = lg.multipliers(model, {}, h, 40)
    _, _, lam0 = lg.multipliers(model, {"perturbed_start": False}, h, 40)
    exact = _exact_multipliers(model, "spatial_double_pendulum", SDP_GENERAL, t)
    e, e0 = np.abs(lam - exact).max(), np.abs(lam0 - exact).max()
    assert e < 0.05 * e0, (e, e0)
    # the recorded t = 0 state is the given one; the perturbation is internal
    np.testing.assert_array_equal(states[0], model.y0)
    res = solvers.simulate("spatial_double_pendulum", "lie_galpha", h=h, t_end=0.01, params=SDP_GENERAL)
    np.testing.assert_array_equal(res.state["Omega"][0], [SDP_GENERAL["Omega1"], SDP_GENERAL["Omega2"]])
    assert res.constraint_velocity[0] < 1e-12 and res.constraint_acceleration[0] < 1e-10


# ---------------------------------------------------------------------------------------------------------------
# invariants and energy of the seed run (seed 000 section 3, Figs. 5-7)
# ---------------------------------------------------------------------------------------------------------------
@cache
def _seed_run(method, variant=None):
    options = {"variant": variant} if variant else None
    res = solvers.simulate("spatial_double_pendulum", method, h=1e-3, t_end=50.0, options=options, max_samples=5001)
    assert res.status == "ok", res.message
    return res


def test_seed_run_index3_invariants():
    res = _seed_run("lie_galpha", "index3")
    s = res.summary
    assert s["max_constraint_position"] <= 1e-10  # max over every step
    assert s["max_orthogonality_error"] <= 1e-12 and res.orthogonality_error[-1] <= 1e-12
    # the index-3 form does not enforce the velocity constraint: ~1e-4 at h = 1e-3 like the seed's Fig. 7
    assert 1e-5 < s["max_constraint_velocity"] < 1e-3
    assert s["max_constraint_acceleration"] < 0.1
    assert s["newton_iterations"] <= 3 * s["steps"]


def test_seed_run_stab2_invariants():
    res = _seed_run("lie_galpha", "stab2")
    s = res.summary
    assert s["max_constraint_position"] <= 1e-10
    assert s["max_constraint_velocity"] <= 1e-10
    assert s["max_orthogonality_error"] <= 1e-12 and res.orthogonality_error[-1] <= 1e-12


def test_seed_claim_energy_fluctuates_far_more_than_rk4():
    """Seed 000 Fig. 5: Lie-alpha's energy fluctuates far more than the other methods'. E0 = 0 exactly; measured
    max |E - E0| over 50 s: lie_galpha ~0.27 J, rk4 ~0.01 J (RATTLie ~0.08 J)."""
    lie = _seed_run("lie_galpha", "index3").summary["max_energy_error"]
    rk4 = _seed_run("rk4").summary["max_energy_error"]
    assert lie > 10.0 * rk4, (lie, rk4)
    assert 0.05 < lie < 1.0


def test_numerical_dissipation_for_rho_below_one():
    """General double pendulum (spins excite the fast modes), stabilised index-2 form, h = 5 ms, 20 s: rho_inf = 1
    keeps the energy (mean loss over the last quarter ~0.09 J of |E0| = 463 J), rho_inf = 0.6 dissipates ~0.5 J and
    rho_inf = 0 ~20 J."""
    loss = {}
    for rho in (1.0, 0.6, 0.0):
        res = solvers.simulate("spatial_double_pendulum", "lie_galpha", h=5e-3, t_end=20.0, params=SDP_GENERAL,
                               options={"rho_inf": rho, "variant": "stab2"})
        assert res.status == "ok", res.message
        e = res.energy_error
        loss[rho] = -e[3 * e.size // 4 :].mean()
    assert abs(loss[1.0]) < 0.2, loss
    assert loss[0.6] > 0.3 and loss[0.6] > 4.0 * abs(loss[1.0]), loss
    assert loss[0.0] > 10.0 * loss[0.6], loss


def test_pendulum_3d_variants_coincide():
    """The heavy top has no constraints (a pinned body): index3 and stab2 are the same scheme, bit for bit; 100 s
    at the seed's steps are in tests/test_pendulum_3d.py."""
    runs = [solvers.simulate("pendulum_3d", "lie_galpha", h=0.05, t_end=20.0, options={"variant": v},
                             max_samples=100) for v in lg.VARIANTS]
    assert runs[0].status == runs[1].status == "ok"
    np.testing.assert_array_equal(runs[0].state["R"], runs[1].state["R"])
    np.testing.assert_array_equal(runs[0].state["Omega"], runs[1].state["Omega"])


# ---------------------------------------------------------------------------------------------------------------
# failures, chunking, linear algebra
# ---------------------------------------------------------------------------------------------------------------
def test_newton_failure_is_reported():
    res = solvers.simulate("spatial_double_pendulum", "lie_galpha", h=0.05, t_end=1.0,
                           options={"newton_max_iter": 1})
    assert res.status == "failed"
    assert "t = 0 s" in res.message and "residual" in res.message and "1 iterations" in res.message, res.message
    assert res.steps == 0 and res.t.size == 1


def test_chunked_runs_match_single_steps():
    """Everything persistent lives in `work`: the driver's chunks and one-step calls give identical states."""
    model = _model("spatial_double_pendulum", SDP_GENERAL)
    h, n = 2e-3, 300
    for variant in lg.VARIANTS:
        _, states, _ = lg.multipliers(model, {"variant": variant}, h, n)
        res = solvers.simulate("spatial_double_pendulum", "lie_galpha", h=h, t_end=n * h, params=SDP_GENERAL,
                               options={"variant": variant})
        np.testing.assert_array_equal(rigid.unpack(model.data, states)["R"], res.state["R"])
        np.testing.assert_array_equal(rigid.unpack(model.data, states)["v"], res.state["v"])


def _dense_iteration_matrix(rd, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb):
    """The iteration matrix of the module docstring with NumPy from the blocks: [[A, B^T], [B T, 0]] (index3) or
    [[A, B^T, h K T B_n^T], [B T, 0, B T B_n^T], [gb B + h Z T, 0, h Z T B_n^T]] (stab2)."""
    jb, pinned, v_off = rd[3], rd[6], rd[10]
    nb, nj = pinned.size, jb.shape[0]
    nv, nm = int(v_off[-1]), 3 * nj

    def jacobian(blocks, translational):
        M = np.zeros((nm, nv))
        for k in range(nj):
            for s in range(2):
                i = jb[k, s]
                if i >= 0:
                    o = v_off[i]
                    M[3 * k : 3 * k + 3, o : o + 3] = blocks[k, s]
                    if translational:
                        M[3 * k : 3 * k + 3, o + 3 : o + 6] = (1.0 if s == 0 else -1.0) * np.eye(3)
        return M

    A, T, KT = np.zeros((nv, nv)), np.eye(nv), np.zeros((nv, nv))
    for i in range(nb):
        o = v_off[i]
        A[o : o + 3, o : o + 3], T[o : o + 3, o : o + 3], KT[o : o + 3, o : o + 3] = Arot[i], Ts[i], KTs[i]
        if not pinned[i]:
            A[o + 3 : o + 6, o + 3 : o + 6] = atr[i] * np.eye(3)
    B, Bn, Z = jacobian(G1, True), jacobian(Gn, True), jacobian(Zb, False)
    if not stab2:
        return np.block([[A, B.T], [B @ T, np.zeros((nm, nm))]])
    zero = np.zeros((nm, nm))
    return np.block([[A, B.T, h * KT @ Bn.T],
                     [B @ T, zero, B @ T @ Bn.T],
                     [gb * B + h * Z @ T, zero, h * Z @ T @ Bn.T]])


SCHUR_CASES = {  # (bodies, joints): the pinned body 1 has no joint
    # a chain of 7 free bodies from the origin with a closing joint between bodies 3 and 5 (body 3 carries joints 2, 3
    # and 7: half bandwidth 17 of 24 rows for index3, 35 of 48 for stab2: band storage)
    "tree": (8, [(0, [0.1, -0.4, 0.2], -1, [0.3, 0.5, -0.1]), (2, [0.1, -0.4, 0.2], 0, [0.3, 0.5, -0.1])]
             + [(i + 1, [0.1, -0.4, 0.2], i, [0.3, 0.5, -0.1]) for i in range(2, 7)]
             + [(5, [0.3, 0.5, -0.1], 3, [0.1, -0.4, 0.2])]),
    # the double pendulum's topology: the band covers the matrix (dense storage)
    "pendulum": (3, [(0, [0.1, -0.4, 0.2], -1, [0.3, 0.5, -0.1]), (2, [0.1, -0.4, 0.2], 0, [0.3, 0.5, -0.1])]),
}


@pytest.mark.xdist_group("schur_solve")  # _schur_solve called alone compiles for 16-18 s: once, on one worker
@pytest.mark.parametrize("case", SCHUR_CASES)
@pytest.mark.parametrize("variant", lg.VARIANTS)
def test_schur_and_dense_paths_solve_the_same_system(variant, case):
    """The block Schur solve (O(N) on a chain) and the dense fallback against NumPy on the dense iteration matrix,
    with random blocks, a pinned body, band storage (a closed chain) and dense storage (the double pendulum's)."""
    rng = np.random.default_rng(7)
    nb, joints = SCHUR_CASES[case]
    nj = len(joints)
    rd = rigid.make_data(np.arange(1.0, nb + 1.0), [np.eye(3)] * nb, [0.0, 0.0, 9.81], joints,
                         pinned=[None, ([0.0, 0.0, 0.0], [0.0, 0.0, 0.5])] + [None] * (nb - 2))
    stab2 = variant == "stab2"
    nv, nm = int(rd[10][-1]), 3 * nj
    m = 2 * nm if stab2 else nm
    ninc, incj, incs, band = jt.topology_of(rd)
    kl, width = jt.schur_storage(m, 2 * int(band) + 1 if stab2 else int(band))
    assert (kl < 0) == (case == "pendulum")
    h, gb = 1e-2, 1.9
    Arot = rng.normal(size=(nb, 3, 3)) + 4.0 * np.eye(3)
    atr = rng.uniform(1.0, 5.0, nb)
    Ts = np.eye(3) + 0.1 * rng.normal(size=(nb, 3, 3))
    KTs = rng.normal(size=(nb, 3, 3))
    G1, Gn, Zb = (rng.normal(size=(nj, 2, 3, 3)) for _ in range(3))
    r1, r2, r3 = rng.normal(size=nv), rng.normal(size=nm), rng.normal(size=nm) if stab2 else np.zeros(nm)
    r = np.concatenate((r1, r2, r3 if stab2 else []))

    def schur(blocks):
        dx = np.zeros(nv + m)
        ok = lgs._schur_solve(rd, kl, stab2, h, gb, blocks, atr, Ts, KTs, G1, Gn, Zb, r1, r2, r3,
                             np.empty((nb, 3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((2 * nj, 6, 3)),
                             np.empty((2 * nj, 3, 3)), np.empty((2 * nj, 3, 6)), np.empty((m, width)),
                             np.empty(m, dtype=np.int64), np.empty(m), np.empty(nv), np.empty(nm), np.zeros(nm), dx)
        return ok, dx

    def dense(blocks):
        dx = np.zeros(nv + m)
        assert lgs._dense_solve(np.empty((nv + m, nv + m)), stab2, h, gb, blocks, atr, Ts, KTs, G1, Gn, Zb, r1, r2,
                               r3, rd[6], rd[10], ninc, incj, incs, dx)
        return dx

    expected = np.linalg.solve(_dense_iteration_matrix(rd, stab2, h, gb, Arot, atr, Ts, KTs, G1, Gn, Zb), -r)
    ok, dx = schur(Arot)
    assert ok
    np.testing.assert_allclose(dx, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dense(Arot), expected, rtol=1e-9, atol=1e-12)
    singular = Arot.copy()
    singular[2, 2, :] = singular[2, 0, :] + singular[2, 1, :]  # rank 2: the Schur path declines, the dense one solves
    assert not lgs._inv3_conditioned(singular[2], np.empty((3, 3)))
    assert not schur(singular)[0]
    expected = np.linalg.solve(_dense_iteration_matrix(rd, stab2, h, gb, singular, atr, Ts, KTs, G1, Gn, Zb), -r)
    np.testing.assert_allclose(dense(singular), expected, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# the chain of N rods (B7): cost linear in N, no residual floor
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", lg.VARIANTS)
def test_chain_of_64_rods_runs(variant):
    """N = 64 failed at step 3 before the constraint residual was taken by its increment (module docstring, "Newton's
    residual floor": the mu updates sat at ~3e-8 on the residual's round-off eps |x| / h); now two or three
    iterations per step, none stalled."""
    res = solvers.simulate("spatial_chain", "lie_galpha", h=1e-3, t_end=0.05, params={"N": 64},
                           options={"variant": variant})
    assert res.status == "ok", res.message
    s = res.summary
    assert s["stalled_steps"] == 0 and s["newton_iterations"] <= 3 * s["steps"], s
    assert s["max_constraint_position"] < 1e-12


@pytest.mark.parametrize("variant", lg.VARIANTS)
def test_chain_of_16_rods_agrees_with_rattlie_to_second_order(variant):
    """Both second-order methods on the 16-rod chain over 0.5 s: their difference shrinks by 4.00 per halved step
    (measured 4.00 in R, x, Omega, v for both variants; 1.8e-4 in Omega at h = 1e-3)."""
    diffs = []
    for h in (2e-3, 1e-3):
        a = solvers.simulate("spatial_chain", "lie_galpha", h=h, t_end=0.5, params={"N": 16},
                             options={"variant": variant})
        b = solvers.simulate("spatial_chain", "rattlie", h=h, t_end=0.5, params={"N": 16})
        assert a.status == b.status == "ok", (a.message, b.message)
        diffs.append({k: float(np.abs(a.state[k] - b.state[k]).max()) for k in ("R", "x", "Omega", "v")})
    for k in diffs[0]:
        assert 3.7 < diffs[0][k] / diffs[1][k] < 4.3, (k, diffs)
    assert max(diffs[1].values()) < 1e-3, diffs


def test_order_two_for_a_pivot_inertia_of_a_nearly_flat_body():
    """Inertia about the pivot diag(4.9, 5, 1) with |rho| = 0.7, m = 10: the inertia about the centre of mass would be
    singular (diag(0, 0.1, 1)); the heavy top about the pivot needs only J and keeps order 2."""
    params = {"J": np.diag([4.9, 5.0, 1.0]), "Omega0": [1.0, -2.0, 3.0]}
    order, errs = observed_order(
        lambda h: max(_state_error("pendulum_3d", None, "index3", h, 0.5, params).values()), [2e-3, 1e-3, 5e-4]
    )
    assert abs(order - 2.0) <= 0.3, (order, errs)
