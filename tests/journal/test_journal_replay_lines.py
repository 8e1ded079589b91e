"""Replay line by line: checksums, damaged and torn lines, the reasons and excerpts a user
reads, the line-length bound, and the refusal of files that are not journals.

Hand-written journal bytes (provenance: handwritten).
"""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness._errors import JournalError
from harness.journal import (
    JournalDamagedError,
    ReplayState,
    encode_event,
    replay,
    require_journal,
    require_regular_file,
)
from harness.journal import _replay as replay_module


def line(event: str, **fields: Any) -> bytes:
    return json.dumps({"event": event, **fields}).encode() + b"\n"


def crc_line(event: str, **fields: Any) -> bytes:
    return encode_event(event, fields)


def journalled(state: ReplayState) -> dict[str, Any]:
    """The outputs the journal's readable lines record: restored ones, and those of tasks
    journalled after a damaged line (read, but ``unknown``: a resume runs them again)."""
    unknown = {t for t, s in state.tasks.items() if s.status == "unknown"}
    assert unknown == set(state.suspect)
    return {t: s.output for t, s in state.tasks.items() if s.status in ("succeeded", "unknown")}


HEAD = crc_line("plan_started", plan_id="p", journal_version=2)
OK_A = crc_line("task_succeeded", task_id="a", output=1)


class TestChecksums:
    def test_a_changed_checksummed_line_is_damage_and_not_restored(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(HEAD + OK_A.replace(b'"output":1', b'"output":2'))
        state = replay(path)
        assert state.outputs == {}
        assert state.damage[0].line == 2
        assert state.damage[0].reason == (
            "checksum mismatch: the line changed after it was written (not restored)"
        )
        assert state.events == 1

    def test_lines_after_a_checksum_mismatch_are_still_read(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        changed = OK_A.replace(b'"output":1', b'"output":2')
        path.write_bytes(HEAD + changed + crc_line("task_succeeded", task_id="b", output=3))
        state = replay(path)
        assert journalled(state) == {"b": 3} and [d.line for d in state.damage] == [2]

    def test_a_plain_line_after_checksummed_ones_is_damage(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(
            crc_line("plan_started", plan_id="p", journal_version=1)
            + line("task_succeeded", task_id="a", output=1)
            + crc_line("task_succeeded", task_id="b", output=2)
        )
        state = replay(path)
        assert journalled(state) == {"b": 2}
        assert [d.line for d in state.damage] == [2]
        assert state.damage[0].reason == (
            "no checksum, though the lines before it have one (not restored)"
        )

    def test_plain_lines_before_the_first_checksum_are_fine(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_succeeded", task_id="z", output=0) + OK_A)
        state = replay(path, "strict")
        assert state.outputs == {"z": 0, "a": 1}

    @pytest.mark.parametrize("version", [2, 3])
    def test_a_version_2_start_without_checksum_is_damage(
        self, tmp_path: Path, version: int
    ) -> None:
        path = tmp_path / "j"
        path.write_bytes(
            line("task_started", task_id="a")
            + line("plan_started", plan_id="p", journal_version=version)
            + line("task_succeeded", task_id="a", output=1)
        )
        state = replay(path)
        assert [(d.line, d.reason) for d in state.damage] == [
            (2, "no checksum, though its journal_version says every line has one")
        ]
        assert state.plan_id is None and state.events == 2
        assert journalled(state) == {"a": 1}  # the lines after it are still read

    @pytest.mark.parametrize("version", [1, "2", None, True])
    def test_an_older_or_unversioned_start_needs_no_checksum(
        self, tmp_path: Path, version: Any
    ) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("plan_started", plan_id="p", journal_version=version))
        state = replay(path, "strict")
        assert state.plan_id == "p" and state.events == 1

    def test_a_checksummed_line_with_a_lone_surrogate_escape_replays(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(HEAD + crc_line("task_succeeded", task_id="a", output="\ud800x"))
        assert replay(path, "strict").outputs == {"a": "\ud800x"}


class TestDamagedLines:
    @pytest.mark.parametrize(
        ("raw", "kind"),
        [
            (b"null", "null"),
            (b"true", "boolean"),
            (b"3", "number"),
            (b"2.5", "number"),
            (b'"text"', "string"),
            (b"[1]", "list"),
        ],
    )
    def test_a_json_value_that_is_not_an_object_is_named(
        self, tmp_path: Path, raw: bytes, kind: str
    ) -> None:
        path = tmp_path / "j"
        path.write_bytes(raw + b"\n" + OK_A)
        state = replay(path)
        assert state.damage[0].reason == f"not a JSON object (a {kind})"
        assert state.damage[0].excerpt == raw.decode()
        assert journalled(state) == {"a": 1}

    def test_trailing_text_after_the_object_is_not_json(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b'{"event":"task_succeeded","task_id":"a","output":1} junk\n')
        state = replay(path)
        assert state.outputs == {}
        assert state.damage[0].reason.startswith("not JSON (Extra data")

    def test_one_character_after_the_object_is_not_json(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b'{"event":"task_succeeded","task_id":"a","output":1}x\n')
        state = replay(path)
        assert state.outputs == {} and state.damage[0].reason.startswith("not JSON (Extra data")

    @pytest.mark.parametrize(
        ("spaces", "tail"),
        [(998, "line 1 column 1000 (char 999))"), (999, "line 1 column 1001 (char 100…)")],
        ids=["80 characters kept whole", "81 characters cut"],
    )
    def test_an_error_message_is_cut_after_80_characters(
        self, tmp_path: Path, spaces: int, tail: str
    ) -> None:
        path = tmp_path / "j"
        path.write_bytes(b"{" + b" " * spaces + b"x\n")
        reason = replay(path).damage[0].reason
        assert reason == "not JSON (Expecting property name enclosed in double quotes: " + tail

    def test_spaces_around_the_object_are_fine(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(
            b'  {"event":"task_succeeded","task_id":"a","output":1}\n'
            b'{"event":"task_succeeded","task_id":"b","output":2}   \n'
        )
        assert replay(path, "strict").outputs == {"a": 1, "b": 2}

    def test_a_deeply_nested_line_is_damage_with_a_short_reason(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b"[" * 100_000 + b"\n" + OK_A)
        state = replay(path)
        reason = state.damage[0].reason
        assert reason.startswith("not JSON (")
        assert len(reason) <= len("not JSON ()") + 80
        assert journalled(state) == {"a": 1}

    def test_a_long_error_message_is_cut_to_80_characters(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b"[" * 100_000 + b"\n")
        reason = replay(path).damage[0].reason
        message = reason[len("not JSON (") : -1]
        assert len(message) == 80 and message.endswith("…")

    def test_the_excerpt_is_the_first_80_characters(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        long_garbage = "x" * 79 + "YZ" + "q" * 500
        path.write_text("x" * 80 + "\n" + long_garbage + "\n" + "é" * 90 + "\n")
        first, second, third = replay(path).damage
        assert first.excerpt == "x" * 80
        assert second.excerpt == "x" * 79 + "…"
        assert third.excerpt == "é" * 79 + "…"

    def test_the_excerpt_keeps_trailing_spaces_and_letters(self, tmp_path: Path) -> None:
        """Only the line break is cut from an excerpt."""
        path = tmp_path / "j"
        path.write_bytes(b"not json \t\nTODO FIX\r\n")
        assert [d.excerpt for d in replay(path).damage] == ["not json \t", "TODO FIX"]

    def test_an_invalid_utf8_excerpt_counts_characters_not_bytes(self, tmp_path: Path) -> None:
        """80 four-byte characters before the invalid byte: the excerpt is those 80, whole."""
        path = tmp_path / "j"
        path.write_bytes("😀".encode() * 80 + b"\xff\n")
        damage = replay(path).damage[0]
        assert damage.reason == "invalid UTF-8 at byte 320"
        assert damage.excerpt == "😀" * 80

    def test_one_character_before_the_object_is_not_json(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b'x{"event":"task_succeeded","task_id":"a","output":1}\n')
        state = replay(path)
        assert state.outputs == {}
        assert state.damage[0].reason == "not JSON (Expecting value: line 1 column 1 (char 0))"

    def test_a_one_character_line_is_not_json(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b"x\n" + OK_A)
        state = replay(path)
        assert state.damage[0].reason == "not JSON (Expecting value: line 1 column 1 (char 0))"
        assert journalled(state) == {"a": 1}

    def test_a_carriage_return_inside_a_line_is_not_a_line_break(self, tmp_path: Path) -> None:
        """JSON allows a carriage return between tokens; only \\n ends a journal line."""
        path = tmp_path / "j"
        path.write_bytes(b'{"event":"task_succeeded",\r"task_id":"a","output":1}\n')
        state = replay(path, "strict")
        assert state.outputs == {"a": 1} and state.events == 1

    def test_the_state_names_the_journal(self, tmp_path: Path) -> None:
        """Both readers (valid UTF-8, and the binary fallback) give the journal's path."""
        path = tmp_path / "j"
        path.write_bytes(OK_A)
        assert replay(path).path == str(path)
        path.write_bytes(b"\xff\n" + OK_A)
        assert replay(path).path == str(path)

    def test_an_invalid_utf8_line_says_at_which_byte(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b'{"event":"\xff"}\n' + line("task_succeeded", task_id="a", output=1))
        state = replay(path)
        assert state.damage[0].reason == "invalid UTF-8 at byte 10"
        assert state.damage[0].excerpt == '{"event":"\\xff"}'
        assert journalled(state) == {"a": 1} and state.events == 1

    def test_a_torn_line_after_invalid_utf8_is_the_torn_tail(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(b"\xff\n" + line("task_succeeded", task_id="a", output=1) + b'{"ev\xc3')
        state = replay(path)
        assert [d.line for d in state.damage] == [1, 3]
        assert state.torn_tail is not None and state.torn_tail.line == 3
        assert state.torn_tail.excerpt == '{"ev\\xc3'
        assert journalled(state) == {"a": 1}

    def test_an_event_without_a_string_task_id_names_the_event(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_blocked", task_id=3))
        assert replay(path).damage[0].reason == "a task_blocked event without a string task_id (3)"

    def test_events_count_only_usable_lines(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(
            line("plan_started", plan_id="p") + b"junk\n" + line("task_started", task_id="a")
            + line("task_started", task_id=1) + line("thought")
            + line("task_succeeded", task_id="a", output=1)
        )  # fmt: skip
        assert replay(path).events == 4


class TestLastLine:
    def test_a_complete_task_event_without_newline_is_kept(self, tmp_path: Path) -> None:
        """Only the newline is missing: the event counts (the writer completes the line)."""
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a") + line("task_succeeded",
                         task_id="a", output=1, duration=1).rstrip(b"\n"))  # fmt: skip
        state = replay(path, "strict")
        assert state.outputs == {"a": 1} and state.events == 2
        assert state.tasks["a"].line == 2 and state.tasks["a"].duration == 1.0
        assert state.torn_tail is None

    def test_a_new_task_in_the_last_line_is_kept(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a", attempt=2).rstrip(b"\n"))
        state = replay(path, "strict")
        assert state.tasks["a"].status == "started" and state.tasks["a"].attempts == 2

    def test_a_plan_event_without_newline_is_kept(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("plan_completed", plan_id="p", status="failed").rstrip(b"\n"))
        state = replay(path, "strict")
        assert (state.status, state.events) == ("failed", 1)

    def test_a_checksummed_last_line_without_newline_is_kept(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(HEAD + OK_A.rstrip(b"\n"))
        assert replay(path, "strict").outputs == {"a": 1}

    def test_a_last_line_with_a_wrong_checksum_is_torn(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(HEAD + OK_A.rstrip(b"\n").replace(b'"output":1', b'"output":2'))
        state = replay(path)
        assert state.outputs == {} and state.torn_tail is not None
        assert state.torn_tail.line == 2 and state.events == 1

    def test_a_plain_last_line_after_checksummed_ones_is_torn(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(HEAD + line("task_succeeded", task_id="a", output=1).rstrip(b"\n"))
        state = replay(path)
        assert state.outputs == {} and state.torn_tail is not None

    def test_a_last_task_event_without_task_id_is_torn(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id=None).rstrip(b"\n"))
        state = replay(path)
        assert state.torn_tail is not None and state.torn_tail.line == 1
        assert state.events == 1 and state.tasks == {}

    @pytest.mark.parametrize("tail", [b'"just text"', b'{"event": 1}', b'{"event":"task_st'])
    def test_a_last_line_that_is_not_an_event_is_torn(self, tmp_path: Path, tail: bytes) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a") + tail)
        state = replay(path)
        assert state.torn_tail is not None and state.torn_tail.torn
        assert state.torn_tail.reason == "torn last line (a crash mid-write)"
        assert state.events == 1
        with pytest.raises(JournalDamagedError, match="line 2"):
            replay(path, "strict")

    def test_trailing_spaces_after_the_last_newline_are_nothing(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a") + b"   ")
        state = replay(path, "strict")
        assert state.torn_tail is None and state.damage == () and state.events == 1

    def test_a_last_start_without_an_attempt_number_counts_one_more(self, tmp_path: Path) -> None:
        """The gem writes no attempt numbers: the second start, the last line, is attempt 2."""
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a")
                         + line("task_started", task_id="a").rstrip(b"\n"))  # fmt: skip
        task = replay(path, "strict").tasks["a"]
        assert (task.status, task.attempts, task.line) == ("started", 2, 2)

    def test_a_last_start_after_a_failure_shows_the_retry(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_failed", task_id="a", attempt=1)
                         + line("task_started", task_id="a", attempt=2).rstrip(b"\n"))  # fmt: skip
        task = replay(path, "strict").tasks["a"]
        assert (task.status, task.attempts, task.line) == ("started", 2, 2)

    def test_a_last_start_after_a_success_keeps_the_success(self, tmp_path: Path) -> None:
        path = tmp_path / "j"
        path.write_bytes(line("task_succeeded", task_id="a", output=1)
                         + line("task_started", task_id="a").rstrip(b"\n"))  # fmt: skip
        state = replay(path, "strict")
        assert (state.tasks["a"].status, state.tasks["a"].line) == ("succeeded", 1)
        assert state.outputs == {"a": 1}

    @pytest.mark.parametrize(
        ("before", "attempt", "expected"),
        [
            ([line("task_started", task_id="a", attempt=3)], 2, 3),  # a lower number keeps it
            ([line("task_started", task_id="a", attempt=1)], 5, 5),  # a higher one raises it
            ([], None, 1),  # a success alone is one attempt
        ],
        ids=["lower", "higher", "alone"],
    )
    def test_a_last_success_counts_attempts(
        self, tmp_path: Path, before: list[bytes], attempt: int | None, expected: int
    ) -> None:
        path = tmp_path / "j"
        fields: dict[str, Any] = {"task_id": "a", "output": 1}
        if attempt is not None:
            fields["attempt"] = attempt
        path.write_bytes(b"".join(before) + line("task_succeeded", **fields).rstrip(b"\n"))
        state = replay(path, "strict")
        task = state.tasks["a"]
        assert (task.status, task.attempts, task.line) == ("succeeded", expected, len(before) + 1)
        assert state.completed == ("a",)


class TestLineLengthBound:
    def test_an_overlong_line_is_skipped_unread(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(replay_module, "MAX_LINE", 64)
        path = tmp_path / "j"
        short = line("task_succeeded", task_id="a", output=1)
        assert len(short) < 64
        path.write_bytes(short + b"x" * 200 + b"\n" + short.replace(b'"a"', b'"b"'))
        state = replay(path)
        assert [d.line for d in state.damage] == [2]
        assert state.damage[0].reason == "a line longer than 64 MiB (not read)"
        assert state.damage[0].excerpt == ""
        assert tuple(state.tasks) == ("a", "b") and state.suspect == ("a", "b")

    def test_the_bound_also_holds_for_invalid_utf8(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(replay_module, "MAX_LINE", 64)
        path = tmp_path / "j"
        path.write_bytes(b"\xff" * 64 + b"\xfe" * 64 + b"\n" + line("task_started", task_id="a"))
        state = replay(path)
        assert [d.reason for d in state.damage] == ["a line longer than 64 MiB (not read)"]
        assert list(state.tasks) == ["a"]

    def test_a_line_of_exactly_the_bound_is_read(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        head = b'{"event":"task_succeeded","task_id":"a","output":"'
        raw = head + b"z" * (64 - len(head) - 3) + b'"}\n'
        assert len(raw) == 64
        monkeypatch.setattr(replay_module, "MAX_LINE", 64)
        path = tmp_path / "j"
        path.write_bytes(raw + raw.replace(b'"a"', b'"b"'))
        assert replay(path, "strict").completed == ("a", "b")

    def test_an_invalid_utf8_line_of_exactly_the_bound_is_read(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Exactly MAX_LINE bytes with its newline: damaged for its bytes, not for its length."""
        monkeypatch.setattr(replay_module, "MAX_LINE", 64)
        path = tmp_path / "j"
        path.write_bytes(b"\xff" * 63 + b"\n" + line("task_started", task_id="a"))
        state = replay(path)
        assert [d.reason for d in state.damage] == ["invalid UTF-8 at byte 0"]
        assert list(state.tasks) == ["a"]

    def test_an_overlong_last_line_ends_the_journal(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(replay_module, "MAX_LINE", 64)
        path = tmp_path / "j"
        path.write_bytes(line("task_started", task_id="a") + b"y" * 300)
        state = replay(path)
        assert [d.line for d in state.damage] == [2]


def test_replay_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """Replay pauses the cyclic collector for speed and must turn it back on."""
    path = tmp_path / "j"
    path.write_bytes(line("task_started", task_id="a"))
    assert gc.isenabled()
    replay(path)
    assert gc.isenabled()
    (tmp_path / "bad").write_bytes(b"\xff\n")
    replay(tmp_path / "bad")  # the binary path too
    assert gc.isenabled()
    gc.disable()
    try:
        replay(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


class TestRefusals:
    def test_a_folder_is_not_a_journal(self, tmp_path: Path) -> None:
        with pytest.raises(JournalError) as caught:
            replay(tmp_path)
        assert str(caught.value) == f"{tmp_path}: is a folder, not a journal file"
        assert caught.value.source == str(tmp_path)

    def test_a_pipe_is_not_a_journal(self, tmp_path: Path) -> None:
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        with pytest.raises(JournalError, match="not a regular file") as caught:
            require_regular_file(fifo)
        assert caught.value.hint == "name the journal file itself"
        assert caught.value.what == (
            "is not a regular file (a device or a pipe never ends), so it is not a journal"
        )
        assert caught.value.source == str(fifo)
        with pytest.raises(JournalError, match="not a regular file"):
            require_journal(fifo)

    def test_a_missing_file_says_why(self, tmp_path: Path) -> None:
        with pytest.raises(JournalError, match="cannot read the journal: No such file") as caught:
            require_regular_file(tmp_path / "none")
        assert caught.value.source == str(tmp_path / "none")

    @pytest.mark.parametrize(
        "content",
        [
            b"",
            b"  \n\n",
            b'{"event":"plan_started"',  # torn, but a journal's start
            b'  { "event" : "plan_started" }\n',
            b"garbage\n" * 7 + line("task_started", task_id="a"),
        ],
    )
    def test_journals_are_accepted(self, tmp_path: Path, content: bytes) -> None:
        path = tmp_path / "j"
        path.write_bytes(content)
        require_journal(path)

    @pytest.mark.parametrize(
        "content",
        [
            b"name,score\nx,1\n",
            b'{"not_event": 1}\n[1]\n{"event": 3}\n',
            b"garbage\n" * 8 + line("task_started", task_id="a"),
            b"x" * (1 << 20) + b"\n" + line("task_started", task_id="a"),
            b"[" * 100_000 + b"\n",
        ],
        ids=["csv", "objects-without-event", "ninth-line", "past-1MiB", "deep"],
    )
    def test_other_files_are_refused(self, tmp_path: Path, content: bytes) -> None:
        path = tmp_path / "j"
        path.write_bytes(content)
        with pytest.raises(JournalError, match="is not an execution journal") as caught:
            require_journal(path)
        assert str(caught.value) == (
            f"{path}: is not an execution journal (none of its first lines is a journal "
            "event). Name the journal file (JSONL written by planeval execute or the agentic gem)"
        )
        assert caught.value.source == str(path)

    @pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
    @pytest.mark.parametrize("read", [replay, require_journal], ids=["replay", "require_journal"])
    def test_a_regular_file_that_cannot_be_read_says_why(self, read: Any) -> None:
        """/proc/self/mem is a regular file whose first bytes are never readable (EIO): both
        the replay and the journal check say so."""
        with pytest.raises(JournalError) as caught:
            read("/proc/self/mem")
        assert str(caught.value) == "/proc/self/mem: cannot read the journal: Input/output error"
        assert caught.value.source == "/proc/self/mem"
