"""B7: a chain of N identical rods joined by spherical joints, the first pinned at the origin (seed 000's rods).

Rod i (i = 0..N-1) is a solid cylinder along its body y axis with joint points [0, -l/2, 0] (towards the pivot)
and [0, l/2, 0]; joint 0 holds rod 0's lower point at the origin, joint i joins rod i's lower point to rod i-1's
upper one (seed 000 eq. 24, as the spatial double pendulum). The chain starts at rest in the horizontal plane
bent along an arc: rod i turned about e3 by i * turn / (N - 1) from the world y axis. With N = 2 and the
default turn of 90 degrees it is the spatial double pendulum of seed 000 (section 3) exactly; we chose the arc
so that the motion is spatial for every N (a straight chain, turn = 0, swings in a vertical plane).
Gravity along +e3 as in seed 000. The joints are listed along the chain, so the Schur complement on the
multipliers is block-tridiagonal (solvers.models.joints.band_width).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import rigid
from .base import Benchmark, Model, Param
from .spatial_double_pendulum import rod_mass_inertia, rods_model

MIN_RODS = 2
MAX_RODS = 64

PARAMS = {
    "N": Param(8, f"number of rods ({MIN_RODS} to {MAX_RODS})", kind="integer", minimum=MIN_RODS,
               max_abs=MAX_RODS),
    "rod_density": Param(7850.0, "density of every rod", "kg/m^3", positive=True),
    "rod_radius": Param(0.05, "radius of every rod", "m", positive=True),
    "rod_length": Param(1.0, "length of every rod", "m", positive=True),
    "g": Param(9.81, "gravity along +e3 (seed 000 convention)", "m/s^2", nonnegative=True),
    "turn": Param(float(np.pi / 2), "horizontal arc of the initial chain: the last rod's turn about e3 from the "
                  "first (N = 2, pi/2: seed 000's double pendulum)", "rad", max_abs=2 * np.pi),
    # per rod (one entry per rod, N in all; empty: every rod as above)
    "rod_lengths": Param(None, "length of each rod (N entries; empty: rod_length each)", "m", shape=(None,),
                         positive=True, max_items=MAX_RODS),
    "rod_masses": Param(None, "mass of each rod (N entries; empty: from the density); the inertia is a solid "
                        "cylinder's of that mass", "kg", shape=(None,), positive=True, max_items=MAX_RODS),
    "Omega0": Param(None, "initial body angular velocity of each rod (N rows of 3; empty: at rest)", "rad/s",
                    shape=(None, 3), max_items=MAX_RODS),
}


def rotation_z(angle: float) -> np.ndarray:
    """Rotation by ``angle`` about e3 (body to world)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def initial_rotations(n: int, turn: float) -> list[np.ndarray]:
    """Rod i turned by i * turn / (n - 1) about e3; exact entries at multiples of 90 degrees."""
    out = []
    for i in range(n):
        R = rotation_z(i * turn / (n - 1))
        R[np.abs(R) < 1e-15] = 0.0  # cos(pi/2) = 6e-17: start exactly on the seed's matrices
        out.append(R)
    return out


def per_rod(p: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], np.ndarray]:
    """Each rod's length, mass, inertia about its centre (a solid cylinder of the common radius) and initial body
    angular velocity, from the per-rod parameters where given; ValueError when a list's count is not N."""
    n = int(p["N"])
    for name in ("rod_lengths", "rod_masses", "Omega0"):
        if p.get(name) is not None and len(p[name]) != n:
            raise ValueError(f"parameter {name!r}: {len(p[name])} entries for N = {n} rods; give one per rod")
    lengths = np.full(n, p["rod_length"]) if p.get("rod_lengths") is None else np.asarray(p["rod_lengths"], float)
    masses, inertias = [], []
    for k in range(n):
        m, J = rod_mass_inertia(p["rod_density"], p["rod_radius"], lengths[k])
        if p.get("rod_masses") is not None:  # the same cylinder at the given mass: J scales with m
            m, J = float(p["rod_masses"][k]), J * (float(p["rod_masses"][k]) / m)
        masses.append(m)
        inertias.append(J)
    omega = np.zeros((n, 3)) if p.get("Omega0") is None else np.asarray(p["Omega0"], dtype=float)
    return lengths, np.array(masses), inertias, omega


def build(p: dict[str, Any]) -> Model:
    """N rods, joint 0 at rod 0's [0,-l0/2,0] fixed at O, joint i joining rod i's [0,-li/2,0] to rod i-1's
    [0,l(i-1)/2,0] (every li = rod_length unless rod_lengths gives them)."""
    n = int(p["N"])
    lengths, masses, inertias, omega = per_rod(p)
    joints = [(0, [0.0, -lengths[0] / 2, 0.0], -1, [0.0, 0.0, 0.0])] + [
        (i, [0.0, -lengths[i] / 2, 0.0], i - 1, [0.0, lengths[i - 1] / 2, 0.0]) for i in range(1, n)]
    data = rigid.make_data(list(masses), inertias, np.array([0.0, 0.0, p["g"]]), joints)
    y0 = rigid.place_bodies(data, initial_rotations(n, p["turn"]), list(omega))
    return rods_model(data, y0, lengths, masses, p["g"], ("O", *(f"P{i + 1}" for i in range(n))))


BENCHMARK = Benchmark(
    id="spatial_chain",
    title="Chain of N rods (steel rods of seed 000, spherical joints)",
    seed="000",
    description=(
        "N identical steel rods (1 m, r = 5 cm; N = 2 to 64, default 8) joined by spherical joints, the first "
        "pinned at the origin, released at rest from a horizontal quarter-circle arc; gravity along +e3. With "
        "N = 2 it is seed 000's double pendulum; larger N shows how a method's cost grows with the mechanism "
        "(a hanging rope in the limit). Each rod's length, mass and initial angular velocity can be given "
        "apart. The arc and the defaults are our choice, not a seed's."
    ),
    params=PARAMS,
    build=build,
    default_h=1e-3,
    default_t_end=5.0,
    machinery="rigid",
    gravity_direction=(0.0, 0.0, 1.0),
)
