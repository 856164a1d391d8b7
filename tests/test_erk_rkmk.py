"""rkmk: Runge-Kutta-Munthe-Kaas on SO(3) with any explicit tableau, on the angular-velocity benchmark.

With RK4 it is the former rkmk4 bit for bit (checked against a transcription of that kernel's step, below); each
tableau reaches its order with the exact dexp^-1 and with the series truncated after ad^(p-2)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

import solvers
from solvers import lie
from solvers.methods import rkmk
from solvers.models import angular_velocity
from solvers.references import solutions as ref
from solvers.registry import METHODS
from tests.convergence import observed_order

B = "angular_velocity"


@njit(cache=False)
def _former_rkmk4(R0, h, n):
    """The former rkmk4 step (HLW IV.8.2, exact dexp^-1), as it was written: R after each of n steps."""
    R = R0.copy()
    out = np.empty((n, 3, 3))
    u = np.empty(3)
    E = np.empty((3, 3))
    w0 = angular_velocity.omega(0.0)
    for s in range(n):
        t = 0.0 + s * h
        wm = angular_velocity.omega(t + 0.5 * h)
        w1 = angular_velocity.omega(t + h)
        k1 = w0
        u[:] = 0.5 * h * k1
        k2 = lie.tangent_inv_t(u) @ wm
        u[:] = 0.5 * h * k2
        k3 = lie.tangent_inv_t(u) @ wm
        u[:] = h * k3
        k4 = lie.tangent_inv_t(u) @ w1
        for i in range(3):
            u[i] = h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        lie.expm_so3_into(u, E)
        R = E @ R
        out[s] = R
        w0 = w1
    return out


def _rotations(res):
    return res.state["R"][:, 0]


@pytest.mark.xdist_group("former_rkmk4")  # _former_rkmk4 compiles for 8 s: once, on one worker
@pytest.mark.parametrize("method", ["rkmk4", "rkmk"])
def test_rk4_case_is_the_former_rkmk4_bit_for_bit(method):
    h, n = 1e-3, 500
    res = solvers.simulate(B, method, h=h, t_end=n * h)
    former = _former_rkmk4(np.eye(3), h, n)  # the benchmark starts at theta(0) = 0
    # the saved state is the principal log of the kernel's own R
    assert np.array_equal(res.state["theta"][1:], np.array([lie.logm_so3(R) for R in former]))
    assert res.options == ({} if method == "rkmk4" else {"tableau": "rk4", "dexpinv": "exact"})


def test_rkmk4_id_and_rkmk_rk4_agree_bit_for_bit():
    a = solvers.simulate(B, "rkmk4", h=2e-3, t_end=2.0)
    b = solvers.simulate(B, "rkmk", h=2e-3, t_end=2.0, options={"tableau": "rk4"})
    assert np.array_equal(a.state["theta"], b.state["theta"])
    assert METHODS["rkmk4"].order == 4


def test_truncated_dexpinv_converges_to_the_exact_one():
    u, v = np.array([0.1, -0.2, 0.15]), np.array([0.3, -1.0, 2.0])
    exact = lie.tangent_inv_t(u) @ v
    errs = [np.abs(rkmk.dexpinv(u, v, q) - exact).max() for q in (0, 1, 2, 4, 6, 8)]
    assert all(a > b for a, b in itertools.pairwise(errs)) and errs[-1] < 1e-13
    assert np.array_equal(rkmk.dexpinv(u, v, -1), exact)


@pytest.mark.parametrize("dexpinv", ["exact", "truncated"])
@pytest.mark.parametrize(("tab", "p"), [("heun", 2), ("kutta3", 3), ("rk4", 4), ("rk38", 4), ("butcher5", 5)])
def test_observed_order(tab, p, dexpinv):
    assert METHODS["rkmk"].order_of({"tableau": tab}) == p

    def error(h):
        res = solvers.simulate(B, "rkmk", h=h, t_end=2.0, options={"tableau": tab, "dexpinv": dexpinv})
        assert res.status == "ok", res.message
        _, R, _ = ref.angular_velocity_exact(res.t)
        return np.abs(_rotations(res) - R).max()

    order, errs = observed_order(error, [4e-3, 2e-3, 1e-3, 5e-4])
    assert abs(order - p) <= 0.3, (tab, dexpinv, order, errs)
    assert rkmk.truncation({"tableau": tab, "dexpinv": dexpinv}) == (-1 if dexpinv == "exact" else max(0, p - 2))


def test_malformed_tableau_refused():
    with pytest.raises(ValueError, match="option 'tableau': tableau A: is not explicit"):
        solvers.simulate(B, "rkmk", h=1e-3, t_end=0.01, options={"tableau": {"A": [[0, 1], [0, 0]], "b": [0.5, 0.5]}})
