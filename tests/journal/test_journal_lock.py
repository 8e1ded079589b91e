"""The journal lock within one process: it belongs to the file (every name of the journal
reaches it), who holds it, what the refusal says, and a journal replaced or deleted while it
is being locked. (Several processes and a SIGKILLed holder: tests/execute/test_execute_lock.py.)"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness._errors import JournalError
from harness.journal import JournalInUseError, JournalLock, JournalStorageError, JournalWriter
from harness.journal import _lock as lock_module


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "run.jsonl"


@pytest.fixture
def foreign_holder(journal: Path) -> Iterator[int]:
    """An flock on the journal taken without JournalLock (as another program would)."""
    fd = os.open(journal, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        yield fd
    finally:
        os.close(fd)


def _refusal(journal: Path | str) -> JournalInUseError:
    with pytest.raises(JournalInUseError) as caught:
        JournalLock(journal).acquire()
    return caught.value


def test_no_lock_file_is_made_beside_the_journal(journal: Path) -> None:
    """The lock is the journal's own: the folder holds the journal and nothing else."""
    with JournalLock(journal) as lock, JournalWriter(journal, locked=lock.fd) as writer:
        writer.append("plan_started", plan_id="p")
    assert sorted(p.name for p in journal.parent.iterdir()) == ["run.jsonl"]


@pytest.mark.parametrize("name", ["symlink", "hard link", "relative", "renamed"])
def test_every_name_of_the_journal_reaches_the_one_lock(
    journal: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Locked through one name, the journal is refused through any other."""
    with JournalLock(journal):
        if name == "symlink":
            other: Path | str = journal.with_name("link.jsonl")
            Path(other).symlink_to(journal)
        elif name == "hard link":
            (journal.parent / "elsewhere").mkdir()
            other = journal.parent / "elsewhere" / "twin.jsonl"
            os.link(journal, other)
        elif name == "relative":
            monkeypatch.chdir(journal.parent)
            other = "./sub/../run.jsonl"
            (journal.parent / "sub").mkdir()
        else:  # the holder's file renamed: the new name is still locked
            other = journal.with_name("renamed.jsonl")
            journal.rename(other)
        assert _refusal(other).holder_pid == os.getpid()


def test_the_holder_is_named_by_pid_and_start_from_the_kernel(journal: Path) -> None:
    """Another process holds the journal: the refusal names its pid and when it started."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(journal)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        error = _refusal(journal)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert error.holder_pid == holder.pid
    assert error.holder_started is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", error.holder_started)
    assert error.what == (
        f"the journal is in use by another execution (pid {holder.pid}, "
        f"started {error.holder_started})"
    )
    assert error.source == str(journal)
    assert error.hint == (
        "wait for it to finish or stop it; a killed holder releases the lock at once"
    )
    with JournalLock(journal):  # the holder is dead: free again
        pass


def test_without_the_kernels_lock_table_the_holder_is_another_process(
    journal: Path, foreign_holder: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = open

    def no_proc(path: str, *args: object, **kwargs: object) -> object:
        if str(path).startswith("/proc/"):
            raise FileNotFoundError(2, "No such file or directory")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", no_proc)
    error = _refusal(journal)
    assert (error.holder_pid, error.holder_started) == (None, None)
    assert error.what == "the journal is in use by another execution (another process)"


def test_acquiring_twice_keeps_the_one_lock(journal: Path) -> None:
    lock = JournalLock(journal)
    assert not lock.held
    lock.acquire()
    lock.acquire()
    assert lock.held
    lock.release()
    lock.release()  # twice is harmless
    assert not lock.held
    with JournalLock(journal):  # nothing left held
        pass


def test_a_journal_the_lock_created_and_nobody_wrote_is_removed_on_release(
    journal: Path,
) -> None:
    with JournalLock(journal) as lock:
        assert lock.created and journal.exists()
    assert not journal.exists()
    with JournalLock(journal) as lock:
        os.write(lock.fd, b'{"event":"plan_started"}\n')
    assert journal.exists()  # written: kept
    journal.write_bytes(b"")
    with JournalLock(journal) as lock:
        assert not lock.created
    assert journal.exists()  # an empty journal it found is not its to delete


def test_a_dangling_symlink_creates_its_target(journal: Path) -> None:
    link = journal.with_name("link.jsonl")
    link.symlink_to(journal)
    with JournalLock(link) as lock:
        assert lock.created and journal.exists()
        _refusal(journal)


def test_a_symlink_loop_is_a_path_error_not_a_disk_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    with pytest.raises(JournalError) as caught:
        JournalLock(loop).acquire()
    assert not isinstance(caught.value, JournalStorageError)
    assert "cannot open the journal: Too many levels of symbolic links" in str(caught.value)


def test_a_refused_lock_leaves_nothing_open(journal: Path, foreign_holder: int) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        _refusal(journal)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_missing_folder_is_a_storage_error(tmp_path: Path) -> None:
    with pytest.raises(JournalStorageError) as caught:
        JournalLock(tmp_path / "absent" / "j.jsonl").acquire()
    error = caught.value
    assert error.what == "cannot open the journal: No such file or directory"
    assert error.source == str(tmp_path / "absent" / "j.jsonl")
    assert error.hint == "check the folder's permissions and free space"


def test_a_journal_replaced_while_locking_is_not_the_one_held(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone deletes and recreates the journal between our open and our flock: we must
    lock the new file, or a second executor could lock it too."""
    real_flock = fcntl.flock
    calls = []

    def flock_then_replace(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        calls.append(fd)
        if len(calls) == 1:
            journal.unlink()
            journal.write_bytes(b"")

    monkeypatch.setattr(lock_module.fcntl, "flock", flock_then_replace)
    with JournalLock(journal) as lock:
        monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
        assert len(calls) == 2
        assert os.fstat(lock.fd).st_ino == journal.stat().st_ino
        _refusal(journal)


def test_a_journal_deleted_while_locking_is_created_again(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_flock = fcntl.flock
    calls = []

    def flock_then_delete(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        calls.append(fd)
        if len(calls) == 1:
            journal.unlink()

    monkeypatch.setattr(lock_module.fcntl, "flock", flock_then_delete)
    with JournalLock(journal):
        monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
        assert len(calls) == 2 and journal.exists()
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
    execution released it (the journal is opened close-on-exec)."""
    journal.write_bytes(b"")
    with JournalLock(journal):
        child = subprocess.Popen(["sleep", "30"], close_fds=False)
    try:
        with JournalLock(journal):
            pass
    finally:
        child.kill()
        child.wait()


def test_the_writer_appends_through_the_locked_descriptor(journal: Path) -> None:
    """An exclusive writer on the lock's descriptor does not wait on its own lock."""
    with JournalLock(journal) as lock:
        with JournalWriter(journal, exclusive=True, locked=lock.fd) as writer:
            writer.append("plan_started", plan_id="p")
        _refusal(journal)  # closing the writer did not release the lock
    assert journal.read_bytes().startswith(b'{"event":"plan_started"')


def test_a_lock_on_descriptor_0_is_held_and_released(journal: Path) -> None:
    """A daemon started with stdin closed gets descriptor 0 for the journal: still a lock."""
    saved = os.dup(0)
    os.close(0)
    try:
        lock = JournalLock(journal)
        lock.acquire()  # on descriptor 0: the lowest free one
        assert lock.held and lock.fd == 0
        lock.acquire()  # held already: no second open (which our own lock would refuse)
        _refusal(journal)
        lock.release()
        assert not lock.held
        with JournalLock(journal):
            pass
    finally:
        os.dup2(saved, 0)
        os.close(saved)
