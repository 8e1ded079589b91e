"""The journal lock within one process: who holds it, what the refusal says, what the lock
file holds, and a lock file replaced while it is being taken. (Two processes and a SIGKILLed
holder: tests/execute/test_execute_lock.py.)"""

from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.journal import JournalInUseError, JournalLock, JournalStorageError, lock_path
from harness.journal import _lock as lock_module


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "run.jsonl"


@pytest.fixture
def foreign_holder(journal: Path) -> Iterator[int]:
    """An flock on the lock file taken without JournalLock (as another program would)."""
    fd = os.open(lock_path(journal), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        yield fd
    finally:
        os.close(fd)


def _refusal(journal: Path) -> JournalInUseError:
    with pytest.raises(JournalInUseError) as caught:
        JournalLock(journal).acquire()
    return caught.value


def test_the_lock_file_sits_beside_the_journal(journal: Path) -> None:
    assert lock_path(journal) == journal.with_name("run.jsonl.lock")
    assert lock_path(str(journal)) == lock_path(journal)


def test_the_holder_writes_its_pid_and_start_and_clears_them_on_release(journal: Path) -> None:
    lock = JournalLock(journal)
    assert not lock.held
    with lock as entered:
        assert entered is lock and lock.held
        record = json.loads(lock_path(journal).read_text())
        assert record["pid"] == os.getpid()
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["started"])
        assert lock_path(journal).read_bytes().endswith(b"}\n")
    assert not lock.held
    assert lock_path(journal).exists() and lock_path(journal).read_bytes() == b""
    lock.release()  # twice is harmless
    assert not lock.held


def test_a_longer_old_record_is_replaced_not_overwritten_in_part(journal: Path) -> None:
    lock_path(journal).write_text(json.dumps({"pid": 1, "started": "x" * 300}) + "\n")
    with JournalLock(journal):
        assert json.loads(lock_path(journal).read_text())["pid"] == os.getpid()


def test_acquiring_twice_keeps_the_one_lock(journal: Path) -> None:
    lock = JournalLock(journal)
    lock.acquire()
    lock.acquire()
    assert lock.held
    lock.release()
    assert not lock.held
    with JournalLock(journal):  # nothing left held
        pass


def test_a_second_lock_is_refused_with_the_holders_pid_and_start(journal: Path) -> None:
    with JournalLock(journal):
        started = json.loads(lock_path(journal).read_text())["started"]
        error = _refusal(journal)
    assert error.holder_pid == os.getpid() and error.holder_started == started
    assert error.what == (
        f"the journal is in use by another execution (pid {os.getpid()}, started {started})"
    )
    assert error.source == str(journal)
    assert error.hint == (
        "wait for it to finish or stop it; a killed holder releases the lock at once"
    )
    with JournalLock(journal):  # released: free again
        pass


@pytest.mark.parametrize(
    ("record", "pid", "started", "who"),
    [
        (b"", None, None, "(a process that just started)"),
        (b'{"pid": 42}', 42, None, "(pid 42)"),
        (b'{"pid": 0, "started": ""}', 0, "", "(pid 0)"),
        (b'{"pid": true, "started": "2026-01-01"}', None, "2026-01-01",
         "(a process that just started, started 2026-01-01)"),
        (b'{"pid": "42", "started": 5}', None, None, "(a process that just started)"),
        (b"[42]", None, None, "(a process that just started)"),
        (b'{"pid": 4', None, None, "(a process that just started)"),
        (b"\xff\xfe", None, None, "(a process that just started)"),
    ],
)  # fmt: skip
def test_the_refusal_says_what_the_lock_file_says(
    journal: Path,
    foreign_holder: int,
    record: bytes,
    pid: int | None,
    started: str | None,
    who: str,
) -> None:
    os.pwrite(foreign_holder, record, 0)
    error = _refusal(journal)
    assert (error.holder_pid, error.holder_started) == (pid, started)
    assert error.what == f"the journal is in use by another execution {who}"


def test_a_holder_record_is_read_up_to_256_bytes(journal: Path, foreign_holder: int) -> None:
    def record(size: int) -> bytes:
        head = b'{"pid": 7, "started": "'
        return head + b"s" * (size - len(head) - 2) + b'"}'

    os.pwrite(foreign_holder, record(256), 0)
    assert _refusal(journal).holder_pid == 7
    os.ftruncate(foreign_holder, 0)
    os.pwrite(foreign_holder, record(257), 0)
    assert _refusal(journal).holder_pid is None


def test_a_refused_lock_leaves_nothing_open(journal: Path, foreign_holder: int) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        _refusal(journal)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_missing_folder_is_a_storage_error(tmp_path: Path) -> None:
    with pytest.raises(JournalStorageError) as caught:
        JournalLock(tmp_path / "absent" / "j.jsonl").acquire()
    error = caught.value
    assert error.what == (
        "cannot create the journal's lock file j.jsonl.lock: No such file or directory"
    )
    assert error.source == str(tmp_path / "absent" / "j.jsonl")
    assert error.hint == "check the folder's permissions and free space"


def test_a_lock_file_replaced_while_locking_is_not_the_one_held(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone deletes and recreates the lock file between our open and our flock: we must
    lock the new file, or a second executor could lock it too."""
    real_flock = fcntl.flock
    calls = []

    def flock_then_replace(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        calls.append(fd)
        if len(calls) == 1:
            path = lock_path(journal)
            path.unlink()
            path.write_bytes(b"")

    monkeypatch.setattr(lock_module.fcntl, "flock", flock_then_replace)
    with JournalLock(journal):
        monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
        assert len(calls) == 2
        assert json.loads(lock_path(journal).read_text())["pid"] == os.getpid()
        _refusal(journal)


def test_a_lock_file_deleted_while_locking_is_created_again(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_flock = fcntl.flock
    calls = []

    def flock_then_delete(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        calls.append(fd)
        if len(calls) == 1:
            lock_path(journal).unlink()

    monkeypatch.setattr(lock_module.fcntl, "flock", flock_then_delete)
    with JournalLock(journal):
        monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
        assert len(calls) == 2 and lock_path(journal).exists()
        _refusal(journal)


def test_an_unexpected_flock_error_is_not_called_in_use(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(fd: int, operation: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(lock_module.fcntl, "flock", broken)
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError) as caught:
        JournalLock(journal).acquire()
    assert not isinstance(caught.value, JournalInUseError)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_program_the_holder_starts_does_not_keep_the_lock(journal: Path) -> None:
    """An agent that starts a long-running tool must not keep the journal locked after the
    execution released it (the lock file is opened close-on-exec)."""
    with JournalLock(journal):
        child = subprocess.Popen(["sleep", "30"], close_fds=False)
    try:
        with JournalLock(journal):
            pass
    finally:
        child.kill()
        child.wait()


def test_the_lock_file_is_readable_by_others(journal: Path) -> None:
    umask = os.umask(0o022)
    try:
        with JournalLock(journal):
            assert stat.S_IMODE(lock_path(journal).stat().st_mode) == 0o644
    finally:
        os.umask(umask)


def test_a_lock_on_descriptor_0_is_held_and_released(journal: Path) -> None:
    """A daemon started with stdin closed gets descriptor 0 for the lock file: still a lock."""
    saved = os.dup(0)
    os.close(0)
    try:
        lock = JournalLock(journal)
        lock.acquire()  # on descriptor 0: the lowest free one
        assert lock.held
        lock.acquire()  # held already: no second open (which our own lock would refuse)
        _refusal(journal)
        lock.release()
        assert not lock.held
        with JournalLock(journal):
            pass
    finally:
        os.dup2(saved, 0)
        os.close(saved)
