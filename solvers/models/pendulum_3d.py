"""B2: the 3D pendulum (heavy top on a fixed pivot) of seed 004, sections 5-6, eq. 68."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import rigid
from .base import Benchmark, Model, Param, Scales


def cardan_xyz(a: np.ndarray) -> np.ndarray:
    """R = Rx(a0) Ry(a1) Rz(a2), right-handed elementary rotations (docs/benchmarks.md B2)."""
    c, s = np.cos(a), np.sin(a)
    rx = np.array([[1, 0, 0], [0, c[0], -s[0]], [0, s[0], c[0]]])
    ry = np.array([[c[1], 0, s[1]], [0, 1, 0], [-s[1], 0, c[1]]])
    rz = np.array([[c[2], -s[2], 0], [s[2], c[2], 0], [0, 0, 1]])
    return rx @ ry @ rz


PARAMS = {
    "m": Param(10.0, "mass", "kg", positive=True),
    "J": Param(np.eye(3).tolist(), "inertia about the pivot (body frame; symmetric positive definite)", "kg m^2",
               shape=(3, 3), kind="inertia"),
    "rho": Param([0.0, 0.0, 0.7], "body vector from the pivot to the centre of mass (any vector)", "m",
                 shape=(3,)),
    "g": Param(9.81, "gravity along +e3 (seed 004 convention)", "m/s^2", nonnegative=True),
    "cardan0": Param(
        [np.pi / 3, np.pi / 4, np.pi / 9], "initial Cardan angles X-Y-Z, R0 = Rx Ry Rz", "rad", shape=(3,)
    ),
    "R0": Param(None, "initial rotation (instead of cardan0)", shape=(3, 3), kind="rotation"),
    "Omega0": Param([0.0, 0.0, 0.0], "initial body angular velocity", "rad/s", shape=(3,)),
}

TRIAD = 0.25  # length of the drawn body-frame axes, m


def build(p: dict[str, Any]) -> Model:
    """One pinned body of the rigid machinery: a heavy top about the fixed pivot at the origin (seed 004 eq. 68).

    State R (9) + Omega (3); J is the inertia about the pivot, used as given (no inertia about the centre of
    mass is formed, no translation state, no joint); gravity acts as its moment m g rho x R^T e3 about the pivot.
    """
    m, J, rho = p["m"], p["J"], p["rho"]
    R0 = p["R0"] if p["R0"] is not None else cardan_xyz(p["cardan0"])
    data = rigid.make_data([m], [J], np.array([0.0, 0.0, p["g"]]), [], pinned=[(list(np.zeros(3)), rho)])
    y0 = rigid.place_bodies(data, [R0], [p["Omega0"]])

    def unpack(states: np.ndarray) -> dict[str, np.ndarray]:
        """R (n,1,3,3), Omega (n,1,3) and the reduced attitude Gamma = R^T e3 (n, 3) (docs/benchmarks.md)."""
        s = rigid.unpack(data, states)
        s["Gamma"] = np.ascontiguousarray(s["R"][:, 0, 2, :])
        return s

    def points(states: np.ndarray) -> np.ndarray:
        """Pivot, centre of mass R rho and the tips of the body triad about the centre of mass."""
        R = rigid.unpack(data, states)["R"][:, 0]
        x = R @ rho
        axes = [x + TRIAD * R[:, :, k] for k in range(3)]
        return np.stack([np.zeros_like(x), x, *axes], axis=1)

    return Model(
        "rigid",
        data,
        y0,
        unpack,
        points,
        ("pivot", "centre of mass", "body x", "body y", "body z"),
        scales=Scales(float(np.linalg.norm(rho)), -m * p["g"] * float(np.linalg.norm(rho)),
                      0.01 * float(np.linalg.norm(rho))),
    )


BENCHMARK = Benchmark(
    id="pendulum_3d",
    title="3D pendulum (heavy top on a fixed pivot)",
    seed="004",
    description=(
        "A rigid body (m = 10 kg, J = I about the pivot, centre of mass 0.7 m along body z) on a frictionless "
        "pivot, released from Cardan angles (pi/3, pi/4, pi/9) at rest; gravity along +e3. Every method "
        "integrates Euler's equation about the pivot on SO(3) (seed 004 eq. 68). Seed 004 compares midpoint "
        "schemes in rotation, reduced-attitude and Cardan-angle form on it over 100 s. Note: J = I about the "
        "pivot is not the inertia of any real body: the parallel-axis term m |rho|^2 = 4.9 kg m^2 alone exceeds "
        "it. Seed 004 uses it anyway (its equations need only the inertia about the pivot), and so does our "
        "default; any symmetric positive definite J may be entered."
    ),
    params=PARAMS,
    build=build,
    default_h=0.05,  # seed 004's step for the Lie group forms (every method runs 100 s at it, docs/methods.md)
    default_t_end=20.0,
    machinery="rigid",
    exclusive=(("cardan0", "R0"),),
    gravity_direction=(0.0, 0.0, 1.0),
)
