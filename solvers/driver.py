"""The one loop: run a method's compiled kernel in chunks, report progress, honour cancellation, build the Result."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from . import kernels
from .methods.base import Method
from .models import dispatch
from .models.base import Model
from .result import Result, physics_warnings

# wall time one chunk of steps should take, so progress and cancel stay responsive
CHUNK_SECONDS = 0.05
FIRST_CHUNK = 64
# saved samples when the caller gives no max_samples (decimated evenly beyond)
MAX_SAVED_SAMPLES = 1_000_000

Progress = Callable[[float], bool | None]


def sample_plan(n_total: int, max_samples: int | None) -> tuple[int, int]:
    """Stride between saved steps and the number of rows to allocate (step 0 and the last are always saved)."""
    cap = MAX_SAVED_SAMPLES if max_samples is None else min(max_samples, MAX_SAVED_SAMPLES)
    stride = 1 if n_total + 1 <= cap else math.ceil(n_total / (cap - 1))
    return stride, n_total // stride + 2


def _message(code: int, info: np.ndarray, k: int, model: Model, method: Method,
             y: np.ndarray | None = None) -> tuple[str, str]:
    t = float(info[kernels.INFO_TIME])
    note = model.extra.get("state_note")
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
        why = method.domain_message or model.extra.get("domain_message", "the method left its domain of validity")
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
    max_samples: int | None = None,
    progress: Progress | None = None,
) -> Result:
    """Advance ``model`` by ``n_total`` steps of ``method`` and collect samples and summaries."""
    kind, data = dispatch.pack(model.machinery, model.data)
    y = model.y0.astype(float).copy()
    ny = y.shape[0]
    work = np.zeros(max(1, method.work_size(model)))
    opts = np.asarray(method.pack(options), dtype=float)
    stride, rows = sample_plan(n_total, max_samples)
    samples = np.full((rows, 1 + ny + kernels.N_DIAG), np.nan)
    maxima = np.zeros(kernels.N_MAXIMA)
    ref = np.zeros(2)
    info = np.zeros(kernels.N_INFO)
    kernel = method.kernel

    # compile or load the kernel before the clock starts (a dry call on copies, zero steps, no sample)
    kernel(kind, data, y.copy(), work.copy(), opts, 0.0, h, 1, 0, n_total, stride, samples[:0].copy(), 0,
           maxima.copy(), ref.copy(), info.copy())

    k = 0
    n_saved = 0
    cpu = 0.0
    chunk = FIRST_CHUNK
    status, message = "ok", ""
    while k < n_total:
        m = min(chunk, n_total - k)
        w0 = time.perf_counter()
        c0 = time.thread_time()
        done, code, n_saved = kernel(kind, data, y, work, opts, 0.0, h, k, m, n_total, stride, samples, n_saved,
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
        chunk = int(min(max(m * CHUNK_SECONDS / max(wall, 1e-6), 16), 2_000_000))
    if status == "ok" and progress is not None:
        progress(1.0)

    rows_ = samples[:n_saved]
    t = rows_[:, 0].copy()
    states = np.ascontiguousarray(rows_[:, 1 : 1 + ny])
    diag = rows_[:, 1 + ny :]
    applicable = np.isfinite(diag[0]) if n_saved else np.zeros(kernels.N_DIAG, bool)
    energy = diag[:, 0].copy()
    e0 = energy[0] if n_saved else np.nan
    series = {name: diag[:, j].copy() for j, name in enumerate(kernels.DIAG_FIELDS)}

    def maxed(j: int, diag_index: int) -> float:
        return float(maxima[j]) if applicable[diag_index] else float("nan")

    newton = int(maxima[kernels.MAX_NEWTON])
    summary = {
        "max_energy_error": maxed(0, 0),
        "max_constraint_position": maxed(1, 1),
        "max_constraint_velocity": maxed(2, 2),
        "max_constraint_acceleration": maxed(3, 3),
        "max_orthogonality_error": maxed(4, 4),
        "max_momentum_error": maxed(5, 5),
        "max_rotation_error": maxed(6, 6),
        "cpu_time": cpu,
        "steps": k,
        "steps_per_second": k / cpu if cpu > 0 else float("nan"),
        "newton_iterations": newton,
        # steps accepted with a stalled Newton iteration (update between tol and STALL_FACTOR tol): never silent
        "stalled_steps": int(maxima[kernels.MAX_STALLED]),
    }
    if info[kernels.INFO_SWITCHES] > 0:
        summary["switches"] = int(info[kernels.INFO_SWITCHES])
    if method.report is not None:
        summary.update(method.report(work, info))
    return Result(
        benchmark=benchmark,
        method=method.id,
        h=h,
        t_end=t_end,
        params={k_: v for k_, v in params.items() if not k_.startswith("_")},
        options=dict(options),
        t=t,
        energy=energy,
        energy_error=energy - e0,
        constraint_position=series["constraint_position"],
        constraint_velocity=series["constraint_velocity"],
        constraint_acceleration=series["constraint_acceleration"],
        orthogonality_error=series["orthogonality_error"],
        momentum=series["momentum"],
        rotation_error=series["rotation_error"],
        points=model.points(states) if n_saved else np.zeros((0, len(model.point_names), 3)),
        point_names=model.point_names,
        state=model.unpack(states),
        status=status,
        message=message,
        cpu_time=cpu,
        steps=k,
        newton_iterations=newton,
        summary=summary,
        # a failed or diverged run's message already says what went wrong
        warnings=physics_warnings(summary, e0, model.scales) if status in ("ok", "cancelled") else [],
    )
