"""HTTP hardening of the lab server: security headers, request size, cookies, what the page discloses.

- Every response carries a Content-Security-Policy (:func:`policy`), ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: same-origin`` and ``X-Frame-Options: SAMEORIGIN`` (with ``frame-ancestors 'self'``).
  Scripts: only this server's files and Dash's own inline scripts (the clientside callbacks and the renderer's
  start), allowed by their SHA-256 hashes, taken from the index page when the app starts (the same for every
  page of this multi-page app); no ``'unsafe-inline'`` or ``'unsafe-eval'`` for scripts (every page, the 3D
  view included, runs without them: tests/test_security.py). Dash's components and Plotly inject ``<style>``
  elements, hence ``style-src 'unsafe-inline'`` (without it Chromium blocks them). No other origin.
- A request body over ``INTEGRATOR_LAB_MAX_REQUEST_MB`` (app.limits) gets 413 before it is read.
- ``INTEGRATOR_LAB_SECURE_COOKIES=1`` marks the session cookie Secure (served over HTTPS, e.g. behind the TLS
  proxy of docs/deployment.md, with ``INTEGRATOR_LAB_PROXIES`` set).
- ``_dash-config`` carries no Python, Dash or Plotly version (the renderer reads them only in debug mode).
- An unknown ``/_dash-component-suites/`` path answers 404 (Dash raises, which would be a 500), a request body
  nested too deeply to read 400, and a callback that cannot read a value of a hand-made request (a type the
  page never sends) 400, logged, rather than a 500.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import re

from app import limits

log = logging.getLogger(__name__)

INLINE_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)
# the index page's conditional comment for Internet Explorer: never run by a browser that reads CSP
IE_ONLY = re.compile(r"<!--\[if IE\]>.*?<!\[endif\]-->", re.S)
VERSION_KEYS = ("python_version", "dash_version", "plotly_version", "ddk_version", "dash_version_url")


def secure_cookies() -> bool:
    """INTEGRATOR_LAB_SECURE_COOKIES as a flag (unset, 0, false, no: off)."""
    text = os.environ.get("INTEGRATOR_LAB_SECURE_COOKIES", "").strip().lower()
    return text not in ("", "0", "false", "no", "off")


def inline_script_hashes(html: str) -> list[str]:
    """The CSP source expressions ('sha256-...') of the inline scripts a page runs (not JSON data blocks)."""
    out = []
    for m in INLINE_SCRIPT.finditer(IE_ONLY.sub("", html)):
        attrs = m.group("attrs")
        if "src=" in attrs or "application/json" in attrs:
            continue
        digest = base64.b64encode(hashlib.sha256(m.group("body").encode()).digest()).decode()
        out.append(f"'sha256-{digest}'")
    return sorted(set(out))


def policy(script_hashes: list[str]) -> str:
    """The Content-Security-Policy of every response."""
    directives = {
        "default-src": "'self'",
        "script-src": " ".join(["'self'", *script_hashes]),
        "style-src": "'self' 'unsafe-inline'",
        "img-src": "'self' data: blob:",
        "font-src": "'self' data:",
        "connect-src": "'self'",
        "worker-src": "'self' blob:",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'self'",
    }
    return "; ".join(f"{k} {v}" for k, v in directives.items())


def strip_versions(config: dict) -> dict:
    """Dash's page config without the versions it discloses (read by the renderer's debug tools only)."""
    return {k: v for k, v in config.items() if k not in VERSION_KEYS}


def harden(app) -> None:
    """Apply everything above to a Dash app, before it serves its first request (then :func:`pin_scripts`)."""
    from dash.exceptions import DashException, DependencyException
    from flask import current_app

    server = app.server
    lim = limits.Limits.from_env()
    server.config.update(MAX_CONTENT_LENGTH=lim.max_request_bytes, SESSION_COOKIE_HTTPONLY=True,
                         SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_SECURE=secure_cookies(),
                         CONTENT_SECURITY_POLICY=policy([]))

    @server.after_request
    def headers(response):
        response.headers.setdefault("Content-Security-Policy", current_app.config["CONTENT_SECURITY_POLICY"])
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        return response

    @server.errorhandler(DependencyException)
    def unknown_component_suite(_exc):
        return "Not Found", 404

    @server.errorhandler(RecursionError)
    def too_deep(_exc):  # a request body nested deeper than Python's JSON reader goes
        return "Bad Request: the request is nested too deeply", 400

    @server.errorhandler(DashException)  # e.g. a page path that is not one (UnsupportedRelativePath)
    @server.errorhandler(TypeError)
    @server.errorhandler(ValueError)
    @server.errorhandler(KeyError)
    @server.errorhandler(AttributeError)
    @server.errorhandler(IndexError)
    @server.errorhandler(OverflowError)
    def malformed_callback_input(exc):
        """A callback that cannot read what a hand-made request sent it (the pages' own values never do this:
        tests/test_security_fuzz.py) answers 400, logged with the callback it concerns; elsewhere: a 500."""
        from flask import request

        if not request.path.endswith("/_dash-update-component"):
            log.exception("internal error on %s", request.path)
            return "Internal Server Error", 500
        body = request.get_json(silent=True)
        output = body.get("output") if isinstance(body, dict) else None
        log.warning("malformed input to the callback of %.120r: %s: %.200s", output, type(exc).__name__, exc)
        return "Bad Request: a value this callback cannot read", 400

    original = app._config

    def config_without_versions():
        return strip_versions(original())

    app._config = config_without_versions


def pin_scripts(app) -> None:
    """Allow the inline scripts of the app's index page (once its callbacks are all registered: at start-up,
    before gunicorn forks the workers) by their hashes in the Content-Security-Policy."""
    with app.server.test_client() as client:
        html = client.get("/").get_data(as_text=True)
    app.server.config["CONTENT_SECURITY_POLICY"] = policy(inline_script_hashes(html))
