"""The record modes, apart from the cassette machinery that applies them."""

from __future__ import annotations

__all__ = ["RECORD_MODES"]

RECORD_MODES: tuple[str, ...] = ("none", "once", "new_episodes", "all")
"""vcrpy's record modes as planeval uses them (``none`` replays and never calls out)."""
