"""Token-bucket rate limits per provider, against a fake server that enforces its own."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.providers import RetryPolicy
from harness.run import TokenBucket, run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-test"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class TestTokenBucket:
    def test_paces_requests_evenly(self) -> None:
        """Ten requests at 5/s with no burst start 0.2 s apart."""
        clock = FakeClock()
        bucket = TokenBucket(rate=5.0, burst=1.0, clock=clock, sleep=clock.sleep)
        starts = []
        for _ in range(10):
            bucket.take()
            starts.append(clock.now)
        gaps = [b - a for a, b in itertools.pairwise(starts)]
        assert gaps == pytest.approx([0.2] * 9)

    def test_burst_then_rate(self) -> None:
        """A burst of 3 goes at once after a quiet spell; the 4th waits 1/rate."""
        clock = FakeClock()
        bucket = TokenBucket(rate=2.0, burst=3.0, clock=clock, sleep=clock.sleep)
        waits = [bucket.take() for _ in range(4)]
        assert waits[:3] == [0.0, 0.0, 0.0] and waits[3] == pytest.approx(0.5)

    def test_big_weight_goes_and_leaves_debt(self) -> None:
        """A call heavier than the bucket is not refused; the next one pays for it."""
        clock = FakeClock()
        bucket = TokenBucket(rate=100.0, burst=100.0, clock=clock, sleep=clock.sleep)
        assert bucket.take(300) == 0.0
        assert bucket.take(100) == pytest.approx(3.0)  # 2 s to repay the debt, 1 s to refill

    def test_adjust_corrects_an_estimate(self) -> None:
        """Reporting fewer tokens than estimated gives the room back."""
        clock = FakeClock()
        bucket = TokenBucket(rate=10.0, burst=10.0, clock=clock, sleep=clock.sleep)
        bucket.take(10)
        bucket.adjust(-10)
        assert bucket.take(10) == 0.0


def _suite(tmp_path: Path, server: FakePlannerServer, cases: int, rpm: float | None) -> Path:
    extra = {"rate_limits": {"openai": {"requests_per_minute": rpm}}} if rpm else None
    return make_project(
        tmp_path,
        models=[
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-fake",
                "base_url": server.openai_base_url,
            }
        ],
        cases=[{"id": f"c{i:03d}", "goal": f"Refund order {i}"} for i in range(cases)],
        extra=extra,
    )


class TestAgainstTheServer:
    RATE = 20.0  # requests per second the server allows
    CASES = 60

    def test_matching_limit_no_429_and_full_throughput(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """Limits equal to the server's: not one 429, and throughput within 10% of the limit."""
        server.limit_rate(self.RATE)
        suite = load_suite(_suite(tmp_path, server, self.CASES, self.RATE * 60))
        run = run_suite(suite, record_mode="all", env=KEY, concurrency=8)
        assert server.rejected == 0
        assert all(r.status == "pass" for r in run.rows)
        # steady state: the first calls also wait for each worker's SDK client to be built
        times = [r.received_at for r in server.requests][8:]
        rate = (len(times) - 1) / (times[-1] - times[0])
        assert abs(rate - self.RATE) / self.RATE <= 0.10, rate

    def test_without_the_limit_the_server_pushes_back(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """The same sweep without client limits meets 429s (the storm the limits prevent)."""
        server.limit_rate(self.RATE)
        suite = load_suite(_suite(tmp_path, server, self.CASES, None))
        policy = RetryPolicy(retries=2, base_delay=0.01, sleep=lambda _: None)
        run_suite(suite, record_mode="all", env=KEY, concurrency=8, retry=policy)
        assert server.rejected > 0

    def test_tokens_per_minute(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """A tokens-per-minute limit holds the token throughput near it."""
        probe = load_suite(_suite(tmp_path / "probe", server, 1, None))  # goal "Refund order 0"
        first = run_suite(probe, record_mode="all", env=KEY).rows[0].tokens or {}
        per_call = first["input"] + first["output"]
        server.reset()
        calls_per_second = 10.0
        path = make_project(
            tmp_path / "tpm",
            models=[
                {
                    "id": "gpt",
                    "provider": "openai",
                    "model": "gpt-fake",
                    "base_url": server.openai_base_url,
                }
            ],
            cases=[{"id": f"c{i:03d}", "goal": f"Refund order {i:03d}"} for i in range(40)],
            extra={
                "rate_limits": {"openai": {"tokens_per_minute": per_call * calls_per_second * 60}}
            },
        )
        run_suite(load_suite(path), record_mode="all", env=KEY, concurrency=8)
        times = [r.received_at for r in server.requests]
        # the first second's worth goes at once (the bucket starts full) and early estimates
        # are corrected as answers arrive; then the rate holds
        steady = times[20:]
        rate = (len(steady) - 1) / (steady[-1] - steady[0])
        assert rate <= calls_per_second * 1.15, rate
