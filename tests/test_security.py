"""The lab server under hostile requests (issue 27): scripts/hostile_client.py's attacks against gunicorn, the
signed job requests and run keys, the headers, and no Content-Security-Policy violation in the browser.

The attacks speak Dash's protocol from the app's own callback graph (scripts/http_load_test.py's Session).
"""

from __future__ import annotations

import sys
import urllib.request

import pytest
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import hostile_client

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _verdicts(url: str, names) -> dict:
    report = hostile_client.attack(url, names)
    server = report.pop("_server")
    assert server["status_500"] == 0, report
    return report


def test_edited_replayed_and_malformed_requests_are_refused(live_server):
    """An edited job request (20 runs), a replayed one, another session's and duplicated run keys, a 2 MB body,
    10^5 nested brackets, t_end / h overflowing, wrong types, a 10^5-number parameter: each refused with its
    message (or 413), never a 500; the headers are on every kind of response."""
    names = ("download amplification (one key x60)", "another session's / made-up run keys",
             "edited job request (20 runs)", "replayed job request", "2 MB request body", "parameter of 10^5 numbers",
             "10^5 nested brackets", "t_end 1e300, h 1e-300", "wrong types (list, [{}], number)", "headers")
    report = _verdicts(live_server, names)
    assert set(report) == set(names)
    for name, (verdict, detail) in report.items():
        assert verdict == "refused", f"{name}: {verdict}: {detail}"
    assert "Nothing was downloaded: " in report["download amplification (one key x60)"][1]
    assert "not made by this server" in report["edited job request (20 runs)"][1]
    assert "already run once" in report["replayed job request"][1]


def test_thirty_jobs_at_once_create_no_waiting_process(capped_server):
    """30 cookie jars of one address start a long job each at the same moment: the web process admits the
    address's cap (4) and refuses the rest before forking, so at most 4 job processes exist."""
    verdict, detail = hostile_client.fork_flood(hostile_client.Target(capped_server), 30, capped_server.pid)
    assert verdict == "bounded", detail
    assert "26 refused before forking" in detail or "refused before forking" in detail, detail


def test_headers_on_the_page_the_layout_and_the_callbacks(live_server):
    base = live_server.rstrip("/")
    for path, body in (("/", None), ("/_dash-layout", None), ("/_dash-update-component", b'{"output": "x"}')):
        request = urllib.request.Request(base + path, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                headers = response.headers
        except urllib.error.HTTPError as exc:  # the malformed callback: its error answer has them too
            headers = exc.headers
        csp = headers["Content-Security-Policy"]
        scripts = csp.split("script-src", 1)[1].split(";")[0]
        assert "frame-ancestors 'self'" in csp and "object-src 'none'" in csp, (path, csp)
        assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts, (path, csp)
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "same-origin"


PAGES = ("/", "/convergence", "/papers", "/lessons")


def test_no_csp_violation_on_any_page(page, live_server):
    """Every page, the default run with its charts and 3D view, under the server's Content-Security-Policy:
    no violation reported (the 'securitypolicyviolation' event, recorded from before any script runs)."""
    page.add_init_script("""window.__csp = []; document.addEventListener('securitypolicyviolation',
        e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')));""")
    console = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    base = live_server.rstrip("/")
    for path in PAGES:
        page.goto(base + path)
        page.wait_for_selector(".page-body")
        page.wait_for_timeout(1500)
        if path == "/":
            page.click("#run-start")
            page.wait_for_selector("#run-status .status-done", timeout=60_000)
            page.wait_for_selector("#run-scene-3d .gl-container canvas, #run-scene-3d canvas", timeout=30_000)
        assert page.evaluate("window.__csp") == [], path
    assert console == []
