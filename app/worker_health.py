"""The Celery worker's healthcheck: ``python -m app.worker_health`` (exit 0 healthy, 1 not, with the reason).

Cheap by design (a container runs it every 30 s): it imports neither Celery nor the dashboard nor the solvers;
it reads the heartbeat file that the worker's main process touches every HEARTBEAT_SECONDS (app.worker) and
asks Redis for a PING. ``celery inspect ping`` imported the whole app and loaded every kernel per check.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

HEARTBEAT_ENV = "INTEGRATOR_LAB_WORKER_HEARTBEAT"
HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 3 * HEARTBEAT_SECONDS


def heartbeat_path() -> Path:
    """The heartbeat file: ``INTEGRATOR_LAB_WORKER_HEARTBEAT``, else integrator-lab-worker-heartbeat in the
    temporary directory."""
    configured = os.environ.get(HEARTBEAT_ENV, "").strip()
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "integrator-lab-worker-heartbeat"


def beat(path: Path | None = None) -> None:
    """Touch the heartbeat file (the worker, every HEARTBEAT_SECONDS)."""
    path = path or heartbeat_path()
    path.touch()
    os.utime(path)


def check() -> str | None:
    """None when healthy, else why not."""
    path = heartbeat_path()
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return f"no heartbeat file {path}: the worker has not started (or writes elsewhere)"
    if age > STALE_SECONDS:
        return (f"the worker's heartbeat is {age:.0f} s old (more than {STALE_SECONDS:g} s): its process stopped "
                "or hangs")
    from app import celery_support

    url = celery_support.redis_url()
    if url and not celery_support.ping(url):
        return f"Redis at {url} does not answer"
    return None


def main() -> int:
    problem = check()
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
