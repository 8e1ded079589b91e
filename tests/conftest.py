"""Shared fixtures: where the public data beside the checkout lives."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (the public data the project is tested on)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(
            f"public test data not found at {SHARED_DATA}: the checkout must sit beside shared/",
            pytrace=False,
        )
    return SHARED_DATA
