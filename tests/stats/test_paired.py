"""The paired test, its interval, Holm and the clustered interval, against scipy/statsmodels
and against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from harness.stats import (
    ClusterSums,
    clopper_pearson,
    cluster_wilson,
    holm,
    holm_levels,
    paired_test,
    paired_tests,
    sign_flip_pvalues,
    wilson_intervals,
)


@pytest.mark.parametrize(("k", "n"), [(0, 5), (5, 5), (3, 11), (40, 97)])
def test_clopper_pearson_matches_statsmodels(k: int, n: int) -> None:
    """The exact interval equals statsmodels' ``beta`` method."""
    low, high = proportion_confint(k, n, alpha=0.05, method="beta")
    assert clopper_pearson(k, n) == pytest.approx((low, high), abs=1e-9)


@pytest.mark.parametrize("ps", [[0.01, 0.04, 0.03], [0.2, 0.001], [0.049, 0.049, 0.049], [0.5]])
def test_holm_matches_statsmodels(ps: list[float]) -> None:
    """Adjusted p-values equal statsmodels' ``holm``."""
    assert holm(ps) == pytest.approx(list(multipletests(ps, method="holm")[1]))


def test_holm_levels_reject_exactly_where_holm_does() -> None:
    """p < level for each hypothesis exactly when its Holm-adjusted p < 0.05, over random p."""
    rng = np.random.default_rng(5)
    for _ in range(500):
        ps = list(rng.uniform(0, 0.12, size=int(rng.integers(2, 6))))
        levels, adj = holm_levels(ps, 0.05), holm(ps)
        assert [p < lv for p, lv in zip(ps, levels, strict=True)] == [a < 0.05 for a in adj]


def test_one_sample_verdict_agrees_with_its_interval() -> None:
    """The issue's case: 40 cases, 5 fail->pass, 0 pass->fail. p=0.0625, and the interval
    (exact, conditional on the 5 discordant pairs) now reaches below zero."""
    r = paired_test([0] * 5 + [1] * 35, [1] * 40, [1] * 40, [1] * 40)
    assert r.method == "mcnemar-exact"
    assert r.p_value == pytest.approx(binomtest(0, 5, 0.5).pvalue)
    assert r.difference == pytest.approx(0.125)
    assert r.low < 0 < r.high
    six = paired_test([0] * 6 + [1] * 34, [1] * 40, [1] * 40, [1] * 40)
    assert six.p_value < 0.05 and six.low > 0


def test_interval_excludes_zero_exactly_when_p_is_below_alpha() -> None:
    """Over many random paired data sets (1 and 4 samples per case), both procedures."""
    rng = np.random.default_rng(11)
    for samples in (1, 4):
        for _ in range(150):
            n = int(rng.integers(5, 60))
            theta = rng.uniform(0.1, 0.9, size=n)
            shift = rng.choice([0.0, 0.15, 0.3])
            yb = rng.binomial(samples, theta)
            yc = rng.binomial(samples, np.clip(theta + shift, 0, 1))
            m = [samples] * n
            r = paired_test(yb, m, yc, m, seed=int(rng.integers(1000)))
            excludes = r.low > 0 or r.high < 0
            assert excludes == (r.p_value < 0.05), r
            assert r.low - 1e-12 <= r.difference <= r.high + 1e-12


def test_sign_flip_by_hand() -> None:
    """Four cases all +1: 1 of 16 sign patterns reaches the sum on each side, so p -> 2/16."""
    p = sign_flip_pvalues(np.ones(4), flips=20_000, seed=1)[0]
    assert p == pytest.approx(2 / 16, abs=0.01)
    assert sign_flip_pvalues(np.zeros(5))[0] == 1.0


def test_sign_flip_is_seeded() -> None:
    """Same seed, same result; the interval holds the observed difference."""
    yb, yc = [1, 2, 0, 3, 1, 2] * 5, [2, 3, 1, 3, 2, 3] * 5
    m = [3] * 30
    a, b = paired_test(yb, m, yc, m, seed=4), paired_test(yb, m, yc, m, seed=4)
    assert a == b and a.method == "sign-flip" and a.low <= a.difference <= a.high


def test_paired_tests_give_what_paired_test_gives() -> None:
    """Many comparisons at once (shared flips, one matrix product per case count): every
    result equals ``paired_test``'s for the same seed and level, p-values and intervals alike,
    with McNemar, enumerated and random sign-flip comparisons mixed, and unequal counts."""
    rng = np.random.default_rng(7)
    sides, levels = [], []
    for k in range(24):
        n = [6, 18, 40, 40, 40, 90][k % 6]
        samples = 1 if k % 8 == 7 else 4
        theta = rng.uniform(0.1, 0.9, size=n)
        mb = rng.integers(1, samples + 1, size=n)
        mc = np.full(n, samples)
        yb = rng.binomial(mb, theta)
        yc = rng.binomial(mc, np.clip(theta + rng.choice([0.0, 0.2]), 0, 1))
        sides.append((yb, mb, yc, mc))
        levels.append(float(rng.choice([0.05, 0.025, 0.0125])))
    for seed in (0, 3):
        many = paired_tests(sides, alpha=levels, seed=seed)
        one = [paired_test(*s, alpha=a, seed=seed) for s, a in zip(sides, levels, strict=True)]
        assert many == one
        assert {r.method for r in many} == {"sign-flip", "mcnemar-exact"}
        assert {r.exact for r in many} == {True, False}
        quick = paired_tests(sides, seed=seed, interval=False)
        assert [r.p_value for r in quick] == [
            paired_test(*s, seed=seed, interval=False).p_value for s in sides
        ]
    with pytest.raises(ValueError, match="2 levels for 24 comparisons"):
        paired_tests(sides, alpha=[0.05, 0.05])


def test_paired_tests_equal_paired_test_where_the_signs_come_in_blocks() -> None:
    """Past about 1,049 cases the 1999 sign patterns are drawn block by block
    (``_flipped_sums``): the shared-flips path still gives ``paired_test``'s results exactly,
    and holds no whole flips matrix."""
    import tracemalloc

    from harness.stats._paired import FLIP_BLOCK, FLIPS

    n = 20_000
    assert n * FLIPS > FLIP_BLOCK  # the block path, not one matrix
    rng = np.random.default_rng(11)
    sides = [
        (rng.integers(0, 4, n), np.full(n, 3), rng.integers(0, 4, n), np.full(n, 3))
        for _ in range(3)
    ]
    tracemalloc.start()
    try:
        many = paired_tests(sides, seed=5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert many == [paired_test(*s, seed=5) for s in sides]
    assert peak < 128 * 2**20, peak  # one (1999 x 20,000) float matrix alone is 305 MiB


def test_rates_are_pooled() -> None:
    """Unequal counts per case: each side's rate is passed / counted over all its samples."""
    r = paired_test([1, 3], [2, 4], [2, 4], [2, 4])
    assert (r.base_rate, r.cand_rate) == (4 / 6, 1.0)


class TestClusterWilson:
    def test_one_sample_per_case_is_wilson(self) -> None:
        """m_i = 1 for every case: the interval is Wilson's on the pooled counts."""
        y = [1, 0, 1, 1, 0, 1, 1]
        low, high = cluster_wilson(ClusterSums.of_cases(y, [1] * len(y)))
        wl, wh = wilson_intervals([5], [7])
        assert (low[0], high[0]) == pytest.approx((wl[0], wh[0]))

    def test_correlated_samples_widen_it(self) -> None:
        """Ten cases of five samples that always agree carry about ten observations, not 50:
        at least as wide as Wilson on 6 of 10 (n/(n-1) wider: 9 effective cases)."""
        y = [5] * 6 + [0] * 4
        low, high = cluster_wilson(ClusterSums.of_cases(y, [5] * 10))
        wl, wh = wilson_intervals([6], [10])
        assert low[0] <= wl[0] and high[0] >= wh[0]
        nine_low, nine_high = wilson_intervals([5.4], [9])
        assert (low[0], high[0]) == pytest.approx((nine_low[0], nine_high[0]))

    def test_all_passing_counts_each_case_once(self) -> None:
        """p = 1: the lower end is Wilson's for 10 of 10, not for 50 of 50."""
        low, high = cluster_wilson(ClusterSums.of_cases([5] * 10, [5] * 10))
        assert high[0] == 1.0 and low[0] == pytest.approx(wilson_intervals([10], [10])[0][0])

    def test_empty_is_nan(self) -> None:
        """Nothing counted: no interval."""
        low, _ = cluster_wilson(ClusterSums.of_cases([], []))
        assert math.isnan(low[0])
