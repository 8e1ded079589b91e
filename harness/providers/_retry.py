"""Retries with exponential backoff and full jitter, honouring ``Retry-After``."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TypeVar

from harness.providers._base import ProviderError

__all__ = ["RetryPolicy", "parse_retry_after", "with_retries"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before trying a failed planner call again."""

    retries: int = 4
    """Retries after the first attempt (so ``retries + 1`` attempts at most)."""
    base_delay: float = 0.5
    """The first backoff ceiling in seconds; it doubles with each retry."""
    max_delay: float = 30.0
    """No backoff waits longer than this."""
    max_retry_after: float = 120.0
    """A server's ``Retry-After`` is honoured up to this many seconds."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    """How to wait (tests pass a recorder)."""
    rng: random.Random = field(default_factory=random.Random, compare=False)
    """Jitter source."""

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (from 1).

        ``Retry-After`` wins when the server sent one; otherwise full jitter:
        uniform in ``[0, min(max_delay, base_delay * 2 ** (attempt - 1))]``.
        """
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return self.rng.uniform(0.0, ceiling)


def with_retries(call: Callable[[], T], policy: RetryPolicy) -> T:
    """Run ``call``, retrying retryable ``ProviderError``s as the policy says.

    Raises:
        ProviderError: the last error, when it is not retryable or the retries ran out; its
            message says how many attempts were made.
    """
    attempt = 0
    while True:
        try:
            return call()
        except ProviderError as exc:
            attempt += 1
            if not exc.retryable or attempt > policy.retries:
                if attempt > 1:
                    raise ProviderError(
                        f"{exc} (after {attempt} attempts)",
                        retryable=exc.retryable,
                        retry_after=exc.retry_after,
                        status=exc.status,
                    ) from exc
                raise
            policy.sleep(policy.delay(attempt, exc.retry_after))


def parse_retry_after(headers: object) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    millis = get("retry-after-ms")
    if millis is not None:
        try:
            return float(millis) / 1000.0
        except ValueError:
            pass
    value = get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
