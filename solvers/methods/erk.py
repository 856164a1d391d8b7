"""Explicit Runge-Kutta from any Butcher tableau, with a fixed step (HNW I, II.1; tableaus as data, after SciPy's
integrate._ivp and GeometricIntegrators.jl).

The option ``tableau`` is a library name (``solvers.tableaus.EXPLICIT``) or a user's {"A", "b", "c"[, "b_hat"]},
checked by :func:`solvers.tableau.tableau`. It reaches the kernel as numbers in the option array, so ONE compiled
kernel (per machinery) serves every tableau: a new tableau never compiles. The right-hand sides are rk4's: the
index-1 DAE on the constrained benchmarks, the ODE otherwise, the rotation-vector kinematics of seed 002 (eq. 12)
with its optional 2 pi switch on angular_velocity; R is projected back onto SO(3) after every step on a pinned body
exactly as rk4 does (rigid.orthonormalise, its polar factor; Hairer-Lubich-Wanner IV.4), free bodies under joints
are not projected. With ``b_hat`` given, the step also computes the embedded estimate
h max_i |sum_j (b_j - b_hat_j) k_j,i| and reports its largest and last values (no step control).

The weights b are applied as (h / D) sum_j (D b_j) k_j with the smallest D <= 1000 making every D b_j an integer
(else D = 1; solvers.tableau.weights), which for RK4 is rk4's own h/6 (k1 + 2 k2 + 2 k3 + k4): the same
arithmetic, the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .. import kernels
from .. import tableau as tableau_mod
from ..jit import python_function
from ..models import angular_velocity, coords, dispatch, rigid, rigid_dae
from ..models.dispatch import COORDS, RIGID, ROTVEC
from ..tableau import TableauOption, order_of, pack_tableau
from .base import Method, Option

HEAD = 5  # opts: switch, threshold, then the tableau (solvers.tableau.pack_tableau: s, D, has b_hat, ...)


# the option array's slots, in the order pack writes them
O_SWITCH, O_THRESHOLD, O_S, O_D, O_HAS_HAT = range(5)


def pack_switch(o: dict[str, Any]) -> np.ndarray:
    """The option array's head, slots O_SWITCH and O_THRESHOLD: rk4's whole option array."""
    return np.array([1.0 if o["switch"] else 0.0, o["switch_threshold"]])


def pack(o: dict[str, Any]) -> np.ndarray:
    """Kernel option array: [switch, threshold] and the tableau (HEAD)."""
    return np.concatenate([pack_switch(o), pack_tableau(tableau_mod.tableau(o["tableau"]))])


@njit(cache=True)
def _work_fields() -> tuple:
    """The work array's fields (kernels.carve): the embedded error estimate's largest and last values."""
    return 1, 1


def work_size(model) -> int:
    """The sum of _work_fields."""
    return sum(python_function(_work_fields)())


def report(work: np.ndarray, info: np.ndarray) -> dict[str, Any]:
    """The embedded error estimate's largest and last values (0 without b_hat)."""
    est_max, est_last = kernels.carve(work, python_function(_work_fields)())
    return {"error_estimate_max": float(est_max[0]), "error_estimate_last": float(est_last[0])}


def _advance(KIND: int, CLASSICAL: bool = False):
    """The ERK kernel of one machinery (kernels.PerMachinery: the other machineries' branches are pruned);
    ``CLASSICAL``: rk4's, the classical tableau as constants in place of the general loops over the option array's."""

    @njit(cache=True)
    def advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride, samples, n_saved, maxima, ref,
                info):
        """ERK kernel (contract in solvers.kernels); opts layout in HEAD (rk4: its first two); work: _work_fields."""
        est_max, est_last = kernels.carve(work, _work_fields())
        ny = y.shape[0]
        # the machineries' data without reference counting (kernel arguments, kernels.borrowed): each stage passes
        # its machinery's to the inlined right-hand side, which otherwise costs an atomic count per array
        rd, cd, vd = kernels.borrowed(data[0]), kernels.borrowed(data[1]), kernels.borrowed(data[2])
        if CLASSICAL:
            ns, first = 4, 1
        else:
            ns = int(opts[O_S])
            D = opts[O_D]
            has_hat = opts[O_HAS_HAT] > 0.5
            a0 = HEAD
            bw0 = a0 + ns * ns
            c0 = bw0 + ns
            hat0 = c0 + ns
            # k_1 at (t, y) is the derivative at the previous step's new state when c_1 = 0 (always, for a
            # consistent explicit tableau): it is evaluated once, for the diagnostics and the next step
            first = 0 if opts[c0] != 0.0 else 1
        size = dispatch.scratch_size(KIND, data)
        A = np.empty((size, size))
        b = np.empty(size)
        K = np.empty((ns, ny))  # k_1..k_s; row 0 is also the derivative at the new state, for the diagnostics
        ys = np.empty(ny)
        d = np.empty(kernels.N_DIAG)
        fail = kernels.DOMAIN if KIND == ROTVEC else kernels.SINGULAR
        # s = -1 evaluates the derivative at the starting state (and records step 0); then steps s = 0, 1, ...
        # ONE inlined call site of the right-hand side and one of the diagnostics: inlining is most of the compile
        for s in range(-1, n_steps):
            t = t_start + (k0 + max(s, 0)) * h
            ok = True
            for stage in range(first if s >= 0 else ns, ns + 1):
                if stage < ns:
                    if CLASSICAL:
                        c = 1.0 if stage == 3 else 0.5
                        for i in range(ny):
                            ys[i] = y[i] + c * h * K[stage - 1, i]
                        ts = t + c * h
                    else:
                        # y + sum_j (h a_ij) k_j over the nonzero a_ij, a contiguous row at a time
                        row = a0 + stage * ns
                        fresh = True  # the first nonzero a_ij writes y + (h a_ij) k_j, the others add to it
                        for j in range(stage):
                            ha = h * opts[row + j]
                            if ha != 0.0:
                                if fresh:
                                    for i in range(ny):
                                        ys[i] = y[i] + ha * K[j, i]
                                    fresh = False
                                else:
                                    for i in range(ny):
                                        ys[i] += ha * K[j, i]
                        if fresh:
                            ys[:] = y
                        ts = t + opts[c0 + stage] * h
                    out = stage
                else:
                    if s >= 0:
                        if CLASSICAL:
                            for i in range(ny):
                                ys[i] = y[i] + h / 6.0 * (K[0, i] + 2.0 * K[1, i] + 2.0 * K[2, i] + K[3, i])
                        else:
                            # sum_j (D b_j) k_j, then y + (h / D) times it, in the pass of the last nonzero weight:
                            # for the classical tableau the arithmetic above
                            hd = h / D
                            last_w = ns - 1
                            while last_w > 0 and opts[bw0 + last_w] == 0.0:
                                last_w -= 1
                            fresh = True
                            for j in range(last_w):
                                w = opts[bw0 + j]
                                if w != 0.0:
                                    if fresh:
                                        for i in range(ny):
                                            ys[i] = w * K[j, i]
                                        fresh = False
                                    else:
                                        for i in range(ny):
                                            ys[i] += w * K[j, i]
                            w = opts[bw0 + last_w]
                            if fresh:
                                for i in range(ny):
                                    ys[i] = y[i] + hd * (w * K[last_w, i])
                            else:
                                for i in range(ny):
                                    ys[i] = y[i] + hd * (ys[i] + w * K[last_w, i])
                            if has_hat:
                                est = 0.0  # h max_i |sum_j (b_j - b_hat_j) k_j,i|
                                for i in range(ny):
                                    e = 0.0
                                    for j in range(ns):
                                        e += (opts[bw0 + j] / D - opts[hat0 + j]) * K[j, i]
                                    est = max(est, abs(h * e))
                                est_max[0] = max(est_max[0], est)
                                est_last[0] = est
                        if KIND == RIGID:
                            rigid.orthonormalise(rd, ys)  # pinned bodies only (rk4's module docstring)
                        elif KIND == ROTVEC and opts[O_SWITCH] > 0.5 and angular_velocity.switch(ys, opts[O_THRESHOLD]):
                            info[kernels.INFO_SWITCHES] += 1.0
                        ts = t + h
                        if not kernels.state_ok(ys):
                            info[kernels.INFO_TIME] = ts
                            return s, kernels.NONFINITE, n_saved
                        for i in range(ny):
                            y[i] = ys[i]
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
            if not ok and (out != 0 or s < 0 or stage < ns):
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
                info[kernels.INFO_TIME] = t  # the step is kept and recorded; the derivative at its end failed
                return s + 1, fail, n_saved
        return n_steps, kernels.OK, n_saved

    return advance


def classical_advance(KIND: int):
    """rk4's kernel (solvers.methods.rk4): :func:`_advance` with the classical tableau as constants."""
    return _advance(KIND, True)


METHOD = Method(
    id="erk",
    title="Explicit Runge-Kutta from a Butcher tableau",
    seed="001, 004 (as rk4)",
    order=4,
    description=(
        "Any explicit Runge-Kutta tableau (a library name such as heun, rk4, dop853, or your own A, b, c) with a "
        "fixed step, on the same right-hand sides as rk4; its order is checked from the numbers (Method lab)."
    ),
    kernel=kernels.PerMachinery(_advance),
    machineries=("rigid", "coords", "rotvec"),
    options={
        "tableau": TableauOption("rk4", "a library name (" + ", ".join(tableau_mod.EXPLICIT) + ") or "
                                 "{\"A\": rows, \"b\": [...], \"c\": [...], \"b_hat\": [...] (optional)}; "
                                 "numbers or fractions such as \"1/6\""),
        "switch": Option(True, "angular_velocity only: seed 002's 2 pi switch of the rotation vector", "bool"),
        "switch_threshold": Option(
            1.5 * np.pi, "angular_velocity only: switch when |theta| exceeds this", "float", np.pi, 2 * np.pi - 1e-3
        ),
    },
    pack=pack,
    work_size=work_size,
    properties=("explicit", "fixed step", "tableau"),
    report=report,
    order_for=lambda o: order_of(o["tableau"]),
)
