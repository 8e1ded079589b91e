"""Edges of the binomial statistics a report shows: empty counts, perfect and zero records,
k equal to n. Each value is worked out by hand in its docstring or comment."""

from __future__ import annotations

import math

import pytest

from harness.stats import mcnemar_exact, pass_at_k, pass_hat_k, wilson_interval, wilson_intervals


class TestWilsonEdges:
    @pytest.mark.parametrize("n", [3, 6, 7, 10, 13, 25, 27, 1000])
    def test_perfect_and_zero_records_reach_the_bounds_exactly(self, n: int) -> None:
        """0/n starts at exactly 0 and n/n ends at exactly 1 (the formula alone gives 5.6e-17
        at n=3 and 0.9999999999999999 at n=10)."""
        assert wilson_interval(0, n)[0] == 0.0
        assert wilson_interval(n, n)[1] == 1.0
        low, high = wilson_intervals([0, n], [n, n])
        assert low[0] == 0.0 and high[1] == 1.0

    def test_nothing_counted_is_nan_not_an_error(self) -> None:
        """No counted sample: no interval (NaN), never a ZeroDivisionError."""
        assert all(math.isnan(x) for x in wilson_interval(0, 0))

    @pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (1, 10), (0, 10), (9, 10), (1, 2)])
    def test_vectorised_equals_scalar(self, k: int, n: int) -> None:
        """The array form gives the scalar form's numbers, one sample and one success included."""
        low, high = wilson_intervals([k], [n])
        assert (float(low[0]), float(high[0])) == pytest.approx(wilson_interval(k, n), abs=1e-15)


class TestPassAtK:
    @pytest.mark.parametrize(
        ("n", "c", "k", "expected"),
        [
            (1, 1, 1, 1.0),  # one sample, it passed
            (1, 0, 1, 0.0),  # one sample, it failed
            (5, 2, 5, 1.0),  # k = n and some sample passed
            (5, 0, 5, 0.0),  # k = n and none passed
            (5, 2, 3, 0.9),  # n - c = k: 1 - C(3,3)/C(5,3) = 1 - 1/10
            (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        ],
    )
    def test_values(self, n: int, c: int, k: int, expected: float) -> None:
        assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 0), (0, 0, 1), (3, 1, 4)])
    def test_undefined_is_nan(self, n: int, c: int, k: int) -> None:
        """No samples, or k larger than the samples drawn: undefined, not 0 or 1."""
        assert math.isnan(pass_at_k(n, c, k))


class TestPassHatK:
    @pytest.mark.parametrize(
        ("n", "c", "k", "expected"),
        [
            (1, 1, 1, 1.0),
            (1, 0, 1, 0.0),
            (3, 3, 3, 1.0),  # k = n, all passed
            (3, 2, 3, 0.0),  # k = n, one failed
            (5, 3, 2, 0.3),  # C(3,2)/C(5,2) = 3/10
        ],
    )
    def test_values(self, n: int, c: int, k: int, expected: float) -> None:
        assert pass_hat_k(n, c, k) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 0), (3, 3, 5), (0, 0, 1)])
    def test_undefined_is_nan(self, n: int, c: int, k: int) -> None:
        assert math.isnan(pass_hat_k(n, c, k))


class TestMcNemarEdges:
    def test_no_discordant_pairs(self) -> None:
        assert mcnemar_exact(0, 0) == 1.0

    @pytest.mark.parametrize(("b", "c", "expected"), [(1, 0, 1.0), (5, 0, 0.0625), (0, 6, 0.03125)])
    def test_small_counts_by_hand(self, b: int, c: int, expected: float) -> None:
        """2 * 0.5**n when one side is empty: 5 flips one way give p = 2/32."""
        assert mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-15)
