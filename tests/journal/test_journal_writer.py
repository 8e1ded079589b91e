"""The journal writer: whole lines, locking across threads and processes, torn-tail repair."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.journal import (
    EventNotSerializableError,
    JournalWriter,
    replay,
)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


class TestAppend:
    def test_one_line_per_event_with_event_and_time(self, tmp_path: Path) -> None:
        """Each event is one newline-terminated JSON line with `event` and `at` first."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("task_started", task_id="t-1", attempt=1)
            writer.append("task_succeeded", task_id="t-1", output={"answer": 42}, duration=0.5)
        data = path.read_bytes()
        assert data.endswith(b"\n") and data.count(b"\n") == 2
        first, second = lines(path)
        assert list(first)[:2] == ["event", "at"]
        assert first["event"] == "task_started" and first["attempt"] == 1
        assert second["output"] == {"answer": 42}

    def test_creates_missing_parent_directories(self, tmp_path: Path) -> None:
        """A journal in a directory that does not exist yet is created with it."""
        path = tmp_path / "deep" / "er" / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("plan_started", plan_id="p")
        assert lines(path)[0]["plan_id"] == "p"

    def test_appends_to_an_existing_journal(self, tmp_path: Path) -> None:
        """A second writer continues the file; nothing already there is rewritten."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("plan_started", plan_id="p")
        before = path.read_bytes()
        with JournalWriter(path) as writer:
            writer.append("plan_resumed", plan_id="p")
        assert path.read_bytes().startswith(before)
        assert [e["event"] for e in lines(path)] == ["plan_started", "plan_resumed"]

    @pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
    def test_fsync_every_must_be_a_non_negative_integer(self, tmp_path: Path, bad: object) -> None:
        """fsync_every of a negative, a float, a bool or a string is refused (0: never)."""
        with pytest.raises(ValueError, match="non-negative integer"):
            JournalWriter(tmp_path / "j.jsonl", fsync_every=bad)  # type: ignore[arg-type]

    def test_fsync_every_n_events_and_on_close(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With fsync_every=3, seven events fsync twice, and close fsyncs the rest."""
        path = tmp_path / "j.jsonl"
        path.touch()
        synced: list[int] = []
        real = os.fsync
        monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
        writer = JournalWriter(path, fsync_every=3)
        for i in range(7):
            writer.append("task_started", task_id=f"t{i}")
        assert len(synced) == 2
        writer.close()
        assert len(synced) == 3
        writer.close()  # closing twice is harmless
        assert len(synced) == 3

    def test_every_event_is_fsynced_by_default(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """N=1 by default: one fsync per event, none left for close."""
        path = tmp_path / "j.jsonl"
        path.touch()
        synced: list[int] = []
        monkeypatch.setattr(os, "fsync", synced.append)
        with JournalWriter(path) as writer:
            for i in range(4):
                writer.append("task_started", task_id=f"t{i}")
        assert len(synced) == 4


class TestNotSerializable:
    @pytest.mark.parametrize(
        ("output", "pointer"),
        [
            ({"rows": [1, {2, 3}]}, "/output/rows/1"),  # a set inside a list
            ({"when": object()}, "/output/when"),  # an arbitrary object
            ({"score": float("nan")}, "/output/score"),  # NaN is not JSON
        ],
    )
    def test_refused_before_anything_is_written(
        self, tmp_path: Path, output: object, pointer: str
    ) -> None:
        """An output that is not JSON raises an error naming where, and writes nothing."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("plan_started", plan_id="p")
            before = path.read_bytes()
            with pytest.raises(EventNotSerializableError) as caught:
                writer.append("task_succeeded", task_id="t", output=output)
        assert caught.value.pointer == pointer
        assert pointer in str(caught.value)
        assert path.read_bytes() == before

    def test_lone_surrogate_stays_valid_utf8(self, tmp_path: Path) -> None:
        """A string with a lone surrogate is escaped, so the line is still valid UTF-8."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("task_succeeded", task_id="t", output="broken \udc80 text")
        path.read_bytes().decode("utf-8")
        assert replay(path, "strict").tasks["t"].output == "broken \udc80 text"


def _write_from_thread(writer: JournalWriter, name: str, count: int) -> None:
    for i in range(count):
        # Some lines are far larger than PIPE_BUF so that an unlocked write could tear.
        writer.append("task_succeeded", task_id=f"{name}-{i}", output="x" * (i % 7) * 20_000)


def _write_from_process(path: str, name: str, count: int) -> None:
    with JournalWriter(path, fsync_every=25) as writer:
        _write_from_thread(writer, name, count)


class TestConcurrentWriters:
    def test_many_threads_sharing_one_writer(self, tmp_path: Path) -> None:
        """Eight threads on one writer: every line replays in strict mode, none lost."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path, fsync_every=25) as writer:
            threads = [
                threading.Thread(target=_write_from_thread, args=(writer, f"w{n}", 60))
                for n in range(8)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        state = replay(path, "strict")
        assert len(state.completed) == 8 * 60

    def test_many_threads_each_with_its_own_writer(self, tmp_path: Path) -> None:
        """Eight writers on one file in one process exclude each other through the file lock."""
        path = tmp_path / "j.jsonl"

        def work(name: str) -> None:
            with JournalWriter(path, fsync_every=25) as writer:
                _write_from_thread(writer, name, 60)

        threads = [threading.Thread(target=work, args=(f"w{n}",)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(replay(path, "strict").completed) == 8 * 60

    def test_several_processes(self, tmp_path: Path) -> None:
        """Four processes appending to one journal: every line replays in strict mode."""
        path = tmp_path / "j.jsonl"
        context = multiprocessing.get_context("fork")
        processes = [
            context.Process(target=_write_from_process, args=(str(path), f"p{n}", 80))
            for n in range(4)
        ]
        for p in processes:
            p.start()
        for p in processes:
            p.join(timeout=60)
        assert [p.exitcode for p in processes] == [0, 0, 0, 0]
        state = replay(path, "strict")
        assert len(state.completed) == 4 * 80
        assert {t.split("-")[0] for t in state.completed} == {"p0", "p1", "p2", "p3"}


class TestTornTail:
    def _crashed_journal(self, path: Path) -> bytes:
        with JournalWriter(path) as writer:
            writer.append("plan_started", plan_id="p")
            writer.append("task_succeeded", task_id="a", output=1)
        torn = b'{"event":"task_succeeded","task_id":"b","out'
        with open(path, "ab") as handle:
            handle.write(torn)
        return torn

    def test_torn_tail_is_cut_and_the_next_line_is_clean(self, tmp_path: Path) -> None:
        """After a crash mid-write, the next event starts on a fresh line; strict replay works."""
        path = tmp_path / "j.jsonl"
        torn = self._crashed_journal(path)
        assert replay(path).torn_tail is not None
        with JournalWriter(path) as writer:
            writer.append("task_succeeded", task_id="c", output=3)
        state = replay(path, "strict")
        assert state.completed == ("a", "c")
        assert [r["line"] for r in state.repairs] == [3]
        assert not state.damage

        sidecar = Path(str(path) + ".torn")
        assert sidecar.read_bytes() == torn + b"\n"  # nothing is lost
        assert writer.repairs[0].length == len(torn)

    def test_a_writer_that_crashed_while_we_were_open(self, tmp_path: Path) -> None:
        """Torn bytes left by another writer after our last line are cut before our next."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as ours:
            ours.append("task_succeeded", task_id="a", output=1)
            with open(path, "ab") as crashed:
                crashed.write(b'{"event":"task_succeeded","task_id":"b"')
            ours.append("task_succeeded", task_id="c", output=3)
        state = replay(path, "strict")
        assert state.completed == ("a", "c") and len(state.repairs) == 1

    def test_time_is_utc_iso_with_milliseconds(self, tmp_path: Path) -> None:
        """`at` reads like the gem's: 2025-05-29T10:00:04.210Z."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("plan_started", plan_id="p")
        at = str(lines(path)[0]["at"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", at)
        parsed = datetime.fromisoformat(at.replace("Z", "+00:00"))
        assert abs((datetime.now(UTC) - parsed).total_seconds()) < 60

    def test_a_tail_missing_only_its_newline_is_kept(self, tmp_path: Path) -> None:
        """A whole event without its newline is completed, not cut off."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(b'{"event":"task_succeeded","task_id":"a","output":1}')
        assert replay(path, "strict").completed == ("a",)
        with JournalWriter(path) as writer:
            writer.append("task_succeeded", task_id="b", output=2)
        state = replay(path, "strict")
        assert state.completed == ("a", "b")
        assert not state.repairs

    def test_a_large_torn_tail_is_cut_whole(self, tmp_path: Path) -> None:
        """A torn line of several megabytes is found and cut, however long."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as writer:
            writer.append("task_succeeded", task_id="a", output=1)
        with open(path, "ab") as handle:
            handle.write(b'{"event":"task_succeeded","task_id":"b","output":"' + b"y" * 3_000_000)
        with JournalWriter(path) as writer:
            writer.append("task_succeeded", task_id="c", output=3)
        assert replay(path, "strict").completed == ("a", "c")


class TestExclusive:
    """``exclusive=True`` (an execution's writer): the file lock is held from open to close."""

    def test_the_first_append_still_repairs_a_torn_tail(self, tmp_path: Path) -> None:
        path = tmp_path / "j.jsonl"
        TestTornTail()._crashed_journal(path)
        with JournalWriter(path, exclusive=True) as writer:
            writer.append("task_succeeded", task_id="c", output=3)
            writer.append("task_succeeded", task_id="d", output=4)
        state = replay(path, "strict")
        assert state.completed == ("a", "c", "d") and len(state.repairs) == 1

    def test_another_writer_waits_until_it_closes(self, tmp_path: Path) -> None:
        """A plain writer's append blocks while the exclusive writer is open, then lands
        after all of its lines, whole."""
        path = tmp_path / "j.jsonl"
        ours = JournalWriter(path, exclusive=True, fsync_every=0)
        ours.append("plan_started", plan_id="p")
        done = threading.Event()

        def other() -> None:
            with JournalWriter(path, fsync_every=0) as theirs:
                theirs.append("task_started", task_id="other")
            done.set()

        thread = threading.Thread(target=other)
        thread.start()
        assert not done.wait(0.3)  # blocked on the file lock
        ours.append("task_started", task_id="ours")
        ours.close()
        thread.join(10)
        assert done.is_set()
        assert [e.get("task_id") for e in lines(path)] == [None, "ours", "other"]
        replay(path, "strict")
