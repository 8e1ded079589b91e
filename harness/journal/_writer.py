"""The journal writer: whole lines, one writer at a time, fsync'd every N events.

Concurrency: a ``threading.Lock`` orders the threads that share one writer, and an exclusive
``fcntl.flock`` on the file orders every writer of the file, in this process or another. Each
append holds both while it checks the tail, writes the line with ``O_APPEND`` and (every N
events) fsyncs, so lines never interleave or tear. An ``exclusive`` writer (an execution's)
takes the file lock once when it opens and keeps it until it closes.

Chaining: every line gets a ``prev`` link, the checksum of the line before it (see
``seal``), added under the locks, where the line before is known for sure.

Crash repair: a journal whose last byte is not ``\\n`` ends in a torn line (a writer died
mid-write). Before the next event is appended, the torn bytes are saved to ``<journal>.torn``,
cut off, and a ``journal_repaired`` event records where they were, so a new event is never
glued onto garbage and nothing is lost.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
import zlib
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._errors import InfrastructureError, JournalError
from harness.journal._events import checksum_state, encode_body, link_of, seal

__all__ = [
    "JournalStorageError",
    "JournalWriter",
    "TornTailRepair",
    "fsync_folder",
    "prepare_journal_folder",
]


class JournalStorageError(InfrastructureError):
    """The journal (or its folder, or its lock file) cannot be created or written: a
    read-only or full disk, missing permissions. The CLI exits 4, whichever level failed."""

    def __init__(self, what: str, *, source: str, hint: str | None = None) -> None:
        self.what = what
        self.source = source
        self.hint = hint
        line = f"{source}: {what}" + (f". {hint[0].upper()}{hint[1:]}" if hint else "")
        super().__init__(line)

    def one_line(self) -> str:
        """The error as one line: ``source: what. hint``."""
        return str(self)


def prepare_journal_folder(path: str | os.PathLike[str], *, durable: bool = True) -> None:
    """Check a journal path names a file, and create its folder (durably) when missing.

    Raises:
        JournalError: the path is a folder (CLI exit 2).
        JournalStorageError: a folder cannot be created (CLI exit 4), whichever level failed.
    """
    path = Path(path)
    if path.is_dir():
        raise JournalError(
            "is a folder, not a journal file",
            source=str(path),
            hint=f"name a file inside it, for example {path / 'journal.jsonl'}",
        )
    parent = path.parent
    missing = []  # the folders to create, deepest first (one stat when the folder exists)
    folder = parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    try:
        for directory in reversed(missing):
            directory.mkdir(exist_ok=True)
            if durable:
                fsync_folder(directory.parent)  # make each new directory entry durable
        if not parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "a path component is a file, not a folder")
    except OSError as exc:
        raise JournalStorageError(
            f"cannot create the journal's folder {parent}: {exc.strerror or exc}",
            source=str(path),
            hint="check the folder's permissions and free space, or choose another path",
        ) from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise JournalStorageError(
            f"cannot write in the journal's folder {parent}: Permission denied",
            source=str(path),
            hint="check the folder's permissions, or choose another path",
        )


_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class TornTailRepair:
    """What the writer cut off the end of a journal before appending (see ``repairs``)."""

    line: int
    """1-based line number of the torn line."""
    offset: int
    """Byte offset where the torn line began (the new file size)."""
    length: int
    """How many bytes were cut."""
    saved_to: str
    """The sidecar file the cut bytes were appended to."""

    def to_event(self) -> dict[str, Any]:
        """The ``journal_repaired`` payload."""
        return {
            "line": self.line,
            "offset": self.offset,
            "bytes": self.length,
            "saved_to": self.saved_to,
            "reason": "torn last line (a crash mid-write) cut off before appending",
        }


class JournalWriter(AbstractContextManager["JournalWriter"]):
    """Appends events to a journal file.

    Args:
        path: the journal file; it and its parent directory are created when missing.
        fsync_every: fsync after every N events (N=1: every event); always on ``close``.
            0: never fsync, not even the folder (simulations whose process never dies).
        exclusive: hold the file lock from open to close instead of once per append, for a
            writer that is the journal's only one for its life (an execution, which holds
            the journal's lock): other writers wait until it closes, and its appends skip the
            per-line lock and tail check (three system calls fewer per event).
        locked: a descriptor of the journal that already holds its file lock (a
            ``JournalLock``'s ``fd``): the writer appends through a duplicate of it (the
            same open file, so its lock is ours) instead of opening the path again.

    Use as a context manager, or call ``close``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync_every: int = 1,
        exclusive: bool = False,
        locked: int | None = None,
    ) -> None:
        if isinstance(fsync_every, bool) or not isinstance(fsync_every, int) or fsync_every < 0:
            raise ValueError(f"fsync_every must be a non-negative integer, got {fsync_every!r}")
        self.path = Path(path)
        self.fsync_every = fsync_every
        self.exclusive = exclusive
        self.repairs: list[TornTailRepair] = []
        """Torn tails this writer cut off (normally none; one after a crash)."""
        self._lock = threading.Lock()
        self._unsynced = 0
        self._end = -1  # file size after our last line (-1: unknown, so check the tail)
        self._link = b""  # the link our last line passes on (valid while the size is _end)
        self._source = str(self.path)
        self._fd = os.dup(locked) if locked is not None else self._open()
        if exclusive:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)  # held until close: nobody appends between
            except BaseException:
                os.close(self._fd)
                raise

    def _open(self) -> int:
        durable = self.fsync_every > 0
        prepare_journal_folder(self.path, durable=durable)
        try:
            try:
                return os.open(self.path, os.O_RDWR | os.O_APPEND)
            except FileNotFoundError:
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
                if durable:
                    fsync_folder(self.path.parent)
                return fd
        except OSError as exc:
            raise JournalStorageError(
                f"cannot open the journal for appending: {exc.strerror or exc}",
                source=str(self.path),
                hint="check the folder's permissions and free space",
            ) from None

    def append(self, event: str, **payload: Any) -> None:
        """Append one event (``event``, ``at`` and the payload fields) as one line.

        Raises:
            EventNotSerializableError: the payload is not JSON; nothing is written.
            ValueError: the writer is closed.
        """
        self.append_body(encode_body(event, payload, source=self._source))

    def append_line(self, line: bytes) -> None:
        """Append one line as ``encode_event`` wrote it: the writer chains it to the line
        before it (``prev``) and checksums it again as it writes."""
        self.append_body(line[: -len(b',"crc32":"00000000"}\n')])

    def append_body(self, body: bytes) -> None:
        """Append one event as ``encode_body`` wrote it, sealed (``seal``) with the link of
        the line before it, which the writer knows for sure under its locks."""
        with self._lock:
            if self._fd < 0:
                raise ValueError("the journal writer is closed")
            if self.exclusive:
                # The file lock is ours from open to close, so after the first append (which
                # checks the tail) the file ends where our last line ended: no lock or size
                # check per line.
                if self._end >= 0:
                    self._write_line(seal(body, self._link), self._end)
                else:
                    size = self._repair_torn_tail()
                    self._link = _last_link(self._fd, size)
                    self._write_line(seal(body, self._link), size)
                return
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                size = self._repair_torn_tail()
                if size != self._end:  # another writer appended since our last line
                    self._link = _last_link(self._fd, size)
                self._write_line(seal(body, self._link), size)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _write_line(self, line: bytes, size: int) -> None:
        """Write a sealed line at the end (``size``), note its link, fsync every N lines."""
        _write_all(self._fd, line)
        self._link = line[-11:-3]
        self._end = size + len(line)
        self._unsynced += 1
        if self._unsynced >= self.fsync_every and self.fsync_every:
            os.fsync(self._fd)
            self._unsynced = 0

    def sync(self) -> None:
        """fsync now (events appended since the last fsync reach the disk)."""
        with self._lock:
            if self._fd >= 0 and self._unsynced and self.fsync_every:
                os.fsync(self._fd)
                self._unsynced = 0

    def close(self) -> None:
        """fsync and close; closing twice is harmless."""
        with self._lock:
            if self._fd < 0:
                return
            try:
                if self._unsynced and self.fsync_every:
                    os.fsync(self._fd)
            finally:
                os.close(self._fd)
                self._fd = -1

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _repair_torn_tail(self) -> int:
        """Cut a torn last line off (caller holds the locks); record it first.

        Returns the file size afterwards, where the next line will start.
        """
        size = os.fstat(self._fd).st_size
        if size == self._end or size == 0 or os.pread(self._fd, 1, size - 1) == b"\n":
            return size  # (size == _end: nobody wrote since our own whole line)
        start = _last_line_start(self._fd, size)
        torn = _pread_all(self._fd, size - start, start)
        if _is_whole_event(torn):
            _write_all(self._fd, b"\n")  # only the newline was lost: complete the line
            return size + 1
        sidecar = self.path.with_name(self.path.name + ".torn")
        with open(sidecar, "ab") as keep:
            keep.write(torn + b"\n")
            keep.flush()
            os.fsync(keep.fileno())
        line_no = _count_newlines(self._fd, start) + 1
        repair = TornTailRepair(line=line_no, offset=start, length=len(torn), saved_to=str(sidecar))
        os.ftruncate(self._fd, start)
        os.fsync(self._fd)
        note = seal(encode_body("journal_repaired", repair.to_event()), _last_link(self._fd, start))
        _write_all(self._fd, note)
        self.repairs.append(repair)
        return start + len(note)


def _is_whole_event(data: bytes) -> bool:
    try:
        text = data.decode()
        if checksum_state(text) == "bad":
            return False
        entry = json.loads(text)
    except ValueError:
        return False
    return isinstance(entry, dict) and isinstance(entry.get("event"), str)


def _last_link(fd: int, size: int) -> bytes:
    """The link the journal's last whole line (ending at ``size``) passes to the next one.

    Reads the last 21 bytes when that line is checksummed; a line written before checksums
    (version 1, the gem's) is read whole, in chunks, for its CRC-32.
    """
    if size == 0:
        return link_of(None).encode()
    if size >= 21:
        tail = os.pread(fd, 21, size - 21)
        link = tail[-11:-3]
        if tail[:10] == b',"crc32":"' and tail[-3:] == b'"}\n' and link.isalnum():
            return link  # (not hex digits: a damaged line, linked by its bytes as below)
    start = _last_line_start(fd, size - 1)
    crc = 0
    offset = start
    while offset < size - 1:
        chunk = os.pread(fd, min(1 << 20, size - 1 - offset), offset)
        if not chunk:
            break
        crc = zlib.crc32(chunk, crc)
        offset += len(chunk)
    return b"%08x" % crc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _pread_all(fd: int, length: int, offset: int) -> bytes:
    parts = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 20), offset)
        if not chunk:
            break
        parts.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(parts)


def _last_line_start(fd: int, size: int) -> int:
    """Offset just past the last ``\\n`` before ``size`` (0 when there is none)."""
    end = size
    while end > 0:
        begin = max(0, end - _CHUNK)
        chunk = os.pread(fd, end - begin, begin)
        found = chunk.rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def _count_newlines(fd: int, end: int) -> int:
    count = 0
    offset = 0
    while offset < end:
        chunk = os.pread(fd, min(1 << 20, end - offset), offset)
        if not chunk:
            break
        count += chunk.count(b"\n")
        offset += len(chunk)
    return count


def fsync_folder(directory: Path) -> None:
    """fsync a folder, so that an entry just created in it survives a crash."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
