"""Pass-rate intervals that account for several correlated samples per case.

Samples of one case share its difficulty, so they are not independent draws: a Wilson interval
over all samples is too narrow. The interval here is a **design-effect-adjusted Wilson score
interval**: the pooled rate ``p = passed / counted`` keeps its usual value, and the sample count
is shrunk to an effective size ``counted / deff`` where ``deff`` compares the ratio estimator's
between-case variance with the binomial one. One sample per case gives ``deff = 1`` (plain
Wilson); every sample agreeing (``p`` of 0 or 1, where the variance cannot be estimated) counts
each case once.

Chosen over a cluster bootstrap because it is closed-form and vectorised (one pass over every
model, check and tag of a 200,000-row run), stays inside [0, 1], and keeps Wilson's good
behaviour near 0 and 1; the coverage is checked by a seeded simulation in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["ClusterSums", "cluster_wilson", "cluster_wilson_interval", "design_effect"]


class ClusterSums:
    """Per-group sums over cases that a clustered interval needs.

    For each group (a model, a tag x model, ...) with cases ``i`` holding ``m_i`` counted
    samples of which ``y_i`` pass: ``cases`` = number of cases with ``m_i > 0``,
    ``passed`` = Σy, ``counted`` = Σm, ``yy`` = Σy², ``ym`` = Σy·m, ``mm`` = Σm².
    """

    __slots__ = ("cases", "counted", "mm", "passed", "ym", "yy")

    def __init__(
        self,
        cases: npt.ArrayLike,
        passed: npt.ArrayLike,
        counted: npt.ArrayLike,
        yy: npt.ArrayLike,
        ym: npt.ArrayLike,
        mm: npt.ArrayLike,
    ) -> None:
        import numpy as np

        self.cases = np.asarray(cases, dtype=float)
        self.passed = np.asarray(passed, dtype=float)
        self.counted = np.asarray(counted, dtype=float)
        self.yy = np.asarray(yy, dtype=float)
        self.ym = np.asarray(ym, dtype=float)
        self.mm = np.asarray(mm, dtype=float)

    @classmethod
    def of_cases(cls, passed: npt.ArrayLike, counted: npt.ArrayLike) -> ClusterSums:
        """The sums of one group from its per-case passed and counted samples."""
        import numpy as np

        y = np.asarray(passed, dtype=float)
        m = np.asarray(counted, dtype=float)
        keep = m > 0
        y, m = y[keep], m[keep]
        return cls(
            [len(m)], [y.sum()], [m.sum()], [(y * y).sum()], [(y * m).sum()], [(m * m).sum()]
        )


def design_effect(s: ClusterSums) -> npt.NDArray[np.float64]:
    """``deff`` per group: clustered variance of the pooled rate over the binomial one.

    1 where every case has one sample; the mean samples per case where ``p`` is 0 or 1 (or
    there is a single case); never below 1 (negative within-case correlation is not credited).
    """
    import numpy as np

    n, c = s.counted, s.cases
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s.passed / n
        resid = s.yy - 2 * p * s.ym + p * p * s.mm  # Σ (y_i - p m_i)²
        clustered = c / (c - 1) * resid / (n * n)
        binomial = p * (1 - p) / n
        deff = clustered / binomial
        per_case = n / c
    single = s.mm <= n  # Σm² == Σm only when every m_i is 1
    degenerate = (p <= 0) | (p >= 1) | (c <= 1) | ~np.isfinite(deff)
    out = np.where(degenerate, per_case, np.maximum(deff, 1.0))
    out = np.where(single, 1.0, out)
    return np.where(n > 0, out, np.nan)


def cluster_wilson(
    s: ClusterSums, z: float = 1.959963984540054
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Design-effect-adjusted Wilson intervals, one per group (NaN where nothing counted)."""
    import numpy as np

    deff = design_effect(s)
    n = s.counted
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s.passed / n
        m = n / deff  # effective sample size
        denom = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
    low = np.where(s.passed <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(s.passed >= n, 1.0, np.clip(centre + half, 0.0, 1.0))
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def cluster_wilson_interval(
    cases: Iterable[tuple[int, int]], z: float = 1.959963984540054
) -> tuple[float, float]:
    """``cluster_wilson`` of one group from its ``(passed, counted)`` per case, with ``math``
    only (``planeval run`` prints it without importing numpy). NaNs when nothing counted."""
    pairs = [(float(y), float(m)) for y, m in cases if m > 0]
    n = math.fsum(m for _, m in pairs)
    if n <= 0:
        return (math.nan, math.nan)
    passed = math.fsum(y for y, _ in pairs)
    c = len(pairs)
    p = passed / n
    if all(m == 1 for _, m in pairs):
        deff = 1.0
    elif p <= 0 or p >= 1 or c <= 1:
        deff = n / c
    else:
        resid = math.fsum((y - p * m) ** 2 for y, m in pairs)
        deff = max(1.0, (c / (c - 1) * resid / (n * n)) / (p * (1 - p) / n))
    eff = n / deff
    denom = 1 + z * z / eff
    centre = (p + z * z / (2 * eff)) / denom
    half = z * math.sqrt(p * (1 - p) / eff + z * z / (4 * eff * eff)) / denom
    low = 0.0 if passed <= 0 else min(1.0, max(0.0, centre - half))
    high = 1.0 if passed >= n else min(1.0, max(0.0, centre + half))
    return (low, high)
