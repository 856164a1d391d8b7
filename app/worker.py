"""The Celery worker entry point: ``celery -A app.worker:celery_app worker`` (needs ``REDIS_URL``).

Importing the dashboard registers its background callbacks as Celery tasks, so the worker knows them (without
it, tasks arrive "unregistered" and the page waits forever). The compiled solver kernels are loaded once here,
before the worker forks its pool.
"""

from __future__ import annotations

from app import celery_support

if celery_support.redis_url() is None:
    raise RuntimeError(f"set {celery_support.REDIS_URL_ENV} (e.g. redis://127.0.0.1:6379/0) to run a Celery worker")

import solvers
from app import main

celery_app = main.CELERY_APP
solvers.warmup(verbose=False)
