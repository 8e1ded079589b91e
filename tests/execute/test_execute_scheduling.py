"""The executor: dependency order, concurrency, retries, timeouts and failure policies."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness._errors import PlanLoadError
from harness.execute import TaskContext, TaskError, execute
from harness.journal import replay
from harness.plan import Plan
from tests.execute._execute_helpers import RecordingAgent, chain_plan, diamond_plan

FAST = {"backoff": 0.0}


def hangs_until_cancelled(context: TaskContext) -> str:
    """Hand-written agent: blocks until abandoned, then gives up (a late return would be kept
    as the task's output: a success is kept when it is known)."""
    context.cancelled.wait(10)
    raise TaskError("gave up when cancelled", error_type="Cancelled")


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def fan_plan(width: int) -> Plan:
    """Hand-written: `width` independent tasks feeding one join task."""
    tasks: list[dict[str, Any]] = [
        {"id": f"w{i}", "description": f"Work {i}"} for i in range(width)
    ]
    tasks.append(
        {"id": "join", "description": "Join", "depends_on": [f"w{i}" for i in range(width)]}
    )
    return Plan.from_dict({"goal": "fan", "tasks": tasks}, source="handwritten")


class TestOrderAndConcurrency:
    def test_dependencies_finish_before_dependents_start(self, journal: Path) -> None:
        """Every task starts after each of its prerequisites succeeded."""
        plan = diamond_plan()
        execute(plan, journal, max_concurrency=3)
        done_at: dict[str, int] = {}
        for index, event in enumerate(events(journal)):
            if event["event"] == "task_succeeded":
                done_at[event["task_id"]] = index
            if event["event"] == "task_started":
                task = plan.task(event["task_id"])
                for dep in {*task.depends_on, *(n.task for n in task.needs)}:
                    assert done_at[dep] < index

    @pytest.mark.parametrize("limit", [1, 3])
    def test_independent_tasks_run_together_up_to_the_limit(
        self, journal: Path, limit: int
    ) -> None:
        """Independent tasks overlap, but never more than max_concurrency at once."""
        running = 0
        peak = 0
        lock = threading.Lock()
        gate = threading.Barrier(limit, timeout=10)

        def agent(context: TaskContext) -> str:
            nonlocal running, peak
            with lock:
                running += 1
                peak = max(peak, running)
            if context.task.id != "join":
                gate.wait()  # only passes when `limit` tasks run at the same time
            with lock:
                running -= 1
            return context.task.id

        result = execute(fan_plan(6), journal, agent=agent, max_concurrency=limit)
        assert result.status == "completed"
        assert peak == limit


class TestRetries:
    def test_flaky_task_succeeds_within_its_budget(self, journal: Path) -> None:
        """Two failures then a success: three attempts, the task succeeds."""
        agent = RecordingAgent({"t1": 2})
        result = execute(chain_plan(2), journal, agent=agent, **FAST)
        assert result.status == "completed" and result.attempts["t1"] == 3
        failed = [e for e in events(journal) if e["event"] == "task_failed"]
        assert [(e["attempt"], e["final"], e["retryable"]) for e in failed] == [
            (1, False, True),
            (2, False, True),
        ]
        assert failed[0]["error_type"] == "RuntimeError"

    def test_a_non_retryable_error_stops_the_budget(self, journal: Path) -> None:
        """TaskError(retryable=False) fails the task for good on the first attempt."""
        agent = RecordingAgent(
            {"t1": -1}, exc=lambda: TaskError("bad input", retryable=False, error_type="BadInput")
        )
        result = execute(chain_plan(2), journal, agent=agent, **FAST)
        assert agent.calls["t1"] == 1
        failure = result.failed["t1"]
        assert (failure.error_type, failure.retryable, failure.error) == (
            "BadInput",
            False,
            "bad input",
        )

    def test_backoff_waits_between_attempts(self, journal: Path) -> None:
        """With a backoff, a retry starts no sooner than half the base delay after the failure."""
        agent = RecordingAgent({"t1": 1})
        execute(chain_plan(1), journal, agent=agent, backoff=0.2)
        from datetime import datetime

        times = [
            datetime.fromisoformat(e["at"].replace("Z", "+00:00"))
            for e in events(journal)
            if e["event"] in {"task_failed", "task_started"}
        ]
        assert (times[2] - times[1]).total_seconds() >= 0.1  # equal jitter: [0.5, 1] x base

    def test_timeout_is_enforced_by_the_executor(self, journal: Path) -> None:
        """An attempt past the timeout fails with error_type Timeout, even if the agent hangs."""
        result = execute(
            chain_plan(2), journal, agent=hangs_until_cancelled, timeout=0.2, max_attempts=2, **FAST
        )
        assert result.failed["t1"].error_type == "Timeout"
        assert result.attempts["t1"] == 2
        assert result.blocked == {"t2": "t1"}
        assert replay(journal, "strict").tasks["t1"].error_type == "Timeout"

    def test_a_tasks_own_timeout_wins(self, journal: Path) -> None:
        """A task's `timeout` key overrides the executor's default."""
        plan = Plan.from_dict({"tasks": [{"id": "slow", "timeout": 0.1}]})
        result = execute(plan, journal, agent=hangs_until_cancelled, timeout=60, max_attempts=1)
        assert result.failed["slow"].error_type == "Timeout"

    def test_cancelled_is_set_for_an_abandoned_attempt(self, journal: Path) -> None:
        """A cooperative agent learns that its attempt was abandoned."""
        seen: list[bool] = []
        done = threading.Event()

        def agent(context: TaskContext) -> None:
            seen.append(context.cancelled.wait(10))
            done.set()

        execute(chain_plan(1), journal, agent=agent, timeout=0.1, max_attempts=1)
        assert done.wait(10)
        assert seen == [True]

    def test_output_that_is_not_json_fails_the_task(self, journal: Path) -> None:
        """A non-serialisable output is a clear, non-retryable failure; no success is written."""
        result = execute(chain_plan(1), journal, agent=lambda c: {"rows": {1, 2}}, **FAST)
        failure = result.failed["t1"]
        assert failure.error_type == "OutputNotSerializable" and not failure.retryable
        assert "/output/rows" in failure.error
        state = replay(journal, "strict")
        assert state.completed == () and state.tasks["t1"].attempts == 1


class TestFailurePolicies:
    def _plan(self, on_failure: str | None) -> Plan:
        bad: dict[str, Any] = {"id": "bad", "description": "Bad"}
        if on_failure:
            bad["on_failure"] = on_failure
        return Plan.from_dict(
            {
                "tasks": [
                    bad,
                    {"id": "child", "needs": {"x": "bad"}},
                    {"id": "grandchild", "depends_on": ["child"]},
                    {"id": "later", "description": "Independent, after bad in order"},
                ]
            },
            source="handwritten",
        )

    def test_dependents_are_blocked_transitively(self, journal: Path) -> None:
        """skip_dependents: the failed task's downstream is blocked; independent work runs."""
        agent = RecordingAgent({"bad": -1})
        result = execute(
            self._plan("skip_dependents"), journal, agent=agent, max_concurrency=1, **FAST
        )
        assert result.blocked == {"child": "bad", "grandchild": "bad"}
        assert "later" in result.outputs
        assert result.status == "failed"
        blocked = [e for e in events(journal) if e["event"] == "task_blocked"]
        assert {(e["task_id"], e["blocked_by"]) for e in blocked} == {
            ("child", "bad"),
            ("grandchild", "bad"),
        }

    def test_stop_is_the_default(self, journal: Path) -> None:
        """Without on_failure, a failure for good stops scheduling: independent tasks wait."""
        agent = RecordingAgent({"bad": -1})
        result = execute(self._plan(None), journal, agent=agent, max_concurrency=1, **FAST)
        assert result.not_started == ("later",)
        assert agent.calls["later"] == 0

    def test_continue_lets_dependents_see_the_failure(self, journal: Path) -> None:
        """on_failure: continue runs the dependents, with the failure visible in their context."""
        agent = RecordingAgent({"bad": -1})
        result = execute(self._plan("continue"), journal, agent=agent, **FAST)
        assert not result.blocked
        child = next(c for c in agent.contexts if c.task.id == "child")
        assert child.inputs == {"x": None}
        assert child.failed_inputs["x"]["task"] == "bad"
        assert child.failed_inputs["x"]["error"] == "agent failed on purpose"
        assert child.upstream_failures["bad"]["error_type"] == "RuntimeError"
        assert set(result.outputs) == {"child", "grandchild", "later"}
        assert result.status == "failed"  # the plan still did not fully succeed


class TestUnusablePlans:
    @pytest.mark.parametrize(
        ("tasks", "message"),
        [
            ([{"id": "a", "depends_on": ["ghost"]}], "'ghost', which is not a task"),
            ([{"id": "a", "depends_on": ["b"]}, {"id": "b", "depends_on": ["a"]}], "cycle"),
            ([{"id": "a"}, {"id": "a"}], "share the id"),
            ([{"id": "a", "needs": {"me": "a"}}], "depends on itself"),
        ],
    )
    def test_refused_before_anything_runs(
        self, journal: Path, tasks: list[Any], message: str
    ) -> None:
        """A plan that cannot be executed is an input error; no journal is written."""
        with pytest.raises(PlanLoadError, match=message):
            execute(Plan.from_dict({"tasks": tasks}), journal)
        assert not journal.exists()
