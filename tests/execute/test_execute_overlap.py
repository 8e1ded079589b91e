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
from harness.plan import Plan
from tests.execute._execute_helpers import chain_plan


class SlowFirstAttempt:
    """Hand-written agent: the first attempt of `slow_task` ignores cancellation and overruns,
    then fails (``late="fail"``) or returns its output (``late="succeed"``)."""

    def __init__(self, slow_task: str, seconds: float, late: str = "fail") -> None:
        self.slow_task = slow_task
        self.seconds = seconds
        self.late = late
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
                if self.late == "fail":
                    raise RuntimeError("the slow call gave up")
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
    assert ended["outcome"] == "failed" and ended["duration"] >= 0.6
    assert ended["error_type"] == "RuntimeError"
    assert replay(journal, "strict").tasks["t2"].status == "succeeded"


def test_a_success_returned_after_its_timeout_is_kept(journal: Path) -> None:
    # A success is kept when it is known: the late attempt's work is done (the payment made),
    # so its retry is cancelled and the output it returned is the task's.
    plan = chain_plan(3, plan_id="late")
    agent = SlowFirstAttempt("t2", 0.6, late="succeed")
    result = execute(plan, journal, agent=agent, timeout=0.15, backoff=0.0, grace=5.0)
    assert result.ok
    assert agent.side_effects == [("late:t2", agent.side_effects[0][1])]  # called once
    events = [e for e in _events(journal) if e.get("task_id") == "t2"]
    assert [(e["event"], e.get("attempt")) for e in events] == [
        ("task_started", 1),
        ("task_failed", 1),
        ("task_succeeded", 1),
    ]
    assert events[1]["error_type"] == "Timeout" and events[1]["final"] is False
    assert events[2]["output"] == result.outputs["t2"] and events[2]["duration"] >= 0.6
    kinds = [(e["event"], e.get("task_id")) for e in _events(journal)]
    assert kinds.index(("task_started", "t3")) > kinds.index(("task_succeeded", "t2"))
    state = replay(journal, "strict")
    assert state.tasks["t2"].status == "succeeded" and state.tasks["t2"].attempts == 1
    again = execute(plan, journal, agent=agent, resume=True)
    assert again.ok and again.executed == () and len(agent.side_effects) == 1


def test_a_success_after_the_last_attempt_timed_out_is_kept_for_the_resume(
    journal: Path,
) -> None:
    plan = chain_plan(3, plan_id="last")
    agent = SlowFirstAttempt("t2", 0.6, late="succeed")
    result = execute(plan, journal, agent=agent, timeout=0.15, max_attempts=1, grace=5.0)
    # The timeout was t2's last attempt: t3 was blocked then, and stays blocked in this
    # execution; t2's late success is journalled with its output and counts as done.
    assert result.status == "failed" and "t2" not in result.failed
    assert result.blocked == {"t3": "t2"} and "t2" in result.outputs
    kinds = [(e["event"], e.get("task_id")) for e in _events(journal)]
    assert kinds.index(("task_blocked", "t3")) < kinds.index(("task_succeeded", "t2"))
    state = replay(journal, "strict")
    assert state.tasks["t2"].status == "succeeded"
    assert state.tasks["t2"].output == result.outputs["t2"]
    resumed = execute(plan, journal, agent=agent, resume=True)
    assert resumed.ok and resumed.executed == ("t3",)
    assert [key for key, _ in agent.side_effects] == ["last:t2"]  # never called again
    assert resumed.outputs["t2"] == result.outputs["t2"]


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


class ThreadRecorder:
    """Hand-written agent: records the thread each attempt ran in (keeping the objects)."""

    def __init__(self, block: str | None = None, release: threading.Event | None = None) -> None:
        self.threads: dict[str, list[threading.Thread]] = {}
        self.block = block
        self.release = release or threading.Event()
        self._lock = threading.Lock()

    def __call__(self, context: TaskContext) -> Any:
        with self._lock:
            self.threads.setdefault(context.task.id, []).append(threading.current_thread())
        if context.task.id == self.block and context.attempt == 1:
            self.release.wait(10)  # ignores cancellation, like a stuck client call
        return demo_agent(context)


def test_attempts_reuse_the_threads_of_finished_ones(journal: Path) -> None:
    """A 40-task chain runs in one worker thread, not 40, and it exits with the execution."""
    agent = ThreadRecorder()
    result = execute(chain_plan(40), journal, agent=agent, max_concurrency=4)
    assert result.ok
    threads = {id(t): t for ts in agent.threads.values() for t in ts}
    assert len(threads) == 1
    for thread in threads.values():
        thread.join(5)
        assert not thread.is_alive()  # the idle worker left when the execution ended


def test_a_new_attempt_never_waits_behind_an_abandoned_one(journal: Path) -> None:
    """While a timed-out attempt still runs, its thread is given no other work: the next
    tasks run (and finish) in another thread before the abandoned attempt returns."""
    release = threading.Event()
    agent = ThreadRecorder(block="t2", release=release)
    tasks = [{"id": "t1", "description": "One"}, {"id": "t2", "description": "Two"}]
    tasks += [{"id": f"x{i}", "description": f"Independent {i}"} for i in range(5)]
    plan = Plan.from_dict({"goal": "g", "tasks": tasks}, source="handwritten")
    timer = threading.Timer(1.0, release.set)
    timer.start()
    began = time.monotonic()
    try:
        result = execute(
            plan, journal, agent=agent, timeout=0.2, backoff=0.0, grace=5.0, max_concurrency=1
        )
    finally:
        timer.cancel()
    assert result.ok and time.monotonic() - began < 5
    stuck = agent.threads["t2"][0]
    ran_while_stuck = [agent.threads[f"x{i}"][0] for i in range(5)]
    assert all(t is not stuck for t in ran_while_stuck)
    kinds = [(e["event"], e.get("task_id")) for e in _events(journal)]
    ended = kinds.index(("task_succeeded", "t2"))  # its late success, kept (no retry)
    assert kinds.count(("task_started", "t2")) == 1
    assert all(kinds.index(("task_succeeded", f"x{i}")) < ended for i in range(5))
