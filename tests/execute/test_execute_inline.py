"""Inline agents (``inline_agent``): run in the executor's thread, journal as a worker's would."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.execute import StopSignal, TaskContext, demo_agent, execute, inline_agent
from harness.journal import replay
from tests.execute._execute_helpers import RecordingAgent, chain_plan, diamond_plan

FAST = {"backoff": 0.0}


def _events(path: Path) -> list[tuple[Any, ...]]:
    """The journal without times and durations: (event, task, attempt, outcome/output)."""
    out = []
    for line in path.read_bytes().splitlines():
        e = json.loads(line)
        out.append(
            (
                e["event"],
                e.get("task_id"),
                e.get("attempt"),
                e.get("output"),
                e.get("error_type"),
                e.get("outcome"),
                e.get("final"),
            )
        )
    return out


class _Threads(RecordingAgent):
    """The recording agent, also noting which thread ran each attempt."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.threads: set[int] = set()

    def __call__(self, context: TaskContext) -> Any:
        self.threads.add(threading.get_ident())
        return super().__call__(context)


def test_the_demo_agent_is_inline() -> None:
    assert getattr(demo_agent, "inline", False) is True


def test_an_inline_agent_runs_in_the_calling_thread_and_others_do_not(tmp_path: Path) -> None:
    inline = inline_agent(_Threads())
    execute(diamond_plan(), tmp_path / "a.jsonl", agent=inline, **FAST)
    assert inline.threads == {threading.get_ident()}

    threaded = _Threads()
    execute(diamond_plan(), tmp_path / "b.jsonl", agent=threaded, **FAST)
    assert threading.get_ident() not in threaded.threads


def test_a_task_with_a_timeout_runs_in_a_worker_even_with_an_inline_agent(
    tmp_path: Path,
) -> None:
    agent = inline_agent(_Threads())
    result = execute(chain_plan(3), tmp_path / "j.jsonl", agent=agent, timeout=30.0, **FAST)
    assert result.status == "completed"
    assert threading.get_ident() not in agent.threads


def test_inline_and_threaded_runs_write_the_same_journal(tmp_path: Path) -> None:
    """Retries, a failure for good, blocked dependents: event for event the same."""
    fail = {"extract": 1, "classify": -1}
    threaded = RecordingAgent(fail=fail)
    inline = inline_agent(RecordingAgent(fail=fail))
    a = execute(diamond_plan(), tmp_path / "a.jsonl", agent=threaded, max_concurrency=1, **FAST)
    b = execute(diamond_plan(), tmp_path / "b.jsonl", agent=inline, max_concurrency=1, **FAST)
    assert a.status == b.status == "failed"
    assert a.blocked == b.blocked == {"refund": "classify", "notify": "classify"}
    assert _events(tmp_path / "a.jsonl") == _events(tmp_path / "b.jsonl")
    assert threaded.calls == inline.calls


@pytest.mark.parametrize("inline", [False, True], ids=["threaded", "inline"])
def test_a_stop_during_an_attempt_keeps_its_success(tmp_path: Path, inline: bool) -> None:
    """The stop arrives while t2's agent runs (the agent sets it): t2 returns its success
    within the grace period, so the interrupted run journals it as succeeded with its output
    and a resume runs only t3. (A ``StopSignal`` wakes a waiting scheduler at once, so the
    threaded run abandons t2 while it sleeps, then gets its result during the grace.)"""
    stop = StopSignal()

    def agent(context: TaskContext) -> Any:
        if context.task.id == "t2":
            stop.set()
            time.sleep(0.05 if not inline else 0.0)
        return demo_agent(context)

    journal = tmp_path / "j.jsonl"
    run = inline_agent(agent) if inline else agent
    result = execute(chain_plan(3), journal, agent=run, stop=stop, grace=5.0, **FAST)
    assert result.status == "interrupted"
    names = [(e[0], e[1]) for e in _events(journal)]
    assert ("task_succeeded", "t2") in names
    assert ("task_attempt_ended", "t2") not in names
    assert names[-1] == ("plan_interrupted", None)
    assert result.outputs["t2"] == replay(journal).outputs["t2"] is not None
    state = replay(journal)
    assert set(state.completed) == {"t1", "t2"}
    again = execute(chain_plan(3), journal, resume=True, **FAST)
    assert again.status == "completed"
    assert again.executed == ("t3",)


def test_ctrl_c_inside_an_inline_agent_interrupts_at_once(tmp_path: Path) -> None:
    """A KeyboardInterrupt raised in the agent (Ctrl+C without the signal handlers) stops the
    execution as it would at the scheduler: no wait for the grace period, the attempt
    journalled as ended by KeyboardInterrupt, the rest not started."""

    @inline_agent
    def agent(context: TaskContext) -> Any:
        if context.task.id == "t2":
            raise KeyboardInterrupt
        return demo_agent(context)

    journal = tmp_path / "j.jsonl"
    began = time.monotonic()
    result = execute(chain_plan(3), journal, agent=agent, grace=30.0, **FAST)
    assert time.monotonic() - began < 10.0
    assert result.status == "interrupted"
    assert result.not_started == ("t2", "t3")
    ended = [e for e in _events(journal) if e[0] == "task_attempt_ended"]
    assert ended == [("task_attempt_ended", "t2", 1, None, "KeyboardInterrupt", "failed", None)]
    assert _events(journal)[-1][0] == "plan_interrupted"
