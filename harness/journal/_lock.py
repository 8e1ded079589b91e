"""One executor per journal: an exclusive OS lock on the journal file itself, for an
execution's life.

The lock is ``fcntl.flock(LOCK_EX | LOCK_NB)`` on the journal's own open file, so it belongs
to the file (its device and inode), not to a name: every name of the journal (a symlink, a
hard link, a relative path, a bind mount of its folder, a new name after a rename) reaches the
same lock. The kernel drops it when the holding process exits or dies (SIGKILL included), so
a stale lock never blocks a resume, and no lock file is left behind.

The execution appends through the descriptor that holds the lock (``JournalWriter(...,
locked=lock.fd)``), so its writer never waits on its own lock. Who holds a lock is read from
the kernel (``/proc/locks`` on Linux): no file of ours can say it for every name.

Taking the lock:

1. The path is resolved (symlinks followed) and the journal opened, created with ``O_EXCL``
   when missing, so this lock knows whether it made the file.
2. ``flock``; then the path must still name the file locked (same device and inode). A file
   deleted or replaced between the open and the lock is not the journal any more: try again.
3. On release, a journal this lock created and nobody wrote to is deleted again (while still
   locked), so a refused execution leaves nothing behind.
"""

from __future__ import annotations

import errno
import fcntl
import os
from datetime import UTC, datetime
from pathlib import Path

from harness._errors import JournalError
from harness.journal._writer import JournalStorageError, fsync_folder

__all__ = ["JournalInUseError", "JournalLock"]

_PATH_ERRORS = {errno.ELOOP, errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR}
"""Errors that say the path itself is unusable (CLI exit 2), not the disk (exit 4)."""
_ATTEMPTS = 64
"""Opens tried while the file keeps being deleted or replaced under us."""


class JournalInUseError(JournalError):
    """Another execution holds the journal's lock (CLI exit code 5).

    Attributes:
        holder_pid: the holder's process id, or None when the system does not say.
        holder_started: when the holder process started (ISO 8601 UTC), or None.
    """

    def __init__(self, journal: str, holder_pid: int | None, holder_started: str | None) -> None:
        self.holder_pid = holder_pid
        self.holder_started = holder_started
        who = f"pid {holder_pid}" if holder_pid is not None else "another process"
        since = f", started {holder_started}" if holder_started else ""
        super().__init__(
            f"the journal is in use by another execution ({who}{since})",
            source=journal,
            hint="wait for it to finish or stop it; a killed holder releases the lock at once",
        )


class JournalLock:
    """Hold the exclusive lock of a journal file (a context manager).

    Args:
        journal: the journal file; its folder must exist. Created (empty) when missing.
        durable: fsync the folder after creating the journal (off for simulations).

    Attributes:
        fd: the locked descriptor (``O_RDWR | O_APPEND``) while held, else -1.
        created: this lock created the journal file.

    Raises (on ``acquire`` / entering):
        JournalInUseError: another process (or another lock in this one) holds it.
        JournalError: the path cannot name a file (a symlink loop, a name too long).
        JournalStorageError: the journal cannot be opened or created (read-only folder, ...).
    """

    def __init__(self, journal: str | os.PathLike[str], *, durable: bool = True) -> None:
        self.journal = str(journal)
        self.durable = durable
        self.fd = -1
        self.created = False

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self.fd >= 0

    def acquire(self) -> None:
        """Take the lock at once or raise ``JournalInUseError`` (never waits)."""
        if self.fd >= 0:
            return
        for _ in range(_ATTEMPTS):
            opened = self._open()
            if opened is None:
                continue  # deleted between our two opens
            fd, created = opened
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _holder(fd)
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                raise JournalInUseError(self.journal, *holder) from None
            if self._still_named(fd):
                self.fd, self.created = fd, created
                return
            os.close(fd)  # deleted or replaced between the open and the lock: not the journal
        raise JournalStorageError(
            "the journal file keeps being deleted or replaced while it is being locked",
            source=self.journal,
            hint="stop whatever rewrites it, then run again",
        )

    def _open(self) -> tuple[int, bool] | None:
        """Open the journal (resolved), creating it exclusively when missing; None when it
        was deleted between the exclusive create and the plain open."""
        target = os.path.realpath(self.journal)  # a dangling symlink: create its target
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        try:
            fd = os.open(target, flags | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                return os.open(target, flags), False
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise self._open_error(exc) from None
        except OSError as exc:
            raise self._open_error(exc) from None
        if self.durable:
            try:
                fsync_folder(Path(target).parent)
            except BaseException:
                os.close(fd)
                raise
        return fd, True

    def _open_error(self, exc: OSError) -> JournalError | JournalStorageError:
        what = exc.strerror or str(exc)
        if exc.errno in _PATH_ERRORS:
            return JournalError(
                f"cannot open the journal: {what}",
                source=self.journal,
                hint="name a journal file through a path without symlink loops",
            )
        return JournalStorageError(
            f"cannot open the journal: {what}",
            source=self.journal,
            hint="check the folder's permissions and free space",
        )

    def _still_named(self, fd: int) -> bool:
        """The journal's name still leads to the file ``fd`` locked."""
        try:
            named = os.stat(self.journal)
        except OSError:
            return False
        held = os.fstat(fd)
        return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

    def release(self) -> None:
        """Release the lock (closing the file releases it); releasing twice is harmless.

        A journal this lock created and that is still empty is deleted first.
        """
        if self.fd < 0:
            return
        fd, self.fd = self.fd, -1
        try:
            if self.created and os.fstat(fd).st_size == 0 and self._still_named(fd):
                os.unlink(self.journal)
        except OSError:
            pass  # an empty journal left behind is harmless: it resumes as a new one
        finally:
            os.close(fd)

    def __enter__(self) -> JournalLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _holder(fd: int) -> tuple[int | None, str | None]:
    """The (pid, start time) of the process holding an flock on ``fd``'s file, from
    ``/proc/locks``; (None, None) where the system does not say."""
    try:
        info = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            table = locks.read(1 << 20)
    except OSError:
        return None, None
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    inode = f":{info.st_ino}"
    fallback = None
    for line in table.splitlines():
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue  # a waiter ("->"), a POSIX or OFD lock: not a holder of our flock
        pid_text, where = fields[4], fields[5]
        if not pid_text.isdigit():
            continue
        if where == device:
            return int(pid_text), _started(int(pid_text))
        if where.endswith(inode):  # an overlay or bind mount may report another device
            fallback = int(pid_text)
    return fallback, _started(fallback) if fallback is not None else None


def _started(pid: int) -> str | None:
    """When process ``pid`` started (ISO 8601 UTC, milliseconds), from ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read(4096)
        with open("/proc/stat", encoding="ascii", errors="replace") as handle:
            boot = next(int(x.split()[1]) for x in handle if x.startswith("btime "))
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22: start time in ticks
        seconds = boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
