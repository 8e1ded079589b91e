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
"""

from __future__ import annotations

__all__ = ["MAX_DECIMALS", "NO_RATE", "format_rate"]

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
