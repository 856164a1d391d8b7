"""The typed result of a simulation (arrays of saved samples, status, summary over every step)."""

from __future__ import annotations

import csv
import html
import io
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from .kernels import DIAG_FIELDS

Status = Literal["ok", "diverged", "failed", "cancelled"]
STATUSES: tuple[Status, ...] = get_args(Status)

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


# the fields that are arrays of saved samples (first axis: sample) besides ``state``
ARRAYS = (*SERIES, "points", "energy_error_envelope")
# what differs between two runs of the same request on the same machine: CPU times and the provenance's clock
TIMING_KEYS = ("cpu_time", "steps_per_second", "prepare_cpu_time")
FORMATS = (".json", ".npz", ".csv")


def _same(a: Any, b: Any) -> bool:
    """Equal as saved data: arrays element-wise (NaN equal to NaN, shapes and values), everything else as plain
    JSON data (so a tuple equals a list and NaN equals null, as after a JSON round trip)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.array_equal(a.astype(float), b.astype(float), equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(_plain(a) == _plain(b))


def _shape(arr: np.ndarray) -> list[int]:
    return [int(n) for n in np.shape(arr)]


def _flat_columns(name: str, arr: np.ndarray) -> dict[str, np.ndarray]:
    """``name`` for a series, ``name[i,j]`` for each component of an array of samples (first axis: sample)."""
    flat = arr.reshape(arr.shape[0], -1)
    if arr.ndim == 1:
        return {name: flat[:, 0]}
    idx = np.indices(arr.shape[1:]).reshape(arr.ndim - 1, -1).T
    return {f"{name}[{','.join(map(str, ix))}]": flat[:, j] for j, ix in enumerate(idx)}


@dataclass(eq=False)
class Result:
    """One run: the saved samples (arrays with one row per saved step), its status and its summary over ALL steps.

    Request and identity
        ``benchmark``, ``method`` (ids), ``h`` (s; the fixed step, or an adaptive method's output spacing and
        largest step), ``t_end`` (s; a multiple of h), ``params`` (the benchmark's parameters, defaults filled in,
        SI units as in docs/benchmarks.md), ``options`` (the method's options as requested, defaults filled in;
        what :func:`solvers.rerun` passes again), ``derived`` (values a method computed from them before the
        run, e.g. spark's numeric ``gamma`` for gamma = 'opt'; :attr:`effective_options` merges the two),
        ``provenance`` (code version, source digest, git commit, library versions, platform, UTC start, wall
        and CPU time, the request as given: :mod:`solvers.provenance`).
    Series, shape (n,) for n saved samples
        ``t`` (s), ``energy`` (J), ``energy_error`` (J; E - E0), ``constraint_position`` (m, or the benchmark's
        constraint unit), ``constraint_velocity`` (m/s), ``constraint_acceleration`` (m/s^2),
        ``orthogonality_error`` (|R^T R - I|, dimensionless), ``momentum`` (kg m^2/s; |pi| where it is conserved),
        ``rotation_error`` (rad, against the exact rotation where one exists). A diagnostic that does not apply
        to the benchmark is NaN throughout.
    Arrays
        ``energy_error_envelope`` (n, 2), J: min and max of E - E0 over the steps since the previous sample
        (a decimated run's peaks); ``points`` (n, P, 3), m: the drawn points named by ``point_names`` (P,);
        ``state``: the state by name, each (n, ...) (e.g. ``R`` (n, N, 3, 3), ``Omega`` (n, N, 3) rad/s).
    Outcome
        ``status`` ("ok", "diverged", "failed", "cancelled"), ``message`` (why, when not ok), ``cpu_time`` (s,
        the kernel's thread CPU time plus a method's preparatory runs), ``steps`` (steps taken),
        ``newton_iterations`` (total), ``summary`` (maxima over every step, counts, rates), ``warnings``
        (sentences flagging implausible numbers of a finished run).

    ``a == b`` compares every field, arrays element-wise (NaN equal to NaN); :meth:`equals` can leave out the
    timings, so that ``solvers.rerun(r).equals(r, timing=False)``. :meth:`save` and :func:`solvers.load` round
    trip through .json, .npz and .csv.
    """

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
    status: Status
    message: str
    cpu_time: float
    steps: int
    newton_iterations: int
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # physics_warnings: implausible numbers of a finished run
    # per saved sample: min and max of E - E0 over the steps since the previous one (n, 2): a decimated run's peaks
    energy_error_envelope: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    derived: dict[str, Any] = field(default_factory=dict)  # values a method's prepare computed from the options
    provenance: dict[str, Any] = field(default_factory=dict)  # solvers.provenance.record

    @property
    def ok(self) -> bool:
        """True if the run reached t_end."""
        return self.status == "ok"

    @property
    def effective_options(self) -> dict[str, Any]:
        """The options the kernel ran with: the requested ones overridden by the derived ones."""
        return {**self.options, **self.derived}

    # -- notebook ---------------------------------------------------------------------------------------------
    def _headline(self) -> list[tuple[str, str]]:
        def num(key: str) -> str | None:
            v = self.summary.get(key)
            return None if v is None or not np.isfinite(v) else f"{float(v):.3g}"

        rows = [("max |E - E0|", num("max_energy_error")), ("max constraint", num("max_constraint_position")),
                ("max |R^T R - I|", num("max_orthogonality_error")), ("max rotation error", num("max_rotation_error"))]
        return [(k, v) for k, v in rows if v is not None]

    def __repr__(self) -> str:
        head = ", ".join(f"{k} {v}" for k, v in self._headline())
        msg = f", message={self.message[:80]!r}" if self.message else ""
        return (f"Result({self.method} on {self.benchmark}, h={self.h:g}, t_end={self.t_end:g}, steps={self.steps}, "
                f"samples={len(self.t)}, status={self.status!r}{msg}{', ' + head if head else ''})")

    def _repr_html_(self) -> str:
        rows = [("method", self.method), ("benchmark", self.benchmark), ("h", f"{self.h:g} s"),
                ("t_end", f"{self.t_end:g} s"), ("steps", str(self.steps)), ("saved samples", str(len(self.t))),
                ("status", self.status + (f": {self.message}" if self.message else "")),
                ("CPU time", f"{self.cpu_time:.3g} s"), *self._headline()]
        if self.provenance:
            rows.append(("version", f"{self.provenance.get('version')} ({self.provenance.get('source_digest')})"))
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
                       f"{html.escape(v)}</td></tr>" for k, v in rows)
        return f"<table><caption>solvers.Result</caption>{body}</table>"

    # -- comparison -------------------------------------------------------------------------------------------
    def equals(self, other: object, timing: bool = True) -> bool:
        """Every field equal, arrays element-wise (NaN equal to NaN). ``timing=False`` leaves out what differs
        between two runs of one request: the CPU times (``cpu_time``, the summary's timing entries) and the
        provenance's start time and wall and CPU times (its versions and request are still compared)."""
        if not isinstance(other, Result):
            return False
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if not timing and f.name == "cpu_time":
                continue
            if not timing and f.name in ("summary", "provenance"):
                drop = TIMING_KEYS if f.name == "summary" else ("started_utc", "wall_time", "process_cpu_time")
                a = {k: v for k, v in a.items() if k not in drop}
                b = {k: v for k, v in b.items() if k not in drop}
            if not _same(a, b):
                return False
        return True

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self.equals(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    # -- plain data and files ---------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        """Everything but the arrays, as plain JSON-able data, plus ``shapes`` (each array's shape, so that an
        empty run or a CSV's flat columns reload in shape)."""
        out: dict[str, Any] = {
            "benchmark": self.benchmark,
            "method": self.method,
            "h": self.h,
            "t_end": self.t_end,
            "params": self.params,
            "options": self.options,
            "derived": self.derived,
            "status": self.status,
            "message": self.message,
            "cpu_time": self.cpu_time,
            "steps": self.steps,
            "newton_iterations": self.newton_iterations,
            "summary": self.summary,
            "warnings": list(self.warnings),
            "point_names": list(self.point_names),
            "provenance": self.provenance,
            "shapes": {**{name: _shape(getattr(self, name)) for name in ARRAYS},
                       **{f"state.{k}": _shape(v) for k, v in self.state.items()}},
        }
        return _plain(out)

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-able data (NaN and infinities become null)."""
        out = self.meta()
        for name in ARRAYS:
            out[name] = _plain(getattr(self, name))
        out["state"] = _plain(self.state)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], arrays: dict[str, Any] | None = None) -> Result:
        """The Result of :meth:`to_dict` (or of :meth:`meta` plus ``arrays``: series by name and ``state.KEY``):
        arrays back as float arrays in their recorded shapes, null as NaN."""
        arrays = dict(arrays or {})
        shapes = data.get("shapes") or {}

        def arr(name: str, value: Any) -> np.ndarray:
            a = np.asarray(np.nan if value is None else value, dtype=float) if not isinstance(value, np.ndarray) \
                else value
            shape = shapes.get(name)
            return a.reshape(shape) if shape is not None and a.size == int(np.prod(shape)) else a

        series = {name: arr(name, arrays.get(name, data.get(name, []))) for name in ARRAYS}
        state_keys = [k[len("state."):] for k in shapes if k.startswith("state.")] or list(data.get("state") or {})
        state = {k: arr(f"state.{k}", arrays.get(f"state.{k}", (data.get("state") or {}).get(k, [])))
                 for k in state_keys}
        summary = {k: (float("nan") if v is None else v) for k, v in (data.get("summary") or {}).items()}
        return cls(
            benchmark=data["benchmark"], method=data["method"], h=float(data["h"]), t_end=float(data["t_end"]),
            params=dict(data.get("params") or {}), options=dict(data.get("options") or {}),
            state=state, point_names=tuple(data.get("point_names") or ()), status=data["status"],
            message=data.get("message", ""), cpu_time=float(data.get("cpu_time") or 0.0),
            steps=int(data.get("steps") or 0), newton_iterations=int(data.get("newton_iterations") or 0),
            summary=summary, warnings=list(data.get("warnings") or []),
            derived=dict(data.get("derived") or {}), provenance=dict(data.get("provenance") or {}),
            **series,
        )

    def columns(self) -> dict[str, np.ndarray]:
        """Flat named columns for CSV export: the series, the energy envelope (``energy_error_envelope[0]`` min,
        ``[1]`` max), the drawn points (``points[p,xyz]``) and every state component (``KEY[i,j]``)."""
        cols = {name: getattr(self, name) for name in SERIES}
        cols.update(_flat_columns("energy_error_envelope", self.energy_error_envelope))
        cols.update(_flat_columns("points", self.points))
        for key, arr in self.state.items():
            cols.update(_flat_columns(key, arr))
        return cols

    def save(self, path: str | Path) -> Path:
        """Write .npz, .csv or .json, chosen by the extension; each carries the provenance (the CSV in its
        ``#`` header lines, one ``# key = JSON`` line per entry). :func:`solvers.load` reads any of them back."""
        path = Path(path)
        ext = path.suffix.lower()
        if ext == ".json":
            path.write_text(json.dumps(self.to_dict()))
        elif ext == ".csv":
            cols = self.columns()
            with path.open("w", newline="") as fh:
                fh.write(f"# integrator-lab result: {self.benchmark} / {self.method}, h {self.h} s, "
                         f"t_end {self.t_end} s, status {self.status}\n")
                for key, value in self.meta().items():
                    fh.write(f"# {key} = {json.dumps(value)}\n")
                w = csv.writer(fh)
                w.writerow(cols)
                if cols and len(self.t):
                    w.writerows(np.column_stack(list(cols.values())).tolist())
        elif ext == ".npz":
            arrays = {name: getattr(self, name) for name in ARRAYS}
            arrays.update({f"state_{k}": v for k, v in self.state.items()})
            np.savez_compressed(path, meta=json.dumps(self.meta()), **arrays)
        else:
            raise ValueError(f"cannot save to {str(path)!r}: use a .npz, .csv or .json file name")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Result:
        """Read a Result written by :meth:`save` (.json, .npz or .csv, by the extension)."""
        path = Path(path)
        ext = path.suffix.lower()
        if ext == ".json":
            return cls.from_dict(json.loads(path.read_text()))
        if ext == ".npz":
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                arrays = {k: z[k] for k in z.files if k != "meta" and not k.startswith("state_")}
                arrays.update({f"state.{k[len('state_'):]}": z[k] for k in z.files if k.startswith("state_")})
                return cls.from_dict(meta, arrays)
        if ext == ".csv":
            return cls._load_csv(path)
        raise ValueError(f"cannot load {str(path)!r}: use a .npz, .csv or .json file")

    @classmethod
    def _load_csv(cls, path: Path) -> Result:
        meta: dict[str, Any] = {}
        lines = path.read_text().splitlines()
        body = [ln for ln in lines if not ln.startswith("#")]
        for ln in lines:
            key, sep, value = ln[1:].strip().partition(" = ")
            if ln.startswith("#") and sep and key.isidentifier():
                meta[key] = json.loads(value)
        if "benchmark" not in meta:
            raise ValueError(f"{str(path)!r} has no integrator-lab header lines ('# key = value')")
        rows = list(csv.reader(io.StringIO("\n".join(body))))
        names = rows[0] if rows else []
        data = np.array([[float(x) for x in r] for r in rows[1:]], dtype=float).reshape(-1, len(names))
        col = {n: data[:, j] for j, n in enumerate(names)}

        def gather(name: str, shape: list[int]) -> np.ndarray:
            if len(shape) == 1:
                return col[name].copy()
            idx = np.indices(shape[1:]).reshape(len(shape) - 1, -1).T
            parts = [col[f"{name}[{','.join(map(str, ix))}]"] for ix in idx]
            return np.column_stack(parts).reshape(shape) if parts else np.zeros(shape)

        arrays = {}
        for key, shape in meta.get("shapes", {}).items():
            arrays[key] = gather(key[len("state."):] if key.startswith("state.") else key, shape)
        return cls.from_dict(meta, arrays)


def load(path: str | Path) -> Result:
    """Read a Result saved by :meth:`Result.save` (.json, .npz or .csv): an equal Result, arrays as arrays."""
    return Result.load(path)
