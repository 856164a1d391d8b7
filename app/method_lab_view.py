"""The Method lab page's pure parts (app/pages/method_lab.py): a typed or named tableau -> its checks, order table,
stability-region figure and the links that carry it (no Dash callbacks here)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlencode

import numpy as np
import plotly.graph_objects as go

import solvers
from solvers import linearisation
from solvers import tableau as tb
from solvers.tableaus import EXPLICIT

CUSTOM = "custom"
MAX_TEXT = 4000  # characters per field: 16 x 16 fractions fit


def library_options() -> list[dict[str, str]]:
    """Dropdown entries: every library tableau, then "custom" (typed rows)."""
    return [{"label": f"{e['title']} ({k})", "value": k} for k, e in EXPLICIT.items()] + [
        {"label": "Your own (type A, b, c below)", "value": CUSTOM}]


def fields_of(name: str) -> dict[str, str]:
    """The A, b, c text of a library tableau, as a user would type it (fractions where the library has them)."""
    e = EXPLICIT[name]
    s = len(e["b"])

    def txt(x: Any) -> str:
        return x if isinstance(x, str) else repr(float(x))

    rows = [" ".join(txt(x) for x in [*row, *(["0"] * (s - len(row)))]) for row in e["A"]]
    return {"A": "\n".join(rows), "b": " ".join(map(txt, e["b"])), "c": " ".join(map(txt, e["c"]))}


def spec_from_form(name: str | None, a_text: str, b_text: str, c_text: str) -> tuple[Any, dict[str, str]]:
    """(tableau spec for the API, errors by field "A"/"b"/"c"/"tableau"). A library name wins unless custom."""
    if name and name != CUSTOM:
        if name not in EXPLICIT:
            return None, {"tableau": f"unknown tableau {name[:40]!r}"}
        return name, {}
    texts = {"A": a_text or "", "b": b_text or "", "c": c_text or ""}
    for field, text in texts.items():
        if len(text) > MAX_TEXT:
            return None, {field: f"{len(text)} characters: at most {MAX_TEXT}"}
    spec: dict[str, Any] = {"A": texts["A"], "b": texts["b"]}
    if texts["c"].strip():
        spec["c"] = texts["c"]
    try:
        return tb.tableau(spec).spec(), {}
    except tb.TableauError as exc:
        return None, {exc.field: str(exc)}


def analysis_summary(a: Mapping[str, Any]) -> str:
    """One sentence: order, stages, consistency, axis limits."""
    cons = ("consistent (c = row sums of A)" if a["consistent"]
            else f"NOT consistent: max |c_i - sum_j a_ij| = {a['row_sum_error']:.3g}; order {a['order_autonomous']} "
                 "for autonomous problems only")
    checked = f" (conditions checked up to order {a['max_order']})" if a["order"] == a["max_order"] else ""
    imag = (f"on i[-{a['imag_limit']:.4g}, {a['imag_limit']:.4g}] of the imaginary axis" if a["imag_limit"] > 0
            else "nowhere on the imaginary axis but 0")
    return (f"Order {a['order']}{checked}, {a['stages']} stage{'s' if a['stages'] > 1 else ''}, {cons}. "
            f"Stable on [-{a['real_limit']:.4g}, 0] of the real axis and {imag}.")


def order_rows(a: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The order-condition table: one row per rooted tree."""
    return [{"order": t.order, "tree": t.tree, "condition": t.condition, "Phi(t)": f"{t.weight:.12g}",
             "1/gamma(t)": f"{t.expected:.12g}", "residual": f"{t.residual:.3e}", "holds": "yes" if t.holds else "no"}
            for t in a["trees"]]


@lru_cache(maxsize=32)
def _eigenvalues(benchmark: str) -> tuple[complex, ...] | str:
    try:
        return tuple(complex(x) for x in linearisation.eigenvalues(benchmark))
    except ValueError as exc:  # too long a state, or a right-hand side that cannot be evaluated there
        return str(exc)


def eigen_marks(benchmark: str) -> dict[str, Any]:
    """The eigenvalues h lambda of ``benchmark``'s linearised right-hand side at its initial state (default
    parameters; solvers.linearisation) at its default step h: ``z`` (complex list), ``h``, ``benchmark``, or
    ``note`` saying why there are none."""
    if benchmark not in solvers.benchmarks():
        return {"z": [], "h": None, "benchmark": benchmark, "note": "no benchmark chosen"}
    h = float(solvers.describe(benchmark)["default_h"])
    lam = _eigenvalues(benchmark)
    if isinstance(lam, str):
        return {"z": [], "h": h, "benchmark": benchmark, "note": lam}
    return {"z": [h * x for x in lam], "h": h, "benchmark": benchmark, "note": ""}


ZERO = 1e-6  # |h lambda| below this is drawn as one mark at 0 (a count in its name)


def stability_figure(a: Mapping[str, Any], n: int = 241, marks: Mapping[str, Any] | None = None) -> go.Figure:
    """|R(z)| <= 1 shaded in the complex plane, with the axis limits marked and, given ``marks``
    (:func:`eigen_marks`), the benchmark's h lambda as crosses (those at 0 as one, with their count); the plane
    grows to show them (up to 4 times the region's own extent)."""
    r = np.asarray(a["stability"], dtype=float)
    ext = max(3.0, 1.3 * max(a["real_limit"], a["imag_limit"], 1.0))
    z = np.asarray((marks or {}).get("z") or [], dtype=complex)
    if z.size:
        ext = min(4.0 * ext, max(ext, 1.15 * float(np.abs(z).max())))
    x = np.linspace(-ext, 0.35 * ext, n)
    y = np.linspace(-ext, ext, n)
    Z = x[None, :] + 1j * y[:, None]
    mag = np.log10(np.maximum(tb.stability(r, Z), 1e-16))
    fig = go.Figure()
    # a constraint contour shades the side of the level that fails the constraint: "> 0" shades log10 |R(z)| <= 0
    # (a filled level contour coloured the whole plane)
    fig.add_trace(go.Contour(x=x, y=y, z=mag, contours={"type": "constraint", "operation": ">", "value": 0.0},
                             fillcolor="rgba(37, 99, 235, 0.25)", showscale=False, name="|R(z)| <= 1",
                             hoverinfo="skip", line={"color": "#1d4ed8", "width": 2}))
    fig.add_trace(go.Scatter(x=[-a["real_limit"], 0, 0], y=[0, a["imag_limit"], -a["imag_limit"]], mode="markers",
                             marker={"color": "#b91c1c", "size": 8}, name="axis limits",
                             hovertemplate="stability limit %{x:.4g} + %{y:.4g} i<extra></extra>"))
    subtitle = ""
    if marks is not None:
        subtitle = _marks(fig, r, z, marks)
    fig.update_layout(title={"text": f"Stability region |R(z)| <= 1, R(z) = {poly_text(r)}" + subtitle,
                             "font": {"size": 14}},
                      xaxis_title="Re(h lambda)", yaxis_title="Im(h lambda)", height=500,
                      margin={"l": 50, "r": 10, "t": 80 if subtitle else 50, "b": 40},
                      yaxis={"scaleanchor": "x", "scaleratio": 1}, showlegend=bool(subtitle),
                      legend={"orientation": "h", "y": -0.15})
    return fig


def _marks(fig: go.Figure, r: np.ndarray, z: np.ndarray, marks: Mapping[str, Any]) -> str:
    """Add the h lambda crosses; the subtitle that says what they are."""
    bench = marks.get("benchmark")
    if not z.size:
        return f"<br><sup>no h lambda marks for {bench}: {marks.get('note') or 'none'}</sup>"
    zero = np.abs(z) < ZERO
    out = z[~zero]
    inside = int(np.count_nonzero(tb.stability(r, out) <= 1.0 + 1e-12)) + int(np.count_nonzero(zero))
    if out.size:
        fig.add_trace(go.Scatter(x=out.real.tolist(), y=out.imag.tolist(), mode="markers",
                                 marker={"symbol": "x", "size": 10, "color": "#111827"}, name="h lambda",
                                 hovertemplate="h lambda = %{x:.4g} + %{y:.4g} i<extra></extra>"))
    if zero.any():
        fig.add_trace(go.Scatter(x=[0.0], y=[0.0], mode="markers", name=f"h lambda = 0 ({int(zero.sum())} of them)",
                                 marker={"symbol": "x", "size": 10, "color": "#6b7280"},
                                 hovertemplate=f"{int(zero.sum())} eigenvalues 0<extra></extra>"))
    return (f"<br><sup>x: h lambda, the {z.size} eigenvalues of {bench}'s linearised right-hand side at its initial "
            f"state times h = {marks['h']:g} (its default step); {inside} in the region</sup>")


def poly_text(r: np.ndarray) -> str:
    """R(z) as text, e.g. 1 + z + 0.5 z^2."""
    parts = []
    for k, v in enumerate(r):
        if v == 0:
            continue
        term = "" if k == 0 else ("z" if k == 1 else f"z^{k}")
        coef = f"{v:.4g}"
        parts.append(term if term and coef == "1" else f"{coef} {term}".strip())
    return " + ".join(parts).replace("+ -", "- ")


def encode(spec: Any) -> str:
    """A tableau spec as a URL value: the library name, or compact JSON."""
    return spec if isinstance(spec, str) else json.dumps(spec, separators=(",", ":"))


def lab_query(spec: Any, benchmark: str) -> str:
    """The Method lab's own shareable query."""
    return "?" + urlencode({"tableau": encode(spec), "benchmark": benchmark})


def lab_state(query: Mapping[str, Any] | str | None) -> tuple[str | None, dict[str, str], str | None]:
    """(library name or CUSTOM, typed fields, benchmark) from the lab's URL (a query string or Dash's parsed
    query); unreadable parts are ignored and the form shows the defaults."""
    q = dict(parse_qsl(query.lstrip("?"))) if isinstance(query, str) else dict(query or {})
    value = str(q.get("tableau", ""))[:MAX_TEXT * 3]
    bench = q.get("benchmark") if isinstance(q.get("benchmark"), str) else None
    if not value:
        return None, {}, bench
    if value in EXPLICIT:
        return value, fields_of(value), bench
    try:
        spec = json.loads(value)
        tab = tb.tableau(spec)
    except (ValueError, TypeError):
        return CUSTOM, {}, bench
    fields = {"A": "\n".join(" ".join(f"{x:.17g}" for x in row) for row in tab.A),
              "b": " ".join(f"{x:.17g}" for x in tab.b), "c": " ".join(f"{x:.17g}" for x in tab.c)}
    return CUSTOM, fields, bench


def run_query(spec: Any, benchmark: str, h: float | None = None, t_end: float | None = None) -> str:
    """A Run page link: erk with this tableau beside rk4 on ``benchmark`` (app.urlstate's query format)."""
    q: dict[str, str] = {"benchmark": benchmark, "methods": "erk,rk4", "o.erk.tableau": encode(spec)}
    if h is not None:
        q["h"] = f"{h:g}"
    if t_end is not None:
        q["t_end"] = f"{t_end:g}"
    return "?" + urlencode(q)


def convergence_query(spec: Any, benchmark: str) -> str:
    """A Convergence page link: erk with this tableau beside rk4 on ``benchmark`` (the page's default steps), its
    observed order shown next to the order predicted from the tableau (app.convergence.share_query's format)."""
    return "?" + urlencode({"benchmark": benchmark, "methods": "erk,rk4", "o.erk.tableau": encode(spec)})


def check(name: str | None, a_text: str, b_text: str, c_text: str, benchmark: str) -> dict[str, Any]:
    """Everything the page shows for the typed fields: ``errors`` by field, or ``summary``, ``rows``, ``figure``,
    ``run_href`` (the Run page is ``/``), ``convergence_href`` and ``share_href``. The typed fields are what
    counts; they keep the library's name in links when they are that tableau's own text."""
    spec, errors = spec_from_form(CUSTOM, a_text, b_text, c_text)
    if errors:
        return {"errors": errors}
    if name in EXPLICIT and fields_of(name) == {"A": a_text, "b": b_text, "c": c_text}:
        spec = name
    a = tb.analyse(spec)
    marks = eigen_marks(benchmark)
    return {"errors": {}, "spec": spec, "summary": analysis_summary(a), "rows": order_rows(a),
            "figure": stability_figure(a, marks=marks), "order": a["order"], "marks": marks,
            "run_href": "/" + run_query(spec, benchmark),
            "convergence_href": "/convergence" + convergence_query(spec, benchmark),
            "share_href": "/method-lab" + lab_query(spec, benchmark)}
