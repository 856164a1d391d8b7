"""Explicit Runge-Kutta tableaus: parsing, validation and analysis from numbers alone.

- :func:`parse_number` reads "1/6", "-0.25", "3e-2" with a regular expression and ``fractions.Fraction``:
  nothing a user types is evaluated as code.
- :func:`tableau` turns a library name (``solvers.tableaus.EXPLICIT``) or a user's ``{"A", "b", "c"[, "b_hat"]}``
  into checked float arrays, refusing a tableau that is not square, not explicit, not finite, over
  ``MAX_STAGES`` stages or has sum(b) != 1, with a message naming the field.
- :func:`analyse` checks the order conditions Phi(t) = 1 / gamma(t) over the rooted trees t up to order 6
  (Butcher; Hairer, Norsett, Wanner, Solving ODEs I, II.2), the stability polynomial
  R(z) = 1 + sum_k z^k b^T A^(k-1) 1 (HNW II, IV.2) with its real- and imaginary-axis stability limits, and
  the consistency c_i = sum_j a_ij.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np

from .methods.base import Option
from .tableaus import EXPLICIT

MAX_STAGES = 16
MAX_ORDER = 6  # the order conditions the analysis checks by default (37 trees)
TOL = 1e-10  # an order condition holds when |Phi(t) - 1/gamma(t)| <= TOL
SUM_TOL = 1e-12  # |sum(b) - 1| allowed (round-off of decimal coefficients)
MAX_TEXT = 20_000  # characters of one typed field (16 x 16 entries of 64 characters fit)
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


class TableauError(ValueError):
    """A tableau refused, with ``field`` ("A", "b", "c", "b_hat" or "tableau") naming where the problem is."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"tableau: {message}" if field == "tableau" else f"tableau {field}: {message}")
        self.field = field


def parse_number(text: Any) -> float:
    """A number typed as a decimal ("0.5", "-3e-2") or a fraction of two decimals ("1/6", "-2/3"), as a float.

    Parsed, never evaluated: anything else (names, operators other than one "/", brackets) raises ValueError."""
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a number")
    if isinstance(text, int | float | np.floating | np.integer):
        try:
            return float(text)
        except OverflowError:
            raise ValueError(f"{text!r:.40} is out of range") from None
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a number")
    s = text.strip()
    if len(s) > 64:
        raise ValueError(f"{s[:20]!r}... is too long for a number")
    num, sep, den = s.partition("/")
    if not _NUMBER.match(num.strip()) or (sep and not _NUMBER.match(den.strip())):
        raise ValueError(f"{s!r} is not a number or a fraction such as 1/6")
    for part in (num, den):
        m = _NUMBER.match(part.strip())
        if m and m.group(3) and abs(int(m.group(3)[1:])) > 300:  # no 10**999999 integers
            raise ValueError(f"{s!r} is out of range")
    value = Fraction(num.strip())
    if sep:
        d = Fraction(den.strip())
        if d == 0:
            raise ValueError(f"{s!r} divides by zero")
        value /= d
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{s!r} is out of range") from None


def parse_rows(text: str) -> list[list[float]]:
    """Rows of numbers: one row per line (or separated by ";"), entries by commas or spaces."""
    if not isinstance(text, str):
        raise ValueError("expected text")
    if len(text) > MAX_TEXT:
        raise ValueError(f"{len(text)} characters: at most {MAX_TEXT}")
    rows = [r for r in re.split(r"[;\n]", text) if r.strip()]
    return [[parse_number(x) for x in re.split(r"[,\s]+", r.strip()) if x] for r in rows]


@dataclass(frozen=True)
class Tableau:
    """A checked explicit tableau: A (s x s, strictly lower), b, c, optional b_hat, and its name if any."""

    A: np.ndarray
    b: np.ndarray
    c: np.ndarray
    b_hat: np.ndarray | None = None
    name: str | None = None

    @property
    def stages(self) -> int:
        return int(self.b.size)

    def spec(self) -> str | dict[str, Any]:
        """Plain data for a Result's options and URLs: the library name, or the numbers."""
        if self.name is not None:
            return self.name
        out: dict[str, Any] = {"A": self.A.tolist(), "b": self.b.tolist(), "c": self.c.tolist()}
        if self.b_hat is not None:
            out["b_hat"] = self.b_hat.tolist()
        return out


def _vector(field: str, value: Any, s: int | None) -> np.ndarray:
    if isinstance(value, str):
        try:
            rows = parse_rows(value)
        except ValueError as exc:
            raise TableauError(field, str(exc)) from None
        value = [x for r in rows for x in r]
    if not isinstance(value, Sequence | np.ndarray) or isinstance(value, str | bytes):
        raise TableauError(field, "must be a list of numbers")
    if len(value) > MAX_STAGES:
        raise TableauError(field, f"has {len(value)} entries; at most {MAX_STAGES} stages are allowed")
    try:
        v = np.array([parse_number(x) for x in value], dtype=float)
    except ValueError as exc:
        raise TableauError(field, str(exc)) from None
    if s is not None and v.size != s:
        raise TableauError(field, f"has {v.size} entries, A has {s} stages")
    if not np.all(np.isfinite(v)):
        raise TableauError(field, "has entries that are not finite")
    return v


def _matrix(value: Any) -> np.ndarray:
    if isinstance(value, str):
        try:
            value = parse_rows(value)
        except ValueError as exc:
            raise TableauError("A", str(exc)) from None
    if not isinstance(value, Sequence | np.ndarray) or isinstance(value, str | bytes) or len(value) == 0:
        raise TableauError("A", "must be a non-empty list of rows")
    s = len(value)
    if s > MAX_STAGES:
        raise TableauError("A", f"has {s} rows; at most {MAX_STAGES} stages are allowed")
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, Sequence | np.ndarray) or isinstance(row, str | bytes):
            raise TableauError("A", f"row {i + 1} is not a list of numbers")
        if len(row) != s:
            raise TableauError("A", f"is not square: row {i + 1} has {len(row)} entries, A has {s} rows")
        try:
            rows.append([parse_number(x) for x in row])
        except ValueError as exc:
            raise TableauError("A", f"row {i + 1}: {exc}") from None
    A = np.array(rows, dtype=float).reshape(s, s)
    if not np.all(np.isfinite(A)):
        raise TableauError("A", "has entries that are not finite")
    upper = np.triu(A)
    if np.any(upper != 0.0):
        i, j = (int(k) + 1 for k in np.argwhere(upper != 0.0)[0])
        raise TableauError("A", f"is not explicit: a_{i}{j} = {A[i - 1, j - 1]:g} is on or above the diagonal "
                                "(an explicit method has a_ij = 0 for j >= i)")
    return A


def _from_library(name: str) -> dict[str, Any]:
    e = EXPLICIT[name]
    s = len(e["b"])
    A = [[*row, *(["0"] * (s - len(row)))] for row in e["A"]]
    out = {"A": A, "b": e["b"], "c": e["c"]}
    if "b_hat" in e:
        out["b_hat"] = e["b_hat"]
    return out


def tableau(spec: Any) -> Tableau:
    """A checked tableau from a library name or ``{"A": rows, "b": ..., "c": ...[, "b_hat": ...]}`` (numbers or
    number text such as "1/6"; A may omit nothing: it is s x s with zeros on and above the diagonal). ``c``
    may be left out (then the row sums of A). Raises :class:`TableauError` naming the field."""
    if isinstance(spec, Tableau):
        return spec
    name = None
    if isinstance(spec, str):
        key = spec.strip().lower()
        if key not in EXPLICIT:
            raise TableauError("tableau", f"unknown name {spec[:40]!r}; the library has {', '.join(EXPLICIT)}")
        name = key
        spec = _from_library(key)
    if not isinstance(spec, Mapping):
        raise TableauError("tableau", "must be a library name or a dict with A, b and c")
    unknown = sorted(set(map(str, spec)) - {"A", "b", "c", "b_hat", "name"})
    if unknown:
        raise TableauError("tableau", f"unknown field(s) {', '.join(map(repr, unknown))}; valid: A, b, c, b_hat")
    if "A" not in spec or "b" not in spec:
        raise TableauError("tableau", "needs A and b (and c, else the row sums of A)")
    A = _matrix(spec["A"])
    s = A.shape[0]
    b = _vector("b", spec["b"], s)
    c = _vector("c", spec["c"], s) if spec.get("c") is not None else A.sum(axis=1)
    b_hat = _vector("b_hat", spec["b_hat"], s) if spec.get("b_hat") is not None else None
    total = float(b.sum())
    if abs(total - 1.0) > SUM_TOL:
        raise TableauError("b", f"sums to {total:.15g}, not 1: the method would not be consistent "
                                "(type exact fractions such as 1/6 rather than rounded decimals)")
    for arr in (A, b, c) + ((b_hat,) if b_hat is not None else ()):
        arr.setflags(write=False)
    if name is None and isinstance(spec.get("name"), str) and spec["name"].strip().lower() in EXPLICIT:
        lib = tableau(spec["name"].strip().lower())
        if (np.array_equal(lib.A, A) and np.array_equal(lib.b, b) and np.array_equal(lib.c, c)
                and _same(lib.b_hat, b_hat)):
            name = lib.name
    return Tableau(A, b, c, b_hat, name)


def _same(x: np.ndarray | None, y: np.ndarray | None) -> bool:
    return (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))


# --- rooted trees -----------------------------------------------------------------------------------------------
# A tree is the sorted tuple of its subtrees (the leaf is ()). Its order |t|, density gamma(t) and elementary
# weight Phi(t) = b^T g(t) with g(t) = prod_k A g(t_k) (componentwise; g(leaf) = 1) follow Butcher's recursions
# (HNW I, II.2, Definitions 2.2, 2.9, Theorem 2.13).


def _order(t: tuple) -> int:
    return 1 + sum(_order(u) for u in t)


@cache
def trees(order: int) -> tuple[tuple, ...]:
    """All rooted trees with ``order`` vertices (1, 1, 2, 4, 9, 20, 48, 115 for orders 1..8)."""
    if order == 1:
        return ((),)
    out: set[tuple] = set()
    # attach a multiset of subtrees with total order - 1 vertices to a new root
    for parts in _partitions(order - 1, order - 1):
        for combo in _choose(parts):
            out.add(tuple(sorted(combo)))
    return tuple(sorted(out, key=_key))


def _key(t: tuple) -> Any:
    return (_order(t), len(t), [_key(u) for u in t])


def _partitions(n: int, largest: int) -> list[list[int]]:
    if n == 0:
        return [[]]
    return [[k, *rest] for k in range(min(n, largest), 0, -1) for rest in _partitions(n - k, k)]


def _choose(parts: list[int]) -> list[tuple]:
    if not parts:
        return [()]
    return [(u, *rest) for u in trees(parts[0]) for rest in _choose(parts[1:])]


def density(t: tuple) -> int:
    """gamma(t) = |t| prod gamma(t_k)."""
    g = _order(t)
    for u in t:
        g *= density(u)
    return g


def notation(t: tuple) -> str:
    """Butcher's bracket notation: tau for the leaf, [t1 t2 ...] otherwise (tau^k for repeated leaves)."""
    if not t:
        return "τ"
    parts: list[str] = []
    i = 0
    while i < len(t):
        j = i
        while j < len(t) and t[j] == t[i]:
            j += 1
        name = notation(t[i])
        parts.append(name if j - i == 1 else f"{name}^{j - i}")
        i = j
    return "[" + " ".join(parts) + "]"


def condition(t: tuple) -> str:
    """The order condition as a formula in b, c and A (c = A 1), e.g. sum b_i c_i^2 = 1/3."""
    return f"b·{_g_text(t)} = 1/{density(t)}"


def _g_text(t: tuple) -> str:
    if not t:
        return "1"
    factors: list[str] = []
    i = 0
    while i < len(t):
        j = i
        while j < len(t) and t[j] == t[i]:
            j += 1
        f = "c" if t[i] == () else f"A({_g_text(t[i])})"
        factors.append(f if j - i == 1 else f"{f}^{j - i}")
        i = j
    return " ".join(factors)


def _weight(t: tuple, A: np.ndarray, e: np.ndarray) -> np.ndarray:
    g = e.copy()
    for u in t:
        g = g * (A @ _weight(u, A, e))
    return g


# --- stability ----------------------------------------------------------------------------------------------------


def stability_coefficients(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Coefficients r_0..r_s of R(z) = sum r_k z^k, r_0 = 1, r_k = b^T A^(k-1) 1 (A nilpotent: degree <= s)."""
    s = b.size
    r = np.zeros(s + 1)
    r[0] = 1.0
    v = np.ones(s)
    for k in range(1, s + 1):
        r[k] = b @ v
        v = A @ v
    # trailing zeros (A^(k-1) 1 vanishes early for some tableaus) do not change the degree's meaning
    return r


def stability(r: np.ndarray, z: np.ndarray) -> np.ndarray:
    """|R(z)| at complex points z."""
    return np.abs(np.polynomial.polynomial.polyval(z, r))


def _axis_limit(r: np.ndarray, direction: complex) -> float:
    """The largest x >= 0 with |R(direction y)| <= 1 for every y in [0, x] (0 if unstable right away): walks the
    positive real roots of |R|^2 - 1 along the ray and stops at the first one past which |R| > 1."""
    P = np.polynomial.Polynomial
    coeffs = r * direction ** np.arange(r.size)
    re_, im_ = P(coeffs.real), P(coeffs.imag)
    E = re_ * re_ + im_ * im_ - 1.0  # |R|^2 - 1 along the ray, a real polynomial in y
    scale = max(1.0, float(np.abs(E.coef).max()))
    found = np.asarray(E.roots(), dtype=complex)
    roots = sorted(float(z.real) for z in found if abs(z.imag) <= 1e-7 * max(1.0, abs(z)) and z.real > 1e-9)
    lo = 0.0
    for hi in [*roots, float("inf")]:
        mid = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * lo + 1.0
        if E(mid) > 1e-12 * scale:
            return lo
        lo = hi
    return lo


@dataclass(frozen=True)
class TreeCheck:
    """One order condition: the tree, its order and density, Phi(t), 1/gamma(t) and their difference."""

    tree: str
    order: int
    density: int
    condition: str
    weight: float
    expected: float
    residual: float
    holds: bool


def analyse(A: Any, b: Any = None, c: Any = None, max_order: int = MAX_ORDER, tol: float = TOL) -> dict[str, Any]:
    """Everything the numbers say about an explicit tableau (a name, a dict, a :class:`Tableau`, or A, b, c).

    Returns ``trees`` (a :class:`TreeCheck` per rooted tree up to ``max_order``), ``order`` (the largest p with
    every condition up to p holding; the order for time-dependent right-hand sides too when ``consistent``, else
    at most 1), ``order_autonomous``, ``max_order`` checked, ``consistent`` and ``row_sum_error``
    (max |c_i - sum_j a_ij|), ``stability`` (coefficients of R(z), lowest first), ``real_limit`` and
    ``imag_limit`` (the stability interval [-real_limit, 0] and segment i[-imag_limit, imag_limit]), ``stages``
    and ``embedded_order`` (the order of b_hat, if given). Raises :class:`TableauError` for a malformed tableau."""
    tab = tableau(A) if b is None else tableau({"A": A, "b": b, "c": c})
    if not 1 <= max_order <= 8:
        raise ValueError(f"max_order must be in 1..8, got {max_order}")
    e = np.ones(tab.stages)
    checks: list[TreeCheck] = []
    order = max_order
    for p in range(1, max_order + 1):
        for t in trees(p):
            phi = float(tab.b @ _weight(t, tab.A, e))
            exp = 1.0 / density(t)
            res = phi - exp
            ok = abs(res) <= tol
            checks.append(TreeCheck(notation(t), p, density(t), condition(t), phi, exp, res, ok))
            if not ok:
                order = min(order, p - 1)
    row_err = float(np.abs(tab.A.sum(axis=1) - tab.c).max())
    consistent = row_err <= 1e-12
    r = stability_coefficients(tab.A, tab.b)
    out: dict[str, Any] = {
        "stages": tab.stages,
        "name": tab.name,
        "trees": checks,
        "max_order": max_order,
        "order_autonomous": order,
        "order": order if consistent else min(order, 1),
        "consistent": consistent,
        "row_sum_error": row_err,
        "stability": r,
        "real_limit": _axis_limit(r, -1.0),
        "imag_limit": _axis_limit(r, 1j),
        "embedded_order": None,
    }
    if tab.b_hat is not None:
        hat = 0
        for p in range(1, max_order + 1):
            if all(abs(float(tab.b_hat @ _weight(t, tab.A, e)) - 1.0 / density(t)) <= tol for t in trees(p)):
                hat = p
            else:
                break
        out["embedded_order"] = hat
    return out


# --- the kernel's view: the option, the packed numbers, the order ------------------------------------------------


@dataclass(frozen=True)
class TableauOption(Option):
    """The ``tableau`` option: a library name or a dict of A, b, c (b_hat), checked; kept as plain data."""

    kind: str = "tableau"

    def validate(self, name: str, value: Any) -> Any:
        try:
            if isinstance(value, str) and value.lstrip().startswith("{"):  # JSON text from a form or a URL
                if len(value) > 20_000:
                    raise TableauError("tableau", "is too long")
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as exc:
                    raise TableauError("tableau", f"is not valid JSON: {exc.msg}") from None
            return tableau(value).spec()
        except TableauError as exc:
            raise ValueError(f"option {name!r}: {exc}") from None


def weights(b: np.ndarray) -> tuple[float, np.ndarray]:
    """(D, D b) with the smallest integer D <= 1000 making every D b_j an integer, else (1, b)."""
    for D in range(1, 1001):
        w = b * D
        r = np.rint(w)
        if np.all(np.abs(w - r) <= 1e-13 * np.maximum(1.0, np.abs(w))):
            return float(D), r
    return 1.0, b.copy()


def pack_tableau(tab: Tableau) -> np.ndarray:
    """The tableau as numbers for a kernel: [s, D, 1 if b_hat], A (s x s, row-major), D b, c, b_hat (or zeros)."""
    s = tab.stages
    D, bw = weights(tab.b)
    hat = tab.b_hat if tab.b_hat is not None else np.zeros(s)
    return np.concatenate([[float(s), D, 1.0 if tab.b_hat is not None else 0.0], tab.A.ravel(), bw, tab.c, hat])


@lru_cache(maxsize=256)
def _order_cached(spec: str) -> int:
    return int(analyse(tableau(json.loads(spec)), max_order=8)["order"])


def order_of(spec: Any) -> int:
    """The order of a tableau (conditions checked up to 8; the library's DOP853 reaches 8)."""
    return _order_cached(json.dumps(tableau(spec).spec()))
