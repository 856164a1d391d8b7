"""The Celery worker entry point: ``celery -A app.worker:celery_app worker`` (needs ``REDIS_URL``).

Importing the dashboard registers its background callbacks as Celery tasks, so the worker knows them (without
it, tasks arrive "unregistered" and the page waits forever). The compiled solver kernels are loaded once here,
before the worker forks its pool. A daemon thread of the main process touches the heartbeat file that the
container's cheap healthcheck reads (app.worker_health).
"""

from __future__ import annotations

from app import celery_support

if celery_support.redis_url() is None:
    raise RuntimeError(f"set {celery_support.REDIS_URL_ENV} (e.g. redis://127.0.0.1:6379/0) to run a Celery worker")

import threading
import time

import solvers
from app import main, worker_health

celery_app = main.CELERY_APP
solvers.warmup(verbose=False)


def _heartbeat() -> None:
    while True:
        worker_health.beat()
        time.sleep(worker_health.HEARTBEAT_SECONDS)


threading.Thread(target=_heartbeat, name="heartbeat", daemon=True).start()
