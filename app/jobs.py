"""Run configurations of the solvers, validate the form and cache finished runs on disk (no Dash imports).

A *run* is one (benchmark, method, h, t_end, params, options). :func:`normalise` turns a form's values into
the canonical run configuration (parameters equal to their defaults dropped, options resolved in full), and
:func:`run_key` hashes it together with the code version: the per-run cache (:class:`RunCache`, a diskcache
directory shared by every gunicorn worker and background job) then serves a run again in any combination of
methods, instantly. Everything here is plain data in, plain data out; the dashboard calls it from thin
callbacks and background jobs, a script or a Celery worker can call it the same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import solvers
from solvers import figures
from solvers.registry import BENCHMARKS, METHODS
from solvers.result import SERIES, _plain
from solvers.studies import positive

STORE_SAMPLES = 20_000  # samples kept per cached run; the charts decimate them by min/max per pixel bucket
PROGRESS_INTERVAL = 0.25  # s: at most four progress reports per second
REFERENCE_SECONDS = 20.0  # time budget of a run's reference solution (solvers.references); beyond it: none, and why

Progress = Callable[[float], object]


def check_config(config: dict) -> dict:
    """Validate a run configuration; return it normalised or raise ValueError with a message for the user.

    Keys: ``benchmark``, ``method``, ``h``, ``t_end`` and optional ``params`` and ``options`` dicts.
    Only what the form can get wrong is checked here; :func:`solvers.simulate` checks the rest (ids, the
    cap on steps, h <= t_end) and :func:`simulate` reports its message as an error status.
    """
    benchmark, method = config.get("benchmark"), config.get("method")
    if not benchmark or not isinstance(benchmark, str):
        raise ValueError("Choose a benchmark.")
    if not method or not isinstance(method, str):
        raise ValueError("Choose a method.")
    h = positive(config.get("h"), "Step h")
    t_end = positive(config.get("t_end"), "End time")
    return {
        "benchmark": benchmark,
        "method": method,
        "h": h,
        "t_end": t_end,
        "params": dict(config.get("params") or {}),
        "options": dict(config.get("options") or {}),
    }


# ----------------------------------------------------------------------------------------------------------
# Form values -> validated, canonical run configurations


def format_value(value: Any) -> str:
    """A parameter or option value as the form shows it: numbers plainly, arrays as JSON lists, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = f"{value:.15g}"  # plain, but never at the cost of the value: sqrt(3) needs 17 digits
        return text if float(text) == value else repr(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):  # a typed Butcher tableau (erk, rkmk)
        return json.dumps(value, separators=(",", ":"))
    return json.dumps(np.asarray(value, dtype=float).tolist())


MAX_ENTRY_CHARS = 4_000  # a form entry longer than this is refused unread (a 3x3 matrix in full needs ~250)


def parse_value(raw: Any, max_chars: int = MAX_ENTRY_CHARS) -> Any:
    """A form entry as a number, a boolean, a (nested) list or None (empty); ValueError if unreadable or longer
    than ``max_chars`` characters (as JSON, for a list)."""
    if raw is None or isinstance(raw, (bool, int, float)):
        return raw
    if isinstance(raw, list):
        try:
            size = len(json.dumps(raw))
        except (RecursionError, TypeError, ValueError):
            raise ValueError("not a number or a list of numbers such as [0, 0, 0.7]") from None
        if size > max_chars:
            raise ValueError(f"a list of {size:,} characters: longer than any value this field takes")
        return raw
    if not isinstance(raw, str):
        raise ValueError("not a number or a list of numbers such as [0, 0, 0.7]")
    text = raw.strip()
    if text == "":
        return None
    if len(text) > max_chars:
        raise ValueError(f"an entry of {len(text):,} characters: longer than any value this field takes")
    try:
        return json.loads(text.replace("(", "[").replace(")", "]"))
    except (json.JSONDecodeError, RecursionError):
        pass
    parts = text.replace(",", " ").split()
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{text!r} is not a number or a list of numbers such as [0, 0, 0.7]") from None
    return numbers[0] if len(numbers) == 1 else numbers


def _entry_chars(shape: tuple[int, ...]) -> int:
    """The longest entry a value of this shape may take: 40 characters a number, plus room for brackets."""
    return 40 * int(np.prod(shape, dtype=np.int64)) + 100


def check_params(benchmark: str, raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Form entries of a benchmark's parameters -> (params that differ from the defaults, errors by name).

    An empty entry keeps the default. The returned params are plain JSON data, so equal physics gives an
    equal cache key whether or not a default was typed in.
    """
    spec = BENCHMARKS[benchmark].params
    params: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        if name not in spec:
            errors[str(name)[:40]] = f"unknown parameter {str(name)[:40]!r}; valid: {', '.join(spec) or '(none)'}"
            continue
        try:
            parsed = parse_value(value, _entry_chars(spec[name].largest_shape))
            if parsed is None:
                continue
            checked = spec[name].validate(name, parsed)
        except ValueError as exc:
            errors[name] = str(exc)
            continue
        default = spec[name].default
        if default is not None and np.array_equal(np.asarray(checked, dtype=float), np.asarray(default, dtype=float)):
            continue
        if isinstance(checked, (int, np.integer)):  # an integer parameter (a count, e.g. the chain's N): 32, not 32.0
            params[name] = int(checked)
        else:
            params[name] = _plain(np.asarray(parsed, dtype=float)) if not np.isscalar(checked) else float(checked)
    if not errors:
        bench = BENCHMARKS[benchmark]
        try:
            bench.build(bench.resolve(params))
        except ValueError as exc:
            errors[""] = str(exc)
    return params, errors


def check_options(method: str, raw: Mapping[str, Any],
                  benchmark: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Form entries of a method's options -> (every option resolved, errors by name). Empty keeps the default.
    With a ``benchmark``, only the options that act on it (solvers' Method.resolve refuses the others' values)."""
    spec = METHODS[method].options
    given: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        if name not in spec:
            errors[str(name)[:40]] = (f"unknown option {str(name)[:40]!r} for {method}; valid: "
                                      f"{', '.join(spec) or '(none)'}")
            continue
        try:
            if spec[name].kind == "choice" and not isinstance(value, str):
                raise ValueError(f"option {name!r}: choose one of {', '.join(map(repr, spec[name].choices))}")
            # a tableau is a name or JSON text, parsed by its own option (solvers.methods.erk.TableauOption)
            parsed = value if spec[name].kind in ("choice", "tableau") else parse_value(value, _entry_chars(()))
            if parsed is None or parsed == "":
                continue
            given[name] = spec[name].validate(name, parsed)
        except ValueError as exc:
            errors[name] = str(exc)
    if errors:
        return {}, errors
    try:
        resolved = METHODS[method].resolve(given, benchmark=benchmark)
    except ValueError as exc:
        name = next((k for k in given if repr(k) in str(exc)), "")
        return {}, {name: str(exc)}
    return {k: _plain(v) for k, v in resolved.items()}, {}


def format_count(n: float) -> str:
    """A count as a person reads it: exact with thousands separators up to 1e15 (where a float still holds every
    integer digit), else "about 1e24"."""
    return f"{int(n):,}" if n < 1e15 else f"about {n:.0e}".replace("e+", "e")


def check_form(form: Mapping[str, Any]) -> tuple[list[dict], dict[str, str]]:
    """Validate the whole run form; return (one canonical config per method, errors by field).

    ``form``: ``benchmark``, ``methods`` (list), ``h``, ``t_end``, ``params`` ({name: entry}) and ``options``
    ({method: {name: entry}}). Error keys: ``benchmark``, ``methods``, ``step``, ``t-end``, ``param:NAME``
    (``param:`` for the parameter set as a whole) and ``option:METHOD:NAME``. Nothing is returned to run
    unless there are no errors.
    """
    errors: dict[str, str] = {}
    benchmark = form.get("benchmark")
    if not isinstance(benchmark, str) or benchmark not in BENCHMARKS:
        return [], {"benchmark": f"Choose a benchmark ({', '.join(BENCHMARKS)})."}
    available = solvers.methods(benchmark)
    methods = form.get("methods") or []
    if not isinstance(methods, list) or not all(isinstance(m, str) for m in methods):
        return [], {"methods": f"Choose methods from the list ({', '.join(available)})."}
    chosen = [m for m in methods if m]
    wrong = [m[:40] for m in chosen if m not in available]
    if not chosen:
        errors["methods"] = "Choose at least one method."
    elif wrong:
        errors["methods"] = f"{', '.join(wrong)} does not apply to {benchmark}; valid: {', '.join(available)}"
    h = t_end = None
    try:
        h = positive(form.get("h"), "Step h")
    except ValueError as exc:
        errors["step"] = str(exc)
    try:
        t_end = positive(form.get("t_end"), "End time")
    except ValueError as exc:
        errors["t-end"] = str(exc)
    if h is not None and t_end is not None:
        try:
            steps = solvers.api.step_count(h, t_end)
        except (ValueError, OverflowError) as exc:
            steps, errors["step"] = 0, str(exc)
        if h > t_end:
            errors["step"] = f"Step h = {h:g} is larger than the end time {t_end:g}."
        elif steps > solvers.MAX_STEPS:
            # under End time when that alone is too long at the benchmark's own step, else under Step h
            too_long = solvers.api.step_count(solvers.describe(benchmark)["default_h"], t_end) > solvers.MAX_STEPS
            errors["t-end" if too_long else "step"] = (
                f"t_end / h needs {format_count(steps)} steps, over the cap of {solvers.MAX_STEPS:,}; increase h or "
                "shorten t_end."
            )
        else:
            try:
                solvers.api.check_t_end(h, t_end)  # the same rule as simulate: whole steps, no overshoot
            except ValueError as exc:
                errors["t-end"] = str(exc)
    params, param_errors = check_params(benchmark, _mapping(form.get("params")))
    errors.update({f"param:{k}": v for k, v in param_errors.items()})
    options_by_method = _mapping(form.get("options"))
    configs = []
    for method in chosen:
        if method not in available:
            continue
        options, option_errors = check_options(method, _mapping(options_by_method.get(method)), benchmark)
        errors.update({f"option:{method}:{k}": v for k, v in option_errors.items()})
        configs.append(
            {"benchmark": benchmark, "method": method, "h": h, "t_end": t_end, "params": params, "options": options}
        )
    return ([] if errors else configs), errors


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _canonical(x: Any) -> Any:
    """Numbers as floats (a config that went through the browser's JSON comes back with 12 for 12.0)."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x)
    if isinstance(x, Mapping):
        return {str(k): _canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_canonical(v) for v in x]
    return x


def run_key(config: Mapping[str, Any], version: str) -> str:
    """The cache key of one canonical run configuration under one code version."""
    fields = {k: config.get(k) for k in ("benchmark", "method", "h", "t_end", "params", "options")}
    canonical = json.dumps({"config": _canonical(fields), "version": version}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


# ----------------------------------------------------------------------------------------------------------
# Running and caching


def _throttled(progress: Progress | None, interval: float = PROGRESS_INTERVAL) -> Progress | None:
    """Forward the first report, then at most one per ``interval`` seconds. Never asks to cancel."""
    if progress is None:
        return None
    last = -math.inf

    def report(fraction: float) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= interval:
            last = now
            progress(fraction)

    return report


def _within(progress: Progress | None, deadline: Callable[[], bool] | None) -> Progress | None:
    """Forward progress (throttled); ask the solver to stop once ``deadline()`` turns False (the job's wall time)."""
    forward = _throttled(progress)
    if deadline is None:
        return forward

    def report(fraction: float) -> bool:
        if forward is not None:
            forward(fraction)
        return deadline()

    return report


def simulate(config: Mapping[str, Any], progress: Progress | None = None, max_samples: int = STORE_SAMPLES,
             deadline: Callable[[], bool] | None = None, limit_text: str = "",
             reference_store: Path | None = None) -> dict:
    """Run one canonical configuration; return a result dict with numpy arrays (what the run cache stores).

    ``deadline()`` (app.limits) is checked between the solver's chunks: once False, the run stops with status
    "cancelled", its partial results and ``limit_text`` as message.

    Keys: the config's, ``status``, ``message``, ``cpu_time``, ``wall_time``, ``steps``, ``newton_iterations``,
    ``summary`` (NaN as None; with ``max_error`` and ``error_at_end``), ``point_names``, the series of
    :data:`solvers.result.SERIES`, ``points``, ``state`` and the error against the reference
    (:func:`solvers.figures.record`: ``error``, ``error_unit``, ``reference``). Bad input gives
    ``status == "error"`` with the message and empty series, never an exception.
    """
    base = {k: config.get(k) for k in ("benchmark", "method", "h", "t_end", "params", "options")}
    started = time.perf_counter()
    try:
        res = solvers.simulate(
            config["benchmark"],
            config["method"],
            h=config["h"],
            t_end=config["t_end"],
            params=config.get("params") or None,
            options=config.get("options") or None,
            max_samples=max_samples,
            progress=_within(progress, deadline),
        )
    except ValueError as exc:
        empty = np.zeros(0)
        return {**base, "status": "error", "message": str(exc), "cpu_time": 0.0, "wall_time": 0.0, "steps": 0,
                "newton_iterations": 0, "summary": {}, "point_names": [], **{s: empty for s in SERIES},
                "points": np.zeros((0, 0, 3)), "state": {}, "error": empty, "error_unit": "", "reference": ""}
    message = limit_text if res.status == "cancelled" and deadline is not None and not deadline() else res.message
    record = figures.record(res, reference_budget=REFERENCE_SECONDS, reference_store=reference_store)
    return {**record, **base, "message": message, "wall_time": time.perf_counter() - started}


def interpreted(result: Mapping[str, Any]) -> bool:
    """True for a result made with the kernels interpreted (solvers/jit.py; its provenance says so)."""
    return (result.get("provenance") or {}).get("compiled") is False


class RunCache:
    """Finished runs on disk (diskcache), keyed by :func:`run_key`; shared by every process using ``directory``.

    Cancelled runs are never stored. Least recently stored runs are evicted beyond ``size_limit`` bytes.
    Identical runs are computed once at a time: :meth:`run` holds an advisory lock (``flock``, released by the
    kernel if the process dies) on one of 4096 lock files chosen by the key while it computes, and a second job
    asking for the same key waits for it and then reads the stored result (Dash itself never de-duplicates
    running jobs). Two different runs share a lock file with probability 1/4096 and then merely run one after
    the other.
    """

    def __init__(self, directory: str | Path, version: str, size_limit: int = 2**30) -> None:
        import diskcache

        self.version = version
        self._cache = diskcache.Cache(str(directory), size_limit=size_limit)
        self._locks = Path(directory) / "computing"
        self._locks.mkdir(exist_ok=True)
        # the runs' reference solutions, beside the runs, per code version (solvers.references.reference's store)
        self.reference_store = Path(directory).parent / "references" / version

    def close(self) -> None:
        self._cache.close()

    def key(self, config: Mapping[str, Any]) -> str:
        return run_key(config, self.version)

    def get(self, key: str) -> dict | None:
        return self._cache.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._cache

    def put(self, key: str, result: dict) -> None:
        if result.get("status") != "cancelled":
            self._cache.set(key, result)

    def mark_job(self, token: str, state: str) -> None:
        """Record a background job's state ("started", "finished") under its request token, for a day."""
        self._cache.set(f"job:{token}", state, expire=86400)

    def claim(self, token: str) -> bool:
        """Use up a job request's token: True the first time (atomic across processes), False ever after (for a
        day, longer than a request is valid: app.background.REQUEST_SECONDS)."""
        return bool(self._cache.add(f"used:{token}", 1, expire=86400))

    def job_state(self, token: str) -> str | None:
        """What the job of request ``token`` recorded last; None if it never started."""
        return self._cache.get(f"job:{token}")

    def run(self, config: Mapping[str, Any], progress: Progress | None = None,
            deadline: Callable[[], bool] | None = None, limit_text: str = "",
            compiled: bool = False, wait: bool = True) -> tuple[str, dict, bool]:
        """(key, result, from_cache): the cached result or a fresh run (then stored; see simulate for deadline).
        ``compiled``: a cached result made with the kernels interpreted (:func:`interpreted`) is run again and
        replaced (the background warm-up's, app/warm.py, once the kernel is compiled). ``wait=False``: compute
        without waiting for the lock, and store only if no result was stored meanwhile (app.warm --interpreted,
        whose run must not wait for the compile that app.warm --auto does under the lock)."""
        key = self.key(config)
        hit = self.get(key)
        if hit is not None and not (compiled and interpreted(hit)):
            return key, hit, True
        if not wait:
            result = simulate(config, progress, deadline=deadline, limit_text=limit_text,
                              reference_store=self.reference_store)
            if result.get("status") != "cancelled" and not self._cache.add(key, result):
                return key, self.get(key) or result, True  # the compiled run came first: it stays
            return key, result, False
        with self._computing(key):
            hit = self.get(key)  # computed by another job while this one waited for the lock
            if hit is not None and not (compiled and interpreted(hit)):
                return key, hit, True
            result = simulate(config, progress, deadline=deadline, limit_text=limit_text,
                              reference_store=self.reference_store)
            self.put(key, result)
        return key, result, False

    def memo(self, kind: str, payload: Mapping[str, Any], compute: Callable[[], dict]) -> tuple[dict, bool]:
        """(result, from_cache) of a whole page job (``kind``: "study", "experiment") keyed by its plain
        ``payload`` and the code version; computed once at a time like :meth:`run`; only results with status
        "ok" are stored (a cancelled or stopped job is computed again next time)."""
        key = self.memo_key(kind, payload)
        hit = self.get(key)
        if hit is not None:
            return hit, True
        with self._computing(key):
            hit = self.get(key)
            if hit is not None:
                return hit, True
            result = compute()
            if result.get("status") == "ok":
                self._cache.set(key, result)
        return result, False

    def recall(self, kind: str, payload: Mapping[str, Any]) -> dict | None:
        """A page job's stored result (:meth:`memo`), or None: asks without computing."""
        return self.get(self.memo_key(kind, payload))

    def memo_key(self, kind: str, payload: Mapping[str, Any]) -> str:
        """The key :meth:`memo` stores a page job's result under (``get`` it to ask without computing)."""
        canonical = json.dumps({"kind": kind, "payload": _canonical(dict(payload)), "version": self.version},
                               sort_keys=True, separators=(",", ":"))
        return f"{kind}:" + hashlib.sha256(canonical.encode()).hexdigest()[:32]

    @contextlib.contextmanager
    def _computing(self, key: str):
        with open(self._locks / f"{key[-3:]}.lock", "a+") as fh:  # closing the file releases the lock
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield
