"""Pass rates as text that never claims more (or less) than the counts say.

A rate rounded the usual way lies at the ends: 1,999 passes out of 2,000 reads "100.0%" and
1 out of 2,000 reads "0.0%". ``format_rate`` rounds to one decimal like everyone else, but a
rate that is not exactly 100% (or 0%) never reads as such:

- when the rounded figure would be 100% although a sample failed (or 0% although one passed),
  more decimals are shown, up to two (``99.95%``, ``0.03%``);
- when even two decimals are not enough, the rate is shown as a bound: ``>99.99%`` or
  ``<0.01%``.

Rounding is exact (integer arithmetic, half away from zero), so ``format_rate(1, 8)`` reads
``12.5%`` on every platform. Every pass rate planeval prints goes through this module.

Intervals (``format_interval`` for a pass rate, ``format_points_interval`` for a difference)
round **outward**: the low end down, the high end up, so the printed interval holds the
computed one and agrees with the verdict drawn from it. An end that is above zero never reads
``+0.0`` (more decimals, up to three, then ``>0``); one below zero never reads ``-0.0``.
"""

from __future__ import annotations

import math

__all__ = [
    "MAX_DECIMALS",
    "NO_RATE",
    "format_interval",
    "format_points",
    "format_points_interval",
    "format_rate",
]

MAX_DECIMALS = 2
"""The most decimals shown before a rate near 0% or 100% is written as a bound."""

NO_RATE = "–"
"""What a rate over nothing counted reads as."""


def _rounded(k: int, n: int, decimals: int) -> int:
    """``100 * k / n`` in units of ``10**-decimals`` percent, rounded half up (k, n >= 0)."""
    scaled = 100 * k * int(10**decimals)
    return (2 * scaled + n) // (2 * n)


def _text(units: int, decimals: int) -> str:
    if decimals == 0:
        return f"{units}%"
    whole, frac = divmod(units, 10**decimals)
    return f"{whole}.{frac:0{decimals}d}%"


def format_rate(k: int, n: int, *, decimals: int = 1) -> str:
    """The share ``k / n`` as a percentage that is 100% only when ``k == n`` and 0% only when
    ``k == 0``.

    Args:
        k: the passing count (0 <= k <= n).
        n: the counted total; 0 gives ``NO_RATE``.
        decimals: decimals shown when they are enough to tell the rate from 0% and 100%
            (more are added near the ends, up to ``MAX_DECIMALS``).

    Returns:
        e.g. ``format_rate(299, 300)`` -> ``"99.7%"``, ``format_rate(1999, 2000)`` ->
        ``"99.95%"``, ``format_rate(99999, 100000)`` -> ``">99.99%"``,
        ``format_rate(3, 3)`` -> ``"100.0%"``, ``format_rate(0, 0)`` -> ``"–"``.

    Raises:
        ValueError: a negative count, ``k > n``, or negative ``decimals``.
    """
    k, n = int(k), int(n)
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"a rate needs 0 <= k <= n, got k={k}, n={n}")
    if decimals < 0:
        raise ValueError(f"decimals must be 0 or more, got {decimals}")
    if n == 0:
        return NO_RATE
    top = max(decimals, MAX_DECIMALS)
    for d in range(decimals, top + 1):
        units = _rounded(k, n, d)
        full = 100 * 10**d
        if (units < full or k == n) and (units > 0 or k == 0):
            return _text(units, d)
    bound = 10**-top
    return f">{100 - bound:.{top}f}%" if k > n / 2 else f"<{bound:.{top}f}%"


_NOISE = 1e-4
"""Float noise ignored when rounding outward, in units of the last decimal shown (an end
computed as 0.2000000001 reads 20.0, not 20.1)."""


def _outward(x: float, up: bool, decimals: int) -> float:
    scale = float(10**decimals)
    v = x * 100 * scale
    return (math.ceil(v - _NOISE) if up else math.floor(v + _NOISE)) / scale


def format_interval(low: float, high: float) -> str:
    """A pass-rate interval in percent, one decimal, rounded outward: ``48.0–63.7%``
    (``NO_RATE`` when an end is not a number)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return NO_RATE
    lo = max(0.0, _outward(low, False, 1))
    hi = min(100.0, _outward(high, True, 1))
    return f"{lo:.1f}–{hi:.1f}%"


def format_points(x: float, *, up: bool) -> str:
    """One end of a difference interval in signed percentage points, rounded outward (up for
    the high end, down for the low one), never reading ``0.0`` on the wrong side of zero."""
    if not math.isfinite(x):
        return NO_RATE
    for decimals in (1, 2, 3):
        v = _outward(x, up, decimals)
        if (x > 0 and v <= 0) or (x < 0 and v >= 0):
            continue  # rounding reached zero from one side: show more
        if v == 0:
            return f"{0.0:.1f}"
        return f"{v:+.{decimals}f}"
    return ">0" if x > 0 else "<0"


def format_points_interval(low: float, high: float, unit: str = " pts") -> str:
    """``+0.1 pts to +7.3 pts``: a difference interval rounded outward."""
    return f"{format_points(low, up=False)}{unit} to {format_points(high, up=True)}{unit}"
