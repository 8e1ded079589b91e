"""Atomic file writes: a reader sees the old file or the whole new one, never half of one.

Every file planeval writes for others to read (recordings, reports, baselines) goes through
here: written to a temp file in the same folder, flushed and fsync'd, given the usual
permissions (mkstemp would leave it 0600), then renamed over the target. On any error,
Ctrl+C included, the temp file is removed and the target is untouched.

Every file written here is also a sink of the redaction layer (``harness._redaction``): no
credential the process knows reaches the disk through it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness._redaction import known_secrets, scrub, scrub_bytes

__all__ = ["atomic_path", "atomic_write_text"]


@contextmanager
def atomic_path(path: Path, *, scrubbed: bool = False) -> Iterator[Path]:
    """Yield a temp path beside ``path``; when the block succeeds it replaces ``path``.

    What the block wrote is scrubbed of known credentials before the rename (``scrubbed``:
    the caller already did).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(exc, path) from None
    os.close(fd)
    tmp = Path(name)
    try:
        mask = os.umask(0)
        os.umask(mask)
        tmp.chmod(0o666 & ~mask)
        yield tmp
        if not scrubbed and known_secrets():
            _scrub_file(tmp)
        with tmp.open("rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _naming(exc, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _naming(exc: OSError, path: Path) -> OSError:
    """The same error, naming the file being written (not its temp file)."""
    if exc.filename is not None and Path(exc.filename) in (path, path.parent):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def _scrub_file(path: Path) -> None:
    data = path.read_bytes()
    clean = scrub_bytes(data)
    if clean != data:
        path.write_bytes(clean)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends, known credentials scrubbed) atomically."""
    with atomic_path(path, scrubbed=True) as tmp:
        tmp.write_text(scrub(text), encoding="utf-8", newline="\n")
