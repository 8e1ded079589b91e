"""Shared fixtures: where the public data beside the checkout lives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.testing import FakePlannerServer

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (the public data the project is tested on).

    The data is never part of the repository: a test that reads it skips, with a one-line
    reason, when nothing sits beside the checkout (a fresh clone); CI has it and runs them.
    """
    if not SHARED_DATA.is_dir():
        pytest.skip(f"public data not found at {SHARED_DATA} (CI has it beside the checkout)")
    return SHARED_DATA


@pytest.fixture(scope="module")
def _server() -> Iterator[FakePlannerServer]:
    """One fake OpenAI/Anthropic server on 127.0.0.1 per test module."""
    with FakePlannerServer() as server:
        yield server


@pytest.fixture
def server(_server: FakePlannerServer) -> FakePlannerServer:
    """The module's fake planner server, reset (no scripted answers, faults or latency)."""
    _server.reset()
    _server.latency = 0.0
    return _server
