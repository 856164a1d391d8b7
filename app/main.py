"""The Dash app: a multi-page app (``app/pages``), the shared navigation header and the background-job manager.

No mutable module state: gunicorn workers share nothing but the cache directory (see app.config). Each page
module in ``app/pages`` registers itself (``dash.register_page``) and its callbacks; the header lists every
registered page in the order the pages declare.
"""

from __future__ import annotations

import json

import dash
from dash import Dash, Input, Output, clientside_callback, dcc, html

from app import celery_support, config, health, job_manager, security

CACHE_DIR = config.cache_dir()
CODE_VERSION = config.code_version()
PAGES_DIR = config.APP_DIR / "pages"


def _code_version() -> str:
    return CODE_VERSION


BACKGROUND = job_manager.background_manager(CACHE_DIR, cache_by=[_code_version])
# the Celery app of the scale-out path (None with diskcache); `celery -A app.worker:celery_app worker` uses it
CELERY_APP = getattr(BACKGROUND, "handle", None) if celery_support.redis_url() else None

# name="app": the pages are imported as app.pages.<module>, the same modules a plain import gives.
app = Dash(
    "app",
    title="Integrator Lab",
    update_title=None,
    use_pages=True,
    pages_folder=str(PAGES_DIR),
    assets_folder=str(config.ASSETS_DIR),
    suppress_callback_exceptions=True,  # page components exist only while their page is shown
    background_callback_manager=BACKGROUND,
)
app.index_string = app.index_string.replace("<html>", '<html lang="en">', 1)  # screen readers' language
server = app.server
server.secret_key = config.secret_key(CACHE_DIR)
if config.trusted_proxies():  # the client address of the per-address cap: from X-Forwarded-For behind N proxies
    from werkzeug.middleware.proxy_fix import ProxyFix

    server.wsgi_app = ProxyFix(server.wsgi_app, x_for=config.trusted_proxies())
health.register(server, CACHE_DIR, CODE_VERSION)


def _pages() -> list[dict]:
    return sorted(dash.page_registry.values(), key=lambda p: (p.get("order") is None, p.get("order") or 0))


def _nav_id(page: dict) -> str:
    return f"nav-{page['module'].split('.')[-1]}"


def navigation() -> html.Header:
    """The header shared by every page: title and one link per registered page."""
    links = [dcc.Link(p["name"], href=p["relative_path"], className="nav-link", id=_nav_id(p)) for p in _pages()]
    return html.Header(
        [
            html.Div(
                [html.H1("Integrator Lab", className="brand"),
                 html.Span("Geometric time integrators for rigid multibody dynamics", className="tagline")],
                className="brand-block",
            ),
            html.Nav(links, className="nav"),
        ],
        className="header",
    )


def layout() -> html.Div:
    return html.Div([navigation(), html.Main(dash.page_container, className="page-body")], className="page")


app.layout = layout

# The current page's link is highlighted, in the browser (the pages are registered once Dash() has run).
_paths = [p["relative_path"] for p in _pages()]
clientside_callback(
    f"(pathname) => {json.dumps(_paths)}.map(p => 'nav-link' + (p === pathname ? ' active' : ''))",
    [Output(_nav_id(p), "className") for p in _pages()],
    Input("_pages_location", "pathname"),
)

# Dash registers its scripts and callbacks on the first request, setting its "done" flag before the work,
# so a concurrent request in another thread can get a 500 ("not a registered library", plotly/dash#3971).
# Serve one request now, before any worker thread exists; gunicorn's workers, forked after the master imported
# this module (app/gunicorn_conf.py, when_ready), inherit the result.
security.harden(app)  # headers, request size, cookies, disclosure (app.security)
with server.test_client() as _client:
    _client.get("/")
security.pin_scripts(app)
