"""Benchmark descriptions: parameters (validated), the model handed to kernels, drawable points."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

# Any physical scalar beyond this magnitude is refused as absurd.
MAX_ABS_PARAM = 1e6


def _brief(value: Any, limit: int = 80) -> str:
    """A value as a message quotes it: its repr, cut to ``limit`` characters (a message never echoes a huge entry)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


@dataclass(frozen=True)
class Param:
    """One benchmark parameter: default, shape, constraints and a one-line description."""

    default: Any
    doc: str
    unit: str = ""
    shape: tuple[int | None, ...] = ()
    positive: bool = False  # strictly > 0
    nonnegative: bool = False
    kind: str = "real"  # "real" | "integer" | "rotation" (orthogonal, det 1) | "inertia" (symmetric, pos. definite)
    max_abs: float = MAX_ABS_PARAM
    minimum: float | None = None  # the smallest allowed value (scalars)
    # shape's first entry None: one row per item (per rod of a chain), 1 to max_items rows; the benchmark's build
    # checks the count against its own (e.g. the chain's N)
    max_items: int = 64

    def validate(self, name: str, value: Any) -> Any:
        """Return the value as float / float array, or raise ValueError naming the problem."""
        try:
            arr = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                f"parameter {name!r}: {_brief(value)} is not a number{self._shape_text()}"
            ) from None
        if not self._fits(arr.shape):
            raise ValueError(
                f"parameter {name!r}: expected {self._shape_text(True)}, got shape {arr.shape} ({_brief(value)})"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"parameter {name!r}: {_brief(value)} is not finite")
        if self.kind == "integer" and np.any((arr < (self.minimum or -self.max_abs)) | (arr > self.max_abs)
                                             | (arr != np.round(arr))):
            low = -self.max_abs if self.minimum is None else self.minimum
            raise ValueError(
                f"parameter {name!r}: {_brief(value)} must be a whole number from {low:g} to {self.max_abs:g}")
        if np.any(np.abs(arr) > self.max_abs):
            raise ValueError(f"parameter {name!r}: {_brief(value)} exceeds the allowed magnitude {self.max_abs:g}")
        if self.minimum is not None and np.any(arr < self.minimum):
            raise ValueError(f"parameter {name!r}: {_brief(value)} must be >= {self.minimum:g}")
        if self.kind == "integer":
            return int(arr) if self.shape == () else arr.astype(int)
        if self.positive and np.any(arr <= 0):
            raise ValueError(f"parameter {name!r}: {_brief(value)} must be > 0")
        if self.nonnegative and np.any(arr < 0):
            raise ValueError(f"parameter {name!r}: {_brief(value)} must be >= 0")
        if self.kind == "rotation":
            err = np.linalg.norm(arr @ arr.T - np.eye(3))
            if err > 1e-9 or np.linalg.det(arr) < 0:
                raise ValueError(
                    f"parameter {name!r}: not a rotation matrix (|R R^T - I| = {err:.2e}, "
                    f"det = {np.linalg.det(arr):.3f}); give an orthogonal 3x3 matrix with det 1"
                )
            # re-orthonormalise the few last bits so kernels start exactly on SO(3)
            u, _, vt = np.linalg.svd(arr)
            arr = u @ vt
        if self.kind == "inertia":
            if np.linalg.norm(arr - arr.T) > 1e-12 * max(1.0, np.abs(arr).max()):
                raise ValueError(f"parameter {name!r}: inertia matrix must be symmetric")
            if np.linalg.eigvalsh(arr).min() <= 0:
                raise ValueError(f"parameter {name!r}: inertia matrix must be positive definite")
        return float(arr) if self.shape == () else arr

    def _fits(self, shape: tuple[int, ...]) -> bool:
        if self.shape[:1] != (None,):
            return shape == self.shape
        return len(shape) == len(self.shape) and 1 <= shape[0] <= self.max_items and shape[1:] == self.shape[1:]

    @property
    def largest_shape(self) -> tuple[int, ...]:
        """The shape of the largest value the parameter takes (max_items rows when their count varies)."""
        return tuple(self.max_items if n is None else n for n in self.shape)

    def _shape_text(self, always: bool = False) -> str:
        if self.shape == ():
            return "a real number" if always else ""
        if self.shape[:1] == (None,):
            row = "a number" if len(self.shape) == 1 else f"a row of {self.shape[1]} numbers"
            text = f"a list of 1 to {self.max_items} entries, {row} each"
        else:
            text = f"an array of shape {self.shape}"
        return f" {text}" if not always else text


@dataclass(frozen=True)
class Scales:
    """Physical sizes of a built benchmark, for the plausibility warnings of solvers.result.

    ``length``: the mechanism's size (m); ``potential_min``: the lowest potential energy the mechanism can
    reach (J), so E0 - potential_min bounds the kinetic energy of the exact motion; ``constraint``: the
    constraint residual (in ``constraint_unit``) that counts as visibly off the mechanism (1 % of its size).
    """

    length: float
    potential_min: float
    constraint: float
    constraint_unit: str = "m"


@dataclass
class Model:
    """A built benchmark: the arrays a kernel reads, the initial state and how to read states back.

    ``machinery`` names the family of kernels that can advance it ("rigid", "coords", "rotvec").
    ``data`` is the tuple of arrays passed to the kernels of that machinery.
    """

    machinery: str
    data: tuple
    y0: np.ndarray
    unpack: Callable[[np.ndarray], dict[str, np.ndarray]]
    points: Callable[[np.ndarray], np.ndarray]
    point_names: tuple[str, ...]
    # why a method's DOMAIN status fails a run on this model, and a note on the state where it did (the driver's
    # message; angular_velocity: the rotation vector's singularity)
    domain_message: str = ""
    state_note: Callable[[np.ndarray], str] | None = None
    scales: Scales | None = None  # None: no plausibility warnings (e.g. no potential, no constraints)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark of docs/benchmarks.md: metadata, parameters and the builder of its model."""

    id: str
    title: str
    seed: str
    description: str
    params: Mapping[str, Param]
    build: Callable[[dict[str, Any]], Model]
    default_h: float
    default_t_end: float
    machinery: str  # "rigid" | "coords" | "rotvec": the family of kernels that advance its model
    exclusive: tuple[tuple[str, ...], ...] = ()  # groups of keys of which at most one may be given
    gravity_direction: tuple[float, float, float] | None = (0.0, -1.0, 0.0)  # world frame; None: no gravity

    def resolve(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults overridden by ``params``, every value validated."""
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise ValueError(f"params must be a dict, got {type(params).__name__}")
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(repr, unknown))} for benchmark {self.id!r}; "
                f"valid: {', '.join(self.params) or '(none)'}"
            )
        for group in self.exclusive:
            given = [k for k in group if k in params]
            if len(given) > 1:
                raise ValueError(f"give at most one of {', '.join(given)} for benchmark {self.id!r}")
        out: dict[str, Any] = {}
        for name, spec in self.params.items():
            value = params.get(name, spec.default)
            if value is None and spec.default is not None:
                raise ValueError(f"parameter {name!r}: got None; give {spec._shape_text(True)}")
            out[name] = None if value is None else spec.validate(name, value)
        return out

    def describe(self) -> dict[str, Any]:
        """Plain-data description for the dashboard and the CLI."""

        def plain(v: Any) -> Any:
            return np.asarray(v).tolist() if v is not None and not isinstance(v, str) else v

        return {
            "id": self.id,
            "title": self.title,
            "seed": self.seed,
            "description": self.description,
            "default_h": self.default_h,
            "default_t_end": self.default_t_end,
            "gravity_direction": None if self.gravity_direction is None else list(self.gravity_direction),
            "params": {k: plain(p.default) for k, p in self.params.items()},
            "param_docs": {k: (p.doc + (f" [{p.unit}]" if p.unit else "")) for k, p in self.params.items()},
        }
