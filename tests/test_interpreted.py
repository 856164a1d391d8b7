"""Kernels interpreted (NUMBA_DISABLE_JIT=1, solvers/jit.py): the compiled kernels' numbers bit for bit, what a fresh
server shows for its first default run (app/warm.py), and how the run cache and the summary table treat it."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

import solvers
from app import jobs, layout
from solvers import figures
from solvers.api import warm_tasks

REPO_ROOT = Path(__file__).resolve().parent.parent
STEPS = 12  # per kernel: every stage, the first Newton solves, a few records


def _pairs() -> list[tuple[str, str, float, float]]:
    """One short run per distinct kernel (solvers.api.warm_tasks), composed methods and a chain, and the Run page's
    default run whole."""
    out = []
    for method, benchmark in warm_tasks():
        h = solvers.describe(benchmark)["default_h"]
        out.append((benchmark, method, h, STEPS * h))
    for benchmark, method in (("spatial_double_pendulum", "rattlie_c6"), ("pendulum_3d", "midpoint_rotation_c4"),
                              ("spatial_chain", "lgvi")):  # composition's loop; a chain's own data
        h = solvers.describe(benchmark)["default_h"]
        out.append((benchmark, method, h, 4 * h))
    return [*out, ("planar_pendulum", "rk4", 0.01, 10.0)]


def _records(pairs: list[tuple[str, str, float, float]]) -> list[dict]:
    """Each run as the dashboard stores it (solvers.figures.record: with its error against the reference)."""
    return [figures.record(solvers.simulate(b, m, h=h, t_end=t_end)) for b, m, h, t_end in pairs]


_CHILD = """
import pickle, sys
sys.path.insert(0, {tests!r})
import test_interpreted as t
pickle.dump(t._records(t._pairs()), sys.stdout.buffer)
"""


def _not_compared(key: str) -> bool:
    """Timings, and provenance's ``compiled`` (asserted on its own)."""
    return key in ("cpu_time", "steps_per_second", "wall_time", "process_cpu_time", "started_utc", "compiled")


def _same(a, b, where: str) -> None:
    """a and b equal bit for bit (NaN where NaN), but for _not_compared."""
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            if not _not_compared(k):
                _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True), where
    elif isinstance(a, float) and isinstance(b, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


def test_every_kernel_interpreted_gives_the_compiled_numbers_bit_for_bit():
    """Every distinct kernel, a few steps, and the default run's 1000 steps with its reference: the same states,
    series, summary and error, with ``provenance["compiled"]`` telling them apart and no timing compared."""
    pairs = _pairs()
    child = subprocess.run([sys.executable, "-c", _CHILD.format(tests=str(REPO_ROOT / "tests"))], cwd=REPO_ROOT,
                           env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, timeout=600)
    assert child.returncode == 0, child.stderr.decode()[-3000:]
    interpreted = pickle.loads(child.stdout)
    compiled = _records(pairs)
    assert len(interpreted) == len(compiled) == len(pairs) > 10
    for (b, m, _, _), got, want in zip(pairs, interpreted, compiled, strict=True):
        assert got["status"] == want["status"] == "ok", (b, m, got["message"])
        assert got["provenance"]["compiled"] is False and want["provenance"]["compiled"] is True
        assert len(got["t"]) > 1 and got["steps"] > 1
        _same(got, want, f"{b}/{m}")
    default_error = interpreted[-1]["error"]
    assert default_error.size == 1001 and np.all(np.isfinite(default_error))  # the error chart has its reference


def _form() -> dict:
    return {"benchmark": "planar_pendulum", "methods": ["rk4"], "h": 0.01, "t_end": 0.5,
            "params": {}, "options": {"rk4": {}}}


def test_a_compiled_run_replaces_an_interpreted_one_only_when_asked(tmp_path):
    """The warm-up's compiled pass (compiled=True) computes again what the interpreted child stored; a job's
    ordinary lookup takes the interpreted result as it is (the same numbers)."""
    cache = jobs.RunCache(tmp_path / "runs", "test")
    config = jobs.check_form(_form())[0][0]
    key, first, hit = cache.run(config)
    assert not hit and first["provenance"]["compiled"] is True
    cache.put(key, {**first, "provenance": {**first["provenance"], "compiled": False}})  # as the child stores it
    assert jobs.interpreted(cache.get(key))
    _, kept, hit = cache.run(config)
    assert hit and jobs.interpreted(kept)
    _, replaced, hit = cache.run(config, compiled=True)
    assert not hit and not jobs.interpreted(replaced) and not jobs.interpreted(cache.get(key))
    np.testing.assert_array_equal(replaced["energy_error"], first["energy_error"])
    assert cache.run(config, compiled=True)[2]  # a compiled result is kept


def test_the_interpreted_run_never_waits_for_the_compiles_lock(tmp_path, monkeypatch):
    """app.warm --auto computes the default run compiled under the run's lock (RunCache.run), compiling its kernel
    for 15 s or more; app.warm --interpreted (wait=False) must not queue behind it, or gunicorn's master keeps the
    workers waiting that long. It stores its result only when none was stored meanwhile."""
    import threading

    cache = jobs.RunCache(tmp_path / "runs", "test")
    config = jobs.check_form(_form())[0][0]
    key = cache.key(config)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cache._computing(key):  # as app.warm --auto does while it compiles
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(60)
        _, stored, hit = cache.run(config, wait=False)  # would block until release with wait=True
        assert not hit and stored["status"] == "ok" and cache.get(key) is not None
    finally:
        release.set()
        holder.join()
    # the compiled run stored while this one computed: it stays, and is what run() returns
    cache._cache.delete(key)
    compute = jobs.simulate
    compiled_first = {**stored, "marker": "compiled first"}

    def simulate_while_stored(*args, **kwargs):
        result = compute(*args, **kwargs)
        cache.put(key, compiled_first)
        return {**result, "marker": "came second"}

    monkeypatch.setattr(jobs, "simulate", simulate_while_stored)
    _, kept, hit = cache.run(config, wait=False)
    assert hit and kept["marker"] == "compiled first" and cache.get(key)["marker"] == "compiled first"


def test_the_summary_says_when_a_run_was_interpreted():
    """The row's note, and only on such a row."""
    res = figures.record(solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=0.1), reference=False)
    slow = {**res, "provenance": {**res["provenance"], "compiled": False}}
    rows = figures.summary_rows([res, slow])
    assert rows[0]["note"] == "" and rows[1]["note"] == figures.INTERPRETED_NOTE
    assert rows[0]["message"] == rows[1]["message"]  # a note, not a warning or an error
    assert "bit for bit" in figures.INTERPRETED_NOTE and "CPU time" in figures.INTERPRETED_NOTE
    table = str(layout.summary_table(json.loads(json.dumps(rows))))  # what the page receives and draws
    assert table.count(figures.INTERPRETED_NOTE) == 1
