"""Size limits in one unit: set in bytes (``--max-bytes N``), stated in binary units (MiB).

Every reader that refuses a file over a size limit words it the same way, through
``over_limit``: ``the file is 20.3 MiB, over the 8 MiB limit``, with ``RAISE_HINT`` as the way
out. The limits themselves live with their readers (``harness.plan.MAX_PLAN_BYTES``,
``harness._yaml.MAX_YAML_BYTES``); each command that can hit one takes ``--max-bytes``.

Every such file is read through ``read_at_most``, which never reads more than the limit and
one byte, whatever the file is: the size a file system reports is no bound (it is 0 for
``/dev/zero``, ``/dev/urandom`` and a pipe), and a pipe nobody writes to must not hang.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from typing import BinaryIO

__all__ = [
    "KIB",
    "MIB",
    "RAISE_HINT",
    "format_size",
    "open_for_reading",
    "over_limit",
    "read_at_most",
    "skip_rest_of_line",
]

KIB = 1 << 10
MIB = 1 << 20

RAISE_HINT = "raise the limit with --max-bytes if the file really is that large"
"""What to do about a file over a limit (every command that reads such files has the option)."""


def format_size(size: int) -> str:
    """``size`` bytes in the largest binary unit it reaches: ``8 MiB``, ``20.3 MiB``,
    ``1.5 KiB``, ``512 bytes`` (one decimal, none when it is zero)."""
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if size >= unit:
            text = f"{size / unit:.1f}".removesuffix(".0")
            return f"{text} {name}"
    return f"{size} bytes"


def over_limit(size: int | None, limit: int, *, what: str = "file") -> str:
    """``the file is 20.3 MiB, over the 8 MiB limit`` (``size`` None: not known, a pipe)."""
    if size is None or size <= limit:  # a pipe, a device, or a size the file system understates
        return f"the {what} is over the {format_size(limit)} limit"
    return f"the {what} is {format_size(size)}, over the {format_size(limit)} limit"


_CHUNK = 1 << 20


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first ``limit + 1`` bytes of a file at most: more than ``limit`` means too large.

    Any file type is bounded: a device such as ``/dev/zero`` yields ``limit + 1`` bytes, a
    named pipe is opened without waiting for a writer (one that never comes reads as empty).

    Raises:
        OSError: as ``open`` would (``IsADirectoryError`` for a folder, whose open succeeds).
    """
    fd = _open_fd(path)
    try:
        parts: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, _CHUNK))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def open_for_reading(path: str | os.PathLike[str]) -> BinaryIO:
    """The file opened for binary reading as ``read_at_most`` opens it: a named pipe without
    waiting for a writer (one that never comes reads as empty), a folder refused. For readers
    that stream a file a bounded line at a time (JSON Lines plans, a suite's cases file).

    Raises:
        OSError: as ``open`` would (``IsADirectoryError`` for a folder).
    """
    return os.fdopen(_open_fd(path), "rb")


def _open_fd(path: str | os.PathLike[str]) -> int:
    """A blocking read descriptor, opened without blocking on a pipe nobody writes to."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def skip_rest_of_line(fh: BinaryIO) -> int:
    """Read past the rest of the current line in bounded chunks (a line over a reader's limit
    is never held whole); the bytes skipped."""
    skipped = 0
    while True:
        chunk = fh.readline(_CHUNK)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped
