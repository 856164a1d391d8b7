"""The scale-out path: Celery with Redis for the dashboard's background jobs.

When ``REDIS_URL`` is set (e.g. ``redis://127.0.0.1:6379/0``), background callbacks run on Celery workers
started with ``celery -A app.worker:celery_app worker``; otherwise on the local DiskcacheManager
(:func:`app.job_manager.background_manager`). Web and workers must run the same code: Dash names the tasks by a
hash of the callback source.
"""

from __future__ import annotations

import json
import os
from typing import Any

REDIS_URL_ENV = "REDIS_URL"


def redis_url() -> str | None:
    """The configured Redis URL, or None for the single-machine (diskcache) setup."""
    url = os.environ.get(REDIS_URL_ENV, "").strip()
    return url or None


def make_celery(url: str):
    """A Celery app using Redis as broker and result backend."""
    from celery import Celery

    app = Celery("integrator_lab", broker=url, backend=url)
    app.conf.update(
        task_acks_late=True,  # a job whose worker dies is not lost silently: Redis redelivers it
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # long jobs: take one at a time
        broker_connection_retry_on_startup=True,
        result_expires=24 * 3600,
    )
    return app


def celery_manager(celery_app, cache_by: list, expire: int | None = None):
    """Dash's CeleryManager with a fix of its set_props handling (below)."""
    from dash import CeleryManager

    class FixedCeleryManager(CeleryManager):
        """Dash 4.4.1 deletes the result key instead of the ``-set_props`` key in get_updated_props, which
        breaks memoised results of callbacks that use set_props; read and clear the set_props key instead."""

        def get_updated_props(self, key: str) -> dict[str, Any]:
            set_props_key = self._make_set_props_key(key)
            updated = self.handle.backend.get(set_props_key)
            if updated is None:
                return {}
            self.handle.backend.delete(set_props_key)
            return json.loads(updated)

    return FixedCeleryManager(celery_app, cache_by=cache_by, expire=expire)


def ping(url: str, timeout: float = 1.0) -> bool:
    """True if the Redis server answers (for the health endpoint)."""
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout).ping())
    except redis.RedisError:
        return False
