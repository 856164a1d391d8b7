"""Where numba keeps the compiled kernels: a directory keyed by a digest of this package's sources.

numba's on-disk cache checks only the timestamp of the file that defines a kernel, not of the functions it calls
in other modules, so after an edit of (say) models/rigid.py a cached method kernel would still run the old machine
code. Keying the directory by the digest of every source file makes a changed package compile afresh, while an
unchanged one loads from disk. The base directory is ``NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/integrator-lab/numba`` (``~/.cache/...``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numba

PACKAGE = Path(__file__).resolve().parent


def source_digest() -> str:
    """sha256 over the package's modules that hold compiled code, numba's and Python's versions."""
    h = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" not in text:  # modules without compiled code cannot change a kernel
            continue
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(text)
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """The directory numba compiles into for this version of the sources."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "integrator-lab", "numba"
    )
    return Path(base) / source_digest()


def configure() -> Path:
    """Point numba.config.CACHE_DIR at cache_dir(); must run before any kernel module is imported."""
    path = cache_dir()
    numba.config.CACHE_DIR = str(path)
    return path
