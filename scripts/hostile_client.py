"""Replay the attacks of a hostile student against a running lab server (loopback only) and say how each ended.

    python scripts/hostile_client.py --url http://127.0.0.1:8050            # against `make serve`
    python scripts/hostile_client.py --url http://127.0.0.1:8050 --quick    # the short version the suite runs
    python scripts/hostile_client.py                                        # starts gunicorn itself

Each attack is a hand-made Dash request built from the server's own callback graph (``/_dash-dependencies``,
through scripts/http_load_test.py's Session, one cookie jar per browser). One line per attack:
``refused`` (the server said no with its message, or 4xx), ``bounded`` (it answered, within the bounds: size,
time, no job), or ``passed`` (the attack worked: a finding). Throughout, a thread asks /healthz every 0.25 s;
the last lines give its slowest answer, every status 500 seen, and, for a server started here or given by
``--pid``, the growth of its biggest process's resident memory. Exit status 1 when an attack passed, a 500 was
seen, or /healthz took 1 s or more.

Every attack is bounded: at most 32 sessions, requests of at most a few MB, jobs cancelled when measured.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import itertools
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_load_test import Session
from load_test import _loopback, _server

LONG_RUN = {"run-step.value": 1e-6, "run-t-end.value": 10.0}  # the default benchmark, 1e7 steps: runs until cancelled
HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")


class Answer:
    def __init__(self, status: int, body: bytes) -> None:
        self.status, self.body = status, body

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def json(self) -> dict:
        try:
            return json.loads(self.body or b"{}")
        except ValueError:
            return {}


class Target:
    """The server under attack: its URL, its callback graph, and every status it answered."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.deps = json.loads(urllib.request.urlopen(self.base + "/_dash-dependencies", timeout=30).read())
        self.statuses: list[int] = []

    def client(self) -> Client:
        return Client(self)


class Client(Session):
    """A Session (one browser's cookie jar) whose answers are data, 4xx and 5xx included."""

    def __init__(self, target: Target, timeout: float = 60.0) -> None:
        super().__init__(target.base, target.deps, timeout)
        self.statuses = target.statuses

    def _value(self, dep: dict):
        """As the renderer sends it: a pattern-matching id (a JSON string in the graph) gets the list of every
        matching component's value."""
        ident = dep["id"]
        if isinstance(ident, str) and ident.startswith("{"):
            dep = {**dep, "id": json.loads(ident)}
        return super()._value(dep)

    def send(self, path: str, body: dict | bytes | None = None, headers: dict | None = None) -> Answer:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with self.opener.open(req, timeout=self.timeout) as response:
                answer = Answer(response.status, response.read())
                answer.headers = dict(response.headers)
        except urllib.error.HTTPError as exc:
            answer = Answer(exc.code, exc.read())
            answer.headers = dict(exc.headers)
        self.statuses.append(answer.status)
        return answer

    def callback(self, pick, given: dict, query: str = "", edit=None) -> Answer:
        """POST one server callback (picked from the graph) with the page's values, ``given`` overriding; ``edit``
        may change the body before it is sent."""
        cb = next(c for c in self.deps if not c.get("clientside_function") and pick(c))
        body = self._body(cb, given, list(given))
        if edit is not None:
            edit(body)
        answer = self.send("/_dash-update-component" + query, body)
        if answer.status == 200:
            self._apply(answer.json())
        return answer

    def request_run(self, given: dict | None = None, edit=None) -> Answer:
        clicks = (self.props.get("run-start", ("", {}))[1].get("n_clicks") or 0) + 1
        return self.callback(_triggered_by("run-start", "n_clicks"), {"run-start.n_clicks": clicks, **(given or {})},
                             edit=edit)

    def start_job(self, request: dict) -> tuple[Answer, str]:
        """Send a job request to the run page's background callback; (answer, query to poll it with)."""
        cb = next(c for c in self.deps if c.get("background") and any(d["id"] == "run-job-request"
                                                                     for d in c["inputs"]))
        body = self._body(cb, {"run-job-request.data": request}, ["run-job-request.data"])
        query = "?endId=" + urllib.parse.quote(self.end_id)
        answer = self.send("/_dash-update-component" + query, body)
        handles = answer.json()
        if answer.status == 200 and "cacheKey" in handles:
            query += ("&cacheKey=" + urllib.parse.quote(handles["cacheKey"]) + "&job="
                      + urllib.parse.quote(handles["job"]))
        self._job_body = body
        return answer, query

    def poll(self, query: str, seconds: float = 30.0) -> dict:
        """Poll a started job until it answers (or ``seconds``): its response ({} if none)."""
        body = copy.deepcopy(self._job_body)
        for item in body["inputs"] + body["state"]:
            item["value"] = None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = self.send("/_dash-update-component" + query, body)
            if answer.status != 200:
                return {"status": answer.status}
            got = answer.json()
            if "response" in got:
                return self._apply(got)
            time.sleep(0.2)
        return {}

    def cancel(self, query: str) -> None:
        """End a running job as the renderer does when a background callback is asked again: Dash's signed job
        handle as ``oldJob`` (the job's process is killed)."""
        job = urllib.parse.parse_qs(query.lstrip("?")).get("job")
        if job:
            body = copy.deepcopy(self._job_body)
            for item in body["inputs"] + body["state"]:
                item["value"] = None
            self.send("/_dash-update-component" + query + "&oldJob=" + urllib.parse.quote(job[0]), body)

    def status_text(self) -> str:
        return json.dumps(self.props.get("run-status", ("", {}))[1].get("children"))


def _run_keys(c: Client) -> dict:
    """Run the page's default form as the browser does (answered at once, or through its background job):
    the signed run keys the page then holds."""
    before = c.props.get("run-job-request", ("", {}))[1].get("data")
    c.request_run()
    request = c.props.get("run-job-request", ("", {}))[1].get("data")
    if request and request != before:
        _answer, query = c.start_job(request)
        c.poll(query, 120)
    return c.props.get("run-keys", ("", {}))[1].get("data") or {}


_T_END_SEED = itertools.count(random.randrange(400))


def _fresh_t_end() -> float:
    """An end time no earlier replay cached (a cached run is answered at once, without a job request), on the
    grid of the default step h = 0.01 s (a t_end between two multiples of h is refused)."""
    return round(5.0 + next(_T_END_SEED) % 400 * 0.01, 2)


def _triggered_by(ident: str, prop: str):
    return lambda c: any(d["id"] == ident and d["property"] == prop for d in c["inputs"])


def _set_param(client: Client, value) -> None:
    """Type ``value`` into the Run page's first parameter field."""
    key = next(k for k, (i, _p) in client.props.items() if isinstance(i, dict) and i.get("type") == "run-param")
    ident, props = client.props[key]
    client.props[key] = (ident, {**props, "value": value})


# ---- the attacks: each returns (verdict, detail) --------------------------------------------------------------


def download_amplification(t: Target) -> tuple[str, str]:
    """One run's key repeated 60 times in run-keys, then asked for as a JSON download."""
    c = t.client()
    c.load("/")
    keys = _run_keys(c)
    if not keys.get("keys"):
        return "passed", "could not get a run key to replay (" + c.status_text()[:120] + ")"
    forged = {**keys, "keys": keys["keys"] * 60}
    t0 = time.monotonic()
    answer = c.callback(_triggered_by("run-download-json-button", "n_clicks"),
                        {"run-download-json-button.n_clicks": 1, "run-keys.data": forged})
    took = time.monotonic() - t0
    if answer.status >= 400:
        return ("passed" if answer.status >= 500 else "refused"), f"status {answer.status}"
    size = len(answer.body)
    if "Nothing was downloaded" in answer.text and size < 100_000:
        return "refused", f"{size} B in {took:.2f} s: " + _message(answer.text)
    return "passed", f"{size / 1e6:.1f} MB in {took:.1f} s"


def foreign_keys(t: Target) -> tuple[str, str]:
    """Another session's signed run keys, and a made-up key, sent as this session's run-keys."""
    a, b = t.client(), t.client()
    a.load("/")
    b.load("/")
    keys = _run_keys(a)
    outcomes = []
    for forged in (keys, {"keys": ["0" * 32], "signed": keys.get("signed")}):
        answer = b.callback(_triggered_by("run-keys", "data"), {"run-keys.data": forged})
        outcomes.append("Nothing was shown" in answer.text and '"x": [' not in answer.text.replace(" ", ""))
    return ("refused", "another session's keys and a made-up key: Nothing was shown") if all(outcomes) else \
        ("passed", f"shown: {outcomes}")


def edited_request(t: Target) -> tuple[str, str]:
    """A signed job request whose configs are replaced by 20 runs (the cap is 8), sent to the job."""
    c = t.client()
    c.load("/")
    _set_param(c, 2.5)  # not the default: no calibrated estimate, so a background job (never answered inline)
    c.request_run({"run-t-end.value": _fresh_t_end()})
    request = c.props.get("run-job-request", ("", {}))[1].get("data")
    if not request:
        return "passed", "no job request to edit (" + c.status_text()[:120] + ")"
    edited = {**request, "configs": request["configs"] * 20}
    answer, query = c.start_job(edited)
    response = c.poll(query, 30) if answer.status == 200 else {}
    text = json.dumps(response)
    if answer.status >= 500:
        return "passed", f"status {answer.status}"
    if "not made by this server" in text and "run-keys" not in text:
        return "refused", _message(text)
    return "passed", text[:160]


def replayed_request(t: Target) -> tuple[str, str]:
    """A job request sent twice (the second time with the unsigned Cancel count changed, so that Dash's own
    cache of the first answer does not serve it)."""
    c = t.client()
    c.load("/")
    _set_param(c, 2.5)
    c.request_run({"run-t-end.value": _fresh_t_end()})
    request = c.props.get("run-job-request", ("", {}))[1].get("data")
    if not request:
        return "passed", "no job request (" + c.status_text()[:120] + ")"
    _first, query = c.start_job(request)
    c.poll(query, 60)
    _again, query = c.start_job({**request, "cancels": (request.get("cancels") or 0) + 1})
    text = json.dumps(c.poll(query, 30))
    if "already run once" in text:
        return "refused", _message(text)
    return "passed", text[:160]


def fork_flood(t: Target, sessions: int = 30, pid: int | None = None) -> tuple[str, str]:
    """``sessions`` cookie jars (one address) start a long job each at once; how many job processes exist."""
    clients = [t.client() for _ in range(sessions)]
    for i, c in enumerate(clients):
        c.load("/")
        c.request_run({**LONG_RUN, "run-t-end.value": 10.0 - 0.001 * i})
    requests = [c.props.get("run-job-request", ("", {}))[1].get("data") for c in clients]
    rss0 = _tree_rss(pid)
    barrier = threading.Barrier(sessions)
    started: list = [None] * sessions

    def go(i: int) -> None:
        barrier.wait(30)
        started[i] = clients[i].start_job(requests[i]) if requests[i] else None

    threads = [threading.Thread(target=go, args=(i,)) for i in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    time.sleep(1.0)
    jobs = _job_processes(pid)
    rss = _tree_rss(pid)
    admitted = refused = 0
    other: list[str] = []  # answered neither way (e.g. an HTTP error under load): not a job, but said
    for c, s in zip(clients, started, strict=True):
        if s is None:
            other.append("no job request")
            continue
        answer, query = s
        got = c.poll(query, 1.5)
        response = json.dumps(got)
        if "already runs" in response:
            refused += 1
        elif not got and "&job=" in query:  # a job handle and no answer yet: it runs
            admitted += 1
            c.cancel(query)
        else:
            other.append(f"start {answer.status}, poll {response[:120]}")
            c.cancel(query)
    memory = f", private memory of the server's processes {(rss - rss0) / 1e6:+.0f} MB" if pid else ""
    counted = f", {jobs} job processes" if pid else ""
    detail = f"{sessions} jobs asked at once: {admitted} admitted, {refused} refused before forking{counted}{memory}"
    if other:
        detail += f"; {len(other)} otherwise: " + " | ".join(other)
    limit = 4  # INTEGRATOR_LAB_MAX_CLIENT_JOBS's default; a server with another cap says so in the detail
    return ("bounded" if admitted <= limit and (pid is None or jobs <= limit) else "passed"), detail


def big_body(t: Target) -> tuple[str, str]:
    """A 2 MB request body."""
    c = t.client()
    answer = c.send("/_dash-update-component", b'{"x": "' + b"a" * 2_000_000 + b'"}')
    return ("refused" if answer.status == 413 else "passed"), f"status {answer.status}"


def huge_parameter(t: Target) -> tuple[str, str]:
    """A parameter of 10^5 numbers (about 0.6 MB): refused with a short message, not echoed back."""
    c = t.client()
    c.load("/")
    _set_param(c, "[" + ",".join(["1.5"] * 100_000) + "]")
    answer = c.request_run()
    size = len(answer.body)
    verdict = "refused" if answer.status < 500 and "Nothing was run" in answer.text and size < 20_000 else "passed"
    return verdict, f"status {answer.status}, {size} B: " + _message(answer.text)


def nested_brackets(t: Target) -> tuple[str, str]:
    """10^5 nested brackets in a parameter's text."""
    c = t.client()
    c.load("/")
    _set_param(c, "[" * 100_000 + "]" * 100_000)
    answer = c.request_run()
    ok = answer.status < 500 and "Nothing was run" in answer.text
    return ("refused" if ok else "passed"), f"status {answer.status}: " + _message(answer.text)


def overflowing_step(t: Target) -> tuple[str, str]:
    """t_end = 1e300 with h = 1e-300."""
    c = t.client()
    c.load("/")
    answer = c.request_run({"run-t-end.value": 1e300, "run-step.value": 1e-300})
    ok = answer.status < 500 and "Nothing was run" in answer.text
    return ("refused" if ok else "passed"), f"status {answer.status}: " + _message(answer.text)


def wrong_types(t: Target) -> tuple[str, str]:
    """A benchmark sent as a list, methods = [{}], a parameter item sent as a number."""
    c = t.client()
    c.load("/")
    statuses = []
    for given, edit in (({"run-benchmark.value": ["planar_pendulum"]}, None),
                        ({"run-methods.value": [{}]}, None),
                        ({}, _param_item_as_number)):
        answer = c.request_run(given, edit)
        statuses.append((answer.status, "Nothing was run" in answer.text))
    # the last is not a Dash request at all (Dash's own reading of the body fails): 400 Bad Request
    ok = all(s == 200 and said for s, said in statuses[:2]) and statuses[2][0] == 400
    return ("refused" if ok else "passed"), \
        f"statuses {[s for s, _ in statuses]}: 'Nothing was run: ...' twice, then 400 (not a Dash request)"


def _param_item_as_number(body: dict) -> None:
    for group in body["state"]:
        if isinstance(group, list) and group and isinstance(group[0].get("id"), dict) \
                and group[0]["id"].get("type") == "run-param":
            group[0] = 7


def headers(t: Target) -> tuple[str, str]:
    """Security headers on /, /_dash-layout and /_dash-update-component; versions in _dash-config; a bad
    component-suite path."""
    c = t.client()
    missing = []
    page = c.send("/")
    for name, answer in (("/", page), ("/_dash-layout", c.send("/_dash-layout")),
                         ("/_dash-update-component", c.send("/_dash-update-component", {"output": "x"}))):
        missing += [f"{name} {h}" for h in HEADERS if h not in answer.headers]
        if "frame-ancestors 'self'" not in answer.headers.get("Content-Security-Policy", ""):
            missing.append(f"{name} frame-ancestors")
    if "python_version" in page.text:
        missing.append("python_version in _dash-config")
    suite = c.send("/_dash-component-suites/dash/no-such-file.js").status
    if suite != 404:
        missing.append(f"component suite status {suite}")
    return ("passed", "; ".join(missing)) if missing else \
        ("refused", "CSP with frame-ancestors 'self', nosniff, Referrer-Policy; no versions; unknown suite 404")


def _message(text: str) -> str:
    for marker in ("Nothing was run: ", "Nothing was shown: ", "Nothing was downloaded: "):
        if marker in text:
            rest = text.split(marker, 1)[1]
            return marker + rest[:rest.find('"')][:110]
    return text[:110]


# ---- the server's side: /healthz latency, resident memory ----------------------------------------------------


class Health(threading.Thread):
    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base, self.worst, self.failures, self._done = base, 0.0, 0, threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            t0 = time.monotonic()
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=10).read()
            except OSError:
                self.failures += 1
            self.worst = max(self.worst, time.monotonic() - t0)
            self._done.wait(0.25)

    def stop(self) -> None:
        self._done.set()
        self.join(15)


def _tree(pid: int | None) -> list:
    if not pid:
        return []
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _tree_rss(pid: int | None) -> int:
    """Private memory (USS) of the server's processes: what forked processes really add."""
    import psutil

    total = 0
    for p in _tree(pid):
        with contextlib.suppress(psutil.Error):  # a process that ended meanwhile
            total += p.memory_full_info().uss
    return total


def _max_rss(pid: int | None) -> int:
    import psutil

    best = 0
    for p in _tree(pid):
        with contextlib.suppress(psutil.Error):
            best = max(best, p.memory_info().rss)
    return best


def _job_processes(pid: int | None) -> int:
    """Live processes below the gunicorn workers (the background jobs they forked). Not zombies: a job cancelled
    through another worker than the one that forked it stays a zombie of that one until it forks its next job
    (app.job_manager), holding no memory and no slot; counting it made a flood right after a cancel on the same
    server look like one process too many."""
    if not pid:
        return 0
    import psutil

    def live(process) -> bool:
        try:
            return process.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
        except psutil.NoSuchProcess:
            return False

    try:
        workers = psutil.Process(pid).children()
        return sum(live(p) for w in workers for p in w.children(recursive=True))
    except psutil.NoSuchProcess:
        return 0


ATTACKS = {
    "download amplification (one key x60)": download_amplification,
    "another session's / made-up run keys": foreign_keys,
    "edited job request (20 runs)": edited_request,
    "replayed job request": replayed_request,
    "2 MB request body": big_body,
    "parameter of 10^5 numbers": huge_parameter,
    "10^5 nested brackets": nested_brackets,
    "t_end 1e300, h 1e-300": overflowing_step,
    "wrong types (list, [{}], number)": wrong_types,
    "headers": headers,
    "30 jobs at once from one address": fork_flood,
}
QUICK = ("another session's / made-up run keys", "edited job request (20 runs)", "2 MB request body",
         "10^5 nested brackets", "t_end 1e300, h 1e-300", "headers")


def attack(url: str, names=None, pid: int | None = None, sessions: int = 30) -> dict:
    """Run the attacks (all, or ``names``) against ``url``; {name: (verdict, detail)} plus the server's side."""
    if not _loopback(url):
        raise SystemExit(f"{url} is not a loopback address: this script only attacks a server on this machine")
    target = Target(url)
    health = Health(target.base)
    health.start()
    rss0 = _max_rss(pid)
    out: dict = {}
    try:
        for name, fn in ATTACKS.items():
            if names is not None and name not in names:
                continue
            try:
                out[name] = fn(target, sessions, pid) if fn is fork_flood else fn(target)
            except Exception as exc:
                out[name] = ("passed", f"the client failed: {type(exc).__name__}: {str(exc)[:120]}")
    finally:
        health.stop()
    statuses = target.statuses
    out["_server"] = {"healthz_worst_s": health.worst, "healthz_failures": health.failures,
                      "status_500": sum(s >= 500 for s in statuses), "requests": len(statuses),
                      "max_rss_growth_mb": (_max_rss(pid) - rss0) / 1e6 if pid else None}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (loopback only); default: start gunicorn here")
    parser.add_argument("--pid", type=int, help="the server's gunicorn master pid (memory and job processes)")
    parser.add_argument("--quick", action="store_true", help="the short version (no 30-job flood)")
    args = parser.parse_args()
    names = QUICK if args.quick else None
    if args.url:
        report = attack(args.url, names, args.pid)
    else:
        with _server(None, prefix="integrator-lab-hostile-") as (url, pid):
            report = attack(url, names, pid)
    server = report.pop("_server")
    for name, (verdict, detail) in report.items():
        print(f"{verdict:8} {name}: {detail}")
    rss = server["max_rss_growth_mb"]
    print(f"server: /healthz slowest {server['healthz_worst_s']:.2f} s ({server['healthz_failures']} failed), "
          f"{server['status_500']} status 500 in {server['requests']} requests"
          + (f", biggest process grew {rss:+.0f} MB" if rss is not None else ""))
    bad = any(v == "passed" for v, _ in report.values()) or server["status_500"] or server["healthz_worst_s"] >= 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
