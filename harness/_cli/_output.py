"""Shared output helpers for commands: one-line errors on stderr, JSON on stdout."""

from __future__ import annotations

import errno
import json
import math
import sys
from typing import Any, NoReturn

import typer

from harness._cli._exit import ExitCode
from harness._errors import InputError

__all__ = ["disk_error_line", "fail_input", "print_json", "say_error"]

_DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}


def say_error(message: str) -> None:
    """Print one error line on stderr, prefixed with ``planeval: error:``."""
    sys.stderr.write(f"planeval: error: {message}\n")


def fail_input(error: InputError | str) -> NoReturn:
    """Report unusable input in one line and exit 2."""
    say_error(error.one_line() if isinstance(error, InputError) else error)
    raise typer.Exit(ExitCode.INPUT)


def print_json(data: Any) -> None:
    """Print a JSON document on stdout (UTF-8, two-space indent). A NaN or infinity, which JSON
    cannot hold, is printed as null."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(data), indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.write(text + "\n")


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def disk_error_line(exc: OSError) -> str:
    """One line for a disk error: the path, what happened, what to do (exit 4)."""
    where = exc.filename or "a file"
    what = exc.strerror or str(exc)
    if exc.errno in _DISK_FULL:
        todo = "free some space and run the command again"
    elif exc.errno in _NOT_WRITABLE:
        todo = "choose a folder you can write to (see --out)"
    else:
        todo = "check the disk and run the command again"
    return f"{where}: {what}; nothing was left half-written. {todo[0].upper()}{todo[1:]}"
