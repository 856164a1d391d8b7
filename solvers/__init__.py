"""Integrator Lab solvers: geometric time integrators for rigid multibody dynamics.

Public API (see BENCHMARKS.md): ``simulate``, ``benchmarks``, ``methods``, ``Result``; plus ``describe`` and
``describe_method`` for plain-data descriptions.
"""

from .api import MAX_STEPS, benchmarks, describe, describe_method, methods, simulate, warmup
from .result import Result

__all__ = ["MAX_STEPS", "Result", "benchmarks", "describe", "describe_method", "methods", "simulate", "warmup"]
