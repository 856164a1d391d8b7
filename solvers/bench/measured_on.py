"""The one line that heads every measured table: date, processor, cores, load, versions (docs/performance.md)."""

from __future__ import annotations

import contextlib
import os
import platform
import time


def machine() -> str:
    """The date, machine and load a measurement was taken on, in one line (docs/performance.md's tables)."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, StopIteration), open("/proc/cpuinfo") as info:
        cpu = next(line for line in info if line.startswith("model name")).split(":", 1)[1].strip()
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    import numba
    import numpy

    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {cpu}, {os.cpu_count()} cores{load}; "
            f"Python {platform.python_version()}, numba {numba.__version__}, numpy {numpy.__version__}")
