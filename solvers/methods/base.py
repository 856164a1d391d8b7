"""Method descriptions: options (validated), the compiled kernel, where the method applies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..models.base import Model


@dataclass(frozen=True)
class Option:
    """One method option: default, type and range, a one-line description."""

    default: Any
    doc: str
    kind: str = "float"  # "float" | "int" | "bool" | "choice"
    low: float | None = None  # inclusive bounds
    high: float | None = None
    choices: tuple[Any, ...] = ()
    # the benchmarks on which the option acts (None: all the method applies to); elsewhere it is refused
    benchmarks: tuple[str, ...] | None = None

    def validate(self, name: str, value: Any) -> Any:
        """Return the value in its type, or raise ValueError naming the value and what is allowed."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
                return value.lower() in ("true", "1", "yes")
            if isinstance(value, (int, float)) and value in (0, 1):
                return bool(value)
            raise ValueError(f"option {name!r}: {value!r} is not a boolean (true/false)")
        if self.kind == "choice":
            if value in self.choices:
                return value
            raise ValueError(f"option {name!r}: {value!r} is not one of {', '.join(map(repr, self.choices))}")
        if isinstance(value, bool | np.bool_):
            raise ValueError(f"option {name!r}: {value!r} is a boolean, not a number")
        try:
            num = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"option {name!r}: {value!r} is not a number") from None
        if not np.isfinite(num):
            raise ValueError(f"option {name!r}: {value!r} is not finite")
        if self.kind == "int":
            if num != int(num):
                raise ValueError(f"option {name!r}: {value!r} is not an integer")
            num = int(num)
        if (self.low is not None and num < self.low) or (self.high is not None and num > self.high):
            raise ValueError(f"option {name!r}: {value!r} is outside [{self.low}, {self.high}]")
        return num


@dataclass(frozen=True)
class Method:
    """A time integrator: its compiled kernel (see solvers.kernels) and how to feed it.

    ``machineries`` lists the model families the kernel advances; ``benchmarks`` optionally narrows the
    benchmarks it is offered on. ``pack`` turns validated options into the kernel's float array, and
    ``work_size`` gives the length of its persistent work array for a model. ``report(work, info)``, if
    given, returns extra summary entries after a run (adaptive step counts, switch times); ``prepare``
    (optional) finalises the options once the model is built (the driver calls it before the run).
    """

    id: str
    title: str
    seed: str
    order: int
    description: str
    kernel: Callable[..., tuple[int, int, int]]
    machineries: tuple[str, ...]
    options: Mapping[str, Option] = field(default_factory=dict)
    pack: Callable[[dict[str, Any]], np.ndarray] = lambda o: np.zeros(1)
    work_size: Callable[[Model], int] = lambda m: 1
    benchmarks: tuple[str, ...] | None = None
    properties: tuple[str, ...] = ()
    report: Callable[[np.ndarray, np.ndarray], dict[str, Any]] | None = None
    domain_message: str = ""  # why the kernel's DOMAIN status fails a run (else the model's message)
    # optional: turn resolved options into final ones once the model is known (e.g. spark's gamma = "R", "T",
    # "opt"); the driver calls prepare(options, benchmark=, params=, model=, h=, t_end=, run=) before the run, with
    # run a solvers.driver.Runner for short runs of its own (under the caller's progress, cancel and CPU time)
    prepare: Callable[..., dict[str, Any]] | None = None
    adaptive: bool = False  # step-size control: h is the output spacing and the largest internal step
    # the order for given (resolved) options when it depends on them (spark: 2 s); ``order`` is the default's
    order_for: Callable[[dict[str, Any]], int] | None = None

    def order_of(self, options: Mapping[str, Any] | None = None) -> int:
        """The theoretical order with these options (validated; None: the defaults)."""
        return self.order if self.order_for is None else int(self.order_for(self.resolve(options)))

    def resolve(self, options: Mapping[str, Any] | None, benchmark: str | None = None) -> dict[str, Any]:
        """Defaults overridden by ``options``, every value validated.

        With a ``benchmark``, only the options that act on it: one that cannot (an :class:`Option` whose
        ``benchmarks`` excludes it) is left out, and refused with a ValueError when given a value other than its
        default (a default asks for nothing, so a form that sends every option in full still runs)."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for method {self.id!r}; "
                f"valid: {', '.join(self.options) or '(none)'}"
            )
        out = {k: spec.validate(k, options.get(k, spec.default)) for k, spec in self.options.items()}
        if benchmark is None:
            return out
        foreign = [k for k, spec in self.options.items() if spec.benchmarks is not None and benchmark not in
                   spec.benchmarks]
        for k in foreign:
            if k in options and out[k] != self.options[k].validate(k, self.options[k].default):
                where = ", ".join(map(repr, self.options[k].benchmarks or ()))
                raise ValueError(f"option {k!r} of method {self.id!r} acts only on benchmark(s) {where}, not on "
                                 f"{benchmark!r}: leave it out")
        return {k: v for k, v in out.items() if k not in foreign}

    def complete(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` with the defaults of those left out (what ``pack`` needs whatever the benchmark)."""
        return {**{k: spec.validate(k, spec.default) for k, spec in self.options.items()}, **options}

    def describe(self) -> dict[str, Any]:
        """Plain-data description for the dashboard and the CLI."""
        return {
            "id": self.id,
            "title": self.title,
            "seed": self.seed,
            "order": self.order,
            "adaptive": self.adaptive,
            "description": self.description,
            "properties": list(self.properties),
            "options": {
                k: {"default": o.default, "doc": o.doc, "kind": o.kind, "low": o.low, "high": o.high,
                    "choices": list(o.choices),
                    "benchmarks": None if o.benchmarks is None else list(o.benchmarks)}
                for k, o in self.options.items()
            },
        }


# Options shared by the implicit methods (Newton on each step's nonlinear system).
NEWTON_OPTIONS: dict[str, Option] = {
    "newton_tol": Option(1e-10, "Newton stops when each block's update max|dx| <= newton_tol (1 + max|x|); "
                         "the same test for every implicit method (docs/methods.md)", "float",
                         1e-14, 1e-3),
    "newton_max_iter": Option(20, "Newton iterations per step before the run fails", "int", 1, 200),
}
