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
