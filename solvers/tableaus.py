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


# ---------------------------------------------------------------------------------------------------------------
# Explicit Runge-Kutta tableaus (the library of the ``erk`` and ``rkmk`` methods; checked by solvers.tableau.analyse
# in tests/test_tableau.py). Entries are exact fractions as text where the method has them, parsed (never
# evaluated) by solvers.tableau.parse_number; A lists the strictly lower rows, row i holding a_i0 .. a_i,i-1.
# ``order`` is the classical order from the cited source; ``ref`` keys docs/references.md.
_S5 = 5.0**0.5  # Ralston's fourth-order method has irrational coefficients (Ralston 1962, in closed form)
_DOP853_A = (
    (),
    (0.05260015195876773,),
    (0.0197250569845379, 0.0591751709536137),
    (0.02958758547680685, 0.0, 0.08876275643042054),
    (0.2413651341592667, 0.0, -0.8845494793282861, 0.924834003261792),
    (0.037037037037037035, 0.0, 0.0, 0.17082860872947386, 0.12546768756682242),
    (0.037109375, 0.0, 0.0, 0.17025221101954405, 0.06021653898045596, -0.017578125),
    (0.03709200011850479, 0.0, 0.0, 0.17038392571223998, 0.10726203044637328, -0.015319437748624402,
     0.008273789163814023),
    (0.6241109587160757, 0.0, 0.0, -3.3608926294469414, -0.868219346841726, 27.59209969944671, 20.154067550477894,
     -43.48988418106996),
    (0.47766253643826434, 0.0, 0.0, -2.4881146199716677, -0.590290826836843, 21.230051448181193,
     15.279233632882423, -33.28821096898486, -0.020331201708508627),
    (-0.9371424300859873, 0.0, 0.0, 5.186372428844064, 1.0914373489967295, -8.149787010746927, -18.52006565999696,
     22.739487099350505, 2.4936055526796523, -3.0467644718982196),
    (2.273310147516538, 0.0, 0.0, -10.53449546673725, -2.0008720582248625, -17.9589318631188, 27.94888452941996,
     -2.8589982771350235, -8.87285693353063, 12.360567175794303, 0.6433927460157636),
)
EXPLICIT: dict[str, dict] = {
    "euler": {"title": "Forward Euler", "order": 1, "ref": "Hairer-Norsett-Wanner I",
              "A": ((),), "b": ("1",), "c": ("0",)},
    "heun": {"title": "Heun (explicit trapezoid)", "order": 2, "ref": "Hairer-Norsett-Wanner I",
             "A": ((), ("1",)), "b": ("1/2", "1/2"), "c": ("0", "1"), "b_hat": ("1", "0")},
    "ralston2": {"title": "Ralston's second-order method", "order": 2, "ref": "Ralston 1962",
                 "A": ((), ("2/3",)), "b": ("1/4", "3/4"), "c": ("0", "2/3")},
    "midpoint": {"title": "Explicit midpoint (RK2)", "order": 2, "ref": "Hairer-Norsett-Wanner I",
                 "A": ((), ("1/2",)), "b": ("0", "1"), "c": ("0", "1/2")},
    "kutta3": {"title": "Kutta's third-order method", "order": 3, "ref": "Kutta 1901",
               "A": ((), ("1/2",), ("-1", "2")), "b": ("1/6", "2/3", "1/6"), "c": ("0", "1/2", "1")},
    "heun3": {"title": "Heun's third-order method", "order": 3, "ref": "Hairer-Norsett-Wanner I",
              "A": ((), ("1/3",), ("0", "2/3")), "b": ("1/4", "0", "3/4"), "c": ("0", "1/3", "2/3")},
    "ssprk3": {"title": "SSPRK3 (Shu-Osher)", "order": 3, "ref": "Shu-Osher 1988",
               "A": ((), ("1",), ("1/4", "1/4")), "b": ("1/6", "1/6", "2/3"), "c": ("0", "1", "1/2")},
    "rk4": {"title": "Classical Runge-Kutta (RK4)", "order": 4, "ref": "Kutta 1901",
            "A": ((), ("1/2",), ("0", "1/2"), ("0", "0", "1")), "b": ("1/6", "1/3", "1/3", "1/6"),
            "c": ("0", "1/2", "1/2", "1")},
    "rk38": {"title": "Kutta's 3/8 rule", "order": 4, "ref": "Kutta 1901",
             "A": ((), ("1/3",), ("-1/3", "1"), ("1", "-1", "1")), "b": ("1/8", "3/8", "3/8", "1/8"),
             "c": ("0", "1/3", "2/3", "1")},
    "ralston4": {"title": "Ralston's fourth-order method (minimum error bound)", "order": 4, "ref": "Ralston 1962",
                 "A": ((), (0.4,), ((-2889 + 1428 * _S5) / 1024, (3785 - 1620 * _S5) / 1024),
                       ((-3365 + 2094 * _S5) / 6040, (-975 - 3046 * _S5) / 2552,
                        (467040 + 203968 * _S5) / 240845)),
                 "b": ((263 + 24 * _S5) / 1812, (125 - 1000 * _S5) / 3828,
                       (3426304 + 1661952 * _S5) / 5924787, (30 - 4 * _S5) / 123),
                 "c": (0.0, 0.4, 7 / 8 - 3 * _S5 / 16, 1.0)},
    "butcher5": {"title": "Butcher's fifth-order method (6 stages)", "order": 5, "ref": "Butcher 1964",
                 "A": ((), ("1/4",), ("1/8", "1/8"), ("0", "-1/2", "1"), ("3/16", "0", "0", "9/16"),
                       ("-3/7", "2/7", "12/7", "-12/7", "8/7")),
                 "b": ("7/90", "0", "32/90", "12/90", "32/90", "7/90"),
                 "c": ("0", "1/4", "1/4", "1/2", "3/4", "1")},
    "dop853": {"title": "Dormand-Prince 8(5,3), fixed step (12 stages)", "order": 8,
               "ref": "Hairer-Norsett-Wanner I",
               "A": _DOP853_A,
               "b": (0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003,
                     -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034,
                     0.04471061572777259),
               "c": (0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726,
                     0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6, 0.8571428571428571,
                     1.0)},
}
