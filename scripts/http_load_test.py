"""HTTP-level load test: N simultaneous Run-page sessions that speak Dash's protocol, without a browser.

    python scripts/http_load_test.py --sessions 30              # starts gunicorn itself on a free port
    python scripts/http_load_test.py --sessions 100 --hit       # every session asks for an already cached run
    python scripts/http_load_test.py --url http://127.0.0.1:8050 --sessions 10

Each session is what the Run page's browser does, request for request, with its own cookie jar: it loads the
page (the HTML, whose config carries Dash's signed page-load id, the layout, the callback graph and the Run
page's content from the pages callback), then, once every session is loaded, all click Run at the same moment:
the request_run callback with the form as the page shows it; then, as the renderer would, either the chart
callbacks at once (a run answered in the request or from the cache) or the background job's start and its polls
every 200 ms until the job returns the keys, then the chart callbacks. Server-side callbacks that the page would
fire are found in the app's own callback graph (``/_dash-dependencies``), so the client stays in step with the
app; clientside callbacks cost no request and are skipped.

By default every session asks for a different run (the default configuration with its end time shortened by
i steps: a cache miss each, same cost); ``--hit`` makes them all ask for the default run after one warm-up run.
Reports p50/p95/max click-to-charts latency, lost results (no "Done" status), requests per run after the click
and, for a server started here, the server's CPU seconds per run (gunicorn and its job processes), as JSON.
Only loopback URLs are accepted.
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import os
import re
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from load_test import _loopback, _server  # the browser load test's server starter (same settings)

POLL_SECONDS = 0.2  # the Run page's background callback polls every 200 ms (app/pages/run.py)


def _cpu_seconds(pid: int) -> float:
    """CPU seconds of a process group leader and all its descendants, living and reaped (Linux /proc)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pending = [pid]
    while pending:
        p = pending.pop()
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick  # utime, stime, cutime, cstime
            for task in Path(f"/proc/{p}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(c) for c in children)
    return total


# ---- Dash's protocol ----------------------------------------------------------------------------------------


def _outputs(spec: str) -> list[dict]:
    """A callback's output string ("..a.b...c.d.." for several) as the renderer sends it: [{id, property}]."""
    parts = spec[2:-2].split("...") if spec.startswith("..") else [spec]
    out = []
    for part in parts:
        ident, prop = part.rsplit(".", 1) if not part.startswith("{") else _split_pattern(part)
        out.append({"id": json.loads(ident) if ident.startswith("{") else ident, "property": prop})
    return out


def _split_pattern(part: str) -> tuple[str, str]:
    end = part.index("}.") + 1
    return part[:end], part[end + 1:]


def _key(ident) -> str:
    return json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident


def _components(tree, found: dict | None = None) -> dict:
    """{id key: (id, props)} of every component with an id in a layout tree (in document order)."""
    found = {} if found is None else found
    if isinstance(tree, list):
        for item in tree:
            _components(item, found)
    elif isinstance(tree, dict):
        props = tree.get("props")
        if isinstance(props, dict):
            if "id" in props:
                found[_key(props["id"])] = (props["id"], props)
            for value in props.values():
                if isinstance(value, (dict, list)):
                    _components(value, found)
    return found


def _matches(pattern: dict, ident) -> bool:
    if not isinstance(ident, dict) or set(ident) != set(pattern):
        return False
    return all(isinstance(v, list) or ident[k] == v for k, v in pattern.items())


class Session:
    """One browser's worth of Dash requests (own cookies), counting the requests made after the click."""

    def __init__(self, base: str, deps: list[dict], timeout: float) -> None:
        self.base = base
        self.deps = deps
        self.timeout = timeout
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.props: dict[str, tuple] = {}
        self.end_id = ""
        self.requests = 0

    def _open(self, path: str, body: dict | None = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers={"Content-Type": "application/json"})
        self.requests += 1
        with self.opener.open(request, timeout=self.timeout) as response:
            return response.read()

    def load(self, path: str = "/") -> None:
        html = self._open(path).decode()
        config = json.loads(re.search(r'<script id="_dash-config" type="application/json">(.*?)</script>', html,
                                      re.S).group(1))
        self.end_id = config.get("end_id") or ""
        self._open("/_dash-layout")
        self._open("/_dash-dependencies")
        pathname, _, search = path.partition("?")
        page = self._callback(lambda cb: "_pages_content.children" in cb["output"],
                              {"_pages_location.pathname": pathname, "_pages_location.search": "?" + search
                               if search else ""})
        self.props.update(_components(page["_pages_content"]["children"]))

    def _value(self, dep: dict):
        ident, prop = dep["id"], dep["property"]
        if isinstance(ident, dict):
            return [{"id": i, "property": prop, "value": p.get(prop)} for i, p in self.props.values()
                    if _matches(ident, i)]
        return {"id": ident, "property": prop, "value": self.props.get(ident, (ident, {}))[1].get(prop)}

    def _body(self, cb: dict, given: dict, changed: list[str]) -> dict:
        def fill(dep):
            value = self._value(dep)
            name = f"{dep['id']}.{dep['property']}" if isinstance(dep["id"], str) else None
            if name in given:
                value = {**value, "value": given[name]}
            return value

        return {"output": cb["output"], "outputs": _outputs(cb["output"]) if cb["output"].startswith("..")
                else _outputs(cb["output"])[0], "inputs": [fill(d) for d in cb["inputs"]],
                "changedPropIds": changed, "state": [fill(d) for d in cb.get("state", [])]}

    def _apply(self, answer: dict) -> dict:
        response = answer.get("response") or {}
        for ident, values in response.items():
            key = _key(json.loads(ident)) if ident.startswith("{") else ident
            old = self.props.get(key, (ident, {}))
            self.props[key] = (old[0], {**old[1], **values})
        return response

    def _callback(self, pick, given: dict, query: str = "") -> dict:
        cb = next(c for c in self.deps if pick(c))
        body = self._body(cb, given, list(given))
        answer = json.loads(self._open("/_dash-update-component" + query, body) or b"{}")
        return self._apply(answer)

    def _server_callbacks_of(self, inputs: set[str]) -> list[dict]:
        return [c for c in self.deps if not c.get("clientside_function") and
                any(f"{d['id']}.{d['property']}" in inputs for d in c["inputs"] if isinstance(d["id"], str))]

    def run(self) -> dict:
        """Click Run and follow the page's callbacks until the charts are drawn; {ok, seconds, requests}."""
        self.requests = 0
        t0 = time.monotonic()
        clicks = (self.props.get("run-start", ("", {}))[1].get("n_clicks") or 0) + 1
        response = self._callback(lambda c: any(d["id"] == "run-start" and d["property"] == "n_clicks"
                                                for d in c["inputs"]) and not c.get("clientside_function"),
                                  {"run-start.n_clicks": clicks})
        if "run-job-request" in response:
            self._job()
        elif "run-keys" in response:  # answered in the request or from the cache: the charts at once
            self._follow({"run-keys.data"})
        status = json.dumps(self.props.get("run-status", ("", {}))[1].get("children"))
        return {"ok": "Done" in status, "seconds": time.monotonic() - t0, "requests": self.requests,
                "status": status[:300]}

    def _follow(self, changed: set[str]) -> None:
        """Fire the server callbacks whose inputs changed (one level: the chart callbacks of run-keys)."""
        for cb in self._server_callbacks_of(changed):
            given = {name: self.props[name.split(".")[0]][1].get(name.split(".")[1]) for name in changed}
            body = self._body(cb, given, sorted(changed))
            self._apply(json.loads(self._open("/_dash-update-component", body) or b"{}"))

    def _job(self) -> None:
        """The background job: start it, poll until it returns, then the chart callbacks."""
        cb = next(c for c in self.deps
                  if any(d["id"] == "run-job-request" for d in c["inputs"]) and c.get("background"))
        body = self._body(cb, {}, ["run-job-request.data"])
        query = "?endId=" + urllib.parse.quote(self.end_id)
        handles = json.loads(self._open("/_dash-update-component" + query, body))
        poll = json.loads(json.dumps(body))
        for item in poll["inputs"] + poll["state"]:
            item["value"] = None
        query += "&cacheKey=" + urllib.parse.quote(handles["cacheKey"]) + "&job=" + urllib.parse.quote(handles["job"])
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            raw = self._open("/_dash-update-component" + query, poll)
            answer = json.loads(raw) if raw else {}
            if "response" in answer:
                response = self._apply(answer)
                if "run-keys" in response:
                    self._follow({"run-keys.data"})
                return
        raise TimeoutError("the background job did not return in time")


def _session_task(base: str, deps: list[dict], query: str, timeout: float, barrier: threading.Barrier,
                  out: list, index: int) -> None:
    result: dict = {"session": index}
    try:
        session = Session(base, deps, timeout)
        try:
            session.load("/" + query)
        finally:
            barrier.wait(timeout)
        result.update(session.run())
    except Exception as exc:  # a lost result, reported, not raised
        result.update(ok=False, error=f"{type(exc).__name__}: {str(exc)[:200]}")
    out.append(result)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def measure(url: str, sessions: int, hit: bool, timeout: float, server_pid: int | None = None) -> dict:
    """Run the sessions against url; the summary as plain data."""
    deps = json.loads(urllib.request.urlopen(url + "/_dash-dependencies", timeout=timeout).read())
    if hit:  # the default run, computed once before the measurement
        warm = Session(url, deps, timeout)
        warm.load("/")
        warm.run()
    queries = ["" if hit else "?" + urllib.parse.urlencode({"t_end": f"{10 - 0.01 * i:.2f}"})
               for i in range(sessions)]
    barrier = threading.Barrier(sessions)
    results: list[dict] = []
    cpu0 = _cpu_seconds(server_pid) if server_pid else None
    threads = [threading.Thread(target=_session_task, args=(url, deps, q, timeout, barrier, results, i))
               for i, q in enumerate(queries)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout * 3)
    done = [r["seconds"] for r in results if r.get("ok")]
    summary = {
        "sessions": sessions,
        "cache": "hit" if hit else "miss",
        "completed": len(done),
        "lost": sessions - len(done),
        "p50_s": _percentile(done, 50),
        "p95_s": _percentile(done, 95),
        "max_s": max(done) if done else None,
        "requests_per_run": statistics.median([r["requests"] for r in results if r.get("ok")]) if done else None,
        "errors": [r.get("error") or r.get("status") for r in results if not r.get("ok")][:5],
    }
    if server_pid:
        time.sleep(0.5)  # let the last job processes end and be reaped
        summary["server_cpu_s_per_run"] = (_cpu_seconds(server_pid) - cpu0) / sessions
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running dashboard (loopback only); default: start gunicorn here")
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--hit", action="store_true", help="every session asks for the same, cached, run")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per session")
    parser.add_argument("--workers", type=int, help="gunicorn workers of the server started here")
    args = parser.parse_args(argv)
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    if args.url and not _loopback(args.url):
        parser.error("only loopback URLs are accepted")
    if args.url:
        summary = measure(args.url.rstrip("/"), args.sessions, args.hit, args.timeout)
    else:
        with _server(args.workers, prefix="integrator-lab-http-load-") as (url, pid):
            summary = measure(url, args.sessions, args.hit, args.timeout, pid)
    print(json.dumps(summary, indent=2))
    return 0 if summary["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
