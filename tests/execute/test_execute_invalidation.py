"""Invalidation follows the data (the Make/Bazel rule): a success is reused only while
everything its agent saw is unchanged: the task, the goal when the agent reads it, and the
outputs of the tasks it needs. ``--keep-outputs`` accepts an edit explicitly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import JournalError
from harness.execute import (
    READS,
    TaskContext,
    TaskError,
    agent_reads,
    demo_agent,
    execute,
    model_agent,
    reads,
)
from harness.journal import JournalWriter, replay
from harness.plan import Plan
from tests.cli_helpers import run_cli


def _plan(*, plan_id: str | None = "refunds", goal: str = "Refund a damaged order", **edits: Any):
    tasks: list[dict[str, Any]] = [
        {"id": "fetch", "description": "Fetch the email"},
        {
            "id": "extract",
            "description": "Extract the order",
            "needs": {"email": "fetch"},
            "agent": {"name": "extractor", "instructions": "Answer with the order number"},
        },
        {"id": "refund", "description": "Issue the refund", "needs": {"order": "extract"}},
        {"id": "audit", "description": "Write the audit entry"},
    ]
    for task in tasks:
        task.update(edits.get(task["id"], {}))
    data: dict[str, Any] = {"goal": goal, "tasks": tasks}
    if plan_id is not None:
        data["plan_id"] = plan_id
    return Plan.from_dict(data, source="handwritten")


class Calls:
    """Counts calls; reads the goal unless told otherwise (undeclared agents read all)."""

    def __init__(self, fail: set[str] | None = None, tag: str = "") -> None:
        self.calls: list[str] = []
        self.fail = fail or set()
        self.tag = tag

    def __call__(self, context: TaskContext) -> dict[str, Any]:
        self.calls.append(context.task.id)
        if context.task.id in self.fail:
            raise TaskError("the upstream service is down", retryable=False)
        return {
            "task": context.task.id,
            "goal": context.plan.goal,
            "inputs": dict(context.inputs),
            "tag": self.tag,
        }


def _resumed(journal: Path) -> dict[str, Any]:
    return [e for e in map(json.loads, journal.read_text().splitlines()) if "forced" in e][-1]


def test_the_shipped_agents_declare_what_they_read() -> None:
    assert "goal" in agent_reads(model_agent)
    assert agent_reads(demo_agent) == {"task", "inputs"}
    assert agent_reads(lambda context: None) == READS  # undeclared: everything
    with pytest.raises(ValueError, match="unknown parts"):
        reads("neighbours")


def test_a_fixed_upstream_reruns_what_was_built_on_its_failure(journal: Path) -> None:
    """on_failure: continue: refund ran on extract's failure; the resume fixes extract, and
    refund runs again on the fixed output (it kept the degraded output before)."""
    plan = _plan(extract={"on_failure": "continue"})
    first = execute(plan, journal, agent=Calls(fail={"extract"}))
    assert first.outputs["refund"]["inputs"] == {"order": None}
    agent = Calls()
    resumed = execute(plan, journal, agent=agent, resume=True)
    assert resumed.ok and agent.calls == ["extract", "refund"]
    assert resumed.outputs["refund"]["inputs"]["order"]["task"] == "extract"
    assert _resumed(journal)["invalidated"] == {"refund": "extract, upstream of it, runs again"}


@pytest.mark.parametrize(
    ("edit", "rerun"),
    [
        ({"extract": {"agent": {"name": "extractor", "instructions": "Reply in JSON"}}}, "extract"),
        ({"extract": {"input": {"field": "order_no"}}}, "extract"),
        ({"fetch": {"timeout": 30}}, "fetch"),
    ],
    ids=["instructions", "input", "another-field"],
)
def test_an_edited_task_runs_again_with_its_dependents_and_a_reason(
    journal: Path, edit: dict[str, Any], rerun: str
) -> None:
    assert execute(_plan(), journal, agent=Calls()).ok
    agent = Calls(tag="after the edit")
    resumed = execute(_plan(**edit), journal, agent=agent, resume=True)
    downstream = {"fetch": ["fetch", "extract", "refund"], "extract": ["extract", "refund"]}
    assert resumed.ok and agent.calls == downstream[rerun]
    reasons = _resumed(journal)["invalidated"]
    assert reasons[rerun].startswith("the task changed")
    assert "audit" in resumed.restored


@pytest.mark.parametrize("plan_id", ["refunds", None], ids=["with-plan-id", "without"])
def test_a_goal_edit_reruns_the_tasks_whose_agent_reads_it(
    journal: Path, plan_id: str | None
) -> None:
    """Same rule with or without plan_id (without one the goal is part of the plan's
    identity, so the edit also needs --force, as before)."""
    assert execute(_plan(plan_id=plan_id), journal, agent=Calls()).ok
    edited = _plan(plan_id=plan_id, goal="Refund a damaged order and apologise")
    force = plan_id is None
    if force:
        with pytest.raises(JournalError, match="belongs to plan"):
            execute(edited, journal, agent=Calls(), resume=True)
    reader = Calls()
    assert execute(edited, journal, agent=reader, resume=True, force=force).ok
    assert sorted(reader.calls) == ["audit", "extract", "fetch", "refund"]  # all read the goal
    assert "goal changed" in _resumed(journal)["invalidated"]["audit"]
    again = Calls()
    assert execute(edited, journal, agent=again, resume=True).ok and again.calls == []


def test_an_agent_that_does_not_read_the_goal_keeps_its_outputs(journal: Path) -> None:
    assert execute(_plan(), journal, agent=demo_agent).ok
    result = execute(_plan(goal="Another goal"), journal, agent=demo_agent, resume=True)
    assert result.ok and result.executed == ()


def test_keep_outputs_accepts_an_edit_for_good(
    journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert execute(_plan(), journal).ok
    plan_file = tmp_path / "edited.json"
    edit = {"extract": {"input": {"field": "order_no"}}}
    plan_file.write_text(json.dumps(_plan(**edit).to_dict()))
    args = ["execute", str(plan_file), "--journal", str(journal), "--resume"]
    kept = run_cli(capsys, *args, "--keep-outputs")
    assert kept.code == 0 and "0 executed, 4 restored" in kept.out
    assert "kept (--keep-outputs): extract" in kept.err
    again = run_cli(capsys, *args)
    assert again.code == 0 and "0 executed, 4 restored" in again.out  # accepted for good
    edit = {"extract": {"input": {"field": "order_number"}}}
    plan_file.write_text(json.dumps(_plan(**edit).to_dict()))
    rerun = run_cli(capsys, *args)
    assert rerun.code == 0 and "2 executed, 2 restored" in rerun.out
    assert "run again: extract: the task changed" in rerun.err
    assert "run again: refund: extract, upstream of it, runs again" in rerun.err


def test_a_success_built_from_other_inputs_runs_again(journal: Path) -> None:
    """A hand-written journal (provenance: handwritten) whose refund was built from another
    extract output than the one journalled: refund runs again, whatever the edits."""
    plan = _plan()
    assert execute(plan, journal, agent=Calls()).ok
    state = replay(journal)
    lines = journal.read_text().splitlines()
    journal.unlink()
    with JournalWriter(journal) as writer:
        for raw in lines:
            entry = json.loads(raw)
            for key in ("at", "prev", "crc32"):
                entry.pop(key)
            event = entry.pop("event")
            if event == "task_succeeded" and entry["task_id"] == "refund":
                entry["sees"] = {**entry["sees"], "inputs": "000000000000"}
            writer.append(event, **entry)
    assert replay(journal, "strict").completed == state.completed
    agent = Calls()
    assert execute(plan, journal, agent=agent, resume=True).ok and agent.calls == ["refund"]
    assert _resumed(journal)["invalidated"] == {
        "refund": "its inputs are not the outputs it was built from"
    }
