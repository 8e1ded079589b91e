"""``format_rate``: a pass rate never reads 100% when a sample failed, nor 0% when one passed."""

from __future__ import annotations

import pytest

from harness._format import NO_RATE, format_rate


class TestFormatRate:
    @pytest.mark.parametrize(
        ("k", "n", "text"),
        [
            (299, 300, "99.7%"),  # the first example
            (1999, 2000, "99.95%"),  # one decimal would round to 100.0%
            (9999, 10000, "99.99%"),
            (99999, 100000, ">99.99%"),  # two decimals are not enough: a bound
            (1, 3000, "0.03%"),  # one decimal would round to 0.0%
            (1, 2000, "0.1%"),  # half up: not 0, so one decimal is enough
            (1, 100000, "<0.01%"),
            (300, 300, "100.0%"),  # exactly all
            (0, 300, "0.0%"),  # exactly none
            (1, 8, "12.5%"),  # half rounds up, exactly
            (2, 3, "66.7%"),
            (1, 3, "33.3%"),
            (0, 0, NO_RATE),  # nothing counted
        ],
    )
    def test_examples(self, k: int, n: int, text: str) -> None:
        """Documented examples read as stated."""
        assert format_rate(k, n) == text

    def test_never_claims_all_or_nothing_by_rounding(self) -> None:
        """Over every k/n with n up to 3,000, 100% means k == n and 0% means k == 0."""
        for n in range(1, 3001):
            for k in (0, 1, 2, n // 2, n - 2, n - 1, n):
                if not 0 <= k <= n:
                    continue
                text = format_rate(k, n)
                assert text.startswith("100") == (k == n), (k, n, text)
                assert (text.rstrip("%").strip("0.") == "") == (k == 0), (k, n, text)

    def test_decimals(self) -> None:
        """Fewer decimals still widen near the ends."""
        assert format_rate(2, 3, decimals=0) == "67%"
        assert format_rate(299, 300, decimals=0) == "99.7%"
        assert format_rate(300, 300, decimals=0) == "100%"

    @pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
    def test_refuses_impossible_counts(self, k: int, n: int) -> None:
        """k outside [0, n] is a bug in the caller, not a rate."""
        with pytest.raises(ValueError, match="0 <= k <= n"):
            format_rate(k, n)


class TestIntervalsRoundOutward:
    """Printed intervals hold the computed ones, so they agree with the verdict."""

    @pytest.mark.parametrize(
        ("low", "high", "text"),
        [
            (0.4804, 0.6366, "48.0–63.7%"),
            (0.48049, 0.63601, "48.0–63.7%"),  # to nearest would read 48.0–63.6%
            (0.2000000001, 0.4999999999, "20.0–50.0%"),  # float noise is not rounded outward
            (0.0, 1.0, "0.0–100.0%"),
            (float("nan"), 0.5, NO_RATE),
        ],
    )
    def test_pass_rate_intervals(self, low: float, high: float, text: str) -> None:
        from harness._format import format_interval

        assert format_interval(low, high) == text

    @pytest.mark.parametrize(
        ("low", "high", "text"),
        [
            (0.0003, 0.0731, "+0.03 pts to +7.4 pts"),  # read "+0.0 pts to +7.3 pts => better"
            (0.000004, 0.01, ">0 pts to +1.0 pts"),
            (-0.00595, 0.125, "-0.6 pts to +12.5 pts"),
            (-0.05, -0.0004, "-5.0 pts to -0.04 pts"),
            (-0.2000000001, 0.1250000000995, "-20.0 pts to +12.5 pts"),
            (0.0, 0.0, "0.0 pts to 0.0 pts"),
        ],
    )
    def test_difference_intervals(self, low: float, high: float, text: str) -> None:
        from harness._format import format_points_interval

        assert format_points_interval(low, high) == text

    def test_every_small_mcnemar_table_prints_an_interval_that_agrees(self) -> None:
        """Every 1-sample comparison up to 40 cases (b pass->fail, c fail->pass): when the
        verdict is better the printed low end is above zero, when worse the high end is below
        zero, and when neither the printed interval holds zero."""
        from harness._format import format_points
        from harness.stats import paired_test

        def value(text: str) -> float:
            return {">0": 1e-9, "<0": -1e-9}.get(text) or float(text)

        checked = 0
        for n in range(1, 41):
            for b in range(0, n + 1):
                for c in range(0, n + 1 - b):
                    base = [1] * b + [0] * c + [1] * (n - b - c)
                    cand = [0] * b + [1] * c + [1] * (n - b - c)
                    r = paired_test(base, [1] * n, cand, [1] * n)
                    lo = value(format_points(r.low, up=False))
                    hi = value(format_points(r.high, up=True))
                    if r.p_value < 0.05:
                        assert (lo > 0) if c > b else (hi < 0), (n, b, c, lo, hi)
                    else:
                        assert lo <= 0 <= hi, (n, b, c, lo, hi)
                    checked += 1
        assert checked == sum((n + 1) * (n + 2) // 2 for n in range(1, 41))
