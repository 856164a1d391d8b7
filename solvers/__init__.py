"""Integrator Lab solvers: geometric time integrators for rigid multibody dynamics.

Public API (see docs/benchmarks.md): ``simulate``, ``benchmarks``, ``methods``, ``Result``; plus ``describe`` and
``describe_method`` for plain-data descriptions, and ``compare`` (the Run page's figures for a list of Results).
"""

from . import _numba_cache

_numba_cache.configure()  # before any kernel module is imported (see solvers/_numba_cache.py)

from .api import MAX_STEPS, benchmarks, describe, describe_method, methods, simulate, warmup  # noqa: E402
from .compare import compare  # noqa: E402
from .result import Result  # noqa: E402

__all__ = ["MAX_STEPS", "Result", "benchmarks", "compare", "describe", "describe_method", "methods", "simulate",
           "warmup"]
