"""The public API: simulate(), rerun(), benchmarks(), methods(), describe()."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _numba_cache, driver, provenance
from .driver import check_t_end, step_count  # noqa: F401  (step_count: public here, the Run page's step cap)
from .registry import BENCHMARKS, METHODS, applies
from .result import Result, _plain

# The documented cap on steps per run (t_end / h); larger runs are refused with a ValueError.
MAX_STEPS = 10_000_000


def benchmarks() -> list[str]:
    """Ids of all benchmarks."""
    return list(BENCHMARKS)


def methods(benchmark: str | None = None) -> list[str]:
    """Ids of all methods or, with a benchmark id, of those that apply to it."""
    if benchmark is None:
        return list(METHODS)
    _check_benchmark(benchmark)
    return [m for m in METHODS if applies(m, benchmark)]


def describe(benchmark: str) -> dict[str, Any]:
    """Plain-data description of a benchmark: title, seed, description, parameter defaults and docs, methods."""
    _check_benchmark(benchmark)
    out = BENCHMARKS[benchmark].describe()
    out["methods"] = methods(benchmark)
    return out


def describe_method(method: str) -> dict[str, Any]:
    """Plain-data description of a method: title, seed, order, options with defaults and ranges."""
    _check_method(method)
    return METHODS[method].describe()


def _check_benchmark(benchmark: Any) -> None:
    if not isinstance(benchmark, str) or benchmark not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {benchmark!r}; valid: {', '.join(BENCHMARKS)}")


def _check_method(method: Any) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return x


def simulate(
    benchmark: str,
    method: str,
    h: float,
    t_end: float,
    params: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    max_samples: int | None = None,
    progress: driver.Progress | None = None,
    save_every: int | None = None,
    save_at: Sequence[float] | np.ndarray | None = None,
) -> Result:
    """Integrate ``benchmark`` with ``method`` at fixed step ``h`` up to ``t_end``.

    ``params`` override the benchmark's parameters, ``options`` the method's options. Which steps are saved (the
    summaries always cover every step), at most one of: ``max_samples`` caps the saved samples (decimated
    evenly), ``save_every = k`` saves steps 0, k, 2k, ... and the last, ``save_at`` saves exactly the given
    increasing times, which must be multiples of h (like SciPy's ``t_eval``); none saves every step. ``t_end`` must
    be a multiple of ``h`` (up to round-off): the methods take whole steps, and a t_end between two multiples is
    refused with a message naming them rather than silently overshot. An option that cannot act on the
    benchmark (rk4's ``switch`` off angular_velocity) is refused when given a non-default value and is not
    recorded. The Result records the request and where it ran (``Result.provenance``; :func:`rerun` replays it).
    ``progress(fraction)`` is called between chunks and cancels the run by returning False; a method's own
    preparatory runs (spark's gamma = "opt") answer to it too, and their CPU time is in the Result's. Bad input
    raises ValueError naming the value and the valid choices; a diverging or failing run returns its partial
    results with status and message.
    """
    started = provenance.utc_now()
    w0, c0 = time.perf_counter(), time.process_time()
    request = {"benchmark": benchmark, "method": method, "h": h, "t_end": t_end,
               "params": None if params is None else dict(params) if isinstance(params, Mapping) else params,
               "options": None if options is None else dict(options) if isinstance(options, Mapping) else options,
               "max_samples": max_samples, "save_every": save_every, "save_at": save_at}
    _check_benchmark(benchmark)
    _check_method(method)
    if not applies(method, benchmark):
        raise ValueError(
            f"method {method!r} does not apply to benchmark {benchmark!r}; valid: {', '.join(methods(benchmark))}"
        )
    h = _positive("h", h)
    t_end = _positive("t_end", t_end)
    if h > t_end:
        raise ValueError(f"h = {h:g} is larger than t_end = {t_end:g}")
    n_total = check_t_end(h, t_end)
    if n_total > MAX_STEPS:
        raise ValueError(
            f"t_end / h = {t_end:g} / {h:g} needs {n_total} steps, over the cap of {MAX_STEPS} steps per run; "
            "increase h or shorten t_end"
        )
    plan = driver.save_plan(n_total, h, max_samples, save_every, save_at)
    if save_at is not None:  # recorded as the validated times (plain floats), once save_plan has checked them
        request["save_at"] = np.asarray(save_at, dtype=float).tolist()
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {progress!r}")
    bench = BENCHMARKS[benchmark]
    meth = METHODS[method]
    resolved = bench.resolve(params)
    opts = meth.resolve(options, benchmark=benchmark)
    model = bench.build(resolved)
    runner = driver.Runner(simulate, progress) if meth.prepare is not None else None
    res = driver.run(benchmark, model, meth, opts, h, n_total, t_end, resolved, plan, progress, runner)
    res.provenance = provenance.record(started, time.perf_counter() - w0, time.process_time() - c0, _plain(request))
    return res


def rerun(result: Result, progress: driver.Progress | None = None) -> Result:
    """Run ``result``'s recorded request again (``result.provenance["request"]``: the arguments ``simulate``
    was given, saving choice included). On the same machine and code version (compare the provenance's
    ``source_digest``) the new Result equals the old one but for its timings: ``rerun(r).equals(r,
    timing=False)``. A Result without provenance re-runs from its benchmark, method, h, t_end, params and
    options (every step saved)."""
    if not isinstance(result, Result):
        raise ValueError(f"rerun expects a solvers.Result, got {type(result).__name__}")
    req = dict(result.provenance.get("request") or {})
    if not req:
        req = {"benchmark": result.benchmark, "method": result.method, "h": result.h, "t_end": result.t_end,
               "params": result.params, "options": result.options}
    return simulate(req.pop("benchmark"), req.pop("method"), progress=progress, **req)


def _warm_method(method: str) -> None:
    """Compile (or load) one method's kernel: two steps on every benchmark it applies to."""
    for b in BENCHMARKS:
        if applies(method, b):
            _warm_pair((method, b))


def _warm_pair(pair: tuple[str, str]) -> None:
    """Compile (or load) the kernel of one (method, benchmark) pair: two steps at the benchmark's default step."""
    method, benchmark = pair
    spec = BENCHMARKS[benchmark]
    simulate(benchmark, method, h=spec.default_h, t_end=2 * spec.default_h)


def _warm_references() -> None:
    """Compile (or load) the references' kernel (the compiled DOP853 every benchmark's reference runs on) by a
    short reference solution."""
    from . import references

    references.reference("pendulum_3d", [0.0, 0.01])


def warm_tasks() -> list[tuple[str, str]]:
    """One (method, benchmark) pair per distinct compiled kernel and machinery (methods sharing a kernel, such as
    lgvi and lgvi_lagrangian, and benchmarks of one machinery compile it once), in registry order: the largest
    kernels start first."""
    tasks: list[tuple[str, str]] = []
    seen: set[tuple[int, str]] = set()
    for m, meth in METHODS.items():
        for b, spec in BENCHMARKS.items():
            key = (id(meth.kernel), spec.machinery)
            if applies(m, b) and key not in seen:
                seen.add(key)
                tasks.append((m, b))
    return tasks


def warm_order() -> list[tuple[str, str]]:
    """:func:`warm_tasks` in the order the warm-up's processes take them, and the references' kernel
    (``("references", "")``): the compiled implicit kernels first (a Newton iteration around the step: the
    largest compiles, lgvi's a minute here), then the explicit ones and the references' DOP853, then the SciPy
    baselines (nothing to compile); registry order within each. Two processes taking the next task when free
    then end within a few seconds of each other (docs/performance.md, "The warm-up's two processes")."""
    tasks = [*warm_tasks(), ("references", "")]

    def rank(task: tuple[str, str]) -> int:
        if task[0] == "references":
            return 1
        props = METHODS[task[0]].properties
        return 2 if "not compiled" in props else 0 if "implicit" in props else 1

    return sorted(tasks, key=rank)


def _warm_task(task: tuple[str, str]) -> None:
    """One task of :func:`warm_order`: a (method, benchmark) pair, or the references' kernel."""
    if task[0] == "references":
        _warm_references()
    else:
        _warm_pair(task)


def warmup(verbose: bool = True, jobs: int = 1) -> float:
    """Compile (or load from the on-disk cache) every kernel by running each pair for two steps.

    ``jobs`` > 1 compiles the distinct kernels in that many processes at once, each taking the next task of
    :func:`warm_order` when it is free, then loads them all in this process."""
    t0 = time.perf_counter()
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # each task to the first free process, in warm_order (numba compiles in one thread and writes each cache
        # file atomically; a part one process compiled, the other loads). A process that dies raises
        # BrokenProcessPool here instead of leaving the warm-up waiting
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            for _ in pool.map(_warm_task, warm_order()):
                pass
    for m in METHODS:
        _warm_method(m)
    _warm_references()
    _numba_cache.mark_complete()
    dt = time.perf_counter() - t0
    if verbose:
        print(f"kernels ready in {dt:.2f} s")
    return dt


def default_jobs() -> int:
    """Compile processes for warmup: the CPU count, at most 4 (each process holds a few hundred MB while it
    compiles, and there are about a dozen kernels)."""
    return max(1, min(4, os.cpu_count() or 1))


def kernels_ready() -> bool:
    """True when a warmup of this version of the sources has completed (every kernel is in the on-disk cache,
    so loading them takes about a second instead of compiling for minutes)."""
    return _numba_cache.is_complete()
