"""Settings read from the environment, identical in every gunicorn worker.

- ``INTEGRATOR_LAB_CACHE_DIR``: directory of the background-job store (diskcache) and of the generated secret
  key. Default: ``<repo>/var/cache`` when running from a source checkout and writable, else
  ``$XDG_CACHE_HOME/integrator-lab`` (``~/.cache/integrator-lab``). It must be one fixed directory: workers
  that use different stores never see each other's job results.
- ``REDIS_URL``: when set, background jobs run on Celery workers through Redis (app.celery_support);
  otherwise in local processes through diskcache.
- ``INTEGRATOR_LAB_SECRET_KEY``: Flask secret key, which signs the session cookie, the job requests
  (app.background) and Dash's background-job handles. Default: a random key generated once and kept in
  ``<cache dir>/secret_key``, so all workers agree on it.
- ``INTEGRATOR_LAB_PROXIES``: how many reverse proxies in front of the server to trust for the client address
  (X-Forwarded-For; default 0: the connection's address). Set it behind nginx or a load balancer, or every
  client shares the proxy's address and its per-address job cap (app.limits).
- ``INTEGRATOR_LAB_SECURE_COOKIES``: ``1`` marks the session cookie Secure; set it when the server is reached
  over HTTPS (behind a TLS proxy, with ``INTEGRATOR_LAB_PROXIES``). See app.security and docs/deployment.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import tempfile
from importlib import metadata
from pathlib import Path

APP_DIR = Path(__file__).resolve().parent
REPO_ROOT = APP_DIR.parent
ASSETS_DIR = REPO_ROOT / "assets"

CACHE_DIR_ENV = "INTEGRATOR_LAB_CACHE_DIR"
SECRET_KEY_ENV = "INTEGRATOR_LAB_SECRET_KEY"


def _writable_dir(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def cache_dir() -> Path:
    """The fixed cache directory (created if missing)."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        path = Path(configured).expanduser().resolve()
        if not _writable_dir(path):
            raise RuntimeError(f"{CACHE_DIR_ENV}={configured} is not a writable directory")
        return path
    candidates = []
    if (REPO_ROOT / "pyproject.toml").is_file():  # running from a source checkout
        candidates.append(REPO_ROOT / "var" / "cache")
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    candidates.append(Path(xdg) / "integrator-lab")
    for path in candidates:
        if _writable_dir(path):
            return path
    raise RuntimeError(f"no writable cache directory among {', '.join(map(str, candidates))}; set {CACHE_DIR_ENV}")


def trusted_proxies() -> int:
    """INTEGRATOR_LAB_PROXIES as a count (0 when unset)."""
    text = os.environ.get("INTEGRATOR_LAB_PROXIES", "").strip() or "0"
    if not text.isdigit():
        raise RuntimeError(f"INTEGRATOR_LAB_PROXIES={text!r} must be a whole number of trusted proxies (0 or more)")
    return int(text)


def secret_key(directory: Path) -> str:
    """The configured secret key, else the one stored in ``directory`` (generated on first use)."""
    configured = os.environ.get(SECRET_KEY_ENV)
    if configured:
        return configured
    path = directory / "secret_key"
    if not path.exists():
        # Write a complete file under a temporary name, then link it into place: link() fails if another
        # process won the race, and nobody ever reads a half-written key.
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".secret_key.")
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    key = path.read_text().strip()
    if not key:
        raise RuntimeError(f"{path} is empty: delete it or set {SECRET_KEY_ENV}")
    return key


def code_version() -> str:
    """Package version plus a digest of the app's and the solvers' sources.

    Cached job results are keyed by it, so editing the solvers or the figures never serves a stale result.
    """
    try:
        version = metadata.version("integrator-lab")
    except metadata.PackageNotFoundError:
        version = "0"
    digest = hashlib.sha256()
    import solvers

    for package_dir in (APP_DIR, Path(solvers.__file__).resolve().parent):
        for source in sorted(package_dir.rglob("*.py")):
            digest.update(source.relative_to(package_dir.parent).as_posix().encode())
            digest.update(source.read_bytes())
    return f"{version}+{digest.hexdigest()[:12]}"
