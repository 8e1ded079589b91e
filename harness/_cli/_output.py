"""Shared output helpers for commands: one-line errors on stderr, JSON on stdout."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer

from harness._cli._exit import ExitCode
from harness._errors import InputError

__all__ = ["fail_input", "print_json", "say_error"]


def say_error(message: str) -> None:
    """Print one error line on stderr, prefixed with ``planeval: error:``."""
    sys.stderr.write(f"planeval: error: {message}\n")


def fail_input(error: InputError | str) -> NoReturn:
    """Report unusable input in one line and exit 2."""
    say_error(error.one_line() if isinstance(error, InputError) else error)
    raise typer.Exit(ExitCode.INPUT)


def print_json(data: Any) -> None:
    """Print a JSON document on stdout (UTF-8, two-space indent)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
