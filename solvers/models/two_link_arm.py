"""B4: the two-link arm of seed 001, section 3, in absolute coordinates q = [x1, y1, th1, x2, y2, th2]."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import coords
from .base import Benchmark, Model, Param, Scales

PARAMS = {
    "m1": Param(1.0, "mass of link 1", "kg", positive=True),
    "l1": Param(1.0, "length of link 1", "m", positive=True),
    "m2": Param(2.0, "mass of link 2", "kg", positive=True),
    "l2": Param(float(np.sqrt(3.0)), "length of link 2", "m", positive=True),
    "g": Param(9.81, "gravity along -y", "m/s^2", nonnegative=True),
    "th1": Param(0.0, "initial absolute angle of link 1 from +x", "rad"),
    "th2": Param(0.0, "initial absolute angle of link 2 from +x", "rad"),
    "dth1": Param(0.0, "initial angular rate of link 1", "rad/s"),
    "dth2": Param(0.0, "initial angular rate of link 2", "rad/s"),
}


def initial_state(p: dict[str, Any]) -> np.ndarray:
    """Centres of mass and their velocities from the link angles (link 1 pinned at O)."""
    l1, l2 = p["l1"], p["l2"]
    c1, s1, c2, s2 = np.cos(p["th1"]), np.sin(p["th1"]), np.cos(p["th2"]), np.sin(p["th2"])
    w1, w2 = p["dth1"], p["dth2"]
    q = [l1 / 2 * c1, l1 / 2 * s1, p["th1"], l1 * c1 + l2 / 2 * c2, l1 * s1 + l2 / 2 * s2, p["th2"]]
    qd = [
        -l1 / 2 * s1 * w1,
        l1 / 2 * c1 * w1,
        w1,
        -l1 * s1 * w1 - l2 / 2 * s2 * w2,
        l1 * c1 * w1 + l2 / 2 * c2 * w2,
        w2,
    ]
    return np.array(q + qd)


def build(p: dict[str, Any]) -> Model:
    """Uniform links (J_i = m_i l_i^2/12), constraints of seed 001 eq. 19 as two pin joints."""
    m1, m2, l1, l2, g = p["m1"], p["m2"], p["l1"], p["l2"], p["g"]
    j1, j2 = m1 * l1**2 / 12, m2 * l2**2 / 12
    B = coords.BODY
    data = coords.make_data(
        np.diag([m1, m1, j1, m2, m2, j2]),
        np.array([0.0, -m1 * g, 0.0, 0.0, -m2 * g, 0.0]),
        points=[
            (coords.FIXED, 0, 0.0, 0.0),
            (B, 0, -l1 / 2, 0.0),
            (B, 0, l1 / 2, 0.0),
            (B, 3, -l2 / 2, 0.0),
            (B, 3, l2 / 2, 0.0),
        ],
        constraints=[(coords.COINCIDE, 1, 0, 0.0), (coords.COINCIDE, 3, 2, 0.0)],
    )
    return Model(
        "coords",
        data,
        initial_state(p),
        coords.unpack_q,
        lambda st: coords.point_positions(data, st[:, :6])[:, [0, 2, 4]],
        ("O", "tip of link 1", "tip of link 2"),
        scales=Scales(l1 + l2, -g * (m1 * l1 / 2 + m2 * (l1 + l2 / 2)), 0.01 * (l1 + l2)),
    )


BENCHMARK = Benchmark(
    id="two_link_arm",
    title="Two-link arm (absolute coordinates)",
    seed="001",
    description=(
        "Two uniform links (1 kg, 1 m and 2 kg, sqrt(3) m) pinned in a chain at the origin, released "
        "horizontal at rest under gravity along -y, in absolute coordinates with four constraints. Seed 001 "
        "compares Hermite-interpolation discrete variational methods with RK4 on the index-1 DAE."
    ),
    params=PARAMS,
    build=build,
    default_h=0.01,
    default_t_end=20.0,
    machinery="coords",
)
