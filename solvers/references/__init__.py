"""Reference solutions of every benchmark, for any parameters and initial state the benchmark accepts.

The exact solution where one is known (the planar pendulum's Jacobi-elliptic solution in libration, the
prescribed rotation of angular_velocity), else DOP853 (SciPy's algorithm, compiled:
:mod:`solvers.references.compiled`) at rtol = atol = 1e-13 in OTHER coordinates than the methods use
(:mod:`solvers.references.solutions`: bar angles, quaternions); its own accuracy is estimated by
the same solution at a 100 times looser tolerance. Independent of every method module: only the benchmark's
parameters and its drawn points come from :mod:`solvers.models`.

    ref = references.reference("spatial_double_pendulum", t, params)  # Reference at the times t
    err = references.error(result)   # per saved sample of a Result: metres (drawn points) or radians (rotation)
    references.horizon(result)       # the time past which the reference cannot judge it (chaos), or None

A numerical reference also carries its error estimate per sample (``Reference.estimate``) and its horizon: the
first time that estimate passes HORIZON_FRACTION (1e-3) of the mechanism's size. On the chaotic spatial double
pendulum and chain the reference's error grows by a factor 10 every 3-5 s (docs/methods.md), and past the
horizon no solution, the reference included, is accurate enough to rank methods by their error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..models import dispatch
from ..models.base import Model
from ..registry import BENCHMARKS
from ..result import Result, _plain
from . import solutions as sol

LOOSE_FACTOR = 100.0  # the accuracy estimate: the same solution at this times the tolerance
# the horizon: where the reference's own error estimate first passes this fraction of the mechanism's size (the
# largest distance of a drawn point from the origin), the reference stops being a judge
HORIZON_FRACTION = 1e-3


class ReferenceUnavailableError(ValueError):
    """No reference for this benchmark, or it would take longer than the time budget (the message says which)."""


@dataclass(frozen=True)
class Reference:
    """A reference solution at the times ``t``: ``state`` with the keys of ``Result.state`` (those it has),
    ``points`` the benchmark's drawn points (n, k, 3); ``unit`` of :func:`error` ("m": distance between drawn
    points, "rad": rotation angle); ``accuracy`` its own estimated error in that unit (0 for an exact one)."""

    benchmark: str
    t: np.ndarray
    state: dict[str, np.ndarray]
    points: np.ndarray
    exact: bool
    unit: str
    accuracy: float
    description: str
    cpu_time: float
    state_accuracy: float = 0.0  # the same estimate for the state entries (max abs difference, any key)
    estimate: np.ndarray | None = None  # per sample: the estimated error in ``unit`` (None for an exact one)
    horizon: float | None = None  # the first time the estimate passes HORIZON_FRACTION x size (None: never)
    state_estimate: np.ndarray | None = None  # per sample: ``state_accuracy`` there (None for an exact one)

    def horizon_note(self) -> str:
        """The sentence the error chart shows past the horizon ("" without one)."""
        if self.horizon is None:
            return ""
        return (f"beyond t = {self.horizon:.1f} s the motion is chaotic: no solution is accurate enough to judge the "
                f"methods (the reference's own error estimate passes {HORIZON_FRACTION:g} of the mechanism's size)")


Solved = tuple[dict[str, np.ndarray], np.ndarray, bool]  # state, flat states in the model's layout, exact


def _planar_pendulum(t: np.ndarray, p: Mapping[str, Any]) -> Solved:
    kw = {k: float(p[k]) for k in ("m", "J", "l", "g", "theta0", "omega0")}
    try:
        th, om = sol.planar_pendulum_exact(t, **kw)
        exact = True
    except ValueError:  # rotation or separatrix: no elliptic closed form here
        th, om = sol.planar_pendulum_ivp(t, **kw)
        exact = False
    return {"theta": th, "omega": om}, np.stack([th, om], axis=1), exact


def _bars(solve: Callable[..., tuple[np.ndarray, np.ndarray]]) -> Callable[[np.ndarray, Mapping[str, Any]], Solved]:
    def solved(t: np.ndarray, p: Mapping[str, Any]) -> Solved:
        q, qdot = solve(t, **{k: float(v) for k, v in p.items()})
        return {"q": q, "qdot": qdot}, np.hstack([q, qdot]), False

    return solved


def _pendulum_3d(t: np.ndarray, p: Mapping[str, Any]) -> Solved:
    R, W = sol.pendulum_3d_reference(t, **p)
    return {"R": R[:, None], "Omega": W[:, None], "Gamma": R[:, 2, :].copy()}, np.hstack([R.reshape(-1, 9), W]), False


def _free_bodies(solve: Callable[..., dict[str, np.ndarray]]) -> Callable[[np.ndarray, Mapping[str, Any]], Solved]:
    """Free rigid bodies: per body R (9), x, Omega, v in the rigid machinery's flat layout."""

    def solved(t: np.ndarray, p: Mapping[str, Any]) -> Solved:
        d = solve(t, **p)
        n, bodies = d["x"].shape[:2]
        flat = np.concatenate([d["R"].reshape(n, bodies, 9), d["x"], d["Omega"], d["v"]], axis=2).reshape(n, -1)
        return d, flat, False

    return solved


# a rigid mechanism with no coordinates of its own here (solvers.mechanism, a chain of unequal rods)
NOT_INDEPENDENT = ("DOP853 on the methods' own equations (the rigid machinery's index-1 DAE; not independent: "
                   "no other coordinates for this mechanism here)")


def same_equations(model: Model, t: np.ndarray) -> Solved:
    """A rigid model's motion by DOP853 (rtol = atol as :func:`solvers.references.solutions.settings` sets) on its
    own index-1 DAE (solvers.models.rigid_dae, compiled): a check of the methods' discretisation, not of the
    equations (NOT_INDEPENDENT)."""
    f = dispatch.rhs_function(*dispatch.pack(model.machinery, model.data),
                              lambda _t: ValueError("the mechanism's saddle-point system is singular at this state"))
    flat = sol._integrate(f, model.y0, t)
    return model.unpack(flat), flat, False


def _equal_rods(p: Mapping[str, Any]) -> bool:
    return p.get("rod_lengths") is None and p.get("rod_masses") is None


def _spatial_chain(t: np.ndarray, p: Mapping[str, Any]) -> Solved:
    """Kane's equations in quaternions for equal rods (independent); unequal rods: :func:`same_equations`."""
    if not _equal_rods(p):
        return same_equations(BENCHMARKS["spatial_chain"].build(dict(p)), t)
    return _free_bodies(sol.spatial_chain_reference)(t, p)


def _angular_velocity(t: np.ndarray, _p: Mapping[str, Any]) -> Solved:
    theta, R, _omega = sol.angular_velocity_exact(t)
    return {"R": R[:, None], "theta": theta}, theta, True


# benchmark -> (solution, unit of the error, how it is made: "exact text | numerical text" where it can be either,
# or a function of the resolved parameters giving that text); a benchmark without an entry has no reference
Hows = str | Callable[[Mapping[str, Any]], str]
SOLUTIONS: dict[str, tuple[Callable[[np.ndarray, Mapping[str, Any]], Solved], str, Hows]] = {
    "planar_pendulum": (_planar_pendulum, "m", "the exact solution (Jacobi elliptic functions; libration) | "
                        "DOP853 in the angle (the pendulum rotates: no elliptic closed form here)"),
    "two_link_arm": (_bars(sol.two_link_arm_reference), "m", "DOP853 in the two bar angles (Lagrange's equations)"),
    "natural_double_pendulum": (_bars(sol.natural_double_pendulum_reference), "m",
                                "DOP853 in the two bar angles (Lagrange's equations)"),
    "pendulum_3d": (_pendulum_3d, "m", "DOP853 in a unit quaternion and the body angular velocity"),
    "spatial_double_pendulum": (_free_bodies(sol.spatial_double_pendulum_reference), "m",
                                "DOP853 in two quaternions and the body angular velocities (Kane's equations)"),
    "spatial_chain": (_spatial_chain, "m",
                      lambda p: "DOP853 in N quaternions and the body angular velocities (Kane's equations)"
                      if _equal_rods(p) else NOT_INDEPENDENT),
    "angular_velocity": (_angular_velocity, "rad", "the exact rotation R = exp(theta(t)) (seed 002 eq. 17)"),
}


def _times(t: Any) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size == 0 or t[0] != 0.0 or np.any(np.diff(t) < 0) or not np.all(np.isfinite(t)):
        raise ValueError("reference times must be a non-empty increasing 1-D array starting at 0")
    return t


def _difference(unit: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per sample: the largest distance between drawn points (m), or the rotation angle between R's (rad)."""
    if unit == "m":
        return np.linalg.norm(a - b, axis=-1).max(axis=-1)
    # ||R - R_ref||_F = 2 sqrt(2) sin(angle / 2) for rotations; defined for any matrices
    d = np.linalg.norm((a - b).reshape(a.shape[0], -1, 9), axis=-1).max(axis=-1)
    return 2.0 * np.arcsin(np.minimum(1.0, d / np.sqrt(8.0)))


def reference(benchmark: str, t: Any, params: Mapping[str, Any] | None = None,
              budget: float | None = None, store: str | Path | None = None) -> Reference:
    """The reference of ``benchmark`` with ``params`` (validated like ``simulate``'s) at the times ``t`` (from 0,
    increasing). ``budget`` (s) bounds the work: a reference that would take longer raises
    ReferenceUnavailableError saying so instead of hanging. Cached (the same request is computed once); with
    ``store``, a directory (one per version of the code: the caller's to key), also on disk there, shared by
    every process (the dashboard's warm-up fills it with each benchmark's default run)."""
    if benchmark not in SOLUTIONS:
        raise ReferenceUnavailableError(f"no reference solution for benchmark {benchmark!r}")
    spec = BENCHMARKS[benchmark]
    # a Result's params are resolved (every key); those at their defaults are dropped, so that of an exclusive
    # pair (pendulum_3d's cardan0 / R0) only the one in use is given again
    overrides = {k: v for k, v in (params or {}).items()
                 if k not in spec.params or v is None or spec.params[k].default is None
                 or not np.array_equal(np.asarray(v, dtype=object), np.asarray(spec.params[k].default, dtype=object))}
    given = {k: v for k, v in overrides.items() if v is not None}
    spec.resolve(given)  # validate here: a bad value is the caller's ValueError, before any work
    # saved times of different methods differ in the last bits (t_start + k h computed differently): one key
    t = np.round(_times(t), 12)
    key = json.dumps(_plain(given), sort_keys=True)
    path = None
    if store is not None:
        digest = hashlib.sha256(f"{benchmark}\n{key}\n".encode() + t.tobytes()).hexdigest()[:32]
        path = Path(store) / f"{benchmark}-{digest}.pickle"
        stored = _load(path)
        if stored is not None:
            return stored
    out = _cached(benchmark, key, t.tobytes(), budget)
    if isinstance(out, ReferenceUnavailableError):  # a refusal is cached too: the next method gets it at once
        raise ReferenceUnavailableError(str(out))
    if path is not None:
        _save(path, out)
    return out


def _load(path: Path) -> Reference | None:
    """A stored reference (written by this server's own processes), or None if absent or unreadable."""
    try:
        with open(path, "rb") as fh:
            ref = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, TypeError):
        return None
    if not isinstance(ref, Reference):
        return None
    for v in (ref.t, *ref.state.values(), ref.points, ref.estimate, ref.state_estimate):
        if v is not None:
            v.setflags(write=False)
    return ref


def _save(path: Path, ref: Reference) -> None:
    """Write atomically (a reader sees the whole file or none); a full or read-only disk only skips the store."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as fh:
            pickle.dump(ref, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(fh.name, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(fh.name)


@functools.lru_cache(maxsize=16)
def _cached(benchmark: str, params_json: str, t_bytes: bytes,
            budget: float | None) -> Reference | ReferenceUnavailableError:
    solve, unit, made = SOLUTIONS[benchmark]
    resolved = BENCHMARKS[benchmark].resolve(json.loads(params_json))
    hows = made(resolved) if callable(made) else made
    t = np.frombuffer(t_bytes, dtype=float).copy()
    model = BENCHMARKS[benchmark].build(resolved)
    started = time.process_time()
    deadline = None if budget is None else time.monotonic() + budget
    try:
        with sol.settings(sol.RTOL, deadline):
            state, flat, exact = solve(t, resolved)
        if not exact:
            with sol.settings(LOOSE_FACTOR * sol.RTOL, deadline):
                state_loose, flat_loose, _ = solve(t, resolved)
        how = hows.split(" | ")[0 if exact else -1]
    except sol.TooLongError:
        how = hows.split(" | ")[-1]
        return ReferenceUnavailableError(
            f"the reference solution ({how}) would take longer than {budget:g} s for this run: shorten the end "
            "time or use the library (solvers.references) without a budget")
    points = model.points(flat)
    estimate = None if exact else _difference("m", points, model.points(flat_loose))
    accuracy = 0.0 if estimate is None else float(estimate.max())
    horizon = None
    if estimate is not None:
        size = float(np.linalg.norm(points, axis=-1).max())
        past = np.flatnonzero(estimate > HORIZON_FRACTION * size)
        horizon = float(t[past[0]]) if past.size else None
        estimate.setflags(write=False)
    state_estimate = None if exact else np.max(
        [np.abs(state[k] - state_loose[k]).reshape(len(t), -1).max(axis=1) for k in state], axis=0)
    state_accuracy = 0.0 if state_estimate is None else float(state_estimate.max())
    for v in (*state.values(), points):
        v.setflags(write=False)
    description = how if exact else (
        f"{how}, rtol = atol = {sol.RTOL:g}; its error is estimated at {accuracy:.1g} {unit} (its difference to the "
        f"same solution at {LOOSE_FACTOR * sol.RTOL:g}, an estimate, not a bound)")
    if horizon is not None:
        description += f"; beyond t = {horizon:.1f} s that estimate passes {HORIZON_FRACTION:g} of the mechanism's size"
    return Reference(benchmark, t, state, points, bool(exact), unit, accuracy, description,
                     time.process_time() - started, state_accuracy, estimate, horizon, state_estimate)


def horizon(result: Result, ref: Reference | None = None, budget: float | None = None) -> float | None:
    """The time beyond which the reference of ``result`` cannot judge it (:attr:`Reference.horizon`): its own
    error estimate there passes HORIZON_FRACTION of the mechanism's size, as on chaotic runs. None: no horizon."""
    if ref is None:
        ref = reference(result.benchmark, result.t, result.params, budget)
    return ref.horizon


def error(result: Result, ref: Reference | None = None, budget: float | None = None) -> np.ndarray:
    """The error of ``result`` against the reference at each of its saved samples: the largest distance between
    its drawn points and the reference's (m), or for angular_velocity the rotation angle (rad)."""
    if ref is None:
        ref = reference(result.benchmark, result.t, result.params, budget)
    if ref.t.shape != result.t.shape or not np.allclose(ref.t, result.t, rtol=0, atol=1e-12):
        raise ValueError("the reference is not at the result's saved times")
    if ref.unit == "rad":
        return _difference("rad", result.state["R"], ref.state["R"])
    return _difference("m", result.points, ref.points)
