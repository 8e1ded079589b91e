"""Replay: tolerant and strict, damage reports, the gem's journals, resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import JournalError
from harness.journal import JournalDamagedError, JournalWriter, replay

FIXTURES = Path(__file__).parent / "fixtures"


def event(name: str, **fields: object) -> bytes:
    return json.dumps({"event": name, **fields}).encode() + b"\n"


GOOD_HEAD = event("plan_started", plan_id="p", plan_hash="h", journal_version=1) + event(
    "task_started", task_id="a", attempt=1
)
GOOD_TAIL = event("task_succeeded", task_id="a", attempt=1, output={"n": 1}, duration=0.25)
EIGHT_MB = 8 * 1024 * 1024


# Each case: the bad bytes put between a good head (2 lines) and a good tail, so the
# damaged line is line 3, and how the reason replay gives for it starts.
DAMAGE_CASES = [
    pytest.param(b"\x00\xff garbage \x13\x37\n", "invalid UTF-8", id="garbage-bytes"),
    pytest.param(b"this is not json at all\n", "not JSON", id="not-json"),
    pytest.param(b'{"event":"task_started","task_id":"\xc3\x28"}\n', "invalid UTF-8", id="utf8"),
    pytest.param(
        event("task_started", task_id=7),
        "a task_started event without a string task_id (7)",
        id="numeric-id",
    ),
    pytest.param(
        event("task_failed"), "a task_failed event without a string task_id (None)", id="missing-id"
    ),
    pytest.param(b"[1, 2, 3]\n", "not a JSON object (a list)", id="a-list"),
    pytest.param(b'{"task_id": "a"}\n', "an object without a string 'event' field", id="no-event"),
    pytest.param(
        b'{"event": ["task_started"]}\n',
        "an object without a string 'event' field",
        id="list-event",
    ),
    pytest.param(
        event("task_started", task_id={"a": 1}),
        "a task_started event without a string task_id",
        id="object-task-id",
    ),
    pytest.param(b"\n", "blank line", id="blank-line"),
    pytest.param(b"   \t \n", "blank line", id="whitespace-line"),
    pytest.param(b"{" + b"x" * EIGHT_MB + b"\n", "not JSON", id="8MB-garbage-line"),
]


class TestDamage:
    @pytest.mark.parametrize(("bad", "reason"), DAMAGE_CASES)
    def test_tolerant_reports_and_recovers_the_rest(
        self, tmp_path: Path, bad: bytes, reason: str
    ) -> None:
        """The damaged line is reported with its number; every other event is read. A blank
        line held no event; any other damaged line may have held one, so a task journalled
        after it is unknown (a resume runs it again), never restored on a guess."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(GOOD_HEAD + bad + GOOD_TAIL)
        state = replay(path)
        assert [d.line for d in state.damage] == [3]
        assert state.damage[0].reason.startswith(reason)
        assert len(state.damage[0].excerpt) <= 80
        if reason == "blank line":
            assert state.completed == ("a",)
            assert state.outputs == {"a": {"n": 1}}
        else:
            assert state.completed == () and state.suspect == ("a",)
            assert state.tasks["a"].status == "unknown" and state.tasks["a"].attempts == 1
        assert state.plan_id == "p"
        assert state.events == 3

    @pytest.mark.parametrize(("bad", "reason"), DAMAGE_CASES)
    def test_strict_names_the_line(self, tmp_path: Path, bad: bytes, reason: str) -> None:
        """Strict replay raises an error that names the first damaged line and why."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(GOOD_HEAD + bad + GOOD_TAIL)
        with pytest.raises(JournalDamagedError) as caught:
            replay(path, "strict")
        assert caught.value.damage.line == 3
        assert "line 3" in str(caught.value) and reason in str(caught.value)
        assert caught.value.state.events == 3

    def test_torn_last_line_is_reported_as_torn(self, tmp_path: Path) -> None:
        """A last line cut mid-write is the torn tail: reported, not fatal to tolerant replay."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(GOOD_HEAD + GOOD_TAIL + b'{"event":"task_started","task_')
        state = replay(path)
        assert state.torn_tail is not None and state.torn_tail.line == 4
        assert state.torn_tail.torn and "torn" in state.torn_tail.reason
        assert state.completed == ("a",)
        with pytest.raises(JournalDamagedError) as caught:
            replay(path, "strict")
        assert caught.value.damage.torn and "line 4" in str(caught.value)
        assert "resume cuts" in str(caught.value)

    def test_duplicate_success_keeps_the_first_output(self, tmp_path: Path) -> None:
        """A second success for a completed task is damage; the first output stands."""
        path = tmp_path / "j.jsonl"
        dup = event("task_succeeded", task_id="a", attempt=1, output={"n": 2})
        path.write_bytes(GOOD_HEAD + GOOD_TAIL + dup)
        state = replay(path)
        assert [d.line for d in state.damage] == [4]
        assert "duplicate task_succeeded" in state.damage[0].reason
        assert "line 3" in state.damage[0].reason
        assert state.outputs == {"a": {"n": 1}}
        with pytest.raises(JournalDamagedError, match="line 4"):
            replay(path, "strict")

    def test_every_damaged_line_is_listed(self, tmp_path: Path) -> None:
        """Several damaged lines are all reported, in order; strict names the first."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(b"\n" + GOOD_HEAD + b"nope\n" + GOOD_TAIL + b"\xff\n")
        state = replay(path)
        assert [d.line for d in state.damage] == [1, 4, 6]
        with pytest.raises(JournalDamagedError, match=r"line 1.*and 2 more"):
            replay(path, "strict")

    def test_an_8mb_line_that_is_valid_replays_whole(self, tmp_path: Path) -> None:
        """A valid 8 MB output is not damage: it replays byte for byte."""
        path = tmp_path / "j.jsonl"
        big = "z" * EIGHT_MB
        path.write_bytes(GOOD_HEAD + event("task_succeeded", task_id="a", output=big))
        state = replay(path, "strict")
        assert state.outputs["a"] == big


class TestEvents:
    def test_unknown_events_are_kept_and_ignored(self, tmp_path: Path) -> None:
        """An event type planeval does not know is counted, not damage."""
        path = tmp_path / "j.jsonl"
        path.write_bytes(
            GOOD_HEAD + event("agent_thought", text="hmm") + GOOD_TAIL + event("agent_thought")
        )
        state = replay(path, "strict")
        assert state.unknown_events == {"agent_thought": 2}
        assert state.completed == ("a",)

    def test_failed_blocked_and_attempts(self, tmp_path: Path) -> None:
        """Failures carry error, type and retryable; blocked tasks name their blocker."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as w:
            w.append("plan_started", plan_id="p", journal_version=1)
            for attempt in (1, 2):
                w.append("task_started", task_id="a", attempt=attempt)
                w.append(
                    "task_failed",
                    task_id="a",
                    attempt=attempt,
                    error="boom",
                    error_type="RuntimeError",
                    retryable=True,
                    duration=0.1,
                )
            w.append("task_blocked", task_id="b", blocked_by="a")
            w.append("plan_completed", plan_id="p", status="failed")
        state = replay(path, "strict")
        assert state.failed == ("a",)
        assert state.failures == {
            "a": {"error": "boom", "error_type": "RuntimeError", "retryable": True}
        }
        assert state.tasks["a"].attempts == 2
        assert state.tasks["a"].error == "boom" and state.tasks["a"].retryable is True
        assert state.blocked == {"b": "a"}
        assert state.status == "failed"

    def test_resume_with_from_drops_successes_not_restored(self, tmp_path: Path) -> None:
        """After a plan_resumed, only its restored tasks count as completed."""
        path = tmp_path / "j.jsonl"
        with JournalWriter(path) as w:
            for tid in ("a", "b", "c"):
                w.append("task_started", task_id=tid, attempt=1)
                w.append("task_succeeded", task_id=tid, attempt=1, output=tid)
            w.append("plan_resumed", plan_id="p", restored=["a"], **{"from": "b"})
            w.append("task_started", task_id="b", attempt=2)
            w.append("task_succeeded", task_id="b", attempt=2, output="b2")
        state = replay(path, "strict")  # the second success of b is not a duplicate
        assert state.completed == ("a", "b")
        assert state.outputs == {"a": "a", "b": "b2"}
        assert state.tasks["c"].status == "pending"
        assert state.tasks["b"].attempts == 2
        assert state.resumes == 1

    def test_missing_journal_is_an_input_error(self, tmp_path: Path) -> None:
        """Replaying a file that does not exist says so, as an input error."""
        with pytest.raises(JournalError, match="cannot read the journal"):
            replay(tmp_path / "absent.jsonl")

    def test_mode_is_validated(self, tmp_path: Path) -> None:
        """A misspelled mode fails loudly."""
        with pytest.raises(ValueError, match="tolerant"):
            replay(tmp_path / "j.jsonl", "lenient")  # type: ignore[arg-type]


class TestGemJournal:
    def test_the_gems_journal_replays(self) -> None:
        """A journal in the agentic gem's format replays with the same code, strictly."""
        state = replay(FIXTURES / "gem_journal.jsonl", "strict")
        research, design, implement = state.tasks.values()
        assert state.plan_id == "2b7f9c1d-5e84-4a6b-93d0-7c2e8f1b6a04"
        assert state.status == "partial_failure"
        assert state.journal_version is None
        assert state.completed == (research.task_id, design.task_id)
        assert design.attempts == 2  # counted from task_started: the gem writes no attempt
        assert design.output == {"tools": ["read_file", "write_file", "run_tests"]}
        assert implement.status == "failed"
        assert implement.error_type == "AuthenticationError" and implement.retryable is False
        assert research.description == "Research Ruby coding agent architectures"
