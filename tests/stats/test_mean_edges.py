"""Metric means at their edges: no rows, one case, a worked interval, the paired test against
scipy, no spread, clipping to the score range (issue 14: each was a surviving mutant of
``harness/stats/_mean.py``)."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from harness.stats import clustered_mean, paired_mean_test


class TestClusteredMean:
    def test_no_rows_is_all_nan(self) -> None:
        assert all(math.isnan(x) for x in clustered_mean([], []))

    def test_worked_interval(self) -> None:
        """Cases a = (0.4, 0.6), b = (0.5, 0.7): mean 0.55, cluster deviations -0.1 and 0.1,
        SE = sqrt(2 * 0.02) / 4 = 0.05; with z = 1 the interval is 0.50-0.60."""
        mean, low, high = clustered_mean([0.4, 0.6, 0.5, 0.7], ["a", "a", "b", "b"], z=1.0)
        assert mean == pytest.approx(0.55)
        assert (low, high) == (pytest.approx(0.50), pytest.approx(0.60))
        _, low95, high95 = clustered_mean([0.4, 0.6, 0.5, 0.7], ["a", "a", "b", "b"])
        assert (low95, high95) == (
            pytest.approx(0.55 - 1.959964 * 0.05),
            pytest.approx(0.55 + 1.959964 * 0.05),
        )

    def test_samples_of_one_case_are_one_cluster(self) -> None:
        """(0.2, 0.2) and (0.8, 0.8) as two cases: SE = sqrt(2 * 0.72) / 4 = 0.3; the same
        values as four cases: SE = sqrt(4/3 * 0.36) / 4 = 0.173 (z = 1 here)."""
        values = [0.2, 0.2, 0.8, 0.8]
        assert clustered_mean(values, ["a", "a", "b", "b"], z=1.0) == (
            pytest.approx(0.5),
            pytest.approx(0.2),
            pytest.approx(0.8),
        )
        _, low4, high4 = clustered_mean(values, ["a", "b", "c", "d"], z=1.0)
        se4 = 0.6 / 12**0.5
        assert (low4, high4) == (pytest.approx(0.5 - se4), pytest.approx(0.5 + se4))

    def test_two_cases_are_enough_for_an_interval(self) -> None:
        mean, low, high = clustered_mean([0.2, 0.4], ["a", "b"])
        assert mean == pytest.approx(0.3) and low < 0.3 < high

    def test_values_and_clusters_must_pair_up(self) -> None:
        with pytest.raises(ValueError):
            clustered_mean([0.1, 0.2, 0.3], ["a", "b"])


class TestPairedMeanTest:
    def test_no_cases(self) -> None:
        result = paired_mean_test([], [])
        assert result.cases == 0 and result.p_value == 1.0
        assert all(math.isnan(x) for x in (result.base, result.cand, result.low, result.high))

    def test_agrees_with_scipy(self) -> None:
        """p from scipy's paired t-test, the interval from its t quantile, at 95% and 90%."""
        base = [0.2, 0.5, 0.4, 0.9, 0.3, 0.6]
        cand = [0.4, 0.5, 0.7, 0.8, 0.6, 0.9]
        diffs = [c - b for b, c in zip(base, cand, strict=True)]
        result = paired_mean_test(base, cand)
        assert result.cases == 6
        assert result.base == pytest.approx(sum(base) / 6)
        assert result.cand == pytest.approx(sum(cand) / 6)
        assert result.difference == pytest.approx(sum(diffs) / 6)
        assert result.p_value == pytest.approx(stats.ttest_rel(cand, base).pvalue)
        sem = stats.sem(diffs)
        for alpha in (0.05, 0.10):
            low, high = stats.t.interval(1 - alpha, 5, loc=sum(diffs) / 6, scale=sem)
            got = paired_mean_test(base, cand, alpha=alpha)
            assert (got.low, got.high) == (pytest.approx(low), pytest.approx(high))

    def test_one_case_is_a_point_without_evidence(self) -> None:
        result = paired_mean_test([0.2], [0.9])
        assert result.p_value == 1.0
        assert (result.low, result.high) == (pytest.approx(0.7), pytest.approx(0.7))
        assert (result.cases, result.base, result.cand) == (1, 0.2, 0.9)

    def test_two_cases_with_spread_are_a_t_test(self) -> None:
        """Two cases already have a spread: differences 0.2 and 0.1 give t = 0.15 / 0.05 = 3
        on one degree of freedom, scipy's p, and a 12.7-standard-error interval."""
        base, cand = [0.1, 0.5], [0.3, 0.6]
        result = paired_mean_test(base, cand)
        assert result.cases == 2 and result.difference == pytest.approx(0.15)
        assert result.p_value == pytest.approx(stats.ttest_rel(cand, base).pvalue)
        assert result.p_value == pytest.approx(2 * stats.t.sf(3.0, 1))
        low, high = stats.t.interval(0.95, 1, loc=0.15, scale=0.05)
        assert (result.low, result.high) == (pytest.approx(low), pytest.approx(high))

    def test_base_and_candidate_must_pair_up(self) -> None:
        """One value per case on each side: a case missing on one side is refused, not
        silently dropped."""
        with pytest.raises(ValueError):
            paired_mean_test([0.1, 0.2, 0.3], [0.2, 0.3])
        with pytest.raises(ValueError):
            paired_mean_test([0.1, 0.2], [0.2, 0.3, 0.4])

    def test_the_same_gain_on_every_case_is_certain(self) -> None:
        result = paired_mean_test([0.25, 0.5], [0.5, 0.75])
        assert result.p_value == 0.0 and (result.low, result.high) == (0.25, 0.25)

    def test_no_difference_at_all_is_no_evidence(self) -> None:
        result = paired_mean_test([0.3, 0.6], [0.3, 0.6])
        assert result.p_value == 1.0 and (result.low, result.high) == (0.0, 0.0)

    def test_the_interval_stays_within_minus_one_and_one(self) -> None:
        """Scores are in [0, 1], so a difference cannot pass +-1 whatever the t interval says."""
        up = paired_mean_test([0.0, 0.0, 0.0], [1.0, 0.9, 1.0])
        assert up.high == 1.0 and up.low < 1.0
        down = paired_mean_test([1.0, 0.9, 1.0], [0.0, 0.0, 0.0])
        assert down.low == -1.0 and down.high > -1.0


class TestNotANumber:
    """A value that is not a number (a hand-edited results row) leaves the figures unknown:
    before, the clipping turned a NaN interval into [0, 1] (or [-1, 1] for a difference)."""

    def test_clustered_mean_is_unknown(self) -> None:
        for bad in (math.nan, math.inf):
            assert all(math.isnan(x) for x in clustered_mean([0.5, bad, 0.7], ["a", "b", "c"]))

    def test_paired_difference_is_unknown(self) -> None:
        result = paired_mean_test([0.2, 0.4, math.nan], [0.3, 0.6, 0.9])
        assert result.cases == 3
        assert math.isnan(result.low) and math.isnan(result.high)
        assert math.isnan(result.p_value)
        assert result.base != result.base  # the mean itself is NaN, as the data says
