"""Lee's discrete map of the LGVI step (seed 000 eqs. 11-12, docs/algorithms.md section 3), for solvers.methods.lgvi:
the coefficients of g(f) = (sin x/x) J f + ((1 - cos x)/x^2) f x J f and of its derivative, by series or closed
form, its derivative dg/df (lgvi's Newton blocks) and the SO(3) tangent operator T(f), and the end-point momenta
Pi^-_{n+1} = F^T g(f)/h, gamma^-_{n+1} (eqs. 12, 14)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import lie
from ..models import rigid

# Taylor coefficients in x^2 of a1 = sin x/x, a2 = (1 - cos x)/x^2, a3 = (x - sin x)/x^3, b1 = a1'/x,
# b2 = a2'/x, used below x = 0.5 (the first omitted term is below 1e-19 there; no cancellation)
SERIES_BELOW2 = 0.25
A1 = (1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800, 1 / 6227020800, -1 / 1307674368000)
A2 = (1 / 2, -1 / 24, 1 / 720, -1 / 40320, 1 / 3628800, -1 / 479001600, 1 / 87178291200, -1 / 20922789888000)
A3 = (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800, -1 / 6227020800, 1 / 1307674368000,
       -1 / 355687428096000)
B1 = (-1 / 3, 1 / 30, -1 / 840, 1 / 45360, -1 / 3991680, 1 / 518918400, -1 / 93405312000, 1 / 22230464256000)
B2 = (-1 / 12, 1 / 180, -1 / 6720, 1 / 453600, -1 / 47900160, 1 / 7264857600, -1 / 1494484992000,
       1 / 400148356608000)


@njit(cache=True, inline="always")  # inlined: the coefficients a caller does not use are not computed
def coefs(x2: float) -> tuple:
    """(a1, a2, a3, b1, b2) at x = sqrt(x2): sin x/x, (1 - cos x)/x^2, (x - sin x)/x^3 and a1'/x, a2'/x.

    The same functions as lie.sinc1, cosc2, sinc3, sinc1_d, cosc2_d (b1, b2 of docs/algorithms.md section 3), from one
    Taylor series each below x = 0.5 and one sin/cos pair above.
    """
    if x2 < SERIES_BELOW2:
        return (lie.horner_inline(A1, x2), lie.horner_inline(A2, x2), lie.horner_inline(A3, x2),
                lie.horner_inline(B1, x2), lie.horner_inline(B2, x2))
    x = math.sqrt(x2)
    s = math.sin(x)
    c = math.cos(x)
    sh = math.sin(0.5 * x)
    omc = 2.0 * sh * sh  # 1 - cos x without cancellation
    return s / x, omc / x2, (x - s) / (x2 * x), (x * c - s) / (x2 * x), (x * s - 2.0 * omc) / (x2 * x2)


@njit(cache=True, inline="always")
def dg_df(inertia, i, f0, f1, f2, a1, a2, b1, b2, A) -> None:
    """A[i] = dg/df at f: a1 J + a2 (hat(f) J - hat(J f)) + b1 (J f) f^T + b2 (f x J f) f^T (docs/algorithms.md
    section 3), J = inertia[i].

    J f and f x J f are recomputed here, not passed from lgvi's residual: passing them (or sharing one helper) made
    the step's machine code 0.2 us per step slower (docs/performance.md, "The two-rod case")."""
    u0 = inertia[i, 0, 0] * f0 + inertia[i, 0, 1] * f1 + inertia[i, 0, 2] * f2
    u1 = inertia[i, 1, 0] * f0 + inertia[i, 1, 1] * f1 + inertia[i, 1, 2] * f2
    u2 = inertia[i, 2, 0] * f0 + inertia[i, 2, 1] * f1 + inertia[i, 2, 2] * f2
    c0 = f1 * u2 - f2 * u1
    c1 = f2 * u0 - f0 * u2
    c2 = f0 * u1 - f1 * u0
    for c in range(3):
        j0 = inertia[i, 0, c]
        j1 = inertia[i, 1, c]
        j2 = inertia[i, 2, c]
        fc = f0 if c == 0 else (f1 if c == 1 else f2)
        A[i, 0, c] = a1 * j0 + a2 * (f1 * j2 - f2 * j1) + (b1 * u0 + b2 * c0) * fc
        A[i, 1, c] = a1 * j1 + a2 * (f2 * j0 - f0 * j2) + (b1 * u1 + b2 * c1) * fc
        A[i, 2, c] = a1 * j2 + a2 * (f0 * j1 - f1 * j0) + (b1 * u2 + b2 * c2) * fc
    A[i, 0, 1] += a2 * u2
    A[i, 0, 2] -= a2 * u1
    A[i, 1, 0] -= a2 * u2
    A[i, 1, 2] += a2 * u0
    A[i, 2, 0] += a2 * u1
    A[i, 2, 1] -= a2 * u0


@njit(cache=True, inline="always")
def tangent(Tm, i: int, f0: float, f1: float, f2: float, x2: float, a2: float, a3: float) -> None:
    """Tm[i] = T(f) = I - a2 hat(f) + a3 hat(f)^2, the SO(3) tangent operator (module docstring)."""
    d = 1.0 - a3 * x2
    Tm[i, 0, 0] = d + a3 * f0 * f0
    Tm[i, 1, 1] = d + a3 * f1 * f1
    Tm[i, 2, 2] = d + a3 * f2 * f2
    Tm[i, 0, 1] = a3 * f0 * f1 + a2 * f2
    Tm[i, 1, 0] = a3 * f0 * f1 - a2 * f2
    Tm[i, 0, 2] = a3 * f0 * f2 - a2 * f1
    Tm[i, 2, 0] = a3 * f0 * f2 + a2 * f1
    Tm[i, 1, 2] = a3 * f1 * f2 + a2 * f0
    Tm[i, 2, 1] = a3 * f1 * f2 - a2 * f0


@njit(cache=True, inline="always")
def det3(A: np.ndarray) -> float:
    """Determinant of a 3x3 matrix."""
    return (A[0, 0] * (A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]) - A[0, 1] * (A[1, 0] * A[2, 2] - A[1, 2] * A[2, 0])
            + A[0, 2] * (A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]))


@njit(cache=True, inline="always")
def finish(rd, q0, z, h, q1, pm) -> None:
    """q_{n+1} (R, x) for the final z and p^-_{n+1}: Pi = F^T g(f)/h (eq. 12 without M^C_{n+1}; a pinned body adds
    the half impulse (h/2) M_{n+1} of gravity's moment, docs/algorithms.md section 3),
    gamma = m (x_{n+1} - x_n)/h + (h/2) m g (eq. 14 likewise)."""
    mass, inertia, grav, pinned, y_off, v_off = rd.mass, rd.inertia, rd.gravity, rd.pinned, rd.y_off, rd.v_off
    for i in range(mass.shape[0]):
        o = v_off[i]
        f0 = z[o]
        f1 = z[o + 1]
        f2 = z[o + 2]
        x2 = f0 * f0 + f1 * f1 + f2 * f2
        a1, a2, _a3, _b1, _b2 = coefs(x2)
        rigid.advance_body(q0, z, y_off[i], o, not pinned[i], a1, a2, q1)
        d = 1.0 - a2 * x2  # cos x
        u0 = inertia[i, 0, 0] * f0 + inertia[i, 0, 1] * f1 + inertia[i, 0, 2] * f2
        u1 = inertia[i, 1, 0] * f0 + inertia[i, 1, 1] * f1 + inertia[i, 1, 2] * f2
        u2 = inertia[i, 2, 0] * f0 + inertia[i, 2, 1] * f1 + inertia[i, 2, 2] * f2
        g0 = a1 * u0 + a2 * (f1 * u2 - f2 * u1)
        g1 = a1 * u1 + a2 * (f2 * u0 - f0 * u2)
        g2 = a1 * u2 + a2 * (f0 * u1 - f1 * u0)
        fg = f0 * g0 + f1 * g1 + f2 * g2
        # F^T g = cos x g + a2 f (f . g) - a1 f x g
        pm[o] = (d * g0 + a2 * f0 * fg - a1 * (f1 * g2 - f2 * g1)) / h
        pm[o + 1] = (d * g1 + a2 * f1 * fg - a1 * (f2 * g0 - f0 * g2)) / h
        pm[o + 2] = (d * g2 + a2 * f2 * fg - a1 * (f0 * g1 - f1 * g0)) / h
        if pinned[i]:
            m0, m1, m2 = rigid.gravity_moment(rd, q1, i)
            pm[o] += 0.5 * h * m0
            pm[o + 1] += 0.5 * h * m1
            pm[o + 2] += 0.5 * h * m2
            continue
        for r in range(3):
            pm[o + 3 + r] = mass[i] * (z[o + 3 + r] / h + 0.5 * h * grav[r])
