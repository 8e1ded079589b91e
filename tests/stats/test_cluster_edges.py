"""The design-effect-adjusted interval on small groups worked out by hand, and its edges:
empty groups, one case, perfect records, cases with nothing counted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.stats import ClusterSums, cluster_wilson, design_effect, wilson_interval

Z = 1.959963984540054


def wilson_with_n(p: float, n_eff: float) -> tuple[float, float]:
    """Wilson's score interval written out for a (possibly fractional) sample size."""
    denom = 1 + Z * Z / n_eff
    centre = (p + Z * Z / (2 * n_eff)) / denom
    half = Z * math.sqrt(p * (1 - p) / n_eff + Z * Z / (4 * n_eff * n_eff)) / denom
    return centre - half, centre + half


class TestDesignEffect:
    def test_three_cases_by_hand(self) -> None:
        """y = 5, 0, 3 of 5 each: p = 8/15, Σ(y - p·m)² = 114/9, clustered variance
        3/2 · (114/9) / 15² = 19/225, binomial (8/15)(7/15)/15 = 56/3375, deff = 285/56."""
        s = ClusterSums.of_cases([5, 0, 3], [5, 5, 5])
        assert float(design_effect(s)[0]) == pytest.approx(285 / 56, rel=1e-12)
        low, high = cluster_wilson(s)
        expected = wilson_with_n(8 / 15, 15 / (285 / 56))
        assert (float(low[0]), float(high[0])) == pytest.approx(expected, rel=1e-12)

    def test_two_cases_use_the_estimate_not_the_fallback(self) -> None:
        """y = 5, 1 of 5: deff = (2 · 8 / 100) / (0.6 · 0.4 / 10) = 20/3, above 5 per case."""
        s = ClusterSums.of_cases([5, 1], [5, 5])
        assert float(design_effect(s)[0]) == pytest.approx(20 / 3, rel=1e-12)

    def test_agreeing_cases_are_never_credited_below_one(self) -> None:
        """Every case 1 of 2: no between-case variance; deff is 1, so plain Wilson (3 of 6)."""
        s = ClusterSums.of_cases([1, 1, 1], [2, 2, 2])
        assert float(design_effect(s)[0]) == 1.0
        low, high = cluster_wilson(s)
        assert (float(low[0]), float(high[0])) == pytest.approx(wilson_interval(3, 6), abs=1e-12)

    def test_one_sample_per_case_is_plain_wilson(self) -> None:
        s = ClusterSums.of_cases([1, 0, 1, 1], [1, 1, 1, 1])
        assert float(design_effect(s)[0]) == 1.0
        low, high = cluster_wilson(s)
        assert (float(low[0]), float(high[0])) == pytest.approx(wilson_interval(3, 4), abs=1e-12)

    def test_one_case_counts_once(self) -> None:
        """A single case with 5 samples is one observation: deff = 5, without warnings."""
        s = ClusterSums.of_cases([2], [5])
        assert float(design_effect(s)[0]) == 5.0
        low, high = cluster_wilson(s)
        assert (float(low[0]), float(high[0])) == pytest.approx(wilson_with_n(0.4, 1.0), abs=1e-12)

    def test_one_case_one_sample(self) -> None:
        s = ClusterSums.of_cases([1], [1])
        assert float(design_effect(s)[0]) == 1.0
        low, high = cluster_wilson(s)
        assert (float(low[0]), float(high[0])) == pytest.approx(wilson_interval(1, 1), abs=1e-12)

    def test_cases_with_nothing_counted_are_left_out(self) -> None:
        """A case whose samples were all missing is not a case of the interval."""
        with_empty = ClusterSums.of_cases([5, 0, 3, 0], [5, 5, 5, 0])
        assert float(with_empty.cases[0]) == 3.0
        assert float(design_effect(with_empty)[0]) == pytest.approx(285 / 56, rel=1e-12)

    def test_nothing_counted_is_nan(self) -> None:
        s = ClusterSums.of_cases([], [])
        assert math.isnan(float(design_effect(s)[0]))
        low, high = cluster_wilson(s)
        assert math.isnan(float(low[0])) and math.isnan(float(high[0]))


class TestBounds:
    @pytest.mark.parametrize("cases", [3, 6, 10, 13, 25])
    def test_perfect_and_zero_records_reach_the_bounds_exactly(self, cases: int) -> None:
        zero = cluster_wilson(ClusterSums.of_cases([0] * cases, [5] * cases))
        perfect = cluster_wilson(ClusterSums.of_cases([5] * cases, [5] * cases))
        assert float(zero[0][0]) == 0.0 and float(perfect[1][0]) == 1.0

    def test_one_pass_has_a_positive_lower_bound(self) -> None:
        low, _ = cluster_wilson(ClusterSums.of_cases([1, 0, 0], [1, 1, 1]))
        assert float(low[0]) == pytest.approx(wilson_interval(1, 3)[0], abs=1e-12)
        assert float(low[0]) > 0

    def test_groups_side_by_side(self) -> None:
        """Several groups in one call: each gets its own interval, an empty one NaN."""
        one = ClusterSums.of_cases([5, 0, 3], [5, 5, 5])
        two = ClusterSums.of_cases([1, 1, 1], [2, 2, 2])
        both = ClusterSums(
            *(
                np.concatenate([getattr(one, f), getattr(two, f), [0.0]])
                for f in ("cases", "passed", "counted", "yy", "ym", "mm")
            )
        )
        low, high = cluster_wilson(both)
        assert float(low[0]) == pytest.approx(float(cluster_wilson(one)[0][0]), abs=1e-12)
        assert float(high[1]) == pytest.approx(wilson_interval(3, 6)[1], abs=1e-12)
        assert math.isnan(float(low[2])) and math.isnan(float(high[2]))


def test_the_math_only_interval_is_the_numpy_one() -> None:
    """``cluster_wilson_interval`` (what ``planeval run`` prints, no numpy) equals
    ``cluster_wilson`` (what the reports print) on uneven cases, one sample per case, all
    passing, one case, and nothing counted."""
    import math

    import numpy as np

    from harness.stats import ClusterSums, cluster_wilson, cluster_wilson_interval

    rng = np.random.default_rng(5)
    examples = [
        (list(rng.binomial(5, rng.beta(0.5, 0.5, 30))), [5] * 30),
        ([1, 0, 1, 1], [1, 1, 1, 1]),
        ([3, 3, 2], [3, 3, 2]),
        ([2], [5]),
        ([0, 1, 4], [0, 2, 5]),
    ]
    for passed, counted in examples:
        low, high = cluster_wilson(ClusterSums.of_cases(passed, counted))
        lo, hi = cluster_wilson_interval(zip(passed, counted, strict=True))
        assert (lo, hi) == (float(low[0]), float(high[0])) or (
            abs(lo - low[0]) < 1e-12 and abs(hi - high[0]) < 1e-12
        )
    assert all(math.isnan(x) for x in cluster_wilson_interval([(0, 0)]))
