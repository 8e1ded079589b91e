"""The three kinds of model the cost tests run side by side (handwritten suite entries).

``gpt`` (OpenAI wire format) is the one a test's price file prices, ``claude`` (Anthropic wire
format) has no price, and ``script`` is a command planner, which reports no usage at all.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from harness.testing import FakePlannerServer

PLANNER = Path(__file__).parents[1] / "run" / "data" / "planner.py"
"""The command planner of tests/run (a handwritten script)."""

TWO_CASES = [{"id": "c1", "goal": "Refund an order"}, {"id": "c2", "goal": "Return a parcel"}]


def priced_unpriced_and_command(server: FakePlannerServer) -> list[dict[str, Any]]:
    """Suite model entries: ``gpt`` and ``claude`` on the fake server, ``script`` a command."""
    return [
        {
            "id": "gpt",
            "provider": "openai",
            "model": "gpt-fake",
            "base_url": server.openai_base_url,
        },
        {
            "id": "claude",
            "provider": "anthropic",
            "model": "claude-fake",
            "base_url": server.anthropic_base_url,
        },
        {"id": "script", "provider": "command", "command": f"{sys.executable} {PLANNER}"},
    ]
