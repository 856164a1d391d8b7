"""Quadrature nodes and the coefficients of the Gauss-Lobatto SPARK (s,s) methods, as data (checked by tests).

- Gauss: s nodes c_i in (0, 1), weights b_i (exact for polynomials of degree 2s - 1), collocation matrix a_ij.
- Lobatto: s + 1 nodes ct_0 = 0 < ... < ct_s = 1, weights bt_j (exact for degree 2s - 1).
- SPARK coefficients (docs/algorithms.md section 4, after Jay, SIAM J. Numer. Anal. 45 (2007) 1814-1842):
  ah_jk with sum_k ah_jk c_k^(m-1) = ct_j^m / m (m = 1..s), so the Lobatto-node positions are
  Qt_j = q0 + h sum_k ah_jk V_k, and at_ij = bt_j (1 - ah_ji / b_i) (the symplecticity condition
  b_i at_ij + bt_j ah_ji = b_i bt_j).
- The Galerkin form the kernel uses (the same method, docs/algorithms.md section 4): the step's polynomial q_d(tau) of
  degree s through control points q^0..q^s at the Lobatto nodes; ``lag[i, nu]`` = l_nu(c_i) and
  ``dlag[i, nu]`` = l_nu'(c_i) are its Lagrange basis and derivative at the Gauss nodes, ``extrap[nu, mu]`` =
  l_mu(1 + ct_nu) extrapolates the previous step's polynomial to the new control points (Newton predictor).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.polynomial import legendre as npleg

MAX_S = 4


def gauss(s: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [0, 1]."""
    x, w = npleg.leggauss(s)
    return (x + 1.0) / 2.0, w / 2.0


def lobatto(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Lobatto nodes (0 and 1 included) and weights on [0, 1] for n_nodes >= 2."""
    inner = npleg.Legendre.basis(n_nodes - 1).deriv().roots() if n_nodes > 2 else np.zeros(0)
    x = np.concatenate([[-1.0], np.sort(np.real(inner)), [1.0]])
    p = npleg.Legendre.basis(n_nodes - 1)(x)
    w = 2.0 / (n_nodes * (n_nodes - 1) * p * p)
    return (x + 1.0) / 2.0, w / 2.0


def _lagrange(nodes: np.ndarray, x: float, j: int) -> tuple[float, float]:
    """Value and derivative at x of the j-th Lagrange basis polynomial on the nodes."""
    others = [nodes[k] for k in range(len(nodes)) if k != j]
    den = np.prod([nodes[j] - o for o in others])
    val = np.prod([x - o for o in others]) / den
    der = 0.0
    for a in range(len(others)):
        der += np.prod([x - others[k] for k in range(len(others)) if k != a]) / den
    return float(val), float(der)


@cache
def spark(s: int) -> dict[str, np.ndarray]:
    """All coefficients of the (s,s) method (read-only arrays)."""
    if not 1 <= s <= MAX_S:
        raise ValueError(f"s must be in 1..{MAX_S}, got {s}")
    c, b = gauss(s)
    ct, bt = lobatto(s + 1)
    V = np.array([[ck ** (m - 1) for ck in c] for m in range(1, s + 1)])  # V[m-1, k] = c_k^(m-1)
    # a_ij: sum_j a_ij c_j^(m-1) = c_i^m / m; ah_jk: the same at the Lobatto nodes
    a = np.linalg.solve(V, np.array([[ci**m / m for ci in c] for m in range(1, s + 1)])).T
    ah = np.linalg.solve(V, np.array([[cj**m / m for cj in ct] for m in range(1, s + 1)])).T
    at = bt[None, :] * (1.0 - ah.T / b[:, None])
    lag = np.empty((s, s + 1))
    dlag = np.empty((s, s + 1))
    for i in range(s):
        for j in range(s + 1):
            lag[i, j], dlag[i, j] = _lagrange(ct, c[i], j)
    extrap = np.array([[_lagrange(ct, 1.0 + ct[nu], mu)[0] for mu in range(s + 1)] for nu in range(s + 1)])
    out = {"c": c, "b": b, "a": a, "ct": ct, "bt": bt, "ah": ah, "at": at, "lag": lag, "dlag": dlag,
           "extrap": extrap}
    for arr in out.values():
        arr.setflags(write=False)
    return out
