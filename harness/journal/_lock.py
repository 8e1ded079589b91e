"""One executor per journal: an exclusive OS lock on ``<journal>.lock`` for an execution's life.

The lock is ``fcntl.flock(LOCK_EX | LOCK_NB)`` on a small file beside the journal. The kernel
drops it when the holding process exits or dies (SIGKILL included), so a stale lock never
blocks a resume: the file may stay behind, but nobody holds its lock. The holder writes its
pid and start time into the file so that a second executor can say who holds it.

The lock file is never deleted: deleting it would let two processes hold locks on two
different files of the same name. For the same reason, after locking we check that the path
still names the file we locked.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path

from harness._errors import JournalError
from harness.journal._events import now_iso
from harness.journal._writer import JournalStorageError

__all__ = ["JournalInUseError", "JournalLock", "lock_path"]

LOCK_SUFFIX = ".lock"


class JournalInUseError(JournalError):
    """Another execution holds the journal's lock (CLI exit code 5).

    Attributes:
        holder_pid: the holder's process id, or None when it had not written it yet.
        holder_started: when the holder took the lock (ISO 8601 UTC), or None.
    """

    def __init__(self, journal: str, holder_pid: int | None, holder_started: str | None) -> None:
        self.holder_pid = holder_pid
        self.holder_started = holder_started
        who = f"pid {holder_pid}" if holder_pid is not None else "a process that just started"
        since = f", started {holder_started}" if holder_started else ""
        super().__init__(
            f"the journal is in use by another execution ({who}{since})",
            source=journal,
            hint="wait for it to finish or stop it; a killed holder releases the lock at once",
        )


def lock_path(journal: str | os.PathLike[str]) -> Path:
    """The lock file beside a journal: ``<journal>.lock``."""
    path = Path(journal)
    return path.with_name(path.name + LOCK_SUFFIX)


class JournalLock:
    """Hold the exclusive lock of a journal (a context manager).

    Args:
        journal: the journal file; its folder must exist.

    Raises (on ``acquire`` / entering):
        JournalInUseError: another process (or another lock in this one) holds it.
        JournalStorageError: the lock file cannot be created (read-only folder, ...).
    """

    def __init__(self, journal: str | os.PathLike[str]) -> None:
        self.journal = str(journal)
        self.path = lock_path(journal)
        self._fd = -1

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd >= 0

    def acquire(self) -> None:
        """Take the lock at once or raise ``JournalInUseError`` (never waits)."""
        if self._fd >= 0:
            return
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise JournalStorageError(
                    f"cannot create the journal's lock file {self.path.name}: "
                    f"{exc.strerror or exc}",
                    source=self.journal,
                    hint="check the folder's permissions and free space",
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_holder(fd)
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                raise JournalInUseError(self.journal, *holder) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the file was replaced between open and lock: lock the new one
        record = json.dumps({"pid": os.getpid(), "started": now_iso()}).encode() + b"\n"
        os.ftruncate(fd, 0)
        os.pwrite(fd, record, 0)
        self._fd = fd

    def release(self) -> None:
        """Release the lock (closing the file releases it); releasing twice is harmless."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)

    def __enter__(self) -> JournalLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _read_holder(fd: int) -> tuple[int | None, str | None]:
    """The holder's (pid, start time) from the lock file; (None, None) if not written yet."""
    try:
        raw = os.pread(fd, 256, 0)
        record = json.loads(raw.decode())
    except (OSError, ValueError):
        return None, None
    if not isinstance(record, dict):
        return None, None
    pid, started = record.get("pid"), record.get("started")
    return (
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        started if isinstance(started, str) else None,
    )
