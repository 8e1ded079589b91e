"""The scheduler's verdicts: when a failure is final, when the total budget is spent, who is
blocked and by whom, what stops the scheduling, and what the journal and the result say.

Hand-written plans and agents (provenance: handwritten).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.execute import EXHAUSTED, TaskContext, TaskError, execute
from harness.journal import replay
from harness.plan import Plan
from tests.execute._execute_helpers import RecordingAgent, chain_plan

FAST = {"backoff": 0.0}


def events(path: Path, kind: str | None = None) -> list[dict[str, Any]]:
    every = [json.loads(line) for line in path.read_bytes().splitlines()]
    return [e for e in every if kind is None or e["event"] == kind]


def plan_of(*tasks: dict[str, Any]) -> Plan:
    return Plan.from_dict({"goal": "verdicts", "tasks": list(tasks)}, source="handwritten")


class TestFinal:
    @pytest.mark.parametrize("budget", [1, 2, 3])
    def test_the_last_attempt_of_the_budget_is_final(self, journal: Path, budget: int) -> None:
        agent = RecordingAgent({"t1": -1})
        result = execute(chain_plan(2), journal, agent=agent, max_attempts=budget, **FAST)
        failed = events(journal, "task_failed")
        assert [(e["attempt"], e["final"]) for e in failed] == [
            (n, n == budget) for n in range(1, budget + 1)
        ]
        assert agent.calls["t1"] == budget and result.attempts == {"t1": budget}
        failure = result.failed["t1"]
        assert (failure.attempt, failure.error, failure.error_type, failure.retryable) == (
            budget,
            "agent failed on purpose",
            "RuntimeError",
            True,
        )
        assert result.blocked == {"t2": "t1"} and result.status == "failed"

    def test_a_non_retryable_failure_is_final_at_once(self, journal: Path) -> None:
        agent = RecordingAgent({"t1": -1}, exc=lambda: TaskError("no", retryable=False))
        execute(chain_plan(1), journal, agent=agent, max_attempts=5, **FAST)
        [failed] = events(journal, "task_failed")
        assert (failed["final"], failed["retryable"], failed["attempt"]) == (True, False, 1)

    def test_a_failure_journals_what_the_user_reads(self, journal: Path) -> None:
        agent = RecordingAgent({"t1": 1})
        execute(chain_plan(1), journal, agent=agent, max_attempts=2, **FAST)
        [failed] = events(journal, "task_failed")
        assert failed["task_id"] == "t1" and failed["description"] == "Step 1"
        assert failed["error"] == "agent failed on purpose"
        assert failed["error_type"] == "RuntimeError" and failed["duration"] >= 0

    def test_a_success_journals_attempt_description_duration_and_output(
        self, journal: Path
    ) -> None:
        execute(chain_plan(1), journal, agent=lambda c: {"v": 1}, **FAST)
        [done] = events(journal, "task_succeeded")
        assert (done["task_id"], done["description"], done["attempt"]) == ("t1", "Step 1", 1)
        assert done["output"] == {"v": 1} and 0 <= done["duration"] < 30


class TestTotalBudget:
    def test_the_total_budget_counts_over_executions_to_the_exact_attempt(
        self, journal: Path
    ) -> None:
        plan = chain_plan(2)
        agent = RecordingAgent({"t1": -1})
        budget = {"max_attempts": 2, "max_total_attempts": 3, "backoff": 0.0}
        execute(plan, journal, agent=agent, **budget)
        assert agent.calls["t1"] == 2
        second = execute(plan, journal, agent=agent, resume=True, **budget)
        assert agent.calls["t1"] == 3
        assert [e["final"] for e in events(journal, "task_failed")] == [False, True, True]
        assert second.failed["t1"].attempt == 3
        third = execute(plan, journal, agent=agent, resume=True, **budget)
        assert agent.calls["t1"] == 3  # spent: not called again
        failure = third.failed["t1"]
        assert (failure.error_type, failure.retryable, failure.attempt) == (EXHAUSTED, False, 3)
        assert failure.error == (
            "3 attempts over all executions of this journal reached the total budget "
            "(--max-total-attempts 3); resume with --from t1 or --reset-attempts to try again"
        )
        assert third.blocked == {"t2": "t1"} and third.executed == ()
        last = events(journal, "task_failed")[-1]
        assert (last["final"], last["attempt"], last["duration"]) == (True, 3, 0.0)
        assert last["error_type"] == EXHAUSTED and last["description"] == "Step 1"
        assert events(journal)[-1]["executed"] == 0

    def test_one_attempt_left_is_one_attempt(self, journal: Path) -> None:
        plan = chain_plan(1)
        agent = RecordingAgent({"t1": -1})
        execute(plan, journal, agent=agent, max_attempts=1, max_total_attempts=2, **FAST)
        execute(plan, journal, agent=agent, resume=True, max_total_attempts=2, **FAST)
        assert agent.calls["t1"] == 2


class TestBlocked:
    def test_each_dependent_is_blocked_once_by_the_first_failure(self, journal: Path) -> None:
        plan = plan_of(
            {"id": "a", "on_failure": "skip_dependents"},
            {"id": "b", "on_failure": "skip_dependents"},
            {"id": "c", "depends_on": ["a", "b"], "description": "Both"},
            {"id": "d", "depends_on": ["c"]},
        )
        agent = RecordingAgent({"a": -1, "b": -1})
        result = execute(plan, journal, agent=agent, max_concurrency=1, max_attempts=1)
        blocked = [(e["task_id"], e["blocked_by"]) for e in events(journal, "task_blocked")]
        assert blocked == [("c", "a"), ("d", "a")]
        assert events(journal, "task_blocked")[0]["description"] == "Both"
        assert result.blocked == {"c": "a", "d": "a"}
        assert set(result.failed) == {"a", "b"}
        assert result.not_started == ()
        completed = events(journal, "plan_completed")[0]
        assert (completed["status"], completed["executed"]) == ("failed", 2)
        assert completed["failed"] == ["a", "b"] and completed["blocked"] == ["c", "d"]

    def test_blocked_tasks_are_journalled_in_plan_order(self, journal: Path) -> None:
        children = ["k", "b", "q", "a", "m", "e"]
        plan = plan_of({"id": "root"}, *({"id": c, "depends_on": ["root"]} for c in children))
        execute(plan, journal, agent=RecordingAgent({"root": -1}), max_attempts=1)
        assert [e["task_id"] for e in events(journal, "task_blocked")] == children

    def test_continue_runs_dependents_and_the_plan_still_fails(self, journal: Path) -> None:
        plan = plan_of({"id": "a", "on_failure": "continue"}, {"id": "b", "depends_on": ["a"]})
        result = execute(plan, journal, agent=RecordingAgent({"a": -1}), max_attempts=1)
        assert set(result.outputs) == {"b"} and result.blocked == {}
        assert result.status == "failed" and not result.ok
        assert events(journal, "plan_completed")[0]["executed"] == 2


class TestStop:
    def test_a_failure_for_good_cancels_a_pending_retry(self, journal: Path) -> None:
        """on_failure stop: a retry waiting for its backoff never starts."""
        b_failed = threading.Event()

        def agent(context: TaskContext) -> str:
            if context.task.id == "b":
                raise RuntimeError("flaky")
            b_failed.wait(10)
            raise TaskError("fatal", retryable=False)

        def on_event(event: str, payload: dict[str, Any]) -> None:
            if event == "task_failed" and payload["task_id"] == "b":
                b_failed.set()

        plan = plan_of({"id": "a"}, {"id": "b"})
        began = time.monotonic()
        result = execute(
            plan, journal, agent=agent, max_concurrency=2, backoff=20, max_backoff=20,
            on_event=on_event,
        )  # fmt: skip
        assert time.monotonic() - began < 10  # did not wait out the retry's backoff
        assert [e["task_id"] for e in events(journal, "task_started")].count("b") == 1
        assert result.not_started == ("b",) and set(result.failed) == {"a"}

    def test_a_failure_after_the_stop_is_final(self, journal: Path) -> None:
        a_failed = threading.Event()

        def agent(context: TaskContext) -> str:
            if context.task.id == "a":
                raise TaskError("fatal", retryable=False)
            a_failed.wait(10)
            raise RuntimeError("flaky")

        def on_event(event: str, payload: dict[str, Any]) -> None:
            if event == "task_failed" and payload["task_id"] == "a":
                a_failed.set()

        plan = plan_of({"id": "a"}, {"id": "b"})
        result = execute(
            plan, journal, agent=agent, max_concurrency=2, max_attempts=3, on_event=on_event,
            **FAST,
        )  # fmt: skip
        b_failed = [e for e in events(journal, "task_failed") if e["task_id"] == "b"]
        assert [(e["attempt"], e["final"]) for e in b_failed] == [(1, True)]
        assert set(result.failed) == {"a", "b"}


class TestErrors:
    @pytest.mark.parametrize(
        ("exc", "error", "error_type", "retryable"),
        [
            (RuntimeError(), "RuntimeError", "RuntimeError", True),
            (TaskError("x", error_type=""), "x", "TaskError", True),
            (TaskError("quota", error_type="RateLimit"), "quota", "RateLimit", True),
        ],
    )
    def test_what_an_exception_becomes(
        self, journal: Path, exc: Exception, error: str, error_type: str, retryable: bool
    ) -> None:
        def agent(context: TaskContext) -> None:
            raise exc

        result = execute(chain_plan(1), journal, agent=agent, max_attempts=1)
        failure = result.failed["t1"]
        assert (failure.error, failure.error_type, failure.retryable) == (
            error,
            error_type,
            retryable,
        )

    def test_a_retryable_flag_that_is_not_a_boolean_counts_as_retryable(
        self, journal: Path
    ) -> None:
        class Odd(Exception):
            retryable = "no"

        def agent(context: TaskContext) -> None:
            raise Odd("odd")

        result = execute(chain_plan(1), journal, agent=agent, max_attempts=2, **FAST)
        assert result.failed["t1"].retryable is True and result.attempts["t1"] == 2

    def test_an_output_that_contains_itself_fails_the_task_instead_of_hanging(
        self, journal: Path
    ) -> None:
        def agent(context: TaskContext) -> dict[str, Any]:
            loop: dict[str, Any] = {}
            loop["self"] = loop
            return loop

        result = execute(chain_plan(1), journal, agent=agent, max_attempts=3, **FAST)
        failure = result.failed["t1"]
        assert (failure.error_type, failure.retryable, failure.attempt) == (
            "OutputNotSerializable",
            False,
            1,
        )
        assert failure.error.startswith("the agent's output is not JSON-serialisable at /output")
        assert "circular reference" in failure.error
        assert replay(journal, "strict").completed == ()


class TestTimeouts:
    def test_the_timeout_message_names_the_limit(self, journal: Path) -> None:
        def agent(context: TaskContext) -> str:
            context.cancelled.wait(10)
            raise TaskError("stopped when cancelled", error_type="Cancelled")

        plan = plan_of({"id": "slow", "timeout": 0.25})
        result = execute(plan, journal, agent=agent, max_attempts=1, grace=5)
        failure = result.failed["slow"]
        assert failure.error == "no result within the task timeout of 0.25s"
        assert (failure.error_type, failure.retryable) == ("Timeout", True)
        ended = events(journal, "task_attempt_ended")
        assert [(e["task_id"], e["attempt"], e["outcome"]) for e in ended] == [
            ("slow", 1, "failed")
        ]
        assert ended[0]["after_abandoned"] >= 0 and ended[0]["error_type"] == "Cancelled"

    def test_a_late_output_that_is_not_json_is_not_kept(self, journal: Path) -> None:
        def agent(context: TaskContext) -> object:
            context.cancelled.wait(10)
            return {1, 2}  # a set: JSON cannot hold it

        result = execute(plan_of({"id": "t", "timeout": 0.1}), journal, agent=agent, max_attempts=1)
        assert result.failed["t"].error_type == "Timeout" and "t" not in result.outputs
        [ended] = events(journal, "task_attempt_ended")
        assert (ended["outcome"], ended["error_type"]) == ("failed", "OutputNotSerializable")

    @pytest.mark.parametrize("own", [True, 0, -1, "1"])
    def test_a_task_timeout_that_is_not_a_positive_number_is_ignored(
        self, journal: Path, own: Any
    ) -> None:
        def agent(context: TaskContext) -> str:
            time.sleep(1.2)
            return "done"

        plan = plan_of({"id": "t", "timeout": own})
        assert execute(plan, journal, agent=agent, max_attempts=1).ok

    def test_an_abandoned_attempt_that_fails_says_how(self, journal: Path) -> None:
        def agent(context: TaskContext) -> str:
            context.cancelled.wait(10)
            raise TaskError("gave up", error_type="Cancelled")

        execute(plan_of({"id": "t", "timeout": 0.1}), journal, agent=agent, max_attempts=1)
        [ended] = events(journal, "task_attempt_ended")
        assert (ended["outcome"], ended["error_type"]) == ("failed", "Cancelled")


def test_on_event_sees_every_journalled_event_in_order(journal: Path) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    execute(chain_plan(2), journal, on_event=lambda e, p: seen.append((e, p)))
    written = events(journal)
    assert [e for e, _ in seen] == [w["event"] for w in written]
    for (_, payload), line in zip(seen, written, strict=True):
        assert all(line[k] == v for k, v in payload.items())
