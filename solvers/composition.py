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

from dataclasses import dataclass

import numpy as np


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
