"""Means of per-row scores in [0, 1] (plan metrics), with intervals that respect cases.

- ``clustered_mean``: the mean over rows and a normal interval with the cluster-robust
  (case-clustered) standard error, ``SE² = C/(C-1) · Σ_c (Σ_{i∈c} (x_i - x̄))² / n²``, clipped
  to [0, 1]. Several samples of one case are one cluster: they share the case's difficulty.
- ``paired_mean_test``: candidate minus base on the same cases, each case's mean difference as
  one observation; a one-sample t-test and its t interval, so the verdict (p below the level)
  and the interval (excluding 0) always agree.

Coverage is checked by seeded simulations in tests/stats.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

__all__ = ["MeanDifference", "clustered_mean", "paired_mean_test"]

_Z95 = 1.959963984540054


def clustered_mean(
    values: Sequence[float], clusters: Sequence[Hashable], z: float = _Z95
) -> tuple[float, float, float]:
    """``(mean, low, high)``; the interval is NaN with fewer than two cases, and all three are
    NaN when a value is not a number (never an interval clipped to [0, 1] around nothing)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = math.fsum(values) / n
    if not math.isfinite(mean):
        return math.nan, math.nan, math.nan
    sums: dict[Hashable, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + (value - mean)
    c = len(sums)
    if c < 2:
        return mean, math.nan, math.nan
    se = math.sqrt(c / (c - 1) * math.fsum(s * s for s in sums.values())) / n
    return mean, max(0.0, mean - z * se), min(1.0, mean + z * se)


@dataclass(frozen=True, slots=True)
class MeanDifference:
    """Candidate minus base over shared cases."""

    cases: int
    """Cases with a value on both sides."""
    base: float
    """Mean of the base's case means."""
    cand: float
    """Mean of the candidate's case means."""
    low: float
    """Lower end of the ``1 - alpha`` interval of ``cand - base``."""
    high: float
    """Upper end."""
    p_value: float
    """Two-sided p-value of the paired t-test (1.0 with fewer than two cases or no spread; NaN,
    like the interval, when a value is not a number)."""

    @property
    def difference(self) -> float:
        """``cand - base``."""
        return self.cand - self.base


def paired_mean_test(
    base: Sequence[float], cand: Sequence[float], alpha: float = 0.05
) -> MeanDifference:
    """Paired t-test and interval over cases (``base[i]`` and ``cand[i]`` are one case's
    means). With fewer than two cases, or no spread, the interval is the point and p is 1
    unless every difference is the same non-zero value (then p is 0). A value that is not a
    number makes the interval and p NaN (unknown), never a clipped [-1, 1]."""
    from scipy import stats

    n = len(base)
    if n == 0:
        return MeanDifference(0, math.nan, math.nan, math.nan, math.nan, 1.0)
    diffs = [c - b for b, c in zip(base, cand, strict=True)]
    mean_b, mean_c = math.fsum(base) / n, math.fsum(cand) / n
    d = math.fsum(diffs) / n
    if not math.isfinite(d):
        return MeanDifference(n, mean_b, mean_c, math.nan, math.nan, math.nan)
    var = math.fsum((x - d) ** 2 for x in diffs) / (n - 1) if n > 1 else 0.0
    if n < 2 or var == 0.0:
        p = 0.0 if n >= 2 and d != 0.0 else 1.0
        return MeanDifference(n, mean_b, mean_c, d, d, p)
    se = math.sqrt(var / n)
    t = d / se
    p = float(2 * stats.t.sf(abs(t), n - 1))
    half = float(stats.t.ppf(1 - alpha / 2, n - 1)) * se
    return MeanDifference(n, mean_b, mean_c, max(-1.0, d - half), min(1.0, d + half), p)
