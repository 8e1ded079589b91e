"""Options several commands share, defined once so they read the same everywhere.

Help conventions (held by ``tests/cli/test_help.py`` over every command): a flag shows no
value; an option that takes one names it (``FILE``, ``N``, ``text|json``); a short option
means the same long option in every command (docs/cli.md lists them); sizes are set in bytes
and stated in MiB (``harness._size``).
"""

from __future__ import annotations

from typing import Any

import typer

__all__ = ["max_bytes_option"]


def max_bytes_option(files: str, default: str) -> Any:
    """``--max-bytes BYTES``: the size limit of the ``files`` a command reads.

    Args:
        files: what the limit applies to, for the help (``plan files and the registry``).
        default: the default limits in MiB, for the help (``plans 32 MiB, registry 8 MiB``).
    """
    return typer.Option(
        None,
        "--max-bytes",
        min=1,
        metavar="BYTES",
        show_default=False,
        help=f"Refuse {files} larger than BYTES (default {default}).",
    )
