"""The allocation-free coords model functions: the variants used by the Hermite kernel give the same values as
the general ones, and dG/dt qdot matches a finite difference of G along qdot."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import kernels
from solvers.models import coords, natural_double_pendulum, planar_pendulum, two_link_arm


def _data(module):
    return module.build({k: v.default for k, v in module.PARAMS.items()}).data


MODELS = [two_link_arm, natural_double_pendulum, planar_pendulum]


@pytest.mark.parametrize("module", MODELS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_jacobian_and_diagnostics_terms_agree_with_the_general_functions(module):
    data = _data(module)
    rng = np.random.default_rng(7)
    n = data[0].shape[0]
    m = coords.n_rows(data)
    mm = max(m, 1)
    for _ in range(5):
        y = rng.normal(size=2 * n)
        acc = rng.normal(size=2 * n)
        phi, G, gq = np.empty(mm), np.empty((mm, n)), np.empty(mm)
        assert coords.constraint_terms(data, y[:n], y[n:], phi, G, gq) == m
        phi_j, G_j = np.empty(mm), np.empty((mm, n))
        assert coords.constraint_jacobian(data, y[:n], phi_j, G_j) == m
        phi_h, G_h, H = np.empty(mm), np.empty((mm, n)), np.empty((n, n))
        coords.constraint_hessian(data, y[:n], np.zeros(mm), phi_h, G_h, H)
        np.testing.assert_array_equal(phi_j[:m], phi[:m])
        np.testing.assert_array_equal(G_j[:m], G[:m])
        np.testing.assert_array_equal(phi_h[:m], phi[:m])
        np.testing.assert_array_equal(G_h[:m], G[:m])
        np.testing.assert_array_equal(H, 0.0)
        d = np.empty(kernels.N_DIAG)
        d_t = np.empty(kernels.N_DIAG)
        coords.diagnostics(data, y, acc, d)
        phi_t, G_t, gq_t = np.empty(mm), np.empty((mm, n)), np.empty(mm)
        assert coords.diagnostics_terms(data, y, acc, d_t, phi_t, G_t, gq_t) == m
        np.testing.assert_array_equal(d_t, d)
        np.testing.assert_array_equal(G_t[:m], G[:m])
        np.testing.assert_array_equal(gq_t[:m], gq[:m])
        if m:
            # the constraint fields against plain NumPy from the same terms
            assert d[1] == pytest.approx(np.linalg.norm(phi[:m]), rel=1e-14)
            assert d[2] == pytest.approx(np.linalg.norm(G[:m] @ y[n:]), rel=1e-13)
            assert d[3] == pytest.approx(np.linalg.norm(G[:m] @ acc[n:] + gq[:m]), rel=1e-13)


@pytest.mark.parametrize("module", MODELS[:2], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_gdot_qdot_matches_finite_difference(module):
    data = _data(module)
    rng = np.random.default_rng(11)
    n = data[0].shape[0]
    m = coords.n_rows(data)
    q, qd = rng.normal(size=n), rng.normal(size=n)
    phi, G, gq = np.empty(m), np.empty((m, n)), np.empty(m)
    coords.constraint_terms(data, q, qd, phi, G, gq)
    eps = 1e-6
    Gp, Gm = np.empty((m, n)), np.empty((m, n))
    coords.constraint_jacobian(data, q + eps * qd, np.empty(m), Gp)
    coords.constraint_jacobian(data, q - eps * qd, np.empty(m), Gm)
    np.testing.assert_allclose(gq, (Gp - Gm) @ qd / (2 * eps), rtol=1e-7, atol=1e-7)
