"""Where numba keeps the compiled kernels: a directory keyed by this package's sources and where they lie.

numba's on-disk cache checks only the timestamp of the file that defines a kernel, not of the functions it calls
in other modules, so after an edit of (say) models/rigid.py a cached method kernel would still run the old machine
code. Keying the directory by the digest of every source file makes a changed package compile afresh, while an
unchanged one loads from disk. numba's entries are also only valid for the source file's path and modification
time, so the key includes both (:func:`cache_key`): otherwise a second checkout of the same code, or a touched
file, would find the "complete" stamp beside kernels numba will not load, and compile them where the server
expected a load. The base directory is ``NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/integrator-lab/numba`` (``~/.cache/...``).

numba refuses to import a cached kernel module at all when its cache directory is not writable ("no locator
available"): a read-only root filesystem, or a container run under another UID than the one that compiled. Then
the compiled kernels are copied once into a writable directory under the temporary directory (a tmpfs in such
containers) and used from there, so the image's build-time compilation still saves the start-up compile.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numba

PACKAGE = Path(__file__).resolve().parent


def _compiled_modules() -> list[tuple[str, bytes, int, int]]:
    """(path in the package, text, mtime_ns, size) of each module that holds compiled code."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text:  # modules without compiled code cannot change a kernel
            st = path.stat()
            out.append((str(path.relative_to(PACKAGE)), text, st.st_mtime_ns, st.st_size))
    return out


def _digest(modules: list[tuple[str, bytes, int, int]]) -> str:
    h = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
    for rel, text, _, _ in modules:
        h.update(rel.encode())
        h.update(text)
    return h.hexdigest()[:16]


def source_digest() -> str:
    """sha256 over the package's modules that hold compiled code, numba's and Python's versions."""
    return _digest(_compiled_modules())


def cache_key() -> str:
    """source_digest plus the package's path and its compiled modules' modification times: numba's own validity
    test for a cached kernel, so the stamp of one key is only found where that key's kernels load."""
    modules = _compiled_modules()
    h = hashlib.sha256(f"{_digest(modules)} {PACKAGE}".encode())
    for rel, _, mtime_ns, size in modules:
        h.update(f"{rel} {mtime_ns} {size}".encode())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """The directory numba compiles into for this version and location of the sources."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "integrator-lab", "numba"
    )
    return Path(base) / cache_key()


def writable(path: Path) -> bool:
    """True if files can be created in path (made if missing), as numba's cache locator tests it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def usable(path: Path) -> Path:
    """path if writable, else a writable copy of it under the temporary directory (module docstring)."""
    if writable(path):
        return path
    copy = Path(tempfile.gettempdir()) / f"integrator-lab-numba-{os.getuid()}" / path.name
    if path.is_dir() and not copy.is_dir():
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=copy.parent if writable(copy.parent) else None))
        shutil.copytree(path, staging / path.name, dirs_exist_ok=True)
        try:
            (staging / path.name).rename(copy)
        except OSError:  # another process made the copy first
            shutil.rmtree(staging, ignore_errors=True)
        else:
            staging.rmdir()
    if not writable(copy):
        raise RuntimeError(f"no writable directory for the compiled kernels: {path} is not writable and neither is "
                           f"{copy}; set NUMBA_CACHE_DIR to a writable directory")
    return copy


def configure() -> Path:
    """Point numba.config.CACHE_DIR at cache_dir() (or its writable copy, usable()); must run before any kernel
    module is imported."""
    path = usable(cache_dir())
    numba.config.CACHE_DIR = str(path)
    return path


COMPLETE = "complete"  # stamp file: a warmup of this key finished (solvers.api.warmup)


def mark_complete() -> None:
    """Record that every kernel of this key is compiled into the cache directory."""
    (Path(numba.config.CACHE_DIR) / COMPLETE).touch()


def is_complete() -> bool:
    """Whether mark_complete ran for this key (in this cache directory or the one it was copied from)."""
    return (Path(numba.config.CACHE_DIR) / COMPLETE).is_file()
