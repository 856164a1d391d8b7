"""Classical fourth-order Runge-Kutta with a fixed step.

On the constrained benchmarks it integrates the index-1 DAE (accelerations and multipliers from the
saddle-point system at every stage, as seed 001 does for its comparison), so the acceleration constraint holds
to round-off while position and velocity constraints drift; rotation matrices are integrated as 9 numbers, so
orthogonality drifts too. On a pinned body (the heavy top of seed 004 eq. 68, no constraints) R is projected
back onto SO(3) after every step (its polar factor, rigid.orthonormalise; a standard projection, which keeps
order 4, Hairer-Lubich-Wanner IV.4); free bodies under joints are not projected, so the B1 comparisons show
plain RK4. On the angular-velocity benchmark it integrates the rotation-vector kinematics of seed
002 (eq. 12) with a fixed step and, by default, seed 002's 2 pi switch after every step.

Its kernel is erk's time loop with the classical tableau's coefficients as constants (``erk.classical_advance``):
one loop for both, and rk4 without the cost of erk's general loops over the tableau (docs/performance.md, per step).
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from . import erk
from .base import Method, Option

METHOD = Method(
    id="rk4",
    title="Classical Runge-Kutta (RK4)",
    seed="001, 004",
    order=4,
    description=(
        "Explicit fourth-order Runge-Kutta with a fixed step: on the index-1 DAE for constrained benchmarks "
        "(constraints drift), on the ODE otherwise. Not symplectic: energy drifts over long runs."
    ),
    kernel=kernels.PerMachinery(erk.classical_advance),
    machineries=("rigid", "coords", "rotvec"),
    options={
        "switch": Option(True, "angular_velocity only: seed 002's 2 pi switch of the rotation vector", "bool",
                         benchmarks=("angular_velocity",)),
        "switch_threshold": Option(
            1.5 * np.pi, "angular_velocity only: switch when |theta| exceeds this", "float", np.pi, 2 * np.pi - 1e-3,
            benchmarks=("angular_velocity",),
        ),
    },
    pack=erk.pack_switch,
    properties=("explicit", "fixed step"),
)
