"""``GET /healthz``: a cheap liveness/readiness check for gunicorn, Docker and load balancers.

200 with ``{"status": "ok", ...}`` when the cache directory is writable and, with ``REDIS_URL`` set, Redis
answers; 503 with the failing check named otherwise. It runs no solver.
"""

from __future__ import annotations

import os
from pathlib import Path

from app import celery_support


def checks(cache_dir: Path) -> dict:
    """The health report as plain data."""
    report: dict = {"cache_dir_writable": os.access(cache_dir, os.W_OK | os.X_OK)}
    url = celery_support.redis_url()
    report["backend"] = "celery" if url else "diskcache"
    if url:
        report["redis"] = celery_support.ping(url)
    healthy = report["cache_dir_writable"] and report.get("redis", True)
    report["status"] = "ok" if healthy else "unhealthy"
    return report


def register(server, cache_dir: Path, version: str) -> None:
    """Add the /healthz route to the Flask server."""
    from flask import jsonify

    @server.route("/healthz")
    def healthz():
        report = checks(cache_dir)
        report["version"] = version
        return jsonify(report), 200 if report["status"] == "ok" else 503
