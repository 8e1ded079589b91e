"""Damage never loops: a damaged line is handled once, by one resume, and every later resume
keeps that decision; the attempt budget is not reset by it; the journal and the resume agree."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.execute import execute
from harness.journal import replay
from tests.cli_helpers import run_cli
from tests.execute._damage_sweep import PLAN, RESUMES, SideLogAgent, base_journal, sweep


def test_every_single_line_corruption_then_five_resumes_runs_each_task_at_most_once_more(
    tmp_path: Path,
) -> None:
    """One flipped byte in the middle of each line in turn (the full sweep, every byte, is
    ``benchmarks/soak_damage.py``)."""
    figures = sweep(tmp_path)
    lines = (tmp_path / "base.jsonl").read_bytes().count(b"\n")
    assert figures.trials == lines and figures.resumes == lines * RESUMES
    assert figures.failures == []
    assert figures.ok()


def _flip_the_from_line(journal: Path) -> int:
    lines = journal.read_bytes().splitlines(keepends=True)
    index = next(i for i, raw in enumerate(lines) if b'"from":"b"' in raw)
    damaged = bytearray(lines[index])
    damaged[len(damaged) // 2] ^= 0x20
    lines[index] = bytes(damaged)
    journal.write_bytes(b"".join(lines))
    return index + 1


def test_a_damaged_from_line_runs_its_tasks_once_not_on_every_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: the --from resume's line is flipped; five plain resumes follow."""
    journal = tmp_path / "base.jsonl"
    base_journal(journal)
    line = _flip_the_from_line(journal)
    shown = json.loads(run_cli(capsys, "journal", "show", str(journal), "--format", "json").out)
    statuses = {t["task_id"]: t["status"] for t in shown["tasks"]}
    assert statuses["b"] == statuses["c"] == "unknown"  # not "pending" while resumes complete
    assert shown["damage"][0]["line"] == line
    log = tmp_path / "calls"
    for run in range(3, 3 + RESUMES):
        result = execute(PLAN, journal, agent=SideLogAgent(log, run), resume=True)
        assert result.ok
        state = replay(journal)
        assert set(state.completed) == set(PLAN.task_ids)  # the journal says what it did
    calls = Counter(log.read_text().split())
    # What the lost resume decided cannot be read (it could have been --from a): every task
    # runs again once, with its key, and never again.
    assert calls == Counter({t: 1 for t in PLAN.task_ids})
    assert replay(journal).outputs["c"]["run"] == 3
    resumed = [json.loads(x) for x in journal.read_text().splitlines()[line:] if "resumed" in x]
    assert sorted(resumed[-RESUMES]["in_doubt"]) == sorted(PLAN.task_ids)
    assert "reset_attempts" not in resumed[-RESUMES]  # damage is no reason for a new budget
    assert all("in_doubt" not in r for r in resumed[-RESUMES + 1 :])


def test_damage_does_not_reset_the_total_budget(tmp_path: Path) -> None:
    """The --from line is flipped and c now always fails: the resumes that run c again
    because of the damage count its attempts from the journal and never reset them."""
    journal = tmp_path / "base.jsonl"
    base_journal(journal)  # c ran twice: once in run 1, once after --from b
    _flip_the_from_line(journal)  # ... and the line that reset its budget is lost
    log = tmp_path / "calls"

    class PaymentDown(SideLogAgent):
        def __call__(self, context):  # type: ignore[no-untyped-def]
            output = super().__call__(context)
            if context.task.id == "c":
                raise RuntimeError("the payment service is down")
            return output

    for run in range(3, 3 + RESUMES):
        result = execute(
            PLAN,
            journal,
            agent=PaymentDown(log, run),
            resume=True,
            max_attempts=2,
            max_total_attempts=4,
            backoff=0.0,
        )
        assert not result.ok
    assert Counter(log.read_text().split())["c"] == 2  # 4 in all, 2 of them journalled before
    assert replay(journal).tasks["c"].error_type == "AttemptsExhausted"
