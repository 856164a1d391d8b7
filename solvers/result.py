"""The typed result of a simulation (arrays of saved samples, status, summary over every step)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .kernels import DIAG_FIELDS

STATUSES = ("ok", "diverged", "failed", "cancelled")

# an orthogonality error |R^T R - I| above this means the rotations visibly left SO(3)
ORTHOGONALITY_LIMIT = 1e-6

SERIES = ("t", "energy", "energy_error", *DIAG_FIELDS[1:])  # the saved series, in the kernels' order


def _plain(x: Any) -> Any:
    """JSON-able copy: arrays to nested lists, NaN/inf to None."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            obj = x.astype(object)
            obj[~np.isfinite(x)] = None
            return obj.tolist()
        return x.tolist()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(x) if np.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def physics_warnings(summary: dict[str, Any], energy0: float, scales: Any) -> list[str]:
    """Sentences flagging a run whose numbers are physically implausible, though it reached t_end.

    ``scales`` is the model's :class:`solvers.models.base.Scales` (or None: no warnings but SO(3)). A run
    is flagged when its constraint drift exceeds 1 % of the mechanism's size, when its energy error exceeds
    E0 - U_min (the largest kinetic energy the exact motion can reach), or when its rotations left SO(3).
    """
    out: list[str] = []

    def big(key: str, limit: float) -> float | None:
        v = summary.get(key)
        if v is None or not np.isfinite(limit) or limit <= 0:
            return None
        v = float(v)
        if np.isnan(v):
            return None
        return v if not v <= limit else None  # inf counts as too big

    if scales is not None:
        unit = scales.constraint_unit
        drift = big("max_constraint_position", scales.constraint)
        if drift is not None:
            out.append(
                f"the bodies drifted off the constraints by {drift:.3g} {unit} (the mechanism is "
                f"{scales.length:.3g} m; 1 % of it is {scales.constraint:.3g} {unit}): the trajectory is not "
                "the mechanism's motion"
            )
        reach = float(energy0) - scales.potential_min if np.isfinite(energy0) else float("nan")
        err = big("max_energy_error", reach)
        if err is not None:
            out.append(
                f"the energy error {err:.3g} J exceeds the largest kinetic energy the exact motion can reach "
                f"({reach:.3g} J): the energy is not conserved in any useful sense"
            )
    ortho = big("max_orthogonality_error", ORTHOGONALITY_LIMIT)
    if ortho is not None:
        out.append(
            f"the rotations left SO(3): |R^T R - I| reached {ortho:.3g} (limit {ORTHOGONALITY_LIMIT:g}), so "
            "the attitudes are not rotations"
        )
    return out


@dataclass
class Result:
    """Saved samples (equal-length arrays), the run's status and its summary over ALL steps."""

    benchmark: str
    method: str
    h: float
    t_end: float
    params: dict[str, Any]
    options: dict[str, Any]
    t: np.ndarray
    energy: np.ndarray
    energy_error: np.ndarray
    constraint_position: np.ndarray
    constraint_velocity: np.ndarray
    constraint_acceleration: np.ndarray
    orthogonality_error: np.ndarray
    momentum: np.ndarray
    rotation_error: np.ndarray
    points: np.ndarray
    point_names: tuple[str, ...]
    state: dict[str, np.ndarray]
    status: str
    message: str
    cpu_time: float
    steps: int
    newton_iterations: int
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # physics_warnings: implausible numbers of a finished run
    # per saved sample: min and max of E - E0 over the steps since the previous one (n, 2): a decimated run's peaks
    energy_error_envelope: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    @property
    def ok(self) -> bool:
        """True if the run reached t_end."""
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-able data (NaN becomes null)."""
        out: dict[str, Any] = {
            "benchmark": self.benchmark,
            "method": self.method,
            "h": self.h,
            "t_end": self.t_end,
            "params": self.params,
            "options": self.options,
            "status": self.status,
            "message": self.message,
            "cpu_time": self.cpu_time,
            "steps": self.steps,
            "newton_iterations": self.newton_iterations,
            "summary": self.summary,
            "warnings": list(self.warnings),
            "point_names": list(self.point_names),
        }
        for name in SERIES:
            out[name] = getattr(self, name)
        out["points"] = self.points
        out["state"] = self.state
        return _plain(out)

    def columns(self) -> dict[str, np.ndarray]:
        """Flat named columns (diagnostics and every state component) for CSV export."""
        cols = {name: getattr(self, name) for name in SERIES}
        for key, arr in self.state.items():
            flat = arr.reshape(arr.shape[0], -1)
            if flat.shape[1] == 1:
                cols[key] = flat[:, 0]
                continue
            idx = np.indices(arr.shape[1:]).reshape(arr.ndim - 1, -1).T
            for j, ix in enumerate(idx):
                cols[f"{key}[{','.join(map(str, ix))}]"] = flat[:, j]
        return cols

    def save(self, path: str | Path) -> Path:
        """Write .npz, .csv or .json, chosen by the extension."""
        path = Path(path)
        ext = path.suffix.lower()
        if ext == ".json":
            path.write_text(json.dumps(self.to_dict()))
        elif ext == ".csv":
            cols = self.columns()
            with path.open("w", newline="") as fh:
                fh.write(f"# {self.benchmark} / {self.method}, h = {self.h}, status = {self.status}\n")
                w = csv.writer(fh)
                w.writerow(cols)
                w.writerows(np.column_stack(list(cols.values())).tolist())
        elif ext == ".npz":
            arrays = {name: getattr(self, name) for name in SERIES}
            arrays.update({f"state_{k}": v for k, v in self.state.items()})
            arrays["points"] = self.points
            meta = {k: v for k, v in self.to_dict().items() if k not in arrays and k not in ("state",)}
            np.savez_compressed(path, meta=json.dumps(meta), **arrays)
        else:
            raise ValueError(f"cannot save to {str(path)!r}: use a .npz, .csv or .json file name")
        return path
