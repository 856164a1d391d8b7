"""B3: the planar pendulum of seed 004, sections 4 and 6: J theta'' + m g l sin(theta) = 0."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import coords
from .base import Benchmark, Model, Param, Scales

PARAMS = {
    "m": Param(2.0, "mass", "kg", positive=True),
    "J": Param(0.48, "moment of inertia about the pivot", "kg m^2", positive=True),
    "l": Param(0.6, "pivot to centre of mass", "m", positive=True),
    "g": Param(9.81, "gravity (downward)", "m/s^2", nonnegative=True),
    "theta0": Param(0.0, "initial angle from the downward vertical", "rad"),
    "omega0": Param(1.0, "initial angular velocity", "rad/s"),
}


def build(p: dict[str, Any]) -> Model:
    """One angle coordinate, U = -m g l cos(theta), no constraints."""
    data = coords.make_data(
        np.array([[p["J"]]]),
        np.zeros(1),
        cos_terms=[(0, -p["m"] * p["g"] * p["l"], 0.0)],
        points=[(coords.FIXED, 0, 0.0, 0.0), (coords.ANGLE, 0, p["l"], 0.0)],
    )
    y0 = np.array([p["theta0"], p["omega0"]])
    return Model(
        "coords",
        data,
        y0,
        lambda st: {"theta": st[:, 0], "omega": st[:, 1]},
        lambda st: coords.point_positions(data, st[:, :1]),
        ("pivot", "centre of mass"),
        scales=Scales(p["l"], -p["m"] * p["g"] * p["l"], 0.01 * p["l"]),
    )


BENCHMARK = Benchmark(
    id="planar_pendulum",
    title="Planar pendulum",
    seed="004",
    description=(
        "A compound pendulum (m = 2 kg, J = 0.48 kg m^2 about the pivot, l = 0.6 m) started at the bottom "
        "with 1 rad/s. Exact solution by Jacobi elliptic functions. Seed 004 shows RK4 losing amplitude "
        "where the implicit midpoint rule keeps it."
    ),
    params=PARAMS,
    build=build,
    default_h=0.01,
    default_t_end=50.0,
    machinery="coords",
)
