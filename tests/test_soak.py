"""The soak test (scripts/soak.py) in its short form, and the run cache's size limit.

``python scripts/soak.py --sessions 30 --minutes 10`` is the full soak (docs/deployment.md has its figures); here
a 60 s version against a test server checks that runs keep completing (none lost), that the server's own memory
(master and workers) does not keep growing, and that the cache directory is reported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO_ROOT

from app import jobs

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("soak")]


def test_the_run_cache_stays_within_its_size_limit(tmp_path):
    """diskcache evicts the least recently stored runs beyond RunCache's size_limit: 200 runs of ~80 kB each
    (16 MB) into a 2 MB cache leave it within the limit (diskcache culls at most 10 items per store, so the
    directory stays within a store's worth of the limit), and the latest run is still there."""
    limit = 2 * 2**20
    cache = jobs.RunCache(tmp_path / "runs", "test", size_limit=limit)
    try:
        rng = np.random.default_rng(0)
        for i in range(200):
            cache.put(f"run{i}", {"status": "ok", "energy_error": rng.standard_normal(10_000)})
        assert cache._cache.volume() <= limit + 10 * 100_000, cache._cache.volume()
        assert "run199" in cache and "run0" not in cache
    finally:
        cache.close()


def test_a_one_minute_soak_loses_nothing(live_server):
    """Two sessions clicking Run for 60 s against the test server, each reading its charts for a second before the
    next click: every run completes, the master's and workers' RSS after the first 30 s stays within 25 % (a leak
    per run would grow with the runs), the cache directory is measured. (Back to back, the two sessions and the
    server took nearly both cores for the minute, which the suite's other worker is short of.)"""
    out = subprocess.run([sys.executable, "scripts/soak.py", "--url", live_server, "--pid", str(live_server.pid),
                          "--sessions", "2", "--minutes", "1", "--interval", "2", "--timeout", "120",
                          "--think", "1"],
                         cwd=REPO_ROOT, capture_output=True, text=True, timeout=400, check=False)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["lost"] == 0 and report["completed"] >= 2, {k: v for k, v in report.items() if k != "samples"}
    assert report["cache_mb_end"] is not None and report["cache_mb_end"] > 0
    rss = [s["rss_mb"]["master"] + s["rss_mb"]["workers"] for s in report["samples"] if s["t"] >= 30]
    assert rss and max(rss) <= 1.25 * rss[0], rss
