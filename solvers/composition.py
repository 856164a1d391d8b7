"""Symmetric composition methods as data: step sizes gamma_1 h, ..., gamma_s h of a symmetric second-order
one-step method whose composition has order 4, 6 or 8 (Hairer, Lubich and Wanner, Geometric Numerical
Integration, II.4 and V.3; docs/references.md).

Each set lists the free half of its symmetric sequence (gamma_i = gamma_(s+1-i)), the middle entry last;
:func:`gammas` gives the whole sequence. The order conditions a symmetric composition of a symmetric method must
meet up to order 4 are sum(gamma) = 1 and sum(gamma^3) = 0, and up to order 6 also sum(gamma^5) = 0 and one
condition on nested sums; tests/test_composition.py checks the sums and the observed order of each set on a
problem with an exact solution.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .methods.base import Method, Option


@dataclass(frozen=True)
class Composition:
    """A symmetric composition: ``half`` the first ceil(s/2) step fractions (the middle one last), its order,
    its stage count and where it comes from."""

    id: str
    order: int
    half: tuple[float, ...]
    stages: int
    source: str


_T = 2.0 ** (1.0 / 3.0)
_F = 4.0 ** (1.0 / 3.0)

COMPOSITIONS: dict[str, Composition] = {c.id: c for c in (
    Composition("triple_jump", 4, (1.0 / (2.0 - _T), -_T / (2.0 - _T)), 3,
                "the triple jump: Creutz and Gocksch 1989, Suzuki 1990, Yoshida 1990 (HLW II.4, eq. 4.4)"),
    Composition("suzuki5", 4, (1.0 / (4.0 - _F), 1.0 / (4.0 - _F), -_F / (4.0 - _F)), 5,
                "Suzuki's fractal 5-stage method, Suzuki 1990 (HLW II.4, eq. 4.5)"),
    Composition("yoshida7", 6, (0.78451361047755726382, 0.23557321335935813368, -1.17767998417887100695,
                                1.31518632068391121889), 7,
                "Yoshida 1990, solution A of the 7-stage order-6 composition (HLW V.3, eq. 3.11)"),
    Composition("kahan_li9", 6, (0.39216144400731413928, 0.33259913678935943860, -0.70624617255763935981,
                                 0.08221359629355080023, 0.79854399093482996340), 9,
                "Kahan and Li 1997, s9odr6a (HLW V.3, eq. 3.12)"),
    Composition("kahan_li17", 8, (0.13020248308889008088, 0.56116298177510838456, -0.38947496264484728641,
                                  0.15884190655515560090, -0.39590389413323757734, 0.18453964097831570709,
                                  0.25837438768632204729, 0.29501172360931029887, -0.60550853383003451170), 17,
                "Kahan and Li 1997, s17odr8a (HLW V.3, eq. 3.14)"),
)}


def gammas(name: str) -> np.ndarray:
    """The whole symmetric sequence of step fractions of composition ``name`` (ValueError naming the valid ones)."""
    if name not in COMPOSITIONS:
        raise ValueError(f"unknown composition {name!r}; valid: {', '.join(COMPOSITIONS)}")
    c = COMPOSITIONS[name]
    half = np.array(c.half)
    full = np.concatenate((half, half[-2::-1])) if c.stages % 2 else np.concatenate((half, half[::-1]))
    if full.size != c.stages:
        raise ValueError(f"composition {name!r}: {full.size} fractions for {c.stages} stages")
    return full


def power_sums(g: np.ndarray, up_to: int = 7) -> dict[int, float]:
    """sum(gamma^k) for odd k from 1 to ``up_to``: 1, then 0 for each k < the order (HLW V.3.2)."""
    return {k: float(np.sum(g**k)) for k in range(1, up_to + 1, 2)}


NONE = "none"  # the base method's own step: what its pack sees when no composition is asked for
BEST = {4: "suzuki5", 6: "kahan_li9", 8: "kahan_li17"}  # the smallest error constants of each order (HLW V.3.2)


def pack(name: str) -> np.ndarray:
    """The tail of a kernel's option array: [s, gamma_1, ..., gamma_s] (s = 1, gamma = 1 without composition)."""
    g = np.ones(1) if name == NONE else gammas(name)
    return np.concatenate(([float(g.size)], g))


def tail(options: dict) -> np.ndarray:
    """:func:`pack` of the set a method's options name (NONE: a base method, which has no such option)."""
    return pack(options.get("composition", NONE))


def composed(base: Method, order: int) -> Method:
    """``base`` composed to ``order``: id ``<base>_c<order>``, the same kernel, an option ``composition`` that
    picks one of COMPOSITIONS of that order (BEST by default). ``base`` must be symmetric (its kernel's step of h
    then -h is the identity: tests/test_composed_methods.py) and its pack must read ``composition``."""
    if "symmetric" not in base.properties:
        raise ValueError(f"method {base.id!r} is not symmetric: composition does not raise its order")
    names = tuple(c.id for c in COMPOSITIONS.values() if c.order == order)
    sets = "; ".join(f"{c.id}: {c.stages} stages, {c.source}" for c in COMPOSITIONS.values() if c.order == order)
    option = Option(BEST[order], f"the coefficient set (sub-steps gamma_i h, some negative): {sets}", "choice",
                    choices=names)
    return dataclasses.replace(
        base,
        id=f"{base.id}_c{order}",
        title=f"{base.title}, composed to order {order}",
        order=order,
        order_for=None,
        description=(f"{base.id} composed to order {order} (Hairer, Lubich and Wanner, II.4 and V.3): each step is "
                     f"{COMPOSITIONS[BEST[order]].stages} (or more) sub-steps of {base.id}, some backwards, so the "
                     "structure stays (symplectic, on the Lie group, constraints kept) and only the order rises."),
        options={**base.options, "composition": option},
        properties=(*base.properties, "composition"),
    )
