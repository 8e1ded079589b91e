"""Token buckets for live calls: requests and tokens per minute, per provider.

Each bucket is a GCRA (the generic cell rate algorithm, the token bucket written as one
"theoretical arrival time"): a call of weight ``w`` may start once the bucket has room for it,
and moves the arrival time on by ``w / rate``. ``burst`` is how much may go at once after a
quiet spell; the default (one request, or one second of tokens) paces calls evenly, so a sweep
runs at the provider's limit without a storm of 429s. Token weights are estimates when the call
starts and are corrected by the usage the provider reports.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["ProviderLimits", "TokenBucket", "limits_from_suite"]


@dataclass(slots=True)
class TokenBucket:
    """A thread-safe token bucket refilled at ``rate`` per second, holding up to ``burst``."""

    rate: float
    """Units per second."""
    burst: float = 1.0
    """Units that may go at once after a quiet spell (at least one call's worth)."""
    clock: Callable[[], float] = time.monotonic
    """Seconds (tests pass a fake clock)."""
    sleep: Callable[[float], None] = time.sleep
    """How to wait."""
    _tat: float = field(default=0.0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def take(self, weight: float = 1.0) -> float:
        """Wait until ``weight`` units may go, take them, and return the seconds waited.

        A weight above ``burst`` goes when the bucket is full and leaves it in debt, so a
        single big call is never refused.
        """
        with self._lock:
            now = self.clock()
            tolerance = max(self.burst - weight, 0.0) / self.rate
            start = max(now, self._tat - tolerance)
            self._tat = max(self._tat, now) + weight / self.rate
        wait = start - now
        if wait > 0:
            self.sleep(wait)
        return max(wait, 0.0)

    def adjust(self, delta: float) -> None:
        """Correct an earlier ``take`` by ``delta`` units (the real weight minus the estimate)."""
        with self._lock:
            self._tat += delta / self.rate


@dataclass(slots=True)
class ProviderLimits:
    """The buckets of one provider: requests per minute and tokens per minute."""

    requests: TokenBucket | None = None
    """One unit per request."""
    tokens: TokenBucket | None = None
    """One unit per token (input plus expected output)."""

    def before_request(self, estimated_tokens: int) -> float:
        """Wait for room for one request of ``estimated_tokens``; return the seconds waited."""
        waited = 0.0
        if self.tokens is not None:
            waited += self.tokens.take(float(max(estimated_tokens, 1)))
        if self.requests is not None:
            waited += self.requests.take(1.0)
        return waited

    def correct_tokens(self, estimated: int, actual: int) -> None:
        """Tell the token bucket how many tokens the call really used."""
        if self.tokens is not None and actual != estimated:
            self.tokens.adjust(float(actual - estimated))


def limits_from_suite(rate_limits: Mapping[str, Mapping[str, float]]) -> dict[str, ProviderLimits]:
    """``{provider: ProviderLimits}`` from a suite's ``rate_limits`` mapping."""
    out: dict[str, ProviderLimits] = {}
    for provider, spec in rate_limits.items():
        rpm = spec.get("requests_per_minute")
        tpm = spec.get("tokens_per_minute")
        out[provider] = ProviderLimits(
            requests=TokenBucket(rate=rpm / 60.0, burst=1.0) if rpm else None,
            tokens=TokenBucket(rate=tpm / 60.0, burst=max(tpm / 60.0, 1.0)) if tpm else None,
        )
    return out
