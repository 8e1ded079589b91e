"""A changed plan: refused without --force; with it, only unchanged tasks whose whole upstream
is unchanged are restored (the Make/Bazel rule)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import JournalError
from harness.execute import execute
from harness.journal import replay
from harness.plan import Plan
from tests.cli_helpers import run_cli
from tests.execute._execute_helpers import RecordingAgent, diamond_plan


def _edited(change: Any) -> Plan:
    data = diamond_plan().to_dict()
    change(data["tasks"])
    return Plan.from_dict(data, source="handwritten")


def _describe(tasks: list[dict[str, Any]]) -> None:
    tasks[2]["description"] = "Classify the damage from the photos"  # classify


def _rewire(tasks: list[dict[str, Any]]) -> None:
    tasks[3]["depends_on"] = ["audit"]  # refund now waits for the audit entry


def _add(tasks: list[dict[str, Any]]) -> None:
    tasks.append({"id": "survey", "description": "Send a survey", "needs": {"r": "notify"}})


def _remove(tasks: list[dict[str, Any]]) -> None:
    del tasks[5]  # audit


@pytest.fixture
def done(journal: Path) -> Path:
    assert execute(diamond_plan(), journal).ok
    return journal


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_describe, "1 changed (classify)"),
        (_rewire, "1 changed (refund)"),
        (_add, "1 added (survey)"),
        (_remove, "1 removed (audit)"),
    ],
)
def test_a_changed_structure_is_refused_without_force(done: Path, change: Any, named: str) -> None:
    before = done.read_bytes()
    with pytest.raises(JournalError) as caught:
        execute(_edited(change), done, resume=True)
    assert named in caught.value.what and "--force" in (caught.value.hint or "")
    assert done.read_bytes() == before  # nothing written


@pytest.mark.parametrize(
    ("change", "rerun"),
    [
        (_describe, {"classify", "refund", "notify"}),
        (_rewire, {"refund", "notify"}),
        (_add, {"survey"}),
        (_remove, set()),
    ],
)
def test_force_restores_only_tasks_unchanged_with_their_upstream(
    done: Path, change: Any, rerun: set[str]
) -> None:
    plan = _edited(change)
    agent = RecordingAgent()
    result = execute(plan, done, agent=agent, resume=True, force=True)
    assert result.ok
    assert set(agent.calls) == rerun
    assert set(result.restored) == set(plan.task_ids) - rerun
    resumed = [e for e in map(json.loads, done.read_text().splitlines()) if "forced" in e]
    assert resumed[-1]["forced"] is True
    assert replay(done, "strict").status == "completed"


def test_an_unchanged_plan_resumes_without_force(done: Path) -> None:
    agent = RecordingAgent()
    assert execute(diamond_plan(), done, agent=agent, resume=True).ok
    assert not agent.calls


def test_an_input_edit_reruns_the_task_and_its_dependents(done: Path) -> None:
    """Not a structure change (no --force needed), but the agent sees the task's input."""

    def edit_input(tasks: list[dict[str, Any]]) -> None:
        tasks[1]["input"] = {"field": "order_number"}

    agent = RecordingAgent()
    result = execute(_edited(edit_input), done, agent=agent, resume=True)
    assert result.ok
    assert set(agent.calls) == {"extract", "refund", "notify"}
    assert set(result.restored) == {"fetch", "classify", "audit"}
    resumed = [e for e in map(json.loads, done.read_text().splitlines()) if "forced" in e][-1]
    assert "the task changed" in resumed["invalidated"]["extract"]
    assert resumed["invalidated"]["refund"] == "extract, upstream of it, runs again"


def test_the_cli_names_what_changed(
    done: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "changed.json"
    plan.write_text(json.dumps(_edited(_rewire).to_dict()))
    refused = run_cli(capsys, "execute", str(plan), "--journal", str(done), "--resume")
    assert refused.code == 2
    assert "structure changed" in refused.err and "1 changed (refund)" in refused.err
    forced = run_cli(capsys, "execute", str(plan), "--journal", str(done), "--resume", "--force")
    assert forced.code == 0
    assert "2 executed, 4 restored" in forced.out
