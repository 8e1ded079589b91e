"""Replay of well-formed journals: what each event does to the state a resume reads.

Hand-written journals (provenance: handwritten). Each test pins a field a user sees in
``planeval journal show`` or a resume relies on: statuses, attempts, counters, the restored set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.journal import encode_event, replay


def write(path: Path, *events: tuple[str, dict[str, Any]]) -> Path:
    """A plain (version 1, unchecksummed) journal: one JSON object per line."""
    path.write_text("".join(json.dumps({"event": e, **f}) + "\n" for e, f in events))
    return path


def ok(task_id: str, output: Any = None, **fields: Any) -> tuple[str, dict[str, Any]]:
    return "task_succeeded", {"task_id": task_id, "output": output, **fields}


def started(task_id: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return "task_started", {"task_id": task_id, **fields}


def failed(task_id: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return "task_failed", {"task_id": task_id, **fields}


def resumed(**fields: Any) -> tuple[str, dict[str, Any]]:
    return "plan_resumed", fields


class TestAttempts:
    def test_attempts_count_starts_when_the_journal_has_no_numbers(self, tmp_path: Path) -> None:
        """The gem writes no ``attempt``: every task_started is one more attempt."""
        path = write(tmp_path / "j", started("a"), failed("a"), started("a"), started("a"))
        assert replay(path).tasks["a"].attempts == 3

    def test_an_attempt_number_is_taken_as_written_and_never_lowers(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", started("a", attempt=4), started("a", attempt=2), failed("a"))
        assert replay(path).tasks["a"].attempts == 4

    def test_a_later_higher_attempt_number_raises_the_count(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", started("a", attempt=1), started("a", attempt=5))
        assert replay(path).tasks["a"].attempts == 5

    def test_a_success_without_a_start_counts_one_attempt(self, tmp_path: Path) -> None:
        assert replay(write(tmp_path / "j", ok("a"))).tasks["a"].attempts == 1

    def test_a_success_with_a_higher_attempt_number_raises_the_count(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", started("a", attempt=1), ok("a", attempt=3))
        assert replay(path).tasks["a"].attempts == 3

    def test_a_success_with_a_lower_attempt_number_keeps_the_count(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", started("a", attempt=3), ok("a", attempt=2))
        assert replay(path).tasks["a"].attempts == 3

    def test_a_failure_counts_at_least_one_attempt(self, tmp_path: Path) -> None:
        state = replay(write(tmp_path / "j", failed("a"), failed("b", attempt=4)))
        assert state.tasks["a"].attempts == 1
        assert state.tasks["b"].attempts == 4

    def test_attempts_since_reset_count_from_the_reset(self, tmp_path: Path) -> None:
        """--reset-attempts: the budget counts only attempts after the resume that reset it."""
        path = write(
            tmp_path / "j",
            started("a", attempt=1), failed("a", attempt=1),
            started("a", attempt=2), failed("a", attempt=2),
            started("b", attempt=1), failed("b", attempt=1),
            resumed(restored=[], reset_attempts=["a", 7, ["b"], "ghost"]),
            started("a", attempt=3),
        )  # fmt: skip
        state = replay(path)
        assert state.tasks["a"].attempts == 3
        assert state.tasks["a"].attempts_since_reset == 1
        assert state.tasks["b"].attempts_since_reset == 1  # not reset: every attempt counts
        assert "ghost" not in state.tasks

    def test_a_reset_that_is_not_a_list_resets_nothing(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j", started("a", attempt=2), resumed(restored=[], reset_attempts="a")
        )
        assert replay(path).tasks["a"].attempts_since_reset == 2


class TestOutcomes:
    def test_a_success_records_output_duration_line_and_description(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ("plan_started", {"plan_id": "p"}),
            started("a", description="Fetch"),
            ok("a", output={"n": 1}, duration=2),
        )
        task = replay(path).tasks["a"]
        assert (task.status, task.output, task.line) == ("succeeded", {"n": 1}, 3)
        assert task.duration == 2.0 and type(task.duration) is float
        assert task.description == "Fetch"

    def test_a_success_without_output_keeps_its_duration(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", ("task_succeeded", {"task_id": "a", "duration": 1.5}))
        task = replay(path).tasks["a"]
        assert (task.status, task.output, task.duration) == ("succeeded", None, 1.5)

    def test_a_success_numbered_attempt_0_still_counts_one(self, tmp_path: Path) -> None:
        assert replay(write(tmp_path / "j", ok("a", attempt=0))).tasks["a"].attempts == 1

    def test_a_success_without_output_or_duration(self, tmp_path: Path) -> None:
        task = replay(write(tmp_path / "j", ("task_succeeded", {"task_id": "a"}))).tasks["a"]
        assert task.status == "succeeded" and task.output is None and task.duration is None

    @pytest.mark.parametrize("duration", [True, "1.5", [1], None])
    def test_a_duration_that_is_not_a_number_is_unknown(
        self, tmp_path: Path, duration: Any
    ) -> None:
        path = write(tmp_path / "j", ok("a", duration=duration), failed("b", duration=duration))
        state = replay(path)
        assert state.tasks["a"].duration is None
        assert state.tasks["b"].duration is None

    def test_the_description_of_a_success_replaces_the_start(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j", started("a", description="Old"), ok("a", description="New"),
            started("b", description="Kept"), ok("b", description=7),
        )  # fmt: skip
        state = replay(path)
        assert state.tasks["a"].description == "New"
        assert state.tasks["b"].description == "Kept"

    def test_a_failure_records_error_type_retryable_duration_and_line(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            started("a", description="Fetch"),
            failed("a", error="boom", error_type="Timeout", retryable=False, duration=0.5,
                   description="Fetch it"),
        )  # fmt: skip
        task = replay(path).tasks["a"]
        assert (task.status, task.line, task.duration) == ("failed", 2, 0.5)
        assert (task.error, task.error_type, task.retryable) == ("boom", "Timeout", False)
        assert task.description == "Fetch it"

    def test_failure_fields_of_other_types_are_shown_as_text_or_unknown(
        self, tmp_path: Path
    ) -> None:
        path = write(
            tmp_path / "j",
            failed("a", error=404, error_type=None, retryable="yes"),
            failed("b", error={"code": 1}, error_type=["X"], retryable=1),
        )
        a, b = replay(path).tasks.values()
        assert (a.error, a.error_type, a.retryable) == ("404", None, None)
        assert (b.error, b.error_type, b.retryable) == ("{'code': 1}", "['X']", None)

    def test_a_failed_then_retried_task_ends_succeeded(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            started("a", attempt=1), failed("a", attempt=1, error="flaky"),
            started("a", attempt=2), ok("a", output=2, attempt=2),
        )  # fmt: skip
        state = replay(path, "strict")
        assert state.tasks["a"].status == "succeeded"
        assert state.failed == () and state.completed == ("a",)
        assert state.tasks["a"].line == 4

    def test_a_retry_after_a_failure_shows_the_task_as_started(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", failed("a"), started("a"))
        task = replay(path).tasks["a"]
        assert (task.status, task.line) == ("started", 2)

    def test_a_late_failure_or_block_does_not_undo_a_success(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ok("a", output=1),
            failed("a", error="late"),
            ("task_blocked", {"task_id": "a", "blocked_by": "z"}),
            started("a"),
        )
        task = replay(path).tasks["a"]
        assert (task.status, task.output, task.line, task.error) == ("succeeded", 1, 1, None)
        assert task.attempts == 2  # the late start is still an attempt

    def test_a_blocked_task_names_its_blocker(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            failed("a"),
            ("task_blocked", {"task_id": "b", "blocked_by": "a", "description": "Next"}),
            ("task_blocked", {"task_id": "c", "blocked_by": 3}),
        )
        state = replay(path)
        assert state.blocked == {"b": "a", "c": None}
        assert state.tasks["b"].line == 2 and state.tasks["c"].line == 3
        assert state.tasks["b"].description == "Next"
        assert state.tasks["b"].attempts == 0  # never started
        assert state.tasks["b"].attempts_since_reset == 0

    def test_an_abandoned_attempt_ending_changes_nothing(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            started("a", attempt=1), failed("a", attempt=1, error_type="Timeout"),
            ("task_attempt_ended", {"task_id": "a", "attempt": 1, "outcome": "succeeded",
                                    "description": "Late"}),
        )  # fmt: skip
        task = replay(path).tasks["a"]
        assert (task.status, task.line, task.error_type) == ("failed", 2, "Timeout")
        assert task.description == "Late"


class TestPlanEvents:
    def test_identity_version_and_status(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ("plan_started", {"plan_id": "p1", "plan_hash": "h1", "journal_version": 1}),
            ("plan_interrupted", {}),
            ("plan_started", {"plan_id": 5, "plan_hash": None, "journal_version": "2"}),
        )
        state = replay(path)
        assert (state.plan_id, state.plan_hash, state.journal_version) == ("p1", "h1", 1)
        assert state.status == "running"

    def test_a_resume_names_the_new_plan_and_hash(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ("plan_started", {"plan_id": "p1", "plan_hash": "h1"}),
            resumed(plan_id="p2", plan_hash="h2", restored=[]),
        )
        state = replay(path)
        assert (state.plan_id, state.plan_hash, state.status) == ("p2", "h2", "running")

    def test_counters_after_several_resumes_and_interruptions(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ("plan_started", {"plan_id": "p"}),
            ("plan_interrupted", {"reason": "SIGINT"}),
            resumed(restored=[]),
            ("plan_interrupted", {}),
            resumed(restored=[]),
            ("plan_interrupted", {}),
            resumed(restored=[]),
        )
        state = replay(path)
        assert (state.resumes, state.interruptions, state.status) == (3, 3, "running")
        assert state.events == 7

    def test_the_last_event_sets_the_status(self, tmp_path: Path) -> None:
        events = [("plan_started", {"plan_id": "p"}), ("plan_interrupted", {})]
        assert replay(write(tmp_path / "a", *events)).status == "interrupted"
        done = [*events, ("plan_completed", {"plan_id": "q", "status": "failed"})]
        state = replay(write(tmp_path / "b", *done))
        assert (state.status, state.plan_id) == ("failed", "q")

    def test_a_completion_without_a_status_is_completed(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", ("plan_completed", {"plan_id": 3, "status": 1}))
        state = replay(path)
        assert (state.status, state.plan_id) == ("completed", None)

    def test_no_plan_event_leaves_the_status_unknown(self, tmp_path: Path) -> None:
        state = replay(write(tmp_path / "j", ok("a")))
        assert state.status is None and state.plan_id is None and state.journal_version is None
        assert state.plan_hash is None

    def test_repairs_are_listed_without_their_event_name(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ("journal_repaired", {"line": 4, "bytes": 12}),
            ("journal_repaired", {"line": 9, "bytes": 3}),
        )
        assert [dict(r) for r in replay(path).repairs] == [
            {"line": 4, "bytes": 12},
            {"line": 9, "bytes": 3},
        ]

    def test_unknown_events_are_counted_by_type(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", ("thought", {}), ("thought", {}), ("note", {}), ok("a"))
        state = replay(path, "strict")
        assert state.unknown_events == {"thought": 2, "note": 1}
        assert state.events == 4

    def test_the_structure_fingerprints_of_the_last_plan_are_kept(self, tmp_path: Path) -> None:
        first = {"tasks": {"a": "f1", "b": "f2"}}
        path = write(
            tmp_path / "j",
            ("plan_started", {"structure": first}),
            resumed(restored=[], structure={"tasks": {"a": 1}}),  # not fingerprints: ignored
            resumed(restored=[], structure={"tasks": ["a"]}),
            resumed(restored=[], structure="x"),
        )
        assert dict(replay(path).task_fingerprints or {}) == first["tasks"]
        later = {"tasks": {"a": "f9"}}
        path = write(tmp_path / "k", ("plan_started", {"structure": first}),
                     resumed(restored=[], structure=later))  # fmt: skip
        assert dict(replay(path).task_fingerprints or {}) == later["tasks"]

    def test_an_old_journal_has_no_fingerprints(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", ("plan_started", {"plan_id": "p"}))
        assert replay(path).task_fingerprints is None


class TestRestore:
    def three_done(self) -> list[tuple[str, dict[str, Any]]]:
        return [ok(t, output=t.upper()) for t in ("a", "b", "c")]

    def test_a_failed_task_listed_as_restored_is_not_completed(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j", ok("a", output=1), failed("b"), resumed(restored=["a", "b", "zz"])
        )
        state = replay(path)
        assert state.completed == ("a",)
        assert state.tasks["b"].status == "failed"
        assert "zz" not in state.tasks

    def test_completed_keeps_completion_order(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", *self.three_done(), resumed(restored=["c", "a"]))
        state = replay(path)
        assert state.completed == ("a", "c")
        assert state.tasks["b"].status == "pending"
        assert state.is_completed("a") and not state.is_completed("b")

    def test_a_resume_without_a_restored_list_changes_nothing(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", *self.three_done(), resumed(), resumed(restored="a"))
        state = replay(path)
        assert state.completed == ("a", "b", "c") and state.resumes == 2

    def test_non_string_ids_in_restored_are_ignored(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", *self.three_done(), resumed(restored=[1, None, "b"]))
        assert replay(path).completed == ("b",)

    def test_a_renamed_task_takes_the_output_of_its_old_id(self, tmp_path: Path) -> None:
        """matched_by_description: the new id is restored from the old task's success."""
        path = write(
            tmp_path / "j",
            started("old", attempt=2, description="Fetch"),
            ok("old", output={"v": 1}, duration=0.5, description="Fetch"),
            ok("b", output=2),
            resumed(restored=["new", "b"], matched_by_description={"new": "old"}),
        )
        state = replay(path)
        assert state.completed == ("b", "new")
        new = state.tasks["new"]
        assert (new.task_id, new.status, new.output) == ("new", "succeeded", {"v": 1})
        assert (new.attempts, new.duration, new.description) == (2, 0.5, "Fetch")
        assert state.tasks["old"].status == "pending"
        assert state.outputs == {"b": 2, "new": {"v": 1}}

    def test_a_rename_from_a_task_that_did_not_succeed_restores_nothing(
        self, tmp_path: Path
    ) -> None:
        path = write(
            tmp_path / "j",
            failed("old"),
            ok("b"),
            resumed(restored=["new", "gone", "b"],
                    matched_by_description={"new": "old", "gone": "nowhere"}),
        )  # fmt: skip
        state = replay(path)
        assert state.completed == ("b",)
        assert "new" not in state.tasks and "gone" not in state.tasks

    def test_a_rename_map_that_is_not_an_object_is_ignored(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j", ok("old"), resumed(restored=["new", "old"], matched_by_description=[1])
        )
        state = replay(path)
        assert state.completed == ("old",) and "new" not in state.tasks

    @pytest.mark.parametrize("source", [1, ["old"]])
    def test_a_rename_to_a_non_string_source_is_ignored(self, tmp_path: Path, source: Any) -> None:
        path = write(
            tmp_path / "j",
            ok("old"),
            resumed(restored=["new"], matched_by_description={"new": source}),
        )
        state = replay(path)
        assert state.completed == () and "new" not in state.tasks

    def test_a_task_run_again_after_a_resume_is_not_a_duplicate(self, tmp_path: Path) -> None:
        path = write(
            tmp_path / "j",
            ok("a", output=1),
            resumed(restored=[]),
            started("a"),
            ok("a", output=2),
        )
        state = replay(path, "strict")
        assert state.outputs == {"a": 2} and state.tasks["a"].line == 4


class TestDuplicates:
    def test_a_second_success_after_damage_with_another_output_is_suspect(
        self, tmp_path: Path
    ) -> None:
        """Which output is current cannot be told: the task is not restored at all."""
        path = tmp_path / "j"
        path.write_bytes(
            b"garbage\n"
            + b'{"event":"task_succeeded","task_id":"a","output":1}\n'
            + b'{"event":"task_succeeded","task_id":"b","output":5}\n'
            + b'{"event":"task_succeeded","task_id":"a","output":2}\n'
            + b'{"event":"task_succeeded","task_id":"b","output":5}\n'
        )
        state = replay(path)
        assert state.suspect == ("a", "b")  # every task journalled after the damaged line
        assert state.completed == ()
        assert state.tasks["a"].status == "unknown"
        assert [d.line for d in state.damage] == [1, 4, 5]
        assert state.damage[1].reason == (
            "a second task_succeeded for 'a' with another output after a damaged line: neither"
            " output is trusted, the task runs again"
        )
        assert state.damage[1].excerpt == ""
        assert "duplicate task_succeeded for 'b' (first at line 3)" in state.damage[2].reason

    def test_without_damage_a_different_second_output_is_a_duplicate(self, tmp_path: Path) -> None:
        path = write(tmp_path / "j", ok("a", output=1), ok("a", output=2))
        state = replay(path)
        assert state.suspect == () and state.outputs == {"a": 1}
        assert state.damage[0].line == 2 and "the first output is kept" in state.damage[0].reason
        assert state.damage[0].excerpt == ""


class TestTaskStates:
    def test_tasks_are_a_mapping_in_first_seen_order(self, tmp_path: Path) -> None:
        state = replay(write(tmp_path / "j", started("b"), ok("a"), failed("c")))
        assert list(state.tasks) == ["b", "a", "c"] and len(state.tasks) == 3
        assert "a" in state.tasks and "z" not in state.tasks
        assert state.tasks["a"] is state.tasks["a"]  # frozen once
        assert repr(state.tasks) == "<3 task states>"
        with pytest.raises(KeyError):
            state.tasks["z"]

    def test_to_dict_lists_what_journal_show_prints(self, tmp_path: Path) -> None:
        state = replay(write(tmp_path / "j", ok("a"), failed("b", error="x")))
        shown = state.to_dict()
        assert shown["completed"] == ["a"] and shown["failed"] == ["b"]
        assert [t["status"] for t in shown["tasks"]] == ["succeeded", "failed"]


def test_checksummed_and_plain_events_count_the_same(tmp_path: Path) -> None:
    """A planeval (checksummed) journal replays to the same state as the plain one."""
    events = [
        ("plan_started", {"plan_id": "p", "journal_version": 2}),
        ("task_started", {"task_id": "a", "attempt": 1}),
        ("task_succeeded", {"task_id": "a", "attempt": 1, "output": [1], "duration": 0.1}),
        ("plan_completed", {"plan_id": "p", "status": "completed"}),
    ]
    path = tmp_path / "j"
    path.write_bytes(b"".join(encode_event(e, f) for e, f in events))
    state = replay(path, "strict")
    assert (state.events, state.journal_version, state.status) == (4, 2, "completed")
    assert state.outputs == {"a": [1]}
