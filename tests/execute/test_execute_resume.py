"""Resume: completed tasks never run again, `from`, plan identity, attempts across resumes."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness._errors import JournalError
from harness.execute import TaskContext, demo_agent, execute
from harness.journal import JournalWriter, replay
from harness.plan import Plan
from tests.execute._execute_helpers import RecordingAgent, chain_plan, diamond_plan

FAST = {"backoff": 0.0}


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


class TestCrashAndResume:
    def test_agent_raising_on_task_4_then_resume(self, journal: Path, tmp_path: Path) -> None:
        """Tasks 1-3 are done after the failure; the resume runs them zero times and finishes."""
        plan = chain_plan(5)
        broken = RecordingAgent({"t4": -1})
        first = execute(plan, journal, agent=broken, **FAST)
        assert first.status == "failed"
        assert set(first.outputs) == {"t1", "t2", "t3"}
        assert first.blocked == {"t5": "t4"}

        fixed = RecordingAgent()
        second = execute(plan, journal, agent=fixed, resume=True, **FAST)
        assert second.status == "completed"
        assert {t: fixed.calls[t] for t in ("t1", "t2", "t3")} == {"t1": 0, "t2": 0, "t3": 0}
        assert fixed.calls["t4"] == 1 and fixed.calls["t5"] == 1
        assert second.restored == ("t1", "t2", "t3")

        uninterrupted = execute(plan, tmp_path / "clean.jsonl", agent=RecordingAgent())
        assert second.outputs == uninterrupted.outputs
        replay(journal, "strict")

    def test_restored_outputs_feed_dependents(self, journal: Path) -> None:
        """A resumed task's needs are the journalled outputs of its restored producers."""
        plan = chain_plan(3)
        execute(plan, journal, agent=RecordingAgent({"t3": -1}), max_attempts=1)
        recorded = replay(journal).outputs["t2"]
        agent = RecordingAgent()
        execute(plan, journal, agent=agent, resume=True)
        (context,) = agent.contexts
        assert context.task.id == "t3" and context.inputs == {"previous": recorded}

    def test_stop_from_another_thread_then_resume(self, journal: Path) -> None:
        """An interruption records plan_interrupted; the resume finishes without repeats."""
        plan = chain_plan(4)
        stop = threading.Event()
        agent = RecordingAgent()

        def stopping_agent(context: TaskContext) -> Any:
            output = agent(context)
            if context.task.id == "t2":
                stop.set()
                if context.cancelled.wait(5):  # stopped while running: not done, so raise
                    raise RuntimeError("cancelled")  # (a return would be a success, kept)
            return output

        first = execute(plan, journal, agent=stopping_agent, stop=stop)
        assert first.status == "interrupted"
        assert events(journal)[-1]["event"] == "plan_interrupted"
        assert events(journal)[-1]["running"] == ["t2"]
        assert replay(journal).status == "interrupted"

        again = RecordingAgent()
        second = execute(plan, journal, agent=again, resume=True)
        assert second.status == "completed"
        assert again.calls["t1"] == 0 and again.calls["t2"] == 1
        assert second.attempts["t2"] == 2  # the cut-short attempt counts

    def test_resuming_a_complete_journal_executes_nothing(self, journal: Path) -> None:
        """A journal that is already complete: nothing runs, a plan_resumed is appended."""
        plan = chain_plan(3)
        execute(plan, journal)
        before = len(events(journal))
        agent = RecordingAgent()
        result = execute(plan, journal, agent=agent, resume=True)
        assert result.status == "completed" and not agent.calls and result.executed == ()
        new = events(journal)[before:]
        assert new[0]["event"] == "plan_resumed" and new[0]["restored"] == ["t1", "t2", "t3"]
        assert all(e["event"] not in {"task_started", "task_succeeded"} for e in new)

    def test_history_is_never_rewritten(self, journal: Path) -> None:
        """A resume only appends: the journal before it is a prefix of the journal after."""
        plan = chain_plan(3)
        execute(plan, journal, agent=RecordingAgent({"t2": -1}), max_attempts=1)
        before = journal.read_bytes()
        execute(plan, journal, resume=True)
        assert journal.read_bytes().startswith(before)

    def test_resume_after_a_torn_tail_writes_a_clean_line(self, journal: Path) -> None:
        """A crash mid-write: the resume cuts the torn bytes only, and strict replay passes."""
        plan = chain_plan(3)
        execute(plan, journal, agent=RecordingAgent({"t3": -1}), max_attempts=1)
        good = journal.read_bytes()
        with open(journal, "ab") as handle:
            handle.write(b'{"event":"task_started","task_id":"t3","att')
        result = execute(plan, journal, resume=True)
        assert [d.line for d in result.damage] == [good.count(b"\n") + 1]
        assert journal.read_bytes().startswith(good)  # nothing else was cut
        state = replay(journal, "strict")
        assert state.status == "completed" and len(state.repairs) == 1


class TestFrom:
    def test_fix_an_input_and_resume_from_it(self, journal: Path) -> None:
        """Exactly the named task and its downstream closure run again; they see fresh input."""
        plan = diamond_plan()
        first = execute(plan, journal)
        data = plan.to_dict()
        data["tasks"][1]["input"] = {"field": "order_number"}  # fix extract's input
        fixed = Plan.from_dict(data, source="handwritten")
        assert fixed.identity == plan.identity

        agent = RecordingAgent()
        second = execute(fixed, journal, agent=agent, resume=True, from_task="Extract order")
        assert set(agent.calls) == {"extract", "refund", "notify"}
        assert all(n == 1 for n in agent.calls.values())
        assert set(second.restored) == {"fetch", "classify", "audit"}
        for task_id in ("extract", "refund", "notify"):
            assert second.outputs[task_id] != first.outputs[task_id]
        for task_id in ("fetch", "classify", "audit"):
            assert second.outputs[task_id] == first.outputs[task_id]
        refund = next(c for c in agent.contexts if c.task.id == "refund")
        assert refund.inputs["order"] == second.outputs["extract"]
        assert replay(journal, "strict").outputs == dict(second.outputs)

    def test_from_by_id(self, journal: Path) -> None:
        """`from` accepts a task id."""
        execute(chain_plan(4), journal)
        agent = RecordingAgent()
        execute(chain_plan(4), journal, agent=agent, resume=True, from_task="t3")
        assert set(agent.calls) == {"t3", "t4"}

    def test_unknown_from_lists_the_closest_candidates(self, journal: Path) -> None:
        """A `from` that names no task is an error that suggests the nearest names."""
        execute(diamond_plan(), journal)
        with pytest.raises(JournalError, match="names no task") as caught:
            execute(diamond_plan(), journal, resume=True, from_task="Extract ordr")
        assert "'Extract order'" in str(caught.value)

    def test_ambiguous_from_lists_the_ids(self, journal: Path) -> None:
        """A description two tasks share is ambiguous; the error lists both ids."""
        plan = Plan.from_dict(
            {
                "tasks": [
                    {"id": "a", "description": "Same"},
                    {"id": "b", "description": "Same"},
                ]
            }
        )
        execute(plan, journal)
        with pytest.raises(JournalError, match=r"ambiguous.*a, b"):
            execute(plan, journal, resume=True, from_task="Same")


class TestIdentity:
    def test_plan_id_mismatch_is_refused(self, journal: Path) -> None:
        """A journal of another plan is refused, naming both identities."""
        execute(chain_plan(3, plan_id="plan-a"), journal)
        before = journal.read_bytes()
        with pytest.raises(JournalError, match="'plan-a', not to 'plan-b'"):
            execute(chain_plan(3, plan_id="plan-b"), journal, resume=True)
        assert journal.read_bytes() == before

    def test_force_accepts_it(self, journal: Path) -> None:
        """With force, the other plan's completed tasks are reused and the resume says so."""
        execute(chain_plan(3, plan_id="plan-a"), journal)
        agent = RecordingAgent()
        result = execute(
            chain_plan(3, plan_id="plan-b"), journal, agent=agent, resume=True, force=True
        )
        assert result.status == "completed" and not agent.calls
        resumed = [e for e in events(journal) if e["event"] == "plan_resumed"][-1]
        assert resumed["forced"] is True and resumed["previous_plan_id"] == "plan-a"

    def test_a_journal_with_events_needs_resume(self, journal: Path) -> None:
        """Running into a journal that has events without resume is refused."""
        execute(chain_plan(2), journal)
        with pytest.raises(JournalError, match="--resume"):
            execute(chain_plan(2), journal)

    def test_idempotency_key_is_stable(self, journal: Path) -> None:
        """The key is `<plan identity>:<task id>` on every attempt and every resume."""
        plan = chain_plan(2, plan_id="orders")
        agent = RecordingAgent({"t2": 2})
        execute(plan, journal, agent=agent, max_attempts=1, **FAST)
        execute(plan, journal, agent=agent, resume=True, max_attempts=1, **FAST)
        execute(plan, journal, agent=agent, resume=True, **FAST)
        keys = {c.idempotency_key for c in agent.contexts if c.task.id == "t2"}
        assert keys == {"orders:t2"}
        assert [c.attempt for c in agent.contexts if c.task.id == "t2"] == [1, 2, 3]


class TestAttemptsAcrossResumes:
    def test_attempt_numbers_continue(self, journal: Path) -> None:
        """A second execution's attempts are numbered after the first one's."""
        plan = chain_plan(2)
        execute(plan, journal, agent=RecordingAgent({"t2": -1}), max_attempts=2, **FAST)
        agent = RecordingAgent({"t2": 1})
        result = execute(plan, journal, agent=agent, resume=True, max_attempts=2, **FAST)
        started = [
            e["attempt"]
            for e in events(journal)
            if e["event"] == "task_started" and e["task_id"] == "t2"
        ]
        assert started == [1, 2, 3, 4]
        assert result.attempts["t2"] == 4 and result.status == "completed"

    def test_failed_for_good_reruns_with_its_blocked_dependents(self, journal: Path) -> None:
        """A plain resume reruns a task that failed for good (fresh budget) and its dependents."""
        plan = chain_plan(4)
        first = execute(plan, journal, agent=RecordingAgent({"t2": -1}), max_attempts=3, **FAST)
        assert first.failed["t2"].attempt == 3
        assert first.blocked == {"t3": "t2", "t4": "t2"}
        state = replay(journal)
        assert state.failed == ("t2",) and state.blocked == {"t3": "t2", "t4": "t2"}

        agent = RecordingAgent({"t2": 2})  # fails twice more, then succeeds: a fresh budget of 3
        second = execute(plan, journal, agent=agent, resume=True, **FAST)
        assert second.status == "completed"
        assert agent.calls == {"t2": 3, "t3": 1, "t4": 1}
        assert second.attempts["t2"] == 6


class TestDescriptionFallback:
    def test_gem_journal_tasks_match_by_unique_description(self, journal: Path) -> None:
        """A flat plan (positional ids) resumes a gem journal whose ids are per-run UUIDs."""
        plan = Plan.from_dict(
            {
                "tasks": [
                    {"description": "Research"},
                    {"description": "Design"},
                    {"description": "Build"},
                ]
            },
            source="handwritten",
        )
        with JournalWriter(journal) as w:
            for uuid, description in (("u-1", "Research"), ("u-2", "Design")):
                w.append("task_started", task_id=uuid, description=description)
                w.append(
                    "task_succeeded",
                    task_id=uuid,
                    description=description,
                    output=description.lower(),
                )
            w.append("task_started", task_id="u-3", description="Build")
            w.append("task_failed", task_id="u-3", description="Build", error="x", error_type="E")
        agent = RecordingAgent()
        result = execute(plan, journal, agent=agent, resume=True)
        assert set(agent.calls) == {"task_3"}
        assert result.outputs["task_1"] == "research"
        assert result.attempts["task_3"] == 2
        state = replay(journal, "strict")
        assert state.completed == ("task_1", "task_2", "task_3")

    def test_plan_ids_win_over_descriptions(self, journal: Path) -> None:
        """A journal task whose id is a plan id never stands in for another task."""
        plan = Plan.from_dict(
            {
                "tasks": [
                    {"id": "a", "description": "Same text"},
                    {"id": "b", "description": "Other"},
                ]
            }
        )
        with JournalWriter(journal) as w:
            w.append("task_succeeded", task_id="a", description="Other", output=1)
        agent = RecordingAgent()
        execute(plan, journal, agent=agent, resume=True)
        assert set(agent.calls) == {"b"}


def test_demo_agent_is_deterministic() -> None:
    """The demo agent's output depends on the task and its inputs only."""
    plan = chain_plan(2)
    ctx = TaskContext(
        task=plan.tasks[1], inputs={"previous": 1}, attempt=1, idempotency_key="k", plan=plan
    )
    again = TaskContext(
        task=plan.tasks[1], inputs={"previous": 1}, attempt=5, idempotency_key="z", plan=plan
    )
    other = TaskContext(
        task=plan.tasks[1], inputs={"previous": 2}, attempt=1, idempotency_key="k", plan=plan
    )
    assert demo_agent(ctx) == demo_agent(again) != demo_agent(other)
