"""Checksummed journal lines: a damaged line is never restored, whatever byte was flipped."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from harness.execute import TaskContext, decide_resume, execute
from harness.execute._graph import TaskGraph
from harness.journal import JournalDamagedError, encode_event, replay
from harness.plan import Plan

PLAN = Plan.from_dict(
    {
        "plan_id": "flip-test",
        "goal": "Hand-written diamond for byte flips",
        "tasks": [
            {"id": "a", "description": "Fetch"},
            {"id": "b", "description": "Extract", "needs": {"x": "a"}},
            {"id": "c", "description": "Classify", "needs": {"x": "a"}},
            {"id": "d", "description": "Refund", "needs": {"y": "b", "z": "c"}},
        ],
    },
    source="handwritten",
)


def _agent(run: int, fail_once: set[str]) -> Any:
    def agent(context: TaskContext) -> dict[str, Any]:
        if context.task.id in fail_once:
            fail_once.discard(context.task.id)
            raise RuntimeError("flaky once")
        return {"task": context.task.id, "run": run, "inputs": dict(context.inputs)}

    return agent


def _small_journal(path: Path) -> dict[str, Any]:
    """Run 1 (c fails once, then succeeds), then a resume --from b whose outputs differ."""
    first = execute(PLAN, path, agent=_agent(1, {"c"}), backoff=0.0, max_concurrency=1)
    assert first.ok
    second = execute(
        PLAN, path, agent=_agent(2, set()), resume=True, from_task="b", max_concurrency=1
    )
    assert second.ok and second.outputs["b"]["run"] == 2 and second.outputs["a"]["run"] == 1
    return dict(second.outputs)


def _restored(path: Path) -> dict[str, Any]:
    state = replay(path)
    decision = decide_resume(
        PLAN, TaskGraph(PLAN), state, from_task=None, force=False, source=str(path)
    )
    return decision.outputs


def test_every_line_carries_a_crc32_that_replay_checks(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    _small_journal(journal)
    for line in journal.read_text().splitlines():
        assert json.loads(line)["crc32"]  # older readers see one more field
    assert replay(journal, "strict").journal_version == 3


def test_no_single_byte_flip_ever_restores_a_wrong_output(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    expected = _small_journal(journal)
    assert _restored(journal) == expected
    original = journal.read_bytes()
    rng = random.Random(20261201)
    flipped = tmp_path / "flipped.jsonl"
    undetected = 0
    for index in range(len(original)):
        data = bytearray(original)
        data[index] ^= rng.randrange(1, 256)
        flipped.write_bytes(bytes(data))
        restored = _restored(flipped)
        wrong = {t: v for t, v in restored.items() if v != expected[t]}
        assert not wrong, f"flip at byte {index} restored a wrong output: {wrong}"
        try:
            replay(flipped, "strict")
        except JournalDamagedError as exc:
            assert exc.damage.line >= 1
        else:
            undetected += 1  # harmless: everything restored is right (checked above)
            assert restored == expected, f"flip at byte {index}"
        if index % 97 == 0:  # now and then, really resume the damaged journal
            resumed = execute(PLAN, flipped, agent=_agent(3, set()), resume=True, fsync_every=1000)
            assert resumed.ok
            for task_id in resumed.restored:
                assert resumed.outputs[task_id] == expected[task_id]
    assert undetected < len(original) // 50  # only flips that left the meaning whole


def test_a_damaged_success_runs_again_with_its_idempotency_key(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    execute(PLAN, journal, agent=_agent(1, set()), max_concurrency=1)
    lines = journal.read_bytes().splitlines(keepends=True)
    index = next(
        i for i, raw in enumerate(lines) if b'"task_succeeded","at"' in raw and b'"b"' in raw
    )
    lines[index] = lines[index].replace(b'"run":1', b'"run":7')  # silent corruption
    journal.write_bytes(b"".join(lines))
    with pytest.raises(JournalDamagedError) as caught:
        replay(journal, "strict")
    assert caught.value.damage.line == index + 1
    assert "checksum mismatch" in caught.value.damage.reason
    keys = []

    def agent(context: TaskContext) -> dict[str, Any]:
        keys.append((context.task.id, context.idempotency_key))
        return _agent(1, set())(context)

    resumed = execute(PLAN, journal, agent=agent, resume=True, max_concurrency=1)
    # b's line is lost; the tasks journalled after it (c, d) are unknown: all run again,
    # each with its own idempotency key, once.
    assert resumed.ok and resumed.executed == ("b", "c", "d")
    assert keys == [("b", "flip-test:b"), ("c", "flip-test:c"), ("d", "flip-test:d")]
    assert resumed.outputs["b"]["run"] == 1
    keys.clear()
    assert execute(PLAN, journal, agent=agent, resume=True).ok and not keys  # settled


def test_old_journals_without_checksums_still_replay(tmp_path: Path) -> None:
    journal = tmp_path / "old.jsonl"
    lines = [
        {"event": "plan_started", "at": "t", "plan_id": "flip-test", "journal_version": 1},
        {"event": "task_started", "at": "t", "task_id": "a", "attempt": 1},
        {"event": "task_succeeded", "at": "t", "task_id": "a", "attempt": 1, "output": 5},
    ]
    journal.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert replay(journal, "strict").outputs == {"a": 5}
    resumed = execute(PLAN, journal, resume=True)
    assert resumed.ok and resumed.restored == ("a",)
    state = replay(journal, "strict")  # the old lines and the new checksummed ones
    assert state.outputs["a"] == 5 and len(state.completed) == 4


def test_a_version_2_line_that_lost_its_checksum_is_damaged(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(
        encode_event("plan_started", {"plan_id": "p", "journal_version": 2})
        + b'{"event":"task_succeeded","at":"t","task_id":"a","output":null}\n'
    )
    state = replay(journal)
    assert state.outputs == {}
    assert "no checksum" in state.damage[0].reason and state.damage[0].line == 2
