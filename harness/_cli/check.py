"""``planeval check PLAN...``: structural checks on plan files."""

from __future__ import annotations


def check_command() -> None:
    """Run structural checks on plan files."""
