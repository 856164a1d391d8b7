"""The one loop: run a method's compiled kernel in chunks, report progress, honour cancellation, build the Result.

Also what decides which steps are saved (:func:`save_plan`: every k-th step, given times, or a cap on samples)
and the :class:`Runner` a method's ``prepare`` uses for short runs of its own (spark's gamma = "opt"), so that they
answer to the caller's progress, cancel and deadline and their CPU time is counted in the run's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import kernels
from .methods.base import Method
from .models import dispatch
from .models.base import Model
from .result import Result, Status, physics_warnings

# wall time one chunk of steps should take, so progress and cancel stay responsive
CHUNK_SECONDS = 0.05
FIRST_CHUNK = 64
# the most samples one run saves (max_samples, save_every and save_at are checked against it)
MAX_SAVED_SAMPLES = 1_000_000

Progress = Callable[[float], bool | None]


# t_end / h within this relative distance of an integer n counts as n steps (decimal inputs such as 0.3 / 0.1)
GRID_TOLERANCE = 1e-9


def step_count(h: float, t_end: float) -> int:
    """Fixed steps to reach t_end: t_end / h rounded when within round-off of an integer, else ceil(t_end / h)
    (the last time is steps * h; :func:`check_t_end` refuses a t_end off the grid); ValueError when t_end / h is
    not a finite number (e.g. 1e300 / 1e-300)."""
    x = t_end / h
    if not math.isfinite(x):
        raise ValueError(f"t_end / h = {t_end:g} / {h:g} is not a finite number of steps; increase h or shorten t_end.")
    n = round(x)
    if abs(x - n) <= GRID_TOLERANCE * max(1, n):
        return max(1, n)
    return max(1, math.ceil(x))


def check_t_end(h: float, t_end: float) -> int:
    """The number of steps of size h that end exactly at t_end (up to round-off), or a ValueError naming the
    nearest multiples of h: the methods take whole fixed steps (an adaptive method's h is its output spacing), so
    a t_end between two multiples is refused rather than overshot."""
    x = t_end / h
    if not math.isfinite(x):
        raise ValueError(f"t_end / h = {t_end:g} / {h:g} is not a finite number of steps; increase h or shorten t_end.")
    n = round(x)
    if abs(x - n) <= GRID_TOLERANCE * max(1, n) and n >= 1:
        return n
    lo = math.floor(x)
    near = [f"{k * h:.12g} s ({k} steps)" for k in (lo, lo + 1) if k >= 1]
    raise ValueError(f"t_end = {t_end:g} s is not a multiple of h = {h:g} s (the methods take whole steps): the "
                     f"nearest multiples are {' and '.join(near)}")


@dataclass(frozen=True)
class SavePlan:
    """Which steps a run saves: every ``stride``-th step and the last (``steps`` None), or exactly ``steps``.

    ``rows`` is what the kernel's sample array needs (step 0 and the last step are always recorded; with
    ``steps`` the rows not asked for are dropped after the run).
    """

    stride: int
    rows: int
    steps: np.ndarray | None = None


def sample_plan(n_total: int, max_samples: int | None) -> tuple[int, int]:
    """Stride between saved steps and the number of rows to allocate for at most ``max_samples`` samples,
    decimated evenly (step 0 and the last are always saved)."""
    cap = MAX_SAVED_SAMPLES if max_samples is None else min(max_samples, MAX_SAVED_SAMPLES)
    stride = 1 if n_total + 1 <= cap else math.ceil(n_total / (cap - 1))
    return stride, n_total // stride + 2


def _int_at_least(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low} or None, got {value!r}")
    return int(value)


def save_plan(n_total: int, h: float, max_samples: int | None = None, save_every: int | None = None,
              save_at: Sequence[float] | np.ndarray | None = None) -> SavePlan:
    """The steps to save, from at most one of: ``max_samples`` (a cap, decimated evenly), ``save_every = k``
    (steps 0, k, 2k, ... and the last) or ``save_at`` (increasing times on the step grid, multiples of h up to
    n_total h, like SciPy's t_eval: exactly those). None of them: every step. Raises ValueError otherwise."""
    given = [n for n, v in (("max_samples", max_samples), ("save_every", save_every), ("save_at", save_at))
             if v is not None]
    if len(given) > 1:
        raise ValueError(f"give at most one of max_samples, save_every and save_at, got {' and '.join(given)}")
    if save_every is not None:
        k = _int_at_least("save_every", save_every, 1)
        count = n_total // k + 1 + (n_total % k != 0)
        if count > MAX_SAVED_SAMPLES:
            raise ValueError(f"save_every = {k} saves {count} samples of this {n_total}-step run, over the cap of "
                             f"{MAX_SAVED_SAMPLES}; save every {math.ceil(n_total / (MAX_SAVED_SAMPLES - 1))}th "
                             "step or more")
        return SavePlan(k, n_total // k + 2)
    if save_at is not None:
        steps = _grid_steps(save_at, n_total, h)
        return SavePlan(n_total + 1, steps.size + 2, steps)
    if max_samples is not None:
        _int_at_least("max_samples", max_samples, 2)
    stride, rows = sample_plan(n_total, max_samples)
    return SavePlan(stride, rows)


def _grid_steps(save_at: Sequence[float] | np.ndarray, n_total: int, h: float) -> np.ndarray:
    """The step indices of ``save_at`` times (ValueError for times off the grid, out of range or unsorted)."""
    try:
        times = np.asarray(save_at, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"save_at must be a sequence of times (s), got {save_at!r}") from None
    if times.ndim != 1 or times.size == 0:
        raise ValueError(f"save_at must be a non-empty 1-D sequence of times (s), got shape {times.shape}")
    if times.size > MAX_SAVED_SAMPLES:
        raise ValueError(f"save_at asks for {times.size} samples, over the cap of {MAX_SAVED_SAMPLES}")
    if not np.all(np.isfinite(times)):
        raise ValueError("save_at times must be finite")
    if np.any(np.diff(times) <= 0):
        raise ValueError("save_at times must be strictly increasing")
    steps = np.rint(times / h)
    off = np.abs(steps * h - times) > 1e-9 * np.maximum(h, np.abs(times))
    if np.any(off):
        t = times[np.argmax(off)]
        raise ValueError(f"save_at time {t:g} s is not on the step grid: the methods save at multiples of h = {h:g} s "
                         "(choose times k h)")
    if steps[0] < 0 or steps[-1] > n_total:
        t = times[0] if steps[0] < 0 else times[-1]
        raise ValueError(f"save_at time {t:g} s is outside the run, [0, {n_total * h:g}] s")
    return steps.astype(np.int64)


class CancelledError(Exception):
    """A sub-run of ``prepare`` was cancelled (by the caller's progress returning False)."""


class Runner:
    """What a method's ``prepare`` calls for short runs of its own (spark's gamma = "opt").

    ``runner(benchmark, method, h, t_end, params=, options=, save_every=)`` returns the sub-run's Result. Sub-runs
    report progress 0 to the caller's ``progress`` (so its cancel and deadline apply: a cancelled sub-run raises
    :class:`CancelledError`) and add their CPU time to ``cpu_time``, which the main run's Result includes.
    """

    def __init__(self, simulate: Callable[..., Result], progress: Progress | None) -> None:
        self._simulate = simulate
        self._progress = progress
        self.cpu_time = 0.0
        self.runs = 0

    def _report(self, _fraction: float) -> bool | None:
        return None if self._progress is None else self._progress(0.0)

    def __call__(self, benchmark: str, method: str, h: float, t_end: float, params: dict[str, Any] | None = None,
                 options: dict[str, Any] | None = None, save_every: int | None = None) -> Result:
        res = self._simulate(benchmark, method, h=h, t_end=t_end, params=params, options=options,
                             save_every=save_every, progress=self._report)
        self.cpu_time += res.cpu_time
        self.runs += 1
        if res.status == "cancelled":
            raise CancelledError(f"cancelled by the user while {method} prepared its options (sub-run {self.runs})")
        return res


def _message(code: int, info: np.ndarray, k: int, model: Model, method: Method,
             y: np.ndarray | None = None) -> tuple[Status, str]:
    t = float(info[kernels.INFO_TIME])
    note = model.state_note
    where = f"; {note(y)}" if note is not None and y is not None else ""
    if code == kernels.NONFINITE:
        return "diverged", (
            f"diverged at t = {t:.6g} s (step {k + 1}): the state became non-finite or exceeded "
            f"{kernels.BLOWUP:g}; the samples up to the last finite state are kept"
        )
    if code == kernels.NEWTON:
        return "failed", (
            f"Newton iteration of {method.id} did not converge at t = {t:.6g} s (step {k + 1}): residual "
            f"{info[kernels.INFO_RESIDUAL]:.3e} after {int(info[kernels.INFO_NEWTON])} iterations; try a smaller step"
        )
    if code == kernels.SINGULAR and k == 0:
        return "failed", (
            f"singular system at t = {t:.6g} s: the mass/constraint matrix of the initial state could not be "
            "factorised (check the inertia and the joints)"
        )
    if code == kernels.SINGULAR:
        return "diverged", (
            f"diverged at t = {t:.6g} s (step {k + 1}): the mass/constraint matrix became singular, the "
            "state has left the constraint manifold; try a smaller step"
        )
    if code == kernels.DOMAIN:
        why = method.domain_message or model.domain_message or "the method left its domain of validity"
        return "failed", f"failed at t = {t:.6g} s (step {k + 1}): {why}{where}"
    if code == kernels.STEPSIZE:
        cap, h_fail = info[kernels.INFO_CAP], info[kernels.INFO_STEP]
        how = (f"more than {int(cap)} internal steps in one output step" if cap > 0 else
               f"the step size fell to {h_fail:.3g} s, the minimum at this time (16 eps t)")
        return "failed", (f"failed at t = {t:.6g} s (output step {k + 1}): {method.id} cannot meet its error "
                          f"tolerance: {how}{where}")
    return "failed", f"kernel returned unknown status {code} at t = {t:.6g} s"


def run(
    benchmark: str,
    model: Model,
    method: Method,
    options: dict[str, Any],
    h: float,
    n_total: int,
    t_end: float,
    params: dict[str, Any],
    plan: SavePlan | None = None,
    progress: Progress | None = None,
    runner: Runner | None = None,
) -> Result:
    """Advance ``model`` by ``n_total`` steps of ``method``, saving the steps of ``plan`` (None: every step), and
    collect samples and summaries. A method's ``prepare`` runs first, with ``runner`` for its sub-runs."""
    plan = plan or save_plan(n_total, h)
    status: Status = "ok"
    message = ""
    prepare_cpu = 0.0
    requested = dict(options)
    if method.prepare is not None:
        runner = runner or Runner(_no_sub_runs, progress)
        try:
            options = method.prepare(options, benchmark=benchmark, params=params, model=model, h=h, t_end=t_end,
                                     run=runner)
        except CancelledError as exc:
            status, message = "cancelled", str(exc)
        prepare_cpu = runner.cpu_time
    # what prepare computed (spark's numeric gamma for 'opt'), kept apart from the request (which re-runs)
    derived = {k: v for k, v in options.items() if k not in requested or not _same_value(v, requested[k])}
    kind, data = dispatch.pack(model.machinery, model.data)
    y = model.y0.astype(float).copy()
    ny = y.shape[0]
    work = np.zeros(max(1, method.work_size(model)))
    opts = np.asarray(method.pack(method.complete(options)), dtype=float) if status == "ok" else np.zeros(1)
    save_steps = plan.steps
    stride = plan.stride
    samples = np.full((plan.rows, 1 + ny + kernels.N_DIAG + kernels.N_ENVELOPE), np.nan)
    maxima = np.zeros(kernels.N_MAXIMA)
    ref = np.full(4, np.nan)
    info = np.zeros(kernels.N_INFO)
    kernel = method.kernel

    if status == "ok":
        # compile or load the kernel before the clock starts (a dry call on copies, zero steps, no sample)
        kernel(kind, data, y.copy(), work.copy(), opts, 0.0, h, 1, 0, n_total, stride, samples[:0].copy(), 0,
               maxima.copy(), ref.copy(), info.copy())

    k = 0
    n_saved = 0
    cpu = 0.0
    chunk = FIRST_CHUNK
    target = 0  # with save_at: index in save_steps of the next step to save after k
    while k < n_total and status == "ok":
        m = min(chunk, n_total - k)
        last = n_total  # the step the kernel saves whatever the stride (save_at: the next asked-for step)
        if save_steps is not None:
            while target < save_steps.size and save_steps[target] <= k:
                target += 1
            if target < save_steps.size:
                last = int(save_steps[target])
                m = min(m, last - k)
        w0 = time.perf_counter()
        c0 = time.thread_time()
        done, code, n_saved = kernel(kind, data, y, work, opts, 0.0, h, k, m, last, stride, samples, n_saved,
                                     maxima, ref, info)
        cpu += time.thread_time() - c0
        wall = time.perf_counter() - w0
        k += int(done)
        if code != kernels.OK:
            status, message = _message(int(code), info, k, model, method, y)
            break
        if progress is not None and k < n_total and progress(k / n_total) is False:
            status, message = "cancelled", f"cancelled by the user at t = {k * h:.6g} s after {k} steps"
            break
        if save_steps is None or m == chunk:
            chunk = int(min(max(m * CHUNK_SECONDS / max(wall, 1e-6), 16), 2_000_000))
    if status == "ok" and progress is not None:
        progress(1.0)

    rows_ = samples[:n_saved]
    # step 0 is always recorded first: which diagnostics apply, and the energy the error is measured from
    applicable = np.isfinite(rows_[0, 1 + ny : 1 + ny + kernels.N_DIAG]) if n_saved else np.zeros(kernels.N_DIAG, bool)
    e0 = float(ref[kernels.REF_ENERGY])
    if save_steps is not None and n_saved:
        rows_ = rows_[np.isin(np.rint(rows_[:, 0] / h).astype(np.int64), save_steps)]
    t = rows_[:, 0].copy()
    states = np.ascontiguousarray(rows_[:, 1 : 1 + ny])
    diag = rows_[:, 1 + ny : 1 + ny + kernels.N_DIAG]
    envelope = rows_[:, 1 + ny + kernels.N_DIAG :] - e0
    envelope[~np.isfinite(envelope)] = np.nan
    energy = diag[:, kernels.D_ENERGY].copy()
    series = {name: diag[:, j].copy() for j, name in enumerate(kernels.DIAG_FIELDS)}

    def maxed(j: int) -> float:  # a maximum (MAX_*) of the diagnostic in the same slot (D_*), if it applies
        return float(maxima[j]) if applicable[j] else float("nan")

    newton = int(maxima[kernels.MAX_NEWTON])
    summary = {
        "max_energy_error": maxed(kernels.MAX_ENERGY),
        "max_constraint_position": maxed(kernels.MAX_CONSTRAINT_POSITION),
        "max_constraint_velocity": maxed(kernels.MAX_CONSTRAINT_VELOCITY),
        "max_constraint_acceleration": maxed(kernels.MAX_CONSTRAINT_ACCELERATION),
        "max_orthogonality_error": maxed(kernels.MAX_ORTHOGONALITY),
        "max_momentum_error": maxed(kernels.MAX_MOMENTUM),
        "max_rotation_error": maxed(kernels.MAX_ROTATION),
        # CPU time of the kernel plus that of prepare's sub-runs (prepare_cpu_time, when there are any)
        "cpu_time": cpu + prepare_cpu,
        "steps": k,
        "steps_per_second": k / cpu if cpu > 0 else float("nan"),
        "newton_iterations": newton,
        # steps accepted with a stalled Newton iteration (update between tol and STALL_FACTOR tol): never silent
        "stalled_steps": int(maxima[kernels.MAX_STALLED]),
    }
    if runner is not None and runner.runs:
        summary["prepare_cpu_time"] = prepare_cpu
        summary["prepare_runs"] = runner.runs
    if info[kernels.INFO_SWITCHES] > 0:
        summary["switches"] = int(info[kernels.INFO_SWITCHES])
    if method.report is not None:
        summary.update(method.report(work, info))
    return Result(
        benchmark=benchmark,
        method=method.id,
        h=h,
        t_end=t_end,
        params=dict(params),
        options=requested,
        derived=derived,
        t=t,
        energy=energy,
        energy_error=energy - e0,
        energy_error_envelope=envelope,
        constraint_position=series["constraint_position"],
        constraint_velocity=series["constraint_velocity"],
        constraint_acceleration=series["constraint_acceleration"],
        orthogonality_error=series["orthogonality_error"],
        momentum=series["momentum"],
        rotation_error=series["rotation_error"],
        points=model.points(states) if len(t) else np.zeros((0, len(model.point_names), 3)),
        point_names=model.point_names,
        state=model.unpack(states),
        status=status,
        message=message,
        cpu_time=cpu + prepare_cpu,
        steps=k,
        newton_iterations=newton,
        summary=summary,
        # a failed or diverged run's message already says what went wrong
        warnings=physics_warnings(summary, e0, model.scales) if status in ("ok", "cancelled") else [],
    )


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _no_sub_runs(*_args: Any, **_kwargs: Any) -> Result:
    raise RuntimeError("this run was started without a runner for prepare's sub-runs (use solvers.simulate)")
