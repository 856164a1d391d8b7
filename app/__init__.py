"""Integrator Lab dashboard (Plotly Dash).

`gunicorn app:server` serves it. ``server`` (the Flask server) and ``app`` (the Dash app) are built on
first access, so ``app.jobs`` and ``app.config`` import without building the dashboard.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "server"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from app import main

        return getattr(main, name)
    raise AttributeError(f"module 'app' has no attribute {name!r}")
