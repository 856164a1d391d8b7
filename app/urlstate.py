"""Shareable links: the run form <-> a URL query string (pure functions, no Dash imports).

``?benchmark=pendulum_3d&methods=rk4,rattlie&h=0.002&t_end=20&p.m=12&o.rattlie.newton_tol=1e-12``: parameters
as ``p.NAME``, method options as ``o.METHOD.NAME``, values exactly as typed in the form (numbers, or JSON lists
for vectors and matrices); the Convergence page adds ``levels`` (its number of step sizes). Only entries that
differ from the defaults are written, so links stay short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode


def form_from_query(query: Mapping[str, Any] | str) -> dict[str, Any]:
    """The form values a query carries (``benchmark``, ``methods``, ``h``, ``t_end``, ``levels``, ``params``,
    ``options``).

    Missing keys are absent from the result; nothing is validated here (the form validates what it shows).
    """
    if isinstance(query, str):
        query = dict(parse_qsl(query.lstrip("?"), keep_blank_values=True))
    form: dict[str, Any] = {"params": {}, "options": {}}
    for key, value in query.items():
        if not isinstance(value, str):
            continue
        if key == "benchmark":
            form["benchmark"] = value
        elif key == "methods":
            form["methods"] = [m for m in value.split(",") if m]
        elif key in ("h", "t_end", "levels"):
            form[key] = value
        elif key.startswith("p."):
            form["params"][key[2:]] = value
        elif key.startswith("o.") and key.count(".") >= 2:
            method, _, name = key[2:].partition(".")
            form["options"].setdefault(method, {})[name] = value
    return form


def query_from_form(form: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> str:
    """The query string (with its leading ``?``) of a form; entries equal to ``defaults`` are left out.

    ``defaults``: ``{"params": {name: text}, "options": {method: {name: text}}}`` as the form shows them.
    """
    defaults = defaults or {}
    items: list[tuple[str, str]] = []
    if form.get("benchmark"):
        items.append(("benchmark", str(form["benchmark"])))
    if form.get("methods"):
        items.append(("methods", ",".join(form["methods"])))
    for key in ("h", "t_end", "levels"):
        if form.get(key) not in (None, ""):
            items.append((key, f"{form[key]}"))
    param_defaults = defaults.get("params") or {}
    for name, value in (form.get("params") or {}).items():
        text = "" if value is None else str(value).strip()
        if text != str(param_defaults.get(name, "")).strip():
            items.append((f"p.{name}", text))
    option_defaults = defaults.get("options") or {}
    for method, options in (form.get("options") or {}).items():
        if method not in (form.get("methods") or []):
            continue
        for name, value in (options or {}).items():
            text = "" if value is None else str(value).strip()
            if text != str((option_defaults.get(method) or {}).get(name, "")).strip():
                items.append((f"o.{method}.{name}", text))
    return "?" + urlencode(items, safe=",[]") if items else ""


def query_value(value: Any) -> str:
    """A value as the Run page's form shows it: numbers as the shortest text that reads back to the same
    number, vectors and matrices as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
