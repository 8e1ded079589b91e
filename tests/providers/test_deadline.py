"""A call's timeout is a total deadline (connect and every read together): a server that
trickles its body a byte at a time cannot hold a call past it."""

from __future__ import annotations

import time
from pathlib import Path

from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}


def _suite(root: Path, server: FakePlannerServer, provider: str) -> Path:
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    model = {"id": "m", "provider": provider, "model": "x", "base_url": base, "timeout": 1,
             "retries": 0}  # fmt: skip
    return make_project(root, models=[model], cases=[{"id": "c", "goal": "Refund an order"}])


def test_a_trickling_body_ends_at_the_deadline(tmp_path: Path) -> None:
    """A 1 s timeout against a body trickled over 20 s ends in about 1 s, as a timeout."""
    with FakePlannerServer() as server:
        for provider in ("openai", "anthropic"):
            suite = load_suite(_suite(tmp_path / provider, server, provider))
            run_suite(suite, record_mode="all", env=KEY)  # the SDK imported, a client warm
            server.fail("trickle", delay=20.0)
            started = time.monotonic()
            run = run_suite(suite, record_mode="all", env=KEY)
            took = time.monotonic() - started
            (row,) = run.rows
            assert row.status == "error" and "timed out after 1s" in (row.detail or ""), row
            assert took < 2.5, f"{provider}: the call held its slot {took:.1f} s"


def test_a_slow_but_steady_answer_within_the_deadline_passes(tmp_path: Path) -> None:
    """The deadline bounds the call, not each read: an answer trickled within it is kept."""
    with FakePlannerServer() as server:
        server.fail("trickle", delay=0.5)  # 0.5 s of trickling, then the rest at once
        run = run_suite(load_suite(_suite(tmp_path, server, "openai")), record_mode="all", env=KEY)
        assert [r.status for r in run.rows] == ["pass"]
