"""Classical fourth-order Runge-Kutta with a fixed step.

On the constrained benchmarks it integrates the index-1 DAE (accelerations and multipliers from the
saddle-point system at every stage, as seed 001 does for its comparison), so the acceleration constraint holds
to round-off while position and velocity constraints drift; rotation matrices are integrated as 9 numbers, so
orthogonality drifts too. On a pinned body (the heavy top of seed 004 eq. 68, no constraints) R is projected
back onto SO(3) after every step (its polar factor, rigid.orthonormalise; a standard projection, which keeps
order 4, Hairer-Lubich-Wanner IV.4); free bodies under joints are not projected, so the B1 comparisons show
plain RK4. On the angular-velocity benchmark it integrates the rotation-vector kinematics of seed
002 (eq. 12) with a fixed step and, by default, seed 002's 2 pi switch after every step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels
from ..models import angular_velocity, coords, rigid, rigid_dae
from ..models.dispatch import COORDS, RIGID, ROTVEC
from .base import Method, Option

# the option array's slots, in the order pack writes them
O_SWITCH, O_THRESHOLD = range(2)


def _advance(KIND: int):
    """The RK4 kernel of one machinery (kernels.PerMachinery: the other machineries' branches are pruned)."""

    @njit(cache=True)
    def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
                info):
        """RK4 kernel (contract in solvers.kernels). opts = [switch (0/1), switch threshold]."""
        ny = y.shape[0]
        # the machineries' data without reference counting (kernel arguments, kernels.borrowed): each stage passes
        # its machinery's to the inlined right-hand side, which otherwise costs an atomic count per array
        rd, cd, vd = kernels.borrowed(data[0]), kernels.borrowed(data[1]), kernels.borrowed(data[2])
        if KIND == COORDS:
            size = coords.scratch_size(cd)
        elif KIND == RIGID:
            size = rigid_dae.scratch_size(rd)
        else:
            size = 3
        A = np.empty((size, size))
        b = np.empty(size)
        K = np.empty((4, ny))  # k1..k4; row 0 is also the derivative at the new state, for the diagnostics
        ys = np.empty(ny)
        d = np.empty(kernels.N_DIAG)
        fail = kernels.DOMAIN if KIND == ROTVEC else kernels.SINGULAR
        # s = -1 evaluates the derivative at the starting state (and records step 0); then steps s = 0, 1, ...
        # ONE inlined call site of the right-hand side and one of the diagnostics: inlining is most of the compile
        for s in range(-1, n_steps):
            t = t_start + (k0 + max(s, 0)) * h
            ok = True
            for stage in range(1 if s >= 0 else 4, 5):
                if stage < 4:
                    c = 1.0 if stage == 3 else 0.5
                    for i in range(ny):
                        ys[i] = y[i] + c * h * K[stage - 1, i]
                    ts = t + c * h
                    out = stage
                else:
                    if s >= 0:
                        for i in range(ny):
                            ys[i] = y[i] + h / 6.0 * (K[0, i] + 2.0 * K[1, i] + 2.0 * K[2, i] + K[3, i])
                        if KIND == ROTVEC and opts[O_SWITCH] > 0.5 and angular_velocity.switch(ys, opts[O_THRESHOLD]):
                            info[kernels.INFO_SWITCHES] += 1.0
                        if KIND == RIGID:
                            rigid.orthonormalise(rd, ys)  # pinned bodies only (module docstring)
                        if not kernels.state_ok(ys):
                            info[kernels.INFO_TIME] = t + h
                            return s, kernels.NONFINITE, n_saved
                        for i in range(ny):
                            y[i] = ys[i]
                        ts = t + h
                    else:
                        for i in range(ny):
                            ys[i] = y[i]
                        ts = t
                    out = 0
                # the machinery's own right-hand side, inlined: a helper taking ``data`` would copy the tuple of
                # all three machineries' arrays per call (an atomic reference count each)
                if KIND == COORDS:
                    ok = coords.rhs(cd, ts, ys, K[out], A, b)
                elif KIND == RIGID:
                    ok = rigid_dae.rhs(rd, ts, ys, K[out], A, b)
                else:
                    ok = angular_velocity.rhs(vd, ts, ys, K[out], A, b)
                if not ok:
                    break
            if not ok and (out != 0 or s < 0):
                info[kernels.INFO_TIME] = t
                return max(s, 0), fail, n_saved
            if s < 0 and k0 != 0:
                continue
            t = ts
            if not ok:
                K[0, :] = np.nan
            if KIND == COORDS:
                coords.diagnostics(cd, y, K[0], d)
            elif KIND == RIGID:
                rigid.diagnostics_inline(rd, y, K[0], d)
            else:
                angular_velocity.diagnostics(vd, t, y, d)
            n_saved = kernels.record(samples, n_saved, maxima, ref, t, y, d, k0 + s + 1, stride, last)
            if not ok:
                info[kernels.INFO_TIME] = t
                return s + 1, fail, n_saved
        return n_steps, kernels.OK, n_saved

    return advance


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [switch, threshold]."""
    return np.array([1.0 if o["switch"] else 0.0, o["switch_threshold"]])


METHOD = Method(
    id="rk4",
    title="Classical Runge-Kutta (RK4)",
    seed="001, 004",
    order=4,
    description=(
        "Explicit fourth-order Runge-Kutta with a fixed step: on the index-1 DAE for constrained benchmarks "
        "(constraints drift), on the ODE otherwise. Not symplectic: energy drifts over long runs."
    ),
    kernel=kernels.PerMachinery(_advance),
    machineries=("rigid", "coords", "rotvec"),
    options={
        "switch": Option(True, "angular_velocity only: seed 002's 2 pi switch of the rotation vector", "bool",
                         benchmarks=("angular_velocity",)),
        "switch_threshold": Option(
            1.5 * np.pi, "angular_velocity only: switch when |theta| exceeds this", "float", np.pi, 2 * np.pi - 1e-3,
            benchmarks=("angular_velocity",),
        ),
    },
    pack=pack,
    properties=("explicit", "fixed step"),
)
