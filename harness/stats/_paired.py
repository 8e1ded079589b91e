"""Paired comparison of two pass rates on the same cases, with a verdict and an interval that
come from one procedure, and Holm's correction for several comparisons.

- **One sample per case** (each case is one pass/fail pair): the exact McNemar test, and for the
  difference the exact conditional interval: the Clopper-Pearson interval of the share of
  discordant pairs that went fail -> pass, mapped onto the difference. It excludes zero exactly
  when the McNemar p-value is below the level.
- **Otherwise**: a sign-flip permutation test over cases (each case's difference keeps or flips
  its sign; samples of one case stay together), and its interval by test inversion: every
  shift of the difference the test does not reject. Under the null that the two sides are
  exchangeable within a case the test is exact at any number of cases, unlike a percentile
  bootstrap (7.7% false alarms at 30 cases x 5 samples); the seeded simulations in the tests
  show the rates. Up to ``EXACT_CASES`` (20) cases every one of the ``2**n`` sign patterns is
  enumerated (the flipped sums are built by doubling, ``2**(n+1)`` additions), so the p-value
  is the exact permutation p-value and no seed enters; above that, ``FLIPS`` random patterns
  drawn from a fixed seed.

The rate of each side is **pooled** (passed samples / counted samples on the compared cases),
the same definition as the reports'.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from harness.stats._binomial import mcnemar_exact

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

__all__ = [
    "EXACT_CASES",
    "FLIPS",
    "PairedResult",
    "all_sign_sums",
    "clopper_pearson",
    "holm",
    "holm_levels",
    "paired_test",
    "paired_tests",
    "sign_flip_pvalues",
]

FLIPS = 1999
"""Random sign flips of the permutation test above ``EXACT_CASES`` cases (p-values have a
resolution of 1/2000)."""

EXACT_CASES = 20
"""Up to this many cases the sign-flip test enumerates all ``2**n`` sign patterns: exact and
seed-free (2**20 sums of two float arrays, about 0.2 s with the interval's bisection)."""

Method = Literal["mcnemar-exact", "sign-flip"]


@dataclass(frozen=True, slots=True)
class PairedResult:
    """A paired comparison of candidate against base."""

    method: Method
    """``mcnemar-exact`` (one sample per case) or ``sign-flip`` (a permutation test)."""
    cases: int
    """Cases compared."""
    base_rate: float
    """Pooled base pass rate on the compared cases."""
    cand_rate: float
    """Pooled candidate pass rate on the compared cases."""
    low: float
    """Lower end of the interval for ``cand_rate - base_rate``."""
    high: float
    """Upper end of the interval."""
    p_value: float
    """Two-sided p-value for no difference."""
    alpha: float
    """The interval is a ``1 - alpha`` interval; it excludes 0 exactly when p < alpha."""
    pass_to_fail: int = 0
    """McNemar: cases passing in base and failing in the candidate."""
    fail_to_pass: int = 0
    """McNemar: cases failing in base and passing in the candidate."""
    se: float = math.nan
    """Standard error of the difference under the null (sqrt of the summed squared per-case
    contributions): the spread of the permutation distribution."""
    exact: bool = True
    """False when the p-value comes from ``FLIPS`` random sign patterns (more than
    ``EXACT_CASES`` cases); True for McNemar and for an enumerated sign-flip test."""

    @property
    def point_interval_reason(self) -> str | None:
        """Why the interval has zero width, when it has (None otherwise).

        McNemar with no discordant case: nothing changed, so every shift but zero is rejected
        by the conditional test. Sign-flip: every case moved by the same amount (relative to
        its samples), so no sign pattern but the observed one reaches the observed sum at any
        other shift."""
        if self.cases == 0 or not self.high - self.low < 1e-6:
            return None
        if self.method == "mcnemar-exact":
            return "no case changed outcome, so the exact interval is the single point 0"
        return (
            "every compared case moved by the same amount, so the permutation interval is a "
            "single point; it says nothing about cases not compared"
        )

    @property
    def difference(self) -> float:
        """``cand_rate - base_rate``."""
        return self.cand_rate - self.base_rate


def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """The exact (Clopper-Pearson) ``1 - alpha`` interval for ``k`` successes of ``n``."""
    if n <= 0:
        return (math.nan, math.nan)
    from scipy.special import betaincinv

    low = 0.0 if k <= 0 else float(betaincinv(k, n - k + 1, alpha / 2))
    high = 1.0 if k >= n else float(betaincinv(k + 1, n - k, 1 - alpha / 2))
    return (low, high)


def holm(p_values: list[float]) -> list[float]:
    """Holm-adjusted p-values (step-down; reject where the adjusted p is below the level)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def holm_levels(p_values: list[float], alpha: float) -> list[float]:
    """The level at which Holm's procedure tests each hypothesis.

    Sorted ascending, the j-th is tested at ``alpha / (m - j)`` (0-based ``j``) while every
    earlier one was rejected; after the first acceptance, the later ones keep that step's
    level. A ``1 - level`` interval then excludes zero exactly when Holm rejects.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [alpha] * m
    level = alpha / m if m else alpha
    stopped = False
    for rank, i in enumerate(order):
        if not stopped:
            level = alpha / (m - rank)
            if not p_values[i] < level:
                stopped = True
        out[i] = level
    return out


FLIP_BLOCK = 1 << 21
"""Random signs held at once (16 MiB as floats): the flipped sums are built this many signs
at a time, so memory does not grow with ``flips x cases`` (1999 x 100,000 cases would be
1.6 GB)."""


def _block_rows(cases: int, flips: int) -> int:
    """Sign patterns per block: a multiple of 4, so every block but the last draws a multiple
    of 4 int8 values and the blocks together draw the very numbers one ``(flips, cases)``
    draw gives (numpy draws int8 four at a time from one 32-bit value)."""
    return min(flips, max(4, FLIP_BLOCK // max(cases, 1) // 4 * 4))


@functools.lru_cache(maxsize=8)
def _flip_matrix(cases: int, seed: int, flips: int = FLIPS) -> npt.NDArray[np.float64]:
    """The random signs (flips x cases), cached: a report compares many models on one case
    set. Read-only. Only for case sets whose signs fit in one block (``_flipped_sums``)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(flips, cases), dtype=np.int8).astype(np.float64) * 2 - 1
    signs.setflags(write=False)
    return signs


def _flipped_sums(
    xs: tuple[npt.NDArray[np.float64], ...], seed: int, flips: int = FLIPS
) -> list[npt.NDArray[np.float64]]:
    """``signs @ x`` for each ``x`` (cases first), with the random signs of ``_flip_matrix``
    drawn block by block when they do not fit in one block: the same signs in the same
    order (the same seeded numbers), held ``FLIP_BLOCK`` at a time."""
    import numpy as np

    cases = len(xs[0])
    rows = _block_rows(cases, flips)
    if rows >= flips:
        signs = _flip_matrix(cases, seed, flips)
        return [signs @ x for x in xs]
    rng = np.random.default_rng(seed)
    parts: list[list[npt.NDArray[np.float64]]] = [[] for _ in xs]
    for start in range(0, flips, rows):
        size = (min(rows, flips - start), cases)
        block = rng.integers(0, 2, size=size, dtype=np.int8).astype(np.float64) * 2 - 1
        for part, x in zip(parts, xs, strict=True):
            part.append(block @ x)
    return [np.concatenate(part) for part in parts]


def all_sign_sums(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``Σ ±x_i`` over all ``2**n`` sign patterns (rows), one column per column of ``x``.

    Built by doubling: the sums of the first ``i`` cases, each plus and minus case ``i + 1``.
    The first row is the observed pattern (every sign +)."""
    import numpy as np

    a = np.asarray(x, dtype=float)
    sums = np.zeros((1, *a.shape[1:]))
    for row in a:
        sums = np.concatenate([sums + row, sums - row])
    return sums


def sign_flip_pvalues(
    diffs: npt.ArrayLike, *, seed: int = 0, flips: int = FLIPS
) -> npt.NDArray[np.float64]:
    """Two-sided sign-flip p-values of ``sum(diffs) == 0``, one per column of ``diffs``.

    ``diffs`` is cases x comparisons (each column a comparison's per-case differences). Up to
    ``EXACT_CASES`` cases every sign pattern is enumerated and
    ``p = #{|flipped sum| >= |observed sum|} / 2**n`` (exact, ``seed`` unused). Above, the
    same random flips serve every column, so a simulation runs thousands of comparisons in one
    matrix product, and ``p = (1 + #{|flipped sum| >= |observed sum|}) / (flips + 1)``.
    """
    import numpy as np

    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    if d.shape[0] <= EXACT_CASES:
        out = np.empty(d.shape[1])
        step = max(1, (1 << 22) >> d.shape[0])  # columns per chunk: ~4M sums at a time
        for start in range(0, d.shape[1], step):
            chunk = d[:, start : start + step]
            sums = np.abs(all_sign_sums(chunk))
            observed = np.abs(chunk.sum(axis=0))
            tol = 1e-9 * np.maximum(1.0, observed)
            out[start : start + step] = (sums >= observed - tol).sum(axis=0) / len(sums)
        return out
    observed = np.abs(d.sum(axis=0))
    flipped = np.abs(_flipped_sums((d,), seed, flips)[0])
    tol = 1e-9 * np.maximum(1.0, observed)
    hits = (flipped >= observed - tol).sum(axis=0)
    return np.asarray((1 + hits) / (flips + 1), dtype=float)


_ROOTS: dict[tuple[bytes, bytes, int], tuple[Any, Any, int]] = {}
"""The sorted extremeness intervals of recent (d, w, seed) triples: a report tests each pair
of models twice (once for Holm's p-values, once at Holm's level) on the same differences."""


def _extreme_shifts(
    d: npt.NDArray[np.float64], w: npt.NDArray[np.float64], seed: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int]:
    """For each sign pattern, the shifts delta at which it is at least as extreme as the
    observed sum: ``|a - delta b| >= |T - delta|`` with ``a = signs @ d``, ``b = signs @ w``,
    ``T = sum(d)``. As ``|b| <= 1`` this is a concave quadratic in delta, so the set is one
    closed interval ``[r1, r2]`` (or empty). Returned: every ``r1`` sorted, every ``r2``
    sorted, and the number of patterns; then ``#{r1 <= delta} - #{r2 < delta}`` counts the
    patterns as extreme at delta with two binary searches, however many patterns there are."""

    exact = len(d) <= EXACT_CASES
    key = (d.tobytes(), w.tobytes(), -1 if exact else seed)
    found = _ROOTS.get(key)
    if found is not None:
        return found
    if len(_ROOTS) >= 64:
        _ROOTS.clear()
    if exact:
        a, b = all_sign_sums(d), all_sign_sums(w)
    else:
        a, b = _flipped_sums((d, w), seed)
    found = _ROOTS[key] = _shifts(a, b, float(d.sum()))
    return found


def _shifts(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], total: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int]:
    """``_extreme_shifts`` from the flipped sums ``a`` of the differences and ``b`` of the
    weights, and the observed sum ``total``."""
    import numpy as np

    # (b² - 1) δ² - 2 (a b - T) δ + (a² - T²) >= 0
    qa = b * b - 1.0
    qb = -2.0 * (a * b - total)
    qc = a * a - total * total
    whole = np.abs(b) >= 1.0 - 1e-12  # every sign equal: as extreme at every shift
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = qb * qb - 4.0 * qa * qc
        root = np.sqrt(np.maximum(disc, 0.0))
        r1 = (-qb + root) / (2.0 * qa)
        r2 = (-qb - root) / (2.0 * qa)
    slack = 1e-10  # a tie with the observed sum counts as extreme, as in sign_flip_pvalues
    keep = whole | (disc >= 0)
    r1 = np.where(whole, -np.inf, r1 - slack)[keep]
    r2 = np.where(whole, np.inf, r2 + slack)[keep]
    r1.sort()
    r2.sort()
    r1.setflags(write=False)
    r2.setflags(write=False)
    return r1, r2, len(a)


def _inverted_interval(
    d: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    alpha: float,
    seed: int,
    known: tuple[float, tuple[Any, Any, int]] | None = None,
) -> tuple[float, float, float]:
    """p at zero and the interval {delta: p(delta) >= alpha} of the sign-flip test of
    ``sum(d - delta * w) == 0`` (``w`` sums to 1, so delta is on the difference's scale).
    ``known``: p at zero and the extreme shifts, when already computed (``paired_tests``)."""
    import numpy as np

    r1, r2, patterns = _extreme_shifts(d, w, seed) if known is None else known[1]
    total = float(d.sum())
    # Enumerated patterns include the observed one; random ones count it once more.
    extra = 0 if len(d) <= EXACT_CASES else 1

    def p_at(delta: float) -> float:
        hits = int(np.searchsorted(r1, delta, "right")) - int(np.searchsorted(r2, delta, "left"))
        return (extra + hits) / (patterns + extra)

    def edge(inside: float, outside: float) -> float:
        for _ in range(40):  # to ~1e-12 on a bracket of width <= 2
            mid = (inside + outside) / 2
            if p_at(mid) >= alpha:
                inside = mid
            else:
                outside = mid
        return inside

    p0 = float(sign_flip_pvalues(d, seed=seed)[0]) if known is None else known[0]
    # Bracket with zero on the side the test already decided, so the interval excludes zero
    # exactly when p0 < alpha.
    if total > 0:
        low = edge(total, 0.0) if p0 < alpha else edge(0.0, -1.0 - 1e-9)
        high = edge(total, 1.0 + 1e-9)
    elif total < 0:
        high = edge(total, 0.0) if p0 < alpha else edge(0.0, 1.0 + 1e-9)
        low = edge(total, -1.0 - 1e-9)
    else:
        low, high = edge(0.0, -1.0 - 1e-9), edge(0.0, 1.0 + 1e-9)
    return p0, max(-1.0, low), min(1.0, high)


def paired_test(
    base_passed: npt.ArrayLike,
    base_counted: npt.ArrayLike,
    cand_passed: npt.ArrayLike,
    cand_counted: npt.ArrayLike,
    *,
    alpha: float = 0.05,
    seed: int = 0,
    interval: bool = True,
) -> PairedResult:
    """Compare two sides on the same cases (arrays aligned by case; every count > 0).

    Args:
        base_passed: passing samples per case in the base.
        base_counted: counted samples per case in the base.
        cand_passed: passing samples per case in the candidate.
        cand_counted: counted samples per case in the candidate.
        alpha: the level; the interval is a ``1 - alpha`` interval.
        interval: False skips the interval (``low`` and ``high`` are NaN): for a first pass
            that needs only p-values (Holm's correction), where the bisection would be wasted.
        seed: seed of the random sign flips above ``EXACT_CASES`` cases (results are
            reproducible for a seed; up to ``EXACT_CASES`` cases the test is exact and the
            seed is not used).
    """
    import numpy as np

    yb, mb = np.asarray(base_passed, float), np.asarray(base_counted, float)
    yc, mc = np.asarray(cand_passed, float), np.asarray(cand_counted, float)
    n = len(yb)
    if n == 0:
        nan = math.nan
        return PairedResult("sign-flip", 0, nan, nan, nan, nan, 1.0, alpha)
    base_rate, cand_rate = float(yb.sum() / mb.sum()), float(yc.sum() / mc.sum())
    if mb.max() <= 1 and mc.max() <= 1:
        b = int(np.count_nonzero((yb == 1) & (yc == 0)))
        c = int(np.count_nonzero((yb == 0) & (yc == 1)))
        p = mcnemar_exact(b, c)
        if b + c == 0:
            low = high = 0.0
        else:
            t_low, t_high = clopper_pearson(c, b + c, alpha)
            low, high = (2 * t_low - 1) * (b + c) / n, (2 * t_high - 1) * (b + c) / n
        se = math.sqrt(b + c) / n
        return PairedResult("mcnemar-exact", n, base_rate, cand_rate, low, high, p, alpha, b, c, se)
    # Per-case contributions to the pooled difference; the weights give the shift's scale.
    d = yc / mc.sum() - yb / mb.sum()
    w = (mb + mc) / (mb.sum() + mc.sum())
    if interval:
        p, low, high = _inverted_interval(d, w, alpha, seed)
    else:
        p, low, high = float(sign_flip_pvalues(d, seed=seed)[0]), math.nan, math.nan
    se = float(np.sqrt((d * d).sum()))
    return PairedResult(
        "sign-flip", n, base_rate, cand_rate, low, high, p, alpha, se=se, exact=n <= EXACT_CASES
    )


def paired_tests(
    comparisons: Sequence[tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]],
    *,
    alpha: float | Sequence[float] = 0.05,
    seed: int = 0,
    interval: bool = True,
) -> list[PairedResult]:
    """``paired_test`` of every comparison, with the same results for the same seed, in fewer
    passes: the random sign flips of all the sign-flip comparisons of the same number of cases
    are applied in one matrix product (a report of 10 models tests 45 pairs; one product per
    pair reads the whole flips matrix each time).

    Args:
        comparisons: (base_passed, base_counted, cand_passed, cand_counted) of each
            comparison, as ``paired_test`` takes them.
        alpha: the level of every comparison, or one level per comparison.
        seed: seed of the random sign flips (as ``paired_test``).
        interval: False skips the intervals (as ``paired_test``).
    """
    import numpy as np

    items = list(comparisons)
    levels = [float(alpha)] * len(items) if isinstance(alpha, (int, float)) else list(alpha)
    if len(levels) != len(items):
        raise ValueError(f"{len(levels)} levels for {len(items)} comparisons")
    out: list[PairedResult | None] = [None] * len(items)
    by_cases: dict[int, list[int]] = {}
    prepared: dict[int, tuple[Any, Any, float, float]] = {}
    for i, (bp, bn, cp, cn) in enumerate(items):
        yb, mb = np.asarray(bp, float), np.asarray(bn, float)
        yc, mc = np.asarray(cp, float), np.asarray(cn, float)
        if len(yb) <= EXACT_CASES or (mb.max() <= 1 and mc.max() <= 1):
            # enumerated or McNemar: no flips matrix to share
            out[i] = paired_test(yb, mb, yc, mc, alpha=levels[i], seed=seed, interval=interval)
            continue
        # as in paired_test: per-case contributions and the weights that scale the shift
        d = yc / mc.sum() - yb / mb.sum()
        w = (mb + mc) / (mb.sum() + mc.sum())
        prepared[i] = (d, w, float(yb.sum() / mb.sum()), float(yc.sum() / mc.sum()))
        by_cases.setdefault(len(yb), []).append(i)
    for n, group in by_cases.items():
        columns = [np.column_stack([prepared[i][0] for i in group])]
        if interval:
            columns.append(np.column_stack([prepared[i][1] for i in group]))
        sums = _flipped_sums(tuple(columns), seed)  # the signs of _flip_matrix, in blocks
        flipped, weights = sums[0], (sums[1] if interval else None)
        for j, i in enumerate(group):
            d, w, base_rate, cand_rate = prepared[i]
            # as in sign_flip_pvalues, one column at a time
            observed = np.abs(d[:, None].sum(axis=0))
            tol = 1e-9 * np.maximum(1.0, observed)
            hits = (np.abs(flipped[:, j : j + 1]) >= observed - tol).sum(axis=0)
            p = float(np.asarray((1 + hits) / (len(flipped) + 1), dtype=float)[0])
            if weights is not None:
                shifts = _shifts(flipped[:, j], weights[:, j], float(d.sum()))
                p, low, high = _inverted_interval(d, w, levels[i], seed, (p, shifts))
            else:
                low = high = math.nan
            se = float(np.sqrt((d * d).sum()))
            out[i] = PairedResult(
                "sign-flip", n, base_rate, cand_rate, low, high, p, levels[i], se=se, exact=False
            )
    return [r for r in out if r is not None]
