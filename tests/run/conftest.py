"""A fake planner server for the module, reset between tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.testing import FakePlannerServer


@pytest.fixture(scope="module")
def _server() -> Iterator[FakePlannerServer]:
    with FakePlannerServer() as server:
        yield server


@pytest.fixture
def server(_server: FakePlannerServer) -> FakePlannerServer:
    _server.reset()
    _server.latency = 0.0
    return _server
