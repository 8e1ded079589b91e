"""The single-line corruption sweep: flip a byte of a journal that has a ``--from`` resume,
then resume five times, counting the agent's real calls in a side log planeval does not
manage. Shared by the test (one byte per line) and ``benchmarks/soak_damage.py`` (every byte).

What it checks, per corrupted journal:

- each task runs at most once more over the five resumes (damage never loops);
- no resume restores an output older than the current one (run 1's ``b`` or ``c``, which the
  ``--from`` resume replaced);
- ``journal show`` (the replay) and the resume agree: a resume restores exactly the tasks
  the replay before it lists as succeeded, except the first, which may run some of them again
  (those downstream of a task the damage hides);
- every resume completes.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.execute import TaskContext, execute
from harness.journal import replay
from harness.plan import Plan

PLAN = Plan.from_dict(
    {
        "plan_id": "damage-sweep",
        "goal": "Hand-written plan for the single-line corruption sweep",
        "tasks": [
            {"id": "a", "description": "Fetch"},
            {"id": "b", "description": "Extract", "needs": {"x": "a"}},
            {"id": "c", "description": "Pay", "needs": {"y": "b"}},
            {"id": "d", "description": "Classify", "needs": {"x": "a"}},
            {"id": "e", "description": "Audit"},
        ],
    },
    source="handwritten",
)
CURRENT = {"a": 1, "b": 2, "c": 2, "d": 1, "e": 1}
"""The run whose output is current for each task after the base journal's two executions."""
RESUMES = 5


class SideLogAgent:
    """Appends each call's task id to a file of its own, then returns which run made it."""

    def __init__(self, log: Path, run: int, fail_once: frozenset[str] = frozenset()) -> None:
        self.log = log
        self.run = run
        self.fail_once = set(fail_once)

    def __call__(self, context: TaskContext) -> dict[str, Any]:
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (context.task.id + "\n").encode())
        finally:
            os.close(fd)
        if context.task.id in self.fail_once:
            self.fail_once.discard(context.task.id)
            raise RuntimeError("flaky once")
        return {"task": context.task.id, "run": self.run}


def base_journal(path: Path) -> bytes:
    """Run 1 (d fails once, then succeeds), then ``--from b`` (run 2 remakes b and c)."""
    log = path.with_name("base.calls")
    agent = SideLogAgent(log, 1, frozenset({"d"}))
    assert execute(PLAN, path, agent=agent, backoff=0.0, max_concurrency=1, fsync_every=0).ok
    again = execute(
        PLAN, path, agent=SideLogAgent(log, 2), resume=True, from_task="b", fsync_every=0
    )
    assert again.ok and set(again.executed) == {"b", "c"}
    return path.read_bytes()


@dataclass
class SweepFigures:
    """What a sweep counted."""

    trials: int = 0
    resumes: int = 0
    reruns: int = 0
    """Agent calls over every trial's five resumes."""
    double_executions: int = 0
    """Tasks called more than once over one trial's five resumes."""
    wrong_outputs: int = 0
    disagreements: int = 0
    """Resumes that restored other tasks than the replay before them listed as succeeded."""
    not_completed: int = 0
    failures: list[str] = field(default_factory=list)

    def ok(self) -> bool:
        return (
            not (self.double_executions or self.wrong_outputs or self.disagreements)
            and not self.not_completed
        )


def flips(original: bytes, every_byte: bool) -> Iterator[tuple[int, int]]:
    """(line number, byte offset): the middle byte of each line, or every byte."""
    start = 0
    for number, line in enumerate(original.splitlines(keepends=True), 1):
        if every_byte:
            for offset in range(start, start + len(line)):
                yield number, offset
        else:
            yield number, start + len(line) // 2
        start += len(line)


def sweep(work: Path, *, every_byte: bool = False, limit: int | None = None) -> SweepFigures:
    """Corrupt one byte at a time and resume five times; count what happened."""
    original = base_journal(work / "base.jsonl")
    figures = SweepFigures()
    journal = work / "flipped.jsonl"
    log = work / "flipped.calls"
    for count, (number, offset) in enumerate(flips(original, every_byte)):
        if limit is not None and count >= limit:
            break
        data = bytearray(original)
        data[offset] ^= 0x5A if data[offset] != 0x5A else 0x01
        journal.write_bytes(bytes(data))
        log.unlink(missing_ok=True)
        figures.trials += 1
        _trial(journal, log, f"line {number}, byte {offset}", figures)
    return figures


def _trial(journal: Path, log: Path, where: str, figures: SweepFigures) -> None:
    for resume in range(RESUMES):
        shown = replay(journal)
        result = execute(
            PLAN, journal, agent=SideLogAgent(log, 3 + resume), resume=True, fsync_every=0
        )
        figures.resumes += 1
        if not result.ok:
            figures.not_completed += 1
            figures.failures.append(f"{where}: resume {resume + 1} ended {result.status}")
        succeeded = {t for t in shown.completed if t in CURRENT}
        restored = set(result.restored)
        if not restored <= succeeded or (resume and restored != succeeded):
            figures.disagreements += 1
            figures.failures.append(
                f"{where}: resume {resume + 1} restored {sorted(restored)}, the journal "
                f"showed {sorted(succeeded)} succeeded"
            )
        for task_id in restored:
            run = result.outputs[task_id]["run"]
            if run < CURRENT[task_id]:
                figures.wrong_outputs += 1
                figures.failures.append(f"{where}: {task_id} restored run {run}'s output")
    calls = Counter(log.read_text().split()) if log.exists() else Counter()
    figures.reruns += sum(calls.values())
    for task_id, n in calls.items():
        if n > 1:
            figures.double_executions += 1
            figures.failures.append(f"{where}: {task_id} ran {n} times over {RESUMES} resumes")
