"""The block-tridiagonal solver of the joint-space Schur complements (linalg.block3_factor / block3_solve, block storage
of joints.schur_storage_spd) against numpy's dense solve, and the velocity projection in block storage against the
dense saddle-point system."""

from __future__ import annotations

import numpy as np
import pytest

from solvers.linalg import block3_factor, block3_solve, inv3_into
from solvers.models import dispatch, joints, rigid
from solvers.registry import BENCHMARKS


def _block_tridiagonal(rng, nk: int, skew: float) -> np.ndarray:
    """A dense block-tridiagonal matrix of nk 3x3 blocks: symmetric positive definite plus ``skew`` times a random
    block-tridiagonal perturbation (a Newton matrix near B M^-1 B^T)."""
    n = 3 * nk
    mask = np.zeros((n, n), bool)
    for k in range(nk):
        for m in range(max(0, k - 1), min(nk, k + 2)):
            mask[3 * k : 3 * k + 3, 3 * m : 3 * m + 3] = True
    X = rng.standard_normal((n, n)) * mask
    A = X @ X.T * mask + n * np.eye(n)  # diagonally dominant enough, still block-tridiagonal
    return A + skew * rng.standard_normal((n, n)) * mask


def _to_blocks(A: np.ndarray) -> np.ndarray:
    nk = A.shape[0] // 3
    S = np.full((A.shape[0], 9), np.nan)
    for k in range(nk):
        for m, col in ((k - 1, 0), (k, 3), (k + 1, 6)):
            if 0 <= m < nk:
                S[3 * k : 3 * k + 3, col : col + 3] = A[3 * k : 3 * k + 3, 3 * m : 3 * m + 3]
    return S


@pytest.mark.parametrize("nk", [1, 2, 5, 64])
@pytest.mark.parametrize("skew", [0.0, 0.3])
def test_block_lu_solves_as_numpy_does(nk, skew):
    rng = np.random.default_rng(nk)
    A = _block_tridiagonal(rng, nk, skew)
    b = rng.standard_normal(3 * nk)
    S = _to_blocks(A)
    assert block3_factor(S, nk)
    x = b.copy()
    block3_solve(S, x, nk)
    expected = np.linalg.solve(A, b)
    np.testing.assert_allclose(x, expected, rtol=0, atol=1e-13 * np.abs(expected).max() * np.linalg.cond(A))


def test_block_lu_reports_a_singular_diagonal_block():
    """No pivoting: a zero leading block fails (the kernels then fall back to partial pivoting), also when the
    matrix itself is regular."""
    A = np.zeros((6, 6))
    A[:3, 3:] = np.eye(3)
    A[3:, :3] = np.eye(3)
    assert abs(np.linalg.det(A)) == 1.0
    assert not block3_factor(_to_blocks(A), 2)


@pytest.mark.parametrize("benchmark,params", [("spatial_double_pendulum", {}), ("spatial_chain", {"N": 8}),
                                              ("spatial_chain", {"N": 64})])
def test_velocity_projection_in_block_storage_is_the_saddle_point_solution(benchmark, params):
    """joints.project_momentum with the block storage of a chain (joints.schur_storage_spd) gives w with
    M w + B^T nu = p and B w = 0: the dense saddle-point solution, to round-off."""
    b = BENCHMARKS[benchmark]
    model = b.build(b.resolve(params))
    rd = dispatch.pack(model.machinery, model.data)[1][0]
    rng = np.random.default_rng(3)
    y = np.empty_like(model.y0)
    nv, nm = rigid.n_velocity(rd), rigid.n_multipliers(rd)
    rigid.advance_configuration(rd, model.y0, 0.5 * rng.standard_normal(nv), y)  # a general configuration
    p = rng.standard_normal(nv)
    ninc, incj, incs, band = joints.topology_of(rd)
    kl, width = joints.schur_storage_spd(nm, int(band))
    assert kl == -2 and width == 9  # a chain: block storage
    nb, nj = rd[0].shape[0], rd[3].shape[0]
    jinv = np.empty((nb, 3, 3))
    for i in range(nb):
        assert inv3_into(rd[1][i], jinv[i])
    G = np.zeros((nj, 2, 3, 3))
    joints.joint_blocks(rd[3], rd[4], rd[9], y, G)
    w, nu = np.empty(nv), np.empty(nm)
    assert joints.project_momentum(np.empty((nm, width)), kl, np.empty(nm, np.int64), nu, G, jinv, rd[0], rd[6],
                                   rd[10], ninc.copy(), incj.copy(), incs.copy(), np.empty((3, 3)), p, w)
    B = np.empty((nm, nv))
    rigid.constraint_jacobian(rd, y, B)
    M = np.zeros((nv, nv))
    for i in range(nb):
        o = rd[10][i]
        M[o : o + 3, o : o + 3] = rd[1][i]
        M[o + 3 : o + 6, o + 3 : o + 6] = rd[0][i] * np.eye(3)
    K = np.block([[M, B.T], [B, np.zeros((nm, nm))]])
    expected = np.linalg.solve(K, np.concatenate([p, np.zeros(nm)]))
    np.testing.assert_allclose(w, expected[:nv], rtol=0, atol=1e-11 * np.abs(expected[:nv]).max())
    np.testing.assert_allclose(nu, expected[nv:], rtol=0, atol=1e-11 * np.abs(expected[nv:]).max())
    assert np.abs(B @ w).max() < 1e-12 * np.abs(w).max()
