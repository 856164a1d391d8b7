"""B5: the planar double pendulum of seed 003 in natural coordinates q = [x1, y1, x2, y2]."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import coords
from .base import Benchmark, Model, Param, Scales

PARAMS = {
    "m1": Param(1.0, "mass of bar 1", "kg", positive=True),
    "l1": Param(2.0, "length of bar 1", "m", positive=True),
    "m2": Param(1.0, "mass of bar 2", "kg", positive=True),
    "l2": Param(3.0, "length of bar 2", "m", positive=True),
    "g": Param(9.81, "gravity along -y", "m/s^2", nonnegative=True),
    "th1": Param(0.0, "initial angle of bar 1 from +x", "rad"),
    "th2": Param(0.0, "initial angle of bar 2 from +x", "rad"),
    "dth1": Param(0.0, "initial angular rate of bar 1", "rad/s"),
    "dth2": Param(0.0, "initial angular rate of bar 2", "rad/s"),
}


def mass_matrix(m1: float, m2: float) -> np.ndarray:
    """Constant mass matrix of two uniform bars with end points (O0, O1), (O1, O2); O0 fixed.

    A bar with end points (a, b) contributes m [[I/3, I/6], [I/6, I/3]] (docs/benchmarks.md B5).
    """
    small = np.array([[(m1 + m2) / 3, m2 / 6], [m2 / 6, m2 / 3]])
    return np.kron(small, np.eye(2))


def build(p: dict[str, Any]) -> Model:
    """Distance constraints |O1 - O0|^2 = l1^2, |O2 - O1|^2 = l2^2 (seed 003); gravity on the bar midpoints."""
    m1, m2, l1, l2, g = p["m1"], p["m2"], p["l1"], p["l2"], p["g"]
    c1, s1, c2, s2 = np.cos(p["th1"]), np.sin(p["th1"]), np.cos(p["th2"]), np.sin(p["th2"])
    w1, w2 = p["dth1"], p["dth2"]
    q = np.array([l1 * c1, l1 * s1, l1 * c1 + l2 * c2, l1 * s1 + l2 * s2])
    qd = np.array([-l1 * s1 * w1, l1 * c1 * w1, -l1 * s1 * w1 - l2 * s2 * w2, l1 * c1 * w1 + l2 * c2 * w2])
    data = coords.make_data(
        mass_matrix(m1, m2),
        np.array([0.0, -g * (m1 + m2) / 2, 0.0, -g * m2 / 2]),
        points=[(coords.FIXED, 0, 0.0, 0.0), (coords.PAIR, 0, 0.0, 0.0), (coords.PAIR, 2, 0.0, 0.0)],
        # J_i = m_i l_i^2 / 12: each bar's inertia about its centre (seed 003's gamma family needs it)
        constraints=[(coords.DISTANCE, 1, 0, l1, m1 * l1**2 / 12), (coords.DISTANCE, 2, 1, l2, m2 * l2**2 / 12)],
    )
    return Model(
        "coords",
        data,
        np.concatenate([q, qd]),
        coords.unpack_q,
        lambda st: coords.point_positions(data, st[:, :4]),
        ("O0", "O1", "O2"),
        # the constraints are |O_i - O_i-1|^2 - l_i^2: a bar 1 % too long is off by (1.01^2 - 1) l_i^2
        scales=Scales(l1 + l2, -g * ((m1 + m2) / 2 * l1 + m2 / 2 * (l1 + l2)), (1.01**2 - 1) * min(l1, l2) ** 2,
                      "m^2"),
    )


BENCHMARK = Benchmark(
    id="natural_double_pendulum",
    title="Planar double pendulum in natural coordinates",
    seed="003",
    description=(
        "Two uniform bars (2 m and 3 m, 1 kg each) in natural coordinates (the joint and the free end), "
        "released horizontal at rest; gravity along -y. Seed 003 tunes the gamma-modified mass matrix of "
        "Gauss-Lobatto SPARK methods on it (h = 0.04, 100 steps)."
    ),
    params=PARAMS,
    build=build,
    default_h=0.01,
    default_t_end=10.0,
    machinery="coords",
)
