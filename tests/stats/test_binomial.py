"""The binomial statistics, checked against scipy and against values worked out by hand."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy.stats import binomtest

from harness.stats import (
    mcnemar_exact,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
    wilson_intervals,
)


class TestWilson:
    @pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (1, 1), (45, 50), (7, 200)])
    def test_matches_scipy(self, k: int, n: int) -> None:
        """The interval equals scipy's Wilson interval (without continuity correction)."""
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson_interval(k, n)
        assert low == pytest.approx(ci.low, abs=1e-9)
        assert high == pytest.approx(ci.high, abs=1e-9)

    def test_by_hand(self) -> None:
        """0 of 10: upper bound z²/(n+z²) = 3.8415/13.8415 = 0.2775; lower bound exactly 0."""
        low, high = wilson_interval(0, 10)
        assert low == 0.0
        assert high == pytest.approx(3.841459 / 13.841459, abs=1e-6)

    def test_vectorised_agrees_and_empty_is_nan(self) -> None:
        """The array form gives the same numbers and NaN where nothing was counted."""
        low, high = wilson_intervals([3, 0], [10, 0])
        assert (low[0], high[0]) == pytest.approx(wilson_interval(3, 10))
        assert math.isnan(low[1]) and math.isnan(high[1])


class TestMcNemar:
    @pytest.mark.parametrize(
        ("b", "c"), [(0, 6), (1, 9), (5, 5), (3, 12), (10, 2), (0, 1), (560, 640), (5000, 5150)]
    )
    def test_matches_scipy_binomtest(self, b: int, c: int) -> None:
        """Exact McNemar is the two-sided binomial test of the discordant pairs at 1/2."""
        expected = binomtest(min(b, c), b + c, 0.5).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)

    def test_by_hand(self) -> None:
        """Six discordant pairs all one way: p = 2 / 2^6 = 0.03125."""
        assert mcnemar_exact(0, 6) == pytest.approx(0.03125)
        assert mcnemar_exact(0, 0) == 1.0


class TestPassAtK:
    @pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 2), (10, 3, 4), (4, 4, 3), (6, 0, 2)])
    def test_matches_enumeration(self, n: int, c: int, k: int) -> None:
        """pass@k and pass^k equal the share of k-subsets with any / all passing samples."""
        samples = [1] * c + [0] * (n - c)
        subsets = list(itertools.combinations(samples, k))
        assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
        assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))

    def test_too_few_samples_is_nan(self) -> None:
        """k larger than the samples available has no value."""
        assert math.isnan(pass_at_k(2, 1, 3))
