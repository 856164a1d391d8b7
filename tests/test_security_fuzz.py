"""Property-based fuzzing of the dashboard's callback endpoint (issue 27): never a status 500.

Every request is a hand-made ``/_dash-update-component`` call of one server callback from the app's own graph
(``/_dash-dependencies``, so new pages and callbacks are fuzzed without changes here), its inputs and states
filled with values a hostile client might send: junk of every JSON type, huge and deeply nested texts, huge
numbers, registry ids in the wrong places, forged job requests and run keys. The app runs in this process
(Flask's test client, its own cache directory); the background callbacks go through the job manager's
admission, which refuses every forged request before any fork. A few hundred milliseconds of set-up, then
about 10-40 ms per request.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers.registry import BENCHMARKS, METHODS

pytestmark = pytest.mark.xdist_group("fuzz")

CASES = int(os.environ.get("INTEGRATOR_LAB_FUZZ_CASES", "1000"))  # fewer while debugging


@pytest.fixture(scope="module")
def dash_app(tmp_path_factory):
    """The dashboard in this process with its own cache directory, no answer in the request (no solver runs)."""
    saved = {k: os.environ.get(k) for k in ("INTEGRATOR_LAB_CACHE_DIR", "INTEGRATOR_LAB_INLINE_SECONDS")}
    os.environ["INTEGRATOR_LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("fuzz-cache"))
    os.environ["INTEGRATOR_LAB_INLINE_SECONDS"] = "0"
    from app import background
    from app.main import server

    background.run_cache.cache_clear()
    client = server.test_client()
    client.get("/")
    deps = client.get("/_dash-dependencies").get_json()
    yield client, [d for d in deps if not d.get("clientside_function")]
    background.run_cache.cache_clear()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


NAMES = sorted({*BENCHMARKS, *METHODS, *(p for b in BENCHMARKS.values() for p in b.params),
                *(o for m in METHODS.values() for o in m.options)})
LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e300, -1e300, 1e-300, 0, -1, 2**63, 10**30]),
    st.text(max_size=12), st.sampled_from(NAMES),
    st.sampled_from(["[" * 20_000 + "]" * 20_000, "[" + ",".join(["1.5"] * 30_000) + "]", "1e999", "nan",
                     "(1, 2, 3)", "[[1,0,0],[0,1,0],[0,0,1]]", "x" * 50_000]),
)
JSONISH = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                       max_leaves=12)
FORGED = st.one_of(
    st.fixed_dictionaries({"keys": st.lists(st.sampled_from(["0" * 32, "f" * 32, "x", 7]), max_size=70),
                           "signed": st.sampled_from(["", "abc", "x.y.z", None])}),
    st.fixed_dictionaries({"configs": st.lists(JSONISH, max_size=3), "token": st.text(max_size=8),
                           "signed": st.sampled_from(["", "abc.def", None]), "cancels": LEAF}),
)
VALUE = st.one_of(LEAF, JSONISH, FORGED, st.lists(st.sampled_from(sorted(METHODS)), max_size=9))


def _outputs(spec: str) -> list[tuple[object, str]]:
    parts = spec[2:-2].split("...") if spec.startswith("..") else [spec]
    out = []
    for part in parts:
        if part.startswith("{"):
            end = part.index("}.") + 1
            out.append((json.loads(part[:end]), part[end + 1:]))
        else:
            ident, prop = part.rsplit(".", 1)
            out.append((ident, prop))
    return out


@st.composite
def concrete(draw, pattern: dict) -> dict:
    """A concrete id for a pattern-matching one (["ALL"] etc. replaced by a name, sometimes junk)."""
    return {k: (draw(st.one_of(st.sampled_from(NAMES), st.text(max_size=5), st.integers()))
                if isinstance(v, list) else v) for k, v in pattern.items()}


@st.composite
def dependency(draw, ident, prop: str, value: bool = True):
    if isinstance(ident, str) and ident.startswith("{"):  # a pattern-matching id, as the graph writes it
        ident = json.loads(ident)
    if isinstance(ident, dict) and any(isinstance(v, list) for v in ident.values()):
        items = draw(st.lists(concrete(ident), max_size=3))
        return [{"id": i, "property": prop, **({"value": draw(VALUE)} if value else {})} for i in items]
    return {"id": ident, "property": prop, **({"value": draw(VALUE)} if value else {})}


@st.composite
def callback_request(draw, deps: list[dict]) -> dict:
    cb = draw(st.sampled_from(deps))
    outputs = [draw(dependency(i, p, value=False)) for i, p in _outputs(cb["output"])]
    inputs = [draw(dependency(d["id"], d["property"])) for d in cb["inputs"]]
    state = [draw(dependency(d["id"], d["property"])) for d in cb.get("state", [])]
    names = [f"{d['id']}.{d['property']}" if isinstance(d["id"], str) else json.dumps(d["id"]) + "." + d["property"]
             for d in cb["inputs"]]
    changed = draw(st.lists(st.sampled_from(names), max_size=2)) if names else []
    return {"output": cb["output"], "outputs": outputs if cb["output"].startswith("..") else outputs[0],
            "inputs": inputs, "state": state, "changedPropIds": changed}


def test_callback_endpoint_never_answers_500(dash_app):
    """CASES hand-made requests over the callback graph's inputs: every answer is a 2xx or 4xx (a refusal,
    Dash's own "prevent update" 204, or 413/400 for bodies too large or too deep), never a 500."""
    client, deps = dash_app
    seen: dict[int, int] = {}
    failures: list[str] = []

    @settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
    @given(callback_request(deps))
    def case(body):
        response = client.post("/_dash-update-component", data=json.dumps(body),
                               content_type="application/json")
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        if response.status_code >= 500 and len(failures) < 5:
            failures.append(f"{body['output'][:80]}: {json.dumps(body)[:300]}")

    case()
    assert not failures, "\n".join(failures)
    assert sum(seen.values()) >= min(CASES, 1000), seen
    assert seen.get(200, 0) >= 300, seen  # most requests reached the callbacks' own code



def _request_run(client, deps: list[dict], benchmark="planar_pendulum", methods=("rk4",), h=0.01, t_end=1.0,
                 params: dict | None = None, item=None) -> str:
    """The Run button's callback with these form values (``item``: replaces the first parameter entry)."""
    cb = next(c for c in deps if any(d["id"] == "run-start" for d in c["inputs"]))
    entries = [{"id": {"type": "run-param", "name": k}, "property": "value", "value": v}
               for k, v in (params or {}).items()]
    if item is not None:
        entries = [item, *entries[1:]]
    values = {"run-benchmark": benchmark, "run-methods": list(methods) if isinstance(methods, tuple) else methods,
              "run-step": h, "run-t-end": t_end, "run-cancel": 0}
    state = [entries if d["id"].startswith("{\"name\"") else [] if d["id"].startswith("{")
             else {"id": d["id"], "property": d["property"], "value": values[d["id"]]} for d in cb["state"]]
    body = {"output": cb["output"], "outputs": [{"id": i, "property": p} for i, p in _outputs(cb["output"])],
            "inputs": [{"id": "run-start", "property": "n_clicks", "value": 1}], "state": state,
            "changedPropIds": ["run-start.n_clicks"]}
    response = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    return f"{response.status_code} {response.get_data(as_text=True)}"


@pytest.mark.parametrize("form", [
    {"params": {"m": "[" * 100_000 + "]" * 100_000}},
    {"params": {"m": "[" + ",".join(["1.5"] * 100_000) + "]"}},
    {"t_end": 1e300, "h": 1e-300},
    {"benchmark": ["planar_pendulum"]},
    {"methods": [{}]},
    {"methods": [{"a": 1}, "rk4"]},
    {"params": {"m": [{}], "l": {"a": [1]}}},
    {"params": {"m": "[" * 300 + "1" + "]" * 300}},
])
def test_the_issues_malformed_values_get_nothing_was_run(dash_app, form):
    """Each malformed value of issue 27 gets the page's usual sentence, short (no echo of a huge entry)."""
    client, deps = dash_app
    text = _request_run(client, deps, **form)
    assert text.startswith("200 ") and "Nothing was run: " in text and len(text) < 5_000, text[:300]


def test_an_entry_that_is_not_an_entry_is_a_bad_request(dash_app):
    """A parameter entry sent as a bare number is not a Dash request at all (Dash's own reading of the body
    fails before any callback): 400, no traceback, no 500."""
    client, deps = dash_app
    text = _request_run(client, deps, item=7, params={"m": 1.0})
    assert text.startswith("400 ") and "Traceback" not in text, text[:300]
