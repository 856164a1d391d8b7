"""What a Result records about how it was made, so that a run can be cited and re-run (``Result.provenance``).

The record: the package version, the source digest the kernel cache is keyed by (solvers/_numba_cache.py), the
git commit of the source tree when it is a git checkout (None otherwise) and whether it had local changes, the
Python, numpy, numba and scipy versions, the platform, whether the kernels ran compiled (``compiled``; False under
``NUMBA_DISABLE_JIT=1``, solvers/jit.py: the same numbers, an interpreter's CPU time), the UTC start time, wall
and process CPU time of the whole call (the kernel's own CPU time is ``Result.cpu_time``), and the request exactly
as given to ``simulate`` (what ``solvers.rerun`` replays).
"""

from __future__ import annotations

import datetime
import functools
import platform
import subprocess
from pathlib import Path
from typing import Any

import numba
import numpy as np
import scipy

from . import _numba_cache, jit
from ._version import __version__

PACKAGE = "integrator-lab"


@functools.lru_cache(maxsize=1)
def _git() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the checkout holding this package, or (None, None) when it is not one (an installed
    wheel, no git)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None, None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                 "solvers"], capture_output=True, text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit or None, bool(status.strip())


@functools.lru_cache(maxsize=1)
def environment() -> dict[str, Any]:
    """The parts of the record that do not change within a process (computed once)."""
    commit, dirty = _git()
    return {
        "package": PACKAGE,
        "version": __version__,
        "source_digest": _numba_cache.source_digest(),
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "scipy": scipy.__version__,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "compiled": jit.COMPILED,
    }


def utc_now() -> str:
    """The current UTC time, ISO 8601 with microseconds."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


def record(started_utc: str, wall_time: float, process_cpu_time: float, request: dict[str, Any]) -> dict[str, Any]:
    """The provenance record of one run (module docstring); ``request`` is simulate's arguments as given."""
    return {**environment(), "started_utc": started_utc, "wall_time": wall_time,
            "process_cpu_time": process_cpu_time, "request": request}
