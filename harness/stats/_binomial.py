"""Binomial statistics: Wilson intervals, the exact McNemar test, pass@k and pass^k.

Own code for these textbook formulas (a few lines each, and `planeval run` must not pay for
importing scipy); the tests check them against scipy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where it is used: `planeval run` needs only math
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "Z95",
    "mcnemar_exact",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
    "wilson_intervals",
]

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (NaNs when ``n`` is 0)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return (low, high)


def wilson_intervals(
    successes: npt.ArrayLike, n: npt.ArrayLike, z: float = Z95
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``wilson_interval`` over arrays (NaN where ``n`` is 0)."""
    import numpy as np

    s = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / m
        denom = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
    low = np.where(s <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(s >= m, 1.0, np.clip(centre + half, 0.0, 1.0))
    low = np.where(m > 0, low, np.nan)
    high = np.where(m > 0, high, np.nan)
    return low, high


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs.

    This is the two-sided binomial test of ``min(b, c)`` out of ``b + c`` at one half; 1.0
    when there are no discordant pairs.
    """
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    if n <= 1000:  # exact integer arithmetic
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    else:  # the same sum in log space: big-integer binomials get slow and 2**n overflows floats
        logs = [
            math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)
            for i in range(k + 1)
        ]
        top = max(logs)
        tail = math.exp(top) * math.fsum(math.exp(x - top) for x in logs)
    return float(min(1.0, 2 * tail))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of ``k`` samples drawn from ``n`` (``c`` passing) passes."""
    if k > n or n <= 0:
        return math.nan
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Chance that all ``k`` samples drawn from ``n`` (``c`` passing) pass (pass^k)."""
    if k > n or n <= 0:
        return math.nan
    return math.comb(c, k) / math.comb(n, k)
