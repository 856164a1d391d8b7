"""Integrator Lab solvers: geometric time integrators for rigid multibody dynamics.

Public API (see docs/benchmarks.md): ``simulate``, ``benchmarks``, ``methods``, ``Result``; ``load`` and ``rerun``
(a saved run back, and again); ``describe`` and ``describe_method`` for plain-data descriptions, and ``compare`` (the
Run page's figures for a list of Results); ``mechanism`` (with ``Body`` and ``Joint``) registers your own bodies and
spherical joints as a benchmark every rigid method runs (``unregister`` removes it). ``__version__`` is the
package version every Result's provenance records.
"""

from . import _numba_cache, _numba_inline

_numba_cache.configure()  # before any kernel module is imported (see solvers/_numba_cache.py)
_numba_inline.install()  # before the first compile: numba's inliner without its repeated work

from ._version import __version__  # noqa: E402
from .api import MAX_STEPS, benchmarks, describe, describe_method, methods, rerun, simulate, warmup  # noqa: E402
from .compare import compare  # noqa: E402
from .mechanism import Body, Joint, mechanism, unregister  # noqa: E402
from .result import STATUSES, Result, Status, load  # noqa: E402

__all__ = ["MAX_STEPS", "STATUSES", "Body", "Joint", "Result", "Status", "__version__", "benchmarks", "compare",
           "describe", "describe_method", "load", "mechanism", "methods", "rerun", "simulate", "unregister", "warmup"]
