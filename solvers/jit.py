"""Whether this process compiles the kernels, and the Python function behind a compiled one.

With ``NUMBA_DISABLE_JIT=1`` numba compiles nothing: every ``@njit`` function is the Python function it decorates,
and a kernel runs as plain Python on the same numpy arrays. It does the same IEEE double arithmetic (the kernels
use no fast-math), so its results are the compiled kernel's bit for bit (tests/test_interpreted.py), only its
CPU time is about 100-300 times longer. A fresh server uses that for its first default run, which would
otherwise wait for its kernel's compile (app/warm.py); ``Result.provenance["compiled"]`` records which way a run
was made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

COMPILED: bool = not numba.config.DISABLE_JIT  # type: ignore[attr-defined]


def python_function(f: Callable[..., Any]) -> Callable[..., Any]:
    """The Python function behind the compiled function ``f`` (numba's ``py_func``), to compile it again with other
    flags or to call it uncompiled; ``f`` itself when nothing is compiled (it is then that function)."""
    return getattr(f, "py_func", f)
