"""Chained checksums: a deleted, duplicated or moved interior line is detected, reported with
its line number, refused by a strict resume, and never restores an old output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.execute import StopSignal, TaskContext, TaskError, execute
from harness.journal import JournalDamagedError, JournalWriter, encode_event, replay
from harness.journal._events import link_of
from harness.plan import Plan
from tests.cli_helpers import run_cli

FIXTURES = Path(__file__).parent / "fixtures"
PLAN = Plan.from_dict(
    {
        "plan_id": "chain-test",
        "goal": "Hand-written chain for deleted lines",
        "tasks": [
            {"id": "a", "description": "Fetch"},
            {"id": "b", "description": "Extract", "needs": {"x": "a"}},
            {"id": "c", "description": "Classify", "needs": {"x": "b"}},
            {"id": "d", "description": "Refund", "needs": {"y": "c"}},
        ],
    },
    source="handwritten",
)


class Agent:
    """Outputs say which run made them; every call is counted with its idempotency key."""

    def __init__(self, run: int) -> None:
        self.run = run
        self.calls: list[tuple[str, str]] = []

    def __call__(self, context: TaskContext) -> dict[str, Any]:
        self.calls.append((context.task.id, context.idempotency_key))
        return {"task": context.task.id, "run": self.run}


def _journal(path: Path, *, from_b: bool = True) -> None:
    """Run 1 completes; with ``from_b``, a resume --from b (run 2) remakes b, c and d."""
    assert execute(PLAN, path, agent=Agent(1), max_concurrency=1, fsync_every=0).ok
    if from_b:
        again = execute(PLAN, path, agent=Agent(2), resume=True, from_task="b", fsync_every=0)
        assert again.ok and again.executed == ("b", "c", "d")


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_every_line_is_chained_to_the_one_before(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal)
    previous = None
    for raw in journal.read_text().splitlines(keepends=True):
        entry = json.loads(raw)
        assert entry["prev"] == link_of(previous)  # older readers see one more field
        previous = raw
    assert json.loads(_lines(journal)[0])["prev"] == "00000000"
    assert replay(journal, "strict").journal_version == 3


def _edits(count: int) -> list[tuple[str, int]]:
    """Every interior deletion, duplication and swap with the next line."""
    edits = [("delete", i) for i in range(count - 1)]  # the last line: a truncation
    edits += [("duplicate", i) for i in range(count - 1)]
    edits += [("swap", i) for i in range(count - 1)]
    return edits


def _edit(lines: list[bytes], kind: str, index: int) -> tuple[list[bytes], int]:
    """The edited lines and the 1-based line at which the chain must break."""
    if kind == "delete":
        return lines[:index] + lines[index + 1 :], index + 1
    if kind == "duplicate":
        return lines[: index + 1] + lines[index:], index + 2
    swapped = [*lines[:index], lines[index + 1], lines[index], *lines[index + 2 :]]
    return swapped, index + 1


def test_every_deleted_duplicated_or_moved_line_is_detected_at_its_place(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal)
    lines = _lines(journal)
    edited = tmp_path / "edited.jsonl"
    for kind, index in _edits(len(lines)):
        changed, where = _edit(lines, kind, index)
        edited.write_bytes(b"".join(changed))
        with pytest.raises(JournalDamagedError) as caught:
            replay(edited, "strict")
        first = caught.value.damage
        assert first.line == where, (kind, index)
        if kind != "duplicate" or b"task_succeeded" not in lines[index]:
            assert first.gap and "chain of checksums breaks" in first.reason, (kind, index)


def test_verify_and_a_strict_resume_name_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal)
    lines = _lines(journal)
    gone = next(i for i, raw in enumerate(lines) if b'"plan_resumed"' in raw)
    journal.write_bytes(b"".join(lines[:gone] + lines[gone + 1 :]))
    verified = run_cli(capsys, "journal", "verify", str(journal), "--strict")
    assert verified.code == 1
    assert f"line {gone + 1}: the chain of checksums breaks here" in verified.out
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN.to_dict()))
    before = journal.read_bytes()
    refused = run_cli(
        capsys, "execute", str(plan), "--journal", str(journal), "--resume", "--strict"
    )
    assert refused.code == 2
    assert f"line {gone + 1}" in refused.err and "chain of checksums" in refused.err
    assert "Traceback" not in refused.err
    assert journal.read_bytes() == before  # nothing appended


def test_a_strict_resume_still_cuts_a_torn_last_line(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal, from_b=False)
    lines = _lines(journal)
    journal.write_bytes(b"".join(lines[:-2]) + lines[-2][:30])  # killed mid-write
    resumed = execute(PLAN, journal, agent=Agent(3), resume=True, strict=True)
    assert resumed.ok
    assert replay(journal, "strict").status == "completed"


def test_deleting_the_from_line_never_restores_the_old_output(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal)
    lines = _lines(journal)
    gone = next(i for i, raw in enumerate(lines) if b'"plan_resumed"' in raw)
    journal.write_bytes(b"".join(lines[:gone] + lines[gone + 1 :]))
    agent = Agent(3)
    resumed = execute(PLAN, journal, agent=agent, resume=True, max_concurrency=1)
    assert resumed.ok
    # Every task is unknown: b, c and d are journalled after the gap, and a's success before
    # it may have been dropped by the lost line (a resume --from a would have): run again.
    for task_id in ("a", "b", "c", "d"):
        assert resumed.outputs[task_id]["run"] == 3
    assert agent.calls == [(t, f"chain-test:{t}") for t in ("a", "b", "c", "d")]
    again = Agent(4)
    assert execute(PLAN, journal, agent=again, resume=True).ok and again.calls == []


@pytest.mark.parametrize("kind", ["delete", "duplicate", "swap"])
def test_a_tolerant_resume_runs_what_follows_the_gap_once(tmp_path: Path, kind: str) -> None:
    journal = tmp_path / "j.jsonl"
    _journal(journal)
    lines = _lines(journal)
    edited = tmp_path / "edited.jsonl"
    for kind_, index in _edits(len(lines)):
        if kind_ != kind:
            continue
        changed, _ = _edit(lines, kind, index)
        edited.write_bytes(b"".join(changed))
        calls: list[str] = []
        for run in (3, 4, 5):
            agent = Agent(run)
            result = execute(PLAN, edited, agent=agent, resume=True, fsync_every=0)
            assert result.ok, (kind, index)
            calls += [task for task, _ in agent.calls]
            for task_id, output in result.outputs.items():  # never run 1's b, c or d
                assert output["run"] != 1 or task_id == "a", (kind, index, task_id)
        assert all(calls.count(t) <= 1 for t in calls), (kind, index, calls)


def test_a_journal_without_the_chain_still_reads_and_resumes(tmp_path: Path) -> None:
    """Version 2 (checksums, no chain: what planeval wrote before) gains the chain on resume."""
    journal = tmp_path / "v2.jsonl"
    journal.write_bytes(
        encode_event("plan_started", {"plan_id": "chain-test", "journal_version": 2})
        + encode_event("task_started", {"task_id": "a", "attempt": 1})
        + encode_event("task_succeeded", {"task_id": "a", "attempt": 1, "output": 7})
    )
    assert replay(journal, "strict").outputs == {"a": 7}
    resumed = execute(PLAN, journal, agent=Agent(2), resume=True)
    assert resumed.ok and resumed.restored == ("a",)
    state = replay(journal, "strict")
    assert state.outputs["a"] == 7 and len(state.completed) == 4
    lines = _lines(journal)
    assert json.loads(lines[3])["prev"] == json.loads(lines[2])["crc32"]


def test_the_gem_journal_gains_the_chain_after_its_last_line(tmp_path: Path) -> None:
    journal = tmp_path / "gem.jsonl"
    shutil.copy(FIXTURES / "gem_journal.jsonl", journal)
    last = _lines(journal)[-1]
    with JournalWriter(journal) as writer:
        writer.append("plan_resumed", plan_id="p", restored=[])
        writer.append("plan_completed", plan_id="p", status="completed")
    appended = _lines(journal)
    assert json.loads(appended[-2])["prev"] == link_of(last)  # CRC-32 of the gem's line
    assert replay(journal, "strict").status == "completed"
    journal.write_bytes(b"".join(appended[:-2] + appended[-1:]))  # lose the resume
    assert replay(journal).damage[0].gap


def test_two_writers_and_a_repaired_tail_keep_the_chain(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    with JournalWriter(journal) as one, JournalWriter(journal) as two:
        for i in range(5):
            (one if i % 2 else two).append("task_started", task_id=f"t{i}", attempt=1)
    with open(journal, "ab") as handle:
        handle.write(b'{"event":"task_succ')  # a writer died mid-line
    with JournalWriter(journal) as writer:
        writer.append("task_started", task_id="t9", attempt=1)
    state = replay(journal, "strict")
    assert len(state.repairs) == 1 and len(state.tasks) == 6


UNRELATED = Plan.from_dict(
    {
        "plan_id": "lost-from",
        "goal": "Hand-written plan: a --from resume that ran only an unrelated task",
        "tasks": [
            {"id": "a", "description": "Fetch"},
            {"id": "x", "description": "Audit", "on_failure": "continue"},
            {"id": "b", "description": "Extract", "needs": {"x": "a"}},
            {"id": "c", "description": "Pay", "needs": {"y": "b"}},
        ],
    },
    source="handwritten",
)


class StopsAfter(Agent):
    """Run 2: x (failed in run 1) runs first, then the execution is stopped before b."""

    def __init__(self, run: int, stop: StopSignal) -> None:
        super().__init__(run)
        self.stop = stop

    def __call__(self, context: TaskContext) -> dict[str, Any]:
        output = super().__call__(context)
        if context.task.id == "x":
            self.stop.set()
        return output


def _unrelated_journal(path: Path) -> None:
    """Run 1: x fails, the rest succeeds. Run 2, ``--from b``: x runs, then a stop, before b."""

    class FailsX(Agent):
        def __call__(self, context: TaskContext) -> dict[str, Any]:
            if context.task.id == "x":
                raise TaskError("audit down", retryable=False)
            return super().__call__(context)

    first = execute(UNRELATED, path, agent=FailsX(1), max_concurrency=1, fsync_every=0)
    assert set(first.outputs) == {"a", "b", "c"}
    stop = StopSignal()
    second = execute(
        UNRELATED,
        path,
        agent=StopsAfter(2, stop),
        resume=True,
        from_task="b",
        max_concurrency=1,
        fsync_every=0,
        stop=stop,
    )
    assert second.status == "interrupted" and second.executed == ("x",)


def test_a_lost_from_line_followed_only_by_other_tasks_never_restores_the_old_output(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "j.jsonl"
    _unrelated_journal(journal)
    lines = _lines(journal)
    gone = next(i for i, raw in enumerate(lines) if b'"plan_resumed"' in raw)
    journal.write_bytes(b"".join(lines[:gone] + lines[gone + 1 :]))
    # Nothing about b or c follows the gap, but the lost line may have been the --from that
    # dropped their outputs: they are unknown, not run 1's.
    state = replay(journal)
    assert state.tasks["b"].status == "unknown" and state.tasks["c"].status == "unknown"
    agent = Agent(3)
    resumed = execute(UNRELATED, journal, agent=agent, resume=True, max_concurrency=1)
    assert resumed.ok
    assert {t: resumed.outputs[t]["run"] for t in ("b", "c")} == {"b": 3, "c": 3}
    again = Agent(4)
    assert execute(UNRELATED, journal, agent=again, resume=True).ok and again.calls == []


@pytest.mark.parametrize("kind", ["delete", "flip"])
def test_every_single_line_loss_after_a_from_that_ran_other_tasks_is_decided_once(
    tmp_path: Path, kind: str
) -> None:
    """The single-line sweep (each line deleted, or its middle byte flipped) of a journal
    whose --from resume ran only an unrelated task: run 1's b and c are never restored, and
    three resumes run each task at most once."""
    base = tmp_path / "base.jsonl"
    _unrelated_journal(base)
    lines = _lines(base)
    edited = tmp_path / "edited.jsonl"
    for index in range(len(lines) - 1):  # the last line: a truncation, not detectable
        changed = list(lines)
        if kind == "delete":
            del changed[index]
        else:
            line = bytearray(changed[index])
            line[len(line) // 2] ^= 0x5A
            changed[index] = bytes(line)
        edited.write_bytes(b"".join(changed))
        calls: list[str] = []
        for run in (3, 4, 5):
            agent = Agent(run)
            result = execute(UNRELATED, edited, agent=agent, resume=True, fsync_every=0)
            assert result.ok, (kind, index)
            calls += [task for task, _ in agent.calls]
            for task_id in ("b", "c"):  # run 2 did not remake them: never run 1's output
                assert result.outputs[task_id]["run"] != 1, (kind, index, task_id)
        assert all(calls.count(t) <= 1 for t in calls), (kind, index, calls)
