"""References stored on disk beside the run cache (solvers.references.reference's ``store``): computed once by
the warm-up, read by every process instead of computed."""

from __future__ import annotations

import numpy as np
import pytest

from app import background, jobs
from solvers import references


def _no_computing(*_args, **_kwargs):
    raise AssertionError("the reference was computed instead of read from the store")


def test_a_stored_reference_is_read_back_without_computing(tmp_path, monkeypatch):
    t = np.linspace(0.0, 2.0, 201)
    first = references.reference("pendulum_3d", t, {"Omega0": [0.1, 0.2, 0.3]}, store=tmp_path)
    assert len(list(tmp_path.glob("pendulum_3d-*.pickle"))) == 1
    monkeypatch.setattr(references, "_cached", _no_computing)
    again = references.reference("pendulum_3d", t, {"Omega0": [0.1, 0.2, 0.3]}, store=tmp_path)
    assert again is not first and again.description == first.description
    np.testing.assert_array_equal(again.points, first.points)
    assert not again.points.flags.writeable
    with pytest.raises(AssertionError, match="computed instead"):  # another request is not in the store
        references.reference("pendulum_3d", t, {"Omega0": [0.1, 0.2, 0.4]}, store=tmp_path)
    # a damaged file is no answer: it is computed again
    path = next(tmp_path.glob("pendulum_3d-*.pickle"))
    path.write_bytes(b"not a pickle")
    monkeypatch.undo()
    assert references.reference("pendulum_3d", t, {"Omega0": [0.1, 0.2, 0.3]}, store=tmp_path).accuracy == \
        first.accuracy


def test_the_warm_up_stores_each_default_runs_reference_and_another_method_reads_it(tmp_path, monkeypatch):
    cache = jobs.RunCache(tmp_path / "runs", "test-version")
    monkeypatch.setattr(background, "run_cache", lambda: cache)
    keys = background.warm_references()
    assert len(keys) >= 6
    stored = {p.name.split("-")[0] for p in cache.reference_store.glob("*.pickle")}
    assert {"spatial_double_pendulum", "spatial_chain", "pendulum_3d", "two_link_arm"} <= stored
    for key in keys:  # every default run has its error chart
        assert cache.get(key)["error"].size > 0
    # the Run page's first click on another method of a default configuration: no reference computation
    monkeypatch.setattr(references, "_cached", _no_computing)
    spec_h = background.BENCHMARKS["spatial_double_pendulum"]
    cfg = background._default_config("spatial_double_pendulum", "rattlie", spec_h.default_h, spec_h.default_t_end)
    _key, result, hit = cache.run(cfg)
    assert not hit and result["status"] == "ok" and result["error"].size > 0
    assert result["horizon"] is not None
