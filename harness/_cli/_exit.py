"""Exit codes of the CLI (the contract in docs/cli.md)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """Process exit codes shared by every command."""

    OK = 0
    """Everything passed."""
    FAILED = 1
    """A check, case, gate rule or task failed."""
    INPUT = 2
    """Unusable input or a wrong command line."""
    STALE = 3
    """Missing or stale recordings, or an incomplete run (gate and baseline refuse it)."""
    INFRA = 4
    """Infrastructure errors (network, provider) over tolerance."""
    IN_USE = 5
    """The journal is in use by another execution (``execute``)."""
    INTERRUPTED = 130
    """Stopped by Ctrl+C or SIGTERM."""
