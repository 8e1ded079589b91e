"""Retry policy: exponential backoff with full jitter, Retry-After honoured."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from harness.providers import ProviderError, RetryPolicy, parse_retry_after, with_retries


def _policy(sleeps: list[float], retries: int = 3) -> RetryPolicy:
    return RetryPolicy(
        retries=retries, base_delay=1.0, max_delay=4.0, sleep=sleeps.append, rng=random.Random(7)
    )


class TestDelay:
    def test_retry_after_wins(self) -> None:
        """A server's Retry-After is used as it is (no jitter)."""
        assert _policy([]).delay(1, 3.0) == 3.0

    def test_retry_after_is_capped(self) -> None:
        """An absurd Retry-After is capped by max_retry_after."""
        assert _policy([]).delay(1, 10_000.0) == 120.0

    def test_backoff_doubles_within_the_cap(self) -> None:
        """Full jitter: each delay lies in [0, min(max_delay, base * 2**(n-1))]."""
        policy = _policy([])
        for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
            delays = [policy.delay(attempt, None) for _ in range(50)]
            assert all(0.0 <= d <= ceiling for d in delays)
            assert max(delays) > ceiling / 2  # jitter spreads over the range


class TestWithRetries:
    def test_retries_then_succeeds(self) -> None:
        """Retryable errors are retried; the sleeps follow the policy."""
        sleeps: list[float] = []
        outcomes = [
            ProviderError("429", retryable=True, retry_after=2.0),
            ProviderError("500", retryable=True),
            "ok",
        ]

        def call() -> str:
            item = outcomes.pop(0)
            if isinstance(item, Exception):
                raise item
            return item

        assert with_retries(call, _policy(sleeps)) == "ok"
        assert sleeps[0] == 2.0 and 0.0 <= sleeps[1] <= 2.0 and len(sleeps) == 2

    def test_not_retryable_fails_at_once(self) -> None:
        """A 400 is not retried."""
        sleeps: list[float] = []

        def call() -> None:
            raise ProviderError("HTTP 400", retryable=False, status=400)

        with pytest.raises(ProviderError, match="HTTP 400") as info:
            with_retries(call, _policy(sleeps))
        assert sleeps == [] and info.value.status == 400

    def test_gives_up_and_says_how_often_it_tried(self) -> None:
        """After the last retry the error names the number of attempts."""
        sleeps: list[float] = []

        def call() -> None:
            raise ProviderError("HTTP 503", retryable=True, status=503)

        with pytest.raises(ProviderError, match=r"HTTP 503 \(after 3 attempts\)"):
            with_retries(call, _policy(sleeps, retries=2))
        assert len(sleeps) == 2


class TestParseRetryAfter:
    @pytest.mark.parametrize(
        ("headers", "seconds"),
        [
            ({"retry-after": "3"}, 3.0),
            ({"retry-after": "1.5"}, 1.5),
            ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # ms wins (OpenAI)
            ({}, None),
            ({"retry-after": "soon"}, None),
        ],
    )
    def test_values(self, headers: dict[str, str], seconds: float | None) -> None:
        """Seconds, milliseconds, or nothing usable."""
        assert parse_retry_after(headers) == seconds

    def test_http_date(self) -> None:
        """An HTTP date becomes the seconds until then."""
        when = datetime.now(UTC) + timedelta(seconds=30)
        seconds = parse_retry_after({"retry-after": format_datetime(when, usegmt=True)})
        assert seconds is not None and 25 <= seconds <= 31
