"""The paired comparison, field by field, on data worked out by hand; and the sign-flip interval
checked against its definition: exactly the shifts the test does not reject."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from harness.stats import (
    PairedResult,
    clopper_pearson,
    holm,
    holm_levels,
    paired_test,
    sign_flip_pvalues,
)


def ones(n: int) -> list[int]:
    return [1] * n


class TestMcNemarBranch:
    def test_the_issue_example_reads_consistently(self) -> None:
        """40 cases, 5 fail->pass, none pass->fail: p = 2/32 = 0.0625 and the interval,
        (2·0.025^(1/5) − 1)·5/40 to (2·1 − 1)·5/40, includes zero: no significant difference."""
        base = ones(20) + [0] * 15 + [0] * 5
        cand = ones(20) + [0] * 15 + [1] * 5
        r = paired_test(base, ones(40), cand, ones(40))
        assert (r.method, r.cases, r.pass_to_fail, r.fail_to_pass, r.alpha) == (
            "mcnemar-exact",
            40,
            0,
            5,
            0.05,
        )
        assert (r.base_rate, r.cand_rate) == (0.5, 0.625)
        assert r.p_value == pytest.approx(0.0625, abs=1e-15)
        assert r.low == pytest.approx((2 * 0.025 ** (1 / 5) - 1) * 5 / 40, abs=1e-12)
        assert r.high == pytest.approx(0.125, abs=1e-15)
        assert r.se == pytest.approx(math.sqrt(5) / 40, abs=1e-15)
        assert r.low < 0 < r.high and r.p_value >= r.alpha

    def test_interval_from_clopper_pearson_of_the_discordant_pairs(self) -> None:
        """2 pass->fail, 5 fail->pass of 20: the difference interval is the exact interval of
        5/7 mapped by t -> (2t − 1)·7/20, at the level asked for."""
        base = [1, 1] + [0] * 5 + ones(6) + [0] * 7
        cand = [0, 0] + ones(5) + ones(6) + [0] * 7
        r = paired_test(base, ones(20), cand, ones(20), alpha=0.1)
        ci = binomtest(5, 7).proportion_ci(confidence_level=0.9, method="exact")
        assert (r.pass_to_fail, r.fail_to_pass, r.alpha) == (2, 5, 0.1)
        assert r.low == pytest.approx((2 * ci.low - 1) * 7 / 20, abs=1e-9)
        assert r.high == pytest.approx((2 * ci.high - 1) * 7 / 20, abs=1e-9)
        assert r.se == pytest.approx(math.sqrt(7) / 20, abs=1e-15)

    def test_balanced_flips_have_a_two_sided_interval(self) -> None:
        """3 flips each way: p = 1 and the interval is symmetric around zero, not a point."""
        base = [1, 1, 1, 0, 0, 0]
        cand = [0, 0, 0, 1, 1, 1]
        r = paired_test(base, ones(6), cand, ones(6))
        assert r.p_value == 1.0
        assert r.low == pytest.approx(-r.high, abs=1e-12) and r.high > 0.5

    def test_no_flips_is_a_point_at_zero(self) -> None:
        r = paired_test([1, 0, 1], ones(3), [1, 0, 1], ones(3))
        assert (r.low, r.high, r.p_value, r.se) == (0.0, 0.0, 1.0, 0.0)

    def test_one_case(self) -> None:
        r = paired_test([0], [1], [1], [1])
        assert (r.method, r.cases, r.fail_to_pass, r.p_value) == ("mcnemar-exact", 1, 1, 1.0)

    def test_several_samples_on_either_side_is_not_mcnemar(self) -> None:
        """Two samples per case in the base, one in the candidate: the sign-flip test."""
        assert paired_test([1, 2], [2, 2], [1, 1], [1, 1]).method == "sign-flip"
        assert paired_test([1, 1], [1, 1], [1, 2], [2, 2]).method == "sign-flip"


class TestEmpty:
    def test_no_shared_case(self) -> None:
        r = paired_test([], [], [], [], alpha=0.1)
        assert (r.method, r.cases, r.p_value, r.alpha) == ("sign-flip", 0, 1.0, 0.1)
        assert all(math.isnan(x) for x in (r.base_rate, r.cand_rate, r.low, r.high, r.se))
        assert isinstance(r, PairedResult)


def _shift_pvalue(d: np.ndarray, w: np.ndarray, delta: float, seed: int) -> float:
    return float(sign_flip_pvalues(d - delta * w, seed=seed)[0])


class TestSignFlipBranch:
    @pytest.mark.parametrize(
        ("seed", "lift"),
        [(1, 0.0), (2, 0.25), (3, -0.25), (4, 0.05), (5, -0.05), (6, 0.6)],
    )
    def test_interval_is_the_set_of_shifts_not_rejected(self, seed: int, lift: float) -> None:
        """With the documented per-case contributions d and weights w, p(low) and p(high) are
        at least alpha, just outside they are below it, and zero is inside iff p >= alpha."""
        rng = np.random.default_rng(seed)
        cases = 25
        mb = rng.integers(2, 6, size=cases)
        mc = rng.integers(2, 6, size=cases)
        difficulty = rng.uniform(0.1, 0.9, size=cases)
        yb = rng.binomial(mb, difficulty)
        yc = rng.binomial(mc, np.clip(difficulty + lift, 0.0, 1.0))
        r = paired_test(yb, mb, yc, mc, seed=seed)
        d = yc / mc.sum() - yb / mb.sum()
        w = (mb + mc) / (mb.sum() + mc.sum())
        assert r.method == "sign-flip" and r.cases == cases
        assert r.base_rate == pytest.approx(yb.sum() / mb.sum(), abs=1e-15)
        assert r.cand_rate == pytest.approx(yc.sum() / mc.sum(), abs=1e-15)
        assert r.se == pytest.approx(float(np.sqrt((d * d).sum())), abs=1e-15)
        assert r.p_value == pytest.approx(_shift_pvalue(d, w, 0.0, seed), abs=1e-15)
        step = 1e-6
        assert _shift_pvalue(d, w, r.low, seed) >= r.alpha
        assert _shift_pvalue(d, w, r.high, seed) >= r.alpha
        if r.low > -1.0:
            assert _shift_pvalue(d, w, r.low - step, seed) < r.alpha
        if r.high < 1.0:
            assert _shift_pvalue(d, w, r.high + step, seed) < r.alpha
        assert (r.low <= 0.0 <= r.high) == (r.p_value >= r.alpha)
        assert -1.0 <= r.low <= r.difference <= r.high <= 1.0

    def test_identical_sides_centre_on_zero(self) -> None:
        """Candidate equal to base: the observed difference is 0, p = 1, zero inside."""
        y, m = [1, 2, 3, 0], [3, 3, 3, 3]
        r = paired_test(y, m, y, m)
        assert r.p_value == 1.0 and r.low < 0.0 < r.high

    def test_everything_flips_reaches_the_edge(self) -> None:
        """Base never passes, candidate always does: the upper end is the largest possible
        difference, 1, and never beyond it."""
        r = paired_test([0] * 12, [3] * 12, [3] * 12, [3] * 12)
        assert r.high == 1.0 and r.low > 0.0
        r = paired_test([3] * 12, [3] * 12, [0] * 12, [3] * 12)
        assert r.low == -1.0 and r.high < 0.0

    def test_default_seed_is_zero(self) -> None:
        """Reports are reproducible: the default seed is the documented 0."""
        args = ([1, 2, 0, 3], [3, 3, 3, 3], [2, 3, 1, 3], [3, 3, 3, 3])
        assert paired_test(*args) == paired_test(*args, seed=0)
        d = [0.1, -0.2, 0.3]
        assert np.array_equal(sign_flip_pvalues(d), sign_flip_pvalues(d, seed=0))


class TestClopperPearson:
    @pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 7), (10, 10), (1, 1)])
    def test_matches_scipy(self, k: int, n: int) -> None:
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
        assert clopper_pearson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)

    def test_nothing_counted(self) -> None:
        assert all(math.isnan(x) for x in clopper_pearson(0, 0))


class TestHolm:
    def test_adjusted_p_is_capped_at_one(self) -> None:
        assert holm([0.6, 0.7]) == [1.0, 1.0]

    def test_levels_agree_with_adjusted_p_at_the_boundary(self) -> None:
        """p = 0.025 with two tests is not below 0.05/2: Holm stops there, and so do the
        levels; adjusted p 0.05 is not below 0.05 either."""
        assert holm_levels([0.025, 0.04], 0.05) == [0.025, 0.025]
        assert holm([0.025, 0.04]) == [0.05, 0.05]

    def test_levels_step_up_while_rejecting(self) -> None:
        assert holm_levels([0.001, 0.02, 0.5], 0.06) == pytest.approx([0.02, 0.03, 0.06])

    def test_no_comparisons(self) -> None:
        assert holm([]) == [] and holm_levels([], 0.05) == []


class TestTooFewCasesToReject:
    @pytest.mark.parametrize(
        ("base", "cand"),
        [([0, 1], [2, 3]), ([3, 2], [1, 0]), ([1, 2], [2, 1])],  # up, down, even
    )
    def test_two_cases_can_never_be_significant(self, base: list[int], cand: list[int]) -> None:
        """With two cases the sign-flip p-value is at least about 1/4 at every shift, so the
        interval is the whole range [-1, 1], exactly."""
        r = paired_test(base, [3, 3], cand, [3, 3])
        assert r.p_value > 0.2
        assert (r.low, r.high) == (-1.0, 1.0)


class TestPValueExactlyAtAlpha:
    @pytest.mark.parametrize("seed", [34, 2391])  # found by search: p is exactly 100/2000
    def test_p_equal_to_alpha_is_not_significant_and_the_interval_holds(self, seed: int) -> None:
        """p = alpha is not below alpha: zero stays inside, and each end is still the last
        shift the test does not reject (a shrunken end would sit at zero)."""
        rng = np.random.default_rng(seed)
        mb = rng.integers(2, 6, size=25)
        mc = rng.integers(2, 6, size=25)
        difficulty = rng.uniform(0.1, 0.9, size=25)
        lift = 0.1 if seed % 2 else -0.1
        yb = rng.binomial(mb, difficulty)
        yc = rng.binomial(mc, np.clip(difficulty + lift, 0.0, 1.0))
        r = paired_test(yb, mb, yc, mc, seed=seed)
        assert r.p_value == r.alpha
        assert r.low < 0.0 < r.high
        d = yc / mc.sum() - yb / mb.sum()
        w = (mb + mc) / (mb.sum() + mc.sum())
        for end, outward in ((r.low, -1e-6), (r.high, 1e-6)):
            assert _shift_pvalue(d, w, end, seed) >= r.alpha
            assert _shift_pvalue(d, w, end + outward, seed) < r.alpha


class TestExactEnumeration:
    """Up to EXACT_CASES cases the sign-flip p-value is the exact permutation p-value: every
    one of the 2**n sign patterns counted, no seed."""

    def test_the_issue_example_is_exactly_one_in_sixteen_at_every_seed(self) -> None:
        """5 cases, each 3/3 -> 2/3: 2 of the 32 patterns are as extreme, p = 0.0625 whatever
        the seed (random flips gave 0.047-0.080, and 3 seeds of 500 said "worse")."""
        ps = {paired_test([3] * 5, [3] * 5, [2] * 5, [3] * 5, seed=s).p_value for s in range(50)}
        assert ps == {0.0625}

    @pytest.mark.parametrize("n", [1, 2, 7, 12])
    def test_equals_a_brute_force_enumeration(self, n: int) -> None:
        """The doubling construction gives the same p as looping over itertools.product."""
        import itertools

        rng = np.random.default_rng(n)
        yb, yc = rng.binomial(4, 0.5, n), rng.binomial(4, 0.6, n)
        d = (yc - yb) / (4 * n)
        observed = abs(d.sum())
        hits = sum(
            abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
            for signs in itertools.product((1, -1), repeat=n)
        )
        brute = hits / 2**n
        assert sign_flip_pvalues(d)[0] == pytest.approx(brute, abs=1e-15)
        assert paired_test(yb, [4] * n, yc, [4] * n).p_value == pytest.approx(brute, abs=1e-15)

    def test_exact_up_to_twenty_cases_random_above(self) -> None:
        """20 cases: p is a multiple of 2**-20 and no seed changes it; 21 cases: 1,999 random
        patterns, p a multiple of 1/2000, reproducible per seed."""
        from harness.stats import EXACT_CASES

        assert EXACT_CASES >= 20
        rng = np.random.default_rng(3)
        yb, yc = rng.binomial(5, 0.5, 21), rng.binomial(5, 0.6, 21)
        m = [5] * 21
        exact = {paired_test(yb[:20], m[:20], yc[:20], m[:20], seed=s).p_value for s in (0, 1)}
        assert len(exact) == 1 and (exact.pop() * 2**20) % 1 == 0
        r = paired_test(yb, m, yc, m)
        assert not r.exact and (r.p_value * 2000) % 1 == pytest.approx(0, abs=1e-9)

    def test_a_point_interval_says_why(self) -> None:
        """6 cases that each lose one of 3 samples: exact p = 2/64, and the interval has zero
        width; the result explains it instead of leaving it beside a detectable difference."""
        r = paired_test([3] * 6, [3] * 6, [2] * 6, [3] * 6)
        assert r.p_value == pytest.approx(2 / 64)
        assert r.high - r.low < 1e-6
        assert "moved by the same amount" in (r.point_interval_reason or "")
        wide = paired_test([3, 3, 3, 1, 2, 3], [3] * 6, [2, 3, 2, 2, 2, 3], [3] * 6)
        assert wide.point_interval_reason is None
