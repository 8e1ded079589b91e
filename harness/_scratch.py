"""A scratch file in the temporary folder (``$TMPDIR``), or one clear error.

Python's ``tempfile`` quietly falls back to ``/tmp`` (then the current folder) when ``$TMPDIR``
is not a usable folder, which hides a typo in a cluster's scratch path until ``/tmp`` fills; and
when no folder is usable it raises with a traceback. ``scratch_file`` refuses a ``$TMPDIR`` that
is not a writable folder, and turns any failure to make the file into an ``InputError`` (one
line, exit 2) that says which folder and what to do.
"""

from __future__ import annotations

import os
import tempfile
from typing import IO

from harness._errors import InputError

__all__ = ["scratch_file"]

_HINT = "set TMPDIR to a writable folder, or unset it to use the system's temporary folder"


def scratch_file(purpose: str) -> IO[str]:
    """An anonymous text file for ``purpose`` (``"the tool names of each item"``), deleted on
    close.

    Raises:
        InputError: ``$TMPDIR`` is set but not a writable folder, or the file cannot be made.
    """
    folder = os.environ.get("TMPDIR")
    if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)):
        if not os.path.exists(folder):
            what = "does not exist"
        else:
            what = "is not a folder" if not os.path.isdir(folder) else "is not writable"
        raise InputError(
            f"TMPDIR {what}: it holds a temporary file of {purpose}",
            source=folder,
            hint=_HINT,
        )
    try:
        return tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise InputError(
            f"cannot make a temporary file of {purpose} ({exc.strerror or type(exc).__name__})",
            source=folder or "the temporary folder",
            hint=_HINT,
        ) from None
