"""Fixtures for executor tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A journal path in a directory that does not exist yet."""
    return tmp_path / "run" / "journal.jsonl"
