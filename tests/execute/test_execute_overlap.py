"""No overlapping attempts: a retry after a timeout waits for the abandoned attempt."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from harness.execute import StopSignal, TaskContext, demo_agent, execute
from harness.execute._scheduler import Execution
from harness.journal import replay
from tests.execute._execute_helpers import chain_plan


class SlowFirstAttempt:
    """Hand-written agent: the first attempt of `slow_task` ignores cancellation and overruns."""

    def __init__(self, slow_task: str, seconds: float) -> None:
        self.slow_task = slow_task
        self.seconds = seconds
        self.running = 0
        self.most_at_once = 0
        self.keys: list[str] = []
        self.side_effects: list[tuple[str, float]] = []
        self._lock = threading.Lock()

    def __call__(self, context: TaskContext) -> Any:
        if context.task.id != self.slow_task:
            return demo_agent(context)
        with self._lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.keys.append(context.idempotency_key)
        try:
            if context.attempt == 1:
                time.sleep(self.seconds)  # does not look at context.cancelled
            self.side_effects.append((context.idempotency_key, time.monotonic()))
            return demo_agent(context)
        finally:
            with self._lock:
                self.running -= 1


def _events(journal: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in journal.read_text().splitlines()]


def test_a_retry_waits_until_the_timed_out_attempt_returned(journal: Path) -> None:
    plan = chain_plan(3, plan_id="overlap")
    agent = SlowFirstAttempt("t2", 0.6)
    result = execute(plan, journal, agent=agent, timeout=0.15, backoff=0.0, grace=5.0)
    assert result.ok
    assert agent.most_at_once == 1  # the two attempts of t2 never ran at the same time
    assert agent.keys == ["overlap:t2", "overlap:t2"]  # one idempotency key
    events = [e for e in _events(journal) if e.get("task_id") == "t2"]
    kinds = [(e["event"], e.get("attempt")) for e in events]
    assert kinds == [
        ("task_started", 1),
        ("task_failed", 1),
        ("task_attempt_ended", 1),
        ("task_started", 2),
        ("task_succeeded", 2),
    ]
    assert events[1]["error_type"] == "Timeout"
    ended = events[2]
    assert ended["outcome"] == "succeeded" and ended["duration"] >= 0.6
    assert replay(journal, "strict").tasks["t2"].status == "succeeded"


def test_an_attempt_stuck_past_the_grace_period_stops_the_execution(journal: Path) -> None:
    plan = chain_plan(3, plan_id="stuck")
    agent = SlowFirstAttempt("t2", 3.0)
    began = time.monotonic()
    result = execute(plan, journal, agent=agent, timeout=0.1, backoff=0.0, grace=0.3)
    assert time.monotonic() - began < 2.5  # did not wait for the stuck attempt
    assert result.status == "failed" and result.stuck == "t2"
    assert agent.most_at_once == 1
    last = _events(journal)[-1]
    assert last["event"] == "plan_interrupted" and "stuck: task 't2'" in last["reason"]
    assert last["still_running"] == [{"task_id": "t2", "attempt": 1}]


def test_a_stop_signal_wakes_the_scheduler_without_polling(journal: Path, monkeypatch: Any) -> None:
    waits: list[float | None] = []
    original = Execution._wait

    def recording_wait(self: Execution, timeout: float | None) -> None:
        waits.append(timeout)
        original(self, timeout)

    monkeypatch.setattr(Execution, "_wait", recording_wait)
    stop = StopSignal()
    started = threading.Event()

    def agent(context: TaskContext) -> Any:
        if context.task.id == "t2":
            started.set()
            context.cancelled.wait(10)
            raise RuntimeError("cancelled")
        return demo_agent(context)

    threading.Thread(target=lambda: (started.wait(10), stop.set()), daemon=True).start()
    result = execute(chain_plan(3), journal, agent=agent, stop=stop)
    assert result.status == "interrupted"
    assert waits and all(w is None for w in waits)  # blocked until woken: no timed polls
    kinds = [e["event"] for e in _events(journal)]
    assert kinds[-2:] == ["task_attempt_ended", "plan_interrupted"]
