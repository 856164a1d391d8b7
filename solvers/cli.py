"""Command line: ``python -m solvers list | run | warmup``.

Exit status: 0 ok, 2 bad input, 3 the run diverged or failed (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import api
from ._version import __version__
from .registry import BENCHMARKS, METHODS
from .result import _plain


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 too; keep the message short and plain
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _value(text: str) -> Any:
    """A --param/--option value: JSON (numbers, lists, true/false), ``@file.json`` for a JSON file's contents
    (e.g. ``--option tableau=@heun.json``), or else the plain string."""
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                return json.load(f)
        except OSError as exc:
            raise ValueError(f"cannot read {text[1:]!r}: {exc.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{text[1:]!r} is not JSON: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: Sequence[str] | None, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, val = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--{what} expects KEY=VALUE, got {item!r}")
        out[key.strip()] = _value(val.strip())
    return out


def _times(text: str | None) -> list[float] | None:
    """A --save-at value: comma-separated times (s)."""
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--save-at expects comma-separated times in seconds, got {text!r}") from None


def _list(as_json: bool) -> int:
    if as_json:
        data = {
            "benchmarks": {b: api.describe(b) for b in BENCHMARKS},
            "methods": {m: api.describe_method(m) for m in METHODS},
        }
        print(json.dumps(_plain(data), indent=1))
        return 0
    print("benchmarks:")
    for b, spec in BENCHMARKS.items():
        print(f"  {b:26s} seed {spec.seed}  {spec.title}")
        print(f"  {'':26s} methods: {', '.join(api.methods(b))}")
        print(f"  {'':26s} params: {', '.join(spec.params) or '(none)'}")
    print("methods:")
    for m, meth in METHODS.items():
        opts = ", ".join(f"{k}={o.default}" for k, o in meth.options.items()) or "(no options)"
        print(f"  {m:26s} seed {meth.seed}  order {meth.order}  {meth.title}; options: {opts}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    p = _Parser(prog="python -m solvers", description="Integrator Lab: run geometric integrators on benchmarks")
    p.add_argument("--version", action="version", version=f"integrator-lab {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    pl = sub.add_parser("list", help="list benchmarks and methods")
    pl.add_argument("--json", action="store_true", help="print descriptions as JSON")
    pr = sub.add_parser("run", help="run one benchmark with one method and print the summary as JSON")
    pr.add_argument("benchmark")
    pr.add_argument("method")
    pr.add_argument("--h", type=float, required=True, help="step size (s)")
    pr.add_argument("--t-end", type=float, required=True, help="end time (s)")
    pr.add_argument("--param", action="append", metavar="KEY=VALUE", help="benchmark parameter (JSON value)")
    pr.add_argument("--option", action="append", metavar="KEY=VALUE", help="method option (JSON value)")
    saving = pr.add_mutually_exclusive_group()
    saving.add_argument("--max-samples", type=int, default=None, help="cap on saved samples (decimated evenly)")
    saving.add_argument("--save-every", type=int, default=None, metavar="K",
                        help="save steps 0, K, 2K, ... and the last")
    saving.add_argument("--save-at", default=None, metavar="T1,T2,...",
                        help="save exactly these increasing times (multiples of h), comma-separated")
    pr.add_argument("--out", help="save the result (.npz, .csv or .json)")
    warm = sub.add_parser("warmup", help="compile every kernel into the on-disk cache")
    warm.add_argument("--jobs", type=int, default=api.default_jobs(),
                      help="compile in this many processes at once (default: the CPU count, at most 4)")
    args = p.parse_args(argv)

    if args.cmd == "list":
        return _list(args.json)
    if args.cmd == "warmup":
        if args.jobs < 1:
            p.error("--jobs must be at least 1")
        api.warmup(jobs=args.jobs)
        return 0
    try:
        if args.out and not args.out.lower().endswith((".npz", ".csv", ".json")):
            raise ValueError(f"--out {args.out!r}: use a .npz, .csv or .json file name")
        res = api.simulate(
            args.benchmark,
            args.method,
            h=args.h,
            t_end=args.t_end,
            params=_pairs(args.param, "param"),
            options=_pairs(args.option, "option"),
            max_samples=args.max_samples,
            save_every=args.save_every,
            save_at=_times(args.save_at),
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = {"benchmark": res.benchmark, "method": res.method, "h": res.h, "t_end": res.t_end,
           "status": res.status, "message": res.message, "warnings": res.warnings, **res.summary,
           "params": res.params, "options": res.options, "derived": res.derived, "provenance": res.provenance}
    if args.out:
        try:
            res.save(args.out)
        except OSError as exc:
            print(f"error: cannot write {args.out!r}: {exc.strerror}", file=sys.stderr)
            return 2
        out["saved"] = args.out
    print(json.dumps(_plain(out)))
    return 0 if res.status == "ok" else 3


if __name__ == "__main__":
    raise SystemExit(main())
