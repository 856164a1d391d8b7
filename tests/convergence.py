"""Helpers for observed-order tests: error against h, least-squares slope in log-log."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def fitted_order(hs: Sequence[float], errors: Sequence[float]) -> float:
    """Slope of log(error) against log(h) by least squares."""
    return float(np.polyfit(np.log(hs), np.log(errors), 1)[0])


def observed_order(error_of_h: Callable[[float], float], hs: Sequence[float]) -> tuple[float, list[float]]:
    """Errors for each h and the fitted order."""
    errs = [error_of_h(h) for h in hs]
    assert all(np.isfinite(e) and e > 0 for e in errs), errs
    return fitted_order(hs, errs), errs
