"""B1: the spatial double pendulum of seed 000 (section 3): two steel rods joined by spherical joints."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import rigid
from .base import Benchmark, Model, Param, Scales
from .rigid_data import RigidData

R2_DEFAULT = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]

PARAMS = {
    "rod_density": Param(7850.0, "density of both rods", "kg/m^3", positive=True),
    "rod_radius": Param(0.05, "radius of both rods", "m", positive=True),
    "rod_length": Param(1.0, "length of both rods", "m", positive=True),
    "g": Param(9.81, "gravity along +e3 (seed 000 convention)", "m/s^2", nonnegative=True),
    "R1": Param(np.eye(3).tolist(), "initial rotation of rod 1 (body to world)", shape=(3, 3), kind="rotation"),
    "R2": Param(R2_DEFAULT, "initial rotation of rod 2 (body to world)", shape=(3, 3), kind="rotation"),
    "Omega1": Param([0.0, 0.0, 0.0], "initial body angular velocity of rod 1", "rad/s", shape=(3,)),
    "Omega2": Param([0.0, 0.0, 0.0], "initial body angular velocity of rod 2", "rad/s", shape=(3,)),
}


def rod_mass_inertia(density: float, radius: float, length: float) -> tuple[float, np.ndarray]:
    """Mass and inertia about the centre of mass of a solid cylinder along body y (docs/benchmarks.md B1)."""
    m = density * np.pi * radius**2 * length
    jt = m * (3 * radius**2 + length**2) / 12.0
    return m, np.diag([jt, m * radius**2 / 2.0, jt])


def build(p: dict[str, Any]) -> Model:
    """Two rods, joint 1 at rod 1's [0,-l/2,0] fixed at O, joint 2 joining [0,l/2,0] to rod 2's [0,-l/2,0]."""
    m, J = rod_mass_inertia(p["rod_density"], p["rod_radius"], p["rod_length"])
    half = p["rod_length"] / 2.0
    lo, hi = [0.0, -half, 0.0], [0.0, half, 0.0]
    data = rigid.make_data(
        [m, m], [J, J], np.array([0.0, 0.0, p["g"]]), [(0, lo, -1, [0.0, 0.0, 0.0]), (1, lo, 0, hi)]
    )
    y0 = rigid.place_bodies(data, [p["R1"], p["R2"]], [p["Omega1"], p["Omega2"]])
    return rods_model(data, y0, p["rod_length"], m, p["g"], ("O", "A", "B"))


def rods_model(data: RigidData, y0: np.ndarray, length: float | np.ndarray, m: float | np.ndarray, g: float,
               names: tuple[str, ...]) -> Model:
    """The Model of n rods (each ``length`` and mass ``m``, or one per rod) joined end to end from a pivot at O (B1,
    B7): drawn points O and every rod's upper end [0, l/2, 0]; scales from the chain hanging along +e3 (rod i's
    centre at depth l_0 + ... + l_(i-1) + l_i / 2: for equal rods the lowest potential is -m g l n^2 / 2)."""
    n = data[0].shape[0]
    lengths = np.broadcast_to(np.asarray(length, dtype=float), (n,))
    masses = np.broadcast_to(np.asarray(m, dtype=float), (n,))
    tips = np.zeros((n, 3))
    tips[:, 1] = lengths / 2.0

    def points(states: np.ndarray) -> np.ndarray:
        s = rigid.unpack(data, states)
        ends = s["x"] + np.einsum("nbij,bj->nbi", s["R"], tips)  # the upper end of every rod
        return np.concatenate([np.zeros((states.shape[0], 1, 3)), ends], axis=1)

    span = float(lengths.sum())
    depth = np.cumsum(lengths) - lengths / 2.0
    return Model("rigid", data, y0, lambda st: rigid.unpack(data, st), points, names,
                 scales=Scales(span, -g * float(masses @ depth), 0.01 * span))


BENCHMARK = Benchmark(
    id="spatial_double_pendulum",
    title="Spatial double pendulum (two steel rods, spherical joints)",
    seed="000",
    description=(
        "Two identical steel rods (1 m, r = 5 cm) joined by spherical joints, starting horizontal at right "
        "angles and at rest; gravity along +e3. Seed 000 compares Lie group variational integrators, "
        "RATTLie and Lie generalized-alpha on it over 50 s with h = 1e-3."
    ),
    params=PARAMS,
    build=build,
    default_h=1e-3,
    default_t_end=50.0,
    machinery="rigid",
    gravity_direction=(0.0, 0.0, 1.0),
)
